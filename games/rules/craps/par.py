"""Exact PAR sheet of Craps (../shared/SCENARIOS.md, "PAR sheets"), by absorbing Markov chains.

Each wager is followed alone from the moment it is counted: the chain's state is the
table's point, the wager's own progress (its come point, the points a Fire Bet has seen,
the combinations a Hot Roller has marked, ...) and whether Power Odds still apply. Its
moves are the 21 distinct throws of two dice, each decided by `settlement.decide`, the
function that settles a real throw, so the PAR sheet and settlement cannot disagree.
`games.rules.core.markov.absorption` solves each chain exactly in fractions.

When each wager is counted from (docs/regulations.md): line and come bets from
placement; odds from the point; Place, Buy, Lay and Hardway bets as working bets; the
Fire Bet from a new shooter's first come out roll; Hot Roller and Bonus Craps from the
first throw after a 7; Hot Shooter from a come out roll; Lucky Shooter from placement to its
one decision (a come out 7 or 11 pays "1 for 1", the stake itself, and the wager stays working:
no decision, the chain comes back to the same come out).
"""

from collections.abc import Iterable, Mapping
from dataclasses import replace
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Any

from games.rules.core import ParOutcome, ParRecord
from games.rules.core.markov import Absorbed, absorption
from games.rules.craps import bets
from games.rules.craps.bets import Bet, bet_from_kind, every_bet
from games.rules.craps.options import CrapsOptions
from games.rules.craps.paytables import HOT_SHOOTER, POINT_NUMBERS, POWER_ODDS, Odds
from games.rules.craps.placement import offered
from games.rules.craps.settlement import (
    NUMBER_COMBINATIONS,
    OddsProgress,
    Roll,
    decide,
    initial_progress,
)

NO_POWER: Mapping[str, Odds] = MappingProxyType({})
DEFAULT_OPTIONS = CrapsOptions()
# The wagers decided by the table's point (a point made, a loser 7); the chain of any
# other wager leaves the point out of its state.
FOLLOWS_THE_POINT = (bets.FIRE, bets.HOT_SHOOTER)


@cache
def throws() -> tuple[tuple[int, int, Fraction], ...]:
    """The 21 distinct throws (low face first) with their probability out of 36."""
    return tuple(
        (low, high, Fraction(1 if low == high else 2, 36))
        for low in range(1, 7)
        for high in range(low, 7)
    )


def par_sheet(options: CrapsOptions) -> tuple[ParRecord, ...]:
    """One record per wager kind and number offered under `options`, then Power Odds.

    Each record is solved once per process for the options that decide it: the side
    wagers' chains take up to a second.
    """
    records: list[ParRecord] = []
    for bet in every_bet():
        if not offered(bet, options):
            continue
        records.append(par_record(bet, options))
    for line in bets.LINE_BETS:
        for point in POINT_NUMBERS:
            kind = f"odds:{line.key}:{point}"
            records.append(_record(kind, Bet(bets.ODDS), OddsProgress(line, point), options))
    records = _odds_after_line_bets(records)
    if options.power_odds:
        for key, choices in POWER_ODDS.items():
            bet = _power_bet(key)
            for odds in choices:
                kind = f"power_odds:{key}:{odds.wins}"
                power = MappingProxyType({key: odds})
                records.append(_record(kind, bet, initial_progress(bet), options, power))
    return tuple(records)


def par_record(bet: Bet, options: CrapsOptions) -> ParRecord:
    """The exact outcomes of one wager from the moment it is counted."""
    return _record(bet.kind, bet, initial_progress(bet), options)


def _odds_after_line_bets(records: list[ParRecord]) -> list[ParRecord]:
    """SCENARIOS.md order: the four line bets, then their odds, then the rest."""
    line_kinds = [t.key for t in bets.LINE_BETS]
    lines = [r for r in records if r.kind in line_kinds]
    odds = [r for r in records if r.kind.startswith("odds:")]
    rest = [r for r in records if r not in lines and r not in odds]
    return lines + odds + rest


def _power_bet(key: str) -> Bet:
    """The wager a Power Odds key boosts: ``horn:3-11`` boosts the Horn Bet."""
    name = key.split(":")[0]
    if name in ("horn", "c_and_e"):
        return Bet(bets.HORN if name == "horn" else bets.C_AND_E)
    return bet_from_kind(key)


def _record(
    kind: str,
    bet: Bet,
    progress: Any,
    options: CrapsOptions,
    power: Mapping[str, Odds] = NO_POWER,
) -> ParRecord:
    return _solved(kind, bet, progress, _only_what_decides(bet, options), tuple(power.items()))


def _only_what_decides(bet: Bet, options: CrapsOptions) -> CrapsOptions:
    """The default options with only those that decide this wager's odds copied in, so a
    record is solved once for all option sets that agree on them."""
    wager_type = bet.wager_type
    if wager_type in (bets.BUY, bets.LAY):
        names = ("vig_percent", "vig_collected")
    elif wager_type is bets.FIRE:
        names = ("fire_bet_paytable",)
    elif wager_type is bets.HOT_ROLLER:
        names = ("hot_roller_paytable",)
    elif wager_type is bets.LUCKY_SHOOTER:
        names = ("lucky_shooter_paytable",)
    elif wager_type in bets.BONUS_CRAPS:
        names = ("bonus_craps_paytable",)
    else:
        names = ()
    return replace(DEFAULT_OPTIONS, **{name: getattr(options, name) for name in names})


@cache
def _solved(
    kind: str,
    bet: Bet,
    progress: Any,
    options: CrapsOptions,
    power_items: tuple[tuple[str, Odds], ...],
) -> ParRecord:
    power: Mapping[str, Odds] = MappingProxyType(dict(power_items)) if power_items else NO_POWER
    fee = _vigorish_rates(bet, options)
    follows_point = bet.wager_type in FOLLOWS_THE_POINT

    def moves(state: tuple[int | None, Any, bool]) -> Iterable[tuple[Fraction, object]]:
        point, progress, boosted = state
        for low, high, probability in throws():
            roll = Roll(low, high, point, power if boosted else NO_POWER)
            decision, after = decide(bet, progress, roll, options)
            if decision is not None:
                if decision.result == "win":
                    net = decision.ratio - fee[0]
                    name = f"win {decision.odds}" if decision.odds else "win"
                elif decision.result == "lose":
                    net, name = Fraction(-1) - fee[1], "lose"
                else:
                    net, name = Fraction(0), f"push {decision.odds}" if decision.odds else "push"
                yield probability, Absorbed((name, net))
                continue
            total = low + high
            if not follows_point:
                following = None
            elif point is None:
                following = total if total in POINT_NUMBERS else None
            else:
                following = None if total in (point, 7) else point
            yield probability, (following, _canonical(bet, after), False)

    ends = absorption((None, progress, bool(power)), moves)
    return ParRecord(kind, _outcomes(ends))


def _vigorish_rates(bet: Bet, options: CrapsOptions) -> tuple[Fraction, Fraction]:
    """Per unit wagered, the vigorish inside the net of a win and of a loss."""
    if bet.wager_type not in (bets.BUY, bets.LAY):
        return Fraction(0), Fraction(0)
    rate = options.vig_rate
    return (rate, rate if options.vig_collected == "on_placement" else Fraction(0))


def _outcomes(ends: dict) -> tuple[ParOutcome, ...]:
    """Wins from the highest net down, then pushes and losses; a lone win is just "win"."""
    wins = [label for label in ends if label[0].startswith("win")]
    outcomes = []
    for (name, net), probability in sorted(ends.items(), key=lambda item: -item[0][1]):
        if name.startswith("win") and len(wins) == 1:
            name = "win"
        outcomes.append(ParOutcome(name, probability, net))
    return tuple(outcomes)


def _canonical(bet: Bet, progress: Any) -> Any:
    """A representative of progress with the same future, to keep the chains small."""
    wager_type = bet.wager_type
    if wager_type is bets.HOT_SHOOTER:
        # From 50 throws on, every 7 out pays the top line (§ 623b.4(e)).
        return min(progress, HOT_SHOOTER[0][0])
    if wager_type is bets.HOT_ROLLER:
        return _hot_roller_canonical(progress)
    return progress


def _hot_roller_canonical(thrown: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """Combinations of equal chance are interchangeable, and so are 4/10, 5/9 and 6/8."""
    shapes: dict[int, tuple[bool, int]] = {}
    for number, combos in NUMBER_COMBINATIONS.items():
        pair = next((c for c in combos if c[0] == c[1]), None)
        shapes[number] = (pair in thrown, len(thrown & (combos - {pair})))
    canonical: set[tuple[int, int]] = set()
    for low_number, high_number in ((4, 10), (5, 9), (6, 8)):
        first, second = sorted((shapes[low_number], shapes[high_number]))
        for number, (hard, easy) in ((low_number, first), (high_number, second)):
            combos = NUMBER_COMBINATIONS[number]
            pair = next((c for c in combos if c[0] == c[1]), None)
            if hard and pair is not None:
                canonical.add(pair)
            canonical.update(sorted(combos - {pair})[:easy])
    return frozenset(canonical)
