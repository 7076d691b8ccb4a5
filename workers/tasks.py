"""Celery tasks: settlement, the sweep, the watches (heartbeats, rounds waiting on a
device), the worker self-check, webhooks. Tasks take ids and call one service (an entry
point: it may import every layer, docs/architecture.md)."""

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone

from casino import db_connections
from casino.services.equipment import schedule_check
from casino.services.notices import notices_send
from casino.services.par import submission_par_fill
from devices.watch import heartbeats_flush
from games.models import SettlementRequest
from games.services.alerts import too_many_sends_record
from games.services.outbox import requests_sweep
from games.services.settlement import request_failure_record, round_settle
from gaming.devices import devices_watch
from gaming.waits import device_waits_check
from webhooks import delivery as webhook_delivery
from webhooks.payloads import event_body
from webhooks.services import DELIVER_TASK, FAN_OUT_TASK
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
    return schedule_check(timezone.now())


# --- settlement -----------------------------------------------------------------------------
# Errors worth a retry: the database went away or a transaction lost a deadlock. A
# SettlementError is not among them: a round the engine refuses on replay needs a person.
# A settlement past its soft time limit is retried too (a slow database, locks).
RETRY_ON = (OperationalError, InterfaceError)
SETTLE_RETRY_ON = (*RETRY_ON, SoftTimeLimitExceeded)
SETTLE_RETRIES = 8
SETTLE_BACKOFF_MAX = 30  # seconds


@shared_task(
    bind=True,
    name="settlement.round_settle",
    ignore_result=True,
    acks_late=True,  # acknowledged once settled: a worker killed mid-task leaves it queued
    reject_on_worker_lost=True,
    max_retries=SETTLE_RETRIES,
    time_limit=60,
    soft_time_limit=45,
)
def round_settle_task(self: Task, request_id: int) -> str:
    """Settle one round by its settlement request's id (never per wager).

    A failure is recorded on the request, which makes it an alert: at once for anything
    but SETTLE_RETRY_ON, after the last retry for those (as "database or broker"). The
    task then returns what failed and raises nothing: it is done, and nothing sends it
    again until a person does.
    """
    try:
        return round_settle(request_id, worker=self.request.hostname or "")
    except SETTLE_RETRY_ON as error:
        _connection_drop_if_broken()
        if self.request.retries < SETTLE_RETRIES:
            countdown = get_exponential_backoff_interval(
                factor=1, retries=self.request.retries, maximum=SETTLE_BACKOFF_MAX, full_jitter=True
            )
            raise self.retry(exc=error, countdown=countdown) from error
        request_failure_record(request_id, error, kind=SettlementRequest.FailureKind.SERVICES)
        return f"failed after {SETTLE_RETRIES} retries: {type(error).__name__}: {error}"
    except Exception as error:  # anything else fails the same way every time: an alert
        request_failure_record(request_id, error)
        return f"failed: {type(error).__name__}: {error}"


def _connection_drop_if_broken() -> None:
    """Close the database connection if the error broke it, or left it in a transaction
    Django does not know of (a soft time limit landing in BEGIN), so the retry (or the
    failure's record) opens a new one: workers keep theirs across tasks
    (CELERY_DB_REUSE_MAX), and Celery's fixup would not look at it for a thousand tasks."""
    if connection.in_atomic_block:  # a caller's transaction (a test's): not ours
        return
    if not db_connections.discard_if_left_open(connection, "settlement.round_settle"):
        connection.close_if_unusable_or_obsolete()


@shared_task(
    name="monitoring.settlement_sweep",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=60,
    soft_time_limit=45,  # below time_limit, or Celery refuses to send it at all
)
def settlement_sweep_task() -> int:
    """Beat's look for settlement requests stuck longer than CASINO_SETTLEMENT_STUCK_SECONDS;
    and a settlement.alert webhook for each newly at CASINO_SETTLEMENT_MAX_SENDS."""
    now = timezone.now()
    sent = requests_sweep(now)
    too_many_sends_record(now)
    return sent


# --- the equipment schedule's notices (casino/services/notices.py) -----------------------


@shared_task(
    name="casino.equipment_notices_send",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=120,  # under the notices' lease (casino/services/notices.py LEASE)
    soft_time_limit=100,
)
def equipment_notices_send_task() -> dict[str, int]:
    """Beat's sweep: email the compliance officers each notice of a set due soon or
    overdue that the schedule check wrote and nobody sent yet (each once)."""
    return notices_send(timezone.now())


# --- PAR sheets -----------------------------------------------------------------------------


@shared_task(
    name="casino.par_sheets_fill",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=120,
    soft_time_limit=100,
)
def par_sheets_fill_task(submission_id: int) -> bool:
    """Store the PAR sheets of a version that has none (the API asked: it never computes)."""
    return submission_par_fill(submission_id)


# --- devices --------------------------------------------------------------------------------


@shared_task(name="monitoring.devices_watch", ignore_result=True, time_limit=30, soft_time_limit=20)
def devices_watch_task() -> dict[str, int]:
    """Beat's look at every device's last heartbeat: stale, active again, first heard."""
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
    return heartbeats_flush(timezone.now())


@shared_task(
    name="monitoring.device_waits_check",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=30,
    soft_time_limit=20,
)
def device_waits_check_task() -> int:
    """Beat's look for rounds waiting on a device past CASINO_DEVICE_WAIT_SECONDS: each
    alert raised once (gaming/waits.py)."""
    return len(device_waits_check(timezone.now()))


# --- webhooks (webhooks/delivery.py) ----------------------------------------------------
# On their own queue, `webhooks`: a slow or dead endpoint holds only these workers. Both
# are idempotent under a row lock, so they are acknowledged once done, and a worker killed
# mid-task leaves the message (and the sweep) to try again.
WEBHOOK_SOFT_LIMIT, WEBHOOK_HARD_LIMIT = webhook_delivery.time_limits()


@shared_task(
    name=FAN_OUT_TASK,
    ignore_result=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=60,
    soft_time_limit=45,
)
def event_fan_out_task(event_id: int) -> str:
    """One event into a delivery per endpoint that wants it; its body built once."""
    return webhook_delivery.event_fan_out(event_id, body_of=event_body, now=timezone.now())


@shared_task(
    name=DELIVER_TASK,
    ignore_result=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=WEBHOOK_HARD_LIMIT,
    soft_time_limit=WEBHOOK_SOFT_LIMIT,
)
def delivery_send_task(delivery_id: int) -> str:
    """One try of one delivery, if it is due (the backoff's retries are the sweep's)."""
    return webhook_delivery.delivery_attempt(delivery_id, now=timezone.now())


@shared_task(
    name="monitoring.webhooks_sweep",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=60,
    soft_time_limit=45,
)
def webhooks_sweep_task() -> dict[str, int]:
    """Beat's look for deliveries due (a backoff passed, a lost message) and lost fan-outs."""
    return webhook_delivery.webhooks_sweep(timezone.now())


@shared_task(
    name="monitoring.webhooks_prune",
    ignore_result=True,
    autoretry_for=RETRY_ON,
    max_retries=3,
    time_limit=600,
    soft_time_limit=540,
)
def webhooks_prune_task() -> int:
    """Beat's pruning of the webhooks' history older than CASINO_WEBHOOK_RETENTION_DAYS."""
    return webhook_delivery.webhooks_prune(timezone.now())
