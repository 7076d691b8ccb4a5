"""A connection a task left inside a transaction Django does not know of is rolled back
and closed after the task (casino/db_connections.py); one inside an atomic block, or in a
state Django knows, is left alone. The state is made as a soft time limit leaves it: the
driver's transaction begun (or its autocommit turned off) behind Django's back.
tests/workers/test_transaction_left_open_integration.py makes it with a real worker."""

import pytest
from django.db import connection, transaction

from casino.db_connections import after_task, left_open
from casino.models import CertificateHolder
from tests.services import in_ci

pytestmark = pytest.mark.django_db(transaction=True)


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
    if connection.vendor != "postgresql":
        message = "psycopg's own autocommit flag: set DATABASE_URL=postgres://... to run this"
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    CertificateHolder.objects.count()
    connection.connection.autocommit = False  # set on the driver, not yet on Django's side
    assert left_open(connection) == "out of autocommit outside any atomic block"
    after_task(sender=Task())
    assert connection.connection is None  # closed: the next query opens a new one
    assert CertificateHolder.objects.count() == 0
    assert left_open(connection) is None
