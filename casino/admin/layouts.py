"""Layouts (§ 601a.10(a)): drafts edited here; submitted, approved or rejected through the
services, and read-only from then on."""

from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from casino.admin.audit import AuditHistory, AuditHistoryInline
from casino.admin.common import (
    FILED_FIELDS,
    DraftOnlyAdmin,
    FitsTheWindow,
    action_form,
    coloured,
    form_page,
    moment_column,
    service_call,
)
from casino.admin.forms import LayoutApproveForm, RejectForm
from casino.models import Layout
from casino.rules.equipment import IN_DATE
from casino.rules.layouts import ELEMENTS, SIGNS, Element
from casino.services.layouts import layout_decide, layout_submit


def _element_words(element: Element) -> str:
    words = element.label
    if element.alternative:
        words += f"; or {SIGNS[element.alternative]} ({element.alternative})"
    if element.needed_when is not None:
        words += "; only where the table's options call for it"
    return words


@admin.register(Layout)
class LayoutAdmin(FitsTheWindow, AuditHistory, DraftOnlyAdmin):
    list_display = (
        "name",
        "holder",
        "game",
        "variant_name",
        "status",
        moment_column("submitted_at", "submitted at"),
        moment_column("decided_at", "decided at"),
    )
    list_filter = ("game", "variant", "status", "holder")
    search_fields = ("name", "holder__name", "decision_note")
    list_select_related = ("holder",)
    readonly_fields = (*FILED_FIELDS, "what_it_lacks", "elements_of_the_chapter", "variant_name")
    inlines = [AuditHistoryInline]
    actions = ["submit", "approve", "reject"]

    def get_fieldsets(self, request: HttpRequest, obj: Layout | None = None) -> Any:
        design = ("holder", "name", "game", "variant", "elements")
        if obj is None:
            return [(None, {"fields": design})]
        if not self.has_change_permission(request, obj):
            # Shown, not edited: the variant named in the layout's own game.
            design = tuple("variant_name" if f == "variant" else f for f in design)
        return [
            (None, {"fields": design}),
            ("Lifecycle (changed only by the actions)", {"fields": FILED_FIELDS}),
            ("What the chapter requires", {"fields": ("what_it_lacks", "elements_of_the_chapter")}),
        ]

    def save_model(self, request: HttpRequest, obj: Layout, form: Any, change: bool) -> None:
        if not change:
            # No service drafts a layout: a draft is the admin's own record until submitted.
            obj.created_at, obj.created_by = timezone.now(), request.user
        super().save_model(request, obj, form, change)

    @admin.display(description="variant", ordering="variant")
    def variant_name(self, layout: Layout) -> str:
        return layout.get_variant_display()

    @admin.display(description="what it lacks (at approval)")
    def what_it_lacks(self, layout: Layout) -> SafeString:
        refusals = layout.refusals()
        if not refusals:
            return coloured(IN_DATE, "nothing")
        return format_html_join(mark_safe("<br>"), "{}", ((r,) for r in refusals))

    @admin.display(description="elements")
    def elements_of_the_chapter(self, layout: Layout) -> SafeString | str:
        elements = ELEMENTS.get((layout.game, layout.variant))
        if elements is None:
            return "-"
        rows = [(e.key, _element_words(e), e.cite) for e in elements]
        return format_html(
            "<table><tr><th>key</th><th>what</th><th>section</th></tr>{}</table>",
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        )

    # -- Actions -----------------------------------------------------------------------

    @admin.action(description="Submit the selected drafts")
    def submit(self, request: HttpRequest, queryset: QuerySet) -> None:
        now = timezone.now()
        for layout in queryset:
            call = partial(layout_submit, layout, by=request.user, now=now)
            if service_call(request, f"Submitting {layout}", call):
                messages.success(request, f"{layout} is submitted.")

    def _decide(
        self, request: HttpRequest, queryset: QuerySet, *, approve: bool, note: str
    ) -> None:
        now = timezone.now()
        doing, done = ("Approving", "approved") if approve else ("Rejecting", "rejected")
        for layout in queryset:
            call = partial(
                layout_decide, layout, approve=approve, by=request.user, now=now, note=note
            )
            if service_call(request, f"{doing} {layout}", call):
                messages.success(request, f"{layout} is {done}.")

    @admin.action(description="Approve the selected layouts")
    def approve(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        form = action_form(request, LayoutApproveForm)
        if form.is_bound and form.is_valid():
            self._decide(request, queryset, approve=True, note=form.cleaned_data["note"])
            return None
        return form_page(
            self,
            request,
            form=form,
            title="Approve layouts",
            submit_label="Approve",
            objects=queryset,
            action="approve",
        )

    @admin.action(description="Reject the selected layouts")
    def reject(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        form = action_form(request, RejectForm)
        if form.is_bound and form.is_valid():
            self._decide(request, queryset, approve=False, note=form.cleaned_data["reason"])
            return None
        return form_page(
            self,
            request,
            form=form,
            title="Reject layouts",
            submit_label="Reject",
            objects=queryset,
            action="reject",
        )
