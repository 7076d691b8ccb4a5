"""When a wager may be made, of what amount, and when it may be taken down (§ 623a.3-§ 623a.6,
§ 623a.11, ch. 623b). Each function returns nothing or raises RuleViolation with the dealer's
sentence and the section.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

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
# made only at some moments (timing_check, TIMING): every other wager passes them at once.
# A new refusal in either check adds its wager here; a test runs every wager through both
# whole checks and fails if one outside these sets is refused.
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


@dataclass(frozen=True)
class Timing:
    """When a wager may be made: the moment in words, the test of the table (the point, the
    shooter has come out, a throw since the last 7), and the dealer's sentence otherwise
    (`{name}` and `{point}` filled in). `section`: None for the wager's own paragraph."""

    made: str
    allows: Callable[[int | None, bool, bool], bool]
    refusal: str
    section: str | None = None


def _come_out(point: int | None, shooter_has_come_out: bool, series_started: bool) -> bool:
    return point is None


def _point_on(point: int | None, shooter_has_come_out: bool, series_started: bool) -> bool:
    return point is not None


def _new_shooter(point: int | None, shooter_has_come_out: bool, series_started: bool) -> bool:
    return point is None and not shooter_has_come_out


def _after_a_seven(point: int | None, shooter_has_come_out: bool, series_started: bool) -> bool:
    return not series_started


_LINE = Timing(
    "immediately prior to the come out roll",
    _come_out,
    "A {name} is made immediately prior to the come out roll; the point is {point}",
)
_COME = Timing(
    "after the come out roll, while a point is on",
    _point_on,
    "A {name} is made after the come out roll; the next throw is a come out roll",
)
_BONUS = Timing(
    "only before the first throw after a 7 (or the table's first throw)",
    _after_a_seven,
    "The {name} is made only before the first throw after a 7",
    "623a.12",
)
# The wagers made only at some moments; every other wager at any time before the throw
# (§ 623a.4(a)). The same data says when in the catalog (docs/api.md) and checks it here.
TIMING: Mapping[bets.WagerType, Timing] = MappingProxyType(
    {
        bets.PASS: _LINE,
        bets.DONT_PASS: _LINE,
        bets.COME: _COME,
        bets.DONT_COME: _COME,
        bets.FIRE: Timing(
            "only before a new shooter's initial come out roll",
            _new_shooter,
            "A Fire Bet is placed only before a new shooter's initial come out roll",
            "623a.11(a)(1)",
        ),
        bets.HOT_ROLLER: Timing(
            "only before the come out roll that follows a 7 (or the table's first throw)",
            _after_a_seven,
            "A Hot Roller wager is made only before the come out roll that follows a 7",
            "623b.1(b)",
        ),
        **{wager_type: _BONUS for wager_type in bets.BONUS_CRAPS},
        bets.LUCKY_SHOOTER: Timing(
            "before a come out roll",
            _come_out,
            "The {name} is made before the come out roll; the point is {point}",
            "623b.2(c)",
        ),
        bets.HOT_SHOOTER: Timing(
            "before a come out roll",
            _come_out,
            "The {name} is made before the come out roll; the point is {point}",
            "623b.4(c)",
        ),
    }
)
TIMED = frozenset(TIMING)
ANY_TIME = "at any time before the dice are thrown"  # § 623a.4(a)


@dataclass(frozen=True)
class Removal:
    """When a wager may be taken down or reduced (§ 623a.4(c), (d)): the moment in words,
    the test of its progress, and the dealer's sentence otherwise (`{name}` filled in)."""

    words: str
    allows: Callable[[Bet, object], bool]
    refusal: str
    section: str

    @property
    def ever(self) -> bool:
        """False for a wager that is never taken down or reduced."""
        return self.allows is not _never


def _never(bet: Bet, progress: object) -> bool:
    return False


def _no_point_yet(bet: Bet, progress: object) -> bool:
    return progress is None


def _run_not_begun(bet: Bet, progress: object) -> bool:
    return progress == initial_progress(bet)


def _always(bet: Bet, progress: object) -> bool:
    return True


_DONT = Removal(
    "at any time; never replaced or increased after it is removed or reduced",
    _always,
    "",
    "623a.4(d)",
)
_RUN = Removal(
    "until the first throw that counts toward it",
    _run_not_begun,
    "The {name} is decided by a run of throws that has begun; it stays until decided",
    "623a.4(c)",
)
_BONUS_STAYS = Removal(
    "never: it stays on the layout until it is decided",
    _never,
    "The {name} stays on the layout until it is decided",
    "623a.12",
)
# The wagers with their own rule; every other wager may be removed or reduced at any time
# before a roll that decides it (§ 623a.4(c), `ANY_REMOVAL`).
REMOVAL: Mapping[bets.WagerType, Removal] = MappingProxyType(
    {
        bets.PASS: Removal(
            "until its come out point is established",
            _no_point_yet,
            "A Pass Bet may not be removed or reduced after the point is established",
            "623a.4(c)(1)",
        ),
        bets.COME: Removal(
            "until its come point is established",
            _no_point_yet,
            "A Come Bet may not be removed or reduced after its come point is established",
            "623a.4(c)(2)",
        ),
        bets.DONT_PASS: _DONT,
        bets.DONT_COME: _DONT,
        bets.FIRE: Removal(
            "never: not reduced or increased, and not removed before a loser 7, which decides it",
            _never,
            "A Fire Bet may not be reduced, increased or removed before a loser 7",
            "623a.4(c)(3)",
        ),
        bets.HOT_ROLLER: Removal(
            "never: it stays until it is resolved",
            _never,
            "A Hot Roller wager may not be reduced, increased or removed until resolved",
            "623b.1(b)",
        ),
        **{wager_type: _BONUS_STAYS for wager_type in bets.BONUS_CRAPS},
        **{wager_type: _RUN for wager_type in bets.DECIDED_BY_A_RUN},
    }
)
ANY_REMOVAL = Removal("at any time before a roll that decides it", _always, "", "623a.4(c)")


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


def offered(bet: Bet, options: CrapsOptions) -> bool:
    """Whether the table may offer the wager (`offered_check` passes): what the PAR sheet
    prices and the catalog lists, by the rule that takes wagers."""
    try:
        offered_check(bet, options)
    except RuleViolation:
        return False
    return True


def timing_check(
    bet: Bet, point: int | None, shooter_has_come_out: bool, series_started: bool
) -> None:
    """The wager is made at a moment its paragraph allows (§ 623a.4(a): before the throw)."""
    wager_type = bet.wager_type
    timing = TIMING.get(wager_type)
    if timing is None or timing.allows(point, shooter_has_come_out, series_started):
        return
    raise RuleViolation(
        timing.refusal.format(name=wager_type.name, point=point),
        cite(timing.section or wager_type.section),
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
    removal = REMOVAL.get(bet.wager_type, ANY_REMOVAL)
    if not removal.allows(bet, progress):
        raise RuleViolation(removal.refusal.format(name=bet.wager_type.name), cite(removal.section))


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
