"""Handing settlement requests to the broker, and sending again what is stuck.

The request row is the truth; a message is only a nudge. A message lost with Redis, or
with a worker killed before it acknowledged, costs a delay until the sweep, never a round.
A request that failed, or was sent CASINO_SETTLEMENT_MAX_SENDS times, is an alert
(games/services/alerts.py): the sweep leaves it to a person, who sends it again.
"""

import logging
from collections.abc import Iterable
from datetime import datetime

from celery import current_app
from django.db.models import F, Q

from games.models import SettlementRequest
from games.services.alerts import max_sends, stuck_before

SETTLE_TASK = "settlement.round_settle"
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


def requests_sweep(now: datetime, stuck_after: float | None = None, batch: int = 500) -> int:
    """Send again every unsettled request last sent more than `stuck_after` seconds ago
    (CASINO_SETTLEMENT_STUCK_SECONDS), but none that failed or was sent
    CASINO_SETTLEMENT_MAX_SENDS times: those are alerts, not a loop."""
    before = stuck_before(now, stuck_after)
    stuck = list(
        SettlementRequest.objects.filter(settled_at__isnull=True, failures=0)
        .filter(sends__lt=max_sends())
        .filter(Q(sent_at__isnull=True) | Q(sent_at__lt=before))
        .order_by("id")
        .values_list("id", flat=True)[:batch]
    )
    requests_resend(stuck, now)
    return len(stuck)
