"""Deciding a wager against the dealer's or the bank's hands, the vigorish, and the bank's centre.

58 Pa. Code § 621a.8(g)-(k) and § 621a.9(n)-(r). Each function returns what the rule
decides; the table applies it to the wagers.
"""

from dataclasses import dataclass
from decimal import Decimal

from games.rules.core.money import round_down_to_cent, round_up_to_quarter
from games.rules.core.results import ResultName
from games.rules.pai_gow.house_way import Setting

VIGORISH_RATE = Decimal("0.05")  # § 621a.8(k)
# § 621a.8(k): the holder "may round off the vigorish to 25 cents or the next highest
# multiple of 25 cents" (the Rules Submission's `vig_rounding`); otherwise 5% to the cent.
QUARTER = "quarter"
CENT = "cent"
VIG_ROUNDINGS = (QUARTER, CENT)
ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Decision:
    """A wager's result against the banker's hands and the paragraph that decides it."""

    result: ResultName
    section: str


WIN = Decision("win", "621a.8(i)")
TIE_HIGH_WINS = Decision("push", "621a.8(h)(1)")
TIE_LOW_WINS = Decision("push", "621a.8(h)(2)")
LOSE = Decision("lose", "621a.8(g)")


def decide(player: Setting, banker: Setting) -> Decision:
    """High against high and low against low (§ 621a.8(f)) for a player's wager."""
    return decide_strengths(*player.strengths, *banker.strengths)


def decide_strengths(
    player_high: int, player_low: int, banker_high: int, banker_low: int
) -> Decision:
    """The decision from the four hands' strengths alone. The banker (dealer or bank)
    wins copy hands and zero-zero, which the strengths already count as not higher."""
    if player_high > banker_high:
        return WIN if player_low > banker_low else TIE_HIGH_WINS
    return TIE_LOW_WINS if player_low > banker_low else LOSE


def vigorish(amount_won: Decimal, rounding: str = QUARTER) -> Decimal:
    """5% of the amount won, rounded up to the next 25 cents (§ 621a.8(k)), or with
    `rounding` "cent" not rounded off: 5% down to the cent, never more than 5%.

    Never more than the amount won: a win never costs the player money.
    """
    if amount_won <= 0:
        return ZERO
    five_percent = amount_won * VIGORISH_RATE
    if rounding == CENT:
        return round_down_to_cent(five_percent)
    return min(round_up_to_quarter(five_percent), amount_won)


@dataclass(frozen=True)
class Centre:
    """The centre of the layout in a player-bank round, after every wager is decided.

    `losing` is what the losing wagers (and a losing dealer's wager) put in the centre;
    `winning` what the winning wagers (and a winning dealer's wager) are paid from it.
    """

    losing: Decimal
    winning: Decimal
    co_bank: bool
    vig_rounding: str = QUARTER

    @property
    def shortfall(self) -> Decimal:
        """What the centre lacks to pay every winning wager."""
        return max(self.winning - self.losing, ZERO)

    @property
    def surplus(self) -> Decimal:
        """What is left in the centre once every winning wager is paid."""
        return max(self.losing - self.winning, ZERO)

    @property
    def from_bank(self) -> Decimal:
        """The shortfall the bank pays: all of it (§ 621a.9(o)); a co-bank half of it
        (§ 621a.9(r)), the odd cent of an odd shortfall paid by the table inventory."""
        if self.co_bank:
            return round_down_to_cent(self.shortfall / 2)
        return self.shortfall

    @property
    def bank_share(self) -> Decimal:
        """The surplus that is the bank's before the vigorish: all of it; for a co-bank,
        half, the odd cent going to the table inventory with the other half (§ 621a.9(r))."""
        if self.co_bank:
            return round_down_to_cent(self.surplus / 2)
        return self.surplus

    @property
    def table_inventory(self) -> Decimal:
        """What the table inventory gives (negative) or takes in a co-banked round."""
        if not self.co_bank:
            return ZERO
        return (self.surplus - self.bank_share) - (self.shortfall - self.from_bank)

    @property
    def vig(self) -> Decimal:
        """The 5% vigorish on the bank's surplus (§ 621a.9(o), (r), § 621a.8(k))."""
        return vigorish(self.bank_share, self.vig_rounding)

    @property
    def bank_net(self) -> Decimal:
        """The bank's whole result for the round."""
        return self.bank_share - self.vig - self.from_bank
