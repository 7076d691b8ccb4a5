"""The brokers' transports (casino/broker.py): the embedded one writes each message whole before a
consumer can see it; the Redis one keeps one client a pool and, in a worker, sends its
acknowledgements a moment later, together."""

import json
import logging
import os
import subprocess
import sys
import threading
import time

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue
from kombu.asynchronous import Hub, set_event_loop
from kombu.message import Message
from redis.exceptions import ConnectionError as RedisConnectionError

from casino.broker import AcknowledgingQoS, Channel, RedisChannel
from tests.services import REDIS_URL, require_redis


def test_each_broker_uses_its_transport_of_ours():
    embedded = settings.CELERY_BROKER_URL.startswith("filesystem://")
    transport = getattr(settings, "CELERY_BROKER_TRANSPORT", None)
    assert transport == ("casino.broker:Transport" if embedded else "casino.broker:RedisTransport")


def transport_for(url: str) -> str:
    """settings.CELERY_BROKER_TRANSPORT in a process whose broker is `url` ("" unset)."""
    code = (
        "from django.conf import settings; print(getattr(settings, 'CELERY_BROKER_TRANSPORT', ''))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "casino.settings",
            "CELERY_BROKER_URL": url,
            "DJANGO_DEBUG": "true",
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout.strip()


def test_a_redis_broker_is_configured_with_the_transport_that_keeps_its_clients():
    assert transport_for("redis://127.0.0.1:6379/3") == "casino.broker:RedisTransport"


def test_a_tls_broker_keeps_kombu_s_own_transport_and_its_tls():
    # kombu turns TLS on for a transport named "rediss" only: ours would talk plain TCP.
    url = "rediss://:pw@127.0.0.1:6380/0"
    assert transport_for(url) == ""
    connection = Connection(url)
    assert connection.transport_cls == "rediss"
    assert connection.ssl  # kombu's TLS parameters, which a named transport would lose


@pytest.mark.integration
def test_the_redis_transport_keeps_one_client_a_pool_and_delivers_and_acknowledges():
    require_redis()
    with Connection(REDIS_URL, transport="casino.broker:RedisTransport") as connection:
        channel = connection.default_channel
        assert isinstance(channel, RedisChannel)
        kept = channel._create_client()
        assert channel._create_client() is kept  # not a new redis.Redis a command
        assert channel._create_client(asynchronous=True) is channel.client
        assert kept.connection_pool is channel.pool

        queue = Queue("broker-test", Exchange("broker-test"), routing_key="broker-test")
        with connection.Producer() as producer:
            for number in range(3):
                producer.publish(
                    {"n": number}, exchange=queue.exchange, routing_key="broker-test",
                    declare=[queue],
                )  # fmt: skip
        received = []

        def acknowledged(body: dict, message: Message) -> None:
            received.append(body["n"])
            message.ack()

        with connection.Consumer(queue, callbacks=[acknowledged]):
            for _ in range(3):
                connection.drain_events(timeout=5)
        assert received == [0, 1, 2]
        # No worker's event loop here: each acknowledgement is sent at once, as kombu's.
        assert (kept.hlen("unacked"), kept.zcard("unacked_index")) == (0, 0)

        channel._pool = None  # as a reconnection leaves it: the next pool gets its client
        again = channel._create_client()
        assert again is not kept and again.connection_pool is channel.pool
        channel.client.delete("broker-test", "_kombu.binding.broker-test")


def test_a_message_appears_under_its_final_name_only_once_written(tmp_path, monkeypatch):
    seen_while_writing = []
    real_open = open

    def spying_open(path, mode="r", *args, **kwargs):
        # While the payload is written, no file a consumer would take (".msg") exists yet.
        seen_while_writing.append(sorted(n for n in os.listdir(tmp_path) if n.endswith(".msg")))
        return real_open(path, mode, *args, **kwargs)

    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}
    with Connection("filesystem://", transport="casino.broker:Transport",
                    transport_options=options) as connection:  # fmt: skip
        channel = connection.default_channel
        assert isinstance(channel, Channel)
        monkeypatch.setattr("builtins.open", spying_open)
        channel._put("settlement", {"body": "x"})
        monkeypatch.undo()
        names = os.listdir(tmp_path)
        assert seen_while_writing == [[]]
        assert len(names) == 1 and names[0].endswith(".settlement.msg")
        assert json.loads((tmp_path / names[0]).read_text()) == {"body": "x"}
        assert channel._get("settlement") == {"body": "x"}


def published(connection: Connection, name: str, count: int) -> Queue:
    queue = Queue(name, Exchange(name), routing_key=name)
    with connection.Producer() as producer:
        for number in range(count):
            producer.publish(
                {"n": number}, exchange=queue.exchange, routing_key=name, declare=[queue]
            )
    return queue


def taken(connection: Connection, queue: Queue, count: int, ack: bool = True) -> list[Message]:
    messages: list[Message] = []

    def keep(body: dict, message: Message) -> None:
        messages.append(message)
        if ack:
            message.ack()

    with connection.Consumer(queue, callbacks=[keep]):
        while len(messages) < count:
            connection.drain_events(timeout=5)
    return messages


def wait_for(check, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.01)


UNACKED, UNACKED_INDEX = "ack-unacked", "ack-unacked_index"  # the tests' own, not kombu's


@pytest.fixture
def redis_broker():
    """(connection, its channel, a Redis client): the test's queues and unacknowledged
    ("ack-...", kombu's keys for them renamed) emptied before and after."""
    require_redis()
    options = {
        "unacked_key": UNACKED,
        "unacked_index_key": UNACKED_INDEX,
        "unacked_mutex_key": "ack-unacked_mutex",
    }
    with Connection(
        REDIS_URL, transport="casino.broker:RedisTransport", transport_options=options
    ) as connection:
        client = connection.default_channel._create_client()

        def empty() -> None:
            keys = client.keys("ack-*") + client.keys("_kombu.binding.ack-*")
            if keys:
                client.delete(*keys)

        empty()
        yield connection, connection.default_channel, client
        empty()


@pytest.fixture
def worker_loop(redis_broker):
    """A worker's event loop polling the test's connection, as Celery's worker sets it up:
    kombu's current loop (celery.worker.components.Hub) and registered with the connection
    (kombu.asynchronous, asynloop)."""
    connection, _, _ = redis_broker
    loop = Hub()
    set_event_loop(loop)
    connection.transport.register_with_event_loop(connection.connection, loop)
    yield loop
    set_event_loop(None)
    loop.close()


def timers_fire(loop: Hub) -> None:
    """What the loop does between two polls, once the acknowledgements' moment has come."""
    time.sleep(AcknowledgingQoS.later * 2)
    loop.fire_timers()


def unacknowledged(client) -> tuple[int, int]:
    return client.hlen(UNACKED), client.zcard(UNACKED_INDEX)


@pytest.mark.integration
def test_in_a_worker_acknowledgements_are_sent_together_a_moment_later(
    redis_broker, worker_loop, monkeypatch
):
    connection, channel, client = redis_broker
    queue = published(connection, "ack-later", 3)
    channel.basic_qos(prefetch_count=3)  # as a worker's prefetch limits it
    sends: list[list[str]] = []
    real = channel.conn_or_acquire

    def counted(client=None):
        sends.append(list(channel.qos.acks_waiting))
        return real(client)

    messages = taken(connection, queue, 3)
    assert [m.payload["n"] for m in messages] == [0, 1, 2]
    assert all(m.acknowledged for m in messages)
    # Not sent yet: the loop goes on first, and the worker takes no message in their place
    # (kombu's count of messages in hand, its prefetch, still holds them).
    assert unacknowledged(client) == (3, 3)
    channel.qos._flush()  # kombu's own tidying of what was acknowledged
    assert len(channel.qos._delivered) == 3 and not channel.qos.can_consume()
    monkeypatch.setattr(channel, "conn_or_acquire", counted)
    timers_fire(worker_loop)
    assert unacknowledged(client) == (0, 0)
    assert sends == [[]]  # one MULTI for the three, the list taken before it
    channel.qos._flush()
    assert not channel.qos._delivered and channel.qos.can_consume()  # not its to restore


@pytest.mark.integration
def test_a_loop_that_does_not_poll_the_connection_does_not_hold_its_acknowledgements(
    redis_broker,
):
    # A prefork pool process inherits the worker's loop as kombu's current one and never
    # runs it: a consumer in a task must not wait for it (prefetch 1: the second message
    # comes only once the first is acknowledged).
    connection, channel, client = redis_broker
    set_event_loop(Hub())
    try:
        queue = published(connection, "ack-pool", 2)
        channel.basic_qos(prefetch_count=1)
        assert [m.payload["n"] for m in taken(connection, queue, 2)] == [0, 1]
        assert unacknowledged(client) == (0, 0)
    finally:
        set_event_loop(None)


@pytest.mark.integration
def test_an_acknowledgement_made_off_the_loop_s_thread_is_sent_at_once(redis_broker, worker_loop):
    # kombu's timers belong to the loop's thread (a threads pool acknowledges from its own).
    connection, channel, client = redis_broker
    queue = published(connection, "ack-thread", 1)
    [message] = taken(connection, queue, 1, ack=False)
    acknowledging = threading.Thread(target=message.ack)
    acknowledging.start()
    acknowledging.join(5)
    assert unacknowledged(client) == (0, 0) and not channel.qos.acks_waiting


@pytest.mark.integration
def test_acknowledgements_held_past_their_moment_go_with_the_next(redis_broker, worker_loop):
    # Should the loop lose the timer (its timers cleared), the next acknowledgement made a
    # second later sends them all.
    connection, channel, client = redis_broker
    queue = published(connection, "ack-overdue", 2)
    [first, second] = taken(connection, queue, 2, ack=False)
    first.ack()
    worker_loop.timer.clear()
    channel.qos.acks_since -= AcknowledgingQoS.overdue + 1
    second.ack()
    assert unacknowledged(client) == (0, 0) and not channel.qos.acks_waiting


@pytest.mark.integration
def test_acknowledgements_waiting_when_the_channel_closes_are_sent_and_nothing_is_restored(
    redis_broker, worker_loop
):
    connection, channel, client = redis_broker
    queue = published(connection, "ack-close", 3)
    taken(connection, queue, 3)
    assert unacknowledged(client) == (3, 3)  # acknowledged, not yet sent
    channel.close()
    assert unacknowledged(client) == (0, 0)
    assert client.llen("ack-close") == 0  # none put back on the queue


@pytest.mark.integration
@pytest.mark.parametrize("restore", ["at exit", "recover"])
def test_acknowledgements_waiting_when_kombu_puts_back_what_it_holds_are_sent_first(
    redis_broker, worker_loop, restore
):
    # kombu puts back what a consumer holds unacknowledged from a finalizer at the process's
    # exit (without closing the channel) and on basic_recover: only what is not acknowledged.
    connection, channel, client = redis_broker
    queue = published(connection, "ack-exit", 2)
    acknowledged, held = taken(connection, queue, 2, ack=False)
    acknowledged.ack()
    if restore == "at exit":
        channel.qos.restore_unacked_once()
    else:
        channel.basic_recover(requeue=True)
    assert unacknowledged(client) == (0, 0)
    assert client.llen("ack-exit") == 1  # the one held, not the one acknowledged
    [back] = taken(connection, queue, 1)
    assert back.payload == held.payload == {"n": 1} and acknowledged.payload == {"n": 0}


@pytest.mark.integration
def test_an_acknowledgement_redis_did_not_take_is_logged_and_its_message_comes_back(
    redis_broker, worker_loop, monkeypatch, caplog
):
    connection, channel, client = redis_broker
    queue = published(connection, "ack-lost", 2)
    [first] = taken(connection, queue, 1)
    real = channel.conn_or_acquire

    def redis_gone(client=None):
        raise RedisConnectionError("Redis went away")

    monkeypatch.setattr(channel, "conn_or_acquire", redis_gone)
    with caplog.at_level(logging.ERROR, logger="casino.broker"):
        timers_fire(worker_loop)  # does not raise into the loop
    assert "1 acknowledgements not sent to Redis" in caplog.text
    monkeypatch.setattr(channel, "conn_or_acquire", real)
    [second] = taken(connection, queue, 1)  # the next one is sent as before
    timers_fire(worker_loop)
    assert [t.decode() for t in client.hkeys(UNACKED)] == [first.delivery_tag]
    # It stays among the unacknowledged, so kombu puts it back once the visibility timeout
    # has passed, as for a worker killed before its acknowledgement.
    client.zadd(UNACKED_INDEX, {first.delivery_tag: time.time() - 3600})
    channel.qos.restore_visible(num=10, interval=1)  # not throttled (kombu scans every 10th)
    assert unacknowledged(client) == (0, 0)
    [again] = taken(connection, queue, 1)
    assert again.payload == first.payload == {"n": 0} and second.payload == {"n": 1}
