"""Rounds settled by real ``celery worker`` processes against real PostgreSQL and Redis.

The same settlement task delivered twice; two workers handed the same round at once; a
worker SIGKILLed in the middle of a settlement, then restarted; Redis restarted (empty)
during a burst of a few hundred rounds across the demo floor. Afterwards every round is
settled exactly once, nothing is lost (the sweep recovers what was in flight), every
ledger entry sums to zero and every wager is resolved at most once, by its round.

Each test gets a fresh database with the demo floor loaded (``load_demo_floor``, once
per module, then copied) and plays rounds with ``manage.py play_rounds``; the results
are read back with SQL.
CELERY_VISIBILITY_TIMEOUT is 600 s, so an unacknowledged message never comes back from
Redis within a test: whatever recovers, the outbox sweep recovered.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psycopg
import pytest
import redis
from psycopg import sql

from tests.services import (
    POSTGRES_URL,
    ROOT,
    celery_worker,
    every_queue,
    manage,
    postgres_database,
    project_env,
    redis_database,
    require,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

# "Task settlement.round_settle[<id>] succeeded in 0.01s: 'settled'"
SUCCEEDED = re.compile(
    r"Task settlement\.round_settle\[(?P<task>[^\]]+)\] succeeded in [\d.e-]+s: '(?P<result>[^']*)'"
)
RECEIVED = re.compile(r"Task settlement\.round_settle\[(?P<task>[^\]]+)\] received")
SETTLE_RESULTS = {"settled", "already settled", "busy: another worker holds it"}


# --- processes ----------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port nobody listens on yet (for our own redis-server)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spawn(stack: ExitStack, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """Start a process in its own process group, output to `log`; the whole group is
    stopped (SIGTERM, then SIGKILL) when the stack closes, whatever happened."""
    out = stack.enter_context(log.open("ab"))
    process = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
    )
    stack.callback(group_stop, process)
    return process


def group_stop(process: subprocess.Popen, grace: float = 15) -> None:
    """SIGTERM the process group, then SIGKILL what is left after `grace` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=wait)
            # The leader is gone; its children (prefork pool) may not be yet.
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            break
        except subprocess.TimeoutExpired:
            continue
        break
    if process.poll() is None:
        process.wait(timeout=10)


def worker_start(
    stack: ExitStack, env: dict[str, str], log: Path, name: str, concurrency: int = 1
) -> subprocess.Popen:
    """A ``celery worker`` on every queue, in its own process group; returns once ready."""
    node = f"{name}-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
    worker = spawn(
        stack,
        [
            sys.executable, "-m", "celery", "-A", "casino", "worker", "-Q", every_queue(),
            "-n", node, "--concurrency", str(concurrency), "--without-gossip",
            "--without-mingle", "-l", "INFO",
        ],
        env,
        log,
    )  # fmt: skip
    wait_until(lambda: b" ready." in log.read_bytes(), 60, f"worker {node} ready", log, worker)
    return worker


def beat_start(stack: ExitStack, env: dict[str, str], log: Path) -> subprocess.Popen:
    """``celery beat`` (its schedule file under CASINO_DATA_DIR)."""
    beat = spawn(
        stack, [sys.executable, "-m", "celery", "-A", "casino", "beat", "-l", "INFO"], env, log
    )
    wait_until(lambda: b"beat: Starting" in log.read_bytes(), 60, "beat started", log, beat)
    return beat


def redis_server_binary() -> str:
    """The redis-server binary on PATH (this test runs its own, to restart it)."""
    found = shutil.which("redis-server")
    if found is None:
        raise FileNotFoundError("no redis-server on PATH")
    return found


def redis_server_start(stack: ExitStack, port: int, log: Path) -> subprocess.Popen:
    """Our own redis-server with no persistence: restarted, it comes back empty."""
    server = spawn(
        stack,
        [
            "redis-server", "--port", str(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--daemonize", "no",
        ],
        os.environ.copy(),
        log,
    )  # fmt: skip
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)

    def answers() -> bool:
        try:
            return bool(client.ping())
        except redis.exceptions.ConnectionError:
            return False

    wait_until(answers, 20, f"redis-server on port {port}", log, server)
    return server


def wait_until(
    condition: Callable[[], object],
    timeout: float,
    what: str,
    log: Path | None = None,
    process: subprocess.Popen | None = None,
) -> None:
    """Poll `condition` until it is true; fail naming `what` (with the log) if it never is."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{what}: the process exited {process.returncode}\n{tail(log)}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s\n{tail(log)}")
        time.sleep(0.2)


def tail(log: Path | None, lines: int = 60) -> str:
    if log is None or not log.exists():
        return ""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


# --- the floor ----------------------------------------------------------------------------------


def floor_env(database_url: str, broker_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    """A project process's environment for this test."""
    return project_env(
        DATABASE_URL=database_url,
        CELERY_BROKER_URL=broker_url,
        CASINO_DATA_DIR=str(tmp_path),
        CASINO_SETTLEMENT_STUCK_SECONDS="2",
        CELERY_VISIBILITY_TIMEOUT="600",  # recovery never comes from Redis redelivering
        **extra,
    )


def unheard(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The same process publishing where no worker listens (the filesystem broker in a
    folder of its own): the settlement request is written, its message never arrives."""
    elsewhere = tmp_path / "unheard"
    return {
        **env,
        "CELERY_BROKER_URL": "filesystem://localhost/",
        "CASINO_DATA_DIR": str(elsewhere),
    }


def play_rounds(env: dict[str, str], *args: str, timeout: float = 240) -> dict:
    """``manage.py play_rounds ... --json``; its report."""
    done = manage(env, "play_rounds", "--json", *args, timeout=timeout)
    return json.loads(done.stdout.strip().splitlines()[-1])


PUBLISH = """
import sys
import django

django.setup()
from celery import current_app

for spec in sys.argv[1:]:
    task_id, request_id = spec.split("=")
    current_app.send_task("settlement.round_settle", args=[int(request_id)], task_id=task_id)
"""


def publish(env: dict[str, str], tasks: list[tuple[str, int]]) -> None:
    """Publish settlement tasks (task id, request id) from a fresh project process, in order."""
    subprocess.run(
        [sys.executable, "-c", PUBLISH, *(f"{task}={request}" for task, request in tasks)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=60,
    )


# --- reading back -------------------------------------------------------------------------------


def query(url: str, text: str, *params: object) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        return [tuple(row) for row in conn.execute(text, params).fetchall()]


def scalar(url: str, text: str, *params: object) -> object:
    return query(url, text, *params)[0][0]


def unsettled_requests(url: str) -> list[int]:
    rows = query(url, "SELECT id FROM games_settlementrequest WHERE settled_at IS NULL ORDER BY id")
    return [request for (request,) in rows]


def settlement_results(*logs: Path) -> list[tuple[str, str]]:
    """(task id, what round_settle said) for every settlement task the workers finished."""
    return [
        (m["task"], m["result"])
        for log in logs
        for m in SUCCEEDED.finditer(log.read_text(errors="replace"))
    ]


def received(*logs: Path) -> list[str]:
    return [m["task"] for log in logs for m in RECEIVED.finditer(log.read_text(errors="replace"))]


WORKING = """
import json
import django

django.setup()
from casino.models import Table
from games.services.rounds import working_wagers

print(json.dumps({t.number: sorted(working_wagers(t)) for t in Table.objects.all()}))
"""


# Each finds what breaks a rule of the books: none may find anything.
BROKEN: dict[str, str] = {
    "a round not settled": "SELECT id, status FROM games_round WHERE status <> 'settled'",
    "a round without a settled request": """
        SELECT r.id FROM games_round r
        LEFT JOIN games_settlementrequest q ON q.round_id = r.id
        WHERE q.id IS NULL OR q.settled_at IS NULL OR q.settled_by = ''
    """,
    "a request not settled": "SELECT id FROM games_settlementrequest WHERE settled_at IS NULL",
    "a round without exactly one settlement entry": """
        SELECT r.id, count(e.id) FROM games_round r
        LEFT JOIN games_ledgerentry e ON e.round_id = r.id AND e.kind = 'settlement'
        GROUP BY r.id HAVING count(e.id) <> 1
    """,
    "an entry that does not sum to zero": """
        SELECT entry_id, sum(amount) FROM games_ledgerline
        GROUP BY entry_id HAVING sum(amount) <> 0
    """,
    "a wager resolved twice": """
        SELECT wager_id FROM games_resolution GROUP BY wager_id HAVING count(*) > 1
    """,
    "a wager resolved by a round of another table, or before it was placed": """
        SELECT s.id FROM games_resolution s
        JOIN games_wager w ON w.id = s.wager_id
        JOIN games_round placed ON placed.id = w.round_id
        JOIN games_round r ON r.id = s.round_id
        WHERE r.table_id <> w.table_id OR r.number < placed.number
    """,
    "a resolved wager whose player lines do not add up to its net": """
        SELECT w.ref, s.net, sum(l.amount) FROM games_wager w
        JOIN games_resolution s ON s.wager_id = w.id
        LEFT JOIN games_ledgerline l ON l.wager_id = w.id AND l.account = 'player'
        GROUP BY w.id, w.ref, s.net HAVING coalesce(sum(l.amount), 0) <> s.net
    """,
    # The layout holds the stakes of the wagers not yet resolved (less what a reduction
    # has returned already).
    "a layout that does not hold the stakes still at risk": """
        WITH layout AS (
            SELECT table_id, sum(amount) AS balance FROM games_ledgerline
            WHERE account = 'layout' GROUP BY table_id
        ), reduced AS (
            SELECT wager_id, sum(amount) AS amount FROM games_ledgerline
            WHERE account = 'layout' AND kind = 'stake_reduced' GROUP BY wager_id
        ), at_risk AS (
            SELECT w.table_id, sum(w.amount + coalesce(reduced.amount, 0)) AS stakes
            FROM games_wager w
            LEFT JOIN games_resolution s ON s.wager_id = w.id
            LEFT JOIN reduced ON reduced.wager_id = w.id
            WHERE s.id IS NULL GROUP BY w.table_id
        )
        SELECT t.number, coalesce(layout.balance, 0), coalesce(at_risk.stakes, 0)
        FROM casino_table t
        LEFT JOIN layout ON layout.table_id = t.id
        LEFT JOIN at_risk ON at_risk.table_id = t.id
        WHERE coalesce(layout.balance, 0) <> coalesce(at_risk.stakes, 0)
    """,
}
UNRESOLVED = """
    SELECT t.number, w.ref FROM games_wager w
    JOIN casino_table t ON t.id = w.table_id
    LEFT JOIN games_resolution s ON s.wager_id = w.id
    WHERE s.id IS NULL ORDER BY t.number, w.id
"""


def books_check(url: str, env: dict[str, str]) -> dict[str, int]:
    """Every round settled exactly once, every wager resolved at most once and the books
    balance; returns the counts (rounds, wagers, resolutions)."""
    rounds = scalar(url, "SELECT count(*) FROM games_round")
    assert rounds > 0
    assert scalar(url, "SELECT count(*) FROM games_settlementrequest") == rounds
    broken = {what: rows for what, text in BROKEN.items() if (rows := query(url, text))}
    assert broken == {}
    # A wager not resolved is one the engine says still works at its table once its last
    # round is settled (a Craps Pass or Place bet, a Three Dice Football game bet), and
    # no other: every other wager is resolved.
    working = json.loads(manage(env, "shell", "-c", WORKING).stdout.strip().splitlines()[-1])
    unresolved: dict[str, list[str]] = {}
    for number, ref in query(url, UNRESOLVED):
        unresolved.setdefault(number, []).append(ref)
    expected = {number: refs for number, refs in working.items() if refs}
    assert {number: sorted(refs) for number, refs in unresolved.items()} == expected
    wagers = scalar(url, "SELECT count(*) FROM games_wager")
    resolutions = scalar(url, "SELECT count(*) FROM games_resolution")
    assert resolutions == wagers - sum(len(refs) for refs in unresolved.values())
    return {"rounds": rounds, "wagers": wagers, "resolutions": resolutions}


@pytest.fixture(scope="module")
def demo_floor(tmp_path_factory) -> Iterator[str]:
    """A database migrated with the demo floor loaded (``migrate``, ``load_demo_floor``),
    once per module: each test settles rounds in its own copy. Loading the floor takes
    half a minute or more (the Rules Submissions' PAR sheets), a copy a second."""
    require_postgres()
    with postgres_database() as url:
        env = project_env(DATABASE_URL=url, CASINO_DATA_DIR=str(tmp_path_factory.mktemp("floor")))
        manage(env, "migrate", "--noinput")
        manage(env, "load_demo_floor", "--no-history", timeout=300)  # rounds of its own
        yield url


@contextmanager
def postgres_database_copy(template_url: str) -> Iterator[str]:
    """A new database copied from `template_url`'s (nobody connected to it); dropped after."""
    template = template_url.rsplit("/", 1)[1]
    name = f"casino_it_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template)
            )
        )
    try:
        yield template_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@contextmanager
def floor(
    demo_floor: str, tmp_path: Path, broker_url: str | None = None, **extra: str
) -> Iterator[tuple[ExitStack, str, dict[str, str]]]:
    """(stack, database URL, env): a fresh copy of the demo floor's database, the test
    Redis database as broker (or `broker_url`); the stack stops the test's processes."""
    require_postgres()
    require_redis()
    with ExitStack() as stack:
        database_url = stack.enter_context(postgres_database_copy(demo_floor))
        broker = broker_url or stack.enter_context(redis_database())
        yield stack, database_url, floor_env(database_url, broker, tmp_path, **extra)


# --- the tests ----------------------------------------------------------------------------------


def test_a_settlement_task_delivered_twice_settles_the_round_once(demo_floor, tmp_path):
    with floor(demo_floor, tmp_path) as (_, url, env):
        # A round whose result is entered while no worker runs, its own message lost; its
        # request is then delivered twice before the worker starts.
        report = play_rounds(
            unheard(env, tmp_path), "--rounds", "1", "--tables", "SB-01", "--no-wait"
        )
        assert report["played"] == 1 and report["pending"] == ["SB-01:1"]
        [pending] = unsettled_requests(url)
        publish(env, [(f"twice-{pending}-{n}", pending) for n in (1, 2)])
        log = tmp_path / "worker.log"
        node = f"settle-{uuid.uuid4().hex[:6]}@{socket.gethostname()}"
        with celery_worker(env, log, node):
            wait_until(lambda: len(settlement_results(log)) == 2, 60, "both deliveries", log)
            assert sorted(received(log)) == [f"twice-{pending}-1", f"twice-{pending}-2"]
            assert sorted(r for _, r in settlement_results(log)) == ["already settled", "settled"]
            assert query(
                url, "SELECT settled_by, sends FROM games_settlementrequest WHERE id = %s", pending
            ) == [(node, 1)]

            # Rounds played while the worker runs; then one settled request delivered twice.
            report = play_rounds(env, "--rounds", "2", "--seed", "1", "--timeout", "120")
            assert report["pending"] == [] and report["settled"] == report["played"] >= 20
            settled = scalar(
                url,
                "SELECT q.id FROM games_settlementrequest q JOIN games_round r ON r.id = q.round_id"
                " JOIN casino_table t ON t.id = r.table_id WHERE t.number = 'CR-01'"
                " ORDER BY r.number DESC LIMIT 1",
            )
            before = query(url, "SELECT * FROM games_settlementrequest WHERE id = %s", settled)
            ledger = scalar(url, "SELECT count(*) FROM games_ledgerline")
            publish(env, [(f"again-{settled}-{n}", settled) for n in (1, 2)])
            wait_until(
                lambda: sum(t.startswith("again-") for t, _ in settlement_results(log)) == 2,
                60,
                "the settled request's two deliveries",
                log,
            )
        # Every delivery's acknowledgement reached Redis (casino.broker sends them from the
        # worker's loop a moment later, the last ones as it shut down): none comes back.
        broker = redis.Redis.from_url(env["CELERY_BROKER_URL"])
        assert (broker.hlen("unacked"), broker.zcard("unacked_index")) == (0, 0)
        again = [r for t, r in settlement_results(log) if t.startswith("again-")]
        assert again == ["already settled", "already settled"]
        assert received(log).count(f"again-{settled}-1") == 1
        assert received(log).count(f"again-{settled}-2") == 1
        # The repeat changed nothing.
        assert query(url, "SELECT * FROM games_settlementrequest WHERE id = %s", settled) == before
        assert scalar(url, "SELECT count(*) FROM games_ledgerline") == ledger
        counts = books_check(url, env)
        assert counts["rounds"] == 1 + report["played"]


def test_two_workers_handed_the_same_rounds_at_once_settle_each_once(demo_floor, tmp_path):
    with floor(demo_floor, tmp_path) as (stack, url, env):
        logs = [tmp_path / "worker-a.log", tmp_path / "worker-b.log"]
        for log, name in zip(logs, ("settle-a", "settle-b"), strict=True):
            worker_start(stack, env, log, name, concurrency=2)
        published = 0
        for burst in range(3):
            # One round per table, its result entered, its message lost; then every pending
            # request published twice in a row, to four worker processes.
            report = play_rounds(
                unheard(env, tmp_path), "--rounds", "1", "--no-wait", "--seed", str(burst)
            )
            pending = unsettled_requests(url)
            assert len(pending) == report["played"] >= 8
            publish(env, [(f"b{burst}-{r}-{n}", r) for r in pending for n in (1, 2)])
            published += 2 * len(pending)
            wait_until(lambda: not unsettled_requests(url), 90, f"burst {burst} settled", logs[0])
            wait_until(
                lambda p=published: len(settlement_results(*logs)) == p,
                60,
                f"burst {burst}: every delivery answered",
                logs[1],
            )
        results = settlement_results(*logs)
        assert {r for _, r in results} <= SETTLE_RESULTS, results
        rounds = scalar(url, "SELECT count(*) FROM games_round")
        by_request = Counter(t.split("-")[1] for t, r in results if r == "settled")
        assert len(by_request) == rounds and set(by_request.values()) == {1}
        assert Counter(r for _, r in results)["settled"] == rounds
        # Both workers took part.
        assert all(settlement_results(log) for log in logs)
        for log in logs:
            text = log.read_text()
            assert "ERROR" not in text and "Traceback" not in text, text
        books_check(url, env)


@pytest.mark.parametrize(
    "blocked",
    [
        pytest.param("round", id="waiting-for-the-round-lock"),
        pytest.param("ledger", id="resolutions-written-ledger-entry-waiting"),
    ],
)
def test_a_worker_killed_in_the_middle_of_a_settlement_loses_nothing(demo_floor, tmp_path, blocked):
    with floor(demo_floor, tmp_path) as (stack, url, env):
        # A round with its result entered, no worker yet: its message waits in Redis.
        report = play_rounds(env, "--rounds", "1", "--tables", "SB-01", "--no-wait")
        assert report["pending"] == ["SB-01:1"]
        [(request, round_id, table_id)] = query(
            url,
            "SELECT q.id, r.id, r.table_id FROM games_settlementrequest q"
            " JOIN games_round r ON r.id = q.round_id WHERE q.settled_at IS NULL",
        )
        database = url.rsplit("/", 1)[1]
        log = tmp_path / "worker-killed.log"
        with psycopg.connect(url) as holder:
            # The test holds what the worker's settlement transaction will wait for: the
            # round's row (before anything is written), or the settlement entry's unique
            # key (after the resolutions are written, in the same transaction).
            if blocked == "round":
                holder.execute("SELECT id FROM games_round WHERE id = %s FOR UPDATE", [round_id])
            else:
                holder.execute(
                    "INSERT INTO games_ledgerentry (key, kind, table_id, round_id, posted_at, memo)"
                    " VALUES (%s, 'settlement', %s, %s, now(), 'held by the test')",
                    [f"settlement:{round_id}", table_id, round_id],
                )
            worker = worker_start(stack, env, log, "settle-killed")

            def worker_waits() -> list[tuple]:
                return query(
                    url,
                    "SELECT pid, query FROM pg_stat_activity WHERE datname = %s"
                    " AND wait_event_type = 'Lock' AND pid <> %s",
                    database,
                    holder.info.backend_pid,
                )

            wait_until(worker_waits, 30, "the worker waiting on the test's lock", log, worker)
            [(backend, waiting_on)] = worker_waits()
            assert ("games_round" if blocked == "round" else "games_ledgerentry") in waiting_on
            if blocked == "ledger":  # the resolutions are written, not yet committed
                assert query(
                    url,
                    "SELECT count(*) FROM pg_locks WHERE pid = %s AND relation ="
                    " 'games_resolution'::regclass AND mode = 'RowExclusiveLock'",
                    backend,
                ) == [(1,)]
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
            holder.rollback()
        # The killed worker's transaction dies with its connection: nothing of it stays.
        wait_until(
            lambda: not query(url, "SELECT 1 FROM pg_stat_activity WHERE pid = %s", backend),
            30,
            "the killed worker's backend gone",
        )
        assert unsettled_requests(url) == [request]
        assert scalar(url, "SELECT status FROM games_round WHERE id = %s", round_id) == (
            "result_entered"
        )
        assert scalar(url, "SELECT count(*) FROM games_resolution") == 0
        assert scalar(url, "SELECT count(*) FROM games_ledgerentry WHERE kind = 'settlement'") == 0
        # A new worker alone does not see the message the dead one took (Redis keeps it
        # unacknowledged for the visibility timeout); the sweep sends the round again.
        log = tmp_path / "worker-restarted.log"
        worker_start(stack, env, log, "settle-restarted")
        time.sleep(3)
        assert unsettled_requests(url) == [request]
        swept = manage(env, "settlement_sweep", "--stuck-after", "0")
        assert swept.stdout.startswith("1 "), swept.stdout
        wait_until(lambda: not unsettled_requests(url), 60, "settled after the sweep", log)
        assert [r for _, r in settlement_results(log)] == ["settled"]
        assert query(url, "SELECT sends FROM games_settlementrequest WHERE id = %s", request) == [
            (2,)
        ]
        books_check(url, env)
        assert query(
            url,
            "SELECT count(*) FROM games_ledgerentry WHERE round_id = %s AND kind = 'settlement'",
            round_id,
        ) == [(1,)]


SWEEP_SENT = re.compile(rb"Task monitoring\.settlement_sweep\[[^\]]+\] succeeded")
SWEEP_REFUSED = b"Couldn't apply scheduled task settlement-sweep"


def beat_sweeps_check(beat_log: Path, worker_log: Path, beat: subprocess.Popen) -> None:
    """Beat's settlement sweep reaches the worker (before anything depends on it)."""
    wait_until(
        lambda: (
            SWEEP_SENT.search(worker_log.read_bytes()) or SWEEP_REFUSED in beat_log.read_bytes()
        ),
        30,
        "beat's first settlement sweep",
        beat_log,
        beat,
    )
    refused = SWEEP_REFUSED in beat_log.read_bytes()
    why = [line for line in beat_log.read_text().splitlines() if "settlement-sweep" in line]
    assert not refused, "beat cannot send the settlement sweep:\n" + "\n".join(why[:2])


def test_redis_restarted_empty_during_a_burst_loses_no_round(demo_floor, tmp_path):
    require("redis-server", redis_server_binary, "install it (apt-get install redis-server)")
    port = free_port()
    with ExitStack() as redis_stack:
        server = redis_server_start(redis_stack, port, tmp_path / "redis-1.log")
        broker = f"redis://127.0.0.1:{port}/0"
        sweeps = {"CASINO_SETTLEMENT_SWEEP_SECONDS": "1"}  # beat sweeps every second
        with floor(demo_floor, tmp_path, broker, **sweeps) as (stack, url, env):
            worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
            worker = worker_start(stack, env, worker_log, "settle-burst", concurrency=2)
            beat = beat_start(stack, env, beat_log)
            beat_sweeps_check(beat_log, worker_log, beat)
            out = tmp_path / "play_rounds.out"
            player = spawn(
                stack,
                [
                    sys.executable, "manage.py", "play_rounds", "--rounds", "25", "--json",
                    "--timeout", "240", "--seed", "4",
                ],
                env,
                out,
            )  # fmt: skip
            settled = "SELECT count(*) FROM games_round WHERE status = 'settled'"
            wait_until(
                lambda: scalar(url, settled) >= 20, 60, "a first rounds settled", out, player
            )
            time.sleep(1)
            assert player.poll() is None, "play_rounds ended before Redis was restarted"
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
            at_kill = scalar(url, "SELECT count(*) FROM games_round")
            time.sleep(2)
            redis_server_start(redis_stack, port, tmp_path / "redis-2.log")
            # A supervisor restarts a worker that dies (deploy/: the process manager's
            # restart policy): kombu 5.7's Redis transport can crash the worker's main
            # process when an acknowledgement races the connection's loss. The outbox makes
            # the crash cost time, never a round.
            deadline, restarts = time.monotonic() + 270, 0
            while player.poll() is None and time.monotonic() < deadline:
                if worker.poll() is not None:
                    restarts += 1
                    log = tmp_path / f"worker-{restarts}.log"
                    worker = worker_start(stack, env, log, f"settle-again-{restarts}", 2)
                time.sleep(0.5)
            assert player.wait(timeout=5) == 0, tail(out)
            report = json.loads(out.read_text().strip().splitlines()[-1])
            counts = books_check(url, env)
            assert report["pending"] == []
            assert report["played"] == report["settled"] == counts["rounds"] > at_kill
            assert set(report["tables"].values()) == {25}
            # The sweep sent again what Redis lost (and what could not be sent meanwhile).
            assert scalar(url, "SELECT count(*) FROM games_settlementrequest WHERE sends > 1") > 0


JAM = """
import sys
import django

django.setup()
from decimal import Decimal

from games.models import Resolution, SettlementRequest

# The issue's jam: a Resolution already written for a wager the round decides.
request = SettlementRequest.objects.select_related("round").get(pk=int(sys.argv[1]))
wager = request.round.wagers.order_by("id").first()
event = request.round.events.order_by("-seq").first()
Resolution.objects.create(
    wager=wager, round=request.round, event=event, result="push", net=Decimal("0.00"),
    stake=wager.amount, cite="jam",
)
"""


def test_a_jammed_round_is_an_alert_that_beat_and_the_worker_leave_alone(demo_floor, tmp_path):
    """Issue 18, point 6, on the real path: the sweep sends the jammed round once, the
    worker records the failure, and neither sends nor settles it again."""
    sweeps = {"CASINO_SETTLEMENT_SWEEP_SECONDS": "1"}  # beat sweeps every second
    with floor(demo_floor, tmp_path, **sweeps) as (stack, url, env):
        report = play_rounds(
            unheard(env, tmp_path), "--rounds", "1", "--tables", "SB-01", "--no-wait"
        )
        assert report["pending"] == ["SB-01:1"]
        [jammed] = unsettled_requests(url)
        subprocess.run([sys.executable, "-c", JAM, str(jammed)], cwd=ROOT, env=env, check=True)
        worker_log, beat_log = tmp_path / "worker.log", tmp_path / "beat.log"
        worker_start(stack, env, worker_log, "settle-jam")
        beat = beat_start(stack, env, beat_log)
        failed = "SELECT failures FROM games_settlementrequest WHERE id = %s"
        wait_until(lambda: scalar(url, failed, jammed) == 1, 60, "the failure recorded", beat_log)
        time.sleep(6)  # three times CASINO_SETTLEMENT_STUCK_SECONDS, six sweeps
        assert beat.poll() is None
        row = query(
            url,
            "SELECT sends, failures, failure_kind, settled_at FROM games_settlementrequest"
            " WHERE id = %s",
            jammed,
        )
        assert row == [(2, 1, "integrity", None)]  # the lost first send, the sweep's one
        error = scalar(url, "SELECT error FROM games_settlementrequest WHERE id = %s", jammed)
        assert error.startswith("IntegrityError: duplicate key value violates unique constraint")
        assert len(received(worker_log)) == 1
        assert "failed: IntegrityError" in worker_log.read_text(errors="replace")
        round_id = scalar(url, "SELECT round_id FROM games_settlementrequest WHERE id = %s", jammed)
        status = scalar(url, "SELECT status FROM games_round WHERE id = %s", round_id)
        assert status == "result_entered"
        entry = "SELECT id FROM games_ledgerentry WHERE key = %s"
        assert query(url, entry, f"settlement:{round_id}") == []
