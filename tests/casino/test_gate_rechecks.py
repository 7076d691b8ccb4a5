"""The gates check again what an edit or a second clerk could have changed (issue 6 review)."""

from datetime import timedelta

import pytest
from django.test import Client

from casino.models import EquipmentSet, SetInPlay, Table
from casino.rules.layouts import layout_refusals
from casino.services import FloorRefused
from casino.services.equipment import sets_in_play, tile_inspection_record
from gaming.tables import round_start_refusals
from tests.casino.floor_fixtures import (
    DEALER,
    FLOORPERSON,
    T0,
    compliant_table,
    holder_get,
    layout_approved,
    operations,
    set_new,
)


def staff_member() -> object:
    """An operations user who may use the admin."""
    user = operations()
    user.is_staff = True
    user.save()
    return user


@pytest.mark.django_db
def test_month_dice_fall_back_to_24_hours_when_the_table_loses_its_automated_shaker() -> None:
    # § 625a.2(b): a month only for dice locked in an automated shaker; 24 hours in a
    # manual one. Dice went in at T0 for a month; the table is now manual.
    floor = compliant_table("sic_bo", automated_shaker=True, meets_603a_12_c=True)
    table = floor.table
    assert sets_in_play(table)["three_dice"].due_at - T0 > timedelta(days=27)
    Table.objects.filter(pk=table.pk).update(automated_shaker=False)
    table.refresh_from_db()

    assert not [r for r in round_start_refusals(table, T0 + timedelta(hours=24)) if "due" in r]
    late = round_start_refusals(table, T0 + timedelta(hours=24, seconds=1))
    assert any("24 hours (58 Pa. Code § 625a.2(b))" in reason for reason in late)


@pytest.mark.django_db
def test_an_open_table_keeps_its_game_and_shaker_in_the_admin(client: Client) -> None:
    floor = compliant_table("sic_bo", automated_shaker=True, meets_603a_12_c=True)
    Table.objects.filter(pk=floor.table.pk).update(status="open")
    client.force_login(staff_member())
    page = client.get(f"/admin/casino/table/{floor.table.pk}/change/")
    form = page.context["adminform"].form
    assert "automated_shaker" not in form.fields and "game" not in form.fields


@pytest.mark.parametrize("value", ["", "no", [], 1, "yes"])
def test_a_layout_element_is_shown_only_when_true(value: object) -> None:
    # § 621a.2(b)(3): the Dead Hand area. Only true says the layout shows it.
    elements = {"name_or_logo": True, "betting_areas": True, "dead_hand_area": value}
    refusals = layout_refusals("pai_gow", "standard", elements, None)
    assert any("dead_hand_area is true (shown) or false" in r for r in refusals)
    assert any("Dead Hand" in r and "§ 621a.2(b)(3)" in r for r in refusals)


def test_a_counted_element_is_a_number_of_areas() -> None:
    # § 623a.2(d)(4)(i): no more than 16 Fire Bet areas.
    base = {"name_or_logo": True, "wager_areas": True, "no_call_bets": True}
    assert layout_refusals("craps", "craps", {**base, "fire_bet_areas": 16}, None) == []
    assert layout_refusals("craps", "craps", {**base, "fire_bet_areas": True}, None) == [
        "fire_bet_areas is a number of areas, or false (58 Pa. Code § 623a.2(d)(4)(i))"
    ]
    assert layout_refusals("craps", "craps", {**base, "fire_bet_areas": 17}, None) == [
        "no more than 16 fire bet areas (58 Pa. Code § 623a.2(d)(4)(i)); the layout has 17"
    ]


@pytest.mark.django_db
def test_a_second_inspection_of_tiles_already_replaced_is_refused() -> None:
    # § 621a.4(a)(3): the unsuitable set is sealed and replaced; a second form for the
    # old set must not seal the replacement, which nobody has inspected yet.
    floor = compliant_table("pai_gow", with_inspections=False)
    row = sets_in_play(floor.table)["tiles_32"]
    stale = SetInPlay.objects.get(pk=row.pk)
    replacement = set_new(floor.holder, "PG-R1", "tiles_32", now=T0)
    unsuitable = {
        "dealer_name": DEALER,
        "floorperson_name": FLOORPERSON,
        "all_pairs_present": False,
        "same_size_and_shading": True,
        "unflawed": True,
        "envelope_signed_by_dealer": DEALER,
        "envelope_signed_by_floorperson": FLOORPERSON,
        "by": operations(),
    }
    tile_inspection_record(
        row, **unsuitable, replacement=replacement, now=T0 + timedelta(minutes=5)
    )
    with pytest.raises(FloorRefused, match="no longer in play"):
        tile_inspection_record(stale, **unsuitable, now=T0 + timedelta(minutes=6))
    replacement.refresh_from_db()
    assert replacement.status == EquipmentSet.Status.IN_PLAY
    assert sets_in_play(floor.table)["tiles_32"].equipment_set == replacement


@pytest.mark.django_db
def test_seats_written_around_the_admin_are_refused_at_the_gate() -> None:
    # § 623a.2(c): a Mini-Craps table seats at most nine players.
    floor = compliant_table("craps", "mini_craps")
    Table.objects.filter(pk=floor.table.pk).update(seats=14)
    floor.table.refresh_from_db()
    refusals = round_start_refusals(floor.table, T0)
    assert any("up to 9 players (58 Pa. Code § 623a.2(c))" in r for r in refusals)


@pytest.mark.django_db
def test_another_holders_layout_is_refused_at_the_gate() -> None:
    floor = compliant_table("pai_gow")
    foreign = layout_approved(
        holder_get("Other Casino"), "pai_gow", "standard", now=T0 - timedelta(hours=1), name="X"
    )
    Table.objects.filter(pk=floor.table.pk).update(layout=foreign)
    floor.table.refresh_from_db()
    refusals = round_start_refusals(floor.table, T0)
    assert any("belongs to another certificate holder" in r for r in refusals)


@pytest.mark.django_db
@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31"])
def test_the_report_refuses_a_date_outside_the_floors_time(client: Client, day: str) -> None:
    floor = compliant_table("craps")
    client.force_login(staff_member())
    response = client.get(f"/admin/casino/table/{floor.table.pk}/report/?day={day}")
    assert response.status_code == 400
