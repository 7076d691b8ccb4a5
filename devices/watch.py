"""The heartbeat watch (beat runs it every CASINO_DEVICE_WATCH_SECONDS) and the flush of
last-seen times back to the Device rows (every CASINO_DEVICE_FLUSH_SECONDS).

A device of a kind with heartbeats every `interval` seconds is stale once more than
`interval * missed` seconds have passed since its last one: with 5 s and 3 missed, a
device last heard at 12:00:00 is still active at 12:00:15 and stale just after. The watch
also makes a registered device active at its first heartbeat, and a stale one active
again when its heartbeats return. Faulted and out-of-order devices are left to their
own reports and to staff.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from casino.services.errors import FloorRefused
from devices import rules
from devices.models import Device, DeviceEvent
from devices.services import WhenDown, status_move
from devices.store import credential_ends, store

Status = Device.Status
Event = DeviceEvent.Kind


@dataclass
class Watched:
    """What one pass of the watch did, by device id."""

    activated: list[int] = field(default_factory=list)
    stale: list[int] = field(default_factory=list)
    recovered: list[int] = field(default_factory=list)


def threshold(kind: str) -> tuple[int, int, float]:
    """(interval, missed, seconds of silence allowed) for a kind, settings applied."""
    interval, missed = rules.stale_after(kind, settings.CASINO_DEVICE_HEARTBEATS)
    return interval, missed, float(interval * missed)


def devices_watch(now: datetime, *, when_down: WhenDown) -> Watched:
    """Move each watched device by its last heartbeat (see the module's doc); a device gone
    stale calls `when_down` (gaming/devices.py)."""
    done = Watched()
    moment = now.timestamp()
    watched = Device.objects.filter(status__in=rules.WATCHED).select_related("table")
    by_kind: dict[str, list[Device]] = {}
    for device in watched:
        by_kind.setdefault(device.kind, []).append(device)
    for kind, devices in by_kind.items():
        seen = store().seen(kind)
        interval, missed, allowed = threshold(kind)
        for device in devices:
            last = seen.get(device.pk)
            if last is None and device.last_seen_at is not None:
                last = device.last_seen_at.timestamp()  # the store lost it: the row's copy
            if device.status == Status.ACTIVE and last is None:
                last = device.status_changed_at.timestamp()
            if last is None:
                continue  # registered, never heard from
            fresh = moment - last <= allowed
            if device.status == Status.REGISTERED:  # heard from since it was (re)registered
                fresh = fresh and last >= device.status_changed_at.timestamp()
            try:
                if device.status == Status.REGISTERED and fresh:
                    status_move(device, Status.ACTIVE, (Status.REGISTERED,), Event.ACTIVE, now=now)
                    done.activated.append(device.pk)
                elif device.status == Status.ACTIVE and not fresh:
                    since = _at(last, now) + timedelta(seconds=allowed)
                    status_move(
                        device, Status.STALE, (Status.ACTIVE,), Event.STALE, now=now,
                        stale_since=since, when_down=when_down,
                        detail=f"no heartbeat since {_at(last, now):%H:%M:%S}: {missed} "
                        f"intervals of {interval} s missed",
                    )  # fmt: skip
                    done.stale.append(device.pk)
                elif device.status == Status.STALE and fresh:
                    status_move(
                        device, Status.ACTIVE, (Status.STALE,), Event.RECOVERED, now=now,
                        detail=f"heartbeat at {_at(last, now):%H:%M:%S}",
                    )  # fmt: skip
                    done.recovered.append(device.pk)
            except FloorRefused:
                continue  # moved by someone else since it was read: the next pass sees it
    store().nonces_prune(moment - 2 * settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS - 5)
    # A revocation the store did not hear of (Redis was unreachable at the time) reaches
    # it here; older ones are in no web process's credential cache any more.
    since = moment - settings.CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS - 60
    store().ends_copy(credential_ends(since))
    return done


def _at(seconds: float, like: datetime) -> datetime:
    return datetime.fromtimestamp(seconds, tz=like.tzinfo)


def heartbeats_flush(now: datetime) -> int:
    """Write the store's last-seen times to the Device rows that are behind; how many."""
    written = 0
    for kind in rules.KINDS:
        seen = store().seen(kind)
        if not seen:
            continue
        rows = Device.objects.filter(pk__in=list(seen)).only("pk", "last_seen_at")
        behind = []
        for device in rows:
            moment = _at(seen[device.pk], now)
            if device.last_seen_at is None or device.last_seen_at < moment:
                device.last_seen_at = moment
                behind.append(device)
        with transaction.atomic():
            Device.objects.bulk_update(behind, ["last_seen_at"], batch_size=500)
        written += len(behind)
    return written
