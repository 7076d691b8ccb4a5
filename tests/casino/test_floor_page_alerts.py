"""A stuck settlement is an alert at its table (issue 18, point 6): on the floor page, in
its polled data and in GET /api/v1/floor/, with the error, since when, how many times it
was sent and what to do; read with the round in progress, in no query of its own.
"""

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from casino.floor_page import floor_snapshot, summary
from casino.models import Table
from games.models import Round, RoundEvent, SettlementRequest
from games.services.alerts import GUIDANCE, TOO_MANY_SENDS
from games.services.settlement import SettlementError, request_failure_record, round_settle
from tests.api.openapi_check import component_errors, component_fields
from tests.casino.floor_fixtures import T0, compliant_table, operations, staff
from tests.casino.test_floor_page import busy_table, by_number, signed_in
from tests.games.round_fixtures import M, opened, place, result, settle, wager

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)
S = timedelta(seconds=1)
FAILED_AT = T0 + 6 * M
REFUSAL = "is refused on replay: A die shows 1 to 6; 7 is not a face of a die."


def jammed(number: str) -> Round:
    """An open Sic Bo table whose round 1 (ann's $10 on small, thrown 2-3-4 at T0 + 4 min)
    the engine refuses on replay; the worker recorded the failure at FAILED_AT."""
    table = compliant_table("sic_bo", number=number, open_table=True).table
    round_ = opened(table, now=T0 + M)
    place(round_, wager("ann", "small", "10"), now=T0 + 2 * M)
    result(round_, "throw", [2, 3, 4], now=T0 + 4 * M)
    RoundEvent.objects.create(round=round_, seq=4, event="throw", payload=[7, 7, 7], at=T0 + 4 * M)
    request = SettlementRequest.objects.get(round=round_)
    with pytest.raises(SettlementError) as refused:
        round_settle(request.pk, now=T0 + 5 * M)
    request_failure_record(request.pk, refused.value, now=FAILED_AT)
    return round_


def never_settled(number: str, sends: int = 10) -> Round:
    """An open Sic Bo table whose round 1 was sent `sends` times, the last at T0 + 30 min,
    and never settled (no worker serves the queue)."""
    table = compliant_table("sic_bo", number=number, open_table=True).table
    round_ = opened(table, now=T0 + M)
    place(round_, wager("bob", "big", "5"), now=T0 + 2 * M)
    result(round_, "throw", [4, 5, 6], now=T0 + 4 * M)
    SettlementRequest.objects.filter(round=round_).update(sends=sends, sent_at=T0 + 30 * M)
    return round_


def test_a_failed_settlement_is_an_alert_at_its_table():
    round_ = jammed("SB-02")
    quiet = compliant_table("sic_bo", number="SB-01", open_table=True).table
    playing = opened(quiet, now=T0 + M)
    request = SettlementRequest.objects.get(round=round_)

    tables = by_number(floor_snapshot(now=T0 + H))

    assert tables["SB-02"]["settlement_alert"] == {
        "round": {"id": round_.pk, "number": 1},
        "request_id": request.pk,
        "status": "failed",
        "status_display": "failed",
        "kind": "refused",
        "error": f"SettlementError: SB-02 round 1 event #4 (throw) {REFUSAL}",
        "since": FAILED_AT.isoformat(),
        "last_failed_at": FAILED_AT.isoformat(),
        "failures": 1,
        "sends": 1,
        "guidance": GUIDANCE["refused"],
        "admin_url": f"/admin/games/settlementrequest/{request.pk}/change/",
    }
    assert tables["SB-02"]["round"]["status"] == "result_entered"  # still its round
    assert tables["SB-01"]["settlement_alert"] is None
    assert tables["SB-01"]["round"]["id"] == playing.pk


def test_a_request_sent_max_sends_times_is_an_alert_once_its_last_send_has_had_its_time(
    settings,
):
    settings.CASINO_SETTLEMENT_STUCK_SECONDS = 30
    settings.CASINO_SETTLEMENT_MAX_SENDS = 10
    round_ = never_settled("SB-03")
    never_settled("SB-04", sends=9)  # the sweep sends it once more: not an alert yet
    request = SettlementRequest.objects.get(round=round_)

    # Sent the tenth time at T0 + 30 min: in hand for 30 s, then an alert.
    assert by_number(floor_snapshot(now=T0 + 30 * M + 30 * S))["SB-03"]["settlement_alert"] is None
    tables = by_number(floor_snapshot(now=T0 + 30 * M + 31 * S))
    assert tables["SB-03"]["settlement_alert"] == {
        "round": {"id": round_.pk, "number": 1},
        "request_id": request.pk,
        "status": "too_many_sends",
        "status_display": "too many sends",
        "kind": "too_many_sends",
        "error": "sent 10 times; no worker settled it or reported why",
        "since": (T0 + 4 * M).isoformat(),  # the request was written with the result
        "last_failed_at": None,
        "failures": 0,
        "sends": 10,
        "guidance": GUIDANCE[TOO_MANY_SENDS],
        "admin_url": f"/admin/games/settlementrequest/{request.pk}/change/",
    }
    assert tables["SB-04"]["settlement_alert"] is None


def test_a_settled_round_and_a_table_without_a_round_have_no_alert():
    table = compliant_table("sic_bo", number="SB-05", open_table=True).table
    round_ = opened(table, now=T0 + M)
    place(round_, wager("cy", "small", "10"), now=T0 + 2 * M)
    result(round_, "throw", [1, 2, 4], now=T0 + 4 * M)
    settle(round_, now=T0 + 5 * M)
    compliant_table("craps", number="CR-01", open_table=True)
    tables = by_number(floor_snapshot(now=T0 + H))
    assert tables["SB-05"]["settlement_alert"] is None
    assert tables["CR-01"]["settlement_alert"] is None


def test_the_summary_counts_the_stuck_settlements():
    jammed("SB-02")
    never_settled("SB-03")
    compliant_table("sic_bo", number="SB-01", open_table=True)
    assert summary(floor_snapshot(now=T0 + H))["settlements_stuck"] == 2


def test_the_alerts_add_no_query():
    for k, (game, number) in enumerate((("sic_bo", "SB-01"), ("high_roll_dice", "HR-01"))):
        busy_table(game, number, k)
    with CaptureQueriesContext(connection) as before:
        floor_snapshot(now=T0 + 8 * H)
    jammed("SB-07")
    never_settled("SB-08")
    with CaptureQueriesContext(connection) as after:
        snapshot = floor_snapshot(now=T0 + 8 * H)
    alerts = {t["number"]: t["settlement_alert"] for t in snapshot["tables"]}
    assert (alerts["SB-07"]["status"], alerts["SB-08"]["status"]) == ("failed", "too_many_sends")
    assert alerts["SB-01"] is None and alerts["HR-01"] is None
    assert len(after) == len(before), [q["sql"] for q in after.captured_queries]


def test_the_floor_page_shows_the_alert_with_what_to_do(client: Client):
    signed_in(client, operations())
    jammed("SB-02")
    compliant_table("sic_bo", number="SB-01", open_table=True)
    html = client.get("/floor/").content.decode()
    assert html.count('class="block settlement-alert alert-failed" role="alert"') == 1
    assert "<h2>Settlement failed</h2>" in html
    assert f"SettlementError: SB-02 round 1 event #4 (throw) {REFUSAL}" in html
    assert "sent 1 time · failed 1 time" in html
    assert "compliance compares the round&#x27;s recorded events" in html
    assert "<b>1</b> settlement stuck" in html
    assert 'count count-settlements alert"' in html
    data = client.get("/floor/data.json").json()
    assert by_number(data)["SB-02"]["settlement_alert"]["kind"] == "refused"


def test_the_floor_page_without_alerts_says_none_are_stuck(client: Client):
    signed_in(client, operations())
    compliant_table("sic_bo", number="SB-01", open_table=True)
    html = client.get("/floor/").content.decode()
    assert "settlement-alert" not in html
    assert '<span class="count count-settlements"><b>0</b> settlements stuck</span>' in html


def test_the_api_floor_carries_the_alert(client: Client):
    round_ = jammed("SB-02")
    compliant_table("sic_bo", number="SB-01", open_table=True)
    client.force_login(staff("rita_regulator", "regulator"))
    response = client.get("/api/v1/floor/")
    assert response.status_code == 200
    tables: dict[str, Any] = by_number(response.json())
    alert = tables["SB-02"]["settlement_alert"]
    assert (alert["round"], alert["status"], alert["kind"], alert["failures"], alert["sends"]) == (
        {"id": round_.pk, "number": 1},
        "failed",
        "refused",
        1,
        1,
    )
    assert alert["error"].endswith(REFUSAL) and alert["since"] == FAILED_AT.isoformat()
    assert tables["SB-01"]["settlement_alert"] is None
    assert Table.objects.count() == 2


def test_the_api_floor_with_its_alerts_is_the_schema_s_floor(client: Client):
    """Every field the schema's Floor declares, of its type, and no field it does not know
    (the alerts' too: failed and too_many_sends)."""
    jammed("SB-02")
    never_settled("SB-03")
    compliant_table("sic_bo", number="SB-01", open_table=True)
    client.force_login(staff("rita_regulator", "regulator"))
    floor = client.get("/api/v1/floor/").json()
    assert component_errors("Floor", floor) == []
    for table in floor["tables"]:  # no field the schema does not declare either
        assert set(table) == component_fields("FloorTable")
        assert [set(d) for d in table["devices"]] == [component_fields("FloorDevice")] * len(
            table["devices"]
        )
    alerts = {t["number"]: t["settlement_alert"] for t in floor["tables"]}
    assert set(alerts["SB-02"]) == component_fields("SettlementAlert")
    assert alerts["SB-02"]["status"] == "failed" and alerts["SB-01"] is None
    assert alerts["SB-03"]["status"] in ("too_many_sends", "not_sent_again"), alerts["SB-03"]
    # The check can fail: a field the schema does not know, or one of the wrong type.
    table = floor["tables"][0]
    assert component_errors("FloorTable", {**table, "id": "1"}) == [
        "['id']: '1' is not of type 'integer'"
    ]
