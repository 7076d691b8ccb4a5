"""The payout odds of § 661a.8: one paytable, frozen data, never edited once released.

Chapter 661a offers no alternative paytables, so these mappings are not keyed by a
Rules Submission option.
"""

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from games.rules.core import round_down_to_cent


@dataclass(frozen=True)
class Odds:
    """Payout odds "`pays` to `to`": winnings per `to` units wagered, stake returned on top."""

    pays: int
    to: int

    @property
    def ratio(self) -> Fraction:
        """Winnings per unit wagered, exactly."""
        return Fraction(self.pays, self.to)

    def winnings(self, amount: Decimal) -> Decimal:
        """Exact winnings at these odds, rounded down to the cent."""
        return round_down_to_cent(amount * self.pays / self.to)

    def __str__(self) -> str:
        return f"{self.pays} to {self.to}"


# § 661a.8(a) full game wagers.
TOUCHDOWN_ODDS = Odds(1, 1)
DEFENSE_ODDS = Odds(4, 5)
GAME_CHANGER_ODDS = Odds(5, 1)  # "Game Change Wager" in the table of § 661a.8(a)

# § 661a.8(a) Extra Point Wager, by what the extra point roll shows.
EXTRA_POINT_ODDS = MappingProxyType(
    {
        "one_1": Odds(1, 1),  # a 1 appearing on one of the dice
        "two_1s": Odds(10, 1),  # a 1 appearing on two of the dice
        "triple_1s": Odds(50, 1),  # a triple of 1s
        "other_triple": Odds(10, 1),  # any triple other than 1s
    }
)

# § 661a.8(a) Quick Strike TD Wager, by the play on which the touchdown is scored.
QUICK_STRIKE_ODDS = MappingProxyType({1: Odds(8, 1), 2: Odds(5, 1), 3: Odds(3, 1), 4: Odds(1, 1)})

# § 661a.8(a) Game Length Wager, by the number of plays it names.
GAME_LENGTH_ODDS = MappingProxyType(
    {1: Odds(22, 1), 2: Odds(22, 1), 3: Odds(6, 5), 4: Odds(5, 1), 5: Odds(3, 1), 6: Odds(6, 1)}
)

# § 661a.8(b) single play wagers.
SINGLE_PLAY_ODDS = MappingProxyType(
    {
        "trips_td": Odds(30, 1),
        "penalty": Odds(9, 1),
        "turnover": Odds(60, 1),
        "cover_three": Odds(7, 1),
        "no_gain": Odds(5, 1),
        "big_play": Odds(4, 1),
        "over_four": Odds(1, 1),
        "under_four": Odds(1, 1),
    }
)
OVER_FOUR_TRIPS_TD_ODDS = Odds(7, 1)  # "Over 4 Yards Wager with Trips TD"
