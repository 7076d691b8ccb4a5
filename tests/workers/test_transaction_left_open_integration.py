"""A task's soft time limit landing in SQLite's BEGIN IMMEDIATE does not freeze the floor
(casino/db_connections.py), with a real worker on the embedded default: a SQLite file and
the filesystem broker, so the test needs no service.

This process holds the file's write lock. A task that opens a transaction first (beat's
webhooks sweep) is sent with a soft time limit of 1 s: its BEGIN IMMEDIATE waits for the
lock, the limit falls due meanwhile and is raised the moment BEGIN returns, before Django
marks the block atomic. Left so, the worker's connection would hold the write lock (every
other writer waits SQLite's 20 s, then fails "database is locked") and every later task of
that process would fail "cannot start a transaction within a transaction". After the task,
the connection is rolled back and closed: the next task succeeds and the file takes a write
at once.
"""

import re
import sqlite3
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.services import ROOT, manage, project_env
from tests.workers.test_settlement_integration import wait_until, worker_start

pytestmark = pytest.mark.integration

# Sent one at a time: the filesystem broker does not keep the order of messages sent
# together, and the limited task must be the one waiting on the lock.
SEND_LIMITED = """
from casino.celery import app
print(app.send_task("monitoring.webhooks_sweep", soft_time_limit=1, time_limit=15).id)
"""
SEND_AFTER = """
from casino.celery import app
print(app.send_task("monitoring.webhooks_sweep").id)
"""
HOLD_SECONDS = 2.5  # past the soft limit of 1 s, well within SQLite's busy timeout (20 s)


def write_takes(database: Path, timeout: float) -> float:
    """Seconds a write transaction of another process waits for the file (raises past
    `timeout`: "database is locked")."""
    started = time.monotonic()
    writer = sqlite3.connect(database, isolation_level=None, timeout=timeout)
    try:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("COMMIT")
    finally:
        writer.close()
    return time.monotonic() - started


def test_a_soft_limit_landing_in_begin_leaves_no_transaction_open(tmp_path: Path):
    env = project_env(CASINO_DATA_DIR=str(tmp_path / "var"), PYTHONPATH=str(ROOT))
    manage(env, "migrate", "--noinput")
    database = tmp_path / "var" / "db.sqlite3"
    log = tmp_path / "worker.log"
    with ExitStack() as stack:
        worker_start(stack, env, log, "left-open")
        holder = sqlite3.connect(database, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the floor's write lock, held by another process
        try:
            limited = manage(env, "shell", "-c", SEND_LIMITED).stdout.split()[-1]
            wait_until(lambda: limited.encode() in log.read_bytes(), 20, "the task taken", log)
            after = manage(env, "shell", "-c", SEND_AFTER).stdout.split()[-1]
            time.sleep(HOLD_SECONDS)
        finally:
            holder.execute("COMMIT")
            holder.close()
        done = re.compile(rf"{after}\] (succeeded|retry|raised)".encode())
        wait_until(lambda: done.search(log.read_bytes()), 20, "the next task done", log)
        text = log.read_text()
        assert re.search(rf"{limited}\] raised unexpected: SoftTimeLimitExceeded", text), text
        assert f"{after}] succeeded" in text, text
        assert "cannot start a transaction within a transaction" not in text
        assert write_takes(database, timeout=2) < 1  # no lock left behind
        assert (
            "monitoring.webhooks_sweep left the default database connection inside a "
            "transaction Django does not know of: rolled back and closed"
        ) in text
