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


EXTRA_ROLL_KINDS = ("extra_roll_device", "extra_roll_lockout")


def extra_roll_devices(table_ids: Iterable[int]) -> dict[int, dict[str, object]]:
    """The Extra Roll devices of these tables (§ 675a.1(c)), each table's in one mapping:
    the wagering device at each betting position and the lock-out control, with their
    status; a table with none is absent. One query for them all."""
    found: dict[int, dict[str, object]] = {}
    rows = (
        Device.objects.filter(table_id__in=list(table_ids), kind__in=EXTRA_ROLL_KINDS)
        .exclude(status=Device.Status.RETIRED)
        .order_by("table_id", "position")
        .values("table_id", "kind", "position", "serial_number", "status")
    )
    for row in rows:
        devices = found.setdefault(row["table_id"], {"extra_roll": [], "lock_out": None})
        device = {"serial": row["serial_number"], "status": row["status"]}
        if row["kind"] == "extra_roll_lockout":
            devices["lock_out"] = device
        else:
            devices["extra_roll"].append({"position": row["position"], **device})  # type: ignore[attr-defined]
    return found
