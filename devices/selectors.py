"""Reads of the device registry that the admin, the API and the floor page share."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from devices import store as heartbeat_store
from devices.models import Device


@dataclass(frozen=True)
class Seen:
    """A device's last heartbeat: from the store (live), or the row's written-back copy
    when the store has none or cannot be reached."""

    at: datetime | None
    live: bool
    unreachable: bool = False


def seen_attach(devices: Iterable[Device]) -> list[Device]:
    """Each device with `.seen`: one read of the store per kind listed (none for the
    embedded store, which writes the row itself: the row is the live time)."""
    devices = list(devices)
    if isinstance(heartbeat_store.store(), heartbeat_store.DatabaseStore):
        for device in devices:
            device.seen = Seen(device.last_seen_at, live=True)
        return devices
    heard: dict[int, float] = {}
    unreachable = False
    for kind in sorted({device.kind for device in devices}):
        try:
            heard.update(heartbeat_store.store().seen(kind))
        except heartbeat_store.StoreUnavailable:
            unreachable = True
    for device in devices:
        moment = heard.get(device.pk)
        if moment is not None:
            at = datetime.fromtimestamp(moment, tz=timezone.get_current_timezone())
            device.seen = Seen(at, live=True)
        else:
            device.seen = Seen(device.last_seen_at, live=False, unreachable=unreachable)
    return devices
