"""A connection a task left inside a transaction Django does not know of is rolled back
and closed after the task (casino/db_connections.py); one inside an atomic block, or in a
state Django knows, is left alone. The state is made as a soft time limit leaves it: the
driver's transaction begun (or its autocommit turned off) behind Django's back.
tests/workers/test_transaction_left_open_integration.py makes it with a real worker."""

import signal
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import psycopg
import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection, transaction

from casino.db_connections import after_task, left_open
from casino.models import CertificateHolder
from tests.services import require_postgres_in_process

# Transactional (no test transaction around them), and serialized as the suite's other
# transactional tests are, so each finds the content types the audit's entries name.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(autouse=True)
def nothing_left_open() -> Iterator[None]:
    """A test that fails with the driver's transaction open leaves none to the next."""
    yield
    if connection.connection is not None and not connection.in_atomic_block:
        with suppress(Exception):
            connection.connection.rollback()


class Task:
    name = "monitoring.webhooks_sweep"


def test_a_transaction_begun_behind_django_s_back_is_rolled_back_after_the_task(caplog):
    CertificateHolder.objects.count()  # connected
    connection.cursor().execute("BEGIN")  # the driver's BEGIN; Django never marked a block
    CertificateHolder.objects.create(name="written in the transaction left open")
    assert left_open(connection) == "inside a transaction Django does not know of"
    after_task(sender=Task())
    assert left_open(connection) is None
    assert not CertificateHolder.objects.filter(name__startswith="written").exists()
    assert (
        "monitoring.webhooks_sweep left the default database connection inside a "
        "transaction Django does not know of: rolled back and closed"
    ) in caplog.text
    with transaction.atomic():  # the next task's transaction begins as Django expects
        CertificateHolder.objects.create(name="the next task")
    assert CertificateHolder.objects.filter(name="the next task").exists()


def test_a_transaction_django_knows_of_is_left_alone(caplog):
    with transaction.atomic():
        CertificateHolder.objects.create(name="a caller's block")
        assert left_open(connection) is None
        after_task(sender=Task())
    assert CertificateHolder.objects.filter(name="a caller's block").exists()
    assert left_open(connection) is None
    assert "rolled back and closed" not in caplog.text


def test_a_driver_out_of_autocommit_behind_django_s_back_is_closed_on_postgresql():
    require_postgres_in_process("a PostgreSQL session's states")
    CertificateHolder.objects.count()
    connection.connection.autocommit = False  # set on the driver, not yet on Django's side
    assert left_open(connection) == "out of autocommit outside any atomic block"
    after_task(sender=Task())
    assert connection.connection is None  # closed: the next query opens a new one
    assert CertificateHolder.objects.count() == 0
    assert left_open(connection) is None


@contextmanager
def row_locked_elsewhere(holder: CertificateHolder) -> Iterator[None]:
    """Another session holds the holder's row lock (as a worker's transaction would)."""
    settings = connection.settings_dict
    other = psycopg.connect(
        dbname=settings["NAME"], user=settings["USER"], password=settings["PASSWORD"],
        host=settings["HOST"], port=settings["PORT"] or None,
    )  # fmt: skip
    try:
        other.execute(
            f"SELECT 1 FROM {CertificateHolder._meta.db_table} WHERE id = %s FOR UPDATE",
            [holder.pk],
        )
        yield
    finally:
        other.rollback()
        other.close()


@contextmanager
def soft_limit_after(seconds: float) -> Iterator[None]:
    """SoftTimeLimitExceeded raised in this (the main) thread after `seconds`, from a signal
    handler, as billiard raises a task's soft time limit."""

    def limited(signum, frame):
        raise SoftTimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, limited)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_soft_limit_in_a_postgresql_lock_wait_inside_atomic_is_django_s_own_to_mend():
    """psycopg sends BEGIN with the block's first statement, so a limit landing while it
    waits lands inside a block Django knows: it rolls back, or closes a connection that
    cannot, by itself."""
    require_postgres_in_process("a PostgreSQL session's states")
    holder = CertificateHolder.objects.create(name="locked elsewhere")
    locked = row_locked_elsewhere(holder)
    with locked, pytest.raises(SoftTimeLimitExceeded), soft_limit_after(0.3), transaction.atomic():
        CertificateHolder.objects.select_for_update().get(pk=holder.pk)
    assert left_open(connection) is None
    assert CertificateHolder.objects.filter(pk=holder.pk).exists()  # usable again


def test_a_soft_limit_in_a_postgresql_lock_wait_outside_atomic_is_closed_after_the_task():
    """An autocommit statement interrupted while it waits leaves the session busy with it
    (the server runs it once the lock is free, as any statement whose answer a client
    stopped waiting for): every later query would fail "another command is already in
    progress". Closed after the task."""
    require_postgres_in_process("a PostgreSQL session's states")
    holder = CertificateHolder.objects.create(name="locked elsewhere")
    locked = row_locked_elsewhere(holder)
    with locked, pytest.raises(SoftTimeLimitExceeded), soft_limit_after(0.3):
        CertificateHolder.objects.filter(pk=holder.pk).update(name="renamed")
    assert left_open(connection) == "with a statement Django does not know of still running"
    after_task(sender=Task())
    assert connection.connection is None
    assert CertificateHolder.objects.filter(pk=holder.pk).exists()  # a new connection
