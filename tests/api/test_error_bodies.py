"""One error body everywhere (issue 19, point 3): a body over the limit is a JSON 413 read
by nobody, a database or broker outage a JSON 503 with Retry-After (in development and
production alike, and the process answers again once the database is back), Django's own
400, 404 and 500 under /api/ and /devices/ the one body, and a changeout answers the rows
it recorded.

The outage is simulated in the process: the connection's cursor raises what Django raises
from psycopg's error when PostgreSQL is down (tests/workers/test_db_outage_integration.py
takes a real one down). Any other database error is no outage: a 500 (issue 33, part 5).
"""

import json
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import psycopg
import pytest
import redis
from django.db import InterfaceError, OperationalError, connection
from django.test import Client, override_settings

from casino.api.floor import TableViewSet
from casino.api.middleware import database_unreachable
from casino.models import ApiWrite, AuditEntry, SetInPlay
from tests.api.conftest import API, device_request, error_of, new_key, post, session
from tests.database_errors import REFUSED, as_django_raises

pytestmark = pytest.mark.django_db

DEBUG_AND_NOT = pytest.mark.parametrize("debug", [True, False], ids=["development", "production"])


@pytest.fixture
def ops(api_floor) -> Client:
    # raise_request_exception=False: the test client answers what a real server would,
    # rather than re-raising the exception Django turned into a 500.
    return session(api_floor.operations, raise_request_exception=False)


def token_client(key: str) -> Client:
    return Client(headers={"Authorization": f"Bearer {key}"}, raise_request_exception=False)


@contextmanager
def database_down(error: type[Exception] = OperationalError) -> Iterator[None]:
    """Every query fails as it does with PostgreSQL stopped."""
    down = as_django_raises(error, psycopg.OperationalError(REFUSED))
    with mock.patch.object(connection, "cursor", side_effect=down):
        yield


def written() -> tuple[int, int, list]:
    return (
        ApiWrite.objects.count(),
        AuditEntry.objects.count(),
        list(SetInPlay.objects.order_by("pk").values()),
    )


# --- a body over the limit ----------------------------------------------------------------


def changeout_text(length: int) -> str:
    """A changeout body of exactly `length` bytes, its note padded with x."""
    bare = json.dumps({"composition": "three_dice", "reason": "schedule", "note": ""})
    return bare.replace('"note": ""', '"note": "' + "x" * (length - len(bare)) + '"')


@override_settings(CASINO_API_MAX_BODY_BYTES=2048)
def test_a_body_one_byte_over_the_limit_is_a_json_413_and_changes_nothing(api_floor, ops):
    path = f"{API}/tables/{api_floor.a.play.pk}/changeout/"
    before = written()

    over = ops.post(path, data=changeout_text(2049), content_type="application/json")

    body = error_of(over, 413, "body_too_large")
    assert body["detail"] == "the body is 2049 bytes, over the limit of 2048 bytes"
    assert body["reasons"] == [body["detail"]]
    assert written() == before
    # At the limit the body is read: its 1,991-character note is over the 500 allowed.
    at = ops.post(path, data=changeout_text(2048), content_type="application/json")
    assert list(error_of(at, 400, "invalid")["fields"]) == ["note"]


def test_a_10_mb_body_is_a_json_413_under_the_default_limit(api_floor, ops):
    before = written()
    response = ops.post(
        f"{API}/rounds/{api_floor.a.round2.pk}/wagers/",
        data=b"[" + b" " * (10 * 1024 * 1024 - 2) + b"]",
        content_type="application/json",
        headers={"Idempotency-Key": new_key()},
    )
    body = error_of(response, 413, "body_too_large")
    assert body["detail"] == "the body is 10485760 bytes, over the limit of 1048576 bytes"
    assert written() == before


@override_settings(CASINO_DEVICE_MAX_BODY_BYTES=1024)
def test_a_device_body_over_its_limit_is_a_json_413(api_floor, client):
    bare = {"device": api_floor.shaker.device.pk, "pad": ""}
    body = bare | {"pad": "x" * (1025 - len(json.dumps(bare)))}  # one byte over
    response = device_request(client, api_floor.shaker, "POST", "/devices/v1/heartbeat", body)
    detail = error_of(response, 413, "body_too_large")["detail"]
    assert detail == "the body is 1025 bytes, over the limit of 1024 bytes"


# --- the database down ------------------------------------------------------------------


@DEBUG_AND_NOT
@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_database_outage_is_a_json_503_and_the_api_answers_again_after(api_floor, debug, error):
    client = token_client(api_floor.a.key)
    with override_settings(DEBUG=debug):
        with database_down(error):
            response = client.get(f"{API}/tables/")
        body = error_of(response, 503, "database_unavailable")
        assert body["detail"] == "the database is unreachable; try again in 5 seconds"
        assert response["Retry-After"] == "5"

        assert client.get(f"{API}/tables/").status_code == 200


@DEBUG_AND_NOT
def test_a_write_during_an_outage_is_a_503_recorded_nowhere_and_runs_when_retried(
    api_floor, ops, debug
):
    # The session is read in the audit middleware, before any view: the outage is met there.
    f = api_floor
    body = {"composition": "three_dice", "reason": "schedule", "new_set": f.a.reserve.pk}
    path = f"{API}/tables/{f.a.play.pk}/changeout/"
    key = new_key()
    before = written()
    with override_settings(DEBUG=debug), database_down():
        response = post(ops, path, body, key=key)
    error_of(response, 503, "database_unavailable")
    assert response["Retry-After"] == "5"
    assert written() == before

    retried = post(ops, path, body, key=key)  # the same key: nothing was recorded under it
    assert retried.status_code == 201, retried.content
    assert "Idempotent-Replayed" not in retried


@override_settings(CASINO_RETRY_AFTER_SECONDS=12)
def test_a_device_request_during_an_outage_is_a_json_503(api_floor, client):
    client.raise_request_exception = False
    body = {"device": api_floor.shaker.device.pk}
    with database_down():
        response = device_request(client, api_floor.shaker, "POST", "/devices/v1/heartbeat", body)
    assert error_of(response, 503, "database_unavailable")["detail"] == (
        "the database is unreachable; try again in 12 seconds"
    )
    assert response["Retry-After"] == "12"


def test_the_floor_page_during_an_outage_is_a_503_its_data_json(api_floor, ops):
    with database_down():
        page = ops.get("/floor/")
        data = ops.get("/floor/data.json")
    assert (page.status_code, page["Content-Type"], page["Retry-After"]) == (
        503,
        "text/plain; charset=utf-8",
        "5",
    )
    assert page.content == b"the database is unreachable; try again in 5 seconds"
    error_of(data, 503, "database_unavailable")


@DEBUG_AND_NOT
def test_redis_down_under_a_request_is_a_json_503(api_floor, ops, debug):
    down = redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379.")
    with override_settings(DEBUG=debug), mock.patch.object(TableViewSet, "list", side_effect=down):
        response = ops.get(f"{API}/tables/")
    body = error_of(response, 503, "broker_unavailable")
    assert body["detail"] == "the broker is unreachable; try again in 5 seconds"
    assert response["Retry-After"] == "5"


# --- a database error that is no outage --------------------------------------------------

TOO_DEEP = "Expression tree is too large (maximum depth 1000)"


@pytest.mark.parametrize(
    ("cause", "unreachable"),
    [
        (psycopg.OperationalError(REFUSED), True),
        (psycopg.OperationalError("the connection is closed"), True),
        (psycopg.errors.AdminShutdown("terminating connection due to administrator command"), True),
        (psycopg.errors.CannotConnectNow("the database system is starting up"), True),
        (psycopg.errors.ConnectionFailure("connection failure"), True),
        (psycopg.errors.TooManyConnections("sorry, too many clients already"), True),
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), False),
        (psycopg.errors.LockNotAvailable("could not obtain lock on row"), False),
        (psycopg.errors.DiskFull("could not extend file"), False),
        (sqlite3.OperationalError("unable to open database file"), True),
        (sqlite3.OperationalError("database is locked"), True),
        (sqlite3.OperationalError(TOO_DEEP), False),
        (sqlite3.OperationalError("disk I/O error"), False),
        (sqlite3.OperationalError("database or disk is full"), False),
    ],
    ids=lambda value: value if isinstance(value, bool) else f"{type(value).__name__}: {value}",
)
def test_only_a_connection_refused_lost_or_ended_is_the_database_unreachable(cause, unreachable):
    assert database_unreachable(as_django_raises(OperationalError, cause)) is unreachable


def test_an_operational_error_with_no_driver_error_is_no_outage():
    assert not database_unreachable(OperationalError("raised by our own code"))
    assert database_unreachable(InterfaceError("connection already closed"))


@contextmanager
def statement_fails(message: str = TOO_DEEP) -> Iterator[None]:
    """Every query fails as SQLite fails one statement (the database itself answers)."""
    failed = as_django_raises(OperationalError, sqlite3.OperationalError(message))
    with mock.patch.object(connection, "cursor", side_effect=failed):
        yield


@DEBUG_AND_NOT
def test_a_statement_the_database_refuses_is_the_one_500_logged_with_its_traceback(
    api_floor, debug, caplog
):
    client = token_client(api_floor.a.key)
    with override_settings(DEBUG=debug), statement_fails(), caplog.at_level(logging.ERROR):
        response = client.get(f"{API}/tables/")
    body = error_of(response, 500, "server_error")
    assert "Retry-After" not in response
    assert "unreachable" not in body["detail"] and TOO_DEEP not in body["detail"]
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[0] is OperationalError]
    assert logged and str(logged[0].exc_info[1]) == TOO_DEEP
    assert not [r for r in caplog.records if "answered 503" in r.getMessage()]


def test_a_statement_the_database_refuses_is_no_503_on_a_page_either(api_floor, ops):
    with statement_fails("disk I/O error"):
        page = ops.get("/floor/")
    assert page.status_code == 500
    assert b"unreachable" not in page.content


@pytest.mark.parametrize("message", ["database is locked", "unable to open database file"])
def test_sqlite_locked_or_gone_is_the_outage_503(api_floor, message):
    client = token_client(api_floor.a.key)
    with statement_fails(message):
        response = client.get(f"{API}/tables/")
    error_of(response, 503, "database_unavailable")
    assert response["Retry-After"] == "5"


# --- Django's own errors ----------------------------------------------------------------


@DEBUG_AND_NOT
@pytest.mark.parametrize(
    "path", ["/api/v2/tables/", "/api/", "/devices/v1/no-such", "/devices/v1/heartbeat/"]
)
def test_an_unknown_path_under_the_api_is_the_one_404(ops, path, debug):
    with override_settings(DEBUG=debug):
        response = ops.get(path)
    assert error_of(response, 404, "not_found")["detail"] == f"no endpoint at {path}"


@DEBUG_AND_NOT
def test_a_bad_host_under_the_api_is_the_one_400(ops, debug):
    with override_settings(DEBUG=debug):
        response = ops.get(f"{API}/tables/", headers={"Host": "evil.example"})
    assert error_of(response, 400, "bad_request")["detail"] == "the request is malformed"


@DEBUG_AND_NOT
def test_a_crash_under_the_api_is_the_one_500(api_floor, ops, debug):
    crash = RuntimeError("a bug")
    with override_settings(DEBUG=debug), mock.patch.object(TableViewSet, "list", side_effect=crash):
        response = ops.get(f"{API}/tables/")
    body = error_of(response, 500, "server_error")
    assert "a bug" not in body["detail"]  # the log has it, the caller does not


def test_outside_the_api_django_keeps_its_pages(ops):
    response = ops.get("/no-such-page/")
    assert (response.status_code, response["Content-Type"]) == (404, "text/html; charset=utf-8")


# --- a changeout answers what it recorded --------------------------------------------------


def test_a_changeout_answers_the_set_put_in_as_it_always_has(api_floor, ops):
    """The schema's SetInPlay, as before: the reserve set now in play."""
    f = api_floor
    body = {"composition": "three_dice", "reason": "die_lost", "note": "under the rail"}
    body["new_set"] = f.a.reserve.pk
    response = post(ops, f"{API}/tables/{f.a.play.pk}/changeout/", body)

    assert response.status_code == 201, response.content
    assert response["Content-Type"] == "application/json"
    put_in = SetInPlay.objects.get(table=f.a.play, removed_at__isnull=True)
    answer = response.json()
    assert (answer["id"], answer["equipment_set"], answer["removed_at"]) == (
        put_in.pk,
        f.a.reserve.pk,
        None,
    )


def test_a_changeout_with_no_set_put_in_answers_the_set_taken_out(api_floor, ops):
    """It answered 201 with an empty body and no content type (issue 19): now the row it
    ended, with its removal, reason and note."""
    f = api_floor
    taken_out = f.a.in_play
    body = {"composition": "three_dice", "reason": "damaged", "note": "chipped"}
    response = post(ops, f"{API}/tables/{f.a.play.pk}/changeout/", body)

    assert response.status_code == 201, response.content
    assert response["Content-Type"] == "application/json"
    answer = response.json()
    assert (answer["id"], answer["removal_reason"], answer["removal_note"]) == (
        taken_out.pk,
        "damaged",
        "chipped",
    )
    assert answer["removed_at"] is not None
    assert not SetInPlay.objects.filter(table=f.a.play, removed_at__isnull=True).exists()
