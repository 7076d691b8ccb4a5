"""A table's compliance and status: the Rules Submission in force and its options, the
approved layout and box locations, the equipment in date; suspending and closing.

The gates (gaming/tables.py) compose these with the table's devices. Each refusal names
what is missing and the section that asks for it. Nothing here trusts a flag kept by a
periodic task: dates are compared with `now` at the moment of action.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from casino.models import Lifecycle, LocationApproval, RulesSubmission, Table
from casino.models.tables import BOXES_BESIDE_THE_DEALER
from casino.rules.equipment import (
    COMPOSITIONS,
    NEW_SET_ON_REOPENING,
    REQUIRED_SETS,
    TILES,
)
from casino.rules.submissions import engine_refusals, power_odds_offered, table_options
from casino.services.equipment import set_limit, sets_in_play
from casino.services.errors import FloorRefused, by_actor, permission_check
from games.rules.catalog import GAMES_BY_KEY
from games.rules.registry import engine_get
from webhooks.events import TABLE_STATUS_CHANGED, table_status_data
from webhooks.services import event_record

DROP_BOX_SECTIONS = {
    "craps": "58 Pa. Code § 623a.2(e)",
    "three_dice_football": "58 Pa. Code § 661a.2(c)",
    **BOXES_BESIDE_THE_DEALER,
}


_GERUNDS = {Table.Status.CLOSED: "Closing", Table.Status.SUSPENDED: "Suspending"}


def _when(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z")


@dataclass(frozen=True)
class RulesInForce:
    """The Rules Submission in force at a table at a moment (None when there is none),
    read once for all of a gate's checks: each would otherwise read it again."""

    submission: RulesSubmission | None


def rules_in_force(table: Table, now: datetime) -> RulesInForce:
    """The Rules Submission in force at the table at `now` (58 Pa. Code § 601a.2)."""
    return RulesInForce(RulesSubmission.in_force(table.holder_id, table.game, now))


def table_options_in_force(
    table: Table, now: datetime, in_force: RulesInForce | None = None
) -> tuple[RulesSubmission, dict[str, Any]]:
    """The Rules Submission in force and the engine options it gives this table
    (`in_force`: that submission read already).

    FloorRefused when there is none: no round is played without one.
    """
    submission = (in_force or rules_in_force(table, now)).submission
    if submission is None:
        raise FloorRefused("Rules", [_no_submission(table)])
    return submission, _options_at(table, submission)


def _options_at(table: Table, submission: RulesSubmission) -> dict[str, Any]:
    """The submission's options with the table's own laid over them."""
    return table_options(
        table.game,
        table.variant,
        table.operation,
        table.automated_shaker,
        table.min_wager,
        table.max_wager,
        submission.options,
        power_odds=table.power_odds,
    )


def _no_submission(table: Table) -> str:
    return (
        f"no approved Rules Submission is in force for {GAMES_BY_KEY[table.game].name} "
        f"at {table.holder} (58 Pa. Code § 601a.2)"
    )


def _rules_refusals(
    table: Table, in_force: RulesInForce
) -> tuple[list[str], dict[str, object] | None]:
    """What the Rules Submission in force says about this table; and its options."""
    submission = in_force.submission
    if submission is None:
        return [_no_submission(table)], None
    name = f"the Rules Submission in force ({submission})"
    reasons = []
    if table.variant not in submission.variants:
        if table.variant == "6_dice":
            reasons.append(f"{name} does not select the 6-dice variation (58 Pa. Code § 675a.6(a))")
        else:
            reasons.append(f"{name} does not cover the {table.get_variant_display()} variant")
    if table.operation not in submission.table_types:
        reasons.append(f"{name} does not cover {table.operation} tables")
    if table.power_odds and not power_odds_offered(submission.options):
        reasons.append(f"{name} does not offer Power Odds (58 Pa. Code § 623b.5(a))")
    options = submission.options
    for bound, test, words in (
        ("min_wager", lambda rs, t: t >= rs, "below"),
        ("max_wager", lambda rs, t: t <= rs, "above"),
    ):
        if bound in options:
            ours = getattr(table, bound)
            try:
                theirs = type(ours)(str(options[bound]))
            except ArithmeticError:
                continue  # the engine names a malformed amount below
            if not test(theirs, ours):
                reasons.append(
                    f"the table's {bound.replace('_', ' ')} ${ours} is {words} the "
                    f"${theirs} of {name}"
                )
    raw = _options_at(table, submission)
    refused = engine_refusals(table.game, raw)
    reasons += [f"{refusal} (at this table)" for refusal in refused]
    described = None
    if not refused:
        engine = engine_get(table.game)
        described = engine.describe_options(engine.parse_options(raw))
    return reasons, described


def _layout_refusals(table: Table, options: dict[str, object] | None) -> list[str]:
    layout = table.layout
    if layout is None:
        return [f"{table.number} has no layout assigned (58 Pa. Code § 601a.10(a))"]
    if layout.status != Lifecycle.APPROVED:
        return [f"the layout {layout} is {layout.status}, not approved (58 Pa. Code § 601a.10(a))"]
    if (layout.game, layout.variant) != (table.game, table.variant):
        return [f"the layout {layout} is not for {table.game} {table.variant}"]
    if layout.holder_id != table.holder_id:
        return [f"the layout {layout} belongs to another certificate holder"]
    return layout.refusals(options)


def _location_refusals(table: Table, now: datetime) -> list[str]:
    approval = (
        LocationApproval.objects.filter(table=table, approved_at__lte=now)
        .order_by("-approved_at")
        .first()
    )
    if approval is None:
        return [
            "the drop box and tip box locations have not been approved by the Bureau of "
            f"Casino Compliance ({DROP_BOX_SECTIONS[table.game]}, § 601a.10(g))"
        ]
    approval.table = table  # its refusals read the table's game: not read again
    return approval.refusals()


def equipment_refusals(table: Table, now: datetime) -> list[str]:
    """A missing, overdue or reopening-stale set, or tiles not yet inspected."""
    reasons = []
    in_play = sets_in_play(table)
    for composition in REQUIRED_SETS[(table.game, table.variant)]:
        spec = COMPOSITIONS[composition]
        row = in_play.get(composition)
        if row is None:
            reasons.append(f"no set of {spec.label} is in play at {table.number} ({spec.cite})")
            continue
        due_at, _, limit = set_limit(row)
        if now > due_at:
            reasons.append(
                f"{row.equipment_set} has been in play since {_when(row.put_in_play_at)} and was "
                f"due out of play at {_when(due_at)}: {limit}"
            )
        reopening = NEW_SET_ON_REOPENING.get(table.game)
        if reopening and table.closed_at is not None and row.put_in_play_at < table.closed_at:
            reasons.append(
                f"a new set of dice is used when the table is reopened for gaming ({reopening}); "
                f"{row.equipment_set} was in play before the table closed at "
                f"{_when(table.closed_at)}"
            )
        inspections = row.tile_inspections.filter(inspected_at__lte=now)
        if spec.kind == TILES and not any(i.suitable for i in inspections):
            reasons.append(
                f"the tiles {row.equipment_set} have not passed the dealer's inspection verified "
                "by the floorperson (58 Pa. Code § 621a.4(a))"
            )
    return reasons


def _table_refusals(table: Table) -> list[str]:
    """The table's own record, checked again: it may have been written around the admin."""
    try:
        table.clean()
    except ValidationError as error:
        return [f"{field}: {message}" for field, messages in error.message_dict.items()
                for message in messages]  # fmt: skip
    return []


def compliance_refusals(
    table: Table, now: datetime, in_force: RulesInForce | None = None
) -> list[str]:
    """Rules in force, approved layout, approved box locations, equipment in date
    (`in_force`: the Rules Submission in force at `now`, read already)."""
    reasons = _table_refusals(table)
    rules_reasons, options = _rules_refusals(table, in_force or rules_in_force(table, now))
    reasons += rules_reasons
    reasons += _layout_refusals(table, options)
    reasons += _location_refusals(table, now)
    reasons += equipment_refusals(table, now)
    return reasons


@by_actor
def table_suspend(table: Table, *, by: Any, now: datetime) -> Table:
    """Stop play at an open table without closing it (a reading: docs/regulations.md)."""
    return table_status_set(table, Table.Status.SUSPENDED, (Table.Status.OPEN,), by=by, now=now)


def table_suspend_by_rule(table: Table, *, now: datetime) -> Table:
    """Suspend an open table because a regulation says play stops (a device down: the
    caller records why); no person acts, so no permission is asked."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.status == Table.Status.OPEN:
            table.status, table.status_changed_at = Table.Status.SUSPENDED, now
            table.save()
            table_status_record(table, Table.Status.OPEN, now=now)
        return table


def table_status_set(
    table: Table,
    status: str,
    allowed_from: tuple[str, ...],
    *,
    by: Any,
    now: datetime,
    refusals: Callable[[Table], list[str]] = lambda table: [],
) -> Table:
    """Move the table to `status` from one of `allowed_from`, unless `refusals` of the
    locked table name a reason (closing: gaming.tables asks the round flow)."""
    permission_check(by, "casino.operate_table", f"{status} a table")
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.status not in allowed_from:
            raise FloorRefused(
                f"{status.capitalize()} {table.number}",
                [f"{table.number} is {table.get_status_display().lower()}"],
            )
        reasons = refusals(table)
        if reasons:
            raise FloorRefused(f"{_GERUNDS[status]} {table.number}", reasons)
        was = table.status
        table.status, table.status_changed_at = status, now
        if status == Table.Status.CLOSED:
            table.closed_at = now
        table.save()
        table_status_record(table, was, now=now)
        return table


def table_status_record(table: Table, was: str, *, now: datetime) -> None:
    """The table.status_changed webhook, written in the status change's transaction."""
    data = table_status_data(
        table=table.pk,
        table_number=table.number,
        game=table.game,
        status=table.status,
        was=was,
        changed_at=now,
    )
    event_record(TABLE_STATUS_CHANGED, table=table, data=data, now=now)


@by_actor
def location_approval_record(
    table: Table,
    *,
    drop_box_location: str,
    tip_box_location: str,
    approved_by_name: str,
    approved_at: datetime,
    by: Any,
    now: datetime,
    beside_the_dealer: bool = False,
    shaker_location: str = "",
) -> LocationApproval:
    """Record the Bureau of Casino Compliance's approval of the table's box locations
    (§ 601a.10(g)); refused when it lacks what the table's chapter asks for."""
    permission_check(by, "casino.record_locationapproval", "record a box location approval")
    approval = LocationApproval(
        table=table,
        drop_box_location=drop_box_location.strip(),
        tip_box_location=tip_box_location.strip(),
        beside_the_dealer=beside_the_dealer,
        shaker_location=shaker_location.strip(),
        approved_by_name=approved_by_name.strip(),
        approved_at=approved_at,
        recorded_by=by,
    )
    reasons = [
        f"name the {what}"
        for what, value in (
            ("drop box location", approval.drop_box_location),
            ("tip box location", approval.tip_box_location),
            ("Casino Compliance Supervisor who approved it", approval.approved_by_name),
        )
        if not value
    ]
    if approved_at > now:
        reasons.append("an approval is recorded once given, not ahead of time")
    reasons += approval.refusals()
    if reasons:
        raise FloorRefused("Box location approval", reasons)
    approval.save()
    return approval
