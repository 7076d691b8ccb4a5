"""The committed OpenAPI schema (docs/api/openapi.yaml) is the code's schema, byte for
byte, generated without a warning; the API serves it, with Swagger UI from our own static
files; and it says what the API promises: the Idempotency-Key on every write that changes
a round, money as decimal strings, both ways to authenticate on every operation.
"""

import contextlib
import difflib
import io
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.db import models
from django.test import Client
from drf_spectacular.drainage import GENERATOR_STATS

SCHEMA_FILE = Path(settings.BASE_DIR) / "docs" / "api" / "openapi.yaml"
REGENERATE = "python manage.py spectacular --file docs/api/openapi.yaml --validate"
COMMITTED = SCHEMA_FILE.read_bytes()
SCHEMA = yaml.safe_load(COMMITTED)
OPERATIONS = {
    f"{method.upper()} {path}": operation
    for path, methods in SCHEMA["paths"].items()
    for method, operation in methods.items()
}

# The writes that change a round: an Idempotency-Key is required (casino/api/writes.py).
ROUND_WRITES = [
    "POST /api/v1/rounds/",
    "POST /api/v1/rounds/{id}/wagers/",
    "POST /api/v1/rounds/{id}/events/",
    "POST /api/v1/rounds/{id}/no-more-bets/",
    "POST /api/v1/rounds/{id}/result/",
    "POST /api/v1/rounds/{id}/no-roll/",
    "POST /api/v1/rounds/{id}/void/",
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, Any]:
    """`manage.py spectacular --file ... --validate --fail-on-warn` run in-process: the
    bytes written, what it printed, and the error it raised (None)."""
    out = tmp_path_factory.mktemp("schema") / "openapi.yaml"
    printed = io.StringIO()
    GENERATOR_STATS.reset()  # warnings of an earlier generation in this process
    error = None
    with contextlib.redirect_stderr(printed), contextlib.redirect_stdout(printed):
        try:
            call_command(
                "spectacular", "--file", str(out), "--validate", "--fail-on-warn", stdout=printed
            )
        except Exception as exc:  # the command's own refusal, reported by the tests
            error = exc
    return {
        "bytes": out.read_bytes() if out.exists() else b"",
        "printed": printed.getvalue(),
        "error": error,
    }


def test_generation_has_no_warning_or_error(generated):
    assert generated["error"] is None, (
        f"manage.py spectacular --validate --fail-on-warn failed: {generated['error']}\n"
        f"{generated['printed']}"
    )
    assert not re.search(r"(?i)\b(warning|error)\b", generated["printed"]), generated["printed"]


def _not_the_code_s(committed: bytes, generated: bytes) -> None:
    diff = "".join(
        list(
            difflib.unified_diff(
                committed.decode().splitlines(keepends=True),
                generated.decode().splitlines(keepends=True),
                "docs/api/openapi.yaml (committed)",
                "generated from the code now",
            )
        )[:80]
    )
    pytest.fail(
        "docs/api/openapi.yaml is not the schema of the code now. Regenerate it and commit "
        f"it:\n\n    {REGENERATE}\n\n{diff}",
        pytrace=False,
    )


def test_the_committed_schema_is_the_code_s_byte_for_byte(generated):
    """On either database: the column ranges Django gives integer fields (32767 on
    PostgreSQL, 2**63-1 on SQLite) are left out by casino/api/schema.py."""
    if generated["bytes"] != COMMITTED:
        _not_the_code_s(COMMITTED, generated["bytes"])


DATABASE_RANGES = {2**15 - 1, 2**31 - 1, 2**63 - 1, -(2**15), -(2**31), -(2**63)}


def _bounds(node: Any) -> list[int]:
    if isinstance(node, list):
        return [b for item in node for b in _bounds(item)]
    if not isinstance(node, dict):
        return []
    own = [node[k] for k in ("maximum", "minimum") if node.get("type") == "integer" and k in node]
    return own + [b for value in node.values() for b in _bounds(value)]


def test_no_integer_in_the_schema_is_bounded_by_a_database_column():
    assert [b for b in _bounds(SCHEMA) if b in DATABASE_RANGES] == []


@pytest.mark.django_db
def test_the_api_serves_the_schema_to_a_signed_in_user(generated):
    """The schema generated from the code: the committed one."""
    client = Client()
    client.force_login(get_user_model().objects.create_user("schema_reader"))
    response = client.get("/api/v1/schema/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi")
    assert response.content == generated["bytes"]


@pytest.mark.django_db
def test_the_schema_is_public_an_anonymous_caller_gets_it_too(generated):
    """What anonymous gets, asserted: the schema is public (SPECTACULAR_SETTINGS has no
    SERVE_PERMISSIONS, so drf-spectacular's AllowAny); the data behind it is not."""
    anonymous = Client()
    response = anonymous.get("/api/v1/schema/")
    assert response.status_code == 200
    assert response.content == generated["bytes"]
    assert anonymous.get("/api/v1/tables/").status_code == 401


def _asset_urls(html: str) -> list[str]:
    return re.findall(r"""<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""", html)


@pytest.mark.django_db
def test_swagger_ui_comes_from_our_own_static_files():
    response = Client().get("/api/v1/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="swagger-ui"' in html
    urls = _asset_urls(html)
    assert any(url.endswith("swagger-ui-bundle.js") for url in urls), urls
    assert any(url.endswith("swagger-ui.css") for url in urls), urls
    for url in urls:
        assert url.startswith(f"/{settings.STATIC_URL.strip('/')}/drf_spectacular_sidecar/"), url
        found = finders.find(url.removeprefix(f"/{settings.STATIC_URL.strip('/')}/"))
        assert found and "drf_spectacular_sidecar" in str(found), f"{url}: no static file"
    assert not re.search(r"https?://", html), re.findall(r"https?://[^\s\"'<>]+", html)
    for cdn in ("cdn", "jsdelivr", "unpkg", "cloudflare", "googleapis"):
        assert cdn not in html.lower(), cdn
    assert "/api/v1/schema/" in html


def _idempotency_key(operation: dict[str, Any]) -> dict[str, Any] | None:
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "header" and parameter.get("name") == "Idempotency-Key":
            return parameter
    return None


@pytest.mark.parametrize("label", ROUND_WRITES)
def test_every_write_that_changes_a_round_requires_an_idempotency_key(label):
    assert label in OPERATIONS, f"{label} is not in the schema"
    parameter = _idempotency_key(OPERATIONS[label])
    assert parameter is not None, f"{label} declares no Idempotency-Key header"
    assert parameter.get("required") is True, parameter
    assert parameter["schema"]["type"] == "string", parameter


def test_every_other_write_takes_an_optional_idempotency_key():
    others = [
        label
        for label in OPERATIONS
        if label.startswith(("POST", "PUT", "PATCH", "DELETE")) and label not in ROUND_WRITES
    ]
    assert others
    missing = [label for label in others if _idempotency_key(OPERATIONS[label]) is None]
    assert not missing, f"no Idempotency-Key header on: {missing}"
    required = [w for w in others if _idempotency_key(OPERATIONS[w]).get("required", False)]
    assert not required, f"an Idempotency-Key is required on: {required}"


def _money_fields() -> set[str]:
    """The names of the DecimalFields of our models: the amounts."""
    return {
        field.name
        for app in ("casino", "games", "devices")
        for model in apps.get_app_config(app).get_models()
        for field in model._meta.get_fields()
        if isinstance(field, models.DecimalField)
    }


# Fields named as an amount is that are none: a PAR sheet's net is an exact fraction of one
# unit wagered ("-1", "7/6"; games/par.py), not dollars.
NOT_MONEY = {"ParOutcome.net"}
MONEY = {
    f"{component}.{name}": spec
    for component, schema in SCHEMA["components"]["schemas"].items()
    for name, spec in schema.get("properties", {}).items()
    if name in _money_fields() and f"{component}.{name}" not in NOT_MONEY
}


@pytest.mark.parametrize(
    "field",
    [name for name in sorted(MONEY)],
)
def test_every_amount_is_a_decimal_string(field):
    spec = MONEY[field]
    assert spec.get("type") == "string", f"{field}: {spec}"
    assert spec.get("format") == "decimal", f"{field}: {spec}"


def test_the_amounts_are_found():
    """The check above looks at what it should: the amounts of tables, wagers, the ledger."""
    assert {"Table.min_wager", "Table.max_wager", "Wager.amount", "LedgerLine.amount"} <= set(
        MONEY
    ), sorted(MONEY)
    assert {"Resolution.net", "Resolution.stake", "Resolution.winnings"} <= set(MONEY)


def test_the_security_schemes_are_the_bearer_token_and_the_session_cookie():
    schemes = SCHEMA["components"]["securitySchemes"]
    assert schemes["apiToken"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "cft_<key id>_<secret>",
    }
    assert schemes["cookieAuth"] == {
        "type": "apiKey",
        "in": "cookie",
        "name": settings.SESSION_COOKIE_NAME,
    }


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_every_operation_declares_the_token_and_the_session(label):
    security = OPERATIONS[label].get("security", [])
    assert {"apiToken": []} in security, f"{label}: {security}"
    assert {"cookieAuth": []} in security, f"{label}: {security}"


# --- a contract a client generator takes whole (issue 22) --------------------------------

COMPONENTS = SCHEMA["components"]["schemas"]
ERROR_REF = {"$ref": "#/components/schemas/Error"}
WRITES = sorted(label for label in OPERATIONS if label.startswith("POST "))
READS = sorted(label for label in OPERATIONS if label.startswith("GET "))


@pytest.mark.parametrize("label", WRITES)
def test_every_request_body_is_json_only(label):
    body = OPERATIONS[label].get("requestBody")
    if body is not None:
        assert list(body["content"]) == ["application/json"], f"{label}: {list(body['content'])}"


def test_the_error_component_is_the_one_body_with_its_codes_as_an_enum():
    from casino.api.errors import ERROR_CODES

    error = COMPONENTS["Error"]
    assert sorted(error["properties"]) == ["code", "detail", "fields", "reasons", "status"]
    assert sorted(error["required"]) == ["code", "detail", "fields", "reasons", "status"]
    assert error["properties"]["code"]["allOf"] == [{"$ref": "#/components/schemas/ErrorCodeEnum"}]
    assert COMPONENTS["ErrorCodeEnum"]["enum"] == sorted(ERROR_CODES)
    assert {"refused", "invalid", "not_found", "throttled", "unsupported_media_type"} <= set(
        ERROR_CODES
    )
    assert error["properties"]["fields"]["additionalProperties"] == {
        "type": "array",
        "items": {"type": "string"},
    }


def _errors(label: str) -> dict[str, Any]:
    return {
        status: response
        for status, response in OPERATIONS[label]["responses"].items()
        if int(status) >= 400
    }


@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_every_operation_declares_its_errors_in_the_one_body(label):
    errors = _errors(label)
    expected = {"401", "403", "404", "414", "429", "503"}
    if label in WRITES:
        expected |= {"400", "413", "415", "422"}
    assert expected <= set(errors), f"{label}: {sorted(errors)}"
    assert "405" not in errors  # an operation is a method the path takes
    for status, response in errors.items():
        assert response["content"] == {"application/json": {"schema": ERROR_REF}}, (label, status)
        assert response["description"], (label, status)
    for status in ("429", "503"):
        retry = errors[status]["headers"]["Retry-After"]
        assert retry["required"] is True and retry["schema"]["type"] == "integer"
    assert errors["401"]["headers"]["WWW-Authenticate"]["required"] is True


def test_a_400_is_declared_where_a_query_parameter_can_be_refused():
    """A record's read takes no query parameter: nothing to refuse. A list's page size that
    is no integer is refused (a page past the last is a 404, an ordering on no field is
    ignored): every list declares its 400."""
    assert "400" not in OPERATIONS["GET /api/v1/tables/{id}/"]["responses"]
    assert "400" in OPERATIONS["GET /api/v1/certificate-holders/"]["responses"]
    assert "400" in OPERATIONS["GET /api/v1/rounds/"]["responses"]
    assert "400" in OPERATIONS["GET /api/v1/tables/{id}/compliance-report/"]["responses"]
    assert "409" in OPERATIONS["GET /api/v1/rules-submissions/{id}/par/"]["responses"]


@pytest.mark.parametrize("label", WRITES)
def test_every_write_declares_idempotent_replayed_on_its_answers(label):
    responses = OPERATIONS[label]["responses"]
    success = [status for status in responses if status.startswith("2")]
    assert success, label
    for status in [*success, "422"]:
        header = responses[status]["headers"]["Idempotent-Replayed"]
        assert header["schema"] == {"type": "string", "enum": ["true"]}
        assert header.get("required", False) is False  # only a replay carries it


@pytest.mark.parametrize(
    ("component", "fields"),
    [
        ("Table", {"status", "min_wager", "max_wager", "seats", "id", "number", "closed_at"}),
        ("RoundDetail", {"status", "events", "number", "settled_at"}),
        ("Round", {"status", "previous"}),
        ("Resolution", {"winnings", "net", "stake", "payout_limit_reduction"}),
        ("Error", {"status", "code", "detail", "reasons", "fields"}),
        ("PaginatedRoundList", {"count", "next", "previous", "results"}),
    ],
)
def test_response_fields_always_present_are_required(component, fields):
    assert fields <= set(COMPONENTS[component]["required"]), COMPONENTS[component]["required"]


def test_every_response_component_requires_every_field_and_no_request_more_than_before():
    """A response has every field its serializer has; a request component requires only what
    the API refuses without (a caller sends what it sent before)."""
    for name, schema in COMPONENTS.items():
        if "properties" not in schema:
            continue
        if name.endswith("Request"):
            continue
        assert sorted(schema.get("required", [])) == sorted(schema["properties"]), name
    assert COMPONENTS["WagerInRequest"]["required"] == ["amount", "kind", "player"]
    assert COMPONENTS["ChangeoutRequest"]["required"] == ["composition", "reason"]
    assert "required" not in COMPONENTS["ApproveRequest"]


def test_read_only_fields_are_marked_so():
    assert COMPONENTS["Table"]["properties"]["id"]["readOnly"] is True
    assert COMPONENTS["RoundDetail"]["properties"]["events"]["readOnly"] is True


@pytest.mark.parametrize("label", [label for label in OPERATIONS if "{id}" in label])
def test_every_path_id_is_an_integer(label):
    (parameter,) = [p for p in OPERATIONS[label]["parameters"] if p["in"] == "path"]
    assert parameter["name"] == "id"
    assert parameter["schema"] == {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}


def test_the_floor_and_par_sheets_are_typed_components():
    floor = OPERATIONS["GET /api/v1/floor/"]["responses"]["200"]["content"]["application/json"]
    assert floor["schema"] == {"$ref": "#/components/schemas/Floor"}
    table = COMPONENTS["FloorTable"]["properties"]
    assert table["settlement_alert"]["allOf"] == [{"$ref": "#/components/schemas/SettlementAlert"}]
    assert table["settlement_alert"]["nullable"] is True
    assert COMPONENTS["SettlementAlertStatusEnum"]["enum"] == [
        "failed",
        "too_many_sends",
        "not_sent_again",
    ]
    par = OPERATIONS["GET /api/v1/par/{game}/"]["responses"]["200"]["content"]["application/json"]
    assert par["schema"] == {"$ref": "#/components/schemas/ParSheet"}
    wager = COMPONENTS["ParWager"]["properties"]
    assert wager["house_edge"]["format"] == "decimal"


def test_the_table_filter_takes_an_id_or_a_number():
    for label in ("GET /api/v1/rounds/", "GET /api/v1/resolutions/", "GET /api/v1/wagers/"):
        (table,) = [p for p in OPERATIONS[label]["parameters"] if p["name"] == "table"]
        assert table["schema"] == {"type": "string", "pattern": "^[^\\x00]*$"}, label
        assert "number" in table["description"], label
        assert table["x-names-a-record"] == "table", label


# --- the schema says what the server takes (issue 33, part 7) ------------------------------


def _query(label: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in OPERATIONS[label].get("parameters", []) if p["in"] == "query"}


@pytest.mark.parametrize("label", WRITES)
def test_the_idempotency_key_s_schema_is_the_server_s_rule(label):
    """Its length and characters, as casino/api/writes.py checks them, to the letter."""
    from casino.api.writes import KEY_LENGTH, KEY_PATTERN

    schema = _idempotency_key(OPERATIONS[label])["schema"]
    assert schema == {
        "type": "string",
        "minLength": 1,
        "maxLength": KEY_LENGTH,
        "pattern": KEY_PATTERN,
    }, label


# Every query parameter that names one record, by the kind of record it names.
RECORD_PARAMETERS = {
    ("GET /api/v1/rounds/", "holder"): "certificate holder",
    ("GET /api/v1/rounds/", "table"): "table",
    ("GET /api/v1/wagers/", "round"): "round",
    ("GET /api/v1/resolutions/", "wager"): "wager",
    ("GET /api/v1/sets-in-play/", "equipment_set"): "equipment set",
    ("GET /api/v1/device-events/", "device"): "device",
    ("GET /api/v1/api-writes/", "token"): "API token",
    ("GET /api/v1/audit-entries/", "actor"): "user",
    ("GET /api/v1/ledger-lines/", "entry"): "ledger entry",
    ("GET /api/v1/webhook-deliveries/", "endpoint"): "webhook endpoint",
}


@pytest.mark.parametrize(("label", "name"), sorted(RECORD_PARAMETERS))
def test_a_parameter_that_names_a_record_says_one_naming_none_is_refused(label, name):
    parameter = _query(label)[name]
    assert parameter["x-names-a-record"] == RECORD_PARAMETERS[label, name]
    assert parameter["description"].endswith(
        f"One that names no {RECORD_PARAMETERS[label, name]} the caller sees (a token: its "
        f"certificate holder's) is refused (400 `invalid` naming `{name}`)."
    )


def test_only_the_parameters_that_name_a_record_are_marked():
    marked = {
        (label, name)
        for label in OPERATIONS
        for name, parameter in _query(label).items()
        if "x-names-a-record" in parameter
    }
    assert set(RECORD_PARAMETERS) <= marked
    assert not {name for _, name in marked} - {
        "holder", "table", "round", "wager", "equipment_set", "device", "token", "user", "actor",
        "entry", "endpoint",
    }  # fmt: skip


def test_every_free_text_filter_refuses_u0000_in_its_pattern():
    """A filter of any string takes the empty one, but none holding U+0000 (the database
    cannot compare it): its pattern. A string parameter of no filter (ordering) is free."""
    free = [
        (label, name)
        for label in OPERATIONS
        for name, parameter in _query(label).items()
        if parameter["schema"].get("type") == "string"
        and not {"enum", "format"} & set(parameter["schema"])
        and name not in ("ordering", "format")
    ]
    assert ("GET /api/v1/wagers/", "player") in free
    for label, name in free:
        assert _query(label)[name]["schema"].get("pattern") == "^[^\\x00]*$", (label, name)
    assert "pattern" not in _query("GET /api/v1/wagers/")["ordering"]["schema"]


@pytest.mark.parametrize(
    "label",
    [
        "GET /api/v1/hold/",
        "GET /api/v1/tables/{id}/hold/",
        "GET /api/v1/tables/{id}/compliance-report/",
    ],
)
def test_a_day_is_a_date_of_the_years_2000_to_2999(label):
    from casino.api.hold import DAY_PATTERN

    day = _query(label)["day"]
    assert day["schema"] == {"type": "string", "format": "date", "pattern": DAY_PATTERN}
    assert "2000-01-01 to 2999-12-31" in day["description"]


def test_a_page_size_says_what_it_takes():
    page_size = _query("GET /api/v1/rounds/")["page_size"]
    assert page_size["schema"] == {"type": "integer"}
    assert "1 to 500" in page_size["description"]


def test_every_code_the_api_answers_is_in_the_enum():
    """The codes written in our API's code (ApiError, error_body), Django's own errors'
    and DRF's exceptions' are all ERROR_CODES, the schema's enum: a generated client reads
    every error it gets."""
    from rest_framework import exceptions

    from casino.api.errors import _DJANGO_ERRORS, ERROR_CODES
    from casino.api.middleware import outage_of

    root = Path(settings.BASE_DIR)
    sources = [*(root / "casino" / "api").glob("*.py"), root / "games" / "apis.py"]
    sources.append(root / "devices" / "apis.py")
    written = {
        code
        for source in sources
        for code in re.findall(
            r"(?:ApiError|error_body)\(\s*\d{3},\s*\"([a-z_]+)\"", source.read_text()
        )
    }
    assert {"invalid", "refused", "idempotency_key_reused", "par_being_computed"} <= written
    drf = {
        cls.default_code
        for cls in vars(exceptions).values()
        if isinstance(cls, type) and issubclass(cls, exceptions.APIException)
    } - {"error"}  # APIException itself: only its subclasses are raised
    assert "unsupported_media_type" in drf and "throttled" in drf
    django = {code for code, _ in _DJANGO_ERRORS.values()}
    import psycopg
    from django.db import OperationalError
    from kombu.exceptions import OperationalError as BrokerError

    lost = OperationalError("the connection is closed")
    lost.__cause__ = psycopg.OperationalError("the connection is closed")  # as Django raises it
    outages = {f"{outage_of(e)}_unavailable" for e in (lost, BrokerError())}
    missing = (written | drf | django | outages) - set(ERROR_CODES)
    assert not missing, f"codes answered but not in ERROR_CODES (the schema's enum): {missing}"


def test_a_wager_s_fields_are_the_server_s_and_no_other():
    """The server refuses a wager field it does not know (400 naming it): the schema says
    the same, `additionalProperties: false`, with exactly the fields the floor takes."""
    from games.services.rounds import WAGER_FIELDS

    wager = COMPONENTS["WagerInRequest"]
    assert wager["additionalProperties"] is False
    assert set(wager["properties"]) == WAGER_FIELDS
