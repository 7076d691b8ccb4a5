"""When a wager may be made, of what amount, and when it may be taken down (§ 623a.3-§ 623a.6,
§ 623a.11, ch. 623b). Each function returns nothing or raises RuleViolation with the dealer's
sentence and the section.
"""

from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction

from games.rules.core import RuleViolation, cite, format_money, round_down_to_cent
from games.rules.core.money import has_whole_cents
from games.rules.craps import bets
from games.rules.craps.bets import Bet
from games.rules.craps.options import CrapsOptions
from games.rules.craps.paytables import LAYING_ODDS
from games.rules.craps.settlement import initial_progress

FIRE_BET_AMOUNTS = range(1, 6)  # § 623a.11(b)(1): $1 to $5 in increments of one dollar
MINI_CRAPS_SEATS = range(1, 10)  # § 623a.2(c): seating for at most nine players
# § 623a.3(a)(19)-(21): Horn in units of four; Horn High and Whirl in units of five.
UNITS = {bets.HORN: 4, bets.HORN_HIGH: 5, bets.WHIRL: 5}
# The wagers a Rules Submission or the table type may leave out (offered_check), and those
# made only at some moments (timing_check): every other wager passes them at once. A new
# refusal in either check adds its wager here; a test runs every wager through both whole
# checks and fails if one outside these sets is refused.
OPTIONAL = frozenset(
    {
        bets.BUY,
        bets.LAY,
        bets.FIRE,
        bets.HOT_ROLLER,
        *bets.BONUS_CRAPS,
        bets.LUCKY_SHOOTER,
        bets.HOT_SHOOTER,
    }
)
TIMED = frozenset(
    {
        bets.PASS,
        bets.DONT_PASS,
        bets.COME,
        bets.DONT_COME,
        bets.FIRE,
        bets.HOT_ROLLER,
        *bets.BONUS_CRAPS,
        bets.LUCKY_SHOOTER,
        bets.HOT_SHOOTER,
    }
)


def offered_check(bet: Bet, options: CrapsOptions) -> None:
    """The Rules Submission offers this wager, at this table type."""
    wager_type = bet.wager_type
    if wager_type not in OPTIONAL:
        return
    if wager_type in (bets.BUY, bets.LAY) and not options.buy_lay:
        raise RuleViolation(
            f"This table does not offer {wager_type.name}s", cite(wager_type.section)
        )
    if wager_type is bets.FIRE and options.fire_bet_paytable is None:
        raise RuleViolation("This table does not offer the Fire Bet", cite("623a.11(a)"))
    if wager_type is bets.HOT_ROLLER and options.hot_roller_paytable is None:
        raise RuleViolation("This table does not offer the Hot Roller wager", cite("623b.1"))
    if wager_type in bets.BONUS_CRAPS and options.bonus_craps_paytable is None:
        raise RuleViolation("This table does not offer Bonus Craps", cite("623b.3(a)"))
    if wager_type is bets.LUCKY_SHOOTER:
        if options.table_type != "electronic":
            raise RuleViolation(
                "The Lucky Shooter wager is offered only on a fully automated electronic table",
                cite("623b.2(a)"),
            )
        if options.lucky_shooter_paytable is None:
            raise RuleViolation("This table does not offer the Lucky Shooter wager", cite("623b.2"))
    if wager_type is bets.HOT_SHOOTER:
        if options.table_type == "manual":
            raise RuleViolation(
                "The Hot Shooter Jackpot wager is offered only on an electronic or hybrid table",
                cite("623b.4(a)"),
            )
        if not options.hot_shooter_jackpot:
            raise RuleViolation(
                "This table does not offer the Hot Shooter Jackpot wager", cite("623b.4(a)")
            )


def timing_check(
    bet: Bet, point: int | None, shooter_has_come_out: bool, series_started: bool
) -> None:
    """The wager is made at a moment its paragraph allows (§ 623a.4(a): before the throw)."""
    wager_type = bet.wager_type
    if wager_type not in TIMED:
        return
    if wager_type in (bets.PASS, bets.DONT_PASS) and point is not None:
        raise RuleViolation(
            f"A {wager_type.name} is made immediately prior to the come out roll; "
            f"the point is {point}",
            cite(wager_type.section),
        )
    if wager_type in (bets.COME, bets.DONT_COME) and point is None:
        raise RuleViolation(
            f"A {wager_type.name} is made after the come out roll; the next throw is a "
            "come out roll",
            cite(wager_type.section),
        )
    if wager_type is bets.FIRE and (shooter_has_come_out or point is not None):
        raise RuleViolation(
            "A Fire Bet is placed only before a new shooter's initial come out roll",
            cite("623a.11(a)(1)"),
        )
    if wager_type is bets.HOT_ROLLER and series_started:
        raise RuleViolation(
            "A Hot Roller wager is made only before the come out roll that follows a 7",
            cite("623b.1(b)"),
        )
    if wager_type in bets.BONUS_CRAPS and series_started:
        raise RuleViolation(
            f"The {wager_type.name} is made only before the first throw after a 7",
            cite("623a.12"),
        )
    if wager_type in (bets.LUCKY_SHOOTER, bets.HOT_SHOOTER) and point is not None:
        section = "623b.2(c)" if wager_type is bets.LUCKY_SHOOTER else "623b.4(c)"
        raise RuleViolation(
            f"The {wager_type.name} is made before the come out roll; the point is {point}",
            cite(section),
        )


def amount_check(bet: Bet, amount: Decimal, options: CrapsOptions) -> None:
    """Value chips of more than nothing, the wager's units, and the posted limits."""
    wager_type = bet.wager_type
    if amount <= 0:
        raise RuleViolation("A wager must be more than $0.00", cite("623a.4(b)"))
    if not has_whole_cents(amount):
        raise RuleViolation("A wager must be in whole cents", cite("623a.4(b)"))
    if wager_type is bets.FIRE:
        if amount != amount.to_integral_value() or int(amount) not in FIRE_BET_AMOUNTS:
            raise RuleViolation("A Fire Bet is $1 to $5 in whole dollars", cite("623a.11(b)(1)"))
        return  # § 623a.11(b)(1) sets the Fire Bet's own limits.
    if wager_type in UNITS:
        units = UNITS[wager_type]
        if amount % units != 0:
            raise RuleViolation(
                f"A {wager_type.name} is made in units of {units}: a multiple of ${units}",
                cite(wager_type.section),
            )
    if wager_type is bets.ODDS:
        return  # § 623a.3(b), § 623a.6(e)-(f): odds are limited by the bet they support.
    refusal = options.limits.refusal(amount)
    if refusal is not None:
        raise RuleViolation(refusal, cite("623a.3(b)"))


def odds_limit(
    line_type: bets.WagerType, point: int, bet_amount: Decimal, multiple: int
) -> Decimal:
    """The most odds one line or come bet may carry (§ 623a.6(a)-(e)).

    Taking odds: `multiple` times the bet. Laying odds: enough to win `multiple` times the
    bet at the true odds of the point, rounded down to the cent.
    """
    most_won = bet_amount * multiple
    if line_type in bets.RIGHT_WAY:
        return most_won
    ratio = LAYING_ODDS[point].ratio
    return round_down_to_cent(most_won * ratio.denominator / ratio.numerator)


def odds_check(
    line_type: bets.WagerType,
    point: int | None,
    bet_amount: Decimal,
    odds_amounts: Iterable[Decimal],
    multiple: int,
) -> None:
    """Odds go on a bet whose point is set, up to the Rules Submission's multiple."""
    subsection = bets.ODDS_SUBSECTION
    if point is None:
        raise RuleViolation(
            f"Odds are made on a {line_type.name} only after its point is established",
            cite(f"623a.6({subsection[line_type]})"),
        )
    most = odds_limit(line_type, point, bet_amount, multiple)
    total = sum(odds_amounts, Decimal(0))
    if total > most:
        if line_type in bets.RIGHT_WAY:
            limit = f"{multiple} times the {line_type.name}"
        else:
            limit = f"enough to win {multiple} times the {line_type.name}"
        raise RuleViolation(
            f"Odds on this {line_type.name} may total at most ${format_money(most)} ({limit})",
            cite("623a.6(e)"),
        )


def removal_check(bet: Bet, progress: object) -> None:
    """Whether the wager may be taken down or reduced now (§ 623a.4(c), (d))."""
    wager_type = bet.wager_type
    if wager_type is bets.PASS and progress is not None:
        raise RuleViolation(
            "A Pass Bet may not be removed or reduced after the point is established",
            cite("623a.4(c)(1)"),
        )
    if wager_type is bets.COME and progress is not None:
        raise RuleViolation(
            "A Come Bet may not be removed or reduced after its come point is established",
            cite("623a.4(c)(2)"),
        )
    if wager_type is bets.FIRE:
        raise RuleViolation(
            "A Fire Bet may not be reduced, increased or removed before a loser 7",
            cite("623a.4(c)(3)"),
        )
    if wager_type is bets.HOT_ROLLER:
        raise RuleViolation(
            "A Hot Roller wager may not be reduced, increased or removed until resolved",
            cite("623b.1(b)"),
        )
    if wager_type in bets.BONUS_CRAPS:
        raise RuleViolation(
            f"The {wager_type.name} stays on the layout until it is decided", cite("623a.12")
        )
    if wager_type in bets.DECIDED_BY_A_RUN and progress != initial_progress(bet):
        raise RuleViolation(
            f"The {wager_type.name} is decided by a run of throws that has begun; it stays "
            "until decided",
            cite("623a.4(c)"),
        )


def seat_check(
    seat: int | None, player: str, seats: dict[int, str], held: dict[str, int]
) -> int | None:
    """§ 623a.4(e), § 623a.2(c): only a player seated at one of nine seats wagers at Mini-Craps.

    The seat is optional (SCENARIOS.md has none): a wager without one is taken from a seated
    player whose seat the dealer did not record; a seat given is checked."""
    if seat is None:
        return None
    if seat not in MINI_CRAPS_SEATS:
        raise RuleViolation(
            f"A Mini-Craps table seats nine players: seat {seat!r} is not 1 to 9",
            cite("623a.2(c)"),
        )
    if seats.get(seat, player) != player:
        raise RuleViolation(f"Seat {seat} is taken by another player", cite("623a.4(e)"))
    if held.get(player, seat) != seat:
        raise RuleViolation(f"Player {player} is seated at seat {held[player]}", cite("623a.4(e)"))
    return seat


def vigorish(amount: Decimal, options: CrapsOptions) -> Decimal:
    """§ 623a.5(g)(3): the Rules Submission's percentage of the amount wagered, rounded down.

    Rounding down keeps the charge within the percentage: § 623a.5(h) allows no other fee.
    """
    rate: Fraction = options.vig_rate
    return round_down_to_cent(amount * rate.numerator / rate.denominator)
