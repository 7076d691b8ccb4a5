"""The Sic Bo paytable of § 625a.6: frozen data, payout odds written "N to 1" as the int N.

Chapter 625a offers one paytable and no alternatives for a Rules Submission to choose
among, so there is exactly one, and a released paytable is never edited.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Paytable:
    """Payout odds ("N to 1") of every Sic Bo wager."""

    three_of_a_kind: int
    two_of_a_kind: int
    any_three_of_a_kind: int
    total_value_bet: Mapping[int, int]  # total -> odds
    two_dice_combination: int
    small_bet: int
    big_bet: int
    one_of_a_kind: Mapping[int, int]  # dice showing the number -> odds


# § 625a.6(a) (the table) and § 625a.6(b) (One of a Kind).
PAYTABLE_625A_6 = Paytable(
    three_of_a_kind=150,
    two_of_a_kind=8,
    any_three_of_a_kind=24,
    total_value_bet=MappingProxyType(
        {
            4: 50,
            5: 18,
            6: 14,
            7: 12,
            8: 8,
            9: 6,
            10: 6,
            11: 6,
            12: 6,
            13: 8,  # printed "Total Value of Bet 13"
            14: 12,  # printed "Total Value of Bet 14"
            15: 14,  # printed "Total Value of Bet 15"
            16: 18,
            17: 50,
        }
    ),
    two_dice_combination=5,  # "Any Two Dice Combination 5 to 1"
    small_bet=1,
    big_bet=1,
    # § 625a.6(b)(1), (2), (3): 1, 2 or 3 to 1 on one, two or three matching dice.
    one_of_a_kind=MappingProxyType({1: 1, 2: 2, 3: 3}),
)
