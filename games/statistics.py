"""The floor's statistics, pure Python (no Django, no scipy): the engines' layer.

Dice fairness: Pearson's chi-square test of counts against their expected values, its
p-value from the regularized upper incomplete gamma function Q(k/2, x/2) (Numerical
Recipes' series below a + 1, Lentz's continued fraction above; both to ~1e-15).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
