"""Reads of the device registry that the admin, the API and the floor page share."""

from collections.abc import Iterable, Mapping
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
    seen = seen_of((device.pk, device.kind, device.last_seen_at) for device in devices)
    for device in devices:
        device.seen = seen[device.pk]
    return devices


def seen_of(devices: Iterable[tuple[int, str, datetime | None]]) -> dict[int, Seen]:
    """`Seen` by device id, from (id, kind, the row's last_seen_at) values: what
    `seen_attach` reads, for callers that read values rather than Device rows."""
    devices = list(devices)
    if isinstance(heartbeat_store.store(), heartbeat_store.DatabaseStore):
        return {pk: Seen(last_seen_at, live=True) for pk, _, last_seen_at in devices}
    heard: dict[int, float] = {}
    unreachable = False
    for kind in sorted({kind for _, kind, _ in devices}):
        try:
            heard.update(heartbeat_store.store().seen(kind))
        except heartbeat_store.StoreUnavailable:
            unreachable = True
    found: dict[int, Seen] = {}
    for pk, _, last_seen_at in devices:
        moment = heard.get(pk)
        if moment is not None:
            at = datetime.fromtimestamp(moment, tz=timezone.get_current_timezone())
            found[pk] = Seen(at, live=True)
        else:
            found[pk] = Seen(last_seen_at, live=False, unreachable=unreachable)
    return found


def extra_roll_view(found: Mapping[tuple[str, int | None], Device]) -> dict[str, object]:
    """A table's Extra Roll devices (§ 675a.1(c)) as a round's state shows them, from its
    devices in service (devices.gates.tables_devices): the wagering device at each betting
    position, in order, and the lock-out control, with their status."""
    lockout = found.get(("extra_roll_lockout", None))
    positions = sorted(
        (d for (kind, _), d in found.items() if kind == "extra_roll_device"),
        key=lambda d: d.position or 0,
    )
    return {
        "extra_roll": [
            {"position": d.position, "serial": d.serial_number, "status": d.status}
            for d in positions
        ],
        "lock_out": None
        if lockout is None
        else {"serial": lockout.serial_number, "status": lockout.status},
    }
