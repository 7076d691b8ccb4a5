"""Devices for the tests: registered through the service, heard from through the store."""

from datetime import date, datetime
from typing import Any

from casino.models import Table
from devices import signing
from devices.gates import table_needs
from devices.models import Device
from devices.services import Issued, device_register
from devices.store import store
from gaming.devices import devices_watch
from tests.casino.floor_fixtures import operations

APPROVED = date(2026, 1, 15)


def register(
    table: Table, kind: str, *, now: datetime, position: int | None = None, serial: str = ""
) -> Issued:
    """Register a device of `kind` at `table` (and `position`) by operations."""
    serial = serial or f"{table.number}-{kind}-{position or 0}-{Device.objects.count() + 1}"
    return device_register(
        table,
        kind=kind,
        manufacturer="Acme Gaming",
        serial_number=serial,
        firmware="1.0.0",
        approval_reference=f"BGLO-{serial}",
        approved_at=APPROVED,
        position=position,
        by=operations(),
        now=now,
    )


def beat(device: Device, at: datetime) -> None:
    """A heartbeat from `device` at `at`, straight into the store (a fresh nonce)."""
    key_id = device.credentials.order_by("-issued_at").first().key_id
    store().heartbeat(device.pk, device.kind, key_id, signing.new_salt(), at.timestamp())


def heard(*devices: Device, now: datetime) -> None:
    """Each device heard from at `now`, and the watch run: registered ones become active."""
    for device in devices:
        beat(device, now)
    devices_watch(now)


def devices_ready(table: Table, *, now: datetime) -> dict[tuple[str, int | None], Device]:
    """Every device the table needs, registered and active at `now`."""
    made = {}
    for need in table_needs(table, now):
        issued = register(table, need.kind, now=now, position=need.position)
        made[(need.kind, need.position)] = issued.device
    heard(*made.values(), now=now)
    return {key: Device.objects.get(pk=d.pk) for key, d in made.items()}


def fresh(device: Any) -> Device:
    return Device.objects.get(pk=device.pk)
