"""Redis killed and restarted empty under the signed device endpoints (issue 19, point 1).

A private redis-server (a free port, no persistence) holds the heartbeat store; it is
killed with SIGKILL and started again empty, as a crashed Redis without persistence comes
back. Between the two: a heartbeat captured before the kill and replayed after it, inside
the 30 s clock window, must be refused, and so must a key revoked before the kill (or
while Redis was down) that this process still holds in its credential cache.
"""

import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import redis
from django.test import override_settings

from devices import views
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
        pytest.skip(f"redis-server is not installed ({error})")
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
