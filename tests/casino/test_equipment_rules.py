"""The dice and tile rules as pure functions (casino/rules/equipment.py): no database.

Every expected value comes from the text: "more than 24 hours" (§ 675a.3(b)(1),
§ 621a.2(d)(1), § 625a.2(b)), "at least once every 24 hours" (§ 623a.7(d), § 661a.4(d)),
"at least every 12 hours" (§ 621a.3(b)), "more than 1 month" (§ 625a.2(b)).
"""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from casino.rules.equipment import (
    COMPOSITIONS,
    DUE_SOON,
    IN_DATE,
    NEW_SET_ON_REOPENING,
    OVERDUE,
    REASONS,
    REQUIRED_SETS,
    add_months,
    schedule_for,
    schedule_state,
)
from games.rules.catalog import GAMES

NY = ZoneInfo("America/New_York")
HOUR = 3600

DICE_GAMES = {
    "craps": "58 Pa. Code § 623a.7(d)",
    "three_dice_football": "58 Pa. Code § 661a.4(d)",
    "high_roll_dice": "58 Pa. Code § 675a.3(b)(1)",
    "pai_gow": "58 Pa. Code § 621a.2(d)(1)",
    "sic_bo": "58 Pa. Code § 625a.2(b)",
}
DICE_COMPOSITION = {
    "craps": "five_dice",
    "three_dice_football": "four_green_two_red",
    "high_roll_dice": "ten_dice",
    "pai_gow": "three_dice",
    "sic_bo": "three_dice",
}


def elapsed_seconds(start: datetime, end: datetime) -> float:
    """Real time between two aware moments (not the wall-clock difference)."""
    return end.timestamp() - start.timestamp()


# --- compositions ---------------------------------------------------------------------


def test_the_six_compositions_and_their_kinds():
    kinds = {key: c.kind for key, c in COMPOSITIONS.items()}
    assert kinds == {
        "five_dice": "dice",
        "four_green_two_red": "dice",
        "ten_dice": "dice",
        "six_dice": "dice",
        "three_dice": "dice",
        "tiles_32": "tiles",
    }


@pytest.mark.parametrize(
    ("game", "variant", "sets"),
    [
        ("craps", "craps", ("five_dice",)),  # § 623a.7(a): a set of five dice
        ("craps", "mini_craps", ("five_dice",)),
        ("three_dice_football", "standard", ("four_green_two_red",)),  # § 661a.4(a)
        ("high_roll_dice", "10_dice", ("ten_dice",)),  # § 675a.3(a), (d)
        ("high_roll_dice", "6_dice", ("six_dice",)),  # § 675a.6(e)
        ("sic_bo", "standard", ("three_dice",)),  # § 625a.2(a)
        # § 621a.2(d): the Pai Gow shaker's three dice, and § 621a.3: the 32 tiles.
        ("pai_gow", "standard", ("three_dice", "tiles_32")),
    ],
)
def test_each_table_needs_its_chapters_sets(game, variant, sets):
    assert sorted(REQUIRED_SETS[(game, variant)]) == sorted(sets)


def test_every_game_and_variant_of_the_catalog_has_its_sets():
    assert set(REQUIRED_SETS) == {(g.key, v) for g in GAMES for v, _ in g.variants}


def test_a_new_set_on_reopening_only_for_craps_and_three_dice_football():
    # § 623a.7(d) and § 661a.4(d) say so; chapters 675a, 625a and 621a do not.
    assert NEW_SET_ON_REOPENING == {
        "craps": "58 Pa. Code § 623a.7(d)",
        "three_dice_football": "58 Pa. Code § 661a.4(d)",
    }


def test_the_reasons_a_set_comes_out_of_play():
    # Issue 6 item 2: schedule, table reopened, a die lost, tampering, marked, chipped or
    # scratched, failed inspection.
    assert set(REASONS) == {
        "schedule",
        "table_reopened",
        "die_lost",
        "tampering",
        "damaged",
        "failed_inspection",
    }


# --- schedule_for ---------------------------------------------------------------------


@pytest.mark.parametrize(("game", "cite"), DICE_GAMES.items())
def test_dice_of_every_game_stay_24_hours_warned_2_hours_before(game, cite):
    schedule = schedule_for(game, DICE_COMPOSITION[game], False, False)
    assert schedule.hours == 24
    assert schedule.cite == cite
    assert schedule.warn_before == timedelta(hours=2)


def test_the_6_dice_variation_gets_the_same_24_hours():
    # docs/regulations.md reading 4: § 675a.6(f) does not carry § 675a.3(b)(1) over.
    schedule = schedule_for("high_roll_dice", "six_dice", False, False)
    assert (schedule.hours, schedule.cite) == (24, "58 Pa. Code § 675a.3(b)(1)")


def test_tiles_stay_12_hours_warned_1_hour_before():
    schedule = schedule_for("pai_gow", "tiles_32", False, False)
    assert schedule.hours == 12
    assert schedule.cite == "58 Pa. Code § 621a.3(b)"
    assert schedule.warn_before == timedelta(hours=1)


def test_625a_2_b_dice_locked_in_an_automated_shaker_meeting_603a_12_c_stay_a_month():
    schedule = schedule_for("sic_bo", "three_dice", True, True)
    assert (schedule.hours, schedule.months) == (None, 1)
    assert schedule.cite == "58 Pa. Code § 625a.2(b)"
    assert schedule.warn_before == timedelta(days=2)


@pytest.mark.parametrize(
    ("locked", "meets"),
    [(True, False), (False, True), (False, False)],
    ids=["automated-not-603a12c", "manual-603a12c", "manual"],
)
def test_625a_2_b_otherwise_sic_bo_dice_stay_24_hours(locked, meets):
    schedule = schedule_for("sic_bo", "three_dice", locked, meets)
    assert (schedule.hours, schedule.cite) == (24, "58 Pa. Code § 625a.2(b)")


def test_only_sic_bo_has_the_month():
    # The Pai Gow shaker also holds three dice, but § 621a.2(d)(1) gives 24 hours only.
    assert schedule_for("pai_gow", "three_dice", True, True).hours == 24
    assert schedule_for("craps", "five_dice", True, True).hours == 24


# --- due_at ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", DICE_GAMES)
def test_dice_are_due_out_exactly_24_hours_after_going_in(game):
    put = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)  # 08:00 EST
    due = schedule_for(game, DICE_COMPOSITION[game], False, False).due_at(put, NY)
    assert due == datetime(2026, 3, 3, 13, 0, tzinfo=UTC)
    assert elapsed_seconds(put, due) == 24 * HOUR


def test_24_hours_are_real_hours_across_the_change_to_daylight_time():
    # 2026-03-07 20:30 EST; the clocks go forward at 02:00 on 8 March, so 24 hours later
    # the wall clock reads 21:30 EDT.
    put = datetime(2026, 3, 7, 20, 30, tzinfo=NY).astimezone(UTC)
    due = schedule_for("craps", "five_dice", False, False).due_at(put, NY)
    assert due == datetime(2026, 3, 8, 21, 30, tzinfo=NY)
    assert elapsed_seconds(put, due) == 24 * HOUR


def test_24_hours_are_real_hours_even_when_the_moment_is_given_in_local_time():
    # 2026-10-31 20:30 EDT; the clocks go back at 02:00 on 1 November: 24 real hours
    # later the wall clock reads 19:30 EST. (Python adds wall-clock hours to a moment in
    # a zoneinfo time zone, which would give 25 real hours and break "more than 24 hours",
    # § 675a.3(b)(1).)
    put = datetime(2026, 10, 31, 20, 30, tzinfo=NY)
    due = schedule_for("craps", "five_dice", False, False).due_at(put, NY)
    assert elapsed_seconds(put, due) == 24 * HOUR
    assert due == datetime(2026, 11, 1, 19, 30, tzinfo=NY)


def test_tiles_are_due_out_exactly_12_hours_after_going_in():
    put = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)
    due = schedule_for("pai_gow", "tiles_32", False, False).due_at(put, NY)
    assert due == datetime(2026, 3, 3, 1, 0, tzinfo=UTC)  # 20:00 EST the same day
    assert elapsed_seconds(put, due) == 12 * HOUR


MONTH = schedule_for("sic_bo", "three_dice", True, True)


@pytest.mark.parametrize(
    ("put", "due"),
    [
        # The 31st of January + 1 month: February has no 31st, so its last day.
        ((2026, 1, 31, 10, 0), (2026, 2, 28, 10, 0)),
        ((2028, 1, 31, 10, 0), (2028, 2, 29, 10, 0)),  # a leap year
        ((2026, 3, 31, 10, 0), (2026, 4, 30, 10, 0)),
        ((2026, 12, 15, 22, 0), (2027, 1, 15, 22, 0)),  # into the next year
        ((2026, 2, 8, 9, 0), (2026, 3, 8, 9, 0)),  # the wall clock kept across the change
    ],
)
def test_625a_2_b_one_calendar_month_in_the_casinos_time_zone(put, due):
    start = datetime(*put, tzinfo=NY)
    assert MONTH.due_at(start.astimezone(UTC), NY) == datetime(*due, tzinfo=NY)


def test_625a_2_b_the_month_across_the_end_of_daylight_time_keeps_the_wall_clock():
    # 10:00 EDT (14:00 UTC) on 15 October -> 10:00 EST (15:00 UTC) on 15 November:
    # 31 days and one hour later in real time.
    put = datetime(2026, 10, 15, 10, 0, tzinfo=NY)
    due = MONTH.due_at(put.astimezone(UTC), NY)
    assert due == datetime(2026, 11, 15, 10, 0, tzinfo=NY)
    assert due.astimezone(UTC) == datetime(2026, 11, 15, 15, 0, tzinfo=UTC)
    assert elapsed_seconds(put, due) == (31 * 24 + 1) * HOUR


def test_the_month_is_counted_on_the_casinos_calendar_not_utcs():
    # 21:00 EST on 30 January is already 31 January in UTC (02:00). Counted in Pennsylvania
    # the month ends on 28 February at 21:00 EST; counted in UTC it would end a day early.
    put = datetime(2026, 1, 30, 21, 0, tzinfo=NY).astimezone(UTC)
    assert MONTH.due_at(put, NY) == datetime(2026, 2, 28, 21, 0, tzinfo=NY)


def test_add_months_clips_to_the_last_day_of_the_month():
    assert add_months(datetime(2026, 5, 31, 12, 0), 1) == datetime(2026, 6, 30, 12, 0)
    assert add_months(datetime(2026, 11, 30, 12, 0), 3) == datetime(2027, 2, 28, 12, 0)
    assert add_months(datetime(2026, 1, 15, 12, 0), 12) == datetime(2027, 1, 15, 12, 0)


# --- schedule_state -------------------------------------------------------------------

SECOND = timedelta(seconds=1)


@pytest.mark.parametrize(
    ("game", "composition", "locked", "meets", "warn"),
    [
        ("craps", "five_dice", False, False, timedelta(hours=2)),
        ("pai_gow", "tiles_32", False, False, timedelta(hours=1)),
        ("sic_bo", "three_dice", True, True, timedelta(days=2)),
    ],
    ids=["dice-24h", "tiles-12h", "automated-month"],
)
def test_state_at_the_boundaries(game, composition, locked, meets, warn):
    schedule = schedule_for(game, composition, locked, meets)
    assert schedule.warn_before == warn
    due = schedule.due_at(datetime(2026, 1, 31, 15, 0, tzinfo=UTC), NY)
    assert schedule_state(due, warn, due - warn - SECOND) == IN_DATE
    assert schedule_state(due, warn, due - warn) == DUE_SOON
    # "More than 24 hours": at the limit itself the set is still allowed, due soon.
    assert schedule_state(due, warn, due) == DUE_SOON
    assert schedule_state(due, warn, due + SECOND) == OVERDUE


def test_state_long_before_and_long_after():
    due = datetime(2026, 3, 3, 13, 0, tzinfo=UTC)
    assert schedule_state(due, timedelta(hours=2), due - timedelta(hours=23)) == IN_DATE
    assert schedule_state(due, timedelta(hours=2), due + timedelta(days=3)) == OVERDUE
