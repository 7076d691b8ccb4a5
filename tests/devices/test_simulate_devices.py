"""manage.py simulate_devices: its loop against the real endpoints through the test client,
on a fake clock (the loop's clock and wait are injected), so seconds pass in no time."""

import json
import os
import random
import re
import signal
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, override_settings

from casino.models import CertificateHolder, Table
from devices import auth, signing, views
from devices.management.commands.simulate_devices import (
    HttpSender,
    ServerDown,
    Simulated,
    shares_of,
    simulation_fork,
    simulation_start,
)
from devices.models import Device, DeviceCredential
from devices.store import store
from games.models import Round
from games.rules.craps.paytables import POWER_ODDS
from gaming.rounds import no_more_bets, result_enter, round_open, wagers_place
from gaming.waits import device_waits_check
from tests.casino.floor_fixtures import compliant_table, operations
from tests.devices.device_fixtures import heard, register
from tests.games.round_fixtures import wager

pytestmark = pytest.mark.django_db

HEARTBEATS = {"illumination_device": [1, 3], "automated_shaker": [1, 3]}
GRACE = timedelta(seconds=300)  # CASINO_DEVICE_ROTATION_GRACE_SECONDS


@pytest.fixture(autouse=True)
def _settings():
    with override_settings(CASINO_DEVICE_HEARTBEATS=HEARTBEATS, CASINO_DEVICE_STORE_URL="database"):
        store.cache_clear()
        auth._cache.clear()
        yield
    store.cache_clear()
    auth._cache.clear()


class FakeClock:
    """Unix seconds that move only when the loop waits; `watch` runs at every wait."""

    def __init__(self, start: float) -> None:
        self.now = self.start = start
        self.waits = 0
        self.watch = lambda now: None

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.now += max(seconds, 0.001)
        self.waits += 1
        self.watch(self.now)
        return False


def client_send(client: Client):
    """The simulator's sender, through Django's test client: headers as META keys."""

    def send(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        meta = {"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()}
        response = client.post(path, data=body, content_type="application/json", **meta)
        return response.status_code, response.content

    return send


@dataclass
class SicBo:
    holder: CertificateHolder
    table: Table
    clock: FakeClock
    lamp: Device
    shaker: Device


def sic_bo_floor(monkeypatch, now: float | None = None) -> SicBo:
    """An open Sic Bo table with an automated shaker, its devices active, and a fake clock
    the endpoints read too."""
    clock = FakeClock(now or time.time())
    monkeypatch.setattr(views, "clock", clock)
    built = datetime.fromtimestamp(clock.now, tz=UTC) - timedelta(minutes=10)
    floor = compliant_table("sic_bo", automated_shaker=True, open_table=True, now=built)
    return SicBo(
        floor.holder,
        floor.table,
        clock,
        Device.objects.get(table=floor.table, kind="illumination_device"),
        Device.objects.get(table=floor.table, kind="automated_shaker"),
    )


def test_heartbeats_land_a_quiet_device_stops_and_resumes_and_secrets_are_rotated(monkeypatch):
    sb = sic_bo_floor(monkeypatch)
    old_keys = set(DeviceCredential.objects.values_list("key_id", flat=True))
    samples: list[tuple[float, float | None, float | None]] = []
    sb.clock.watch = lambda now: samples.append(
        (now - sb.clock.start, store().seen("illumination_device").get(sb.lamp.pk),
         store().seen("automated_shaker").get(sb.shaker.pk))
    )  # fmt: skip
    lines: list[str] = []

    simulator = simulation_start(
        holder=sb.holder.name,
        send=client_send(Client()),
        write=lines.append,
        quiet=[sb.lamp.serial_number],
        clock=sb.clock,
        wait=sb.clock.wait,
        seconds=12,
        quiet_after=3,
        quiet_for=4,
        summary_every=5,
        rng=random.Random(7),
    )
    tally = simulator.run()

    # Every heartbeat was accepted and landed in the store, for both kinds.
    assert set(tally.heartbeats) == {204}
    assert tally.heartbeats[204] >= 15
    start = sb.clock.start
    assert store().seen("automated_shaker")[sb.shaker.pk] >= start + 10.5
    # It came back at 7 s, and (a cycle of 3 s loud, 4 s quiet) went quiet again at 10 s.
    assert start + 8.5 <= store().seen("illumination_device")[sb.lamp.pk] <= start + 10
    # The quiet lamp: heard in its first 3 s, silent from 3 s to 7 s, heard again after.
    quiet = [lamp_seen for at, lamp_seen, _ in samples if 3.2 <= at < 7]
    assert quiet and all(seen is not None and seen <= start + 3 for seen in quiet)
    assert len(set(quiet)) == 1  # its last-seen stopped advancing
    loud = [shaker_seen for at, _, shaker_seen in samples if 3.2 <= at < 7]
    assert len(set(loud)) >= 3  # the shaker's kept moving meanwhile
    assert any(seen > start + 7 for at, seen, _ in samples if 7 < at < 9 and seen)
    # New credentials for both; the old ones expire after the grace, not at once.
    rotated = datetime.fromtimestamp(start, tz=UTC)
    for device in (sb.lamp, sb.shaker):
        credentials = DeviceCredential.objects.filter(device=device)
        assert credentials.count() == 2
        old = credentials.get(key_id__in=old_keys)
        new = credentials.exclude(key_id__in=old_keys).get()
        assert old.expires_at == rotated + GRACE
        assert new.expires_at is None and new.revoked_at is None
    text = "\n".join(lines)
    assert "rotated 2 credentials" in text
    assert text.count(f"{sb.lamp}: going quiet for 4 s") == 2
    assert f"{sb.lamp}: heartbeats resume after 4 s quiet" in text
    assert "summary after 5 s" in text and "stopped after 12 s" in text
    assert not any(
        signing.secret_for(c.key_id, c.salt) in text for c in DeviceCredential.objects.all()
    )


def closing_at(clock: FakeClock, round_: Round, after: float) -> list[datetime]:
    """Call "no more bets" on `round_` once the fake clock is `after` seconds in (from the
    loop's waits, as a dealer would between two of its requests); the moment it was called."""
    called: list[datetime] = []

    def watch(now: float) -> None:
        if not called and now - clock.start >= after:
            called.append(datetime.fromtimestamp(now, tz=UTC))
            no_more_bets(round_, by=operations(), now=called[0])

    clock.watch = watch
    return called


def test_the_shaker_throws_once_no_more_bets_is_called_never_while_wagering_is_open(monkeypatch):
    """58 Pa. Code § 625a.5(c): "no more bets" before the dice are revealed: the round takes
    wagers for as long as the dealer keeps it open, and the shaker's dice come within about
    a second of the call, signed like every device request."""
    sb = sic_bo_floor(monkeypatch)
    opened_at = datetime.fromtimestamp(sb.clock.now, tz=UTC) - timedelta(minutes=2)
    round_ = round_open(sb.table, by=operations(), now=opened_at)
    wagers_place(round_, [wager("ann", "small", "10")], by=operations(), now=opened_at)
    called = closing_at(sb.clock, round_, after=6)
    lines: list[str] = []

    simulation_start(
        holder=sb.holder.name, send=client_send(Client()), write=lines.append,
        quiet=["none"], clock=sb.clock, wait=sb.clock.wait, seconds=9, reports=True,
        rng=random.Random(3),
    ).run()  # fmt: skip

    round_ = Round.objects.get(pk=round_.pk)
    assert round_.status == Round.Status.RESULT_ENTERED
    throw = round_.events.get(event="throw")
    assert throw.source == "device" and throw.device_id == sb.shaker.pk
    assert called[0] <= throw.at <= called[0] + timedelta(seconds=1.5)
    # The dealer's call, at 6 s: the shaker did not close the round itself earlier.
    assert [(e.event, e.source, e.at) for e in round_.events.order_by("seq")][1:] == [
        ("no_more_bets", "dealer", called[0]),
        ("throw", "device", throw.at),
    ]
    assert any(f"round {round_.number} dice" in line and "result_entered" in line for line in lines)


def pai_gow_floor(monkeypatch) -> tuple[Table, Device, FakeClock]:
    """PG-01 as the demo floor has it: the generator gives the start (the shaker while it is
    down), the generator active; and the endpoints on the fake clock."""
    clock = FakeClock(time.time())
    monkeypatch.setattr(views, "clock", clock)
    built = datetime.fromtimestamp(clock.now, tz=UTC) - timedelta(minutes=10)
    options = {"starting_position": "rng", "shaker_if_rng_down": True}
    table = compliant_table(
        "pai_gow", number="PG-01", options=options, open_table=True, now=built
    ).table
    generator = register(table, "pai_gow_rng", now=built, serial="RNG-6001").device
    heard(generator, now=built)
    return table, Device.objects.get(pk=generator.pk), clock


def test_the_pai_gow_generator_posts_its_number_once_no_more_bets_is_called(monkeypatch):
    """58 Pa. Code § 621a.6(a)(1): "no more bets", then the generator's number; the dealer
    deals from it."""
    table, generator, clock = pai_gow_floor(monkeypatch)
    opened_at = datetime.fromtimestamp(clock.now, tz=UTC) - timedelta(minutes=2)
    round_ = round_open(table, by=operations(), now=opened_at)
    place = [wager("ann", "pai_gow", "10", position=1)]
    wagers_place(round_, place, by=operations(), now=opened_at)
    called = closing_at(clock, round_, after=4)
    lines: list[str] = []

    simulation_start(
        holder=table.holder.name, send=client_send(Client()), write=lines.append,
        quiet=["none"], clock=clock, wait=clock.wait, seconds=7, reports=True,
        rng=random.Random(5),
    ).run()  # fmt: skip

    number = Round.objects.get(pk=round_.pk).events.get(event="rng_number")
    assert (number.source, number.device_id) == ("device", generator.pk)
    assert 1 <= number.payload <= 36
    assert called[0] <= number.at <= called[0] + timedelta(seconds=1.5)
    assert sum(f"round {round_.number} number {number.payload}: closed" in x for x in lines) == 1


def test_the_power_odds_generator_posts_its_selection_once_no_more_bets_is_called(monkeypatch):
    """58 Pa. Code § 623b.5(c), (d): after all wagers and before the throw, the generator
    selects; the simulated one posts a selection of eligible wagers, each at one of the two
    odds the text lists (`devices.rules.simulated_selection`), and the
    dealer's throw is then taken."""
    clock = FakeClock(time.time())
    monkeypatch.setattr(views, "clock", clock)
    built = datetime.fromtimestamp(clock.now, tz=UTC) - timedelta(minutes=10)
    table = compliant_table(
        "craps", number="CR-02", options={"power_odds": True}, power_odds=True,
        open_table=True, now=built,
    ).table  # fmt: skip
    generator = Device.objects.get(table=table, kind="power_odds_rng")
    opened_at = datetime.fromtimestamp(clock.now, tz=UTC) - timedelta(minutes=2)
    round_ = round_open(table, by=operations(), now=opened_at)
    wagers_place(round_, [wager("ann", "any_craps", "10")], by=operations(), now=opened_at)
    called = closing_at(clock, round_, after=4)
    lines: list[str] = []

    simulation_start(
        holder=table.holder.name, send=client_send(Client()), write=lines.append,
        quiet=["none"], clock=clock, wait=clock.wait, seconds=7, reports=True,
        rng=random.Random(5),
    ).run()  # fmt: skip

    selection = Round.objects.get(pk=round_.pk).events.get(event="power_odds")
    assert (selection.source, selection.device_id) == ("device", generator.pk)
    listed = {kind: {odds.text for odds in both} for kind, both in POWER_ODDS.items()}
    assert 1 <= len(selection.payload) <= 3  # this seed's draw selects some
    assert all(odds in listed[kind] for kind, odds in selection.payload.items())
    assert called[0] <= selection.at <= called[0] + timedelta(seconds=1.5)
    assert sum(f"round {round_.number} Power Odds" in line for line in lines) == 1
    result_enter(Round.objects.get(pk=round_.pk), "throw", [1, 1], by=operations(),
                 now=called[0] + timedelta(seconds=5))  # fmt: skip
    assert Round.objects.get(pk=round_.pk).status == Round.Status.RESULT_ENTERED


def test_no_reports_silences_a_device_s_reports_and_keeps_its_heartbeats(monkeypatch, settings):
    """--no-reports RNG-6001: the generator keeps beating but posts nothing; the round waits
    on it, and past CASINO_DEVICE_WAIT_SECONDS beat raises the alert (gaming/waits.py)."""
    settings.CASINO_DEVICE_WAIT_SECONDS = 5
    table, generator, clock = pai_gow_floor(monkeypatch)
    opened_at = datetime.fromtimestamp(clock.now, tz=UTC) - timedelta(minutes=2)
    round_ = round_open(table, by=operations(), now=opened_at)
    wagers_place(
        round_, [wager("ann", "pai_gow", "10", position=1)], by=operations(), now=opened_at
    )
    called = closing_at(clock, round_, after=1)
    lines: list[str] = []

    tally = simulation_start(
        holder=table.holder.name, send=client_send(Client()), write=lines.append,
        quiet=["none"], reports_off=["RNG-6001"], clock=clock, wait=clock.wait, seconds=8,
        reports=True,
    ).run()  # fmt: skip

    assert not Round.objects.get(pk=round_.pk).events.filter(event="rng_number").exists()
    assert tally.reports == {} and tally.heartbeats[204] >= 1
    assert store().seen("pai_gow_rng")[generator.pk] >= clock.start + 5
    assert f"reports silenced (heartbeats kept): {generator}" in "\n".join(lines)
    waited = datetime.fromtimestamp(clock.now, tz=UTC)
    assert waited - called[0] >= timedelta(seconds=5)
    assert device_waits_check(waited) == [round_.pk]


def test_refusals_are_printed_and_the_loop_goes_on(monkeypatch):
    sb = sic_bo_floor(monkeypatch)
    lines: list[str] = []
    send = client_send(Client())

    def tampered(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        if f'"device":{sb.lamp.pk}' in body.decode():
            headers = {**headers, signing.SIGNATURE: "0" * 64}
        return send(path, body, headers)

    tally = simulation_start(
        holder=sb.holder.name, send=tampered, write=lines.append, quiet=["none"],
        clock=sb.clock, wait=sb.clock.wait, seconds=4,
    ).run()  # fmt: skip

    assert tally.heartbeats[401] >= 3 and tally.heartbeats[204] >= 3
    refused = [line for line in lines if "heartbeat refused, 401" in line]
    assert len(refused) == 1  # printed when it changes, counted after
    assert '"detail": "the signature does not match the request"' in refused[0]
    assert "refused (401: " in lines[-1]


def test_a_server_that_does_not_answer_is_retried(monkeypatch):
    sb = sic_bo_floor(monkeypatch)
    lines: list[str] = []
    send = client_send(Client())

    def flaky(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        if sb.clock.now - sb.clock.start < 5:
            raise ServerDown("[Errno 111] Connection refused")
        return send(path, body, headers)

    tally = simulation_start(
        holder=sb.holder.name, send=flaky, write=lines.append, quiet=["none"],
        clock=sb.clock, wait=sb.clock.wait, seconds=8,
    ).run()  # fmt: skip

    assert 2 <= tally.unreachable <= 3  # once every 3 s, not once per device and beat
    assert tally.heartbeats[204] >= 4
    assert sum("does not answer" in line for line in lines) == 1
    assert sum("answers again" in line for line in lines) == 1
    assert sb.clock.waits < 60  # no spinning while it is down


def test_the_start_refuses_clearly(monkeypatch):
    sb = sic_bo_floor(monkeypatch)
    common = {"send": client_send(Client()), "write": print, "clock": sb.clock}
    with pytest.raises(CommandError, match="no certificate holder 'Nowhere'"):
        simulation_start(holder="Nowhere", **common)
    with pytest.raises(CommandError, match="serial number NOPE"):
        simulation_start(holder=sb.holder.name, quiet=["NOPE"], **common)
    with pytest.raises(CommandError, match="serial number NOPE"):
        simulation_start(holder=sb.holder.name, reports_off=["NOPE"], **common)
    operations().groups.clear()
    with pytest.raises(CommandError, match="no active user may rotate"):
        simulation_start(holder=sb.holder.name, **common)
    assert DeviceCredential.objects.filter(device=sb.lamp).count() == 1  # nothing rotated


class _Floor(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # kept alive
    seen: list[tuple[str, dict[str, str], bytes, int]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        port = self.client_address[1]
        self.seen.append((self.path, dict(self.headers), body, port))
        if json.loads(body)["device"] == 2:
            answer = json.dumps({"status": 422, "code": "refused", "detail": "no"}).encode()
            self.send_response(422)
            self.send_header("Content-Type", "application/json")
        else:
            answer = b""
            self.send_response(204)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


def test_the_http_sender_signs_over_one_kept_alive_connection():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Floor)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        send = HttpSender(f"http://127.0.0.1:{server.server_port}")
        for device in (1, 2, 1):
            body = json.dumps({"device": device}).encode()
            headers = signing.signed_headers(
                "dk_testtesttest", "s", "POST", "/x", body, time.time()
            )
            answer = send("/devices/v1/heartbeat", body, headers)
            assert answer[0] == (422 if device == 2 else 204)
        send.close()
    finally:
        server.shutdown()
        server.server_close()
    assert [path for path, *_ in _Floor.seen] == ["/devices/v1/heartbeat"] * 3
    assert len({port for *_, port in _Floor.seen}) == 1  # one connection for all three
    _, headers, body, _ = _Floor.seen[0]
    assert headers[signing.KEY] == "dk_testtesttest" and len(headers[signing.SIGNATURE]) == 64
    assert body == b'{"device": 1}'


def test_the_command_rotates_and_waits_for_a_server_that_is_down(monkeypatch):
    sb = sic_bo_floor(monkeypatch, now=time.time())
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = StringIO()
    call_command(
        "simulate_devices", "--url", f"http://127.0.0.1:{port}", "--holder", sb.holder.name,
        "--seconds", "1.1", "--quiet", "none", stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "rotated 2 credentials" in text
    assert f"http://127.0.0.1:{port} does not answer" in text
    assert "stopped after" in text and "got no answer" in text
    assert DeviceCredential.objects.filter(device=sb.shaker).count() == 2


# --- several senders (--processes) -------------------------------------------------------------


def played(tables: dict[int, int]) -> list[Simulated]:
    """Simulated devices: so many at each table id."""
    return [
        Simulated(
            device_id=100 * table + n, kind="illumination_device", serial=f"S-{table}-{n}",
            label=f"lamp {table}/{n}", table_id=table, table=f"SB-{table:02}",
            status_at_start="active", key_id=f"dk_{table}_{n}", secret="s", interval=1.0,
        )
        for table, count in tables.items()
        for n in range(count)
    ]  # fmt: skip


def test_the_shares_hold_every_device_exactly_once_a_table_s_devices_together():
    devices = played({1: 5, 2: 1, 3: 2, 4: 2, 5: 4, 6: 1, 7: 3})
    for processes in range(1, 10):
        shares = shares_of(devices, processes)
        assert len(shares) == min(processes, 7)
        ids = [d.device_id for share in shares for d in share]
        assert sorted(ids) == sorted(d.device_id for d in devices)  # each once, none lost
        for share in shares:
            tables = {d.table_id for d in share}
            assert all(sum(d.table_id == t for d in share) == sum(d.table_id == t for d in devices)
                       for t in tables)  # fmt: skip
            assert share == [d for d in devices if d.table_id in tables]  # the given order
        sizes = [len(share) for share in shares]
        assert max(sizes) - min(sizes) <= 5  # within the largest table
    assert [len(s) for s in shares_of(devices, 2)] == [9, 9]
    assert [len(s) for s in shares_of(devices, 3)] == [6, 6, 6]


SIDE_BY_SIDE = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def three_tables() -> CertificateHolder:
    """SB-01 to SB-03, each with its lamp and its automated shaker: six devices."""
    built = datetime.now(UTC) - timedelta(minutes=10)
    for number in ("SB-01", "SB-02", "SB-03"):
        floor = compliant_table("sic_bo", number=number, automated_shaker=True, now=built)
    assert Device.objects.count() == 6
    return floor.holder


def file_sender(path):
    """A sender factory for the forked senders: each heartbeat a line "pid device" in `path`
    (appended, so the processes' lines do not mix), answered 204."""

    def sender():
        def send(url_path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
            with open(path, "a") as out:
                out.write(f"{os.getpid()} {json.loads(body)['device']}\n")
            return 204, b""

        return send

    return sender


def file_writer(path):
    def write(line: str) -> None:
        with open(path, "a") as out:
            out.write(line + "\n")

    return write


@SIDE_BY_SIDE
def test_several_processes_send_side_by_side_each_device_from_one_until_a_signal(tmp_path):
    holder = three_tables()
    out = tmp_path / "out.log"
    simulator = simulation_start(
        holder=holder.name, send=file_sender(tmp_path / "unused")(), write=file_writer(out),
        quiet=["none"],
    )  # fmt: skip
    # SIGTERM to this (the parent) process 2.5 s in: it passes it on to its senders.
    alarm = signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGTERM))
    signal.setitimer(signal.ITIMER_REAL, 2.5)
    try:
        tally = simulation_fork(simulator, 3, sender=file_sender(tmp_path / "sent.log"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, alarm)

    sent = [line.split() for line in (tmp_path / "sent.log").read_text().splitlines()]
    by_device: dict[int, set[str]] = {}
    for pid, device in sent:
        by_device.setdefault(int(device), set()).add(pid)
    assert set(by_device) == set(Device.objects.values_list("pk", flat=True))
    assert all(len(pids) == 1 for pids in by_device.values())  # each from one process
    senders = {pid for pids in by_device.values() for pid in pids}
    assert len(senders) == 3 and str(os.getpid()) not in senders
    assert all(sum(d == device for _, d in sent) >= 2 for device in map(str, by_device))
    assert tally.heartbeats == {204: len(sent)}
    lines = out.read_text().splitlines()
    assert sum("rotated 6 credentials" in line for line in lines) == 1
    for number in (1, 2, 3):
        tagged = [line for line in lines if f"[{number}/3] " in line]
        assert any("SIGTERM: stopped after the current request" in line for line in tagged)
        assert any(re.search(r"stopped after [23] s: heartbeats \d+ sent", x) for x in tagged)
    assert "SIGTERM: stopped after the current request" in lines[-2]
    assert f"3 senders: heartbeats {len(sent)} sent, {len(sent)} accepted, 0 refused" in lines[-1]


@SIDE_BY_SIDE
def test_a_sender_that_fails_stops_the_others_and_the_command_fails(tmp_path):
    holder = three_tables()
    first = Device.objects.order_by("pk").first()
    simulator = simulation_start(
        holder=holder.name, send=file_sender(tmp_path / "unused")(),
        write=file_writer(tmp_path / "out.log"), quiet=["none"],
    )  # fmt: skip
    working = file_sender(tmp_path / "sent.log")

    def sender():
        send = working()

        def failing(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
            if json.loads(body)["device"] == first.pk:
                raise RuntimeError("a bug in the sender")
            return send(path, body, headers)

        return failing

    started = time.monotonic()
    with pytest.raises(CommandError, match=r"^sender \d/2 ended with exit status 1$"):
        simulation_fork(simulator, 2, sender=sender)  # seconds=0: until stopped
    assert time.monotonic() - started < 10
    assert "RuntimeError: a bug in the sender" not in (tmp_path / "out.log").read_text()


def test_the_command_refuses_fewer_than_one_process():
    with pytest.raises(CommandError, match="--processes must be 1 or more"):
        call_command("simulate_devices", "--processes", "0")
