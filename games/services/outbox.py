"""Handing settlement requests to the broker, and sending again what is stuck.

The request row is the truth; a message is only a nudge. A message lost with Redis, or
with a worker killed before it acknowledged, costs a delay until the sweep, never a round.
A request that failed, or was sent CASINO_SETTLEMENT_MAX_SENDS times, is an alert
(games/services/alerts.py): the sweep leaves it to a person, who sends it again.

Recovery in seconds (issue 19): when the broker's settlement queue is empty while
requests are pending, their messages are lost (Redis came back empty, or a killed
worker holds them unacknowledged), so the sweep sends them again once they are
CASINO_SETTLEMENT_LOST_SECONDS old, not CASINO_SETTLEMENT_STUCK_SECONDS. Sending again
is always safe: settling takes the request's row lock and is a no-op once settled.
"""

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from games.models import SettlementRequest
from games.services.alerts import max_sends, stuck_before

SETTLE_TASK = "settlement.round_settle"
SETTLE_QUEUE = "settlement"
log = logging.getLogger(__name__)


def requests_send(request_ids: Iterable[int]) -> int:
    """Publish one settlement task per request; a broker that is down is logged, not raised."""
    sent = 0
    for request_id in request_ids:
        try:
            current_app.send_task(SETTLE_TASK, args=[request_id])
            sent += 1
        except Exception as error:  # the sweep sends it again; the web request still succeeds
            log.warning("settlement request %s not sent (%s); the sweep will", request_id, error)
    return sent


def requests_resend(request_ids: Iterable[int], now: datetime) -> int:
    """Send these unsettled requests again, noting when (the sweep, or a person in the admin)."""
    pending = list(
        SettlementRequest.objects.filter(pk__in=list(request_ids), settled_at__isnull=True)
        .order_by("id")
        .values_list("id", flat=True)
    )
    if pending:
        SettlementRequest.objects.filter(pk__in=pending).update(sent_at=now, sends=F("sends") + 1)
    return requests_send(pending)


def requests_send_again(request_ids: Iterable[int], now: datetime) -> int:
    """A person's "send again": clear the failure of these unsettled requests (and the send
    count of those at CASINO_SETTLEMENT_MAX_SENDS), so the worker and the sweep take them
    again, and send them now."""
    unsettled = SettlementRequest.objects.filter(pk__in=list(request_ids), settled_at__isnull=True)
    unsettled.filter(sends__gte=max_sends()).update(sends=0)
    unsettled.filter(failures__gt=0).update(
        failures=0, failure_kind="", error="", first_failed_at=None, last_failed_at=None
    )
    return requests_resend(unsettled.values_list("id", flat=True), now)


def settlement_queue_length() -> int | None:
    """Messages waiting in the broker's settlement queue; None when the broker cannot say
    (down, or a transport without lengths): then only the stuck threshold applies."""
    try:
        with current_app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1)  # a sweep never hangs on a dead broker
            # Not passive: a Redis that lost everything has lost the queue's binding too,
            # and a passive declare would refuse; declaring creates no message.
            declared = connection.default_channel.queue_declare(queue=SETTLE_QUEUE)
            return int(declared.message_count)
    except Exception as error:  # the sweep goes on with the threshold alone
        log.info("settlement queue length unknown (%s)", error)
        return None


def sweep_cut(now: datetime, stuck_after: float | None = None) -> datetime:
    """Requests last sent before this moment are sent again: CASINO_SETTLEMENT_STUCK_SECONDS
    ago, or CASINO_SETTLEMENT_LOST_SECONDS ago when the settlement queue is empty (their
    messages are lost). An explicit `stuck_after` (by hand) is taken as given."""
    before = stuck_before(now, stuck_after)
    if stuck_after is None and settlement_queue_length() == 0:
        lost = now - timedelta(seconds=settings.CASINO_SETTLEMENT_LOST_SECONDS)
        before = max(before, lost)
    return before


def requests_sweep(now: datetime, stuck_after: float | None = None, batch: int = 500) -> int:
    """Send again every unsettled request last sent before `sweep_cut` (stuck, or its
    message lost), but none that failed or was sent CASINO_SETTLEMENT_MAX_SENDS times:
    those are alerts, not a loop. A request a worker is settling right now (its row
    locked) is passed by: it needs no message, and a send would count against it."""
    before = sweep_cut(now, stuck_after)
    with transaction.atomic():
        stuck = list(
            SettlementRequest.objects.select_for_update(skip_locked=True)
            .filter(settled_at__isnull=True, failures=0)
            .filter(sends__lt=max_sends())
            .filter(Q(sent_at__isnull=True) | Q(sent_at__lt=before))
            .order_by("id")
            .values_list("id", flat=True)[:batch]
        )
        if stuck:
            SettlementRequest.objects.filter(pk__in=stuck).update(sent_at=now, sends=F("sends") + 1)
    # Published once the rows are released: a worker handed one at once must not find it
    # locked by the sweep ("busy").
    requests_send(stuck)
    return len(stuck)
