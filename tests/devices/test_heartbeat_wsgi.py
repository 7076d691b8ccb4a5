"""The heartbeat's WSGI path (devices/heartbeat_wsgi.py): a sound heartbeat answered
without Django's handler, as Django answers it; everything else handed to Django.

Each test builds its own path over a HeartbeatHandler made under the test's settings, and
counts what it hands to Django. The store is Redis (a prefix of the test's own): with the
database store the path answers nothing itself.
"""

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from prometheus_client import REGISTRY

from casino import wsgi
from casino.api import throttles
from devices import auth
from devices.heartbeat_wsgi import KNOWN_MIDDLEWARE, HeartbeatPath
from devices.views import STORE_ANSWERED
from tests.database_errors import connection_refused
from tests.devices.test_heartbeat_fast_path import Answer, assert_same, call, environ_for
from tests.devices.test_signed_requests import (  # noqa: F401 - fixtures
    HEARTBEAT,
    NOW,
    clock,
    condition,
    headers_for,
    redis_store,
    sic_bo,
)

# The fixtures imported above are named again as tests' parameters.
# ruff: noqa: F811

pytestmark = pytest.mark.django_db
WINDOW = 60.0 * 29_000_000  # a whole 60 s window's start (Unix s), far from any other test's


class Counted:
    """A path over a new HeartbeatHandler, counting the requests it hands to Django."""

    def __init__(self) -> None:
        self.path = wsgi.heartbeat_path(wsgi.HeartbeatHandler())
        self.to_django = 0
        handler = self.path.handler

        def counted(environ: dict[str, Any], start: Callable[..., Any]) -> Any:
            self.to_django += 1
            return handler(environ, start)

        self.path.handler = counted

    def beat(self, issued: Any, **extra: str) -> Answer:
        return call(self.path, signed(issued, **extra))


def signed(issued: Any, body: Any = None, **extra: str) -> dict[str, Any]:
    """A signed heartbeat's environ (a nonce of its own), `extra` added to it."""
    raw = json.dumps(body or {"device": issued.device.pk}).encode()
    return environ_for("POST", HEARTBEAT, raw, headers_for(issued, HEARTBEAT, raw), **extra)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def path() -> Counted:
    return Counted()


@pytest.fixture
def window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budgets' clock 15 s into a window of their own: Retry-After 45 over budget."""
    monkeypatch.setattr(throttles, "clock", lambda: WINDOW + 15)


def test_the_first_heartbeat_goes_to_django_and_the_next_are_answered_alike_without_it(
    path, sic_bo, redis_store
):
    first = path.beat(sic_bo.shaker)
    assert (first.status_code, path.to_django) == (204, 1)  # its headers learnt
    responses = sample("casino_http_responses_total", status="204")
    view = {"view": "device-heartbeat", "method": "POST"}
    timed = sample("casino_http_request_duration_seconds_count", **view)

    second = path.beat(sic_bo.shaker)

    assert (second.status_code, second.content, path.to_django) == (204, b"", 1)
    assert redis_store.seen("automated_shaker") == {sic_bo.shaker.device.pk: NOW}
    # Counted as the metrics middleware counts a request.
    assert sample("casino_http_responses_total", status="204") == responses + 1
    assert sample("casino_http_request_duration_seconds_count", **view) == timed + 1
    assert_same(second, call(wsgi.django_application, signed(sic_bo.shaker)))
    assert second["X-Request-ID"] != first["X-Request-ID"]


def test_a_request_id_sent_with_the_heartbeat_comes_back(path, sic_bo, redis_store):
    path.beat(sic_bo.shaker)
    answer = path.beat(sic_bo.shaker, HTTP_X_REQUEST_ID="floor-7.shaker-3")
    assert (answer["X-Request-ID"], path.to_django) == ("floor-7.shaker-3", 1)


def test_a_replay_is_refused_by_django_from_the_store_s_answer_its_budget_counted_once(
    path, sic_bo, redis_store, window
):
    path.beat(sic_bo.shaker)
    raw = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    headers = headers_for(sic_bo.shaker, HEARTBEAT, raw)
    assert call(path.path, environ_for("POST", HEARTBEAT, raw, headers)).status_code == 204
    seen = redis_store.seen("automated_shaker")

    again = call(path.path, environ_for("POST", HEARTBEAT, raw, headers))

    assert again.status_code == 401
    assert again.json()["detail"] == "the nonce has been used: a replayed request"
    assert path.to_django == 2
    assert redis_store.seen("automated_shaker") == seen
    # Three heartbeats, each counted once (the replay not again by Django's view).
    budget = throttles.window("device", sic_bo.shaker.key_id)
    assert int(redis_store.client.get(redis_store.prefix + budget.key)) == 3


def test_over_its_budget_a_key_gets_django_s_429_and_nothing_is_recorded(
    path, sic_bo, redis_store, window
):
    with override_settings(CASINO_THROTTLE_DEVICE=(2, 60)):
        assert [path.beat(sic_bo.shaker).status_code for _ in range(2)] == [204, 204]
        redis_store.forget(sic_bo.shaker.device.pk, "automated_shaker")

        over = path.beat(sic_bo.shaker)
        django = call(wsgi.django_application, signed(sic_bo.shaker))

    assert over.status_code == 429
    assert over["Retry-After"] == "45"
    detail = "too many requests from this device's key: 2 in 60 s at most; try again in 45 s"
    assert (over.json()["code"], over.json()["detail"]) == ("throttled", detail)
    assert_same(over, django)
    assert redis_store.seen("automated_shaker") == {}


def test_a_credential_not_in_this_process_s_cache_is_read_by_django_then_kept(
    path, sic_bo, redis_store
):
    path.beat(sic_bo.shaker)
    auth._cache.clear()
    assert path.beat(sic_bo.shaker).status_code == 204
    assert path.to_django == 2  # read from the database by Django's way
    assert path.beat(sic_bo.shaker).status_code == 204
    assert path.to_django == 2


@pytest.mark.parametrize(
    ("body", "extra"),
    [
        ({"device": "own", "extra": 1}, {}),
        ({"device": True}, {}),
        ([1], {}),
        (None, {"HTTP_HOST": "evil.example"}),
    ],
    ids=["other-field", "bool-device", "not-an-object", "host"],
)
def test_anything_but_a_sound_heartbeat_is_django_s_to_answer(
    path, sic_bo, redis_store, body, extra
):
    path.beat(sic_bo.shaker)
    if isinstance(body, dict) and body.get("device") == "own":
        body = body | {"device": sic_bo.shaker.device.pk}
    answer = call(path.path, signed(sic_bo.shaker, body, **extra))
    assert answer.status_code == 400
    assert path.to_django == 2
    assert redis_store.seen("automated_shaker") == {sic_bo.shaker.device.pk: NOW}


def test_with_the_database_store_every_heartbeat_goes_to_django(path, sic_bo):
    assert [path.beat(sic_bo.shaker).status_code for _ in range(2)] == [204, 204]
    assert path.to_django == 2


def test_a_middleware_the_path_does_not_know_sends_every_heartbeat_to_django(sic_bo, redis_store):
    added = "django.middleware.locale.LocaleMiddleware"  # it answers with Content-Language
    with override_settings(MIDDLEWARE=[*settings.MIDDLEWARE, added]):
        path = Counted()
    assert not path.path.known
    answers = [path.beat(sic_bo.shaker) for _ in range(2)]
    assert [a.status_code for a in answers] == [204, 204]
    assert answers[1]["Content-Language"] == "en"
    assert path.to_django == 2


def test_over_https_the_answer_is_learnt_apart_with_its_hsts_header(sic_bo, redis_store):
    proxy = {"HTTP_X_FORWARDED_PROTO": "https"}
    with override_settings(
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"), SECURE_HSTS_SECONDS=3600
    ):
        path = Counted()
        over_https = [path.beat(sic_bo.shaker, **proxy) for _ in range(2)]
        over_http = [path.beat(sic_bo.shaker) for _ in range(2)]
    assert path.to_django == 2  # the first of each scheme
    assert [a.status_code for a in over_https + over_http] == [204] * 4
    assert over_https[1]["Strict-Transport-Security"] == "max-age=3600"
    assert "Strict-Transport-Security" not in dict(over_http[1].headers)
    assert_same(over_https[1], over_https[0])
    assert_same(over_http[1], over_http[0])


def test_the_https_redirect_is_django_s(sic_bo, redis_store):
    with override_settings(SECURE_SSL_REDIRECT=True):
        path = Counted()
        answers = [path.beat(sic_bo.shaker) for _ in range(2)]
    assert [a.status_code for a in answers] == [301, 301]
    assert path.to_django == 2
    assert redis_store.seen("automated_shaker") == {}


def test_the_deployed_middleware_is_the_one_the_path_knows():
    # Else every heartbeat would go the long way, and the benchmark would say so only.
    assert isinstance(wsgi.heartbeat_application, HeartbeatPath)
    assert wsgi.heartbeat_application.known
    assert tuple(wsgi.HeartbeatHandler().middleware_paths) == KNOWN_MIDDLEWARE


def test_a_key_s_heartbeats_and_other_requests_spend_one_budget(path, sic_bo, redis_store, window):
    with override_settings(CASINO_THROTTLE_DEVICE=(2, 60)):
        assert path.beat(sic_bo.shaker).status_code == 204
        assert condition(Client(), sic_bo.shaker).status_code == 200
        assert path.beat(sic_bo.shaker).status_code == 429
        assert condition(Client(), sic_bo.shaker).status_code == 429


def test_a_signed_heartbeat_refused_for_its_body_spends_its_key_s_budget(
    path, sic_bo, redis_store, window
):
    wrong = {"device": sic_bo.light.device.pk}  # another device's id: 403
    with override_settings(CASINO_THROTTLE_DEVICE=(2, 60)):
        answers = [call(path.path, signed(sic_bo.shaker, wrong)) for _ in range(2)]
        over = path.beat(sic_bo.shaker)
    assert [a.status_code for a in answers] == [403, 403]
    assert over.status_code == 429
    assert redis_store.seen("automated_shaker") == {}


def test_a_body_nested_too_deep_for_json_is_refused_400_by_both(path, sic_bo, redis_store):
    path.beat(sic_bo.shaker)
    raw = b'{"device": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with override_settings(CASINO_DEVICE_MAX_BODY_BYTES=len(raw)):
        environ = environ_for("POST", HEARTBEAT, raw, headers_for(sic_bo.shaker, HEARTBEAT, raw))
        answer = call(path.path, environ)
    assert (answer.status_code, answer.json()["code"]) == (400, "malformed_body")


def test_the_database_down_while_redis_rebuilds_answers_503_as_django_does(
    path, sic_bo, redis_store, monkeypatch
):
    path.beat(sic_bo.shaker)
    redis_store.clear()  # Redis lost its data: the store copies the ended keys back first

    def down() -> dict[str, float]:
        raise connection_refused()

    monkeypatch.setattr(redis_store, "ends_read", down)
    answer = path.beat(sic_bo.shaker)
    assert (answer.status_code, answer.json()["code"]) == (503, "database_unavailable")
    assert answer["Retry-After"] == "5"
    assert_same(answer, call(wsgi.django_application, signed(sic_bo.shaker)))


def test_only_the_path_s_own_object_stands_for_the_store_s_answer(sic_bo, redis_store):
    raw = json.dumps({"device": sic_bo.shaker.device.pk}).encode()
    headers = headers_for(sic_bo.shaker, HEARTBEAT, raw)
    first = call(wsgi.django_application, environ_for("POST", HEARTBEAT, raw, headers))
    assert first.status_code == 204
    forged = {STORE_ANSWERED: True}  # as a server that let a client set it would
    again = call(wsgi.django_application, environ_for("POST", HEARTBEAT, raw, headers, **forged))
    assert again.status_code == 401  # the store was asked: a replay
