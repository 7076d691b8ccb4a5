"""A task sent through a real broker, run by a real ``celery worker``, read back from the database.

Two stacks: PostgreSQL with Redis (what production runs), and the embedded default,
an SQLite file with kombu's filesystem broker (what a fresh clone runs).
"""

import json
import signal
import socket
import sqlite3
import uuid
from contextlib import ExitStack
from pathlib import Path

import psycopg
import pytest

from tests.services import (
    celery_worker,
    manage,
    postgres_database,
    project_env,
    redis_database,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

READ_BACK = "SELECT queue, answered_by, answered_at >= sent_at FROM workers_workerping ORDER BY id"


def read_back_postgres(url: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return [tuple(row) for row in conn.execute(READ_BACK).fetchall()]


def read_back_sqlite(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return [(q, by, bool(ok)) for q, by, ok in conn.execute(READ_BACK).fetchall()]


def run_ping_through_a_worker(env: dict[str, str], tmp_path: Path) -> tuple[str, dict]:
    """Migrate, start a worker, ping two queues through it, stop it; return node and report."""
    manage(env, "migrate", "--noinput")
    node = f"itest-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    with celery_worker(env, tmp_path / "worker.log", node) as worker:
        done = manage(
            env, "ping_workers", "--queue", "settlement", "--queue", "default",
            "--timeout", "60", "--json",
        )  # fmt: skip
        worker.send_signal(signal.SIGTERM)  # a warm shutdown, as an operator stops it
        log = (tmp_path / "worker.log").read_text()
        assert worker.wait(timeout=30) == 0, log
    # Each ping was delivered to exactly one queue, once: queues do not share a binding.
    received = [
        line for line in log.splitlines() if "worker_ping_answer[" in line and "received" in line
    ]
    assert len(received) == 2, log
    return node, json.loads(done.stdout)


def test_a_task_through_redis_runs_on_a_real_worker_and_lands_in_postgresql(tmp_path):
    require_postgres()
    require_redis()
    with ExitStack() as stack:
        database_url = stack.enter_context(postgres_database())
        broker_url = stack.enter_context(redis_database())
        env = project_env(
            DATABASE_URL=database_url, CELERY_BROKER_URL=broker_url, CASINO_DATA_DIR=str(tmp_path)
        )
        node, report = run_ping_through_a_worker(env, tmp_path)
        assert [p["answered_by"] for p in report["pings"]] == [node, node]
        assert read_back_postgres(database_url) == [
            ("settlement", node, True),
            ("default", node, True),
        ]


def test_a_task_through_the_embedded_broker_runs_on_a_real_worker_and_lands_in_sqlite(tmp_path):
    env = project_env(CASINO_DATA_DIR=str(tmp_path))  # the defaults: SQLite file, filesystem broker
    node, report = run_ping_through_a_worker(env, tmp_path)
    assert [p["answered_by"] for p in report["pings"]] == [node, node]
    assert read_back_sqlite(tmp_path / "db.sqlite3") == [
        ("settlement", node, True),
        ("default", node, True),
    ]
