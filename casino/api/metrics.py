"""/metrics for Prometheus, and the measures every request leaves (an entry point).

`MetricsMiddleware` is first in settings.MIDDLEWARE, so it times every answer as the client
gets it (the 413, the outage's 503, the error bodies included) and answers /metrics itself,
before the host check, the HTTPS redirect and the session: Prometheus scrapes each web
process by its address over the private network. Outside development /metrics needs
`Authorization: Bearer <CASINO_METRICS_TOKEN>`; in production without that setting it is off
(404). In development without the token it is open.

A request costs one histogram observation and one counter increment in memory (with
PROMETHEUS_MULTIPROC_DIR, a write to a memory-mapped file): no network round trip. An error
answer under /api/ or /devices/ also counts its body's `code`.
"""

import functools
import hmac
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from rest_framework.response import Response

from casino import metrics
from casino.api.errors import speaks_api
from gaming.metrics import FloorCollector

METRICS_PATH = "/metrics"
# A method label from this set only: anything else is "other" (bounded series).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# The floor's state, read at scrape time: one registry a process, read beside the counters.
FLOOR_REGISTRY = CollectorRegistry()
FLOOR_REGISTRY.register(FloorCollector())


READABLE = (
    b"# HELP casino_floor_state_readable 1 when this scrape read the floor's state (the"
    b" database), 0 when it could not.\n"
    b"# TYPE casino_floor_state_readable gauge\n"
    b"casino_floor_state_readable %d\n"
)
log = logging.getLogger(__name__)


def metrics_allowed(request: HttpRequest) -> bool | None:
    """True: answer; False: a token is needed (401); None: /metrics is off (404)."""
    token = settings.CASINO_METRICS_TOKEN
    if not token:
        return None if settings.PRODUCTION else True
    given = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, credentials = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        credentials.strip().encode(), token.encode()
    )


def metrics_view(request: HttpRequest) -> HttpResponse:
    """Every process's counters and histograms, and the floor's state now."""
    allowed = metrics_allowed(request)
    if allowed is None:
        return HttpResponse("not found\n", status=404, content_type="text/plain")
    if not allowed:
        response = HttpResponse(
            "/metrics needs Authorization: Bearer <CASINO_METRICS_TOKEN>\n",
            status=401,
            content_type="text/plain",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if request.method not in ("GET", "HEAD"):
        response = HttpResponse("GET only\n", status=405, content_type="text/plain")
        response["Allow"] = "GET, HEAD"
        return response
    try:
        floor, readable = generate_latest(FLOOR_REGISTRY), 1
    except DatabaseError:  # the counters still answer; the state says it is missing
        log.exception("/metrics could not read the floor's state")
        floor, readable = b"", 0
    body = generate_latest(metrics.registry()) + floor + READABLE % readable
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


def request_count(view: str, method: str, status: int, elapsed: float) -> None:
    """Count one answered request: its time by view and method, its status."""
    _timer(view, method if method in METHODS else "other").observe(elapsed)
    _responses(status).inc()


def refusal_code(response: HttpResponse) -> str:
    """The error body's code (the API's and the devices' one body), or "error"."""
    if isinstance(response, Response):
        data = response.data
    elif response.get("Content-Type", "").startswith("application/json") and not getattr(
        response, "streaming", False
    ):
        try:
            data = json.loads(response.content)
        except ValueError:
            return "error"
    else:
        return "error"
    code = data.get("code") if isinstance(data, dict) else None
    # Our codes are a known few words; anything else is not a label (unbounded series).
    return code if isinstance(code, str) and code.isidentifier() and len(code) <= 40 else "error"


def view_of(request: HttpRequest) -> str:
    """The URL's name (a bounded label, never the path): "other" when none resolved."""
    match = getattr(request, "resolver_match", None)
    return (match.view_name or match.route or "other") if match is not None else "other"


@functools.cache
def _timer(view: str, method: str) -> Any:
    # Each label set's child looked up once a process (the labels are bounded).
    return metrics.REQUEST_SECONDS.labels(view, method)


@functools.cache
def _responses(status: int) -> Any:
    return metrics.RESPONSES.labels(str(status))


class MetricsMiddleware:
    """/metrics; and each request's time by view and method, its status, its refusal code."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == METRICS_PATH:
            return metrics_view(request)
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        status = response.status_code
        request_count(view_of(request), request.method or "", status, elapsed)
        if status >= 400 and speaks_api(request):
            metrics.REFUSALS.labels(refusal_code(response), str(status)).inc()
        return response
