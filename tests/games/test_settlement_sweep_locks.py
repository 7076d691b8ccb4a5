"""The sweep passes by a request a worker is settling right now (issue 19, point 5).

With the queue empty the sweep sends a pending request again after 3 s; a settlement
that takes longer (a slow database) holds the request's row lock all along, so the
sweep selects with SKIP LOCKED: no message for it, and no send counted against it
(CASINO_SETTLEMENT_MAX_SENDS). Real row locks need PostgreSQL: skipped on SQLite, a
failure with CI=true (tests/services.py). Run them here with e.g.
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_locks .venv/bin/python -m pytest \\
        tests/games/test_settlement_sweep_locks.py
"""

import threading

import pytest
from django.db import connection, transaction

from games.models import SettlementRequest
from games.services import outbox
from games.services.outbox import SETTLE_TASK, requests_sweep
from tests.games.test_settlement_alerts import RESULT_AT, S, played, request_of
from tests.games.test_settlement_outbox import Broker
from tests.services import in_ci

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        message = (
            f"the database is {connection.vendor}; row locks (SKIP LOCKED) need PostgreSQL: "
            "set DATABASE_URL=postgres://... to run this test"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)


def test_a_request_being_settled_is_passed_by_and_its_sends_not_counted(monkeypatch):
    broker = Broker()
    monkeypatch.setattr("games.services.outbox.current_app", broker)
    monkeypatch.setattr(outbox, "settlement_queue_length", lambda: 0)
    busy = request_of(played(1, "SB-01"))
    lost = request_of(played(1, "SB-02"))
    broker.sent.clear()
    locked, release = threading.Event(), threading.Event()

    def worker() -> None:  # a settlement in progress: the request's row locked
        try:
            with transaction.atomic():
                SettlementRequest.objects.select_for_update().get(pk=busy.pk)
                locked.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert locked.wait(timeout=30)
        assert requests_sweep(RESULT_AT + 4 * S) == 1
    finally:
        release.set()
        thread.join(timeout=30)
    assert broker.sent == [(SETTLE_TASK, [lost.pk])]
    assert SettlementRequest.objects.get(pk=busy.pk).sends == 1
    assert SettlementRequest.objects.get(pk=lost.pk).sends == 2
    # Released (the worker gave up or died): the next sweep takes it.
    assert requests_sweep(RESULT_AT + 5 * S) == 1
    assert broker.sent[-1] == (SETTLE_TASK, [busy.pk])
