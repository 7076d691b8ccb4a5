"""games.statistics: the chi-square p-value against published tables and closed forms."""

import math

import pytest

from games.statistics import chi_square, chi_square_p_value, gamma_q


@pytest.mark.parametrize(
    ("statistic", "degrees", "p_value"),
    [
        # Critical values as printed (NIST/SEMATECH e-Handbook, table 1.3.6.7.4), 4 decimals.
        (11.0705, 5, 0.05),
        (15.0863, 5, 0.01),
        (20.515, 5, 0.001),
        (3.8415, 1, 0.05),
        (6.6349, 1, 0.01),
        (18.3070, 10, 0.05),
        (23.2093, 10, 0.01),
        (14.0671, 7, 0.05),
        (24.3219, 7, 0.001),
    ],
)
def test_p_value_at_published_critical_values(statistic, degrees, p_value):
    # The tables round the statistic to 4 decimals: the p-value agrees to that rounding.
    assert chi_square_p_value(statistic, degrees) == pytest.approx(p_value, rel=2e-4, abs=0)


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.8415, 10.0, 50.0, 200.0])
def test_one_degree_of_freedom_is_erfc(x):
    # Q(1/2, x/2) = erfc(sqrt(x/2)) exactly.
    assert chi_square_p_value(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10, abs=0)


@pytest.mark.parametrize("degrees", [2, 4, 10, 30])
@pytest.mark.parametrize("x", [0.3, 2.0, 9.0, 18.307, 40.0, 100.0, 400.0])
def test_even_degrees_are_a_poisson_tail(degrees, x):
    # For k = 2m: Q(m, x/2) = e^(-x/2) * sum_{j<m} (x/2)^j / j!  (series and fraction both).
    half = x / 2
    exact = math.exp(-half) * math.fsum(half**j / math.factorial(j) for j in range(degrees // 2))
    assert chi_square_p_value(x, degrees) == pytest.approx(exact, rel=1e-10, abs=0)


def test_large_statistic_gives_a_tiny_positive_p_value():
    # df 10 at 100: e^-50 (1 + 50 + ... + 50^4/4!), the Poisson tail above.
    by_hand = math.exp(-50) * (1 + 50 + 50**2 / 2 + 50**3 / 6 + 50**4 / 24)
    assert 5.44e-17 < by_hand < 5.45e-17
    # abs=0: pytest's default absolute tolerance (1e-12) would pass any tiny number.
    assert chi_square_p_value(100.0, 10) == pytest.approx(by_hand, rel=1e-10, abs=0)


def test_fair_die_counts_worked_by_hand():
    # 60 throws, 10 expected a face: (4 + 1 + 0 + 1 + 4 + 0) / 10 = 1.0 on 5 df.
    result = chi_square([8, 11, 10, 9, 12, 10], [10.0] * 6)
    assert result.statistic == pytest.approx(1.0)
    assert result.degrees_of_freedom == 5
    # df 5 at 1.0: Q(2.5, 0.5) = 0.962565773... (erfc(sqrt 0.5) + e^-0.5 sqrt(2/pi) (1 + 1/3)).
    by_hand = math.erfc(math.sqrt(0.5)) + math.exp(-0.5) * math.sqrt(2 / math.pi) * (1 + 1 / 3)
    assert result.p_value == pytest.approx(by_hand, rel=1e-10)
    assert result.p_value == pytest.approx(0.9625657732, abs=1e-9)


def test_a_loaded_six_is_far_out():
    # 600 throws, 150 sixes: (150-100)^2/100 + 5 * (90-100)^2/100 = 25 + 5 = 30 on 5 df.
    result = chi_square([90, 90, 90, 90, 90, 150], [100.0] * 6)
    assert result.statistic == pytest.approx(30.0)
    # Odd k = 5, y = 15: Q(5/2, y) = erfc(sqrt y) + e^-y (y^0.5 / G(3/2) + y^1.5 / G(5/2)).
    y = 15.0
    root_pi = math.sqrt(math.pi)
    by_hand = math.erfc(math.sqrt(y)) + math.exp(-y) * (
        y**0.5 / (root_pi / 2) + y**1.5 / (3 * root_pi / 4)
    )
    assert result.p_value == pytest.approx(by_hand, rel=1e-10, abs=0)
    assert result.p_value == pytest.approx(1.47486e-5, rel=1e-5, abs=0)


def test_zero_statistic_is_p_one():
    assert chi_square([5, 5], [5.0, 5.0]).p_value == 1.0
    assert gamma_q(3.0, 0.0) == 1.0


@pytest.mark.parametrize(
    ("counts", "expected"),
    [([1, 2], [1.0]), ([3], [3.0]), ([1, 2], [0.0, 3.0]), ([-1, 4], [1.5, 1.5])],
)
def test_bad_input_is_refused(counts, expected):
    with pytest.raises(ValueError):
        chi_square(counts, expected)
