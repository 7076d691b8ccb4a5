"""The device gates: what a table's devices allow at the moment of each action.

- Opening a table: every device it needs (devices/rules.py `needs`) active, or for an
  automated Sic Bo shaker marked out of order (§ 625a.7(d)).
- Starting a round: the same, less the Extra Roll devices, which stop only the Extra Roll;
  and a Sic Bo round's shaker, fixed as it opens (§ 625a.5(b)): the automated one unless it
  is marked out of order (`round_shaker`).
- An Extra Roll purchase: the wagering device at its betting position and the table's
  lock-out control active, and "no more bets" not yet called (§ 675a.1(c)).
- A result: the dice of a round using the automated shaker come from it, and the manual
  shaker's from the dealer (§ 625a.5(b), § 625a.7(d)); a Power Odds selection from the
  table's generator while it works (§ 623b.5(c)); a Pai Gow deal at the generator's table
  only once its number for the round is recorded, or with the shaker's dice where the Rules
  Submission falls back on them while it is down (§ 621a.6(a), (b)); a Pai Gow "no roll"
  only where the shaker's dice give the start (§ 621a.10(a), (b)); a Pai Gow round voided
  for want of the generator's number only while it has posted none.

Each gate reads the table's devices as one `DevicesNow`: the write path reads it for its
round (`devices_now`); a page of rounds reads its tables' together and hands each round its
own (gaming/round_views.py), so what `next` lists is what these same checks take. Who acts
when a device is down is devices/rules.py's (`dealer_step`), which the waits read too.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import cached_property
from typing import Any

from casino.actors import is_device
from casino.models import Table
from casino.services.errors import FloorRefused
from casino.services.tables import RulesInForce, table_options_in_force
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
    """The table's device of `kind` (at `position`) in service, or None."""
    return in_service(table).get((kind, position))


Found = Mapping[tuple[str, int | None], Device]
Retired = Mapping[str, Device]


class DevicesNow:
    """What the gates read of a round's table at one moment, each read when a gate first
    asks for it: its devices in service by (kind, position) and the last retired one of each
    kind (`found`, `retired`), the number the Pai Gow generator posted for the round
    (`posted`, None: none) and whether the Power Odds generator's selection is recorded for
    it (`selected`). `devices_now` reads them for one round; a page of rounds hands each
    round readers that read for the whole page at once (gaming/round_views.py)."""

    def __init__(
        self,
        devices: Callable[[], tuple[Found, Retired]],
        posted: Callable[[], int | None] = lambda: None,
        selected: Callable[[], bool] = lambda: False,
    ) -> None:
        self._devices, self._posted, self._selected = devices, posted, selected

    @cached_property
    def _rows(self) -> tuple[Found, Retired]:
        return self._devices()

    @property
    def found(self) -> Found:
        """The devices in service, by (kind, position)."""
        return self._rows[0]

    @property
    def retired(self) -> Retired:
        """The last retired device of each kind (what a round waited on, if that is all)."""
        return self._rows[1]

    @cached_property
    def posted(self) -> int | None:
        """The number the Pai Gow generator posted for the round, if it has."""
        return self._posted()

    @cached_property
    def selected(self) -> bool:
        """Whether the Power Odds generator's selection is recorded for the round."""
        return self._selected()

    def of(self, kind: str, position: int | None = None) -> Device | None:
        """The device of `kind` (at `position`) in service, or None."""
        return self.found.get((kind, position))


def devices_now(round_: Any) -> DevicesNow:
    """The round's table's devices as the gates read them: a query when first asked, and one
    more for a Pai Gow round's generator number or a Power Odds round's selection."""
    table_id = round_.table_id
    return DevicesNow(
        lambda: tables_devices([table_id]).get(table_id, ({}, {})),
        lambda: generator_number(round_) if may_have_number(round_) else None,
        lambda: may_have_selection(round_) and round_.events.filter(event=SELECTED).exists(),
    )


def may_have_number(round_: Any) -> bool:
    """Whether the round may hold a Pai Gow generator's number: a Pai Gow round whose
    wagering has closed (the number closes it, gaming.rounds.generator_number_post)."""
    return round_.game == "pai_gow" and round_.status != round_.Status.OPEN


SELECTED = "power_odds"  # the event that records the Power Odds generator's selection


def may_have_selection(round_: Any) -> bool:
    """Whether the round may hold a Power Odds selection: a Craps round at a table offering
    Power Odds whose wagering has closed (the selection closes it, § 623b.5(c))."""
    return (
        round_.game == "craps"
        and rules.power_odds_offered(round_.options)
        and round_.status != round_.Status.OPEN
    )


def tables_devices(table_ids: Iterable[int]) -> dict[int, tuple[Found, Retired]]:
    """Each table's devices in service by (kind, position), and its last retired one of
    each kind, by table id: one query for them all."""
    read: dict[int, tuple[dict, dict]] = {}
    rows = Device.objects.filter(table_id__in=list(table_ids)).order_by("table_id", "pk")
    for device in rows:
        found, retired = read.setdefault(device.table_id, ({}, {}))
        if device.status == Status.RETIRED:
            retired[device.kind] = device  # the last by pk
        else:
            found[(device.kind, device.position)] = device
    return read


def _read(round_: Any, devices: DevicesNow | None) -> DevicesNow:
    return devices if devices is not None else devices_now(round_)


def table_needs(
    table: Table, now: datetime, in_force: RulesInForce | None = None
) -> tuple[rules.Need, ...]:
    """The devices this table needs, under the Rules Submission in force at `now`
    (`in_force`: read already)."""
    try:
        options = table_options_in_force(table, now, in_force)[1]
    except FloorRefused:
        options = {}  # the floor's own gate names the missing Rules Submission
    return rules.needs(
        table.game, table.variant, table.operation, table.automated_shaker, table.seats, options
    )


def device_refusals(
    table: Table, now: datetime, *, opening: bool, in_force: RulesInForce | None = None
) -> list[str]:
    """Why the table's devices stop it opening (or starting a round) now."""
    found = in_service(table)
    reasons = []
    for need in table_needs(table, now, in_force):
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


# --- a round's shaker ------------------------------------------------------------------------


def round_shaker(table: Table, options: Mapping[str, object]) -> dict[str, object]:
    """The options a Sic Bo round opens with: at the commencement of each round the dealer
    shakes the manual shaker or activates the automated one (§ 625a.5(b)); the automated one
    while it is in use, the manual one once it is marked out of order (§ 625a.7(d)). Fixed
    for the round: a shaker returned to service mid-round throws from the next."""
    if rules.uses_automated_shaker(options) and not automated_shaker_in_use(table):
        return {**options, rules.AUTOMATED_SHAKER[0]: "manual"}
    return dict(options)


# --- wagers ---------------------------------------------------------------------------------


def extra_roll_refusals(
    round_: Any,
    wagers: Sequence[Mapping[str, object]],
    by: Any,
    first: int = 1,
    devices: DevicesNow | None = None,
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
    found = _read(round_, devices).found
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
        at = {p: found.get(("extra_roll_device", p)) for p in positions}
        down = {p: d for p, d in at.items() if d is None or d.status != Status.ACTIVE}
        for place, device in down.items():
            state = "missing" if device is None else _state(device)
            reasons.append(
                f"{where}: the Extra Roll wagering device at betting position {place} is "
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


def wager_refused(round_: Any, kind: str, devices: DevicesNow) -> bool:
    """Whether the devices refuse every wager of `kind` now, at whichever betting position it
    is placed (`next` leaves the kind out): an Extra Roll is taken at a position whose
    wagering device works while the lock-out control works (§ 675a.1(c)); no other kind
    waits on a device."""
    if kind != "extra_roll":
        return False
    return all(
        extra_roll_refusals(round_, [{"kind": kind, "position": p}], None, devices=devices)
        for p in range(1, round_.table.seats + 1)
    )


# --- results --------------------------------------------------------------------------------


def result_refusals(
    round_: Any, event: str, payload: object, by: Any, devices: DevicesNow | None = None
) -> list[str]:
    """Why this result may not come from `by` (a person or a device) now."""
    table = round_.table
    device = by if is_device(by) else None
    if device is not None and device.table_id != table.pk:
        return [f"{device} serves {device.table.number}, not {table.number}"]
    if round_.game == "sic_bo" and event == "throw":
        refusals = _shaker_refusals(round_, device, devices)
        if refusals is not None:
            return refusals
    if round_.game == "craps" and event == "throw":
        refusals = _selection_refusals(round_, _read(round_, devices))
        if refusals:
            return refusals
    if round_.game == "craps" and event == "power_odds":
        generator = _read(round_, devices).of("power_odds_rng")
        if generator is None or generator.status != Status.ACTIVE:
            state = "missing" if generator is None else _state(generator)
            return [
                f"the Power Odds random number generator at {table.number} is {state}: no "
                f"Power Odds at this table until it works ({POWER_ODDS})"
            ]
        if device != generator:
            return [f"the Power Odds selection is the random number generator's ({POWER_ODDS})"]
    if round_.game == "pai_gow" and event == "deal" and isinstance(payload, Mapping):
        return _starting_position_refusals(round_, payload, _read(round_, devices))
    if round_.game == "pai_gow" and event == "irregularity" and isinstance(payload, Mapping):
        kind = payload.get("kind")
        posted = _read(round_, devices).posted if kind == "no_starting_position" else None
        if posted is not None:
            return [
                f"the generator posted {posted} for this round: that number gives the "
                f"starting position; deal from it ({cite('621a.6(b)')})"
            ]
    if device is not None and device.kind_info.reports == "":
        return [f"{device.kind_info.label} reports no results"]
    return []


def _selection_refusals(round_: Any, devices: DevicesNow) -> list[str]:
    """§ 623b.5(c): at a table offering Power Odds the generator selects after all wagers and
    before the dice are thrown, so no throw is taken until its selection for the round is
    recorded; unless staff marked the generator out of order (`dealer_step`): then this
    round's throw is taken without one, at the posted odds (docs/regulations.md, Devices)."""
    wait = rules.WAITS["power_odds_rng"]
    if not wait.applies(round_.options) or devices.selected:
        return []
    generator = devices.of(wait.kind)
    if rules.dealer_step(wait, round_.options, generator.status if generator else None):
        return []
    state = "" if generator is None or generator.status == Status.ACTIVE else _state(generator)
    why = f"; it is {state}" if state else ""
    return [
        f"no throw at {round_.table.number} until the Power Odds random number generator has "
        f"displayed its selection for round {round_.number}{why} ({POWER_ODDS})"
    ]


def _shaker_refusals(
    round_: Any, device: Device | None, devices: DevicesNow | None
) -> list[str] | None:
    """A Sic Bo throw: from the automated shaker in a round that uses it, else the dealer's
    manual shaker (§ 625a.5(b)); None when the throw's sender is checked no further here."""
    wait = rules.WAITS["automated_shaker"]
    if not wait.applies(round_.options):  # the manual shaker's round
        if device is not None and device.kind == wait.kind:
            if device.status != Status.ACTIVE:
                return [f"{device} is {_state(device)}: its dice are not taken"]
            return [
                f"{round_} throws with the manual Sic Bo shaker: the automated shaker was out "
                f"of order when it opened, so its dice are not taken ({cite('625a.5(b)')})"
            ]
        return None
    shaker = _read(round_, devices).of(wait.kind)
    if device is not None and device == shaker:
        if device.status != Status.ACTIVE:
            return [f"{device} is {_state(device)}: its dice are not taken"]
        return []
    if not rules.dealer_step(wait, round_.options, shaker.status if shaker else None):
        assert shaker is not None  # none in service hands the dice to the dealer
        return [
            f"the automated shaker at {round_.table.number} is {_state(shaker)}: the dice come "
            "from it; a manual Sic Bo shaker is used only once the automated one is "
            f"covered or signed out of order ({MANUAL_SHAKER})"
        ]
    return None


def result_refused(round_: Any, event: str, devices: DevicesNow) -> bool:
    """Whether the devices refuse `event` now in every form and from every sender (a person
    or any of the table's devices): `next` leaves it out. The same checks as
    `result_refusals`, asked of each; a Pai Gow deal's forms are the generator's number
    (given or posted) and the shaker's dice."""
    forms: list[object] = [{}, {"dice": None}] if event == "deal" else [None]
    if any(not result_refusals(round_, event, form, None, devices) for form in forms):
        return False  # a person sends it (no device read for it)
    return all(
        result_refusals(round_, event, form, by, devices)
        for form in forms
        for by in devices.found.values()
    )


def _starting_position_refusals(
    round_: Any, payload: Mapping[str, object], devices: DevicesNow
) -> list[str]:
    """§ 621a.6(a), (b): where a Pai Gow deal's starting position comes from. At a table
    whose Rules Submission gives it to the generator, no deal is taken until the generator's
    number for the round is recorded, except with the shaker's dice while the rules hand the
    start to the dealer (`dealer_step`, § 621a.6(a)(2)). A deal that names no start (the
    contract's direct form) at a shaker table is taken as given (docs/regulations.md)."""
    if "rng" in payload:
        posted = devices.posted
        if posted is None:
            return [f"the generator's number is posted by the generator ({STARTING_POSITION})"]
        if payload["rng"] != posted:
            return [f"the generator posted {posted}, not {payload['rng']} ({STARTING_POSITION})"]
        return []
    if "dice" in payload:
        return dice_start_refusals(round_, devices)
    wait = rules.round_wait(round_.game, round_.options)
    if wait is None or devices.posted is not None:
        return []  # the shaker's table; or the deal from the number posted
    generator = devices.of(wait.kind)
    if rules.dealer_step(wait, round_.options, generator.status if generator else None):
        state = "missing" if generator is None else _state(generator)
        return [
            f"the random number generator at {round_.table.number} is {state}: the starting "
            f'position comes from the Pai Gow shaker\'s three dice, named in the deal ("dice", '
            f"{cite('621a.6(a)(2)')})"
        ]
    if generator is not None and generator.status == Status.ACTIVE:
        return [
            f"no deal at {round_.table.number} until the random number generator's number "
            f"for round {round_.number} is recorded: it gives the starting position "
            f"({STARTING_POSITION}, (b))"
        ]
    return [_generator_alone(round_)]


def dice_start_refusals(round_: Any, devices: DevicesNow | None = None) -> list[str]:
    """Why the dealer's Pai Gow shaker may not give this round's starting position
    (§ 621a.6(a)(2)): the generator's number posted for it (§ 621a.6(b)), or a generator
    the rules still give the start to (`dealer_step`). The deal's dice and a "no roll" of
    them (§ 621a.10(a), (b)) both ask it."""
    wait = rules.round_wait(round_.game, round_.options)
    if wait is None:
        return []  # the shaker's table: no generator posts there (gaming.rounds)
    devices = _read(round_, devices)
    if devices.posted is not None:
        return [
            f"the generator posted {devices.posted} for this round: that number gives the "
            f"starting position ({cite('621a.6(b)')})"
        ]
    generator = devices.of(wait.kind)
    status = generator.status if generator else None
    if rules.dealer_step(wait, round_.options, status):
        return []
    if status == Status.ACTIVE:
        return [
            f"the random number generator at {round_.table.number} is working: the "
            f"starting position comes from it ({STARTING_POSITION})"
        ]
    return [_generator_alone(round_)]


def _generator_alone(round_: Any) -> str:
    return (
        f"the Rules Submission gives the starting position at {round_.table.number} "
        f"to the random number generator alone, with no shaker to fall back on "
        f"({STARTING_POSITION}): with no number from it, the round is voided under "
        "§ 621a.6(a)(1)"
    )


def no_roll_refusals(round_: Any, devices: DevicesNow | None = None) -> list[str]:
    """Why the devices refuse a "no roll" now: a Pai Gow no roll is the shaker's dice not
    landing flat or falling out (§ 621a.10(a), (b)), so only where they give the start."""
    if round_.game != "pai_gow":
        return []
    return dice_start_refusals(round_, devices)


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
