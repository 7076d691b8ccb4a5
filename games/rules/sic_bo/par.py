"""Exact PAR sheet of Sic Bo: every wager decided on each of the 6**3 = 216 equally likely throws.

The throws are enumerated in full (216 is small) and decided by the same rule
functions that settle a real throw, so the PAR sheet and settlement cannot disagree.
"""

from collections import Counter
from fractions import Fraction
from itertools import product

from games.rules.core import ParOutcome, ParRecord
from games.rules.sic_bo.options import SicBoOptions
from games.rules.sic_bo.settlement import Throw, decide
from games.rules.sic_bo.wagers import FACES, Bet, every_bet

THROWS: tuple[Throw, ...] = tuple(product(FACES, repeat=3))  # type: ignore[assignment]


def par_sheet(options: SicBoOptions) -> tuple[ParRecord, ...]:
    """One record per wager kind and number; the options (limits, shaker) change no odds."""
    return tuple(par_record(bet) for bet in every_bet())


def par_record(bet: Bet) -> ParRecord:
    """The exact probability and net per unit of each way one wager can be decided."""
    counts = Counter((d.result, d.odds) for d in (decide(bet, dice) for dice in THROWS))
    results = Counter(result for result, _ in counts)
    outcomes = []
    # Wins from the lowest odds up, then the loss.
    for (result, odds), count in sorted(
        counts.items(), key=lambda item: (item[0][0] == "lose", item[0][1])
    ):
        name = result if results[result] == 1 else f"{result} {odds} to 1"
        net = Fraction(odds) if result == "win" else Fraction(-1)
        outcomes.append(ParOutcome(name, Fraction(count, len(THROWS)), net))
    return ParRecord(bet.kind, tuple(outcomes))
