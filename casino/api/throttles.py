"""Request budgets (issue 22): each caller has its own, counted in the shared cache, so no
one caller takes the whole floor and a flood of one kind never starves another.

    token       an API token's requests                 CASINO_THROTTLE_TOKEN
    user        a signed-in user's API requests         CASINO_THROTTLE_USER
                (the session: staff tools) and the
                floor page's polls (casino/floor_page.py)
    anonymous   API requests without credentials, and   CASINO_THROTTLE_ANONYMOUS
                those whose credentials are refused
                (none where a view needs them, a
                malformed, unknown or wrong key), per
                client address
    device      a device key's signed requests          CASINO_THROTTLE_DEVICE
                (/devices/v1/; with the Redis store,
                counted by the store, a heartbeat's in
                the call that records it)
    probe       /health/ and /ready/, per client address CASINO_THROTTLE_PROBE

A budget is a fixed window: at most N requests in each window of S seconds (counted from
the epoch), one counter a caller a window (a burst across a window's edge may reach 2N:
the price of one counter). Counting is one atomic trip to Redis (casino.cache.window_count:
SET NX with the expiry, INCR), not DRF's SimpleRateThrottle (a get and a set of a list of
times: two trips and a race between them), and it rides in a read the request makes
anyway where there is one (a token's check, the floor's cached read). Over budget, the
answer is 429 `throttled` in the one error body, with Retry-After: the whole seconds until
the window ends. A cache that cannot answer costs the budget, never the request: it is
let through (the probes above all must answer while Redis is down).

Each budget has its own counters, so an integrator's flood of API calls leaves every
device's heartbeats their own budget, and a device's loop leaves the API alone.
"""

import logging
import math
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from django.conf import settings
from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from casino.cache import window_count, window_give_back
from casino.models import ApiToken
from casino.versioned import read

log = logging.getLogger(__name__)
clock: Callable[[], float] = time.time  # the tests move it past a window

# A budget's name -> its setting: (requests, seconds), or None (no budget).
SETTINGS = {
    "token": "CASINO_THROTTLE_TOKEN",
    "user": "CASINO_THROTTLE_USER",
    "anonymous": "CASINO_THROTTLE_ANONYMOUS",
    "device": "CASINO_THROTTLE_DEVICE",
    "probe": "CASINO_THROTTLE_PROBE",
}
_WHO = {
    "token": "this API token",
    "user": "this user",
    "anonymous": "this address",
    "device": "this device's key",
    "probe": "this address's probes",
}


class Taken(NamedTuple):
    """One request counted against a budget."""

    key: str  # the window's counter ("": not counted)
    seconds: int  # how long the counter is kept
    wait: int  # 0: within budget; else whole seconds until the window ends
    found: dict[str, Any] | None  # what was read in the same trip (None: the cache failed)


def rate(budget: str) -> tuple[int, int] | None:
    """The budget's (requests, seconds) from settings, or None when it is off."""
    return getattr(settings, SETTINGS[budget])


class Window(NamedTuple):
    """The window a request of `who` falls in now, under its budget."""

    key: str  # the window's counter
    requests: int  # the most it lets through
    kept: int  # how long the counter is kept (s)
    wait: int  # whole seconds until the window ends: Retry-After, once over

    def count_read(self, count: int) -> int:
        """The wait a request counted `count`-th in the window gets: 0 within budget."""
        return 0 if count <= self.requests else self.wait


def window(budget: str, who: str) -> Window | None:
    """The budget's window for `who` now (its counter's key and its limit), or None when
    the budget is off. Counted in the cache by `take`, or by the heartbeat store's own
    call (devices/store.py), which counts a heartbeat's in the trip that records it."""
    limit = rate(budget)
    if limit is None:
        return None
    requests, seconds = limit
    now = clock()
    index = int(now // seconds)
    # The window is in the key: the expiry (one second past its end) only clears it away.
    wait = max(1, math.ceil((index + 1) * seconds - now))
    return Window(f"throttle:{budget}:{who}:{index}", requests, seconds + 1, wait)


def take(budget: str, who: str, reading: Iterable[str] = ()) -> Taken:
    """Count one request of `who` against `budget`, reading `reading` in the same trip."""
    now = window(budget, who)
    reading = list(reading)
    if now is None:
        return Taken("", 0, 0, _read(reading))
    try:
        count, found = window_count(now.key, now.kept, reading)
    except Exception as error:  # the backend's own (redis-py's, the file system's)
        log.warning("the %s budget not counted: the cache failed: %s", budget, error)
        return Taken("", 0, 0, None)
    return Taken(now.key, now.kept, now.count_read(count), found)


def _read(names: list[str]) -> dict[str, Any] | None:
    return read(names, "a read beside an unlimited budget") if names else {}


def give_back(taken: Taken) -> None:
    """Uncount a request `take` counted that turned out not to be its caller's own (a
    token read by its key id whose secret did not match): nobody spends another's budget."""
    if not taken.key:
        return
    try:
        window_give_back(taken.key, taken.seconds)
    except Exception as error:
        log.warning("a %s count not given back: the cache failed: %s", taken.key, error)


def refusal_text(budget: str, wait: int) -> str:
    """The 429's detail, naming the budget and when to try again (the views outside DRF
    answer it with casino.api.errors.throttled_response; this module cannot import that
    one: DRF imports it while casino.api.errors imports DRF)."""
    requests, seconds = rate(budget) or (0, 0)
    return (
        f"too many requests from {_WHO[budget]}: {requests} in {seconds} s at most; "
        f"try again in {wait} s"
    )


def address(request: HttpRequest) -> str:
    """The client's address as the web server saw it (as sign-ins are counted)."""
    return request.META.get("REMOTE_ADDR") or "unknown"


def credentials_refused(request: HttpRequest) -> None:
    """Count a request whose credentials were refused or missing against its address's
    anonymous budget, and over it raise the 429 instead of the 401: a flood of bad keys
    (each unknown key id a database read) or of bare requests is bounded like any other."""
    wait = take("anonymous", address(request)).wait
    if wait:
        refused = exceptions.Throttled(detail=refusal_text("anonymous", wait))
        refused.wait = wait  # Retry-After (DRF would add its own sentence to the detail)
        raise refused


def token_caller(key_id: str, secret_hash: str) -> str:
    """Whose token budget a request spends: its key id and the start of its secret's hash.
    The key id alone is no secret (the admin and api_token_list show it): counted by it,
    a flood of wrong secrets would fill the token's window until each count is given back
    and refuse its holder's own requests meanwhile; each wrong secret counts apart."""
    return f"{key_id}.{secret_hash[:12]}"


def api_budget(request: Request) -> tuple[str, str]:
    """Which budget an API request spends, and whose: its token's, its user's, or its
    address's."""
    if isinstance(request.auth, ApiToken):
        return "token", token_caller(request.auth.key_id, request.auth.key_hash)
    user = request.user
    if user is not None and user.is_authenticated:
        return "user", str(user.pk)
    return "anonymous", address(request._request)


# (budget, who, wait) of a request counted already, in a trip it made anyway: by the
# token's check (casino/api/auth.py) or the floor's cached read (casino/api/overview.py).
# DRF's throttle does not count it again.
COUNTED = "_casino_budget_counted"


class Budget(BaseThrottle):
    """DRF's throttle for every API view (settings.REST_FRAMEWORK): the caller's budget."""

    def allow_request(self, request: Request, view: Any) -> bool:
        """Count the request; over budget, raise the 429 naming the budget."""
        budget, who = api_budget(request)
        counted = getattr(request._request, COUNTED, None)
        if counted is not None and counted[:2] == (budget, who):
            wait = counted[2]
        else:
            wait = take(budget, who).wait
        if wait:
            refused = exceptions.Throttled(detail=refusal_text(budget, wait))
            refused.wait = wait  # Retry-After (DRF would add its own sentence to the detail)
            raise refused
        return True

    def wait(self) -> float | None:
        """Never asked: allow_request raises its own 429."""
        return None
