"""Two workers handed the same settlement request at once settle it once (issue 7).

The request row is locked with SELECT ... FOR UPDATE SKIP LOCKED: the second worker
passes it by ("busy") or, arriving after the first committed, finds it settled. Real
row locks need PostgreSQL: on SQLite these tests are skipped, and with CI=true they
fail instead (tests/services.py), so CI never passes without having run them.

Run them here with e.g.
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python -m pytest \
        tests/games/test_settlement_concurrency.py
"""

import threading

import pytest
from django.db import connection, transaction

from games.models import LedgerEntry, Resolution, Round, SettlementRequest, Wager
from games.services.settlement import round_settle
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import (
    M,
    books_balance_check,
    fresh,
    open_table,
    opened,
    place,
    result,
    wager,
)
from tests.services import in_ci

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

SETTLED = "settled"
PASSED_BY = {"busy: another worker holds it", "already settled"}


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


def round_awaiting_settlement(table, number: int) -> Round:
    start = T0 + 10 * number * M
    round_ = opened(table, now=start + M)
    place(
        round_,
        wager("ann", "small", "10"),
        wager("bob", "big", "10"),
        wager("carl", "total:9", "5"),
        now=start + 2 * M,
    )
    result(round_, "throw", [2, 3, 4], now=start + 3 * M)
    return round_


def settle_in_threads(request_id: int, workers: int = 2) -> list[str]:
    """`workers` threads call round_settle for one request at the same moment."""
    barrier = threading.Barrier(workers)
    said: list[str] = []
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            barrier.wait(timeout=30)
            said.append(round_settle(request_id, worker=name, now=T0 + 9 * M))
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(f"worker-{i}",)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return said


def test_two_workers_at_once_settle_the_round_exactly_once():
    table = open_table("sic_bo")
    for number in range(1, 6):  # five rounds: five chances for the two to collide
        round_ = round_awaiting_settlement(table, number)
        request = SettlementRequest.objects.get(round=round_)
        said = settle_in_threads(request.pk)
        assert said.count(SETTLED) == 1, said
        assert set(said) - {SETTLED} <= PASSED_BY, said
        assert LedgerEntry.objects.filter(key=f"settlement:{round_.pk}").count() == 1
        assert Resolution.objects.filter(round=round_).count() == round_.wagers.count() == 3
        assert fresh(round_).status == Round.Status.SETTLED
        assert SettlementRequest.objects.get(pk=request.pk).settled_by.startswith("worker-")
    assert Resolution.objects.count() == Wager.objects.count() == 15
    books_balance_check(table)


def test_a_request_held_by_one_worker_is_passed_by_and_settled_once_released():
    table = open_table("sic_bo")
    round_ = round_awaiting_settlement(table, 1)
    request = SettlementRequest.objects.get(round=round_)
    held = threading.Event()
    release = threading.Event()

    def first_worker() -> None:
        try:
            with transaction.atomic():
                SettlementRequest.objects.select_for_update().get(pk=request.pk)
                held.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    holder = threading.Thread(target=first_worker)
    holder.start()
    try:
        assert held.wait(timeout=30)
        said = []
        other = threading.Thread(
            target=lambda: (said.append(round_settle(request.pk, worker="w2")), connection.close())
        )
        other.start()
        other.join(timeout=30)
        assert said == ["busy: another worker holds it"]
        assert not Resolution.objects.exists()
    finally:
        release.set()
        holder.join(timeout=30)
    assert round_settle(request.pk, worker="w3", now=T0 + 9 * M) == SETTLED
    assert round_settle(request.pk, worker="w4", now=T0 + 9 * M) == "already settled"
    assert Resolution.objects.filter(round=round_).count() == 3
