"""The API's resources (issue 9): filters, ordering, pages, the one error body, amounts as
decimal strings, numbers too large for the database, the table actions, the compliance
report, PAR sheets, the floor and the devices' heartbeats.

The floor is tests/api/conftest.py's `api_floor` (built once for the module): holder A's
SB-01 (a settled round 1 and round 2 wagering), SB-02 open, SB-03 closed, SB-04 bare,
holder B's SB-01 with an automated shaker. Values are worked out by hand from it: e.g.
ann's $10.00 on small won at 1 to 1 on 1-2-3 (total 6, no triple, § 625a.6(a)), so the
settlement returns her stake and pays $10.00 from the table inventory.
"""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework import exceptions

from casino.api.errors import exception_handler
from casino.models import ApiWrite, AuditEntry, Table
from devices.models import Device
from games.models import Wager
from games.par import par_document
from tests.api.conftest import (
    API,
    ERROR_KEYS,
    bearer,
    error_of,
    new_key,
    post,
    session,
)

pytestmark = pytest.mark.django_db

BIG = "1" * 30  # an id no 64-bit column holds


@pytest.fixture
def ops(api_floor):
    return session(api_floor.operations)


def get(client, path: str, **query) -> dict:
    response = client.get(f"{API}/{path}", query)
    assert response.status_code == 200, response.content[:2000]
    return response.json()


def numbers(page: dict) -> list[tuple[int, str]]:
    """(holder, number) of each table on a page."""
    return [(row["holder"], row["number"]) for row in page["results"]]


# --- filters ------------------------------------------------------------------------------


def test_tables_filter_by_status_game_and_holder(api_floor, ops):
    f = api_floor
    a, b = f.a.holder.pk, f.b.holder.pk
    assert sorted(numbers(get(ops, "tables/", status="open"))) == [
        (a, "SB-01"),
        (a, "SB-02"),
        (b, "SB-01"),
    ]
    assert sorted(numbers(get(ops, "tables/", status="closed"))) == [(a, "SB-03"), (a, "SB-04")]
    assert get(ops, "tables/", game="sic_bo")["count"] == 5
    assert get(ops, "tables/", game="craps") == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }
    assert get(ops, "tables/", holder=b)["results"][0]["id"] == f.b.play.pk
    assert get(ops, "tables/", holder=a, status="open")["count"] == 2


def test_rounds_filter_by_table_status_and_when_they_opened(api_floor, ops):
    f = api_floor
    assert [r["number"] for r in get(ops, "rounds/", table=f.a.play.pk)["results"]] == [2, 1]
    settled = get(ops, "rounds/", status="settled")["results"]
    assert sorted(r["id"] for r in settled) == sorted([f.a.round1.pk, f.b.round1.pk])
    assert get(ops, "rounds/", game="sic_bo")["count"] == 4
    assert get(ops, "rounds/", holder=f.b.holder.pk)["count"] == 2
    # Round 1 opened at the floor's moment + 1 minute, round 2 at + 5 minutes.
    second = (f.at + timedelta(minutes=5)).isoformat()
    later = get(ops, "rounds/", opened_after=second)["results"]
    assert sorted(r["id"] for r in later) == sorted([f.a.round2.pk, f.b.round2.pk])
    earlier = get(ops, "rounds/", opened_before=second)["results"]
    assert sorted(r["id"] for r in earlier) == sorted([f.a.round1.pk, f.b.round1.pk])


def test_sets_in_play_filter_by_still_in_play(api_floor, ops):
    f = api_floor
    # Four sets in play (SB-04 has none); a changeout ends one and starts the reserve set.
    assert get(ops, "sets-in-play/", in_play="true")["count"] == 4
    assert get(ops, "sets-in-play/", in_play="false")["count"] == 0
    body = {"composition": "three_dice", "reason": "die_lost", "new_set": f.a.reserve.pk}
    changed = post(ops, f"{API}/tables/{f.a.play.pk}/changeout/", body)
    assert changed.status_code == 201, changed.content

    ended = get(ops, "sets-in-play/", in_play="false")["results"]
    assert [(r["table"], r["removal_reason"]) for r in ended] == [(f.a.play.pk, "die_lost")]
    now_in_play = get(ops, "sets-in-play/", in_play="true", table=f.a.play.pk)["results"]
    assert [r["equipment_set"] for r in now_in_play] == [f.a.reserve.pk]
    assert get(ops, "sets-in-play/", removal_reason="die_lost")["count"] == 1


@pytest.mark.parametrize(
    ("path", "query", "count"),
    [
        ("wagers/", {"player": "bob"}, 2),
        ("wagers/", {"kind": "small"}, 2),
        ("ledger-entries/", {"kind": "settlement"}, 2),
        ("ledger-entries/", {"kind": "placement"}, 4),
        ("devices/", {"kind": "automated_shaker"}, 1),
        ("devices/", {"status": "out_of_order"}, 1),
        ("devices/heartbeats/", {"kind": "automated_shaker"}, 1),
        ("equipment-sets/", {"status": "reserve"}, 2),
        ("rules-submissions/", {"status": "submitted"}, 1),
        ("layouts/", {"status": "submitted"}, 1),
        ("resolutions/", {"result": "win"}, 2),
        ("api-writes/", {"status_code": "200"}, 2),
        ("api-writes/", {"method": "DELETE"}, 0),
    ],
)
def test_each_filter_narrows_its_list(api_floor, ops, path, query, count):
    assert get(ops, path, **query)["count"] == count


def test_filters_on_a_record_and_a_moment(api_floor, ops):
    f = api_floor
    entries = get(ops, "ledger-entries/", round=f.a.round1.pk)["results"]
    assert [e["key"] for e in entries] == [
        f"placement:{f.a.round1.pk}:1",
        f"settlement:{f.a.round1.pk}",
    ]
    assert get(ops, "resolutions/", table=f.a.play.pk)["count"] == 1
    assert get(ops, "wagers/", round=f.b.round2.pk)["results"][0]["player"] == "bob"
    # The api-write rows were written at the floor's moment + 7 minutes.
    seven = (f.at + timedelta(minutes=7)).isoformat()
    assert get(ops, "api-writes/", at_after=seven)["count"] == 2
    assert get(ops, "api-writes/", at_before=seven)["count"] == 0
    events = get(ops, "device-events/", device=f.out_of_order.pk, kind="out_of_order")
    assert [e["detail"] for e in events["results"]] == ["lamp out"]
    audit = get(ops, "audit-entries/", record_type="layout", action="created")
    assert (
        audit["count"]
        == AuditEntry.objects.filter(content_type__model="layout", action="created").count()
    )
    assert audit["count"] >= 3


@pytest.mark.parametrize(
    ("path", "query", "field"),
    [
        ("tables/", {"status": "bogus"}, "status"),
        ("rounds/", {"table": "abc"}, "table"),
        ("rounds/", {"opened_after": "yesterday"}, "opened_after"),
        ("ledger-entries/", {"posted_before": "2026-13-45"}, "posted_before"),
    ],
)
def test_a_bad_filter_value_is_a_400_naming_the_field(api_floor, ops, path, query, field):
    response = ops.get(f"{API}/{path}", query)
    body = error_of(response, 400, "invalid")
    assert list(body["fields"]) == [field]
    assert body["reasons"][0].startswith(f"{field}: ")


# --- ordering and pages ---------------------------------------------------------------------


def test_ordering_by_an_allowed_field_either_way(api_floor, ops):
    a = api_floor.a.holder.pk
    assert [n for _, n in numbers(get(ops, "tables/", holder=a, ordering="-number"))] == [
        "SB-04",
        "SB-03",
        "SB-02",
        "SB-01",
    ]
    assert [n for _, n in numbers(get(ops, "tables/", holder=a, ordering="number"))] == [
        "SB-01",
        "SB-02",
        "SB-03",
        "SB-04",
    ]
    rounds = get(ops, "rounds/", table=api_floor.a.play.pk, ordering="number")["results"]
    assert [r["number"] for r in rounds] == [1, 2]


def test_an_unknown_ordering_field_is_ignored(api_floor, ops):
    """DRF's OrderingFilter drops a field not in `ordering_fields`: the default order
    (holder, then number) stands, and nothing about the hidden field leaks."""
    default = get(ops, "tables/")
    assert get(ops, "tables/", ordering="holder__api_tokens__key_hash") == default
    assert get(ops, "tables/", ordering="-nonsense") == default


def test_pages_count_next_previous_and_results(api_floor, ops):
    first = get(ops, "tables/", page_size=2)
    assert first["count"] == 5
    assert len(first["results"]) == 2
    assert first["previous"] is None
    assert first["next"] == "http://testserver/api/v1/tables/?page=2&page_size=2"
    third = get(ops, "tables/", page_size=2, page=3)
    assert len(third["results"]) == 1
    assert third["next"] is None
    assert third["previous"] == "http://testserver/api/v1/tables/?page=2&page_size=2"


def test_page_size_is_capped_at_500(api_floor, ops):
    user, token = api_floor.a.integrator, api_floor.a.token
    ApiWrite.objects.bulk_create(
        ApiWrite(
            at=api_floor.at,
            user=user,
            token=token,
            method="POST",
            path="/x",
            fingerprint="0",
            status_code=200,
        )
        for _ in range(510)
    )
    assert len(get(ops, "api-writes/")["results"]) == 50  # the default
    assert len(get(ops, "api-writes/", page_size=500)["results"]) == 500
    capped = get(ops, "api-writes/", page_size=100000)
    assert (capped["count"], len(capped["results"])) == (512, 500)
    assert capped["next"].endswith("page=2&page_size=100000")


@pytest.mark.parametrize("page", ["999", "0", "abc", BIG])
def test_a_page_past_the_end_is_a_404_in_the_error_body(api_floor, ops, page):
    body = error_of(ops.get(f"{API}/tables/", {"page": page}), 404, "not_found")
    assert body["detail"] == "Invalid page."


# --- the one error body ---------------------------------------------------------------------


def test_every_refusal_has_the_one_error_body(api_floor, ops):
    f = api_floor
    assert error_of(ops.get(f"{API}/tables/", {"status": "x"}), 400, "invalid")["fields"] == {
        "status": ["Select a valid choice. x is not one of the available choices."]
    }
    error_of(ops.get(f"{API}/tables/", {"page": "99"}), 404, "not_found")
    unauthenticated = error_of(Client().get(f"{API}/tables/"), 401, "not_authenticated")
    assert unauthenticated["reasons"] == ["Authentication credentials were not provided."]
    denied = error_of(
        post(session(f.regulator), f"{API}/tables/{f.closed.pk}/open/"), 403, "permission_denied"
    )
    assert denied["detail"] == "rita_regulator may not open a table (needs casino.operate_table)"
    gone = error_of(ops.delete(f"{API}/tables/{f.a.play.pk}/"), 405, "method_not_allowed")
    assert gone["detail"] == 'Method "DELETE" not allowed.'
    refused = error_of(post(ops, f"{API}/tables/{f.a.play.pk}/open/"), 422, "refused")
    assert refused["reasons"] == ["SB-01 is already open"]
    assert refused["detail"] == "Opening SB-01 refused: SB-01 is already open"


def test_a_throttled_request_has_the_one_error_body_and_says_when_to_retry():
    """The handler shapes a 429 like any other refusal (the budgets: test_throttles.py)."""
    response = exception_handler(exceptions.Throttled(wait=30), {})
    assert response.status_code == 429
    assert set(response.data) == ERROR_KEYS
    assert (response.data["status"], response.data["code"]) == (429, "throttled")
    assert response.data["reasons"] == [response.data["detail"]]
    assert response.data["fields"] == {}
    assert response["Retry-After"] == "30"


def test_a_validation_error_names_each_field_and_nested_field(api_floor, ops):
    f = api_floor
    response = post(ops, f"{API}/tables/{f.a.play.pk}/changeout/", {"reason": "tired"})
    body = error_of(response, 400, "invalid")
    assert body["fields"] == {
        "composition": ["This field is required."],
        "reason": ['"tired" is not a valid choice.'],
    }
    assert body["reasons"] == [
        "composition: This field is required.",
        'reason: "tired" is not a valid choice.',
    ]
    assert body["detail"] == "the request is invalid: " + "; ".join(body["reasons"])
    assert ApiWrite.objects.order_by("-id").first().status_code == 400


# --- amounts --------------------------------------------------------------------------------


def test_amounts_are_decimal_strings_never_floats(api_floor, ops):
    f = api_floor
    table = ops.get(f"{API}/tables/{f.a.play.pk}/")
    assert b'"min_wager":"5.00","max_wager":"500.00"' in table.content
    wager = Wager.objects.get(round=f.a.round1)
    assert get(ops, f"wagers/{wager.pk}/")["amount"] == "10.00"
    resolution = get(ops, "resolutions/", wager=wager.pk)["results"][0]
    assert {k: resolution[k] for k in ("result", "stake", "net", "winnings", "vigorish")} == {
        "result": "win",
        "stake": "10.00",
        "net": "10.00",
        "winnings": "10.00",
        "vigorish": "0.00",
    }
    assert resolution["payout_limit_reduction"] == "0.00"
    settlement = get(ops, "ledger-entries/", round=f.a.round1.pk, kind="settlement")["results"]
    lines = sorted(
        (line["account"], line["player"], line["kind"], line["amount"])
        for line in settlement[0]["lines"]
    )
    # The stake goes back from the layout; the winnings come from the inventory.
    assert lines == [
        ("inventory", "", "winnings", "-10.00"),
        ("layout", "", "stake_returned", "-10.00"),
        ("player", "ann", "stake_returned", "10.00"),
        ("player", "ann", "winnings", "10.00"),
    ]
    for path in ("wagers/", "resolutions/", "ledger-entries/", "tables/"):
        raw = ops.get(f"{API}/{path}").content
        assert not _floats(json.loads(raw)), path


def _floats(value) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _floats(v)]
    if isinstance(value, list):
        return [x for v in value for x in _floats(v)]
    return []


@pytest.mark.parametrize(
    ("amount", "why"),
    [
        ("1e400", "is '1e400', not a decimal string such as \"10.00\""),
        (
            "99999999999999999999",
            "has 20 digits before the point ('99999999999999999999'); at most 12",
        ),
        ("NaN", "is 'NaN', not a decimal string such as \"10.00\""),
        (10.5, 'must be a decimal string such as "10.00", not a JSON number'),
        (10, 'must be a decimal string such as "10.00", not a JSON number'),
    ],
    ids=["1e400", "20 nines", "NaN", "a float", "an integer"],
)
def test_an_amount_not_of_the_one_form_is_a_400_naming_it_never_a_500(api_floor, ops, amount, why):
    """Issue 33: a JSON integer amount was taken and 10.5 refused with empty `fields`; now
    one rule (docs/api.md, "Amounts"), the field named in `fields`."""
    f = api_floor
    before = Wager.objects.count()
    body = {"wagers": [{"player": "cy", "kind": "small", "amount": amount}]}
    response = post(ops, f"{API}/rounds/{f.a.round2.pk}/wagers/", body, key=new_key())
    refused = error_of(response, 400, "invalid")
    assert refused["fields"] == {"wagers[0].amount": [why]}
    assert refused["reasons"] == [f"wagers[0].amount {why}"]
    assert Wager.objects.count() == before


@pytest.mark.parametrize(("amount", "kept"), [("10.", "10.00"), ("25.5", "25.50"), ("7", "7.00")])
def test_an_amount_the_schema_always_allowed_is_taken_to_the_cent(api_floor, ops, amount, kept):
    """`"10."` and `".5"` were schema-valid and taken before issue 33: taken again, kept
    to the cent (docs/api.md, "Amounts")."""
    body = {"wagers": [{"player": "cy", "kind": "small", "amount": amount}]}
    response = post(ops, f"{API}/rounds/{api_floor.a.round2.pk}/wagers/", body, key=new_key())
    assert response.status_code == 201, response.content
    (placed,) = response.json()["wagers"]
    assert placed["amount"] == kept
    assert Wager.objects.get(pk=placed["id"]).amount == Decimal(kept)


def test_a_negative_amount_is_well_formed_and_refused_by_the_rules(api_floor, ops):
    body = {"wagers": [{"player": "cy", "kind": "small", "amount": "-5"}]}
    response = post(ops, f"{API}/rounds/{api_floor.a.round2.pk}/wagers/", body, key=new_key())
    assert error_of(response, 422, "refused")["reasons"] == [
        "2.2: A wager must be more than $0.00 (58 Pa. Code § 625a.4(a))"
    ]


# --- numbers too large, bodies that are not JSON objects --------------------------------------


@pytest.mark.parametrize(
    "path", ["tables", "rounds", "wagers", "devices", "ledger-entries", "rules-submissions"]
)
def test_an_id_of_30_digits_in_a_path_is_a_404(api_floor, ops, path):
    response = ops.get(f"{API}/{path}/{BIG}/")
    assert response.status_code == 404


def test_an_id_of_18_digits_no_row_has_is_the_api_404(api_floor, ops):
    error_of(ops.get(f"{API}/tables/{'9' * 18}/"), 404, "not_found")
    error_of(post(ops, f"{API}/tables/{'9' * 18}/open/"), 404, "not_found")


@pytest.mark.parametrize("path", [f"tables/{BIG}/", "no-such-resource/"])
def test_a_path_no_route_matches_is_the_api_404_too(api_floor, ops, path):
    error_of(ops.get(f"{API}/{path}"), 404, "not_found")


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("rounds/", "table"),
        ("wagers/", "round"),
        ("tables/", "holder"),
        ("device-events/", "device"),
        ("api-writes/", "user"),
        ("sets-in-play/", "equipment_set"),
    ],
)
def test_an_id_of_30_digits_in_a_filter_is_a_400(api_floor, ops, path, field):
    body = error_of(ops.get(f"{API}/{path}", {field: BIG}), 400, "invalid")
    assert body["fields"] == {
        field: ["Select a valid choice. That choice is not one of the available choices."]
    }


@pytest.mark.parametrize(("path", "field"), [("rounds/", "holder"), ("resolutions/", "table")])
def test_an_id_of_30_digits_in_a_number_filter_is_a_400(api_floor, path, field):
    client = session(api_floor.operations, raise_request_exception=False)
    error_of(client.get(f"{API}/{path}", {field: BIG}), 400, "invalid")


def test_an_id_of_30_digits_in_a_body_is_a_400(api_floor, ops):
    response = post(ops, f"{API}/rounds/", {"table": BIG}, key=new_key())
    body = error_of(response, 400, "invalid")
    assert body["fields"] == {
        "table": ["Ensure this value is less than or equal to 4611686018427387904."]
    }


def test_malformed_json_is_a_400_and_changes_nothing(api_floor, ops):
    f = api_floor
    before = (Wager.objects.count(), ApiWrite.objects.count())
    response = ops.post(
        f"{API}/rounds/{f.a.round2.pk}/wagers/",
        data='{"wagers": [',
        content_type="application/json",
        headers={"Idempotency-Key": new_key()},
    )
    body = error_of(response, 400, "parse_error")
    assert body["detail"].startswith("JSON parse error - ")
    assert (Wager.objects.count(), ApiWrite.objects.count()) == before


@pytest.mark.parametrize("text", ["[1, 2]", '"wagers"', "12", "null"])
def test_a_body_that_is_not_a_json_object_is_a_400(api_floor, ops, text):
    f = api_floor
    before = Wager.objects.count()
    response = ops.post(
        f"{API}/rounds/{f.a.round2.pk}/wagers/",
        data=text,
        content_type="application/json",
        headers={"Idempotency-Key": new_key()},
    )
    body = error_of(response, 400, "invalid")
    assert body["detail"] == "the body must be a JSON object"
    assert Wager.objects.count() == before


def test_a_list_for_a_table_action_is_a_400(api_floor, ops):
    response = ops.post(
        f"{API}/tables/{api_floor.a.play.pk}/changeout/",
        data="[1]",
        content_type="application/json",
    )
    body = error_of(response, 400, "invalid")
    assert body["fields"] == {
        "non_field_errors": ["Invalid data. Expected a dictionary, but got list."]
    }


# --- table actions, the compliance report ---------------------------------------------------


def test_opening_a_table_that_is_not_compliant_names_each_reason_and_its_section(api_floor, ops):
    f = api_floor
    response = post(ops, f"{API}/tables/{f.bare.pk}/open/")
    body = error_of(response, 422, "refused")
    assert body["reasons"] == [
        "no set of three dice is in play at SB-04 (58 Pa. Code § 625a.2(a), § 621a.2(d))",
        "the Sic Bo illumination device at SB-04 is out of order: lamp out "
        "(58 Pa. Code § 625a.1(b))",
    ]
    assert body["detail"] == "Opening SB-04 refused: " + "; ".join(body["reasons"])
    assert Table.objects.get(pk=f.bare.pk).status == "closed"


def test_a_table_once_compliant_opens_through_the_api(api_floor, ops):
    f = api_floor
    put = post(ops, f"{API}/tables/{f.bare.pk}/put-in-play/", {"equipment_set": f.a.reserve.pk})
    assert put.status_code == 201, put.content
    back = post(ops, f"{API}/devices/{f.out_of_order.pk}/return-to-service/")
    assert back.json()["status"] == "registered"
    # Registered, not yet heard from: still refused, naming the device.
    still = error_of(post(ops, f"{API}/tables/{f.bare.pk}/open/"), 422, "refused")
    assert still["reasons"] == [
        "the Sic Bo illumination device at SB-04 is registered but not yet heard from "
        "(58 Pa. Code § 625a.1(b))"
    ]
    Device.objects.filter(pk=f.out_of_order.pk).update(status="active")
    opened = post(ops, f"{API}/tables/{f.bare.pk}/open/")
    assert opened.status_code == 200, opened.content
    assert opened.json()["status"] == "open"


def test_a_round_voided_by_the_shaker_section_through_holder_bs_token(api_floor):
    f = api_floor
    path = f"{API}/rounds/{f.b.round2.pk}/void/"
    response = post(bearer(f.b.key), path, {"section": "625a.7(c)"}, key=new_key())
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "result_entered"
    assert [(e["event"], e["source"]) for e in body["events"]][-1] == (
        "shaker_malfunction",
        "integrator",
    )


def test_the_compliance_report_of_a_table_for_a_day(api_floor, ops):
    f = api_floor
    day = timezone.localtime(f.at).date()
    report = get(ops, f"tables/{f.a.play.pk}/compliance-report/", day=day.isoformat())
    assert (report["table"], report["day"]) == ("SB-01", day.isoformat())
    assert [row["record"] for row in report["rows"]] == ["set", "sic_bo_inspection", "status"]
    dice, inspection, status = report["rows"]
    assert (dice["set"], dice["composition"], dice["limit"]) == (
        "SB-01-three_dice-1",
        "three dice",
        "24 hours (58 Pa. Code § 625a.2(b))",
    )
    assert (inspection["floorperson"], inspection["result"]) == (
        "Fran Floor",
        "values 2,5,5; winning combinations lit: yes",
    )
    assert (status["status_before"], status["status_after"]) == ("closed", "open")
    empty = get(ops, f"tables/{f.a.play.pk}/compliance-report/", day="2026-01-01")
    assert empty["rows"] == []
    bad = error_of(
        ops.get(f"{API}/tables/{f.a.play.pk}/compliance-report/", {"day": "someday"}),
        400,
        "invalid",
    )
    assert bad["detail"] == "day 'someday' is not a date such as 2026-11-24"
    assert bad["fields"] == {"day": ["'someday' is not a date such as 2026-11-24"]}
    # The hold's range and words, as the admin's (casino/rules/days.py).
    before = ops.get(f"{API}/tables/{f.a.play.pk}/compliance-report/", {"day": "1999-12-31"})
    refused = error_of(before, 400, "invalid")
    assert refused["detail"] == "day '1999-12-31' is not between 2000-01-01 and 2999-12-31"
    assert refused["fields"] == {"day": ["'1999-12-31' is not between 2000-01-01 and 2999-12-31"]}


# --- PAR, the floor, heartbeats ---------------------------------------------------------------


def test_the_par_sheet_of_sic_bo_gives_each_wagers_house_edge(api_floor, ops):
    sheet = get(ops, "par/sic_bo/")
    assert (sheet["game"], sheet["format"]) == ("sic_bo", 1)
    kinds = {w["kind"]: w for w in sheet["wagers"]}
    # Small wins on totals 4-10 but a triple: 107 - 2 = 105 of 216 throws, at 1 to 1, so
    # the house keeps (111 - 105) / 216 = 1/36 of each dollar.
    small = kinds["small"]
    assert (small["house_edge_exact"], small["house_edge"]) == ("1/36", "0.0277777778")
    assert {o["name"]: o["probability"] for o in small["outcomes"]} == {
        "win": "35/72",
        "lose": "37/72",
    }
    # A specific triple pays 150 to 1 on 1 throw in 216: (215 - 150) / 216 = 65/216.
    assert kinds["triple:1"]["house_edge_exact"] == "65/216"
    assert sheet["wagers"] == par_document("sic_bo", {})["wagers"]


def test_the_par_sheet_of_an_unknown_game_is_a_404_listing_the_games(api_floor, ops):
    body = error_of(ops.get(f"{API}/par/roulette/"), 404, "not_found")
    assert body["detail"] == (
        "no game 'roulette'; the games are craps, high_roll_dice, pai_gow, sic_bo, "
        "three_dice_football"
    )


def test_a_submissions_par_sheets(api_floor, ops):
    """One sheet per variant and table type the submission covers (standard, manual)."""
    sheets = get(ops, f"rules-submissions/{api_floor.a.submission.pk}/par/")
    assert list(sheets) == ["standard/manual"]
    sheet = sheets["standard/manual"]
    assert sheet["title"] == "Sic Bo, manual table"
    small = {w["kind"]: w for w in sheet["wagers"]}["small"]
    assert small == {"kind": "small", "house_edge": "0.0277777778"}


def test_the_floor_through_a_token_shows_only_its_holders_tables(api_floor):
    f = api_floor
    mine = get(bearer(f.a.key), "floor/")
    assert sorted(t["number"] for t in mine["tables"]) == ["SB-01", "SB-02", "SB-03", "SB-04"]
    assert {t["holder"] for t in mine["tables"]} == {"Keystone Test Casino"}
    theirs = get(bearer(f.b.key), "floor/")
    assert [(t["number"], t["holder"]) for t in theirs["tables"]] == [
        ("SB-01", "Allegheny Test Casino")
    ]
    playing = theirs["tables"][0]["round"]
    assert (playing["number"], playing["status"], playing["wagered"]) == (2, "open", "10.00")
    everything = get(session(f.regulator), "floor/")
    assert len(everything["tables"]) == 5


def test_heartbeats_of_the_tokens_holders_devices(api_floor):
    f = api_floor
    beats = get(bearer(f.b.key), "devices/heartbeats/")
    rows = {row["kind"]: row for row in beats["results"]}
    assert sorted(rows) == ["automated_shaker", "illumination_device"]
    shaker = rows["automated_shaker"]
    assert shaker["device"] == f.shaker.device.pk
    assert (shaker["table"], shaker["status"], shaker["live"]) == (f.b.play.pk, "active", True)
    # Heard at the floor's moment; a Sic Bo device beats every 2 s, stale after 3 missed.
    assert shaker["stale_after_seconds"] == 6.0
    assert shaker["last_seen_at"] == timezone.localtime(f.at).isoformat()
    assert shaker["silent_seconds"] >= 20 * 60
    mine = get(bearer(f.a.key), "devices/heartbeats/")
    assert mine["count"] == 4
    assert {row["table"] for row in mine["results"]} == {
        f.a.play.pk,
        f.idle.pk,
        f.closed.pk,
        f.bare.pk,
    }
