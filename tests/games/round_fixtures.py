"""Helpers for the round, settlement and ledger tests (issue 7).

A round is played through the services exactly as the floor plays it, with an injected
clock: `compliant_table(...)` of tests/casino/floor_fixtures.py gives an open table,
`opened()` a round on it, and `settle()` calls the worker's settlement directly (no
broker), as `round_settle(SettlementRequest.objects.get(round=r).pk)`.

The invariant checks here are written from the ledger's definition (spec of issue 7):
every entry sums to zero; a resolved wager's player lines sum to its net; the layout
holds exactly the stakes of the wagers not yet resolved.
"""

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from casino.models import Table
from games.models import LedgerEntry, LedgerLine, Resolution, Round, SettlementRequest, Wager
from games.services.settlement import round_settle
from gaming.rounds import no_more_bets, result_enter, round_open, wagers_place
from tests.casino.floor_fixtures import T0, compliant_table, operations

M = timedelta(minutes=1)
ZERO = Decimal("0.00")


def D(text: str) -> Decimal:
    """A dollar amount, exactly."""
    return Decimal(text)


def open_table(game: str, variant: str | None = None, **kwargs: Any) -> Table:
    """A compliant table of `game`, open at T0."""
    return compliant_table(game, variant, open_table=True, **kwargs).table


def wager(player: str, kind: str, amount: str, **extra: Any) -> dict[str, Any]:
    """A wager as the service takes it."""
    return {"player": player, "kind": kind, "amount": amount, **extra}


def opened(table: Table, now=T0 + M) -> Round:
    """The next round at the table, opened by operations."""
    return round_open(table, by=operations(), now=now)


def place(round_: Round, *wagers: dict[str, Any], now=T0 + 2 * M) -> list[Wager]:
    return wagers_place(round_, list(wagers), by=operations(), now=now)


def close(round_: Round, now=T0 + 3 * M) -> Round:
    return no_more_bets(round_, by=operations(), now=now)


def result(round_: Round, event: str, payload: object, now=T0 + 4 * M) -> Round:
    return result_enter(round_, event, payload, by=operations(), now=now)


def settle(round_: Round, now=T0 + 5 * M) -> str:
    """What the worker does with the round's settlement request."""
    request = SettlementRequest.objects.get(round=round_)
    return round_settle(request.pk, worker="test-worker", now=now)


def fresh(round_: Round) -> Round:
    return Round.objects.get(pk=round_.pk)


def resolution_of(round_: Round, ref: str) -> Resolution:
    return Resolution.objects.get(wager__table_id=round_.table_id, wager__ref=ref)


def settlement_entry(round_: Round) -> LedgerEntry:
    return LedgerEntry.objects.get(key=f"settlement:{round_.pk}")


def settlement_lines(round_: Round) -> list[tuple[str, str, str, str, Decimal]]:
    """The settlement entry's lines as (wager ref, account, player, kind, amount)."""
    return [
        (line.wager.ref if line.wager else "", line.account, line.player, line.kind, line.amount)
        for line in settlement_entry(round_).lines.select_related("wager").order_by("id")
    ]


def lines_of_wager(round_: Round, ref: str) -> set[tuple[str, str, str, Decimal]]:
    """Every line about one wager, in any entry: (account, player, kind, amount)."""
    return {
        (line.account, line.player, line.kind, line.amount)
        for line in LedgerLine.objects.filter(wager__table_id=round_.table_id, wager__ref=ref)
    }


def entry_totals(table: Table) -> dict[str, Decimal]:
    """Each ledger entry's sum at the table, by key."""
    return {
        entry.key: entry.lines.aggregate(total=Sum("amount"))["total"] or ZERO
        for entry in LedgerEntry.objects.filter(table=table)
    }


def balance(table: Table, account: str, player: str = "") -> Decimal:
    lines = LedgerLine.objects.filter(table=table, account=account)
    if player:
        lines = lines.filter(player=player)
    return lines.aggregate(total=Sum("amount"))["total"] or ZERO


def unresolved_stakes(table: Table) -> Decimal:
    """The stakes on the layout of wagers not yet decided, less what reductions returned."""
    total = ZERO
    for w in Wager.objects.filter(table=table, resolution__isnull=True):
        total += (
            LedgerLine.objects.filter(wager=w, account=LedgerLine.Account.LAYOUT).aggregate(
                total=Sum("amount")
            )["total"]
            or ZERO
        )
    return total


def books_balance_check(table: Table) -> None:
    """The three invariants of the issue, asserted for every round at the table."""
    totals = entry_totals(table)
    assert totals, "no ledger entry at all"
    assert all(total == 0 for total in totals.values()), totals
    for resolution in Resolution.objects.filter(wager__table=table).select_related("wager"):
        mine = LedgerLine.objects.filter(
            wager=resolution.wager,
            account=LedgerLine.Account.PLAYER,
            player=resolution.wager.player,
        ).aggregate(total=Sum("amount"))["total"]
        assert mine == resolution.net, (resolution.wager.ref, mine, resolution.net)
    assert balance(table, LedgerLine.Account.LAYOUT) == unresolved_stakes(table)


def refs(wagers: Iterable[Wager]) -> list[str]:
    return [w.ref for w in wagers]


def written(table: Table) -> tuple[int, int, int, int]:
    """How many wagers, events, ledger lines and resolutions the table has."""
    from games.models import RoundEvent

    return (
        Wager.objects.filter(table=table).count(),
        RoundEvent.objects.filter(round__table=table).count(),
        LedgerLine.objects.filter(table=table).count(),
        Resolution.objects.filter(wager__table=table).count(),
    )
