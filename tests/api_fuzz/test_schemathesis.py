"""No request to /api/v1/ gets a server error (issue 9, item 5), and every answer is the
one the schema declares (issue 22).

Schemathesis generates requests for every operation of the committed schema
(docs/api/openapi.yaml; test_schema_committed.py checks it is the code's), valid ones and
invalid ones (its positive and negative modes, mixed), and each is sent in-process to the
Django app as WSGI, as a staff superuser (session cookie and CSRF) and as an integrator's
API token. The checks (CHECKS) are schemathesis' `not_a_server_error` and its
conformance checks: the status is one the operation declares, with its content type, a
body of its schema (an error's `code` one of the enum) and its required headers.

Each (operation, caller) runs these flavours, EXAMPLES_PER_FLAVOUR requests each:
- generated: as schemathesis made it;
- realistic: the ids of the floor's records in the path, the query and the body, and for
  the round writes a body the engine takes, so the services run to the end;
- huge: numbers past 64 bits (and numbers that are no integer) in the path, every integer
  query parameter and the body, and odd orderings;
- malformed (writes): a broken body under various content types, to a path that resolves.
Every POST gets an Idempotency-Key (a fresh UUID, or one time in five a key the API must
refuse): the committed schema names it on POST /rounds/ only (see
test_schema_committed.py), and without one the round writes would stop at 400.

The floor (conftest.py) has records of every kind, so real ids are found; each request runs
in a savepoint rolled back after it. Hypothesis runs derandomized, from a seed fixed per
(operation, caller, flavour): CI sends the same requests every time. A request found to get
a 5xx is kept below as a strict xfail ("Known server errors"), and only its operation is
left out of the fuzzing (EXCLUDED).
"""

import copy
import hashlib
import json
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.db import transaction
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api_fuzz.conftest import WEBHOOK_URL, FuzzFloor

SCHEMA_FILE = Path(django_settings.BASE_DIR) / "docs" / "api" / "openapi.yaml"
SCHEMA = schemathesis.openapi.from_path(SCHEMA_FILE)
OPERATIONS = {found.ok().label: found.ok() for found in SCHEMA.get_all_operations()}
SQLITE = django_settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")

# Requests per (operation, caller, flavour): the file runs in about 1-2 minutes on 2 cores.
EXAMPLES_PER_FLAVOUR = 8

# Operations left out of the fuzzing because a generated request gets a 5xx that is not
# fixed yet. Each one's minimal request is a strict xfail in "Known server errors" below:
# when it is fixed the xfail fails (XPASS); then delete it and the operation's line here.
EXCLUDED: dict[str, str] = {}  # none now: the 5xx found so far are fixed (tests below)
FUZZED = sorted(label for label in OPERATIONS if label not in EXCLUDED)

CALLERS = ("staff", "token")
READ_FLAVOURS = ("generated", "realistic", "huge")
WRITE_FLAVOURS = (*READ_FLAVOURS, "malformed")

# Every answer is held to the schema too: its status is one the operation declares, with
# the declared content type, a body of the declared shape and the declared headers.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]

# Requests sent, per (operation, caller), and their statuses: conftest.py prints them.
SENT: Counter[tuple[str, str]] = Counter()
STATUSES: Counter[int] = Counter()

# Past 64 bits first (what a column cannot hold), then the edges and what is no integer.
HUGE_NUMBERS = [10**30, 2**63, -(2**63) - 1, 2**64, -(10**30), 10**400, 2**63 - 1, -1, 0]
HUGE_TEXTS = ["9" * 400, "1e400", "-1e400", "Infinity", "NaN", "0x7fffffffffffffff", "1.5"]
HUGE_IDS = ["9" * 18, "000000000000000001", str(2**63 - 1), str(10**30), "0"]
ODD_ORDERINGS = ["__proto__", "-" + "x" * 1000, "id,,-", "'; DROP TABLE x; --", "-"]
ODD_KEYS = [
    "",
    "key with a trailing space ",
    "k" * 256,
    "k" * 10_000,
    "tab\tkey",
    "clé",
    "\x7f",
    "dup",
]
MALFORMED_BODIES = [
    b'{"wagers": [{"player": "p", "kind": "x", "amount": 1e400}]}',
    b'{"table": 1e400, "reason": -1e400}',
    b'{"table": NaN}',
    b'{"table": 99999999999999999999999999999999}',
    b'{"wagers": [{"player": "p", "kind": "x", "amount": "' + b"9" * 400 + b'"}]}',
    b'{"wagers": "not a list"}',
    b'{"wagers": [null, 1, "x", []]}',
    b'{"wagers": [{"player": "p", "kind": "small", "amount": 10.5}]}',
    b'{"event": "throw", "payload": ' + b"[" * 300 + b"]" * 300 + b"}",
    b'{"event": "throw", "payload": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"section": {"$gt": ""}}',
    b"{",
    b"[]",
    b"null",
    b'"just a string"',
    b"\xff\xfe\x00{\x00}",
    b'{"a": "\xc3\x28"}',
    b"",
    b"table=1&table=2",
    b"--boundary\r\nContent-Disposition: form-data\r\n\r\nx",
]
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=latin-1",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "multipart/form-data; boundary=boundary",
    "application/xml",
    "",
]
# Body fields and query parameters that name a record: where its id is drawn from.
ID_FIELDS = {
    "table": "tables",
    "equipment_set": "equipment-sets",
    "new_set": "equipment-sets",
    "holder": "certificate-holders",
    "round": "rounds",
    "wager": "wagers",
    "device": "devices",
}


def resource_of(operation: Any) -> tuple[str, str]:
    """("rounds", "wagers") for /api/v1/rounds/{id}/wagers/: the collection and action."""
    parts = [part for part in operation.path.split("/") if part]
    return parts[2], parts[-1] if len(parts) > 3 else ""


def label_of(case: Any) -> str:
    return case.operation.label


def integer_query(operation: Any) -> list[str]:
    """The operation's integer query parameters, and those that name a record (`?table=`
    takes an id or a number: a string in the schema)."""
    return [
        parameter.name
        for parameter in operation.query
        if parameter.definition.get("schema", {}).get("type") in ("integer", "number")
        or parameter.name in ID_FIELDS
    ]


def realistic(case: Any, data: Any, floor: FuzzFloor) -> None:
    """Ids of real records in the path, the query and the body; a body the engine takes
    for the round writes (the round, its game's wagers, its result or its void)."""
    collection, action = resource_of(case.operation)
    if case.path_parameters and "id" in case.path_parameters:
        pool = floor.ids.get(collection) or floor.all_ids()
        case.path_parameters["id"] = str(data.draw(st.sampled_from(pool), label="real id"))
    for name in integer_query(case.operation):
        if name in ID_FIELDS and data.draw(st.booleans(), label=f"filter {name}"):
            case.query = dict(case.query or {})
            case.query[name] = data.draw(st.sampled_from(floor.ids[ID_FIELDS[name]]), label=name)
    if case.query and "page" in case.query:
        case.query["page"] = 1
    if isinstance(case.body, dict):
        for key, pool in ID_FIELDS.items():
            if key in case.body:
                case.body[key] = data.draw(st.sampled_from(floor.ids[pool]), label=key)
    bodies = {
        "wagers": floor.round_wagers,
        "result": floor.round_results,
        "void": floor.round_voids,
    }.get(action)
    if label_of(case) in (
        "POST /api/v1/webhook-endpoints/",
        "PATCH /api/v1/webhook-endpoints/{id}/",
    ):
        # A URL the server-side request forgery check takes, so the service runs to the end.
        case.body = {**(case.body if isinstance(case.body, dict) else {}), "url": WEBHOOK_URL}
        case.media_type = "application/json"
    if label_of(case) == "POST /api/v1/rounds/":
        tables = [floor.free_table, *floor.tables.values()]
        case.body = {"table": data.draw(st.sampled_from(tables), label="table")}
        case.media_type = "application/json"
    if collection == "rounds" and bodies:
        round_id = data.draw(st.sampled_from(sorted(bodies)), label="round")
        case.path_parameters["id"] = str(round_id)
        case.body = copy.deepcopy(bodies[round_id])
        case.media_type = "application/json"


def huge(value: Any, data: Any) -> Any:
    """Every number in a body, and every amount, past what any column holds."""
    if isinstance(value, dict):
        return {
            key: (
                data.draw(st.sampled_from(HUGE_TEXTS), label="amount")
                if key == "amount"
                else huge(item, data)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [huge(item, data) for item in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return data.draw(st.sampled_from(HUGE_NUMBERS), label="number")
    return value


def hugify(case: Any, data: Any) -> None:
    """Huge ids in the path, huge or non-numeric numbers in every integer query parameter,
    an odd ordering, and huge numbers in the body."""
    if case.path_parameters and "id" in case.path_parameters:
        case.path_parameters["id"] = data.draw(st.sampled_from(HUGE_IDS), label="huge id")
    numbers = [str(number) for number in HUGE_NUMBERS] + HUGE_TEXTS
    for name in integer_query(case.operation):
        case.query = dict(case.query or {})
        case.query[name] = data.draw(st.sampled_from(numbers), label=name)
    if any(parameter.name == "ordering" for parameter in case.operation.query):
        case.query = dict(case.query or {})
        case.query["ordering"] = data.draw(st.sampled_from(ODD_ORDERINGS), label="ordering")
    if isinstance(case.body, dict | list):
        case.body = huge(case.body, data)


def malformed(data: Any) -> tuple[bytes, dict[str, str]]:
    """A broken body, and the content type to send it under."""
    body = data.draw(
        st.one_of(st.sampled_from(MALFORMED_BODIES), st.binary(max_size=64)), label="body"
    )
    content_type = data.draw(st.sampled_from(CONTENT_TYPES), label="content type")
    return body, {"Content-Type": content_type} if content_type else {}


def idempotency_key(data: Any) -> str:
    """A fresh key mostly (a replay is a 2xx too); one time in five a key to refuse."""
    if data.draw(st.integers(0, 4), label="odd key?") == 4:
        return data.draw(st.sampled_from(ODD_KEYS), label="odd key")
    return str(data.draw(st.uuids(), label="key"))


def server_error_report(case: Any, response: Any, tracebacks: list[str]) -> str:
    """The request, the status and the server's traceback, for the failure."""
    last = "\n".join(tracebacks[-1].strip().splitlines()[-12:]) if tracebacks else "(none)"
    return (
        f"{case.operation.label} answered {response.status_code}.\n"
        f"Request: {response.request.method} {response.request.url}\n"
        f"Headers: {dict(response.request.headers)}\n"
        f"Body: {response.request.body!r:.2000}\n"
        f"Server traceback (last lines):\n{last}"
    )


def fixed_seed(*parts: str) -> int:
    """A seed stable across runs and machines (Python's hash() is not)."""
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:8], "big")


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("label", FUZZED)
def test_every_generated_request_gets_a_declared_answer_and_no_server_error(
    label: str, caller: str, fuzz_floor: FuzzFloor, wsgi_app: Any, server_errors: list[str]
) -> None:
    operation = OPERATIONS[label]
    headers, cookies = (
        fuzz_floor.staff_credentials() if caller == "staff" else fuzz_floor.token_credentials()
    )
    cases = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )
    writes = operation.method.upper() == "POST"

    def send(data: Any, flavour: str) -> None:
        case = data.draw(cases, label="case")
        sent_headers = dict(headers)
        body: dict[str, Any] = {}
        if flavour == "realistic":
            realistic(case, data, fuzz_floor)
        elif flavour == "huge":
            hugify(case, data)
        elif flavour == "malformed":
            realistic(case, data, fuzz_floor)  # a path that resolves: the body is broken
            body["data"], content_type = malformed(data)
            sent_headers.update(content_type)
        if writes and not (case.headers or {}).get("Idempotency-Key"):
            sent_headers["Idempotency-Key"] = idempotency_key(data)
        if caller == "staff" and case.headers:
            case.headers.pop("Authorization", None)  # the session is the credential
        server_errors.clear()
        with transaction.atomic():
            try:
                response = case.call(app=wsgi_app, headers=sent_headers, cookies=cookies, **body)
                SENT[(label, caller)] += 1
                STATUSES[response.status_code] += 1
                try:
                    case.validate_response(response, checks=CHECKS)
                except (AssertionError, BaseExceptionGroup) as failure:
                    report = server_error_report(case, response, server_errors)
                    raise AssertionError(report) from failure
            finally:
                transaction.set_rollback(True)

    def fuzz(flavour: str) -> Any:
        @seed(fixed_seed(label, caller, flavour))
        @settings(
            max_examples=EXAMPLES_PER_FLAVOUR,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=(Phase.explicit, Phase.generate, Phase.shrink),
            print_blob=False,
        )
        @given(data=st.data())
        def examples(data: Any) -> None:
            send(data, flavour)

        return examples

    for flavour in WRITE_FLAVOURS if writes else READ_FLAVOURS:
        fuzz(flavour)()


# --- hand-written requests that must be refused (4xx) -----------------------------------


def _send(
    app: Any,
    floor: FuzzFloor,
    caller: str,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    content_type: str = "application/json",
    headers: dict[str, str] | None = None,
    query: str = "",
) -> Any:
    """One request through the WSGI app as `caller` ("staff", "token" or "anonymous"), in
    a savepoint rolled back after it; a werkzeug response. A POST gets an Idempotency-Key
    unless `headers` name one."""
    from werkzeug.test import Client

    client = Client(app)
    sent, cookies = {
        "staff": floor.staff_credentials,
        "token": floor.token_credentials,
        "anonymous": lambda: ({}, {}),
    }[caller]()
    for name, value in cookies.items():
        client.set_cookie(name, value, domain="localhost")
    all_headers = {**sent, **(headers or {})}
    if method == "POST" and "Idempotency-Key" not in all_headers:
        all_headers["Idempotency-Key"] = str(uuid.uuid4())
    with transaction.atomic():
        try:
            return client.open(
                path,
                method=method,
                data=body,
                content_type=content_type if body is not None else None,
                headers=all_headers,
                query_string=query,
            )
        finally:
            transaction.set_rollback(True)


class ServerErrorAnswered(AssertionError):
    """A 5xx: what the strict xfails below expect (raises=), so no other failure hides."""


def _no_server_error(response: Any, server_errors: list[str]) -> None:
    if response.status_code >= 500:
        raise ServerErrorAnswered(
            f"{response.status_code}; server traceback:\n" + "\n".join(server_errors[-1:])
        )


def _refused(response: Any, server_errors: list[str], *statuses: int) -> dict[str, Any] | None:
    """Assert a 4xx (one of `statuses` when given); the error body when it is JSON."""
    _no_server_error(response, server_errors)
    assert 400 <= response.status_code < 500, (response.status_code, response.get_data()[:500])
    if statuses:
        assert response.status_code in statuses, (response.status_code, response.get_data()[:500])
    if response.mimetype == "application/json":
        body = json.loads(response.get_data())
        assert {"status", "code", "detail", "reasons", "fields"} <= set(body), body
        assert body["status"] == response.status_code
        return body
    return None


def _round_id(floor: FuzzFloor) -> int:
    return min(floor.round_wagers)


BY_EITHER_CALLER = pytest.mark.parametrize("caller", CALLERS)
WAGERS_1E400 = b'{"wagers": [{"player": "p", "kind": "x", "amount": 1e400}]}'


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_an_amount_of_1e400_sent_as_raw_text_is_refused(
    caller, fuzz_floor, wsgi_app, server_errors
):
    path = f"/api/v1/rounds/{_round_id(fuzz_floor)}/wagers/"
    _refused(_send(wsgi_app, fuzz_floor, caller, "POST", path, body=WAGERS_1E400), server_errors)


WRITES = sorted(label for label, operation in OPERATIONS.items() if operation.method == "post")


@pytest.mark.django_db
@pytest.mark.parametrize("label", WRITES)
def test_a_body_with_1e400_is_refused_by_every_write(label, fuzz_floor, wsgi_app, server_errors):
    """Found by the fuzzing (a 500 on SQLite: Infinity in ApiWrite.body), per write."""
    collection = label.split("/")[3]
    path = label.split(" ")[1].replace("{id}", str(fuzz_floor.ids[collection][0]))
    response = _send(wsgi_app, fuzz_floor, "token", "POST", path, body=b'{"x": 1e400}')
    _refused(response, server_errors)


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_an_amount_of_400_nines_is_refused(caller, fuzz_floor, wsgi_app, server_errors):
    body = json.dumps({"wagers": [{"player": "p", "kind": "small", "amount": "9" * 400}]})
    path = f"/api/v1/rounds/{_round_id(fuzz_floor)}/wagers/"
    response = _send(wsgi_app, fuzz_floor, caller, "POST", path, body=body.encode())
    _refused(response, server_errors)


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_a_10_mb_body_is_refused(caller, fuzz_floor, wsgi_app, server_errors):
    path = f"/api/v1/rounds/{_round_id(fuzz_floor)}/wagers/"
    garbage = b"x" * (10 * 1024 * 1024)
    _refused(_send(wsgi_app, fuzz_floor, caller, "POST", path, body=garbage), server_errors)
    one_string = json.dumps({"wagers": [{"player": "p" * (10 * 1024 * 1024), "kind": "small"}]})
    response = _send(wsgi_app, fuzz_floor, caller, "POST", path, body=one_string.encode())
    _refused(response, server_errors)


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_a_text_plain_body_is_refused(caller, fuzz_floor, wsgi_app, server_errors):
    body = json.dumps({"table": fuzz_floor.tables["craps"]}).encode()
    response = _send(
        wsgi_app,
        fuzz_floor,
        caller,
        "POST",
        "/api/v1/rounds/",
        body=body,
        content_type="text/plain",
    )
    _refused(response, server_errors, 415)


DEEP = {
    "arrays": b'{"event": "throw", "payload": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "objects": b'{"a": ' * 10_000 + b"1" + b"}" * 10_000,
}


@pytest.mark.django_db
@BY_EITHER_CALLER
@pytest.mark.parametrize("nesting", sorted(DEEP))
def test_json_nested_10000_deep_is_refused(caller, nesting, fuzz_floor, wsgi_app, server_errors):
    path = f"/api/v1/rounds/{_round_id(fuzz_floor)}/result/"
    response = _send(wsgi_app, fuzz_floor, caller, "POST", path, body=DEEP[nesting])
    _refused(response, server_errors, 400)


@pytest.mark.django_db
@BY_EITHER_CALLER
@pytest.mark.parametrize(
    "path",
    [
        f"/api/v1/tables/{10**30}/",
        f"/api/v1/rounds/{10**30}/wagers/",
        f"/api/v1/devices/{10**30}/",
        f"/api/v1/tables/{'9' * 18}/",
        f"/api/v1/rounds/{'9' * 18}/",
        f"/api/v1/rounds/{'9' * 18}/no-more-bets/",
        f"/api/v1/tables/{2**63}/compliance-report/",
        f"/api/v1/rules-submissions/{'9' * 18}/par/",
    ],
)
def test_an_id_past_64_bits_in_the_path_is_not_found(
    caller, path, request, fuzz_floor, wsgi_app, server_errors
):
    method = "POST" if path.endswith(("wagers/", "no-more-bets/")) else "GET"
    body = b'{"wagers": []}' if method == "POST" else None
    response = _send(wsgi_app, fuzz_floor, caller, method, path, body=body)
    _refused(response, server_errors, 404)


QUERY_IDS = [
    ("rounds", "table"),
    ("rounds", "holder"),
    ("wagers", "round"),
    ("wagers", "table"),
    ("tables", "holder"),
    ("rules-submissions", "holder"),
    ("layouts", "holder"),
    ("equipment-sets", "holder"),
    ("api-writes", "user"),
    ("api-writes", "token"),
    ("api-writes", "status_code"),
    ("audit-entries", "actor"),
    ("audit-entries", "object_id"),
    ("devices", "table"),
    ("devices/heartbeats", "table"),
    ("resolutions", "round"),
    ("resolutions", "wager"),
    ("resolutions", "table"),
    ("sets-in-play", "table"),
    ("sets-in-play", "equipment_set"),
    ("ledger-entries", "table"),
    ("ledger-entries", "round"),
    ("ledger-lines", "entry"),
    ("ledger-lines", "round"),
    ("ledger-lines", "table"),
    ("ledger-lines", "wager"),
    ("device-events", "device"),
    ("device-events", "table"),
    ("device-events", "round"),
]


@pytest.mark.django_db
@BY_EITHER_CALLER
@pytest.mark.parametrize("value", [10**30, 2**63])
@pytest.mark.parametrize(("collection", "name"), QUERY_IDS)
def test_an_id_past_64_bits_in_the_query_is_no_server_error(
    caller, collection, name, value, fuzz_floor, wsgi_app, server_errors
):
    path = f"/api/v1/{collection}/"
    response = _send(wsgi_app, fuzz_floor, caller, "GET", path, query=f"{name}={value}")
    _no_server_error(response, server_errors)
    # Nothing matches (an empty page), refused as invalid (400), or not the token's to read.
    if response.status_code == 200:
        assert json.loads(response.get_data())["results"] == []
    else:
        _refused(response, server_errors, 400, 403)


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_page_10_to_the_30_is_not_found(caller, fuzz_floor, wsgi_app, server_errors):
    response = _send(wsgi_app, fuzz_floor, caller, "GET", "/api/v1/tables/", query=f"page={10**30}")
    _refused(response, server_errors, 404)


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_a_negative_page_size_gives_the_default_page(caller, fuzz_floor, wsgi_app, server_errors):
    """Not a 4xx: DRF ignores a page size that is not a positive integer (the default page)."""
    response = _send(wsgi_app, fuzz_floor, caller, "GET", "/api/v1/tables/", query="page_size=-1")
    _no_server_error(response, server_errors)
    assert response.status_code == 200, response.get_data()[:500]
    assert len(json.loads(response.get_data())["results"]) >= 1


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_ordering_by_proto_is_ignored(caller, fuzz_floor, wsgi_app, server_errors):
    """Not a 4xx: an ordering on no allowed field is dropped (DRF's OrderingFilter)."""
    for path in ("/api/v1/tables/", "/api/v1/rounds/", "/api/v1/wagers/", "/api/v1/devices/"):
        response = _send(wsgi_app, fuzz_floor, caller, "GET", path, query="ordering=__proto__")
        _no_server_error(response, server_errors)
    assert response.status_code == 200, response.get_data()[:500]


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_a_body_that_is_not_utf8_is_refused(caller, fuzz_floor, wsgi_app, server_errors):
    path = f"/api/v1/rounds/{_round_id(fuzz_floor)}/wagers/"
    body = b'{"wagers": [{"player": "\xff\xfe", "kind": "small", "amount": "10"}]}'
    _refused(_send(wsgi_app, fuzz_floor, caller, "POST", path, body=body), server_errors, 400)


@pytest.mark.django_db
@BY_EITHER_CALLER
def test_an_idempotency_key_of_10000_characters_is_refused(
    caller, fuzz_floor, wsgi_app, server_errors
):
    path = f"/api/v1/rounds/{_round_id(fuzz_floor)}/no-more-bets/"
    response = _send(
        wsgi_app, fuzz_floor, caller, "POST", path, headers={"Idempotency-Key": "k" * 10_000}
    )
    body = _refused(response, server_errors, 400)
    assert body is not None and body["code"] == "idempotency_key_invalid", body


@pytest.mark.django_db
@pytest.mark.parametrize("authorization", ["Bearer", "Bearer cft_x_y", "Bearer " + "a" * 10_000])
def test_a_malformed_token_is_not_authenticated(authorization, fuzz_floor, wsgi_app, server_errors):
    headers = {"Authorization": authorization}
    response = _send(wsgi_app, fuzz_floor, "anonymous", "GET", "/api/v1/tables/", headers=headers)
    _refused(response, server_errors, 401)


@pytest.mark.django_db
def test_rejecting_a_rules_submission_is_no_server_error(fuzz_floor, wsgi_app, server_errors):
    """Found by the fuzzing (a TypeError, fixed): a valid reject is answered."""
    path = f"/api/v1/rules-submissions/{fuzz_floor.submitted_submission}/reject/"
    body = b'{"note": "the PAR sheet is missing"}'
    response = _send(wsgi_app, fuzz_floor, "staff", "POST", path, body=body)
    _no_server_error(response, server_errors)
    assert response.status_code == 200, response.get_data()[:500]


@pytest.mark.django_db
def test_a_changeout_of_an_unknown_composition_to_a_new_set_is_refused(
    fuzz_floor, wsgi_app, server_errors
):
    """Found by the fuzzing (a KeyError in set_changeout, fixed): refused, not a 500."""
    path = f"/api/v1/tables/{fuzz_floor.tables['craps']}/changeout/"
    body = json.dumps(
        {
            "composition": "no_such_dice",
            "reason": "damaged",
            "new_set": fuzz_floor.reserve_sets["five_dice"],
        }
    ).encode()
    response = _send(wsgi_app, fuzz_floor, "token", "POST", path, body=body)
    _refused(response, server_errors, 400, 422)


# --- Known server errors: each a strict xfail until fixed (see EXCLUDED above) ------------

# Django's page_not_found reads the body for its CSRF check: a multipart body without a
# boundary was a 500 there (found by this fuzzing). casino/urls.py handler404 reads none.


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/rounds/x/result/",
        "/api/v1/no-such-thing/",
        "/no-such-page/",
    ],
)
def test_a_multipart_body_without_boundary_to_no_route_is_refused(
    path, fuzz_floor, wsgi_app, server_errors
):
    response = _send(
        wsgi_app, fuzz_floor, "staff", "POST", path, body=b"x", content_type="multipart/form-data"
    )
    _refused(response, server_errors, 400, 404)
