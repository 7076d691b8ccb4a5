"""Redis killed and restarted empty under the signed device endpoints (issue 19, point 1).

A private redis-server (a free port, no persistence) holds the heartbeat store; it is
killed with SIGKILL and started again empty, as a crashed Redis without persistence comes
back. Between the two: a heartbeat captured before the kill and replayed after it, inside
the 30 s clock window, must be refused, and so must a key revoked before the kill (or
while Redis was down) that this process still holds in its credential cache.
"""

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
from django.test import override_settings

from devices import signing, views
from devices.services import credential_revoke
from devices.store import RedisStore, store
from tests.casino.floor_fixtures import T0, operations
from tests.devices.device_fixtures import register
from tests.devices.test_signed_requests import (
    HEARTBEAT,
    NOW,
    beat,
    headers_for,
    post,
    table_of,
)
from tests.services import (
    ROOT,
    in_ci,
    manage,
    postgres_database,
    project_env,
    require_postgres,
)

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


class PrivateRedis:
    """A redis-server of this test's own on a free port, which the test may kill."""

    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it empty (no RDB, no AOF) and wait until it answers."""
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("the private redis-server did not start") from None
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: it loses everything it held."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    try:
        subprocess.run(["redis-server", "--version"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        message = f"redis-server is not installed ({error}); install it to run this test"
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def redis_backed(private_redis: PrivateRedis, endpoint_clock) -> Iterator[RedisStore]:
    with override_settings(
        CASINO_DEVICE_STORE_URL=private_redis.url, CASINO_DEVICE_STORE_PREFIX="casino:devices:"
    ):
        store.cache_clear()
        found = store()
        assert isinstance(found, RedisStore)
        found.begin(NOW - 3600)
        try:
            yield found
        finally:
            store.cache_clear()


def test_a_replay_and_revoked_keys_are_refused_after_redis_is_killed_and_restarted_empty(
    client, private_redis, redis_backed, endpoint_clock, django_capture_on_commit_callbacks
):
    clock = endpoint_clock
    table = table_of("SB-01", "sic_bo", "standard", automated_shaker=True)
    shaker = register(table, "automated_shaker", now=T0)
    light = register(table, "illumination_device", now=T0)
    other = table_of("SB-02", "sic_bo", "standard", automated_shaker=True)
    other_light = register(other, "illumination_device", now=T0)
    for device in (shaker, light, other_light):
        assert beat(client, device).status_code == 204  # each credential now cached here

    # Revoked before the kill: the store hears of it.
    clock.now = NOW + 1
    with django_capture_on_commit_callbacks(execute=True):
        credential_revoke(light.credential, by=operations(), now=T0 + timedelta(seconds=1))
    # The capture: a good heartbeat, taken, its headers kept.
    clock.now = NOW + 2
    body = {"device": shaker.device.pk}
    captured = headers_for(shaker, HEARTBEAT, body)
    assert post(client, HEARTBEAT, body, captured).status_code == 204

    private_redis.kill()
    clock.now = NOW + 3
    down = beat(client, shaker)
    assert (down.status_code, down.json()["code"]) == (503, "store_unavailable")
    # Revoked while Redis is down: the store cannot hear of it (logged), the database can.
    with django_capture_on_commit_callbacks(execute=True):
        credential_revoke(other_light.credential, by=operations(), now=T0 + timedelta(seconds=3))
    private_redis.start()
    assert redis.Redis(port=private_redis.port).dbsize() == 0  # back, and empty

    # The replay, 8 s after it was signed (inside the 30 s window): refused, nothing written.
    clock.now = NOW + 10
    replay = post(client, HEARTBEAT, body, captured)
    assert (replay.status_code, replay.json()["code"]) == (401, "signature_refused")
    assert replay.json()["detail"] == views.BEFORE_START
    assert redis_backed.seen("automated_shaker") == {}
    # Both revoked keys, still in this process's credential cache: refused.
    for revoked in (light, other_light):
        refused = beat(client, revoked)
        assert refused.status_code == 401
        assert "revoked or has expired" in refused.json()["detail"]
    # The shaker signs afresh: taken, and the store is back at work.
    clock.now = NOW + 11
    assert beat(client, shaker).status_code == 204
    assert redis_backed.seen("automated_shaker") == {shaker.device.pk: NOW + 11}


# --- The same through real gunicorn workers and PostgreSQL ------------------------------------

SETUP = """
import json
from tests.casino.floor_fixtures import T0
from tests.devices.device_fixtures import register
from tests.services import (
    ROOT,
    in_ci,
    manage,
    postgres_database,
    project_env,
    require_postgres,
)
from tests.devices.test_signed_requests import table_of
table = table_of("SB-01", "sic_bo", "standard", automated_shaker=True)
made = [register(table, kind, now=T0) for kind in ("automated_shaker", "illumination_device")]
print(json.dumps([[d.key_id, d.secret, d.device.pk] for d in made]))
"""

REVOKE = """
from django.utils import timezone
from devices.models import DeviceCredential
from devices.services import credential_revoke
from tests.casino.floor_fixtures import operations
credential = DeviceCredential.objects.get(key_id={key_id!r})
credential_revoke(credential, by=operations(), now=timezone.now())
"""


def http_post(base: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    """POST to the server; (status, JSON body or {})."""
    request = urllib.request.Request(
        base + path, data=body, method="POST",
        headers={"Content-Type": "application/json", **headers},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, {}
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"{}")


def signed_beat(device: list, at: float | None = None) -> tuple[bytes, dict[str, str]]:
    key_id, secret, device_id = device
    body = json.dumps({"device": device_id}).encode()
    now = time.time() if at is None else at
    return body, signing.signed_headers(key_id, secret, "POST", HEARTBEAT, body, now)


def beats(base: str, device: list, count: int) -> list[int]:
    """`count` fresh heartbeats (spread over the workers); their statuses."""
    return [http_post(base, HEARTBEAT, *signed_beat(device))[0] for _ in range(count)]


def test_through_gunicorn_a_replay_and_a_revoked_key_are_refused_after_redis_restarts_empty(
    private_redis, tmp_path
):
    require_postgres()
    with postgres_database() as database_url:
        env = project_env(
            DATABASE_URL=database_url,
            CASINO_DEVICE_STORE_URL=private_redis.url,
            CASINO_DEVICE_KEY="integration-test-device-key-" + "x" * 40,
        )
        manage(env, "migrate", "--noinput")
        shaker, light = json.loads(
            manage(env, "shell", "-c", SETUP).stdout.strip().splitlines()[-1]
        )
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        log = (tmp_path / "gunicorn.log").open("wb")
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "casino.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", "2", "--worker-class", "sync"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    http_post(base, HEARTBEAT, *signed_beat(light))
                    break
                except OSError:
                    assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
                    assert time.monotonic() < deadline, "gunicorn did not answer"
                    time.sleep(0.2)
            # The store began at that first request: a request signed in the same second
            # may be one replayed from before, so the devices' next ones are signed later.
            time.sleep(1.1)
            # Both credentials in both workers' caches (several requests reach each worker).
            assert beats(base, shaker, 6) == [204] * 6
            assert beats(base, light, 6) == [204] * 6
            manage(env, "shell", "-c", REVOKE.format(key_id=light[0]))
            assert beats(base, light, 4) == [401] * 4  # the store heard of it

            # The capture.
            captured = signed_beat(shaker)
            assert http_post(base, HEARTBEAT, *captured)[0] == 204
            signed_at = time.time()

            private_redis.kill()
            assert beats(base, shaker, 1) == [503]
            private_redis.start()

            # The replay, well inside the 30 s window.
            status, body = http_post(base, HEARTBEAT, *captured)
            assert time.time() - signed_at < 30
            assert (status, body.get("detail")) == (401, views.BEFORE_START)
            # The revoked key, which both workers hold in their caches: refused.
            status, body = http_post(base, HEARTBEAT, *signed_beat(light))
            assert status == 401
            assert "revoked or has expired" in body["detail"]
            assert beats(base, light, 4) == [401] * 4
            # A fresh heartbeat, signed in a later second than the store began: taken.
            time.sleep(1.1)
            assert beats(base, shaker, 4) == [204] * 4
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()
