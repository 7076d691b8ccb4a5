"""Reading the throw and settling the round (§ 675a.4(a), (d)-(h); § 675a.6(h)-(k))."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from games.rules.core import cite
from games.rules.high_roll_dice.paytables import (
    DIE_RANKING,
    EXTRA_ROLL,
    LIKE_KIND_FIRST_ROLL,
    MILLIONAIRE_ROW,
    PIP_STREET,
)
from games.rules.high_roll_dice.wagers import EXTRA_ROLL as EXTRA_ROLL_KIND
from games.rules.high_roll_dice.wagers import MILLIONAIRE_ROW as MILLIONAIRE_ROW_KIND
from games.rules.high_roll_dice.wagers import PIP_STREET as PIP_STREET_KIND
from games.rules.high_roll_dice.wagers import Placed


@dataclass(frozen=True)
class FirstRoll:
    """What the dealer calls after the first throw (§ 675a.4(d)-(e), § 675a.6(h))."""

    face: int  # the die of the highest value that occurs the most (ace high, § 675a.2(d))
    count: int  # how many of it: the most matching dice
    dice: int  # dice thrown: 10, or 6 in the variation

    @property
    def rethrown(self) -> int:
        """Dice the extra roll re-throws: all but those moved to the throw box (§ 675a.4(g))."""
        return self.dice - self.count


@dataclass(frozen=True)
class Decision:
    """How one wager was decided, before any payout limit: `winnings` is 0 for a loss."""

    placed: Placed
    result: Literal["win", "lose"]
    winnings: Decimal
    cite: str
    limited: bool = False  # counts toward the aggregate payout limit (§ 675a.5(e))


def read_first_roll(faces: Sequence[int]) -> FirstRoll:
    """The face occurring most, ties going to the higher rank, and its count (§ 675a.2(d))."""
    counts = Counter(faces)
    most = max(counts.values())
    face = next(f for f in DIE_RANKING if counts[f] == most)
    return FirstRoll(face, most, len(faces))


def collect_extra_rolls(placed: Sequence[Placed]) -> list[Decision]:
    """§ 675a.4(a): at "no more bets" the dealer collects every Extra Roll purchased."""
    return [
        Decision(p, "lose", Decimal(0), cite("675a.4(a)"))
        for p in placed
        if p.kind.area == EXTRA_ROLL_KIND
    ]


def bought_extra_roll(placed: Sequence[Placed]) -> frozenset[str]:
    """Players who purchased an Extra Roll this round."""
    return frozenset(p.wager.player for p in placed if p.kind.area == EXTRA_ROLL_KIND)


def settle_first_roll(
    placed: Sequence[Placed], roll: FirstRoll
) -> tuple[list[Decision], tuple[Placed, ...]]:
    """Decide the first roll wagers (§ 675a.4(f), § 675a.6(i)); return those left working.

    Left working are the Like Kind circles above the first count of a player who bought
    an Extra Roll: they still have a possibility of winning (§ 675a.4(f)(2)(ii)).
    """
    extra = bought_extra_roll(placed)
    decisions: list[Decision] = []
    working: list[Placed] = []
    for p in placed:
        area = p.kind.area
        if area == EXTRA_ROLL_KIND:
            continue
        if area == PIP_STREET_KIND:
            decisions.append(_pip_street(p, roll))
        elif area == MILLIONAIRE_ROW_KIND:
            decisions.append(_millionaire_row(p, roll))
        elif roll.dice == 6:
            decisions.append(_like_kind_six_dice(p, roll))
        elif p.wager.player in extra and (p.kind.number or 0) > roll.count:
            working.append(p)
        else:
            decisions.append(_like_kind_first_roll(p, roll, extra_roll=p.wager.player in extra))
    return decisions, tuple(working)


def settle_extra_roll(
    working: Sequence[Placed], roll: FirstRoll, rethrown: Sequence[int]
) -> list[Decision]:
    """§ 675a.4(h): the circles left working win at § 675a.5(d) on the new total, or lose.

    Only dice matching the face moved to the throw box add to the count. A circle paid on
    the first roll was settled then and is not among these, so it is never paid again
    for the same number (§ 675a.4(h), proviso).
    """
    total = roll.count + sum(1 for f in rethrown if f == roll.face)
    decisions = []
    for p in working:
        if p.kind.number == total and total in EXTRA_ROLL:
            odds = EXTRA_ROLL[total]
            decisions.append(
                Decision(p, "win", odds.winnings(p.wager.amount), cite("675a.5(d)"), limited=True)
            )
        else:
            decisions.append(Decision(p, "lose", Decimal(0), cite("675a.4(h)")))
    return decisions


def _pip_street(p: Placed, roll: FirstRoll) -> Decision:
    """§ 675a.4(f)(1) with § 675a.5(a); § 675a.6(i) with § 675a.6(j) for six dice."""
    if p.kind.number != roll.face:
        return Decision(
            p, "lose", Decimal(0), cite("675a.4(f)(1)" if roll.dice == 10 else "675a.6(i)")
        )
    odds = PIP_STREET[roll.dice][roll.face]
    section = "675a.5(a)" if roll.dice == 10 else "675a.6(j)"
    return Decision(p, "win", odds.winnings(p.wager.amount), cite(section), limited=True)


def _like_kind_first_roll(p: Placed, roll: FirstRoll, *, extra_roll: bool) -> Decision:
    """§ 675a.4(f)(2): the circle of the first count wins at § 675a.5(b); others lose.

    Nine or ten matching dice have no Like Kind circle, so every circle loses then.
    """
    if p.kind.number == roll.count:
        odds = LIKE_KIND_FIRST_ROLL[10][roll.count]
        return Decision(p, "win", odds.winnings(p.wager.amount), cite("675a.5(b)"), limited=True)
    return Decision(
        p, "lose", Decimal(0), cite("675a.4(f)(2)(ii)" if extra_roll else "675a.4(f)(2)(i)")
    )


def _like_kind_six_dice(p: Placed, roll: FirstRoll) -> Decision:
    """§ 675a.6(i) with § 675a.6(k): two through six of a kind, or no matches (count 1)."""
    if p.kind.number == roll.count:
        odds = LIKE_KIND_FIRST_ROLL[6][roll.count]
        return Decision(p, "win", odds.winnings(p.wager.amount), cite("675a.6(k)"), limited=True)
    return Decision(p, "lose", Decimal(0), cite("675a.6(i)"))


def _millionaire_row(p: Placed, roll: FirstRoll) -> Decision:
    """§ 675a.4(f)(3): nine or ten matching dice on the first roll, paid at § 675a.5(c).

    Outside the aggregate payout limit (§ 675a.5(e), last sentence).
    """
    if p.kind.number == roll.count:
        odds = MILLIONAIRE_ROW[roll.count]
        return Decision(p, "win", odds.winnings(p.wager.amount), cite("675a.5(c)"))
    return Decision(p, "lose", Decimal(0), cite("675a.4(f)(3)"))
