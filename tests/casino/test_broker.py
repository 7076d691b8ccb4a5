"""The embedded broker writes each message whole before a consumer can see it (casino/broker.py)."""

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
from kombu.message import Message

from casino import broker
from casino.broker import AcknowledgementSender, Channel, RedisChannel
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
        channel.qos.sender.stop()  # what the acknowledgements' thread holds, sent
        assert (kept.hlen("unacked"), kept.zcard("unacked_index")) == (0, 0)  # all acked

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


@pytest.fixture
def redis_broker():
    require_redis()
    with Connection(REDIS_URL, transport="casino.broker:RedisTransport") as connection:
        client = connection.default_channel._create_client()
        client.delete("unacked", "unacked_index")
        yield connection, client
        client.delete("unacked", "unacked_index")


@pytest.mark.integration
def test_an_acknowledgement_is_sent_to_redis_by_the_thread_not_by_the_caller(
    redis_broker, monkeypatch
):
    connection, client = redis_broker
    channel = connection.default_channel
    queue = published(connection, "ack-thread", 4)
    senders: list[str] = []
    remove = AcknowledgementSender.remove

    def spying(sender: AcknowledgementSender, tags: list[str]) -> None:
        senders.append(threading.current_thread().name)
        remove(sender, tags)

    monkeypatch.setattr(AcknowledgementSender, "remove", spying)
    messages = taken(connection, queue, 4)
    assert [m.payload["n"] for m in messages] == [0, 1, 2, 3]
    wait_for(lambda: client.hlen("unacked") == 0)
    assert client.zcard("unacked_index") == 0
    assert senders and set(senders) == {"broker-acknowledgements"}
    channel.qos._flush()  # kombu's own tidying of what was acknowledged (before a restore)
    assert not channel.qos._delivered  # not this consumer's to restore any more
    channel.client.delete("ack-thread", "_kombu.binding.ack-thread")


@pytest.mark.integration
def test_acknowledgements_waiting_when_the_channel_closes_are_sent_and_nothing_is_restored(
    redis_broker, monkeypatch
):
    connection, client = redis_broker
    queue = published(connection, "ack-close", 3)
    hold = threading.Event()
    remove = AcknowledgementSender.remove

    def held(sender: AcknowledgementSender, tags: list[str]) -> None:
        hold.wait(5)  # the thread busy: the acknowledgements wait for it
        remove(sender, tags)

    monkeypatch.setattr(AcknowledgementSender, "remove", held)
    taken(connection, queue, 3)
    assert client.hlen("unacked") == 3  # acknowledged here, not yet in Redis
    threading.Timer(0.2, hold.set).start()
    connection.default_channel.close()  # waits for the thread; kombu restores nothing
    assert (client.hlen("unacked"), client.zcard("unacked_index")) == (0, 0)
    assert client.llen("ack-close") == 0  # none put back on the queue
    client.delete("ack-close", "_kombu.binding.ack-close")


@pytest.mark.integration
def test_an_acknowledgement_redis_did_not_take_is_logged_and_the_message_comes_back(
    redis_broker, monkeypatch, caplog
):
    connection, client = redis_broker
    channel = connection.default_channel
    queue = published(connection, "ack-lost", 2)
    real = channel.conn_or_acquire
    failures = iter([True])

    def failing_once(client=None):
        if threading.current_thread().name == "broker-acknowledgements" and next(failures, False):
            raise ConnectionError("Redis went away")
        return real(client)

    with caplog.at_level(logging.ERROR, logger="casino.broker"):
        monkeypatch.setattr(channel, "conn_or_acquire", failing_once)
        [first] = taken(connection, queue, 1)
        wait_for(lambda: "acknowledgements not sent to Redis (1 messages)" in caplog.text)
        [second] = taken(connection, queue, 1)  # the thread lives on: the next one is sent
        wait_for(lambda: client.hlen("unacked") == 1)
    assert client.hget("unacked", first.delivery_tag) is not None  # the one Redis missed
    # It stays among the unacknowledged, so kombu puts it back once the visibility
    # timeout has passed, as for a worker killed before its acknowledgement.
    client.zadd("unacked_index", {first.delivery_tag: time.time() - 3600})
    channel.qos.restore_visible(num=10)
    assert client.hlen("unacked") == 0
    [again] = taken(connection, queue, 1)
    assert again.payload == first.payload == {"n": 0} and second.payload == {"n": 1}
    channel.client.delete("ack-lost", "_kombu.binding.ack-lost")


def test_a_forked_copy_of_the_sender_starts_a_thread_of_its_own(monkeypatch):
    sender = AcknowledgementSender(qos=None)  # type: ignore[arg-type]
    sent: list[list[str]] = []
    monkeypatch.setattr(sender, "remove", sent.append)
    sender.send("a")
    wait_for(lambda: sent == [["a"]])
    first, first_tags = sender.thread, sender.tags
    sender.pid = -1  # as in a process forked from this one: the thread did not follow
    sender.send("b")
    assert sender.thread is not first and sender.pid == os.getpid()
    sender.stop()
    assert sent == [["a"], ["b"]]
    first_tags.put(broker._STOP)  # this process's first thread, which a fork would not have
    assert first is not None
    first.join(5)
    assert not first.is_alive()
