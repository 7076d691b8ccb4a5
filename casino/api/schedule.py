"""GET /api/v1/equipment-schedule/: the admin's equipment schedule as a paged list (issue
35, item 1). Every set in play, overdue and due soon first, each by when it must come
out; a token sees its certificate holder's tables only. casino.services.schedule reads it,
for the admin's page and here alike."""

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api.permissions import token_holder_id
from casino.models import Table
from casino.rules.equipment import COMPOSITION_CHOICES, STATES
from casino.services.schedule import ScheduleRow, equipment_schedule

_S = serializers


class ScheduleRowSerializer(_S.Serializer):
    """One set in play, as the schedule shows it."""

    set_in_play = _S.IntegerField(source="set_in_play.pk", help_text="The set's time in play.")
    table = _S.IntegerField(source="table.pk")
    table_number = _S.CharField(source="table.number")
    table_status = _S.ChoiceField(choices=Table.Status.choices, source="table.status")
    holder = _S.IntegerField(source="table.holder_id")
    equipment_set = _S.IntegerField(source="equipment_set.pk")
    identifier = _S.CharField(source="equipment_set.identifier")
    composition = _S.ChoiceField(choices=COMPOSITION_CHOICES)
    kind = _S.CharField(help_text='The composition\'s label: "five dice", "32 Pai Gow tiles".')
    rule = _S.CharField(help_text='How long the set may stay in play: "24 hours", "1 month".')
    section = _S.CharField(help_text='The section that sets it: "58 Pa. Code § 623a.7(d)".')
    schedule_state = _S.ChoiceField(
        choices=[(s, s.replace("_", " ")) for s in STATES],
        source="state",
        help_text="At the moment of the request, from due_at (what the gate would say).",
    )
    due_at = _S.DateTimeField(help_text="The last moment the set may be in play.")
    warn_from = _S.DateTimeField(help_text="From here on the set is due soon.")
    put_in_play_at = _S.DateTimeField(source="set_in_play.put_in_play_at")
    put_in_play_by = _S.CharField(
        allow_null=True, help_text="The username of who put it in play; null when unknown."
    )

    def to_representation(self, row: ScheduleRow) -> dict[str, Any]:
        data = super().to_representation(row)
        data["put_in_play_by"] = data["put_in_play_by"] or None
        return data


class EquipmentScheduleView(generics.ListAPIView):
    """Every set in play (a token: at its certificate holder's tables), overdue first, then
    due soon, then in date; within each, the soonest due first."""

    serializer_class = ScheduleRowSerializer
    read_permission = "casino.view_setinplay"
    filter_backends: list[Any] = []

    def get_queryset(self) -> list[ScheduleRow]:  # type: ignore[override]
        """The schedule now, as the caller may see it."""
        return equipment_schedule(timezone.now(), holder_id=token_holder_id(self.request))

    @extend_schema(operation_id="equipment_schedule_list")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Every set in play (a token: at its certificate holder's tables), overdue first,
        then due soon, then in date; within each, the soonest due first. A page at a time."""
        return super().get(request, *args, **kwargs)
