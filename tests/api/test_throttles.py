"""Request budgets (casino/api/throttles.py, issue 22): a burst from one caller gets 429
`throttled` with Retry-After, in the one error body; every other caller, every device and
every probe keeps its own budget; the next window lets the caller through again.

The budgets are settings (small here) and the throttle's clock is the test's: each test
starts at 15 s into a window of its own, so Retry-After is 45 for a 60 s window.
"""

import json
import pickle
import random
import time
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from casino import wsgi
from casino.api import overview, throttles
from casino.cache import window_count, window_give_back
from tests.api.conftest import API, ERROR_KEYS, bearer, error_of, session, signed
from tests.devices.test_heartbeat_fast_path import call, environ_for
from tests.services import redis_database, require_redis

pytestmark = pytest.mark.django_db
HEARTBEAT = "/devices/v1/heartbeat"


class Clock:
    """throttles.clock: 15 s into a 60 s window no other test uses."""

    def __init__(self) -> None:
        self.now = 60.0 * random.randrange(10**8, 10**9) + 15

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    at = Clock()
    monkeypatch.setattr(throttles, "clock", at)
    return at


def throttled(response: Any, retry_after: str, detail: str) -> None:
    """The one body, 429 `throttled`, naming the budget, with Retry-After."""
    body = error_of(response, 429, "throttled")
    assert response["Retry-After"] == retry_after
    assert body["detail"] == detail
    assert body["reasons"] == [detail]


def heartbeat(issued: Any, address: str = "127.0.0.1") -> Any:
    """A signed heartbeat through casino.wsgi.application (the heartbeat's fast path)."""
    body = json.dumps({"device": issued.device.pk}).encode()
    environ = environ_for("POST", HEARTBEAT, body, signed(issued, "POST", HEARTBEAT, body))
    assert wsgi.application is not None
    return call(wsgi.application, environ | {"REMOTE_ADDR": address})


TOKEN_OVER = "too many requests from this API token: 3 in 60 s at most; try again in 45 s"


def test_a_burst_from_one_token_gets_429_and_another_token_is_unaffected(
    api_floor, clock, settings
):
    settings.CASINO_THROTTLE_TOKEN = (3, 60)
    a, b = bearer(api_floor.a.key), bearer(api_floor.b.key)
    assert [a.get(f"{API}/tables/").status_code for _ in range(3)] == [200, 200, 200]
    throttled(a.get(f"{API}/tables/"), "45", TOKEN_OVER)
    # A write too is refused before it runs: nothing recorded, the key free for the retry.
    writes = api_floor.a.token.writes.count()
    refused = a.post(
        f"{API}/tables/{api_floor.a.play.pk}/suspend/", headers={"Idempotency-Key": "k1"}
    )
    throttled(refused, "45", TOKEN_OVER)
    assert api_floor.a.token.writes.count() == writes
    # The other holder's token has its own budget.
    assert [b.get(f"{API}/tables/").status_code for _ in range(3)] == [200, 200, 200]
    clock.now += 30
    throttled(a.get(f"{API}/rounds/"), "15", TOKEN_OVER.replace("45 s", "15 s"))
    clock.now += 15  # the next window
    assert a.get(f"{API}/tables/").status_code == 200


def test_the_floor_read_counts_once_against_the_token_and_is_refused_over_it(
    api_floor, clock, settings, monkeypatch
):
    settings.CASINO_THROTTLE_TOKEN = (2, 60)
    drf = []
    original = overview._drf_floor

    def counted(request: Any, *args: Any, **kwargs: Any) -> Any:
        drf.append(request.path)
        return original(request, *args, **kwargs)

    monkeypatch.setattr(overview, "_drf_floor", counted)
    a = bearer(api_floor.a.key)
    # The first read goes to DRF (the token's last use is old: written now), the second
    # takes the cached way: each counted once, so a budget of 2 lets both through.
    assert [a.get(f"{API}/floor/").status_code for _ in range(2)] == [200, 200]
    assert len(drf) == 1
    over = a.get(f"{API}/floor/")
    throttled(over, "45", TOKEN_OVER.replace(": 3 in", ": 2 in"))
    assert len(drf) == 2  # FloorView answered the 429


def test_a_wrong_secret_spends_no_one_s_budget(api_floor, clock, settings):
    settings.CASINO_THROTTLE_TOKEN = (2, 60)
    key_id = api_floor.a.token.key_id
    forged = bearer(f"cft_{key_id}_not-the-secret")
    assert [forged.get(f"{API}/floor/").status_code for _ in range(5)] == [401] * 5
    assert [forged.get(f"{API}/tables/").status_code for _ in range(5)] == [401] * 5
    a = bearer(api_floor.a.key)
    assert [a.get(f"{API}/floor/").status_code for _ in range(2)] == [200, 200]
    assert a.get(f"{API}/tables/").status_code == 429


def test_wrong_secrets_in_flight_never_fill_the_token_s_window(
    api_floor, clock, settings, monkeypatch
):
    # The key id is no secret (the admin and api_token_list show it). Concurrent requests
    # with wrong secrets are counted before each is given back: frozen at that moment (no
    # give-back at all), they still leave the holder its whole budget.
    settings.CASINO_THROTTLE_TOKEN = (2, 60)
    monkeypatch.setattr(throttles, "give_back", lambda taken: None)
    forged = bearer(f"cft_{api_floor.a.token.key_id}_not-the-secret")
    assert [forged.get(f"{API}/floor/").status_code for _ in range(3)] == [401] * 3
    assert [forged.get(f"{API}/tables/").status_code for _ in range(3)] == [401] * 3
    a = bearer(api_floor.a.key)
    assert [a.get(f"{API}/tables/").status_code for _ in range(2)] == [200, 200]
    throttled(a.get(f"{API}/floor/"), "45", TOKEN_OVER.replace(": 3 in", ": 2 in"))


def test_a_signed_in_user_has_a_budget(api_floor, clock, settings):
    settings.CASINO_THROTTLE_USER = (2, 60)
    ops = session(api_floor.operations)
    assert [ops.get(f"{API}/tables/").status_code for _ in range(2)] == [200, 200]
    throttled(
        ops.get(f"{API}/tables/"),
        "45",
        "too many requests from this user: 2 in 60 s at most; try again in 45 s",
    )
    # The token of an integrator is another budget.
    assert bearer(api_floor.a.key).get(f"{API}/tables/").status_code == 200


USER_OVER = "too many requests from this user: 2 in 60 s at most; try again in 45 s"


def test_the_floor_page_s_polling_spends_the_user_s_budget_as_the_api_does(
    api_floor, clock, settings
):
    settings.CASINO_THROTTLE_USER = (2, 60)
    ops = session(api_floor.operations)
    assert ops.get("/floor/data.json").status_code == 200
    assert ops.get("/floor/statistics.json").status_code == 200
    # One user, one budget: the page's two polls and the API through the session.
    throttled(ops.get("/floor/data.json"), "45", USER_OVER)
    throttled(ops.get("/floor/statistics.json"), "45", USER_OVER)
    throttled(ops.get(f"{API}/tables/"), "45", USER_OVER)
    # Another user has a budget of their own; the next window lets the first through.
    assert session(api_floor.compliance).get("/floor/data.json").status_code == 200
    clock.now += 60
    assert ops.get("/floor/data.json").status_code == 200


def test_the_floor_page_s_polls_signed_out_are_refused_uncounted(api_floor, clock, settings):
    """A screen left open after its session ended polls on: a 401 each time, never a 429.
    The address's budget (behind a load balancer, the whole site's) is not spent by it."""
    settings.CASINO_THROTTLE_ANONYMOUS = (1, 60)
    signed_out = Client(REMOTE_ADDR="10.4.4.1")
    for _ in range(3):
        assert signed_out.get("/floor/data.json").status_code == 401
        assert signed_out.get("/floor/statistics.json").status_code == 401
    # The address's one request of the window is still there for the API.
    assert signed_out.get(f"{API}/schema/").status_code == 200


def test_a_device_s_heartbeats_are_unaffected_by_an_api_burst_and_have_their_own_budget(
    api_floor, clock, settings
):
    settings.CASINO_THROTTLE_TOKEN = (1, 60)
    settings.CASINO_THROTTLE_ANONYMOUS = (1, 60)
    settings.CASINO_THROTTLE_DEVICE = (2, 60)
    a = bearer(api_floor.b.key)  # the shaker's own holder, from the same address
    assert a.get(f"{API}/tables/").status_code == 200
    assert a.get(f"{API}/tables/").status_code == 429
    shaker = api_floor.shaker
    assert [heartbeat(shaker).status_code for _ in range(2)] == [204, 204]
    over = heartbeat(shaker)
    assert over.status_code == 429
    assert over["Retry-After"] == "45"
    body = over.json()
    assert set(body) == ERROR_KEYS
    detail = "too many requests from this device's key: 2 in 60 s at most; try again in 45 s"
    assert (body["status"], body["code"], body["detail"]) == (429, "throttled", detail)
    # Over its budget, the device leaves the API's budgets alone.
    assert bearer(api_floor.a.key).get(f"{API}/tables/").status_code == 200
    clock.now += 45
    assert heartbeat(shaker).status_code == 204


def test_a_forged_heartbeat_spends_no_device_s_budget(api_floor, clock, settings):
    settings.CASINO_THROTTLE_DEVICE = (1, 60)
    shaker = api_floor.shaker
    body = json.dumps({"device": shaker.device.pk}).encode()
    headers = signed(shaker, "POST", HEARTBEAT, body)
    headers["X-Device-Signature"] = "0" * 64
    for _ in range(3):
        answer = call(wsgi.application, environ_for("POST", HEARTBEAT, body, headers))
        assert answer.status_code == 401
    assert heartbeat(shaker).status_code == 204


def test_probes_have_a_budget_per_address_of_their_own(api_floor, clock, settings):
    settings.CASINO_THROTTLE_PROBE = (2, 60)
    settings.CASINO_THROTTLE_ANONYMOUS = (100, 60)
    balancer = Client(REMOTE_ADDR="10.1.1.1")
    assert [balancer.get("/health/").status_code for _ in range(2)] == [200, 200]
    over = balancer.get("/ready/")
    throttled(
        over,
        "45",
        "too many requests from this address's probes: 2 in 60 s at most; try again in 45 s",
    )
    assert Client(REMOTE_ADDR="10.1.1.2").get("/health/").status_code == 200
    # The same address's API calls are another budget.
    assert balancer.get(f"{API}/schema/").status_code == 200


def test_the_load_balancer_s_own_probes_are_never_counted(api_floor, clock, settings):
    # Behind the balancer every caller has its address: a flood of /health/ through it
    # must not get the balancer's /ready/ a 429 (and the node taken out).
    settings.CASINO_THROTTLE_PROBE = (2, 60)
    settings.CASINO_PROBE_TRUSTED = ["10.9.9.9"]
    balancer = Client(REMOTE_ADDR="10.9.9.9")
    assert {balancer.get("/health/").status_code for _ in range(5)} == {200}
    assert balancer.get("/ready/").status_code in (200, 503)  # never 429
    assert balancer.get("/ready/").status_code != 429
    other = Client(REMOTE_ADDR="10.9.9.8")
    assert [other.get("/health/").status_code for _ in range(3)] == [200, 200, 429]


def test_an_anonymous_caller_is_counted_by_address(api_floor, clock, settings):
    settings.CASINO_THROTTLE_ANONYMOUS = (1, 60)
    first, other = Client(REMOTE_ADDR="10.2.2.1"), Client(REMOTE_ADDR="10.2.2.2")
    assert first.get(f"{API}/schema/").status_code == 200
    over = first.get(f"{API}/schema/")  # the schema's renderer: not the JSON body
    assert (over.status_code, over["Retry-After"]) == (429, "45")
    assert other.get(f"{API}/schema/").status_code == 200


ANONYMOUS_OVER = "too many requests from this address: 2 in 60 s at most; try again in 45 s"


def test_refused_credentials_spend_the_address_s_budget_and_a_token_keeps_its_own(
    api_floor, clock, settings
):
    # No credentials where a view needs them, a malformed key, an unknown key id, a wrong
    # secret: each a 401 until the address's anonymous budget is spent, then the 429.
    settings.CASINO_THROTTLE_ANONYMOUS = (2, 60)
    for headers in (
        {},
        {"Authorization": "Bearer garbage"},
        {"Authorization": "Bearer cft_0000000000000000_xyz"},
        {"Authorization": f"Bearer cft_{api_floor.a.token.key_id}_not-the-secret"},
    ):
        clock.now += 60  # a window of its own
        caller = Client(REMOTE_ADDR="10.3.3.1", headers=headers)
        assert [caller.get(f"{API}/tables/").status_code for _ in range(2)] == [401, 401]
        throttled(caller.get(f"{API}/tables/"), "45", ANONYMOUS_OVER)
        throttled(caller.get(f"{API}/floor/"), "45", ANONYMOUS_OVER)
        # Another address, and the real token from this one, are unaffected.
        other = Client(REMOTE_ADDR="10.3.3.2", headers=headers)
        assert other.get(f"{API}/tables/").status_code == 401
        a = Client(REMOTE_ADDR="10.3.3.1", headers={"Authorization": f"Bearer {api_floor.a.key}"})
        assert a.get(f"{API}/tables/").status_code == 200


def test_a_budget_set_off_never_refuses(api_floor, clock, settings):
    settings.CASINO_THROTTLE_TOKEN = None
    a = bearer(api_floor.a.key)
    assert {a.get(f"{API}/floor/").status_code for _ in range(5)} == {200}


def test_a_cache_that_fails_lets_requests_through(api_floor, clock, settings, monkeypatch):
    settings.CASINO_THROTTLE_TOKEN = (1, 60)
    settings.CASINO_THROTTLE_PROBE = (1, 60)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("the cache is down")

    monkeypatch.setattr(throttles, "window_count", down)
    a = bearer(api_floor.a.key)
    assert [a.get(f"{API}/tables/").status_code for _ in range(3)] == [200] * 3
    assert [Client().get("/health/").status_code for _ in range(3)] == [200] * 3


@pytest.mark.integration
def test_the_window_is_one_atomic_count_on_redis(settings):
    """On Redis the count is SET NX with the window's expiry and INCR in one MULTI, and
    reads the keys asked for in the same trip, decoded as cache.get_many decodes them."""
    require_redis()
    with redis_database() as url:
        settings.CACHES = {
            "default": {"BACKEND": "casino.cache.RedisCache", "LOCATION": url, "KEY_PREFIX": "t"}
        }
        cache.set("entry", {"a": 1})
        assert window_count("w", 7, ["entry", "missing"]) == (1, {"entry": {"a": 1}})
        assert window_count("w", 7) == (2, {})
        client = cache._cache.get_client()
        stored = cache.make_and_validate_key("w")
        assert 0 < client.ttl(stored) <= 7
        assert cache.get("w") == 2
        window_give_back("w", 7)
        assert (cache.get("w"), 0 < client.ttl(stored) <= 7) == (1, True)
        client.delete(stored)  # the window ended before the count came back
        window_give_back("w", 7)
        assert (cache.get("w"), 0 < client.ttl(stored) <= 7) == (-1, True)  # and expires


def test_the_file_cache_counts_with_the_window_s_expiry(settings, tmp_path):
    """The embedded default: add, then get and set with the window's timeout (BaseCache's
    incr would keep the counter 300 s)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path),
        }
    }
    cache.set("entry", [1, 2])
    assert window_count("w", 7, ["entry"]) == (1, {"entry": [1, 2]})
    assert window_count("w", 7) == (2, {})
    window_give_back("w", 7)
    assert cache.get("w") == 1
    with open(cache._key_to_file("w"), "rb") as stored:
        expires = pickle.load(stored)
    assert 0 < expires - time.time() <= 7
