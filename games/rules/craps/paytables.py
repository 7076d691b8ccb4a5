"""Every payout of Craps and its side wagers as frozen data (§ 623a.5, § 623a.6, ch. 623b).

Odds are written as the regulation writes them ("7 to 6", "1000 for 1"); `ratio` is the
winnings per unit wagered, exactly. A Rules Submission option selects among the
alternative paytables; a released paytable is never edited.
"""

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Final

POINT_NUMBERS: Final = (4, 5, 6, 8, 9, 10)


@dataclass(frozen=True)
class Odds:
    """Payout odds `wins` to `per`; `for_one` marks odds written "X for 1" (stake included)."""

    wins: int
    per: int = 1
    for_one: bool = False

    @cached_property
    def ratio(self) -> Fraction:
        """Winnings per unit wagered (the stake comes back on top)."""
        if self.for_one:
            return Fraction(self.wins - 1)
        return Fraction(self.wins, self.per)

    @cached_property
    def text(self) -> str:
        """``7 to 6`` or ``1000 for 1``, as the paytable prints it."""
        return f"{self.wins} for 1" if self.for_one else f"{self.wins} to {self.per}"


def _by_number(pairs: dict[int, tuple[int, int]]) -> MappingProxyType:
    return MappingProxyType({n: Odds(w, p) for n, (w, p) in pairs.items()})


def _for_one(wins: int) -> Odds:
    return Odds(wins, 1, for_one=True)


EVEN_MONEY: Final = Odds(1, 1)

# § 623a.5(a): Place Bets to Win and to Lose.
PLACE_TO_WIN: Final = _by_number(
    {4: (9, 5), 5: (7, 5), 6: (7, 6), 8: (7, 6), 9: (7, 5), 10: (9, 5)}
)
PLACE_TO_LOSE: Final = _by_number(
    {4: (5, 11), 5: (5, 8), 6: (4, 5), 8: (4, 5), 9: (5, 8), 10: (5, 11)}
)
# § 623a.5(g)(1), (2): Buy and Lay Bets at true odds.
BUY: Final = _by_number({4: (2, 1), 5: (3, 2), 6: (6, 5), 8: (6, 5), 9: (3, 2), 10: (2, 1)})
LAY: Final = _by_number({4: (1, 2), 5: (2, 3), 6: (5, 6), 8: (5, 6), 9: (2, 3), 10: (1, 2)})
# § 623a.6(a)(2), (c)(2): odds taken on Pass and Come; (b)(2), (d)(2): odds laid on the don'ts.
TAKING_ODDS: Final = BUY
LAYING_ODDS: Final = LAY
# § 623a.5(a): the hardways.
HARDWAY: Final = _by_number({4: (7, 1), 6: (9, 1), 8: (9, 1), 10: (7, 1)})
# § 623a.5(a): the Field Bet, 2 to 1 on a 2 or 12, 1 to 1 on a 3, 4, 9, 10 or 11.
FIELD: Final = MappingProxyType(
    {2: Odds(2), 3: EVEN_MONEY, 4: EVEN_MONEY, 9: EVEN_MONEY, 10: EVEN_MONEY}
    | {11: EVEN_MONEY, 12: Odds(2)}
)
ANY_SEVEN: Final = Odds(4)
ANY_CRAPS: Final = Odds(7)
CRAPS_TWO: Final = Odds(30)
CRAPS_THREE: Final = Odds(15)
CRAPS_TWELVE: Final = Odds(30)
ELEVEN: Final = Odds(15)
# The single-number wagers a Horn, Horn High and Whirl are paid as (§ 623a.5(c)-(e)).
HORN_NUMBER: Final = MappingProxyType({2: CRAPS_TWO, 3: CRAPS_THREE, 11: ELEVEN, 12: CRAPS_TWELVE})
# § 623a.5(a): on the hop, 30 to 1 for a pair, 15 to 1 for two different faces.
HOP_PAIR: Final = Odds(30)
HOP_NOT_PAIR: Final = Odds(15)
# § 623a.5(a): the 6-7-8 Bet, 2 to 1 on a 6 or 8 thrown as a pair, 1 to 1 otherwise.
SIX_SEVEN_EIGHT_PAIR: Final = Odds(2)

# § 623a.5(f): the Fire Bet, paid once for the highest number of unique points made.
FIRE_BET: Final = MappingProxyType(
    {
        "A": MappingProxyType({4: Odds(24), 5: Odds(249), 6: Odds(999)}),
        "B": MappingProxyType({4: Odds(39), 5: Odds(199), 6: Odds(499)}),
    }
)

# § 623b.1(h): Hot Roller, by the number of number combinations completed.
HOT_ROLLER: Final = MappingProxyType(
    {
        "A": MappingProxyType({6: Odds(200), 5: Odds(50), 4: Odds(20), 3: Odds(10), 2: Odds(5)}),
        "B": MappingProxyType({6: Odds(300), 5: Odds(50), 4: Odds(20), 3: Odds(10), 2: Odds(5)}),
    }
)

# § 623b.2(e): Lucky Shooter. Keys: "5+point" (5 of 5 other points and the established
# point), 5, 4, 3, 2 (of the other 5 points), "7 or 11" (the first roll of 7 or 11).
LUCKY_SHOOTER_POINT_AND_FIVE: Final = "5+point"
LUCKY_SHOOTER_SEVEN_OR_ELEVEN: Final = "7 or 11"
LUCKY_SHOOTER: Final = MappingProxyType(
    {
        paytable: MappingProxyType(
            {
                LUCKY_SHOOTER_POINT_AND_FIVE: _for_one(top),
                5: _for_one(five),
                4: _for_one(four),
                3: _for_one(three),
                **({2: _for_one(two)} if two else {}),
                LUCKY_SHOOTER_SEVEN_OR_ELEVEN: _for_one(1),
            }
        )
        for paytable, (top, five, four, three, two) in {
            "A": (1000, 150, 15, 5, 0),
            "B": (500, 100, 10, 4, 2),
            "C": (1000, 150, 20, 5, 0),
            "D": (500, 100, 10, 5, 2),
        }.items()
    }
)

# § 623b.3(c): Bonus Craps alternate paytables.
BONUS_CRAPS: Final = MappingProxyType(
    {
        "1": MappingProxyType(
            {"all_small": Odds(34), "all_tall": Odds(34), "make_em_all": Odds(175)}
        ),
        "2": MappingProxyType(
            {"all_small": Odds(30), "all_tall": Odds(30), "make_em_all": Odds(150)}
        ),
    }
)

# § 623b.4(d)-(e): Hot Shooter Jackpot by the throws before the next 7 out: (first throw
# count of the band, its result). 7 or fewer lose; 8 to 15 push.
HOT_SHOOTER_LOSES_UP_TO: Final = 7
HOT_SHOOTER_PUSH_UP_TO: Final = 15
HOT_SHOOTER: Final = (
    (50, Odds(99)),
    (45, Odds(29)),
    (40, Odds(11)),
    (32, Odds(6)),
    (24, Odds(4)),
    (16, Odds(2)),
)

# § 623b.5(d): the wagers eligible for Power Odds and the two increased odds of each.
# Keys name the wager (and for the Horn and C and E the numbers the increase is for).
_HOP_NOT_PAIRS = ("1-3", "1-4", "1-5", "1-6", "2-3", "2-4", "2-5", "2-6", "3-4", "3-5")
_HOP_NOT_PAIRS += ("3-6", "4-5", "4-6")
POWER_ODDS: Final = MappingProxyType(
    {
        "any_craps": (Odds(10), Odds(14)),
        "any_seven": (Odds(6), Odds(8)),
        "eleven": (Odds(22), Odds(30)),
        **{f"hop:{pair}": (Odds(22), Odds(30)) for pair in _HOP_NOT_PAIRS},
        **{f"hop:{n}-{n}": (Odds(45), Odds(60)) for n in (2, 3, 4, 5)},
        "horn:3-11": (Odds(22), Odds(30)),
        "horn:2-12": (Odds(45), Odds(60)),
        "c_and_e:craps": (Odds(4), Odds(6)),
        "c_and_e:11": (Odds(10), Odds(14)),
        "hard:4": (Odds(10), Odds(14)),
        "hard:6": (Odds(13), Odds(18)),
        "hard:8": (Odds(13), Odds(18)),
        "hard:10": (Odds(10), Odds(14)),
    }
)
