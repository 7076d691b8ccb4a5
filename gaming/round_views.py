"""A round as an integrator sees its table: the engine's view of the state after its last
event (`state`, one shape per game), what the round takes now (`next`: asked of the checks
that take or refuse each event and wager: the engine's, the round flow's, the devices'
gates), and the device it waits on (`device_wait`, gaming/waits.py). High Roll Dice's state
carries its Extra Roll devices, from the registry: the engines and the registry never meet
below this layer.

The state is read, never written: a settled round's from its row, one in progress from the
shared cache (games/services/round_state.py), else from its events. A page of rounds is
read in one trip to the cache; what the gates and the waits read (the tables' devices, the
events that end a wait) only when one of them asks, then for the whole page at once: at
most two queries, whatever its length, and none for a round no device has a say in.
"""

from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cached_property
from typing import Any

from casino.models import Table
from devices import gates as device_gates
from devices.selectors import extra_roll_view
from games import flow
from games.models import Round, RoundEvent
from games.rules.core.engine import Engine, takes
from games.rules.registry import engine_get
from games.services.round_state import states_read
from gaming.rounds import no_roll_refusals
from gaming.waits import ENDS_IN_PLAY, round_waiting

HIGH_ROLL_DICE = "high_roll_dice"
NOTHING_NOW: dict[str, list[str]] = {"events": [], "wagers": [], "voids": []}
IN_PLAY = (Round.Status.OPEN, Round.Status.CLOSED)


def rounds_view(rounds: Sequence[Round]) -> dict[int, dict[str, Any]]:
    """`{"state": ..., "next": ..., "device_wait": ...}` of each round, by round pk
    (`device_wait`: gaming.waits.Waiting or None)."""
    read = states_read(rounds)
    page = _PageReads(rounds)
    views = {}
    for round_ in rounds:
        engine, options, state = read[round_.pk]
        devices = page.devices_of(round_)
        view = engine.state_view(options, state)
        if round_.game == HIGH_ROLL_DICE:
            view["devices"] = extra_roll_view(devices.found)
        recorded = page.recorder(round_)
        views[round_.pk] = {
            "state": view,
            "next": round_next(round_, engine, options, state, devices),
            "device_wait": round_waiting(round_, devices, recorded),
        }
    return views


def round_view(round_: Round) -> dict[str, Any]:
    """`{"state": ..., "next": ..., "device_wait": ...}` of one round."""
    return rounds_view([round_])[round_.pk]


class _PageReads:
    """What the gates and the waits read for a page of rounds, each read once for the whole
    page when first asked: the devices of its tables (of the rounds in play, and of High
    Roll Dice's, whose state shows them), and the events of its rounds in play among
    ENDS_IN_PLAY (the Pai Gow generator's number, whose value the gates read, and the deal)."""

    def __init__(self, rounds: Sequence[Round]) -> None:
        self.rounds = rounds
        self.in_play = [r for r in rounds if r.status in IN_PLAY]

    @cached_property
    def devices(self) -> dict[int, tuple[device_gates.Found, device_gates.Retired]]:
        tables = {
            r.table_id for r in self.rounds if r.status in IN_PLAY or r.game == HIGH_ROLL_DICE
        }
        return device_gates.tables_devices(tables)

    @cached_property
    def events(self) -> dict[int, list[tuple[str, object]]]:
        events: dict[int, list[tuple[str, object]]] = {}
        unread = []
        for round_ in self.in_play:
            prefetched = getattr(round_, "_prefetched_objects_cache", {}).get("events")
            if prefetched is None:
                unread.append(round_.pk)
            else:
                events[round_.pk] = [
                    (e.event, e.payload) for e in prefetched if e.event in ENDS_IN_PLAY
                ]
        if unread:
            found = RoundEvent.objects.filter(round_id__in=unread, event__in=ENDS_IN_PLAY)
            for round_id, event, payload in found.order_by("seq").values_list(
                "round_id", "event", "payload"
            ):
                events.setdefault(round_id, []).append((event, payload))
        return events

    def devices_of(self, round_: Round) -> device_gates.DevicesNow:
        """The round's table's devices and its generator's number, read when first asked."""
        return device_gates.DevicesNow(
            lambda: self.devices.get(round_.table_id, ({}, {})),
            lambda: (
                _posted(self.events.get(round_.pk, []))
                if device_gates.may_have_number(round_)
                else None
            ),
            lambda: (
                device_gates.may_have_selection(round_)
                and any(
                    event == device_gates.SELECTED for event, _ in self.events.get(round_.pk, [])
                )
            ),
        )

    def recorder(self, round_: Round) -> Callable[[], frozenset[str]]:
        """Which of ENDS_IN_PLAY the round has recorded, read when first asked."""
        return lambda: frozenset(event for event, _ in self.events.get(round_.pk, []))


def _posted(events: Iterable[tuple[str, object]]) -> int | None:
    """The generator's number among a Pai Gow round's events, as devices.gates reads it."""
    return next((int(payload) for event, payload in events if event == "rng_number"), None)  # type: ignore[call-overload]


def round_next(
    round_: Round,
    engine: Engine,
    options: Any,
    state: Any,
    devices: device_gates.DevicesNow | None = None,
) -> dict[str, list[str]]:
    """What the round takes now, from someone (a person at the table or one of its devices),
    asked of the checks that take or refuse it: the engine's, the round flow's and the
    devices' gates. Open: the wagering events the engine takes (at an open table), "no more
    bets", the results it takes (a result closes wagering), a no roll. No more bets: the
    results and a no roll. Result entered or settled: nothing (the next round is opened with
    POST /rounds/). `voids`: each section whose void the round takes now; an event voids are
    made of (flow.VOIDS) is listed with them, and only with them."""
    if round_.status not in IN_PLAY:
        return NOTHING_NOW
    if devices is None:
        devices = device_gates.devices_now(round_)
    game = round_.game
    now = engine.events_now(options, state)
    wagering = round_.status == Round.Status.OPEN and round_.table.status == Table.Status.OPEN
    voided = flow.VOIDS.get(game, {})
    voids = [
        section
        for section, (event, payload) in voided.items()
        if takes(engine, options, state, event, payload)
        and not device_gates.result_refusals(round_, event, payload, None, devices)
    ]
    void_events = {event for event, _ in voided.values()}
    events = []
    if wagering:
        events += [event for event in now if event in flow.WAGERING_EVENTS[game]]
    if round_.status == Round.Status.OPEN:
        events.append("no_more_bets")
    for event in dict.fromkeys([*now, *(voided[s][0] for s in voids)]):
        if event not in flow.RESULT_EVENTS[game]:
            continue
        if event in void_events:
            if any(voided[s][0] == event for s in voids):
                events.append(event)
        elif not device_gates.result_refused(round_, event, devices):
            events.append(event)
    if game in flow.NO_ROLL_RETHROW and not no_roll_refusals(
        round_, engine, options, state, devices
    ):
        events.append("no_roll")  # Sic Bo's no roll is the engine's own, above
    kinds = []
    if wagering and "wagers" in now:
        kinds = [
            kind
            for kind in engine.kinds_now(options, state)
            if not device_gates.wager_refused(round_, kind, devices)
        ]
    return {"events": events, "wagers": kinds, "voids": voids}


def floor_summaries(rounds: Sequence[Round], fresh: Collection[int] = ()) -> dict[int, Any]:
    """The floor's few words on each round's table after its last event (the point and the
    shooter, the drive, the bank...: the engine's `state_summary`), by round pk, read from
    the shared cache (a settled round's row only when the cache has lost it). A round in
    `fresh` is the last before its table closed: the next starts from a fresh table."""
    stale = [r for r in rounds if r.pk not in fresh]
    read = states_read(stale, cache_first=True) if stale else {}
    summaries = {}
    for round_ in rounds:
        if round_.pk in read:
            engine, options, state = read[round_.pk]
        else:
            engine = engine_get(round_.game)
            options = engine.parse_options(round_.options)
            state = engine.new_state(options)
        summaries[round_.pk] = engine.state_summary(options, state)
    return summaries
