"""Recovery in seconds (issue 19, point 5), on the real path, with the production defaults
(stuck after CASINO_SETTLEMENT_STUCK_SECONDS = 10, the sweep every 2 s, a lost message
sent again after 3 s when the settlement queue is empty).

During one burst of rounds across the demo floor (``play_rounds``): the settlement worker
is SIGKILLed (a supervisor starts another at once), then our own Redis is killed -9 and
restarted empty. Every round that was unsettled at a fault, or written during it, is
settled within 15 s of the fault (the issue saw 22.7 s and 32.1 s with a 30 s threshold);
the figures are printed. Nothing is lost or paid twice (`books_check`).

CELERY_VISIBILITY_TIMEOUT is 600 s here (floor_env), so nothing comes back from Redis by
itself: whatever recovers, the sweep recovered.
"""

import json
import os
import signal
import sys
import time
from contextlib import ExitStack
from datetime import UTC, datetime

import psycopg
import pytest
from psycopg import sql

from tests.services import POSTGRES_URL, require
from tests.workers import test_settlement_integration
from tests.workers.test_settlement_integration import (
    beat_start,
    beat_sweeps_check,
    books_check,
    floor,
    free_port,
    query,
    redis_server_binary,
    redis_server_start,
    scalar,
    spawn,
    tail,
    unsettled_requests,
    wait_until,
    worker_start,
)

pytestmark = pytest.mark.integration

demo_floor = test_settlement_integration.demo_floor  # the module's fixture, shared
WITHIN = 15.0  # seconds: the bound


def settled_count(url: str) -> int:
    return scalar(url, "SELECT count(*) FROM games_round WHERE status = 'settled'")


def latencies(url: str, fault_at: datetime, until: datetime) -> dict[int, float]:
    """Seconds from the fault (or the request's writing, if later) to its settlement, for
    every request unsettled at `fault_at` or written before `until`; unsettled ones absent."""
    rows = query(
        url,
        "SELECT id, created_at, settled_at FROM games_settlementrequest"
        " WHERE created_at <= %s AND (settled_at IS NULL OR settled_at > %s)",
        until,
        fault_at,
    )
    return {
        request: (settled - max(created, fault_at)).total_seconds()
        for request, created, settled in rows
        if settled is not None
    }


def affected(url: str, fault_at: datetime, until: datetime) -> list[int]:
    rows = query(
        url,
        "SELECT id FROM games_settlementrequest WHERE created_at <= %s"
        " AND (settled_at IS NULL OR settled_at > %s) ORDER BY id",
        until,
        fault_at,
    )
    return [request for (request,) in rows]


def test_every_round_settles_within_15_s_of_a_worker_killed_or_redis_lost(demo_floor, tmp_path):
    require("redis-server", redis_server_binary, "install it (apt-get install redis-server)")
    port = free_port()
    with ExitStack() as redis_stack:
        server = redis_server_start(redis_stack, port, tmp_path / "redis-1.log")
        broker = f"redis://127.0.0.1:{port}/0"
        with floor(demo_floor, tmp_path, broker) as (stack, url, env):
            env = {**env, "CASINO_SETTLEMENT_STUCK_SECONDS": "10"}  # the default; floor_env: 2
            assert "CASINO_SETTLEMENT_SWEEP_SECONDS" not in env  # the default, 2 s
            logs = [tmp_path / "worker-0.log"]
            worker = worker_start(stack, env, logs[0], "settle-0", concurrency=2)
            beat_log = tmp_path / "beat.log"
            beat = beat_start(stack, env, beat_log)
            beat_sweeps_check(beat_log, logs[0], beat)

            def supervise() -> None:
                """A process manager: a worker that died is started again."""
                nonlocal worker
                if worker.poll() is not None:
                    logs.append(tmp_path / f"worker-{len(logs)}.log")
                    worker = worker_start(stack, env, logs[-1], f"settle-{len(logs)}", 2)

            out = tmp_path / "play_rounds.out"
            player = spawn(
                stack,
                [
                    sys.executable, "manage.py", "play_rounds", "--rounds", "40", "--json",
                    "--timeout", "240", "--seed", "19",
                ],
                env,
                out,
            )  # fmt: skip
            wait_until(lambda: settled_count(url) >= 15, 90, "first rounds settled", out, player)

            # Fault 1: the worker SIGKILLed mid-burst; its supervisor starts another.
            killed_at = datetime.now(UTC)
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
            supervise()
            kill_until = datetime.now(UTC)
            first = affected(url, killed_at, kill_until)
            assert first, "no round was in flight when the worker was killed"
            wait_until(
                lambda: not set(first) & set(unsettled_requests(url)),
                60,
                "the killed worker's rounds settled",
                logs[-1],
            )
            # Again: a result whose write was in progress at the kill commits after the first
            # look; wait for it too before reading the latencies (a CI run read it unsettled).
            first = affected(url, killed_at, kill_until)
            wait_until(
                lambda: not set(first) & set(unsettled_requests(url)),
                60,
                "the killed worker's rounds settled",
                logs[-1],
            )
            after_kill = latencies(url, killed_at, kill_until)
            settled_then = settled_count(url)

            # Fault 2: Redis killed -9 and restarted empty, the burst going on.
            wait_until(
                lambda: settled_count(url) >= settled_then + 30, 90, "more rounds", out, player
            )
            assert player.poll() is None, "play_rounds ended before Redis was lost"
            lost_at = datetime.now(UTC)
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
            time.sleep(1)
            redis_server_start(redis_stack, port, tmp_path / "redis-2.log")
            back_at = datetime.now(UTC)
            second = affected(url, lost_at, back_at)
            assert second, "no round was in flight when Redis was lost"
            deadline = time.monotonic() + 60
            while set(second) & set(unsettled_requests(url)) and time.monotonic() < deadline:
                supervise()
                time.sleep(0.2)
            after_loss = latencies(url, lost_at, back_at)
            second = affected(url, lost_at, back_at)

            deadline = time.monotonic() + 240
            while player.poll() is None and time.monotonic() < deadline:
                supervise()
                time.sleep(0.5)
            assert player.wait(timeout=5) == 0, tail(out)
            report = json.loads(out.read_text().strip().splitlines()[-1])
            counts = books_check(url, env)  # every round settled once, the books balance

        print(
            f"\nworker SIGKILLed: {len(first)} rounds in flight, the last settled "
            f"{max(after_kill.values()):.1f} s after the kill (within {WITHIN:g} s)"
            f"\nRedis lost (down {(back_at - lost_at).total_seconds():.1f} s): "
            f"{len(second)} rounds in flight or written meanwhile, the last settled "
            f"{max(after_loss.values(), default=0):.1f} s after the loss"
            f"\n{counts['rounds']} rounds, {counts['wagers']} wagers; 0 lost, 0 paid twice;"
            f" workers started {len(logs)} times"
        )
        assert report["pending"] == [] and report["played"] == counts["rounds"]
        assert sorted(after_kill) == first, "a round in flight at the kill never settled"
        assert sorted(after_loss) == second, "a round in flight at the loss never settled"
        assert max(after_kill.values()) <= WITHIN, after_kill
        assert max(after_loss.values(), default=0) <= WITHIN, after_loss


def database_restart(url: str, down: float) -> None:
    """What a PostgreSQL restart does to this test's database, without touching the shared
    server: every connection to it ends ("terminating connection due to administrator
    command", as `pg_ctl restart -m immediate` ends them) and none is accepted for `down`
    seconds."""
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(
            sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(sql.Identifier(name))
        )
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )
        time.sleep(down)
        admin.execute(
            sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(sql.Identifier(name))
        )


def test_the_dealer_and_the_workers_ride_out_a_database_restart(demo_floor, tmp_path):
    """The demo dealer (`play_rounds`) crashed on a PostgreSQL restart and left a round half
    dealt; now it waits for the database and finishes that round, the workers retry, and
    every round is settled once."""
    with floor(demo_floor, tmp_path) as (stack, url, env):
        env = {**env, "CASINO_SETTLEMENT_STUCK_SECONDS": "10"}
        worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
        worker_start(stack, env, worker_log, "settle-db", concurrency=2)
        beat = beat_start(stack, env, beat_log)
        beat_sweeps_check(beat_log, worker_log, beat)
        out = tmp_path / "play_rounds.out"
        player = spawn(
            stack,
            [
                sys.executable, "manage.py", "play_rounds", "--rounds", "20", "--json",
                "--timeout", "240", "--seed", "5",
            ],
            env,
            out,
        )  # fmt: skip
        wait_until(lambda: settled_count(url) >= 15, 90, "first rounds settled", out, player)
        down_at = datetime.now(UTC)
        database_restart(url, down=3)
        back_at = datetime.now(UTC)
        assert player.wait(timeout=240) == 0, tail(out)
        report = json.loads(out.read_text().strip().splitlines()[-1])
        counts = books_check(url, env)
        in_flight = latencies(url, down_at, back_at)
        print(
            f"\ndatabase down 3 s mid-burst: the dealer waited "
            f"{out.read_text().count('database unavailable')} times, finished "
            f"{report['finished_after_database_loss']} half dealt; the {len(in_flight)} rounds"
            f" in flight settled at most {max(in_flight.values(), default=0):.1f} s after the"
            f" database went down (the workers' retries back off up to 30 s);"
            f" {counts['rounds']} rounds, {counts['wagers']} wagers, 0 lost, 0 paid twice"
        )
        assert report["pending"] == [] and report["played"] == counts["rounds"]
        assert set(report["tables"].values()) == {20}
        assert "database unavailable" in out.read_text()
