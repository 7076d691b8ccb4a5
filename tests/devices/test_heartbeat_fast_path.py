"""The heartbeat's fast path through casino.wsgi (HeartbeatHandler), against Django's.

A signed POST /devices/v1/heartbeat reaches the same view through a shorter handler
(casino/wsgi.py): no URL resolving, and only the middleware that acts on it. These tests
send requests as gunicorn would, as a WSGI environ to `casino.wsgi.application`, and
check that the fast path took them and that its answers are Django's own: the same status,
the same error body, the same headers (but `Vary: Cookie`, which only the session
middleware's reading of the user adds), and nothing written by a refusal.

The heartbeat tests of test_signed_requests.py run again here with `client` sending through
casino.wsgi (imported below: pytest collects them in this module, with this module's
`client`), so every refusal they hold the Django path to (a bad signature, a replay, a
revoked, unknown or retired key, a body over the limit, an unreachable store answered 503,
Redis losing its data) holds on the fast path too.
"""

# The fixtures imported from test_signed_requests are named again as tests' parameters.
# ruff: noqa: F811

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import override_settings

from casino import wsgi
from devices import auth, signing
from devices.services import Issued, credential_revoke
from devices.store import store
from gaming.devices import device_retire
from tests.casino.floor_fixtures import operations
from tests.database_errors import connection_refused
from tests.devices.test_signed_requests import (  # noqa: F401 - tests collected again, fixtures  # noqa: F401
    HEARTBEAT,
    NOW,
    assert_refused,
    beat,
    clock,
    either_store,
    headers_for,
    monotonic,
    redis_store,
    sic_bo,
    state,
    test_a_body_changed_after_signing_is_refused,
    test_a_body_over_the_limit_is_refused_413_unread,
    test_a_body_that_is_not_a_json_object_naming_the_device_is_refused,
    test_a_device_naming_another_device_is_refused,
    test_a_heartbeat_read_fresh_after_a_revocation_is_refused,
    test_a_heartbeat_replayed_after_redis_lost_its_data_is_refused,
    test_a_heartbeat_with_other_fields_is_refused,
    test_a_retired_device_is_refused,
    test_a_revoked_credential_stops_cached_heartbeats_at_once,
    test_a_revoked_key_with_a_cached_credential_is_refused_after_redis_lost_its_data,
    test_a_signature_for_another_path_is_refused,
    test_a_signature_with_the_wrong_secret_is_refused,
    test_a_signed_heartbeat_is_taken_and_lands_in_the_store,
    test_a_timestamp_beyond_the_skew_is_refused,
    test_a_timestamp_within_the_skew_is_accepted,
    test_an_unknown_key_is_refused,
    test_an_unreachable_store_answers_503,
    test_each_header_is_required,
    test_malformed_headers_are_refused,
    test_rotation_the_old_secret_works_through_the_grace_and_not_after,
    test_the_same_heartbeat_twice_is_a_replay,
)

pytestmark = pytest.mark.django_db


class Answer:
    """A WSGI answer, read like the test client's response."""

    def __init__(self, status: str, headers: list[tuple[str, str]], content: bytes) -> None:
        self.status_code = int(status.split()[0])
        self.headers = headers
        self.content = content

    def __getitem__(self, name: str) -> str:
        return next(v for k, v in self.headers if k.lower() == name.lower())

    def json(self) -> Any:
        return json.loads(self.content)


def environ_for(
    method: str, path: str, body: bytes, headers: dict[str, str], **extra: str
) -> dict[str, Any]:
    """What gunicorn hands the application for this request."""
    environ = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "testserver",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
    }
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ | extra


def call(application: Any, environ: dict[str, Any]) -> Answer:
    """One request through `application`, as a WSGI server makes it. The request signals
    fire, but without closing the test's connection (as Django's test client does)."""
    started: list[tuple[str, list[tuple[str, str]]]] = []
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        chunks = application(environ, lambda status, headers: started.append((status, headers)))
        try:
            content = b"".join(chunks)
        finally:
            if hasattr(chunks, "close"):  # optional in WSGI (PEP 3333)
                chunks.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return Answer(*started[0], content)


class WsgiClient:
    """The test client's `post` and `get`, through casino.wsgi.application."""

    def post(self, path: str, data: bytes, content_type: str, headers: dict[str, str]) -> Answer:
        environ = environ_for("POST", path, data, headers, CONTENT_TYPE=content_type)
        return call(wsgi.application, environ)

    def get(self, path: str) -> Answer:
        return call(wsgi.application, environ_for("GET", path, b"", {}))


@pytest.fixture
def taken() -> dict[str, int]:
    """How many requests each handler answered."""
    return {"fast": 0, "django": 0}


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch, taken: dict[str, int]) -> WsgiClient:
    """Requests through casino.wsgi, each handler's requests counted."""
    for name, attribute in (("fast", "heartbeat_application"), ("django", "django_application")):
        handler = getattr(wsgi, attribute)

        def counted(environ: Any, start: Any, handler: Any = handler, name: str = name) -> Any:
            taken[name] += 1
            return handler(environ, start)

        monkeypatch.setattr(wsgi, attribute, counted)
    return WsgiClient()


def both(issued: Issued, body: Any = None, **headers: str) -> tuple[Answer, Answer]:
    """The same signed heartbeat (one nonce) answered by the fast path, then by Django."""
    raw = body if isinstance(body, bytes) else json.dumps(body or {"device": issued.device.pk})
    raw = raw if isinstance(raw, bytes) else raw.encode()
    signed = headers_for(issued, HEARTBEAT, raw) | headers
    fast = call(wsgi.heartbeat_application, environ_for("POST", HEARTBEAT, raw, signed))
    django = call(wsgi.django_application, environ_for("POST", HEARTBEAT, raw, signed))
    return fast, django


def _ids_masked(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers with each X-Request-ID's value (one made per request) masked."""
    return [(k, "<id>" if k == "X-Request-ID" and len(v) == 32 else v) for k, v in headers]


def assert_same(fast: Answer, django: Answer) -> None:
    """The same status, body and headers, but Django's `Vary: Cookie` (and each its own
    request id)."""
    assert (fast.status_code, fast.content) == (django.status_code, django.content)
    assert _ids_masked(fast.headers) == _ids_masked(
        [h for h in django.headers if h != ("Vary", "Cookie")]
    )
    assert ("X-Request-ID", "<id>") in _ids_masked(fast.headers)


# --- The fast path is taken, and only for a signed heartbeat -----------------------------


def test_a_heartbeat_takes_the_fast_path(client, taken, sic_bo, either_store):
    assert beat(client, sic_bo.shaker).status_code == 204
    assert taken == {"fast": 1, "django": 0}
    assert either_store.seen("automated_shaker") == {sic_bo.shaker.device.pk: NOW}


@pytest.mark.parametrize(
    ("method", "path", "extra"),
    [
        ("GET", HEARTBEAT, {}),
        ("POST", HEARTBEAT + "/", {}),
        ("POST", "/devices/v1/condition", {}),
        ("POST", HEARTBEAT, {"SCRIPT_NAME": "/casino"}),
        ("GET", "/health/", {}),
    ],
    ids=["get", "trailing-slash", "condition", "script-name", "health"],
)
def test_anything_else_goes_to_django(client, taken, sic_bo, method, path, extra):
    body = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    environ = environ_for(method, path, body, headers_for(sic_bo.shaker, path, body), **extra)
    call(wsgi.application, environ)
    assert taken == {"fast": 0, "django": 1}


# --- Its answers are Django's ----------------------------------------------------------


def test_a_taken_heartbeat_is_answered_as_django_answers_it(sic_bo, either_store):
    body = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    signed = [headers_for(sic_bo.shaker, HEARTBEAT, body) for _ in range(2)]
    fast = call(wsgi.heartbeat_application, environ_for("POST", HEARTBEAT, body, signed[0]))
    django = call(wsgi.django_application, environ_for("POST", HEARTBEAT, body, signed[1]))
    assert fast.status_code == 204
    assert_same(fast, django)


def test_a_replay_is_refused_as_django_refuses_it(sic_bo, either_store):
    body = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    signed = headers_for(sic_bo.shaker, HEARTBEAT, body)
    first = call(wsgi.heartbeat_application, environ_for("POST", HEARTBEAT, body, signed))
    assert first.status_code == 204
    before = state()

    fast = call(wsgi.heartbeat_application, environ_for("POST", HEARTBEAT, body, signed))
    django = call(wsgi.django_application, environ_for("POST", HEARTBEAT, body, signed))

    assert_refused(fast, 401, "signature_refused", "the nonce has been used", before=before)
    assert_same(fast, django)


@pytest.mark.parametrize(
    ("headers", "status", "detail"),
    [
        ({signing.SIGNATURE: "0" * 64}, 401, "the signature does not match the request"),
        ({signing.KEY: "dk_" + "A" * 20}, 401, f"no device credential dk_{'A' * 20}"),
        ({signing.TIMESTAMP: str(int(NOW) - 31)}, 401, "too old"),
        ({signing.NONCE: "short"}, 401, "X-Device-Nonce must be 16 to 64 characters"),
        ({"Host": "evil.example"}, 400, "the request is malformed"),
    ],
    ids=["bad-signature", "unknown-key", "old", "nonce-form", "host"],
)
def test_each_refusal_is_django_s(sic_bo, either_store, headers, status, detail):
    headers = dict(headers)  # the parameter is shared by both stores' runs
    host = headers.pop("Host", None)
    extra = {"HTTP_HOST": host} if host else {}
    body = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    signed = headers_for(sic_bo.shaker, HEARTBEAT, body) | headers
    before = state()

    fast = call(wsgi.heartbeat_application, environ_for("POST", HEARTBEAT, body, signed, **extra))
    django = call(wsgi.django_application, environ_for("POST", HEARTBEAT, body, signed, **extra))

    assert fast.status_code == status
    assert detail in fast.json()["detail"]
    assert state() == before
    assert_same(fast, django)


def test_a_revoked_key_is_refused_as_django_refuses_it(
    sic_bo, either_store, django_capture_on_commit_callbacks
):
    fast, _ = both(sic_bo.shaker)
    assert fast.status_code == 204  # its credential now cached in this process
    with django_capture_on_commit_callbacks(execute=True):
        credential_revoke(
            sic_bo.shaker.credential, by=operations(), now=sic_bo.shaker.credential.issued_at
        )
    before = state()
    fast, django = both(sic_bo.shaker)
    assert_refused(fast, 401, "signature_refused", "revoked or has expired", before=before)
    assert_same(fast, django)


def test_a_retired_device_is_refused_as_django_refuses_it(sic_bo, clock, either_store):
    device_retire(sic_bo.shaker.device, by=operations(), now=sic_bo.shaker.credential.issued_at)
    auth._cache.clear()
    before = state()
    fast, django = both(sic_bo.shaker)
    assert_refused(fast, 401, "signature_refused", "revoked or has expired", before=before)
    assert_same(fast, django)


def test_an_unreachable_redis_fails_closed_503_as_django_does(sic_bo):
    before = state()
    with override_settings(CASINO_DEVICE_STORE_URL="redis://127.0.0.1:1/0"):
        store.cache_clear()
        try:
            fast, django = both(sic_bo.shaker)
        finally:
            store.cache_clear()
    assert_refused(fast, 503, "store_unavailable", "the heartbeat store is unreachable",
                   before=before)  # fmt: skip
    assert fast["Retry-After"] == "5"
    assert_same(fast, django)


def test_an_unreachable_database_answers_503_as_django_does(sic_bo, monkeypatch):
    def down(key_id: str, now: float) -> Any:
        raise connection_refused()

    monkeypatch.setattr(auth, "_load", down)
    fast, django = both(sic_bo.shaker)
    assert fast.status_code == 503
    assert fast.json()["code"] == "database_unavailable"
    assert_same(fast, django)


def test_a_body_over_the_limit_is_refused_413_as_django_refuses_it(sic_bo):
    fast, django = both(sic_bo.shaker, b'{"device": 1, "pad": "' + b"x" * 5000 + b'"}')
    assert fast.status_code == 413
    assert_same(fast, django)


def test_a_middleware_only_the_url_resolver_would_call_stops_the_handler():
    added = "django.contrib.admindocs.middleware.XViewMiddleware"  # it has process_view
    with (
        override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, added]),
        pytest.raises(ImproperlyConfigured, match="XViewMiddleware has process_view"),
    ):
        wsgi.HeartbeatHandler()


def test_a_middleware_added_to_the_settings_acts_on_a_heartbeat(sic_bo):
    added = "django.middleware.locale.LocaleMiddleware"  # it answers with Content-Language
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, added]):
        handler = wsgi.HeartbeatHandler()
    body = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    answer = call(
        handler, environ_for("POST", HEARTBEAT, body, headers_for(sic_bo.shaker, HEARTBEAT, body))
    )
    assert answer.status_code == 204
    assert answer["Content-Language"] == "en"
    assert answer["Vary"] == "Accept-Language"


def test_the_https_redirect_applies_to_the_fast_path(sic_bo):
    with override_settings(SECURE_SSL_REDIRECT=True):
        handler = wsgi.HeartbeatHandler()  # middleware read its settings when built
        body = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
        signed = headers_for(sic_bo.shaker, HEARTBEAT, body)
        before = state()
        answer = call(handler, environ_for("POST", HEARTBEAT, body, signed))
    assert answer.status_code == 301
    assert answer["Location"] == f"https://testserver{HEARTBEAT}"
    assert state() == before


@pytest.fixture(autouse=True)
def _no_stray_cache() -> Iterator[None]:
    yield
    auth._cache.clear()
