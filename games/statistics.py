"""The floor's statistics, pure: no Django (the engines' layer, .importlinter).

docs/statistics.md says what each figure means and every choice behind it.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache
from itertools import product
from math import comb, lcm

from games.replay import engine_events
from games.rules.core import ParOutcome, ParRecord, RuleViolation, Wager
from games.rules.core.engine import Engine
from games.rules.craps import bets as craps_bets
from games.rules.craps.bets import bet_from_kind as craps_bet
from games.rules.craps.paytables import POWER_ODDS
from games.rules.craps.settlement import OddsProgress
from games.rules.craps.settlement import Roll as CrapsRoll
from games.rules.craps.settlement import decide as craps_decide
from games.rules.high_roll_dice.par import first_roll_distribution
from games.rules.high_roll_dice.settlement import FirstRoll as HrdFirstRoll
from games.rules.high_roll_dice.settlement import settle_extra_roll as hrd_settle_extra_roll
from games.rules.high_roll_dice.settlement import settle_first_roll as hrd_settle_first_roll
from games.rules.high_roll_dice.wagers import EXTRA_ROLL as HRD_EXTRA_ROLL
from games.rules.high_roll_dice.wagers import Kind as HrdKind
from games.rules.high_roll_dice.wagers import Placed as HrdPlaced
from games.rules.high_roll_dice.wagers import parse_kind as hrd_parse_kind
from games.rules.sic_bo.settlement import decide as sic_bo_decide
from games.rules.sic_bo.wagers import bet_from_kind as sic_bo_bet

# --- Hold against theory (docs/statistics.md) ------------------------------------------


def unit_moments(record: ParRecord) -> tuple[Fraction, Fraction]:
    """The house's expected win and its variance per unit staked on one wager.

    The house wins what the player loses, so its mean is the house edge; the variance is
    the same from either side: E[net^2] - E[net]^2 over the wager's PAR outcomes.
    """
    mean_net = sum((o.probability * o.net for o in record.outcomes), Fraction(0))
    second = sum((o.probability * o.net * o.net for o in record.outcomes), Fraction(0))
    return -mean_net, second - mean_net * mean_net


def record_from_document(entry: Mapping[str, object]) -> ParRecord:
    """A wager's ParRecord from a stored PAR sheet's entry (games/par.py `_record`)."""
    outcomes = entry["outcomes"]
    assert isinstance(outcomes, list)
    return ParRecord(
        str(entry["kind"]),
        tuple(
            ParOutcome(str(o["name"]), Fraction(o["probability"]), Fraction(o["net"]))
            for o in outcomes
        ),
    )


class UnmappedWager(ValueError):
    """A wager kind with no PAR record: the theory cannot be worked out for it."""


def par_kind(
    game: str,
    kind: str,
    *,
    odds_on: tuple[str, int] | None = None,
    extra_roll: bool = False,
    power_odds: tuple[str, int] | None = None,
) -> str:
    """The PAR record a wager is decided by, from its kind and what the round knew.

    Craps odds (``odds``) take the line bet they support and its point: ``odds:come:6``;
    a one-roll wager with Power Odds selected for its throw, the selection's key and odds:
    ``power_odds:hop:1-3:22``. A Like Kind Boulevard wager of a player who bought the
    Extra Roll is ``like_kind:K+extra`` (the purchase is its own record, ``extra_roll``).
    Every other kind is its own record: a Come bet is counted from the moment it is made,
    so its later come point is inside its record, as the Pass line's is.
    """
    if game == "craps":
        if kind == "odds":
            if odds_on is None:
                raise UnmappedWager("odds need the line bet they support and its point")
            return f"odds:{odds_on[0]}:{odds_on[1]}"
        if power_odds is not None:
            return f"power_odds:{power_odds[0]}:{power_odds[1]}"
    if game == "high_roll_dice" and extra_roll and kind.startswith("like_kind:"):
        return f"{kind}+extra"
    return kind


def craps_wager_context(
    engine: Engine,
    options: object,
    state: object,
    events: Iterable[tuple[int, str, object]],
) -> tuple[dict[str, tuple[str, int]], dict[str, tuple[str, int]]]:
    """What a Craps round's wagers need to find their PAR record, from replaying its events
    from the state it started in: each odds wager's line bet and point (`odds_on`), and the
    Power Odds selected for the first throw each wager saw, where one applied (`power`)."""
    own = engine_events(engine)
    odds_on: dict[str, tuple[str, int]] = {}
    power: dict[str, tuple[str, int]] = {}
    thrown: set[str] = set()
    for _, event, payload in events:
        if event not in own:
            continue
        if event == "throw":
            selection = getattr(state, "power_odds", None) or {}
            for entry in state.layout:  # type: ignore[attr-defined]
                if entry.wager.id in thrown:
                    continue
                thrown.add(entry.wager.id)
                for key, odds in selection.items():
                    if _power_bet_kind(key) == entry.bet.kind:
                        power[entry.wager.id] = (key, odds.wins)
                        break
        state, _ = engine.step(options, state, event, payload)
        if event == "wagers":
            for entry in state.layout:  # type: ignore[attr-defined]
                if entry.bet.wager_type is craps_bets.ODDS and isinstance(
                    entry.progress, OddsProgress
                ):
                    progress = entry.progress
                    odds_on.setdefault(entry.wager.id, (progress.line.key, progress.point))
    return odds_on, power


def _power_bet_kind(key: str) -> str:
    """The wager a Power Odds key boosts (games/rules/craps/par.py): ``horn:3-11`` the Horn
    Bet, ``c_and_e:craps`` the C and E, any other key the wager it names."""
    name = key.split(":")[0]
    return name if name in ("horn", "c_and_e") else key


THROWS = tuple(product(range(1, 7), repeat=3))  # the 216 equally likely Sic Bo throws


@cache
def sic_bo_unit_wins(kind: str) -> tuple[int, ...]:
    """The house's win per unit staked on `kind`, throw by throw (THROWS' order): the
    stake kept on a loss, minus the odds paid on a win, as the engine's rule decides."""
    bet = sic_bo_bet(kind)
    wins = []
    for dice in THROWS:
        decision = sic_bo_decide(bet, dice)
        wins.append(-decision.odds if decision.result == "win" else 1)
    return tuple(wins)


def sic_bo_round_moments(wagers: Sequence[tuple[str, Decimal]]) -> tuple[Fraction, Fraction]:
    """The exact mean and variance of the house's win on one Sic Bo throw, every wager on
    the layout together: all 216 throws, each wager settled by the engine's own rule.

    The wagers of one round are decided by the same three dice, so their outcomes are
    correlated (a Small and a Big never both win); summing their variances would be wrong.
    Sums are in whole cents: Sic Bo pays whole-number odds on stakes in cents.
    """
    totals = [0] * len(THROWS)
    for kind, amount in wagers:
        cents = int(amount * 100)
        if cents != amount * 100:
            raise ValueError(f"a stake in whole cents, not {amount}")
        for i, unit in enumerate(sic_bo_unit_wins(kind)):
            totals[i] += cents * unit
    n = len(THROWS)
    total = sum(totals)
    second = sum(t * t for t in totals)
    mean = Fraction(total, n * 100)
    return mean, Fraction(second, n * 10000) - mean * mean


# § 623a.3(a)(11)-(38): the Craps wagers one throw decides, whatever it is.
CRAPS_ONE_ROLL = frozenset(
    {
        craps_bets.FIELD,
        craps_bets.ANY_SEVEN,
        craps_bets.ANY_CRAPS,
        craps_bets.CRAPS_2,
        craps_bets.CRAPS_3,
        craps_bets.CRAPS_12,
        craps_bets.ELEVEN,
        craps_bets.C_AND_E,
        craps_bets.HORN,
        craps_bets.HORN_HIGH,
        craps_bets.WHIRL,
        craps_bets.HOP,
    }
)


def is_one_roll(kind: str) -> bool:
    """A Craps wager kind the next throw decides (a kind Craps does not have: False)."""
    try:
        return craps_bet(kind).wager_type in CRAPS_ONE_ROLL
    except RuleViolation:
        return False


def craps_one_roll_moments(
    wagers: Sequence[tuple[str, Decimal, tuple[str, int] | None]], options: object
) -> tuple[Fraction, Fraction]:
    """The exact mean and variance of the house's win on the one-roll wagers of one Craps
    throw together (kind, stake, the Power Odds selected for it or None): the 36 throws,
    each wager decided by the engine's own rule. A Field, a Horn and Any Craps are decided
    by the same dice; their variances do not add."""
    power = {
        key: next(o for o in POWER_ODDS[key] if o.wins == wins)
        for _, _, selected in wagers
        if selected is not None
        for key, wins in [selected]
    }
    bets = [(craps_bet(kind), Fraction(amount)) for kind, amount, _ in wagers]
    total = Fraction(0)
    second = Fraction(0)
    for low in range(1, 7):
        for high in range(1, 7):
            roll = CrapsRoll(min(low, high), max(low, high), None, power)
            win = Fraction(0)
            for bet, amount in bets:
                decision, _ = craps_decide(bet, None, roll, options)
                if decision is None:
                    raise ValueError(f"{bet.kind} is not decided by one throw")
                if decision.result == "win":
                    win -= amount * decision.ratio
                elif decision.result == "lose":
                    win += amount
            total += win
            second += win * win
    mean = total / 36
    return mean, second / 36 - mean * mean


@cache
def _hrd_states(dice: int) -> tuple[tuple[tuple[int, int, int], ...], tuple[int, ...], int]:
    """Every outcome of a High Roll Dice round as the table reads it: (face with the most
    matches, how many, how many re-thrown dice then match it on an Extra Roll), with its
    weight out of the returned total. The first roll decides every wager by its face and
    count alone (§ 675a.2(d)); an Extra Roll re-throws the other dice (§ 675a.4(g)).
    Wagers no Extra Roll touches are simply the same in every branch of a first roll."""
    total = 6 ** (2 * dice)
    states, weights = [], []
    for (face, count), p_first in sorted(first_roll_distribution(dice).items()):
        rethrown = dice - count
        for added in range(rethrown + 1):
            p_extra = (
                comb(rethrown, added)
                * Fraction(1, 6) ** added
                * Fraction(5, 6) ** (rethrown - added)
            )
            weight = p_first * p_extra * total
            assert weight.denominator == 1
            states.append((face, count, added))
            weights.append(int(weight))
    return tuple(states), tuple(weights), total


# A stake large enough that the engine's rounding down to the cent is exact at every odds.
_UNIT = Decimal(10**8)


@cache
def hrd_unit_wins(kind: str, extra_roll: bool, dice: int) -> tuple[tuple[int, ...], int]:
    """The house's win per unit staked on `kind` in each of `_hrd_states`, as integers over
    the returned denominator; `extra_roll`: its player bought the Extra Roll. Each state is
    decided by the engine's own settlement (first roll, then the Extra Roll)."""
    area = hrd_parse_kind(kind, dice)
    if not isinstance(area, HrdKind):
        raise ValueError(f"{kind!r}: {area.message}")
    if area.area == HRD_EXTRA_ROLL:
        return (1,) * len(_hrd_states(dice)[0]), 1  # collected whatever the dice
    placed = [HrdPlaced(Wager("w", "p", kind, _UNIT), area)]
    if extra_roll:
        placed.append(HrdPlaced(Wager("x", "p", HRD_EXTRA_ROLL, _UNIT), HrdKind(HRD_EXTRA_ROLL)))
    wins: list[Fraction] = []
    for face, count, added in _hrd_states(dice)[0]:
        roll = HrdFirstRoll(face, count, dice)
        decisions, working = hrd_settle_first_roll(placed, roll)
        if working:
            other = 1 if face != 1 else 2
            rethrown = [face] * added + [other] * (roll.rethrown - added)
            decisions = [*decisions, *hrd_settle_extra_roll(working, roll, rethrown)]
        [decision] = [d for d in decisions if d.placed.wager.id == "w"]
        won = -Fraction(decision.winnings) if decision.result == "win" else Fraction(_UNIT)
        wins.append(won / Fraction(_UNIT))
    denominator = lcm(*(w.denominator for w in wins))
    return tuple(int(w * denominator) for w in wins), denominator


def high_roll_dice_round_moments(
    wagers: Sequence[tuple[str, str, Decimal]], dice: int
) -> tuple[Fraction, Fraction]:
    """The exact mean and variance of the house's win on one High Roll Dice round, every
    wager together (player, kind, stake): the round's few hundred outcomes (`_hrd_states`),
    each wager decided by the engine's own settlement. Wagers on one roll of the same dice
    are correlated (two Pip Street faces never both win); their variances do not add."""
    states, weights, total = _hrd_states(dice)
    extra = {player for player, kind, _ in wagers if kind == HRD_EXTRA_ROLL}
    vectors = [
        (hrd_unit_wins(kind, player in extra, dice), int(amount * 100))
        for player, kind, amount in wagers
    ]
    common = lcm(*(denominator for (_, denominator), _ in vectors))
    wins = [0] * len(states)
    for (units, denominator), cents in vectors:
        scale = cents * (common // denominator)
        for i, unit in enumerate(units):
            if unit:
                wins[i] += scale * unit
    first = sum(w * x for w, x in zip(weights, wins, strict=True))
    second = sum(w * x * x for w, x in zip(weights, wins, strict=True))
    unit = total * 100 * common
    mean = Fraction(first, unit)
    return mean, Fraction(second, unit * 100 * common) - mean * mean


def correlated_bound(variances: Sequence[Fraction]) -> Decimal:
    """The variance bound for wagers at one round whose joint outcome is not enumerated:
    (sd_1 + ... + sd_n)^2, their variance were they perfectly correlated (Cauchy-Schwarz).
    Wide, never narrow: an alert under it is no artefact of the correlation."""
    return sum((fraction_sqrt(v) for v in variances), Decimal(0)) ** 2


def fraction_decimal(value: Fraction) -> Decimal:
    """A Fraction as a Decimal to 28 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 28
        return Decimal(value.numerator) / Decimal(value.denominator)


def fraction_sqrt(value: Fraction) -> Decimal:
    """The square root of a non-negative Fraction, to 28 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 28
        return (Decimal(value.numerator) / Decimal(value.denominator)).sqrt()


# --- Dice fairness (docs/statistics.md) -------------------------------------------------
# Pearson's chi-square test of counts against their expected values, its p-value from the
# regularized upper incomplete gamma function Q(k/2, x/2) (Numerical Recipes' series below
# a + 1, Lentz's continued fraction above; both to ~1e-15). No scipy.

_EPSILON = 1e-15
_TINY = 1e-300
_MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class ChiSquare:
    """Pearson's statistic, its degrees of freedom and the chance of one at least as large
    from counts that do follow the expected distribution."""

    statistic: float
    degrees_of_freedom: int
    p_value: float


def chi_square(counts: Sequence[int], expected: Sequence[float]) -> ChiSquare:
    """Pearson's chi-square of `counts` against `expected` (same length, every expected
    above 0), with k - 1 degrees of freedom: the expected values are given, nothing is
    estimated from the counts but their total."""
    if len(counts) != len(expected):
        raise ValueError(f"{len(counts)} counts against {len(expected)} expected values")
    if len(counts) < 2:
        raise ValueError("a chi-square test needs two categories or more")
    if any(e <= 0 for e in expected):
        raise ValueError("every expected count must be above 0")
    if any(c < 0 for c in counts):
        raise ValueError("a count cannot be negative")
    statistic = math.fsum((c - e) ** 2 / e for c, e in zip(counts, expected, strict=True))
    degrees = len(counts) - 1
    return ChiSquare(statistic, degrees, chi_square_p_value(statistic, degrees))


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """P(X >= statistic) for X chi-square with `degrees_of_freedom`: Q(k/2, x/2)."""
    if degrees_of_freedom < 1:
        raise ValueError("degrees of freedom start at 1")
    if statistic <= 0:
        return 1.0
    return gamma_q(degrees_of_freedom / 2, statistic / 2)


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a)."""
    if a <= 0 or x < 0:
        raise ValueError("Q(a, x) needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    if x < a + 1:
        # The series converges fast here; Q = 1 - P loses nothing while P is not near 1.
        return max(0.0, 1.0 - _gamma_p_series(a, x))
    return _gamma_q_continued_fraction(a, x)


def _prefix(a: float, x: float) -> float:
    """e^-x x^a / Γ(a), in logarithms so a large a or x neither overflows nor underflows early."""
    return math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_p_series(a: float, x: float) -> float:
    """P(a, x) = e^-x x^a / Γ(a + 1) * Σ x^n / ((a + 1) ... (a + n))."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            return total * _prefix(a, x)
    raise ArithmeticError(f"P({a}, {x}): the series did not converge")


def _gamma_q_continued_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, evaluated by the modified Lentz method."""
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPSILON:
            return h * _prefix(a, x)
    raise ArithmeticError(f"Q({a}, {x}): the continued fraction did not converge")
