"""The events an integrator may subscribe to, each with a sentence, and the data each
carries: pure data and functions (no Django), so every layer that records one imports it.

A body follows the Standard Webhooks payload: {"type", "timestamp", "data"}, where
`timestamp` is when the event happened (ISO 8601, UTC) and `data` is built here from plain
values by the code that records it, except a round's settlement, whose resolutions are
the API's own rows (webhooks/payloads.py). docs/api.md lists each type's data.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

ROUND_SETTLED = "round.settled"
SETTLEMENT_ALERT = "settlement.alert"
ROUND_WAITING_ON_DEVICE = "round.waiting_on_device"
TABLE_STATUS_CHANGED = "table.status_changed"
DEVICE_STATUS_CHANGED = "device.status_changed"
EQUIPMENT_DUE_SOON = "equipment.due_soon"
EQUIPMENT_OVERDUE = "equipment.overdue"
ENDPOINT_DISABLED = "endpoint.disabled"


@dataclass(frozen=True)
class EventType:
    """One kind of event: its name on the wire, a sentence, and its data's fields."""

    name: str
    sentence: str
    fields: tuple[str, ...]


TABLE = ("table", "table_number", "game")
# A round's wait on a device, as the API's `device_wait` has it beside its round.
WAIT = (
    "kind",
    "kind_display",
    "device",
    "report",
    "step",
    "cite",
    "since",
    "alert_at",
    "alert",
    "ways_out",
    "guidance",
)
EQUIPMENT = ("set_in_play", "equipment_set", "identifier", "composition", "table",
             "table_number", "due_at", "warn_from", "limit")  # fmt: skip
EVENT_TYPES: dict[str, EventType] = {
    kind.name: kind
    for kind in (
        EventType(
            ROUND_SETTLED,
            "A round is settled: the round and its resolutions, exactly as "
            "GET /api/v1/rounds/{id}/ and GET /api/v1/resolutions/?round={id} show them.",
            ("round", "resolutions"),
        ),
        EventType(
            SETTLEMENT_ALERT,
            "A round's settlement needs a person: it failed, or was sent the most times "
            "allowed without settling (the floor page's alert, with what to do).",
            (
                "request",
                "round",
                "round_number",
                *TABLE,
                "status",
                "kind",
                "error",
                "since",
                "failures",
                "sends",
                "guidance",
            ),
        ),
        EventType(
            ROUND_WAITING_ON_DEVICE,
            "A round has waited on a device (a generator's number, an automated shaker's "
            "throw, a Power Odds selection) longer than the floor allows: the device, and "
            "the ways out the rules allow.",
            ("round", "round_number", *TABLE, *WAIT),
        ),
        EventType(
            TABLE_STATUS_CHANGED,
            "A table opened, was suspended or closed.",
            (*TABLE, "status", "was", "changed_at"),
        ),
        EventType(
            DEVICE_STATUS_CHANGED,
            "A device at a table changed status: active, stale, out of order, faulted, retired.",
            (
                "device",
                "kind",
                "serial_number",
                "position",
                *TABLE[:2],
                "status",
                "was",
                "event",
                "detail",
                "changed_at",
            ),
        ),
        EventType(
            EQUIPMENT_DUE_SOON,
            "A set of dice or tiles in play entered its warning period before the time it "
            "must leave play.",
            EQUIPMENT,
        ),
        EventType(
            EQUIPMENT_OVERDUE,
            "A set of dice or tiles in play passed the time it had to leave play: its table "
            "starts no round until it is changed.",
            EQUIPMENT,
        ),
        EventType(
            ENDPOINT_DISABLED,
            "One of your endpoints kept failing and was disabled; it gets nothing until it "
            "is enabled again.",
            ("endpoint", "url", "disabled_at", "reason", "failures", "failing_since"),
        ),
    )
}
EVENT_TYPE_NAMES = tuple(EVENT_TYPES)
CHOICES = [(name, name) for name in EVENT_TYPE_NAMES]


def iso(moment: datetime | None) -> str | None:
    """A moment as the payloads write it: ISO 8601 in UTC, with a Z."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def envelope(event_type: str, occurred_at: datetime, data: dict[str, Any]) -> dict[str, Any]:
    """The Standard Webhooks payload: the type, when it happened, its data."""
    return {"type": event_type, "timestamp": iso(occurred_at), "data": data}


def names_unknown(names: Iterable[object]) -> list[object]:
    """The names among `names` that are no event type."""
    return [name for name in names if name not in EVENT_TYPES]


# --- each type's data, from plain values (the recording code passes them) ---------------


def table_status_data(
    *, table: int, table_number: str, game: str, status: str, was: str, changed_at: datetime
) -> dict[str, Any]:
    """table.status_changed's data."""
    return {
        "table": table,
        "table_number": table_number,
        "game": game,
        "status": status,
        "was": was,
        "changed_at": iso(changed_at),
    }


def device_status_data(
    *,
    device: int,
    kind: str,
    serial_number: str,
    position: int | None,
    table: int,
    table_number: str,
    status: str,
    was: str,
    event: str,
    detail: str,
    changed_at: datetime,
) -> dict[str, Any]:
    """device.status_changed's data: `event` is the device event recorded with it."""
    return {
        "device": device,
        "kind": kind,
        "serial_number": serial_number,
        "position": position,
        "table": table,
        "table_number": table_number,
        "status": status,
        "was": was,
        "event": event,
        "detail": detail,
        "changed_at": iso(changed_at),
    }


def equipment_due_data(
    *,
    set_in_play: int,
    equipment_set: int,
    identifier: str,
    composition: str,
    table: int,
    table_number: str,
    due_at: datetime,
    warn_from: datetime,
    limit: str,
) -> dict[str, Any]:
    """equipment.due_soon's and equipment.overdue's data."""
    return {
        "set_in_play": set_in_play,
        "equipment_set": equipment_set,
        "identifier": identifier,
        "composition": composition,
        "table": table,
        "table_number": table_number,
        "due_at": iso(due_at),
        "warn_from": iso(warn_from),
        "limit": limit,
    }


def settlement_alert_data(
    *,
    request: int,
    round: int,
    round_number: int,
    table: int,
    table_number: str,
    game: str,
    status: str,
    kind: str,
    error: str,
    since: datetime,
    failures: int,
    sends: int,
    guidance: str,
) -> dict[str, Any]:
    """settlement.alert's data: the alert the floor page shows at the round's table."""
    return {
        "request": request,
        "round": round,
        "round_number": round_number,
        "table": table,
        "table_number": table_number,
        "game": game,
        "status": status,
        "kind": kind,
        "error": error,
        "since": iso(since),
        "failures": failures,
        "sends": sends,
        "guidance": guidance,
    }


def round_waiting_data(
    *, table: int, table_number: str, game: str, wait: Mapping[str, Any]
) -> dict[str, Any]:
    """round.waiting_on_device's data: the table, and the wait as a round's `device_wait`
    shows it in the API (gaming/waits.py `waiting_data`: its round's id and number apart,
    moments in UTC)."""
    unknown = set(wait) - {"round", *WAIT}
    if unknown:
        raise ValueError(f"not fields of a wait: {sorted(unknown)}")
    return {
        "round": wait["round"]["id"],
        "round_number": wait["round"]["number"],
        "table": table,
        "table_number": table_number,
        "game": game,
        **{
            name: iso(wait[name]) if isinstance(wait[name], datetime) else wait[name]
            for name in WAIT
        },
    }


def endpoint_disabled_data(
    *,
    endpoint: int,
    url: str,
    disabled_at: datetime,
    reason: str,
    failures: int,
    failing_since: datetime | None,
) -> dict[str, Any]:
    """endpoint.disabled's data."""
    return {
        "endpoint": endpoint,
        "url": url,
        "disabled_at": iso(disabled_at),
        "reason": reason,
        "failures": failures,
        "failing_since": iso(failing_since),
    }
