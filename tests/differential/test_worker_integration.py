"""The differential test through real processes: PostgreSQL, Redis and a ``celery worker``.

One seed of each game (DIFFERENTIAL_SEED=<n> plays that one) is played in a process of its
own (tests/differential/worker_run.py) on a freshly migrated PostgreSQL database, through
the round services; every round's settlement request goes through Redis to a real worker,
which settles it. The worker's resolutions must be the engine's, round by round, and the
ledger must balance, as in the in-process test.

The rounds are driven through the services rather than the REST API: the API takes wagers,
"no more bets", a result, a no roll and a void, but not yet the other wagering events
(Craps `remove`, `working`, `pass_dice`; Pai Gow `bank`), whose endpoint is being added.
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


def test_worker_integration(tmp_path: Path) -> None:
    require_postgres()
    require_redis()
    one = os.environ.get("DIFFERENTIAL_SEED", "").strip()
    seeds = (int(one),) if one else SEEDS
    with postgres_database() as database_url, redis_database() as broker_url:
        env = project_env(
            DATABASE_URL=database_url,
            CELERY_BROKER_URL=broker_url,
            CASINO_DATA_DIR=str(tmp_path),
            CELERY_VISIBILITY_TIMEOUT="600",
        )
        manage(env, "migrate", "--noinput")
        node = f"differential-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
        with celery_worker(env, tmp_path / "worker.log", node):
            played = subprocess.run(
                [sys.executable, "-m", "tests.differential.worker_run", *map(str, seeds)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
        log = (tmp_path / "worker.log").read_text(errors="replace")
    assert played.returncode == 0, f"{played.stderr}\n--- worker log (tail) ---\n{log[-3000:]}"
    report = json.loads(played.stdout.strip().splitlines()[-1])
    assert sorted(map(int, report["rounds"])) == sorted(seeds)
    assert all(rounds > 0 for rounds in report["rounds"].values())
    # Every round was settled by the worker we started, none by anyone else.
    assert report["settled_by"] == [node], report
    assert "round_settle" in log and "succeeded" in log
