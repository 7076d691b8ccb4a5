"""The OpenAPI schema's own rules, so that a client generator takes it whole:

- every recorded write declares its Idempotency-Key, and its answers `Idempotent-Replayed`;
- every operation declares the error statuses it can answer, each with the one error
  body (`Error`, its `code` an enum of casino.api.errors.ERROR_CODES), and Retry-After on
  429 and 503, WWW-Authenticate on 401;
- a response's fields are all required: a serializer writes every field it has;
- ids in paths are integers;
- a request body whose serializer says `closed = True` (a casino.api.fields.ClosedSerializer)
  takes no field it does not name (`additionalProperties: false`): the server refuses any
  other, naming it; a request's boolean is JSON's true or false (StrictBooleanField; DRF's
  own BooleanField in a request is a warning, which fails the schema's generation);
- a body field the server checks beyond what a JSON Schema says (a webhook's URL: its
  host's addresses, resolved) says what it checks, in words and as `x-checked-by-server`:
  a value it refuses is a 400 `invalid` naming the field;
- a query parameter that names a record (`?table=`, `?round=`) says that one naming none
  is refused (a 400), in words and as `x-names-a-record` (the record's kind); a free-text
  filter's pattern says it takes any string but one holding U+0000;
- the schema is the same whichever database generated it.

Together with the server's own rules (casino/api/filtering.py, pagination.py,
negotiation.py, middleware.py, writes.py) the schema says exactly what the server takes:
tests/api_fuzz/test_schemathesis_live.py holds them to it with every check of schemathesis.
"""

from typing import Any

from django.conf import settings
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.drainage import warn
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import get_manager, get_view_model
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from casino.api.errors import ERROR_CODES
from casino.api.fields import ClosedSerializer
from casino.api.filtering import FREE_TEXT_PATTERN, free_text, names_a_record
from casino.api.writes import HEADER, KEY_LENGTH, KEY_PATTERN, KEY_REQUIRED, KEY_RULE, REPLAYED

# Django gives an integer column its database's range as validators (SQLite's 64 bits,
# PostgreSQL's 16 or 32): left out, so the committed schema does not depend on the database.
DATABASE_BOUNDS = {2**15 - 1, 2**31 - 1, 2**63 - 1, -(2**15), -(2**31), -(2**63)}
# The ids in paths: at most 18 digits (casino.api.floor.ID); any other is a 404.
PATH_ID = {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}
JSON = "application/json"
ERROR_CODE_CHOICES = sorted(ERROR_CODES)  # the enum's name: SPECTACULAR_SETTINGS

# What each error status means, in the schema's words.
ERROR_STATUSES: dict[int, str] = {
    400: "The request is malformed or invalid (`invalid`, `fields` naming each value; "
    "`parse_error`: a body that is not JSON, or that holds U+0000 or a lone surrogate in any "
    "string or name, which the database cannot store; an Idempotency-Key missing or "
    "invalid): nothing changed.",
    401: "No credentials, or a token that is malformed, unknown, revoked or inactive.",
    403: "The caller's role may not do this (the detail names the permission).",
    404: "No such record among the caller's (a token sees its certificate holder's only), "
    "or no such page.",
    409: "Not ready: see the detail.",
    413: "The body is over the limit (CASINO_API_MAX_BODY_BYTES): nothing was read.",
    414: "The request line (the method, the path with its query, and the protocol) is over "
    "{max_request_line} bytes (CASINO_API_MAX_REQUEST_LINE): nothing was read.",
    415: "The body is not application/json: the API takes JSON only.",
    422: "Refused by the floor's rules (`refused`: each reason names its section), or an "
    "Idempotency-Key used for another request (`idempotency_key_reused`): nothing changed.",
    429: "Too many requests: send again after Retry-After seconds.",
    503: "A service the floor needs is unreachable, or the answer is being computed: send "
    "again after Retry-After seconds (a write with the same Idempotency-Key).",
}
# Answered by every operation: no credentials, a role without the permission, a `?format=`
# the API does not render (404), a request line over the limit (414), throttled, an outage.
ALWAYS = (401, 403, 404, 414, 429, 503)
# Answered by every write: its body is parsed (400, 413, 415), the floor's rules or a
# reused key (422).
WRITES = (400, 413, 415, 422)
# Query parameters that never give a 400: a bad page or format is a 404, an ordering on no
# field is ignored (DRF).
NEVER_REFUSED = {"page", "ordering", "format"}
# The extension that names the kind of record a query parameter's value names.
NAMES_A_RECORD = "x-names-a-record"
# The extension that says what the server checks of a body field beyond its schema; a field
# says it with a `checked_by_server` attribute (the words).
CHECKED_BY_SERVER = "x-checked-by-server"
# The statuses a recorded write's answer may have, and so its replay too.
REPLAYABLE = ("200", "201", "204", "400", "403", "404", "409", "422")
RETRY_AFTER = {
    "description": "Seconds to wait before sending the request again.",
    "required": True,
    "schema": {"type": "integer", "minimum": 0},
}


class ErrorSerializer(serializers.Serializer):
    """The one body of every error the API answers (docs/api.md, Errors)."""

    status = serializers.IntegerField(help_text="The HTTP status, again.")
    code = serializers.ChoiceField(
        choices=ERROR_CODE_CHOICES,
        help_text="What went wrong, for a program: "
        + "; ".join(f"`{code}` {text}" for code, text in ERROR_CODES.items())
        + ".",
    )
    detail = serializers.CharField(help_text="One sentence for a person.")
    reasons = serializers.ListField(
        child=serializers.CharField(),
        help_text="Each thing that stops the request (a refusal names its section).",
    )
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='A request field (e.g. "wagers[0].amount") -> what is wrong with it.',
    )


class ApiSchema(AutoSchema):
    """drf-spectacular's schema, with the rules of the module's docstring."""

    def get_override_parameters(self) -> list[Any]:
        """The view's own parameters, and the header when the handler is a recorded write."""
        parameters = super().get_override_parameters()
        required = self._key_required()
        if required is None:
            return parameters
        header = OpenApiParameter(
            HEADER,
            {"type": "string", "minLength": 1, "maxLength": KEY_LENGTH, "pattern": KEY_PATTERN},
            OpenApiParameter.HEADER,
            required=required,
            description=(
                f"A unique string per intended change (a UUID), {KEY_RULE} (any other is "
                "refused, 400 `idempotency_key_invalid`). Sent again with the same body, the "
                "first answer comes back and nothing changes; with another body, the request "
                "is refused (422)."
            ),
        )
        return [*parameters, header]

    def _key_required(self) -> bool | None:
        """None unless the handler is a recorded write; then whether its key is required."""
        name = getattr(self.view, "action", None) or self.method.lower()
        return getattr(getattr(self.view, name, None), KEY_REQUIRED, None)

    def _get_filter_parameters(self) -> list[dict[str, Any]]:
        """The filters' parameters: a free-text one's pattern (no U+0000); one whose value
        names a record says it is refused when it names none (casino/api/filtering.py)."""
        parameters = super()._get_filter_parameters()
        backends = [b for b in self.get_filter_backends() if issubclass(b, DjangoFilterBackend)]
        model = get_view_model(self.view) if backends else None
        filtersets = [
            backend().get_filterset_class(self.view, get_manager(model).none())
            for backend in backends
            if model is not None
        ]
        by_name = {
            name: filter_
            for filterset in filtersets
            if filterset is not None
            for name, filter_ in filterset.base_filters.items()
        }
        for parameter in parameters:
            filter_ = by_name.get(parameter["name"])
            if filter_ is None:
                continue
            if free_text(filter_) and parameter["schema"] == {"type": "string"}:
                parameter["schema"] = {**parameter["schema"], "pattern": FREE_TEXT_PATTERN}
            record = names_a_record(filter_)
            if record is None:
                continue
            said = parameter.get("description") or f"The id of the {record}."
            parameter["description"] = (
                f"{said} One that names no {record} the caller sees (a token: its "
                f"certificate holder's) is refused (400 `invalid` naming `{parameter['name']}`)."
            )
            parameter[NAMES_A_RECORD] = record
        return parameters

    def _map_basic_serializer(self, serializer: Any, direction: str) -> dict[str, Any]:
        """A response's fields are all required: DRF writes every field a serializer has
        (null where a nullable one has no value); a closed request body takes no other."""
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "response" and schema.get("properties"):
            schema["required"] = sorted(schema["properties"])
        if direction == "request" and getattr(serializer, "closed", False):
            if not isinstance(serializer, ClosedSerializer):  # it would say, not refuse
                warn(f"{type(serializer).__name__} says closed but is no ClosedSerializer")
            schema["additionalProperties"] = False
        return schema

    def _map_serializer_field(self, field: Any, direction: str, **kwargs: Any) -> dict[str, Any]:
        """A field's schema, with what the server checks beyond it, when the field says."""
        schema = super()._map_serializer_field(field, direction, **kwargs)
        if direction == "request" and type(field) is serializers.BooleanField:
            # DRF's takes "yes", "off", 1: the schema's boolean is JSON's true or false.
            warn(f"{field.field_name}: a request's boolean is a StrictBooleanField")
        checked = getattr(field, "checked_by_server", None)
        if checked and direction == "request":
            schema[CHECKED_BY_SERVER] = checked
        return schema

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        """The operation, with integer path ids and its errors declared."""
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "path" and parameter["name"] == "id":
                parameter["schema"] = dict(PATH_ID)
        responses = operation["responses"]
        for status in self._error_statuses(operation):
            responses.setdefault(str(status), self._error_response(status))
        for status, response in responses.items():
            if not response.get("description") and int(status) in ERROR_STATUSES:
                response["description"] = error_meaning(int(status))
            headers = response.setdefault("headers", {})
            if status in ("429", "503"):
                headers["Retry-After"] = dict(RETRY_AFTER)
            if status == "401":
                headers["WWW-Authenticate"] = {
                    "description": 'The scheme to sign in with: Bearer realm="api".',
                    "required": True,
                    "schema": {"type": "string"},
                }
            if self._key_required() is not None and status in REPLAYABLE:
                headers[REPLAYED] = {
                    "description": "true when this is the first answer to the same "
                    "Idempotency-Key, sent again: nothing changed this time.",
                    "schema": {"type": "string", "enum": ["true"]},
                }
            if not headers:
                del response["headers"]
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _error_statuses(self, operation: dict[str, Any]) -> set[int]:
        statuses = set(ALWAYS)
        if self._key_required() is not None:
            statuses.update(WRITES)
        refusable = [
            p
            for p in operation.get("parameters", [])
            if p["in"] == "query" and p["name"] not in NEVER_REFUSED
        ]
        if refusable:
            statuses.add(400)
        return statuses

    def _error_response(self, status: int) -> dict[str, Any]:
        response = self._get_response_for_code(ErrorSerializer, str(status), [JSON])
        response["description"] = error_meaning(status)
        return response


def error_meaning(status: int) -> str:
    """What an error status means, in the schema's words, with the limits in force."""
    return ERROR_STATUSES[status].format(max_request_line=settings.CASINO_API_MAX_REQUEST_LINE)


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
