"""The equipment schedule (issue 35, item 1): its order, the reserve on hand, a changeout
recorded from a row, who may do what there, and its CSV and printable view.

The order and the reserve are read at an injected moment (T0); the admin stamps with the
wall clock, so its floors are built through the services a little before it.
"""

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from casino.models import EquipmentSet, SetInPlay, Table
from casino.services.equipment import set_changeout
from casino.services.schedule import equipment_schedule, limit_parts, reserve_on_hand
from casino.services.tables import table_suspend
from gaming.tables import opening_refusals
from tests.casino.floor_fixtures import (
    T0,
    compliant_table,
    holder_get,
    operations,
    set_new,
    staff,
)

pytestmark = pytest.mark.django_db

SCHEDULE = "/admin/casino/setinplay/schedule/"
H = timedelta(hours=1)


def signed_in(client: Client, user: Any) -> Client:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return client


def said(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- the order ----------------------------------------------------------------------------


def test_overdue_then_due_soon_then_in_date_each_by_when_it_must_come_out():
    # At T0 (Monday 2 March 2026, 08:00 EST):
    craps = compliant_table("craps", now=T0 - 25 * H).table  # due T0 - 1 h: overdue
    football = compliant_table("three_dice_football", now=T0 - 23 * H).table  # due T0 + 1 h
    # A month in the automated shaker (§ 625a.2(b)): in 3 February 08:00, due 3 March 08:00,
    # T0 + 24 h, within its two days' warning: due soon, after the football's hour.
    shaker = compliant_table(
        "sic_bo",
        now=T0 - timedelta(days=27),
        automated_shaker=True,
        meets_603a_12_c=True,
    ).table
    high_roll = compliant_table("high_roll_dice", now=T0 - 20 * H).table  # due T0 + 4 h
    pai_gow = compliant_table("pai_gow", now=T0 - H).table  # tiles T0 + 11 h, dice T0 + 23 h

    rows = equipment_schedule(T0)

    assert [(r.table.number, r.composition, r.state) for r in rows] == [
        (craps.number, "five_dice", "overdue"),
        (football.number, "four_green_two_red", "due_soon"),
        (shaker.number, "three_dice", "due_soon"),
        (high_roll.number, "ten_dice", "in_date"),
        (pai_gow.number, "tiles_32", "in_date"),
        (pai_gow.number, "three_dice", "in_date"),
    ]
    assert [r.due_at - T0 for r in rows] == [-H, H, 24 * H, 4 * H, 11 * H, 23 * H]
    assert [(r.rule, r.section) for r in rows] == [
        ("24 hours", "58 Pa. Code § 623a.7(d)"),
        ("24 hours", "58 Pa. Code § 661a.4(d)"),
        ("1 month", "58 Pa. Code § 625a.2(b)"),
        ("24 hours", "58 Pa. Code § 675a.3(b)(1)"),
        ("12 hours", "58 Pa. Code § 621a.3(b)"),
        ("24 hours", "58 Pa. Code § 621a.2(d)(1)"),
    ]
    assert rows[0].kind == "five dice"
    assert rows[0].put_in_play_by == "olive_ops"
    assert rows[0].set_in_play.put_in_play_at == T0 - 25 * H


def test_a_set_taken_out_of_play_leaves_the_schedule():
    floor = compliant_table("craps", now=T0 - 25 * H)
    set_changeout(floor.table, "five_dice", reason="die_lost", by=operations(), now=T0)
    assert equipment_schedule(T0) == []


def test_a_limit_reads_as_its_rule_and_section():
    assert limit_parts("12 hours (58 Pa. Code § 621a.3(b))") == (
        "12 hours",
        "58 Pa. Code § 621a.3(b)",
    )
    assert limit_parts("by hand") == ("by hand", "")


# --- the reserve --------------------------------------------------------------------------


def test_the_reserve_on_hand_per_kind_counts_only_sets_in_reserve():
    holder = holder_get()
    compliant_table("craps", now=T0)
    compliant_table("craps", now=T0)
    compliant_table("pai_gow", now=T0)
    set_new(holder, "R-5D-1", "five_dice", now=T0)
    set_new(holder, "R-5D-2", "five_dice", now=T0)
    set_new(holder, "R-5D-3", "five_dice", now=T0)
    retired = set_new(holder, "OLD-5D", "five_dice", now=T0)
    EquipmentSet.objects.filter(pk=retired.pk).update(status=EquipmentSet.Status.RETIRED)
    set_new(holder, "R-T32-1", "tiles_32", now=T0)
    set_new(holder, "R-10D-1", "ten_dice", now=T0)  # no table plays it: still on hand
    other = holder_get("Allegheny Test Casino")
    set_new(other, "B-5D-1", "five_dice", now=T0)

    counts = {
        c.composition: (c.in_reserve, c.in_play, c.tables)
        for c in reserve_on_hand(holder_id=holder.pk)
    }

    # (in reserve, in play, tables played with it), in the compositions' order.
    assert counts == {
        "five_dice": (3, 2, 2),
        "ten_dice": (1, 0, 0),
        "three_dice": (0, 1, 1),  # the Pai Gow table's: none on hand
        "tiles_32": (1, 1, 1),
    }
    assert list(counts) == ["five_dice", "ten_dice", "three_dice", "tiles_32"]
    every = reserve_on_hand()
    assert [(c.holder, c.composition, c.in_reserve) for c in every][:1] == [
        ("Allegheny Test Casino", "five_dice", 1)
    ]


# --- recording a changeout from a row --------------------------------------------------


def overdue_and_suspended() -> tuple[Table, SetInPlay, EquipmentSet, EquipmentSet]:
    """MC-01 of the demo: dice in play 27 hours, the table suspended 2 hours ago; two
    sets of five dice in the reserve."""
    now = timezone.now()
    floor = compliant_table("craps", "mini_craps", now=now - 27 * H, open_table=True)
    table_suspend(floor.table, by=operations(), now=now - 2 * H)
    first = set_new(floor.holder, "R-5D-0001", "five_dice", now=now)
    second = set_new(floor.holder, "R-5D-0002", "five_dice", now=now)
    row = SetInPlay.objects.get(table=floor.table, removed_at__isnull=True)
    return floor.refresh(), row, first, second


def test_compliance_records_the_overdue_changeout_from_its_row_in_one_step(client: Client):
    table, row, first, _ = overdue_and_suspended()
    signed_in(client, staff("carl_compliance", "compliance"))
    assert [r for r in opening_refusals(table, timezone.now()) if "was due out of play" in r]

    page = client.get(SCHEDULE)
    html = page.content.decode()
    assert page.status_code == 200
    assert f'id="schedule-row-{row.pk}"' in html
    assert f'id="changeout-{row.pk}"' in html
    assert f'data-changeout="{table.number} five_dice"' in html
    assert f'<option value="{first.pk}" selected>R-5D-0001</option>' in html

    response = client.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/",
        {"new_set": first.pk, "reason": "schedule"},
        follow=True,
    )

    out = SetInPlay.objects.get(pk=row.pk)
    assert out.removed_at is not None
    assert out.removed_by.username == "carl_compliance"
    assert out.removal_reason == "schedule"
    assert out.equipment_set.status == EquipmentSet.Status.RETIRED  # dice are used once
    new = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    assert new.equipment_set == first
    assert new.put_in_play_by.username == "carl_compliance"
    assert new.due_at == new.put_in_play_at + 24 * H
    assert EquipmentSet.objects.get(pk=first.pk).status == EquipmentSet.Status.IN_PLAY
    # A changeout never opens a table: MC-01 stays suspended, and nothing stops it opening.
    table.refresh_from_db()
    assert table.status == Table.Status.SUSPENDED
    assert opening_refusals(table, timezone.now()) == []
    assert response.redirect_chain[-1][0] == f"{SCHEDULE}#schedule-row-{new.pk}"
    due = timezone.localtime(new.due_at).strftime("%Y-%m-%d %H:%M")
    assert said(response) == [
        f"Changeout at {table.number} recorded (scheduled changeout): "
        f"{row.equipment_set.identifier} (five dice) out, R-5D-0001 (five dice) in play, "
        f"due out {due} (24 hours (58 Pa. Code § 623a.7(d))). "
        f"{table.number} is suspended; nothing now stops it opening."
    ]
    # The row is the new set's now, in date.
    rows = equipment_schedule(timezone.now())
    assert [(r.equipment_set.identifier, r.state) for r in rows] == [("R-5D-0001", "in_date")]


def test_an_open_table_stays_open_after_a_changeout_from_its_row(client: Client):
    now = timezone.now()
    floor = compliant_table("craps", now=now - 23 * H, open_table=True)  # due soon
    spare = set_new(floor.holder, "R-5D-0001", "five_dice", now=now)
    row = SetInPlay.objects.get(table=floor.table, removed_at__isnull=True)
    signed_in(client, staff("olive_ops", "operations"))

    response = client.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/",
        {"new_set": spare.pk, "reason": "die_lost"},
        follow=True,
    )

    assert SetInPlay.objects.get(pk=row.pk).removal_reason == "die_lost"
    assert floor.refresh().status == Table.Status.OPEN
    assert said(response)[0].endswith(f"{floor.table.number} is open.")


def test_the_same_row_sent_twice_changes_out_once(client: Client):
    table, row, first, second = overdue_and_suspended()
    signed_in(client, staff("carl_compliance", "compliance"))
    url = f"/admin/casino/setinplay/{row.pk}/changeout/"
    client.post(url, {"new_set": first.pk, "reason": "schedule"})

    again = client.post(url, {"new_set": second.pk, "reason": "schedule"})

    assert again.status_code == 200  # the form again, with the refusal
    assert "was already taken out of play" in again.content.decode()
    current = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    assert current.equipment_set == first
    assert EquipmentSet.objects.get(pk=second.pk).status == EquipmentSet.Status.RESERVE


def test_the_service_refuses_a_row_that_is_no_longer_in_play():
    table, row, first, second = overdue_and_suspended()
    now = timezone.now()
    set_changeout(table, "five_dice", reason="schedule", by=operations(), now=now, new_set=first)
    with pytest.raises(Exception, match="the set shown is no longer in play"):
        set_changeout(
            table,
            "five_dice",
            reason="schedule",
            by=operations(),
            now=now,
            new_set=second,
            set_in_play_id=row.pk,
        )
    assert EquipmentSet.objects.get(pk=second.pk).status == EquipmentSet.Status.RESERVE


def test_a_set_of_another_kind_is_refused_on_the_form_and_nothing_changes(client: Client):
    table, row, _, _ = overdue_and_suspended()
    tiles = set_new(table.holder, "R-T32-0001", "tiles_32", now=timezone.now())
    signed_in(client, staff("carl_compliance", "compliance"))

    response = client.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/",
        {"new_set": tiles.pk, "reason": "schedule"},
    )

    assert response.status_code == 200
    assert response.templates[0].name == "admin/casino/action_form.html"
    assert SetInPlay.objects.get(pk=row.pk).removed_at is None


# --- who may --------------------------------------------------------------------------


def test_the_regulator_reads_the_schedule_and_records_nothing(client: Client):
    _, row, first, _ = overdue_and_suspended()
    signed_in(client, staff("rita_regulator", "regulator"))

    page = client.get(SCHEDULE)
    assert page.status_code == 200
    html = page.content.decode()
    assert f'id="schedule-row-{row.pk}"' in html
    assert "data-changeout" not in html and '<form method="post"' not in html

    refused = client.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/", {"new_set": first.pk, "reason": "schedule"}
    )
    assert refused.status_code == 403
    assert SetInPlay.objects.get(pk=row.pk).removed_at is None
    assert client.get(f"{SCHEDULE}?format=csv").status_code == 200


def test_an_integrator_has_no_schedule_page(client: Client):
    _, row, first, _ = overdue_and_suspended()
    client.force_login(staff("ian_integrator", "integrator"))  # no admin: not staff

    assert client.get(SCHEDULE).status_code == 302
    refused = client.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/", {"new_set": first.pk, "reason": "schedule"}
    )
    assert refused.status_code == 302
    assert SetInPlay.objects.get(pk=row.pk).removed_at is None


def test_staff_of_no_role_may_not_read_the_schedule(client: Client):
    signed_in(client, staff("nobody_in_particular", None))
    assert client.get(SCHEDULE).status_code == 403


def test_the_admin_home_links_to_the_schedule(client: Client):
    signed_in(client, staff("carl_compliance", "compliance"))
    assert f'href="{SCHEDULE}"' in client.get("/admin/").content.decode()


# --- the CSV and the printable view ---------------------------------------------------


def test_the_csv_lists_the_rows_in_the_schedule_order(client: Client):
    table, row, _, _ = overdue_and_suspended()
    compliant_table("three_dice_football", now=timezone.now() - H)
    signed_in(client, staff("carl_compliance", "compliance"))

    response = client.get(f"{SCHEDULE}?format=csv")

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="equipment-schedule-')
    lines = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["table"], r["composition"], r["state"]) for r in lines] == [
        (table.number, "five_dice", "overdue"),
        ("TD-02", "four_green_two_red", "in_date"),
    ]
    first = lines[0]
    assert first["kind"] == "five dice"
    assert (first["rule"], first["section"]) == ("24 hours", "58 Pa. Code § 623a.7(d)")
    assert first["table_status"] == "suspended"
    assert first["put_in_play_by"] == "olive_ops"
    assert first["set"] == row.equipment_set.identifier
    assert first["set_in_play_id"] == str(row.pk)
    local = timezone.localtime(row.due_at).isoformat(timespec="seconds")
    assert first["due_at"] == local


def test_the_printable_view_has_the_rows_and_no_form(client: Client):
    _, row, _, _ = overdue_and_suspended()
    signed_in(client, staff("carl_compliance", "compliance"))

    response = client.get(f"{SCHEDULE}?format=print")

    html = response.content.decode()
    assert response.templates[0].name == "admin/casino/schedule_print.html"
    assert f'id="schedule-row-{row.pk}"' in html
    assert "<form" not in html
    assert "The reserve on hand" in html


def test_tiles_changed_on_schedule_go_back_to_the_reserve_and_the_new_wait_for_inspection(
    client: Client,
):
    now = timezone.now()
    floor = compliant_table("pai_gow", now=now - 11.5 * H, open_table=True)  # tiles due soon
    spare = set_new(floor.holder, "R-T32-0001", "tiles_32", now=now)
    row = SetInPlay.objects.get(table=floor.table, composition="tiles_32", removed_at__isnull=True)
    signed_in(client, staff("carl_compliance", "compliance"))

    response = client.post(
        f"/admin/casino/setinplay/{row.pk}/changeout/",
        {"new_set": spare.pk, "reason": "schedule"},
        follow=True,
    )

    # § 621a.4(a): tiles out on schedule are inspected again before their next use.
    assert EquipmentSet.objects.get(pk=row.equipment_set_id).status == "reserve"
    assert floor.refresh().status == Table.Status.OPEN
    (message,) = said(response)
    assert f"{floor.table.number} is open; before its next round: " in message
    assert "the tiles R-T32-0001 (32 Pai Gow tiles) have not passed the dealer's inspection" in (
        message
    )
