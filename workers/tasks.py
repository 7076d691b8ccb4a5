"""Celery tasks of the worker self-check. Tasks take ids, call one service."""

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

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


# --- settlement -----------------------------------------------------------------------------
# Errors worth a retry: the database went away or a transaction lost a deadlock. A
# SettlementError is not among them: a round the engine refuses on replay needs a person.
RETRY_ON = (OperationalError, InterfaceError)


@shared_task(
    name="settlement.round_settle",
    ignore_result=True,
    acks_late=True,  # acknowledged once settled: a worker killed mid-task leaves it queued
    reject_on_worker_lost=True,
    autoretry_for=RETRY_ON,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
    time_limit=60,
    soft_time_limit=45,
)
def round_settle_task(request_id: int) -> str:
    """Settle one round by its settlement request's id (never per wager)."""
    from games.services.settlement import round_settle

    return round_settle(request_id, worker=round_settle_task.request.hostname or "")


@shared_task(
    name="monitoring.settlement_sweep",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=60,
    soft_time_limit=45,  # below time_limit, or Celery refuses to send it at all
)
def settlement_sweep_task() -> int:
    """Beat's look for settlement requests stuck longer than CASINO_SETTLEMENT_STUCK_SECONDS."""
    from django.utils import timezone

    from games.services.outbox import requests_sweep

    return requests_sweep(timezone.now())


# --- devices --------------------------------------------------------------------------------


@shared_task(name="monitoring.devices_watch", ignore_result=True, time_limit=30, soft_time_limit=20)
def devices_watch_task() -> dict[str, int]:
    """Beat's look at every device's last heartbeat: stale, active again, first heard."""
    from django.utils import timezone

    from devices.watch import devices_watch

    done = devices_watch(timezone.now())
    return {
        "activated": len(done.activated),
        "stale": len(done.stale),
        "recovered": len(done.recovered),
    }


@shared_task(
    name="monitoring.heartbeats_flush", ignore_result=True, time_limit=60, soft_time_limit=45
)
def heartbeats_flush_task() -> int:
    """Write the heartbeat store's last-seen times back to the Device rows."""
    from django.utils import timezone

    from devices.watch import heartbeats_flush

    return heartbeats_flush(timezone.now())
