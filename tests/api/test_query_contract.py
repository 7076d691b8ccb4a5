"""The server takes exactly what the schema says (issue 33, part 7), found by schemathesis
against a live floor (tests/api_fuzz/test_schemathesis_live.py) and pinned here, in-process:

- a query value the parameter's schema does not take is refused, 400 `invalid` naming
  it, where it was read as "no filter" (`?at_after=`, `?status=`, `?in_play=maybe`,
  `?status_code=1.5`); `?page_size=null` is refused where it gave the default page;
  `?page=` and `?page=last` are no page (404);
- `?format=` names no format (404, as an unknown one is), and OPTIONS is the JSON
  description whatever the format or Accept asked (it was a 500 at the CSV endpoints);
- a `?day=` is the schema's `YYYY-MM-DD` of the years 2000 to 2999 (`20261124` was read);
- a request line over CASINO_API_MAX_REQUEST_LINE is the one JSON 414 the schema declares;
- a changeout's `composition` is one of the schema's enum (400 naming it), and an event's
  `payload` takes any JSON value, null too, the engine judging it (422 naming the form).
"""

from urllib.parse import quote

import pytest
from django.test import Client, override_settings

from tests.api.conftest import API, bearer, error_of, new_key, post, session

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(api_floor) -> Client:
    return bearer(api_floor.a.key)


@pytest.fixture
def ops_client(api_floor) -> Client:
    """Operations staff: they read the audit trail too."""
    return session(api_floor.operations)


# --- filters --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "query", "name"),
    [
        ("audit-entries", "at_after=", "at_after"),  # a date-time
        ("rounds", "status=", "status"),  # an enum
        ("rounds", "holder=", "holder"),  # an id
        ("api-writes", "status_code=", "status_code"),  # an integer
        ("sets-in-play", "in_play=", "in_play"),  # a boolean
    ],
)
def test_an_empty_value_of_a_typed_filter_is_refused_naming_it(ops_client, path, query, name):
    body = error_of(ops_client.get(f"{API}/{path}/?{query}"), 400, "invalid")
    assert body["fields"] == {
        name: ["may not be empty: leave the parameter out not to filter by it"]
    }


def test_an_empty_free_text_filter_is_taken_and_filters_nothing(token, api_floor):
    """`?player=` is a string the schema takes (django-filter: no filter)."""
    response = token.get(f"{API}/wagers/?player=")
    assert response.status_code == 200, response.content
    assert response.json()["results"] == token.get(f"{API}/wagers/").json()["results"]
    assert response.json()["count"] == 2  # bob's and ann's, of holder A


@pytest.mark.parametrize("value", ["maybe", "2", "yes please"])
def test_a_boolean_filter_takes_true_or_false_only(token, value):
    body = error_of(token.get(f"{API}/sets-in-play/?in_play={value}"), 400, "invalid")
    assert body["fields"] == {"in_play": ["must be true or false"]}


def test_a_boolean_filter_still_filters(token, api_floor):
    in_play = token.get(f"{API}/sets-in-play/?in_play=true").json()["results"]
    assert in_play and all(row["removed_at"] is None for row in in_play)


@pytest.mark.parametrize("value", ["1.5", "1e2", "1_000", " 5"])
def test_an_integer_filter_takes_an_integer_only(ops_client, value):
    response = ops_client.get(f"{API}/api-writes/?status_code={quote(value)}")
    body = error_of(response, 400, "invalid")
    assert body["fields"] == {"status_code": ["must be an integer"]}


def test_an_integer_filter_still_filters(ops_client, api_floor):
    rows = ops_client.get(f"{API}/api-writes/?status_code=200").json()["results"]
    assert rows and {row["status_code"] for row in rows} == {200}


def test_a_nul_in_a_free_text_filter_is_refused_as_its_pattern_says(token):
    body = error_of(token.get(f"{API}/wagers/?player=a%00b"), 400, "invalid")
    assert list(body["fields"]) == ["player"]


# --- pages ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["null", "", "ten", "1.5", "1_0"])
def test_a_page_size_that_is_no_integer_is_refused(token, value):
    body = error_of(token.get(f"{API}/tables/?page_size={value}"), 400, "invalid")
    assert body["fields"] == {
        "page_size": [
            "must be an integer: the rows a page holds, 1 to 500 (a larger one gives 500; "
            "zero or less, the default 50)"
        ]
    }


@pytest.mark.parametrize(("value", "size"), [("1", 1), ("0", 50), ("-3", 50), ("900", 500)])
def test_an_integer_page_size_is_taken_as_documented(token, api_floor, value, size):
    response = token.get(f"{API}/wagers/?page_size={value}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body["results"]) == min(size, body["count"])
    if size == 1 and body["count"] > 1:
        assert "page_size=1" in body["next"]


@pytest.mark.parametrize("value", ["", "last", "0", "x"])
def test_a_page_that_is_no_page_number_is_a_404(token, value):
    error_of(token.get(f"{API}/tables/?page={value}"), 404, "not_found")


# --- formats and OPTIONS --------------------------------------------------------------------


def test_an_empty_format_is_no_format_a_404_naming_the_formats(token, api_floor):
    body = error_of(token.get(f"{API}/hold/?format="), 404, "not_found")
    assert body["detail"] == "?format= names no format: this endpoint renders csv, json"
    table = api_floor.a.play.pk
    error_of(token.get(f"{API}/tables/{table}/hold/?format="), 404, "not_found")


@pytest.mark.parametrize(
    "path",
    ["hold/?format=csv", "tables/{table}/hold/?format=csv&day=2026-11-24",
     "equipment-sets/fairness/?format=csv", "equipment-sets/{set}/fairness/?format=csv"],
)  # fmt: skip
@pytest.mark.parametrize("accept", [None, "text/csv"])
def test_options_is_the_json_description_whatever_format_was_asked(token, api_floor, path, accept):
    """Found by schemathesis: the CSV renderer was handed the description (a 500)."""
    path = path.format(table=api_floor.a.play.pk, set=api_floor.a.in_play.equipment_set_id)
    headers = {"Accept": accept} if accept else {}
    response = token.options(f"{API}/{path}", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    assert "text/csv" in response.json()["renders"]


# --- days -----------------------------------------------------------------------------------


@pytest.mark.parametrize("day", ["20261124", "2026-W48-2", "1999-12-31", "3000-01-01", ""])
def test_a_day_outside_the_schema_s_pattern_is_refused(token, ops_client, api_floor, day):
    error_of(token.get(f"{API}/hold/?day={day}"), 400, "invalid")
    path = f"{API}/tables/{api_floor.a.play.pk}/compliance-report/?day={day}"
    error_of(ops_client.get(path), 400, "invalid")


def test_a_day_of_the_pattern_is_taken(token, ops_client, api_floor):
    assert token.get(f"{API}/hold/?day=2026-11-24").json()["day"] == "2026-11-24"
    path = f"{API}/tables/{api_floor.a.play.pk}/compliance-report/?day=2999-12-31"
    assert ops_client.get(path).json()["day"] == "2999-12-31"


# --- the request line -----------------------------------------------------------------------


def _line(path: str) -> int:
    return len(f"GET {path} HTTP/1.1")


@override_settings(CASINO_API_MAX_REQUEST_LINE=2000)
def test_a_request_line_over_the_limit_is_the_one_json_414(token):
    at = f"{API}/tables/?player="
    at += "p" * (2000 - _line(at))
    assert token.get(at).status_code == 200
    over = token.get(at + "p")
    body = error_of(over, 414, "uri_too_long")
    assert body["detail"].startswith("the request line is 2001 bytes, over the limit of 2000")


@override_settings(CASINO_API_MAX_REQUEST_LINE=2000)
def test_a_request_line_over_the_limit_outside_the_api_is_a_line_of_text(token):
    response = token.get("/admin/?q=" + "q" * 2000)
    assert response.status_code == 414
    assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_the_schema_declares_the_414_of_every_operation_with_the_limit_in_force():
    from casino.api.schema import error_meaning

    assert "over 4094 bytes (CASINO_API_MAX_REQUEST_LINE)" in error_meaning(414)


# --- bodies ---------------------------------------------------------------------------------


def test_a_changeout_of_a_composition_not_in_the_enum_is_refused_naming_it(token, api_floor):
    path = f"{API}/tables/{api_floor.a.play.pk}/changeout/"
    response = post(token, path, {"composition": "dice_5", "reason": "damaged"})
    body = error_of(response, 400, "invalid")
    assert list(body["fields"]) == ["composition"]


@pytest.mark.parametrize(
    ("write", "event", "status", "code"),
    [("events", "wagers", 400, "invalid"), ("result", "throw", 422, "refused")],
)
def test_a_null_payload_is_judged_by_the_floor_not_the_schema(
    token, api_floor, write, event, status, code
):
    """The schema's payload is any JSON value: null is judged past the schema, as any other
    payload of the wrong form is: wagers by their form (400 naming `wagers`, as every
    wager's form is), a throw by the engine (422 naming what the event takes)."""
    path = f"{API}/rounds/{api_floor.a.round2.pk}/{write}/"
    response = post(token, path, {"event": event, "payload": None}, key=new_key())
    body = error_of(response, status, code)
    assert body["reasons"], body
    if code == "invalid":
        assert list(body["fields"]) == ["wagers"]
