"""Rounds settled per second by Celery workers on PostgreSQL and Redis, against raw SQL.

    .venv/bin/python bench/settlement.py [--rounds 600] [--workers 1,2] [--concurrency 1]
        [--repeat 3] [--profile-rounds 20] [--profile] [--profile-worker] [--seed 625]
        [--setup-processes CPUS] [--redis-db 14] [--pool prefork|solo] [--quick] [--webhook]

Two to three minutes with the defaults on 2 cores. `--quick` (20 rounds, one worker, one
run, about 20 s, most of it the migration) proves it still works, with the same checks.
`--webhook` registers an endpoint that wants "round settled", so each settlement also
writes its webhook event and publishes its fan-out (ADR 0011).

Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust) and Redis at 127.0.0.1:6379. It
creates a throwaway database casino_bench_<random>, migrates it with `manage.py migrate` in
a subprocess, and drops it at the end, even on an error; Redis database 14 (--redis-db) is
the benchmark's own and is emptied (FLUSHDB) before each timed run and at the end. Every
process runs with DATABASE_URL, CELERY_BROKER_URL=redis://127.0.0.1:6379/14, a temporary
CASINO_DATA_DIR and DJANGO_DEBUG=false (a DEBUG process keeps every query it ran).

Setup, not timed. A table has one round in progress at a time, so the rounds waiting to
be settled are one per table, and there are as many tables as rounds (hence no --tables).
One compliant open Sic Bo table is built through the services a minute ago by the real
clock (tests/casino/floor_fixtures.compliant_table, its devices registered and heard
from); the others are copies of its records (the table, its box location approval, dice
in play, opening inspection, devices), which the gates of `round_open` check like any
table's. Each round is played through the services at the real clock's time (so a gate
that reads the clock sees what it would on a floor), by `--setup-processes` forked
processes side by side: `round_open`, `wagers_place` (six players, four wagers each: Big
or Small, a Total, a Single, Double, Triple or Combination, from a fixed list) and
`result_enter` with three dice from random.Random(--seed), which leaves it RESULT_ENTERED
with a pending SettlementRequest. A forked process sends back plain data only (its pairs
of ids, or its traceback as text): one that fails, dies or outlives its deadline ends the
bench with a BenchFailure naming why, never a hang. The tasks `result_enter` publishes on
commit are thrown away: Redis database 14 is emptied before anything is timed. Each is
its table's first round, so settling it carries no state from an earlier round.

Timed, `--repeat` times, each run of the workers followed at once by a run of the ceiling
(this machine is shared: a ratio is taken between two runs a few seconds apart, and the
medians are printed):
- workers, once per `--workers` count N: N `celery -A casino worker -Q settlement
  --concurrency C --pool prefork` processes are started and warmed (two rounds per pool
  process settled first), then every request is published
  (`games.services.outbox.requests_send`); the time runs from the first publish to the
  last `settled_at` a worker wrote. Rates: rounds/s, per worker process (N), per pool
  process (N x C, each settling one round at a time); and the CPU the workers' processes
  used a round (from /proc: the worker and its pool processes, user and system).
- ceiling: the same rows a settlement writes (24 resolutions, the ledger entry and its
  lines, the round's status, settled_at, rules_hash and state_after, the request's
  settled_at), copied from what the workers wrote and written back with raw SQL through
  psycopg, one transaction per round, from one process.
Between runs the settlement rows are deleted and the rounds and requests put back as they
were (raw SQL, then VACUUM ANALYZE and CHECKPOINT, not timed), so every run settles the
same rounds from the same starting point.

The ratio to compare across machines is a pool process's rate to the ceiling's (both one
process settling one round at a time); the issue aims at 0.7 or more.

What limits it: `round_settle` is also called in-process on `--profile-rounds` rounds of
their own, with the time split by wrapping the engine calls in games.services.settlement
(state in, replay, state pickled), Django's `connection.execute_wrapper` (each SQL
statement's round trip, reads and writes apart) and the connection's commit; the rest is
Django and Python around them. What Celery adds is a pool process's time per round less
the task's own run time (the median "succeeded in" of the worker log): the message from
Redis, the hand-off to the pool process and back, the acknowledgement, the log lines.
What Celery leaves, an estimate: a task as long as the ceiling's whole round, plus that
time around it, as a ratio to the ceiling (what 0.7 would need of the pool's hand-off).
`--profile-worker` runs the first worker's own process under cProfile in CPU time, from
ready to shutdown, and prints the functions with the most time of their own and the
task's share (none under prefork, where the task runs in the pool process; with `--pool
solo`, the task and what Celery does around it apart); BENCH_KEEP_PROFILE=<file> keeps
its stats there (pstats) for a closer look.

Checks, never timing assertions (exit 1 on any failure): after every run every round is
settled and its request marked; each wager has exactly one resolution; each round has one
settlement entry; every ledger entry of these rounds sums to zero; each resolved wager's
player lines sum to its resolution's net; the players' total net is the same in every
run; and a request settled twice pays once: the in-process rounds settled again in-process,
and five of the timed rounds' requests sent to the workers again, each answer "already
settled" and write no row.
"""

import argparse
import contextlib
import copy
import cProfile
import io
import multiprocessing
import os
import pstats
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from random import Random
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psycopg  # noqa: E402 - after sys.path, like the other benchmarks
import redis  # noqa: E402
from engines import machine  # noqa: E402 - bench/ is not a package: found through sys.path
from psycopg import sql  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

POSTGRES_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/14"  # --redis-db changes the database
PROJECT_PREFIXES = ("DJANGO_", "DATABASE_", "CELERY_", "CASINO_")  # the project's settings

# Six players, four wagers each (kinds from SCENARIOS.md; the table takes 5 to 500).
WAGERS: dict[str, tuple[tuple[str, str], ...]] = {
    "p1": (("big", "25"), ("total:11", "5"), ("single:6", "10"), ("any_triple", "5")),
    "p2": (("small", "50"), ("total:9", "10"), ("double:3", "5"), ("combo:3-4", "5")),
    "p3": (("big", "10"), ("total:12", "5"), ("single:1", "10"), ("triple:6", "5")),
    "p4": (("small", "20"), ("total:10", "5"), ("single:4", "15"), ("combo:1-2", "5")),
    "p5": (("big", "100"), ("total:8", "5"), ("double:6", "5"), ("any_triple", "5")),
    "p6": (("small", "15"), ("total:13", "5"), ("single:5", "10"), ("combo:2-5", "5")),
}
WAGER_LIST = [
    {"player": player, "kind": kind, "amount": amount}
    for player, wagers in WAGERS.items()
    for kind, amount in wagers
]


class BenchFailure(Exception):
    """A check failed or a process misbehaved: printed, exit 1."""


# --- processes and databases ---------------------------------------------------------------


# The request budgets (casino/api/throttles.py) far above what a bench sends: one token
# from 8 clients at 1000+ requests a second, thousands of heartbeats a second. Still
# counted, so their cost is in every figure; never refused.
BUDGETS = {
    f"CASINO_THROTTLE_{name}": "1000000000/60"
    for name in ("TOKEN", "USER", "ANONYMOUS", "DEVICE", "PROBE")
}


def project_env(**overrides: str) -> dict[str, str]:
    """This process's environment minus the project's settings, plus the benches' budgets
    and these (as tests do)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(PROJECT_PREFIXES)}
    env["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(BUDGETS)
    env.update(overrides)
    return env


RUNNING: list[subprocess.Popen[bytes]] = []  # stopped on the way out, whatever happens


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    log: Path


# A worker's command with its own process under cProfile from "ready" to its shutdown
# (--profile-worker), in CPU time: the message, the hand-off, the acknowledgement, the log
# lines, and with the solo pool the task too; not the imports and the start-up, nor the
# waits. `python -c` this, then celery's arguments.
PROFILED_WORKER = """
import cProfile, os, sys, time
from celery.signals import worker_ready, worker_shutdown
profile = cProfile.Profile(time.process_time)  # CPU time: the waits for Redis count nothing
worker_ready.connect(lambda **_: profile.enable(), weak=False)
def dump(**_):
    profile.disable()
    profile.dump_stats(os.environ["BENCH_WORKER_PROFILE"])
worker_shutdown.connect(dump, weak=False)
sys.argv[0] = "celery"
from celery.__main__ import main
main()
"""


def workers_start(
    count: int,
    concurrency: int,
    env: dict[str, str],
    logs: Path,
    pool: str = "prefork",
    profile: Path | None = None,
) -> list[Worker]:
    """`count` celery worker processes on the settlement queue, each once it says ready
    (an INFO line: Celery logs through settings.LOGGING, so CASINO_LOG_LEVEL, not -l, sets
    its level; a caller's quieter level would hide it). With `profile`, the first one's
    own process under cProfile from ready to shutdown, its stats written there."""
    env = {**env, "CASINO_LOG_LEVEL": "INFO"}
    workers = []
    for index in range(1, count + 1):
        log = logs / f"worker-{count}x{concurrency}-{index}.log"
        command = [sys.executable, "-m", "celery"]
        run_env = env
        if profile is not None and index == 1:
            command = [sys.executable, "-c", PROFILED_WORKER]
            run_env = {**env, "BENCH_WORKER_PROFILE": str(profile)}
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    *command, "-A", "casino", "worker",
                    "-Q", "settlement", "-n", f"bench{index}@%h",
                    "--concurrency", str(concurrency), "--pool", pool,
                    "--without-gossip", "--without-mingle", "-l", "INFO",
                ],
                cwd=ROOT,
                env=run_env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        workers.append(Worker(process, log))
        RUNNING.append(process)
    deadline = time.monotonic() + 60
    for worker in workers:
        while b" ready." not in worker.log.read_bytes():
            if worker.process.poll() is not None or time.monotonic() > deadline:
                raise BenchFailure(f"a worker did not start:\n{tail(worker.log)}")
            time.sleep(0.1)
    return workers


def workers_stop(processes: Iterable[subprocess.Popen[bytes]]) -> None:
    """SIGTERM (a warm shutdown), then SIGKILL whatever is still there after 20 s."""
    processes = [p for p in processes if p.poll() is None]
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process in RUNNING:
            RUNNING.remove(process)


def tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def database_create(name: str) -> str:
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return re.sub(r"/[^/]*$", f"/{name}", POSTGRES_ADMIN_URL)


def database_drop(name: str) -> None:
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


# --- setup: tables and rounds through the services -------------------------------------------


def clone(obj: Any, **changes: Any) -> Any:
    """An unsaved copy of a model instance with these fields changed."""
    from django.db.models.base import ModelState

    new = copy.copy(obj)
    new.pk = None
    new._state = ModelState()
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def tables_make(count: int, now: datetime) -> list[Any]:
    """One compliant open Sic Bo table built through the services at `now`, and copies of
    its records for the rest (the gates of round_open check them all the same)."""
    from casino.models import (
        EquipmentSet,
        LocationApproval,
        SetInPlay,
        SicBoOpeningInspection,
        Table,
    )
    from devices.models import Device
    from tests.casino.floor_fixtures import compliant_table

    first = compliant_table("sic_bo", open_table=True, number="SB-0001", now=now).table
    approval = first.location_approvals.get()
    in_play = first.sets_in_play.select_related("equipment_set").get()
    inspection = first.sic_bo_inspections.get()
    devices = list(first.devices.all())
    tables = Table.objects.bulk_create(
        clone(first, number=f"SB-{index:04d}") for index in range(2, count + 1)
    )
    sets = EquipmentSet.objects.bulk_create(
        clone(in_play.equipment_set, identifier=f"{t.number}-three_dice-1") for t in tables
    )
    LocationApproval.objects.bulk_create(clone(approval, table=t) for t in tables)
    SetInPlay.objects.bulk_create(
        clone(in_play, table=t, equipment_set=s) for t, s in zip(tables, sets, strict=True)
    )
    SicBoOpeningInspection.objects.bulk_create(clone(inspection, table=t) for t in tables)
    # The devices the table needs (the illumination device), active like the first's.
    Device.objects.bulk_create(
        clone(d, table=t, serial_number=f"{t.number}-{d.kind}-{d.position or 0}")
        for t in tables
        for d in devices
    )
    return [first, *tables]


def webhook_subscribe(table: Any) -> None:
    """An endpoint of the tables' holder that wants round.settled (--webhook): each
    settlement then writes its event and publishes its fan-out, which no worker here takes
    (nothing is POSTed; the Redis database is emptied between runs)."""
    from django.utils import timezone

    from tests.casino.floor_fixtures import operations
    from webhooks.services import endpoint_register

    endpoint_register(
        holder=table.holder,
        url="http://127.0.0.1:9/bench",
        events=["round.settled"],
        by=operations(),
        now=timezone.now(),
    )


def rounds_play(tables: list[Any], seed: int, processes: int) -> list[int]:
    """A round at each table, played through the services up to its result, by `processes`
    forked processes side by side (setup only: the rounds are independent); the round ids,
    in the order of the tables. A process that fails, dies or hangs ends the setup with a
    BenchFailure naming why (the others are killed): it never waits forever."""
    from django.db import connections

    rng = Random(seed)
    plays = [(table.pk, [rng.randint(1, 6) for _ in range(3)]) for table in tables]
    connections.close_all()  # each forked process opens its own
    context = multiprocessing.get_context("fork")
    children = []
    for index in range(processes):
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=rounds_play_child, args=(plays[index::processes], send))
        child.start()
        send.close()  # the child holds the only sending end: its exit closes the pipe
        children.append((child, receive))
    deadline = time.monotonic() + max(120.0, 2.0 * len(plays))
    played: dict[int, int] = {}
    try:
        for child, receive in children:
            played.update(child_answer(child, receive, deadline))
    finally:
        for child, receive in children:
            if child.is_alive():
                child.kill()
            child.join()
            receive.close()
    return [played[table.pk] for table in tables]


def child_answer(child: Any, receive: Any, deadline: float) -> list[tuple[int, int]]:
    """What a setup process sent back: its pairs, or a BenchFailure with its traceback."""
    while not receive.poll(0.2):
        if not child.is_alive() and not receive.poll(0):
            raise BenchFailure(
                f"a setup process (pid {child.pid}) exited with {child.exitcode} and no answer"
            )
        if time.monotonic() > deadline:
            raise BenchFailure(f"a setup process (pid {child.pid}) did not finish in time")
    try:
        outcome, value = receive.recv()
    except EOFError:  # it died before it answered
        child.join(5)
        raise BenchFailure(
            f"a setup process (pid {child.pid}) exited with {child.exitcode} and no answer"
        ) from None
    if outcome != "played":
        raise BenchFailure(f"a setup process (pid {child.pid}) failed:\n{value}")
    return value


def rounds_play_child(plays: list[tuple[int, list[int]]], send: Any) -> None:
    """Play these rounds in a forked process; send back plain data only, ("played", pairs)
    or ("failed", the traceback's text): an exception object might not survive pickling."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not this script's handler
    try:
        answer = ("played", rounds_play_chunk(plays))
    except BaseException:
        answer = ("failed", traceback.format_exc())
    send.send(answer)
    send.close()


def rounds_play_chunk(plays: list[tuple[int, list[int]]]) -> list[tuple[int, int]]:
    """(table id, round id) for each (table id, dice) played, each step at the real clock's
    time (as a dealer's would be: the gates see the time they would in play)."""
    from django.db import connections
    from django.utils import timezone

    from casino.models import Table
    from gaming.rounds import result_enter, round_open, wagers_place
    from tests.casino.floor_fixtures import operations

    by, done = operations(), []
    try:
        for table_id, dice in plays:
            round_ = round_open(Table.objects.get(pk=table_id), by=by, now=timezone.now())
            wagers_place(round_, WAGER_LIST, by=by, now=timezone.now())
            round_ = result_enter(round_, "throw", dice, by=by, now=timezone.now())
            done.append((table_id, round_.pk))
    finally:
        connections.close_all()
    return done


# --- raw SQL: requests, checks, reset, the ceiling ----------------------------------------------


def request_ids(db: psycopg.Connection, round_ids: list[int]) -> list[int]:
    rows = db.execute(
        "SELECT id FROM games_settlementrequest WHERE round_id = ANY(%s) ORDER BY id",
        (round_ids,),
    )
    return [row[0] for row in rows]


def unsettled(db: psycopg.Connection, round_ids: list[int]) -> int:
    return db.execute(
        "SELECT count(*) FROM games_settlementrequest"
        " WHERE round_id = ANY(%s) AND settled_at IS NULL",
        (round_ids,),
    ).fetchone()[0]


CHECKS = {
    "rounds not settled": "SELECT count(*) FROM games_round"
    " WHERE id = ANY(%(ids)s) AND status <> 'settled'",
    "requests not marked settled": "SELECT count(*) FROM games_settlementrequest"
    " WHERE round_id = ANY(%(ids)s) AND settled_at IS NULL",
    "wagers without a resolution": "SELECT count(*) FROM games_wager w"
    " LEFT JOIN games_resolution r ON r.wager_id = w.id"
    " WHERE w.round_id = ANY(%(ids)s) AND r.id IS NULL",
    "resolutions beyond one per wager": "SELECT count(*) - count(DISTINCT wager_id)"
    " FROM games_resolution WHERE round_id = ANY(%(ids)s)",
    "rounds without exactly one settlement entry": "SELECT count(*) FROM games_round g"
    " WHERE g.id = ANY(%(ids)s) AND (SELECT count(*) FROM games_ledgerentry e"
    " WHERE e.round_id = g.id AND e.kind = 'settlement') <> 1",
    "ledger entries not summing to zero": "SELECT count(*) FROM ("
    " SELECT e.id FROM games_ledgerentry e JOIN games_ledgerline l ON l.entry_id = e.id"
    " WHERE e.round_id = ANY(%(ids)s) GROUP BY e.id HAVING sum(l.amount) <> 0) bad",
    "wagers whose player lines differ from the net": "SELECT count(*) FROM games_resolution r"
    " LEFT JOIN (SELECT wager_id, sum(amount) AS total FROM games_ledgerline"
    " WHERE account = 'player' AND wager_id IS NOT NULL GROUP BY wager_id) p"
    " ON p.wager_id = r.wager_id"
    " WHERE r.round_id = ANY(%(ids)s) AND coalesce(p.total, 0) <> r.net",
}


def settled_check(
    db: psycopg.Connection, round_ids: list[int], by: str
) -> tuple[list[str], Decimal]:
    """What is wrong with these rounds' settlement (nothing, we hope), and the players'
    total net over them. `by`: a LIKE pattern every request's settled_by matches."""
    problems = []
    for what, query in CHECKS.items():
        count = db.execute(query, {"ids": round_ids}).fetchone()[0]
        if count:
            problems.append(f"{count} {what}")
    others = db.execute(
        "SELECT count(*) FROM games_settlementrequest"
        " WHERE round_id = ANY(%s) AND settled_by NOT LIKE %s",
        (round_ids, by),
    ).fetchone()[0]
    if others:
        problems.append(f"{others} requests settled by another than {by!r}")
    net = db.execute(
        "SELECT coalesce(sum(net), 0) FROM games_resolution WHERE round_id = ANY(%s)",
        (round_ids,),
    ).fetchone()[0]
    return problems, net


RESET = (
    "DELETE FROM games_ledgerline WHERE entry_id IN (SELECT id FROM games_ledgerentry"
    " WHERE kind = 'settlement' AND round_id = ANY(%(ids)s))",
    "DELETE FROM games_ledgerentry WHERE kind = 'settlement' AND round_id = ANY(%(ids)s)",
    "DELETE FROM games_resolution WHERE round_id = ANY(%(ids)s)",
    "UPDATE games_round SET status = 'result_entered', settled_at = NULL, rules_hash = '',"
    " state_after = NULL WHERE id = ANY(%(ids)s)",
    "UPDATE games_settlementrequest SET settled_at = NULL, settled_by = ''"
    " WHERE round_id = ANY(%(ids)s)",
)
SETTLED_TABLES = ", ".join(
    f"games_{name}"
    for name in ("ledgerline", "ledgerentry", "resolution", "round", "settlementrequest")
)


def rounds_reset(db: psycopg.Connection, round_ids: list[int]) -> None:
    """Back to RESULT_ENTERED with a pending request, as after setup (the benchmark's
    own database: the settlement rows are deleted, which the models never do)."""
    with db.transaction():
        for statement in RESET:
            db.execute(statement, {"ids": round_ids})
    quiet(db)


def quiet(db: psycopg.Connection) -> None:
    """Dead rows vacuumed, statistics fresh, dirty pages written: each run starts alike."""
    db.execute(f"VACUUM ANALYZE {SETTLED_TABLES}")
    db.execute("CHECKPOINT")


@dataclass
class Written:
    """What settling one round wrote, to be written again by raw SQL."""

    round_id: int
    request_id: int
    rules_hash: str = ""
    state_after: bytes = b""
    resolutions: list[tuple] = field(default_factory=list)
    entry: tuple = ()
    lines: list[tuple] = field(default_factory=list)


def written_read(db: psycopg.Connection, round_ids: list[int]) -> list[Written]:
    """The rows the workers wrote for these rounds, by round."""
    by_round = {
        round_id: Written(round_id, request_id)
        for request_id, round_id in db.execute(
            "SELECT id, round_id FROM games_settlementrequest WHERE round_id = ANY(%s)",
            (round_ids,),
        )
    }
    for round_id, rules_hash, state_after in db.execute(
        "SELECT id, rules_hash, state_after FROM games_round WHERE id = ANY(%s)", (round_ids,)
    ):
        by_round[round_id].rules_hash, by_round[round_id].state_after = rules_hash, state_after
    for row in db.execute(
        "SELECT wager_id, round_id, event_id, result, net, stake, winnings,"
        " payout_limit_reduction, vigorish, cite, extra FROM games_resolution"
        " WHERE round_id = ANY(%s) ORDER BY id",
        (round_ids,),
    ):
        by_round[row[1]].resolutions.append((*row[:10], Jsonb(row[10])))
    entry_round = {}
    for entry_id, *entry in db.execute(
        "SELECT id, key, kind, table_id, round_id, posted_at, posted_by_id, memo"
        " FROM games_ledgerentry WHERE kind = 'settlement' AND round_id = ANY(%s)",
        (round_ids,),
    ):
        entry_round[entry_id] = entry[3]
        by_round[entry[3]].entry = tuple(entry)
    for entry_id, *line in db.execute(
        "SELECT entry_id, table_id, account, player, wager_id, kind, amount"
        " FROM games_ledgerline WHERE entry_id = ANY(%s) ORDER BY id",
        (list(entry_round),),
    ):
        by_round[entry_round[entry_id]].lines.append(tuple(line))
    return [by_round[round_id] for round_id in round_ids]


INSERT_RESOLUTION = (
    "INSERT INTO games_resolution (wager_id, round_id, event_id, result, net, stake, winnings,"
    " payout_limit_reduction, vigorish, cite, extra)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
INSERT_ENTRY = (
    "INSERT INTO games_ledgerentry (key, kind, table_id, round_id, posted_at, posted_by_id, memo)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING id"
)
INSERT_LINE = (
    "INSERT INTO games_ledgerline (entry_id, table_id, account, player, wager_id, kind, amount)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s)"
)
UPDATE_ROUND = (
    "UPDATE games_round SET status = 'settled', settled_at = %s, rules_hash = %s,"
    " state_after = %s WHERE id = %s"
)
UPDATE_REQUEST = "UPDATE games_settlementrequest SET settled_at = %s, settled_by = %s WHERE id = %s"


def ceiling_run(url: str, written: list[Written]) -> float:
    """Write every round's settlement rows again, one transaction per round; seconds."""
    with psycopg.connect(url, autocommit=True) as db:
        now = datetime.now(UTC)
        start = time.perf_counter()
        for w in written:
            with db.transaction(), db.cursor() as cursor:
                cursor.executemany(INSERT_RESOLUTION, w.resolutions)
                entry_id = cursor.execute(INSERT_ENTRY, w.entry).fetchone()[0]
                cursor.executemany(INSERT_LINE, [(entry_id, *line) for line in w.lines])
                cursor.execute(UPDATE_ROUND, (now, w.rules_hash, w.state_after, w.round_id))
                cursor.execute(UPDATE_REQUEST, (now, "ceiling", w.request_id))
        return time.perf_counter() - start


# --- timed: the workers ------------------------------------------------------------------------


def settle_by_workers(
    db: psycopg.Connection, requests: list[int], round_ids: list[int], workers: list[Worker]
) -> float:
    """Publish the requests; seconds from the first publish to the last settled_at."""
    from games.services.outbox import requests_send

    deadline = time.monotonic() + max(60.0, len(requests) * 0.5)
    start = time.time()
    sent = requests_send(requests)
    if sent != len(requests):
        raise BenchFailure(f"{len(requests) - sent} of {len(requests)} requests not published")
    while unsettled(db, round_ids):
        for worker in workers:
            if worker.process.poll() is not None:
                raise BenchFailure(f"a worker exited:\n{tail(worker.log)}")
        if time.monotonic() > deadline:
            logs = "\n".join(tail(w.log, 10) for w in workers)
            raise BenchFailure(f"{unsettled(db, round_ids)} rounds still unsettled:\n{logs}")
        time.sleep(0.05)
    last = db.execute(
        "SELECT max(settled_at) FROM games_settlementrequest WHERE round_id = ANY(%s)",
        (round_ids,),
    ).fetchone()[0]
    return last.timestamp() - start


SUCCEEDED = re.compile(rb"Task settlement\.round_settle\[[^]]+\] succeeded in ([0-9.]+)s")


def task_seconds(workers: list[Worker], offsets: list[int]) -> list[float]:
    """How long each task ran in its pool process, from the worker logs past `offsets`."""
    found = []
    for worker, offset in zip(workers, offsets, strict=True):
        found += [float(s) for s in SUCCEEDED.findall(worker.log.read_bytes()[offset:])]
    return found


# --- what limits it: one settlement in-process, split ------------------------------------------


@dataclass
class Split:
    """Seconds spent in each part of `round_settle` over `rounds` rounds."""

    rounds: int
    total: float
    spent: Counter[str]
    statements: Counter[str]

    def ms(self, part: str) -> float:
        return 1000 * self.spent[part] / self.rounds

    @property
    def rest(self) -> float:
        return self.total - sum(self.spent.values())


def settle_split(requests: list[int], profile: cProfile.Profile | None = None) -> Split:
    """round_settle in this process on each request, timing the engine, each SQL statement
    and the commit by wrapping them (production code untouched; wrappers undone after);
    under `profile` too when one is given."""
    from django.db import connection

    import games.services.settlement as settlement

    spent: Counter[str] = Counter()
    statements: Counter[str] = Counter()

    def timed(part: str, function: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[part] += time.perf_counter() - start

        return wrapper

    def statement_timed(execute, query, params, many, context):
        part = "reads" if query.lstrip()[:6].upper() == "SELECT" else "writes"
        start = time.perf_counter()
        try:
            return execute(query, params, many, context)
        finally:
            spent[part] += time.perf_counter() - start
            statements[part] += 1

    from games.services import round_state

    # The engine's share: the cached state read, the replay, the new state pickled (each
    # patched where `in_play` and the settlement look it up).
    engine_parts = [
        (round_state, "state_after"),
        (round_state, "play"),
        (settlement, "state_dumps"),
    ]
    originals = {(module, name): getattr(module, name) for module, name in engine_parts}
    for (module, name), function in originals.items():
        setattr(module, name, timed("engine", function))
    connection.ensure_connection()
    connection._commit = timed("commit", connection._commit)
    try:
        settlement.round_settle(requests[0], worker="in-process (warm-up)")  # imports, rules_hash
        spent.clear()
        statements.clear()
        with connection.execute_wrapper(statement_timed):
            start = time.perf_counter()
            if profile is not None:
                profile.enable()
            for request_id in requests[1:]:
                outcome = settlement.round_settle(request_id, worker="in-process")
                if outcome != "settled":
                    raise BenchFailure(f"in-process round_settle({request_id}): {outcome}")
            if profile is not None:
                profile.disable()
            total = time.perf_counter() - start
    finally:
        for (module, name), function in originals.items():
            setattr(module, name, function)
        del connection._commit
    return Split(len(requests) - 1, total, spent, statements)


def own_time(profile: cProfile.Profile | Path, rounds: int, what: str = "") -> str:
    """The 20 functions with the most time of their own in the profiled settlements (a
    profile, or the stats a profiled worker wrote)."""
    out = io.StringIO()
    stats = pstats.Stats(str(profile) if isinstance(profile, Path) else profile, stream=out)
    stats.sort_stats("tottime").print_stats(20)
    lines = [
        "    " + line.replace(str(ROOT) + "/", "")[:150]
        for line in out.getvalue().splitlines()
        if line.strip()[:1].isdigit() and "function calls" not in line
    ]
    total = sum(own for (_, _, own, _, _) in stats.stats.values())
    what = what or f"{rounds} settlements in-process"
    head = (
        f"cProfile of {what}: {1000 * total / rounds:.1f} ms a round under the profiler;"
        " the functions with the most time of their own:"
    )
    return "\n".join([head, *lines])


def task_share(profile: Path, tasks: int) -> str:
    """The profiled worker's CPU a task, and how much of it the task's own function took
    (none with the prefork pool: the task runs in the pool's processes)."""
    stats = pstats.Stats(str(profile))
    total = sum(own for (_, _, own, _, _) in stats.stats.values())
    task = sum(
        cumulative
        for (path, _, function), (_, _, _, cumulative, _) in stats.stats.items()
        if function == "round_settle_task" and path.endswith("tasks.py")
    )
    return (
        f"  a task: {1000 * total / tasks:.2f} ms of the worker process's CPU under the"
        f" profiler, {1000 * task / tasks:.2f} ms of it in round_settle_task,"
        f" {1000 * (total - task) / tasks:.2f} ms around it"
    )


# --- the run -----------------------------------------------------------------------------------


@dataclass
class Rate:
    label: str
    rounds_per_s: float
    processes: int = 1  # processes settling one round at a time
    workers: int = 1  # worker (parent) processes
    task: float = float("nan")  # median seconds in the task body, from the worker logs
    cpu: float = float("nan")  # CPU seconds a round, the workers' processes (pools included)
    ceiling: float = float("nan")  # the ceiling's rounds/s, measured right after this run

    @property
    def ratio(self) -> float:
        """A pool process's rate to the ceiling's measured beside it."""
        return self.rounds_per_s / self.processes / self.ceiling


def run(args: argparse.Namespace, url: str, env: dict[str, str], logs: Path) -> list[str]:
    """Set up, time, check; print the figures; return what failed its check."""
    from django.db import connections
    from django.utils import timezone

    counts = args.worker_counts
    warm = 2 * max(counts) * args.concurrency
    total = args.rounds + warm + args.profile_rounds + 1
    # The tables are built (their records approved, their sets put in play) a minute ago by
    # the real clock, and the rounds are played at the real clock's time: whatever gate
    # reads the clock sees what it would see on a floor.
    started = time.perf_counter()
    tables = tables_make(total, timezone.now() - timedelta(minutes=1))
    if args.webhook:
        webhook_subscribe(tables[0])
    made = time.perf_counter()
    ids = rounds_play(tables, args.seed, args.setup_processes)
    played = time.perf_counter()
    connections.close_all()
    timed_ids = ids[: args.rounds]
    warm_ids = ids[args.rounds : args.rounds + warm]
    split_ids = ids[args.rounds + warm :]
    print(f"machine: {machine()}")
    if args.webhook:
        print("webhook: an endpoint wants round.settled: each settlement writes its event")
    print(
        f"setup: {total} Sic Bo tables in {made - started:.1f} s, a round at each played to its"
        f" result through the services in {played - made:.1f} s"
        f" ({args.setup_processes} processes side by side)"
    )
    print(
        f"rounds: {args.rounds} timed (+{warm} to warm the workers, +{args.profile_rounds + 1}"
        f" settled in-process); {len(WAGER_LIST)} wagers each ({len(WAGERS)} players),"
        f" dice from random.Random({args.seed}); {args.repeat} repeat(s), each worker run"
        " followed by a ceiling run"
    )
    broker = redis.Redis.from_url(REDIS_URL)
    problems: list[str] = []
    nets: dict[str, Decimal] = {}
    rates: list[Rate] = []
    ceilings: list[float] = []
    written: list[Written] = []

    with psycopg.connect(url, autocommit=True) as db:
        broker.flushdb()  # the tasks result_enter published during setup
        quiet(db)
        split_requests = request_ids(db, split_ids)
        profile = cProfile.Profile() if args.profile else None
        split = settle_split(split_requests, profile)
        if profile is not None:
            print(own_time(profile, split.rounds))
        problems += [f"in-process: {p}" for p in settled_twice_check(db, split_ids)]
        connections.close_all()
        found, _ = settled_check(db, split_ids, "in-process%")
        problems += [f"in-process: {p}" for p in found]

        settled = False
        for repeat in range(1, args.repeat + 1):
            for count in counts:
                if settled:
                    rounds_reset(db, timed_ids + warm_ids)
                broker.flushdb()
                label = f"workers {count} x concurrency {args.concurrency}"
                rate, found = workers_run(args, db, env, logs, count, timed_ids, warm_ids)
                settled = True
                found_, nets[f"{label} #{repeat}"] = settled_check(db, timed_ids, "bench%")
                problems += [f"{label}: {p}" for p in found + found_]
                if not written:
                    written = written_read(db, timed_ids)
                rounds_reset(db, timed_ids)
                seconds = ceiling_run(url, written)
                rate.ceiling = args.rounds / seconds
                ceilings.append(rate.ceiling)
                found, nets[f"ceiling #{len(ceilings)}"] = settled_check(db, timed_ids, "ceiling")
                problems += [f"ceiling: {p}" for p in found]
                rates.append(rate)
                print(
                    f"  {label}: {1000 * rate.processes / rate.rounds_per_s:.1f} ms a round of"
                    f" a pool process ({1000 * rate.task:.1f} ms in the task, median of the"
                    f" worker log; {1000 * rate.cpu:.1f} ms of the workers' CPU); the ceiling"
                    f" run after it: {1000 / rate.ceiling:.1f} ms a round; ratio {rate.ratio:.3f}"
                )
    broker.flushdb()

    lines = sum(len(w.lines) for w in written) / len(written)
    ceiling = Rate("ceiling: raw SQL, 1 process", statistics.median(ceilings))
    in_process = Rate("in-process round_settle, no Celery", split.rounds / split.total)
    print(
        f"each settlement writes {len(WAGER_LIST)} resolutions, 1 ledger entry and"
        f" {lines:.0f} ledger lines (mean), updates the round and the request"
    )
    print(f"medians of {args.repeat} run(s); process:ceiling is each run's to its own ceiling")
    header = f"{'':<36}{'rounds/s':>10}{'per worker':>12}{'per process':>13}"
    print(f"{header}{'process:ceiling':>17}{'(min-max)':>15}")
    for count in counts:
        runs = [r for r in rates if r.workers == count]
        rate = statistics.median(r.rounds_per_s for r in runs)
        ratios = [r.ratio for r in runs]
        print(
            f"{runs[0].label:<36}{rate:>10.1f}{rate / count:>12.1f}"
            f"{rate / runs[0].processes:>13.1f}{statistics.median(ratios):>17.3f}"
            f"{f'{min(ratios):.2f}-{max(ratios):.2f}':>15}"
        )
    for rate in (ceiling, in_process):
        print(
            f"{rate.label:<36}{rate.rounds_per_s:>10.1f}{'-':>12}{rate.rounds_per_s:>13.1f}"
            f"{rate.rounds_per_s / ceiling.rounds_per_s:>17.3f}"
        )
    print(limits(split, rates, ceiling))

    first = next(iter(nets.values()))
    if any(net != first for net in nets.values()):
        problems.append(f"the players' total net differs between runs: {nets}")
    if not problems:
        print(f"checks passed in every run; the players' total net: {first:,.2f}")
    return problems


def workers_run(
    args: argparse.Namespace,
    db: psycopg.Connection,
    env: dict[str, str],
    logs: Path,
    count: int,
    timed_ids: list[int],
    warm_ids: list[int],
) -> tuple[Rate, list[str]]:
    """`count` workers started and warmed, the timed rounds settled by them, a few of them
    sent again (each a no-op), the workers stopped; the rate and what failed its check."""
    profile = logs / f"worker-profile-{count}.prof" if args.profile_worker else None
    workers = workers_start(count, args.concurrency, env, logs, args.pool, profile)
    try:
        warm_these = warm_ids[: 2 * count * args.concurrency]
        settle_by_workers(db, request_ids(db, warm_these), warm_these, workers)
        offsets = [w.log.stat().st_size for w in workers]
        cpu = workers_cpu(workers)
        seconds = settle_by_workers(db, request_ids(db, timed_ids), timed_ids, workers)
        cpu = workers_cpu(workers) - cpu
        problems = sent_twice_check(db, timed_ids, workers, offsets)
    finally:
        workers_stop(w.process for w in workers)
    label = f"workers {count} x concurrency {args.concurrency}"
    rate = Rate(label, args.rounds / seconds, count * args.concurrency, count)
    rate.task = statistics.median(task_seconds(workers, offsets) or [float("nan")])
    rate.cpu = cpu / args.rounds
    if profile is not None and not args.profile_worker_shown:
        args.profile_worker_shown = True  # the first run's: the others alike
        settled = len(SUCCEEDED.findall(workers[0].log.read_bytes()))
        what = f"the first worker's own process ({args.pool} pool), {settled} tasks"
        print(own_time(profile, settled, what))
        print(task_share(profile, settled))
        if os.environ.get("BENCH_KEEP_PROFILE"):
            shutil.copy(profile, os.environ["BENCH_KEEP_PROFILE"])
    return rate, problems


AGAIN = 5  # requests sent again after each run: a second delivery settles nothing


def settled_counts(db: psycopg.Connection, round_ids: list[int]) -> tuple[int, ...]:
    """Resolutions, ledger entries and ledger lines of these rounds."""
    return db.execute(
        "SELECT (SELECT count(*) FROM games_resolution WHERE round_id = ANY(%(ids)s)),"
        " (SELECT count(*) FROM games_ledgerentry WHERE round_id = ANY(%(ids)s)),"
        " (SELECT count(*) FROM games_ledgerline l JOIN games_ledgerentry e"
        " ON e.id = l.entry_id WHERE e.round_id = ANY(%(ids)s))",
        {"ids": round_ids},
    ).fetchone()


def sent_twice_check(
    db: psycopg.Connection, round_ids: list[int], workers: list[Worker], offsets: list[int]
) -> list[str]:
    """Send the first AGAIN requests to the workers again: each answers "already settled"
    and writes nothing (a task delivered twice settles once)."""
    from games.services.outbox import requests_send

    again = round_ids[:AGAIN]
    before = settled_counts(db, again)
    requests_send(request_ids(db, again))
    deadline = time.monotonic() + 30
    while already_settled(workers, offsets) < len(again):
        if time.monotonic() > deadline:
            return [f"{len(again)} requests sent again: not all answered 'already settled'"]
        time.sleep(0.05)
    after = settled_counts(db, again)
    return [] if after == before else [f"sent again, {before} rows became {after}"]


def already_settled(workers: list[Worker], offsets: list[int]) -> int:
    return sum(
        worker.log.read_bytes()[offset:].count(b"'already settled'")
        for worker, offset in zip(workers, offsets, strict=True)
    )


def settled_twice_check(db: psycopg.Connection, round_ids: list[int]) -> list[str]:
    """round_settle in this process again on settled rounds: a no-op each time."""
    from games.services.settlement import round_settle

    before = settled_counts(db, round_ids)
    outcomes = Counter(round_settle(r, worker="in-process") for r in request_ids(db, round_ids))
    after = settled_counts(db, round_ids)
    problems = [] if after == before else [f"settled again, {before} rows became {after}"]
    if set(outcomes) != {"already settled"}:
        problems.append(f"settled again: {dict(outcomes)}, not all 'already settled'")
    return problems


def workers_cpu(workers: list[Worker]) -> float:
    """CPU seconds (user and system) used so far by the workers and their pool processes."""
    return sum(process_cpu(pid) for w in workers for pid in process_tree(w.process.pid))


def process_tree(pid: int) -> list[int]:
    """The process and its descendants, from /proc (Linux)."""
    tree, index = [pid], 0
    while index < len(tree):
        children = Path(f"/proc/{tree[index]}/task/{tree[index]}/children")
        with contextlib.suppress(OSError):
            tree += [int(child) for child in children.read_text().split()]
        index += 1
    return tree


def process_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def limits(split: Split, rates: list[Rate], ceiling: Rate) -> str:
    """Where one settlement's time goes, and what that says limits the workers."""
    per_round = 1000 * split.total / split.rounds
    orm = 1000 * split.rest / split.rounds
    parts = {
        "engine (state in, replay, pickle)": split.ms("engine"),
        f"{split.statements['reads'] / split.rounds:.0f} reads": split.ms("reads"),
        f"{split.statements['writes'] / split.rounds:.0f} writes": split.ms("writes"),
        "commit": split.ms("commit"),
        "Django and Python around them": orm,
    }
    shares = ", ".join(f"{name} {ms:.1f} ms ({ms / per_round:.0%})" for name, ms in parts.items())
    best = max(rates, key=lambda r: r.rounds_per_s / r.processes)
    a_round = 1000 * best.processes / best.rounds_per_s
    statements = split.statements.total() / split.rounds
    causes = {
        "Django and Python around the SQL": orm,
        f"PostgreSQL ({statements:.0f} statements and the commit; the ceiling's whole round"
        f" takes {1000 / ceiling.rounds_per_s:.1f} ms)": split.ms("reads")
        + split.ms("writes")
        + split.ms("commit"),
        f"Celery around the task ({best.label}: {1000 * best.task:.1f} ms in the task,"
        f" median of the worker log, of {a_round:.1f} ms a round)": a_round - 1000 * best.task,
        "the engine": split.ms("engine"),
    }
    ranked = "; ".join(
        f"{name} {ms:.1f} ms" for name, ms in sorted(causes.items(), key=lambda c: -c[1])
    )
    # A task as fast as the ceiling's whole round still waits the gap around it.
    gap = a_round - 1000 * best.task
    beside = 1000 / best.ceiling if best.ceiling == best.ceiling else 1000 / ceiling.rounds_per_s
    return (
        f"one settlement in-process ({split.rounds} rounds): {per_round:.1f} ms = {shares}\n"
        f"what limits it, a round, largest first: {ranked}. The workers, PostgreSQL and Redis"
        f" share {os.cpu_count()} cores.\n"
        f"what Celery leaves, an estimate ({best.label}): a task that took as long as the"
        f" ceiling's whole round beside it ({beside:.1f} ms), plus the {gap:.1f} ms a round"
        f" around the task, would reach {beside / (beside + gap):.2f} of the ceiling; 0.7"
        f" allows {beside * (1 / 0.7 - 1):.1f} ms around a task that fast (the task sends"
        " fewer statements than the ceiling, so it can beat it: not a bound)"
    )


def django_ready(env: dict[str, str]) -> None:
    """Migrate the bench's database, then set Django up in this process on `env` alone."""
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if done.returncode != 0:
        output = f"{done.stdout}{done.stderr}".strip()
        raise BenchFailure(f"manage.py migrate exited {done.returncode}:\n{output}")
    for key in [k for k in os.environ if k.startswith(PROJECT_PREFIXES)]:
        del os.environ[key]
    os.environ.update(env)  # before django.setup(): settings read the environment
    import django

    django.setup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=600, help="rounds settled per timed run")
    parser.add_argument(
        "--workers", default="1,2", help="worker process counts, one timed run each (1,2)"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="pool processes a worker")
    parser.add_argument(
        "--pool", choices=("prefork", "solo"), default="prefork", help="the workers' pool"
    )
    parser.add_argument(
        "--profile-rounds", type=int, default=20, help="rounds settled in-process, split"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="the in-process rounds under cProfile: the functions with the most own time",
    )
    parser.add_argument(
        "--profile-worker",
        action="store_true",
        help="the first worker's own process under cProfile (with --pool solo, its tasks too)",
    )
    parser.add_argument("--seed", type=int, default=625, help="random.Random seed of the dice")
    parser.add_argument(
        "--setup-processes",
        type=int,
        default=os.cpu_count() or 1,
        help="processes playing the rounds during the setup (not timed)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each worker count, each with a ceiling"
    )
    parser.add_argument(
        "--redis-db", type=int, default=14, help="the Redis database it empties and uses (14)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="seconds, not minutes: 20 rounds, one worker, one run; the same checks (exit 1)",
    )
    parser.add_argument(
        "--webhook",
        action="store_true",
        help="an endpoint wants round.settled: each settlement writes its webhook event",
    )
    args = parser.parse_args()
    args.profile_worker_shown = False
    global REDIS_URL
    REDIS_URL = REDIS_URL.rsplit("/", 1)[0] + f"/{args.redis_db}"
    if args.quick:
        args.rounds, args.workers, args.profile_rounds, args.repeat = 20, "1", 3, 1
    try:
        args.worker_counts = [int(n) for n in args.workers.split(",")]
    except ValueError:
        parser.error("--workers takes counts separated by commas, e.g. 1,2")
    if (
        min(args.rounds, args.concurrency, args.profile_rounds, args.setup_processes, args.repeat)
        < 1
    ):
        parser.error(
            "--rounds, --concurrency, --profile-rounds, --setup-processes and --repeat: at least 1"
        )
    if not args.worker_counts or min(args.worker_counts) < 1:
        parser.error("--workers: each count at least 1")
    if args.pool == "solo" and args.concurrency != 1:
        # A solo worker runs one task at a time in its own process: the rates would be
        # divided by processes that do not exist.
        parser.error("--pool solo runs one task at a time a worker: --concurrency 1 only")

    # SIGTERM unwinds like Ctrl-C, so the workers stop and the database is dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    name = f"casino_bench_{uuid.uuid4().hex[:12]}"
    data_dir = Path(tempfile.mkdtemp(prefix="casino_bench_"))
    problems: list[str] = []
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).flushdb()
        url = database_create(name)
        env = project_env(
            DATABASE_URL=url,
            CELERY_BROKER_URL=REDIS_URL,
            CASINO_DATA_DIR=str(data_dir),
            DJANGO_DEBUG="false",
        )
        django_ready(env)
        problems = run(args, url, env, data_dir)
    except BenchFailure as failure:
        problems = [str(failure)]
    finally:
        workers_stop(list(RUNNING))
        if "django.db" in sys.modules:
            from django.db import connections

            connections.close_all()
        database_drop(name)
        redis.Redis.from_url(REDIS_URL).flushdb()
        shutil.rmtree(data_dir, ignore_errors=True)
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
