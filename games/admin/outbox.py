"""Settlement requests: which rounds wait for a worker, which are alerts, and a nudge.

"Send again" publishes the task again (the request row is the truth, and settling is
idempotent); the sweep does the same on its own every few seconds, except for a request
that failed or was sent CASINO_SETTLEMENT_MAX_SENDS times: an alert (issue 18). "Send
again" clears that alert, so the worker and the sweep take the request again.
"""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.admin.common import ReadOnlyAdmin
from games.models import SettlementRequest
from games.services import alerts
from games.services.outbox import requests_send_again
from games.services.rounds import RUN

# The status words in colour, and always in words (colour is never the only sign).
STATUS_COLOURS = {
    alerts.SETTLED: "#1a7f37",
    alerts.PENDING: "#555555",
    alerts.FAILED: "#c62828",
    alerts.TOO_MANY_SENDS: "#c62828",
    alerts.NOT_SENT_AGAIN: "#c62828",
}


class StatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return list(alerts.STATUS_LABELS.items())

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() in alerts.STATUS_LABELS:
            return queryset.filter(alerts.status_q(self.value(), timezone.now()))
        return queryset


@admin.register(SettlementRequest)
class SettlementRequestAdmin(ReadOnlyAdmin):
    list_display = (
        "round",
        "status",
        "created_at",
        "sent_at",
        "sends",
        "failures",
        "failure_kind",
        "settled_at",
        "settled_by",
    )
    list_filter = (StatusFilter, "failure_kind")
    search_fields = ("round__table__number",)
    list_select_related = ("round__table",)
    fieldsets = [
        (None, {"fields": ("round", "status", "guidance")}),
        ("Sends", {"fields": ("created_at", "sent_at", "sends", "settled_at", "settled_by")}),
        (
            "Failure",
            {"fields": ("failures", "failure_kind", "error", "first_failed_at", "last_failed_at")},
        ),
    ]
    readonly_fields = ("status", "guidance")
    actions = ["send_again"]

    @admin.display(description="status")
    def status(self, request: SettlementRequest) -> SafeString:
        status = alerts.request_status(request, timezone.now())
        return format_html(
            '<strong style="color: {}">{}</strong>',
            STATUS_COLOURS[status],
            alerts.STATUS_LABELS[status],
        )

    @admin.display(description="what to do")
    def guidance(self, request: SettlementRequest) -> str:
        alert = alerts.request_alert(request, timezone.now())
        return alert.guidance if alert else "-"

    def has_run_round_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RUN)

    @admin.action(
        description="Send again to the workers (clears a failure or too many sends)",
        permissions=["run_round"],
    )
    def send_again(self, request: HttpRequest, queryset: QuerySet) -> None:
        now = timezone.now()
        pending = list(queryset.filter(settled_at__isnull=True))
        settled = queryset.count() - len(pending)
        if settled:
            messages.warning(request, f"{settled} already settled: not sent.")
        if not pending:
            return
        for row in pending:
            status = alerts.request_status(row, now)
            if status in (alerts.FAILED, alerts.TOO_MANY_SENDS, alerts.NOT_SENT_AGAIN):
                what = row.error if status == alerts.FAILED else f"sent {row.sends} times"
                self.log_change(request, row, f"Sent again, clearing {status}: {what}")
        sent = requests_send_again([row.pk for row in pending], now)
        messages.success(request, f"Sent {sent} of {len(pending)} pending request(s).")
        if sent < len(pending):
            messages.error(request, "The broker refused the rest; the sweep will send them.")
