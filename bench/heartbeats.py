"""Device heartbeats per second: the signed HTTP endpoint, the Redis store alone, Redis
itself and a database row per heartbeat, all in one run; and the time from a device
going quiet to its stale event.

    .venv/bin/python bench/heartbeats.py [--seconds 5] [--devices 1000] [--clients CPUS*8]
        [--workers CPUS*2] [--worker-classes sync,gthread] [--warmup 2] [--batch 500]
        [--trials 5] [--seed 8] [--setup-processes CPUS] [--quick]

About two and a half minutes with the defaults on 2 cores; `--quick` (40 devices, 1 s a
figure, sync workers only, one trial, the same checks) about a minute, most of it
starting processes.

Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust), Redis at 127.0.0.1:6379 and
`redis-benchmark` on PATH. It creates a throwaway database casino_bench_hb_<random>,
migrates it with `manage.py migrate` in a subprocess and drops it at the end, even on an
error. The heartbeat store is Redis database 0 under a prefix of its own
(CASINO_DEVICE_STORE_PREFIX=bench-hb:<random>:), whose keys are deleted at the end; Redis
database 13 is the benchmark's own (Celery's broker and redis-benchmark's keys) and is
emptied (FLUSHDB) at the start and at the end. Every process runs with DATABASE_URL,
CELERY_BROKER_URL=redis://127.0.0.1:6379/13, CASINO_DEVICE_STORE_URL=redis://127.0.0.1:6379/0,
the prefix, CASINO_DEVICE_HEARTBEATS={"automated_shaker": [1, 3]},
CASINO_DEVICE_WATCH_SECONDS=1, a temporary CASINO_DATA_DIR and DJANGO_DEBUG=false.

Setup, not timed: one Sic Bo table with an automated shaker built through the services
(tests/casino/floor_fixtures.compliant_table, without devices), the others copies of its
row; `--devices` devices registered through `devices.services.device_register` by
`--setup-processes` forked processes, two a table (the illumination device and the
automated shaker), their secrets kept as issued.

Timed, `--seconds` each, in one run:
- redis-benchmark: `-q -n 200000 -P 16` (20000 with --quick) for `-t set`, `-t zadd`
  (random members) and EVAL of the store's own claim script (SET NX EX and ZADD, random
  nonces): what Redis does from a C client pipelining 16 deep. The SET figure is the
  denominator of every ratio.
- RedisStore.heartbeats in this process, `--batch` heartbeats a call (the store's
  pipelined path: a script call claims 250 of them, each as the single path claims one),
  and RedisStore.heartbeat, one round trip a heartbeat (their nonce keys deleted after).
- The Django application in this process: signed heartbeats through casino.wsgi's
  application (no HTTP): as they come (each credential read again: the cache's time set
  to 0), and with every credential cached for the run; and through Django's own handler
  (casino.wsgi.django_application, the full stack), every credential cached.
- HTTP: gunicorn (`--workers` workers, for each of `--worker-classes`, on a free port)
  serving, one after the other with the same workers and clients: the baseline, a trivial
  WSGI app in this file that reads the body and answers 204; casino.wsgi, as deploy/
  serves it (a heartbeat takes its WSGI path, devices/heartbeat_wsgi.py); and, with the first
  worker class, Django's own handler (the full stack, no shorter way). The two Django
  applications are loaded in gunicorn's master (--preload) with every credential already
  in the process's cache (`warmed`): each worker starts from a floor's steady state. The
  `--clients` client processes POST /devices/v1/heartbeat for their share of the devices,
  each request signed with devices.signing.signed_headers (a fresh nonce, the current
  timestamp), written to a socket and its answer parsed by hand (http.client would cost
  the clients two to three times the CPU, on the same cores), the connection kept while
  the server keeps it. A client waits for each answer, and a heartbeat waits on Redis's
  round trip: with as many clients as the gthread workers have threads (16 on 2 cores),
  not 4, the cores rather than the round trips bound the rate, as a floor's thousand
  devices would. A `--warmup` first; 204s are counted and anything else reported. Then
  the most these cores allow a heartbeat over HTTP (`http_bounds`: one that cost nothing
  beyond the trivial app's server side, the store's one call, its clients and Redis).
- Baselines on PostgreSQL, in this process: a row per heartbeat (DeviceNonce
  objects.create, one INSERT and its commit: the baseline the issue names), and
  DatabaseStore.heartbeat (the embedded default: a nonce row and the Device row updated,
  in one transaction).

What limits each: CPU time per heartbeat of this process, of the client processes, of
the gunicorn workers (/proc) and of Redis (INFO cpu: the whole server's), and the
heartbeats a second per core these processes kept busy (what two idle cores would give);
credential loads per heartbeat (idx_scan of devices_devicecredential in pg_stat_user_tables, or
auth._load counted in this process) and what one costs, with and without the ORDER BY
that `.first()` takes from DeviceCredential.Meta.ordering.

Stale: a real `celery -A casino worker -B -Q monitoring` (beat inside, the watch every
second) on the benchmark's database; the store's last-seen sets emptied first and no
Device row holding a last_seen_at, so the other devices stay registered, never heard
from (the watch still reads them all on every pass). For each of `--trials` automated
shakers (heartbeats every 1 s, stale after 3 missed), after a random pause of up to a
second (random.Random(--seed), so its heartbeats do not keep in step with the watch's
passes): a signed HTTP heartbeat every second until the watch has made it active (at
least 3), then silence; the figure is the seconds from its last heartbeat (the score the
store holds, the server's clock) to its DeviceEvent "stale" (`at`, the watch's clock),
expected 3 s plus up to the 1 s between passes plus the hand-off from beat to the
worker. The median time of a watch pass comes from the worker's log.

Checks, never timing assertions (exit 1 on failure): every request answered 204 and every
store heartbeat was new; every answer from casino.wsgi came by the heartbeat's shorter way
(no `Vary: Cookie`, which only Django's full stack adds) and every answer of Django's own
handler by the full stack; every trial device went stale.
"""

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psycopg  # noqa: E402 - after sys.path, like the other benchmarks
import redis  # noqa: E402
from engines import machine  # noqa: E402 - bench/ is not a package: found through sys.path
from settlement import (  # noqa: E402
    BenchFailure,
    database_create,
    database_drop,
    django_ready,
    project_env,
)

STORE_URL = "redis://127.0.0.1:6379/0"
BROKER_URL = "redis://127.0.0.1:6379/13"  # the benchmark's own database: emptied
BROKER_DB = 13
PATH = "/devices/v1/heartbeat"
SHAKER = "automated_shaker"
SHAKER_BEAT = (1, 3)  # interval (s), missed: stale after 3 s of silence
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
KEEP_ALIVE = {
    "sync": ": gunicorn's sync workers close each connection after its response",
    "gthread": ": gthread workers keep them alive, so a client stays with one worker",
}


@dataclass(frozen=True)
class Dev:
    """A registered device and the secret it was issued."""

    id: int
    kind: str
    key_id: str
    secret: str


@dataclass
class Figure:
    label: str
    per_s: float
    notes: list[str] = field(default_factory=list)


# --- processes ---------------------------------------------------------------------------------

RUNNING: list[subprocess.Popen[bytes]] = []  # process groups stopped on the way out


def group_start(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A process in a session (and process group) of its own, output to `log`."""
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    RUNNING.append(process)
    return process


def group_stop(process: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """SIGTERM to the process group, SIGKILL to it if the leader is still there after."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever of the group outlived its leader
    if process in RUNNING:
        RUNNING.remove(process)


def tail(log: Path, lines: int = 20) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (gunicorn's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def cpu_of(pids: list[int]) -> float:
    """User + system CPU seconds these processes have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / CLOCK_TICK


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def credential_loads(url: str) -> int:
    """Index scans of the credential table so far (one per credential a worker loads).
    An idle backend may hold its counts for up to 10 s; one that exits publishes them,
    so the database's other connections (gunicorn's workers: they reconnect at their
    next request, Django's health check seeing the connection gone) are ended first."""
    from django.db import connections

    connections.close_all()  # this process's own, not to be ended under it
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        db.execute("SELECT pg_stat_clear_snapshot()")
        row = db.execute(
            "SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) FROM pg_stat_user_tables"
            " WHERE relname = 'devices_devicecredential'"
        ).fetchone()
    return int(row[0]) if row else 0


# --- setup -------------------------------------------------------------------------------------


def devices_make(count: int, processes: int) -> tuple[list[Dev], int, float]:
    """`count` devices, two a Sic Bo table with an automated shaker, registered through the
    service by `processes` forked processes side by side; (devices, tables, seconds)."""
    from django.db import connections
    from django.db.models.base import ModelState

    from casino.models import Table
    from tests.casino.floor_fixtures import compliant_table

    started = time.perf_counter()
    first = compliant_table(
        "sic_bo", automated_shaker=True, with_devices=False, number="SB-0001"
    ).table
    copies = []
    for index in range(2, (count + 1) // 2 + 1):
        table = Table.objects.get(pk=first.pk)
        table.pk, table.number, table._state = None, f"SB-{index:04d}", ModelState()
        copies.append(table)
    tables = [first.pk, *(t.pk for t in Table.objects.bulk_create(copies))]
    plan = [
        (index, tables[index // 2], "illumination_device" if index % 2 == 0 else SHAKER)
        for index in range(count)
    ]
    connections.close_all()  # each forked process opens its own
    chunks = [plan[index::processes] for index in range(processes)]
    context = multiprocessing.get_context("fork")
    with context.Pool(
        processes, initializer=signal.signal, initargs=(signal.SIGTERM, signal.SIG_DFL)
    ) as pool:
        made = sorted(d for chunk in pool.map(devices_register, chunks) for d in chunk)
    return [Dev(*d[1:]) for d in made], len(tables), time.perf_counter() - started


def devices_register(plan: list[tuple[int, int, str]]) -> list[tuple[int, int, str, str, str]]:
    """Register each (index, table id, kind) through the service (in a forked process);
    (index, device id, kind, key id, secret) each."""
    from django.db import connections

    from casino.models import Table
    from devices.services import device_register
    from tests.casino.floor_fixtures import operations

    by, now = operations(), datetime.now(UTC)
    approved = (now - timedelta(days=30)).date()
    made = []
    try:
        for index, table_id, kind in plan:
            issued = device_register(
                Table.objects.get(pk=table_id),
                kind=kind,
                manufacturer="Bench Devices",
                serial_number=f"HB-{index:06d}",
                firmware="1.0.0",
                approval_reference=f"BGLO-HB-{index:06d}",
                approved_at=approved,
                by=by,
                now=now,
            )
            made.append((index, issued.device.pk, kind, issued.key_id, issued.secret))
    finally:
        connections.close_all()
    return made


def prefix_clear(client: redis.Redis, match: str) -> int:
    """UNLINK every key matching `match`, a thousand a round trip; how many."""
    removed = 0
    batch = []
    for key in client.scan_iter(match=match, count=1000):
        batch.append(key)
        if len(batch) == 1000:
            removed += client.unlink(*batch)
            batch = []
    if batch:
        removed += client.unlink(*batch)
    return removed


# --- redis-benchmark ---------------------------------------------------------------------------

RATE = re.compile(r"([0-9.]+) requests per second")


def redis_benchmark(*test: str, requests: int = 200000) -> float:
    """requests/s that `redis-benchmark -q -n N -P 16` reports for the test."""
    argv = ["redis-benchmark", "-h", "127.0.0.1", "-p", "6379", "--dbnum", str(BROKER_DB)]
    argv += ["-q", "-n", str(requests), "-P", "16", *test]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    found = RATE.findall(done.stdout.replace("\r", "\n"))
    if done.returncode != 0 or not found:
        raise BenchFailure(f"{' '.join(argv[:12])}... gave:\n{done.stdout}{done.stderr}")
    return float(found[-1])


def claim_test() -> list[str]:
    """redis-benchmark's arguments for EVAL of the store's own claim script: a random
    nonce claimed (SET NX EX) and, being new, a random member ZADDed."""
    from devices.store import _CLAIM, nonce_lifetime

    keys = ["bench-hb:nonce:__rand_int__", "bench-hb:seen", "bench-hb:ends", "bench-hb:epoch"]
    args = [str(nonce_lifetime()), "1", "__rand_int__", "dk_bench", "1"]  # +signed at
    return ["-r", "1000000000", "eval", _CLAIM, str(len(keys)), *keys, *args]


# --- in-process: the store, the database -------------------------------------------------------


def timed_loop(seconds: float, step: Any) -> tuple[int, float, float]:
    """Call step() (which returns how many heartbeats it did) for `seconds`;
    (heartbeats, wall seconds, this process's CPU seconds)."""
    done = 0
    cpu = time.process_time()
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        done += step()
    return done, time.perf_counter() - start, time.process_time() - cpu


def store_batches(
    store: Any, devices: list[Dev], seconds: float, batch: int, problems: list[str]
) -> tuple[Figure, float]:
    counter = iter(range(10**12))
    position = [0]
    new = [0]

    def step() -> int:
        now = time.time()
        start = position[0]
        beats = []
        for offset in range(batch):
            d = devices[(start + offset) % len(devices)]
            beats.append((d.id, d.kind, d.key_id, f"batch{next(counter):020d}", now))
        position[0] = (start + batch) % len(devices)
        new[0] += store.heartbeats(beats)
        return batch

    before = redis_cpu(store.client)
    done, wall, cpu = timed_loop(seconds, step)
    spent = redis_cpu(store.client) - before
    if new[0] != done:
        problems.append(f"RedisStore.heartbeats: {done - new[0]} of {done} nonces refused")
    figure = Figure(f"RedisStore.heartbeats, {batch} a pipeline, 1 process", done / wall)
    figure.notes.append(
        f"{1e6 * cpu / done:.1f} µs of this process's CPU and {1e6 * spent / done:.1f} µs of"
        f" Redis's a heartbeat ({cpu / wall:.0%} and {spent / wall:.0%} of a core)"
    )
    return figure, spent / done


def store_single(
    store: Any, devices: list[Dev], seconds: float, problems: list[str]
) -> tuple[Figure, float, float]:
    """The store's one call an HTTP heartbeat makes: the figure, and Redis's CPU and this
    process's CPU a call (seconds)."""
    counter = iter(range(10**12))
    refused = [0]

    def step() -> int:
        n = next(counter)
        d = devices[n % len(devices)]
        if not store.heartbeat(d.id, d.kind, d.key_id, f"single{n:020d}", time.time()):
            refused[0] += 1
        return 1

    before = redis_cpu(store.client)
    done, wall, cpu = timed_loop(seconds, step)
    spent = redis_cpu(store.client) - before
    if refused[0]:
        problems.append(f"RedisStore.heartbeat: {refused[0]} of {done} nonces refused")
    figure = Figure("RedisStore.heartbeat, one call each, 1 process", done / wall)
    figure.notes.append(
        f"{1e6 * wall / done:.0f} µs a call: {1e6 * cpu / done:.0f} µs of this process's CPU,"
        f" {1e6 * spent / done:.1f} µs of Redis's, the rest waiting on the round trip"
    )
    return figure, spent / done, cpu / done


def database_rows(devices: list[Dev], seconds: float) -> Figure:
    """The baseline: one DeviceNonce row INSERTed (and committed) per heartbeat."""
    from devices.models import DeviceNonce

    counter = iter(range(10**12))

    def step() -> int:
        n = next(counter)
        d = devices[n % len(devices)]
        seen_at = datetime.fromtimestamp(time.time(), tz=UTC)
        DeviceNonce.objects.create(key_id=d.key_id, nonce=f"row{n:020d}", seen_at=seen_at)
        return 1

    done, wall, cpu = timed_loop(seconds, step)
    figure = Figure("baseline: a row INSERTed per heartbeat (ORM), 1 process", done / wall)
    figure.notes.append(
        f"{1e3 * wall / done:.2f} ms a row, {1e3 * cpu / done:.2f} ms of it this process's"
        " CPU (Django building the INSERT); the rest PostgreSQL and the commit's WAL flush"
    )
    return figure


def database_store(devices: list[Dev], seconds: float, problems: list[str]) -> Figure:
    """The embedded default: DatabaseStore.heartbeat (a nonce row and the Device updated)."""
    from devices.store import DatabaseStore

    db_store = DatabaseStore()
    counter = iter(range(10**12))
    refused = [0]

    def step() -> int:
        n = next(counter)
        d = devices[n % len(devices)]
        if not db_store.heartbeat(d.id, d.kind, d.key_id, f"dbstore{n:020d}", time.time()):
            refused[0] += 1
        return 1

    done, wall, cpu = timed_loop(seconds, step)
    if refused[0]:
        problems.append(f"DatabaseStore.heartbeat: {refused[0]} of {done} nonces refused")
    figure = Figure("DatabaseStore.heartbeat (row + UPDATE), 1 process", done / wall)
    figure.notes.append(
        f"{1e3 * wall / done:.2f} ms a heartbeat, {1e3 * cpu / done:.2f} ms of it this"
        " process's CPU; a transaction with a savepoint, an INSERT and an UPDATE"
    )
    return figure


def wsgi_in_process(
    store: Any,
    devices: list[Dev],
    seconds: float,
    problems: list[str],
    *,
    warm: bool = False,
    django: bool = False,
) -> Figure:
    """The Django application alone: signed heartbeats through its WSGI handler in this
    process, as gunicorn calls it, with no HTTP and no gunicorn. `warm`: every credential
    loaded first and kept for the run (CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS an hour), so
    no heartbeat reads a row: what the endpoint costs without the credential read.
    `django`: through Django's own handler (casino.wsgi.django_application, the full
    stack), not casino.wsgi's shorter way for heartbeats."""
    import io

    from django.test.utils import override_settings

    from casino import wsgi
    from devices import auth
    from devices.signing import signed_headers

    handler = wsgi.django_application if django else wsgi.application
    counter = iter(range(10**12))
    answered: Counter[str] = Counter()
    loads = [0]
    load = auth._load

    def counted(*args: Any) -> Any:
        loads[0] += 1
        return load(*args)

    def step() -> int:
        d = devices[next(counter) % len(devices)]
        body = b'{"device": %d}' % d.id
        environ = {
            "REQUEST_METHOD": "POST", "PATH_INFO": PATH, "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80", "HTTP_HOST": "127.0.0.1", "REMOTE_ADDR": "127.0.0.1",
            "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body),
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
        }  # fmt: skip
        for name, value in signed_headers(
            d.key_id, d.secret, "POST", PATH, body, time.time()
        ).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        status = []
        response = handler(environ, lambda line, headers: status.append(line))
        b"".join(response)
        if hasattr(response, "close"):  # optional in WSGI (PEP 3333)
            response.close()
        answered[status[0]] += 1
        return 1

    auth._cache.clear()
    with override_settings(CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS=3600 if warm else 0):
        if warm:
            for d in devices:
                auth.caller_for(d.key_id, time.time(), cached=True)
        auth._load = counted
        before = redis_cpu(store.client)
        try:
            done, wall, cpu = timed_loop(seconds, step)
        finally:
            auth._load = load
            auth._cache.clear()
    spent = redis_cpu(store.client) - before
    ok = answered.pop("204 No Content", 0)
    for line, count in answered.items():
        problems.append(f"WSGI in-process: {count} answered {line}")
    label = "casino.wsgi in-process (no HTTP), credentials read each time, 1 process"
    if warm:
        label = "casino.wsgi in-process, every credential cached (no row read)"
    if django:
        label = "Django's own handler in-process (full stack), every credential cached"
    figure = Figure(label, ok / wall)
    figure.notes.append(
        f"{1e3 * cpu / done:.2f} ms of this process's CPU and {1e3 * spent / done:.3f} ms of"
        f" Redis's a heartbeat; {loads[0] / done:.2f} credential loads a heartbeat"
    )
    return figure


def signing_rate(devices: list[Dev], seconds: float) -> float:
    """Requests signed per second in Python (what a client process spends before sending)."""
    from devices.signing import signed_headers

    counter = iter(range(10**12))

    def step() -> int:
        d = devices[next(counter) % len(devices)]
        signed_headers(d.key_id, d.secret, "POST", PATH, b'{"device": %d}' % d.id, time.time())
        return 1

    done, wall, _ = timed_loop(seconds, step)
    return done / wall


# --- HTTP ----------------------------------------------------------------------------------------


# The applications gunicorn serves, in the same run, with the same workers and clients.
APPS = {
    "trivial": "heartbeats:trivial_app",  # the baseline: this file's, below
    "casino.wsgi": "heartbeats:warmed('casino.wsgi')",  # what deploy/ serves
    "django": "heartbeats:warmed('django')",  # Django's own handler, no shorter way
}
APP_LABELS = {
    "trivial": "baseline: a trivial WSGI app (reads the body, answers 204)",
    "casino.wsgi": "HTTP casino.wsgi (the heartbeat's WSGI path)",
    "django": "HTTP Django's own handler (full stack)",
}


def trivial_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    """The baseline under the same server: read the body, answer 204, nothing else."""
    environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    start_response("204 No Content", [])
    return [b""]


def warmed(which: str) -> Any:
    """casino.wsgi's application ("casino.wsgi") or Django's own handler ("django"), loaded
    in gunicorn's master (--preload) with every credential already in the process's
    cache, so each worker starts from the steady state of a floor (a worker keeps a
    credential CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS, 300 s, and hears from each device
    every few seconds) rather than loading each credential once for itself in the
    measured seconds."""
    from django.db import connections

    from casino import wsgi
    from devices import auth
    from devices.models import DeviceCredential
    from devices.signing import SignatureRefused

    now = time.time()
    for key_id in DeviceCredential.objects.values_list("key_id", flat=True):
        with contextlib.suppress(SignatureRefused):
            auth.caller_for(key_id, now, cached=True)
    connections.close_all()  # each worker opens its own
    return wsgi.application if which == "casino.wsgi" else wsgi.django_application


def gunicorn_start(
    env: dict[str, str], app: str, workers: int, worker_class: str, logs: Path
) -> tuple[Any, int]:
    port = free_port()
    argv = [
        sys.executable, "-m", "gunicorn", APPS[app], "--pythonpath", str(ROOT / "bench"),
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        "--worker-class", worker_class, "--timeout", "30", "--log-level", "warning",
    ]  # fmt: skip
    if worker_class == "gthread":
        argv += ["--threads", "4"]
    if app != "trivial":
        argv += ["--preload"]
    log = logs / f"gunicorn-{app}-{worker_class}.log"
    process = group_start(argv, env, log)
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


@dataclass
class Driven:
    ok: int = 0
    other: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    connects: int = 0
    vary_cookie: int = 0  # answers carrying Vary: Cookie (Django's full stack adds it)
    cpu: float = 0.0
    last: float = 0.0  # wall clock of the last response


def request_bytes(device: Dev, body: bytes, now: float) -> bytes:
    """A signed heartbeat as the bytes a device sends (signed by devices.signing)."""
    from devices.signing import signed_headers

    headers = signed_headers(device.key_id, device.secret, "POST", PATH, body, now)
    lines = [
        f"POST {PATH} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def answer_read(sock: socket.socket, buffer: bytes) -> tuple[int, bytes, bool, bool, bytes]:
    """One HTTP answer from `sock`: (status, body, closed after it, Vary: Cookie, the bytes
    read beyond it)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        buffer += chunk
    head, _, buffer = buffer.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status, length, close, vary = int(lines[0].split()[1]), 0, False, False
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"connection":
            close = value == b"close"
        elif name == b"vary":
            vary = b"cookie" in value
    while len(buffer) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        buffer += chunk
    return status, buffer[:length], close, vary, buffer[length:]


def client_run(job: tuple[int, list[Dev], float, float]) -> Driven:
    """One client process: signed heartbeats for its devices in turn, from `start` (wall
    clock) for `seconds`, one at a time on a socket kept open while the server keeps it.
    The request is written and the answer parsed by hand (http.client costs the client
    two to three times as much CPU, on the cores the server runs on)."""
    port, devices, start, seconds = job
    driven = Driven()
    bodies = [b'{"device": %d}' % d.id for d in devices]
    sock: socket.socket | None = None
    buffer = b""
    while time.time() < start:
        time.sleep(0.001)
    cpu = os.times()
    end = start + seconds
    index = 0
    while time.time() < end:
        request = request_bytes(devices[index], bodies[index], time.time())
        index = (index + 1) % len(devices)
        try:
            if sock is None:
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                driven.connects += 1
                buffer = b""
            sock.sendall(request)
            status, data, close, vary, buffer = answer_read(sock, buffer)
        except OSError as error:
            if sock is not None:
                sock.close()
            sock = None
            driven.errors[type(error).__name__] += 1
            continue
        driven.vary_cookie += vary
        if status == 204:
            driven.ok += 1
        else:
            driven.other[(status, data[:160].decode(errors="replace"))] += 1
        if close:
            sock.close()
            sock = None
    driven.last = time.time()
    after = os.times()
    driven.cpu = (after.user - cpu.user) + (after.system - cpu.system)
    if sock is not None:
        sock.close()
    return driven


def http_drive(port: int, devices: list[Dev], clients: int, seconds: float) -> tuple[Driven, float]:
    """`clients` processes for `seconds`; (their sum, wall seconds from start to last)."""
    from django.db import connections

    connections.close_all()  # the forked clients use none
    start = time.time() + 0.5
    jobs = [(port, devices[index::clients], start, seconds) for index in range(clients)]
    context = multiprocessing.get_context("fork")
    with context.Pool(
        clients, initializer=signal.signal, initargs=(signal.SIGTERM, signal.SIG_DFL)
    ) as pool:
        results = pool.map(client_run, jobs)
    total = Driven()
    for r in results:
        total.ok += r.ok
        total.other.update(r.other)
        total.errors.update(r.errors)
        total.connects += r.connects
        total.vary_cookie += r.vary_cookie
        total.cpu += r.cpu
    total.last = max(r.last for r in results)
    return total, total.last - start


@dataclass
class Served:
    """An HTTP figure and what it cost, a heartbeat."""

    figure: Figure
    app: str
    worker_class: str
    gunicorn_ms: float
    clients_ms: float
    redis_ms: float
    busy: float  # cores these processes kept busy


def http_figure(
    url: str,
    env: dict[str, str],
    app: str,
    worker_class: str,
    store: Any,
    devices: list[Dev],
    args: argparse.Namespace,
    logs: Path,
    problems: list[str],
    *,
    keep: bool = False,
) -> tuple[Served, Any, int]:
    """Serve `app` with gunicorn, warm it up, then drive it for --seconds; the figure, and
    the server (stopped unless `keep`) and its port."""
    gunicorn, port = gunicorn_start(env, app, args.workers, worker_class, logs)
    try:
        clients = min(args.clients, len(devices))
        # Warm-up: connections, the store's script; the credentials are in each worker's
        # cache already (`warmed`).
        http_drive(port, devices, clients, args.warmup)
        workers = children(gunicorn.pid)
        loads, gunicorn_cpu = credential_loads(url), cpu_of(workers)
        redis_before = redis_cpu(store.client)
        driven, wall = http_drive(port, devices, clients, args.seconds)
        gunicorn_spent = cpu_of(workers) - gunicorn_cpu
        redis_spent = redis_cpu(store.client) - redis_before
        loaded = credential_loads(url) - loads if app != "trivial" else 0
    except BaseException:
        group_stop(gunicorn)
        raise
    if not keep:
        group_stop(gunicorn)
    label = f"{APP_LABELS[app]}, {args.workers} {worker_class} workers, {clients} clients"
    figure = Figure(label, driven.ok / wall)
    answered = driven.ok + sum(driven.other.values())
    for (status, body), count in driven.other.most_common():
        problems.append(f"HTTP {app} {worker_class}: {count} answered {status}: {body}")
    for name, count in driven.errors.most_common():
        problems.append(f"HTTP {app} {worker_class}: {count} requests failed: {name}")
    if app == "casino.wsgi" and driven.vary_cookie:
        problems.append(
            f"HTTP casino.wsgi: {driven.vary_cookie} of {answered} answers came from Django's"
            " full stack (Vary: Cookie), not the heartbeat's shorter way"
        )
    if app == "django" and driven.vary_cookie != answered:
        problems.append(f"HTTP django: {answered - driven.vary_cookie} answers without Vary")
    ok = max(driven.ok, 1)
    busy = (gunicorn_spent + driven.cpu + redis_spent) / wall
    figure.notes += [
        f"{driven.ok:,} answered 204 in {wall:.2f} s, {answered - driven.ok:,} anything else,"
        f" {sum(driven.errors.values()):,} failed; {driven.connects:,} TCP connections opened"
        f" ({driven.connects / max(answered, 1):.2f} a request{KEEP_ALIVE[worker_class]})",
        f"CPU a heartbeat: gunicorn workers {1e3 * gunicorn_spent / ok:.3f} ms, clients"
        f" {1e3 * driven.cpu / ok:.3f} ms, Redis {1e3 * redis_spent / ok:.3f} ms (of"
        f" {os.cpu_count()} cores: {busy:.2f} busy)",
    ]
    if app != "trivial":
        figure.notes.append(
            f"credential rows loaded: {loaded:,} ({loaded / ok:.3f} a heartbeat; each worker"
            " began with every credential cached, and keeps one for"
            " CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS)"
        )
    served = Served(
        figure, app, worker_class, 1e3 * gunicorn_spent / ok, 1e3 * driven.cpu / ok,
        1e3 * redis_spent / ok, busy,
    )  # fmt: skip
    return served, gunicorn, port


def credential_load_rate(devices: list[Dev], seconds: float, *, ordered: bool = False) -> float:
    """Credentials read per second as a heartbeat reads one when its cache has none
    (auth._load); `ordered`: its query with the ORDER BY that `.first()` would take from
    DeviceCredential.Meta.ordering (joining casino_table and casino_certificateholder for a
    lookup by a unique key), which auth._load drops."""
    from devices import auth
    from devices.models import DeviceCredential

    counter = iter(range(10**12))
    fields = ("key_id", "salt", "expires_at", "revoked_at", "device__table_id", "device__kind")
    fields += ("device__position", "device__status")

    def step() -> int:
        key_id = devices[next(counter) % len(devices)].key_id
        if ordered:
            query = DeviceCredential.objects.select_related("device").filter(key_id=key_id)
            query.only(*fields).first()
        else:
            auth._load(key_id, time.time())
        return 1

    done, wall, _ = timed_loop(seconds, step)
    return done / wall


def signed_post(port: int, device: Dev) -> int:
    """One signed heartbeat on a connection of its own; the status."""
    from devices.signing import signed_headers

    body = b'{"device": %d}' % device.id
    headers = signed_headers(device.key_id, device.secret, "POST", PATH, body, time.time())
    headers["Content-Type"] = "application/json"
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", PATH, body, headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


# --- stale: a real worker with beat -------------------------------------------------------------

SUCCEEDED = re.compile(rb"Task monitoring\.devices_watch\[[^]]+\] succeeded in ([0-9.]+)s")


def worker_start(env: dict[str, str], logs: Path) -> tuple[Any, Path]:
    log = logs / "monitoring.log"
    argv = [
        sys.executable, "-m", "celery", "-A", "casino", "worker", "-B", "-Q", "monitoring",
        "-n", "bench-hb@%h", "--concurrency", "2", "--without-gossip", "--without-mingle",
        "-l", "INFO",
    ]  # fmt: skip
    process = group_start(argv, env, log)
    deadline = time.monotonic() + 60
    while b" ready." not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            raise BenchFailure(f"the monitoring worker did not start:\n{tail(log)}")
        time.sleep(0.1)
    return process, log


@dataclass
class Trial:
    device: int
    beats: int
    to_event: float  # last heartbeat (store score) to the stale event's `at`
    to_seen: float  # last heartbeat to this process finding the event in the database


def stale_trials(
    env: dict[str, str],
    port: int,
    store: Any,
    shakers: list[Dev],
    args_seed: int,
    logs: Path,
    problems: list[str],
) -> tuple[list[Trial], list[float]]:
    from devices.models import Device, DeviceEvent

    prefix_clear(store.client, f"{store.prefix}seen:*")  # the watch hears of nobody
    phase = Random(args_seed)
    process, log = worker_start(env, logs)
    trials = []
    try:
        for shaker in shakers:
            # A random phase against the watch's passes (otherwise each trial, begun just
            # after the pass that found the last one stale, would beat in step with them).
            time.sleep(phase.uniform(0, SHAKER_BEAT[0]))
            beats, deadline = 0, time.monotonic() + 30
            next_beat = time.monotonic()
            while True:
                status = signed_post(port, shaker)
                if status != 204:
                    raise BenchFailure(f"trial heartbeat for device {shaker.id}: HTTP {status}")
                beats += 1
                next_beat += SHAKER_BEAT[0]
                time.sleep(max(0.0, next_beat - time.monotonic() - 0.2))
                current = Device.objects.values_list("status", flat=True).get(pk=shaker.id)
                if current == Device.Status.ACTIVE and beats >= 3:
                    break
                if time.monotonic() > deadline or process.poll() is not None:
                    raise BenchFailure(
                        f"device {shaker.id} not active after {beats} heartbeats"
                        f" (status {current}):\n{tail(log)}"
                    )
                time.sleep(max(0.0, next_beat - time.monotonic()))
            last = store.seen(SHAKER)[shaker.id]
            deadline = time.monotonic() + 30
            while True:
                event = DeviceEvent.objects.filter(device_id=shaker.id, kind="stale").first()
                if event is not None:
                    break
                if time.monotonic() > deadline or process.poll() is not None:
                    problems.append(f"device {shaker.id} did not go stale in 30 s")
                    break
                time.sleep(0.02)
            if event is not None:
                seen = time.time() - last
                trials.append(Trial(shaker.id, beats, event.at.timestamp() - last, seen))
    finally:
        group_stop(process)
    passes = [float(s) for s in SUCCEEDED.findall(log.read_bytes())]
    return trials, passes


# --- the run ----------------------------------------------------------------------------------


def http_bounds(served: list[Served], call_ms: float) -> list[str]:
    """The most these cores allow a heartbeat over HTTP, from this run's own figures: one
    that cost nothing beyond the trivial app's gunicorn (the HTTP server), the store's one
    call (this process's CPU for it, measured alone), the clients (the cheaper of the two
    figures': the same client code) and the casino.wsgi figure's Redis, on every core of
    the machine, idle (which is generous)."""
    cores = os.cpu_count() or 1
    lines = []
    for row in served:
        if row.app != "casino.wsgi":
            continue
        trivial = next(
            t for t in served if t.app == "trivial" and t.worker_class == row.worker_class
        )
        clients = min(row.clients_ms, trivial.clients_ms)
        floor = trivial.gunicorn_ms + call_ms + clients + row.redis_ms
        lines.append(
            f"the most these {cores} cores allow a heartbeat over HTTP ({row.worker_class}):"
            f" {floor:.3f} ms of CPU for one that cost nothing beyond the trivial app's gunicorn"
            f" {trivial.gunicorn_ms:.3f}, the store's one call {call_ms:.3f}, the clients"
            f" {clients:.3f} and Redis {row.redis_ms:.3f}: {1e3 * cores / floor:,.0f} a"
            f" second on idle cores; casino.wsgi took {row.gunicorn_ms:.3f} ms of gunicorn's"
            f" CPU, {row.figure.per_s:,.0f} a second; 3,000 a second allows"
            f" {1e3 * cores / 3000:.3f} ms in all"
        )
    return lines


def run(args: argparse.Namespace, url: str, env: dict[str, str], logs: Path) -> list[str]:
    from devices.store import RedisStore, store

    problems: list[str] = []
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    devices, tables, seconds = devices_make(args.devices, args.setup_processes)
    kinds = Counter(d.kind for d in devices)
    print(
        f"setup: {tables} Sic Bo tables, {len(devices)} devices registered through"
        f" device_register in {seconds:.1f} s by {args.setup_processes} processes"
        f" ({', '.join(f'{n} {kind}' for kind, n in sorted(kinds.items()))})"
    )
    hb_store = store()
    if not isinstance(hb_store, RedisStore):
        raise BenchFailure(f"the store is {type(hb_store).__name__}, not RedisStore")
    print(
        f"store: {STORE_URL} prefix {hb_store.prefix}; broker {BROKER_URL};"
        f" {args.seconds:g} s a figure"
    )

    requests = 20000 if args.quick else 200000
    bench_set = Figure(
        "redis-benchmark SET, -P 16", redis_benchmark("-t", "set", requests=requests)
    )
    bench_zadd = Figure(
        "redis-benchmark ZADD, -P 16",
        redis_benchmark("-r", "100000", "-t", "zadd", requests=requests),
    )
    redis.Redis.from_url(BROKER_URL).set("bench-hb:epoch", "0")  # begun: the full claim runs
    bench_eval = Figure(
        "redis-benchmark EVAL claim+ZADD, -P 16", redis_benchmark(*claim_test(), requests=requests)
    )
    redis.Redis.from_url(BROKER_URL).flushdb()

    batches, batch_redis = store_batches(hb_store, devices, args.seconds, args.batch, problems)
    single, _, single_cpu = store_single(hb_store, devices, args.seconds, problems)
    # Their nonces would expire during the next figures, on Redis's CPU: gone now instead.
    prefix_clear(hb_store.client, f"{hb_store.prefix}nonce:*")
    signing = signing_rate(devices, min(args.seconds, 1.0))
    in_process = wsgi_in_process(hb_store, devices, args.seconds, problems)
    in_process_warm = wsgi_in_process(hb_store, devices, args.seconds, problems, warm=True)
    in_process_django = wsgi_in_process(
        hb_store, devices, args.seconds, problems, warm=True, django=True
    )
    in_process_warm.notes.append(
        f"signing in Python: {signing:,.0f} requests/s for one process"
        f" ({1e6 / signing:.0f} µs a request)"
    )

    served: list[Served] = []
    for index, worker_class in enumerate(args.worker_classes):
        apps = ["trivial", "casino.wsgi"] + (["django"] if index == 0 else [])
        for app in apps:
            figure, _, _ = http_figure(
                url, env, app, worker_class, hb_store, devices, args, logs, problems
            )
            served.append(figure)
    load_ms = 1e3 / credential_load_rate(devices, min(args.seconds, 1.0))
    plain_ms = 1e3 / credential_load_rate(devices, min(args.seconds, 1.0), ordered=True)
    rows = database_rows(devices, args.seconds)
    db_store = database_store(devices, args.seconds, problems)
    from devices.models import Device, DeviceNonce

    DeviceNonce.objects.all().delete()
    Device.objects.update(last_seen_at=None)  # the watch must not hear of these
    gunicorn, port = gunicorn_start(env, "casino.wsgi", 2, "sync", logs)
    try:
        shakers = [d for d in devices if d.kind == SHAKER][: args.trials]
        trials, passes = stale_trials(env, port, hb_store, shakers, args.seed, logs, problems)
    finally:
        group_stop(gunicorn)

    figures = [
        bench_set, bench_zadd, bench_eval, batches, single, in_process, in_process_warm,
        in_process_django, *(s.figure for s in served), db_store, rows,
    ]  # fmt: skip
    print()
    print(f"{'method':<90}{'heartbeats/s':>14}{':redis SET':>12}{':ORM row':>10}")
    for figure in figures:
        print(
            f"{figure.label:<90}{figure.per_s:>14,.0f}{figure.per_s / bench_set.per_s:>12.4f}"
            f"{figure.per_s / rows.per_s:>10.1f}"
        )
    print()
    print(
        f"HTTP, one run: gunicorn --workers {args.workers}, {min(args.clients, len(devices))}"
        f" client processes on the same {os.cpu_count()} cores; CPU ms a heartbeat"
    )
    print(
        f"{'application':<14}{'workers':>9}{'heartbeats/s':>14}{':trivial':>10}{'gunicorn':>10}"
        f"{'clients':>9}{'redis':>8}{'busy':>6}{'per busy core':>15}"
    )
    for row in served:
        trivial = next(
            t for t in served if t.app == "trivial" and t.worker_class == row.worker_class
        )
        per_core = row.figure.per_s / row.busy if row.busy else 0.0
        print(
            f"{row.app:<14}{row.worker_class:>9}{row.figure.per_s:>14,.0f}"
            f"{row.figure.per_s / trivial.figure.per_s:>10.3f}{row.gunicorn_ms:>10.3f}"
            f"{row.clients_ms:>9.3f}{row.redis_ms:>8.3f}{row.busy:>6.2f}{per_core:>15,.0f}"
        )
    print()
    for figure in figures:
        for note in figure.notes:
            print(f"{figure.label.split(',')[0].split(':')[0]}: {note}")
    print(
        f"a credential load (auth._load) takes {load_ms:.2f} ms in this process, with the"
        f" model's ordering (4 tables joined) {plain_ms:.2f} ms"
    )
    for line in http_bounds(served, 1e3 * single_cpu):
        print(line)
    need = sum(len([d for d in devices if d.kind == k]) / stale_interval(k) for k in kinds)
    best = max((s for s in served if s.app == "casino.wsgi"), key=lambda s: s.figure.per_s)
    print(
        f"this floor needs {need:,.0f} heartbeats/s ({len(devices)} devices at their"
        f" intervals): HTTP ({best.worker_class}) has {best.figure.per_s / need:.1f} times that;"
        f" Redis spends {1e6 * batch_redis:.1f} µs a heartbeat pipelined against"
        f" {best.gunicorn_ms:.3f} ms of gunicorn's"
    )
    print()
    print(
        f"load average {os.getloadavg()[0]:.2f} at the end; Redis's CPU is the whole server's"
        " (INFO cpu), anything else using it included"
    )
    print()
    interval, missed = SHAKER_BEAT
    if trials:
        to_event = [t.to_event for t in trials]
        print(
            f"stale: {SHAKER} heartbeat every {interval} s, stale after {missed} missed"
            f" ({interval * missed} s), the watch every 1 s; {len(trials)} trials"
        )
        print(
            "  last heartbeat to the stale event (s): "
            + "  ".join(f"{s:.2f}" for s in to_event)
            + f"   median {statistics.median(to_event):.2f}, expected {interval * missed}"
            f" to {interval * missed + 1} plus the hand-off"
        )
        print(
            "  last heartbeat to this process reading the event (s): "
            + "  ".join(f"{t.to_seen:.2f}" for t in trials)
        )
    if passes:
        print(
            f"  a watch pass over {len(devices)} devices:"
            f" median {1e3 * statistics.median(passes):.0f} ms,"
            f" max {1e3 * max(passes):.0f} ms ({len(passes)} passes, worker log)"
        )
    return problems


def stale_interval(kind: str) -> float:
    """A kind's own heartbeat interval (devices/rules.py, not the benchmark's override)."""
    from devices import rules

    return float(rules.KINDS[kind].interval)


def main() -> None:
    cpus = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure (5)")
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="HTTP warm-up before each HTTP figure (2)"
    )
    parser.add_argument("--devices", type=int, default=1000, help="devices registered (1000)")
    parser.add_argument(
        "--clients",
        type=int,
        default=cpus * 8,
        help="HTTP client processes, a request at a time each (CPUs x 8)",
    )
    parser.add_argument("--workers", type=int, default=cpus * 2, help="gunicorn workers (CPUs x 2)")
    parser.add_argument(
        "--worker-classes",
        default="sync,gthread",
        help="gunicorn worker classes, comma-separated: sync (as deploy/ runs it, a connection"
        " a request) and gthread (4 threads a worker, keep-alive); sync,gthread",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="seconds, not minutes: 40 devices, 1 s a figure, sync workers only, one trial;"
        " the same checks",
    )
    parser.add_argument("--batch", type=int, default=500, help="heartbeats a pipeline (500)")
    parser.add_argument(
        "--setup-processes", type=int, default=cpus, help="processes registering devices"
    )
    parser.add_argument("--seed", type=int, default=8, help="random.Random seed of the trials")
    parser.add_argument("--trials", type=int, default=5, help="devices left to go stale (5)")
    args = parser.parse_args()
    if args.quick:
        args.devices, args.seconds, args.warmup, args.trials = 40, 1.0, 1.0, 1
        args.worker_classes, args.setup_processes = "sync", 1
    args.worker_classes = [c for c in args.worker_classes.split(",") if c]
    if not set(args.worker_classes) <= {"sync", "gthread"} or not args.worker_classes:
        parser.error("--worker-classes: sync, gthread or both")
    if (
        min(args.devices, args.clients, args.workers, args.batch, args.setup_processes) < 1
        or args.seconds <= 0
    ):
        parser.error("--seconds, --devices, --clients, --workers, --batch: above 0")
    if not 1 <= args.trials <= args.devices // 2:
        parser.error("--trials: 1 to half of --devices (one automated shaker a trial)")

    # SIGTERM unwinds like Ctrl-C, so the processes stop and the database is dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tag = uuid.uuid4().hex[:10]
    name = f"casino_bench_hb_{tag}"
    prefix = f"bench-hb:{tag}:"
    data_dir = Path(tempfile.mkdtemp(prefix="casino_bench_hb_"))
    problems: list[str] = []
    created = False
    try:
        redis.Redis.from_url(BROKER_URL, socket_connect_timeout=3).flushdb()
        if shutil.which("redis-benchmark") is None:
            raise BenchFailure("redis-benchmark is not on PATH")
        url = database_create(name)
        created = True
        env = project_env(
            DATABASE_URL=url,
            CELERY_BROKER_URL=BROKER_URL,
            CASINO_DEVICE_STORE_URL=STORE_URL,
            CASINO_DEVICE_STORE_PREFIX=prefix,
            CASINO_DEVICE_HEARTBEATS=json.dumps({SHAKER: list(SHAKER_BEAT)}),
            CASINO_DEVICE_WATCH_SECONDS="1",
            CASINO_DATA_DIR=str(data_dir),
            DJANGO_DEBUG="false",
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
        if created:
            database_drop(name)
        try:
            prefix_clear(redis.Redis.from_url(STORE_URL), f"{prefix}*")
            redis.Redis.from_url(BROKER_URL).flushdb()
        except redis.RedisError as error:
            print(f"could not clean Redis: {error}")
        shutil.rmtree(data_dir, ignore_errors=True)
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(
        "checks passed: every request answered 204, every heartbeat new, casino.wsgi answered"
        " every heartbeat by its shorter way, every trial stale"
    )


if __name__ == "__main__":
    main()
