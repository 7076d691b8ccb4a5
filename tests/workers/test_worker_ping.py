"""The worker self-check's services and tasks, run in-process against the test database."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from workers.models import WorkerPing
from workers.services import worker_ping_answer, worker_ping_send, worker_pings_purge
from workers.tasks import worker_ping_round_task

pytestmark = pytest.mark.django_db


def queued_messages() -> list[Path]:
    """Messages waiting in the embedded filesystem broker of the test settings."""
    return sorted((settings.BROKER_DIR / "queue").glob("*.msg"))


@pytest.fixture
def empty_broker():
    for message in queued_messages():
        message.unlink()
    yield
    for message in queued_messages():
        message.unlink()


def test_a_ping_is_sent_only_after_its_row_is_committed(
    empty_broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ping = worker_ping_send(queue="settlement")
    assert WorkerPing.objects.filter(pk=ping.pk, answered_at__isnull=True).exists()
    assert queued_messages() == []  # nothing left before the commit
    for callback in callbacks:
        callback()
    (message,) = queued_messages()
    assert message.name.endswith(".settlement.msg")
    assert b"monitoring.worker_ping_answer" in message.read_bytes()


def test_an_unknown_queue_is_refused_and_nothing_is_written():
    with pytest.raises(ValueError, match="unknown queue 'payouts'"):
        worker_ping_send(queue="payouts")
    assert WorkerPing.objects.count() == 0


def test_a_second_delivery_of_the_same_ping_changes_nothing():
    ping = WorkerPing.objects.create(queue="default", sent_at=timezone.now())
    assert worker_ping_answer(ping_id=ping.pk, worker="w1@host") is True
    first = WorkerPing.objects.get(pk=ping.pk)
    assert worker_ping_answer(ping_id=ping.pk, worker="w2@host") is False
    again = WorkerPing.objects.get(pk=ping.pk)
    assert (again.answered_by, again.answered_at) == ("w1@host", first.answered_at)


def test_the_beat_round_pings_every_queue_and_forgets_pings_older_than_a_week(
    empty_broker, django_capture_on_commit_callbacks
):
    now = timezone.now()
    old = WorkerPing.objects.create(queue="default", sent_at=now - timedelta(days=7, seconds=1))
    kept = WorkerPing.objects.create(queue="default", sent_at=now - timedelta(days=6))
    with django_capture_on_commit_callbacks(execute=True):
        worker_ping_round_task()
    assert not WorkerPing.objects.filter(pk=old.pk).exists()
    assert WorkerPing.objects.filter(pk=kept.pk).exists()
    sent = WorkerPing.objects.exclude(pk=kept.pk).values_list("queue", flat=True)
    assert sorted(sent) == ["default", "monitoring", "settlement", "webhooks"]
    assert len(queued_messages()) == 4


def test_purge_returns_how_many_it_deleted():
    now = timezone.now()
    WorkerPing.objects.create(queue="default", sent_at=now - timedelta(days=30))
    WorkerPing.objects.create(queue="default", sent_at=now)
    assert worker_pings_purge() == 1


def test_latency_is_known_once_answered():
    sent = timezone.now()
    ping = WorkerPing(queue="default", sent_at=sent)
    assert ping.latency_ms is None
    ping.answered_at = sent + timedelta(milliseconds=250)
    assert ping.latency_ms == 250
