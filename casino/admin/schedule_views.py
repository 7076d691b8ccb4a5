"""The equipment schedule in the admin (issue 35, item 1): the compliance officer's page.

- /admin/casino/setinplay/schedule/: every set in play on the floor, overdue and due soon
  first, each by when it must come out, with its table, kind, rule and section, who put it
  in play and when; the reserve on hand per kind; and on each row "Record the changeout"
  with the new set chosen from the reserve. &format=csv for the list as a file,
  &format=print for a page to print.
- /admin/casino/setinplay/<id>/changeout/: what a row's form sends (POST), and the same
  changeout as a full form (GET, or a refusal shown field by field).

Reading needs casino.view_setinplay (operations, compliance and the regulator); recording
needs casino.record_changeout, checked again by the service (casino.services.equipment.
set_changeout: the one place for the changeout's rules). The regulator sees no form.
"""

import csv
import io
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from casino.admin.common import STATE_COLOURS, STATE_LABELS, form_page, refusal_to_form
from casino.admin.forms import ChangeoutForm
from casino.models import EquipmentSet, SetInPlay
from casino.reports import local_iso
from casino.rules.equipment import REASONS
from casino.services.equipment import set_changeout
from casino.services.schedule import ScheduleRow, equipment_schedule, reserve_on_hand
from gaming.tables import opening_refusals, round_start_refusals

VIEW_PERMISSION = "casino.view_setinplay"
CHANGEOUT_PERMISSION = "casino.record_changeout"

CSV_COLUMNS = [
    "state",
    "due_at",
    "warn_from",
    "table",
    "table_status",
    "set",
    "composition",
    "kind",
    "rule",
    "section",
    "put_in_play_at",
    "put_in_play_by",
    "holder",
    "set_in_play_id",
]


def time_left(due_at: datetime, now: datetime) -> str:
    """How long until the set must come out, or how long it is late: "in 3 h 05 min",
    "overdue by 2 days 4 h"."""
    seconds = int((due_at - now).total_seconds())
    late = seconds < 0
    minutes = abs(seconds) // 60
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        text = f"{days} day{'s' if days != 1 else ''} {hours} h"
    elif hours:
        text = f"{hours} h {minutes:02d} min"
    else:
        text = f"{minutes} min"
    return f"overdue by {text}" if late else f"in {text}"


def schedule_csv(rows: Iterable[ScheduleRow]) -> str:
    """The schedule as CSV: codes and ISO times in the data columns, labels beside them."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                "state": row.state,
                "due_at": local_iso(row.due_at),
                "warn_from": local_iso(row.warn_from),
                "table": row.table.number,
                "table_status": row.table.status,
                "set": row.equipment_set.identifier,
                "composition": row.composition,
                "kind": row.kind,
                "rule": row.rule,
                "section": row.section,
                "put_in_play_at": local_iso(row.set_in_play.put_in_play_at),
                "put_in_play_by": row.put_in_play_by,
                "holder": row.table.holder.name,
                "set_in_play_id": row.set_in_play.pk,
            }
        )
    return out.getvalue()


def _reserve_choices() -> dict[tuple[int, str], list[EquipmentSet]]:
    """The reserve by holder and composition, in one query: each row's "new set" choices."""
    choices: dict[tuple[int, str], list[EquipmentSet]] = {}
    for equipment_set in EquipmentSet.objects.filter(status=EquipmentSet.Status.RESERVE).order_by(
        "identifier"
    ):
        choices.setdefault((equipment_set.holder_id, equipment_set.composition), []).append(
            equipment_set
        )
    return choices


def _preselected(row: ScheduleRow, choices: list[EquipmentSet]) -> EquipmentSet | None:
    """The reserve set offered first: one that, like the set going out, meets § 603a.12(c)
    or not (month-long dice for an automated Sic Bo shaker stay month-long)."""
    going = row.equipment_set.meets_603a_12_c
    alike = [s for s in choices if s.meets_603a_12_c == going]
    return (alike or choices or [None])[0]


def _line(row: ScheduleRow, now: datetime, choices: dict[tuple[int, str], list[EquipmentSet]]):
    offered = choices.get((row.table.holder_id, row.composition), [])
    return {
        "row": row,
        "pk": row.set_in_play.pk,
        "state_label": STATE_LABELS[row.state],
        "colour": STATE_COLOURS[row.state],
        "time_left": time_left(row.due_at, now),
        "offered": offered,
        "preselected": _preselected(row, offered),
        "changeout_url": reverse("admin:casino_setinplay_changeout", args=[row.set_in_play.pk]),
    }


def schedule_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """The schedule's page, or its CSV (format=csv) or printable page (format=print)."""
    if not request.user.has_perm(VIEW_PERMISSION):
        raise PermissionDenied(f"the equipment schedule needs {VIEW_PERMISSION}")
    now = timezone.now()
    rows = equipment_schedule(now)
    asked = request.GET.get("format")
    if asked == "csv":
        response = HttpResponse(schedule_csv(rows), content_type="text/csv; charset=utf-8")
        name = f"equipment-schedule-{timezone.localtime(now):%Y-%m-%d-%H%M}.csv"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
    may_change = request.user.has_perm(CHANGEOUT_PERMISSION) and asked != "print"
    choices = _reserve_choices() if may_change else {}
    opts = SetInPlay._meta
    reserve = reserve_on_hand()
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "title": "Equipment schedule",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "lines": [_line(row, now, choices) for row in rows],
        "counts": {state: sum(r.state == state for r in rows) for state in STATE_LABELS},
        "reserve": reserve,
        "holders": len({r.holder_id for r in reserve}),
        "may_change": may_change,
        "reasons": [(r.key, r.label) for r in REASONS.values()],
        "made_at": local_iso(now),
        "time_zone": timezone.get_default_timezone_name(),
    }
    template = "schedule_print.html" if asked == "print" else "schedule.html"
    return TemplateResponse(request, f"admin/casino/{template}", context)


def _after(row: SetInPlay, new: SetInPlay | None, reason: str) -> str:
    """What the changeout did, and what the table needs now before play (the gates' own
    words: the changeout never opens a table)."""
    table = row.table
    words = f"Changeout at {table.number} recorded ({REASONS[reason].label}): "
    words += f"{row.equipment_set} out"
    if new is not None:
        due = timezone.localtime(new.due_at).strftime("%Y-%m-%d %H:%M")
        words += f", {new.equipment_set} in play, due out {due} ({new.limit})"
    else:
        words += "; no set is in play in its place"
    table.refresh_from_db()
    status = table.get_status_display().lower()
    now = timezone.now()
    if table.status == table.Status.OPEN:
        refusals = round_start_refusals(table, now)
        if not refusals:
            return f"{words}. {table.number} is open."
        return (
            f"{words}. {table.number} is open; before its next round: " + "; ".join(refusals) + "."
        )
    refusals = opening_refusals(table, now)
    if not refusals:
        return f"{words}. {table.number} is {status}; nothing now stops it opening."
    return f"{words}. {table.number} is {status}; before it opens: " + "; ".join(refusals) + "."


def _row_form(row: SetInPlay, data: Any = None, initial: Any = None) -> ChangeoutForm:
    """The "Record a changeout" action's form, for the row's set alone: its kind, and the
    reserve's sets of that kind."""
    form = ChangeoutForm(data, initial=initial, table=row.table)
    field = form.fields["composition"]
    field.choices = [(key, text) for key, text in field.choices if key == row.composition]
    new_set = form.fields["new_set"]
    new_set.queryset = new_set.queryset.filter(composition=row.composition)
    return form


def schedule_changeout_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str
) -> HttpResponse:
    """Record the changeout of one row: its set out, the new set from the reserve in."""
    if not request.user.has_perm(CHANGEOUT_PERMISSION):
        raise PermissionDenied(f"recording a changeout needs {CHANGEOUT_PERMISSION}")
    row = (
        SetInPlay.objects.select_related("table", "equipment_set")
        .filter(pk=object_id if object_id.isdigit() else None)
        .first()
    )
    if row is None:
        raise Http404(f"no set in play with id {object_id!r}")
    table = row.table
    if request.method == "POST":
        data = request.POST.copy()
        data["composition"] = row.composition  # the row's own kind, whatever was sent
        form = _row_form(row, data)
        if row.removed_at is not None:
            form.add_error(
                None,
                f"{row.equipment_set} was already taken out of play at {table.number} "
                f"({timezone.localtime(row.removed_at):%Y-%m-%d %H:%M})",
            )
        elif form.is_valid():
            cleaned = form.cleaned_data
            new = refusal_to_form(
                form,
                lambda: set_changeout(
                    table,
                    row.composition,
                    reason=cleaned["reason"],
                    by=request.user,
                    now=timezone.now(),
                    new_set=cleaned["new_set"],
                    note=cleaned["note"],
                    set_in_play_id=row.pk,
                ),
            )
            if not form.errors:
                messages.success(request, _after(row, new, cleaned["reason"]))
                anchor = f"#schedule-row-{new.pk}" if new is not None else ""
                return redirect(reverse("admin:casino_setinplay_schedule") + anchor)
    else:
        form = _row_form(row, initial={"composition": row.composition, "reason": "schedule"})
    return form_page(
        model_admin,
        request,
        form=form,
        title=f"Record a changeout at {table.number}",
        submit_label="Record the changeout",
        objects=[row],
        intro="Who and when are recorded from your login and the clock.",
    )
