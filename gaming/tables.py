"""The gates of a table: may it open, may a round start, may it close; and the
floorperson's Sic Bo inspection before it opens.

Each gate composes the layers below it: the table's compliance (casino/services/tables.py:
rules in force, layout, box locations, equipment in date), its devices (devices/gates.py)
and its rounds (games/services/rounds.py). Each refusal names what is missing and the
section that asks for it, at the moment of the action.
"""

from datetime import datetime
from typing import Any

from django.db import transaction

from casino.models import SicBoOpeningInspection, Table
from casino.services.errors import FloorRefused, by_actor, permission_check
from casino.services.tables import (
    RulesInForce,
    compliance_refusals,
    rules_in_force,
    table_status_record,
    table_status_set,
)
from devices.gates import automated_shaker_in_use, device_refusals
from games.services.rounds import close_refusals


def opening_refusals(table: Table, now: datetime) -> list[str]:
    """Everything that stops the table opening now, its required devices included."""
    reasons = []
    if table.status == Table.Status.OPEN:
        reasons.append(f"{table.number} is already open")
    in_force = rules_in_force(table, now)
    reasons += compliance_refusals(table, now, in_force) + _sic_bo_inspection_refusals(table, now)
    return reasons + device_refusals(table, now, opening=True, in_force=in_force)


def round_start_refusals(
    table: Table, now: datetime, in_force: RulesInForce | None = None
) -> list[str]:
    """Everything that stops a round starting now: the table is open and still compliant
    (`in_force`: the Rules Submission in force at `now`, read already)."""
    reasons = []
    if table.status != Table.Status.OPEN:
        reasons.append(f"{table.number} is {table.get_status_display().lower()}, not open")
    in_force = in_force or rules_in_force(table, now)
    return (
        reasons
        + compliance_refusals(table, now, in_force)
        + device_refusals(table, now, opening=False, in_force=in_force)
    )


def round_start_check(table: Table, now: datetime, in_force: RulesInForce | None = None) -> None:
    """FloorRefused unless a round may start at the table now (issue 7 calls this)."""
    reasons = round_start_refusals(table, now, in_force)
    if reasons:
        raise FloorRefused(f"Starting a round at {table.number}", reasons)


@by_actor
def table_open(table: Table, *, by: Any, now: datetime) -> Table:
    """Open (or reopen after a suspension) when every gate passes."""
    permission_check(by, "casino.operate_table", "open a table")
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        reasons = opening_refusals(table, now)
        if reasons:
            raise FloorRefused(f"Opening {table.number}", reasons)
        was = table.status
        table.status, table.status_changed_at = Table.Status.OPEN, now
        table.save()
        table_status_record(table, was, now=now)
        return table


@by_actor
def table_close(table: Table, *, by: Any, now: datetime) -> Table:
    """Close the table; for Craps and Three Dice Football its next opening needs new dice."""
    return table_status_set(
        table,
        Table.Status.CLOSED,
        (Table.Status.OPEN, Table.Status.SUSPENDED),
        by=by,
        now=now,
        refusals=close_refusals,
    )


# --- the Sic Bo opening inspection (§ 625a.5(a)) ------------------------------


def _sic_bo_inspection_refusals(table: Table, now: datetime) -> list[str]:
    if table.game != "sic_bo":
        return []
    inspections = table.sic_bo_inspections.filter(inspected_at__lte=now)
    if table.closed_at is not None:
        inspections = inspections.filter(inspected_at__gte=table.closed_at)
    latest = inspections.order_by("-inspected_at").first()
    where = "58 Pa. Code § 625a.5(a)"
    if latest is None:
        return [f"the floorperson has not inspected the table since it last closed ({where})"]
    reasons = []
    if not latest.winning_combinations_lit:
        reasons.append(
            "the opening inspection found the winning combinations not properly illuminated "
            f"({where}(1))"
        )
    if automated_shaker_in_use(table) and not (
        (latest.shaker_operations or 0) >= 3 and latest.dice_properly_tossed
    ):
        reasons.append(
            "the opening inspection did not operate the automated shaker three times with the "
            f"dice properly tossed ({where}(2))"
        )
    return reasons


@by_actor
def sic_bo_inspection_record(
    table: Table,
    *,
    floorperson_name: str,
    values_entered: str,
    winning_combinations_lit: bool,
    by: Any,
    now: datetime,
    shaker_operations: int | None = None,
    dice_properly_tossed: bool | None = None,
) -> SicBoOpeningInspection:
    """The floorperson's inspection before a Sic Bo table opens (§ 625a.5(a))."""
    permission_check(by, "casino.record_inspection", "record a Sic Bo inspection")
    reasons = []
    if table.game != "sic_bo":
        reasons.append(f"{table.number} is not a Sic Bo table")
    values = [v.strip() for v in values_entered.split(",")]
    if len(values) != 3 or not all(v in {"1", "2", "3", "4", "5", "6"} for v in values):
        reasons.append(
            "enter three numeric values from 1 to 6, e.g. 2,5,5 (58 Pa. Code § 625a.5(a)(1))"
        )
    if not floorperson_name.strip():
        reasons.append("name the floorperson who inspected (§ 625a.5(a))")
    in_use = automated_shaker_in_use(table)  # "if one is in use", § 625a.5(a)(2)
    if in_use and (shaker_operations is None or dice_properly_tossed is None):
        reasons.append(
            "an automated shaker is inspected by operating it at least three times and "
            "checking the dice are properly tossed (58 Pa. Code § 625a.5(a)(2))"
        )
    if reasons:
        raise FloorRefused("Sic Bo inspection", reasons)
    return SicBoOpeningInspection.objects.create(
        table=table,
        inspected_at=now,
        floorperson_name=floorperson_name.strip(),
        values_entered=",".join(values),
        winning_combinations_lit=winning_combinations_lit,
        shaker_operations=shaker_operations if in_use else None,
        dice_properly_tossed=dice_properly_tossed if in_use else None,
        recorded_by=by,
    )
