"""The eight wagers of § 625a.3, their scenario kinds, and what a wager must be to be taken.

Kinds (SCENARIOS.md): ``triple:N``, ``double:N``, ``any_triple``, ``total:T`` (4..17),
``combo:A-B`` (A < B), ``small``, ``big``, ``single:N``; N, A, B are die faces 1..6.
"""

import re
from dataclasses import dataclass
from decimal import Decimal

from games.rules.core import DIE_FACES, RuleViolation, Wager, cite
from games.rules.core.money import has_whole_cents
from games.rules.core.wagers import WagerType
from games.rules.sic_bo.paytables import PAYTABLE_625A_6

FACES = tuple(DIE_FACES)


THREE_OF_A_KIND = WagerType("triple", "Three of a Kind", "625a.3(1)")
TWO_OF_A_KIND = WagerType("double", "Two of a Kind", "625a.3(2)")
ANY_THREE_OF_A_KIND = WagerType("any_triple", "Any Three of a Kind", "625a.3(3)")
TOTAL_VALUE_BET = WagerType("total", "Total Value Bet", "625a.3(4)")
TWO_DICE_COMBINATION = WagerType("combo", "Two Dice Combination", "625a.3(5)")
SMALL_BET = WagerType("small", "Small Bet", "625a.3(6)")
BIG_BET = WagerType("big", "Big Bet", "625a.3(7)")
ONE_OF_A_KIND = WagerType("single", "One of a Kind", "625a.3(8)")

WAGER_TYPES = (
    THREE_OF_A_KIND,
    TWO_OF_A_KIND,
    ANY_THREE_OF_A_KIND,
    TOTAL_VALUE_BET,
    TWO_DICE_COMBINATION,
    SMALL_BET,
    BIG_BET,
    ONE_OF_A_KIND,
)

# The totals a Total Value Bet may name: the lines of the § 625a.6(a) paytable.
TOTALS = tuple(sorted(PAYTABLE_625A_6.total_value_bet))


@dataclass(frozen=True)
class Bet:
    """Where a wager sits on the layout: its type and the numbers the player selected."""

    wager_type: WagerType
    numbers: tuple[int, ...] = ()

    @property
    def kind(self) -> str:
        """The scenario kind, e.g. ``combo:1-3``."""
        if self.wager_type is TWO_DICE_COMBINATION:
            return f"combo:{self.numbers[0]}-{self.numbers[1]}"
        if self.numbers:
            return f"{self.wager_type.key}:{self.numbers[0]}"
        return self.wager_type.key


@dataclass(frozen=True)
class PlacedWager:
    """A wager taken on the layout, with the place it sits."""

    wager: Wager
    bet: Bet


def every_bet() -> tuple[Bet, ...]:
    """Every place a wager can be made on the layout, in the order of § 625a.3."""
    return (
        *(Bet(THREE_OF_A_KIND, (n,)) for n in FACES),
        *(Bet(TWO_OF_A_KIND, (n,)) for n in FACES),
        Bet(ANY_THREE_OF_A_KIND),
        *(Bet(TOTAL_VALUE_BET, (t,)) for t in TOTALS),
        *(Bet(TWO_DICE_COMBINATION, (a, b)) for a in FACES for b in FACES if a < b),
        Bet(SMALL_BET),
        Bet(BIG_BET),
        *(Bet(ONE_OF_A_KIND, (n,)) for n in FACES),
    )


_FACE_KIND = re.compile(r"(triple|double|single):([1-6])")
_TOTAL_KIND = re.compile(r"total:(0|[1-9][0-9]?)")
_COMBO_KIND = re.compile(r"combo:([1-6])-([1-6])")
_PLAIN_KINDS = {t.key: t for t in (ANY_THREE_OF_A_KIND, SMALL_BET, BIG_BET)}
_FACE_TYPES = {t.key: t for t in (THREE_OF_A_KIND, TWO_OF_A_KIND, ONE_OF_A_KIND)}


def bet_from_kind(kind: str) -> Bet:
    """The Bet a scenario kind names; RuleViolation for a wager § 625a.3 does not permit."""
    if kind in _PLAIN_KINDS:
        return Bet(_PLAIN_KINDS[kind])
    if match := _FACE_KIND.fullmatch(kind):
        return Bet(_FACE_TYPES[match[1]], (int(match[2]),))
    if match := _TOTAL_KIND.fullmatch(kind):
        total = int(match[1])
        if total not in TOTALS:
            # § 625a.6(a) has lines for 4 through 17 only (3 and 18 are triples).
            raise RuleViolation(
                f"There is no Total Value Bet on {total}; the totals are 4 through 17",
                cite("625a.6(a)"),
            )
        return Bet(TOTAL_VALUE_BET, (total,))
    if match := _COMBO_KIND.fullmatch(kind):
        low, high = int(match[1]), int(match[2])
        if low == high:
            # § 625a.3(5): "two specific but different numeric values".
            raise RuleViolation(
                "A Two Dice Combination is two different numbers", cite("625a.3(5)")
            )
        if low > high:
            raise RuleViolation(
                f"Write a Two Dice Combination smaller number first: combo:{high}-{low}",
                cite("625a.3(5)"),
            )
        return Bet(TWO_DICE_COMBINATION, (low, high))
    raise RuleViolation(f"Sic Bo has no wager {kind!r}", cite("625a.3"))


def check_amount(amount: Decimal) -> None:
    """A wager is value chips on the layout (§ 625a.4(a)): more than nothing, in whole cents."""
    if amount <= 0:
        raise RuleViolation("A wager must be more than $0.00", cite("625a.4(a)"))
    if not has_whole_cents(amount):
        raise RuleViolation("A wager must be in whole cents", cite("625a.4(a)"))
