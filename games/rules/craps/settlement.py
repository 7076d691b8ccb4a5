"""How a throw decides each wager (§ 623a.3(a), § 623a.5, § 623a.6, ch. 623b).

One function per wager of the regulations. Each takes the wager's own progress (a come
point, the unique points a Fire Bet has seen, ...) and the `Roll`, and returns the
`Decision` (or None while the wager stays up) with the progress after the throw. The
table (table.py) and the PAR sheet (par.py) both decide through `RULES` (par by
`decide`), so settlement and the house edge cannot disagree.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal, NamedTuple

from games.rules.core import cite
from games.rules.craps import bets
from games.rules.craps.bets import Bet, WagerType
from games.rules.craps.options import CrapsOptions
from games.rules.craps.paytables import (
    ANY_CRAPS,
    ANY_SEVEN,
    BONUS_CRAPS,
    BUY,
    CRAPS_THREE,
    CRAPS_TWELVE,
    CRAPS_TWO,
    ELEVEN,
    EVEN_MONEY,
    FIELD,
    FIRE_BET,
    HARDWAY,
    HOP_NOT_PAIR,
    HOP_PAIR,
    HORN_NUMBER,
    HOT_ROLLER,
    HOT_SHOOTER,
    HOT_SHOOTER_LOSES_UP_TO,
    HOT_SHOOTER_PUSH_UP_TO,
    LAY,
    LAYING_ODDS,
    LUCKY_SHOOTER,
    LUCKY_SHOOTER_POINT_AND_FIVE,
    PLACE_TO_LOSE,
    PLACE_TO_WIN,
    POINT_NUMBERS,
    SIX_SEVEN_EIGHT_PAIR,
    TAKING_ODDS,
    Odds,
)

CRAPS_NUMBERS = (2, 3, 12)
NATURALS = (7, 11)

# § 623b.1(a)(2)(iii): the dice combinations of each number, as the layout depicts them.
NUMBER_COMBINATIONS: Mapping[int, frozenset[tuple[int, int]]] = {
    4: frozenset({(1, 3), (2, 2)}),
    5: frozenset({(1, 4), (2, 3)}),
    6: frozenset({(1, 5), (2, 4), (3, 3)}),
    8: frozenset({(2, 6), (3, 5), (4, 4)}),
    9: frozenset({(3, 6), (4, 5)}),
    10: frozenset({(4, 6), (5, 5)}),
}
# § 623a.12 (standard rule, docs/regulations.md): the numbers each Bonus Craps wager needs.
BONUS_CRAPS_NUMBERS: Mapping[WagerType, frozenset[int]] = {
    bets.ALL_SMALL: frozenset({2, 3, 4, 5, 6}),
    bets.ALL_TALL: frozenset({8, 9, 10, 11, 12}),
    bets.MAKE_EM_ALL: frozenset({2, 3, 4, 5, 6, 8, 9, 10, 11, 12}),
}


@dataclass(frozen=True, slots=True)
class Roll:
    """One valid throw as the table sees it: the dice, and whether it was a come out roll.

    What every rule asks of it (the total, a pair, a come out roll, a loser 7, the point
    made) is worked out once, when the throw is made, not once per wager it decides.
    """

    low: int
    high: int
    point: int | None  # the point before the throw; None: this throw is a come out roll
    power: Mapping[str, Odds]  # § 623b.5: the Power Odds selected for this throw only
    total: int = field(init=False)
    pair: bool = field(init=False)
    come_out: bool = field(init=False)
    seven_out: bool = field(init=False)  # a loser 7: a 7 thrown while a point is on
    point_made: bool = field(init=False)

    def __post_init__(self) -> None:
        total = self.low + self.high
        point = self.point
        setattr_ = object.__setattr__  # frozen: set once, here
        setattr_(self, "total", total)
        setattr_(self, "pair", self.low == self.high)
        setattr_(self, "come_out", point is None)
        # § 623a.10(a)(1): a loser 7 is a 7 thrown while a point is on.
        setattr_(self, "seven_out", point is not None and total == 7)
        setattr_(self, "point_made", point is not None and total == point)


class Decision(NamedTuple):
    """What a throw did to a wager: `ratio` is the winnings per unit (0 for a push or loss)."""

    result: Literal["win", "lose", "push"]
    ratio: Fraction
    cite: str
    odds: str | None = None
    power_odds: str | None = None  # the increased odds of § 623b.5, when they applied


Step = tuple[Decision | None, Any]
ZERO = Fraction(0)


def win(odds: Odds, section: str, power: Odds | None = None) -> Decision:
    """A win at the paytable's odds, or at the Power Odds selected for the throw (then the
    odds paid were set by § 623b.5(d), the section cited)."""
    if power is not None:
        return Decision("win", power.ratio, cite("623b.5(d)"), power.text, power.text)
    return Decision("win", odds.ratio, cite(section), odds.text)


def lose(section: str) -> Decision:
    return Decision("lose", ZERO, cite(section))


def split_win(ratio: Fraction, section: str, power: Odds | None = None) -> Decision:
    """A wager paid as several wagers (§ 623a.5(b)-(e)): its net per unit, as odds; with
    a part at Power Odds, § 623b.5(d) is cited."""
    text = f"{ratio.numerator} to {ratio.denominator}"
    if power is not None:
        return Decision("win", ratio, cite("623b.5(d)"), text, power.text)
    return Decision("win", ratio, cite(section), text)


def decide(bet: Bet, progress: Any, roll: Roll, options: CrapsOptions) -> Step:
    """The decision (None while the wager stays up) and the wager's progress after `roll`."""
    return RULES[bet.wager_type](bet, progress, roll, options)


_COUNTING_NUMBERS = (bets.FIRE, bets.HOT_ROLLER, *bets.BONUS_CRAPS)  # progress: numbers seen


def initial_progress(bet: Bet) -> Any:
    """A wager's progress when it is placed (odds get theirs from the bet they support)."""
    wager_type = bet.wager_type
    if wager_type in _COUNTING_NUMBERS:
        return frozenset()
    if wager_type is bets.LUCKY_SHOOTER:
        return LuckyShooterProgress()
    if wager_type is bets.HOT_SHOOTER:
        return 0
    return None


# --- § 623a.3(a)(1)-(4): Pass, Don't Pass, Come, Don't Come -----------------------------


def _right_way(bet: Bet, point: int | None, roll: Roll, options: CrapsOptions) -> Step:
    """Pass (1) and Come (3): progress is the bet's own point (come out point or come point)."""
    section, total = bet.wager_type.section, roll.total
    if point is None:
        if total in NATURALS:
            return win(EVEN_MONEY, f"{section}(i)(A)"), None
        if total in CRAPS_NUMBERS:
            return lose(f"{section}(ii)(A)"), None
        return None, total
    if total == point:
        return win(EVEN_MONEY, f"{section}(i)(B)"), None
    if total == 7:
        return lose(f"{section}(ii)(B)"), None
    return None, point


def _wrong_way(bet: Bet, point: int | None, roll: Roll, options: CrapsOptions) -> Step:
    """Don't Pass (2) and Don't Come (4): a 12 on the first roll returns the bet (iii)."""
    section, total = bet.wager_type.section, roll.total
    if point is None:
        if total in (2, 3):
            return win(EVEN_MONEY, f"{section}(i)(A)"), None
        if total in NATURALS:
            return lose(f"{section}(ii)(A)"), None
        if total == 12:
            return Decision("push", ZERO, cite(f"{section}(iii)")), None
        return None, total
    if total == 7:
        return win(EVEN_MONEY, f"{section}(i)(B)"), None
    if total == point:
        return lose(f"{section}(ii)(B)"), None
    return None, point


# --- § 623a.6: odds, decided with the bet they support -----------------------------------

_ODDS_ITEM = {4: "i", 10: "i", 5: "ii", 9: "ii", 6: "iii", 8: "iii"}


@dataclass(frozen=True, slots=True)
class OddsProgress:
    """Odds remember the bet they support and its point."""

    line: WagerType
    point: int


def _odds(bet: Bet, progress: OddsProgress, roll: Roll, options: CrapsOptions) -> Step:
    subsection, point, total = bets.ODDS_SUBSECTION[progress.line], progress.point, roll.total
    paid = f"623a.6({subsection})(2)({_ODDS_ITEM[point]})"
    if progress.line in bets.RIGHT_WAY:
        if total == point:
            return win(TAKING_ODDS[point], paid), progress
        if total == 7:
            return lose(f"623a.6({subsection})"), progress
    else:
        if total == 7:
            return win(LAYING_ODDS[point], paid), progress
        if total == point:
            return lose(f"623a.6({subsection})"), progress
    return None, progress


# --- § 623a.3(a)(5)-(10), (41), (42): numbers against the 7 ------------------------------


def _number_before_seven(paytable: Mapping[int, Odds]):
    """Place Bet to Win (5) and Buy Bet (41): the number before a 7 wins at `paytable`."""

    def rule(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
        section, total = bet.section, roll.total
        if total == bet.number:
            return win(paytable[total], f"{section}(i)"), None
        if total == 7:
            return lose(f"{section}(ii)"), None
        return None, None

    return rule


def _seven_before_number(paytable: Mapping[int, Odds]):
    """Place Bet to Lose (6) and Lay Bet (42): a 7 before the number wins at `paytable`."""

    def rule(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
        section, total = bet.section, roll.total
        if total == 7:
            return win(paytable[bet.number], f"{section}(i)"), None  # type: ignore[index]
        if total == bet.number:
            return lose(f"{section}(ii)"), None
        return None, None

    return rule


def _hard(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    section, total = bet.section, roll.total
    if total == bet.number:
        if roll.pair:
            return win(HARDWAY[total], f"{section}(i)", roll.power.get(bet.kind)), None
        return lose(f"{section}(ii)"), None
    if total == 7:
        return lose(f"{section}(ii)"), None
    return None, None


# --- § 623a.3(a)(11)-(39): one-roll wagers -------------------------------------------------


def _single(odds: Odds, winning: tuple[int, ...], power_key: str | None = None):
    def rule(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
        section = bet.section
        if roll.total in winning:
            power = roll.power.get(power_key) if power_key else None
            return win(odds, f"{section}(i)", power), None
        return lose(f"{section}(ii)"), None

    return rule


def _field(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    if roll.total in FIELD:
        return win(FIELD[roll.total], "623a.3(a)(11)(i)"), None
    return lose("623a.3(a)(11)(ii)"), None


def _horn_odds(number: int, roll: Roll) -> Odds:
    """The odds of the single-number wager on a horn number, or its Power Odds (§ 623b.5(d))."""
    key = "horn:3-11" if number in (3, 11) else "horn:2-12"
    return roll.power.get(key) or HORN_NUMBER[number]


def _c_and_e(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    """§ 623a.5(b): half as Any Craps (7 to 1), half as 11 in One Roll (15 to 1)."""
    total = roll.total
    if total in CRAPS_NUMBERS or total == 11:
        half = ANY_CRAPS if total != 11 else ELEVEN
        # § 623b.5(d) gives the C&E's increased odds for the whole wager.
        power = roll.power.get("c_and_e:11" if total == 11 else "c_and_e:craps")
        if power is not None:
            return win(power, "623a.5(b)", power), None
        ratio = Fraction(1, 2) * half.ratio - Fraction(1, 2)
        return split_win(ratio, "623a.5(b)"), None
    return lose("623a.3(a)(18)(ii)"), None


def _horn(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    """§ 623a.5(c): four wagers of a quarter each on the 2, 3, 11 and 12."""
    total = roll.total
    if total in bets.HORN_NUMBERS:
        odds = _horn_odds(total, roll)
        ratio = Fraction(1, 4) * odds.ratio - Fraction(3, 4)
        power = odds if odds is not HORN_NUMBER[total] else None
        return split_win(ratio, "623a.5(c)", power), None
    return lose("623a.3(a)(19)(ii)"), None


def _horn_high(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    """§ 623a.5(d): a fifth on each of 2, 3, 11, 12 and a fifth more on the number chosen."""
    total = roll.total
    if total in bets.HORN_NUMBERS:
        fifths = 2 if total == bet.number else 1
        ratio = Fraction(fifths, 5) * HORN_NUMBER[total].ratio - Fraction(5 - fifths, 5)
        return split_win(ratio, "623a.5(d)"), None
    return lose("623a.3(a)(20)(ii)"), None


def _whirl(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    """§ 623a.5(e): four units as a Horn Bet and one unit as an Any Seven Bet."""
    total = roll.total
    if total == 7:
        return split_win(Fraction(1, 5) * ANY_SEVEN.ratio - Fraction(4, 5), "623a.5(e)"), None
    if total in bets.HORN_NUMBERS:
        ratio = Fraction(1, 5) * HORN_NUMBER[total].ratio - Fraction(4, 5)
        return split_win(ratio, "623a.5(e)"), None
    return lose("623a.3(a)(21)(ii)"), None


def _hop(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    section = bet.section
    if (roll.low, roll.high) == bet.faces:
        odds = HOP_PAIR if roll.pair else HOP_NOT_PAIR
        return win(odds, f"{section}(i)", roll.power.get(bet.kind)), None
    return lose(f"{section}(ii)"), None


def _six_seven_eight(bet: Bet, progress: None, roll: Roll, options: CrapsOptions) -> Step:
    total = roll.total
    if total in (6, 8) and roll.pair:
        return win(SIX_SEVEN_EIGHT_PAIR, "623a.3(a)(39)(i)"), None
    if total in (6, 7, 8):
        return win(EVEN_MONEY, "623a.3(a)(39)(i)"), None
    return lose("623a.3(a)(39)(ii)"), None


# --- § 623a.3(a)(40), § 623a.11: the Fire Bet ----------------------------------------------


def _fire(bet: Bet, points: frozenset[int], roll: Roll, options: CrapsOptions) -> Step:
    """Unique points made since the bet was placed; paid or collected on a loser 7."""
    if roll.point_made:
        # § 623a.11(b)(2): the same point made again does not increment the count.
        return None, points | {roll.point}
    if roll.seven_out:
        made = len(points)
        paytable = FIRE_BET[options.fire_bet_paytable]  # type: ignore[index]
        if made >= 4:
            # § 623a.5(f): paid once, for the highest number of unique points made.
            return win(paytable[min(made, 6)], "623a.5(f)"), points
        return lose("623a.3(a)(40)(ii)"), points
    return None, points


# --- § 623b.1: Hot Roller ------------------------------------------------------------------


def completed_numbers(thrown: frozenset[tuple[int, int]]) -> int:
    """§ 623b.1(f): numbers every dice combination of which has been thrown."""
    return sum(1 for combos in NUMBER_COMBINATIONS.values() if combos <= thrown)


def _hot_roller(
    bet: Bet, thrown: frozenset[tuple[int, int]], roll: Roll, options: CrapsOptions
) -> Step:
    if roll.total == 7:
        # § 623b.1(g): settled on a 7, come out roll or not.
        completed = completed_numbers(thrown)
        if completed >= 2:
            paytable = HOT_ROLLER[options.hot_roller_paytable]  # type: ignore[index]
            return win(paytable[completed], "623b.1(h)"), thrown
        return lose("623b.1(g)"), thrown
    if roll.total in POINT_NUMBERS:
        return None, thrown | {(roll.low, roll.high)}
    return None, thrown


# --- § 623b.2: Lucky Shooter -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LuckyShooterProgress:
    """The point established for the wager (None before it) and the other points rolled."""

    point: int | None = None
    others: frozenset[int] = frozenset()


def _lucky_shooter(
    bet: Bet, progress: LuckyShooterProgress, roll: Roll, options: CrapsOptions
) -> Step:
    paytable = LUCKY_SHOOTER[options.lucky_shooter_paytable]  # type: ignore[index]
    total, point, others = roll.total, progress.point, progress.others
    if point is None:
        if total in CRAPS_NUMBERS:
            return lose("623b.2(d)(1)"), progress
        if total in NATURALS:
            # (d)(2): paid "1 for 1", the stake itself, and "remain working for the next come
            # out roll": nothing is decided, so no resolution (docs/regulations.md).
            return None, progress
        return None, LuckyShooterProgress(total)
    if len(others) == 5:
        # All five others rolled: the next roll decides whether the point comes too.
        hand = LUCKY_SHOOTER_POINT_AND_FIVE if total == point else 5
        return win(paytable[hand], "623b.2(e)"), progress
    if total in POINT_NUMBERS and total != point and total not in others:
        return None, LuckyShooterProgress(point, others | {total})
    # Any number other than one of the remaining, not already rolled numbers settles it.
    if len(others) in paytable:
        return win(paytable[len(others)], "623b.2(e)"), progress
    return lose("623b.2(d)(3)"), progress


# --- § 623b.3 and § 623a.12: Bonus Craps -----------------------------------------------------


def _bonus_craps(bet: Bet, thrown: frozenset[int], roll: Roll, options: CrapsOptions) -> Step:
    total = roll.total
    if total == 7:
        return lose("623a.12"), thrown
    thrown = thrown | {total}
    if BONUS_CRAPS_NUMBERS[bet.wager_type] <= thrown:
        paytable = BONUS_CRAPS[options.bonus_craps_paytable]  # type: ignore[index]
        return win(paytable[bet.wager_type.key], "623b.3(c)"), thrown
    return None, thrown


# --- § 623b.4: Hot Shooter Jackpot ---------------------------------------------------------


def _hot_shooter(bet: Bet, throws: int, roll: Roll, options: CrapsOptions) -> Step:
    """Every throw counts, from the come out roll the wager is placed for to the 7 out."""
    throws += 1
    if not roll.seven_out:
        return None, throws
    if throws <= HOT_SHOOTER_LOSES_UP_TO:
        return lose("623b.4(d)(1)"), throws
    if throws <= HOT_SHOOTER_PUSH_UP_TO:
        return Decision("push", ZERO, cite("623b.4(d)(1.1)")), throws
    odds = next(odds for fewest, odds in HOT_SHOOTER if throws >= fewest)
    return win(odds, "623b.4(e)"), throws


# The rule of each wager type: `decide` calls it; the table's throw looks it up itself, a
# call fewer for every wager on every throw.
RULES: dict[WagerType, Callable[[Bet, Any, Roll, CrapsOptions], Step]] = {
    bets.PASS: _right_way,
    bets.COME: _right_way,
    bets.DONT_PASS: _wrong_way,
    bets.DONT_COME: _wrong_way,
    bets.ODDS: _odds,
    bets.PLACE: _number_before_seven(PLACE_TO_WIN),
    bets.PLACE_LOSE: _seven_before_number(PLACE_TO_LOSE),
    bets.BUY: _number_before_seven(BUY),
    bets.LAY: _seven_before_number(LAY),
    bets.HARD: _hard,
    bets.FIELD: _field,
    bets.ANY_SEVEN: _single(ANY_SEVEN, (7,), "any_seven"),
    bets.ANY_CRAPS: _single(ANY_CRAPS, CRAPS_NUMBERS, "any_craps"),
    bets.CRAPS_2: _single(CRAPS_TWO, (2,)),
    bets.CRAPS_3: _single(CRAPS_THREE, (3,)),
    bets.CRAPS_12: _single(CRAPS_TWELVE, (12,)),
    bets.ELEVEN: _single(ELEVEN, (11,), "eleven"),
    bets.C_AND_E: _c_and_e,
    bets.HORN: _horn,
    bets.HORN_HIGH: _horn_high,
    bets.WHIRL: _whirl,
    bets.HOP: _hop,
    bets.SIX_SEVEN_EIGHT: _six_seven_eight,
    bets.FIRE: _fire,
    bets.HOT_ROLLER: _hot_roller,
    bets.LUCKY_SHOOTER: _lucky_shooter,
    bets.ALL_SMALL: _bonus_craps,
    bets.ALL_TALL: _bonus_craps,
    bets.MAKE_EM_ALL: _bonus_craps,
    bets.HOT_SHOOTER: _hot_shooter,
}
