"""The daily compliance report of one table (issue 6, item 7).

For one casino day (local time, settings.TIME_ZONE, from midnight to the next midnight):
every set in play at the table with who put it in and who took it out and why, every
interval a set stayed in play past its limit, every tile and Sic Bo inspection, and the
table's status changes from the audit trail. Shown in the admin and exported as CSV.
"""

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from casino.models import AuditEntry, SetInPlay, SicBoOpeningInspection, Table, TileInspection
from casino.rules.equipment import COMPOSITIONS, REASONS


def _name(user: Any) -> str:
    return user.get_username() if user is not None else ""


def local_iso(moment: datetime | None) -> str:
    """A moment as local ISO 8601 with its UTC offset, e.g. 2026-03-10T08:00:00-04:00."""
    if moment is None:
        return ""
    return timezone.localtime(moment).isoformat(timespec="seconds")


@dataclass(frozen=True)
class SetRow:
    """One set's time in play at the table, as far as it touches the day."""

    identifier: str
    composition: str
    put_in_play_at: datetime
    put_in_play_by: str
    removed_at: datetime | None
    removed_by: str
    reason: str
    note: str
    limit: str
    due_at: datetime


@dataclass(frozen=True)
class OverdueRow:
    """A stretch of the day during which a set was in play past its limit."""

    identifier: str
    composition: str
    limit: str
    due_at: datetime
    start: datetime
    end: datetime
    ongoing: bool  # still in play and overdue when the report was made


@dataclass(frozen=True)
class TileInspectionRow:
    """A dealer's inspection of the tiles, verified by the floorperson (§ 621a.4(a))."""

    inspected_at: datetime
    identifier: str
    dealer_name: str
    floorperson_name: str
    suitable: bool
    result: str
    envelope: str
    recorded_by: str


@dataclass(frozen=True)
class SicBoInspectionRow:
    """A floorperson's opening inspection of a Sic Bo table (§ 625a.5(a))."""

    inspected_at: datetime
    floorperson_name: str
    result: str
    recorded_by: str


@dataclass(frozen=True)
class StatusRow:
    """A change of the table's status, from the audit trail."""

    at: datetime
    before: str
    after: str
    actor_name: str


@dataclass
class TableDayReport:
    """Everything the compliance officer is shown for one table and one day."""

    table: Table
    day: date
    start: datetime
    end: datetime
    made_at: datetime
    sets: list[SetRow] = field(default_factory=list)
    overdue: list[OverdueRow] = field(default_factory=list)
    tile_inspections: list[TileInspectionRow] = field(default_factory=list)
    sic_bo_inspections: list[SicBoInspectionRow] = field(default_factory=list)
    status_changes: list[StatusRow] = field(default_factory=list)


def day_bounds(day: date) -> tuple[datetime, datetime]:
    """The casino day as aware datetimes [local midnight, next local midnight).

    Built from the calendar date, not start + 24 h: a DST day has 23 or 25 hours. Given
    in UTC: Python compares two datetimes of one tzinfo by wall clock, ignoring the fold.
    """
    local = timezone.get_default_timezone()
    start = timezone.make_aware(datetime.combine(day, time.min), local)
    end = timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min), local)
    return start.astimezone(UTC), end.astimezone(UTC)


def _label(composition: str) -> str:
    spec = COMPOSITIONS.get(composition)
    return spec.label if spec is not None else composition


def _set_rows(table: Table, start: datetime, end: datetime) -> list[SetInPlay]:
    # A set removed exactly at midnight is kept: its changeout is one of the day's events.
    return list(
        SetInPlay.objects.filter(table=table, put_in_play_at__lt=end)
        .exclude(removed_at__lt=start)
        .select_related("equipment_set", "put_in_play_by", "removed_by")
        .order_by("put_in_play_at", "id")
    )


def _overdue(row: SetInPlay, start: datetime, end: datetime, now: datetime) -> OverdueRow | None:
    out = row.removed_at if row.removed_at is not None else now
    begin, finish = max(row.due_at, start), min(out, end)
    if begin >= finish:
        return None
    return OverdueRow(
        identifier=row.equipment_set.identifier,
        composition=_label(row.composition),
        limit=row.limit,
        due_at=row.due_at,
        start=begin,
        end=finish,
        ongoing=row.removed_at is None and finish == now,
    )


def _tile_row(inspection: TileInspection) -> TileInspectionRow:
    failed = [
        words
        for ok, words in (
            (inspection.all_pairs_present, "pairs missing"),
            (inspection.same_size_and_shading, "size or shading differs"),
            (inspection.unflawed, "flawed, scratched or marked"),
        )
        if not ok
    ]
    envelope = ""
    if inspection.envelope_sealed_at is not None:
        envelope = (
            f"sealed {local_iso(inspection.envelope_sealed_at)}, table "
            f"{inspection.envelope_table_number}, signed by {inspection.envelope_signed_by_dealer}"
            f" (dealer) and {inspection.envelope_signed_by_floorperson} (floorperson)"
        )
    return TileInspectionRow(
        inspected_at=inspection.inspected_at,
        identifier=inspection.set_in_play.equipment_set.identifier,
        dealer_name=inspection.dealer_name,
        floorperson_name=inspection.floorperson_name,
        suitable=inspection.suitable,
        result="suitable" if not failed else "unsuitable: " + ", ".join(failed),
        envelope=envelope,
        recorded_by=_name(inspection.recorded_by),
    )


def _yes(value: bool | None) -> str:
    return "yes" if value else "no"


def _sic_bo_row(inspection: SicBoOpeningInspection) -> SicBoInspectionRow:
    result = (
        f"values {inspection.values_entered}; winning combinations lit: "
        f"{_yes(inspection.winning_combinations_lit)}"
    )
    if inspection.shaker_operations is not None:
        result += (
            f"; shaker operated {inspection.shaker_operations} times, dice properly tossed: "
            f"{_yes(inspection.dice_properly_tossed)}"
        )
    return SicBoInspectionRow(
        inspected_at=inspection.inspected_at,
        floorperson_name=inspection.floorperson_name,
        result=result,
        recorded_by=_name(inspection.recorded_by),
    )


def _status_rows(table: Table, start: datetime, end: datetime) -> list[StatusRow]:
    """The status changes of the day. The moment is the table's own status_changed_at
    (the service's clock) when the entry has it, else when the entry was written."""
    entries = AuditEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Table),
        object_id=str(table.pk),
        action=AuditEntry.Action.CHANGED,
        after__has_key="status",
    ).order_by("at", "id")
    rows = []
    for entry in entries:
        changed_at = entry.after.get("status_changed_at")
        moment = parse_datetime(changed_at) if isinstance(changed_at, str) else None
        moment = moment or entry.at
        if start <= moment < end:
            rows.append(
                StatusRow(
                    at=moment,
                    before=(entry.before or {}).get("status", ""),
                    after=entry.after["status"],
                    actor_name=entry.actor_name,
                )
            )
    return sorted(rows, key=lambda row: row.at)


def table_day_report(table: Table, day: date, *, now: datetime | None = None) -> TableDayReport:
    """The compliance report of `table` for the local `day`; `now` ends open intervals."""
    now = now or timezone.now()
    start, end = day_bounds(day)
    report = TableDayReport(table=table, day=day, start=start, end=end, made_at=now)
    for row in _set_rows(table, start, end):
        report.sets.append(
            SetRow(
                identifier=row.equipment_set.identifier,
                composition=_label(row.composition),
                put_in_play_at=row.put_in_play_at,
                put_in_play_by=_name(row.put_in_play_by),
                removed_at=row.removed_at,
                removed_by=_name(row.removed_by),
                reason=REASONS[row.removal_reason].label if row.removal_reason else "",
                note=row.removal_note,
                limit=row.limit,
                due_at=row.due_at,
            )
        )
        overdue = _overdue(row, start, end, now)
        if overdue is not None:
            report.overdue.append(overdue)
    report.overdue.sort(key=lambda row: row.start)
    tiles = (
        TileInspection.objects.filter(
            set_in_play__table=table, inspected_at__gte=start, inspected_at__lt=end
        )
        .select_related("set_in_play__equipment_set", "recorded_by")
        .order_by("inspected_at", "id")
    )
    report.tile_inspections = [_tile_row(inspection) for inspection in tiles]
    sic_bo = (
        SicBoOpeningInspection.objects.filter(
            table=table, inspected_at__gte=start, inspected_at__lt=end
        )
        .select_related("recorded_by")
        .order_by("inspected_at", "id")
    )
    report.sic_bo_inspections = [_sic_bo_row(inspection) for inspection in sic_bo]
    report.status_changes = _status_rows(table, start, end)
    return report


CSV_COLUMNS = (
    "record",
    "table",
    "from",
    "to",
    "set",
    "composition",
    "limit",
    "due_at",
    "put_in_play_by",
    "removed_by",
    "reason",
    "note",
    "dealer",
    "floorperson",
    "result",
    "envelope",
    "status_before",
    "status_after",
    "recorded_by",
)


def report_rows(report: TableDayReport) -> list[dict[str, str]]:
    """One dict per item of the report, keyed by CSV_COLUMNS (empty where not relevant)."""
    rows: list[dict[str, str]] = []

    def add(record: str, **values: str) -> None:
        rows.append({"record": record, "table": report.table.number, **values})

    for item in report.sets:
        add(
            "set",
            **{
                "from": local_iso(item.put_in_play_at),
                "to": local_iso(item.removed_at),
                "set": item.identifier,
                "composition": item.composition,
                "limit": item.limit,
                "due_at": local_iso(item.due_at),
                "put_in_play_by": item.put_in_play_by,
                "removed_by": item.removed_by,
                "reason": item.reason,
                "note": item.note,
            },
        )
    for item in report.overdue:
        add(
            "overdue",
            **{
                "from": local_iso(item.start),
                "to": local_iso(item.end),
                "set": item.identifier,
                "composition": item.composition,
                "limit": item.limit,
                "due_at": local_iso(item.due_at),
                "note": "still in play when the report was made" if item.ongoing else "",
            },
        )
    for item in report.tile_inspections:
        add(
            "tile_inspection",
            **{
                "from": local_iso(item.inspected_at),
                "set": item.identifier,
                "composition": _label("tiles_32"),
                "dealer": item.dealer_name,
                "floorperson": item.floorperson_name,
                "result": item.result,
                "envelope": item.envelope,
                "recorded_by": item.recorded_by,
            },
        )
    for item in report.sic_bo_inspections:
        add(
            "sic_bo_inspection",
            **{
                "from": local_iso(item.inspected_at),
                "floorperson": item.floorperson_name,
                "result": item.result,
                "recorded_by": item.recorded_by,
            },
        )
    for item in report.status_changes:
        add(
            "status",
            **{
                "from": local_iso(item.at),
                "status_before": item.before,
                "status_after": item.after,
                "recorded_by": item.actor_name,
            },
        )
    return rows


def report_csv(report: TableDayReport) -> str:
    """The report as CSV: one header row, then one row per item with its `record` kind."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, restval="", lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(report_rows(report))
    return out.getvalue()
