"""A stand-in dealer and six players, for the demo floor and the integration tests: they play
rounds through the same services a dealer in the admin or an integrator uses.

Players offer wagers a regular would make; whatever the engine refuses (a Pass bet with a
point on, odds with no point) is dropped and the rest placed, so the plans need not know
every rule: the engine does. Dice and tiles come from a seeded random.Random.
"""

import random
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from casino.services.errors import FloorRefused
from devices.gates import device_of
from devices.rules import power_odds_offered, simulated_selection, uses_automated_shaker
from games.models import Round, SettlementRequest, Wager
from games.rules.high_roll_dice.settlement import read_first_roll
from games.rules.pai_gow.house_way import house_way
from games.rules.pai_gow.tiles import TILE_SET, parse_tile, tiles_text
from games.rules.registry import engine_get
from games.services.round_state import in_play, state_in
from games.services.settlement import round_settle
from gaming.rounds import generator_number_post, result_enter, round_open, wagers_place

PLAYERS = tuple(f"p{n}" for n in range(1, 7))
Plan = list[dict[str, object]]


def _units(round_: Round, rng: random.Random, *choices: int) -> str:
    base = Decimal(str(round_.options.get("min_wager", "5")))
    return str(base * rng.choice(choices or (1, 2, 4)))


def _sic_bo(round_: Round, rng: random.Random) -> Plan:
    plan: Plan = []
    for player in PLAYERS:
        a, b = sorted(rng.sample(range(1, 7), 2))
        plan += [
            {"player": player, "kind": rng.choice(("big", "small")), "amount": _units(round_, rng)},
            {
                "player": player,
                "kind": f"total:{rng.randint(4, 17)}",
                "amount": _units(round_, rng),
            },
            {
                "player": player,
                "kind": f"single:{rng.randint(1, 6)}",
                "amount": _units(round_, rng),
            },
            {"player": player, "kind": f"combo:{a}-{b}", "amount": _units(round_, rng)},
        ]
    return plan


def _high_roll_dice(round_: Round, rng: random.Random) -> Plan:
    ten = round_.options.get("dice", 10) == 10
    plan: Plan = []
    for player in PLAYERS:
        amount = _units(round_, rng, 1, 2)
        kinds = [f"pip:{rng.randint(1, 6)}", f"like_kind:{rng.randint(2, 5)}"]
        kinds.append(f"like_kind:{rng.randint(6, 8 if ten else 6)}")
        kinds.append("extra_roll" if ten and rng.random() < 0.5 else "millionaire:9")
        plan += [{"player": player, "kind": kind, "amount": amount} for kind in kinds]
    for wager in plan:  # bought at the player's own Extra Roll device (§ 675a.1(c)(1))
        if wager["kind"] == "extra_roll":
            wager["position"] = PLAYERS.index(str(wager["player"])) + 1
    return plan


def _three_dice_football(round_: Round, rng: random.Random) -> Plan:
    full = ("touchdown", "defense", "quick_strike", f"game_length:{rng.randint(1, 6)}")
    single = ("over_four", "under_four", "penalty", "no_gain", "big_play", "cover_three")
    return [
        {"player": player, "kind": kind, "amount": _units(round_, rng)}
        for player in PLAYERS
        for kind in (rng.choice(full), *rng.sample(single, 3))
    ]


def _craps(round_: Round, rng: random.Random) -> Plan:
    plan: Plan = []
    for player in PLAYERS:
        for kind in ("pass", "field", f"place:{rng.choice((6, 8))}", f"hard:{rng.choice((4, 8))}"):
            amount = _units(round_, rng, 6) if kind.startswith("place") else _units(round_, rng)
            plan.append({"player": player, "kind": kind, "amount": amount})
    for ref, player in _pass_bets_working(round_):
        plan.append({"player": player, "kind": "odds", "on": ref, "amount": _units(round_, rng)})
    if round_.table.variant == "mini_craps":  # § 623a.2: each player at his own seat
        for wager in plan:
            wager["seat"] = PLAYERS.index(str(wager["player"])) + 1
    return plan


def _pai_gow(round_: Round, rng: random.Random) -> Plan:
    return [
        {"player": player, "kind": "pai_gow", "amount": _units(round_, rng), "position": n}
        for n, player in enumerate(PLAYERS, start=1)
    ]


PLANS: dict[str, Callable[[Round, random.Random], Plan]] = {
    "sic_bo": _sic_bo,
    "high_roll_dice": _high_roll_dice,
    "three_dice_football": _three_dice_football,
    "craps": _craps,
    "pai_gow": _pai_gow,
}


def _pass_bets_working(round_: Round) -> list[tuple[str, str]]:
    """(ref, player) of each Pass bet still working as the round opens."""
    working = engine_get(round_.game).open_wagers(state_in(round_))
    rows = Wager.objects.filter(table_id=round_.table_id, ref__in=working, kind="pass")
    return [(w.ref, w.player) for w in rows]


# --- playing one round ------------------------------------------------------------------------


def wagers_offer(round_: Round, plan: Plan, *, by: Any, now: datetime) -> int:
    """Place the plan, dropping each wager the engine refuses; the number placed."""
    for _ in range(len(plan) + 1):
        if not plan:
            return 0
        try:
            return len(wagers_place(round_, plan, by=by, now=now))
        except FloorRefused as refused:
            # A refusal names each refused wager by its would-be ref, ROUND.N.
            bad = {int(m.group(1)) - 1 for r in refused.reasons if (m := _REF.match(r))}
            if not bad:
                raise
            plan = [w for i, w in enumerate(plan) if i not in bad]
    return 0


_REF = re.compile(r"^\d+\.(\d+): ")


def round_play(table: Any, rng: random.Random, *, by: Any, now: datetime) -> Round:
    """Open a round, take the players' wagers, enter the result up to the settlement request."""
    round_ = round_open(table, by=by, now=now)
    wagers_offer(round_, PLANS[round_.game](round_, rng), by=by, now=now)
    RESULTS[round_.game](round_, rng, by, now)
    return Round.objects.get(pk=round_.pk)


def _dice(rng: random.Random, count: int) -> list[int]:
    return [rng.randint(1, 6) for _ in range(count)]


def _throw_sic_bo(round_: Round, rng: random.Random, by: Any, now: datetime) -> None:
    if uses_automated_shaker(round_.options):  # the round's shaker, fixed as it opened
        by = device_of(round_.table, "automated_shaker")  # its own dice (§ 625a.5(b)(2))
    result_enter(round_, "throw", _dice(rng, 3), by=by, now=now)


def _throw_craps(round_: Round, rng: random.Random, by: Any, now: datetime) -> None:
    # § 623b.5(c): where the table offers Power Odds its generator selects before the throw.
    if power_odds_offered(round_.options) and not round_.events.filter(event="power_odds"):
        generator = device_of(round_.table, "power_odds_rng")
        if generator is not None and generator.status == generator.Status.ACTIVE:
            selection = simulated_selection(rng)
            round_ = result_enter(round_, "power_odds", selection, by=generator, now=now)
    result_enter(round_, "throw", _dice(rng, 2), by=by, now=now)


def _throw_football(round_: Round, rng: random.Random, by: Any, now: datetime) -> None:
    payload = {"green": _dice(rng, 2), "red": rng.randint(1, 6)}
    result_enter(round_, "throw", payload, by=by, now=now)


def _throw_high_roll(round_: Round, rng: random.Random, by: Any, now: datetime) -> None:
    thrown = round_.events.filter(event="throw").order_by("seq").first()  # half dealt
    if thrown is not None:
        faces = list(thrown.payload)
    else:
        faces = _dice(rng, int(round_.options.get("dice", 10)))
        round_ = result_enter(round_, "throw", faces, by=by, now=now)
    if round_.status == Round.Status.CLOSED:  # someone bought an Extra Roll (§ 675a.4(g))
        rethrown = read_first_roll(faces).rethrown
        result_enter(round_, "extra_roll", _dice(rng, rethrown), by=by, now=now)


def _deal_pai_gow(round_: Round, rng: random.Random, by: Any, now: datetime) -> None:
    # Each step once: a round left half dealt (round_finish) goes on from the step it reached.
    done = {p.event for p in in_play(round_).played}
    if "deal" not in done:
        tiles = [str(tile) for tile, count in TILE_SET.items() for _ in range(count)]
        rng.shuffle(tiles)
        stacks = [tiles[i : i + 4] for i in range(0, 32, 4)]
        generator = device_of(round_.table, "pai_gow_rng")
        if generator is not None and generator.status == generator.Status.ACTIVE:
            generator_number_post(round_, rng.randint(1, 36), by=generator, now=now)
            result_enter(round_, "deal", {"stacks": stacks}, by=by, now=now)
        else:
            dealt = {"stacks": stacks, "dice": _dice(rng, 3)}
            result_enter(round_, "deal", dealt, by=by, now=now)
    played = in_play(round_).played
    hands = next(p.outcome.extra["hands"] for p in played if p.event == "deal")
    settings = {}
    for wager in round_.wagers.all():
        setting = house_way([parse_tile(t) for t in hands[str(wager.extra["position"])]])
        settings[wager.ref] = {"high": tiles_text(setting.high), "low": tiles_text(setting.low)}
    if settings and "set" not in done:
        result_enter(round_, "set", settings, by=by, now=now)
    result_enter(round_, "reveal", True, by=by, now=now)


RESULTS: dict[str, Callable[[Round, random.Random, Any, datetime], None]] = {
    "sic_bo": _throw_sic_bo,
    "high_roll_dice": _throw_high_roll,
    "three_dice_football": _throw_football,
    "craps": _throw_craps,
    "pai_gow": _deal_pai_gow,
}


def round_finish(round_: Round, rng: random.Random, *, by: Any, now: datetime) -> Round:
    """Finish a round its dealer left half dealt (the database went away mid-round): its
    result entered over the wagers it holds, so the workers settle it and its table plays
    on; nothing is left for a person to finish."""
    round_ = Round.objects.get(pk=round_.pk)
    if round_.status in (Round.Status.OPEN, Round.Status.CLOSED):
        RESULTS[round_.game](round_, rng, by, now)
    return Round.objects.get(pk=round_.pk)


# --- the demo's past: history for the statistics' charts (issue 23) ----------------------------

# A stand-in crooked table, for the demo only: one of three dice shows 6 three times in five
# (a fair die: one time in six), and the players who know it back 6. Its set fails the fairness
# test, and its hold falls far under its theoretical win: out of the band.
LOADED_SIX = 0.6


def loaded_die(rng: random.Random) -> int:
    """A die biased toward 6 (LOADED_SIX of the time), otherwise 1 to 5 evenly."""
    return 6 if rng.random() < LOADED_SIX else rng.randint(1, 5)


def _sic_bo_backing_six(round_: Round, rng: random.Random) -> Plan:
    """Three players who know the dice: 6 as a single, big, and a total now and then."""
    plan: Plan = []
    for player in PLAYERS[:3]:
        plan.append({"player": player, "kind": "single:6", "amount": _units(round_, rng, 2, 4)})
        plan.append({"player": player, "kind": "big", "amount": _units(round_, rng)})
        if rng.random() < 0.3:
            total = rng.randint(11, 17)
            plan.append({"player": player, "kind": f"total:{total}", "amount": _units(round_, rng)})
    return plan


def _sic_bo_few(round_: Round, rng: random.Random) -> Plan:
    """A quieter Sic Bo round than _sic_bo: three players, two wagers each (a fast past)."""
    plan: Plan = []
    for player in PLAYERS[:3]:
        plan.append(
            {"player": player, "kind": rng.choice(("big", "small")), "amount": _units(round_, rng)}
        )
        plan.append(
            {"player": player, "kind": f"single:{rng.randint(1, 6)}", "amount": _units(round_, rng)}
        )
    return plan


def _throw_loaded(round_: Round, rng: random.Random, by: Any, now: datetime) -> None:
    result_enter(round_, "throw", [loaded_die(rng), *_dice(rng, 2)], by=by, now=now)


def sic_bo_history_play(
    table: Any, rng: random.Random, *, by: Any, times: list[datetime], loaded: bool = False
) -> int:
    """Play a Sic Bo round at `table` at each of `times` (in order), each settled at once, as
    the workers would have: the demo floor's past. `loaded`: the crooked table above.
    The number of rounds played."""
    if table.game != "sic_bo":
        raise ValueError(f"{table.number} plays {table.game}: the demo's past is Sic Bo's")
    plan = _sic_bo_backing_six if loaded else _sic_bo_few
    result = _throw_loaded if loaded else _throw_sic_bo
    for at in times:
        round_ = round_open(table, by=by, now=at)
        wagers_offer(round_, plan(round_, rng), by=by, now=at)
        result(round_, rng, by, at)
        request = SettlementRequest.objects.get(round=round_)
        round_settle(request.pk, worker="demo history", now=at + SETTLED_AFTER)
    return len(times)


SETTLED_AFTER = timedelta(seconds=2)  # a worker's usual delay
