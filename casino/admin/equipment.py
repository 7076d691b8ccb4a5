"""Dice and tile sets, their times in play, and the inspections.

Times in play and inspections are records of what happened: they are written only by
the services (table actions, the inspection forms here) and never edited in the admin.
"""

from collections.abc import Callable
from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern, path
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.text import capfirst

from casino.admin.audit import AuditHistory, AuditHistoryInline
from casino.admin.common import (
    FitsTheWindow,
    ReadOnlyAdmin,
    SetEquipmentFilter,
    SetState,
    form_page,
    labelled_filter,
    moment_short,
    refusal_to_form,
    set_state,
    set_state_line,
    two_lines,
)
from casino.admin.forms import SicBoInspectionForm, TileInspectionForm
from casino.admin.schedule_views import schedule_changeout_view, schedule_view
from casino.admin.statistics_views import set_fairness_view
from casino.models import EquipmentSet, SetInPlay, SicBoOpeningInspection, TileInspection
from casino.rules.equipment import COMPOSITION_CHOICES
from casino.rules.words import composition_label
from casino.services.equipment import tile_inspection_record
from gaming.tables import sic_bo_inspection_record

INSPECTION_PERMISSION = "casino.record_inspection"
# A time in play keeps its set's composition as a code: shown by its label ("Three dice").


class TimesInPlayInline(admin.TabularInline):
    model = SetInPlay
    extra = 0
    fields = (
        "table",
        "put_in_play_at",
        "put_in_play_by",
        "due_at",
        "removed_at",
        "removed_by",
        "removal_reason",
        "removal_note",
    )
    readonly_fields = fields
    can_delete = False
    show_change_link = True
    verbose_name_plural = "times in play"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(EquipmentSet)
class EquipmentSetAdmin(FitsTheWindow, AuditHistory, admin.ModelAdmin):
    list_display = (
        "identifier",
        "holder",
        "composition",
        "status",
        "reconstructed",
        "meets_603a_12_c",
        "received_at",
        "in_play_at",
    )
    list_filter = ("holder", "composition", "status", "reconstructed")
    search_fields = ("identifier", "holder__name")
    list_select_related = ("holder",)
    inlines = [TimesInPlayInline, AuditHistoryInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # The status follows the services; what a set is cannot change once it was played.
        if obj is not None and obj.times_in_play.exists():
            return (
                "status",
                "holder",
                "identifier",
                "composition",
                "reconstructed",
                "meets_603a_12_c",
            )
        return ("status",)

    def get_urls(self) -> list[URLPattern]:
        fairness = path(
            "<path:object_id>/fairness/",
            self.admin_site.admin_view(self.fairness_view),
            name="casino_equipmentset_fairness",
        )
        return [fairness, *super().get_urls()]

    def fairness_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return set_fairness_view(self, request, object_id)

    @admin.display(description="in play at")
    def in_play_at(self, equipment_set: EquipmentSet) -> str:
        if equipment_set.status != EquipmentSet.Status.IN_PLAY:
            return "-"
        row = equipment_set.times_in_play.filter(removed_at__isnull=True).first()
        return row.table.number if row is not None else "-"


@admin.register(SetInPlay)
class SetInPlayAdmin(FitsTheWindow, AuditHistory, ReadOnlyAdmin):
    list_display = (
        "equipment_set",
        "table",
        "composition_label",
        "put_in_play",
        "due",
        "out_of_play",
    )
    list_filter = (
        SetEquipmentFilter,
        labelled_filter("composition", "composition", COMPOSITION_CHOICES),
        "removal_reason",
        "table__game",
        "table",
    )
    search_fields = ("equipment_set__identifier", "table__number", "removal_note")
    list_select_related = ("equipment_set", "table", "put_in_play_by", "removed_by")
    date_hierarchy = "put_in_play_at"
    inlines = [AuditHistoryInline]

    def get_urls(self) -> list[URLPattern]:
        # Before the change page's <path:object_id>/, which would take "schedule".
        schedule = path(
            "schedule/",
            self.admin_site.admin_view(self.schedule_view),
            name="casino_setinplay_schedule",
        )
        changeout = path(
            "<path:object_id>/changeout/",
            self.admin_site.admin_view(self.changeout_view),
            name="casino_setinplay_changeout",
        )
        return [schedule, changeout, *super().get_urls()]

    def schedule_view(self, request: HttpRequest) -> HttpResponse:
        return schedule_view(self, request)

    def changeout_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return schedule_changeout_view(self, request, object_id)

    @admin.display(description="composition", ordering="composition")
    def composition_label(self, row: SetInPlay) -> str:
        return capfirst(composition_label(row.composition))

    # When and who in one cell (and why, for the removal): nine columns did not fit.
    @admin.display(description="put in play", ordering="put_in_play_at")
    def put_in_play(self, row: SetInPlay) -> SafeString:
        return two_lines(moment_short(row.put_in_play_at), f"by {row.put_in_play_by or '-'}")

    @admin.display(description="due out of play", ordering="due_at")
    def due(self, row: SetInPlay) -> SafeString | str:
        if row.removed_at is not None:
            return two_lines(moment_short(row.due_at), "was due")
        state = SetState(row.composition, set_state(row, timezone.now()), row)
        return set_state_line(state, with_set=False)

    @admin.display(description="taken out of play", ordering="removed_at")
    def out_of_play(self, row: SetInPlay) -> SafeString | str:
        if row.removed_at is None:
            return "-"
        why = f"{row.get_removal_reason_display() or '-'}, by {row.removed_by or '-'}"
        return two_lines(moment_short(row.removed_at), why)


class InspectionAdmin(ReadOnlyAdmin):
    """An inspection is recorded through its service: a refusal is a form error and
    writes nothing."""

    form_class: type = TileInspectionForm
    title = ""
    # The service that records it, and the form field it is recorded for; every other
    # field of the form is one of the service's keywords.
    service: Callable[..., Any] = staticmethod(tile_inspection_record)
    subject = "set_in_play"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(INSPECTION_PERMISSION)

    def record(self, request: HttpRequest, data: dict[str, Any]) -> Any:
        fields = dict(data)
        subject = fields.pop(self.subject)
        return self.service(subject, **fields, by=request.user, now=timezone.now())

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            form = self.form_class(request.POST)
        else:
            form = self.form_class(initial=request.GET.dict())
        if form.is_bound and form.is_valid():
            inspection = refusal_to_form(form, partial(self.record, request, form.cleaned_data))
            if inspection is not None:
                messages.success(request, f"Recorded: {inspection}.")
                meta = self.model._meta
                return redirect(f"admin:{meta.app_label}_{meta.model_name}_change", inspection.pk)
        return form_page(self, request, form=form, title=self.title, submit_label="Record")


@admin.register(TileInspection)
class TileInspectionAdmin(AuditHistory, InspectionAdmin):
    form_class = TileInspectionForm
    title = "Record a tile inspection (§ 621a.4(a))"
    list_display = (
        "inspected_at",
        "set_in_play",
        "dealer_name",
        "floorperson_name",
        "suitable",
        "envelope_sealed_at",
        "recorded_by",
    )
    list_filter = (
        "all_pairs_present",
        "same_size_and_shading",
        "unflawed",
        "set_in_play__table",
    )
    search_fields = (
        "dealer_name",
        "floorperson_name",
        "set_in_play__equipment_set__identifier",
        "set_in_play__table__number",
    )
    list_select_related = ("set_in_play__equipment_set", "set_in_play__table", "recorded_by")
    date_hierarchy = "inspected_at"
    readonly_fields = ("suitable",)
    inlines = [AuditHistoryInline]

    @admin.display(boolean=True, description="suitable")
    def suitable(self, inspection: TileInspection) -> bool:
        return inspection.suitable


@admin.register(SicBoOpeningInspection)
class SicBoOpeningInspectionAdmin(AuditHistory, InspectionAdmin):
    form_class = SicBoInspectionForm
    service = staticmethod(sic_bo_inspection_record)
    subject = "table"
    title = "Record a Sic Bo opening inspection (§ 625a.5(a))"
    list_display = (
        "inspected_at",
        "table",
        "floorperson_name",
        "values_entered",
        "winning_combinations_lit",
        "shaker_operations",
        "dice_properly_tossed",
        "recorded_by",
    )
    list_filter = ("winning_combinations_lit", "table")
    search_fields = ("floorperson_name", "table__number")
    list_select_related = ("table", "recorded_by")
    date_hierarchy = "inspected_at"
    inlines = [AuditHistoryInline]
