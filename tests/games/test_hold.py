"""A table's hold against theory over rounds played through the services, values by hand
(docs/statistics.md, "Hold against theory")."""

from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest

from casino.models import StatisticsThresholds
from games.models import Resolution, Round
from games.services.hold import (
    floor_hold,
    gaming_day_bounds,
    gaming_day_of,
    hold_timeline,
    shift_of,
    table_hold,
    table_hold_by_submission,
)
from games.statistics import fraction_decimal, fraction_sqrt, high_roll_dice_round_moments
from tests.casino.floor_fixtures import T0, at
from tests.games.round_fixtures import M, close, open_table, opened, place, result, settle, wager

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 2)  # T0 is 08:00 that day in Pennsylvania: shift 1
H = timedelta(hours=1)


def sic_bo_round(table, dice, *wagers, now=T0):
    round_ = opened(table, now=now + M)
    place(round_, *wagers, now=now + 2 * M)
    close(round_, now=now + 3 * M)
    result(round_, "throw", dice, now=now + 4 * M)
    settle(round_, now=now + 5 * M)
    return round_


# Small $10 and Total 4 $5 on one throw. The house's win on each of the 216 throws:
# a total of 4 (3 throws) both win: -10 - 250 = -260; another Small (102): -10 + 5 = -5;
# anything else (111): +15. Mean 375/216 (= 10/36 + 5 * 7/24, the theoretical win);
# E[W^2] = (3 * 67600 + 102 * 25 + 111 * 225) / 216 = 230325/216.
ROUND_MEAN = Fraction(375, 216)
ROUND_VARIANCE = Fraction(230325, 216) - ROUND_MEAN**2


def test_a_sic_bo_day_drop_win_hold_theory_and_z_by_hand():
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    bets = (wager("ann", "small", "10"), wager("bob", "total:4", "5"))
    sic_bo_round(table, [4, 4, 2], *bets)  # total 10: Small wins 10, Total 4 loses 5
    sic_bo_round(table, [5, 5, 6], *bets, now=T0 + 10 * M)  # 16: both lose, house +15

    hold = table_hold(table, DAY)

    assert (hold.rounds, hold.wagers, hold.drop) == (2, 4, Decimal("30.00"))
    assert hold.win == Decimal("10.00")  # -5 + 15
    assert hold.hold == Decimal("0.3333")
    assert hold.theoretical_win == Decimal("3.47")  # 2 * 375/216 = 3.4722...
    deviation = fraction_sqrt(2 * ROUND_VARIANCE)  # 46.1152
    assert hold.standard_deviation == deviation.quantize(Decimal("0.01")) == Decimal("46.12")
    z = (Decimal(10) - Decimal(2 * 375) / Decimal(216)) / deviation
    assert hold.z_score == z.quantize(Decimal("0.01")) == Decimal("0.14")
    assert (hold.threshold, hold.alert) == (Decimal("3"), False)
    assert hold.period == "2026-03-02"


def test_the_operators_threshold_sets_the_alert():
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    for n in range(3):  # a Small lost three times: house +30
        sic_bo_round(table, [5, 5, 6], wager("ann", "small", "10"), now=T0 + 10 * n * M)
    # Theo 30/36; sd 10 * sqrt(3 * 1295/1296) = 17.31; z = (30 - 0.8333) / 17.31 = 1.6846.
    assert table_hold(table, DAY).z_score == Decimal("1.68")
    assert table_hold(table, DAY).alert is False
    StatisticsThresholds.objects.create(holder=table.holder, hold_z_threshold=Decimal("1.5"))
    hold = table_hold(table, DAY)
    assert (hold.threshold, hold.alert) == (Decimal("1.50"), True)


def test_shifts_split_the_day_by_when_wagers_were_placed():
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    sic_bo_round(table, [5, 5, 6], wager("ann", "small", "10"))  # 08:00, shift 1
    sic_bo_round(table, [1, 2, 3], wager("ann", "big", "20"), now=T0 + 9 * H)  # 17:00, shift 2

    shift_1, shift_2, shift_3 = (table_hold(table, DAY, shift) for shift in (1, 2, 3))

    assert (shift_1.drop, shift_1.win, shift_1.period) == (10, 10, "2026-03-02 shift 1")
    assert (shift_2.drop, shift_2.win) == (20, 20)
    assert (shift_3.drop, shift_3.win, shift_3.z_score, shift_3.hold) == (0, 0, None, None)
    assert table_hold(table, DAY).drop == 30
    [whole] = table_hold_by_submission(table, DAY)
    assert whole.period.startswith("2026-03-02 Rules Submission v")
    assert (whole.drop, whole.win) == (30, 30)


def test_the_timeline_is_cumulative_one_point_a_round():
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    bets = (wager("ann", "small", "10"), wager("bob", "total:4", "5"))
    first = sic_bo_round(table, [4, 4, 2], *bets)
    sic_bo_round(table, [5, 5, 6], *bets, now=T0 + 10 * M)

    points = hold_timeline(table, DAY)

    assert [p.win for p in points] == [Decimal("-5.00"), Decimal("10.00")]
    assert [p.theoretical_win for p in points] == [Decimal("1.74"), Decimal("3.47")]
    assert points[0].at == T0 + 5 * M == Round.objects.get(pk=first.pk).settled_at
    assert points[1].standard_deviation == table_hold(table, DAY).standard_deviation


def test_a_void_wager_and_another_day_are_not_counted():
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    sic_bo_round(table, [5, 5, 6], wager("ann", "small", "10"))
    assert table_hold(table, DAY + timedelta(days=1)).wagers == 0
    [hold] = floor_hold(DAY)
    assert (hold.table_number, hold.drop) == (table.number, 10)
    assert floor_hold(DAY - timedelta(days=1)) == []


def test_craps_pass_line_and_its_odds_by_hand():
    table = open_table("craps")
    first = opened(table, now=T0 + M)
    place(first, wager("ann", "pass", "10"), now=T0 + 2 * M)
    close(first, now=T0 + 3 * M)
    result(first, "throw", [2, 2], now=T0 + 4 * M)  # the point is 4
    settle(first, now=T0 + 5 * M)
    second = opened(table, now=T0 + 6 * M)
    [pass_line] = first.wagers.all()
    place(second, wager("ann", "odds", "20", on=pass_line.ref), now=T0 + 7 * M)
    close(second, now=T0 + 8 * M)
    result(second, "throw", [3, 4], now=T0 + 9 * M)  # seven out: both lose
    settle(second, now=T0 + 10 * M)

    hold = table_hold(table, DAY)

    # Pass $10: theo 10 * 7/495 = 0.1414, variance 100 * 244976/245025. Odds on 4, $20:
    # theo 0, variance 400 * 2 (odds:pass:4). Placed in different rounds: summed.
    assert (hold.drop, hold.win, hold.rounds) == (30, 30, 2)
    assert hold.theoretical_win == Decimal("0.14")
    variance = Fraction(100 * 244976, 245025) + 800
    assert hold.standard_deviation == fraction_sqrt(variance).quantize(Decimal("0.01"))


def test_the_gaming_day_starts_at_six_in_the_morning_in_pennsylvania():
    assert gaming_day_bounds(DAY) == (at(2026, 3, 2, 6), at(2026, 3, 3, 6))
    assert gaming_day_bounds(DAY, 3) == (at(2026, 3, 2, 22), at(2026, 3, 3, 6))
    assert gaming_day_of(at(2026, 3, 3, 5, 59)) == DAY
    assert gaming_day_of(at(2026, 3, 3, 6)) == DAY + timedelta(days=1)
    assert [shift_of(at(2026, 3, 2, h)) for h in (6, 13, 14, 21, 22)] == [1, 1, 2, 2, 3]
    assert shift_of(at(2026, 3, 3, 5, 59)) == 3


def test_craps_one_roll_wagers_of_a_throw_have_their_joint_variance():
    table = open_table("craps")
    round_ = opened(table, now=T0 + M)
    place(round_, wager("ann", "any_seven", "10"), wager("bob", "any_craps", "10"), now=T0 + 2 * M)
    close(round_, now=T0 + 3 * M)
    result(round_, "throw", [3, 4], now=T0 + 4 * M)  # 7: Any 7 wins 40, Any Craps loses 10
    settle(round_, now=T0 + 5 * M)

    hold = table_hold(table, DAY)

    # Theo 10 * 1/6 + 10 * 1/9 = 25/9 = 2.78; variance 100 * 2693/324 = 831.17 (worked
    # out in tests/rules/test_hold_statistics.py), sd 28.83; z = (-30 - 2.78) / 28.83.
    assert (hold.drop, hold.win, hold.theoretical_win) == (20, -30, Decimal("2.78"))
    assert hold.standard_deviation == Decimal("28.83")
    assert hold.z_score == Decimal("-1.14")


def test_the_gaming_day_start_is_a_setting(settings):
    settings.CASINO_GAMING_DAY_START = "00:00"
    assert gaming_day_bounds(DAY, 2) == (at(2026, 3, 2, 8), at(2026, 3, 2, 16))
    assert gaming_day_of(at(2026, 3, 3, 5, 59)) == DAY + timedelta(days=1)


def test_multi_roll_wagers_of_one_round_take_the_correlated_bound():
    table = open_table("craps")
    first = opened(table, now=T0 + M)
    place(first, wager("ann", "pass", "10"), wager("bob", "place:6", "12"), now=T0 + 2 * M)
    close(first, now=T0 + 3 * M)
    result(first, "throw", [2, 2], now=T0 + 4 * M)  # the point is 4; the Place 6 works now
    settle(first, now=T0 + 5 * M)
    second = opened(table, now=T0 + 6 * M)
    close(second, now=T0 + 7 * M)
    result(second, "throw", [3, 4], now=T0 + 8 * M)  # seven out: both lose
    settle(second, now=T0 + 9 * M)

    hold = table_hold(table, DAY)

    # Place 6 pays 7 to 6, made 5 times in 11: edge 6/11 - 5/11 * 7/6 = 1/66, variance
    # 5/11 * 49/36 + 6/11 - (1/66)^2 = 845/726. Pass: 7/495 and 244976/245025. Both ride
    # the same throws: sd = 10 * sqrt(244976/245025) + 12 * sqrt(845/726) = 22.95, not
    # sqrt(100 * 244976/245025 + 144 * 845/726) = 16.36.
    assert (hold.drop, hold.win, hold.rounds) == (22, 22, 1)
    assert hold.theoretical_win == Decimal("0.32")  # 10 * 7/495 + 12/66 = 0.1414 + 0.1818
    deviation = 10 * fraction_sqrt(Fraction(244976, 245025)) + 12 * fraction_sqrt(
        Fraction(845, 726)
    )
    assert hold.standard_deviation == deviation.quantize(Decimal("0.01")) == Decimal("22.95")


def test_a_high_roll_dice_round_is_enumerated_whole():
    table = open_table("high_roll_dice")
    round_ = opened(table, now=T0 + M)
    place(round_, wager("ann", "pip:1", "10"), wager("bob", "pip:2", "10"), now=T0 + 2 * M)
    close(round_, now=T0 + 3 * M)
    result(round_, "throw", [1, 1, 1, 2, 3, 4, 5, 6, 6, 2], now=T0 + 4 * M)  # three aces
    settle(round_, now=T0 + 5 * M)

    hold = table_hold(table, DAY)

    # tests/rules/test_hold_statistics.py works out the pair's joint moments per unit.
    mean, variance = high_roll_dice_round_moments(
        [("ann", "pip:1", Decimal(1)), ("bob", "pip:2", Decimal(1))], 10
    )
    assert hold.theoretical_win == (10 * fraction_decimal(mean)).quantize(Decimal("0.01"))
    assert hold.standard_deviation == (10 * fraction_sqrt(variance)).quantize(Decimal("0.01"))
    assert (
        hold.drop == 20 and hold.win == 10 - Resolution.objects.get(wager__ref__endswith=".1").net
    )
