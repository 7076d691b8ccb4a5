"""A client generated from the committed schema plays a whole Sic Bo round (issue 22), and
reads a Craps round's point as a typed field (issue 33).

openapi-python-client (pinned in requirements-dev.txt) generates a Python package from
docs/api/openapi.yaml, without a warning; every module of it imports. Then, against a real
gunicorn on a private PostgreSQL database, with a real Celery worker on Redis, an
integrator's token plays through the generated functions only: open a round at a manual
Sic Bo table, wagers with an Idempotency-Key, the same key again (the same answer, marked
Idempotent-Replayed, nothing placed twice), no more bets, the throw, the worker's
settlement, the resolutions and the ledger entry, and refusals read as the generated
`Error` model (a 422 `refused`, a 404 `not_found`). Then at a Craps table: a Pass Bet, a
come out 4-4, the worker's settlement, and the point 8 read as `state.point` of the
generated `CrapsState`, in the round, in the next one and on the floor (`CrapsSummary`),
and the table's catalog as the generated `CrapsCatalog`.

The floor is built by tests/casino/floor_fixtures.py in a `manage.py shell` of the same
environment, as the fixtures of the in-process tests build it. Without PostgreSQL, Redis
or the generator the test skips, saying so; with CI=true it fails.
"""

import importlib
import json
import shutil
import subprocess
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.services import (
    ROOT,
    celery_worker,
    gunicorn,
    in_ci,
    manage,
    postgres_database,
    production_env,
    redis_database,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

SCHEMA = ROOT / "docs" / "api" / "openapi.yaml"
PACKAGE = "floor_client"
GENERATOR_CONFIG = f"package_name_override: {PACKAGE}\npost_hooks: []\n"

# Builds a manual Sic Bo table and a manual Craps table, open, their devices heard from, and
# an integrator's token: printed as one JSON line.
FLOOR_SCRIPT = """
import json
from django.utils import timezone
from casino.services.api_tokens import token_issue
from tests.casino.floor_fixtures import compliant_table, operations, staff

now = timezone.now()
floor = compliant_table("sic_bo", number="SB-01", now=now, open_table=True)
craps = compliant_table("craps", number="CR-01", now=now, open_table=True)
integrator = staff("gen_integrator", "integrator")
_, key = token_issue(
    user=integrator, holder=floor.table.holder, name="generated", by=operations(), now=now
)
print(json.dumps({"key": key, "table": floor.table.pk, "number": floor.table.number,
                  "craps": craps.table.pk}))
"""


def generator() -> Path:
    """The openapi-python-client beside this interpreter; skip (or fail in CI) without it."""
    found = Path(sys.executable).parent / "openapi-python-client"
    if not found.exists():
        found = Path(shutil.which("openapi-python-client") or found)
    if not found.exists():
        message = (
            "openapi-python-client is not installed (pip install -r requirements-dev.txt) to "
            "generate a client from docs/api/openapi.yaml"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    return found


def client_generate(into: Path) -> ModuleType:
    """The package generated from the committed schema, imported (every module of it)."""
    into.mkdir(parents=True, exist_ok=True)
    config = into / "generator.yaml"
    config.write_text(GENERATOR_CONFIG)
    done = subprocess.run(
        [str(generator()), "generate", "--path", str(SCHEMA), "--config", str(config),
         "--meta", "none", "--output-path", str(into / PACKAGE)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed
    assert "warning" not in printed.lower(), printed
    sys.path.insert(0, str(into))
    package = importlib.import_module(PACKAGE)
    for module in sorted((into / PACKAGE).rglob("*.py")):
        name = ".".join(module.relative_to(into).with_suffix("").parts)
        importlib.import_module(name.removesuffix(".__init__"))
    return package


def fn(package: ModuleType, tag: str, operation: str) -> Any:
    """The generated module of one operation, e.g. ("rounds", "rounds_create")."""
    return importlib.import_module(f"{package.__name__}.api.{tag}.{operation}")


def test_a_generated_client_plays_a_sic_bo_round_against_a_live_server(tmp_path: Path):
    require_postgres()
    require_redis()
    package = client_generate(tmp_path / "generated")
    models = importlib.import_module(f"{PACKAGE}.models")
    with postgres_database() as database_url, redis_database() as redis_url:
        env = production_env(
            tmp_path,
            database_url,
            redis_url,
            # No device sends heartbeats here: the fixture's, at setup, stay live.
            CASINO_DEVICE_HEARTBEATS=json.dumps({"illumination_device": [600, 3]}),
        )
        manage(env, "migrate", "--noinput")
        floor = json.loads(manage(env, "shell", "-c", FLOOR_SCRIPT).stdout.strip().splitlines()[-1])
        with (
            celery_worker(env, tmp_path / "worker.log", f"generated-{uuid.uuid4().hex[:6]}@%h"),
            gunicorn(env, tmp_path / "gunicorn.log") as base,
        ):
            client = package.AuthenticatedClient(
                base_url=base, token=floor["key"], raise_on_unexpected_status=True, timeout=30
            )
            play(package, models, client, floor)
            craps_point(package, models, client, floor["craps"])


def play(package: ModuleType, models: ModuleType, client: Any, floor: dict[str, Any]) -> None:
    """The round, step by step, through the generated functions and models."""

    def call(tag: str, operation: str, *args: Any, **kwargs: Any) -> Any:
        return fn(package, tag, operation).sync_detailed(*args, client=client, **kwargs)

    # Open the table's first round.
    opened = call(
        "rounds", "rounds_create",
        body=models.RoundOpenRequest(table=floor["table"]), idempotency_key=str(uuid.uuid4()),
    )  # fmt: skip
    assert opened.status_code == 201, opened.content
    round_ = opened.parsed
    assert isinstance(round_, models.RoundDetail)
    assert (round_.table, round_.number, round_.status) == (
        floor["table"],
        1,
        models.RoundStatusEnum.OPEN,
    )
    assert round_.events == []

    # Wagers with a key; the same key again gets the first answer and places nothing.
    wagers = models.WagersInRequest(
        wagers=[
            models.WagerInRequest(player="ann", kind="small", amount="10.00"),
            models.WagerInRequest(player="bob", kind="big", amount="25.00"),
        ]
    )
    key = str(uuid.uuid4())
    placed = call("rounds", "rounds_wagers_create", round_.id, body=wagers, idempotency_key=key)
    assert placed.status_code == 201, placed.content
    assert "Idempotent-Replayed" not in placed.headers
    assert [(w.ref, w.player, w.kind, w.amount) for w in placed.parsed.wagers] == [
        ("1.1", "ann", "small", "10.00"),
        ("1.2", "bob", "big", "25.00"),
    ]
    again = call("rounds", "rounds_wagers_create", round_.id, body=wagers, idempotency_key=key)
    assert again.status_code == 201, again.content
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.parsed.to_dict() == placed.parsed.to_dict()
    listed = call("wagers", "wagers_list", round_=round_.id)
    assert listed.parsed.count == 2

    # The same key with another body: refused, read as the generated Error model.
    other = models.WagersInRequest(
        wagers=[models.WagerInRequest(player="cy", kind="small", amount="5.00")]
    )
    reused = call("rounds", "rounds_wagers_create", round_.id, body=other, idempotency_key=key)
    assert reused.status_code == 422
    assert isinstance(reused.parsed, models.Error)
    assert (reused.parsed.status, reused.parsed.code) == (
        422,
        models.ErrorCodeEnum.IDEMPOTENCY_KEY_REUSED,
    )

    closed = call(
        "rounds", "rounds_no_more_bets_create", round_.id, idempotency_key=str(uuid.uuid4())
    )
    assert closed.parsed.status == models.RoundStatusEnum.CLOSED, closed.content

    # A wager after "no more bets": the floor's rules refuse it, naming the section.
    late = call(
        "rounds", "rounds_wagers_create", round_.id, body=other, idempotency_key=str(uuid.uuid4())
    )
    assert late.status_code == 422, late.content
    assert isinstance(late.parsed, models.Error)
    assert late.parsed.code == models.ErrorCodeEnum.REFUSED
    assert late.parsed.reasons and late.parsed.fields.to_dict() == {}

    # 1-2-3: a total of 6, Small wins even money, Big loses (58 Pa. Code § 625a.4).
    thrown = call(
        "rounds", "rounds_result_create", round_.id,
        body=models.ResultRequest(event="throw", payload=[1, 2, 3]),
        idempotency_key=str(uuid.uuid4()),
    )  # fmt: skip
    assert thrown.parsed.status == models.RoundStatusEnum.RESULT_ENTERED, thrown.content
    assert [(e.event, e.payload) for e in thrown.parsed.events][-1] == ("throw", [1, 2, 3])

    # The worker settles it.
    deadline = time.monotonic() + 60
    while True:
        now = call("rounds", "rounds_retrieve", round_.id).parsed
        if now.status == models.RoundStatusEnum.SETTLED:
            break
        assert time.monotonic() < deadline, f"not settled in 60 s: {now.status}"
        time.sleep(0.5)

    resolutions = call("resolutions", "resolutions_list", round_=round_.id, ordering="id")
    decided = {
        r.wager: (r.result, Decimal(r.stake), Decimal(r.net), Decimal(r.winnings))
        for r in resolutions.parsed.results
    }
    ann, bob = (w.id for w in placed.parsed.wagers)
    # `winnings` is what the posted odds paid (1 to 1 on 10.00), apart from the stake.
    assert decided == {
        ann: ("win", Decimal("10.00"), Decimal("10.00"), Decimal("10.00")),
        bob: ("lose", Decimal("25.00"), Decimal("-25.00"), Decimal("0.00")),
    }
    # The table's number works as a filter where its id does.
    by_number = call("resolutions", "resolutions_list", table=floor["number"])
    assert {r.id for r in by_number.parsed.results} == {r.id for r in resolutions.parsed.results}

    # One placement (the replay posted none) and the settlement, each balancing to zero.
    entries = call(
        "ledger_entries", "ledger_entries_list", round_=round_.id, ordering="id"
    ).parsed.results
    assert [e.key for e in entries] == [f"placement:{round_.id}:1", f"settlement:{round_.id}"]
    for entry in entries:
        assert sum(Decimal(line.amount) for line in entry.lines) == 0, entry.to_dict()

    # A round that is not the token's (no such id): 404, the Error model again.
    missing = call("rounds", "rounds_retrieve", 10**17)
    assert missing.status_code == 404
    assert missing.parsed.code == models.ErrorCodeEnum.NOT_FOUND


def settled_wait(call: Any, models: ModuleType, round_id: int) -> Any:
    """The round once the worker has settled it (a minute at most)."""
    deadline = time.monotonic() + 60
    while True:
        now = call("rounds", "rounds_retrieve", round_id).parsed
        if now.status == models.RoundStatusEnum.SETTLED:
            return now
        assert time.monotonic() < deadline, f"not settled in 60 s: {now.status}"
        time.sleep(0.5)


def craps_point(package: ModuleType, models: ModuleType, client: Any, table: int) -> None:
    """58 Pa. Code § 623a.3(a)(1): a come out 4-4 makes the point 8, read as a typed field."""

    def call(tag: str, operation: str, *args: Any, **kwargs: Any) -> Any:
        return fn(package, tag, operation).sync_detailed(*args, client=client, **kwargs)

    def key() -> str:
        return str(uuid.uuid4())

    opened = call("rounds", "rounds_create", body=models.RoundOpenRequest(table=table),
                  idempotency_key=key()).parsed  # fmt: skip
    assert isinstance(opened.state, models.CrapsState)
    assert opened.state.point is None and opened.state.come_out is True
    assert models.WagerKindEnum.PASS in opened.next_.wagers
    body = models.WagersInRequest(
        wagers=[models.WagerInRequest(player="ann", kind="pass", amount="10.00")]
    )
    placed = call("rounds", "rounds_wagers_create", opened.id, body=body, idempotency_key=key())
    (line,) = placed.parsed.round_.state.wagers
    assert (line.kind, line.number, line.may.remove) == (models.CrapsKindEnum.PASS, None, True)
    call("rounds", "rounds_no_more_bets_create", opened.id, idempotency_key=key())
    thrown = call(
        "rounds", "rounds_result_create", opened.id,
        body=models.ResultRequest(event="throw", payload=[4, 4]), idempotency_key=key(),
    ).parsed  # fmt: skip
    assert thrown.state.point == 8

    settled = settled_wait(call, models, opened.id)
    assert isinstance(settled.state, models.CrapsState) and settled.state.point == 8
    (line,) = settled.state.wagers
    assert (line.number, line.may.remove, line.may.add_odds) == (8, False, True)

    after = call("rounds", "rounds_create", body=models.RoundOpenRequest(table=table),
                 idempotency_key=key()).parsed  # fmt: skip
    assert after.state.point == 8
    assert models.WagerKindEnum.PASS not in after.next_.wagers
    assert models.WagerKindEnum.COME in after.next_.wagers

    floor = call("floor", "floor_retrieve").parsed
    (mine,) = [t for t in floor.tables if t.id == table]
    assert isinstance(mine.state, models.CrapsSummary) and mine.state.point == 8

    catalog = call("tables", "tables_wagers_retrieve", table).parsed
    assert isinstance(catalog, models.CrapsCatalog)
    wagers = {w.kind: w for w in catalog.wagers}
    assert (
        wagers[models.CrapsKindEnum.PASS].section,
        wagers[models.CrapsKindEnum.PASS].house_edge,
    ) == (
        "623a.3(a)(1)",
        "0.0141414141",
    )
