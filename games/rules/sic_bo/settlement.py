"""How the three dice decide each wager (§ 625a.3) and what it pays (§ 625a.6).

Each rule is one function named after the wager in § 625a.3; `decide` looks up the
payout odds in the § 625a.6 paytable. The PAR sheet uses these same functions.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from games.rules.core import (
    Resolution,
    RuleViolation,
    Wager,
    cite,
    die_face_refusal,
    round_down_to_cent,
)
from games.rules.sic_bo.paytables import PAYTABLE_625A_6, Paytable
from games.rules.sic_bo.wagers import (
    ANY_THREE_OF_A_KIND,
    BIG_BET,
    ONE_OF_A_KIND,
    SMALL_BET,
    THREE_OF_A_KIND,
    TOTAL_VALUE_BET,
    TWO_DICE_COMBINATION,
    TWO_OF_A_KIND,
    Bet,
    PlacedWager,
)

Throw = tuple[int, int, int]


def throw_from_faces(faces: list[int]) -> Throw:
    """Three dice showing 1 through 6 (§ 625a.2(a)); RuleViolation for anything else."""
    if len(faces) != 3:
        raise RuleViolation(
            f"Sic Bo is played with three dice; {len(faces)} were entered", cite("625a.2(a)")
        )
    impossible = die_face_refusal(faces)
    if impossible:
        raise RuleViolation(impossible, cite("625a.2(a)"))
    return (faces[0], faces[1], faces[2])


def is_three_of_a_kind(dice: Throw) -> bool:
    """All three dice show the same number."""
    return dice[0] == dice[1] == dice[2]


def three_of_a_kind_wins(number: int, dice: Throw) -> bool:
    """§ 625a.3(1): the selected number shows on all three dice."""
    return dice.count(number) == 3


def two_of_a_kind_wins(number: int, dice: Throw) -> bool:
    """§ 625a.3(2): the selected number shows on two of the three dice.

    A three of a kind of that number also shows it on two of the three dice, and
    unlike § 625a.3(6) and (7) this paragraph does not make a three of a kind lose,
    so it wins (docs/regulations.md).
    """
    return dice.count(number) >= 2


def any_three_of_a_kind_wins(dice: Throw) -> bool:
    """§ 625a.3(3): the same value on all three dice, whichever of 1 through 6."""
    return is_three_of_a_kind(dice)


def total_value_bet_wins(total: int, dice: Throw) -> bool:
    """§ 625a.3(4): the total of all three dice equals the total wagered (triples count)."""
    return sum(dice) == total


def two_dice_combination_wins(low: int, high: int, dice: Throw) -> bool:
    """§ 625a.3(5): both chosen values show, each on its own die."""
    return low in dice and high in dice


def small_bet_wins(dice: Throw) -> bool:
    """§ 625a.3(6): a total of 4 through 10, and loses if a three of a kind appears."""
    return 4 <= sum(dice) <= 10 and not is_three_of_a_kind(dice)


def big_bet_wins(dice: Throw) -> bool:
    """§ 625a.3(7): a total of 11 through 17, and loses if a three of a kind appears."""
    return 11 <= sum(dice) <= 17 and not is_three_of_a_kind(dice)


def one_of_a_kind_matches(number: int, dice: Throw) -> int:
    """§ 625a.3(8) and § 625a.6(b): how many dice show the number wagered (0 loses)."""
    return dice.count(number)


@dataclass(frozen=True)
class Decision:
    """What a throw does to a wager: win at `odds` to 1, or lose; and the section why."""

    result: Literal["win", "lose"]
    odds: int
    cite: str


def decide(bet: Bet, dice: Throw, paytable: Paytable = PAYTABLE_625A_6) -> Decision:
    """Win or lose, and at what odds, for one wager on one throw."""
    kind = bet.wager_type
    if kind is ONE_OF_A_KIND:
        matches = one_of_a_kind_matches(bet.numbers[0], dice)
        if matches == 0:
            return Decision("lose", 0, cite(kind.section))
        # § 625a.6(b)(1), (2), (3): 1, 2 or 3 to 1 for one, two or three dice.
        return Decision("win", paytable.one_of_a_kind[matches], cite(f"625a.6(b)({matches})"))
    wins, odds = _wins_and_odds(bet, dice, paytable)
    if wins:
        return Decision("win", odds, cite("625a.6(a)"))
    return Decision("lose", 0, cite(kind.section))


def _wins_and_odds(bet: Bet, dice: Throw, paytable: Paytable) -> tuple[bool, int]:
    kind, numbers = bet.wager_type, bet.numbers
    if kind is THREE_OF_A_KIND:
        return three_of_a_kind_wins(numbers[0], dice), paytable.three_of_a_kind
    if kind is TWO_OF_A_KIND:
        return two_of_a_kind_wins(numbers[0], dice), paytable.two_of_a_kind
    if kind is ANY_THREE_OF_A_KIND:
        return any_three_of_a_kind_wins(dice), paytable.any_three_of_a_kind
    if kind is TOTAL_VALUE_BET:
        total = numbers[0]
        return total_value_bet_wins(total, dice), paytable.total_value_bet[total]
    if kind is TWO_DICE_COMBINATION:
        return two_dice_combination_wins(numbers[0], numbers[1], dice), (
            paytable.two_dice_combination
        )
    if kind is SMALL_BET:
        return small_bet_wins(dice), paytable.small_bet
    if kind is BIG_BET:
        return big_bet_wins(dice), paytable.big_bet
    raise ValueError(f"no rule for {kind.name}")


def settle_throw(placed: Iterable[PlacedWager], dice: Throw) -> tuple[Resolution, ...]:
    """Every wager on the layout decided by one throw (§ 625a.4(c), § 625a.5(e))."""
    return tuple(_resolution(p.wager, decide(p.bet, dice)) for p in placed)


def _resolution(wager: Wager, decision: Decision) -> Resolution:
    if decision.result == "lose":
        return Resolution(wager.id, "lose", -round_down_to_cent(wager.amount), decision.cite)
    winnings = round_down_to_cent(wager.amount * decision.odds)
    return Resolution(wager.id, "win", winnings, decision.cite, {"odds": f"{decision.odds} to 1"})


def return_wagers(placed: Iterable[PlacedWager], section: str) -> tuple[Resolution, ...]:
    """Every wager returned to its player: a no roll (§ 625a.7(a)) or a void round (§ 625a.7(c))."""
    return tuple(Resolution(p.wager.id, "push", Decimal("0.00"), cite(section)) for p in placed)
