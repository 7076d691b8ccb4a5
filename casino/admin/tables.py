"""Tables: their equipment in colour, the rules in force, what stops them opening, and the
actions of the floor (open, suspend, close, put a set in play, record a changeout).

Every action calls casino.services with the signed-in user and timezone.now(); the
services check the permission and the rules, and a refusal is shown reason by reason.
"""

from collections.abc import Callable
from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from casino.admin.audit import AuditHistory, AuditHistoryInline
from casino.admin.common import (
    EquipmentFilter,
    FitsTheWindow,
    SetState,
    action_form,
    coloured,
    device_wait_html,
    form_page,
    one_selected,
    refusal_to_form,
    service_call,
    states_html,
    states_lines,
    table_set_states,
)
from casino.admin.equipment import InspectionAdmin
from casino.admin.forms import ChangeoutForm, LocationApprovalForm, PutInPlayForm
from casino.admin.report_views import table_report_view
from casino.admin.statistics_views import floor_statistics_view, table_hold_view
from casino.models import LocationApproval, RulesSubmission, SetInPlay, Table
from casino.rules.equipment import IN_DATE, REASONS
from casino.services.equipment import set_changeout, set_put_in_play, sets_in_play
from casino.services.tables import location_approval_record, table_suspend
from games.models import Round
from gaming.tables import opening_refusals, table_close, table_open
from gaming.waits import round_waiting


class LocationApprovalInline(admin.TabularInline):
    """The Bureau's approvals of where the boxes sit (§ 601a.10(g)); recorded on their own."""

    model = LocationApproval
    extra = 0
    fields = (
        "drop_box_location",
        "tip_box_location",
        "beside_the_dealer",
        "approved_by_name",
        "approved_at",
    )
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


TABLE_FIELDS = (
    "holder",
    "number",
    "game",
    "variant",
    "seats",
    "min_wager",
    "max_wager",
    "operation",
    "automated_shaker",
    "power_odds",
    "layout",
)


@admin.register(Table)
class TableAdmin(FitsTheWindow, AuditHistory, admin.ModelAdmin):
    list_display = (
        "number",
        "holder",
        "game",
        "variant_name",
        "status",
        "sets_due_out",
        "rules_in_force",
        "layout_name",
        "report_link",
    )
    list_filter = ("game", "status", EquipmentFilter, "holder")
    search_fields = ("number", "holder__name", "layout__name")
    list_select_related = ("holder", "layout")
    readonly_fields = (
        "variant_name",
        "status",
        "status_changed_at",
        "closed_at",
        "equipment",
        "rules_in_force",
        "opening_refusals",
        "report_link",
        "round_device_wait",
    )
    inlines = [LocationApprovalInline, AuditHistoryInline]
    actions = [
        "open_tables",
        "suspend_tables",
        "close_tables",
        "record_changeout",
        "put_set_in_play",
    ]

    def get_readonly_fields(self, request: HttpRequest, obj: Table | None = None) -> Any:
        # What decides the table's rules and equipment limits is fixed while it plays:
        # switching a Sic Bo table to a manual shaker must not keep month-long dice going.
        if obj is not None and obj.status != Table.Status.CLOSED:
            return (
                *self.readonly_fields,
                "holder", "game", "variant_name", "operation", "automated_shaker", "power_odds",
            )  # fmt: skip
        return self.readonly_fields

    def _table_fields(self, request: HttpRequest, obj: Table | None) -> tuple[str, ...]:
        # A variant shown rather than edited is named in the table's own game: the field's
        # choices name a key several games share for all of them ("standard").
        if obj is not None and (
            obj.status != Table.Status.CLOSED or not self.has_change_permission(request, obj)
        ):
            return tuple("variant_name" if f == "variant" else f for f in TABLE_FIELDS)
        return TABLE_FIELDS

    def get_fieldsets(self, request: HttpRequest, obj: Table | None = None) -> Any:
        if obj is None:
            return [(None, {"fields": TABLE_FIELDS})]
        return [
            (None, {"fields": self._table_fields(request, obj)}),
            (
                "Status (changed only by the actions)",
                {"fields": ("status", "status_changed_at", "closed_at", "round_device_wait")},
            ),
            (
                "Compliance now",
                {"fields": ("rules_in_force", "equipment", "opening_refusals", "report_link")},
            ),
        ]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        current = SetInPlay.objects.filter(removed_at__isnull=True).select_related("equipment_set")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("sets_in_play", queryset=current, to_attr="current_sets"))
        )

    def get_urls(self) -> list[URLPattern]:
        report = path(
            "<path:object_id>/report/",
            self.admin_site.admin_view(self.report_view),
            name="casino_table_report",
        )
        hold = path(
            "<path:object_id>/hold/",
            self.admin_site.admin_view(self.hold_view),
            name="casino_table_hold",
        )
        # Before the change page's <path:object_id>/, which would take "statistics".
        floor = path(
            "statistics/",
            self.admin_site.admin_view(self.statistics_view),
            name="casino_table_statistics",
        )
        return [floor, report, hold, *super().get_urls()]

    def report_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return table_report_view(self, request, object_id)

    def hold_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return table_hold_view(self, request, object_id)

    def statistics_view(self, request: HttpRequest) -> HttpResponse:
        return floor_statistics_view(self, request)

    # -- Columns and read-only fields ----------------------------------------------------

    @admin.display(description="variant", ordering="variant")
    def variant_name(self, table: Table) -> str:
        return table.get_variant_display()

    def _set_states(self, table: Table) -> list[SetState]:
        rows = getattr(table, "current_sets", None)
        in_play = {r.composition: r for r in rows} if rows is not None else sets_in_play(table)
        return table_set_states(table, in_play, timezone.now())

    @admin.display(description="equipment")
    def equipment(self, table: Table) -> SafeString:
        return states_html(self._set_states(table))

    @admin.display(description="sets in play, due out")
    def sets_due_out(self, table: Table) -> SafeString:
        # A line a set: the sentence of `equipment` wrapped a table's cell into ten lines.
        return states_lines(self._set_states(table))

    @admin.display(description="layout", ordering="layout__name")
    def layout_name(self, table: Table) -> str:
        # The name alone: the layout's own label repeats the game and variant beside it.
        return "-" if table.layout is None else table.layout.name

    @admin.display(description="rules in force")
    def rules_in_force(self, table: Table) -> SafeString | str:
        submission = RulesSubmission.in_force(table.holder, table.game, timezone.now())
        if submission is None:
            return coloured("missing", "none")
        url = reverse("admin:casino_rulessubmission_change", args=[submission.pk])
        return format_html('<a href="{}">v{}</a>', url, submission.version)

    @admin.display(description="what stops it opening now")
    def opening_refusals(self, table: Table) -> SafeString:
        reasons = opening_refusals(table, timezone.now())
        if not reasons:
            return coloured(IN_DATE, "nothing: every gate passes")
        return format_html(
            '<ul style="margin-left: 0; padding-left: 1em;">{}</ul>',
            format_html_join("", "<li>{}</li>", ((reason,) for reason in reasons)),
        )

    @admin.display(description="round waiting on a device")
    def round_device_wait(self, table: Table) -> SafeString | str:
        current = table.rounds.filter(status=Round.Status.CLOSED).select_related("table").first()
        return "-" if current is None else device_wait_html(round_waiting(current), timezone.now())

    @admin.display(description="compliance report")
    def report_link(self, table: Table) -> SafeString:
        url = reverse("admin:casino_table_report", args=[table.pk])
        return format_html('<a href="{}">today</a>', url)

    # -- Actions -----------------------------------------------------------------------

    def _status_set(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        service: Callable[..., Table],
        doing: str,
        done: str,
    ) -> None:
        now = timezone.now()
        for table in queryset:
            call = partial(service, table, by=request.user, now=now)
            if service_call(request, f"{doing} {table.number}", call):
                messages.success(request, f"{table.number} {done}.")

    @admin.action(description="Open the selected tables")
    def open_tables(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._status_set(request, queryset, table_open, "Opening", "is open")

    @admin.action(description="Suspend the selected tables")
    def suspend_tables(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._status_set(request, queryset, table_suspend, "Suspending", "is suspended")

    @admin.action(description="Close the selected tables")
    def close_tables(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._status_set(request, queryset, table_close, "Closing", "is closed")

    @admin.action(description="Record a changeout (one table)")
    def record_changeout(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        table = one_selected(request, queryset, "record a changeout")
        if table is None:
            return None
        form = action_form(request, ChangeoutForm, table=table)
        if form.is_bound and form.is_valid():
            data = form.cleaned_data
            new = refusal_to_form(
                form,
                partial(
                    set_changeout,
                    table,
                    data["composition"],
                    reason=data["reason"],
                    by=request.user,
                    now=timezone.now(),
                    new_set=data["new_set"],
                    note=data["note"],
                ),
            )
            if not form.errors:
                words = f"Changeout at {table.number} recorded ({REASONS[data['reason']].label})"
                if new is not None:
                    due = timezone.localtime(new.due_at).strftime("%Y-%m-%d %H:%M")
                    words += f"; {new.equipment_set} is in play, due out {due}"
                else:
                    words += "; no set is in play in its place"
                messages.success(request, words + ".")
                return None
        return form_page(
            self,
            request,
            form=form,
            title=f"Record a changeout at {table.number}",
            submit_label="Record the changeout",
            objects=[table],
            action="record_changeout",
            intro="Who and when are recorded from your login and the clock.",
        )

    @admin.action(description="Put a set in play (one table)")
    def put_set_in_play(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        table = one_selected(request, queryset, "put a set in play")
        if table is None:
            return None
        form = action_form(request, PutInPlayForm, table=table)
        if form.is_bound and form.is_valid():
            row = refusal_to_form(
                form,
                partial(
                    set_put_in_play,
                    table,
                    form.cleaned_data["equipment_set"],
                    by=request.user,
                    now=timezone.now(),
                ),
            )
            if row is not None:
                due = timezone.localtime(row.due_at).strftime("%Y-%m-%d %H:%M")
                messages.success(
                    request,
                    f"{row.equipment_set} is in play at {table.number}, due out {due} "
                    f"({row.limit}).",
                )
                return None
        return form_page(
            self,
            request,
            form=form,
            title=f"Put a set in play at {table.number}",
            submit_label="Put it in play",
            objects=[table],
            action="put_set_in_play",
        )


@admin.register(LocationApproval)
class LocationApprovalAdmin(AuditHistory, InspectionAdmin):
    """Recorded through its service, then read-only: an approval is history."""

    form_class = LocationApprovalForm
    service = staticmethod(location_approval_record)
    subject = "table"
    title = "Record a box location approval (§ 601a.10(g))"
    list_display = (
        "table",
        "drop_box_location",
        "tip_box_location",
        "beside_the_dealer",
        "shaker_location",
        "approved_by_name",
        "approved_at",
        "recorded_by",
    )
    list_filter = ("table__game", "table__holder", "beside_the_dealer")
    search_fields = ("table__number", "approved_by_name", "drop_box_location")
    list_select_related = ("table", "recorded_by")
    readonly_fields = ("recorded_by", "what_it_lacks")
    inlines = [AuditHistoryInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("casino.record_locationapproval")

    @admin.display(description="what it lacks for its table")
    def what_it_lacks(self, approval: LocationApproval) -> SafeString | str:
        if approval.pk is None:
            return "-"
        refusals = approval.refusals()
        if not refusals:
            return coloured(IN_DATE, "nothing")
        return format_html_join(mark_safe("<br>"), "{}", ((r,) for r in refusals))
