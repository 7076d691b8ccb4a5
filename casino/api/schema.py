"""The OpenAPI schema's own rules: every recorded write declares its Idempotency-Key, and
the schema is the same whichever database generated it."""

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from casino.api.writes import HEADER, KEY_REQUIRED

# Django gives an integer column its database's range as validators (SQLite's 64 bits,
# PostgreSQL's 16 or 32): left out, so the committed schema does not depend on the database.
DATABASE_BOUNDS = {2**15 - 1, 2**31 - 1, 2**63 - 1, -(2**15), -(2**31), -(2**63)}


class ApiSchema(AutoSchema):
    """drf-spectacular's schema, with the Idempotency-Key of writes.write()."""

    def get_override_parameters(self) -> list[Any]:
        """The view's own parameters, and the header when the handler is a recorded write."""
        parameters = super().get_override_parameters()
        name = getattr(self.view, "action", None) or self.method.lower()
        required = getattr(getattr(self.view, name, None), KEY_REQUIRED, None)
        if required is None:
            return parameters
        header = OpenApiParameter(
            HEADER,
            OpenApiTypes.STR,
            OpenApiParameter.HEADER,
            required=required,
            description=(
                "A unique string per intended change (a UUID). Sent again with the same body, "
                "the first answer comes back and nothing changes; with another body, the "
                "request is refused (422)."
            ),
        )
        return [*parameters, header]


def database_bounds_drop(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """A postprocessing hook: integer bounds that are only the database's column range go."""

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "integer":
                dropped = False
                for bound in ("maximum", "minimum"):
                    if node.get(bound) in DATABASE_BOUNDS:
                        del node[bound]
                        dropped = True
                if dropped and node.get("format") == "int64":
                    del node["format"]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(result)
    return result
