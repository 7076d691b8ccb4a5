"""The device gates: what a table's devices allow at the moment of each action.

- Opening a table: every device it needs (devices/rules.py `needs`) active, or for an
  automated Sic Bo shaker marked out of order (§ 625a.7(d)).
- Starting a round: the same, less the Extra Roll devices, which stop only the Extra Roll.
- An Extra Roll purchase: the wagering device at its betting position and the table's
  lock-out control active, and "no more bets" not yet called (§ 675a.1(c)).
- A result: the dice of an automated-shaker table come from the shaker unless it is out of
  order (§ 625a.7(d)); a Power Odds selection from the table's generator while it works
  (§ 623b.5(c)); a Pai Gow starting position from the generator while it works, and from the
  shaker only where the Rules Submission falls back on it (§ 621a.6(a)); a Pai Gow round
  voided for want of the generator's number only while it has posted none.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from casino.actors import is_device
from casino.models import Table
from casino.services.errors import FloorRefused
from casino.services.tables import table_options_in_force
from devices import rules
from devices.models import Device
from games.rules.core import cite

Status = Device.Status
LOCK_OUT = cite("675a.1(c)(2)")
WAGERING_DEVICE = cite("675a.1(c)(1)")
MANUAL_SHAKER = cite("625a.7(d)")
POWER_ODDS = cite("623b.5(c)")
STARTING_POSITION = cite("621a.6(a)(1)")
ILLUMINATION_DOWN = cite("625a.7(b)")


def in_service(table: Table) -> dict[tuple[str, int | None], Device]:
    """The table's devices that are not retired, by (kind, position)."""
    found = Device.objects.filter(table=table).exclude(status=Status.RETIRED)
    return {(d.kind, d.position): d for d in found}


def device_of(table: Table, kind: str, position: int | None = None) -> Device | None:
    return in_service(table).get((kind, position))


def table_needs(table: Table, now: datetime) -> tuple[rules.Need, ...]:
    """The devices this table needs, under the Rules Submission in force at `now`."""
    try:
        options = table_options_in_force(table, now)[1]
    except FloorRefused:
        options = {}  # the floor's own gate names the missing Rules Submission
    return rules.needs(
        table.game, table.variant, table.operation, table.automated_shaker, table.seats, options
    )


def device_refusals(table: Table, now: datetime, *, opening: bool) -> list[str]:
    """Why the table's devices stop it opening (or starting a round) now."""
    found = in_service(table)
    reasons = []
    for need in table_needs(table, now):
        if not opening and not need.blocks_rounds:
            continue
        device = found.get((need.kind, need.position))
        if device is None:
            reasons.append(f"{table.number} has no {need.label()[4:]} registered ({need.cite})")
        elif device.status == Status.OUT_OF_ORDER and need.out_of_order_ok:
            continue
        elif device.status != Status.ACTIVE:
            reasons.append(f"{need.label()} at {table.number} is {_state(device)} ({need.cite})")
    return reasons


def _state(device: Device) -> str:
    words = device.get_status_display().lower()
    if device.status == Status.REGISTERED:
        return "registered but not yet heard from"
    if device.status == Status.OUT_OF_ORDER and device.out_of_order_reason:
        return f"{words}: {device.out_of_order_reason}"
    return words


# --- wagers ---------------------------------------------------------------------------------


def extra_roll_refusals(
    round_: Any, wagers: Sequence[Mapping[str, object]], by: Any, first: int = 1
) -> list[str]:
    """Each Extra Roll purchase refused by its devices or by the lock-out (§ 675a.1(c)),
    named by the ref it would have had (ROUND.N, `first` the next N), as the engine does."""
    purchases = [
        (i, w)
        for i, w in enumerate(wagers)
        if isinstance(w, Mapping) and w.get("kind") == "extra_roll"
    ]
    if round_.game != "high_roll_dice" or not purchases:
        return []
    table = round_.table
    found = in_service(table)
    lockout = found.get(("extra_roll_lockout", None))
    reasons = []
    for index, wager in purchases:
        where = f"{round_.number}.{first + index}"  # the ref it would have had
        if round_.status != round_.Status.OPEN:
            reasons.append(
                f'{where}: the lock-out was engaged at "no more bets"; a later Extra Roll '
                f"is not recognized ({LOCK_OUT})"
            )
            continue
        position = wager.get("position")
        if is_device(by) and position is None:
            position = by.position
        if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
            reasons.append(
                f"{where}: an Extra Roll is bought at a betting position's wagering device; "
                f"the position is a number ({WAGERING_DEVICE})"
            )
            continue
        if is_device(by) and (by.kind != "extra_roll_device" or by.position != position):
            reasons.append(f"{where}: {by} may buy an Extra Roll only at its own position")
            continue
        # SCENARIOS.md has no position: a purchase that names none is taken while the wagering
        # device at every betting position works, so the buyer's own does too.
        positions = [position] if position is not None else range(1, table.seats + 1)
        devices = {p: found.get(("extra_roll_device", p)) for p in positions}
        down = {p: d for p, d in devices.items() if d is None or d.status != Status.ACTIVE}
        for at, device in down.items():
            state = "missing" if device is None else _state(device)
            reasons.append(
                f"{where}: the Extra Roll wagering device at betting position {at} is "
                f"{state}: no Extra Roll there ({WAGERING_DEVICE})"
                + ("" if position is not None else "; name the buyer's position")
            )
        if not down and (lockout is None or lockout.status != Status.ACTIVE):
            state = "missing" if lockout is None else _state(lockout)
            reasons.append(
                f"{where}: the Extra Roll lock-out control at {table.number} is {state}: no "
                f"Extra Roll is taken until it works ({LOCK_OUT})"
            )
    return reasons


# --- results --------------------------------------------------------------------------------


def result_refusals(round_: Any, event: str, payload: object, by: Any) -> list[str]:
    """Why this result may not come from `by` (a person or a device) now."""
    table = round_.table
    device = by if is_device(by) else None
    if device is not None and device.table_id != table.pk:
        return [f"{device} serves {device.table.number}, not {table.number}"]
    if round_.game == "sic_bo" and event == "throw" and table.automated_shaker:
        shaker = device_of(table, "automated_shaker")
        if device is not None and device == shaker:
            if device.status != Status.ACTIVE:
                return [f"{device} is {_state(device)}: its dice are not taken"]
            return []
        if shaker is not None and shaker.status != Status.OUT_OF_ORDER:
            return [
                f"the automated shaker at {table.number} is {_state(shaker)}: the dice come "
                "from it; a manual Sic Bo shaker is used only once the automated one is "
                f"covered or signed out of order ({MANUAL_SHAKER})"
            ]
    if round_.game == "craps" and event == "power_odds":
        generator = device_of(table, "power_odds_rng")
        if generator is None or generator.status != Status.ACTIVE:
            state = "missing" if generator is None else _state(generator)
            return [
                f"the Power Odds random number generator at {table.number} is {state}: no "
                f"Power Odds at this table until it works ({POWER_ODDS})"
            ]
        if device != generator:
            return [f"the Power Odds selection is the random number generator's ({POWER_ODDS})"]
    if round_.game == "pai_gow" and event == "deal" and isinstance(payload, Mapping):
        return _starting_position_refusals(round_, payload, device)
    if round_.game == "pai_gow" and event == "irregularity" and isinstance(payload, Mapping):
        posted = generator_number(round_)
        if payload.get("kind") == "no_starting_position" and posted is not None:
            return [
                f"the generator posted {posted} for this round: that number gives the "
                f"starting position; deal from it ({cite('621a.6(b)')})"
            ]
    if device is not None and device.kind_info.reports == "":
        return [f"{device.kind_info.label} reports no results"]
    return []


def _starting_position_refusals(
    round_: Any, payload: Mapping[str, object], device: Device | None
) -> list[str]:
    posted = generator_number(round_)
    if "dice" in payload and posted is not None:
        return [
            f"the generator posted {posted} for this round: that number gives the starting "
            f"position ({cite('621a.6(b)')})"
        ]
    if "dice" in payload and rules.rng_uses(round_.options):
        generator = device_of(round_.table, "pai_gow_rng")
        if generator is not None and generator.status == Status.ACTIVE:
            return [
                f"the random number generator at {round_.table.number} is working: the "
                f"starting position comes from it ({STARTING_POSITION})"
            ]
        if rules.rng_only(round_.options):
            return [
                f"the Rules Submission gives the starting position at {round_.table.number} "
                f"to the random number generator alone, with no shaker to fall back on "
                f"({STARTING_POSITION}): with no number from it, the round is voided under "
                "§ 621a.6(a)(1)"
            ]
    if "rng" in payload:
        if posted is None:
            return [f"the generator's number is posted by the generator ({STARTING_POSITION})"]
        if payload["rng"] != posted:
            return [f"the generator posted {posted}, not {payload['rng']} ({STARTING_POSITION})"]
    return []


def generator_number(round_: Any) -> int | None:
    """The number the Pai Gow generator posted for this round, if it has."""
    event = round_.events.filter(event="rng_number").order_by("seq").first()
    return None if event is None else int(event.payload)


def illumination_down(table: Table) -> bool:
    """§ 625a.7(b): the Sic Bo illumination device is not working."""
    device = device_of(table, "illumination_device")
    return table.game == "sic_bo" and (device is None or device.status != Status.ACTIVE)


def automated_shaker_in_use(table: Table) -> bool:
    """§ 625a.5(a)(2): the table's automated shaker is in use unless marked out of order."""
    if not table.automated_shaker:
        return False
    shaker = device_of(table, "automated_shaker")
    return shaker is None or shaker.status != Status.OUT_OF_ORDER
