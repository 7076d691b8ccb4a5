"""A settlement request's status, and the alert a stuck one raises (issue 18).

A request that failed (the worker recorded why) or that was sent
CASINO_SETTLEMENT_MAX_SENDS times without settling is never sent again on its own; one
that nothing has sent again long after the sweep should have (its message lost with beat
not running) would never be. Each is an alert at its table, on the floor page, in GET
/api/v1/floor/ and in the admin, until a person reads it, acts, and sends it again from
the admin (which clears it). It is also a webhook, settlement.alert (`alert_record`):
written with the failure's record, or by the sweep once a request is at the most sends
(`too_many_sends_record`). "Not sent again" is never one: it means beat, which runs the
sweep, is not running.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from games.models import SettlementRequest
from webhooks.events import SETTLEMENT_ALERT, settlement_alert_data
from webhooks.models import Event
from webhooks.services import event_record

SETTLED, PENDING, FAILED, TOO_MANY_SENDS = "settled", "pending", "failed", "too_many_sends"
NOT_SENT_AGAIN = "not_sent_again"
STATUS_LABELS = {
    SETTLED: "settled",
    PENDING: "pending",
    FAILED: "failed",
    TOO_MANY_SENDS: "too many sends",
    NOT_SENT_AGAIN: "not sent again",
}
Kind = SettlementRequest.FailureKind

# What the operator does, by what went wrong. The round stays "result entered" and its
# table cannot start another round until it is settled.
GUIDANCE = {
    Kind.REFUSED: (
        "The engine refuses this round as recorded, so nothing was paid. Hold the table; "
        "compliance compares the round's recorded events (admin: the round) with what "
        "happened at the table. A wrong record is corrected or the round voided under the "
        "rules with the software supplier; then Send again in the admin."
    ),
    Kind.INTEGRITY: (
        "Settling would write a row that already exists (a wager already decided, a ledger "
        "entry already posted): nothing of this round was paid. Hold the table and call "
        "the software supplier with this error; do not Send again until they have found "
        "why, or it fails the same way."
    ),
    Kind.SERVICES: (
        "The database or the broker was unavailable through every retry. Check PostgreSQL, "
        "Redis and that a worker serves the settlement queue (worker self-check), then Send "
        "again in the admin."
    ),
    Kind.OTHER: (
        "An unexpected error: nothing of this round was paid. Hand the error to the "
        "software supplier; Send again in the admin once it is fixed."
    ),
    NOT_SENT_AGAIN: (
        "Nothing has sent this settlement again since its last send, long after the sweep "
        "should have: its message was lost and the sweep (Celery beat) is not running. "
        "Start beat (with Redis, on every app machine), check that a worker serves the "
        "settlement queue, then "
        "Send again in the admin."
    ),
    TOO_MANY_SENDS: (
        "Sent again and again without settling, and no worker reported an error: the "
        "workers may not be running or not serving the settlement queue. Check the "
        "workers, Redis and the worker self-check, then Send again in the admin."
    ),
}


def max_sends() -> int:
    """CASINO_SETTLEMENT_MAX_SENDS: the sends after which a request is an alert."""
    return settings.CASINO_SETTLEMENT_MAX_SENDS


def stuck_before(now: datetime, stuck_after: float | None = None) -> datetime:
    """A request last sent before this moment is stuck (the sweep's own cut)."""
    if stuck_after is None:
        stuck_after = settings.CASINO_SETTLEMENT_STUCK_SECONDS
    return now - timedelta(seconds=stuck_after)


def _stuck(now: datetime) -> Q:
    return Q(sent_at__isnull=True) | Q(sent_at__lt=stuck_before(now))


# "Not sent again" means beat is not running: never sooner than a minute, so a short
# threshold (10 s, issue 19) or beat restarting does not raise it.
UNSENT_AT_LEAST = timedelta(seconds=60)


def unsent_before(now: datetime) -> datetime:
    """A pending request last sent before this moment should have been sent again by the
    sweep twice over (every CASINO_SETTLEMENT_STUCK_SECONDS, looking every sweep period),
    and a minute at least has passed."""
    sweep = settings.CELERY_BEAT_SCHEDULE.get("settlement-sweep", {}).get("schedule", 0)
    twice = 2 * timedelta(seconds=settings.CASINO_SETTLEMENT_STUCK_SECONDS + sweep)
    return now - max(twice, UNSENT_AT_LEAST)


def _last_send(request: SettlementRequest) -> datetime:
    return request.sent_at or request.created_at


def status_q(status: str, now: datetime) -> Q:
    """The requests in this status at `now`, as a filter (the admin's list filter)."""
    unsettled = Q(settled_at__isnull=True)
    failed = unsettled & Q(failures__gt=0)
    # At the limit, and its last send had its time: the sweep would send it, but won't.
    too_many = unsettled & Q(failures=0, sends__gte=max_sends()) & _stuck(now)
    # Below the limit, and not sent again long after the sweep would have.
    unsent = (
        unsettled
        & Q(failures=0, sends__lt=max_sends())
        & (
            Q(sent_at__lt=unsent_before(now))
            | Q(sent_at__isnull=True, created_at__lt=unsent_before(now))
        )
    )
    if status == SETTLED:
        return Q(settled_at__isnull=False)
    if status == FAILED:
        return failed
    if status == TOO_MANY_SENDS:
        return too_many
    if status == NOT_SENT_AGAIN:
        return unsent
    if status == PENDING:
        return unsettled & ~failed & ~too_many & ~unsent
    raise ValueError(f"no settlement request status {status!r}; these are: {list(STATUS_LABELS)}")


def request_status(request: SettlementRequest, now: datetime) -> str:
    """settled, pending, failed, too_many_sends or not_sent_again, as `status_q` says."""
    if request.settled_at is not None:
        return SETTLED
    if request.failures:
        return FAILED
    last = request.sent_at
    if request.sends >= max_sends() and (last is None or last < stuck_before(now)):
        return TOO_MANY_SENDS
    if request.sends < max_sends() and _last_send(request) < unsent_before(now):
        return NOT_SENT_AGAIN
    return PENDING


@dataclass(frozen=True)
class Alert:
    """A settlement request that needs a person: what, since when, what to do."""

    request_id: int
    status: str  # FAILED, TOO_MANY_SENDS or NOT_SENT_AGAIN
    kind: str  # a FailureKind, or TOO_MANY_SENDS or NOT_SENT_AGAIN
    error: str
    since: datetime  # the first failure; or, never failed, when the request was written
    last_failed_at: datetime | None
    failures: int
    sends: int
    guidance: str

    @property
    def label(self) -> str:
        """The status in words."""
        return STATUS_LABELS[self.status]


def request_alert(request: SettlementRequest | None, now: datetime) -> Alert | None:
    """The request's alert at `now`, or None when it is settled or still in hand."""
    if request is None:
        return None
    status = request_status(request, now)
    if status == FAILED:
        kind = request.failure_kind or Kind.OTHER
        since = request.first_failed_at or request.created_at
    elif status == TOO_MANY_SENDS:
        kind, since = TOO_MANY_SENDS, request.created_at
    elif status == NOT_SENT_AGAIN:
        kind, since = NOT_SENT_AGAIN, _last_send(request)
    else:
        return None
    if request.error:
        error = request.error
    elif status == NOT_SENT_AGAIN:
        error = f"sent {request.sends} times, last at {since.isoformat()}; not sent again since"
    else:
        error = f"sent {request.sends} times; no worker settled it or reported why"
    return Alert(
        request_id=request.pk,
        status=status,
        kind=str(kind),
        error=error,
        since=since,
        last_failed_at=request.last_failed_at,
        failures=request.failures,
        sends=request.sends,
        guidance=GUIDANCE[kind],
    )


def alert_record(request: SettlementRequest, now: datetime, *, key: str | None = None) -> None:
    """The request's alert at `now` as a settlement.alert webhook, in the caller's
    transaction (nothing when it is no alert, or when no endpoint wants it)."""
    alert = request_alert(request, now)
    if alert is None:
        return
    round_ = request.round
    table = round_.table
    data = settlement_alert_data(
        request=request.pk,
        round=round_.pk,
        round_number=round_.number,
        table=table.pk,
        table_number=table.number,
        game=table.game,
        status=alert.status,
        kind=alert.kind,
        error=alert.error,
        since=alert.since,
        failures=alert.failures,
        sends=alert.sends,
        guidance=alert.guidance,
    )
    event_record(SETTLEMENT_ALERT, table=table, data=data, now=now, key=key)


def too_many_sends_record(now: datetime) -> int:
    """A settlement.alert for each request that became "too many sends" (the sweep's): once
    for each last send, so a request sent again by a person and stuck again is told again."""
    stuck = (
        SettlementRequest.objects.filter(settled_at__isnull=True, failures=0)
        .filter(sends__gte=max_sends(), sent_at__lt=stuck_before(now))
        .select_related("round__table")
        .order_by("id")
    )
    keys = {f"settlement-alert:{request.pk}:{request.sent_at.isoformat()}": request
            for request in stuck}  # fmt: skip
    told = set(Event.objects.filter(key__in=list(keys)).values_list("key", flat=True))
    for key, request in keys.items():
        if key not in told:
            with transaction.atomic():
                alert_record(request, now, key=key)
    return len(keys) - len(told)
