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
