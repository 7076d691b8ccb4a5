"""A model instance as a serializer shows it, without building the serializer each time.

DRF builds a ModelSerializer's fields on every instance (`get_fields` maps each model
field again): for the wager's answer that was more time than its SQL. A serializer that
only shows (no context, no request, no validation) keeps no state between calls, so one
instance a class, built on first use, shows every row alike and gives the same data as
`Serializer(row).data`.
"""

from collections.abc import Iterable
from functools import cache
from typing import Any

from rest_framework import serializers


@cache
def _shower(serializer_class: type[serializers.Serializer]) -> serializers.Serializer:
    return serializer_class()


def represented(serializer_class: type[serializers.Serializer], row: Any) -> dict[str, Any]:
    """`serializer_class(row).data`, from the class's one serializer."""
    return _shower(serializer_class).to_representation(row)


def represented_all(
    serializer_class: type[serializers.Serializer], rows: Iterable[Any]
) -> list[dict[str, Any]]:
    """`serializer_class(rows, many=True).data`, from the class's one serializer."""
    shower = _shower(serializer_class)
    return [shower.to_representation(row) for row in rows]
