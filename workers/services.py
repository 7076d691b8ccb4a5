"""Worker self-check services: send pings, record answers, forget old ones."""

import os
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.celery import app
from workers.models import WorkerPing

PING_RETENTION = timedelta(days=7)
PING_ANSWER_TASK = "monitoring.worker_ping_answer"


def worker_ping_send(*, queue: str) -> WorkerPing:
    """Write a ping row and, once it is committed, send it to a worker on `queue`."""
    if queue not in settings.CELERY_QUEUE_NAMES:
        raise ValueError(
            f"unknown queue {queue!r}; queues: {', '.join(settings.CELERY_QUEUE_NAMES)}"
        )
    with transaction.atomic():
        ping = WorkerPing.objects.create(queue=queue, sent_at=timezone.now())
        transaction.on_commit(lambda: app.send_task(PING_ANSWER_TASK, args=[ping.pk], queue=queue))
    return ping


def worker_ping_answer(*, ping_id: int, worker: str) -> bool:
    """Record the answer once: a second delivery of the same ping changes nothing."""
    answered = WorkerPing.objects.filter(pk=ping_id, answered_at__isnull=True).update(
        answered_at=timezone.now(), answered_by=worker, answered_pid=os.getpid()
    )
    return answered == 1


def worker_pings_purge(*, older_than: timedelta = PING_RETENTION) -> int:
    """Delete pings sent before `older_than` ago; returns how many."""
    deleted, _ = WorkerPing.objects.filter(sent_at__lt=timezone.now() - older_than).delete()
    return deleted
