"""The registry's actions: register a device, issue, rotate and revoke its credentials,
mark it out of order, return it to service, retire it; and its own fault reports.

Every status change goes through `status_move`, which writes the device event and, when
a device stops working, calls the `when_down` its caller passed in the same transaction:
what follows is the floor's (gaming/devices.py), which calls these with it.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.actors import acting_person
from casino.models import Table
from casino.services.errors import FloorRefused, by_actor, permission_check
from devices import rules, signing
from devices.models import Device, DeviceCredential, DeviceEvent
from devices.store import StoreUnavailable, store
from webhooks import events as webhook_events
from webhooks.services import event_record as webhook_record

log = logging.getLogger(__name__)

Status = Device.Status
Event = DeviceEvent.Kind
REGISTER = "devices.add_device"
OPERATE = "devices.operate_device"
# What follows a device stopping work, called inside its status change (gaming/devices.py).
WhenDown = Callable[[Device, datetime], None]


@dataclass(frozen=True)
class Issued:
    """A credential just issued: the secret is here once and nowhere else."""

    device: Device
    key_id: str
    secret: str
    credential: DeviceCredential


def event_record(
    device: Device,
    kind: str,
    *,
    now: datetime,
    detail: str = "",
    cite: str = "",
    round_: Any = None,
    by: Any = None,
) -> DeviceEvent:
    return DeviceEvent.objects.create(
        device=device,
        table_id=device.table_id,
        kind=kind,
        at=now,
        detail=detail,
        cite=cite,
        round=round_,
        by=acting_person(by),
    )


@by_actor
def device_register(
    table: Table,
    *,
    kind: str,
    manufacturer: str,
    serial_number: str,
    firmware: str,
    approval_reference: str,
    approved_at: date,
    position: int | None = None,
    by: Any,
    now: datetime,
) -> Issued:
    """Register a device at its table (and position) with its approval; issue its first
    credential. Refused, changing nothing, when anything is missing or out of place."""
    permission_check(by, REGISTER, "register a device")
    action = "Registering a device"
    info = rules.KINDS.get(kind)
    if info is None:
        raise FloorRefused(
            action, [f"unknown kind {kind!r}; choose one of: {', '.join(rules.KINDS)}"]
        )
    fields = {
        "manufacturer": manufacturer.strip(),
        "serial_number": serial_number.strip(),
        "firmware": firmware.strip(),
        "approval_reference": approval_reference.strip(),
    }
    reasons = [f"name the {name.replace('_', ' ')}" for name, value in fields.items() if not value]
    if not fields["approval_reference"]:
        reasons[-1] = f"name the approval: {rules.a(info.label)} must be {info.approval}"
    if approved_at is None or approved_at > timezone.localdate(now):
        reasons.append("the approval is recorded once given, not ahead of time")
    if table.game != info.game:
        reasons.append(
            f"{rules.a(info.label)} serves {info.game}, not {table.number}'s {table.game}"
        )
    elif kind == "automated_shaker" and not table.automated_shaker:
        reasons.append(f"{table.number} is not set up for an automated shaker (§ 625a.1(d)(2))")
    elif kind == "electronic_table" and table.operation not in ("hybrid", "electronic"):
        reasons.append(f"{table.number} is a {table.operation} table, not hybrid or electronic")
    if info.per_position:
        if not isinstance(position, int) or not 1 <= position <= table.seats:
            reasons.append(
                f"{rules.a(info.label)} serves one betting position: 1 to {table.seats} "
                f"at {table.number}"
            )
    elif position is not None:
        reasons.append(f"{rules.a(info.label)} serves the table, not a betting position")
    if not reasons:
        taken = Device.objects.filter(table=table, kind=kind, position=position).exclude(
            status=Status.RETIRED
        )
        if taken.exists():
            where = f" at position {position}" if position else ""
            reasons.append(
                f"{table.number} already has {rules.a(info.label)}{where}: retire it first"
            )
        if Device.objects.filter(
            manufacturer=fields["manufacturer"], serial_number=fields["serial_number"]
        ).exists():
            reasons.append(
                f"{fields['manufacturer']} serial {fields['serial_number']} is already registered"
            )
    if reasons:
        raise FloorRefused(action, reasons)
    with transaction.atomic():
        device = Device.objects.create(
            kind=kind,
            table=table,
            position=position,
            approved_at=approved_at,
            status=Status.REGISTERED,
            status_changed_at=now,
            registered_at=now,
            registered_by=acting_person(by),
            **fields,
        )
        event_record(device, Event.REGISTERED, now=now, by=by, detail=info.approval)
        return _issue(device, by=by, now=now)


def _issue(device: Device, *, by: Any, now: datetime) -> Issued:
    key_id, salt = signing.new_key_id(), signing.new_salt()
    credential = DeviceCredential.objects.create(
        device=device, key_id=key_id, salt=salt, issued_at=now, issued_by=acting_person(by)
    )
    event_record(device, Event.CREDENTIAL_ISSUED, now=now, by=by, detail=key_id)
    return Issued(device, key_id, signing.secret_for(key_id, salt), credential)


@by_actor
def credential_rotate(
    device: Device, *, by: Any, now: datetime, grace_seconds: int | None = None
) -> Issued:
    """A new secret; the device's other credentials stop after `grace_seconds` (default
    CASINO_DEVICE_ROTATION_GRACE_SECONDS), so it can switch without a gap."""
    permission_check(by, OPERATE, "rotate a device's secret")
    grace = (
        settings.CASINO_DEVICE_ROTATION_GRACE_SECONDS if grace_seconds is None else grace_seconds
    )
    if grace < 0:
        raise FloorRefused(f"Rotating {device}", ["the grace period cannot be negative"])
    with transaction.atomic():
        device = Device.objects.select_for_update().select_related("table").get(pk=device.pk)
        if device.status == Status.RETIRED:
            raise FloorRefused(f"Rotating {device}", [f"{device} is retired"])
        ends = now + timedelta(seconds=grace)
        for old in device.credentials.filter(revoked_at__isnull=True):
            if old.expires_at is None or old.expires_at > ends:
                old.expires_at = ends
                old.save(update_fields=["expires_at"])
                _store_revoke(old.key_id, at=ends.timestamp())
        return _issue(device, by=by, now=now)


@by_actor
def credential_revoke(credential: DeviceCredential, *, by: Any, now: datetime) -> DeviceCredential:
    """Stop a credential now."""
    permission_check(by, OPERATE, "revoke a device credential")
    with transaction.atomic():
        credential = DeviceCredential.objects.select_for_update().get(pk=credential.pk)
        if credential.revoked_at is not None:
            raise FloorRefused(f"Revoking {credential.key_id}", ["it is already revoked"])
        credential.revoked_at = now
        credential.save(update_fields=["revoked_at"])
        _store_revoke(credential.key_id)
        event_record(
            credential.device, Event.CREDENTIAL_REVOKED, now=now, by=by, detail=credential.key_id
        )
        return credential


@by_actor
def device_out_of_order(
    device: Device, reason: str, *, by: Any, now: datetime, when_down: WhenDown
) -> Device:
    """Staff mark it out of order (for an automated Sic Bo shaker: covered or signed, with
    its dice removed, § 625a.7(d)); heartbeats no longer bring it back."""
    permission_check(by, OPERATE, "mark a device out of order")
    if not reason.strip():
        raise FloorRefused(f"Marking {device} out of order", ["say why it is out of order"])
    allowed = (Status.REGISTERED, Status.ACTIVE, Status.STALE, Status.FAULTED)
    return status_move(
        device, Status.OUT_OF_ORDER, allowed, Event.OUT_OF_ORDER, now=now, by=by,
        detail=reason.strip(), reason=reason.strip(), when_down=when_down,
    )  # fmt: skip


@by_actor
def device_return_to_service(device: Device, *, by: Any, now: datetime) -> Device:
    """Back from out of order or a fault: registered again, active at its next heartbeat."""
    permission_check(by, OPERATE, "return a device to service")
    return status_move(
        device, Status.REGISTERED, (Status.OUT_OF_ORDER, Status.FAULTED), Event.RETURNED,
        now=now, by=by, reason="",
    )  # fmt: skip


@by_actor
def device_retire(device: Device, *, by: Any, now: datetime, when_down: WhenDown) -> Device:
    """Out of service for good: its credentials are revoked and its place freed."""
    permission_check(by, OPERATE, "retire a device")
    allowed = tuple(s for s in Status.values if s != Status.RETIRED)
    with transaction.atomic():
        for credential in device.credentials.filter(revoked_at__isnull=True):
            credential.revoked_at = now
            credential.save(update_fields=["revoked_at"])  # one by one: each is audited
            _store_revoke(credential.key_id)
            event_record(device, Event.CREDENTIAL_REVOKED, now=now, by=by, detail=credential.key_id)
        device = status_move(
            device, Status.RETIRED, allowed, Event.RETIRED, now=now, by=by, when_down=when_down
        )
    try:
        store().forget(device.pk, device.kind)
    except StoreUnavailable as down:  # the watch passes retired devices by anyway
        log.warning("retired %s; its last-seen stays in the store: %s", device, down)
    return device


def _store_revoke(key_id: str, *, at: float = 0.0) -> None:
    """Once committed, the store refuses the key's heartbeats too, from `at` (0: at once),
    for web processes may hold it in their credential cache. If the store does not hear
    of it, the watch copies it from the database within a second (devices/watch.py)."""

    def revoke() -> None:
        try:
            store().revoke(key_id, at)
        except StoreUnavailable as down:
            log.error("ended %s, but the store did not hear of it: %s", key_id, down)

    transaction.on_commit(revoke)


def fault_report(device: Device, detail: str, *, now: datetime, when_down: WhenDown) -> Device:
    """The device says it has failed."""
    allowed = (Status.REGISTERED, Status.ACTIVE, Status.STALE)
    device = Device.objects.get(pk=device.pk)  # the row's status, not a copy's
    if device.status == Status.FAULTED:
        return device
    return status_move(
        device, Status.FAULTED, allowed, Event.FAULT, now=now, detail=detail, when_down=when_down
    )


def fault_clear(device: Device, detail: str, *, now: datetime) -> Device:
    """The device says it works again: active, if staff have not marked it out of order."""
    device = Device.objects.get(pk=device.pk)
    if device.status != Status.FAULTED:
        return device
    return status_move(
        device, Status.ACTIVE, (Status.FAULTED,), Event.FAULT_CLEARED, now=now, detail=detail
    )


def status_move(
    device: Device,
    to: str,
    allowed_from: tuple[str, ...],
    event: str,
    *,
    now: datetime,
    by: Any = None,
    detail: str = "",
    reason: str | None = None,
    stale_since: datetime | None = None,
    when_down: WhenDown | None = None,
) -> Device:
    """Move the device to `to` if it is in one of `allowed_from`; record the event; when it
    stops working, call `when_down` (what the regulations say follows). FloorRefused from
    any other status."""
    with transaction.atomic():
        device = Device.objects.select_for_update().select_related("table").get(pk=device.pk)
        if device.status not in allowed_from:
            raise FloorRefused(
                f"{Event(event).label} for {device}",
                [f"{device} is {device.get_status_display().lower()}"],
            )
        was = device.status
        device.status, device.status_changed_at = to, now
        device.stale_since = stale_since if to == Status.STALE else None
        if reason is not None:
            device.out_of_order_reason = reason
        device.save()
        event_record(device, event, now=now, by=by, detail=detail)
        _status_told(device, was, event, detail, now)
        if was == Status.ACTIVE and to != Status.ACTIVE:
            if when_down is None:  # a caller's mistake, never the device's: nothing is saved
                raise TypeError(f"{device} stops working: pass when_down (gaming/devices.py)")
            when_down(device, now)
        return device


def _status_told(device: Device, was: str, event: str, detail: str, now: datetime) -> None:
    """The device.status_changed webhook, written in the device's status change."""
    data = webhook_events.device_status_data(
        device=device.pk,
        kind=device.kind,
        serial_number=device.serial_number,
        position=device.position,
        table=device.table_id,
        table_number=device.table.number,
        status=device.status,
        was=was,
        event=event,
        detail=detail,
        changed_at=now,
    )
    webhook_record(webhook_events.DEVICE_STATUS_CHANGED, table=device.table, data=data, now=now)
