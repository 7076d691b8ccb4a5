"""A device's report, into its table's round flow (source=device):

- automated Sic Bo shaker, {"dice": [d1, d2, d3]}: the round's throw;
- Pai Gow random number generator, {"number": n}: the starting position (§ 621a.6(a)(1));
- Power Odds random number generator, {"selection": {...}}: recorded before the throw
  (§ 623b.5(c));
- Extra Roll wagering device, {"extra_roll": {"player": "p1", "amount": "10.00"}}: an
  Extra Roll bought at its betting position (§ 675a.1(c)(1));
- Extra Roll lock-out control, {"lock_out": true}: "no more bets" (§ 675a.1(c)(2)).

The report names its table and round; a device speaks only for its own table.
Reading a report is the device's (devices/views.py); applying it is the round flow's.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from devices import rules
from devices.models import Device, DeviceEvent
from devices.services import event_record
from games.models import Round
from games.rules.core import MalformedInput
from games.rules.core.money import amount_given
from gaming.rounds import (
    generator_number_post,
    no_more_bets,
    result_enter,
    wagers_place,
)

FIELDS = {
    rules.DICE: "dice",
    rules.NUMBER: "number",
    rules.SELECTION: "selection",
    rules.EXTRA_ROLL: "extra_roll",
    rules.LOCK_OUT: "lock_out",
}


class ReportRefused(Exception):
    def __init__(self, status: int, error: str, detail: str) -> None:
        self.status, self.error, self.detail = status, error, detail
        super().__init__(detail)

    def __reduce__(self) -> tuple[type, tuple[int, str, object]]:
        # Pickled with its three arguments (Exception's default passes the detail alone).
        return (type(self), (self.status, self.error, self.detail))


@dataclass(frozen=True)
class Report:
    round: Round
    field: str
    value: Any


def report_read(device: Device, body: Mapping[str, Any]) -> Report:
    """The report's round and value, or ReportRefused naming what is wrong."""
    info = device.kind_info
    if not info.reports:
        raise ReportRefused(403, "reports_nothing", f"{rules.a(info.label)} reports no results")
    field = FIELDS[info.reports]
    unknown = sorted(set(body) - {"device", "table", "round", field, "_nonce", "_signed_at"})
    if unknown:
        raise ReportRefused(
            400, "malformed_body", f"{rules.a(info.label)} does not report {unknown[0]}"
        )
    table = body.get("table")
    if not isinstance(table, str):
        raise ReportRefused(400, "malformed_body", "table must be the table's number")
    if table != device.table.number:
        raise ReportRefused(
            403, "wrong_table", f"device {device.pk} serves {device.table.number}, not {table}"
        )
    number = body.get("round")
    if isinstance(number, bool) or not isinstance(number, int):
        raise ReportRefused(400, "malformed_body", "round must be the round's number")
    if field not in body:
        raise ReportRefused(400, "malformed_body", f"{rules.a(info.label)} reports {field}")
    value = body[field]
    if field == "lock_out" and value is not True:
        raise ReportRefused(400, "malformed_body", "lock_out must be true")
    if field == "extra_roll" and (
        not isinstance(value, Mapping) or set(value) != {"player", "amount"}
    ):
        raise ReportRefused(
            400, "malformed_body", 'extra_roll must be {"player": ..., "amount": "..."}'
        )
    if field == "extra_roll":
        try:  # the floor's one rule for amounts: a decimal string, never a JSON number
            amount_given(value["amount"], "extra_roll.amount")
        except MalformedInput as error:
            raise ReportRefused(400, "malformed_body", f"{error.field} {error.message}") from None
    round_ = (
        Round.objects.filter(table=device.table, number=number, status__in=Round.IN_PROGRESS)
        .select_related("table")
        .first()
    )
    if round_ is None:
        raise ReportRefused(409, "no_such_round", f"{table} has no round {number} in progress")
    return Report(round_, field, value)


def report_apply(device: Device, report: Report, *, now: datetime) -> Round:
    """Feed the report into the round flow and record it as a device event; FloorRefused
    with the floor's reasons, recording nothing."""
    with transaction.atomic():
        round_ = _apply(device, report, now)
        event_record(
            device, DeviceEvent.Kind.REPORTED, now=now, round_=round_,
            detail=f"{report.field}: {json.dumps(report.value)}",
        )  # fmt: skip
        return round_


def _apply(device: Device, report: Report, now: datetime) -> Round:
    round_, value = report.round, report.value
    if report.field == "dice":
        return result_enter(round_, "throw", value, by=device, now=now)
    if report.field == "selection":
        return result_enter(round_, "power_odds", value, by=device, now=now)
    if report.field == "number":
        return generator_number_post(round_, value, by=device, now=now)
    if report.field == "lock_out":
        return no_more_bets(round_, by=device, now=now)
    wager = {**value, "kind": "extra_roll", "position": device.position}
    wagers_place(round_, [wager], by=device, now=now)
    return Round.objects.get(pk=round_.pk)
