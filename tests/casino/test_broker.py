"""The embedded broker writes each message whole before a consumer can see it (casino/broker.py)."""

import json
import os

from django.conf import settings
from kombu import Connection

from casino.broker import Channel


def test_the_embedded_broker_uses_the_atomic_transport():
    embedded = settings.CELERY_BROKER_URL.startswith("filesystem://")
    transport = getattr(settings, "CELERY_BROKER_TRANSPORT", None)
    assert transport == ("casino.broker:Transport" if embedded else None)


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
