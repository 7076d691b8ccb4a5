"""Settlement's writes on PostgreSQL: one statement, the same rows as the ORM's (issue 21).

On PostgreSQL `round_settle` writes every row of a settlement in one statement; elsewhere
the ORM writes them. Here both writers settle the same two Craps rounds (a point, then a
Buy Bet with its vigorish, odds, a Place Bet, the Field and a losing proposition) at two
tables, and every row they write is compared. Statement counts are asserted, never times.
"""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.models import LedgerEntry, Resolution, Round, SettlementRequest
from games.services import settlement
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import (
    M,
    books_balance_check,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
)
from tests.services import in_ci

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        message = (
            f"the database is {connection.vendor}; the one-statement settlement is "
            "PostgreSQL's: set DATABASE_URL=postgres://... to run this test"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)


def craps_rounds(number: str) -> list[Round]:
    """Two Craps rounds at a new table: the point of 4, then the 4 thrown."""
    table = open_table(
        "craps",
        number=number,
        options={"buy_lay": True, "vig_percent": "5", "vig_collected": "on_win"},
        max_wager="1000",
    )
    first = opened(table)
    place(first, wager("ann", "pass", "10"), wager("bob", "buy:4", "20"))
    result(first, "throw", [2, 2])
    settle(first)
    second = opened(table, now=T0 + 10 * M)
    place(
        second,
        wager("ann", "odds", "20", on="1.1"),
        wager("carl", "place:6", "12"),
        wager("carl", "field", "10"),
        wager("dave", "any_seven", "5"),
        now=T0 + 11 * M,
    )
    result(second, "throw", [1, 3], now=T0 + 12 * M)
    settle(second, now=T0 + 13 * M)
    books_balance_check(table)
    return [first, second]


def written(round_: Round) -> dict[str, object]:
    """Every row settling the round wrote, without ids (which differ between tables)."""
    round_ = Round.objects.get(pk=round_.pk)
    request = SettlementRequest.objects.get(round=round_)
    entry = LedgerEntry.objects.get(round=round_, kind=LedgerEntry.Kind.SETTLEMENT)
    return {
        "round": (round_.status, round_.settled_at, round_.rules_hash, bytes(round_.state_after)),
        "request": (request.settled_at, request.settled_by),
        "entry": (entry.key.split(":")[0], entry.posted_at, entry.posted_by_id, entry.memo),
        "resolutions": [
            (
                r.wager.ref,
                r.event.seq,
                r.result,
                r.net,
                r.stake,
                r.winnings,
                r.payout_limit_reduction,
                r.vigorish,
                r.cite,
                r.extra,
            )
            for r in Resolution.objects.filter(round=round_).select_related("wager", "event")
        ],
        "lines": [
            (line.wager and line.wager.ref, line.account, line.player, line.kind, line.amount)
            for line in entry.lines.select_related("wager").order_by("id")
        ],
    }


def test_the_one_statement_writes_the_rows_the_orm_writes(monkeypatch):
    one = craps_rounds("CR-01")
    monkeypatch.setattr(settlement, "one_statement", lambda: False)
    orm = craps_rounds("CR-02")
    assert [written(r) for r in one] == [written(r) for r in orm]
    assert written(one[1])["resolutions"]  # the second round decided wagers


def test_a_settlement_is_two_statements_on_postgresql():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "big", "10"), wager("bob", "total:9", "5"))
    result(round_, "throw", [3, 3, 3])
    request = SettlementRequest.objects.get(round=round_)
    with CaptureQueriesContext(connection) as captured:
        assert settlement.round_settle(request.pk, worker="test", now=T0 + 5 * M) == "settled"
    # The request locked with its round, its events and its wagers, and the one write (the
    # test's own transaction makes the settlement's a savepoint: not counted).
    statements = [q["sql"] for q in captured if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 2, [sql[:80] for sql in statements]
    assert "FOR UPDATE" in statements[0] and "json_agg" in statements[0]
    assert statements[-1].startswith('WITH round_settled AS (UPDATE "games_round"')
    books_balance_check(table)


def test_the_lock_reads_the_rows_the_orm_reads():
    first, second = craps_rounds("CR-03")
    request = SettlementRequest.objects.get(round=second)
    orm = SettlementRequest.objects.select_related("round__previous").get(pk=request.pk)

    def fields(instance) -> dict[str, object]:
        values = {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}
        return {k: bytes(v) if isinstance(v, memoryview) else v for k, v in values.items()}

    with transaction.atomic():
        read = settlement._locked_with_reads(request.pk)
        assert fields(read) == fields(orm)
        assert fields(read.round) == fields(orm.round)
        assert fields(read.round.previous) == fields(orm.round.previous) != {}
        assert read.round.previous.pk == first.pk
        got = settlement._read(read, read.round)
    events = list(second.events.order_by("seq"))
    assert [(e.pk, e.seq, e.event, e.payload) for e in got.events] == [
        (e.pk, e.seq, e.event, e.payload) for e in events
    ]
    assert {ref: tuple(w) for ref, w in got.wagers.items()} == {
        w.ref: (w.pk, w.ref, w.player, w.kind, w.amount) for w in second.wagers.all()
    }
    assert settlement._locked_with_reads(10**9) is None
