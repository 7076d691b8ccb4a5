"""Rounds: the record of each (events, wagers, resolutions, ledger entries) and the
dealer's buttons that run it.

Every button posts to a view that calls ONE service with the signed-in user,
timezone.now() and source "dealer"; a refusal is shown reason by reason and changes
nothing. The view checks the permission itself too: a hidden button is not a lock.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from casino.admin.common import (
    FitsTheWindow,
    device_wait_html,
    labelled_filter,
    moment_column,
    service_call,
)
from casino.rules.words import game_label
from games import flow
from games.admin.common import PagedInline, ReadOnlyAdmin, money_column
from games.admin.forms import (
    AdjustmentForm,
    EventForm,
    OpenRoundForm,
    ResultForm,
    RoundForm,
    VoidForm,
    WagersForm,
)
from games.admin.ledger import lines_html
from games.models import LedgerEntry, Resolution, Round, RoundEvent, Wager
from games.rules.catalog import game_choices
from games.services import alerts
from games.services.ledger import ADJUST, adjustment_post
from games.services.rounds import RUN
from gaming.rounds import (
    no_more_bets,
    no_roll,
    result_enter,
    round_event,
    round_open,
    round_void,
    wagers_place,
)
from gaming.waits import round_waiting

DEALER = RoundEvent.Source.DEALER
OPEN = (Round.Status.OPEN,)
BEFORE_RESULT = (Round.Status.OPEN, Round.Status.CLOSED)
# Characters of an event's payload shown on the round's page (a request of 2,000 wagers
# is some 130,000).
PAYLOAD_SHOWN = 2000


@dataclass(frozen=True)
class RoundAction:
    """One button on a round's page: who may press it, when it shows, the service it calls."""

    label: str
    form: type[RoundForm]
    permission: str
    statuses: tuple[str, ...]
    # (round, cleaned data, by=, now=) -> the service's result
    run: Callable[..., Any]
    games: frozenset[str] | None = None  # None: every game

    def shown(self, round_: Round) -> bool:
        return round_.status in self.statuses and (self.games is None or round_.game in self.games)


ROUND_ACTIONS: dict[str, RoundAction] = {
    "wagers": RoundAction(
        "Place wagers",
        WagersForm,
        RUN,
        OPEN,
        lambda r, d, **at: wagers_place(r, d["wagers"], source=DEALER, **at),
    ),
    "event": RoundAction(
        "Record the event",
        EventForm,
        RUN,
        OPEN,
        lambda r, d, **at: round_event(r, d["event"], d["payload"], source=DEALER, **at),
        games=frozenset(g for g, events in flow.WAGERING_EVENTS.items() if events - {"wagers"}),
    ),
    "no_more_bets": RoundAction(
        "No more bets",
        RoundForm,
        RUN,
        OPEN,
        lambda r, d, **at: no_more_bets(r, source=DEALER, **at),
    ),
    "result": RoundAction(
        "Enter the result",
        ResultForm,
        RUN,
        BEFORE_RESULT,
        lambda r, d, **at: result_enter(r, d["event"], d["payload"], source=DEALER, **at),
    ),
    "no_roll": RoundAction(
        "No roll",
        RoundForm,
        RUN,
        BEFORE_RESULT,
        lambda r, d, **at: no_roll(r, source=DEALER, **at),
    ),
    "void": RoundAction(
        "Void the round",
        VoidForm,
        RUN,
        BEFORE_RESULT,
        lambda r, d, **at: round_void(r, d["section"], source=DEALER, **at),
        games=frozenset(flow.VOIDS),
    ),
    "adjust": RoundAction(
        "Post the adjusting entry",
        AdjustmentForm,
        ADJUST,
        (Round.Status.SETTLED,),
        lambda r, d, **at: adjustment_post(r, d["lines"], memo=d["memo"], **at),
    ),
}


# -- The round's rows, read-only ---------------------------------------------------------


class RoundEventInline(PagedInline):
    model = RoundEvent
    fields = ("seq", "event", "payload_shown", "source", "entered_by", "at", "cite")
    per_page = 50

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("entered_by")

    @admin.display(description="payload")
    def payload_shown(self, event: RoundEvent) -> str:
        """The payload as JSON; a long one (a request of many wagers) cut at PAYLOAD_SHOWN
        characters, saying how long it is (the API's round has it whole)."""
        text = json.dumps(event.payload)
        if len(text) <= PAYLOAD_SHOWN:
            return text
        return f"{text[:PAYLOAD_SHOWN]}... ({len(text):,} characters in all)"


class WagerInline(PagedInline):
    model = Wager
    fields = ("ref", "player", "kind", "amount_money", "extra")
    amount_money = money_column("amount")


class ResolutionInline(PagedInline):
    model = Resolution
    fields = (
        "wager_ref",
        "result",
        "net_money",
        "stake_money",
        "winnings_money",
        "payout_limit_reduction_money",
        "vigorish_money",
        "cite",
    )
    net_money = money_column("net")
    stake_money = money_column("stake")
    winnings_money = money_column("winnings")
    payout_limit_reduction_money = money_column("payout_limit_reduction")
    vigorish_money = money_column("vigorish")
    verbose_name_plural = "resolutions (the wagers this round settled)"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("wager")

    @admin.display(description="wager")
    def wager_ref(self, resolution: Resolution) -> str:
        return resolution.wager.ref


class LedgerEntryInline(PagedInline):
    model = LedgerEntry
    fields = ("kind", "posted_at", "posted_by", "memo", "lines")
    show_change_link = True
    per_page = 20  # each with its first LINES_SHOWN lines

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("posted_by")

    @admin.display(description="lines")
    def lines(self, entry: LedgerEntry) -> SafeString:
        return lines_html(entry)


# -- The admin -------------------------------------------------------------------------


@admin.register(Round)
class RoundAdmin(FitsTheWindow, ReadOnlyAdmin):
    list_display = (
        "table",
        "number",
        "game_name",
        "status",
        moment_column("opened_at", "opened at"),
        moment_column("settled_at", "settled at"),
        "wagers_count",
    )
    list_filter = ("status", labelled_filter("game", "game", game_choices()), "table")
    search_fields = ("table__number",)
    list_select_related = ("table",)
    fieldsets = [
        (
            None,
            {
                "fields": (
                    *("table", "number", "game_name", "status", "previous"),
                    *("device_wait", "settlement"),
                )
            },
        ),
        (
            "When and by whom",
            {"fields": ("opened_at", "opened_by", "closed_at", "result_at", "settled_at")},
        ),
        ("Rules", {"fields": ("rules_submission", "options_in_force", "rules_hash")}),
    ]
    readonly_fields = ("game_name", "options_in_force", "device_wait", "settlement")
    inlines = [RoundEventInline, WagerInline, ResolutionInline, LedgerEntryInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Counted for each round of the page (not the floor's every wager joined, grouped).
        wagers = Wager.objects.filter(round=OuterRef("pk")).order_by().values("round")
        count = Subquery(wagers.annotate(n=Count("*")).values("n"))
        return super().get_queryset(request).annotate(wager_count=Coalesce(count, 0))

    def get_urls(self) -> list[URLPattern]:
        own = [
            path("open/", self.admin_site.admin_view(self.open_view), name="games_round_open"),
            path(
                "<path:object_id>/act/<slug:action>/",
                self.admin_site.admin_view(self.act_view),
                name="games_round_act",
            ),
        ]
        return [*own, *super().get_urls()]

    # -- Columns and read-only fields --------------------------------------------------

    @admin.display(description="game", ordering="game")
    def game_name(self, round_: Round) -> str:
        return game_label(round_.game)  # high_roll_dice -> High Roll Dice

    @admin.display(description="wagers", ordering="wager_count")
    def wagers_count(self, round_: Round) -> int:
        return round_.wager_count

    @admin.display(description="options in force")
    def options_in_force(self, round_: Round) -> SafeString:
        return format_html("<pre>{}</pre>", json.dumps(round_.options, indent=2, sort_keys=True))

    @admin.display(description="waiting on a device")
    def device_wait(self, round_: Round) -> SafeString | str:
        return device_wait_html(round_waiting(round_), timezone.now())

    @admin.display(description="settlement request")
    def settlement(self, round_: Round) -> SafeString | str:
        request = getattr(round_, "settlement_request", None)
        if request is None:
            return "-"
        url = reverse("admin:games_settlementrequest_change", args=[request.pk])
        status = alerts.request_status(request, timezone.now())
        state = f"{alerts.STATUS_LABELS[status]}, sent {request.sends} time(s)"
        if status == alerts.SETTLED:
            state = "settled"
        elif status == alerts.FAILED:
            state += f": {request.error}"
        return format_html('<a href="{}">{}</a>', url, state)

    # -- Pages -------------------------------------------------------------------------

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if request.user.has_perm(RUN):
            extra_context = {**(extra_context or {}), "open_round_form": OpenRoundForm()}
        return super().changelist_view(request, extra_context)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        round_ = self.get_object(request, unquote(object_id))
        if round_ is not None:
            extra_context = {
                **(extra_context or {}),
                "round_actions": self.actions_shown(request, round_),
            }
        return super().change_view(request, object_id, form_url, extra_context)

    def actions_shown(self, request: HttpRequest, round_: Round) -> list[dict[str, Any]]:
        """The buttons this user may press on this round now, each with its empty form."""
        return [
            {
                "label": action.label,
                "url": reverse("admin:games_round_act", args=[round_.pk, name]),
                "form": action.form(round_=round_, auto_id=f"id_{name}_%s"),
            }
            for name, action in ROUND_ACTIONS.items()
            if action.shown(round_) and request.user.has_perm(action.permission)
        ]

    # -- The dealer's views --------------------------------------------------------------

    @staticmethod
    def _permission_check(request: HttpRequest, permission: str) -> None:
        if not request.user.has_perm(permission):
            raise PermissionDenied(f"{request.user} may not do this (needs {permission})")

    @staticmethod
    def _form_errors(request: HttpRequest, what: str, form: Any) -> None:
        for name, errors in form.errors.items():
            label = form.fields[name].label if name in form.fields else ""
            for error in errors:
                messages.error(
                    request, f"{what}: {label}: {error}" if label else f"{what}: {error}"
                )

    def act_view(self, request: HttpRequest, object_id: str, action: str) -> HttpResponse:
        """Run one dealer action (or an adjusting entry) on the round, then show its page."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        todo = ROUND_ACTIONS.get(action)
        round_ = self.get_object(request, unquote(object_id))
        if todo is None or round_ is None:
            raise Http404("no such round or action")
        if not self.has_view_permission(request, round_):
            raise PermissionDenied
        self._permission_check(request, todo.permission)
        what = f"{todo.label} at {round_}"
        form = todo.form(request.POST, round_=round_)
        if not form.is_valid():
            self._form_errors(request, what, form)
        else:
            run = partial(todo.run, round_, form.cleaned_data, by=request.user, now=timezone.now())
            if service_call(request, what, run) is not None:
                round_.refresh_from_db()
                status = round_.get_status_display().lower()
                messages.success(request, f"{what}: done; the round is {status}.")
        return HttpResponseRedirect(reverse("admin:games_round_change", args=[round_.pk]))

    def open_view(self, request: HttpRequest) -> HttpResponse:
        """Open the next round at the chosen table, then show it."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        self._permission_check(request, RUN)
        form = OpenRoundForm(request.POST)
        if not form.is_valid():
            self._form_errors(request, "Opening a round", form)
        else:
            table = form.cleaned_data["table"]
            call = partial(round_open, table, by=request.user, now=timezone.now())
            round_ = service_call(request, f"Opening a round at {table.number}", call)
            if round_ is not None:
                messages.success(request, f"{round_} is open for wagers.")
                return HttpResponseRedirect(reverse("admin:games_round_change", args=[round_.pk]))
        return HttpResponseRedirect(reverse("admin:games_round_changelist"))
