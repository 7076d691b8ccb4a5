"""The floor's records through the API: certificate holders, tables (open, suspend,
close, changeouts), Rules Submissions and layouts (compliance decides), equipment, the
compliance report, PAR sheets, and the audit trails."""

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils import timezone
from django_filters import rest_framework as filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import hold as hold_api
from casino.api.catalog import CATALOGS
from casino.api.errors import ApiError
from casino.api.fairness import FairnessActions
from casino.api.permissions import holder_path_register, scoped, seen
from casino.api.schema import ErrorSerializer
from casino.api.writes import write
from casino.models import (
    ApiWrite,
    AuditEntry,
    CertificateHolder,
    EquipmentSet,
    Layout,
    Lifecycle,
    RulesSubmission,
    SetInPlay,
    Table,
)
from casino.reports import report_rows, table_day_report
from casino.rules.equipment import COMPOSITION_CHOICES, REASONS
from casino.services import equipment, layouts, submissions
from casino.services.catalog import table_catalog
from casino.services.par import submission_par_request
from casino.services.tables import table_suspend
from gaming.tables import table_close, table_open

# Ids in paths are at most 18 digits: a longer one is no row of ours (404), never a 500.
ID = r"[0-9]{1,18}"
PAR_RETRY_SECONDS = 10  # a worker computes the slowest sheet (Pai Gow) in about 5 s


class ScopedViewSet(viewsets.GenericViewSet):
    """A token sees only its certificate holder's rows (`holder_path`, see permissions)."""

    lookup_value_regex = ID
    holder_path: str | None = "holder"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A view of a model says how its rows reach their holder, for every filter that
        names one of them (casino.api.permissions.seen)."""
        super().__init_subclass__(**kwargs)
        queryset = getattr(cls, "queryset", None)
        if queryset is not None:
            holder_path_register(queryset.model, cls.holder_path)

    def get_queryset(self):
        """The rows this caller may see."""
        return scoped(super().get_queryset(), self.request, self.holder_path)


class TableRef(filters.CharFilter):
    """`?table=`: a table's id, or its number on the floor (`SB-01`).

    A value of ASCII digits only is an id, as it always was (Table.number has no validator:
    a table numbered "12" is found by its id); any other value is a number, matched among
    the tables the caller sees (a staff session sees every holder's, so one number may name
    a table at each). An id or number that names no table is a 400 naming the parameter.
    """

    UNKNOWN_ID = "Select a valid choice. That choice is not one of the available choices."
    names_a_record = "table"  # the schema says one that names none is refused (api/schema.py)

    def __init__(self, field_name: str = "table", *, param: str = "table") -> None:
        self.param = param
        super().__init__(
            field_name=field_name,
            label="A table's id (digits only), or its number, e.g. SB-01.",
        )

    def filter(self, qs, value):
        """The rows at the table(s) `value` names."""
        if value in (None, ""):
            return qs
        # Among the tables the caller sees: another holder's is as unknown as none at all.
        tables = seen(Table.objects.all(), self.parent.request)
        if value.isascii() and value.isdigit():
            ids = [int(value)] if len(value) <= 18 else []
            ids = list(tables.filter(pk__in=ids).values_list("pk", flat=True))
            refusal = self.UNKNOWN_ID
        else:
            ids = list(tables.filter(number=value).values_list("pk", flat=True))
            refusal = f"no table numbered {value!r} (name a table by its id or its number)"
        if not ids:
            raise serializers.ValidationError({self.param: [refusal]})
        return qs.filter(**{f"{self.field_name}__in": ids})


class ReadOnly(mixins.ListModelMixin, mixins.RetrieveModelMixin, ScopedViewSet):
    """List and retrieve."""


def _now():
    return timezone.now()


# --- certificate holders and tables -----------------------------------------------------


class CertificateHolderSerializer(serializers.ModelSerializer):
    class Meta:
        model = CertificateHolder
        fields = ["id", "name"]


class CertificateHolderViewSet(ReadOnly):
    """Certificate holders (a token sees its own)."""

    queryset = CertificateHolder.objects.all()
    serializer_class = CertificateHolderSerializer
    holder_path = "id"
    ordering_fields = ["id", "name"]


class TableSerializer(serializers.ModelSerializer):
    class Meta:
        model = Table
        fields = [
            "id",
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
            "status",
            "status_changed_at",
            "closed_at",
        ]


class SetInPlaySerializer(serializers.ModelSerializer):
    class Meta:
        model = SetInPlay
        fields = [
            "id",
            "equipment_set",
            "table",
            "composition",
            "put_in_play_at",
            "locked_in_automated_shaker",
            "due_at",
            "warn_from",
            "limit",
            "schedule_state",
            "removed_at",
            "removal_reason",
            "removal_note",
        ]


class ChangeoutSerializer(serializers.Serializer):
    composition = serializers.ChoiceField(
        choices=COMPOSITION_CHOICES, help_text="The kind of set to change: five_dice, tiles_32..."
    )
    reason = serializers.ChoiceField(choices=sorted(REASONS))
    new_set = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=2**62,
        help_text="An equipment set in reserve to put in play; none leaves the table without.",
    )  # fmt: skip
    note = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")


class PutInPlaySerializer(serializers.Serializer):
    equipment_set = serializers.IntegerField(min_value=1, max_value=2**62)


class TableFilter(filters.FilterSet):
    class Meta:
        model = Table
        fields = ["holder", "game", "variant", "status", "operation"]


class TableViewSet(ReadOnly):
    """Tables; open, suspend and close them; record changeouts; the day's compliance report."""

    queryset = Table.objects.select_related("holder")
    serializer_class = TableSerializer
    filterset_class = TableFilter
    ordering_fields = ["number", "status", "game", "status_changed_at"]
    ordering = ["holder", "number"]
    read_permission: str | None = None  # an action's own (hold); else casino.view_table

    def _status_move(self, request: Request, service) -> Response:
        table = service(self.get_object(), by=request.user, now=_now())
        return Response(TableSerializer(table).data)

    @extend_schema(request=None, responses=TableSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def open(self, request: Request, pk: str) -> Response:
        """Open the table: refused (422, every reason with its section) unless compliant."""
        return self._status_move(request, table_open)

    @extend_schema(request=None, responses=TableSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def suspend(self, request: Request, pk: str) -> Response:
        """Suspend the table."""
        return self._status_move(request, table_suspend)

    @extend_schema(request=None, responses=TableSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def close(self, request: Request, pk: str) -> Response:
        """Close the table (refused while a round is in progress or wagers still work)."""
        return self._status_move(request, table_close)

    @extend_schema(request=ChangeoutSerializer, responses={201: SetInPlaySerializer})
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def changeout(self, request: Request, pk: str) -> Response:
        """Take a set out of play, saying why, and put a reserve set in (or none). Answers
        the set put in play; with none, the set taken out (its `removed_at` set)."""
        table = self.get_object()
        given = ChangeoutSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        new_set = given.validated_data.get("new_set")
        composition, now = given.validated_data["composition"], _now()
        row = equipment.set_changeout(
            table,
            composition,
            reason=given.validated_data["reason"],
            note=given.validated_data["note"],
            new_set=_equipment_set(request, new_set) if new_set else None,
            by=request.user,
            now=now,
        )
        if row is None:  # nothing put in: the row this changeout ended, removed at `now`
            row = SetInPlay.objects.filter(
                table=table, composition=composition, removed_at=now
            ).latest("pk")
        return Response(SetInPlaySerializer(row).data, status=201)

    @extend_schema(request=PutInPlaySerializer, responses={201: SetInPlaySerializer})
    @action(detail=True, methods=["post"], url_path="put-in-play")
    @write(key_required=False)
    def put_in_play(self, request: Request, pk: str) -> Response:
        """Put a reserve set in play where the table has none of its kind."""
        table = self.get_object()
        given = PutInPlaySerializer(data=request.data)
        given.is_valid(raise_exception=True)
        chosen = _equipment_set(request, given.validated_data["equipment_set"])
        row = equipment.set_put_in_play(table, chosen, by=request.user, now=_now())
        return Response(SetInPlaySerializer(row).data, status=201)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "day",
                hold_api.DAY_SCHEMA,
                description=f"A day, {hold_api.DAY_RULE}. Default: today.",
            )
        ],
        responses=inline_serializer(
            "ComplianceReport",
            {
                "table": serializers.CharField(),
                "day": serializers.DateField(),
                "rows": serializers.ListField(child=serializers.DictField()),
            },
        ),
    )
    @action(detail=True, methods=["get"], url_path="compliance-report")
    def compliance_report(self, request: Request, pk: str) -> Response:
        """The day's compliance report of the table: sets, overdue time, inspections, status."""
        if not request.user.has_perm("casino.view_compliance_report"):
            raise ApiError(403, "permission_denied", "needs casino.view_compliance_report")
        table = self.get_object()
        day = hold_api.day_of(request, timezone.localdate)
        report = table_day_report(table, day, now=_now())
        return Response({"table": table.number, "day": day, "rows": report_rows(report)})

    @extend_schema(
        parameters=[hold_api.DAY, hold_api.SHIFT, hold_api.FORMAT],
        responses=hold_api.hold_responses(hold_api.TableHoldSerializer),
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=hold_api.RENDERERS,
        read_permission=hold_api.HOLD_PERMISSION,
    )
    def hold(self, request: Request, pk: str) -> Response:
        """The table's hold against theory over a gaming day (or one shift): drop, win,
        hold, theoretical win, standard deviation, z-score and alert, with the day's shifts
        and Rules Submission versions (docs/statistics.md)."""
        return hold_api.table_hold_answer(request, self.get_object())

    @extend_schema(
        responses=PolymorphicProxySerializer(
            component_name="WagerCatalog",
            serializers=CATALOGS,
            resource_type_field_name="game",
        )
    )
    @action(detail=True, methods=["get"])
    def wagers(self, request: Request, pk: str) -> Response:
        """What the table offers under the Rules Submission in force: every wager kind with
        its name, paytable, when it may be made, reduced and removed, its minimum and
        maximum, its section and its house edge from the stored PAR sheet."""
        return Response(table_catalog(self.get_object(), _now()))

    def handle_exception(self, exc: Exception) -> Response:
        """Errors keep the one JSON body, CSV asked for or not."""
        response = super().handle_exception(exc)
        hold_api.errors_as_json(self.request)
        return response


def _equipment_set(request: Request, pk: int) -> EquipmentSet:
    return get_object_or_404(scoped(EquipmentSet.objects.all(), request, "holder"), pk=pk)


# --- Rules Submissions and layouts ------------------------------------------------------


class RulesSubmissionSerializer(serializers.ModelSerializer):
    class Meta:
        model = RulesSubmission
        fields = [
            "id",
            "holder",
            "game",
            "version",
            "status",
            "variants",
            "table_types",
            "options",
            "supersedes",
            "effective_at",
            "created_at",
            "submitted_at",
            "decided_at",
            "decision_note",
        ]


class ApproveSerializer(serializers.Serializer):
    effective_at = serializers.DateTimeField(required=False, help_text="Default: now.")


class RejectSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=2000, help_text="Why it is rejected.")


class RulesSubmissionFilter(filters.FilterSet):
    class Meta:
        model = RulesSubmission
        fields = ["holder", "game", "status"]


class RulesSubmissionViewSet(ReadOnly):
    """Rules Submissions (§ 601a.2); compliance approves or rejects a submitted one."""

    queryset = RulesSubmission.objects.all()
    serializer_class = RulesSubmissionSerializer
    filterset_class = RulesSubmissionFilter
    ordering_fields = ["id", "game", "version", "effective_at", "submitted_at"]

    @extend_schema(request=ApproveSerializer, responses=RulesSubmissionSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def approve(self, request: Request, pk: str) -> Response:
        """Approve a submitted version, in force from `effective_at`."""
        given = ApproveSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        done = submissions.submission_approve(
            self.get_object(),
            by=request.user,
            now=_now(),
            effective_at=given.validated_data.get("effective_at"),
        )
        return Response(RulesSubmissionSerializer(done).data)

    @extend_schema(request=RejectSerializer, responses=RulesSubmissionSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def reject(self, request: Request, pk: str) -> Response:
        """Reject a submitted version, saying why."""
        given = RejectSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        done = submissions.submission_reject(
            self.get_object(), by=request.user, now=_now(), reason=given.validated_data["note"]
        )
        return Response(RulesSubmissionSerializer(done).data)

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 409: ErrorSerializer})
    @action(detail=True, methods=["get"])
    def par(self, request: Request, pk: str) -> Response:
        """The PAR sheets of the submission: the house edge of every wager it offers,
        stored when it was submitted (a draft has none yet: 409; a version stored before
        sheets were kept is being computed by a worker: 503 with Retry-After)."""
        submission = self.get_object()
        if submission.par_sheets:
            return Response(submission.par_sheets)
        if submission.status == Lifecycle.DRAFT:
            detail = (
                f"{submission} is a draft: its PAR sheets are computed when it is submitted "
                f"(POST /api/v1/rules-submissions/{submission.pk}/submit/)"
            )
            raise ApiError(409, "par_not_computed", detail)
        # Computing here would hold a web worker for seconds (Pai Gow): a worker does it.
        submission_par_request(submission.pk)
        error = ApiError(
            503,
            "par_being_computed",
            f"the PAR sheets of {submission} are being computed; ask again in "
            f"{PAR_RETRY_SECONDS} seconds",
        )
        error.wait = PAR_RETRY_SECONDS
        raise error


class LayoutSerializer(serializers.ModelSerializer):
    class Meta:
        model = Layout
        fields = [
            "id",
            "holder",
            "name",
            "game",
            "variant",
            "elements",
            "status",
            "created_at",
            "submitted_at",
            "decided_at",
            "decision_note",
        ]


class LayoutFilter(filters.FilterSet):
    class Meta:
        model = Layout
        fields = ["holder", "game", "variant", "status"]


class LayoutViewSet(ReadOnly):
    """Layouts and signage (§ 601a.10(a)); compliance records the Bureau's decision."""

    queryset = Layout.objects.all()
    serializer_class = LayoutSerializer
    filterset_class = LayoutFilter
    ordering_fields = ["id", "name", "submitted_at", "decided_at"]

    def _decide(self, request: Request, *, approve: bool, note: str = "") -> Response:
        done = layouts.layout_decide(
            self.get_object(), approve=approve, note=note, by=request.user, now=_now()
        )
        return Response(LayoutSerializer(done).data)

    @extend_schema(request=None, responses=LayoutSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def approve(self, request: Request, pk: str) -> Response:
        """Record the layout's approval."""
        return self._decide(request, approve=True)

    @extend_schema(request=RejectSerializer, responses=LayoutSerializer)
    @action(detail=True, methods=["post"])
    @write(key_required=False)
    def reject(self, request: Request, pk: str) -> Response:
        """Record the layout's rejection, saying why."""
        given = RejectSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        return self._decide(request, approve=False, note=given.validated_data["note"])


# --- equipment ------------------------------------------------------------------------


class EquipmentSetSerializer(serializers.ModelSerializer):
    class Meta:
        model = EquipmentSet
        fields = [
            "id",
            "holder",
            "identifier",
            "composition",
            "reconstructed",
            "meets_603a_12_c",
            "received_at",
            "status",
        ]


class EquipmentSetFilter(filters.FilterSet):
    class Meta:
        model = EquipmentSet
        fields = ["holder", "composition", "status"]


class EquipmentSetViewSet(FairnessActions, ReadOnly):
    """Dice and tile sets, in reserve, in play or retired."""

    queryset = EquipmentSet.objects.all()
    serializer_class = EquipmentSetSerializer
    filterset_class = EquipmentSetFilter
    ordering_fields = ["id", "identifier", "received_at"]


class SetInPlayFilter(filters.FilterSet):
    table = TableRef()
    in_play = filters.BooleanFilter(
        field_name="removed_at", lookup_expr="isnull", label="Still in play"
    )
    put_in_play_after = filters.IsoDateTimeFilter(field_name="put_in_play_at", lookup_expr="gte")
    put_in_play_before = filters.IsoDateTimeFilter(field_name="put_in_play_at", lookup_expr="lt")

    class Meta:
        model = SetInPlay
        fields = ["table", "equipment_set", "composition", "removal_reason", "schedule_state"]


class SetInPlayViewSet(ReadOnly):
    """Each set's time in play at a table: the changeout history, and what is due when."""

    queryset = SetInPlay.objects.all()
    serializer_class = SetInPlaySerializer
    filterset_class = SetInPlayFilter
    holder_path = "table__holder"
    ordering_fields = ["put_in_play_at", "due_at", "removed_at"]


# --- the audit trails -----------------------------------------------------------------


class AuditEntrySerializer(serializers.ModelSerializer):
    record_type = serializers.SerializerMethodField()

    class Meta:
        model = AuditEntry
        fields = [
            "id",
            "at",
            "actor",
            "actor_name",
            "action",
            "record_type",
            "object_id",
            "object_repr",
            "before",
            "after",
        ]

    def get_record_type(self, entry: AuditEntry) -> str:
        return entry.content_type.model


class AuditEntryFilter(filters.FilterSet):
    record_type = filters.CharFilter(field_name="content_type__model")
    at_after = filters.IsoDateTimeFilter(field_name="at", lookup_expr="gte")
    at_before = filters.IsoDateTimeFilter(field_name="at", lookup_expr="lt")

    class Meta:
        model = AuditEntry
        fields = ["action", "actor", "object_id"]


class AuditEntryViewSet(ReadOnly):
    """Every change to a compliance record: who, when, what before, what after."""

    queryset = AuditEntry.objects.select_related("content_type")
    serializer_class = AuditEntrySerializer
    filterset_class = AuditEntryFilter
    holder_path = None  # the whole floor's trail: staff only
    ordering_fields = ["at", "id"]


class ApiWriteSerializer(serializers.ModelSerializer):
    actor_name = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = ApiWrite
        fields = [
            "id",
            "at",
            "user",
            "actor_name",
            "token",
            "method",
            "path",
            "body",
            "idempotency_key",
            "status_code",
            "response",
        ]


class ApiWriteFilter(filters.FilterSet):
    at_after = filters.IsoDateTimeFilter(field_name="at", lookup_expr="gte")
    at_before = filters.IsoDateTimeFilter(field_name="at", lookup_expr="lt")

    class Meta:
        model = ApiWrite
        fields = ["user", "token", "method", "status_code", "idempotency_key"]


class ApiWriteViewSet(ReadOnly):
    """Every write made through this API, with its answer (a token sees its holder's)."""

    queryset = ApiWrite.objects.select_related("user")
    serializer_class = ApiWriteSerializer
    filterset_class = ApiWriteFilter
    holder_path = "token__holder"
    ordering_fields = ["at", "id", "status_code"]
