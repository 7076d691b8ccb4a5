"""A round waiting on a device through the REST API (issue 33, part 4), as an integrator
sees it: `device_wait` on the round (and its list) and on GET /api/v1/floor/, typed as the
schema's DeviceWait; the way out taken through the API (the void of § 621a.6(a)(1), every
stake returned) and the device's report after it refused.
"""

from datetime import datetime
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from casino.services.api_tokens import token_issue
from devices.models import Device
from games.models import Round
from gaming.waits import device_waits_check
from tests.api.conftest import API, bearer, integrator_user, new_key, operations_user
from tests.api.conftest import post as post_json
from tests.api.openapi_check import component_errors, component_fields
from tests.casino.floor_fixtures import compliant_table, staff
from tests.casino.test_floor_page import by_number
from tests.devices.device_fixtures import heard
from tests.devices.test_consequences import PAI_GOW_WAGERS, STACKS
from tests.devices.test_device_waits import S, closed_pai_gow, closed_sic_bo, every_stake_returned
from tests.devices.test_reports import post as device_post
from tests.games.round_fixtures import M, settle
from tests.webhooks.fixtures import endpoint_make
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.CASINO_DEVICE_WAIT_SECONDS = 30


def integrator_floor() -> tuple[Any, Client, Device]:
    """PG-01 as the demo floor has it, a minute before the wall clock, with its generator
    giving the start alone (no shaker in the Rules Submission), and an integrator's token."""
    now = timezone.now().replace(microsecond=0) - M
    floor = compliant_table(
        "pai_gow", number="PG-01", now=now, options={"starting_position": "rng"}, open_table=True
    )
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="floor", by=operations_user(), now=now
    )
    generator = Device.objects.get(table=floor.table, kind="pai_gow_rng")
    return floor.table, bearer(key), generator


def call(client: Client, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
    response = post_json(client, f"{API}/{path}", body, key=new_key())
    assert response.status_code == status, response.content[:2000]
    return response.json()


def test_through_the_api_the_round_shows_the_wait_and_the_void_returns_every_stake(
    endpoint_clock,
):
    table, client, generator = integrator_floor()
    round_id = call(client, "rounds/", {"table": table.pk}, status=201)["id"]
    wagers = [{**w, "amount": str(w["amount"])} for w in PAI_GOW_WAGERS]
    call(client, f"rounds/{round_id}/wagers/", {"wagers": wagers}, status=201)
    closed = call(client, f"rounds/{round_id}/no-more-bets/")
    assert component_errors("RoundDetail", closed) == []
    wait = closed["device_wait"]
    assert (wait["kind"], wait["device"]["id"], wait["alert"]) == (
        "pai_gow_rng",
        generator.pk,
        False,
    )
    assert set(wait) == component_fields("DeviceWait")
    assert [(w["way"], w["section"]) for w in wait["ways_out"]] == [("void", "621a.6(a)(1)")]

    # Half a minute later (as if): an alert, on the round and on the floor.
    Round.objects.filter(pk=round_id).update(closed_at=timezone.now() - 31 * S)
    shown = client.get(f"{API}/rounds/{round_id}/").json()
    assert shown["device_wait"]["alert"] is True
    listed = client.get(f"{API}/rounds/?table={table.pk}").json()["results"]
    assert listed[0]["device_wait"]["alert"] is True
    floor = client.get(f"{API}/floor/").json()
    assert component_errors("Floor", floor) == []
    assert by_number(floor)["PG-01"]["device_wait"]["alert"] is True

    voided = call(client, f"rounds/{round_id}/void/", {"section": "621a.6(a)(1)"})
    assert voided["status"] == "result_entered" and voided["device_wait"] is None
    assert voided["events"][-1]["event"] == "irregularity"
    assert voided["events"][-1]["payload"] == {"kind": "no_starting_position"}
    round_ = Round.objects.get(pk=round_id)
    # The generator's number, late: refused, nothing written.
    endpoint_clock.at(timezone.now())
    body = {"table": "PG-01", "round": round_.number, "number": 7}
    late = device_post(endpoint_clock, generator, body, timezone.now())
    assert late.status_code == 422 and late.json()["code"] == "refused"
    assert settle(round_, now=timezone.now()) == "settled"
    every_stake_returned(round_, {"p1": "20", "p2": "10", "p3": "25"})


def test_the_api_refuses_the_void_once_the_generator_has_posted(endpoint_clock):
    table, client, generator = integrator_floor()
    round_id = call(client, "rounds/", {"table": table.pk}, status=201)["id"]
    call(client, f"rounds/{round_id}/wagers/", {"wagers": [dict(PAI_GOW_WAGERS[0])]}, status=201)
    call(client, f"rounds/{round_id}/no-more-bets/")
    body = {"table": "PG-01", "round": 1, "number": 9}
    assert device_post(endpoint_clock, generator, body, timezone.now()).status_code == 200
    assert client.get(f"{API}/rounds/{round_id}/").json()["device_wait"] is None
    refused = call(client, f"rounds/{round_id}/void/", {"section": "621a.6(a)(1)"}, status=422)
    assert refused["reasons"] == [
        "the generator posted 9 for this round: that number gives the starting position; "
        "deal from it (58 Pa. Code § 621a.6(b))"
    ]


def test_a_regulator_reads_the_waits_on_the_floor(client: Client):
    closed_pai_gow(fallback=True)
    closed_sic_bo()
    client.force_login(staff("rita_regulator", "regulator"))
    floor = client.get(f"{API}/floor/").json()
    assert component_errors("Floor", floor) == []
    waits = [t["device_wait"] for t in floor["tables"]]
    assert sorted(w["kind"] for w in waits if w) == ["automated_shaker", "pai_gow_rng"]
    assert all(set(w) == component_fields("DeviceWait") for w in waits if w)


def test_the_alert_raised_by_beat_is_told_by_webhook_as_the_api_shows_the_wait():
    """round.waiting_on_device is written in the transaction that raises the alert (once),
    carrying the wait as `GET /rounds/{id}/` shows its `device_wait`."""
    table, client, generator = integrator_floor()
    endpoint_make(table.holder, "http://127.0.0.1:9/hook", ["round.waiting_on_device"])
    round_id = call(client, "rounds/", {"table": table.pk}, status=201)["id"]
    wagers = [{**w, "amount": str(w["amount"])} for w in PAI_GOW_WAGERS]
    call(client, f"rounds/{round_id}/wagers/", {"wagers": wagers}, status=201)
    call(client, f"rounds/{round_id}/no-more-bets/")
    Round.objects.filter(pk=round_id).update(closed_at=timezone.now() - 31 * S)

    now = timezone.now()
    assert device_waits_check(now) == [round_id]
    assert device_waits_check(now + M) == []
    (told,) = Event.objects.filter(event_type="round.waiting_on_device")
    shown = client.get(f"{API}/rounds/{round_id}/").json()["device_wait"]
    data = told.data
    assert (data["round"], data["round_number"], data["table"], data["table_number"]) == (
        round_id,
        shown["round"]["number"],
        table.pk,
        "PG-01",
    )
    for moment in ("since", "alert_at"):
        assert data[moment].endswith("Z")
        assert datetime.fromisoformat(data[moment]) == datetime.fromisoformat(shown[moment])
    same = {k: v for k, v in shown.items() if k not in ("round", "since", "alert_at")}
    assert {k: data[k] for k in same} == same
    assert data["device"]["id"] == generator.pk


# --- what `next` lists is what the round takes (the gates through the API) ------------------

DIRECT_DEAL = {"dealer": STACKS[4], "positions": {"1": STACKS[5], "2": STACKS[6], "4": STACKS[0]}}


def test_at_pg_01_no_deal_before_the_generators_number_and_next_says_so(endpoint_clock):
    """58 Pa. Code § 621a.6(a)(1), (b) at PG-01 (the generator gives the start alone): a
    deal of any form is refused until the generator's number is recorded, during wagering
    (a result closes it) and after "no more bets"; `next` lists no `deal` until then, and
    lists the void of § 621a.6(a)(1) (with `irregularity`) while the round waits. A no roll
    is the shaker's (§ 621a.10(a)), never at this table. Once the number is posted the deal
    is taken; after it the void for want of a start is refused, and `next` omits it."""
    table, client, generator = integrator_floor()
    round_id = call(client, "rounds/", {"table": table.pk}, status=201)["id"]
    wagers = [{**w, "amount": str(w["amount"])} for w in PAI_GOW_WAGERS]
    placed = call(client, f"rounds/{round_id}/wagers/", {"wagers": wagers}, status=201)["round"]
    assert "deal" not in placed["next"]["events"]
    waiting = (
        "no deal at PG-01 until the random number generator's number for round 1 is "
        "recorded: it gives the starting position (58 Pa. Code § 621a.6(a)(1), (b))"
    )
    body = {"event": "deal", "payload": DIRECT_DEAL}
    assert call(client, f"rounds/{round_id}/result/", body, status=422)["reasons"] == [waiting]
    assert client.get(f"{API}/rounds/{round_id}/").json()["status"] == "open"
    closed = call(client, f"rounds/{round_id}/no-more-bets/")
    assert closed["next"] == {"events": ["irregularity"], "wagers": [], "voids": ["621a.6(a)(1)"]}
    assert call(client, f"rounds/{round_id}/result/", body, status=422)["reasons"] == [waiting]
    refused = call(client, f"rounds/{round_id}/no-roll/", status=422)
    assert refused["reasons"] == [
        "the random number generator at PG-01 is working: the starting position comes from "
        "it (58 Pa. Code § 621a.6(a)(1))"
    ]

    endpoint_clock.at(timezone.now())
    report = {"table": "PG-01", "round": 1, "number": 5}
    assert device_post(endpoint_clock, generator, report, timezone.now()).status_code == 200
    posted = client.get(f"{API}/rounds/{round_id}/").json()
    assert posted["next"] == {"events": ["deal"], "wagers": [], "voids": []}
    dealt = call(client, f"rounds/{round_id}/result/", body)
    assert dealt["status"] == "closed" and dealt["state"]["dealt"] is True
    assert dealt["next"]["voids"] == ["621a.10(c)", "621a.10(e)"]
    assert "no_roll" not in dealt["next"]["events"] and "deal" not in dealt["next"]["events"]
    call(client, f"rounds/{round_id}/void/", {"section": "621a.6(a)(1)"}, status=422)
    call(client, f"rounds/{round_id}/no-roll/", status=422)


def test_at_sb_02_a_round_opened_with_the_manual_shaker_is_the_dealers_to_throw():
    """58 Pa. Code § 625a.5(b), § 625a.7(d) through the API: SB-02's automated shaker marked
    out of order, the next round opens with the manual shaker (`options.shaker`); the
    shaker returned to service while the round is closed does not make it wait on it, and
    the dealer's throw 2-3-5 is taken (round 206 of the review was refused)."""
    now = timezone.now().replace(microsecond=0) - M
    floor = compliant_table("sic_bo", number="SB-02", now=now, automated_shaker=True,
                            open_table=True)  # fmt: skip
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="floor", by=operations_user(), now=now
    )
    client = bearer(key)
    shaker = Device.objects.get(table=floor.table, kind="automated_shaker")
    marked = call(client, f"devices/{shaker.pk}/out-of-order/", {"reason": "dome jammed"})
    assert marked["status"] == "out_of_order"
    opened = call(client, "rounds/", {"table": floor.table.pk}, status=201)
    assert opened["options"]["shaker"] == "manual" and opened["state"]["shaker"] == "manual"
    wagers = [{"player": "ann", "kind": "small", "amount": "10"}]
    call(client, f"rounds/{opened['id']}/wagers/", {"wagers": wagers}, status=201)
    call(client, f"rounds/{opened['id']}/no-more-bets/")
    call(client, f"devices/{shaker.pk}/return-to-service/")
    others = Device.objects.filter(table=floor.table).exclude(pk=shaker.pk)
    heard(shaker, *others, now=timezone.now())
    assert Device.objects.get(pk=shaker.pk).status == "active"
    shown = client.get(f"{API}/rounds/{opened['id']}/").json()
    assert shown["device_wait"] is None
    assert shown["next"] == {"events": ["throw", "no_roll"], "wagers": [], "voids": []}
    thrown = call(
        client, f"rounds/{opened['id']}/result/", {"event": "throw", "payload": [2, 3, 5]}
    )
    assert thrown["status"] == "result_entered"
