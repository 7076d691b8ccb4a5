"""A device stops working (out of order, retired, faulted, stale), and what the
regulations say happens then. Only the Sic Bo devices act at once; the others are refused
at the moment of the action they would serve (devices/gates.py):

- an automated Sic Bo shaker: the round in progress that uses it is void and its wagers
  returned (§ 625a.7(c)); one opened with the manual shaker plays on (§ 625a.5(b));
- the Sic Bo illumination device: the round in progress is settled as § 625a.7(b) says
  and the table suspended once its result is in (gaming.rounds.result_enter); with no
  round in progress the table is suspended now, until the device is fixed.

The registry (devices/services.py, devices/watch.py) moves the device and calls
`device_down` inside the same transaction: every action that may stop a device is here,
and the API, the admin, the device views and the tasks call these, never the registry's.
"""

from datetime import datetime
from typing import Any

from casino.models import Table
from casino.services.tables import table_suspend_by_rule
from devices import services, watch
from devices.models import Device, DeviceEvent
from devices.rules import uses_automated_shaker
from devices.services import event_record
from games.models import Round, RoundEvent
from games.rules.core import cite
from gaming.rounds import round_void

Event = DeviceEvent.Kind
ILLUMINATION_CEASES = cite("625a.7(b)")
SHAKER_VOIDS = cite("625a.7(c)")


def device_down(device: Device, now: datetime) -> None:
    """Apply the consequence of `device` no longer working (inside its status change)."""
    table = device.table
    current = table.rounds.filter(status__in=Round.IN_PROGRESS).order_by("-number").first()
    if device.kind == "automated_shaker" and current is not None:
        # Only a round that uses it: one opened with the manual shaker keeps it (§ 625a.5(b)).
        if current.status in (Round.Status.OPEN, Round.Status.CLOSED) and uses_automated_shaker(
            current.options
        ):
            round_void(current, "625a.7(c)", by=device, now=now, source=RoundEvent.Source.DEVICE)
            _record(device, Event.ROUND_VOIDED, now, current, "every wager returned", SHAKER_VOIDS)
    elif device.kind == "illumination_device":
        if current is not None and current.status != Round.Status.RESULT_ENTERED:
            _record(
                device, Event.TABLE_SUSPENDED, now, current,
                "the round in progress is settled in the presence of a floorperson; the table "
                "is suspended once its result is in, until the device is fixed",
                ILLUMINATION_CEASES,
            )  # fmt: skip
        elif table.status == Table.Status.OPEN:
            table_suspend_by_rule(table, now=now)
            _record(
                device, Event.TABLE_SUSPENDED, now, current,
                "gaming ceases until the device is fixed", ILLUMINATION_CEASES,
            )  # fmt: skip


def _record(
    device: Device, kind: str, now: datetime, round_: Round | None, detail: str, section: str
) -> None:
    event_record(device, kind, now=now, round_=round_, detail=detail, cite=section)


# --- what may stop a device -------------------------------------------------------------


def device_out_of_order(device: Device, reason: str, *, by: Any, now: datetime) -> Device:
    """Staff mark it out of order (devices.services.device_out_of_order), with what follows."""
    return services.device_out_of_order(device, reason, by=by, now=now, when_down=device_down)


def device_retire(device: Device, *, by: Any, now: datetime) -> Device:
    """Out of service for good (devices.services.device_retire), with what follows."""
    return services.device_retire(device, by=by, now=now, when_down=device_down)


def fault_report(device: Device, detail: str, *, now: datetime) -> Device:
    """The device says it has failed (devices.services.fault_report), with what follows."""
    return services.fault_report(device, detail, now=now, when_down=device_down)


def devices_watch(now: datetime) -> watch.Watched:
    """Beat's look at every device's last heartbeat (devices.watch), with what follows."""
    return watch.devices_watch(now, when_down=device_down)
