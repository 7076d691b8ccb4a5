"""schemathesis' hooks for the live run (test_schemathesis_live.py loads them through
SCHEMATHESIS_HOOKS): every check runs as schemathesis ships it, but one.

`positive_data_acceptance` says a schema-valid request must get a 2xx (or 401, 403, 404,
409, 429, 5xx). The schema states five refusals of a schema-valid request that no JSON
Schema keyword can express; `positive_data_acceptance_as_stated` is the shipped check with
these five forgiven, each only when the answer is exactly the one the schema states, and
it replaces the shipped one in schemathesis.toml:

- 422 `refused` or `idempotency_key_reused`: the floor's rules refuse the request in the
  floor's present state (the round is closed, the table already open), or the key was
  used for another request: the schema's 422 says so, and a schema cannot say which
  state a record is in.
- 400 `invalid` naming only query parameters whose schema marks them
  `x-names-a-record` (`?round=`, `?table=`): the value names no record, which the
  parameter's description states; a schema cannot list which ids exist.
- 400 `invalid` naming only body fields whose schema marks them `x-checked-by-server` (a
  webhook's `url`: its host's addresses, resolved), sent in the body: the field's
  description states what the server checks, which no JSON Schema keyword can (a name's
  addresses in the DNS).
- 400 `parse_error` naming U+0000 when the body sent holds one: the schema's 400 states
  that a body holding U+0000 anywhere is refused (the database cannot store it); a JSON
  Schema could say it only with a pattern on every string and every name.
- 414 `uri_too_long`, when the request line as sent is over the limit the schema's 414
  states: OpenAPI has no keyword for a request line's length.

Every other refusal of a schema-valid request still fails the run.
"""

import re
from typing import Any

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

NAMES_A_RECORD = "x-names-a-record"
CHECKED_BY_SERVER = "x-checked-by-server"
STATED_422 = {"refused", "idempotency_key_reused"}
LINE_LIMIT = re.compile(r"over (\d+) bytes")


def _error(response: Any) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _names_no_record(case: Any, fields: dict[str, Any]) -> bool:
    """Every field in error is a query parameter that names a record, and was sent."""
    if not fields:
        return False
    sent = case.query or {}
    for name in fields:
        parameter = case.operation.query.get(name)
        if parameter is None or name not in sent or NAMES_A_RECORD not in parameter.definition:
            return False
    return True


def _body_properties(case: Any) -> dict[str, Any]:
    """The JSON body's properties as the operation declares them (its bundled $ref read)."""
    for body in case.operation.body or ():
        if body.media_type != "application/json":
            continue
        schema = body.definition.get("schema", {})
        ref = schema.get("$ref", "")
        if ref.startswith("#/x-bundled/"):
            schema = schema.get("x-bundled", {}).get(ref.rsplit("/", 1)[-1], {})
        return schema.get("properties", {})
    return {}


def _checked_in_body(case: Any, fields: dict[str, Any]) -> bool:
    """Every field in error is a body field the schema marks checked by the server, sent."""
    body = getattr(case, "body", None)
    if not fields or not isinstance(body, dict):
        return False
    declared = _body_properties(case)
    return all(name in case.body and CHECKED_BY_SERVER in declared.get(name, {}) for name in fields)


def _line_over_limit(case: Any, response: Any) -> bool:
    """The request line as sent is longer than the limit the operation's 414 states."""
    declared = case.operation.responses.find_by_status_code(414)
    found = LINE_LIMIT.search((declared.definition.get("description") or "") if declared else "")
    if found is None:
        return False
    request = response.request
    target = request.path_url  # the path and query, percent-encoded, as on the wire
    return len(f"{request.method} {target} HTTP/1.1") > int(found.group(1))


def _body_has_nul(response: Any) -> bool:
    body = response.request.body or b""
    body = body if isinstance(body, bytes) else body.encode()
    return b"\\u0000" in body or b"\x00" in body


def refusal_stated(case: Any, response: Any) -> bool:
    """The answer to a schema-valid request is a refusal the schema states (see above)."""
    code = _error(response).get("code")
    if response.status_code == 422:
        return code in STATED_422
    if response.status_code == 400 and code == "invalid":
        fields = _error(response).get("fields") or {}
        return _names_no_record(case, fields) or _checked_in_body(case, fields)
    if response.status_code == 400 and code == "parse_error":
        return "U+0000" in _error(response).get("detail", "") and _body_has_nul(response)
    if response.status_code == 414 and code == "uri_too_long":
        return _line_over_limit(case, response)
    return False


@schemathesis.check
def positive_data_acceptance_as_stated(ctx: Any, response: Any, case: Any) -> bool | None:
    """schemathesis' positive_data_acceptance, but for the refusals the schema states."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if refusal_stated(case, response):
            return None
        raise
