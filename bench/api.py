"""The REST API's latency and throughput: placing a wager and reading the floor through
gunicorn, next to GET /health/ measured in the same run, at 1, 8 and 32 concurrent clients.

    .venv/bin/python bench/api.py [--seconds 10] [--warmup 2] [--clients 1,8,32]
        [--workers CPUS*2+1] [--samples 20] [--growth 0,50,200] [--profile] [--quick] [--keep]

About three and a half minutes with the defaults on 2 cores; `--quick` (2 s a cell, 1 s
warm-up) under two, most of it the setup.

Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust) and Redis at 127.0.0.1:6379. It
creates a throwaway database casino_bench_api_<random>, migrates it with `manage.py
migrate` in a subprocess and drops it at the end, even on an error, Ctrl-C or SIGTERM
(`--keep` keeps it, and Redis database 12, for inspection, and prints how to drop it).
Redis database 12 (`--redis-db`: another when another run shares the machine) is the
benchmark's own: Celery's broker, the cache and the device heartbeat store (the broker's,
as settings default them); emptied (FLUSHDB) at the start and at the end.

Setup, not timed, in this process (DJANGO_ENV=development, DJANGO_DEBUG=false: the demo
loader refuses production): the demo floor (casino.demo.demo_floor_load: 12 tables, 10 of
them open), an integrator `bench-integrator` with an API token for the demo certificate
holder (casino.services.api_tokens.token_issue, issued by demo-ops), and five rounds played
to their result and settled at each table wagers go to, so the floor shows its last results.
Wagers go to the 7 open tables whose games take a simple repeated wager: CR-01, CR-02 and
EC-01 (Craps, the pass line on the come out), HR-01 and HR-02 (High Roll Dice, pip:1), SB-01
and SB-02 (Sic Bo, small), $25 each (within every table's minimum and maximum). Pai Gow takes
one wager a betting position, Three Dice Football's Touchdown is a whole-game wager, MC-01 is
suspended and TD-02 closed: none of them is wagered at.

The server: `gunicorn casino.wsgi --config deploy/gunicorn.conf.py` (gthread workers, its access
log on), WEB_CONCURRENCY=`--workers` (the file's own default, CPUs x 2 + 1), with
DJANGO_ENV=production (what deploy/ runs: DJANGO_SECRET_KEY, CASINO_DEVICE_KEY,
DJANGO_ALLOWED_HOSTS=127.0.0.1, DATABASE_URL, CELERY_BROKER_URL set) and
DJANGO_SECURE_SSL_REDIRECT=false (plain http, no load balancer in front). No Celery
worker: a result's settlement request is a row, and its publish to Redis (on commit) is
real.

Timed: first every worker is warmed (2 x workers clients send each endpoint for a second or
`--warmup`, not reported: each worker's imports and connection). Then for each count in
`--clients`, fresh rounds are opened at the 7 tables (the rounds before are given their
result and settled in this process, not timed) and seven cells run, each `--warmup` s then
`--seconds` s measured, every client a process of its own with one http.client connection
(reopened when the server closes it, and a request sent again once on a kept-alive
connection the server had closed: deploy/'s gthread workers keep one 2 s):
- GET /health/: the trivial endpoint (no database, no DRF), the baseline of the ratios;
- GET /api/v1/floor/ with the token: the 12 tables, their rounds in progress, sets in play,
  devices and last results (casino.floor_page.floor_snapshot);
- POST /api/v1/rounds/{id}/wagers/ with the token: one wager, a fresh Idempotency-Key and a
  new player a request (a High Roll Dice player holds one Pip Street wager a pip); each
  client wagers at the 7 tables in turn, from its own, so the rounds fill evenly and 32
  clients share 7 round locks;
- the same request again: each client places one wager, then sends that request with the
  same key over and over (the idempotent answer, `Idempotent-Replayed: true`);
- a wager's 8 statements in raw SQL: psycopg from each client process, the same writes on
  tables of the same shape (schema bench_raw) with nothing around them, no HTTP: the
  ceiling of the database's part (its rate to /health/'s bounds what a wager can reach);
- the bare wager: the wager's request (its body and headers, at bench_raw's 7 rounds in
  turn) to a second gunicorn with the same config, started for the cell (and warmed like
  the first) and stopped after it, serving `bare_wager_app`: it sends the raw cell's 8
  statements and answers what /health/ answers through casino.wsgi. A wager that cost
  nothing beyond /health/'s request and its SQL, measured over HTTP (issue 21, part 1: the
  floor under the wager's p99 and rate through this project's whole middleware stack);
- the same with no Django (`bare_wager_app(django=False)`: the statements, then a fixed
  200): the floor of any Python wager over HTTP under this server on these cores.
The answers that arrive inside the measured window count (a client keeps sending until it
ends): requests/s, p50 and p99 (ms) of the 2xx answers, and errors (any other answer, or a
failed connection). The clients run on the same cores as gunicorn, PostgreSQL and Redis.
CPU a request over each whole cell (warm-up included): gunicorn's workers and this
database's PostgreSQL backends (/proc, sampled every 0.25 s), Redis's (INFO cpu: the whole
server's) and the clients' own; and the whole machine's (/proc/stat), which shows how much
other jobs took. From those, the most these cores allow a wager (`bounds`: one that cost
nothing beyond /health/'s server side, its 8 statements raw, its clients and Redis): the
rate, its ratio to /health/, and the p99 it would see at each client count.

In this process, one request at a time through casino.wsgi's handler (no HTTP, no gunicorn):
each endpoint's time (median of `--samples`), its SQL statements (each a round trip:
CaptureQueriesContext, the transaction's BEGIN, SAVEPOINTs and COMMIT included, plus the
`SELECT 1` of CONN_HEALTH_CHECKS Django sends before a request's first query), the time
spent in them (connection.execute_wrapper) and the Redis round trips; and a wager's time on a
round already holding 0, 50, 200 wager events (`--growth`): the round's state comes from
the cache (ADR 0009), so the ratio to the empty round should stay near 1 (a full replay,
in_play, is timed at each mark too).
`--profile` runs 10 floor reads and 10 wagers under cProfile: where their own time goes
(psycopg, Django building SQL, Django's querysets and models, DRF, the engine, the
project's code), the project's functions by cumulative time, and the 16 functions with the
most time of their own, wherever they are.

Checks, never timing assertions (exit 1 on failure): every request answered 2xx; the Wager
rows the clients' players hold equal the placements answered 201 (not replayed); during a
replay cell no Wager and no ApiWrite row is added beyond each client's first placement, and
every answer after it carries Idempotent-Replayed: true; the floor answers 12 tables.
"""

import argparse
import cProfile
import http.client
import io
import json
import math
import multiprocessing
import os
import pstats
import secrets
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psycopg  # noqa: E402 - after sys.path, like the other benchmarks
import redis  # noqa: E402
from engines import machine  # noqa: E402 - bench/ is not a package: found through sys.path
from heartbeats import (  # noqa: E402
    RUNNING,
    children,
    free_port,
    group_start,
    group_stop,
    tail,
)
from settlement import (  # noqa: E402
    BenchFailure,
    database_create,
    database_drop,
    django_ready,
    project_env,
)

REDIS_URL = "redis://127.0.0.1:6379/12"  # the benchmark's own database: emptied
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
INTEGRATOR = "bench-integrator"
PLAYER = "bench-c"  # the HTTP clients' players: bench-c<client>-<request>, bench-c<client>-r
# The wager each game's tables take again and again in one round (result_of gives the dice
# that end the round: the wager wins and nothing stays working).
WAGER_KINDS = {"craps": "pass", "high_roll_dice": "pip:1", "sic_bo": "small"}
AMOUNT = Decimal("25")
HISTORY = 5  # rounds played at each table first: the floor's LAST_RESULTS
HEALTH, FLOOR, WAGER, REPLAY, RAW = "health", "floor", "wager", "replay", "raw"
BARE, BARE_WSGI = "bare", "bare-wsgi"
LABELS = {
    HEALTH: "GET /health/",
    FLOOR: "GET /api/v1/floor/",
    WAGER: "POST /api/v1/rounds/{id}/wagers/",
    REPLAY: "  the same key again (replay)",
    RAW: "  a wager's 8 statements, raw SQL",
    BARE: "  /health/ + the 8 statements, HTTP",
    BARE_WSGI: "  the 8 statements, HTTP, no Django",
}
# The bare cells' path on a server of their own (`bare_wager_app`), never casino.wsgi's.
BARE_PATH = "/bench/bare-wager/"
BARE_APPS = {BARE: "api:bare_wager_app()", BARE_WSGI: "api:bare_wager_app(django=False)"}
# The raw cell: a wager's writes with nothing around them (no HTTP, Django, DRF, engine or
# cache), psycopg from each client process on tables of the same shape in a schema of its
# own: the lock, a savepoint pair, the event, the wager, the ledger entry and its two lines,
# the write's record, inside BEGIN and COMMIT, as tests/api/test_wager_statements.py counts
# the real one. Its rate is what the wager's 0.25 of /health/ is measured against.
RAW_SCHEMA = """
DROP SCHEMA IF EXISTS bench_raw CASCADE;
CREATE SCHEMA bench_raw;
CREATE TABLE bench_raw.round (id int PRIMARY KEY, status text, table_id int, cache_token text);
CREATE TABLE bench_raw.event (id bigserial PRIMARY KEY, round_id int REFERENCES bench_raw.round,
  seq int, event text, payload jsonb, at timestamptz, UNIQUE (round_id, seq));
CREATE TABLE bench_raw.wager (id bigserial PRIMARY KEY, round_id int REFERENCES bench_raw.round,
  ref text, player text, kind text, amount numeric(12, 2), options jsonb, at timestamptz,
  UNIQUE (round_id, ref));
CREATE TABLE bench_raw.entry (id bigserial PRIMARY KEY, round_id int REFERENCES bench_raw.round,
  kind text, memo text, at timestamptz);
CREATE TABLE bench_raw.line (id bigserial PRIMARY KEY, entry_id bigint REFERENCES bench_raw.entry,
  account text, amount numeric(12, 2));
CREATE TABLE bench_raw.write (id bigserial PRIMARY KEY, key text UNIQUE, token_id int,
  method text, path text, body_hash text, status int, answer jsonb, at timestamptz);
INSERT INTO bench_raw.round SELECT g, 'open', g, 't' FROM generate_series(1, 7) g;
"""
TRANSACTION = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")


# --- setup --------------------------------------------------------------------------------------


@dataclass
class Floor:
    """What the setup made: the token, the tables wagered at and their rounds."""

    key: str
    tables: list[Any]
    rounds: dict[int, int] = field(default_factory=dict)  # table id -> round in progress
    table_count: int = 0


def floor_make(now: Any) -> Floor:
    """The demo floor, the integrator and its token, and HISTORY rounds at each table."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from casino.demo import OPS_USERNAME, demo_floor_load
    from casino.models import Table
    from casino.services.api_tokens import token_issue

    holder = demo_floor_load(now)
    users = get_user_model()
    integrator = users.objects.create_user(INTEGRATOR, f"{INTEGRATOR}@example.com")
    integrator.groups.add(Group.objects.get(name="integrator"))
    ops = users.objects.get(username=OPS_USERNAME)
    _, key = token_issue(user=integrator, holder=holder, name="bench/api.py", by=ops, now=now)
    everything = Table.objects.filter(holder=holder)
    tables = [
        t
        for t in everything.order_by("number")
        if t.status == Table.Status.OPEN and t.game in WAGER_KINDS and t.variant != "mini_craps"
    ]
    for table in tables:
        if not table.min_wager <= AMOUNT <= table.max_wager:
            raise BenchFailure(f"{table.number} takes {table.min_wager} to {table.max_wager}")
    floor = Floor(key, tables, table_count=everything.count())
    for _ in range(HISTORY):
        rounds_rotate(floor, players=6)
    return floor


def rounds_rotate(floor: Floor, players: int = 0) -> None:
    """At each table: the round in progress given its result and settled here, then a new
    round opened (with `players` wagers placed in it through the service)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from casino.demo import OPS_USERNAME
    from devices.gates import device_of
    from devices.rules import power_odds_offered
    from games.models import Round, SettlementRequest
    from games.services.settlement import round_settle
    from gaming import rounds

    users = get_user_model()
    ops = users.objects.get(username=OPS_USERNAME)
    integrator = users.objects.get(username=INTEGRATOR)
    for table in floor.tables:
        now = timezone.now()
        current = Round.objects.filter(table=table, status__in=Round.IN_PROGRESS).first()
        if current is not None:
            if table.automated_shaker:  # the dice come from the shaker: a void instead
                rounds.round_void(current, "625a.7(c)", by=ops, now=now)
            else:
                if power_odds_offered(current.options):  # the generator selects first
                    generator = device_of(table, "power_odds_rng")
                    rounds.result_enter(current, "power_odds", {}, by=generator, now=now)
                rounds.result_enter(current, "throw", result_of(table), by=ops, now=now)
            request = SettlementRequest.objects.get(round=current)
            outcome = round_settle(request.pk, worker="bench/api.py", now=now)
            if outcome != "settled":
                raise BenchFailure(f"settling {current}: {outcome}")
        opened = rounds.round_open(table, by=integrator, now=now)
        if players:
            wagers = [wager_of(table, f"p{n}") for n in range(1, players + 1)]
            rounds.wagers_place(opened, wagers, by=integrator, now=now)
        floor.rounds[table.pk] = opened.pk


def result_of(table: Any) -> object:
    """Dice on which the table's wager wins and nothing stays working."""
    if table.game == "craps":
        return [3, 4]  # a seven on the come out: the pass line wins
    if table.game == "sic_bo":
        return [1, 2, 3]  # small
    return [1, 2, 3, 4, 5, 6, 1, 2, 3, 4][: 10 if table.variant == "10_dice" else 6]


def wager_of(table: Any, player: str) -> dict[str, str]:
    return {"player": player, "kind": WAGER_KINDS[table.game], "amount": str(AMOUNT)}


# --- the clients --------------------------------------------------------------------------------


@dataclass
class Job:
    """What one client process sends, and when."""

    port: int
    index: int
    kind: str
    method: str
    targets: list[tuple[str, bytes | None]]  # (path, body) in turn
    headers: dict[str, str]
    start: float  # wall clock: warm-up starts
    warmup: float
    seconds: float
    dsn: str = ""  # the raw cell's database


@dataclass
class Driven:
    """One client's answers (summed over the clients by `merge`)."""

    latencies: list[float] = field(default_factory=list)  # ms, 2xx inside the window
    window_errors: int = 0  # anything else inside the window
    answered: int = 0  # every answer, warm-up included
    placed: int = 0  # 201s that placed a wager (not replayed)
    not_replayed: int = 0  # replay cell: a 201 after the first without the header
    other: Counter = field(default_factory=Counter)  # (status, body) of non-2xx answers
    failed: Counter = field(default_factory=Counter)  # exceptions
    connects: int = 0
    cpu: float = 0.0

    def merge(self, other: "Driven") -> None:
        self.latencies += other.latencies
        self.window_errors += other.window_errors
        self.answered += other.answered
        self.placed += other.placed
        self.not_replayed += other.not_replayed
        self.other.update(other.other)
        self.failed.update(other.failed)
        self.connects += other.connects
        self.cpu += other.cpu


def client_run(job: Job) -> Driven:
    """One client: its request again and again over one connection, from job.start for
    the warm-up and the measured window. A wager's player is new each request (High Roll
    Dice takes one Pip Street wager a pip from a player); in a replay cell the first request
    (a new key) places the wager that every later one replays."""
    if job.kind == RAW:
        return raw_client_run(job)
    driven = Driven()
    connection = http.client.HTTPConnection("127.0.0.1", job.port, timeout=30)
    headers = dict(job.headers)
    path, body = job.targets[0]
    if job.kind == REPLAY:
        headers["Idempotency-Key"] = uuid.uuid4().hex
        body = body.replace(b"@N@", b"r")
        status, _, replayed = send(connection, job.method, path, body, headers, driven)
        if status != 201 or replayed:
            driven.other[(status, "the first placement of a replay cell")] += 1
        else:
            driven.placed += 1
    while time.time() < job.start:
        time.sleep(0.001)
    cpu = time.process_time()
    begin = job.start + job.warmup
    end = begin + job.seconds
    sent = 0
    while time.time() < end:
        if job.kind == WAGER:  # the client's tables in turn, a new key and player each time
            path, body = job.targets[sent % len(job.targets)]
            body = body.replace(b"@N@", str(sent).encode())
            headers["Idempotency-Key"] = uuid.uuid4().hex
        elif job.kind in BARE_APPS:  # the wager's request, at bench_raw's 7 rounds in turn
            path = f"{BARE_PATH}?round={(job.index + sent) % 7 + 1}"
            body = job.targets[sent % len(job.targets)][1]
            headers["Idempotency-Key"] = uuid.uuid4().hex
        sent += 1
        tick = time.perf_counter()
        status, answer, replayed = send(connection, job.method, path, body, headers, driven)
        elapsed = time.perf_counter() - tick
        inside = begin <= time.time() <= end  # answered inside the measured window
        if 200 <= status < 300:
            driven.answered += 1
            if inside:
                driven.latencies.append(1e3 * elapsed)
            if job.kind == WAGER and status == 201:
                driven.placed += 1
            if job.kind == REPLAY and not replayed:
                driven.not_replayed += 1
                driven.placed += status == 201
        else:
            driven.answered += status > 0
            driven.window_errors += inside
            if status:
                driven.other[(status, answer[:160].decode(errors="replace"))] += 1
    driven.cpu = time.process_time() - cpu
    connection.close()
    return driven


def raw_client_run(job: Job) -> Driven:
    """One raw client: a wager's 8 statements in a transaction, again and again, over one
    connection, at the 7 rounds in turn (as the HTTP clients wager at the 7 tables)."""
    driven = Driven(connects=1)
    db = psycopg.connect(job.dsn)
    while time.time() < job.start:
        time.sleep(0.001)
    cpu = time.process_time()
    begin = job.start + job.warmup
    end = begin + job.seconds
    sent = 0
    while time.time() < end:
        round_id = (job.index + sent) % 7 + 1
        sent += 1
        tick = time.perf_counter()
        raw_wager(db, round_id)
        elapsed = time.perf_counter() - tick
        driven.answered += 1
        if begin <= time.time() <= end:
            driven.latencies.append(1e3 * elapsed)
    driven.cpu = time.process_time() - cpu
    db.close()
    return driven


def raw_wager(db: psycopg.Connection, round_id: int) -> None:
    """A wager's 8 statements at a round of bench_raw, in one transaction (the raw cell's
    clients and the bare cell's server send the same)."""
    ref = uuid.uuid4().hex
    with db.transaction():
        db.execute("SELECT id, status, table_id, cache_token FROM bench_raw.round"
                   " WHERE id = %s FOR UPDATE", (round_id,))  # fmt: skip
        db.execute("SAVEPOINT s1")
        db.execute(
            "INSERT INTO bench_raw.event (round_id, seq, event, payload, at) SELECT %s,"
            " coalesce(max(seq), 0) + 1, 'wagers', %s, now() FROM bench_raw.event"
            " WHERE round_id = %s ON CONFLICT DO NOTHING RETURNING id",
            (round_id, json.dumps({"wagers": [{"id": ref, "amount": "25"}]}), round_id),
        )
        db.execute(
            "INSERT INTO bench_raw.wager (round_id, ref, player, kind, amount, options, at)"
            " VALUES (%s, %s, %s, 'small', 25, '{}', now()) RETURNING id",
            (round_id, ref, ref),
        )
        entry = db.execute(
            "INSERT INTO bench_raw.entry (round_id, kind, memo, at)"
            " VALUES (%s, 'stake', %s, now()) RETURNING id",
            (round_id, ref),
        ).fetchone()[0]
        db.execute(
            "INSERT INTO bench_raw.line (entry_id, account, amount)"
            " VALUES (%s, 'player', -25), (%s, 'table', 25)",
            (entry, entry),
        )
        db.execute("RELEASE SAVEPOINT s1")
        db.execute(
            "INSERT INTO bench_raw.write (key, token_id, method, path, body_hash, status,"
            " answer, at) VALUES (%s, 1, 'POST', '/w', 'h', 201, '{}', now())",
            (uuid.uuid4().hex,),
        )


def bare_wager_app(django: bool = True) -> Callable:
    """The bare cells' WSGI application, served by a gunicorn of its own with deploy/'s
    config (`gunicorn "api:bare_wager_app()" --pythonpath bench`): a wager's floor over
    HTTP, measured rather than estimated. A POST to BARE_PATH?round=N (the wager's body and
    headers, read and dropped) sends the wager's 8 statements raw at bench_raw's round N on
    the thread's own psycopg connection, then answers what /health/ answers through
    casino.wsgi (the HTTP server, Django's handler, the middleware every request passes,
    its budget's Redis trip): what a wager would cost if nothing of ours stood around its
    SQL. With `django` False, no Django at all (nothing imported): a fixed 200, the floor of
    any Python wager over HTTP under this server. Any other path is casino.wsgi's (with
    Django)."""
    dsn, local = os.environ["DATABASE_URL"], threading.local()
    if django:
        from casino.wsgi import application
    else:
        application = _bare_answer

    def bare(environ: dict[str, Any], start_response: Callable) -> Any:
        if environ.get("PATH_INFO") != BARE_PATH:
            return application(environ, start_response)
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        round_id = int(urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))["round"][0])
        if getattr(local, "db", None) is None or local.db.closed:  # none yet, or lost
            local.db = psycopg.connect(dsn)
        raw_wager(local.db, round_id)
        health = dict(
            environ, REQUEST_METHOD="GET", PATH_INFO="/health/", QUERY_STRING="",
            CONTENT_LENGTH="0", CONTENT_TYPE="",
        )  # fmt: skip
        health["wsgi.input"] = io.BytesIO(b"")
        return application(health, start_response)

    return bare


def _bare_answer(environ: dict[str, Any], start_response: Callable) -> list[bytes]:
    """Without Django: a fixed 200 and a small JSON body, whatever it is handed."""
    body = b'{"status": "ok"}'
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    start_response("200 OK", headers)
    return [body]


def send(
    connection: http.client.HTTPConnection,
    method: str,
    path: str,
    body: bytes | None,
    headers: dict[str, str],
    driven: Driven,
) -> tuple[int, bytes, bool]:
    """(status, body, replayed); status 0 when the connection failed. A kept-alive
    connection the server closed meanwhile (gthread workers keep it 2 s) is opened again
    and the request sent once more, as any HTTP client does (a write carries its key)."""
    for attempt in (1, 2):
        reused = connection.sock is not None
        if not reused:
            driven.connects += 1
        try:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            answer = response.read()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            if reused and attempt == 1 and isinstance(error, STALE_CONNECTION):
                continue
            driven.failed[type(error).__name__] += 1
            return 0, b"", False
        return response.status, answer, response.getheader("Idempotent-Replayed") == "true"
    raise AssertionError("unreachable")


# A kept-alive connection the server had closed: sending or reading on it fails so.
STALE_CONNECTION = (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)


# --- CPU while a cell runs -----------------------------------------------------------------------


class Sampler(threading.Thread):
    """CPU seconds of gunicorn's workers and of this database's PostgreSQL backends, read
    from /proc every 0.25 s (a backend may end and another start: CONN_MAX_AGE is 60 s)."""

    def __init__(self, url: str, gunicorn: int) -> None:
        super().__init__(daemon=True)
        self.url, self.gunicorn = url, gunicorn
        self.first: dict[tuple[str, int], int] = {}
        self.last: dict[tuple[str, int], int] = {}
        self.halt = threading.Event()
        self.error: BaseException | None = None
        self.db = psycopg.connect(url, autocommit=True)
        self.sample(initial=True)
        self.machine = machine_busy()

    def pids(self) -> list[tuple[str, int]]:
        rows = self.db.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
            " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ).fetchall()
        return [("web", p) for p in children(self.gunicorn)] + [("pg", r[0]) for r in rows]

    def sample(self, initial: bool = False) -> None:
        for who in self.pids():
            try:
                fields = Path(f"/proc/{who[1]}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            ticks = int(fields[11]) + int(fields[12])
            self.first.setdefault(who, ticks if initial else 0)
            self.last[who] = ticks

    def run(self) -> None:
        try:
            while not self.halt.wait(0.25):
                self.sample()
        except BaseException as error:  # reported by stop()
            self.error = error

    def stop(self) -> dict[str, float]:
        self.halt.set()
        self.join()
        self.sample()
        self.db.close()
        if self.error is not None:
            raise BenchFailure(f"the CPU sampler failed: {self.error!r}")
        spent = {"web": 0.0, "pg": 0.0, "machine": machine_busy() - self.machine}
        for who, ticks in self.last.items():
            spent[who[0]] += (ticks - self.first[who]) / CLOCK_TICK
        return spent


def machine_busy() -> float:
    """CPU seconds every process on the machine has used so far (/proc/stat: all but idle
    and iowait), this benchmark's and anyone else's."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / CLOCK_TICK


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


# --- a cell -----------------------------------------------------------------------------------


@dataclass
class Cell:
    kind: str
    clients: int
    driven: Driven
    seconds: float
    wall: float  # the whole cell, warm-up included
    cpu: dict[str, float]  # web, pg, redis, clients: seconds over the whole cell
    events: list[int] = field(default_factory=list)  # wager events a round at the end

    @property
    def rps(self) -> float:
        return len(self.driven.latencies) / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.driven.latencies)
        if not ordered:
            return float("nan")
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

    @property
    def errors(self) -> int:
        return self.driven.window_errors


def jobs_for(
    kind: str, clients: int, port: int, floor: Floor, args: argparse.Namespace, start: float
) -> list[Job]:
    headers = {"Host": "127.0.0.1", "Accept": "application/json"}
    if kind != HEALTH:
        headers["Authorization"] = f"Bearer {floor.key}"
    jobs = []
    for index in range(clients):
        method, targets, own = "GET", [("/health/", None)], dict(headers)
        if kind == FLOOR:
            targets = [("/api/v1/floor/", None)]
        elif kind in (WAGER, REPLAY, *BARE_APPS):
            method, own["Content-Type"] = "POST", "application/json"
            player = f"{PLAYER}{index}-@N@"  # @N@: the request's number, or r (replay)
            tables = floor.tables[index:] + floor.tables[:index]  # each client its own turn
            targets = [
                (
                    f"/api/v1/rounds/{floor.rounds[table.pk]}/wagers/",
                    json.dumps({"wagers": [wager_of(table, player)]}).encode(),
                )
                for table in tables
            ]
        job = Job(port, index, kind, method, targets, own, start, args.warmup, args.seconds)
        job.dsn = getattr(args, "dsn", "")
        jobs.append(job)
    return jobs


def cell_run(
    kind: str, clients: int, port: int, url: str, gunicorn: int, floor: Floor, args: Any
) -> Cell:
    """One cell: `clients` forked processes, each sending its Driven back through a pipe;
    any still running on the way out (an error, Ctrl-C) is terminated, then killed."""
    from django.db import connections

    connections.close_all()  # the forked clients use none
    # The processes are up a second later; a replay cell's clients place their first wager
    # before that (not in the cell's CPU figures).
    start = time.time() + 1.0 + (0.15 * clients if kind == REPLAY else 0.0)
    jobs = jobs_for(kind, clients, port, floor, args, start)
    broker = redis.Redis.from_url(REDIS_URL)
    context = multiprocessing.get_context("fork")
    started: list[tuple[Any, Any]] = []
    try:
        for job in jobs:
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=client_main, args=(job, sender), daemon=True)
            process.start()
            sender.close()
            started.append((process, receiver))
        time.sleep(max(0.0, start - time.time()))
        sampler = Sampler(url, gunicorn)
        redis_before, wall = redis_cpu(broker), time.perf_counter()
        sampler.start()
        try:
            results = [receiver.recv() for _, receiver in started]
        except EOFError:
            raise BenchFailure(f"a client process of the {kind} cell died") from None
        finally:
            spent = sampler.stop()
        wall = time.perf_counter() - wall
        spent["redis"] = redis_cpu(broker) - redis_before
    finally:
        for process, _ in started:
            if process.is_alive():
                process.terminate()
        for process, receiver in started:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
            receiver.close()
    total = Driven()
    for result in results:
        total.merge(result)
    spent["clients"] = total.cpu
    return Cell(kind, clients, total, args.seconds, wall, spent)


def client_main(job: Job, sender: Any) -> None:
    """A client process: Ctrl-C is the parent's to handle (it stops the clients), SIGTERM
    ends it at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sender.send(client_run(job))
    sender.close()


# --- in this process: queries, time, growth --------------------------------------------------


@dataclass
class Counted:
    label: str
    ms: float  # median of the samples
    statements: int
    control: int  # of them BEGIN, SAVEPOINT, RELEASE, ROLLBACK TO, COMMIT
    health_checks: int  # Django's CONN_HEALTH_CHECKS SELECT 1 (not in CaptureQueriesContext)
    sql_ms: float  # median time inside cursor.execute
    redis_trips: int
    status: int


class RedisTrips:
    """Counts the commands (and pipelines) this process sends Redis: one round trip each."""

    def __init__(self) -> None:
        from redis.connection import AbstractConnection

        self.cls, self.count = AbstractConnection, 0
        self.original = AbstractConnection.send_packed_command

    def __enter__(self) -> "RedisTrips":
        original = self.original

        def counted(connection: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original(connection, *args, **kwargs)

        self.cls.send_packed_command = counted
        return self

    def __exit__(self, *_: Any) -> None:
        self.cls.send_packed_command = self.original


class Probe:
    """One request's SQL time (connection.execute_wrapper) and Django's CONN_HEALTH_CHECKS
    `SELECT 1` (sent by is_usable, outside CaptureQueriesContext's view)."""

    def __init__(self) -> None:
        self.sql, self.checks = 0.0, 0

    def __call__(self, execute: Callable, sql: str, params: Any, many: bool, context: Any) -> Any:
        tick = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.sql += time.perf_counter() - tick

    def checked(self, usable: Callable[[], bool]) -> Callable[[], bool]:
        def is_usable() -> bool:
            self.checks += 1
            return usable()

        return is_usable


@dataclass
class Answer:
    status_code: int
    body: bytes


def wsgi_call(
    method: str, path: str, headers: dict[str, str], body: bytes = b"", query: str = ""
) -> Answer:
    """A request through casino.wsgi's handler in this process, as gunicorn calls it (the
    request_started and request_finished signals included, unlike Django's test client)."""
    from casino.wsgi import application

    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1", "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
        "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False,
        "CONTENT_LENGTH": str(len(body)),
    }  # fmt: skip
    if body:
        environ["CONTENT_TYPE"] = "application/json"
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    status: list[str] = []
    response = application(environ, lambda line, *_: status.append(line))
    data = b"".join(response)
    response.close()
    return Answer(int(status[0].split()[0]), data)


def measured(label: str, request: Callable[[], Answer], samples: int) -> Counted:
    """One request `samples` times (after one not counted), each with its SQL and Redis."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    request()
    times, sql_times = [], []
    last: dict[str, Any] = {}
    for _ in range(samples):
        probe = Probe()
        connection.is_usable = probe.checked(connection.is_usable)
        try:
            with (
                CaptureQueriesContext(connection) as queries,
                connection.execute_wrapper(probe),
                RedisTrips() as trips,
            ):
                tick = time.perf_counter()
                answer = request()
                times.append(time.perf_counter() - tick)
        finally:
            del connection.is_usable
        sql_times.append(probe.sql)
        statements = [q["sql"] for q in queries.captured_queries]
        last = {
            "statements": len(statements),
            "control": sum(s.lstrip().upper().startswith(TRANSACTION) for s in statements),
            "health_checks": probe.checks,
            "redis_trips": trips.count,
            "status": answer.status_code,
        }
    return Counted(
        label, 1e3 * statistics.median(times), sql_ms=1e3 * statistics.median(sql_times), **last
    )


def in_process(floor: Floor, args: argparse.Namespace) -> tuple[list[Counted], list[str]]:
    """Each endpoint through the WSGI handler, and a wager's time as its round grows."""
    from casino.floor_page import floor_build
    from games.models import RoundEvent

    token = {"Authorization": f"Bearer {floor.key}", "Accept": "application/json"}
    table = next(t for t in floor.tables if t.game == "sic_bo")
    body = json.dumps({"wagers": [wager_of(table, "in-process")]}).encode()
    replay_key = uuid.uuid4().hex

    def wager_at(round_id: int, key: str | None = None) -> Callable[[], Answer]:
        def wager() -> Answer:
            headers = {**token, "Idempotency-Key": key or uuid.uuid4().hex}
            return wsgi_call("POST", f"/api/v1/rounds/{round_id}/wagers/", headers, body)

        return wager

    def floor_read() -> Answer:
        return wsgi_call("GET", "/api/v1/floor/", token)

    def floor_built() -> Answer:
        # What a read pays when the cache's entry is gone (once a second at most, or after
        # a change): the snapshot built afresh, as FloorView's cache miss builds it.
        return Answer(200, floor_build(holder_id=table.holder_id))

    wager = wager_at(floor.rounds[table.pk])
    counted = [
        measured(LABELS[HEALTH], lambda: wsgi_call("GET", "/health/", {}), args.samples),
        measured(LABELS[FLOOR], floor_read, args.samples),
        measured("  the snapshot built (a cache miss)", floor_built, args.samples),
        measured(
            "GET /api/v1/rounds/{id}/",
            lambda: wsgi_call("GET", f"/api/v1/rounds/{floor.rounds[table.pk]}/", token),
            args.samples,
        ),
        measured(
            "GET /api/v1/rounds/ (page of 50)",
            lambda: wsgi_call("GET", "/api/v1/rounds/", token, query="page_size=50"),
            args.samples,
        ),
        measured(LABELS[WAGER], wager, args.samples),
        measured(LABELS[REPLAY], wager_at(floor.rounds[table.pk], replay_key), args.samples),
    ]
    notes = []
    if args.profile:
        for label, request in ((LABELS[FLOOR], floor_read), (LABELS[WAGER], wager)):
            notes.append(
                f"cProfile of {PROFILE_REQUESTS} {label}: where their own time goes, a"
                f" request, then the project's functions by cumulative time:\n{profiled(request)}"
            )
    # The wager's time as its round fills: the same table, a new round.
    rounds_rotate(floor)
    round_id = floor.rounds[table.pk]
    wager = wager_at(round_id)
    marks, growth, replays = sorted(args.growth_marks), [], []
    for mark in marks:
        held = RoundEvent.objects.filter(round_id=round_id, event="wagers").count()
        for _ in range(max(0, mark - held)):
            if wager().status_code != 201:
                raise BenchFailure("growth: a wager was refused")
        replays.append(replay_ms(round_id))
        growth.append(measured(f"{mark}", wager, max(5, args.samples // 2)).ms)
    held = " / ".join(str(m) for m in marks)
    notes.append(
        f"a wager on a round already holding {held} wager events ({table.number}):"
        f" {' / '.join(f'{ms:.1f}' for ms in growth)} ms (median), ratio to the first:"
        f" {' / '.join(f'{ms / growth[0]:.2f}' for ms in growth)}; replaying the round's events"
        " (games.services.round_state.in_play), which a request does only when the round's"
        f" cached state is missing or behind: {' / '.join(f'{ms:.1f}' for ms in replays)} ms"
    )
    return counted, notes


def replay_ms(round_id: int, times: int = 15) -> float:
    """What in_play (the round's events read and played through the engine) takes, median."""
    from games.models import Round
    from games.services.round_state import in_play

    round_ = Round.objects.get(pk=round_id)
    spent = []
    for _ in range(times):
        tick = time.perf_counter()
        in_play(round_)
        spent.append(time.perf_counter() - tick)
    return 1e3 * statistics.median(spent)


PROFILE_REQUESTS = 10
# Where a profiled request's own time goes, by the file each function is in (first match).
PARTS = (
    ("psycopg: sending SQL, waiting, reading rows", ("/psycopg/",)),
    (
        "Django ORM: building SQL",
        ("/django/db/models/sql/", "/django/db/models/expressions", "/django/db/models/lookups"),
    ),
    ("Django ORM: querysets, rows into models", ("/django/db/",)),
    ("DRF", ("/rest_framework/",)),
    ("Django: handler, middleware, URLs", ("/django/",)),
    ("the game engine", ("/games/rules/",)),
    ("the project's code", ("/casino/", "/games/", "/devices/")),
)


def profiled(request: Callable[[], Any]) -> str:
    """PROFILE_REQUESTS requests under cProfile: their own time split by PARTS, and the
    project's functions by cumulative time."""
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(PROFILE_REQUESTS):
        request()
    profile.disable()
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    split: Counter[str] = Counter()
    for (filename, _, _), (_, _, own, _, _) in stats.stats.items():
        part = next((name for name, marks in PARTS if any(m in filename for m in marks)), None)
        split[part or "Python itself, the standard library, builtins"] += own
    total = sum(split.values())
    lines = [
        f"    {name:<48}{1e3 * own / PROFILE_REQUESTS:>7.1f} ms {own / total:>5.0%}"
        for name, own in split.most_common()
    ]
    stats.sort_stats("cumulative").print_stats(r"/(casino|games|devices)/", 16)
    printed = [line for line in out.getvalue().splitlines() if "(" in line]
    lines += ["    " + line.replace(str(ROOT) + "/", "")[:150] for line in printed]
    # And the functions with the most time of their own, wherever they are.
    out.seek(0)
    out.truncate()
    stats.sort_stats("tottime").print_stats(16)
    printed = [
        line
        for line in out.getvalue().splitlines()
        if line.strip()[:1].isdigit() and "function calls" not in line
    ]
    lines += ["    " + line.replace(str(ROOT) + "/", "")[:150] for line in printed]
    return "\n".join(lines)


# --- gunicorn ---------------------------------------------------------------------------------


def gunicorn_start(
    env: dict[str, str], workers: int, logs: Path, app: str = "casino.wsgi"
) -> tuple[Any, int]:
    """deploy/gunicorn.conf.py serving `app` (casino.wsgi, or the bare cell's) on a free
    port of 127.0.0.1, once every worker is up."""
    port = free_port()
    server_env = dict(env)
    server_env.update(
        DJANGO_ENV="production",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_STATIC_ROOT=str(logs / "static"),
        HOST="127.0.0.1",
        PORT=str(port),
        WEB_CONCURRENCY=str(workers),
    )
    argv = [sys.executable, "-m", "gunicorn", app, "--config", "deploy/gunicorn.conf.py"]
    if app != "casino.wsgi":
        argv += ["--pythonpath", str(ROOT / "bench")]
    # The bare servers run one at a time, each for its cells: one log for them.
    log = logs / ("gunicorn.log" if app == "casino.wsgi" else "gunicorn-bare.log")
    process = group_start(argv, server_env, log)
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            raise BenchFailure(f"gunicorn did not start:\n{tail(log)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                pass
        except OSError:
            time.sleep(0.1)
            continue
        if len(children(process.pid)) >= workers:
            return process, port
        time.sleep(0.1)


def bare_cell_run(
    kind: str,
    clients: int,
    url: str,
    floor: Floor,
    args: argparse.Namespace,
    env: dict[str, str],
    logs: Path,
) -> tuple[Cell, Cell]:
    """A bare cell and its warm-up (2 x workers clients, not reported), on a gunicorn of
    its own started for them and stopped after: its connections to PostgreSQL are held
    only while it runs, beside casino.wsgi's idle ones."""
    server, port = gunicorn_start(env, args.workers, logs, BARE_APPS[kind])
    try:
        warm = argparse.Namespace(seconds=max(1.0, args.warmup), warmup=0.0)
        warmed = cell_run(kind, 2 * args.workers, port, url, server.pid, floor, warm)
        return cell_run(kind, clients, port, url, server.pid, floor, args), warmed
    finally:
        group_stop(server)


def get_json(port: int, path: str, key: str) -> tuple[int, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


# --- the run ----------------------------------------------------------------------------------


def counts(floor: Floor) -> tuple[int, int]:
    """(Wager rows of the clients' players, ApiWrite rows)."""
    from casino.models import ApiWrite
    from games.models import Wager

    return Wager.objects.filter(player__startswith=PLAYER).count(), ApiWrite.objects.count()


def run(args: argparse.Namespace, url: str, env: dict[str, str], logs: Path) -> list[str]:
    from django.db import connections
    from django.utils import timezone

    from games.models import RoundEvent

    problems: list[str] = []
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    started = time.perf_counter()
    floor = floor_make(timezone.now())
    print(
        f"setup: the demo floor ({floor.table_count} tables), {INTEGRATOR} and its token,"
        f" {HISTORY} rounds played and settled at each of {len(floor.tables)} tables in"
        f" {time.perf_counter() - started:.1f} s; wagers at"
        f" {', '.join(f'{t.number} ({WAGER_KINDS[t.game]})' for t in floor.tables)}, ${AMOUNT}"
    )
    rounds_rotate(floor)
    counted, notes = in_process(floor, args)
    print(
        "in this process, one request at a time through casino.wsgi's handler (no HTTP, no"
        f" gunicorn), median of {args.samples}:"
    )
    print(
        f"  {'endpoint':<34}{'ms':>8}{'SQL statements':>16}{'of them BEGIN..COMMIT':>23}"
        f"{'+ SELECT 1':>12}{'SQL ms':>9}{'Redis trips':>13}{'status':>8}"
    )
    for c in counted:
        print(
            f"  {c.label:<34}{c.ms:>8.1f}{c.statements:>16}{c.control:>23}{c.health_checks:>12}"
            f"{c.sql_ms:>9.1f}{c.redis_trips:>13}{c.status:>8}"
        )
    for note in notes:
        print(f"  {note}")

    with psycopg.connect(url, autocommit=True) as db:
        db.execute(RAW_SCHEMA)
    args.dsn = url
    gunicorn, port = gunicorn_start(env, args.workers, logs)
    status, snapshot = get_json(port, "/api/v1/floor/", floor.key)
    shown = len(snapshot.get("tables", [])) if isinstance(snapshot, dict) else 0
    if status != 200 or shown != floor.table_count:
        raise BenchFailure(f"GET /api/v1/floor/: {status}, {shown} tables")
    print(
        f"server: gunicorn --config deploy/gunicorn.conf.py, {args.workers} gthread workers"
        f" (WEB_CONCURRENCY), DJANGO_ENV=production, port {port}; clients: one process each,"
        f" on the same {os.cpu_count()} cores as gunicorn, PostgreSQL and Redis;"
        f" {args.warmup:g} s warm-up + {args.seconds:g} s measured a cell"
    )
    cells: list[Cell] = []
    placed_before, _ = counts(floor)
    placed = 0
    try:
        # Every worker warmed first (its imports, its database connection), not reported.
        warm = argparse.Namespace(seconds=max(1.0, args.warmup), warmup=0.0)
        for kind in (HEALTH, FLOOR, WAGER):
            cell = cell_run(kind, 2 * args.workers, port, url, gunicorn.pid, floor, warm)
            placed += cell.driven.placed
            problems += cell_problems(cell, "warm-up")
        for clients in args.client_counts:
            rounds_rotate(floor)
            for kind in (HEALTH, FLOOR, WAGER, REPLAY, RAW, BARE, BARE_WSGI):
                before = counts(floor)
                if kind in BARE_APPS:
                    cell, warmed = bare_cell_run(kind, clients, url, floor, args, env, logs)
                    problems += cell_problems(warmed, "warm-up")
                else:
                    cell = cell_run(kind, clients, port, url, gunicorn.pid, floor, args)
                after = counts(floor)
                placed += cell.driven.placed
                if kind == REPLAY:
                    first = clients  # each client's one placement
                    if after[0] - before[0] != first or after[1] - before[1] != first:
                        problems.append(
                            f"replay, {clients} clients: {after[0] - before[0]} Wager and"
                            f" {after[1] - before[1]} ApiWrite rows added, expected {first}"
                        )
                    if cell.driven.not_replayed:
                        problems.append(
                            f"replay, {clients} clients: {cell.driven.not_replayed} answers"
                            " without Idempotent-Replayed"
                        )
                if kind == WAGER:
                    cell.events = [
                        RoundEvent.objects.filter(round_id=r, event="wagers").count()
                        for r in floor.rounds.values()
                    ]
                connections.close_all()
                cells.append(cell)
                problems += cell_problems(cell, f"{clients} clients")
                print(
                    f"  {clients:>2} clients {LABELS[kind].strip():<32} {cell.rps:>8.1f} req/s"
                    f"  p50 {cell.percentile(0.5):>7.1f} ms  p99 {cell.percentile(0.99):>7.1f} ms"
                    f"  errors {cell.errors}",
                    flush=True,
                )
    finally:
        group_stop(gunicorn)
    placed_after, _ = counts(floor)
    if placed_after - placed_before != placed:
        problems.append(
            f"{placed_after - placed_before} Wager rows for the clients' players, {placed}"
            " placements answered 201"
        )
    report(cells, args)
    print(
        f"wagers placed over HTTP: {placed:,} answered 201, {placed_after - placed_before:,}"
        f" Wager rows; load average {os.getloadavg()[0]:.2f} at the end"
    )
    return problems


def cell_problems(cell: Cell, where: str) -> list[str]:
    """The answers that were not 2xx, and the requests that failed."""
    where = f"{LABELS[cell.kind].strip()}, {where}"
    found = [f"{where}: {n} x {code}: {body}" for (code, body), n in cell.driven.other.items()]
    return found + [f"{where}: {n} x {name}" for name, n in cell.driven.failed.items()]


def report(cells: list[Cell], args: argparse.Namespace) -> None:
    print()
    print(
        f"{'endpoint':<36}{'clients':>8}{'requests':>10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'errors':>8}{'req/s:health':>14}{'p50:health':>12}"
    )
    base: dict[int, Cell] = {c.clients: c for c in cells if c.kind == HEALTH}
    for cell in cells:
        health = base[cell.clients]
        print(
            f"{LABELS[cell.kind]:<36}{cell.clients:>8}{len(cell.driven.latencies):>10,}"
            f"{cell.rps:>9.1f}{cell.percentile(0.5):>9.1f}{cell.percentile(0.99):>9.1f}"
            f"{cell.errors:>8}{cell.rps / health.rps:>14.4f}"
            f"{cell.percentile(0.5) / health.percentile(0.5):>12.1f}"
        )
    raw = {c.clients: c for c in cells if c.kind == RAW}
    for clients, wager in ((c.clients, c) for c in cells if c.kind == WAGER):
        if clients in raw and raw[clients].rps:
            print(
                f"  {clients} clients: a wager over HTTP at {wager.rps / raw[clients].rps:.3f} of"
                f" its 8 statements' raw rate, which is {raw[clients].rps / base[clients].rps:.3f}"
                " of /health/'s (the wager's target, 0.25 of /health/, is"
                f" {0.25 * base[clients].rps / raw[clients].rps:.2f} of the raw rate)"
            )
    print()
    print(
        "CPU a request (ms, over the whole cell with its warm-up): gunicorn's workers,"
        " PostgreSQL (this database's backends), Redis (the whole server), the clients; cores"
        f" busy (of {os.cpu_count()}) with this benchmark's processes and with everything on"
        " the machine (/proc/stat: other jobs included); TCP connections a request"
    )
    print(
        f"{'endpoint':<36}{'clients':>8}{'gunicorn':>10}{'postgres':>10}{'redis':>8}"
        f"{'clients':>9}{'busy':>7}{'machine':>9}{'conn/req':>10}"
    )
    for cell in cells:
        n = max(cell.driven.answered, 1)
        cpu = cell.cpu
        ours = cpu["web"] + cpu["pg"] + cpu["redis"] + cpu["clients"]
        print(
            f"{LABELS[cell.kind]:<36}{cell.clients:>8}{1e3 * cpu['web'] / n:>10.2f}"
            f"{1e3 * cpu['pg'] / n:>10.2f}{1e3 * cpu['redis'] / n:>8.3f}"
            f"{1e3 * cpu['clients'] / n:>9.2f}{ours / cell.wall:>7.2f}"
            f"{cpu['machine'] / cell.wall:>9.2f}{cell.driven.connects / n:>10.2f}"
        )
    print()
    for line in bounds(cells):
        print(line)
    print()
    for cell in cells:
        if cell.events:
            print(
                f"wagers, {cell.clients} clients: wager events a round at the end of the cell"
                f" (fresh rounds before it): mean {statistics.mean(cell.events):.0f},"
                f" max {max(cell.events)}"
            )


def bounds(cells: list[Cell]) -> list[str]:
    """What these cores allow a wager at best, from this run's own figures: a wager that
    cost nothing beyond what any request of this project costs and its statements' SQL.
    Those are what /health/ costs gunicorn's workers (the HTTP server, Django's handler,
    the middleware every request passes, its budget's Redis trip), what sending the wager's
    8 statements as they are costs a Python process and PostgreSQL (the raw cell's clients
    and backends), and the wager cell's own clients (this bench's http.client) and Redis.
    On every core of the machine (idle, which is generous), that floor gives the best rate;
    Little's law gives the mean wait of N clients sending back to back at it; /health/'s and
    the raw statements' own p99 over their mean wait, at the same N, give the tail these
    cores add to it: an estimate of the p99, not a bound."""

    def per(cell: Cell, part: str) -> float:
        return 1e3 * cell.cpu[part] / max(cell.driven.answered, 1)

    cores = os.cpu_count() or 1
    lines = []
    by = {(c.kind, c.clients): c for c in cells}
    for clients in sorted({c.clients for c in cells}):
        health, raw, wager = (by.get((kind, clients)) for kind in (HEALTH, RAW, WAGER))
        if not (health and raw and wager and health.rps and raw.driven.answered):
            continue
        floor = (
            per(health, "web")
            + per(raw, "clients")
            + per(raw, "pg")
            + per(wager, "clients")
            + per(wager, "redis")
        )
        best = 1e3 * cores / floor
        mean = 1e3 * clients / best
        tails = sorted(c.percentile(0.99) / (1e3 * clients / c.rps) for c in (health, raw))
        now = sum(per(wager, part) for part in ("web", "pg", "redis", "clients"))
        lines.append(
            f"the most these {cores} cores allow a wager, {clients} clients: {floor:.2f} ms of"
            f" CPU a wager that cost nothing beyond /health/'s gunicorn {per(health, 'web'):.2f},"
            f" its 8 statements raw (psycopg {per(raw, 'clients'):.2f}, PostgreSQL"
            f" {per(raw, 'pg'):.2f}), its clients {per(wager, 'clients'):.2f} and Redis"
            f" {per(wager, 'redis'):.3f}: {best:,.0f} a second on idle cores, "
            f"{best / health.rps:.2f} of /health/; a mean wait of {mean:.1f} ms, and with the"
            f" p99 of /health/ and of the raw statements at {tails[0]:.1f} to {tails[1]:.1f}"
            f" times their mean wait here, a p99 near {tails[0] * mean:.0f} to"
            f" {tails[1] * mean:.0f} ms. The wager now: {now:.2f} ms of CPU; 0.25 of /health/"
            f" allows {1e3 * cores / (0.25 * health.rps):.2f} on idle cores"
        )
        for kind, what in (
            (BARE, "/health/'s request and the 8 statements over HTTP (the bare cell)"),
            (BARE_WSGI, "the 8 statements over HTTP without Django (a bare WSGI app)"),
        ):
            bare = by.get((kind, clients))
            if not (bare and bare.rps):
                continue
            spent = sum(per(bare, part) for part in ("web", "pg", "redis", "clients"))
            lines.append(
                f"  measured, {clients} clients: {what} {bare.rps:,.0f} a second,"
                f" {bare.rps / health.rps:.2f} of /health/, p50 {bare.percentile(0.5):.1f} ms,"
                f" p99 {bare.percentile(0.99):.1f} ms, {spent:.2f} ms of CPU"
            )
        lines.append(
            f"  the wager, {clients} clients: {wager.rps:,.0f} a second,"
            f" {wager.rps / health.rps:.2f} of /health/, p99 {wager.percentile(0.99):.1f} ms"
            " (the target: 0.25 and under 25 ms)"
        )
    return lines


def main() -> None:
    cpus = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured per cell (10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up per cell (2)")
    parser.add_argument("--clients", default="1,8,32", help="concurrent clients (1,8,32)")
    parser.add_argument(
        "--workers",
        type=int,
        default=cpus * 2 + 1,
        help="gunicorn workers, WEB_CONCURRENCY (CPUs x 2 + 1, deploy/gunicorn.conf.py's)",
    )
    parser.add_argument("--samples", type=int, default=20, help="in-process requests each (20)")
    parser.add_argument(
        "--growth", default="0,50,200", help="wager events held by the round (0,50,200)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile of floor reads and of wagers, in-process"
    )
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 2 s a cell, 1 s warm-up, fewer samples"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the database and Redis database 12"
    )
    parser.add_argument(
        "--redis-db", type=int, default=12, help="the benchmark's own Redis database, emptied (12)"
    )
    args = parser.parse_args()
    global REDIS_URL  # read by the cells and the setup
    REDIS_URL = REDIS_URL.rsplit("/", 1)[0] + f"/{args.redis_db}"
    if args.quick:
        args.seconds, args.warmup, args.samples = 2.0, 1.0, 5
        args.growth = "0,50"
    try:
        args.client_counts = [int(n) for n in args.clients.split(",")]
        args.growth_marks = [int(n) for n in args.growth.split(",")]
    except ValueError:
        parser.error("--clients and --growth take whole numbers separated by commas")
    if min(args.client_counts) < 1 or min(args.workers, args.samples) < 1:
        parser.error("--clients, --workers, --samples: at least 1")
    if args.seconds <= 0 or args.warmup < 0 or min(args.growth_marks) < 0:
        parser.error("--seconds above 0, --warmup and --growth 0 or more")

    # SIGTERM unwinds like Ctrl-C, so gunicorn stops and the database is dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    name = f"casino_bench_api_{uuid.uuid4().hex[:10]}"
    data_dir = Path(tempfile.mkdtemp(prefix="casino_bench_api_"))
    problems: list[str] = []
    created = False
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).flushdb()
        url = database_create(name)
        created = True
        env = project_env(
            DATABASE_URL=url,
            CELERY_BROKER_URL=REDIS_URL,
            CASINO_DATA_DIR=str(data_dir),
            DJANGO_DEBUG="false",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),  # the same in gunicorn and here
            CASINO_DEVICE_KEY=secrets.token_urlsafe(50),
            CASINO_LOG_LEVEL="WARNING",  # not a line per refused request or changeout
        )
        django_ready(env)
        problems = run(args, url, env, data_dir)
    except BenchFailure as failure:
        problems = [str(failure)]
    finally:
        for process in list(RUNNING):
            group_stop(process)
        if "django.db" in sys.modules:
            from django.db import connections

            connections.close_all()
        if created and not args.keep:
            database_drop(name)
        if args.keep:
            print(
                f"kept: database {name} (drop it: psql -h 127.0.0.1 -U postgres -c"
                f" 'DROP DATABASE {name} WITH (FORCE)') and Redis database {args.redis_db}"
            )
        else:
            try:
                redis.Redis.from_url(REDIS_URL).flushdb()
            except redis.RedisError as error:
                print(f"could not empty Redis database {args.redis_db}: {error}")
        shutil.rmtree(data_dir, ignore_errors=True)
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(
        "checks passed: every request answered 2xx, the wagers placed equal the rows, no"
        " replay placed a wager"
    )


if __name__ == "__main__":
    main()
