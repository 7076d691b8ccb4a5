"""The API schema is a contract that only grows: docs/api/openapi.yaml against the schema
callers already hold (tests/api_fuzz/openapi_baseline.yaml, the schema as it last
shipped).

A break is anything a caller written against the baseline could trip on: an operation, a
component, a property, a parameter, an enum value, a response status or header gone; a
type or format changed (a component named otherwise is one: a generated client loses its
class); a request property or parameter newly required, a request body newly closed
(`additionalProperties: false`) or a nullable request field no longer nullable; a response
field no longer always present or newly nullable. An extension (a new operation, an
optional field, a new enum value, a new status) is growth.

A break the issue asked for, or the schema stating a rule the server already kept, is named
in STATED with its reason; anything else fails here with what broke. A release that ships
the schema makes it the new baseline (copy docs/api/openapi.yaml over it).
"""

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)
BASELINE = yaml.safe_load((BASE_DIR / "tests" / "api_fuzz" / "openapi_baseline.yaml").read_text())
CURRENT = yaml.safe_load((BASE_DIR / "docs" / "api" / "openapi.yaml").read_text())

# What the checker reports that is no break for a caller of the baseline: the schema saying
# a rule the server kept already, or a limit an issue asked for, each a pattern of the
# breaks it covers with why (ADR 0012 lists those of the baseline's own release). Empty:
# the baseline is the schema as it last shipped.
STATED: dict[str, str] = {}


def _stated(found: str) -> bool:
    return any(re.fullmatch(pattern, found) for pattern in STATED)


def _ref(node: dict[str, Any]) -> str | None:
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    all_of = node.get("allOf")
    if all_of and len(all_of) == 1 and "$ref" in all_of[0]:
        return all_of[0]["$ref"].rsplit("/", 1)[-1]
    return None


class Growth:
    """The breaks found between two schemas, in words."""

    def __init__(self, base: dict[str, Any], current: dict[str, Any]) -> None:
        self.base = base
        self.current = current
        self.breaks: list[str] = []

    def _resolved(self, schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
        name = _ref(node)
        return schema["components"]["schemas"].get(name, {}) if name else node

    def _types(self, base: dict[str, Any], cur: dict[str, Any], where: str) -> None:
        named_base, named_cur = _ref(base), _ref(cur)
        if named_base and named_base != named_cur:
            self.breaks.append(f"{where}: was {named_base}, now {named_cur or 'inline'}")
            return
        resolved_base = self._resolved(self.base, base)
        resolved_cur = self._resolved(self.current, cur)
        for key in ("type", "format"):
            if key in resolved_base and resolved_base[key] != resolved_cur.get(key):
                self.breaks.append(
                    f"{where}: {key} was {resolved_base[key]!r}, now {resolved_cur.get(key)!r}"
                )

    def _narrowed(self, base: dict[str, Any], cur: dict[str, Any], where: str) -> None:
        """A request's value the baseline allowed that the schema now forbids."""
        before, now = self._resolved(self.base, base), self._resolved(self.current, cur)
        for key in ("maxLength", "maximum", "maxItems"):
            if key in now and (key not in before or now[key] < before[key]):
                self.breaks.append(f"{where}: {key} {before.get(key)} -> {now[key]}")
        for key in ("minLength", "minimum", "minItems"):
            if key in now and (key not in before or now[key] > before[key]):
                self.breaks.append(f"{where}: {key} {before.get(key)} -> {now[key]}")
        if "pattern" in now and now["pattern"] != before.get("pattern"):
            self.breaks.append(f"{where}: pattern {before.get('pattern')} -> {now['pattern']}")
        if "enum" in now and "enum" not in before:
            self.breaks.append(f"{where}: an enum")

    def compare(self, base: Any, cur: Any, where: str, *, request: bool) -> None:
        """Every break from `base` to `cur`, a schema read by a request or an answer."""
        if not isinstance(base, dict) or not isinstance(cur, dict):
            return
        self._types(base, cur, where)
        if request:
            self._narrowed(base, cur, where)
        gone = [v for v in base.get("enum", []) if v not in cur.get("enum", [])]
        if gone:
            self.breaks.append(f"{where}: enum values removed {gone}")
        if request and base.get("nullable") and not cur.get("nullable"):
            self.breaks.append(f"{where}: no longer nullable")
        if not request and cur.get("nullable") and not base.get("nullable"):
            self.breaks.append(f"{where}: now nullable")
        for name, prop in base.get("properties", {}).items():
            if name not in cur.get("properties", {}):
                self.breaks.append(f"{where}.{name}: removed")
            else:
                self.compare(prop, cur["properties"][name], f"{where}.{name}", request=request)
        if request:
            new = set(cur.get("required", [])) - set(base.get("required", []))
            if new:
                self.breaks.append(f"{where}: newly required {sorted(new)}")
            if cur.get("additionalProperties") is False and base.get("additionalProperties") in (
                None,
                True,
            ):
                self.breaks.append(f"{where}: closed (additionalProperties false)")
        else:
            absent = set(base.get("required", [])) - set(cur.get("required", []))
            if absent:
                self.breaks.append(f"{where}: no longer always present {sorted(absent)}")
        if "items" in base:
            self.compare(base["items"], cur.get("items", {}), f"{where}[]", request=request)
        if isinstance(base.get("additionalProperties"), dict):
            extra = cur.get("additionalProperties")
            self.compare(base["additionalProperties"], extra, f"{where}{{}}", request=request)
        for key in ("oneOf", "anyOf"):
            if key in base:
                before = {_ref(x) or repr(x) for x in base[key]}
                now = {_ref(x) or repr(x) for x in cur.get(key, [])}
                if before - now:
                    self.breaks.append(f"{where}: {key} lost {sorted(before - now)}")

    def _parameters(self, label: str, base: dict[str, Any], cur: dict[str, Any]) -> None:
        before = {(p["in"], p["name"]): p for p in base.get("parameters", [])}
        now = {(p["in"], p["name"]): p for p in cur.get("parameters", [])}
        for (where, name), parameter in before.items():
            if (where, name) not in now:
                self.breaks.append(f"{label} {where} {name}: removed")
                continue
            if now[where, name].get("required") and not parameter.get("required"):
                self.breaks.append(f"{label} {where} {name}: now required")
            self.compare(
                parameter.get("schema", {}),
                now[where, name].get("schema", {}),
                f"{label} {where} {name}",
                request=True,
            )
        for where, name in set(now) - set(before):
            if now[where, name].get("required"):
                self.breaks.append(f"{label} {where} {name}: a new required parameter")

    def _body(self, label: str, base: dict[str, Any], cur: dict[str, Any]) -> None:
        body, new_body = base.get("requestBody"), cur.get("requestBody")
        if body is None:
            if new_body and new_body.get("required"):
                self.breaks.append(f"{label}: a new required body")
            return
        if new_body is None:
            self.breaks.append(f"{label}: its body removed")
            return
        if new_body.get("required") and not body.get("required"):
            self.breaks.append(f"{label}: its body now required")
        for media, spec in body["content"].items():
            if media not in new_body["content"]:
                self.breaks.append(f"{label}: no longer takes {media}")
            else:
                schema = new_body["content"][media].get("schema", {})
                self.compare(spec.get("schema", {}), schema, f"{label} body", request=True)

    def _responses(self, label: str, base: dict[str, Any], cur: dict[str, Any]) -> None:
        for status, response in base.get("responses", {}).items():
            answer = cur.get("responses", {}).get(status)
            if answer is None:
                self.breaks.append(f"{label}: status {status} removed")
                continue
            for media, spec in response.get("content", {}).items():
                if media not in answer.get("content", {}):
                    self.breaks.append(f"{label} {status}: {media} removed")
                else:
                    schema = answer["content"][media].get("schema", {})
                    self.compare(spec.get("schema", {}), schema, f"{label} {status}", request=False)
            for header in response.get("headers", {}):
                if header not in answer.get("headers", {}):
                    self.breaks.append(f"{label} {status}: header {header} removed")

    def check(self) -> list[str]:
        """Every break, compared component by component and operation by operation."""
        components = self.current["components"]["schemas"]
        for name, component in self.base["components"]["schemas"].items():
            if name not in components:
                self.breaks.append(f"component {name}: removed")
            else:
                self.compare(component, components[name], name, request=name.endswith("Request"))
        for path, methods in self.base["paths"].items():
            for method, operation in methods.items():
                label = f"{method.upper()} {path}"
                now = self.current["paths"].get(path, {}).get(method)
                if now is None:
                    self.breaks.append(f"{label}: removed")
                    continue
                self._parameters(label, operation, now)
                self._body(label, operation, now)
                self._responses(label, operation, now)
        return self.breaks


def breaks(base: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What a caller of `base` could trip on in `current`."""
    return Growth(base, current).check()


def test_the_schema_only_grows_from_the_baseline():
    found = breaks(BASELINE, CURRENT)
    unexplained = [b for b in found if not _stated(b)]
    assert not unexplained, "the schema broke its contract:\n" + "\n".join(unexplained)


def test_every_stated_break_is_still_one():
    """A reason kept for a break that is gone is a stale exception: drop it."""
    found = breaks(BASELINE, CURRENT)
    stale = [p for p in STATED if not any(re.fullmatch(p, b) for b in found)]
    assert not stale, stale


def test_the_baseline_is_a_schema_callers_hold():
    assert BASELINE["info"]["version"] == CURRENT["info"]["version"] == "1"
    assert "CompositionEnum" in BASELINE["components"]["schemas"]
    assert "/api/v1/rounds/{id}/wagers/" in BASELINE["paths"]


# --- the checker finds each kind of break ---------------------------------------------------


def _mutated(change) -> dict[str, Any]:
    schema = copy.deepcopy(BASELINE)
    change(schema)
    return schema


def _component(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return schema["components"]["schemas"][name]


def _operation(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    return schema["paths"][path][method]


def _parameters(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return _operation(schema, "/api/v1/rounds/", "get")["parameters"]


def _parameter(schema: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in _parameters(schema) if p["name"] == name)


def _rename_composition(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    components["EquipmentSetCompositionEnum"] = components.pop("CompositionEnum")
    components["EquipmentSet"]["properties"]["composition"] = {
        "$ref": "#/components/schemas/EquipmentSetCompositionEnum"
    }


def _new_required_parameter(schema: dict[str, Any]) -> None:
    _parameters(schema).append(
        {"in": "query", "name": "shift", "required": True, "schema": {"type": "string"}}
    )


MUTATIONS = {
    "GET /api/v1/floor/: removed": lambda s: s["paths"]["/api/v1/floor/"].pop("get"),
    "component Floor: removed": lambda s: s["components"]["schemas"].pop("Floor"),
    "Table.min_wager: removed": lambda s: _component(s, "Table")["properties"].pop("min_wager"),
    "RoundStatusEnum: enum values removed ['open']": lambda s: _component(s, "RoundStatusEnum")[
        "enum"
    ].remove("open"),
    "Table.seats: type was 'integer', now 'string'": lambda s: _component(s, "Table")["properties"][
        "seats"
    ].update(type="string"),
    "EquipmentSet.composition: was CompositionEnum, now EquipmentSetCompositionEnum": (
        _rename_composition
    ),
    "WagerInRequest: newly required ['seat']": lambda s: _component(s, "WagerInRequest")[
        "required"
    ].append("seat"),
    "GET /api/v1/rounds/ query page_size: now required": lambda s: _parameter(
        s, "page_size"
    ).update(required=True),
    "GET /api/v1/rounds/ query shift: a new required parameter": _new_required_parameter,
    "GET /api/v1/rounds/ query table: removed": lambda s: _parameters(s).remove(
        _parameter(s, "table")
    ),
    "GET /api/v1/floor/: status 200 removed": lambda s: _operation(s, "/api/v1/floor/", "get")[
        "responses"
    ].pop("200"),
    "ChangeoutRequest: closed (additionalProperties false)": lambda s: _component(
        s, "ChangeoutRequest"
    ).update(additionalProperties=False),
    "ChangeoutRequest.note: maxLength 500 -> 100": lambda s: _component(s, "ChangeoutRequest")[
        "properties"
    ]["note"].update(maxLength=100),
    "GET /api/v1/rounds/ query game: pattern ^[^\\x00]*$ -> ^x$": lambda s: _parameter(s, "game")[
        "schema"
    ].update(pattern="^x$"),
    "Table.closed_at: now nullable": lambda s: _component(s, "Table")["properties"][
        "closed_at"
    ].pop("nullable"),
}


@pytest.mark.parametrize("expected", sorted(MUTATIONS))
def test_the_checker_finds_a_break(expected):
    """Each kind of break, made in a copy of the baseline, is found and named. (Table's
    closed_at is nullable in the baseline: the copy read as the baseline makes it so.)"""
    mutated = _mutated(MUTATIONS[expected])
    if expected.endswith("now nullable"):
        assert expected in breaks(mutated, BASELINE)
    else:
        assert expected in breaks(BASELINE, mutated)


def test_the_checker_takes_growth():
    """A new operation, an optional property, a new enum value, a new status: no break."""

    def grow(schema: dict[str, Any]) -> None:
        schema["paths"]["/api/v1/new/"] = {"get": {"responses": {"200": {"description": ""}}}}
        _component(schema, "WagerInRequest")["properties"]["note"] = {"type": "string"}
        _component(schema, "RoundStatusEnum")["enum"].append("paused")
        _operation(schema, "/api/v1/floor/", "get")["responses"]["418"] = {"description": ""}

    assert breaks(BASELINE, _mutated(grow)) == []
