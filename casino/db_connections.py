"""A worker's database connections between tasks: one left inside a transaction that
Django does not know of is rolled back and closed.

Part of Django's frame, like casino/logs.py: casino/celery.py runs it after every task
(`task_postrun`), and workers/tasks.py before a settlement's retry. Workers keep their
connection across tasks (CELERY_DB_REUSE_MAX; Celery's Django fixup then closes it only
every thousand tasks), so a connection a task left broken would break every later task of
its process, and on SQLite hold the write lock of the whole floor.

How one is left so: an exception raised asynchronously (a task's soft time limit,
SoftTimeLimitExceeded from a signal handler) lands between the driver's BEGIN and Django's
own bookkeeping. On SQLite (`transaction_mode` IMMEDIATE, casino/settings.py) `atomic()`
runs `BEGIN IMMEDIATE`, which waits up to the busy timeout for another writer; a limit
that falls due meanwhile is raised the moment BEGIN returns, before Django marks the block
atomic: the file's write lock is held, Django believes it is in autocommit, and the next
`atomic()` fails "cannot start a transaction within a transaction". On PostgreSQL psycopg
sends BEGIN with the first statement inside the block, so a limit landing while it waits
lands in a block Django knows (it rolls back, or closes what cannot); what is left is a few
bytecodes where the autocommit flag is set on the driver and not yet on Django's side, and
an autocommit statement interrupted while it waits (the session stays busy with it, and
every later query fails "another command is already in progress"). Both are checked the
same way (tests/casino/test_db_connections.py).
"""

import logging

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg.pq import TransactionStatus

log = logging.getLogger(__name__)


def left_open(connection: BaseDatabaseWrapper) -> str | None:
    """What is wrong with a connection outside any atomic block, or None: its driver in a
    transaction (or busy with a statement), or out of autocommit, when Django believes
    neither."""
    raw = connection.connection
    if raw is None or connection.in_atomic_block:
        return None
    if not connection.settings_dict.get("AUTOCOMMIT", True):
        return None  # a project that manages its transactions by hand: not ours to judge
    if connection.vendor == "sqlite":
        # Django keeps sqlite3's autocommit on (isolation_level None) and BEGINs itself.
        opened, driver_autocommit = raw.in_transaction, raw.isolation_level is None
    elif connection.vendor == "postgresql":
        status = raw.info.transaction_status
        if status == TransactionStatus.ACTIVE:  # interrupted while the server runs it
            return "with a statement Django does not know of still running"
        opened, driver_autocommit = status != TransactionStatus.IDLE, raw.autocommit
    else:
        return None
    if opened:
        return "inside a transaction Django does not know of"
    if not (driver_autocommit and connection.autocommit):
        return "out of autocommit outside any atomic block"
    return None


def discard_if_left_open(connection: BaseDatabaseWrapper, task: str) -> bool:
    """Roll back and close the connection if it was left open (`left_open`); True if it
    was. The next query opens a new one, in a state Django knows."""
    problem = left_open(connection)
    if problem is None:
        return False
    log.warning(
        "%s left the %s database connection %s: rolled back and closed",
        task, connection.alias, problem,
    )  # fmt: skip
    try:
        connection.connection.rollback()  # releases SQLite's write lock at once
    except Exception as error:  # a query still in flight, a connection lost: close anyway
        log.warning("rolling back the %s connection failed: %s", connection.alias, error)
    try:
        connection.close()  # outside an atomic block Django drops it even when this raises
    except Exception as error:
        log.warning("closing the %s connection failed: %s", connection.alias, error)
    return True


def after_task(sender: object = None, **kwargs: object) -> None:
    """Celery's task_postrun: every connection of this process checked (any task)."""
    task = getattr(sender, "name", None) or "a task"
    for connection in connections.all(initialized_only=True):
        discard_if_left_open(connection, task)
