"""The devices' own endpoints, signed with their credentials (devices/signing.py):

    POST /devices/v1/heartbeat  {"device": id}
    POST /devices/v1/condition  {"device": id, "condition": "fault"|"ok", "detail": "..."}
    POST /devices/v1/report     {"device": id, "table": "SB-02", "round": 12, "dice": [..]}
                                 (or "number", "selection", "extra_roll", "lock_out")

Plain Django views, not DRF: the heartbeat is the hot path and does no more than check
the signature and write to the store. Every refusal is the one error body
(casino/api/errors.py): 401 for the signature, 403 for a device speaking for another,
400 for a malformed body, 413 for one over CASINO_DEVICE_MAX_BODY_BYTES, 422 for what the
floor refuses (with its reasons), 503 when the store (or, casino/api/middleware.py, the
database) is unreachable.
"""

import json
import logging
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from casino.api import throttles
from casino.api.errors import error_body, throttled_response
from casino.services.errors import FloorRefused
from devices import auth
from devices.models import Device
from devices.services import fault_clear
from devices.signing import SignatureRefused
from devices.store import OverBudget, Revoked, SignedBeforeStart, StoreUnavailable, store
from gaming import reports
from gaming.devices import fault_report

log = logging.getLogger(__name__)
clock: Callable[[], float] = time.time  # the tests set the clock


class BadRequest(Exception):
    def __init__(self, status: int, error: str, detail: str | list[str]) -> None:
        self.status, self.error, self.detail = status, error, detail
        super().__init__(detail)

    def __reduce__(self) -> tuple[type, tuple[int, str, object]]:
        # Pickled with its three arguments (Exception's default passes the detail alone).
        return (type(self), (self.status, self.error, self.detail))


def _refusal(status: int, error: str, detail: str | list[str]) -> JsonResponse:
    # The API's one error body (casino/api/errors.py).
    reasons = list(detail) if isinstance(detail, list) else [detail]
    return JsonResponse(error_body(status, error, "; ".join(reasons), reasons), status=status)


def device_endpoint(handler: Callable[[HttpRequest, auth.Caller, dict, float], HttpResponse]):
    """Check method, size, signature and body, then run the handler; every refusal as JSON."""

    @csrf_exempt
    def view(request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return _refusal(405, "method_not_allowed", "POST a signed JSON body")
        limit = settings.CASINO_DEVICE_MAX_BODY_BYTES
        if len(request.body) > limit:
            # Usually refused before, from its Content-Length (casino/api/middleware.py).
            return _refusal(413, "body_too_large", f"the body is over the limit of {limit} bytes")
        now = clock()
        try:
            beat = handler is heartbeat_handle
            caller, nonce, signed_at = auth.request_verify(request, now, cached=beat)
            # The key's own budget, counted once the signature shows the request is its
            # own (a forger cannot spend it); apart from the API's and the probes'. A
            # heartbeat's is counted with its record (`heartbeat_record`), or with its
            # refusal if it never gets that far.
            if not beat:
                budget_spend(caller)
            try:
                body = _body(request, caller)
                signed = body | {"_nonce": nonce, "_signed_at": signed_at}
                return handler(request, caller, signed, now)
            except BadRequest:
                if beat:
                    budget_spend(caller)
                raise
        except OverBudget as over:
            return throttled_response(throttles.refusal_text("device", over.wait), over.wait)
        except SignatureRefused as refused:
            log.warning("device request refused: %s", refused.reason)
            return _refusal(401, "signature_refused", refused.reason)
        except BadRequest as bad:
            return _refusal(bad.status, bad.error, bad.detail)
        except FloorRefused as refused:
            return _refusal(422, "refused", refused.reasons)
        except StoreUnavailable as down:
            log.error("device store unreachable: %s", down)
            response = _refusal(503, "store_unavailable", "the heartbeat store is unreachable")
            response["Retry-After"] = str(settings.CASINO_RETRY_AFTER_SECONDS)
            return response

    view.__name__ = view.__qualname__ = handler.__name__.removesuffix("_handle")
    return view


def _body(request: HttpRequest, caller: auth.Caller) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"null")
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise BadRequest(400, "malformed_body", "the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest(400, "malformed_body", "the body must be a JSON object")
    device = body.get("device")
    if isinstance(device, bool) or not isinstance(device, int):
        raise BadRequest(400, "malformed_body", "device must be the device's id, a whole number")
    if device != caller.device_id:
        raise BadRequest(
            403,
            "wrong_device",
            f"device {caller.device_id} may speak only for itself, not {device}",
        )
    return body


BEFORE_START = (
    "the request was signed before the heartbeat store began (it lost its data since), "
    "so its nonce cannot be checked: sign it again"
)


def _claim(caller: auth.Caller, body: dict, now: float) -> None:
    try:
        new = store().nonce_claim(caller.key_id, body["_nonce"], now, body["_signed_at"])
    except SignedBeforeStart:
        raise SignatureRefused(BEFORE_START) from None
    if not new:
        raise SignatureRefused("the nonce has been used: a replayed request")


def budget_spend(caller: auth.Caller) -> None:
    """Count a signed request against its key's budget: OverBudget once it is spent. With
    the Redis store, counted by the store, where a heartbeat's record counts it
    (`heartbeat_record`), so a key has one counter; else in the shared cache."""
    beats = store()
    if beats.counts_budgets:
        budget = throttles.window("device", caller.key_id)
        wait = budget.count_read(beats.budget_count(budget)) if budget is not None else 0
    else:
        wait = throttles.take("device", caller.key_id).wait
    if wait:
        raise OverBudget(wait)


def heartbeat_record(caller: auth.Caller, nonce: str, signed_at: float, now: float) -> bool:
    """Record a signed heartbeat in the store, its key's budget counted first (by the
    store in the same call where it can: Redis); whether its nonce was new. Raises
    OverBudget (nothing recorded), and what the store raises."""
    beats = store()
    budget = None
    if beats.counts_budgets:
        budget = throttles.window("device", caller.key_id)
    else:
        budget_spend(caller)
    return beats.heartbeat(
        caller.device_id, caller.kind, caller.key_id, nonce, now, signed_at, budget=budget
    )


# Where the heartbeat's WSGI path (devices/heartbeat_wsgi.py) leaves what the store
# answered (`StoreAnswered`) when it hands a heartbeat on to Django to be refused: the view
# answers from it rather than calling the store again (which would count the budget
# twice). A client cannot set it: its headers reach the environ only as HTTP_*, and as
# text, never as this class.
STORE_ANSWERED = "casino.heartbeat.store_answered"


class StoreAnswered(NamedTuple):
    """What `heartbeat_record` returned (False: a used nonce) or raised."""

    answer: bool | Exception


def heartbeat_handle(
    request: HttpRequest, caller: auth.Caller, body: dict, now: float
) -> HttpResponse:
    unknown = sorted(set(body) - {"device", "_nonce", "_signed_at"})
    if unknown:
        raise BadRequest(400, "malformed_body", f"{unknown[0]} is not a heartbeat field")
    try:
        answered = request.META.pop(STORE_ANSWERED, None)
        if not isinstance(answered, StoreAnswered):
            new = heartbeat_record(caller, body["_nonce"], body["_signed_at"], now)
        elif isinstance(answered.answer, Exception):
            raise answered.answer
        else:
            new = answered.answer
    except SignedBeforeStart:
        raise SignatureRefused(BEFORE_START) from None
    except Revoked:
        auth.forget(caller.key_id)
        raise SignatureRefused(
            f"the credential {caller.key_id} has been revoked or has expired"
        ) from None
    if not new:
        raise SignatureRefused("the nonce has been used: a replayed request")
    return HttpResponse(status=204)


def condition_handle(
    request: HttpRequest, caller: auth.Caller, body: dict, now: float
) -> HttpResponse:
    condition, detail = body.get("condition"), body.get("detail", "")
    if condition not in ("fault", "ok"):
        raise BadRequest(400, "malformed_body", 'condition must be "fault" or "ok"')
    if not isinstance(detail, str) or len(detail) > 500:
        raise BadRequest(400, "malformed_body", "detail must be text of at most 500 characters")
    _claim(caller, body, now)
    device = Device.objects.select_related("table").get(pk=caller.device_id)
    change = fault_report if condition == "fault" else fault_clear
    device = change(device, detail, now=auth.moment(now))
    return JsonResponse({"device": device.pk, "status": device.status})


def report_handle(
    request: HttpRequest, caller: auth.Caller, body: dict, now: float
) -> HttpResponse:
    device = Device.objects.select_related("table").get(pk=caller.device_id)
    try:
        request_ = reports.report_read(device, body)
    except reports.ReportRefused as refused:
        raise BadRequest(refused.status, refused.error, refused.detail) from None
    _claim(caller, body, now)
    round_ = reports.report_apply(device, request_, now=auth.moment(now))
    return JsonResponse({"round": str(round_), "status": round_.status})


heartbeat = device_endpoint(heartbeat_handle)
condition = device_endpoint(condition_handle)
report = device_endpoint(report_handle)
