"""Logs (issue 22, point 4): a request id on every line and answer, carried into the tasks
the request causes with its table and round; JSON lines in production; beat's routine
tasks quiet at INFO; Sentry on only with SENTRY_DSN."""

import io
import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.test import Client

from casino import logs
from casino.celery import app
from games.models import SettlementRequest
from tests.api.conftest import API, new_key, operations_user, post, session
from tests.casino.test_settings import manage, production_env
from tests.games.round_fixtures import open_table, opened, place, result, settle, wager

HEX32 = re.compile(r"[0-9a-f]{32}")


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """Every line logged meanwhile, as production writes it (JSON, the context's fields)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(logs.ContextFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)


def parsed(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


# --- the request id ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_request_gets_an_id_and_sends_it_back():
    made = Client().get("/health/")
    assert HEX32.fullmatch(made["X-Request-ID"])
    assert Client().get("/health/")["X-Request-ID"] != made["X-Request-ID"]
    given = Client().get("/health/", headers={"X-Request-ID": "lb-7f3a.42:1"})
    assert given["X-Request-ID"] == "lb-7f3a.42:1"


@pytest.mark.django_db
@pytest.mark.parametrize("bad", ["two words", "a" * 129, "id\nforged line", "<script>"])
def test_an_invalid_incoming_request_id_is_replaced(bad):
    answer = Client().get("/health/", headers={"X-Request-ID": bad})
    assert HEX32.fullmatch(answer["X-Request-ID"])


@pytest.mark.django_db
def test_a_requests_lines_carry_its_id_with_the_table_and_round(lines):
    table = open_table("sic_bo")
    round_ = opened(table)
    client = session(operations_user())
    answer = client.get(f"{API}/rounds/{round_.pk}/", headers={"X-Request-ID": "req-1"})
    assert answer.status_code == 200
    missing = client.get(f"{API}/rounds/999999/", headers={"X-Request-ID": "req-2"})
    assert missing.status_code == 404
    # Django logs the 404 after the middleware returned: the line still has the id.
    warning = [line for line in parsed(lines) if line.get("request_id") == "req-2"]
    assert [(w["level"], w["logger"]) for w in warning] == [("WARNING", "django.request")]
    assert "table" not in warning[0]
    # Between requests, nothing lingers.
    logging.getLogger("casino.test").warning("after the requests")
    assert "request_id" not in parsed(lines)[-1]
    assert logs.current_context() == {}


@pytest.mark.django_db
def test_a_round_endpoint_logs_with_its_table_and_round(lines, monkeypatch):
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    seen: list[dict] = []
    real = logs.log_context

    def spy(**fields):
        real(**fields)
        seen.append(logs.current_context())

    monkeypatch.setattr("games.apis.log_context", spy)
    client = session(operations_user())
    answer = post(
        client, f"{API}/rounds/{round_.pk}/no-more-bets/", key=new_key(), **{"X-Request-ID": "r-9"}
    )
    assert answer.status_code == 200, answer.content
    assert seen[-1] == {"request_id": "r-9", "table": table.pk, "round": round_.pk}


# --- into the tasks ---------------------------------------------------------------------------


def test_a_published_task_carries_the_request_id_table_and_round():
    # A real publish to the embedded broker (a file per message): the header is in it.
    queue = Path(settings.BROKER_DIR) / "queue"
    before = set(queue.iterdir())
    logs._context.set({"request_id": "req-5", "table": 3, "round": 9})
    try:
        app.send_task("monitoring.no_such_task", queue="monitoring")
    finally:
        logs._context.set(None)
    (message,) = set(queue.iterdir()) - before
    headers = json.loads(message.read_text())["headers"]
    message.unlink()
    assert headers[logs.TASK_HEADER] == {"request_id": "req-5", "table": 3, "round": 9}
    assert headers["task"] == "monitoring.no_such_task"


def test_a_task_without_a_request_carries_nothing():
    headers: dict = {}
    logs.task_publish_context(headers=headers)
    assert headers == {}


def test_the_worker_logs_a_task_with_its_requests_context_and_forgets_it_after(lines):
    carried = {"request_id": "req-5", "table": 3, "round": 9, "other": "dropped"}
    task = SimpleNamespace(
        name="settlement.round_settle", request=SimpleNamespace(**{logs.TASK_HEADER: carried})
    )
    logs.task_context_enter(task_id="t-1", task=task)
    logging.getLogger("games.services.settlement").error("settling failed")
    logs.task_context_leave(task_id="t-1")
    logging.getLogger("games.services.settlement").error("between tasks")
    first, second = parsed(lines)
    assert {k: first[k] for k in ("request_id", "table", "round", "task", "task_id")} == {
        "request_id": "req-5",
        "table": 3,
        "round": 9,
        "task": "settlement.round_settle",
        "task_id": "t-1",
    }
    assert "other" not in first
    assert set(second) == {"time", "level", "logger", "message"}


@pytest.mark.django_db
def test_the_settlement_names_its_table_and_round(lines):
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    result(round_, "throw", [2, 3, 4])
    request = SettlementRequest.objects.get(round=round_)
    task = SimpleNamespace(name="settlement.round_settle", request=SimpleNamespace())
    logs.task_context_enter(task_id="t-2", task=task)
    try:
        assert settle(round_) == "settled"
        assert logs.current_context() == {
            "task": "settlement.round_settle",
            "task_id": "t-2",
            "table": table.pk,
            "round": round_.pk,
        }
    finally:
        logs.task_context_leave(task_id="t-2")
    assert request.pk and logs.current_context() == {}


# --- the formats -------------------------------------------------------------------------


def test_a_json_line_has_the_time_level_logger_message_and_the_traceback():
    record = logging.LogRecord("casino.x", logging.ERROR, __file__, 1, "%s failed", ("it",), None)
    record.created = 1764079200.25  # 2025-11-25 14:00:00.250 UTC
    try:
        raise ValueError("bad \u201cquote\u201d")
    except ValueError:
        record.exc_info = sys.exc_info()
    line = json.loads(logs.JsonFormatter().format(record))
    assert line["time"] == "2025-11-25T14:00:00.250+00:00"
    assert (line["level"], line["logger"], line["message"]) == ("ERROR", "casino.x", "it failed")
    assert line["exception"].endswith("ValueError: bad \u201cquote\u201d")


def test_production_logs_json_lines_and_development_text(tmp_path):
    code = "import logging; logging.getLogger('casino.x').warning('one %s', 'line')"
    done = manage("shell", "--no-imports", "-c", code, **production_env(tmp_path))
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(text) for text in done.stderr.splitlines()]
    assert (line["level"], line["logger"], line["message"]) == ("WARNING", "casino.x", "one line")
    done = manage("shell", "--no-imports", "-c", code, CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"\S+ \S+ WARNING casino.x: one line\n", done.stderr)


# --- beat's routine tasks ---------------------------------------------------------------------


def celery_record(logger: str, level: int, message: str, *args) -> logging.LogRecord:
    return logging.LogRecord(logger, level, "celery.py", 1, message, args, None)


BEAT_SENDS = ("devices-watch", "monitoring.devices_watch")
RECEIVED = {"name": "monitoring.heartbeats_flush", "id": "1"}
SUCCEEDED = {"name": "monitoring.devices_watch", "id": "2", "runtime": 0.01, "return_value": "{}"}
ROUTINE = [
    ("celery.beat", "Scheduler: Sending due task %s (%s)", BEAT_SENDS),
    ("celery.worker.strategy", "Task %(name)s[%(id)s] received", (RECEIVED,)),
    (
        "celery.app.trace",
        "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s",
        (SUCCEEDED,),
    ),
]


@pytest.mark.parametrize(("logger", "message", "args"), ROUTINE)
def test_routine_task_lines_are_dropped_at_info_and_demoted_at_debug(logger, message, args):
    quiet = logs.RoutineTasksQuiet(settings.CASINO_ROUTINE_TASKS)
    root = logging.getLogger()
    level = root.level
    try:
        root.setLevel(logging.INFO)
        assert quiet.filter(celery_record(logger, logging.INFO, message, *args)) is False
        root.setLevel(logging.DEBUG)
        record = celery_record(logger, logging.INFO, message, *args)
        assert quiet.filter(record) is True
        assert (record.levelno, record.levelname) == (logging.DEBUG, "DEBUG")
    finally:
        root.setLevel(level)


def test_a_settlement_and_a_routine_tasks_failure_still_log_at_info():
    quiet = logs.RoutineTasksQuiet(settings.CASINO_ROUTINE_TASKS)
    settled = celery_record(
        "celery.app.trace", logging.INFO, "Task %(name)s[%(id)s] succeeded",
        {"name": "settlement.round_settle", "id": "3"},
    )  # fmt: skip
    failed = celery_record(
        "celery.app.trace", logging.ERROR, "Task %(name)s[%(id)s] raised unexpected: %(exc)s",
        {"name": "monitoring.devices_watch", "id": "4", "exc": "OperationalError()"},
    )  # fmt: skip
    assert quiet.filter(settled) is True and settled.levelno == logging.INFO
    assert quiet.filter(failed) is True and failed.levelno == logging.ERROR


def test_every_beat_task_is_routine():
    beat = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert beat == {
        "monitoring.worker_ping_round",
        "monitoring.settlement_sweep",
        "monitoring.equipment_schedule_check",
        "monitoring.devices_watch",
        "monitoring.heartbeats_flush",
        "monitoring.device_waits_check",
        "monitoring.webhooks_sweep",
        "monitoring.webhooks_prune",
        "casino.equipment_notices_send",
    }
    assert sorted(beat) == settings.CASINO_ROUTINE_TASKS
    # The pings' answers (a few a minute) stay at INFO: an operator's ping_workers reads them.
    assert "monitoring.worker_ping_answer" not in settings.CASINO_ROUTINE_TASKS


@pytest.mark.parametrize(("logger", "message", "args"), ROUTINE)
def test_routine_task_lines_stay_at_info_when_asked(logger, message, args):
    quiet = logs.RoutineTasksQuiet(settings.CASINO_ROUTINE_TASKS, level="INFO")
    record = celery_record(logger, logging.INFO, message, *args)
    assert quiet.filter(record) is True and record.levelno == logging.INFO


# --- Sentry ----------------------------------------------------------------------------------

SENTRY_CHECK = (
    "import sentry_sdk;"
    "c = sentry_sdk.get_client();"
    "print(c.is_active(), sorted(k for k in c.integrations if k in ('django', 'celery')),"
    " c.options['send_default_pii'], c.options['environment'],"
    " c.options['max_request_body_size'])"
)
NOT_IMPORTED = "import sys, casino.celery; print('sentry_sdk' in sys.modules)"


def test_sentry_is_off_and_not_imported_without_a_dsn(tmp_path):
    done = manage("shell", "--no-imports", "-c", NOT_IMPORTED, CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "False\n"
    done = manage("shell", "--no-imports", "-c", SENTRY_CHECK, CASINO_DATA_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("False [] ")


def test_sentry_is_on_with_django_and_celery_when_a_dsn_is_set(tmp_path):
    done = manage(
        "shell", "--no-imports", "-c", SENTRY_CHECK, CASINO_DATA_DIR=str(tmp_path),
        SENTRY_DSN="https://public@sentry.example.invalid/1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["True ['celery', 'django'] False development never"]
