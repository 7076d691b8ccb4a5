"""The embedded broker writes each message whole before a consumer can see it (casino/broker.py)."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue
from kombu.message import Message

from casino.broker import Channel, RedisChannel
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
