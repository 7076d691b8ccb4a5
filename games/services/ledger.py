"""Postings to the double-entry ledger: what each kind of event moves, from where, to where.

Every posting is a pair of lines of equal and opposite amount, so every entry sums to
zero by construction; an adjusting entry's free-form lines are checked to.
"""

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import transaction

from casino.audit import audit_created
from casino.rules.text import shown_name
from casino.services.errors import FloorRefused, by_actor, permission_check
from games.models import LedgerEntry, LedgerLine, Round, RoundEvent, Wager

Account = LedgerLine.Account
PLAYER_LENGTH = LedgerLine._meta.get_field("player").max_length
Kind = LedgerLine.Kind
ZERO = Decimal("0.00")
ADJUST = "games.adjust_ledger"


@dataclass(frozen=True)
class Posting:
    """`amount` moves from one account to another (a player's, when `player` is set)."""

    source: str
    target: str
    amount: Decimal
    kind: str
    player: str = ""
    wager: Wager | None = None


def lines_of(entry: LedgerEntry, postings: Iterable[Posting]) -> list[LedgerLine]:
    """The two lines of each posting with an amount (a zero moves nothing)."""
    lines = []
    for p in postings:
        if p.amount == 0:
            continue
        for account, amount in ((p.source, -p.amount), (p.target, p.amount)):
            lines.append(
                LedgerLine(
                    entry=entry,
                    table_id=entry.table_id,
                    account=account,
                    player=p.player if account == Account.PLAYER else "",
                    wager=p.wager,
                    kind=p.kind,
                    amount=amount,
                )
            )
    return lines


def entry_post(
    *,
    key: str,
    kind: str,
    round_: Round,
    postings: Iterable[Posting],
    by: Any,
    now: datetime,
    memo: str = "",
) -> LedgerEntry:
    """One entry and its lines, in bulk; the unique key refuses the same posting twice."""
    entry = LedgerEntry.objects.create(
        key=key,
        kind=kind,
        table_id=round_.table_id,
        round=round_,
        posted_at=now,
        posted_by=by,
        memo=memo,
    )
    LedgerLine.objects.bulk_create(lines_of(entry, postings))
    return entry


def placement_post(
    round_: Round, wagers: Sequence[Wager], event: RoundEvent, *, by: Any, now: datetime
) -> LedgerEntry:
    """Each stake moves from the player to the layout, where it is at risk."""
    return entry_post(
        key=f"placement:{round_.pk}:{event.seq}",
        kind=LedgerEntry.Kind.PLACEMENT,
        round_=round_,
        postings=[
            Posting(Account.PLAYER, Account.LAYOUT, w.amount, Kind.STAKE, w.player, w)
            for w in wagers
        ],
        by=by,
        now=now,
    )


def house_side(net: Decimal, vigorish: Decimal, reduction: Decimal) -> Decimal:
    """What the house pays (positive: the winnings at the posted odds) or takes (negative)
    for a decided wager, before the vigorish and any payout limit reduction."""
    return net + vigorish + reduction


def decision_postings(
    wager: Wager,
    net: Decimal,
    stake: Decimal,
    vigorish: Decimal,
    reduction: Decimal,
    fee_kind: bool,
) -> list[Posting]:
    """What a decided wager moves. The house's side is `net + vigorish + reduction`: paid
    from the inventory when positive, taken from the stake (and beyond it: a player bank
    can lose more than its wager, § 621a.9(o)) when negative. The vigorish goes to fees,
    a payout limit reduction back to the inventory. The player's lines for the wager, with
    its placement and any stake reduction, add up to the engine's `net` exactly."""
    player = wager.player

    def move(source: str, target: str, amount: Decimal, kind: str) -> Posting:
        return Posting(source, target, amount, kind, player, wager)

    if fee_kind:  # the Extra Roll purchase is spent, never at risk (§ 675a.2(e)(3))
        return [move(Account.LAYOUT, Account.FEES, stake, Kind.EXTRA_ROLL)]
    house = house_side(net, vigorish, reduction)
    lost = max(-house, ZERO)
    return [
        move(Account.LAYOUT, Account.INVENTORY, min(stake, lost), Kind.STAKE_LOST),
        move(Account.PLAYER, Account.INVENTORY, max(lost - stake, ZERO), Kind.STAKE_LOST),
        move(Account.LAYOUT, Account.PLAYER, stake - min(stake, lost), Kind.STAKE_RETURNED),
        move(Account.INVENTORY, Account.PLAYER, max(house, ZERO), Kind.WINNINGS),
        move(Account.PLAYER, Account.INVENTORY, reduction, Kind.PAYOUT_LIMIT_REDUCTION),
        move(Account.PLAYER, Account.FEES, vigorish, Kind.VIGORISH),
    ]


@by_actor
def adjustment_post(
    round_: Round,
    lines: Sequence[tuple[str, str, Decimal]],
    *,
    memo: str,
    by: Any,
    now: datetime,
) -> LedgerEntry:
    """A correction to a settled round: a new entry of (account, player, amount) lines that
    sum to zero, with its reason; never an edit of what was posted."""
    permission_check(by, ADJUST, "post an adjusting entry")
    round_ = Round.objects.select_related("table").get(pk=round_.pk)  # as it is now
    action = f"Adjusting {round_}"
    reasons = []
    if round_.status != Round.Status.SETTLED:
        reasons.append(f"{round_} is {round_.get_status_display().lower()}, not settled")
    if not memo.strip():
        reasons.append("an adjusting entry says why (memo)")
    if len(lines) < 2:
        reasons.append("an adjusting entry has at least two lines")
    parsed = []
    for index, line in enumerate(lines):
        try:
            account, player, amount = line
            amount = Decimal(str(amount))
        except Exception:
            reasons.append(f"lines[{index}] must be (account, player, amount)")
            continue
        if account not in Account.values:
            reasons.append(f"lines[{index}]: {account!r} is not an account: {Account.values}")
        if (account == Account.PLAYER) != bool(player):
            reasons.append(f"lines[{index}]: a player line, and only a player line, names one")
        elif player:
            # The same names as the wagers': nothing hidden (casino/rules/text.py).
            player, refused = shown_name(str(player), f"lines[{index}].player", PLAYER_LENGTH)
            reasons += refused
        if not amount.is_finite() or amount == 0 or amount != amount.quantize(Decimal("0.01")):
            reasons.append(f"lines[{index}]: {amount} is not a non-zero amount in cents")
        parsed.append((account, player, amount))
    if not reasons and sum(a for _, _, a in parsed) != 0:
        reasons.append(f"the lines sum to {sum(a for _, _, a in parsed)}, not zero")
    if reasons:
        raise FloorRefused(action, reasons)
    with transaction.atomic():
        entry = LedgerEntry.objects.create(
            key=f"adjustment:{round_.pk}:{uuid.uuid4().hex}",
            kind=LedgerEntry.Kind.ADJUSTMENT,
            table_id=round_.table_id,
            round=round_,
            posted_at=now,
            posted_by=by if getattr(by, "pk", None) else None,
            memo=memo.strip(),
        )
        LedgerLine.objects.bulk_create(
            LedgerLine(
                entry=entry,
                table_id=round_.table_id,
                account=account,
                player=player,
                kind=Kind.ADJUSTMENT,
                amount=amount,
            )
            for account, player, amount in parsed
        )
        audit_created(
            entry, lines=[f"{a}:{p} {amt:+}" if p else f"{a} {amt:+}" for a, p, amt in parsed]
        )
        return entry
