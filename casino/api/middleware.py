"""The one error body for what no view answers (casino/api/errors.py): a request line or a
body over the limit, an outage of the database or the broker, and Django's own error pages
under /api/ and /devices/.

Only an unreachable service is an outage (503, "send again"): a connection refused, lost
or closed by the server, or SQLite's file that will not open or stays locked. Any other
database error (SQLite's "Expression tree is too large", a statement timeout, a full
disk) is the server's failure: a 500 in the one body, its traceback logged by Django.

First in MIDDLEWARE, so it sees every response on its way out. An outage is noted when
Django turns an uncaught exception into a 500 (the got_request_exception signal, in
development and production alike, wherever the exception was raised: a view, the session
or the audit middleware), and answered 503 with Retry-After. Django closes a connection
left unusable at the end of the request (close_if_unusable_or_obsolete) and checks it
before the next one (CONN_HEALTH_CHECKS), so the process answers again once the database
is back.
"""

import logging
import sqlite3
import sys
from collections.abc import Callable

import psycopg
import redis.exceptions
from django.conf import settings
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as BrokerError
from rest_framework.response import Response

from casino.api.errors import django_error, error_body, speaks_api

log = logging.getLogger(__name__)

# What an unreachable Redis (the cache, the broker) or Celery's broker raise: a wait and a
# retry mend them, a code change would not.
BROKER_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, BrokerError)
# PostgreSQL's SQLSTATEs for a connection it ended or would not take: class 08 (connection
# exception), administrator or crash shutdown, starting up, too many connections. libpq's
# own failures (refused, timed out, lost: "the connection is closed") carry no SQLSTATE.
CONNECTION_ENDED = frozenset({"57P01", "57P02", "57P03", "53300"})
# SQLite's: the file cannot be opened (its volume gone), or stayed locked past the busy
# timeout (settings: 20 s): another process holds it; a retry mends either.
SQLITE_UNAVAILABLE = ("unable to open database file", "database is locked")
# Paths whose outage answer is JSON: the API, the devices, the probes and the floor's data.
JSON_PREFIXES = ("/api/", "/devices/", "/health/", "/ready/", "/floor/data.json")
_OUTAGE = "_casino_outage"
# A body over the limit but under this many bytes is read and thrown away in small pieces
# before the 413, so the client, still sending, reads the answer rather than a reset
# connection; a larger one is not read at all (the client may then see the reset).
DRAIN_BYTES = 16 * 1024 * 1024


def database_unreachable(error: BaseException) -> bool:
    """True when the database error says the database cannot be reached (not a failed
    statement): Django's InterfaceError (its connection is closed), or an OperationalError
    whose driver error is a connection refused, lost or ended (see CONNECTION_ENDED)."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__  # the driver's own error: Django raises from it
    if isinstance(cause, psycopg.OperationalError):
        state = cause.sqlstate
        return state is None or state.startswith("08") or state in CONNECTION_ENDED
    if isinstance(cause, sqlite3.OperationalError):
        return str(cause).startswith(SQLITE_UNAVAILABLE)
    return False


def outage_of(error: BaseException | None) -> str | None:
    """ "database" or "broker" when `error` says that service is unreachable, else None."""
    if error is not None and database_unreachable(error):
        return "database"
    if isinstance(error, BROKER_DOWN):
        return "broker"
    return None


def _note_outage(sender: object, request: HttpRequest | None = None, **kwargs: object) -> None:
    # Sent from inside Django's except block: sys.exc_info() is the uncaught exception.
    service = outage_of(sys.exc_info()[1])
    if request is not None and service is not None:
        setattr(request, _OUTAGE, service)


got_request_exception.connect(_note_outage, dispatch_uid="casino.api.middleware.outage")


def outage_response(request: HttpRequest, service: str) -> HttpResponse:
    """503 with Retry-After: the one body on JSON paths, a line of text elsewhere."""
    retry = settings.CASINO_RETRY_AFTER_SECONDS
    detail = f"the {service} is unreachable; try again in {retry} seconds"
    if request.path_info.startswith(JSON_PREFIXES):
        response: HttpResponse = JsonResponse(
            error_body(503, f"{service}_unavailable", detail, [detail]), status=503
        )
    else:
        response = HttpResponse(detail, content_type="text/plain; charset=utf-8", status=503)
    response["Retry-After"] = str(retry)
    return response


def body_limit(request: HttpRequest) -> int | None:
    """The most bytes a body may have at this path (None: Django's own limits apply)."""
    if request.path_info.startswith("/devices/"):
        return settings.CASINO_DEVICE_MAX_BODY_BYTES
    if request.path_info.startswith("/api/"):
        return settings.CASINO_API_MAX_BODY_BYTES
    return None


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0  # Django reads no body then either


def too_large(limit: int, length: int | None = None) -> JsonResponse:
    """413 in the one body, naming the limit."""
    detail = f"the body is over the limit of {limit} bytes"
    if length is not None:
        detail = f"the body is {length} bytes, over the limit of {limit} bytes"
    return JsonResponse(error_body(413, "body_too_large", detail, [detail]), status=413)


def request_line_length(request: HttpRequest) -> int:
    """The bytes of the request line as the client sent it: "GET /path?query HTTP/1.1"."""
    # gunicorn keeps the target as sent (RAW_URI: printable ASCII, percent-encoded); elsewhere
    # Django's quoted path is what a client would have sent.
    target = request.META.get("RAW_URI") or request.get_full_path()
    protocol = request.META.get("SERVER_PROTOCOL", "HTTP/1.1")
    return len(f"{request.method} {target} {protocol}")


def too_long(request: HttpRequest, limit: int, length: int) -> HttpResponse:
    """414: the one body on JSON paths, a line of text elsewhere, naming the limit."""
    detail = (
        f"the request line is {length} bytes, over the limit of {limit} bytes (the method, "
        "the path with its query, and the protocol): send fewer or shorter query parameters"
    )
    if request.path_info.startswith(JSON_PREFIXES):
        return JsonResponse(error_body(414, "uri_too_long", detail, [detail]), status=414)
    return HttpResponse(detail, content_type="text/plain; charset=utf-8", status=414)


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


class ErrorBodyMiddleware:
    """Refuse an over-long request line or an oversize body before anything reads it; answer
    an outage 503; turn Django's error pages under /api/ and /devices/ into the one body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        line_limit = settings.CASINO_API_MAX_REQUEST_LINE
        line = request_line_length(request)
        if line > line_limit:
            return too_long(request, line_limit, line)
        limit = body_limit(request)
        length = _declared_length(request)
        if limit is not None and length > limit:
            # Answered from the Content-Length alone: nothing parses or keeps the body.
            if length <= DRAIN_BYTES:
                while request.read(64 * 1024):
                    pass
            return too_large(limit, length)
        response = self.get_response(request)
        service = getattr(request, _OUTAGE, None)
        if service is not None:
            log.error("%s %s answered 503: the %s is unreachable", request.method,
                      request.path, service)  # fmt: skip
            return outage_response(request, service)
        if (
            response.status_code >= 400
            and speaks_api(request)
            and not isinstance(response, Response)  # DRF's answers are the body already
            and not _is_json(response)
        ):
            # Django's own page (its 400, 404 or 500, or the debug page in development).
            replaced = django_error(request, response.status_code)
            for header in ("Allow", "WWW-Authenticate", "Retry-After"):
                if header in response:
                    replaced[header] = response[header]
            return replaced
        return response
