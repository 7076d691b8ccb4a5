"""Dice fairness without a database: what each game's events read, the Pai Gow places'
exact distribution, and seeded simulations of loaded and fair dice through the service's
own test and alert rule (games/services/fairness.py, docs/statistics.md)."""

import math
import random
from decimal import Decimal
from fractions import Fraction

import pytest

from games.services.fairness import (
    ALL_DICE,
    GREEN,
    RED,
    dice_read,
    face_counts,
    face_counts_of,
    flagged,
    shaker_places,
    starting_places,
)
from games.statistics import gamma_q

THRESHOLD = Decimal("0.001")
FAIR = [Fraction(1, 6)] * 6
LOADED = [Fraction(3, 20)] * 5 + [Fraction(1, 4)]  # P(6) = 1/4, the rest equal


@pytest.mark.parametrize(
    ("game", "event", "payload", "read"),
    [
        ("sic_bo", "throw", [1, 4, 4], {ALL_DICE: [1, 4, 4]}),
        ("sic_bo", "no_roll", True, {}),
        ("sic_bo", "shaker_malfunction", True, {}),
        ("craps", "throw", [6, 1], {ALL_DICE: [6, 1]}),
        ("craps", "power_odds", 4, {}),
        (
            "high_roll_dice",
            "throw",
            [1, 2, 3, 4, 5, 6, 1, 2, 3, 4],
            {ALL_DICE: [1, 2, 3, 4, 5, 6, 1, 2, 3, 4]},
        ),
        ("high_roll_dice", "extra_roll", [5, 5, 2], {ALL_DICE: [5, 5, 2]}),
        ("three_dice_football", "throw", {"green": [2, 6], "red": 3}, {GREEN: [2, 6], RED: [3]}),
        ("pai_gow", "deal", {"stacks": [], "dice": [3, 3, 5]}, {ALL_DICE: [3, 3, 5]}),
        ("pai_gow", "deal", {"stacks": [], "rng": 17}, {}),
        ("pai_gow", "deal", {"dealer": [], "1": []}, {}),
        ("pai_gow", "rng_number", 17, {}),
    ],
)
def test_each_game_reads_its_dice(game, event, payload, read):
    assert dice_read(game, event, payload) == read


def test_counts_and_chi_square_worked_by_hand():
    # 36 dice: faces 1-5 five times, 6 eleven times; expected 6 a face.
    # chi-square = 5 * (1/6) + 25/6 = 30/6 = 5.0 on 5 df.
    counts = face_counts("all dice", [1, 2, 3, 4, 5] * 5 + [6] * 11)
    assert counts.counts == (5, 5, 5, 5, 5, 11)
    assert counts.dice == 36
    assert counts.expected == Decimal("6")
    assert counts.chi_square == Decimal("5")
    assert counts.degrees_of_freedom == 5
    # Q(2.5, 2.5) = erfc(sqrt 2.5) + e^-2.5 (sqrt 2.5 / G(1.5) + 2.5^1.5 / G(2.5)) = 0.41588
    y, root_pi = 2.5, math.sqrt(math.pi)
    by_hand = math.erfc(math.sqrt(y)) + math.exp(-y) * (
        y**0.5 / (root_pi / 2) + y**1.5 / (0.75 * root_pi)
    )
    assert float(counts.p_value) == pytest.approx(by_hand, rel=1e-9)
    assert counts.valid


def test_under_thirty_dice_the_test_is_not_valid_and_never_alerts():
    # 27 dice all sixes: expected 4.5 a face < 5 (Cochran): p is tiny, but no alert.
    counts = face_counts_of("all dice", [0, 0, 0, 0, 0, 27])
    assert counts.p_value < Decimal("1e-20")
    assert not counts.valid
    assert not flagged(counts, THRESHOLD)
    thirty = face_counts_of("all dice", [0, 0, 0, 0, 0, 30])
    assert thirty.valid and flagged(thirty, THRESHOLD)


def test_no_dice_no_statistic():
    counts = face_counts_of("all dice", [0] * 6)
    assert counts.chi_square is None and counts.p_value is None and not counts.valid
    assert not flagged(counts, THRESHOLD)


def test_pai_gow_shaker_places_exactly():
    # 216 outcomes of three dice; totals 3..18 land on place (total - 1) mod 8 + 1.
    # Totals by ways: 3:1 4:3 5:6 6:10 7:15 8:21 9:25 10:27 11:27 12:25 13:21 14:15
    # 15:10 16:6 17:3 18:1. Place 1 takes 9 and 17 (25 + 3), place 2 takes 10 and 18
    # (27 + 1), place 3: 3 and 11 (1 + 27), 4: 4, 12 (3 + 25), 5: 5, 13 (6 + 21),
    # 6: 6, 14 (10 + 15), 7: 7, 15 (15 + 10), 8: 8, 16 (21 + 6).
    ways = [28, 28, 28, 28, 27, 25, 25, 27]
    assert shaker_places() == tuple(Fraction(w, 216) for w in ways)


def test_pai_gow_generator_places_alert_and_shaker_places_do_not():
    # A generator stuck on places 1-4: 80 deals, expected 10 a place, far out: alert.
    stuck = starting_places("generator", [20, 20, 20, 20, 0, 0, 0, 0], THRESHOLD)
    assert stuck.chi_square == Decimal("80")  # 4 * 100/10 + 4 * 100/10
    assert stuck.degrees_of_freedom == 7 and stuck.valid and stuck.alert
    # The same counts from the shaker are tested but raise nothing: its dice are tested.
    shaker = starting_places("shaker", [20, 20, 20, 20, 0, 0, 0, 0], THRESHOLD)
    assert shaker.p_value < THRESHOLD and not shaker.alert
    assert shaker.expected[0] == Decimal("10.37037037")  # 80 * 28 / 216, 10 digits
    few = starting_places("generator", [5, 5, 5, 5, 0, 0, 0, 0], THRESHOLD)
    assert not few.valid and not few.alert  # 20 deals: 2.5 expected a place


def _critical(df: int, alpha: float) -> float:
    low, high = 0.0, 500.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if gamma_q(df / 2, middle / 2) > alpha else (low, middle)
    return low


def _power(dice: int, probabilities: list[Fraction], alpha: float) -> float:
    """P(alert) for `dice` dice of the given face probabilities: the noncentral chi-square
    tail, noncentrality lambda = dice * sum((p - 1/6)^2 / (1/6)), as a Poisson(lambda / 2)
    mixture of central chi-squares on 5 + 2j df."""
    lam = dice * float(sum((p - Fraction(1, 6)) ** 2 * 6 for p in probabilities))
    c = _critical(5, alpha)
    return math.fsum(
        math.exp(-lam / 2 + j * math.log(lam / 2) - math.lgamma(j + 1)) * gamma_q(2.5 + j, c / 2)
        for j in range(int(lam) + 400)
    )


def _throws(rng: random.Random, throws: int, dice: list[list[Fraction]]) -> list[int]:
    faces = []
    for probabilities in dice:
        faces += rng.choices(range(1, 7), weights=[float(p) for p in probabilities], k=throws)
    return faces


def test_stated_power():
    # The figures docs/statistics.md states, at p < 0.001 on 5 df (critical value 20.515):
    assert _critical(5, 0.001) == pytest.approx(20.515, abs=1e-3)
    # every die of a Sic Bo set loaded (lambda = dice / 20): 300 throws, 900 dice;
    assert _power(900, LOADED, 0.001) == pytest.approx(0.9945, abs=1e-4)
    # one loaded die among its three (lambda = dice / 180): 3,000 throws, 9,000 dice.
    one_of_three = [(a + b + c) / 3 for a, b, c in zip(FAIR, FAIR, LOADED, strict=True)]
    assert one_of_three[5] == Fraction(7, 36)
    assert _power(9000, one_of_three, 0.001) == pytest.approx(0.9981, abs=1e-4)


def test_loaded_sic_bo_sets_are_flagged_within_300_throws():
    # Power 0.9945 a set: of 100 seeded sets, 99.45 flagged expected; >= 96 holds unless
    # 5 or more of them are missed (Poisson(0.55): P = 0.0003).
    rng = random.Random(23)
    hits = sum(
        flagged(face_counts("all dice", _throws(rng, 300, [LOADED] * 3)), THRESHOLD)
        for _ in range(100)
    )
    assert hits >= 96


def test_one_loaded_die_among_three_is_flagged_within_3000_throws():
    # Power 0.9981 a set: of 40 sets, >= 38 flagged (3 misses or more: P = 0.0001).
    rng = random.Random(2323)
    hits = sum(
        flagged(face_counts("all dice", _throws(rng, 3000, [FAIR, FAIR, LOADED])), THRESHOLD)
        for _ in range(40)
    )
    assert hits >= 38


@pytest.mark.parametrize(
    ("threshold", "low", "high"),
    [
        # 2,000 fair sets of 200 Sic Bo throws (600 dice) each.
        # At 0.05: 100 alerts expected, sd sqrt(2000 * 0.05 * 0.95) = 9.75; 4 sd each side.
        (Decimal("0.05"), 61, 139),
        # At 0.001: 2 expected; 9 or more has P = 0.0002 (Poisson(2)).
        (Decimal("0.001"), 0, 8),
    ],
)
def test_fair_sets_are_flagged_at_the_rate_the_threshold_allows(threshold, low, high):
    rng = random.Random(1)
    alerts = sum(
        flagged(face_counts("all dice", _throws(rng, 200, [FAIR] * 3)), threshold)
        for _ in range(2000)
    )
    assert low <= alerts <= high
