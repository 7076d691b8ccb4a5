"""Celery tasks of the worker self-check. Tasks take ids, call one service."""

from celery import shared_task
from django.conf import settings

from workers import services


@shared_task(name=services.PING_ANSWER_TASK, ignore_result=True)
def worker_ping_answer_task(ping_id: int) -> None:
    """Answer a ping; sent to the queue under test, so its answer proves that queue is served."""
    services.worker_ping_answer(ping_id=ping_id, worker=worker_ping_answer_task.request.hostname)


@shared_task(name="monitoring.worker_ping_round", ignore_result=True)
def worker_ping_round_task() -> None:
    """Beat's self-check: a ping on every queue, and pings older than a week forgotten."""
    for queue in settings.CELERY_QUEUE_NAMES:
        services.worker_ping_send(queue=queue)
    services.worker_pings_purge()


@shared_task(name="monitoring.equipment_schedule_check", ignore_result=True)
def equipment_schedule_check_task() -> dict[str, int]:
    """Beat's look at every set in play: in date, due soon or overdue (§ 675a.3(b)(1) ...)."""
    from django.utils import timezone

    from casino.services.equipment import schedule_check

    return schedule_check(timezone.now())
