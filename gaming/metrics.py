"""The floor's state for Prometheus, read at scrape time (a custom collector).

What the floor is now (settlement requests waiting or failed, rounds in progress, devices by
status and how long since each was heard, sets due and overdue) is read from the database
and the heartbeat store when /metrics is scraped, never counted by the processes that
change it: a gauge kept per process would be wrong across gunicorn workers, Celery's pool
and machines, and lost at a restart. A scrape is a handful of aggregate queries and one
read of the heartbeat store per device kind. Counts of events (rounds opened and settled,
refusals, latency) are casino/metrics.py's.

It reads the rounds (games) and the device registry (devices) together, so it sits in
the gaming layer; the /metrics endpoint (casino/api/metrics.py) calls it.
"""

from collections.abc import Iterator
from datetime import datetime

from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from casino.models import SetInPlay
from casino.rules.equipment import DUE_SOON, IN_DATE, OVERDUE
from devices.models import Device
from devices.selectors import seen_of
from games.models import Round, SettlementRequest
from games.services import alerts

# Settlement requests not settled, by status (games/services/alerts.py).
WAITING = (alerts.PENDING, alerts.FAILED, alerts.TOO_MANY_SENDS, alerts.NOT_SENT_AGAIN)


def settlement_waiting(now: datetime) -> tuple[dict[str, int], float]:
    """Unsettled requests by status, and the seconds since the oldest was written (0: none)."""
    unsettled = SettlementRequest.objects.filter(settled_at__isnull=True)
    found = unsettled.aggregate(
        oldest=Min("created_at"),
        **{status: Count("pk", filter=alerts.status_q(status, now)) for status in WAITING},
    )
    oldest = found.pop("oldest")
    return found, (now - oldest).total_seconds() if oldest else 0.0


def sets_by_state(now: datetime) -> dict[str, int]:
    """Sets in play in date, due soon and overdue at `now` (from their due times)."""
    return SetInPlay.objects.filter(removed_at__isnull=True).aggregate(
        **{
            OVERDUE: Count("pk", filter=Q(due_at__lt=now)),
            DUE_SOON: Count("pk", filter=Q(due_at__gte=now, warn_from__lte=now)),
            IN_DATE: Count("pk", filter=Q(warn_from__gt=now)),
        }
    )


def heartbeat_lags(now: datetime) -> list[tuple[str, str, str, float]]:
    """(device serial, kind, table number, seconds since its last heartbeat) for every
    device in service that has been heard from."""
    rows = list(
        Device.objects.exclude(status__in=(Device.Status.RETIRED, Device.Status.REGISTERED))
        .order_by("pk")
        .values_list("pk", "kind", "last_seen_at", "serial_number", "table__number")
    )
    seen = seen_of((pk, kind, last_seen_at) for pk, kind, last_seen_at, _, _ in rows)
    return [
        (serial, kind, table, max(0.0, (now - seen[pk].at).total_seconds()))
        for pk, kind, _, serial, table in rows
        if seen[pk].at is not None
    ]


class FloorCollector(Collector):
    """The floor's gauges, read afresh at every scrape."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = timezone.now()
        waiting, oldest = settlement_waiting(now)
        requests = GaugeMetricFamily(
            "casino_settlement_requests",
            "Settlement requests not settled, by status (failed, too_many_sends and "
            "not_sent_again are alerts; docs/deploy.md).",
            labels=["status"],
        )
        for status in WAITING:
            requests.add_metric([status], waiting[status])
        yield requests
        yield GaugeMetricFamily(
            "casino_settlement_oldest_waiting_seconds",
            "Seconds since the oldest unsettled settlement request was written (0: none).",
            value=oldest,
        )

        in_progress = GaugeMetricFamily(
            "casino_rounds_in_progress", "Rounds not settled, by status.", labels=["status"]
        )
        counts = dict(
            Round.objects.filter(status__in=Round.IN_PROGRESS)
            .values_list("status")
            .annotate(n=Count("pk"))
            .values_list("status", "n")
        )
        for status in Round.IN_PROGRESS:
            in_progress.add_metric([status], counts.get(status, 0))
        yield in_progress

        devices = GaugeMetricFamily("casino_devices", "Devices by status.", labels=["status"])
        counts = dict(
            Device.objects.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
        )
        for status in Device.Status.values:
            devices.add_metric([status], counts.get(status, 0))
        yield devices

        lag = GaugeMetricFamily(
            "casino_device_heartbeat_lag_seconds",
            "Seconds since each device in service was last heard from.",
            labels=["device", "kind", "table"],
        )
        for serial, kind, table, seconds in heartbeat_lags(now):
            lag.add_metric([serial, kind, table], seconds)
        yield lag

        sets = GaugeMetricFamily(
            "casino_equipment_sets_in_play",
            "Dice and tile sets in play, by schedule state (in_date, due_soon, overdue).",
            labels=["state"],
        )
        for state, count in sets_by_state(now).items():
            sets.add_metric([state], count)
        yield sets
