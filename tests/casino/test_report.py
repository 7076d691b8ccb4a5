"""The daily compliance report of a table (issue 6, item 7), checked against values set up
by hand: sets put in play and changed at known local times by known people."""

import csv
import io
from datetime import date, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from casino.models import SetInPlay, Table
from casino.reports import CSV_COLUMNS, day_bounds, report_csv, table_day_report
from casino.services.equipment import set_changeout, tile_inspection_record
from gaming.tables import table_close, table_open
from tests.casino.floor_fixtures import (
    DEALER,
    FLOORPERSON,
    at,
    compliance,
    compliant_table,
    operations,
    set_new,
    staff,
)

pytestmark = pytest.mark.django_db

DICE = "four_green_two_red"
LIMIT = "24 hours (58 Pa. Code § 661a.4(d))"


def shift_lead() -> Any:
    return staff("sam_shift", "operations")


def rows(report_text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(report_text)))


def blank(**values: str) -> dict[str, str]:
    """A CSV row: every column empty but those given."""
    return {column: "" for column in CSV_COLUMNS} | values


@pytest.fixture
def changed_at_eight_pm() -> Table:
    """Dice into play at 08:00 on 10 March 2026 (EDT) by olive_ops; at 20:00 sam_shift takes
    them out on schedule and puts TD-SPARE in."""
    floor = compliant_table("three_dice_football", now=at(2026, 3, 10, 8), number="TD-01")
    spare = set_new(floor.holder, "TD-SPARE", DICE, now=at(2026, 3, 10, 8))
    set_changeout(
        floor.table,
        DICE,
        reason="schedule",
        by=shift_lead(),
        now=at(2026, 3, 10, 20),
        new_set=spare,
        note="end of the day shift",
    )
    return floor.table


def test_a_set_in_at_eight_and_changed_at_eight_pm_on_schedule(changed_at_eight_pm: Table):
    report = table_day_report(changed_at_eight_pm, date(2026, 3, 10), now=at(2026, 3, 11, 1))
    text = report_csv(report)
    assert text.splitlines()[0] == ",".join(CSV_COLUMNS)
    assert rows(text) == [
        blank(
            record="set",
            table="TD-01",
            **{"from": "2026-03-10T08:00:00-04:00", "to": "2026-03-10T20:00:00-04:00"},
            set="TD-01-four_green_two_red-1",
            composition="four green and two red dice",
            limit=LIMIT,
            due_at="2026-03-11T08:00:00-04:00",
            put_in_play_by="olive_ops",
            removed_by="sam_shift",
            reason="scheduled changeout",
            note="end of the day shift",
        ),
        blank(
            record="set",
            table="TD-01",
            **{"from": "2026-03-10T20:00:00-04:00"},
            set="TD-SPARE",
            composition="four green and two red dice",
            limit=LIMIT,
            due_at="2026-03-11T20:00:00-04:00",
            put_in_play_by="sam_shift",
        ),
    ]
    assert report.overdue == [] and report.status_changes == []


def test_the_day_before_and_after_show_only_what_touches_them(changed_at_eight_pm: Table):
    before = table_day_report(changed_at_eight_pm, date(2026, 3, 9), now=at(2026, 3, 11, 1))
    assert before.sets == []
    after = table_day_report(changed_at_eight_pm, date(2026, 3, 11), now=at(2026, 3, 11, 1))
    assert [row.identifier for row in after.sets] == ["TD-SPARE"]


def test_an_overdue_interval_from_due_at_to_removal():
    """Due out at 08:00 on 10 March, taken out at 09:30: overdue 08:00-09:30."""
    floor = compliant_table("three_dice_football", now=at(2026, 3, 9, 8), number="TD-02")
    spare = set_new(floor.holder, "TD-SPARE-2", DICE, now=at(2026, 3, 9, 8))
    set_changeout(
        floor.table,
        DICE,
        reason="schedule",
        by=shift_lead(),
        now=at(2026, 3, 10, 9, 30),
        new_set=spare,
    )
    report = table_day_report(floor.table, date(2026, 3, 10), now=at(2026, 3, 10, 12))
    overdue = [row for row in rows(report_csv(report)) if row["record"] == "overdue"]
    assert overdue == [
        blank(
            record="overdue",
            table="TD-02",
            **{"from": "2026-03-10T08:00:00-04:00", "to": "2026-03-10T09:30:00-04:00"},
            set="TD-02-four_green_two_red-1",
            composition="four green and two red dice",
            limit=LIMIT,
            due_at="2026-03-10T08:00:00-04:00",
        )
    ]
    # The day it went in play it was in date all day.
    assert table_day_report(floor.table, date(2026, 3, 9), now=at(2026, 3, 10, 12)).overdue == []


def test_an_overdue_interval_is_clipped_to_each_day_it_crosses():
    """In at 22:00 on 4 March (EST), due 22:00 on the 5th, out at 02:00 on the 6th."""
    floor = compliant_table("three_dice_football", now=at(2026, 3, 4, 22), number="TD-03")
    set_changeout(floor.table, DICE, reason="damaged", by=shift_lead(), now=at(2026, 3, 6, 2))
    fifth = table_day_report(floor.table, date(2026, 3, 5), now=at(2026, 3, 7))
    sixth = table_day_report(floor.table, date(2026, 3, 6), now=at(2026, 3, 7))
    assert [(r["from"], r["to"]) for r in rows(report_csv(fifth)) if r["record"] == "overdue"] == [
        ("2026-03-05T22:00:00-05:00", "2026-03-06T00:00:00-05:00")
    ]
    assert [(r["from"], r["to"]) for r in rows(report_csv(sixth)) if r["record"] == "overdue"] == [
        ("2026-03-06T00:00:00-05:00", "2026-03-06T02:00:00-05:00")
    ]
    (taken_out,) = [r for r in rows(report_csv(sixth)) if r["record"] == "set"]
    assert (taken_out["removed_by"], taken_out["reason"]) == (
        "sam_shift",
        "marked, chipped, scratched or no longer suitable for play",
    )


def test_a_set_still_in_play_is_overdue_until_the_report_is_made():
    floor = compliant_table("three_dice_football", now=at(2026, 3, 10, 8), number="TD-04")
    report = table_day_report(floor.table, date(2026, 3, 11), now=at(2026, 3, 11, 12, 15))
    (overdue,) = [r for r in rows(report_csv(report)) if r["record"] == "overdue"]
    assert (overdue["from"], overdue["to"], overdue["note"]) == (
        "2026-03-11T08:00:00-04:00",
        "2026-03-11T12:15:00-04:00",
        "still in play when the report was made",
    )
    # Made the next day, the whole rest of the 11th is overdue.
    report = table_day_report(floor.table, date(2026, 3, 11), now=at(2026, 3, 12, 9))
    assert [(o.start, o.end, o.ongoing) for o in report.overdue] == [
        (at(2026, 3, 11, 8), at(2026, 3, 12), False)
    ]


def test_a_changeout_at_midnight_is_in_the_day_it_happened():
    floor = compliant_table("three_dice_football", now=at(2026, 3, 10, 8), number="TD-05")
    set_changeout(floor.table, DICE, reason="schedule", by=shift_lead(), now=at(2026, 3, 11))
    tenth = table_day_report(floor.table, date(2026, 3, 10), now=at(2026, 3, 12))
    eleventh = table_day_report(floor.table, date(2026, 3, 11), now=at(2026, 3, 12))
    assert [r.removed_at for r in tenth.sets] == [at(2026, 3, 11)]
    assert [r.removed_by for r in eleventh.sets] == ["sam_shift"]


def test_tile_inspections_with_the_envelope_record():
    floor = compliant_table("pai_gow", now=at(2026, 3, 10, 8), number="PG-01")
    row = SetInPlay.objects.get(table=floor.table, composition="tiles_32", removed_at=None)
    replacement = set_new(floor.holder, "PG-TILES-2", "tiles_32", now=at(2026, 3, 10, 8))
    tile_inspection_record(
        row,
        dealer_name=DEALER,
        floorperson_name=FLOORPERSON,
        all_pairs_present=True,
        same_size_and_shading=True,
        unflawed=False,
        envelope_signed_by_dealer=DEALER,
        envelope_signed_by_floorperson=FLOORPERSON,
        replacement=replacement,
        by=operations(),
        now=at(2026, 3, 10, 14, 5),
    )
    report = table_day_report(floor.table, date(2026, 3, 10), now=at(2026, 3, 11))
    tiles = [r for r in rows(report_csv(report)) if r["record"] == "tile_inspection"]
    assert [(r["from"], r["set"], r["dealer"], r["floorperson"], r["result"]) for r in tiles] == [
        ("2026-03-10T08:00:00-04:00", "PG-01-tiles_32-1", DEALER, FLOORPERSON, "suitable"),
        (
            "2026-03-10T14:05:00-04:00",
            "PG-01-tiles_32-1",
            DEALER,
            FLOORPERSON,
            "unsuitable: flawed, scratched or marked",
        ),
    ]
    assert tiles[0]["envelope"] == ""
    assert tiles[1]["envelope"] == (
        f"sealed 2026-03-10T14:05:00-04:00, table PG-01, signed by {DEALER} (dealer) and "
        f"{FLOORPERSON} (floorperson)"
    )
    assert tiles[1]["recorded_by"] == "olive_ops"
    failed = [r for r in rows(report_csv(report)) if r["reason"] == "failed inspection"]
    assert [(r["set"], r["to"]) for r in failed] == [
        ("PG-01-tiles_32-1", "2026-03-10T14:05:00-04:00")
    ]


def test_the_sic_bo_opening_inspection():
    floor = compliant_table("sic_bo", now=at(2026, 3, 10, 7, 45), number="SB-01")
    report = table_day_report(floor.table, date(2026, 3, 10), now=at(2026, 3, 10, 9))
    (inspection,) = [r for r in rows(report_csv(report)) if r["record"] == "sic_bo_inspection"]
    assert inspection == blank(
        record="sic_bo_inspection",
        table="SB-01",
        **{"from": "2026-03-10T07:45:00-04:00"},
        floorperson=FLOORPERSON,
        result="values 2,5,5; winning combinations lit: yes",
        recorded_by="olive_ops",
    )


def test_status_changes_come_from_the_audit_trail_at_the_services_moment():
    floor = compliant_table("three_dice_football", now=at(2026, 3, 10, 8), number="TD-06")
    table_open(floor.table, by=operations(), now=at(2026, 3, 10, 8, 5))
    # 23:30 EDT is 03:30 UTC on the 11th: still the casino's 10th.
    table_close(floor.table, by=shift_lead(), now=at(2026, 3, 10, 23, 30))
    report = table_day_report(floor.table, date(2026, 3, 10), now=at(2026, 3, 11, 1))
    status = [r for r in rows(report_csv(report)) if r["record"] == "status"]
    assert status == [
        blank(
            record="status",
            table="TD-06",
            status_before="closed",
            status_after="open",
            recorded_by="olive_ops",
            **{"from": "2026-03-10T08:05:00-04:00"},
        ),
        blank(
            record="status",
            table="TD-06",
            status_before="open",
            status_after="closed",
            recorded_by="sam_shift",
            **{"from": "2026-03-10T23:30:00-04:00"},
        ),
    ]
    assert (
        table_day_report(floor.table, date(2026, 3, 11), now=at(2026, 3, 12)).status_changes == []
    )


def test_the_csv_groups_rows_by_record_in_a_fixed_order():
    floor = compliant_table("sic_bo", now=at(2026, 3, 9, 8), number="SB-02")
    table_open(floor.table, by=operations(), now=at(2026, 3, 9, 8, 30))
    set_changeout(
        floor.table, "three_dice", reason="tampering", by=shift_lead(), now=at(2026, 3, 10, 9)
    )
    report = table_day_report(floor.table, date(2026, 3, 10), now=at(2026, 3, 11))
    assert [r["record"] for r in rows(report_csv(report))] == ["set", "overdue"]
    report = table_day_report(floor.table, date(2026, 3, 9), now=at(2026, 3, 11))
    assert [r["record"] for r in rows(report_csv(report))] == [
        "set",
        "sic_bo_inspection",
        "status",
    ]


@pytest.mark.parametrize(
    ("day", "hours"), [(date(2026, 3, 8), 23), (date(2026, 11, 1), 25), (date(2026, 3, 10), 24)]
)
def test_a_casino_day_runs_from_local_midnight_to_local_midnight(day: date, hours: int):
    start, end = day_bounds(day)
    assert end - start == timedelta(hours=hours)
    assert start == at(day.year, day.month, day.day)


# -- The admin view --------------------------------------------------------------------


def login(client: Client, user: Any) -> Any:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return user


def test_compliance_sees_the_report_page(client: Client, changed_at_eight_pm: Table):
    login(client, compliance())
    url = f"/admin/casino/table/{changed_at_eight_pm.pk}/report/?day=2026-03-10"
    response = client.get(url)
    assert response.status_code == 200
    assert response.templates[0].name == "admin/casino/report.html"
    html = response.content.decode()
    assert "TD-SPARE" in html and "sam_shift" in html and "scheduled changeout" in html
    assert "2026-03-10 08:00" in html and "2026-03-10 20:00" in html
    assert "?day=2026-03-10&amp;format=csv" in html
    assert "?day=2026-03-09" in html and "?day=2026-03-11" in html


def test_the_report_defaults_to_today(client: Client, changed_at_eight_pm: Table):
    login(client, operations())
    response = client.get(f"/admin/casino/table/{changed_at_eight_pm.pk}/report/")
    assert response.status_code == 200
    assert response.context["day"] == timezone.localdate()


def test_the_report_as_csv(client: Client, changed_at_eight_pm: Table):
    login(client, compliance())
    response = client.get(
        f"/admin/casino/table/{changed_at_eight_pm.pk}/report/?day=2026-03-10&format=csv"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="compliance-keystone-test-casino-td-01-2026-03-10.csv"'
    )
    expected = report_csv(table_day_report(changed_at_eight_pm, date(2026, 3, 10)))
    assert response.content.decode() == expected
    assert [r["set"] for r in rows(expected)] == ["TD-01-four_green_two_red-1", "TD-SPARE"]


def test_the_report_needs_the_compliance_report_permission(client: Client):
    table = compliant_table("three_dice_football", now=at(2026, 3, 10, 8)).table
    viewer = login(client, staff("viewer", None))
    viewer.user_permissions.add(Permission.objects.get(codename="view_table"))
    assert client.get("/admin/casino/table/").status_code == 200
    url = f"/admin/casino/table/{table.pk}/report/"
    assert client.get(url).status_code == 403
    assert client.get(url + "?day=2026-03-10&format=csv").status_code == 403
    login(client, staff("nobody", None))
    assert client.get(url).status_code == 403


def test_a_malformed_date_is_a_bad_request(client: Client):
    table = compliant_table("three_dice_football", now=at(2026, 3, 10, 8)).table
    login(client, compliance())
    assert client.get(f"/admin/casino/table/{table.pk}/report/?day=10/03/2026").status_code == 400
