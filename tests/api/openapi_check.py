"""An answer held to a component of the committed schema (docs/api/openapi.yaml), with
jsonschema: OpenAPI 3.0's `nullable` read as JSON Schema's null type."""

import functools
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from django.conf import settings

SCHEMA = Path(settings.BASE_DIR) / "docs" / "api" / "openapi.yaml"


def _json_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@functools.cache
def _components() -> dict[str, Any]:
    return _json_schema(yaml.safe_load(SCHEMA.read_text())["components"])


def component_errors(name: str, value: Any) -> list[str]:
    """Where `value` is not the schema's component `name` (none: it is)."""
    validator = jsonschema.Draft7Validator(
        {"$ref": f"#/components/schemas/{name}", "components": _components()}
    )
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]


def component_fields(name: str) -> set[str]:
    """The fields the schema's component `name` declares."""
    return set(_components()["schemas"][name]["properties"])
