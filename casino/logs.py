"""Logs: a request id on every line, carried into the Celery tasks the request causes, with
the table and round where there is one; JSON lines in production; beat's routine tasks
quiet at INFO; error tracking with Sentry when SENTRY_DSN is set.

Part of Django's frame (like settings and the Celery app): settings name the formatter and
filters, casino/celery.py connects the task signals, and any layer may call `log_context`.
It imports nothing of the floor.

- A request's id is a valid incoming X-Request-ID (a proxy's or the client's) or a new one,
  and goes back as X-Request-ID (`RequestIdMiddleware`).
- It lives in context variables for the request (each gunicorn thread, each request), so
  every line logged meanwhile carries it (`ContextFilter`), and so does every task the
  request publishes: a message header (`before_task_publish`) that the worker puts back
  while the task runs (`task_prerun`, `task_postrun`).
"""

import contextvars
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

REQUEST_ID_HEADER = "X-Request-ID"
# What we accept from outside: a UUID, a proxy's hex id, a trace id; nothing that could
# break a log line or carry a payload.
VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
TASK_HEADER = "casino_log_context"
# The fields a line carries when known, in this order.
FIELDS = ("request_id", "table", "round", "task", "task_id")

_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "casino_log_context", default=None
)


def _fields() -> dict[str, Any]:
    return _context.get() or {}


def log_context(**fields: Any) -> None:
    """Add fields (request_id, table, round, ...) to what this request or task logs."""
    _context.set({**_fields(), **{k: v for k, v in fields.items() if v is not None}})


def current_context() -> dict[str, Any]:
    """What this request or task logs with each line."""
    return dict(_fields())


def request_id_of(request: HttpRequest) -> str:
    """The incoming X-Request-ID when it is valid, else a new one."""
    return request_id_from(request.META)


def request_id_from(meta: Mapping[str, Any]) -> str:
    """`request_id_of` from a request's META or a WSGI environ."""
    given = meta.get("HTTP_X_REQUEST_ID", "")
    if VALID_REQUEST_ID.fullmatch(given):
        return given
    return os.urandom(16).hex()  # 128 random bits, as a UUID4's, at a quarter of its cost


class RequestIdMiddleware:
    """A request id for every request: in each line it logs, its tasks, its answer."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_of(request)
        request.request_id = request_id
        # Kept until the response is closed (`_request_context_clear`): Django logs a 4xx
        # or 5xx after the middleware has returned, and that line carries the id too.
        _context.set({"request_id": request_id})
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response


def _request_context_clear(**kwargs: Any) -> None:
    # The server closed the response: the thread's next request starts clean.
    _context.set(None)


request_finished.connect(_request_context_clear, dispatch_uid="casino.logs.request_finished")


class ContextFilter(logging.Filter):
    """Puts the request's or task's fields on every record (for the formatters)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in _fields().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC), level, logger, message, the context's fields,
    and the traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


class PlainFormatter(logging.Formatter):
    """Development's text lines, with the request id or task when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        known = [f"{name}={getattr(record, name)}" for name in FIELDS[:3] if hasattr(record, name)]
        return f"{text} [{' '.join(known)}]" if known else text


# Celery's loggers that write a line per periodic task: beat's "Sending due task", the
# worker's "received" and the trace's "succeeded". Failures come from the same loggers at
# WARNING or ERROR and are left alone.
CELERY_ROUTINE_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")


class RoutineTasksQuiet(logging.Filter):
    """Beat's routine tasks (a watch every second) at `level` (DEBUG): their INFO lines
    from Celery are demoted to it, and dropped when the root logger is above it."""

    def __init__(self, tasks: Iterable[str] = (), level: str = "DEBUG") -> None:
        super().__init__()
        self.tasks = tuple(tasks)
        self.levelno = logging.getLevelName(level.upper())
        if not isinstance(self.levelno, int):
            raise ValueError(f"no log level {level!r}")

    def filter(self, record: logging.LogRecord) -> bool:
        if (
            record.levelno != logging.INFO
            or self.levelno >= logging.INFO
            or not record.name.startswith(CELERY_ROUTINE_LOGGERS)
        ):
            return True
        message = record.getMessage()
        if not any(f"{task}[" in message or f"({task})" in message for task in self.tasks):
            return True
        if logging.getLogger().getEffectiveLevel() > self.levelno:
            return False
        record.levelno, record.levelname = self.levelno, logging.getLevelName(self.levelno)
        return True


# --- Celery: the context into the message, and back in the worker -----------------------


def task_publish_context(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """before_task_publish: the publisher's request id, table and round as a header."""
    carried = {k: v for k, v in _fields().items() if k in ("request_id", "table", "round")}
    if carried and headers is not None:
        headers[TASK_HEADER] = carried


_task_tokens: dict[str, contextvars.Token] = {}


def task_context_enter(task_id: str = "", task: Any = None, **kwargs: Any) -> None:
    """task_prerun: the context the message carries, with the task's name and id."""
    carried = getattr(getattr(task, "request", None), TASK_HEADER, None) or {}
    fields = {k: v for k, v in carried.items() if k in ("request_id", "table", "round")}
    fields.update(task=getattr(task, "name", None), task_id=task_id)
    _task_tokens[task_id] = _context.set(fields)


def task_context_leave(task_id: str = "", **kwargs: Any) -> None:
    """task_postrun: the worker's next task starts clean."""
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        try:
            _context.reset(token)
        except ValueError:  # set in another context (a thread pool): start clean instead
            _context.set(None)


# --- Sentry ------------------------------------------------------------------------------


def sentry_init(dsn: str, *, environment: str, traces_sample_rate: float) -> None:
    """Error tracking: Django's and Celery's uncaught errors to Sentry. Called by settings
    only when SENTRY_DSN is set, so sentry_sdk is not even imported otherwise."""
    # Imported here: a floor without SENTRY_DSN never loads sentry_sdk.
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        traces_sample_rate=traces_sample_rate,
        send_default_pii=False,  # no user names, cookies or IP addresses leave the floor
        # Request bodies (wagers, results) are sent on every error unless told: "medium",
        # sentry_sdk's default, attaches them whatever send_default_pii says.
        max_request_body_size="never",
    )
