"""Exact PAR sheet of High Roll Dice: every wager's outcomes, by enumeration.

The first roll is enumerated as multisets of face counts with multinomial weights
(3,003 count vectors for ten dice, 462 for six), never as 6**10 sequences; the extra
roll adds a binomial number of matches among the re-thrown dice.
"""

from collections import defaultdict
from fractions import Fraction
from itertools import combinations
from math import comb, factorial, prod

from games.rules.core import ParOutcome, ParRecord
from games.rules.high_roll_dice.paytables import (
    DIE_RANKING,
    EXTRA_ROLL,
    LIKE_KIND_FIRST_ROLL,
    MILLIONAIRE_ROW,
    PIP_STREET,
)

LOSE = Fraction(-1)


def count_vectors(dice: int) -> list[tuple[int, ...]]:
    """Every way `dice` dice split over the six faces: counts for faces 1..6."""
    vectors = []
    for bars in combinations(range(dice + 5), 5):  # stars and bars
        edges = (-1, *bars, dice + 5)
        vectors.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(6)))
    return vectors


def first_roll_distribution(dice: int) -> dict[tuple[int, int], Fraction]:
    """Probability of each (face with the most matches, ace high; how many) on a first roll."""
    weights: dict[tuple[int, int], int] = defaultdict(int)
    for counts in count_vectors(dice):
        most = max(counts)
        face = next(f for f in DIE_RANKING if counts[f - 1] == most)
        weights[(face, most)] += factorial(dice) // prod(factorial(c) for c in counts)
    total = 6**dice
    return {key: Fraction(w, total) for key, w in weights.items()}


def _count_distribution(dice: int) -> dict[int, Fraction]:
    """Probability of each count of the most matching dice on a first roll."""
    by_count: dict[int, Fraction] = defaultdict(Fraction)
    for (_, count), p in first_roll_distribution(dice).items():
        by_count[count] += p
    return dict(by_count)


def _matches(rethrown: int, added: int) -> Fraction:
    """Probability that exactly `added` of the re-thrown dice match the face in the box."""
    if not 0 <= added <= rethrown:
        return Fraction(0)
    return comb(rethrown, added) * Fraction(1, 6) ** added * Fraction(5, 6) ** (rethrown - added)


def _record(kind: str, wins: list[tuple[str, Fraction, Fraction]]) -> ParRecord:
    """A record from its winning outcomes; the rest of the probability loses one unit."""
    outcomes = [ParOutcome(name, p, net) for name, p, net in wins if p]
    lose = 1 - sum((p for _, p, _ in wins), Fraction(0))
    outcomes.append(ParOutcome("lose", lose, LOSE))
    return ParRecord(kind, tuple(outcomes))


def par_sheet(dice: int) -> tuple[ParRecord, ...]:
    """Every wager kind of the game with `dice` dice, outcome by outcome."""
    by_face_count = first_roll_distribution(dice)
    by_count = _count_distribution(dice)
    records = []
    for face in range(1, 7):
        p = sum((q for (f, _), q in by_face_count.items() if f == face), Fraction(0))
        records.append(_record(f"pip:{face}", [("win", p, PIP_STREET[dice][face].per_unit)]))
    first = LIKE_KIND_FIRST_ROLL[dice]
    circles = sorted(k for k in first if k >= 2)
    for k in circles:
        records.append(
            _record(f"like_kind:{k}", [("win", by_count.get(k, Fraction(0)), first[k].per_unit)])
        )
    if dice == 6:
        records.append(
            _record("no_match", [("win", by_count.get(1, Fraction(0)), first[1].per_unit)])
        )
        return tuple(records)
    for k in circles:
        # The circle wins on the first roll at § 675a.5(b), or, from a lower first count c,
        # when the 10 - c re-thrown dice add exactly k - c matches, at § 675a.5(d).
        extra = sum(
            (p * _matches(dice - c, k - c) for c, p in by_count.items() if c < k),
            Fraction(0),
        )
        net_extra = EXTRA_ROLL[k].per_unit if k in EXTRA_ROLL else Fraction(0)
        records.append(
            _record(
                f"like_kind:{k}+extra",
                [
                    ("win_first_roll", by_count.get(k, Fraction(0)), first[k].per_unit),
                    ("win_extra_roll", extra, net_extra),
                ],
            )
        )
    for k in (9, 10):
        records.append(
            _record(
                f"millionaire:{k}",
                [("win", by_count.get(k, Fraction(0)), MILLIONAIRE_ROW[k].per_unit)],
            )
        )
    # § 675a.4(a): the Extra Roll is a purchase, always collected; what it buys is in the
    # like_kind:K+extra records, which leave the purchase out (SCENARIOS.md).
    records.append(ParRecord("extra_roll", (ParOutcome("collected", Fraction(1), Fraction(-1)),)))
    return tuple(records)
