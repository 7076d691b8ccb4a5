"""The daily compliance report of a table, in the admin and as CSV (issue 6, item 7).

/admin/casino/table/<id>/report/?day=YYYY-MM-DD (default: today, local time), the API's
`?day=` (2000-01-01 to 2999-12-31; a link of before, `?date=`, is sent on to it); add
&format=csv for the file. Needs casino.view_compliance_report.
"""

from datetime import date
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.text import slugify

from casino.admin.common import day_asked
from casino.models import Table
from casino.reports import local_iso, report_csv, table_day_report

REPORT_PERMISSION = "casino.view_compliance_report"


def table_report_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str
) -> HttpResponse:
    """The report page, or the CSV with format=csv."""
    if not request.user.has_perm(REPORT_PERMISSION):
        raise PermissionDenied
    table = model_admin.get_object(request, object_id)
    if table is None:
        raise Http404(f"no table with id {object_id!r}")
    day = day_asked(request, timezone.localdate)
    if isinstance(day, HttpResponse):
        return day
    report = table_day_report(table, day)
    if request.GET.get("format") == "csv":
        response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
        filename = f"compliance-{slugify(table.holder.name)}-{slugify(table.number)}-{day}.csv"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    opts = Table._meta
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "title": f"Compliance report: {table.number}, {day:%A %d %B %Y}",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "original": table,
        "report": report,
        "day": day,
        "previous_day": date.fromordinal(day.toordinal() - 1),
        "next_day": date.fromordinal(day.toordinal() + 1),
        "start": local_iso(report.start),
        "end": local_iso(report.end),
        "made_at": local_iso(report.made_at),
        "time_zone": timezone.get_default_timezone_name(),
    }
    return TemplateResponse(request, "admin/casino/report.html", context)
