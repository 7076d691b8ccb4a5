"""Exact PAR sheet (../shared/SCENARIOS.md, "PAR sheets"), by the engine's own rules.

Full game wagers are counted from the first down of a game: an absorbing Markov chain
over the field (yard line, down, play) whose transitions are the 216 equally likely
throws, run forward exactly in fractions. Every down moves the Game Length Puck on and
a game lasts at most six plays, so the chain has no cycles and six steps absorb it.
Single play wagers are counted over one throw of play (not the extra point roll).
"""

from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import cache
from itertools import product

from games.rules.core import ParOutcome, ParRecord
from games.rules.three_dice_football.field import (
    SCORING_ENDS,
    Field,
    GameEnd,
    Play,
    Throw,
    advance,
    call_play,
)
from games.rules.three_dice_football.options import FootballOptions
from games.rules.three_dice_football.paytables import Odds
from games.rules.three_dice_football.settlement import (
    FULL_GAME_RULES,
    SINGLE_PLAY_RULES,
    extra_point_roll,
)
from games.rules.three_dice_football.wagers import FULL_GAME_CLAUSES, SINGLE_PLAY_CLAUSES

FACES = range(1, 7)
ONE_THROW = Fraction(1, 216)


@cache
def down_distribution() -> tuple[tuple[Play, Fraction], ...]:
    """Each call a down's dice can make, with its exact probability."""
    plays: dict[Play, Fraction] = defaultdict(Fraction)
    for g1, g2, red in product(FACES, repeat=3):
        plays[call_play(Throw((g1, g2), red))] += ONE_THROW
    return tuple(plays.items())


@cache
def game_end_distribution() -> tuple[tuple[tuple[GameEnd, int], Fraction], ...]:
    """How a game ends and after how many plays, from its first down, exactly."""
    ends: dict[tuple[GameEnd, int], Fraction] = defaultdict(Fraction)
    fields: dict[Field, Fraction] = {Field(): Fraction(1)}
    while fields:
        following: dict[Field, Fraction] = defaultdict(Fraction)
        for field, reached in fields.items():
            for play, chance in down_distribution():
                after, end = advance(field, play)
                if end is None:
                    following[after] += reached * chance
                else:
                    ends[(end, field.play)] += reached * chance
        fields = following
    return tuple(ends.items())


@cache
def extra_point_distribution() -> tuple[tuple[Odds | None, Fraction], ...]:
    """The extra point roll's odds won (None for a miss), with exact probabilities."""
    odds: dict[Odds | None, Fraction] = defaultdict(Fraction)
    for faces in product(FACES, repeat=3):
        odds[extra_point_roll(faces)[0]] += ONE_THROW
    return tuple(odds.items())


def par_sheet(options: FootballOptions) -> tuple[ParRecord, ...]:
    """Every wager kind's outcomes; the table limits do not change the odds."""
    records = [full_game_record(kind) for kind in FULL_GAME_CLAUSES]
    records += [single_play_record(kind) for kind in SINGLE_PLAY_CLAUSES]
    return tuple(records)


def full_game_record(kind: str) -> ParRecord:
    """A full game wager from the first down of a game."""
    if kind == "extra_point":
        return extra_point_record()
    rule = FULL_GAME_RULES[kind]
    return _record(kind, ((rule(end, plays), p) for (end, plays), p in game_end_distribution()))


def extra_point_record() -> ParRecord:
    """§ 661a.3(b)(3): a touchdown or Trips TD, then the extra point roll."""
    scored = sum((p for (end, _), p in game_end_distribution() if end in SCORING_ENDS), Fraction())
    outcomes = [(odds, scored * p) for odds, p in extra_point_distribution()]
    return _record("extra_point", [*outcomes, (None, 1 - scored)])


def single_play_record(kind: str) -> ParRecord:
    """A single play wager over one down's throw."""
    rule: Callable[[Play], Odds | None] = SINGLE_PLAY_RULES[kind]
    return _record(kind, ((rule(play), p) for play, p in down_distribution()))


def _record(kind: str, outcomes: Iterable[tuple[Odds | None, Fraction]]) -> ParRecord:
    """Merge outcomes of equal odds: "win at 5 to 1" ..., then "lose" (net -1)."""
    merged: dict[Odds | None, Fraction] = defaultdict(Fraction)
    for odds, probability in outcomes:
        merged[odds] += probability
    wins = sorted((o for o in merged if o is not None), key=lambda o: o.ratio, reverse=True)
    records = [ParOutcome(f"win {odds}", merged[odds], odds.ratio) for odds in wins]
    if None in merged:
        records.append(ParOutcome("lose", merged[None], Fraction(-1)))
    return ParRecord(kind, tuple(records))
