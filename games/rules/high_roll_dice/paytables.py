"""High Roll Dice paytables (§ 675a.5, § 675a.6(j)-(k)): frozen data keyed by `dice`.

A released paytable is never edited; the Rules Submission option `dice` (10 or 6)
selects the ten-dice game of § 675a.5 or the six-dice variation of § 675a.6.
"""

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Final

from games.rules.core import round_down_to_cent


@dataclass(frozen=True)
class Odds:
    """Payout odds ``wins to per``: a winning wager of `per` dollars wins `wins` dollars."""

    wins: int
    per: int

    def winnings(self, amount: Decimal) -> Decimal:
        """Exact winnings at these odds, rounded down to the cent (the stake comes back too)."""
        return round_down_to_cent(amount * self.wins / self.per)

    @property
    def per_unit(self) -> Fraction:
        """Winnings per unit wagered, exactly."""
        return Fraction(self.wins, self.per)


# Ranks of the die faces, highest first: the ace (1), then 6, 5, 4, 3, 2 (§ 675a.2(d)).
DIE_RANKING: Final = (1, 6, 5, 4, 3, 2)

# § 675a.5(a) (ten dice) and § 675a.6(j) (six dice): Pip Street, by the die value with
# the most matches.
PIP_STREET: Final = MappingProxyType(
    {
        10: MappingProxyType(
            {
                2: Odds(6, 1),
                3: Odds(6, 1),
                4: Odds(5, 1),
                5: Odds(4, 1),
                6: Odds(4, 1),
                1: Odds(3, 1),
            }
        ),
        6: MappingProxyType(
            {
                2: Odds(8, 1),
                3: Odds(6, 1),
                4: Odds(5, 1),
                5: Odds(4, 1),
                6: Odds(3, 1),
                1: Odds(2, 1),
            }
        ),
    }
)

# § 675a.5(b) (ten dice) and § 675a.6(k) (six dice): Like Kind Boulevard on the first
# roll, by how many of the most matching dice were thrown. In the six-dice variation a
# count of one is the "no matches" circle.
LIKE_KIND_FIRST_ROLL: Final = MappingProxyType(
    {
        10: MappingProxyType(
            {
                8: Odds(5000, 1),
                7: Odds(400, 1),
                6: Odds(30, 1),
                5: Odds(4, 1),
                4: Odds(1, 1),
                3: Odds(3, 5),
                2: Odds(12, 1),
            }
        ),
        6: MappingProxyType(
            {
                6: Odds(6000, 1),
                5: Odds(200, 1),
                4: Odds(15, 1),
                3: Odds(2, 1),
                2: Odds(1, 2),
                1: Odds(60, 1),
            }
        ),
    }
)

# § 675a.5(d): Like Kind Boulevard Wagers on the Extra Roll (ten dice only), by the total
# of matching dice after the extra roll. There is no two-of-a-kind line: a first roll of
# ten dice always shows at least a pair, so an extra roll never ends below three.
EXTRA_ROLL: Final = MappingProxyType(
    {
        8: Odds(50, 1),
        7: Odds(10, 1),
        6: Odds(4, 1),
        5: Odds(2, 1),
        4: Odds(1, 1),
        3: Odds(6, 1),
    }
)

# § 675a.5(c): Millionaire Row, by the number of matching dice on the first roll. The
# text gives a payout, not odds, for a wager of at most $1 (§ 675a.2(e)(4)); we pay it
# per dollar wagered, so a $1 wager wins exactly the posted amount.
MILLIONAIRE_ROW: Final = MappingProxyType({10: Odds(1_000_000, 1), 9: Odds(50_000, 1)})

# § 675a.2(e)(4): "The Millionaire Row Wager may not be more than $1."
MILLIONAIRE_ROW_MAXIMUM: Final = Decimal("1")

# § 675a.5(e) and § 675a.6(l): an aggregate payout limit may not be less than $50,000
# (or the most one patron could win at the minimum wager, whichever is greater).
PAYOUT_LIMIT_FLOOR: Final = Decimal("50000")
