"""The aggregate payout limit per player per round (§ 675a.5(e), § 675a.6(l)).

The limit caps what one player is paid in one round on Pip Street and Like Kind
Boulevard Wagers (first roll and Extra Roll together); winning Millionaire Row Wagers
are not included (§ 675a.5(e), last sentence). A reduction is spread over the player's
winning wagers of the step that crosses the limit, in proportion to their winnings,
each share rounded down to the cent, the leftover cents on the largest winnings first
(the earliest placed among equals), never more than a wager's own winnings.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from games.rules.core import format_money, round_down_to_cent
from games.rules.high_roll_dice.paytables import (
    EXTRA_ROLL,
    LIKE_KIND_FIRST_ROLL,
    PAYOUT_LIMIT_FLOOR,
    PIP_STREET,
)

CENT = Decimal("0.01")


def most_won_per_unit(dice: int) -> Fraction:
    """The most one patron could win in a round with one unit on every limited area.

    The best Pip Street odds (the two, which can lead with any count of two or more) plus
    the Like Kind circle of the first count plus, with ten dice, the best Extra Roll circle
    above it. Adding the two's odds to the six-dice no match count (where the ace leads)
    overstates that line, which is far below the maximum anyway.
    """
    pip = max(o.per_unit for o in PIP_STREET[dice].values())
    first = LIKE_KIND_FIRST_ROLL[dice]
    best = Fraction(0)
    for count in range(1, dice + 1):
        won = first[count].per_unit if count in first else Fraction(0)
        if dice == 10:
            won += max(
                (EXTRA_ROLL[t].per_unit for t in range(count + 1, dice + 1) if t in EXTRA_ROLL),
                default=Fraction(0),
            )
        best = max(best, won)
    return pip + best


def payout_limit_minimum(dice: int, min_wager: Decimal) -> Decimal:
    """The lowest limit allowed: $50,000 or the most won at the minimum wager, if greater."""
    at_minimum = most_won_per_unit(dice) * Fraction(min_wager)
    return max(PAYOUT_LIMIT_FLOOR, Decimal(at_minimum.numerator) / at_minimum.denominator)


@dataclass(frozen=True)
class Winning:
    """One winning wager subject to the limit: its player and its winnings at the odds."""

    wager: str
    player: str
    winnings: Decimal


@dataclass(frozen=True)
class LimitApplied:
    """Reductions by wager id, the per-player note, and the new per-player paid totals."""

    reductions: Mapping[str, Decimal]
    notes: Mapping[str, Mapping[str, str]]
    paid: Mapping[str, Decimal]


def apply_payout_limit(
    limit: Decimal | None, winnings: Sequence[Winning], paid_before: Mapping[str, Decimal]
) -> LimitApplied:
    """Cap each player's payouts this round at `limit`, counting what was paid earlier."""
    paid = dict(paid_before)
    reductions: dict[str, Decimal] = {}
    notes: dict[str, Mapping[str, str]] = {}
    players = list(dict.fromkeys(w.player for w in winnings))
    for player in players:
        mine = [w for w in winnings if w.player == player]
        won = sum((w.winnings for w in mine), Decimal(0))
        before = paid.get(player, Decimal(0))
        if limit is None or before + won <= limit:
            paid[player] = before + won
            continue
        reduction = before + won - limit
        reductions.update(_spread(reduction, mine))
        notes[player] = {
            "before": format_money(before + won),
            "limit": format_money(limit),
            "reduction": format_money(reduction),
        }
        paid[player] = limit
    return LimitApplied(reductions, notes, paid)


def _spread(reduction: Decimal, mine: Sequence[Winning]) -> dict[str, Decimal]:
    """Proportional shares rounded down to the cent; leftover cents on the largest first."""
    total = sum((w.winnings for w in mine), Decimal(0))
    shares = {w.wager: round_down_to_cent(reduction * w.winnings / total) for w in mine}
    left = reduction - sum(shares.values(), Decimal(0))
    largest_first = sorted(mine, key=lambda w: -w.winnings)  # stable: earliest among equals
    for w in largest_first:
        if left <= 0:
            break
        take = min(left, w.winnings - shares[w.wager])
        shares[w.wager] += take
        left -= take
    return {wager: share for wager, share in shares.items() if share > 0}
