"""Getting events to endpoints: the fan-out, one try of a delivery, the circuit breaker, the
sweep that sends what is due or lost, "send again", and the history's pruning.

The rows are the truth and a message is only a nudge, as for settlements (ADR 0005,
0008): every task here is idempotent under a row lock, and beat's sweep sends again
whatever a lost message left behind. A try is three steps, and no lock or transaction is
held while the endpoint answers:

1. claim (a short transaction): the delivery locked (SKIP LOCKED), still pending and due,
   its endpoint on, its circuit closed, fewer than CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT tries
   to it under way; then marked in flight until its lease ends (longer than the task's
   hard time limit, so no second worker takes it while this one may still be trying);
2. the POST (webhooks/sending.py), signed at that moment;
3. record (a short transaction): the try written, the delivery delivered, tried again
   after a backoff, or a dead letter after CASINO_WEBHOOK_MAX_ATTEMPTS; the endpoint's
   failures counted (the circuit breaker) or cleared.

A worker killed during step 2 leaves the delivery in flight: once the lease passes it is
due, and the sweep sends it again (a receiver may then get the message twice, with the
same webhook-id: at least once, never lost).
"""

import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q

from casino import metrics
from casino.services.errors import FloorRefused, permission_check
from webhooks.events import ENDPOINT_DISABLED, endpoint_disabled_data
from webhooks.models import ERROR_LENGTH, Attempt, Delivery, Endpoint, Event
from webhooks.sending import Answer, post, signature_headers
from webhooks.services import (
    DELIVER_TASK,
    FAN_OUT_TASK,
    event_record,
    signing_secrets,
    tasks_send,
)

SEND_AGAIN = "webhooks.change_delivery"
PENDING, DELIVERED, FAILED = (
    Delivery.Status.PENDING,
    Delivery.Status.DELIVERED,
    Delivery.Status.FAILED,
)
TURN = timedelta(seconds=1)  # an endpoint with its tries all under way: a delivery waits this
BATCH = 500
log = logging.getLogger(__name__)

BodyOf = Callable[[Event], str]


def backoff(failed: int) -> timedelta:
    """The wait after the `failed`-th failure in a row: CASINO_WEBHOOK_BACKOFF_SECONDS
    doubled each time, CASINO_WEBHOOK_BACKOFF_MAX_SECONDS at most."""
    base, most = (
        settings.CASINO_WEBHOOK_BACKOFF_SECONDS,
        settings.CASINO_WEBHOOK_BACKOFF_MAX_SECONDS,
    )
    return timedelta(seconds=min(base * 2 ** min(max(failed, 1) - 1, 32), most))


def try_seconds() -> float:
    """The longest a try may take, its deadline: connecting, then answering (the headers
    and the body, however they trickle: webhooks/sending.py)."""
    return settings.CASINO_WEBHOOK_CONNECT_SECONDS + settings.CASINO_WEBHOOK_READ_SECONDS


def database_wait_seconds(database: Mapping[str, Any] | None = None) -> float:
    """How long a statement may wait for another writer's lock before the database fails
    it by itself: SQLite's busy timeout (casino/settings.py: 20 s). None counted on
    PostgreSQL: a try waits there only for rows other tries hold a moment, and a limit
    landing in that wait ends the statement, which Django mends (casino/db_connections.py)."""
    database = settings.DATABASES["default"] if database is None else database
    if database["ENGINE"] != "django.db.backends.sqlite3":
        return 0.0
    return float(database.get("OPTIONS", {}).get("timeout", 5))  # sqlite3's own default


def time_limits() -> tuple[int, int]:
    """The delivery task's soft and hard time limits: the claim's and the record's waits for
    the database's lock (each as long as the database allows), the try, and some for
    resolving the host. So the soft limit never lands in a BEGIN that waited its turn (on
    SQLite that left the file's write lock held: casino/db_connections.py mends it after
    the task); it ends only a try whose host took long to resolve."""
    soft = math.ceil(try_seconds() + 2 * database_wait_seconds()) + 2
    return soft, soft + 3


def lease() -> timedelta:
    """How long a claimed delivery counts as in flight: past the task's hard time limit, so
    no second worker takes it while the first may still be trying."""
    return timedelta(seconds=time_limits()[1] + 2)


# --- fan-out --------------------------------------------------------------------------


def event_fan_out(event_id: int, *, body_of: BodyOf, now: datetime) -> str:
    """One delivery per active endpoint of the event's holder that wants its type, each
    sent once this commits; the body built once (`body_of`). Done once: a second run, or a
    run while another holds the event, changes nothing."""
    with transaction.atomic():
        event = Event.objects.select_for_update(skip_locked=True).filter(pk=event_id).first()
        if event is None:
            exists = Event.objects.filter(pk=event_id).exists()
            return "busy: another worker holds it" if exists else "no such event"
        if event.fanned_out_at is not None:
            return "already fanned out"
        endpoints = [
            endpoint
            for endpoint in Endpoint.objects.filter(holder_id=event.holder_id, active=True)
            if event.event_type in endpoint.events
        ]
        event.body = event.body or body_of(event)
        event.fanned_out_at = now
        event.save(update_fields=["body", "fanned_out_at"])
        made = Delivery.objects.bulk_create(
            Delivery(event=event, endpoint=endpoint, created_at=now, next_attempt_at=now,
                     sent_at=now)
            for endpoint in endpoints
        )  # fmt: skip
        ids = [delivery.pk for delivery in made]
        transaction.on_commit(lambda: tasks_send(DELIVER_TASK, ids))
    return f"{len(ids)} deliveries"


# --- one try ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Claimed:
    """A delivery this worker may try now, with what the try needs."""

    delivery_id: int
    url: str
    body: str
    message_id: str
    secrets: list[str]


def delivery_attempt(delivery_id: int, *, now: datetime) -> str:
    """Try the delivery once if it is due (see the module's docstring); say what happened."""
    claimed = _claim(delivery_id, now)
    if isinstance(claimed, str):
        return claimed
    headers = signature_headers(claimed.message_id, claimed.body, claimed.secrets, now)
    started = time.monotonic()
    try:
        answer = post(claimed.url, claimed.body.encode(), headers)
    except Exception as error:  # the task's soft time limit, anything else: a failed try
        elapsed = int((time.monotonic() - started) * 1000)
        answer = Answer(None, "", f"{type(error).__name__}: {error}"[:ERROR_LENGTH], elapsed)
    return _record(claimed.delivery_id, answer, at=now)


def _claim(delivery_id: int, now: datetime) -> Claimed | str:
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None:
            exists = Delivery.objects.filter(pk=delivery_id).exists()
            return "busy: another worker holds it" if exists else "no such delivery"
        if delivery.status != PENDING:
            return f"already {delivery.status}"
        if delivery.next_attempt_at is not None and delivery.next_attempt_at > now:
            return "not due yet"  # a message sent twice; its own time comes (the sweep)
        endpoint = Endpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
        if not endpoint.active:
            return f"held: the endpoint is {endpoint.status}"
        if endpoint.retry_at is not None and endpoint.retry_at > now:
            delivery.next_attempt_at = endpoint.retry_at
            delivery.save(update_fields=["next_attempt_at"])
            return f"waits: the endpoint's circuit is open until {endpoint.retry_at.isoformat()}"
        in_flight = (
            Delivery.objects.filter(endpoint=endpoint, in_flight_until__gt=now)
            .exclude(pk=delivery.pk)
            .count()
        )
        if in_flight >= settings.CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT:
            delivery.next_attempt_at = now + TURN
            delivery.save(update_fields=["next_attempt_at"])
            return f"waits its turn: {in_flight} tries to the endpoint under way"
        delivery.in_flight_until = delivery.next_attempt_at = now + lease()
        delivery.save(update_fields=["in_flight_until", "next_attempt_at"])
        return Claimed(
            delivery.pk,
            endpoint.url,
            delivery.event.body,
            delivery.event.message_id,
            signing_secrets(endpoint, now),
        )


def _record(delivery_id: int, answer: Answer, *, at: datetime) -> str:
    now = at + timedelta(milliseconds=answer.duration_ms)
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().filter(pk=delivery_id).first()
        if delivery is None:
            return "gone: its endpoint was deleted during the try"
        endpoint = Endpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
        delivery.attempts += 1
        Attempt.objects.create(
            delivery=delivery,
            number=delivery.attempts,
            at=at,
            duration_ms=answer.duration_ms,
            status_code=answer.status,
            response=answer.body,
            error=answer.error,
            succeeded=answer.succeeded,
        )
        delivery.last_attempt_at, delivery.last_status_code = at, answer.status
        delivery.last_response, delivery.last_error = answer.body, answer.error
        delivery.in_flight_until = None
        counted = "delivered" if answer.succeeded else "failed"
        if delivery.status != PENDING:  # sent again and delivered meanwhile: the try is kept
            outcome = f"tried; it was {delivery.status} meanwhile"
        elif answer.succeeded:
            delivery.status, delivery.delivered_at, delivery.next_attempt_at = DELIVERED, now, None
            outcome = f"delivered ({answer.status})"
        elif delivery.attempts >= settings.CASINO_WEBHOOK_MAX_ATTEMPTS:
            delivery.status, delivery.next_attempt_at = FAILED, None
            outcome = f"failed for good after {delivery.attempts} tries (a dead letter)"
            counted = "dead_letter"
        else:
            delivery.next_attempt_at = now + backoff(delivery.attempts)
            outcome = f"failed; tried again at {delivery.next_attempt_at.isoformat()}"
        delivery.save()
        metrics.on_commit(metrics.WEBHOOK_TRIES.labels(counted).inc)
        if answer.succeeded:
            _endpoint_answered(endpoint)
            _next_of(endpoint, now)
        else:
            _endpoint_failed(endpoint, now, answer)
    return outcome


def _endpoint_answered(endpoint: Endpoint) -> None:
    """The circuit closes: the endpoint's failures are forgotten (not a disabling: a
    person enables it again)."""
    if endpoint.failures or endpoint.retry_at is not None:
        endpoint.failures, endpoint.failing_since, endpoint.retry_at = 0, None, None
        endpoint.save(update_fields=["failures", "failing_since", "retry_at"])


def _next_of(endpoint: Endpoint, now: datetime) -> None:
    """An endpoint that answers takes its next due delivery at once (those that waited for
    its circuit, or their turn), not at the next sweep. SKIP LOCKED: a delivery another
    worker holds is being claimed, and that claim waits for this endpoint's lock, held
    here: waiting for it would deadlock (and lose this try's record)."""
    following = list(
        _due(now)
        .filter(endpoint=endpoint, in_flight_until__isnull=True)
        .select_for_update(skip_locked=True, of=("self",))
        .order_by("next_attempt_at", "id")
        .values_list("id", flat=True)[:1]
    )
    if following:
        Delivery.objects.filter(pk__in=following).update(sent_at=now)
        transaction.on_commit(lambda: tasks_send(DELIVER_TASK, following))


def _endpoint_failed(endpoint: Endpoint, now: datetime, answer: Answer) -> None:
    """One more failure in a row: from CASINO_WEBHOOK_BREAKER_FAILURES on, the circuit
    opens (nothing is tried before `retry_at`, a backoff away); failing for
    CASINO_WEBHOOK_DISABLE_AFTER_SECONDS too, the endpoint is disabled, an alert."""
    endpoint.failures += 1
    endpoint.failing_since = endpoint.failing_since or now
    threshold = settings.CASINO_WEBHOOK_BREAKER_FAILURES
    if endpoint.failures >= threshold:
        endpoint.retry_at = now + backoff(endpoint.failures - threshold + 1)
        failing = now - endpoint.failing_since
        if endpoint.active and failing >= timedelta(
            seconds=settings.CASINO_WEBHOOK_DISABLE_AFTER_SECONDS
        ):
            _endpoint_disable(endpoint, now, answer, failing)
    endpoint.save()


def _endpoint_disable(
    endpoint: Endpoint, now: datetime, answer: Answer, failing: timedelta
) -> None:
    last = answer.error or f"answered {answer.status}"
    hours = failing.total_seconds() / 3600
    endpoint.active, endpoint.disabled_at, endpoint.retry_at = False, now, None
    endpoint.disabled_reason = (
        f"{endpoint.failures} tries in a row failed over {hours:.1f} hours (the last: {last}); "
        "enable it again once it answers 2xx"
    )[:500]
    log.warning("webhook endpoint %s disabled: %s", endpoint.pk, endpoint.disabled_reason)
    event_record(
        ENDPOINT_DISABLED,
        holder_id=endpoint.holder_id,
        now=now,
        data=endpoint_disabled_data(
            endpoint=endpoint.pk,
            url=endpoint.url,
            disabled_at=now,
            reason=endpoint.disabled_reason,
            failures=endpoint.failures,
            failing_since=endpoint.failing_since,
        ),
    )


# --- the sweep, send again, pruning -----------------------------------------------------


def _due(now: datetime):
    """Pending deliveries of endpoints that are on, due now and not yet sent for this turn
    (or sent CASINO_WEBHOOK_STUCK_SECONDS ago and never taken: the message was lost)."""
    stuck = now - timedelta(seconds=settings.CASINO_WEBHOOK_STUCK_SECONDS)
    return Delivery.objects.filter(
        status=PENDING, next_attempt_at__lte=now, endpoint__active=True
    ).filter(Q(sent_at__isnull=True) | Q(sent_at__lt=F("next_attempt_at")) | Q(sent_at__lt=stuck))


def webhooks_sweep(now: datetime, batch: int = BATCH) -> dict[str, int]:
    """Send every event whose fan-out was lost, and every delivery whose time has come or
    whose message was lost: at most as many to one endpoint as may be under way at once."""
    stuck = now - timedelta(seconds=settings.CASINO_WEBHOOK_STUCK_SECONDS)
    with transaction.atomic():
        events = list(
            Event.objects.select_for_update(skip_locked=True)
            .filter(fanned_out_at__isnull=True)
            .filter(Q(sent_at__lt=stuck) | Q(sent_at__isnull=True, occurred_at__lt=stuck))
            .order_by("occurred_at")
            .values_list("id", flat=True)[:batch]
        )
        if events:
            Event.objects.filter(pk__in=events).update(sent_at=now)
    with transaction.atomic():
        due = list(
            _due(now)
            .select_for_update(skip_locked=True, of=("self",))
            .order_by("next_attempt_at", "id")
            .values_list("id", "endpoint_id")[:batch]
        )
        chosen = _within_turns(due, now)
        if chosen:
            Delivery.objects.filter(pk__in=chosen).update(sent_at=now)
    # Published once the rows are released: a worker handed one at once must not find it
    # locked by the sweep.
    return {
        "events": tasks_send(FAN_OUT_TASK, events),
        "deliveries": tasks_send(DELIVER_TASK, chosen),
    }


def _within_turns(due: list[tuple[int, int]], now: datetime) -> list[int]:
    """Of the due deliveries, in order, as many per endpoint as may be under way beside
    the tries already in flight."""
    endpoints = {endpoint for _, endpoint in due}
    busy = Counter(
        {
            row["endpoint_id"]: row["n"]
            for row in Delivery.objects.filter(endpoint_id__in=endpoints, in_flight_until__gt=now)
            .values("endpoint_id")
            .annotate(n=Count("id"))
        }
    )
    room = settings.CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT
    chosen = []
    for delivery, endpoint in due:
        if busy[endpoint] < room:
            busy[endpoint] += 1
            chosen.append(delivery)
    return chosen


def deliveries_send_again(deliveries: Iterable[Delivery], *, by: object, now: datetime) -> int:
    """A person's "send again": each delivery pending again with its tries counted afresh
    (its past tries stay in the log), sent now; refused while its endpoint is off."""
    permission_check(by, SEND_AGAIN, "send a webhook delivery again")
    ids = [delivery.pk for delivery in deliveries]
    with transaction.atomic():
        rows = list(
            Delivery.objects.select_for_update(of=("self",))
            .select_related("endpoint")
            .filter(pk__in=ids)
            .order_by("id")
        )
        off = [row for row in rows if not row.endpoint.active]
        if off:
            raise FloorRefused(
                "Sending again",
                [
                    f"delivery {row.pk}: its endpoint {row.endpoint.url} is "
                    f"{row.endpoint.status}: enable it first"
                    for row in off
                ],
            )
        for row in rows:
            row.status, row.attempts, row.delivered_at, row.sent_at = PENDING, 0, None, now
            # A try under way finishes first (never two tries of one delivery at once).
            row.next_attempt_at = max(now, row.in_flight_until or now)
            row.save(update_fields=["status", "attempts", "delivered_at", "sent_at",
                                    "next_attempt_at"])  # fmt: skip
        sent = [row.pk for row in rows]
        transaction.on_commit(lambda: tasks_send(DELIVER_TASK, sent))
    return len(sent)


def webhooks_prune(now: datetime, batch: int = 1000) -> int:
    """Delete the events older than CASINO_WEBHOOK_RETENTION_DAYS with their deliveries
    and tries, a batch a transaction; returns how many events."""
    cut = now - timedelta(days=settings.CASINO_WEBHOOK_RETENTION_DAYS)
    deleted = 0
    while True:
        ids = list(
            Event.objects.filter(occurred_at__lt=cut)
            .order_by("id")
            .values_list("id", flat=True)[:batch]
        )
        if not ids:
            return deleted
        with transaction.atomic():
            Attempt.objects.filter(delivery__event_id__in=ids).delete()
            Delivery.objects.filter(event_id__in=ids).delete()
            Event.objects.filter(pk__in=ids).delete()
        deleted += len(ids)
