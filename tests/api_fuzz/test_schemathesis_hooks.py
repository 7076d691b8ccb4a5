"""The refusals the live schemathesis run forgives to positive_data_acceptance
(schemathesis_hooks.py) are exactly the five the schema states, each only as stated: any
other refusal of a schema-valid request still fails the run."""

import json
from types import SimpleNamespace
from typing import Any

import pytest

from tests.api_fuzz.schemathesis_hooks import refusal_stated

LIMIT_414 = (
    "The request line (the method, the path with its query, and the protocol) is over 4094 "
    "bytes (CASINO_API_MAX_REQUEST_LINE): nothing was read."
)
# The query parameters of a list as the schema declares them.
QUERY = {
    "round": {"name": "round", "in": "query", "x-names-a-record": "round"},
    "player": {"name": "player", "in": "query"},
}


class Parameters(dict):
    def get(self, name: str, default: Any = None) -> Any:
        found = super().get(name)
        return SimpleNamespace(definition=found) if found else default


def case(query: dict[str, str] | None = None) -> Any:
    responses = SimpleNamespace(
        find_by_status_code=lambda status: (
            SimpleNamespace(definition={"description": LIMIT_414}) if status == 414 else None
        )
    )
    operation = SimpleNamespace(query=Parameters(QUERY), responses=responses)
    return SimpleNamespace(operation=operation, query=query or {})


def response(status: int, code: str, *, fields=None, detail="", path="/api/v1/wagers/", body=b""):
    error = {
        "status": status,
        "code": code,
        "detail": detail,
        "reasons": [],
        "fields": fields or {},
    }
    request = SimpleNamespace(method="GET", path_url=path, body=body)
    return SimpleNamespace(status_code=status, json=lambda: error, request=request)


@pytest.mark.parametrize("code", ["refused", "idempotency_key_reused"])
def test_a_422_of_the_floor_s_rules_or_a_reused_key_is_stated(code):
    assert refusal_stated(case(), response(422, code))


def test_a_400_naming_only_parameters_that_name_a_record_is_stated():
    sent = case({"round": "99"})
    assert refusal_stated(sent, response(400, "invalid", fields={"round": ["no such round"]}))
    # A parameter the schema does not mark, or one not sent, is no stated refusal.
    both = case({"round": "99", "player": "x"})
    fields = {"round": ["no such round"], "player": ["bad"]}
    assert not refusal_stated(both, response(400, "invalid", fields=fields))
    assert not refusal_stated(case(), response(400, "invalid", fields={"round": ["no"]}))
    assert not refusal_stated(sent, response(400, "invalid"))


def test_a_parse_error_naming_u0000_is_stated_only_when_the_body_holds_one():
    detail = "JSON parse error - wagers[0].player contains U+0000 (a control character)"
    with_nul = json.dumps({"wagers": [{"player": "a\x00b"}]}).encode()
    assert refusal_stated(case(), response(400, "parse_error", detail=detail, body=with_nul))
    assert not refusal_stated(case(), response(400, "parse_error", detail=detail, body=b"{}"))
    other = "JSON parse error - Expecting value"
    assert not refusal_stated(case(), response(400, "parse_error", detail=other, body=with_nul))


def test_a_414_is_stated_only_for_a_line_over_the_schema_s_limit():
    over = "/api/v1/wagers/?player=" + "p" * (4095 - len("GET /api/v1/wagers/?player= HTTP/1.1"))
    assert refusal_stated(case(), response(414, "uri_too_long", path=over))
    assert not refusal_stated(case(), response(414, "uri_too_long", path=over[:-1]))


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, "idempotency_key_invalid"), (400, "bad_request"), (415, "unsupported_media_type"),
     (413, "body_too_large"), (422, "invalid")],
)  # fmt: skip
def test_any_other_refusal_is_not_forgiven(status, code):
    assert not refusal_stated(case({"round": "1"}), response(status, code))


def posted(body: Any, properties: dict[str, Any]) -> Any:
    """A case posting `body` to an operation whose JSON body declares `properties`."""
    declared = SimpleNamespace(
        media_type="application/json",
        definition={"schema": {"type": "object", "properties": properties}},
    )
    operation = SimpleNamespace(query=Parameters({}), body=[declared], responses=None)
    return SimpleNamespace(operation=operation, query={}, body=body)


def test_a_400_naming_only_body_fields_checked_by_the_server_is_stated():
    properties = {
        "url": {"type": "string", "x-checked-by-server": "its host's addresses"},
        "description": {"type": "string"},
    }
    url_refused = {"url": ["10.1.2.3 is a private address"]}
    assert refusal_stated(posted({"url": "https://x"}, properties), response(400, "invalid",
                          fields=url_refused))  # fmt: skip
    # A field the schema does not mark, or one not sent, is no stated refusal.
    both = {"url": ["bad"], "description": ["bad"]}
    sent = posted({"url": "https://x", "description": "d"}, properties)
    assert not refusal_stated(sent, response(400, "invalid", fields=both))
    assert not refusal_stated(posted({}, properties), response(400, "invalid", fields=url_refused))
