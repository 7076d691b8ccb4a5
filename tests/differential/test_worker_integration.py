"""The differential test through real processes: PostgreSQL, Redis and a ``celery worker``.

One seed of each game through the round services, and one of each game through the REST
API as an integrator (DIFFERENTIAL_SEED=<n> plays that one both ways), each in a process of
its own (tests/differential/worker_run.py) on a freshly migrated PostgreSQL database; every
round's settlement request goes through Redis to a real worker, which settles it. The
worker's resolutions must be the engine's, round by round, and the ledger must balance, as
in the in-process test.

The API path plays the events an integrator sends (generator.API_EVENTS): wagers and the
other wagering events (Craps `remove`, `working`, `pass_dice`; Pai Gow `bank`), "no more
bets", results, no rolls and voids; the numbers devices give come by the services path.
"""

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.differential.generator import GAMES
from tests.differential.test_differential import API_SEED_BASE
from tests.services import (
    ROOT,
    celery_worker,
    manage,
    postgres_database,
    project_env,
    redis_database,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

SEEDS = tuple(range(len(GAMES)))  # seed n plays GAMES[n]: one seed of each game
API_SEEDS = tuple(API_SEED_BASE + n for n in range(len(GAMES)))


def _play(env: dict[str, str], *args: str) -> dict:
    played = subprocess.run(
        [sys.executable, "-m", "tests.differential.worker_run", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert played.returncode == 0, played.stderr
    return json.loads(played.stdout.strip().splitlines()[-1])


def test_worker_integration(tmp_path: Path) -> None:
    require_postgres()
    require_redis()
    one = os.environ.get("DIFFERENTIAL_SEED", "").strip()
    seeds, api_seeds = ((int(one),), (int(one),)) if one else (SEEDS, API_SEEDS)
    log = tmp_path / "worker.log"
    with postgres_database() as database_url, redis_database() as broker_url:
        env = project_env(
            DATABASE_URL=database_url,
            CELERY_BROKER_URL=broker_url,
            CASINO_DATA_DIR=str(tmp_path),
            CELERY_VISIBILITY_TIMEOUT="600",
        )
        manage(env, "migrate", "--noinput")
        node = f"differential-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
        with celery_worker(env, log, node):
            try:
                services = _play(env, *map(str, seeds))
                api = _play(env, "--api", *map(str, api_seeds))
            except AssertionError as error:
                worker_log = log.read_text(errors="replace")[-3000:]
                raise AssertionError(f"{error}\n--- worker log ---\n{worker_log}") from None
    for report, played in ((services, seeds), (api, api_seeds)):
        assert sorted(map(int, report["rounds"])) == sorted(played)
        assert all(rounds > 0 for rounds in report["rounds"].values())
        # Every round was settled by the worker we started, none by anyone else.
        assert report["settled_by"] == [node], report
