"""Rounds through the API: open one, place wagers, any other wagering event, "no more
bets", enter the result, a no roll, a void; and read the wagers, resolutions and ledger
entries they made.

Every request that changes a round or moves money needs an Idempotency-Key
(casino/api/writes.py): a retry after a lost answer gets the first answer and changes
nothing. The round flow (gaming/rounds.py) checks everything else.
"""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api.errors import ApiError
from casino.api.fields import ClosedSerializer
from casino.api.floor import ReadOnly, ScopedViewSet, TableRef
from casino.api.overview import DeviceWaitSerializer
from casino.api.permissions import scoped, token_holder_id
from casino.api.represent import represented, represented_all
from casino.api.writes import write
from casino.logs import log_context
from casino.models import CertificateHolder, Table
from casino.rules.text import PLAYER_NAME_MAX_LENGTH
from games.models import LedgerEntry, LedgerLine, Resolution, Round, RoundEvent, Wager
from games.rules.core.money import AMOUNT_GIVEN, format_money
from games.services.round_state import round_locked_at
from games.state_schema import NextField, StateField
from gaming import rounds
from gaming.round_views import round_view, rounds_view
from gaming.waits import waiting_data

INTEGRATOR = RoundEvent.Source.INTEGRATOR


class RoundEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = RoundEvent
        fields = ["seq", "event", "payload", "source", "entered_by", "device", "at", "cite"]


def table_view(round_: Round) -> dict[str, Any]:
    """The round's `state` and `next` (gaming.round_views), read once a representation: a
    page's are read together beforehand (`views_attach`)."""
    view = getattr(round_, "_table_view", None)
    if view is None:
        view = round_._table_view = round_view(round_)
    return view


def views_attach(page: list[Round]) -> list[Round]:
    """The page's rounds, each with its `state` and `next` read in one go."""
    views = rounds_view(page)
    for round_ in page:
        round_._table_view = views[round_.pk]
    return page


class RoundSerializer(serializers.ModelSerializer):
    device_wait = serializers.SerializerMethodField(
        help_text='The device the round waits on since "no more bets" (null: none), with '
        "the ways out the rules allow; `alert` once it has waited CASINO_DEVICE_WAIT_SECONDS."
    )
    state = StateField(
        table_view,
        help_text="The table as the engine holds it after the round's last event: one "
        "shape per game, named by `game` (docs/api.md, The table's state).",
    )
    next = NextField(table_view, help_text="What the round takes now.")

    class Meta:
        model = Round
        fields = [
            "id",
            "table",
            "number",
            "game",
            "rules_submission",
            "options",
            "previous",
            "status",
            "opened_at",
            "opened_by",
            "closed_at",
            "result_at",
            "settled_at",
            "device_wait",
            "state",
            "next",
        ]

    @extend_schema_field(DeviceWaitSerializer(allow_null=True))
    def get_device_wait(self, round_: Round) -> dict | None:
        """Read with the round's `state` and `next` (a page's together, `views_attach`)."""
        waiting = table_view(round_)["device_wait"]
        if waiting is None:
            return None
        return DeviceWaitSerializer(waiting_data(waiting, timezone.now())).data


class RoundDetailSerializer(RoundSerializer):
    events = RoundEventSerializer(many=True, read_only=True)

    class Meta(RoundSerializer.Meta):
        fields = [*RoundSerializer.Meta.fields, "events"]


class WagerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Wager
        fields = ["id", "round", "table", "ref", "player", "kind", "amount", "extra", "placed_at"]


class RoundOpenSerializer(serializers.Serializer):
    table = serializers.IntegerField(min_value=1, max_value=2**62)


@extend_schema_field(
    {"type": "string", "format": "decimal", "pattern": f"^{AMOUNT_GIVEN.pattern}$"}
)
class AmountField(serializers.DecimalField):
    """An amount as the floor takes it: a decimal string, never a JSON number (its exact
    pattern in the schema: games.rules.core.money.AMOUNT_GIVEN)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_digits=14, decimal_places=2, **kwargs)


class WagerInSerializer(ClosedSerializer):
    """One wager as SCENARIOS.md gives it (the engine checks the rest, naming the section).
    Any other field is refused, 400 `invalid` naming it."""

    player = serializers.CharField(
        max_length=PLAYER_NAME_MAX_LENGTH,
        help_text=f"At most {PLAYER_NAME_MAX_LENGTH} characters as sent (400 `invalid` "
        "past it). Shown to people: no control, format (bidi, zero-width), private-use or "
        "separator code point, no space at either end or other than U+0020 (refused, 422, "
        "naming the code point); kept in Unicode NFC, which a few characters lengthen "
        "(U+0958 is kept as two code points; at most three times as long).",
    )
    kind = serializers.CharField(max_length=32, help_text="The wager's name in the engine.")
    amount = AmountField(
        help_text='A decimal string, e.g. "25.00": at most 12 digits before the point and 2 '
        'after ("25." and ".5" too), kept to the cent. A JSON number (25 or 25.5) is '
        "refused, 400 `invalid` naming the field."
    )
    on = serializers.JSONField(required=False, help_text="What the wager is on, if it names it.")
    seat = serializers.IntegerField(required=False)
    position = serializers.IntegerField(required=False, help_text="Betting position.")


class WagersInSerializer(serializers.Serializer):
    wagers = serializers.ListField(  # a list field: its limits reach the schema
        child=WagerInSerializer(),
        min_length=1,
        max_length=settings.CASINO_MAX_WAGERS_PER_REQUEST,
        help_text="At most CASINO_MAX_WAGERS_PER_REQUEST wagers (2000 by default; 400 "
        "`invalid` naming `wagers` past it), and a round holds CASINO_MAX_WAGERS_PER_ROUND in "
        "all, those working from earlier throws counted (5000 by default; 422 `refused` past "
        "it).",
    )


class WagersOutSerializer(serializers.Serializer):
    round = RoundSerializer()
    wagers = WagerSerializer(many=True)


class ResultSerializer(serializers.Serializer):
    event = serializers.CharField(max_length=32, help_text="e.g. throw, deal, settings.")
    # Any JSON value, null too: the engine judges the payload of each event (a 422 naming
    # what it expects), as the schema's untyped payload says.
    payload = serializers.JSONField(
        allow_null=True, help_text="The dice, tiles or settings (SCENARIOS.md)."
    )


class EventSerializer(serializers.Serializer):
    event = serializers.CharField(
        max_length=32,
        help_text="A wagering event of the round's game (SCENARIOS.md): craps remove, "
        "working, pass_dice; pai_gow bank; wagers in any game.",
    )
    payload = serializers.JSONField(
        allow_null=True,
        help_text='e.g. ["4.1"] for remove, {"4.1": false} for working, true for pass_dice, '
        '{"player": "p3", "co_bank": false} for bank.',
    )


class VoidSerializer(serializers.Serializer):
    section = serializers.CharField(max_length=32, help_text='e.g. "625a.7(c)".')


class RoundFilter(filters.FilterSet):
    holder = filters.ModelChoiceFilter(
        field_name="table__holder", queryset=CertificateHolder.objects.all()
    )
    opened_after = filters.IsoDateTimeFilter(field_name="opened_at", lookup_expr="gte")
    opened_before = filters.IsoDateTimeFilter(field_name="opened_at", lookup_expr="lt")
    table = TableRef()

    class Meta:
        model = Round
        fields = ["table", "game", "status"]


def _payload(request: Request) -> dict:
    if not isinstance(request.data, dict):
        raise ApiError(400, "invalid", "the body must be a JSON object")
    return request.data


class RoundViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, ScopedViewSet):
    """Rounds: open one at a table, then wagers, "no more bets" and the result."""

    queryset = Round.objects.all()
    holder_path = "table__holder"
    filterset_class = RoundFilter
    ordering_fields = ["opened_at", "number", "settled_at"]
    ordering = ["-opened_at", "-id"]

    def get_serializer_class(self):
        """The events only on one round."""
        return RoundDetailSerializer if self.action == "retrieve" else RoundSerializer

    def get_queryset(self):
        """Events fetched with the round they belong to; the table, whose status says
        whether wagering is open (`next`)."""
        rows = super().get_queryset().select_related("table")
        return rows.prefetch_related("events") if self.action == "retrieve" else rows

    def paginate_queryset(self, queryset):
        """The page, each round's `state` and `next` read together."""
        page = super().paginate_queryset(queryset)
        return None if page is None else views_attach(list(page))

    def get_object(self) -> Round:
        """One of the caller's rounds; a write (in its recorded transaction) takes it
        locked, with its table, in the one statement the round flow would have read again
        (games/services/round_state.py `round_locked_at`)."""
        if self.request.method != "POST":
            round_ = super().get_object()
        else:
            # The caller's scope (get_queryset's: the token's holder); ?filters play no part.
            try:
                round_ = round_locked_at(int(self.kwargs["pk"]), token_holder_id(self.request))
            except (Round.DoesNotExist, ValueError):
                raise Http404 from None
            self.check_object_permissions(self.request, round_)
        log_context(table=round_.table_id, round=round_.pk)  # on every line it logs
        return round_

    def _answer(self, round_: Round, status: int = 200, *, fresh: bool = False) -> Response:
        """The round as it is now: read again after the write, unless the service gave back
        the row it wrote (`fresh`: the round it opened, its table with it)."""
        if not fresh:
            round_.refresh_from_db()
        round_.__dict__.pop("_table_view", None)  # read after the write, once
        return Response(represented(RoundDetailSerializer, round_), status=status)

    def _event_enter(
        self, request: Request, given_as: type[serializers.Serializer], service: Callable
    ) -> Response:
        """One `{"event", "payload"}` to the round service that takes it, as the integrator."""
        given = given_as(data=_payload(request))
        given.is_valid(raise_exception=True)
        if given.validated_data["event"] == "wagers":  # before the round is locked
            rounds.wagers_count_check(given.validated_data["payload"], "Placing wagers")
        round_ = service(
            self.get_object(),
            given.validated_data["event"],
            given.validated_data["payload"],
            by=request.user,
            now=timezone.now(),
            source=INTEGRATOR,
        )
        return self._answer(round_)

    @extend_schema(request=RoundOpenSerializer, responses={201: RoundDetailSerializer})
    @write(key_required=True)
    def create(self, request: Request) -> Response:
        """Open the next round at a table (refused, 422, unless the table may start one)."""
        given = RoundOpenSerializer(data=_payload(request))
        given.is_valid(raise_exception=True)
        tables = scoped(Table.objects.all(), request, "holder")
        table = get_object_or_404(tables, pk=given.validated_data["table"])
        log_context(table=table.pk)
        round_ = rounds.round_open(table, by=request.user, now=timezone.now())
        log_context(round=round_.pk)
        return self._answer(round_, 201, fresh=True)

    @extend_schema(request=WagersInSerializer, responses={201: WagersOutSerializer})
    @action(detail=True, methods=["post"])
    @write(key_required=True)
    def wagers(self, request: Request, pk: str) -> Response:
        """Place wagers, all or none, each numbered ROUND.N and checked by the engine (at
        most CASINO_MAX_WAGERS_PER_REQUEST at once; a round holds CASINO_MAX_WAGERS_PER_ROUND,
        those working from earlier throws counted)."""
        wagers = _payload(request).get("wagers")
        rounds.wagers_count_check(wagers, "Placing wagers")  # before the round is locked
        round_ = self.get_object()
        placed = rounds.wagers_place(
            round_, wagers, by=request.user, now=timezone.now(), source=INTEGRATOR
        )
        # Placing wagers changes no field of the round: the rows as placed are the answer.
        return Response(
            {
                "round": represented(RoundSerializer, round_),
                "wagers": represented_all(WagerSerializer, placed),
            },
            status=201,
        )

    @extend_schema(request=EventSerializer, responses=RoundDetailSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=True)
    def events(self, request: Request, pk: str) -> Response:
        """A wagering event while wagering is open: take down or reduce a bet, call a bet
        or its odds on or off, pass the dice, bank the Pai Gow game, or new wagers. A result
        (throw, deal, ...) is refused here: it goes to result/."""
        return self._event_enter(request, EventSerializer, rounds.round_event)

    @extend_schema(request=None, responses=RoundDetailSerializer)
    @action(detail=True, methods=["post"], url_path="no-more-bets")
    @write(key_required=True)
    def no_more_bets(self, request: Request, pk: str) -> Response:
        """Call "no more bets": no wager is taken after it."""
        round_ = self.get_object()
        rounds.no_more_bets(round_, by=request.user, now=timezone.now(), source=INTEGRATOR)
        return self._answer(round_)

    @extend_schema(request=ResultSerializer, responses=RoundDetailSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=True)
    def result(self, request: Request, pk: str) -> Response:
        """Enter the dice, tiles, settings or selection; the one that decides the round
        sends it to be settled."""
        return self._event_enter(request, ResultSerializer, rounds.result_enter)

    @extend_schema(request=None, responses=RoundDetailSerializer)
    @action(detail=True, methods=["post"], url_path="no-roll")
    @write(key_required=True)
    def no_roll(self, request: Request, pk: str) -> Response:
        """Call "no roll" (§ 625a.7(a), § 623a.8(b), § 661a.5(b), § 675a.4(b), § 621a.10(a))."""
        round_ = rounds.no_roll(
            self.get_object(), by=request.user, now=timezone.now(), source=INTEGRATOR
        )
        return self._answer(round_)

    @extend_schema(request=VoidSerializer, responses=RoundDetailSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=True)
    def void(self, request: Request, pk: str) -> Response:
        """Void the round under the section that says so; every wager is returned."""
        given = VoidSerializer(data=_payload(request))
        given.is_valid(raise_exception=True)
        round_ = rounds.round_void(
            self.get_object(),
            given.validated_data["section"],
            by=request.user,
            now=timezone.now(),
            source=INTEGRATOR,
        )
        return self._answer(round_)


class WagerFilter(filters.FilterSet):
    table = TableRef()

    class Meta:
        model = Wager
        fields = ["round", "table", "player", "kind"]


class WagerViewSet(ReadOnly):
    """Wagers as placed."""

    queryset = Wager.objects.all()
    serializer_class = WagerSerializer
    filterset_class = WagerFilter
    holder_path = "table__holder"
    ordering_fields = ["placed_at", "id", "amount"]


class ResolutionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Resolution
        fields = [
            "id",
            "wager",
            "round",
            "event",
            "result",
            "stake",
            "net",
            "winnings",
            "vigorish",
            "payout_limit_reduction",
            "cite",
            "extra",
        ]


class ResolutionFilter(filters.FilterSet):
    table = TableRef("round__table")

    class Meta:
        model = Resolution
        fields = ["round", "wager", "result"]


class ResolutionViewSet(ReadOnly):
    """How each wager was decided, with the section and any payout-limit reduction."""

    queryset = Resolution.objects.all()
    serializer_class = ResolutionSerializer
    filterset_class = ResolutionFilter
    holder_path = "round__table__holder"
    ordering_fields = ["id", "net"]


class LedgerLineSerializer(serializers.ModelSerializer):
    class Meta:
        model = LedgerLine
        fields = ["id", "account", "player", "wager", "kind", "amount"]


class LedgerLineRowSerializer(serializers.ModelSerializer):
    """A ledger line with the entry and the table it belongs to (`GET /ledger-lines/`)."""

    class Meta:
        model = LedgerLine
        fields = ["id", "entry", "table", "account", "player", "wager", "kind", "amount"]


# A line as LedgerLineSerializer shows it, from its columns: the fields' order, and each
# column's name in a values() row.
LINE_COLUMNS = {
    "id": "id",
    "account": "account",
    "player": "player",
    "wager": "wager_id",
    "kind": "kind",
    "amount": "amount",
}


def lines_attach(entries: list[LedgerEntry]) -> list[LedgerEntry]:
    """The entries, each with every line as LedgerLineSerializer shows it (`lines_shown`),
    read for all of them in one query of plain rows: a settlement of 5,000 wagers has some
    30,000 lines, and a serializer and a model instance a line cost most of the answer."""
    shown: dict[int, list[dict[str, Any]]] = {entry.pk: [] for entry in entries}
    rows = LedgerLine.objects.filter(entry__in=list(shown)).order_by("id")
    for entry_id, *values in rows.values_list("entry_id", *LINE_COLUMNS.values()):
        line = dict(zip(LINE_COLUMNS, values, strict=True))
        line["amount"] = format_money(line["amount"])
        shown[entry_id].append(line)
    for entry in entries:
        entry.lines_shown = shown[entry.pk]
    return entries


@extend_schema_field(LedgerLineSerializer(many=True))
class LinesField(serializers.ReadOnlyField):
    """An entry's lines as LedgerLineSerializer shows them, read by `lines_attach`."""


class LedgerEntrySerializer(serializers.ModelSerializer):
    lines = LinesField(
        source="lines_shown",
        help_text="Every line of the entry, by id (they sum to zero). A round of thousands of "
        "wagers posts a settlement of as many lines times two to six: the same lines, in "
        "pages, are at GET /api/v1/ledger-lines/?entry={id}.",
    )
    line_count = serializers.IntegerField(
        read_only=True, help_text="How many lines the entry has (they sum to zero)."
    )

    class Meta:
        model = LedgerEntry
        fields = [
            "id",
            "key",
            "kind",
            "table",
            "round",
            "posted_at",
            "posted_by",
            "memo",
            "lines",
            "line_count",
        ]


class LedgerEntryFilter(filters.FilterSet):
    posted_after = filters.IsoDateTimeFilter(field_name="posted_at", lookup_expr="gte")
    posted_before = filters.IsoDateTimeFilter(field_name="posted_at", lookup_expr="lt")
    table = TableRef()

    class Meta:
        model = LedgerEntry
        fields = ["table", "round", "kind"]


def _line_count() -> Subquery:
    """An entry's lines counted, for each entry of a page (not every entry grouped)."""
    lines = LedgerLine.objects.filter(entry=OuterRef("pk")).order_by().values("entry")
    return Subquery(lines.annotate(n=Count("*")).values("n"))


class LedgerEntryViewSet(ReadOnly):
    """The append-only ledger: each entry's lines balance to zero. An entry carries every
    line and `line_count`; its lines are also at /ledger-lines/?entry=, in pages."""

    queryset = LedgerEntry.objects.annotate(line_count=Coalesce(_line_count(), 0))
    serializer_class = LedgerEntrySerializer
    filterset_class = LedgerEntryFilter
    holder_path = "table__holder"
    ordering_fields = ["posted_at", "id"]

    def paginate_queryset(self, queryset):
        """The page, every entry's lines read together."""
        page = super().paginate_queryset(queryset)
        return None if page is None else lines_attach(list(page))

    def get_object(self) -> LedgerEntry:
        """One of the caller's entries, with its lines."""
        (entry,) = lines_attach([super().get_object()])
        return entry


class LedgerLineFilter(filters.FilterSet):
    round = filters.ModelChoiceFilter(
        field_name="entry__round", queryset=Round.objects.all(), help_text="The round's id."
    )
    table = TableRef()

    class Meta:
        model = LedgerLine
        fields = ["entry", "round", "table", "account", "player", "wager", "kind"]


class LedgerLineViewSet(ReadOnly):
    """Ledger lines, in pages: an entry's (`?entry=`), a round's (`?round=`), a table's, a
    player's, a wager's."""

    queryset = LedgerLine.objects.all()
    serializer_class = LedgerLineRowSerializer
    filterset_class = LedgerLineFilter
    holder_path = "table__holder"
    ordering_fields = ["id", "amount"]
