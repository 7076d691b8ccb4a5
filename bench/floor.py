"""A whole floor, simulated: N tables dealt at a dealer's cadence through the REST API, settled
by real Celery workers, the settlements pushed to the dealers by webhook, the devices beating
through `manage.py simulate_devices`.

    .venv/bin/python bench/floor.py [--tables 1,20,100] [--seconds 120] [--period 30,60]
        [--speed 1] [--deal electronic,terminal] [--dealers 2] [--idle 10] [--concurrency 2]
        [--web 5] [--web-maxconn 3] [--devices-web 2] [--simulators 2] [--hooks 2]
        [--overload] [--quick] [--keep]

Needs PostgreSQL at 127.0.0.1:5432 (user postgres, trust), Redis at 127.0.0.1:6379 and
Debian's HAProxy: a throwaway database casino_bench_floor_<random> (dropped at the end unless
--keep) and Redis database 10 (the broker, the cache and the heartbeat store; emptied at the
start and end).

Setup, not timed: the demo floor (casino.demo.demo_floor_load), then max(--tables) tables
copied from its tables in turn (TEMPLATES: every game, Mini-Craps, the automated Sic Bo
shaker, the Pai Gow generator, High Roll Dice's Extra Roll devices, the electronic Craps
table, Power Odds): the table, its box location approval, its sets in play (put in play an
hour ago) and inspections as settlement.py copies them, and its devices registered through
`device_register`, each saying hello once. The token comes from `manage.py api_token_issue`;
the dealers' webhook endpoint (round.settled) is registered through the service.
The stack is the one deploy/ runs: HAProxy (deploy/haproxy.cfg) in front of gunicorn
(casino.wsgi) and the devices' own gunicorn (casino.wsgi_devices), a settlement worker,
the monitoring worker with beat, the webhooks worker, and `simulate_devices --processes`
sending side by side through the devices' way in.

Timed: first --idle seconds with nothing dealt (the devices beat: the idle CPU), then, for
each count in --tables and each way in --deal, the first N tables dealt for --seconds by
--dealers processes (a thread a table, one HTTP connection each, through HAProxy). A table's
round every --period seconds (a random length between the two; divided by --speed): open
the round; the wagers (games.demo_rounds.PLANS; Craps here: pass, field, a place and a
hardway; whatever the engine refuses is dropped and the rest offered again): `electronic`,
a table that reads its layout sends the round's wagers in one request when betting ends;
`terminal`, a dealer's terminal sends each player's wagers together, the six players over
half the round; no more bets; the result (an automated shaker's dice and a generator's
number come from simulate_devices), Pai Gow's settings by the house way and the reveal;
then the dealer waits for the round.settled webhook (a GET only if none comes in 60 s, a
problem). A request HAProxy sheds (503 `overloaded`) is sent again after its Retry-After
with the same Idempotency-Key. Every request's answer and time are kept; a probe sends GET
/health/ every 0.5 s beside the dealers (the API baseline).

Reported per run: rounds dealt, result to settled (p50/p99), the API's p99 (all requests
taken, wagers), /health/'s p99 beside it, the slowest answer, the requests shed, the
heartbeat lag (now - the store's last heartbeat, sampled every second over every device, p99,
and p99 of lag / the device's own interval), devices gone stale, tables suspended; the CPU
(/proc) of each of the floor's process groups and its clients (the simulator, the dealers)
next to the idle floor's and the machine's (/proc/stat: everyone's), the floor's CPU a
round; the resident memory of each group and Redis's used_memory every 5 s, with the slope
after the first third of the run; the requests a round. The machine is shared: compare
ratios.

Checks (exit 1): every round dealt is settled, each wager resolved at most once, one
settlement entry a round, every ledger entry of these rounds sums to zero, each player's
lines equal the resolution's net, no 5xx but the balancer's `overloaded`, no failed
connection, every settlement pushed; with --overload also no device stale, no table
suspended and no answer over a second. --quick: 3 tables at --speed 20 for 8 s, both ways
of dealing, the same checks.
"""

import argparse
import http.client
import http.server
import json
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import psycopg  # noqa: E402 - after sys.path, like the other benchmarks
import redis  # noqa: E402
from api import CLOCK_TICK, Sampler, gunicorn_start, machine_busy, redis_cpu  # noqa: E402
from engines import machine  # noqa: E402 - bench/ is not a package: found through sys.path
from heartbeats import RUNNING, children, free_port, group_start, group_stop, tail  # noqa: E402
from settlement import (  # noqa: E402
    CHECKS,
    BenchFailure,
    clone,
    database_create,
    database_drop,
    django_ready,
    project_env,
    workers_start,
    workers_stop,
)
from settlement import RUNNING as SETTLING  # noqa: E402

REDIS_URL = "redis://127.0.0.1:6379/10"  # the benchmark's own database: emptied
INTEGRATOR = "bench-floor"  # the dealers' user: the REST API's integrator role
# The demo's tables copied in turn (TD-02 is closed with no set; MC-01's copies get sets in date).
TEMPLATES = ("CR-01", "SB-02", "PG-01", "HR-01", "TD-01", "MC-01", "HR-02", "SB-01", "EC-01",
             "PG-02", "CR-02")  # fmt: skip
DEVICE_FIELDS = ("kind", "manufacturer", "firmware", "position", "approved_at")  # copied as is
REF = re.compile(r"^\d+\.(\d+): ")  # a refused wager's would-be ref, ROUND.N
SETTLE_WAIT = 60.0  # seconds a dealer (and the checks) wait for a round to be settled
WEB_THREADS = 4  # deploy/gunicorn.conf.py's WEB_THREADS: a web process's requests at once
DEVICES_APP = "casino.wsgi_devices"  # the devices' own web process (deploy/Procfile: devices)
SHED = 0  # the status an answer is kept with when the balancer shed it (503 `overloaded`)


# --- setup: the floor, copied through the services -------------------------------------------


def tables_make(count: int, now: Any) -> list[dict[str, Any]]:
    """The demo floor and `count` tables copied from TEMPLATES, each able to start a round."""
    from django.contrib.auth import get_user_model

    from casino.actors import acting_as
    from casino.demo import OPS_USERNAME, demo_floor_load
    from casino.models import EquipmentSet, Table
    from devices.services import device_register
    from devices.store import store
    from gaming.devices import devices_watch
    from gaming.tables import round_start_refusals

    holder = demo_floor_load(now)
    ops = get_user_model().objects.get(username=OPS_USERNAME)
    templates = {t.number: t for t in Table.objects.filter(holder=holder, number__in=TEMPLATES)}
    made, hour_ago = [], now - timedelta(hours=1)
    with acting_as(ops):
        for index in range(count):
            template = templates[TEMPLATES[index % len(TEMPLATES)]]
            number = f"{template.number}-{index + 1:03d}"
            table = clone(template, number=number, status=Table.Status.OPEN)
            table.status_changed_at = hour_ago - timedelta(hours=1)
            table.save()
            clone(template.location_approvals.latest("approved_at"), table=table).save()
            for row in template.sets_in_play.filter(removed_at__isnull=True):
                kept = EquipmentSet.objects.get(pk=row.equipment_set_id)
                copied = clone(kept, identifier=f"{number}-{row.composition}")
                copied.save()
                shift = hour_ago - row.put_in_play_at
                in_play = clone(row, table=table, equipment_set=copied, put_in_play_at=hour_ago)
                in_play.due_at, in_play.warn_from = row.due_at + shift, row.warn_from + shift
                in_play.schedule_state = "in_date"
                in_play.save()
                for inspection in row.tile_inspections.all():
                    clone(inspection, set_in_play=in_play, inspected_at=hour_ago).save()
            for inspection in template.sic_bo_inspections.all():
                clone(inspection, table=table, inspected_at=hour_ago).save()
            for device in template.devices.exclude(status="retired"):
                same = {f: getattr(device, f) for f in DEVICE_FIELDS}
                serial, reference = device.serial_number, device.approval_reference
                issued = device_register(
                    table,
                    **same,
                    by=ops,
                    now=hour_ago,
                    serial_number=f"{serial}-{index + 1:03d}",
                    approval_reference=f"{reference}-{index + 1:03d}",
                )
                nonce = f"bench-hello-{issued.device.pk}"  # switched on: one heartbeat
                store().heartbeat(
                    issued.device.pk, device.kind, issued.key_id, nonce, now.timestamp()
                )
            made.append(table)
    devices_watch(now)
    for table in made:
        refusals = round_start_refusals(table, now)
        if refusals:
            raise BenchFailure(f"{table.number} may not start a round: {refusals}")
    return [table_info(t) for t in made]


def table_info(table: Any) -> dict[str, Any]:
    """What a dealer process needs to know of a table (plain values: no database there)."""
    kinds = set(table.devices.values_list("kind", flat=True))
    return {
        "id": table.pk,
        "number": table.number,
        "game": table.game,
        "variant": table.variant,
        "min": str(table.min_wager),
        "rng": "pai_gow_rng" in kinds,
        "shaker": table.automated_shaker and "automated_shaker" in kinds,
    }


def token_issue(env: dict[str, str]) -> str:
    """An integrator of our own (production refuses the demo's) and its token, as an operator
    issues it: `manage.py api_token_issue`."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from casino.demo import DEMO_HOLDER, OPS_USERNAME

    integrator = get_user_model().objects.create_user(INTEGRATOR, f"{INTEGRATOR}@example.com")
    integrator.groups.add(Group.objects.get(name="integrator"))
    argv = [sys.executable, "manage.py", "api_token_issue", "--user", INTEGRATOR, "--by"]
    argv += [OPS_USERNAME, "--holder", DEMO_HOLDER, "--name", "bench/floor.py"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise BenchFailure(f"api_token_issue exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout.strip().splitlines()[-1]


# --- a dealer: one thread a table, everything through the REST API ---------------------------


@dataclass
class Dealt:
    """What a dealer thread saw: every answer, the rounds dealt, what went wrong."""

    deal: str = "terminal"  # how the table sends its wagers (round_deal)
    inbox: Any = None  # the settlements pushed to this dealer process (Inbox)
    answers: list[tuple[str, float, int]] = field(default_factory=list)  # (what, ms, status)
    rounds: list[int] = field(default_factory=list)
    notes: Counter = field(default_factory=Counter)  # what happened on the floor
    problems: Counter = field(default_factory=Counter)  # what breaks the checks
    suspended: int = 0  # rounds refused because the rules suspended the table
    cpu: float = 0.0

    def absorb(self, other: "Dealt") -> None:
        self.answers += other.answers
        self.rounds += other.rounds
        self.notes.update(other.notes)
        self.problems.update(other.problems)
        self.suspended += other.suspended

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "inbox": None}  # sent back by pipe without its inbox


class Inbox:
    """A dealer process's settled rounds, as the floor pushed them: the webhook receiver
    (`Receiver`, in the bench's own process) puts each round.settled's round id on this
    process's queue, and one thread here wakes the dealer waiting on it."""

    def __init__(self, queue: Any) -> None:
        self.queue, self.lock = queue, threading.Lock()
        self.events: dict[int, threading.Event] = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _event(self, round_id: int) -> threading.Event:
        with self.lock:
            return self.events.setdefault(round_id, threading.Event())

    def _read(self) -> None:
        while (round_id := self.queue.get()) is not None:
            self._event(round_id).set()

    def wait(self, round_id: int, timeout: float) -> bool:
        settled = self._event(round_id).wait(timeout)
        with self.lock:
            self.events.pop(round_id, None)
        return settled


class Receiver(threading.Thread):
    """The dealers' webhook endpoint: round.settled, its Standard Webhooks signature
    verified, its round id sent to the dealer process dealing that table."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.queues: list[Any] = []
        self.dealer_of: dict[int, int] = {}  # table id -> index into queues
        self.verifier: Any = None
        self.counts: Counter = Counter()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(receiver.take(body, dict(self.headers.items())))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def run(self) -> None:
        self.server.serve_forever(poll_interval=0.5)

    def take(self, body: bytes, headers: dict[str, str]) -> int:
        try:
            event = self.verifier.verify(body, headers)
        except Exception:  # a bad signature: refused, counted
            self.counts["refused: bad signature"] += 1
            return 400
        self.counts[event["type"]] += 1
        round_ = event["data"]["round"]
        dealer = self.dealer_of.get(round_["table"])
        if dealer is not None:
            self.queues[dealer].put(round_["id"])
        return 204

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# HAProxy closes a kept-alive connection idle this long (`timeout http-keep-alive`,
# deploy/haproxy.cfg): a dealer between rounds waits longer, so it opens a new connection
# rather than write to one the balancer has closed.
SERVER_KEEPALIVE = 10.0
# A request shed (HAProxy's 503 `overloaded`: it never reached Django) is sent again after
# Retry-After with the same Idempotency-Key, for this long at most.
SHED_PATIENCE = 120.0


class Api:
    """One table's connection to the floor (through the balancer); every answer timed; a
    failed connection retried with the same Idempotency-Key (what the key is for), and so is
    a request the floor shed, after its Retry-After. A connection idle for nearly the
    balancer's keep-alive is closed first, as a client that knows its server does."""

    def __init__(self, port: int, key: str, dealt: Dealt) -> None:
        self.port, self.dealt = port, dealt
        self.headers = {
            "Host": "127.0.0.1",
            "Accept": "application/json",
            "Authorization": f"Bearer {key}",
        }
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.used = 0.0  # time.monotonic() of the last answer

    def call(self, what: str, path: str, body: object = None, method: str = "POST") -> tuple:
        headers = dict(self.headers)
        data = None
        if method == "POST":
            headers["Idempotency-Key"] = uuid.uuid4().hex
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode() if body is not None else b""
        failed, patience = 0, time.monotonic() + SHED_PATIENCE
        while failed < 3:
            if time.monotonic() - self.used > SERVER_KEEPALIVE - 0.5:
                self.connection.close()  # http.client opens a new one on the next request
            tick = time.perf_counter()
            try:
                self.connection.request(method, path, data, headers)
                response = self.connection.getresponse()
                answer = response.read()
            except (OSError, http.client.HTTPException) as error:
                self.connection.close()
                self.dealt.problems[f"failed connection: {type(error).__name__}"] += 1
                failed += 1
                continue
            ms = 1e3 * (time.perf_counter() - tick)
            self.used = time.monotonic()
            if response.will_close:
                self.connection.close()
            if response.status == 503 and b'"overloaded"' in answer:
                self.dealt.answers.append((what, ms, SHED))
                if time.monotonic() > patience:
                    self.dealt.problems[f"{what}: shed for {SHED_PATIENCE:.0f} s"] += 1
                    return 0, None
                wait = float(response.getheader("Retry-After") or 1)
                time.sleep(wait * random.uniform(1.0, 1.5))  # jittered: not all at once
                continue
            self.dealt.answers.append((what, ms, response.status))
            return response.status, json.loads(answer or b"null")
        return 0, None


def pause_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def craps_plan(round_: Any, rng: random.Random) -> list[dict[str, object]]:
    """A regular's Craps wagers (demo_rounds' without odds, which need the engine state)."""
    base = Decimal(round_.options["min_wager"])
    plan = []
    for n, player in enumerate(("p1", "p2", "p3", "p4", "p5", "p6"), start=1):
        for kind in ("pass", "field", f"place:{rng.choice((6, 8))}", f"hard:{rng.choice((4, 8))}"):
            amount = base * (6 if kind.startswith("place") else rng.choice((1, 2, 4)))
            wager = {"player": player, "kind": kind, "amount": str(amount)}
            plan.append({**wager, "seat": n} if round_.table.variant == "mini_craps" else wager)
    return plan


def wagers_offer(api: Api, path: str, wagers: list[dict], before: int, dealt: Dealt) -> list:
    """One player's wagers, dropping each the engine refuses (by its ref, ROUND.N)."""
    while wagers:
        status, answer = api.call("wagers", path + "wagers/", {"wagers": wagers})
        if status == 201:
            return answer["wagers"]
        reasons = (answer or {}).get("reasons", []) if status == 422 else []
        bad = {int(m.group(1)) - before - 1 for r in reasons if (m := REF.match(r))}
        if not bad:
            dealt.notes[f"wagers answered {status}: {str(answer)[:120]}"] += 1
            return []
        dealt.notes["wagers refused by the engine, dropped and the rest offered again"] += 1
        wagers = [w for i, w in enumerate(wagers) if i not in bad]
    return []


def round_wait(api: Api, path: str, done: Any, poll: float = 0.25) -> dict | None:
    """The round once `done(round)`, polled; None after SETTLE_WAIT."""
    deadline = time.time() + SETTLE_WAIT
    while time.time() < deadline:
        status, round_ = api.call("poll", path, method="GET")
        if status == 200 and done(round_):
            return round_
        time.sleep(poll)
    return None


def result_enter(api: Api, t: dict, path: str, round_: dict, placed: list, rng: random.Random):
    """The dice or tiles, as the table's dealer (or its device) gives them."""
    from games.rules.high_roll_dice.settlement import read_first_roll
    from games.rules.pai_gow.deal import deal_from_payload
    from games.rules.pai_gow.house_way import house_way
    from games.rules.pai_gow.tiles import TILE_SET, tiles_text
    from games.rules.registry import engine_get

    def dice(count: int) -> list[int]:
        return [rng.randint(1, 6) for _ in range(count)]

    def result(event: str, payload: object) -> dict:
        return api.call("result", path + "result/", {"event": event, "payload": payload})[1]

    game = t["game"]
    if game == "sic_bo" and t["shaker"]:
        return  # the shaker throws (simulate_devices): the settlement is pushed
    if game == "sic_bo" or game == "craps":
        if round_["options"].get("power_odds") is True:  # its generator selects first (§ 623b.5(c))
            round_wait(api, path, lambda r: "throw" in r["next"]["events"], poll=0.2)
        result("throw", dice(3 if game == "sic_bo" else 2))
    elif game == "three_dice_football":
        result("throw", {"green": dice(2), "red": rng.randint(1, 6)})
    elif game == "high_roll_dice":
        faces = dice(int(round_["options"].get("dice", 10)))
        if (result("throw", faces) or {}).get("status") == "closed":  # an Extra Roll bought
            result("extra_roll", dice(read_first_roll(faces).rethrown))
    else:  # Pai Gow: the deal, each player's setting by the house way, the reveal
        payload: dict[str, object] = {"dice": dice(3)}
        if t["rng"]:  # the generator posts the starting number (simulate_devices)
            seen = round_wait(
                api, path, lambda r: any(e["event"] == "rng_number" for e in r["events"]), 0.5
            )
            numbers = [
                e["payload"] for e in (seen or {}).get("events", []) if e["event"] == "rng_number"
            ]
            if not numbers:
                api.dealt.notes["no generator number within 60 s (its device stale?)"] += 1
                return
            number = numbers[0]
            payload = {"rng": number}
        tiles = [str(tile) for tile, count in TILE_SET.items() for _ in range(count)]
        rng.shuffle(tiles)
        payload["stacks"] = [tiles[i : i + 4] for i in range(0, 32, 4)]
        engine = engine_get("pai_gow")
        positions = {str(w["extra"]["position"]) for w in placed}
        hands = deal_from_payload(
            engine.parse_options(round_["options"]), payload, positions, None
        ).hands
        result("deal", {k: v for k, v in payload.items() if k != "rng"})
        settings = {}
        for wager in placed:
            setting = house_way(list(hands[str(wager["extra"]["position"])]))
            settings[wager["ref"]] = {
                "high": tiles_text(setting.high),
                "low": tiles_text(setting.low),
            }
        result("set", settings)
        result("reveal", True)


def round_deal(t: dict, api: Api, rng: random.Random, start: float, length: float, dealt: Dealt):
    """One round at the table, from its opening to its settlement, dealt as `dealt.deal` says:
    `electronic`, a table that reads its layout sends the round's wagers at once when betting
    ends; `terminal`, a dealer's terminal sends each player's wagers together, the players
    one after another over the betting."""
    from games.demo_rounds import PLANS

    status, round_ = api.call("open", "/api/v1/rounds/", {"table": t["id"]})
    if status != 201:
        detail = str((round_ or {}).get("detail", round_))
        if status == 422 and "suspended" in detail:  # a device went stale: its operator reopens
            reopened = api.call("reopen", f"/api/v1/tables/{t['id']}/open/")[0] == 200
            dealt.notes[f"a table suspended, {'reopened' if reopened else 'not reopened'}"] += 1
            dealt.suspended += 1
        else:
            dealt.notes[f"open answered {status}: {detail[:160]}"] += 1
        return
    path = f"/api/v1/rounds/{round_['id']}/"
    stand_in = SimpleNamespace(
        options={**round_["options"], "min_wager": t["min"]},
        game=t["game"],
        table=SimpleNamespace(variant=t["variant"]),
    )
    plan = craps_plan(stand_in, rng) if t["game"] == "craps" else PLANS[t["game"]](stand_in, rng)
    placed: list[dict] = []
    # The players wager over half the round; simulate_devices' shaker and generator report
    # once "no more bets" is called.
    window = length / 2
    if dealt.deal == "electronic":
        pause_until(start + window)
        placed += wagers_offer(api, path, plan, 0, dealt)
    else:
        players: dict[str, list[dict]] = defaultdict(list)
        for wager in plan:
            players[str(wager["player"])].append(wager)
        for n, wagers in enumerate(players.values(), start=1):
            pause_until(start + n * window / len(players))
            placed += wagers_offer(api, path, wagers, len(placed), dealt)
    api.call("no more bets", path + "no-more-bets/")
    dealt.rounds.append(round_["id"])
    result_enter(api, t, path, round_, placed, rng)
    if dealt.inbox.wait(round_["id"], SETTLE_WAIT):
        return
    # Not pushed in time: the dealer asks, as an integrator whose webhook is late would.
    status, seen = api.call("poll", path, method="GET")
    if status == 200 and seen["status"] == "settled":
        dealt.problems["a round settled but not pushed within 60 s"] += 1
    else:
        dealt.problems["a round not settled after 60 s (seen by its dealer)"] += 1


def table_run(t: dict, port: int, key: str, until: float, period: tuple, seed: int, dealt: Dealt):
    """The table's rounds, one every `period` (a random length), until `until`."""
    rng = random.Random(seed)
    api = Api(port, key, dealt)
    start = time.time() + rng.uniform(0, period[0])  # the tables' rounds spread out
    while start < until:
        pause_until(start)
        length = rng.uniform(*period)
        try:
            round_deal(t, api, rng, start, length, dealt)
        except Exception as error:  # counted, and the table plays on
            dealt.problems[f"dealer error: {type(error).__name__}: {str(error)[:120]}"] += 1
        start = max(start + length, time.time())


def health_probe(port: int, until: float, dealt: Dealt) -> None:
    """GET /health/ every 0.5 s beside the dealers: the API's own baseline."""
    api = Api(port, "", dealt)
    while time.time() < until:
        api.call("health", "/health/", method="GET")
        time.sleep(0.5)


def dealer_main(
    tables: list[dict],
    probe: bool,
    port: int,
    key: str,
    until: float,
    deal: str,
    queue: Any,
    args: Any,
    sender: Any,
) -> None:
    """A dealer process: a thread a table (and the probe), its Dealt sent back by pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    inbox = Inbox(queue)
    each = [Dealt(deal, inbox) for _ in tables]  # a Dealt a thread: no counter shared
    threads = [
        threading.Thread(
            target=table_run, args=(t, port, key, until, args.period_s, args.seed + t["id"], one)
        )
        for t, one in zip(tables, each, strict=True)
    ]
    if probe:
        each.append(Dealt(deal))
        threads.append(threading.Thread(target=health_probe, args=(port, until, each[-1])))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    dealt = Dealt(deal)
    for one in each:
        dealt.absorb(one)
    dealt.cpu = time.process_time()
    sender.send(dealt)
    sender.close()


# --- measuring while the floor plays --------------------------------------------------------


class GroupSampler(Sampler):
    """api.py's Sampler (gunicorn's workers as web, this database's backends as db) and the
    other process groups: each leader and its children (a pool, beat). Every MEMORY_EVERY
    seconds, the resident memory of each group and Redis's used_memory too."""

    MEMORY_EVERY = 5.0

    def __init__(self, url: str, web: int, groups: dict[str, list[int]], broker: Any) -> None:
        self.groups, self.broker = groups, broker
        self.memory: list[tuple[float, dict[str, float]]] = []  # (t, MB by group)
        self.biggest: dict[str, float] = defaultdict(float)  # MB, the largest one process
        self.memory_next = 0.0
        super().__init__(url, web)

    def pids(self) -> list[tuple[str, int]]:
        found = [("db" if who == "pg" else who, pid) for who, pid in super().pids()]
        for name, leaders in self.groups.items():
            found += [(name, pid) for leader in leaders for pid in (leader, *children(leader))]
        return found

    def sample(self, initial: bool = False) -> None:
        super().sample(initial)
        if time.monotonic() >= self.memory_next:
            self.memory_next = time.monotonic() + self.MEMORY_EVERY
            self.memory.append((time.monotonic(), self.resident()))

    def resident(self) -> dict[str, float]:
        """MB resident by group (/proc VmRSS; PostgreSQL's backends are left out: their
        RSS counts the shared buffers they touched), and Redis's used_memory."""
        mb: dict[str, float] = defaultdict(float)
        for who, pid in self.pids():
            if who == "db":
                continue
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
            if found:
                one = int(found.group(1)) / 1024
                mb[who] += one
                self.biggest[who] = max(self.biggest[who], one)
        mb["redis"] = self.broker.info("memory")["used_memory"] / 2**20
        return mb

    def stop(self) -> dict[str, float]:
        self.halt.set()
        self.join()
        self.sample()
        self.db.close()
        spent: dict[str, float] = defaultdict(float)
        for who, ticks in self.last.items():
            spent[who[0]] += (ticks - self.first[who]) / CLOCK_TICK
        spent["machine"] = machine_busy() - self.machine
        return spent


class LagSampler(threading.Thread):
    """Every second, now - each device's last heartbeat in the store (Redis), and that lag
    over the device's own interval."""

    def __init__(self, devices: dict[int, tuple[str, float]]) -> None:
        super().__init__(daemon=True)
        self.devices, self.halt = devices, threading.Event()
        self.lags: list[float] = []
        self.ratios: list[float] = []
        self.unheard = 0

    def run(self) -> None:
        from devices.store import store

        kinds = {kind for kind, _ in self.devices.values()}
        while not self.halt.wait(1.0):
            seen: dict[int, float] = {}
            for kind in kinds:
                seen.update(store().seen(kind))
            now = time.time()
            for device, (_, interval) in self.devices.items():
                if device not in seen:
                    self.unheard += 1
                    continue
                self.lags.append(now - seen[device])
                self.ratios.append((now - seen[device]) / interval)

    def stop(self) -> "LagSampler":
        self.halt.set()
        self.join()
        return self


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(q * len(ordered) + 0.999999) - 1)] if ordered else float("nan")


@dataclass
class Run:
    """One floor size's figures, dealt one way."""

    tables: int
    seconds: float
    deal: str = ""
    rounds: int = 0
    settle: list[float] = field(default_factory=list)  # s, result_at to settled_at
    answers: list[tuple[str, float, int]] = field(default_factory=list)
    lag: LagSampler | None = None
    cpu: dict[str, float] = field(default_factory=dict)  # seconds
    memory: list[tuple[float, dict[str, float]]] = field(default_factory=list)
    biggest: dict[str, float] = field(default_factory=dict)
    stale: int = 0
    suspended: int = 0  # tables the rules suspended (a device stale) during the run
    pushed: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    problems: Counter = field(default_factory=Counter)

    def ms(self, what: set[str] | None, q: float) -> float:
        """The q-th answer time of the requests the floor took (shed ones apart)."""
        ok = [ms for w, ms, s in self.answers if (what is None or w in what) and s != SHED]
        return percentile(ok, q)

    def cores(self, group: str) -> float:
        return self.cpu.get(group, 0.0) / self.seconds

    def name(self) -> str:
        return f"{self.tables} {self.deal}" if self.tables else "idle"


# The floor's own processes, then its clients (the dealers, the devices' simulator).
FLOOR = ("web", "devweb", "settle", "monitor", "hooks", "db", "redis", "lb")
CLIENTS = ("sim", "dealers")
GROUPS = FLOOR + CLIENTS
API = {"open", "wagers", "no more bets", "result", "poll"}


def floor_play(
    tables: list[dict], deal: str, port: int, key: str, url: str, procs: dict, args: Any
) -> Run:
    """The tables dealt for --seconds (nothing dealt when `tables` is empty: the idle floor)."""
    from django.db import connections

    from casino.models import Table
    from devices.models import Device, DeviceEvent

    connections.close_all()  # the forked dealers use none
    seconds = args.seconds if tables else args.idle
    until = time.time() + seconds
    context, started = multiprocessing.get_context("fork"), []
    run = Run(len(tables), seconds, deal)
    receiver = args.receiver
    dealers = min(args.dealers, max(1, len(tables)))
    receiver.queues = [context.Queue() for _ in range(dealers)]
    receiver.dealer_of = {t["id"]: i % dealers for i, t in enumerate(tables)}
    pushed_before = Counter(receiver.counts)
    begun = time.time()
    try:
        for index in range(dealers if tables else 0):
            out, sender = context.Pipe(duplex=False)
            mine = tables[index::dealers]
            queue = receiver.queues[index]
            process = context.Process(
                target=dealer_main,
                daemon=True,
                args=(mine, index == 0, port, key, until, deal, queue, args, sender),
            )
            process.start()
            sender.close()
            started.append((process, out))
        devices = {
            pk: (kind, float(args.intervals[kind]))
            for pk, kind in Device.objects.filter(status="active").values_list("pk", "kind")
        }
        connections.close_all()
        run.lag = LagSampler(devices)
        broker = redis.Redis.from_url(REDIS_URL)
        others = {k: v for k, v in procs.items() if k != "web"}
        cpu = GroupSampler(url, procs["web"], others, broker)
        redis_before = redis_cpu(broker)
        run.lag.start()
        cpu.start()
        dealt = []
        if started:
            dealt = [out.recv() for _, out in started]
        else:
            time.sleep(seconds)
        run.cpu = cpu.stop()
        run.memory, run.biggest = cpu.memory, dict(cpu.biggest)
        run.cpu["redis"] = redis_cpu(broker) - redis_before
        run.lag.stop()
    finally:
        for queue in receiver.queues:
            queue.put(None)
        for process, out in started:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
            out.close()
    run.seconds = time.time() - begun  # the dealers' last rounds end after --seconds
    for one in dealt:
        run.answers += one.answers
        run.notes.update(one.notes)
        run.problems.update(one.problems)
        run.suspended += one.suspended
        run.cpu["dealers"] = run.cpu.get("dealers", 0.0) + one.cpu
    ids = [r for one in dealt for r in one.rounds]
    run.rounds = len(ids)
    run.settle, problems = rounds_check(url, ids)
    run.problems.update(problems)
    run.pushed = Counter(receiver.counts) - pushed_before
    since = datetime.fromtimestamp(begun, UTC)
    run.stale = DeviceEvent.objects.filter(kind="stale", at__gte=since).count()
    run.suspended += Table.objects.filter(
        status=Table.Status.SUSPENDED, status_changed_at__gte=since
    ).count()
    return run


def rounds_check(url: str, ids: list[int]) -> tuple[list[float], list[str]]:
    """Result-to-settled times, once every round is settled (up to SETTLE_WAIT), and what
    settlement.py's checks find wrong (one resolution a wager is not asked: a Craps bet
    stays working into the next round)."""
    problems: list[str] = []
    with psycopg.connect(url, autocommit=True) as db:
        deadline = time.time() + SETTLE_WAIT
        while ids and time.time() < deadline:
            left = db.execute(
                "SELECT count(*) FROM games_round WHERE id = ANY(%s) AND status <> 'settled'",
                (ids,),
            ).fetchone()[0]
            if not left:
                break
            time.sleep(0.5)
        for what, query in CHECKS.items():
            if what != "wagers without a resolution":
                count = db.execute(query, {"ids": ids}).fetchone()[0]
                if count:
                    problems.append(f"{count} {what}")
        rows = db.execute(
            "SELECT extract(epoch FROM settled_at - result_at) FROM games_round"
            " WHERE id = ANY(%s) AND settled_at IS NOT NULL",
            (ids,),
        ).fetchall()
    return [float(r[0]) for r in rows], problems


# --- the run ---------------------------------------------------------------------------------


def celery_start(
    name: str, queues: str, concurrency: int, env: dict[str, str], logs: Path, beat: bool = False
) -> Any:
    """A Celery worker on `queues` (with beat inside it when `beat`), once it says ready."""
    log = logs / f"{name}.log"
    argv = [sys.executable, "-m", "celery", "-A", "casino", "worker", *(["-B"] if beat else [])]
    argv += ["-Q", queues, "-n", f"bench-{name}@%h", "--concurrency", str(concurrency)]
    argv += ["--without-gossip", "--without-mingle", "-l", "INFO"]
    process = group_start(argv, {**env, "CASINO_LOG_LEVEL": "INFO"}, log)
    deadline = time.monotonic() + 60
    while b" ready." not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            raise BenchFailure(f"the {name} worker did not start:\n{tail(log)}")
        time.sleep(0.1)
    return process


def balancer_start(web: int, devices: int, logs: Path, args: Any) -> tuple[Any, int, int]:
    """deploy/haproxy.cfg in front of the web and the devices' web: the API's way in and the
    devices' own, once each answers through it (its health checks have found the server)."""
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(haproxy).exists():
        raise BenchFailure("haproxy is not installed: apt-get install haproxy (deploy/haproxy.cfg)")
    floor_port, devices_port = free_port(), free_port()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "FLOOR_BIND": f"127.0.0.1:{floor_port}",
        "DEVICES_BIND": f"127.0.0.1:{devices_port}",
        "WEB_SERVER": f"127.0.0.1:{web}",
        "DEVICES_SERVER": f"127.0.0.1:{devices}",
        "WEB_MAXCONN": str(args.web_maxconn),
        "DEVICES_MAXCONN": str(args.devices_web * WEB_THREADS),
        "PROBE_HOST": "127.0.0.1",
    }
    process = group_start(
        [haproxy, "-db", "-f", str(ROOT / "deploy/haproxy.cfg")], env, logs / "haproxy.log"
    )
    deadline = time.monotonic() + 30
    for port, path in ((floor_port, "/health/"), (devices_port, "/health/")):
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise BenchFailure(f"haproxy did not start:\n{tail(logs / 'haproxy.log')}")
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                connection.request("GET", path, headers={"Host": "127.0.0.1"})
                if connection.getresponse().status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
    return process, floor_port, devices_port


def stack_start(env: dict[str, str], logs: Path, args: Any) -> tuple[int, dict[str, Any]]:
    """As deploy/ runs it: gunicorn for the API and gunicorn for the devices (each its own
    processes), HAProxy in front of both, the settlement worker, the monitoring worker with
    beat, the webhooks worker; then the devices' simulator, through the devices' way in."""
    from casino.demo import DEMO_HOLDER

    env = {**env, "MALLOC_ARENA_MAX": "2"}  # as deploy/production.env.example sets it
    gunicorn, port = gunicorn_start(env, args.web, logs)
    devices_web, devices_port = gunicorn_start(env, args.devices_web, logs, app=DEVICES_APP)
    balancer, floor_port, devices_in = balancer_start(port, devices_port, logs, args)
    # The devices beat before the watch (beat) starts: none goes stale in between.
    log = logs / "devices.log"
    argv = [
        sys.executable,
        "manage.py",
        "simulate_devices",
        "--url",
        f"http://127.0.0.1:{devices_in}",
    ]
    argv += ["--holder", DEMO_HOLDER, "--quiet", "none"]
    if args.simulators > 1:  # side by side, as real devices send
        argv += ["--processes", str(args.simulators)]
    simulator = group_start(argv, env, log)
    deadline = time.monotonic() + 300
    while b"rotated" not in log.read_bytes():
        if simulator.poll() is not None or time.monotonic() > deadline:
            raise BenchFailure(f"simulate_devices did not start:\n{tail(log)}")
        time.sleep(0.2)
    devices_heard(time.time(), deadline)
    settling = workers_start(1, args.concurrency, env, logs)[0].process
    monitoring = celery_start("monitoring", "monitoring,default", 2, env, logs, beat=True)
    hooks = celery_start("webhooks", "webhooks", args.hooks, env, logs)
    procs = {
        "web": gunicorn.pid,
        "devweb": [devices_web.pid],
        "settle": [settling.pid],
        "monitor": [monitoring.pid],
        "hooks": [hooks.pid],
        "lb": [balancer.pid],
        "sim": [simulator.pid],
    }
    return floor_port, procs


def devices_heard(since: float, deadline: float) -> None:
    """Wait until every device in service has beaten since `since` (the store's times)."""
    from devices.models import Device
    from devices.store import store

    wanted = dict(Device.objects.exclude(status="retired").values_list("pk", "kind"))
    while True:
        heard = {
            pk
            for kind in set(wanted.values())
            for pk, at in store().seen(kind).items()
            if at >= since
        }
        if heard >= set(wanted):
            return
        if time.monotonic() > deadline:
            raise BenchFailure(f"{len(set(wanted) - heard)} devices not heard from")
        time.sleep(0.5)


def receiver_start(holder_name: str) -> Receiver:
    """The dealers' webhook endpoint, registered for round.settled as an integrator would.
    Through the service, not POST /webhook-endpoints/: the web runs production settings,
    which refuse a loopback URL; the webhooks worker runs the bench's, which allow it."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone
    from standardwebhooks.webhooks import Webhook

    from casino.models import CertificateHolder
    from webhooks.services import endpoint_register

    receiver = Receiver()
    receiver.start()
    _, secret = endpoint_register(
        holder=CertificateHolder.objects.get(name=holder_name),
        url=f"http://127.0.0.1:{receiver.port}/settled",
        events=["round.settled"],
        description="bench/floor.py: the dealers' settlements",
        by=get_user_model().objects.get(username=INTEGRATOR),
        now=timezone.now(),
    )
    receiver.verifier = Webhook(secret)
    return receiver


def run(args: argparse.Namespace, url: str, env: dict[str, str], logs: Path) -> list[str]:
    from django.utils import timezone

    from casino.demo import DEMO_HOLDER
    from devices.rules import KINDS
    from devices.watch import threshold

    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f} at the start")
    tick = time.perf_counter()
    tables = tables_make(max(args.counts), timezone.now())
    key = token_issue(env)
    args.intervals = {kind: threshold(kind)[0] for kind in KINDS}
    args.receiver = receiver_start(DEMO_HOLDER)
    port, procs = stack_start(env, logs, args)
    games = Counter(
        f"{t['game']}{'/' + t['variant'] if t['variant'] == 'mini_craps' else ''}" for t in tables
    )
    print(
        f"setup {time.perf_counter() - tick:.0f} s: the demo floor and {len(tables)} tables"
        f" copied ({', '.join(f'{g} {n}' for g, n in sorted(games.items()))}); HAProxy in front"
        f" of gunicorn ({args.web} gthread workers) and the devices' gunicorn"
        f" ({args.devices_web}), a settlement worker x {args.concurrency}, the monitoring"
        f" worker with beat, a webhooks worker x {args.hooks}, simulate_devices x"
        f" {args.simulators}; a round every {args.period} s / speed {args.speed:g},"
        f" {args.seconds:g} s a size and way of dealing, {args.dealers} dealer processes",
        flush=True,
    )
    runs = [floor_play([], "", port, key, url, procs, args)]
    print(
        f"  idle floor ({args.idle:g} s, devices beating): "
        + ", ".join(f"{g} {runs[0].cores(g):.3f}" for g in GROUPS if g != "dealers")
        + " cores",
        flush=True,
    )
    for count in args.counts:
        for deal in args.deals:
            played = floor_play(tables[:count], deal, port, key, url, procs, args)
            runs.append(played)
            print(
                f"  {count} tables, {deal}: {played.rounds} rounds, settled p99"
                f" {percentile(played.settle, 0.99):.2f} s, API p99 {played.ms(API, 0.99):.0f}"
                f" ms, {sum(played.cores(g) for g in GROUPS):.2f} cores",
                flush=True,
            )
    for process in reversed(RUNNING):  # the watch first: no device goes stale as we stop
        group_stop(process)
    args.receiver.stop()
    report(runs, args)
    problems = []
    for played in runs[1:]:
        where = played.name()
        bad = Counter(s for _, _, s in played.answers if s >= 500)
        problems += [f"{where}: {n} answers {s}" for s, n in bad.items()]
        problems += [f"{where}: {n} x {problem}" for problem, n in played.problems.items()]
        if not played.rounds:
            problems.append(f"{where}: no round dealt")
        if args.overload:
            if played.stale:
                problems.append(f"{where}: {played.stale} devices went stale")
            if played.suspended:
                problems.append(f"{where}: {played.suspended} tables suspended")
            slowest = max((ms for _, ms, _ in played.answers), default=0.0)
            if slowest > 1000:
                problems.append(f"{where}: an answer took {slowest:.0f} ms (over a second)")
    return problems


def slope(points: list[tuple[float, float]]) -> float:
    """Least squares: the change of y a unit of x."""
    if len(points) < 2:
        return float("nan")
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    spread = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / spread if spread else float("nan")


def report(runs: list[Run], args: Any) -> None:
    idle, base = runs[0], runs[1]
    print(
        f"\nfirst row the baseline ({base.name()}); /health/ probed every 0.5 s beside the"
        " dealers; lag: now - last heartbeat, every device, every second; shed: answers the"
        " balancer gave as 503 `overloaded` (sent again after Retry-After); max: the slowest"
        " answer of all"
    )
    print(
        f"{'tables':>16}{'rounds':>7}{'/min':>7}{'settle p50':>11}{'p99 s':>7}{'p99:base':>9}"
        f"{'API p99':>8}{'wager p99':>10}{'health p99':>11}{'API:health':>11}{'max ms':>8}"
        f"{'shed':>6}{'lag p99 s':>10}{'lag/interval':>13}{'stale':>6}{'susp':>5}{'4xx':>5}"
        f"{'5xx':>5}"
    )
    for r in runs[1:]:
        codes = Counter(s // 100 for _, _, s in r.answers)
        health = r.ms({"health"}, 0.99)
        slowest = max((ms for _, ms, _ in r.answers), default=float("nan"))
        print(
            f"{r.name():>16}{r.rounds:>7}{60 * r.rounds / r.seconds:>7.1f}"
            f"{percentile(r.settle, 0.5):>11.2f}{percentile(r.settle, 0.99):>7.2f}"
            f"{percentile(r.settle, 0.99) / percentile(base.settle, 0.99):>9.2f}"
            f"{r.ms(API, 0.99):>8.0f}{r.ms({'wagers'}, 0.99):>10.0f}{health:>11.1f}"
            f"{r.ms(API, 0.99) / health:>11.1f}{slowest:>8.0f}{codes[SHED]:>6}"
            f"{percentile(r.lag.lags, 0.99):>10.2f}{percentile(r.lag.ratios, 0.99):>13.2f}"
            f"{r.stale:>6}{r.suspended:>5}{codes[4]:>5}{codes[5]:>5}"
        )
    print(
        f"\nCPU, cores busy (of {os.cpu_count()}): the floor's processes ({', '.join(FLOOR)}),"
        f" then its clients ({', '.join(CLIENTS)}); machine = everything on it (other jobs"
        " too); ms/round = (floor - idle floor) x seconds / rounds, the floor's CPU a round"
    )
    print(
        f"{'tables':>16}"
        + "".join(f"{g:>8}" for g in GROUPS)
        + f"{'floor':>7}{'machine':>8}{'ms/round':>9}{'cores/table':>12}{':base':>7}"
    )
    idle_floor = sum(idle.cores(g) for g in FLOOR)
    per_base = None
    for r in runs:
        floor = sum(r.cores(g) for g in FLOOR)
        per_round = 1e3 * (floor - idle_floor) * r.seconds / r.rounds if r.rounds else float("nan")
        per_table = (floor - idle_floor) / r.tables if r.tables else float("nan")
        per_base = per_base or (per_table if r.tables else None)
        ratio = per_table / per_base if per_base and r.tables else float("nan")
        print(
            f"{r.name():>16}"
            + "".join(f"{r.cores(g):>8.3f}" for g in GROUPS)
            + f"{floor:>7.2f}{r.cores('machine'):>8.2f}{per_round:>9.0f}{per_table:>12.4f}"
            f"{ratio:>7.2f}"
        )
    print(
        "\nmemory, MB resident by group (the processes' VmRSS; Redis: used_memory): after the"
        " first third of the run (warm), at the end, and the slope after warm-up in MB a"
        " minute; one: the largest single process"
    )
    for r in runs:
        if len(r.memory) < 3:
            continue
        warm = r.memory[len(r.memory) // 3 :]
        cells = []
        for group in ("web", "devweb", "settle", "monitor", "hooks", "lb", "sim", "redis"):
            points = [(t / 60, mb.get(group, 0.0)) for t, mb in warm]
            cells.append(
                f"{group} {warm[0][1].get(group, 0):.0f}->{warm[-1][1].get(group, 0):.0f}"
                f" ({slope(points):+.2f}/min"
                + (f", one {r.biggest[group]:.0f}" if group in r.biggest else "")
                + ")"
            )
        print(f"{r.name():>16}: " + "; ".join(cells))
    notes: Counter = Counter()
    for r in runs[1:]:
        notes.update(r.notes)
    for note, n in notes.most_common():
        print(f"  {n} x {note}")
    for r in runs[1:]:
        kinds = Counter(w for w, _, s in r.answers if s != SHED)
        per = ", ".join(
            f"{k} {n / max(r.rounds, 1):.2f}" for k, n in kinds.items() if k != "health"
        )
        pushed = ", ".join(f"{k} {n}" for k, n in r.pushed.items())
        print(f"  {r.name()}: requests a round {per}; webhooks received: {pushed or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", default="1,20,100", help="floor sizes, the first the baseline")
    parser.add_argument("--seconds", type=float, default=120.0, help="dealt a size (120)")
    parser.add_argument("--period", default="30,60", help="seconds a round, from,to (30,60)")
    parser.add_argument("--speed", type=float, default=1.0, help="the cadence times this (1)")
    parser.add_argument("--dealers", type=int, default=2, help="dealer processes (2)")
    parser.add_argument(
        "--deal",
        default="electronic,terminal",
        help="how the tables send wagers: electronic (a round's at once), terminal (a"
        " player's at once); each measured apart (electronic,terminal)",
    )
    parser.add_argument(
        "--web-maxconn",
        type=int,
        default=(os.cpu_count() or 1) + 1,
        help="requests the web works on at once, the rest queued by HAProxy (cores + 1)",
    )
    parser.add_argument("--devices-web", type=int, default=2, help="the devices' gunicorn workers")
    parser.add_argument("--simulators", type=int, default=2, help="simulate_devices processes")
    parser.add_argument("--hooks", type=int, default=2, help="webhooks worker pool processes")
    parser.add_argument(
        "--overload",
        action="store_true",
        help="the sizes are past what the machine holds: fail on a device stale, a table"
        " suspended or an answer over a second (shed requests are expected)",
    )
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of the idle floor (10)")
    parser.add_argument("--concurrency", type=int, default=2, help="settlement pool processes")
    parser.add_argument(
        "--web",
        type=int,
        default=(os.cpu_count() or 1) * 2 + 1,
        help="gunicorn's workers (gthread, as deploy/ runs them; CPUs x 2 + 1)",
    )
    parser.add_argument("--seed", type=int, default=601)
    parser.add_argument("--quick", action="store_true", help="3 tables, speed 20, 8 s: checks")
    parser.add_argument("--keep", action="store_true", help="keep the database and Redis db 10")
    args = parser.parse_args()
    if args.quick:
        args.tables, args.seconds, args.speed, args.idle = "3", 8.0, 20.0, 2.0
    try:
        args.counts = [int(n) for n in args.tables.split(",")]
        args.deals = [d for d in args.deal.split(",") if d]
        low, high = (float(s) for s in args.period.split(","))
    except ValueError:
        parser.error("--tables: whole numbers; --period: two numbers, from,to")
    if min(args.counts) < 1 or not 0 < low <= high or args.speed <= 0 or args.dealers < 1:
        parser.error("--tables at least 1, --period 0 < from <= to, --speed above 0")
    if not args.deals or set(args.deals) - {"electronic", "terminal"}:
        parser.error("--deal: electronic, terminal or both, comma-separated")
    args.period_s = (low / args.speed, high / args.speed)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds: everything stopped
    name = f"casino_bench_floor_{uuid.uuid4().hex[:10]}"
    data_dir = Path(tempfile.mkdtemp(prefix="casino_bench_floor_"))
    problems, created = [], False
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).flushdb()
        url = database_create(name)
        created = True
        env = project_env(
            DATABASE_URL=url,
            CELERY_BROKER_URL=REDIS_URL,
            CASINO_DATA_DIR=str(data_dir),
            DJANGO_DEBUG="false",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            CASINO_DEVICE_KEY=secrets.token_urlsafe(50),
            CASINO_LOG_LEVEL="INFO",  # the workers' ready lines (Celery logs through LOGGING)
        )
        django_ready(env)
        problems = run(args, url, env, data_dir)
    except BenchFailure as failure:
        problems = [str(failure)]
    finally:
        for process in list(RUNNING):
            group_stop(process)
        workers_stop(SETTLING)
        if "django.db" in sys.modules:
            from django.db import connections

            connections.close_all()
        if created and not args.keep:
            database_drop(name)
        if args.keep:
            print(f"kept: database {name}, Redis database 10, logs in {data_dir}")
        else:
            redis.Redis.from_url(REDIS_URL).flushdb()
            shutil.rmtree(data_dir, ignore_errors=True)
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(
        "checks passed: every round dealt settled, its ledger balanced, no 5xx, no failed"
        " connection"
    )


if __name__ == "__main__":
    main()
