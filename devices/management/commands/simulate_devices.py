"""Play the devices of a holder's tables against a running floor, over real signed HTTP.

    python manage.py simulate_devices [--url http://127.0.0.1:8000] [--holder NAME]
        [--seconds N] [--quiet SERIAL ...] [--quiet-after S] [--quiet-for S]
        [--no-reports [SERIAL ...]] [--processes N]

At the start every device in service at the holder's tables gets a new credential
(devices.services.credential_rotate, by the operations user, with the default grace so
whatever held the old secret keeps working a while); the secrets stay in this process.
Then each device sends a signed heartbeat to /devices/v1/heartbeat every interval of its
kind (devices.watch.threshold), jittered a little. The --quiet devices (default on the
demo floor: the Extra Roll device at HR-01 position 6; `--quiet none` for none) stop
after --quiet-after seconds and resume --quiet-for seconds later, again and again, so
the admin shows a device going stale and recovering (--quiet-for 0: quiet for good).

The devices report as real ones do, signed like every device request: once "no more bets"
is called at its table, an active automated Sic Bo shaker throws the round's dice
(§ 625a.5(c)), an active Pai Gow random number generator posts the round's starting
number, 1 to 36 (§ 621a.6(a)(1)), unless the round has one, and an active Power Odds
generator its selection for the throw (§ 623b.5(c), devices.rules.simulated_selection);
within a second or so. So a
round an integrator closes at such a table is decided with no step of theirs. `--no-reports`
silences every device's reports, `--no-reports SERIAL ...` those devices' only (they keep
their heartbeats: a device that works but does not report, the way out of docs/api.md).

The command rotates credentials in the database directly: run it with the same
settings (database, CASINO_DEVICE_KEY) as the server at --url. One line per change it
causes, a summary every 30 s; Ctrl-C (or SIGTERM) ends it after the current request.

`--processes N` sends as a floor's devices do, side by side: after the rotation (its line
printed once, by this process) the tables are dealt out to N forked processes, each
table's devices to one (shares_of), and each sends its devices' heartbeats and reports over
its own connection, with its own database connection for the reports. Their lines are
tagged [i/N]; a signal stops them all, and this process says the totals once they end.
Processes rather than threads: signing, JSON and the reports' queries are Python's work,
which threads would take turns at under the GIL, and each process runs the loop unchanged.
"""

import contextlib
import http.client
import json
import logging
import os
import random
import signal
import sys
import time
import traceback
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection, connections
from django.db.models import Q

from casino.demo import DEMO_HOLDER, OPS_USERNAME
from casino.models import CertificateHolder
from casino.services.errors import FloorRefused
from devices import rules, signing
from devices.models import Device
from devices.services import OPERATE, credential_rotate
from devices.watch import threshold
from games.models import Round
from gaming.waits import waits_q

log = logging.getLogger(__name__)

HEARTBEAT = "/devices/v1/heartbeat"
REPORT = "/devices/v1/report"
DEMO_QUIET = ("HR-01", "extra_roll_device", 6)  # the demo floor's quiet device
SUMMARY_SECONDS = 30.0
RETRY_SECONDS = 3.0
REPORT_CHECK_SECONDS = 1.0
RNG_NUMBERS = (1, 36)
# What the loop reports: a shaker's dice, a Pai Gow number, a Power Odds selection.
RESULTS = (rules.DICE, rules.NUMBER, rules.SELECTION)
MAX_WAIT = 0.5  # the loop looks at the clock at least this often

# send(path, body, headers) -> (status, body); ServerDown when no answer came.
Send = Callable[[str, bytes, dict[str, str]], tuple[int, bytes]]


class ServerDown(Exception):
    """The request got no HTTP answer: the server is down or unreachable."""


class HttpSender:
    """POST over one kept-alive connection (http.client), reopened when the server drops it."""

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise CommandError(f"--url must be http://host[:port] or https://..., not {url!r}")
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/")  # a floor mounted under a path
        self.timeout = timeout
        self._connection: http.client.HTTPConnection | None = None

    def _open(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            self._connection = kind(self.host, self.port, timeout=self.timeout)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __call__(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        for attempt in (1, 2):
            connection_ = self._open()
            reused = connection_.sock is not None
            try:
                connection_.request(
                    "POST", path, body=body, headers={"Content-Type": "application/json", **headers}
                )
                response = connection_.getresponse()
                data = response.read()
            except (BrokenPipeError, ConnectionResetError) as error:
                # A kept-alive connection the server closed while idle: open a new one once.
                # (http.client.RemoteDisconnected is a ConnectionResetError.)
                self.close()
                if reused and attempt == 1:
                    continue
                raise ServerDown(str(error) or type(error).__name__) from error
            except (OSError, http.client.HTTPException) as error:
                self.close()
                raise ServerDown(str(error) or type(error).__name__) from error
            if response.will_close:
                self.close()
            return response.status, data
        raise AssertionError("unreachable")  # pragma: no cover


@dataclass
class Simulated:
    """A device as this process plays it: its credential and its schedule."""

    device_id: int
    kind: str
    serial: str
    label: str
    table_id: int
    table: str
    status_at_start: str
    key_id: str
    secret: str
    interval: float
    quiet: bool = False
    silent: bool = False
    reports_off: bool = False  # its reports silenced (--no-reports), its heartbeats not
    next_at: float = 0.0
    answer: tuple[int, str] | None = None  # the last (status, error) it got

    @property
    def reports(self) -> str:
        return rules.KINDS[self.kind].reports

    @property
    def reporting(self) -> bool:
        """A shaker or a generator, not quiet, its reports not silenced."""
        return self.reports in RESULTS and not (self.silent or self.reports_off)


@dataclass
class Tally:
    heartbeats: Counter = field(default_factory=Counter)  # by status code
    reports: Counter = field(default_factory=Counter)
    unreachable: int = 0

    @staticmethod
    def _line(counts: Counter) -> str:
        sent = sum(counts.values())
        accepted = sum(n for status, n in counts.items() if 200 <= status < 300)
        refused = ", ".join(
            f"{status}: {n}" for status, n in sorted(counts.items()) if not 200 <= status < 300
        )
        return f"{sent} sent, {accepted} accepted, {sent - accepted} refused" + (
            f" ({refused})" if refused else ""
        )


class Simulator:
    """The loop: heartbeats on schedule, quiet devices, reports, summaries. The sender,
    the clock (Unix seconds), the wait (returns True once stopped) and the randomness
    are injectable; the tests run it against django.test.Client on a fake clock."""

    def __init__(
        self,
        devices: Iterable[Simulated],
        send: Send,
        *,
        write: Callable[[str], None],
        seconds: float = 0,
        quiet_after: float = 60,
        quiet_for: float = 60,
        reports: bool = False,
        prefix: str = "",
        where: str = "the server",
        clock: Callable[[], float] = time.time,
        wait: Callable[[float], bool] | None = None,
        rng: random.Random | None = None,
        summary_every: float = SUMMARY_SECONDS,
        tag: str = "",
    ) -> None:
        self.devices = list(devices)
        self.send, self.write = send, write
        self.seconds, self.quiet_after, self.quiet_for = seconds, quiet_after, quiet_for
        self.reports, self.prefix, self.where = reports, prefix, where
        self.clock = clock
        self.stopped_by = ""  # the signal's name, once one came
        self.waits = wait  # as given: a share (share()) waits with its own stop flag else
        self.wait = wait or self._sleep
        self.rng = rng or random.Random()
        self.summary_every = summary_every
        self.tally = Tally()
        self.down_until: float | None = None
        self.reported: set[tuple[int, int]] = set()  # (device, round) already posted
        self.started = 0.0
        self.tag = tag  # which process's line it is, when several send (--processes)

    def share(
        self, devices: Iterable[Simulated], send: Send, *, rng: random.Random, tag: str
    ) -> "Simulator":
        """A loop like this one (its options, output, clock and wait) for some of its devices."""
        return Simulator(
            devices, send, write=self.write, seconds=self.seconds, quiet_after=self.quiet_after,
            quiet_for=self.quiet_for, reports=self.reports, prefix=self.prefix,
            where=self.where, clock=self.clock, wait=self.waits, rng=rng,
            summary_every=self.summary_every, tag=tag,
        )  # fmt: skip

    # --- control -------------------------------------------------------------------------

    def stop(self, why: str = "asked to stop") -> None:
        """End after the current request. A signal handler calls this, so it only sets a
        flag: no lock, no output (the loop says it stopped)."""
        self.stopped_by = why

    @property
    def stopping(self) -> bool:
        return bool(self.stopped_by)

    def _sleep(self, seconds: float) -> bool:
        time.sleep(seconds)  # at most MAX_WAIT; a signal's flag is seen when it ends
        return self.stopping

    def say(self, line: str) -> None:
        at = time.strftime("%H:%M:%S", time.localtime(self.clock()))
        self.write(f"{at} {self.tag}{line}")

    # --- the loop ------------------------------------------------------------------------

    def run(self) -> Tally:
        now = self.started = self.clock()
        for device in self.devices:  # the first beats spread over the first second or so
            device.next_at = now + self.rng.uniform(0, min(device.interval, 1.0))
        next_summary, next_reports = now + self.summary_every, now
        end = now + self.seconds if self.seconds > 0 else None
        while not self.stopping:
            now = self.clock()
            if end is not None and now >= end:
                break
            self._quiet_update(now)
            if self.down_until is None or now >= self.down_until:
                self._heartbeats(now)
                if self.reports and now >= next_reports and not self._down():
                    self._reports(now)
                    next_reports = now + REPORT_CHECK_SECONDS
            if now >= next_summary:
                self.summary()
                next_summary = now + self.summary_every
            wake = min(
                [now + MAX_WAIT, next_summary]
                + ([end] if end is not None else [])
                + (  # while the server is down, nothing is due before the retry
                    [self.down_until]
                    if self.down_until is not None
                    else [d.next_at for d in self.devices if not d.silent]
                )
            )
            if self.wait(max(0.0, wake - self.clock())):
                break
        if self.stopping:
            self.say(f"{self.stopped_by}: stopped after the current request")
        self.summary(final=True)
        return self.tally

    def _down(self) -> bool:
        return self.down_until is not None

    def _quiet_update(self, now: float) -> None:
        elapsed = now - self.started
        for device in self.devices:
            if not device.quiet:
                continue
            silent = self._silent_at(elapsed)
            if silent == device.silent:
                continue
            device.silent = silent
            if silent:
                allowed = threshold(device.kind)[2]
                how_long = f"for {self.quiet_for:g} s" if self.quiet_for else "until stopped"
                self.say(
                    f"{device.label}: going quiet {how_long} (stale after {allowed:g} s of silence)"
                )
            else:
                device.next_at = now
                self.say(f"{device.label}: heartbeats resume after {self.quiet_for:g} s quiet")

    def _silent_at(self, elapsed: float) -> bool:
        if elapsed < self.quiet_after:
            return False
        if not self.quiet_for:
            return True
        return elapsed % (self.quiet_after + self.quiet_for) >= self.quiet_after

    def _heartbeats(self, now: float) -> None:
        due = sorted((d for d in self.devices if not d.silent and d.next_at <= now),
                     key=lambda d: d.next_at)  # fmt: skip
        for device in due:
            if self.stopping:
                return
            body = json.dumps({"device": device.device_id}, separators=(",", ":")).encode()
            answer = self._post(device, HEARTBEAT, body)
            if answer is None:
                return  # the server is down: try again in a few seconds
            status, data = answer
            self.tally.heartbeats[status] += 1
            device.next_at = self.clock() + device.interval * self.rng.uniform(0.9, 1.1)
            self._heartbeat_answered(device, status, data)

    def _heartbeat_answered(self, device: Simulated, status: int, data: bytes) -> None:
        was, device.answer = device.answer, (status, _error_of(status, data))
        if 200 <= status < 300:
            if was is None and device.status_at_start != rules.ACTIVE:
                self.say(
                    f"{device.label}: first heartbeat accepted; it was {device.status_at_start}, "
                    "active at the watch's next pass"
                )
            elif was is not None and not 200 <= was[0] < 300:
                self.say(f"{device.label}: heartbeats accepted again")
        elif was != device.answer:
            self.say(f"{device.label}: heartbeat refused, {status} {_detail_of(data)}")

    def _post(self, device: Simulated, path: str, body: bytes) -> tuple[int, bytes] | None:
        """Signed POST; None (and the loop waits) when the server does not answer."""
        full = self.prefix + path
        headers = signing.signed_headers(
            device.key_id, device.secret, "POST", full, body, self.clock()
        )
        try:
            answer = self.send(full, body, headers)
        except ServerDown as error:
            self.tally.unreachable += 1
            if not self._down():
                self.say(
                    f"{self.where} does not answer ({error}); "
                    f"trying again every {RETRY_SECONDS:g} s"
                )
            self.down_until = self.clock() + RETRY_SECONDS
            return None
        if self._down():
            self.say(f"{self.where} answers again")
            self.down_until = None
        return answer

    # --- reports -------------------------------------------------------------------------

    def _reports(self, now: float) -> None:
        try:
            self._reports_post(now)
        except DatabaseError as error:
            self.say(f"reports skipped: the database is unreachable ({error})")
            if not connection.in_atomic_block:
                connection.close()  # reopened at the next query

    def _reports_post(self, now: float) -> None:
        moment = datetime.fromtimestamp(now, tz=UTC)
        reporting = [device for device in self.devices if device.reporting]
        if not reporting:
            return
        # Two queries a pass, however many devices: at a floor of a thousand tables, a
        # query or two a device every second would load the database more than the floor.
        active = set(
            Device.objects.filter(
                pk__in=[device.device_id for device in reporting], status=rules.ACTIVE
            ).values_list("pk", flat=True)
        )
        reporting = [device for device in reporting if device.device_id in active]
        # A real shaker throws, and a real generator shows its number, once "no more
        # bets" is called (§ 625a.5(c), § 621a.6(a)(1)): never while wagering is open.
        # Those whose options give the step to this table's device, not yet given
        # (gaming.waits, as the round's `device_wait` reads it).
        waiting: dict[int, list[Round]] = {}
        tables = {device.table_id for device in reporting}
        rounds = Round.objects.filter(waits_q(moment), table_id__in=tables) if tables else []
        for round_ in sorted(rounds, key=lambda r: (r.table_id, r.number)):
            waiting.setdefault(round_.table_id, []).append(round_)
        for device in reporting:
            for round_ in waiting.get(device.table_id, ()):
                if (device.device_id, round_.pk) in self.reported or self.stopping:
                    continue
                if not self._report(device, round_):
                    return  # the server is down
                self.reported.add((device.device_id, round_.pk))

    def _report(self, device: Simulated, round_: Round) -> bool:
        if device.reports == rules.DICE:
            value: Any = [self.rng.randint(1, 6) for _ in range(3)]
            what = "dice " + "-".join(map(str, value))
        elif device.reports == rules.SELECTION:
            value = rules.simulated_selection(self.rng)
            what = "Power Odds " + (", ".join(f"{k} {v}" for k, v in value.items()) or "none")
        else:
            value = self.rng.randint(*RNG_NUMBERS)
            what = f"number {value}"
        payload = {
            "device": device.device_id,
            "table": device.table,
            "round": round_.number,
            device.reports: value,
        }
        answer = self._post(device, REPORT, json.dumps(payload, separators=(",", ":")).encode())
        if answer is None:
            return False
        status, data = answer
        self.tally.reports[status] += 1
        if 200 <= status < 300:
            result = _json(data) or {}
            self.say(
                f"{device.label}: {device.table} round {round_.number} {what}: "
                f"{result.get('status', status)}"
            )
        else:
            self.say(
                f"{device.label}: {device.table} round {round_.number} {what} refused, "
                f"{status} {_detail_of(data)}"
            )
        return True

    # --- summary -------------------------------------------------------------------------

    def summary(self, *, final: bool = False) -> None:
        elapsed = self.clock() - self.started
        parts = [f"heartbeats {Tally._line(self.tally.heartbeats)}"]
        if self.reports or self.tally.reports:
            parts.append(f"reports {Tally._line(self.tally.reports)}")
        if self.tally.unreachable:
            parts.append(f"{self.tally.unreachable} got no answer")
        quiet = [d.label for d in self.devices if d.silent]
        if quiet:
            parts.append("quiet now: " + ", ".join(quiet))
        title = "stopped" if final else "summary"
        self.say(f"{title} after {elapsed:.0f} s: " + "; ".join(parts))


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        found = json.loads(data or b"null")
    except (ValueError, UnicodeDecodeError):
        return None
    return found if isinstance(found, dict) else None


def _error_of(status: int, data: bytes) -> str:
    return str((_json(data) or {}).get("code", "")) if not 200 <= status < 300 else ""


def _detail_of(data: bytes) -> str:
    """The refusal's JSON (the API's error body) as one line, or the start of the body."""
    found = _json(data)
    if found is None:
        return repr(data[:200].decode(errors="replace")) if data else "(no body)"
    return json.dumps(found, ensure_ascii=False)


# --- the start: devices, their operator, new credentials -----------------------------------


def operator() -> Any:
    """Who rotates the secrets: demo-ops, else an active user holding devices.operate_device
    (a staff member before a superuser), else None."""
    users = get_user_model().objects.filter(is_active=True)
    ops = users.filter(username=OPS_USERNAME).first()
    if ops is not None and ops.has_perm(OPERATE):
        return ops
    app_label, codename = OPERATE.split(".")
    permission = Permission.objects.filter(
        content_type__app_label=app_label, codename=codename
    ).first()
    holding = Q(is_superuser=True)
    if permission is not None:
        holding |= Q(user_permissions=permission) | Q(groups__permissions=permission)
    for user in users.filter(holding).distinct().order_by("is_superuser", "pk"):
        if user.has_perm(OPERATE):
            return user
    return None


def devices_in_service(holder: CertificateHolder) -> list[Device]:
    return list(
        Device.objects.filter(table__holder=holder)
        .exclude(status=rules.RETIRED)
        .select_related("table")
        .order_by("table__number", "kind", "position", "pk")
    )


def quiet_pick(
    holder: CertificateHolder, devices: list[Device], quiet: list[str] | None
) -> set[int]:
    """The ids of the devices to keep quiet; CommandError for a serial not in service."""
    if quiet is None:
        if holder.name != DEMO_HOLDER:
            return set()
        table, kind, position = DEMO_QUIET
        return {
            d.pk for d in devices if (d.table.number, d.kind, d.position) == (table, kind, position)
        }
    if [q.lower() for q in quiet] == ["none"]:
        return set()
    return serials_pick(holder, devices, quiet)


def serials_pick(holder: CertificateHolder, devices: list[Device], serials: list[str]) -> set[int]:
    """The ids of the devices with these serial numbers; CommandError for one not in service."""
    picked, unknown = set(), []
    for serial in serials:
        found = {d.pk for d in devices if d.serial_number == serial}
        if not found:
            unknown.append(serial)
        picked |= found
    if unknown:
        known = ", ".join(d.serial_number for d in devices)
        raise CommandError(
            f"no device in service at {holder.name}'s tables has the serial number "
            f"{', '.join(unknown)}; these do: {known}"
        )
    return picked


def simulation_start(
    *,
    holder: str,
    send: Send,
    write: Callable[[str], None],
    quiet: list[str] | None = None,
    reports_off: list[str] | None = None,
    clock: Callable[[], float] = time.time,
    **loop: Any,
) -> Simulator:
    """Find the holder's devices, rotate each one's credential, and build the loop
    (keyword arguments as Simulator's; `reports_off`: the serial numbers whose reports are
    silenced). CommandError when there is nothing to play."""
    found = CertificateHolder.objects.filter(name=holder).first()
    if found is None:
        names = ", ".join(CertificateHolder.objects.order_by("name").values_list("name", flat=True))
        raise CommandError(
            f"no certificate holder {holder!r}"
            + (f"; there are: {names}" if names else " (load_demo_floor creates the demo one)")
        )
    devices = devices_in_service(found)
    if not devices:
        raise CommandError(
            f"{found.name} has no device in service: register some first (admin › Devices)"
        )
    silent = quiet_pick(found, devices, quiet)
    muted = serials_pick(found, devices, reports_off) if reports_off else set()
    by = operator()
    if by is None:
        raise CommandError(
            f"no active user may rotate device credentials (needs {OPERATE}): "
            f"create {OPS_USERNAME!r} (load_demo_floor) or give someone the operations role"
        )
    now = datetime.fromtimestamp(clock(), tz=UTC)
    played = []
    for device in devices:
        try:
            issued = credential_rotate(device, by=by, now=now)
        except (FloorRefused, PermissionDenied) as refused:
            raise CommandError(f"rotating the credential of {device}: {refused}") from None
        played.append(
            Simulated(
                device_id=device.pk,
                kind=device.kind,
                serial=device.serial_number,
                label=str(device),
                table_id=device.table_id,
                table=device.table.number,
                status_at_start=device.status,
                key_id=issued.key_id,
                secret=issued.secret,
                interval=float(threshold(device.kind)[0]),
                quiet=device.pk in silent,
                reports_off=device.pk in muted,
            )
        )
    tables = len({d.table_id for d in played})
    log.info("simulate_devices: rotated %d credentials at %s as %s", len(played), holder, by)
    simulator = Simulator(played, send, write=write, clock=clock, **loop)
    simulator.say(
        f"rotated {len(played)} credentials for {found.name}'s devices at {tables} tables "
        f"(by {by.get_username()}; the old ones expire after the grace period)"
    )
    quiet_ones = [d.label for d in played if d.quiet]
    if quiet_ones:
        simulator.say(f"quiet after {simulator.quiet_after:g} s: " + ", ".join(quiet_ones))
    reporting = [d for d in played if d.reports in RESULTS]
    if reporting and not simulator.reports:
        simulator.say("reports silenced: no device reports a result")
    elif any(d.reports_off for d in reporting):
        muted_ones = ", ".join(d.label for d in reporting if d.reports_off)
        simulator.say(f"reports silenced (heartbeats kept): {muted_ones}")
    return simulator


# --- several senders (--processes) -----------------------------------------------------------


def shares_of(devices: Iterable[Simulated], processes: int) -> list[list[Simulated]]:
    """The devices dealt out to `processes` senders (fewer when there are fewer tables), every
    device exactly once: a table's devices together, so one process sends all of a table's
    heartbeats and reports; the largest tables first, each to the share with fewest devices."""
    played = list(devices)
    tables: dict[int, list[Simulated]] = {}
    for device in played:
        tables.setdefault(device.table_id, []).append(device)
    shares: list[list[Simulated]] = [[] for _ in range(max(1, min(processes, len(tables))))]
    for table in sorted(tables.values(), key=len, reverse=True):
        min(shares, key=len).extend(table)
    order = {id(device): at for at, device in enumerate(played)}
    return [sorted(share, key=lambda d: order[id(d)]) for share in shares]


def _tally_dump(tally: Tally) -> bytes:
    return json.dumps(
        {"heartbeats": tally.heartbeats, "reports": tally.reports, "unreachable": tally.unreachable}
    ).encode()


def _tally_add(total: Tally, data: bytes) -> None:
    found = json.loads(data)
    for name in ("heartbeats", "reports"):
        counts = getattr(total, name)
        for status, n in found[name].items():
            counts[int(status)] += n
    total.unreachable += found["unreachable"]


STOPS = (signal.SIGINT, signal.SIGTERM)


def simulation_fork(simulator: Simulator, processes: int, *, sender: Callable[[], Send]) -> Tally:
    """Run the simulator's devices in `processes` forked senders side by side, each with its
    share (shares_of), its own sender (`sender()`, called in the child: its own connection),
    its own database connection for the reports, and its lines tagged [i/n]; then say the
    totals. SIGINT or SIGTERM stops every sender after its current request, a second one
    kills them. CommandError when a sender failed."""
    shares = shares_of(simulator.devices, processes)
    seeds = [simulator.rng.getrandbits(64) for _ in shares]  # the parent's: one stream each
    sys.stdout.flush()
    sys.stderr.flush()
    # The children must not share the parent's database sockets: each opens its own.
    connections.close_all()
    children: dict[int, tuple[int, int]] = {}  # pid -> (its number, its tally's read end)
    signals: list[str] = []

    def forward(signum: int, frame: object) -> None:
        # A signal handler: a flag and kill() only (the output waits for the children).
        signals.append(signal.Signals(signum).name)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM if len(signals) == 1 else signal.SIGKILL)

    previous = {signum: signal.signal(signum, forward) for signum in STOPS}
    started = simulator.clock()
    total, failed = Tally(), []
    try:
        for number, (share, seed) in enumerate(zip(shares, seeds, strict=True), start=1):
            tag = f"[{number}/{len(shares)}] "
            read, write = os.pipe()
            # Blocked over the fork, so a signal reaches the child once its own handler is
            # in place, and the parent forwards one only once it knows the child's pid.
            signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
            try:
                pid = os.fork()
                if pid == 0:
                    os.close(read)
                    _child(simulator, share, sender, random.Random(seed), tag, write)
                children[pid] = (number, read)
            finally:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
            os.close(write)
            if signals:  # one came while forking: this child has not had it
                os.kill(pid, signal.SIGTERM)
        while children:
            pid, status = os.wait()
            number, read = children.pop(pid)
            with os.fdopen(read, "rb") as pipe:
                data = pipe.read()
            code = os.waitstatus_to_exitcode(status)
            if code == 0 and data:
                _tally_add(total, data)
                continue
            how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
            failed.append(f"sender {number}/{len(shares)} ended with {how}")
            if not signals:  # its devices are silent now: the others stop too, loudly
                signals.append("a sender failed")
                for other in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(other, signal.SIGTERM)
    finally:
        for pid in children:  # the parent failed while forking: no orphan keeps beating
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if signals and not failed:
        simulator.say(f"{signals[0]}: stopped after the current request")
    parts = [f"heartbeats {Tally._line(total.heartbeats)}"]
    if simulator.reports or total.reports:
        parts.append(f"reports {Tally._line(total.reports)}")
    if total.unreachable:
        parts.append(f"{total.unreachable} got no answer")
    elapsed = simulator.clock() - started
    simulator.say(f"stopped after {elapsed:.0f} s, {len(shares)} senders: " + "; ".join(parts))
    if failed:
        raise CommandError("; ".join(failed))
    return total


def _child(
    whole: Simulator,
    share: list[Simulated],
    sender: Callable[[], Send],
    rng: random.Random,
    tag: str,
    out: int,
) -> NoReturn:
    """A forked sender: the loop for its share until stopped, its tally to the parent through
    `out`. It never returns into the parent's code (os._exit), whatever happens."""
    code, send = 1, None
    try:
        send = sender()
        simulator = whole.share(share, send, rng=rng, tag=tag)
        for signum in STOPS:  # every signal a flag: the parent escalates, not the child
            signal.signal(signum, lambda number, _: simulator.stop(signal.Signals(number).name))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
        os.write(out, _tally_dump(simulator.run()))
        code = 0
    except BaseException:  # said; the exit status tells the parent
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            getattr(send, "close", lambda: None)()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


class Command(BaseCommand):
    help = "Send signed heartbeats and reports (dice, numbers) as a holder's devices."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="The floor's server.")
        parser.add_argument("--holder", default=DEMO_HOLDER, help="The certificate holder.")
        parser.add_argument(
            "--seconds", type=float, default=0, help="How long to run (0: until interrupted)."
        )
        parser.add_argument(
            "--quiet",
            nargs="+",
            metavar="SERIAL",
            default=None,
            help="Serial numbers of devices that go quiet for a while ('none': no device; "
            "default on the demo floor: the Extra Roll device at HR-01 position 6).",
        )
        parser.add_argument(
            "--quiet-after", type=float, default=60.0, metavar="S", help="Loud this long first."
        )
        parser.add_argument(
            "--quiet-for",
            type=float,
            default=60.0,
            metavar="S",
            help="Then quiet this long, and so on (0: stays quiet).",
        )
        parser.add_argument(
            "--no-reports",
            nargs="*",
            metavar="SERIAL",
            default=None,
            help="Silence the reports (shakers' dice, Pai Gow generators' numbers after \"no "
            'more bets") of every device, or of the devices with these serial numbers; '
            "their heartbeats go on.",
        )
        parser.add_argument(
            "--processes",
            type=int,
            default=1,
            metavar="N",
            help="Send from N processes side by side, each with its own connection and its "
            "share of the tables' devices (heartbeats and reports); at most one per table.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for name in ("seconds", "quiet_after", "quiet_for"):
            if options[name] < 0:
                raise CommandError(f"--{name.replace('_', '-')} cannot be negative")
        if options["processes"] < 1:
            raise CommandError("--processes must be 1 or more")
        sender = HttpSender(options["url"])

        def write(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        simulator = simulation_start(
            holder=options["holder"],
            send=sender,
            write=write,
            quiet=options["quiet"],
            reports_off=options["no_reports"],
            seconds=options["seconds"],
            quiet_after=options["quiet_after"],
            quiet_for=options["quiet_for"],
            reports=options["no_reports"] != [],
            prefix=sender.prefix,
            where=options["url"],
        )
        if options["processes"] > 1:
            simulation_fork(
                simulator, options["processes"], sender=lambda: HttpSender(options["url"])
            )
            return
        previous = _signals_catch(simulator)
        try:
            simulator.run()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            sender.close()


def _signals_catch(simulator: Simulator) -> dict[int, Any]:
    """SIGINT and SIGTERM end the loop after the current request; a second one, at once."""
    previous: dict[int, Any] = {}

    def stopping(signum: int, frame: object) -> None:
        simulator.stop(signal.Signals(signum).name)
        for number, handler in previous.items():  # a second signal stops at once
            signal.signal(number, handler)

    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[signum] = signal.signal(signum, stopping)
        except ValueError:  # not the main thread (a test runner's): no handlers
            break
    return previous
