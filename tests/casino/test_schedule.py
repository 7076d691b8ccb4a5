"""The dice and tile schedule through the services, with an injected clock (issue 6 item 3).

Times are Pennsylvania wall-clock moments (America/New_York); T0 is Monday 2 March 2026,
08:00 EST. Each message fragment is the one the gate must show: the set, the time it went
in, the time it was due out, the limit and its section.
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.contenttypes.models import ContentType

from casino.models import (
    AuditEntry,
    CertificateHolder,
    EquipmentSet,
    SetInPlay,
    Table,
    TileInspection,
)
from casino.services import FloorRefused
from casino.services.equipment import (
    schedule_check,
    set_changeout,
    set_put_in_play,
    sets_in_play,
    tile_inspection_record,
)
from casino.services.tables import table_suspend
from gaming.tables import round_start_check, round_start_refusals, table_close, table_open
from tests.casino.floor_fixtures import (
    DEALER,
    FLOORPERSON,
    NY,
    T0,
    at,
    compliant_table,
    operations,
    set_new,
    sic_bo_inspected,
    tiles_inspected,
)

pytestmark = pytest.mark.django_db

SECOND = timedelta(seconds=1)
H = timedelta(hours=1)


def row_of(table: Table, composition: str) -> SetInPlay:
    return sets_in_play(table)[composition]


# --- the 24-hour and 12-hour boundaries -----------------------------------------------


def test_623a_7_d_dice_may_start_rounds_up_to_and_including_24_hours_and_not_after():
    floor = compliant_table("craps", open_table=True)
    table = floor.table
    assert round_start_refusals(table, T0 + 23 * H + 59 * 60 * SECOND) == []
    assert round_start_refusals(table, T0 + 24 * H) == []  # "at least once every 24 hours"
    assert round_start_refusals(table, T0 + 24 * H + SECOND) == [
        "CR-01-five_dice-1 (five dice) has been in play since 2026-03-02 08:00 EST and was "
        "due out of play at 2026-03-03 08:00 EST: 24 hours (58 Pa. Code § 623a.7(d))"
    ]


@pytest.mark.parametrize(
    ("game", "variant", "composition", "number", "label", "cite"),
    [
        (
            "three_dice_football",
            None,
            "four_green_two_red",
            "TD-01",
            "four green and two red dice",
            "§ 661a.4(d)",
        ),
        ("high_roll_dice", "10_dice", "ten_dice", "HR-01", "ten 19 mm dice", "§ 675a.3(b)(1)"),
        ("high_roll_dice", "6_dice", "six_dice", "HS-01", "six 19 mm dice", "§ 675a.3(b)(1)"),
        ("sic_bo", None, "three_dice", "SB-01", "three dice", "§ 625a.2(b)"),
    ],
)
def test_dice_of_each_game_are_overdue_one_second_after_24_hours(
    game, variant, composition, number, label, cite
):
    floor = compliant_table(game, variant, open_table=True)
    assert round_start_refusals(floor.table, T0 + 24 * H) == []
    assert round_start_refusals(floor.table, T0 + 24 * H + SECOND) == [
        f"{number}-{composition}-1 ({label}) has been in play since 2026-03-02 08:00 EST and "
        f"was due out of play at 2026-03-03 08:00 EST: 24 hours (58 Pa. Code {cite})"
    ]


def test_621a_3_b_tiles_may_start_rounds_up_to_12_hours_and_not_after():
    floor = compliant_table("pai_gow", open_table=True)
    assert round_start_refusals(floor.table, T0 + 12 * H - SECOND) == []
    assert round_start_refusals(floor.table, T0 + 12 * H) == []
    assert round_start_refusals(floor.table, T0 + 12 * H + SECOND) == [
        "PG-01-tiles_32-1 (32 Pai Gow tiles) has been in play since 2026-03-02 08:00 EST and "
        "was due out of play at 2026-03-02 20:00 EST: 12 hours (58 Pa. Code § 621a.3(b))"
    ]


def test_621a_2_d_1_the_pai_gow_shaker_dice_have_their_own_24_hours():
    floor = compliant_table("pai_gow", open_table=True)
    table = floor.table
    # The tiles are changed on schedule at 19:00 and 07:00; the dice, never changed, run
    # out at 08:00 the next day.
    for n, when in ((2, T0 + 11 * H), (3, T0 + 23 * H)):
        fresh = set_new(floor.holder, f"PG-tiles-{n}", "tiles_32", now=T0)
        set_changeout(
            table, "tiles_32", reason="schedule", new_set=fresh, by=operations(), now=when
        )
        tiles_inspected(row_of(table, "tiles_32"), now=when)
    assert round_start_refusals(table, T0 + 24 * H) == []
    assert round_start_refusals(table, T0 + 24 * H + SECOND) == [
        "PG-01-three_dice-1 (three dice) has been in play since 2026-03-02 08:00 EST and was "
        "due out of play at 2026-03-03 08:00 EST: 24 hours (58 Pa. Code § 621a.2(d)(1))"
    ]


def test_the_row_records_its_due_time_warning_time_and_limit():
    floor = compliant_table("craps")
    row = row_of(floor.table, "five_dice")
    assert row.put_in_play_at == T0
    assert row.due_at == at(2026, 3, 3, 8, 0)
    assert row.warn_from == at(2026, 3, 3, 6, 0)  # 2 hours before
    assert row.limit == "24 hours (58 Pa. Code § 623a.7(d))"
    assert row.schedule_state == "in_date"
    assert row.put_in_play_by == operations()


def test_24_hours_across_the_change_to_daylight_time_are_real_hours():
    # In at 20:30 EST on 7 March; the clocks go forward that night: due at 21:30 EDT.
    put = at(2026, 3, 7, 20, 30)
    floor = compliant_table("craps", now=put, open_table=True)
    assert row_of(floor.table, "five_dice").due_at == datetime(2026, 3, 8, 21, 30, tzinfo=NY)
    assert round_start_refusals(floor.table, put + 24 * H) == []
    assert round_start_refusals(floor.table, put + 24 * H + SECOND) != []


def test_24_hours_are_real_hours_when_the_clock_gives_local_time():
    put = datetime(2026, 10, 31, 20, 30, tzinfo=NY)  # as timezone.localtime() gives it
    floor = compliant_table("craps", now=put, open_table=True)
    # Due 24 real hours later: 19:30 EST on 1 November (not 20:30, 25 hours later).
    assert row_of(floor.table, "five_dice").due_at == datetime(2026, 11, 1, 19, 30, tzinfo=NY)
    assert round_start_refusals(floor.table, put.astimezone(UTC) + 24 * H + SECOND) != []


# --- the automated Sic Bo shaker's month ----------------------------------------------


def test_625a_2_b_dice_locked_in_an_automated_shaker_meeting_603a_12_c_stay_a_month():
    put = at(2026, 1, 31, 10, 0)
    floor = compliant_table(
        "sic_bo", now=put, automated_shaker=True, meets_603a_12_c=True, open_table=True
    )
    row = row_of(floor.table, "three_dice")
    assert row.locked_in_automated_shaker is True
    assert row.due_at == at(2026, 2, 28, 10, 0)  # no 31 February: the month's last day
    assert row.warn_from == at(2026, 2, 26, 10, 0)
    assert row.limit == "1 month (58 Pa. Code § 625a.2(b))"
    assert round_start_refusals(floor.table, put + 24 * H + SECOND) == []
    assert round_start_refusals(floor.table, at(2026, 2, 28, 10, 0)) == []
    assert round_start_refusals(floor.table, at(2026, 2, 28, 10, 0) + SECOND) == [
        "SB-01-three_dice-1 (three dice) has been in play since 2026-01-31 10:00 EST and was "
        "due out of play at 2026-02-28 10:00 EST: 1 month (58 Pa. Code § 625a.2(b))"
    ]


@pytest.mark.parametrize(
    ("automated", "meets"), [(True, False), (False, True)], ids=["not-603a12c", "manual"]
)
def test_625a_2_b_otherwise_sic_bo_dice_stay_24_hours(automated, meets):
    floor = compliant_table(
        "sic_bo", automated_shaker=automated, meets_603a_12_c=meets, open_table=True
    )
    row = row_of(floor.table, "three_dice")
    assert row.due_at == T0 + 24 * H
    assert row.limit == "24 hours (58 Pa. Code § 625a.2(b))"
    assert round_start_refusals(floor.table, T0 + 24 * H + SECOND) != []


# --- the beat task --------------------------------------------------------------------


def test_schedule_check_marks_due_soon_then_overdue_with_one_audit_entry_per_change():
    floor = compliant_table("craps", open_table=True)
    row = row_of(floor.table, "five_dice")
    kind = ContentType.objects.get_for_model(SetInPlay)

    def changes() -> list[AuditEntry]:
        return list(
            AuditEntry.objects.filter(
                content_type=kind, object_id=str(row.pk), action="changed"
            ).order_by("id")
        )

    counts = {"in_date": 1, "due_soon": 0, "overdue": 0, "changed": 0}
    assert schedule_check(T0 + 22 * H - SECOND) == counts
    assert changes() == []

    counts = {"in_date": 0, "due_soon": 1, "overdue": 0, "changed": 1}
    assert schedule_check(T0 + 22 * H) == counts  # 2 hours before the limit
    row.refresh_from_db()
    assert row.schedule_state == "due_soon"
    [entry] = changes()
    assert (entry.actor, entry.actor_name) == (None, "system")
    assert (entry.before, entry.after) == (
        {"schedule_state": "in_date"},
        {"schedule_state": "due_soon"},
    )

    # Still due soon at the limit itself: nothing to save, nothing audited.
    assert schedule_check(T0 + 24 * H) == {**counts, "changed": 0}
    assert len(changes()) == 1

    assert schedule_check(T0 + 24 * H + SECOND) == {
        "in_date": 0,
        "due_soon": 0,
        "overdue": 1,
        "changed": 1,
    }
    row.refresh_from_db()
    assert row.schedule_state == "overdue"
    last = changes()[-1]
    assert (last.before, last.after) == (
        {"schedule_state": "due_soon"},
        {"schedule_state": "overdue"},
    )
    assert last.actor_name == "system"
    assert len(changes()) == 2
    assert schedule_check(T0 + 30 * H)["changed"] == 0  # marked once


def test_schedule_check_ignores_sets_out_of_play():
    floor = compliant_table("craps")
    set_changeout(floor.table, "five_dice", reason="damaged", by=operations(), now=T0 + H)
    assert schedule_check(T0 + 48 * H) == {
        "in_date": 0,
        "due_soon": 0,
        "overdue": 0,
        "changed": 0,
    }


def test_the_gate_does_not_wait_for_the_beat():
    # The flag still says in date (no check ran), yet the gate refuses at 24 h 1 s.
    floor = compliant_table("craps", open_table=True)
    assert row_of(floor.table, "five_dice").schedule_state == "in_date"
    with pytest.raises(FloorRefused) as refused:
        round_start_check(floor.table, T0 + 24 * H + SECOND)
    assert "was due out of play at 2026-03-03 08:00 EST" in str(refused.value)


# --- overdue and missing sets block the table -----------------------------------------


def test_an_overdue_set_blocks_opening_and_nothing_changes():
    floor = compliant_table("craps")
    with pytest.raises(FloorRefused) as refused:
        table_open(floor.table, by=operations(), now=T0 + 24 * H + SECOND)
    assert refused.value.reasons == [
        "CR-01-five_dice-1 (five dice) has been in play since 2026-03-02 08:00 EST and was "
        "due out of play at 2026-03-03 08:00 EST: 24 hours (58 Pa. Code § 623a.7(d))"
    ]
    assert floor.refresh().status == "closed"
    assert floor.table.status_changed_at is None


def test_a_scheduled_changeout_puts_the_table_back_in_date():
    floor = compliant_table("craps", open_table=True)
    fresh = set_new(floor.holder, "CR-dice-2", "five_dice", now=T0)
    set_changeout(
        floor.table,
        "five_dice",
        reason="schedule",
        new_set=fresh,
        by=operations(),
        now=T0 + 24 * H + SECOND,
    )
    assert round_start_refusals(floor.table, T0 + 24 * H + SECOND) == []
    assert round_start_refusals(floor.table, T0 + 48 * H + SECOND) == []  # its own 24 hours
    assert round_start_refusals(floor.table, T0 + 48 * H + 2 * SECOND) != []
    floor.sets["five_dice"].refresh_from_db()
    assert floor.sets["five_dice"].status == "retired"  # dice are not used again


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("craps", "no set of five dice is in play at CR-01 (58 Pa. Code § 623a.7(a))"),
        (
            "three_dice_football",
            "no set of four green and two red dice is in play at TD-01 (58 Pa. Code § 661a.4(a))",
        ),
        (
            "high_roll_dice",
            "no set of ten 19 mm dice is in play at HR-01 (58 Pa. Code § 675a.3(a))",
        ),
        (
            "sic_bo",
            "no set of three dice is in play at SB-01 (58 Pa. Code § 625a.2(a), § 621a.2(d))",
        ),
    ],
)
def test_a_missing_set_blocks_opening(game, message):
    floor = compliant_table(game, with_sets=False)
    with pytest.raises(FloorRefused) as refused:
        table_open(floor.table, by=operations(), now=T0)
    assert refused.value.reasons == [message]


def test_pai_gow_needs_both_the_shaker_dice_and_the_tiles():
    floor = compliant_table("pai_gow", with_sets=False)
    with pytest.raises(FloorRefused) as refused:
        table_open(floor.table, by=operations(), now=T0)
    assert refused.value.reasons == [
        "no set of three dice is in play at PG-01 (58 Pa. Code § 625a.2(a), § 621a.2(d))",
        "no set of 32 Pai Gow tiles is in play at PG-01 (58 Pa. Code § 621a.3(a))",
    ]


# --- reopening ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "composition", "label", "cite"),
    [
        ("craps", "five_dice", "five dice", "58 Pa. Code § 623a.7(d)"),
        (
            "three_dice_football",
            "four_green_two_red",
            "four green and two red dice",
            "58 Pa. Code § 661a.4(d)",
        ),
    ],
)
def test_a_new_set_of_dice_when_the_table_is_reopened_for_gaming(game, composition, label, cite):
    floor = compliant_table(game, open_table=True)
    table = floor.table
    number = table.number
    table_close(table, by=operations(), now=T0 + 2 * H)
    message = (
        f"a new set of dice is used when the table is reopened for gaming ({cite}); "
        f"{number}-{composition}-1 ({label}) was in play before the table closed at "
        "2026-03-02 10:00 EST"
    )
    with pytest.raises(FloorRefused) as refused:
        table_open(table, by=operations(), now=T0 + 3 * H)
    assert refused.value.reasons == [message]
    assert floor.refresh().status == "closed"

    fresh = set_new(floor.holder, f"{number}-new", composition, now=T0)
    set_changeout(
        table,
        composition,
        reason="table_reopened",
        new_set=fresh,
        by=operations(),
        now=T0 + 3 * H,
    )
    table_open(table, by=operations(), now=T0 + 3 * H)
    assert floor.refresh().status == "open"
    round_start_check(table, T0 + 3 * H)

    old = SetInPlay.objects.get(equipment_set=floor.sets[composition])
    assert (old.removed_at, old.removal_reason) == (T0 + 3 * H, "table_reopened")
    assert old.removed_by == operations()
    assert EquipmentSet.objects.get(pk=floor.sets[composition].pk).status == "retired"


def test_mini_craps_also_needs_a_new_set_when_reopened():
    floor = compliant_table("craps", "mini_craps", open_table=True)
    table_close(floor.table, by=operations(), now=T0 + H)
    with pytest.raises(FloorRefused) as refused:
        table_open(floor.table, by=operations(), now=T0 + 2 * H)
    assert "(58 Pa. Code § 623a.7(d))" in refused.value.reasons[0]


def test_a_suspended_craps_table_has_not_closed_and_resumes_with_its_set():
    floor = compliant_table("craps", open_table=True)
    table_suspend(floor.table, by=operations(), now=T0 + H)
    table_open(floor.table, by=operations(), now=T0 + 2 * H)
    assert floor.refresh().status == "open"
    assert row_of(floor.table, "five_dice").equipment_set == floor.sets["five_dice"]


@pytest.mark.parametrize(
    ("game", "composition"), [("high_roll_dice", "ten_dice"), ("sic_bo", "three_dice")]
)
def test_high_roll_dice_and_sic_bo_keep_their_set_when_reopened(game, composition):
    # § 675a.3 and § 625a.2 ask no new set on reopening; the set keeps its 24 hours.
    floor = compliant_table(game, open_table=True)
    table = floor.table
    table_close(table, by=operations(), now=T0 + 2 * H)
    if game == "sic_bo":
        sic_bo_inspected(table, now=T0 + 3 * H)  # § 625a.5(a): before each opening
    table_open(table, by=operations(), now=T0 + 3 * H)
    assert floor.refresh().status == "open"
    round_start_check(table, T0 + 3 * H)
    assert row_of(table, composition).equipment_set == floor.sets[composition]
    assert round_start_refusals(table, T0 + 24 * H + SECOND) != []


def test_pai_gow_keeps_its_dice_and_tiles_when_reopened():
    floor = compliant_table("pai_gow", open_table=True)
    table_close(floor.table, by=operations(), now=T0 + H)
    table_open(floor.table, by=operations(), now=T0 + 2 * H)
    assert floor.refresh().status == "open"


# --- a die lost -----------------------------------------------------------------------


def test_623a_7_d_a_die_lost_leaves_the_table_without_a_set_and_the_set_is_retired():
    floor = compliant_table("craps", open_table=True)
    table = floor.table
    lost = floor.sets["five_dice"]
    replacement = set_changeout(
        table,
        "five_dice",
        reason="die_lost",
        by=operations(),
        now=T0 + H,
        note="a die went into the crowd",
    )
    assert replacement is None
    assert round_start_refusals(table, T0 + H) == [
        "no set of five dice is in play at CR-01 (58 Pa. Code § 623a.7(a))"
    ]
    row = SetInPlay.objects.get(equipment_set=lost)
    assert (row.removed_at, row.removal_reason, row.removal_note) == (
        T0 + H,
        "die_lost",
        "a die went into the crowd",
    )
    lost.refresh_from_db()
    assert lost.status == "retired"

    # The old dice never go back in play, at this table or another.
    other = compliant_table("craps", with_sets=False)
    for where in (table, other.table):
        with pytest.raises(FloorRefused) as refused:
            set_put_in_play(where, lost, by=operations(), now=T0 + 2 * H)
        assert refused.value.reasons == [
            "CR-01-five_dice-1 (five dice) is retired (out of play for good), not in reserve; "
            "dice once out of play are not used again"
        ]
    assert SetInPlay.objects.filter(equipment_set=lost).count() == 1

    fresh = set_new(floor.holder, "CR-dice-2", "five_dice", now=T0)
    set_put_in_play(table, fresh, by=operations(), now=T0 + 2 * H)
    assert round_start_refusals(table, T0 + 2 * H) == []


def test_three_dice_football_a_die_lost_blocks_rounds_too():
    floor = compliant_table("three_dice_football", open_table=True)
    set_changeout(floor.table, "four_green_two_red", reason="die_lost", by=operations(), now=T0 + H)
    assert round_start_refusals(floor.table, T0 + H) == [
        "no set of four green and two red dice is in play at TD-01 (58 Pa. Code § 661a.4(a))"
    ]


def test_changeout_refusals_change_nothing():
    floor = compliant_table("craps")
    ten = set_new(floor.holder, "HR-dice", "ten_dice", now=T0)
    with pytest.raises(FloorRefused) as refused:
        set_changeout(
            floor.table, "five_dice", reason="bored", new_set=ten, by=operations(), now=T0 + H
        )
    reasons = refused.value.reasons
    assert reasons[0].startswith("unknown reason 'bored'; the reasons are schedule, ")
    assert "HR-dice (ten 19 mm dice) is not five dice" in reasons
    assert row_of(floor.table, "five_dice").removed_at is None
    ten.refresh_from_db()
    assert ten.status == "reserve"


def test_only_the_tables_own_kind_of_set_from_its_own_holder_goes_in():
    floor = compliant_table("craps", with_sets=False)
    ten = set_new(floor.holder, "HR-dice", "ten_dice", now=T0)
    other = CertificateHolder.objects.create(name="Other Casino")
    foreign = set_new(other, "X-dice", "five_dice", now=T0)
    with pytest.raises(FloorRefused) as refused:
        set_put_in_play(floor.table, ten, by=operations(), now=T0)
    assert refused.value.reasons[0].startswith(
        "CR-01 is played with five dice, not HR-dice (ten 19 mm dice)"
    )
    with pytest.raises(FloorRefused) as refused:
        set_put_in_play(floor.table, foreign, by=operations(), now=T0)
    assert refused.value.reasons == ["X-dice (five dice) belongs to another certificate holder"]
    assert not SetInPlay.objects.filter(table=floor.table).exists()


def test_a_second_set_of_the_same_kind_is_a_changeout_not_a_second_set():
    floor = compliant_table("craps")
    extra = set_new(floor.holder, "CR-dice-2", "five_dice", now=T0)
    with pytest.raises(FloorRefused) as refused:
        set_put_in_play(floor.table, extra, by=operations(), now=T0 + H)
    assert refused.value.reasons == [
        "CR-01-five_dice-1 (five dice) is already in play at CR-01; record a changeout instead"
    ]


# --- tiles: inspection, the sealed envelope, reuse ------------------------------------


def tiles_new_at_table(*, now=T0 + 6 * H):
    """An open Pai Gow table whose tiles were just changed on schedule for a new set."""
    floor = compliant_table("pai_gow", open_table=True)
    fresh = set_new(floor.holder, "PG-tiles-2", "tiles_32", now=T0)
    set_changeout(
        floor.table, "tiles_32", reason="schedule", new_set=fresh, by=operations(), now=now
    )
    return floor, fresh


def test_621a_4_a_new_tiles_block_rounds_until_inspected_and_verified():
    floor, _ = tiles_new_at_table()
    assert round_start_refusals(floor.table, T0 + 6 * H) == [
        "the tiles PG-tiles-2 (32 Pai Gow tiles) have not passed the dealer's inspection "
        "verified by the floorperson (58 Pa. Code § 621a.4(a))"
    ]
    row = row_of(floor.table, "tiles_32")
    tiles_inspected(row, now=T0 + 6 * H)
    assert round_start_refusals(floor.table, T0 + 6 * H) == []
    inspection = TileInspection.objects.get(set_in_play=row)
    assert (inspection.dealer_name, inspection.floorperson_name) == (DEALER, FLOORPERSON)
    assert inspection.suitable and inspection.envelope_sealed_at is None


def test_621a_4_a_the_floorperson_who_verifies_is_not_the_dealer():
    floor, _ = tiles_new_at_table()
    row = row_of(floor.table, "tiles_32")
    for dealer, floorperson, reason in (
        (DEALER, f" {DEALER} ", "the floorperson who verifies is not the dealer who inspected"),
        (DEALER, "", "the dealer inspects and the floorperson verifies: name both"),
    ):
        with pytest.raises(FloorRefused) as refused:
            tile_inspection_record(
                row,
                dealer_name=dealer,
                floorperson_name=floorperson,
                all_pairs_present=True,
                same_size_and_shading=True,
                unflawed=True,
                by=operations(),
                now=T0 + 6 * H,
            )
        assert refused.value.reasons == [f"{reason} (§ 621a.4(a))"]
    assert not TileInspection.objects.filter(set_in_play=row).exists()
    assert round_start_refusals(floor.table, T0 + 6 * H) != []


@pytest.mark.parametrize(
    "failing",
    [
        {"all_pairs_present": False},  # § 621a.4(a)(1)
        {"same_size_and_shading": False},  # § 621a.4(a)(2)
        {"unflawed": False},  # § 621a.4(a)(3)
    ],
)
def test_621a_4_a_3_an_unsuitable_set_is_sealed_in_a_signed_envelope_and_replaced(failing):
    floor, bad = tiles_new_at_table()
    table = floor.table
    row = row_of(table, "tiles_32")
    checks = {"all_pairs_present": True, "same_size_and_shading": True, "unflawed": True}
    checks.update(failing)
    spare = set_new(floor.holder, "PG-tiles-3", "tiles_32", now=T0)

    # Without both signatures: refused, nothing recorded, nothing moved.
    with pytest.raises(FloorRefused) as refused:
        tile_inspection_record(
            row,
            dealer_name=DEALER,
            floorperson_name=FLOORPERSON,
            by=operations(),
            now=T0 + 6 * H,
            envelope_signed_by_dealer=DEALER,
            replacement=spare,
            **checks,
        )
    assert refused.value.reasons == [
        "an unsuitable set is sealed in an envelope signed by the dealer and the floorperson "
        "or above (58 Pa. Code § 621a.4(a)(3)(ii)): give both signatures"
    ]
    assert not TileInspection.objects.filter(set_in_play=row).exists()
    assert row_of(table, "tiles_32").equipment_set == bad

    sealed_at = T0 + 6 * H + 5 * 60 * SECOND
    inspection = tile_inspection_record(
        row,
        dealer_name=DEALER,
        floorperson_name=FLOORPERSON,
        by=operations(),
        now=sealed_at,
        envelope_signed_by_dealer=DEALER,
        envelope_signed_by_floorperson=FLOORPERSON,
        replacement=spare,
        **checks,
    )
    inspection.refresh_from_db()
    assert inspection.suitable is False
    # § 621a.4(a)(3)(ii): identified by table number, date and time; signed by both.
    assert inspection.envelope_table_number == "PG-01"
    assert inspection.envelope_sealed_at == sealed_at
    assert inspection.envelope_signed_by_dealer == DEALER
    assert inspection.envelope_signed_by_floorperson == FLOORPERSON

    bad.refresh_from_db()
    assert bad.status == "sealed"
    old = SetInPlay.objects.get(pk=row.pk)
    assert (old.removed_at, old.removal_reason) == (sealed_at, "failed_inspection")
    # § 621a.4(a)(3)(i): the floorperson brings another set from the reserve; it is
    # inspected in turn before a round starts.
    assert row_of(table, "tiles_32").equipment_set == spare
    assert round_start_refusals(table, sealed_at) == [
        "the tiles PG-tiles-3 (32 Pai Gow tiles) have not passed the dealer's inspection "
        "verified by the floorperson (58 Pa. Code § 621a.4(a))"
    ]
    tiles_inspected(row_of(table, "tiles_32"), now=sealed_at)
    assert round_start_refusals(table, sealed_at) == []

    with pytest.raises(FloorRefused) as refused:
        set_put_in_play(table, bad, by=operations(), now=sealed_at)
    assert "PG-tiles-2 (32 Pai Gow tiles) is unsuitable, sealed in an envelope, not in reserve" in (
        refused.value.reasons
    )


def test_an_unsuitable_set_without_a_replacement_leaves_the_table_without_tiles():
    floor, _ = tiles_new_at_table()
    tile_inspection_record(
        row_of(floor.table, "tiles_32"),
        dealer_name=DEALER,
        floorperson_name=FLOORPERSON,
        all_pairs_present=True,
        same_size_and_shading=True,
        unflawed=False,
        by=operations(),
        now=T0 + 6 * H,
        envelope_signed_by_dealer=DEALER,
        envelope_signed_by_floorperson=FLOORPERSON,
    )
    assert round_start_refusals(floor.table, T0 + 6 * H) == [
        "no set of 32 Pai Gow tiles is in play at PG-01 (58 Pa. Code § 621a.3(a))"
    ]


def test_an_unsuitable_inspection_with_a_wrong_replacement_changes_nothing():
    floor, bad = tiles_new_at_table()
    row = row_of(floor.table, "tiles_32")
    dice = set_new(floor.holder, "PG-dice-2", "three_dice", now=T0)
    with pytest.raises(FloorRefused):
        tile_inspection_record(
            row,
            dealer_name=DEALER,
            floorperson_name=FLOORPERSON,
            all_pairs_present=False,
            same_size_and_shading=True,
            unflawed=True,
            by=operations(),
            now=T0 + 6 * H,
            envelope_signed_by_dealer=DEALER,
            envelope_signed_by_floorperson=FLOORPERSON,
            replacement=dice,
        )
    assert not TileInspection.objects.filter(set_in_play=row).exists()
    assert row_of(floor.table, "tiles_32").equipment_set == bad
    bad.refresh_from_db()
    assert bad.status == "in_play"


def test_tiles_changed_on_schedule_go_back_to_the_reserve_and_are_reused_after_inspection():
    floor, second = tiles_new_at_table(now=T0 + 6 * H)
    first = floor.sets["tiles_32"]
    first.refresh_from_db()
    assert first.status == "reserve"  # the preamble: removed for inspection, then reused
    table = floor.table
    tiles_inspected(row_of(table, "tiles_32"), now=T0 + 6 * H)

    set_changeout(
        table, "tiles_32", reason="schedule", new_set=first, by=operations(), now=T0 + 10 * H
    )
    second.refresh_from_db()
    assert second.status == "reserve"
    again = row_of(table, "tiles_32")
    assert again.equipment_set == first and again.put_in_play_at == T0 + 10 * H
    # Its earlier inspection does not carry over: each time in play is inspected.
    assert round_start_refusals(table, T0 + 10 * H) == [
        "the tiles PG-01-tiles_32-1 (32 Pai Gow tiles) have not passed the dealer's "
        "inspection verified by the floorperson (58 Pa. Code § 621a.4(a))"
    ]
    tiles_inspected(again, now=T0 + 10 * H)
    assert round_start_refusals(table, T0 + 10 * H) == []
    assert again.due_at == T0 + 22 * H  # a new 12 hours from going back in


def test_tiles_taken_off_as_damaged_are_not_reused():
    floor = compliant_table("pai_gow", open_table=True)
    set_changeout(floor.table, "tiles_32", reason="damaged", by=operations(), now=T0 + H)
    tiles = floor.sets["tiles_32"]
    tiles.refresh_from_db()
    assert tiles.status == "retired"


def test_a_tile_inspection_is_for_tiles_in_play():
    floor = compliant_table("pai_gow")
    dice_row = row_of(floor.table, "three_dice")
    with pytest.raises(FloorRefused) as refused:
        tiles_inspected(dice_row, now=T0)
    assert refused.value.reasons == ["PG-01-three_dice-1 (three dice) is not a set of tiles"]


def test_times_are_shown_in_the_casinos_time_zone():
    # In at 13:00 UTC = 09:00 EDT on 1 July: the message shows Pennsylvania time.
    put = datetime(2026, 7, 1, 13, 0, tzinfo=UTC)
    floor = compliant_table("craps", now=put, open_table=True)
    assert round_start_refusals(floor.table, put + 25 * H) == [
        "CR-01-five_dice-1 (five dice) has been in play since 2026-07-01 09:00 EDT and was "
        "due out of play at 2026-07-02 09:00 EDT: 24 hours (58 Pa. Code § 623a.7(d))"
    ]
