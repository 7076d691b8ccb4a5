"""Every write through the API is recorded (who, when, what, and the answer), and an
Idempotency-Key makes a retried request safe.

A write runs in one transaction with its record, written last, with its answer: one
INSERT, no claim to update (issue 21). With a key the record is unique per user, so of
two requests with one key only the first to commit keeps what it did: the second, its
record refused, rolls back everything it did and gets the first's answer (status and
body, marked ``Idempotent-Replayed: true``); with a different method, path or body it
is refused (422). A request that crashes leaves no record, so its retry runs. A refusal
is an answer too, recorded in a transaction of its own: the same key gets the same
refusal. A secret an answer shows once (a webhook endpoint's) is never recorded: the
record, and so a replay, has null in its place.
"""

import functools
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.http import QueryDict
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response

from casino.actors import acting_as
from casino.api.errors import ApiError
from casino.models import ApiToken, ApiWrite
from casino.rows import row_find, row_insert

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
# The attribute a recorded write's handler carries: is its key required (the schema reads it).
KEY_REQUIRED = "idempotency_key_required"
KEY_LENGTH = 255
# 1 to KEY_LENGTH printable ASCII characters, no space at either end (HTTP drops the spaces
# around a header value, so " k" would arrive as "k"): the schema's pattern, to the letter.
KEY_PATTERN = rf"^[!-~](?:[ -~]{{0,{KEY_LENGTH - 2}}}[!-~])?$"
KEY_RULE = f"1 to {KEY_LENGTH} printable ASCII characters, with no space at either end"
_KEY = re.compile(KEY_PATTERN)


def write(*, key_required: bool, shown_once: tuple[str, ...] = ()) -> Callable:
    """Decorate a view's write handler: recorded, and answered once per Idempotency-Key
    (a key `key_required` on what moves money or changes a round); the answer's
    `shown_once` fields (a secret) recorded as null."""

    def decorate(handler: Callable) -> Callable:
        @functools.wraps(handler)
        def recorded(view: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
            run = functools.partial(handler, view, request, *args, **kwargs)
            return write_run(view, request, run, key_required=key_required, shown_once=shown_once)

        setattr(recorded, KEY_REQUIRED, key_required)  # the schema declares the header
        return recorded

    return decorate


def _key(request: Request, required: bool) -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        if required:
            raise ApiError(
                400,
                "idempotency_key_required",
                f"this request changes money or a round: send an {HEADER} header "
                "(a new UUID for each intended change)",
            )
        return None
    if not _KEY.fullmatch(key):
        raise ApiError(400, "idempotency_key_invalid", f"the {HEADER} must be {KEY_RULE}")
    return key


def _body(request: Request) -> Any:
    data = request.data  # a malformed body raises ParseError (400) here, before anything
    if isinstance(data, QueryDict):
        return {name: values for name, values in data.lists()}
    return data


def _fingerprint(request: Request, body: Any) -> str:
    text = json.dumps([request.method, request.path, body], sort_keys=True, cls=DjangoJSONEncoder)
    return hashlib.sha256(text.encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def write_run(
    view: Any,
    request: Request,
    handler: Callable[[], Response],
    *,
    key_required: bool,
    shown_once: tuple[str, ...] = (),
) -> Response:
    """Run the write and its record in one transaction (see the module's docstring)."""
    # The body first: one that is not JSON (415) or not well formed (400) is refused as
    # such, whether or not a key came with it.
    body = _jsonable(_body(request))
    key = _key(request, key_required)
    fingerprint = _fingerprint(request, body)
    token = request.auth if isinstance(request.auth, ApiToken) else None
    record = ApiWrite(
        at=timezone.now(),
        user=request.user,
        token=token,
        method=request.method,
        path=request.path[:300],
        body=body,
        idempotency_key=key,
        fingerprint=fingerprint,
        status_code=0,
    )
    # A retry (the usual replay) is answered before the write runs again: one read, not
    # the whole write rolled back. A request with the key still in flight is not seen
    # here: the unique key decides between the two, below.
    first = _holder_of(record)
    if first is not None:
        return _replay(first, record)
    try:
        with transaction.atomic(), acting_as(request.user):
            response = handler()
            _answered(record, response, shown_once)
            row_insert(record)  # with a key: unique per user, so a second answer cannot commit
        return response
    except Exception as error:
        first = _holder_of(record)
        if first is not None:  # the key was answered (before, or while this one ran)
            return _replay(first, record)
        response = view.handle_exception(error)  # re-raises what is not a refusal: a 500
    # A refusal is an answer too, recorded in a transaction of its own (the write's was
    # rolled back with everything it did).
    try:
        with transaction.atomic():
            _answered(record, response)
            record.pk = None
            row_insert(record)
    except IntegrityError:
        first = _holder_of(record)
        if first is None:
            raise
        return _replay(first, record)
    return response


def _answered(record: ApiWrite, response: Response, shown_once: tuple[str, ...] = ()) -> None:
    record.status_code = response.status_code
    answer = _jsonable(response.data)
    if isinstance(answer, dict):
        answer.update({name: None for name in shown_once if name in answer})
    record.response = answer


def _holder_of(record: ApiWrite) -> ApiWrite | None:
    """The write that holds the record's key, if it has one and it is taken."""
    if record.idempotency_key is None:
        return None
    return row_find(ApiWrite, user_id=record.user_id, idempotency_key=record.idempotency_key)


def _replay(first: ApiWrite, again: ApiWrite) -> Response:
    if first.fingerprint != again.fingerprint:
        raise ApiError(
            422,
            "idempotency_key_reused",
            f"{HEADER} {again.idempotency_key!r} was used at {first.at:%Y-%m-%d %H:%M:%S} UTC "
            f"for {first.method} {first.path} with another body; use a new key for a new "
            "request",
        )
    return Response(first.response, status=first.status_code, headers={REPLAYED: "true"})
