"""Request fields and bodies that take exactly what the schema says.

DRF's BooleanField also takes "yes", "off", "1", 1 and their like where the schema says
`boolean`; StrictBooleanField takes JSON's true and false only. A ClosedSerializer takes
no field it does not name (the schema's `additionalProperties: false`, casino/api/schema.py):
each other one is refused, 400 `invalid` naming it.
"""

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean, true or false; anything else is a 400 naming the field."""

    default_error_messages = {"invalid": "must be true or false (a JSON boolean), not {input}"}

    def to_internal_value(self, data: Any) -> bool:
        """The boolean itself; a string, a number or null is refused."""
        if type(data) is bool:
            return data
        self.fail("invalid", input=_shown(data))


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else f"a {type(value).__name__} of {len(text)} characters"


class ClosedSerializer(serializers.Serializer):
    """A request body that takes no field it does not name: each other one is refused,
    400 `invalid` naming it (and the schema says `additionalProperties: false`)."""

    closed = True

    def to_internal_value(self, data: Any) -> Any:
        """The body's fields, once no field it does not name is in it."""
        if isinstance(data, Mapping):
            taken = [name for name, field in self.fields.items() if not field.read_only]
            unknown = sorted(str(name) for name in data if name not in taken)
            if unknown:
                why = f"is not a field this body takes (it takes {', '.join(taken)})"
                raise serializers.ValidationError({name: [why] for name in unknown})
        return super().to_internal_value(data)
