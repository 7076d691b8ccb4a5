"""What the admin modules share: calling a service and reporting its outcome, the page of
an intermediate action form, and the equipment state of a table in colour."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from functools import reduce
from operator import or_
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponsePermanentRedirect,
)
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst

from casino.admin.forms import ACTION_PREFIX
from casino.models import SetInPlay, Table
from casino.rules.days import DayRefused, day_or
from casino.rules.equipment import (
    DUE_SOON,
    IN_DATE,
    OVERDUE,
    REQUIRED_SETS,
    schedule_state,
)
from casino.rules.words import composition_label
from casino.services import FloorRefused
from casino.services.equipment import set_limit

MISSING = "missing"
STATE_LABELS = {
    IN_DATE: "in date",
    DUE_SOON: "due soon",
    OVERDUE: "overdue",
    MISSING: "missing",
}
STATE_COLOURS = {
    IN_DATE: "#1a7f37",  # green
    DUE_SOON: "#b26a00",  # amber
    OVERDUE: "#c62828",  # red
    MISSING: "#c62828",
}


def day_asked(request: HttpRequest, default: Callable[[], date]) -> date | HttpResponse:
    """The day `?day=` names, as the API reads it (casino/rules/days.py), `default()`
    without it; a 400 in the API's words for a day refused. A link of before, `?date=`, is
    sent on to the same page with `?day=` (301)."""
    if "date" in request.GET:
        query = request.GET.copy()
        moved = query.pop("date")[-1]
        query.setdefault("day", moved)
        return HttpResponsePermanentRedirect(f"{request.path}?{query.urlencode()}")
    try:
        return day_or(request.GET.get("day"), default)
    except DayRefused as refused:
        return HttpResponseBadRequest(str(refused), content_type="text/plain; charset=utf-8")


def service_call(request: HttpRequest, what: str, call: Callable[[], Any]) -> Any:
    """Run one service call and return its result; None when refused, after reporting the
    permission refusal or each rule refusal as an error message."""
    try:
        return call()
    except PermissionDenied as denied:
        messages.error(request, f"{what}: {denied}")
    except FloorRefused as refused:
        for reason in refused.reasons:
            messages.error(request, f"{what} refused: {reason}")
    return None


def refusal_to_form(form: forms.Form, call: Callable[[], Any]) -> Any:
    """Run one service call; a refusal becomes the form's errors (and nothing is written)."""
    try:
        return call()
    except PermissionDenied as denied:
        form.add_error(None, str(denied))
    except FloorRefused as refused:
        for reason in refused.reasons:
            form.add_error(None, reason)
    return None


def form_page(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    *,
    form: forms.Form,
    title: str,
    submit_label: str,
    objects: Iterable[Any] = (),
    action: str = "",
    intro: str = "",
) -> TemplateResponse:
    """The page of an intermediate action form (with `action`) or of a record's add form."""
    opts = model_admin.model._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "objects": list(objects),
        "form": form,
        "action": action,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "submit_label": submit_label,
        "intro": intro,
        "media": model_admin.media + form.media,
    }
    return TemplateResponse(request, "admin/casino/action_form.html", context)


def action_form(request: HttpRequest, form_class: type[forms.Form], **kwargs: Any) -> forms.Form:
    """The intermediate form, bound once the user has filled it in ("apply")."""
    data = request.POST if "apply" in request.POST else None
    return form_class(data, prefix=ACTION_PREFIX, **kwargs)


def one_selected(request: HttpRequest, queryset: QuerySet, what: str) -> Any:
    """The single selected object, or None with an error message."""
    if queryset.count() != 1:
        messages.error(request, f"Select exactly one record to {what}.")
        return None
    return queryset.get()


# -- The equipment state ---------------------------------------------------------------


@dataclass(frozen=True)
class SetState:
    """One required set of a table: its state now and the set in play, if any."""

    composition: str
    state: str
    row: SetInPlay | None


def set_state(row: SetInPlay, now: datetime) -> str:
    """In date, due soon or overdue, computed afresh from due_at (never the beat's flag)."""
    due_at, warn_from, _ = set_limit(row)
    return schedule_state(due_at, due_at - warn_from, now)


def table_set_states(table: Table, in_play: dict[str, SetInPlay], now: datetime) -> list[SetState]:
    """The state of each set the table's game needs."""
    states = []
    for composition in REQUIRED_SETS.get((table.game, table.variant), ()):
        row = in_play.get(composition)
        state = MISSING if row is None else set_state(row, now)
        states.append(SetState(composition, state, row))
    return states


def _when(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


def coloured(state: str, text: str) -> SafeString:
    return format_html(
        '<span style="color: {}; font-weight: bold;" class="equipment-{}">{}</span>',
        STATE_COLOURS[state],
        state,
        text,
    )


def set_state_words(state: SetState) -> str:
    """The set in words: "D-CR01-0003 (five dice): in date, due out 2026-11-28 22:30"."""
    label = composition_label(state.composition)
    if state.row is None:
        return f"{label}: missing"
    due = _when(state.row.due_at)
    words = f"overdue since {due}" if state.state == OVERDUE else f"{STATE_LABELS[state.state]}"
    if state.state != OVERDUE:
        words += f", due out {due}"
    return f"{state.row.equipment_set.identifier} ({label}): {words}"


def set_state_html(state: SetState) -> SafeString:
    return coloured(state.state, set_state_words(state))


def states_html(states: list[SetState]) -> SafeString:
    return format_html_join(mark_safe("<br>"), "{}", ((set_state_html(s),) for s in states))


def set_state_line(state: SetState, *, with_set: bool = True) -> SafeString:
    """One set on one line, for a list's cell: its state as a word, the set (unless the row
    names it) and when it must come out; the kind and the whole sentence in the tooltip."""
    label = composition_label(state.composition)
    if state.row is None:
        what, due = label, ""
    else:
        what = state.row.equipment_set.identifier if with_set else ""
        due = timezone.localtime(state.row.due_at).strftime("%b %d %H:%M")
    return format_html(
        '<span class="fit-line" title="{}"><span class="fit-state equipment-{}">{}</span>'
        "{}{}</span>",
        set_state_words(state),
        state.state,
        STATE_LABELS[state.state],
        what,
        f" · {due}" if due and what else due,
    )


def states_lines(states: list[SetState]) -> SafeString:
    """A table's sets, a line each (set_state_line)."""
    return format_html_join("", "{}", ((set_state_line(s),) for s in states))


def moment_short(moment: datetime | None) -> str:
    """A moment in a list's cell: "2026-11-28 22:30" in the floor's time zone, or "-"."""
    return "-" if moment is None else timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")


def moment_column(field: str, description: str) -> Callable[[Any], str]:
    """A list column showing a date-time field as moment_short, sortable by the field: a
    list of several times stays narrow ("Nov. 28, 2026, 10:30 p.m." wraps to three lines)."""

    @admin.display(description=description, ordering=field)
    def column(obj: Any) -> str:
        return moment_short(getattr(obj, field))

    column.__name__ = field  # the column's CSS class: column-<field>
    return column


def two_lines(first: str, second: str) -> SafeString:
    """A cell of two short lines, the second in small print ("2026-11-28 22:30" / "by ops")."""
    return format_html(
        '<span class="fit-line">{}</span><span class="fit-line fit-small">{}</span>', first, second
    )


class FitsTheWindow:
    """A daily ModelAdmin's pages include the stylesheet that fits them to a 1024 px window
    (casino/static/casino/admin-fit.css)."""

    class Media:
        css = {"all": ("casino/admin-fit.css",)}


# -- The "equipment" list filter -------------------------------------------------------


def _open_sets() -> QuerySet:
    return SetInPlay.objects.filter(removed_at__isnull=True)


def missing_set_q() -> Q:
    """Tables lacking a set their game and variant require."""
    clauses = []
    for (game, variant), compositions in REQUIRED_SETS.items():
        lacks = [
            ~Exists(_open_sets().filter(table=OuterRef("pk"), composition=composition))
            for composition in compositions
        ]
        clauses.append(Q(game=game, variant=variant) & reduce(or_, lacks))
    return reduce(or_, clauses)


class EquipmentFilter(admin.SimpleListFilter):
    """Tables by the state of their sets now: in date (every required set in play and in
    date), due soon, overdue (a set past its limit), missing (a required set not in play)."""

    title = "equipment"
    parameter_name = "equipment"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [(key, STATE_LABELS[key]) for key in (IN_DATE, DUE_SOON, OVERDUE, MISSING)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        overdue = Exists(_open_sets().filter(table=OuterRef("pk"), due_at__lt=now))
        due_soon = Exists(
            _open_sets().filter(table=OuterRef("pk"), warn_from__lte=now, due_at__gte=now)
        )
        value = self.value()
        if value == OVERDUE:
            return queryset.filter(overdue)
        if value == DUE_SOON:
            return queryset.filter(due_soon).exclude(overdue)
        if value == MISSING:
            return queryset.filter(missing_set_q())
        if value == IN_DATE:
            return queryset.exclude(missing_set_q()).exclude(overdue).exclude(due_soon)
        return queryset


class SetEquipmentFilter(admin.SimpleListFilter):
    """Sets in play by their state now; or the sets already out of play."""

    title = "equipment"
    parameter_name = "equipment"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [
            *((key, f"in play, {STATE_LABELS[key]}") for key in (IN_DATE, DUE_SOON, OVERDUE)),
            ("removed", "out of play"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        in_play = queryset.filter(removed_at__isnull=True)
        value = self.value()
        if value == OVERDUE:
            return in_play.filter(due_at__lt=now)
        if value == DUE_SOON:
            return in_play.filter(warn_from__lte=now, due_at__gte=now)
        if value == IN_DATE:
            return in_play.filter(warn_from__gt=now)
        if value == "removed":
            return queryset.filter(removed_at__isnull=False)
        return queryset


# The fields of casino.models.lifecycle.Filed: changed only by the lifecycle actions.
FILED_FIELDS = (
    "status",
    "created_at",
    "created_by",
    "submitted_at",
    "submitted_by",
    "decided_at",
    "decided_by",
    "decision_note",
)


class DraftOnlyAdmin(admin.ModelAdmin):
    """Only a draft changes or goes: what was submitted is what the Bureau decides on,
    and what was decided is history."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and not obj.is_draft:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and not obj.is_draft:
            return False
        return super().has_delete_permission(request, obj)


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record only the services write: viewed, never added, changed or deleted here
    (superusers included)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def labelled_filter(
    field: str, title: str, choices: Iterable[tuple[str, str]]
) -> type[admin.SimpleListFilter]:
    """A list filter on a field kept as a code with no choices on the model (a round's game,
    a set in play's composition), each code shown by its label: "High Roll Dice", never
    `high_roll_dice`."""
    options = [(code, str(capfirst(label))) for code, label in choices]

    class Labelled(admin.SimpleListFilter):
        parameter_name = field

        def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
            return options

        def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
            return queryset.filter(**{field: self.value()}) if self.value() else queryset

    Labelled.title = title
    Labelled.__name__ = Labelled.__qualname__ = f"{field.title().replace('_', '')}Filter"
    return Labelled


def device_wait_html(waiting: Any, now: datetime) -> SafeString | str:
    """A round waiting on a device (gaming.waits.Waiting, or None): since when, in red once
    it is an alert, with the ways out the rules allow."""
    if waiting is None:
        return "-"
    since = timezone.localtime(waiting.since).strftime("%Y-%m-%d %H:%M:%S")
    state = OVERDUE if waiting.alert(now) else DUE_SOON
    head = f"waiting on a device since {since}" + (
        f" (an alert since {timezone.localtime(waiting.alert_at):%H:%M:%S})"
        if waiting.alert(now)
        else f" (an alert at {timezone.localtime(waiting.alert_at):%H:%M:%S})"
    )
    return format_html(
        '{}<p style="margin: 4px 0;">{}</p><ul style="margin-left: 0; padding-left: 1em;">{}</ul>',
        coloured(state, head),
        waiting.what,
        format_html_join("", "<li>{}</li>", ((way.text,) for way in waiting.ways_out)),
    )
