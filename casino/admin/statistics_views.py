"""Hold against theory and dice fairness in the admin (issue 23): pages and pictures.

- /admin/casino/table/<id>/hold/?day=YYYY-MM-DD: a table's gaming day (default: the
  current one), its shifts and Rules Submission versions, and the chart of actual against
  theoretical win with its band; &format=svg for the chart alone.
- /admin/casino/equipmentset/<id>/fairness/: a dice set's face counts, chi-square,
  p-value and alert, and its histogram; ?format=svg for the histogram alone.
- /admin/casino/table/statistics/?day=YYYY-MM-DD: the floor: every table with play that
  day (hold, z, alert) and every dice set in play (p-value, alert), each linked to its
  chart; &format=csv for both as one file.

`?day=` is the API's (2000-01-01 to 2999-12-31, refused in its words); a link of before,
`?date=`, is sent on to `?day=` (casino.admin.common.day_asked).

Each needs casino.view_compliance_report: operations, compliance and the regulator have it
(the regulator reads, and nothing here changes anything). The figures are the services':
games.services.hold and games.services.fairness; the pictures are casino.charts'.
"""

import csv
import io
from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.text import slugify

from casino.admin.common import day_asked
from casino.admin.report_views import REPORT_PERMISSION
from casino.charts import face_histogram_svg, p_text, win_chart_svg
from casino.models import Table
from casino.rules.words import composition_label, game_label, money_text
from games.services.fairness import Fairness, NotDice, floor_fairness, set_fairness
from games.services.hold import (
    Hold,
    current_gaming_day,
    floor_hold,
    gaming_day_bounds,
    hold_timeline,
    table_hold,
    table_hold_by_shift,
    table_hold_by_submission,
)

SVG = "image/svg+xml; charset=utf-8"


def _allowed(request: HttpRequest) -> None:
    if not request.user.has_perm(REPORT_PERMISSION):
        raise PermissionDenied(f"the statistics need {REPORT_PERMISSION}")


def hold_chart(table: Table, day: date, threshold: Decimal) -> str:
    """The table's chart for the gaming day, as SVG text (its band at `threshold` sd)."""
    start, end = gaming_day_bounds(day)
    return win_chart_svg(
        hold_timeline(table, day),
        threshold=threshold,
        title=f"{table.number}: actual against theoretical win, gaming day {day.isoformat()}",
        start=start,
        end=end,
        tz=timezone.get_default_timezone(),
    )


def fairness_chart(fairness: Fairness) -> str:
    """The set's histogram (all its dice, then each kind of die the game tells apart)."""
    where = f" at {fairness.table_number}" if fairness.table_number else ""
    return face_histogram_svg(
        [fairness.overall, *fairness.positions],
        title=f"Dice set {fairness.identifier}{where}: faces against fair dice",
        threshold=fairness.threshold,
        alert=fairness.alert,
    )


def _svg(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type=SVG)
    response["Content-Disposition"] = f'inline; filename="{name}.svg"'
    return response


def _context(model_admin: admin.ModelAdmin, request: HttpRequest, title: str) -> dict[str, Any]:
    opts = model_admin.model._meta
    return {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "time_zone": timezone.get_default_timezone_name(),
    }


def table_hold_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str
) -> HttpResponse:
    """A table's hold against theory for a gaming day, or its chart with format=svg."""
    _allowed(request)
    table = model_admin.get_object(request, object_id)
    if table is None:
        raise Http404(f"no table with id {object_id!r}")
    day = day_asked(request, current_gaming_day)
    if isinstance(day, HttpResponse):
        return day
    hold = table_hold(table, day)
    chart = hold_chart(table, day, hold.threshold)
    if request.GET.get("format") == "svg":
        return _svg(chart, f"hold-{slugify(table.number)}-{day}")
    start, end = gaming_day_bounds(day)
    context = {
        **_context(model_admin, request, f"Hold against theory: {table.number}, {day:%A %d %B %Y}"),
        "original": table,
        "day": day,
        "previous_day": date.fromordinal(day.toordinal() - 1),
        "next_day": date.fromordinal(day.toordinal() + 1),
        "start": start,
        "end": end,
        "hold": hold,
        "shifts": table_hold_by_shift(table, day),
        "submissions": table_hold_by_submission(table, day),
        "chart": mark_safe(chart),  # casino.charts escapes every text
        "api_url": f"/api/v1/tables/{table.pk}/hold/?day={day.isoformat()}",
    }
    return TemplateResponse(request, "admin/casino/statistics/hold.html", context)


def set_fairness_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str
) -> HttpResponse:
    """A dice set's fairness, or its histogram with format=svg."""
    _allowed(request)
    equipment_set = model_admin.get_object(request, object_id)
    if equipment_set is None:
        raise Http404(f"no equipment set with id {object_id!r}")
    try:
        fairness = set_fairness(equipment_set)
    except NotDice as error:
        return HttpResponseBadRequest(str(error))
    chart = fairness_chart(fairness)
    if request.GET.get("format") == "svg":
        return _svg(chart, f"fairness-{slugify(fairness.identifier)}")
    context = {
        **_context(model_admin, request, f"Dice fairness: set {fairness.identifier}"),
        "original": equipment_set,
        "fairness": fairness,
        "groups": [_group_row(g) for g in (fairness.overall, *fairness.positions)],
        "chart": mark_safe(chart),  # casino.charts escapes every text
        "api_url": f"/api/v1/equipment-sets/{equipment_set.pk}/fairness/",
    }
    return TemplateResponse(request, "admin/casino/statistics/fairness.html", context)


def _group_row(group: Any) -> dict[str, Any]:
    return {
        "label": group.label,
        "counts": group.counts,
        "expected": group.expected,
        "chi_square": group.chi_square,
        "degrees_of_freedom": group.degrees_of_freedom,
        "p_value": p_text(group.p_value),
    }


def floor_statistics_view(model_admin: admin.ModelAdmin, request: HttpRequest) -> HttpResponse:
    """Every table's hold for a gaming day and every dice set in play's fairness; CSV too."""
    _allowed(request)
    day = day_asked(request, current_gaming_day)
    if isinstance(day, HttpResponse):
        return day
    holds = floor_hold(day)
    sets = floor_fairness()
    if request.GET.get("format") == "csv":
        response = HttpResponse(statistics_csv(holds, sets), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="statistics-{day}.csv"'
        return response
    hold_rows = [
        {
            "hold": hold,
            "url": reverse("admin:casino_table_hold", args=[hold.table_id])
            + f"?day={day.isoformat()}",
        }
        for hold in holds
    ]
    set_rows = [
        {
            "fairness": fairness,
            "p_value": p_text(fairness.overall.p_value),
            "url": reverse("admin:casino_equipmentset_fairness", args=[fairness.set_id]),
        }
        for fairness in sets
    ]
    context = {
        **_context(model_admin, request, f"Hold and dice fairness: the floor, {day:%A %d %B %Y}"),
        "day": day,
        "previous_day": date.fromordinal(day.toordinal() - 1),
        "next_day": date.fromordinal(day.toordinal() + 1),
        "holds": hold_rows,
        "sets": set_rows,
        "hold_alerts": sum(h.alert for h in holds),
        "set_alerts": sum(f.alert for f in sets),
    }
    return TemplateResponse(request, "admin/casino/statistics/floor.html", context)


CSV_COLUMNS = (
    "record",
    "table",
    "game",
    "period",
    "start",
    "end",
    "rounds",
    "wagers",
    "drop",
    "win",
    "hold",
    "theoretical_win",
    "standard_deviation",
    "z_score",
    "set",
    "composition",
    "throws",
    "dice",
    "counts",
    "chi_square",
    "degrees_of_freedom",
    "p_value",
    "threshold",
    "alert",
    # For people: the game and composition by their labels (the keys above are data), and
    # the row in words, its money as money.
    "game_label",
    "composition_label",
    "summary",
)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Decimal):
        return f"{value:f}"
    return str(value)


def statistics_csv(holds: Iterable[Hold], sets: Iterable[Fairness]) -> str:
    """The floor's figures as CSV: a "hold" row a table, a "fairness" row a dice set.

    Its data columns keep keys and plain numbers ("-2200.00"), for a spreadsheet to sum;
    its human columns (game_label, composition_label, summary) are words, money as money."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for hold in holds:
        row = {
            "record": "hold",
            "table": hold.table_number,
            "game": hold.game,
            "period": hold.period,
            "start": timezone.localtime(hold.start).isoformat(timespec="seconds"),
            "end": timezone.localtime(hold.end).isoformat(timespec="seconds"),
            "rounds": hold.rounds,
            "wagers": hold.wagers,
            "drop": hold.drop,
            "win": hold.win,
            "hold": hold.hold,
            "theoretical_win": hold.theoretical_win,
            "standard_deviation": hold.standard_deviation,
            "z_score": hold.z_score,
            "threshold": hold.threshold,
            "alert": hold.alert,
            "game_label": game_label(hold.game),
            "summary": (
                f"{hold.period}: drop {money_text(hold.drop)}, win {money_text(hold.win)}, "
                f"theoretical win {money_text(hold.theoretical_win)}"
            ),
        }
        writer.writerow({k: _cell(v) for k, v in row.items()})
    for fairness in sets:
        overall = fairness.overall
        row = {
            "record": "fairness",
            "table": fairness.table_number,
            "set": fairness.identifier,
            "composition": fairness.composition,
            "throws": fairness.throws,
            "dice": fairness.dice,
            "counts": " ".join(str(c) for c in overall.counts),
            "chi_square": overall.chi_square,
            "degrees_of_freedom": overall.degrees_of_freedom,
            "p_value": overall.p_value,
            "threshold": fairness.threshold,
            "alert": fairness.alert,
            "composition_label": composition_label(fairness.composition),
        }
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()
