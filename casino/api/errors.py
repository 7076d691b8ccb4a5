"""One error body for every refusal the API gives, whatever raised it:

    {"status": 422, "code": "refused", "detail": "...", "reasons": [...], "fields": {...}}

`detail` is one sentence for a person; `reasons` lists each thing that stops the request
(a floor service's refusal names each with its section); `fields` maps a request field
to what is wrong with it. Both are always present, possibly empty.
"""

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import DataError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from casino.services.errors import FloorInvalid, FloorRefused
from games.rules.core import MalformedInput

# Every `code` an answer under /api/ may carry, with its status: the schema's enum
# (casino/api/schema.py), and docs/api.md's list. A new code goes here first.
ERROR_CODES: dict[str, str] = {
    "invalid": "400: the request's values; `fields` names each",
    "parse_error": "400: the body is not JSON the API takes",
    "bad_request": "400: a request Django itself refuses (a malformed header)",
    "idempotency_key_required": "400: a write that changes a round needs an Idempotency-Key",
    "idempotency_key_invalid": "400: the Idempotency-Key is not 1 to 255 printable ASCII "
    "characters with no space at either end",
    "not_authenticated": "401: no credentials",
    "authentication_failed": "401: a token that is malformed, unknown, revoked or inactive",
    "permission_denied": "403: the caller's role may not do this",
    "not_found": "404: no such record of the caller's, or no such endpoint",
    "method_not_allowed": "405: the path does not take this method",
    "not_acceptable": "406: the API answers JSON only (and CSV where the schema says so)",
    "par_not_computed": "409: a draft Rules Submission has no PAR sheets yet",
    "body_too_large": "413: the body is over the limit",
    "uri_too_long": "414: the request line (method, path and query) is over the limit",
    "unsupported_media_type": "415: the body is not application/json",
    "refused": "422: the floor's rules refuse it; each reason names its section",
    "idempotency_key_reused": "422: the Idempotency-Key was used for another request",
    "throttled": "429: too many requests; send again after Retry-After seconds",
    "server_error": "500: the server failed; the error is logged",
    "database_unavailable": "503: the database is unreachable; send again after Retry-After",
    "broker_unavailable": "503: the broker is unreachable; send again after Retry-After",
    "par_being_computed": "503: a worker is computing the PAR sheets; ask after Retry-After",
    "overloaded": "503: the floor is at capacity and did not take the request (the load "
    "balancer answers it, deploy/haproxy-503.http); send again after Retry-After",
}


class ApiError(exceptions.APIException):
    """A refusal with its own status and code (idempotency keys, bad query values), and
    the fields it names, if any."""

    def __init__(
        self,
        status_code: int,
        code: str,
        detail: str,
        reasons: list[str] | None = None,
        fields: dict[str, list[str]] | None = None,
    ):
        self.status_code = status_code
        self.code = code
        self.reasons = reasons or [detail]
        self.fields = fields or {}
        super().__init__(detail, code)

    def __reduce__(self) -> tuple:
        # APIException keeps no args: pickle the arguments (and `detail`, made by DRF).
        return (
            type(self),
            (self.status_code, self.code, str(self.detail), self.reasons, self.fields),
            self.__dict__,
        )


def error_body(
    status_code: int,
    code: str,
    detail: str,
    reasons: list[str] | None = None,
    fields: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The body of every error answer (the device endpoints use it too)."""
    return {
        "status": status_code,
        "code": code,
        "detail": detail,
        "reasons": list(reasons or []),
        "fields": dict(fields or {}),
    }


def _flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """A serializer's nested errors as {"wagers[0].amount": ["..."]}."""
    if isinstance(errors, dict):
        flat: dict[str, list[str]] = {}
        for name, value in errors.items():
            key = f"{prefix}.{name}" if prefix else str(name)
            flat.update(_flatten(value, key))
        return flat
    if isinstance(errors, list) and any(isinstance(e, (dict, list)) for e in errors):
        flat = {}
        for index, value in enumerate(errors):
            flat.update(_flatten(value, f"{prefix}[{index}]"))
        return flat
    items = errors if isinstance(errors, list) else [errors]
    return {prefix or "non_field_errors": [str(e) for e in items]}


def _body_of(exc: Exception) -> tuple[int, dict[str, Any]] | None:
    if isinstance(exc, FloorInvalid):
        return 400, error_body(400, "invalid", str(exc), exc.reasons, exc.fields)
    if isinstance(exc, FloorRefused):
        return 422, error_body(422, "refused", str(exc), exc.reasons)
    if isinstance(exc, MalformedInput):
        return 400, error_body(400, "invalid", str(exc), [str(exc)])
    if isinstance(exc, DataError):
        # A number the database cannot hold (an id past 64 bits in a query).
        text = "a value in the request is out of range"
        return 400, error_body(400, "invalid", text, [text])
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, ApiError):
        body = error_body(exc.status_code, exc.code, str(exc.detail), exc.reasons, exc.fields)
        return exc.status_code, body
    if isinstance(exc, exceptions.UnsupportedMediaType):
        # DRF names what was sent; an integrator also needs what is taken.
        detail = f"{exc.detail} The API takes application/json only."
        return 415, error_body(415, "unsupported_media_type", detail, [detail])
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        reasons = [f"{name}: {'; '.join(texts)}" for name, texts in fields.items()]
        detail = "the request is invalid: " + "; ".join(reasons)
        return 400, error_body(400, "invalid", detail, reasons, fields)
    if isinstance(exc, exceptions.APIException):
        detail = str(exc.detail)
        return exc.status_code, error_body(exc.status_code, exc.get_codes(), detail, [detail])
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's hook: every known refusal as the one body; anything else stays a 500."""
    found = _body_of(exc)
    if found is None:
        return None
    status_code, body = found
    headers = {}
    if isinstance(exc, exceptions.APIException):
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
    if status_code == status.HTTP_401_UNAUTHORIZED and "WWW-Authenticate" not in headers:
        headers["WWW-Authenticate"] = 'Bearer realm="api"'
    set_rollback()
    return Response(body, status=status_code, headers=headers)


def throttled_response(detail: str, wait: int) -> JsonResponse:
    """429 in the one body with Retry-After (whole seconds), for the views outside DRF
    (the devices' endpoints, the probes; casino/api/throttles.py)."""
    response = JsonResponse(error_body(429, "throttled", detail, [detail]), status=429)
    response["Retry-After"] = str(wait)
    return response


@csrf_exempt  # it changes nothing, and a token's POST carries no CSRF cookie
def no_such_endpoint(request: HttpRequest, path: str = "") -> JsonResponse:
    """What /api/v1/ answers for a path it does not have: the one body, not an HTML page."""
    detail = f"no endpoint at {request.path}; the list is at /api/v1/ and /api/v1/docs/"
    if not request.path.endswith("/"):
        detail += " (every path ends with a slash)"
    return JsonResponse(error_body(404, "not_found", detail, [detail]), status=404)


# --- errors Django itself answers (casino/api/middleware.py, casino/urls.py) -------------

# Paths whose every error is the one body: the integrators' API and the devices' endpoints.
API_PREFIXES = ("/api/", "/devices/")

# Django's own errors under API_PREFIXES, as a person reads them.
_DJANGO_ERRORS = {
    400: ("bad_request", "the request is malformed"),
    403: ("permission_denied", "you do not have permission to perform this action"),
    404: ("not_found", "no endpoint at {path}"),
    405: ("method_not_allowed", "method {method} not allowed at {path}"),
    413: ("body_too_large", "the body is too large"),
    500: ("server_error", "the server failed to answer; the error is logged"),
}


def speaks_api(request: HttpRequest) -> bool:
    """True for a path whose errors are the one JSON body."""
    return request.path_info.startswith(API_PREFIXES)


def django_error(request: HttpRequest, status_code: int) -> JsonResponse:
    """One of Django's own errors (a malformed request, an unknown path, a crash) as the
    one body; the detail names no internals (the log has the traceback)."""
    # Any other status keeps a code of the schema's enum (ERROR_CODES).
    fallback = ("server_error", "the request failed") if status_code >= 500 else (
        "bad_request", "the request failed")  # fmt: skip
    code, text = _DJANGO_ERRORS.get(status_code, fallback)
    detail = text.format(path=request.path, method=request.method)
    return JsonResponse(error_body(status_code, code, detail, [detail]), status=status_code)
