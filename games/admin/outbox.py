"""Settlement requests: which rounds wait for a worker, and a nudge for the stuck ones.

"Send again" only publishes the task again (the request row is the truth, and settling
is idempotent); the sweep does the same on its own every few seconds.
"""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from games.admin.common import ReadOnlyAdmin
from games.models import SettlementRequest
from games.services.outbox import requests_resend
from games.services.rounds import RUN


class SettledFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [("pending", "pending"), ("settled", "settled")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "pending":
            return queryset.filter(settled_at__isnull=True)
        if self.value() == "settled":
            return queryset.filter(settled_at__isnull=False)
        return queryset


@admin.register(SettlementRequest)
class SettlementRequestAdmin(ReadOnlyAdmin):
    list_display = ("round", "created_at", "sent_at", "sends", "settled_at", "settled_by")
    list_filter = (SettledFilter,)
    search_fields = ("round__table__number",)
    list_select_related = ("round__table",)
    fields = ("round", "created_at", "sent_at", "sends", "settled_at", "settled_by")
    actions = ["send_again"]

    def has_run_round_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RUN)

    @admin.action(description="Send again to the workers", permissions=["run_round"])
    def send_again(self, request: HttpRequest, queryset: QuerySet) -> None:
        pending = list(queryset.filter(settled_at__isnull=True).values_list("pk", flat=True))
        settled = queryset.count() - len(pending)
        if settled:
            messages.warning(request, f"{settled} already settled: not sent.")
        if not pending:
            return
        sent = requests_resend(pending, timezone.now())
        messages.success(request, f"Sent {sent} of {len(pending)} pending request(s).")
        if sent < len(pending):
            messages.error(request, "The broker refused the rest; the sweep will send them.")
