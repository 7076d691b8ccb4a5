"""Dice fairness per set through the API: one set's (`equipment-sets/{id}/fairness/`) and
every set in play (`equipment-sets/fairness/`), as JSON or CSV (`?format=csv` or
`Accept: text/csv`: DRF's content negotiation, one renderer more on these two actions).

The figures are games.services.fairness's; docs/statistics.md says how they are made.
"""

import csv
import dataclasses
import io
from collections.abc import Iterable, Mapping
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api.errors import ApiError
from casino.api.permissions import token_holder_id
from games.services.fairness import Fairness, NotDice, floor_fairness, set_fairness

CSV_COLUMNS = (
    "set_id",
    "identifier",
    "composition",
    "table_number",
    "throws",
    "test",
    "category",
    "count",
    "expected",
    "chi_square",
    "degrees_of_freedom",
    "p_value",
    "valid",
    "threshold",
    "alert",
)


def _decimal(**kwargs: Any) -> serializers.DecimalField:
    # No fixed places: a p-value may be 1e-40, written out in full, never rounded to 0.
    return serializers.DecimalField(max_digits=None, decimal_places=None, **kwargs)


class FaceCountsSerializer(serializers.Serializer):
    label = serializers.CharField(help_text='"all dice", or "green dice" / "red dice".')
    counts = serializers.ListField(
        child=serializers.IntegerField(), help_text="Faces 1 to 6, in order."
    )
    dice = serializers.IntegerField(help_text="Dice read.")
    expected = _decimal(help_text="Dice / 6: a face's expected count from fair dice.")
    chi_square = _decimal(allow_null=True, help_text="Pearson's statistic; null with no dice.")
    degrees_of_freedom = serializers.IntegerField()
    p_value = _decimal(allow_null=True, help_text="10 significant digits; null with no dice.")
    valid = serializers.BooleanField(help_text="Every expected count is 5 or more.")


class StartingPlacesSerializer(serializers.Serializer):
    source = serializers.ChoiceField(choices=["shaker", "generator"])
    deals = serializers.IntegerField()
    counts = serializers.ListField(
        child=serializers.IntegerField(), help_text="Places 1 to 8 counted from number one."
    )
    expected = serializers.ListField(child=_decimal())
    chi_square = _decimal(allow_null=True)
    degrees_of_freedom = serializers.IntegerField()
    p_value = _decimal(allow_null=True)
    valid = serializers.BooleanField()
    alert = serializers.BooleanField(help_text="The generator's places only.")


class FairnessSerializer(serializers.Serializer):
    set_id = serializers.IntegerField()
    identifier = serializers.CharField()
    composition = serializers.CharField()
    table_number = serializers.CharField(allow_null=True)
    in_play_from = serializers.DateTimeField(allow_null=True)
    in_play_to = serializers.DateTimeField(allow_null=True, help_text="Null while in play.")
    throws = serializers.IntegerField(help_text="Throws recorded (an Extra Roll is one more).")
    dice = serializers.IntegerField(help_text="Dice read.")
    overall = FaceCountsSerializer()
    positions = FaceCountsSerializer(many=True, help_text="The dice the game tells apart.")
    starting_places = StartingPlacesSerializer(many=True, help_text="Pai Gow only.")
    threshold = _decimal(help_text="The holder's p-value threshold.")
    alert = serializers.BooleanField(help_text="A valid overall test under the threshold.")
    advice = serializers.CharField(help_text="What to do about an alert; empty without one.")


class FairnessCSVRenderer(BaseRenderer):
    """One row a face (or a Pai Gow place) of each test, the test's figures repeated."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context=None):
        """The serialized fairness (one or a list) as CSV."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        if isinstance(data, Mapping) and "results" in data:  # a page of the floor's list
            data = data["results"]
        for fairness in [data] if isinstance(data, Mapping) else data:
            writer.writerows(_rows(fairness))
        return out.getvalue().encode(self.charset)


def _rows(fairness: Mapping[str, Any]) -> Iterable[list[Any]]:
    head = [fairness["set_id"]]
    head += [_text(fairness[k]) for k in ("identifier", "composition", "table_number")]
    head.append(fairness["throws"])
    tail = [fairness["threshold"]]
    for test in [fairness["overall"], *fairness["positions"]]:
        expected = [test["expected"]] * len(test["counts"])
        yield from _test_rows(head, test["label"], test, expected, [*tail, fairness["alert"]])
    for places in fairness["starting_places"]:
        label = f"starting places ({places['source']})"
        yield from _test_rows(head, label, places, places["expected"], [*tail, places["alert"]])


def _text(value: str | None) -> str:
    """A name as a cell: a spreadsheet runs a cell starting =, +, - or @ as a formula."""
    if value is None:
        return ""
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def _attachment(request: Request, response: Response, name: str) -> Response:
    """CSV comes as a file to save, named for what it holds."""
    if isinstance(getattr(request, "accepted_renderer", None), FairnessCSVRenderer):
        response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


def _test_rows(
    head: list[Any],
    label: str,
    test: Mapping[str, Any],
    expected: list[Any],
    tail: list[Any],
) -> Iterable[list[Any]]:
    figures = [test["chi_square"], test["degrees_of_freedom"], test["p_value"], test["valid"]]
    for category, (count, each) in enumerate(zip(test["counts"], expected, strict=True), 1):
        yield [*head, label, category, count, each, *figures, *tail]


_CSV = OpenApiResponse(OpenApiTypes.STR, description="The same figures, one row a category.")


class FairnessActions:
    """The equipment sets' fairness actions (EquipmentSetViewSet takes them)."""

    @extend_schema(
        responses={(200, "application/json"): FairnessSerializer, (200, "text/csv"): _CSV},
        description="A dice set's fairness over every throw it saw in play (404 for tiles).",
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[JSONRenderer, FairnessCSVRenderer],
        pagination_class=None,
        filter_backends=[],
    )
    def fairness(self, request: Request, pk: str) -> Response:
        """A dice set's face counts, chi-square, p-value and alert."""
        equipment_set = self.get_object()
        try:
            fairness = set_fairness(equipment_set)
        except NotDice as refusal:
            raise ApiError(404, "not_found", str(refusal)) from None
        name = f"fairness-{equipment_set.pk}"
        return _attachment(request, Response(_data(fairness)), name)

    @extend_schema(
        responses={
            (200, "application/json"): FairnessSerializer(many=True),
            (200, "text/csv"): _CSV,
        },
        description="Every dice set in play now, by table number; the CSV is the page's.",
    )
    @action(
        detail=False,
        methods=["get"],
        url_path="fairness",
        url_name="floor-fairness",
        renderer_classes=[JSONRenderer, FairnessCSVRenderer],
        filter_backends=[],
    )
    def floor_fairness(self, request: Request) -> Response:
        """The fairness of every dice set in play that the caller sees, in pages as every
        list (a floor's sets fit one page of 500)."""
        every = floor_fairness(holder_id=token_holder_id(request))
        page = self.paginate_queryset(every)  # type: ignore[attr-defined]
        response = self.get_paginated_response([_data(f) for f in page])  # type: ignore[attr-defined]
        return _attachment(request, response, "fairness-floor")

    def finalize_response(self, request: Request, response: Response, *args, **kwargs):
        """An error asked for as CSV is still the one JSON error body."""
        if response.status_code >= 400 and isinstance(
            getattr(request, "accepted_renderer", None), FairnessCSVRenderer
        ):
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]


def _data(fairness: Fairness) -> dict[str, Any]:
    return FairnessSerializer(dataclasses.asdict(fairness)).data
