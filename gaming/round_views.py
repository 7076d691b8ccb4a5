"""A round as an integrator sees its table: the engine's view of the state after its last
event (`state`, one shape per game), and what the round takes now (`next`: the events the
engine and the round flow take in its status, the wager kinds the engine admits, the voids
that apply). High Roll Dice's state carries its Extra Roll devices, from the registry: the
engines and the registry never meet below this layer.

The state is read, never written: a settled round's from its row, one in progress from the
shared cache (games/services/round_state.py), else from its events. A page of rounds is
read in one trip to the cache and one query for its tables' devices.
"""

from collections.abc import Collection, Sequence
from typing import Any

from casino.models import Table
from devices.selectors import extra_roll_devices
from games import flow
from games.models import Round
from games.rules.core.engine import Engine
from games.rules.registry import engine_get
from games.services.round_state import states_read

HIGH_ROLL_DICE = "high_roll_dice"
NO_DEVICES: dict[str, object] = {"extra_roll": [], "lock_out": None}
NOTHING_NOW: dict[str, list[str]] = {"events": [], "wagers": [], "voids": []}


def rounds_view(rounds: Sequence[Round]) -> dict[int, dict[str, Any]]:
    """`{"state": ..., "next": ...}` of each round, by round pk."""
    read = states_read(rounds)
    dice_tables = {r.table_id for r in rounds if r.game == HIGH_ROLL_DICE}
    devices = extra_roll_devices(dice_tables) if dice_tables else {}
    views = {}
    for round_ in rounds:
        engine, options, state = read[round_.pk]
        view = engine.state_view(options, state)
        if round_.game == HIGH_ROLL_DICE:
            view["devices"] = devices.get(round_.table_id, NO_DEVICES)
        views[round_.pk] = {"state": view, "next": round_next(round_, engine, options, state)}
    return views


def round_view(round_: Round) -> dict[str, Any]:
    """`{"state": ..., "next": ...}` of one round."""
    return rounds_view([round_])[round_.pk]


def round_next(round_: Round, engine: Engine, options: Any, state: Any) -> dict[str, list[str]]:
    """What the round takes now. Open: the wagering events the engine takes (at an open
    table), "no more bets", the results it takes (a result closes wagering), a no roll.
    No more bets: the results and a no roll. Result entered or settled: nothing (the next
    round is opened with POST /rounds/)."""
    if round_.status not in (Round.Status.OPEN, Round.Status.CLOSED):
        return NOTHING_NOW
    game = round_.game
    now = engine.events_now(options, state)
    wagering = round_.status == Round.Status.OPEN and round_.table.status == Table.Status.OPEN
    events = []
    if wagering:
        events += [event for event in now if event in flow.WAGERING_EVENTS[game]]
    if round_.status == Round.Status.OPEN:
        events.append("no_more_bets")
    events += [event for event in now if event in flow.RESULT_EVENTS[game]]
    if game in flow.NO_ROLL_RETHROW:  # Sic Bo's no roll is the engine's own, above
        events.append("no_roll")
    voids = [section for section, (event, _) in flow.VOIDS.get(game, {}).items() if event in now]
    kinds = list(engine.kinds_now(options, state)) if wagering and "wagers" in now else []
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
