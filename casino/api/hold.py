"""Hold against theory through the API: a table's gaming day (`/tables/{id}/hold/`) and
the floor's (`/hold/`), as JSON or as CSV (`?format=csv`, or `Accept: text/csv`: DRF's
renderer negotiation). docs/statistics.md says what each figure means."""

import csv
import io
from collections.abc import Callable
from dataclasses import asdict
from datetime import date
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.errors import ApiError
from casino.api.permissions import scoped
from casino.models import Table
from casino.rules.days import DAY_PATTERN, FIRST_DAY, LAST_DAY, DayRefused, day_or
from games.services.hold import (
    SHIFTS,
    current_gaming_day,
    floor_hold,
    table_hold_day,
)

# Reading the hold reads the wagers and their resolutions.
HOLD_PERMISSION = "games.view_wager"
_S = serializers


class HoldSerializer(_S.Serializer):
    """One table's hold against theory over one period."""

    table_id = _S.IntegerField()
    table_number = _S.CharField()
    game = _S.CharField()
    period = _S.CharField(
        help_text='The gaming day ("2026-11-24"), a shift of it ("2026-11-24 shift 2") or its '
        'play under one Rules Submission version ("2026-11-24 Rules Submission v3").'
    )
    start = _S.DateTimeField()
    end = _S.DateTimeField()
    rounds = _S.IntegerField(help_text="Rounds whose wagers are counted.")
    wagers = _S.IntegerField(help_text="Wagers placed in the period and decided (not void).")
    drop = _S.DecimalField(max_digits=16, decimal_places=2, help_text="Their stakes.")
    win = _S.DecimalField(
        max_digits=16, decimal_places=2, help_text="The house's win on them (the ledger's)."
    )
    hold = _S.DecimalField(
        max_digits=12, decimal_places=4, allow_null=True, help_text="win / drop; null at no drop."
    )
    theoretical_win = _S.DecimalField(
        max_digits=16,
        decimal_places=2,
        help_text="The sum of stake x the exact house edge of each wager under its options.",
    )
    standard_deviation = _S.DecimalField(
        max_digits=16, decimal_places=2, help_text="Of the house's win (docs/statistics.md)."
    )
    z_score = _S.DecimalField(
        max_digits=10,
        decimal_places=2,
        allow_null=True,
        help_text="(win - theoretical_win) / standard_deviation; null when that is 0.",
    )
    threshold = _S.DecimalField(
        max_digits=4, decimal_places=2, help_text="The holder's |z| alert threshold."
    )
    alert = _S.BooleanField(help_text="|z_score| >= threshold.")


class TableHoldSerializer(HoldSerializer):
    """A table's gaming day (or one shift of it), with the day's breakdowns."""

    day = _S.DateField()
    shift = _S.IntegerField(allow_null=True, help_text="The shift asked for, or null.")
    shifts = HoldSerializer(many=True, help_text="The day's three shifts of 8 hours.")
    submissions = HoldSerializer(
        many=True, help_text="The day's play under each Rules Submission version."
    )


class FloorHoldSerializer(_S.Serializer):
    """Every table with play on a gaming day."""

    day = _S.DateField()
    tables = HoldSerializer(many=True)


CSV_COLUMNS = list(HoldSerializer().fields)
_TEXT = ("table_number", "game", "period")


class HoldCsvRenderer(BaseRenderer):
    """One row a Hold: the table's day (or shift), its shifts and its Rules Submission
    versions; or each table of the floor."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        """The CSV text of a TableHold or FloorHold body."""
        floor = "tables" in data
        rows = data["tables"] if floor else [data, *data["shifts"], *data["submissions"]]
        out = io.StringIO()
        writer = csv.DictWriter(
            out, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\r\n"
        )
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(k, row[k]) for k in CSV_COLUMNS})
        return out.getvalue().encode(self.charset)


def _cell(name: str, value: Any) -> Any:
    if value is None:
        return ""
    # A spreadsheet runs a cell starting =, +, - or @ as a formula: not a name of ours.
    if name in _TEXT and str(value)[:1] in ("=", "+", "-", "@"):
        return "'" + str(value)
    return value


RENDERERS = [JSONRenderer, HoldCsvRenderer]
FORMAT = OpenApiParameter(
    "format",
    OpenApiTypes.STR,
    enum=["json", "csv"],
    description="csv for the same figures as CSV (or send Accept: text/csv). Default json. "
    "Any other, or none (`?format=`), is a 404.",
)
# A day in a query: the schema's format and pattern (casino/rules/days.py), to the letter.
DAY_SCHEMA = {"type": "string", "format": "date", "pattern": DAY_PATTERN}
DAY_RULE = f"YYYY-MM-DD, {FIRST_DAY} to {LAST_DAY}"
DAY = OpenApiParameter(
    "day",
    DAY_SCHEMA,
    description=f"A gaming day, {DAY_RULE} (it starts at CASINO_GAMING_DAY_START). Default: "
    "the current gaming day.",
)
SHIFT = OpenApiParameter(
    "shift", OpenApiTypes.INT, enum=[1, 2, 3], description="One shift of 8 hours of the day."
)


def hold_responses(serializer: type[_S.Serializer]) -> dict[Any, Any]:
    return {
        (200, "application/json"): serializer,
        (200, "text/csv"): OpenApiResponse(
            OpenApiTypes.STR, description="The same figures, one row a Hold, with a header."
        ),
    }


def errors_as_json(request: Request) -> None:
    """An error keeps the one JSON body (casino/api/errors.py) when CSV was asked for."""
    if isinstance(getattr(request, "accepted_renderer", None), HoldCsvRenderer):
        request.accepted_renderer = JSONRenderer()
        request.accepted_media_type = JSONRenderer.media_type


class CsvErrors:
    """A view whose errors are JSON whatever it renders (errors_as_json)."""

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)  # type: ignore[misc]
        errors_as_json(self.request)  # type: ignore[attr-defined]
        return response


def day_of(request: Request, default: Callable[[], date]) -> date:
    """The day `?day=` names (casino/rules/days.py: the admin's rule too), `default()`
    without it; a 400 `invalid` naming it otherwise."""
    try:
        return day_or(request.query_params.get("day"), default)
    except DayRefused as refused:
        raise ApiError(400, "invalid", str(refused), fields={"day": [refused.why]}) from None


def _day(request: Request) -> date:
    return day_of(request, current_gaming_day)


def _shift(request: Request) -> int | None:
    text = request.query_params.get("shift")
    if text is None:
        return None
    if text not in {str(n) for n in range(1, SHIFTS + 1)}:
        why = f"{text!r} is not 1, 2 or 3"
        raise ApiError(400, "invalid", f"shift {why}", fields={"shift": [why]})
    return int(text)


def _attachment(response: Response, request: Request, name: str) -> Response:
    if getattr(request, "accepted_renderer", None) is not None and (
        request.accepted_renderer.format == "csv"
    ):
        response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


def table_hold_answer(request: Request, table: Table) -> Response:
    """GET /api/v1/tables/{id}/hold/: the table's day (or ?shift=), with its breakdowns."""
    day, shift = _day(request), _shift(request)
    held = table_hold_day(table, day)
    hold = held.day if shift is None else held.shifts[shift - 1]
    body = {
        **asdict(hold),
        "day": day,
        "shift": shift,
        "shifts": held.shifts,
        "submissions": held.submissions,
    }
    data = TableHoldSerializer(body).data
    suffix = f"-shift-{shift}" if shift else ""
    return _attachment(Response(data), request, f"hold-{table.number}-{day}{suffix}")


class FloorHoldView(CsvErrors, APIView):
    """Every table with play on a gaming day (a token: its certificate holder's)."""

    read_permission = HOLD_PERMISSION
    renderer_classes = RENDERERS

    @extend_schema(
        operation_id="hold_list",
        parameters=[DAY, FORMAT],
        responses=hold_responses(FloorHoldSerializer),
    )
    def get(self, request: Request) -> Response:
        """Hold against theory of every table with play that gaming day, by number."""
        day = _day(request)
        holder_tables = scoped(Table.objects.all(), request, "holder")
        holds = floor_hold(day, tables=holder_tables.values_list("pk", flat=True))
        data = FloorHoldSerializer({"day": day, "tables": holds}).data
        return _attachment(Response(data), request, f"hold-{day}")
