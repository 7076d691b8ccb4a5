"""What an integrator meets first (issue 22): bodies are JSON only, a table is named by its
number as well as its id in the filters, and /api/v1/ answers with the list of the API.

The floor is tests/api/conftest.py's: holders A and B each have a table SB-01 with two
rounds; A also has SB-02, SB-03 and SB-04, with no round.
"""

import json
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import Client

from casino.api.floor import TableRef
from casino.models import ApiWrite, Table
from devices.models import Device
from games.models import LedgerEntry, Round, Wager
from tests.api.conftest import API, bearer, error_of, new_key, post, session
from tests.api.openapi_check import component_errors, component_fields

pytestmark = pytest.mark.django_db


@pytest.fixture
def ops(api_floor):
    return session(api_floor.operations)


def ids(client: Client, path: str, **query: str) -> set[int]:
    response = client.get(f"{API}/{path}", query)
    assert response.status_code == 200, response.content[:2000]
    return {row["id"] for row in response.json()["results"]}


# --- JSON only ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/x-www-form-urlencoded", "table=9&table=9"),
        ("multipart/form-data; boundary=B", '--B\r\nContent-Disposition: form-data; name="table"'
         "\r\n\r\n9\r\n--B--\r\n"),
        ("text/plain", '{"table": 9}'),
    ],
    ids=["form", "multipart", "text"],
)  # fmt: skip
def test_a_body_that_is_not_json_is_a_415_and_opens_nothing(api_floor, content_type, body):
    """Before, the form and multipart bodies were parsed: the round's table was ["9", "9"]."""
    f = api_floor
    body = body.replace("9", str(f.idle.pk))
    before = (Round.objects.count(), ApiWrite.objects.count())
    response = bearer(f.a.key).post(
        f"{API}/rounds/",
        data=body,
        content_type=content_type,
        headers={"Idempotency-Key": new_key()},
    )
    answer = error_of(response, 415, "unsupported_media_type")
    assert answer["detail"] == (
        f'Unsupported media type "{content_type}" in request. The API takes application/json only.'
    )
    assert (Round.objects.count(), ApiWrite.objects.count()) == before


def test_a_form_without_an_idempotency_key_is_a_415_too(api_floor):
    """What is wrong first: the body's format, whatever the headers (it was a 400 asking
    for a key, and the form would have been refused once the key came)."""
    f = api_floor
    response = bearer(f.a.key).post(
        f"{API}/rounds/",
        data=f"table={f.idle.pk}",
        content_type="application/x-www-form-urlencoded",
    )
    error_of(response, 415, "unsupported_media_type")
    # A JSON body without a key is still asked for its key.
    error_of(
        post(bearer(f.a.key), f"{API}/rounds/", {"table": f.idle.pk}),
        400,
        "idempotency_key_required",
    )


def test_the_same_request_as_json_opens_the_round(api_floor):
    f = api_floor
    response = post(bearer(f.a.key), f"{API}/rounds/", {"table": f.idle.pk}, key=new_key())
    assert response.status_code == 201, response.content
    assert (response.json()["table"], response.json()["number"]) == (f.idle.pk, 1)


def test_a_write_without_a_body_needs_no_content_type(api_floor, ops):
    """`curl -X POST` sends no body and no Content-Type: nothing to parse, no 415."""
    f = api_floor
    response = ops.generic("POST", f"{API}/tables/{f.a.play.pk}/suspend/")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "suspended"


# --- ?table= takes a number --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["rounds/", "wagers/", "resolutions/", "ledger-entries/", "ledger-lines/"]
)
def test_a_token_s_filter_by_number_is_its_filter_by_id(api_floor, path):
    f = api_floor
    token = bearer(f.a.key)
    by_id = ids(token, path, table=str(f.a.play.pk))
    assert by_id  # A's SB-01 has rows here
    assert ids(token, path, table="SB-01") == by_id  # B's SB-01 is not the token's


def test_a_staff_filter_by_number_finds_the_table_of_that_number_at_each_holder(api_floor, ops):
    f = api_floor
    rounds = {f.a.round1.pk, f.a.round2.pk, f.b.round1.pk, f.b.round2.pk}
    assert ids(ops, "rounds/", table="SB-01") == rounds
    assert ids(ops, "rounds/", table=str(f.a.play.pk)) == {f.a.round1.pk, f.a.round2.pk}
    assert ids(ops, "rounds/", table="SB-03") == set()  # A's closed table: no round
    assert ids(ops, "devices/", table="SB-04") == set(f.bare.devices.values_list("pk", flat=True))


@pytest.mark.parametrize(
    ("client", "value", "reason"),
    [
        ("ops", "SB-99", "no table numbered 'SB-99' (name a table by its id or its number)"),
        ("ops", "sb-01", "no table numbered 'sb-01' (name a table by its id or its number)"),
        ("token", "SB-01x", "no table numbered 'SB-01x' (name a table by its id or its number)"),
        ("ops", "1" * 30, TableRef.UNKNOWN_ID),
    ],
)  # fmt: skip
def test_a_number_or_id_that_names_no_table_is_a_400_naming_the_parameter(
    api_floor, ops, client, value, reason
):
    caller = ops if client == "ops" else bearer(api_floor.a.key)
    body = error_of(caller.get(f"{API}/rounds/", {"table": value}), 400, "invalid")
    assert body["fields"] == {"table": [reason]}
    assert body["reasons"] == [f"table: {reason}"]


def test_a_number_only_b_has_is_a_400_for_a_s_token(api_floor):
    """A number only B's table has names none of A's: refused, as an unknown number is
    (nothing says B has such a table); staff find B's table by it."""
    f = api_floor
    Table.objects.filter(pk=f.b.play.pk).update(number="SB-B1")  # rolled back after the test
    body = error_of(bearer(f.a.key).get(f"{API}/rounds/", {"table": "SB-B1"}), 400, "invalid")
    assert body["fields"] == {
        "table": ["no table numbered 'SB-B1' (name a table by its id or its number)"]
    }
    assert ids(session(f.operations), "rounds/", table="SB-B1") == {f.b.round1.pk, f.b.round2.pk}


# --- a filter that names a record: among those the caller sees ----------------------------------

SCHEMA = yaml.safe_load((Path(settings.BASE_DIR) / "docs" / "api" / "openapi.yaml").read_text())
# Every query parameter the schema says names a record: (path, parameter, kind of record).
RECORD_FILTERS = sorted(
    (path.removeprefix(f"{API}/"), parameter["name"], parameter["x-names-a-record"])
    for path, methods in SCHEMA["paths"].items()
    for parameter in methods.get("get", {}).get("parameters", [])
    if "x-names-a-record" in parameter
)
NOWHERE = "987654321"  # an id no record of any kind has


def _holders_record(floor, kind: str, side) -> int:
    """The id of one record of `kind` of holder `side` (A or B)."""
    holder = side.holder
    return {
        "certificate holder": lambda: holder.pk,
        "table": lambda: side.play.pk,
        "round": lambda: side.round1.pk,
        "wager": lambda: Wager.objects.filter(table__holder=holder).first().pk,
        "ledger entry": lambda: LedgerEntry.objects.filter(table__holder=holder).first().pk,
        "equipment set": lambda: side.reserve.pk,
        "device": lambda: Device.objects.filter(table__holder=holder).first().pk,
        "API token": lambda: side.token.pk,
        "user": lambda: side.token.user_id,
        "webhook endpoint": lambda: side.webhook_endpoint.pk,
    }[kind]()


def test_every_record_filter_is_checked_below():
    kinds = {kind for _, _, kind in RECORD_FILTERS}
    assert len(RECORD_FILTERS) >= 29 and "webhook endpoint" in kinds and "user" in kinds


@pytest.mark.parametrize(("path", "name", "kind"), RECORD_FILTERS)
def test_another_holder_s_record_in_a_filter_is_refused_as_one_that_exists_nowhere(
    api_floor, path, name, kind
):
    """A's token: B's id is the 400 an id of no record is (it said 200 and an empty list,
    telling that B's record exists); A's own id filters; staff filter by B's."""
    f = api_floor
    client = bearer(f.a.key)
    own, theirs = _holders_record(f, kind, f.a), _holders_record(f, kind, f.b)
    answer = client.get(f"{API}/{path}", {name: own})
    if answer.status_code == 403:  # a list the token's role may not read: nothing to filter
        assert path == "audit-entries/", path
        return
    assert answer.status_code == 200, answer.content[:500]
    nowhere = error_of(client.get(f"{API}/{path}", {name: NOWHERE}), 400, "invalid")
    refused = error_of(client.get(f"{API}/{path}", {name: theirs}), 400, "invalid")
    assert refused == nowhere
    assert list(refused["fields"]) == [name]
    staff = session(f.operations).get(f"{API}/{path}", {name: theirs})
    assert staff.status_code == 200, staff.content[:500]


# --- /api/v1/ -----------------------------------------------------------------------------------


@pytest.mark.parametrize("caller", ["anonymous", "token", "regulator"])
def test_the_api_root_lists_the_api_to_anyone(api_floor, caller):
    client = {
        "anonymous": Client,
        "token": lambda: bearer(api_floor.a.key),
        "regulator": lambda: session(api_floor.regulator),
    }[caller]()
    response = client.get(f"{API}/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content
    listed = json.loads(response.content)
    assert listed["rounds"] == "http://testserver/api/v1/rounds/"
    assert listed["floor"] == "http://testserver/api/v1/floor/"
    assert listed["schema"] == "http://testserver/api/v1/schema/"
    assert listed["docs"] == "http://testserver/api/v1/docs/"
    assert len(listed) == 20  # the router's 17 resources, the floor, the schema, the docs


def test_the_404_body_sends_people_to_a_root_that_answers(api_floor):
    token = bearer(api_floor.a.key)
    missing = error_of(token.get(f"{API}/no-such-thing/"), 404, "not_found")
    assert "the list is at /api/v1/" in missing["detail"]
    assert token.get(f"{API}/").status_code == 200


# --- the typed answers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "game", ["craps", "high_roll_dice", "pai_gow", "sic_bo", "three_dice_football"]
)
def test_each_game_s_par_sheet_is_the_schema_s_par_sheet(api_floor, game):
    sheet = bearer(api_floor.a.key).get(f"{API}/par/{game}/").json()
    assert component_errors("ParSheet", sheet) == []
    assert set(sheet) == component_fields("ParSheet")
    assert {field for wager in sheet["wagers"] for field in wager} == component_fields("ParWager")
    assert sheet["game"] == game


def test_the_floor_of_a_token_is_the_schema_s_floor(api_floor):
    floor = bearer(api_floor.a.key).get(f"{API}/floor/").json()
    assert component_errors("Floor", floor) == []
    assert sorted(t["number"] for t in floor["tables"]) == ["SB-01", "SB-02", "SB-03", "SB-04"]
