"""Recovery in seconds, not a threshold (issue 19, point 5).

The sweep sends again a request unsettled CASINO_SETTLEMENT_STUCK_SECONDS (10) after its
last send; and when the broker's settlement queue is empty while requests are pending,
their messages are lost (Redis came back empty, a killed worker holds them), so it
sends them again once CASINO_SETTLEMENT_LOST_SECONDS (3) old. Sending again is safe at
any time: settling takes the request's row lock and is a no-op once settled.

The queue's length is read from a real Redis (a private redis-server, flushed as a
Redis that lost its data would be); the sweep's decisions with a recorded broker.
"""

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
import redis
from celery import Celery
from django.conf import settings as django_settings

from games.models import SettlementRequest
from games.services import alerts, outbox
from games.services.outbox import SETTLE_TASK, requests_send, requests_sweep
from tests.games.round_fixtures import M
from tests.games.test_settlement_alerts import RESULT_AT, S, played, request_of
from tests.games.test_settlement_outbox import Broker

pytestmark = pytest.mark.django_db


def test_the_defaults_send_a_lost_round_again_within_15_seconds():
    # Stuck after 10 s, looked at every 2 s: a request is sent again at most 12 s after
    # its last send, whatever the broker says; lost messages after 3 s (+2).
    assert django_settings.CASINO_SETTLEMENT_STUCK_SECONDS == 10
    assert django_settings.CASINO_SETTLEMENT_LOST_SECONDS == 3
    assert django_settings.CELERY_BEAT_SCHEDULE["settlement-sweep"]["schedule"] == 2


@pytest.fixture
def broker(monkeypatch) -> Broker:
    fake = Broker()
    monkeypatch.setattr("games.services.outbox.current_app", fake)
    return fake


@pytest.fixture
def queued(monkeypatch) -> list[int | None]:
    """The settlement queue's length the sweep reads (set [n]; None: the broker can't say)."""
    length: list[int | None] = [None]
    monkeypatch.setattr(outbox, "settlement_queue_length", lambda: length[0])
    return length


def test_with_messages_queued_a_request_is_sent_again_after_the_stuck_threshold(broker, queued):
    request = request_of(played())  # sent once at RESULT_AT
    queued[0] = 40  # a burst ahead of it: its message may still be waiting
    assert requests_sweep(RESULT_AT + 4 * S) == 0
    assert requests_sweep(RESULT_AT + 10 * S) == 0  # not before 10 s
    assert requests_sweep(RESULT_AT + 11 * S) == 1
    request.refresh_from_db()
    assert (request.sends, request.sent_at) == (2, RESULT_AT + 11 * S)
    assert broker.sent == [(SETTLE_TASK, [request.pk])]


def test_an_empty_queue_with_requests_pending_sends_them_again_after_3_seconds(broker, queued):
    request = request_of(played())
    queued[0] = 0  # nothing waits in the broker: the message is lost, or being settled
    assert requests_sweep(RESULT_AT + 3 * S) == 0  # a worker may be settling it now
    assert requests_sweep(RESULT_AT + 4 * S) == 1
    assert broker.sent == [(SETTLE_TASK, [request.pk])]
    # Sent again now: the next look waits its 3 s again (no send at every sweep).
    assert requests_sweep(RESULT_AT + 6 * S) == 0
    assert SettlementRequest.objects.get(pk=request.pk).sends == 2


def test_a_broker_that_cannot_say_leaves_the_threshold_alone(broker, queued):
    request_of(played())
    queued[0] = None
    assert requests_sweep(RESULT_AT + 9 * S) == 0
    assert requests_sweep(RESULT_AT + 11 * S) == 1


def test_a_sweep_by_hand_takes_its_threshold_as_given(broker, queued):
    request_of(played())
    queued[0] = 0
    assert requests_sweep(RESULT_AT + 5 * S, stuck_after=30) == 0
    assert requests_sweep(RESULT_AT + 5 * S, stuck_after=0) == 1


def test_not_sent_again_is_an_alert_after_a_minute_not_at_the_shorter_threshold(broker):
    # 2 x (10 + 2) = 24 s would raise it while beat restarts; the floor is 60 s.
    request = request_of(played())
    assert alerts.request_status(request, RESULT_AT + 60 * S) == alerts.PENDING
    assert alerts.request_status(request, RESULT_AT + 61 * S) == alerts.NOT_SENT_AGAIN


def test_a_request_sent_max_sends_times_is_still_an_alert_at_the_shorter_threshold(
    broker, queued, settings
):
    """MAX_SENDS 10 at 10 s: the result's send, then nine sweeps 11 s apart."""
    queued[0] = 5
    request = request_of(played())
    at = RESULT_AT
    for _ in range(9):
        at += 11 * S
        assert requests_sweep(at) == 1
    at += 11 * S
    assert requests_sweep(at) == 0
    request.refresh_from_db()
    assert request.sends == settings.CASINO_SETTLEMENT_MAX_SENDS == 10
    assert alerts.request_status(request, at) == alerts.TOO_MANY_SENDS


# --- the queue's length, from a real Redis ---------------------------------------------------


@pytest.fixture
def private_redis(tmp_path) -> Iterator[str]:
    """A redis-server of this test's own (flushed here; the shared one is never touched)."""
    if shutil.which("redis-server") is None:
        pytest.fail("no redis-server on PATH: apt-get install redis-server")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(port=port)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_queue_length_is_read_from_redis_and_is_0_after_redis_loses_its_data(
    private_redis, monkeypatch
):
    app = Celery("casino-test", broker=private_redis, set_as_current=False)
    app.conf.update(
        task_queues=django_settings.CELERY_TASK_QUEUES,
        task_routes=django_settings.CELERY_TASK_ROUTES,
        broker_connection_timeout=2,
    )
    monkeypatch.setattr("games.services.outbox.current_app", app)
    assert outbox.settlement_queue_length() == 0
    assert requests_send([11, 12, 13]) == 3
    assert outbox.settlement_queue_length() == 3
    redis.Redis.from_url(private_redis).flushall()  # Redis restarted empty
    assert outbox.settlement_queue_length() == 0
    # A broker that is down cannot say: None, and the sweep keeps its threshold.
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    started = time.monotonic()
    assert outbox.settlement_queue_length() is None
    assert time.monotonic() - started < 10


def test_the_sweep_on_an_empty_redis_queue_sends_a_lost_request_again(private_redis, monkeypatch):
    app = Celery("casino-test", broker=private_redis, set_as_current=False)
    app.conf.update(
        task_queues=django_settings.CELERY_TASK_QUEUES,
        task_routes=django_settings.CELERY_TASK_ROUTES,
    )
    monkeypatch.setattr("games.services.outbox.current_app", Broker())
    request = request_of(played())  # its first message went to a recorder: lost here
    monkeypatch.setattr("games.services.outbox.current_app", app)
    assert requests_sweep(RESULT_AT + 4 * S) == 1
    assert outbox.settlement_queue_length() == 1  # now it waits for a worker
    assert requests_sweep(RESULT_AT + 8 * S) == 0  # queued: 10 s before another
    assert requests_sweep(RESULT_AT + M) == 1
    assert SettlementRequest.objects.get(pk=request.pk).sends == 3
