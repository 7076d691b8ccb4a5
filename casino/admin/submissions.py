"""Rules Submissions (§ 601a.2): drafts edited here, everything else through the services.

A submitted, approved or rejected version is read-only. Each page shows the PAR sheets:
every option with the house edge of the wagers it sets, and every wager's house edge, so
the compliance officer sees the theoretical hold before approving.
"""

from decimal import Decimal, InvalidOperation
from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
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
from casino.admin.forms import RejectForm, RulesSubmissionForm, SubmissionApproveForm
from casino.models import Lifecycle, RulesSubmission
from casino.rules.equipment import IN_DATE
from casino.services.par import option_house_edges, submission_par_request
from casino.services.submissions import (
    submission_approve,
    submission_draft,
    submission_new_version,
    submission_reject,
    submission_submit,
)

LIFECYCLE_FIELDS = (*FILED_FIELDS, "effective_at")


def percent(edge: object) -> str:
    """A house edge from the PAR sheet ("0.0141414141") as a percentage ("1.414%")."""
    try:
        value = Decimal(str(edge))
    except (InvalidOperation, ValueError):
        return "-"
    return f"{value * 100:.3f}%"


def par_sheets_of(submission: RulesSubmission) -> tuple[dict[str, Any], str]:
    """The PAR sheets to show, and where they come from. Only stored ones: a page never
    computes them (Pai Gow's take seconds); a draft's are computed when it is submitted."""
    if submission.par_sheets:
        return submission.par_sheets, "computed when it was submitted"
    if submission.refusals():
        return {}, ""
    if submission.status == Lifecycle.DRAFT:
        return {}, "computed when it is submitted"
    submission_par_request(submission.pk)
    return {}, "being computed by a worker; reload the page in a few seconds"


def par_sheets_html(submission: RulesSubmission) -> str:
    sheets, source = par_sheets_of(submission)
    rendered = []
    negative = any(
        str(w["house_edge"]).startswith("-") for sheet in sheets.values() for w in sheet["wagers"]
    )
    for key, sheet in sheets.items():
        options = [
            {
                "option": row["option"],
                "value": row["value"],
                "edges": [(kind, percent(edge)) for kind, edge in row["edges"]],
            }
            for row in option_house_edges(submission.game, sheet)
        ]
        wagers = [(w["kind"], percent(w["house_edge"])) for w in sheet["wagers"]]
        rendered.append({"key": key, "title": sheet["title"], "options": options, "wagers": wagers})
    return render_to_string(
        "admin/casino/par_sheets.html",
        {"sheets": rendered, "source": source, "refused": not source, "negative": negative},
    )


@admin.register(RulesSubmission)
class RulesSubmissionAdmin(FitsTheWindow, AuditHistory, DraftOnlyAdmin):
    form = RulesSubmissionForm
    list_display = (
        "__str__",
        "holder",
        "game",
        "version",
        "status",
        moment_column("effective_at", "effective at"),
        moment_column("submitted_at", "submitted at"),
        moment_column("decided_at", "decided at"),
        "in_force_now",
    )
    list_filter = ("game", "status", "holder")
    search_fields = ("holder__name", "decision_note", "game")
    list_select_related = ("holder",)
    readonly_fields = ("version", *LIFECYCLE_FIELDS, "refusals", "house_edges")
    inlines = [AuditHistoryInline]
    actions = ["submit", "approve", "reject", "new_version"]

    def get_fieldsets(self, request: HttpRequest, obj: RulesSubmission | None = None) -> Any:
        choices = ("holder", "game", "variants", "table_types", "options", "supersedes")
        if obj is None:
            return [(None, {"fields": choices})]
        return [
            (None, {"fields": ("version", *choices)}),
            ("Lifecycle (changed only by the actions)", {"fields": LIFECYCLE_FIELDS}),
            ("Validation and house edges", {"fields": ("refusals", "house_edges")}),
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A version is numbered within its holder and game: those stay as drafted.
        if obj is not None:
            return (*self.readonly_fields, "holder", "game")
        return self.readonly_fields

    def save_model(
        self, request: HttpRequest, obj: RulesSubmission, form: Any, change: bool
    ) -> None:
        if change:
            super().save_model(request, obj, form, change)
            return
        # A new draft is numbered by the service; the admin then shows that record.
        draft = submission_draft(
            obj.holder,
            obj.game,
            variants=obj.variants,
            table_types=obj.table_types,
            options=obj.options,
            supersedes=obj.supersedes,
            by=request.user,
            now=timezone.now(),
        )
        obj.pk = draft.pk
        obj.refresh_from_db()

    # -- Columns and read-only fields ----------------------------------------------------

    @admin.display(description="in force now", boolean=True)
    def in_force_now(self, submission: RulesSubmission) -> bool:
        if submission.status != "approved":
            return False
        current = RulesSubmission.in_force(submission.holder, submission.game, timezone.now())
        return current is not None and current.pk == submission.pk

    @admin.display(description="what the engines and chapters refuse")
    def refusals(self, submission: RulesSubmission) -> SafeString:
        refusals = submission.refusals()
        if not refusals:
            return coloured(IN_DATE, "nothing")
        return format_html_join(mark_safe("<br>"), "{}", ((r,) for r in refusals))

    @admin.display(description="house edges (PAR)")
    def house_edges(self, submission: RulesSubmission) -> str:
        return par_sheets_html(submission)

    # -- Actions -----------------------------------------------------------------------

    @admin.action(description="Submit the selected drafts")
    def submit(self, request: HttpRequest, queryset: QuerySet) -> None:
        now = timezone.now()
        for rs in queryset:
            call = partial(submission_submit, rs, by=request.user, now=now)
            if service_call(request, f"Submitting {rs}", call):
                messages.success(request, f"{rs} is submitted.")

    @admin.action(description="Approve the selected submissions")
    def approve(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        form = action_form(request, SubmissionApproveForm)
        if form.is_bound and form.is_valid():
            now = timezone.now()
            for rs in queryset:
                call = partial(
                    submission_approve,
                    rs,
                    by=request.user,
                    now=now,
                    effective_at=form.cleaned_data["effective_at"],
                    note=form.cleaned_data["note"],
                )
                if service_call(request, f"Approving {rs}", call):
                    messages.success(request, f"{rs} is approved.")
            return None
        return form_page(
            self,
            request,
            form=form,
            title="Approve Rules Submissions",
            submit_label="Approve",
            objects=queryset,
            action="approve",
            intro="Check each submission's house edges on its page before approving.",
        )

    @admin.action(description="Reject the selected submissions")
    def reject(self, request: HttpRequest, queryset: QuerySet) -> TemplateResponse | None:
        form = action_form(request, RejectForm)
        if form.is_bound and form.is_valid():
            now = timezone.now()
            for rs in queryset:
                call = partial(
                    submission_reject,
                    rs,
                    by=request.user,
                    now=now,
                    reason=form.cleaned_data["reason"],
                )
                if service_call(request, f"Rejecting {rs}", call):
                    messages.success(request, f"{rs} is rejected.")
            return None
        return form_page(
            self,
            request,
            form=form,
            title="Reject Rules Submissions",
            submit_label="Reject",
            objects=queryset,
            action="reject",
        )

    @admin.action(description="Start a new version of the selected submissions")
    def new_version(self, request: HttpRequest, queryset: QuerySet) -> None:
        now = timezone.now()
        for rs in queryset:
            call = partial(submission_new_version, rs, by=request.user, now=now)
            draft = service_call(request, f"New version of {rs}", call)
            if draft is not None:
                url = reverse("admin:casino_rulessubmission_change", args=[draft.pk])
                messages.success(
                    request, format_html('<a href="{}">{}</a> is a new draft.', url, draft)
                )
