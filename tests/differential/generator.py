"""Random, valid games in play, from a seed: every game, variant and Rules Submission option.

Pure Python like the engines (no Django): `game_generate(seed)` draws a game, its options
and its rounds from `random.Random(seed)`, and offers every step to the engine as it goes,
keeping only what the engine takes, so the game is valid by construction. A wagering step
whose engine outcome rejects anything is offered again without the rejected wagers (or not
at all), so a step the floor is given is never refused there either.

Rounds are grouped as the floor plays them (games/flow.py): wagering events first, then the
result events, the last of which ends the round. Wager ids are the floor's refs: the N-th
wager taken in round R is ``R.N`` (games/services/rounds.py, `wagers_place`), so both paths
name every wager alike. Steps the engine does not play (a "no roll" that only re-throws the
dice, § 623a.8(b)) are kept for the floor and left out of the scenario document.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import import_module
from typing import Any

from games import flow
from games.rules.core import MalformedInput
from games.rules.craps.paytables import BONUS_CRAPS, FIRE_BET, HOT_ROLLER, LUCKY_SHOOTER, POWER_ODDS
from games.rules.high_roll_dice.payout_limit import payout_limit_minimum
from games.rules.pai_gow.dealing import ALTERNATIVE_STYLES
from games.rules.pai_gow.house_way import house_way
from games.rules.pai_gow.tiles import TILE_SET, parse_tile, tiles_text
from games.rules.registry import ENGINE_MODULES, engine_get

GAMES = tuple(sorted(ENGINE_MODULES))
# The events an integrator sends through the REST API (games/apis.py: wagers, the other
# wagering events, "no more bets", a result, a no roll, a void), as a token with no device
# behind it: no generator's or automated shaker's numbers (those come from the devices).
API_EVENTS: dict[str, frozenset[str]] = {
    "craps": frozenset({"wagers", "remove", "working", "pass_dice", "throw", "no_roll"}),
    "sic_bo": frozenset({"wagers", "throw", "no_roll"}),
    "high_roll_dice": frozenset({"wagers", "throw", "extra_roll", "no_roll"}),
    "three_dice_football": frozenset({"wagers", "throw", "no_roll"}),
    "pai_gow": frozenset({"wagers", "bank", "deal", "set", "surrender", "irregularity", "reveal"}),
}
PLAYERS = tuple(f"p{n}" for n in range(1, 7))
Step = dict[str, object]


@dataclass
class Game:
    """One generated game: its options (the table's and the Rules Submission's together),
    the table's variant, and its rounds of steps in the order the floor plays them."""

    seed: int
    game: str
    variant: str
    options: dict[str, object]
    rounds: list[list[Step]] = field(default_factory=list)

    def scenario(self) -> dict[str, object]:
        """The scenario document (format 1, SCENARIOS.md) the engine path plays."""
        own = _engine_events(self.game)
        steps = [step for rnd in self.rounds for step in rnd if _event(step) in own]
        return {"format": 1, "game": self.game, "options": self.options, "steps": steps}

    def located(self) -> list[tuple[int, int, Step]]:
        """(round number, index in the round, step) of every step, floor-only ones too."""
        return [(r, i, s) for r, rnd in enumerate(self.rounds, start=1) for i, s in enumerate(rnd)]


def _event(step: Step) -> str:
    ((event, _),) = step.items()
    return event


def _engine_events(game: str) -> frozenset[str]:
    return frozenset(import_module(ENGINE_MODULES[game] + ".engine").EVENTS)


class Builder:
    """Plays the steps on the engine as they are made; keeps only what it takes."""

    def __init__(self, game: Game, events: frozenset[str] | None = None) -> None:
        self.game = game
        self.events = events  # the only events offered, if not every one
        self.engine = engine_get(game.game)
        self.options = self.engine.parse_options(game.options)
        self.state = self.engine.new_state(self.options)
        self.taken = 0  # wagers taken in the round in play (the N of ref R.N)
        self.placed: dict[str, dict[str, object]] = {}  # every wager taken, by id
        self.resolved: set[str] = set()

    @property
    def round_number(self) -> int:
        return len(self.game.rounds)

    def open_round(self) -> None:
        self.game.rounds.append([])
        self.taken = 0

    def open_wagers(self) -> tuple[str, ...]:
        return tuple(self.engine.open_wagers(self.state))

    def _step(self, event: str, payload: object) -> Any:
        try:
            return self.engine.step(self.options, self.state, event, payload)
        except MalformedInput:
            return None

    def wagers(self, offered: list[dict[str, object]]) -> list[str]:
        """Offer wagers; drop each one refused and offer the rest again. The ids taken."""
        offered = list(offered)
        while offered:
            numbered = [
                {"id": f"{self.round_number}.{self.taken + i + 1}", **w}
                for i, w in enumerate(offered)
            ]
            done = self._step("wagers", numbered)
            if done is None:
                return []
            state, outcome = done
            if not outcome.rejected:
                self._keep("wagers", numbered, state, outcome)
                self.taken += len(numbered)
                for wager in numbered:
                    self.placed[str(wager["id"])] = wager
                return [str(w["id"]) for w in numbered]
            refused = {r.wager for r in outcome.rejected}
            if None in refused:
                return []
            offered = [w for w, n in zip(offered, numbered, strict=True) if n["id"] not in refused]
        return []

    def event(self, event: str, payload: object) -> bool:
        """Offer one event; keep it only if the engine takes all of it."""
        if self.events is not None and event not in self.events:
            return False
        done = self._step(event, payload)
        if done is None or done[1].rejected:
            return False
        self._keep(event, payload, *done)
        return True

    def floor_only(self, event: str, payload: object) -> None:
        """A step the floor records and the engine passes over (a re-throw's "no roll")."""
        if self.events is not None and event not in self.events:
            return
        self.game.rounds[-1].append({event: payload})

    def _keep(self, event: str, payload: object, state: Any, outcome: Any) -> None:
        self.state = state
        self.game.rounds[-1].append({event: payload})
        self.resolved |= {r.wager for r in outcome.resolutions}


def _dice(rng: random.Random, count: int) -> list[int]:
    return [rng.randint(1, 6) for _ in range(count)]


def _limits(rng: random.Random, minimums: tuple[int, ...], maximums: tuple[int, ...]) -> dict:
    return {"min_wager": str(rng.choice(minimums)), "max_wager": str(rng.choice(maximums))}


def _units(rng: random.Random, minimum: Decimal, unit: int = 1, most: int = 6) -> str:
    """A stake of at least the minimum, in whole multiples of `unit` dollars."""
    base = max(unit, int(-(-minimum // unit)) * unit)
    return str(base * rng.randint(1, most))


# --- Craps --------------------------------------------------------------------------------

_CRAPS_KINDS = (
    *("pass", "dont_pass", "come", "dont_come", "field", "any_seven", "any_craps"),
    *("craps_2", "craps_3", "craps_12", "eleven", "c_and_e", "horn", "whirl", "six_seven_eight"),
    *(f"place:{n}" for n in (4, 5, 6, 8, 9, 10)),
    *(f"place_lose:{n}" for n in (4, 5, 6, 8, 9, 10)),
    *(f"buy:{n}" for n in (4, 5, 6, 8, 9, 10)),
    *(f"lay:{n}" for n in (4, 5, 6, 8, 9, 10)),
    *(f"hard:{n}" for n in (4, 6, 8, 10)),
    *(f"horn_high:{n}" for n in (2, 3, 11, 12)),
    *(f"hop:{a}-{b}" for a in range(1, 7) for b in range(a, 7)),
)
_CRAPS_SIDE = (
    *("fire", "hot_roller", "lucky_shooter", "all_small", "all_tall", "make_em_all"),
    "hot_shooter",
)
_LINE = ("pass", "dont_pass", "come", "dont_come")
_CALLABLE = ("place", "place_lose", "buy", "lay", "hard", "odds")
_UNIT = {"horn": 4, "whirl": 5, "horn_high": 5, "place:6": 6, "place:8": 6}


def _craps_options(rng: random.Random) -> tuple[str, dict[str, object]]:
    variant = rng.choice(("craps", "mini_craps"))
    table_type = rng.choice(("manual", "hybrid", "electronic"))
    options: dict[str, object] = {
        "variant": variant,
        "table_type": table_type,
        **_limits(rng, (1, 5, 10, 25), (500, 5000)),
        "max_odds_multiple": rng.randint(1, 10),
        "buy_lay": rng.random() < 0.8,
        "vig_percent": rng.choice(("0", "1", "2.5", "4", "5")),
        "vig_collected": rng.choice(("on_win", "on_placement")),
        "fire_bet_paytable": rng.choice((*FIRE_BET, "none")),
        "hot_roller_paytable": rng.choice((*HOT_ROLLER, "none")),
        "bonus_craps_paytable": rng.choice((*BONUS_CRAPS, "none")),
        "power_odds": rng.random() < 0.7,
        "come_odds_working_on_come_out": rng.random() < 0.5,
        "dont_come_odds_working_on_come_out": rng.random() < 0.5,
        "vig_returned_on_removal": rng.random() < 0.5,
    }
    # A Rules Submission offers these only on the tables that may have them (§ 623b.2(a),
    # § 623b.4(a)): a submission naming them for another table is refused.
    if table_type == "electronic":
        options["lucky_shooter_paytable"] = rng.choice((*LUCKY_SHOOTER, "none"))
    if table_type != "manual":
        options["hot_shooter_jackpot"] = rng.random() < 0.8
    else:
        options["hot_shooter_jackpot"] = False
    return variant, options


def _craps_amount(rng: random.Random, kind: str, minimum: Decimal) -> str:
    if kind == "fire":
        return str(rng.randint(1, 5))
    unit = _UNIT.get(kind) or _UNIT.get(kind.split(":")[0], 1)
    return _units(rng, minimum, unit, 4)


def _craps_round(b: Builder, rng: random.Random, seats: dict[str, int] | None) -> None:
    opts = b.options
    minimum = opts.limits.minimum or Decimal(1)
    table = b.state
    if rng.random() < 0.04:
        b.event("pass_dice", True)  # the shooter gives up the dice (§ 623a.10(a))
    offered = []
    for player in rng.sample(PLAYERS, rng.randint(1, 4)):
        for kind in rng.sample(_CRAPS_KINDS, rng.randint(0, 3)):
            offered.append({"player": player, "kind": kind})
        if rng.random() < (0.6 if table.point is None else 0.1):
            offered.append({"player": player, "kind": rng.choice(_CRAPS_SIDE)})
        if table.point is None and rng.random() < 0.5:
            offered.append({"player": player, "kind": rng.choice(("pass", "dont_pass"))})
    for wager in offered:
        wager["amount"] = _craps_amount(rng, str(wager["kind"]), minimum)
        if seats is not None and rng.random() < 0.7:
            wager["seat"] = seats[str(wager["player"])]  # optional (SCENARIOS.md has none)
    rng.shuffle(offered)
    if offered:
        b.wagers(offered)
    # Odds on line and come bets (the engine says whether their point is set).
    open_ids = b.open_wagers()
    odds = []
    for wager_id in open_ids:
        wager = b.placed[wager_id]
        if wager["kind"] in _LINE and rng.random() < 0.5:
            stake = Decimal(str(wager["amount"])) * rng.randint(1, opts.max_odds_multiple)
            odds.append(
                {"player": wager["player"], "kind": "odds", "on": wager_id, "amount": str(stake)}
            )
    for one in odds:  # one at a time: each within its own bet's limit
        b.wagers([one])
    # Calls on or off, removals and reductions: each kept only if the engine takes all of it.
    open_ids = b.open_wagers()
    for wager_id in rng.sample(open_ids, min(len(open_ids), rng.randint(0, 3))):
        kind = str(b.placed[wager_id]["kind"]).split(":")[0]
        if kind in _CALLABLE:
            b.event("working", {wager_id: rng.random() < 0.5})
    open_ids = b.open_wagers()
    if open_ids and rng.random() < 0.25:
        wager_id = rng.choice(open_ids)
        amount = Decimal(str(b.placed[wager_id]["amount"]))
        if rng.random() < 0.5 and amount > minimum:
            reduce_to = max(minimum, (amount / 2).quantize(Decimal(1)))
            b.event("remove", [{"id": wager_id, "reduce_to": str(reduce_to)}])
        else:
            b.event("remove", [wager_id])
    # "No more bets"; the Power Odds generator's selection; the throw.
    if opts.power_odds and rng.random() < 0.3:
        keys = rng.sample(sorted(POWER_ODDS), rng.randint(1, 4))
        b.event("power_odds", {k: rng.choice(POWER_ODDS[k]).text for k in keys})
    if rng.random() < 0.03:
        b.floor_only("no_roll", True)  # a throw that does not count (§ 623a.8(b))
    assert b.event("throw", _dice(rng, 2))


def _craps(b: Builder, rng: random.Random, rounds: int) -> None:
    seats = None
    if b.game.variant == "mini_craps":
        seats = dict(zip(PLAYERS, rng.sample(range(1, 10), len(PLAYERS)), strict=True))
    for _ in range(rounds):
        b.open_round()
        _craps_round(b, rng, seats)


# --- Sic Bo -------------------------------------------------------------------------------


def _sic_bo_options(rng: random.Random) -> tuple[str, dict[str, object]]:
    shaker = rng.choice(("manual", "automated"))
    return "standard", {"shaker": shaker, **_limits(rng, (1, 5, 10), (500, 1000))}


def _sic_bo(b: Builder, rng: random.Random, rounds: int) -> None:
    minimum = b.options.limits.minimum or Decimal(1)
    for _ in range(rounds):
        b.open_round()
        offered = []
        for player in rng.sample(PLAYERS, rng.randint(1, 6)):
            for _ in range(rng.randint(1, 4)):
                a, c = sorted(rng.sample(range(1, 7), 2))
                kind = rng.choice(
                    (
                        f"triple:{rng.randint(1, 6)}",
                        f"double:{rng.randint(1, 6)}",
                        "any_triple",
                        f"total:{rng.randint(4, 17)}",
                        f"combo:{a}-{c}",
                        "small",
                        "big",
                        f"single:{rng.randint(1, 6)}",
                    )
                )
                offered.append({"player": player, "kind": kind, "amount": _units(rng, minimum)})
        b.wagers(offered)
        roll = rng.random()
        if roll < 0.08:
            assert b.event("no_roll", True)  # § 625a.7(a): every wager returned
        elif roll < 0.14 and b.options.shaker == "automated":
            assert b.event("shaker_malfunction", True)  # § 625a.7(c): the round void
        else:
            assert b.event("throw", _dice(rng, 3))


# --- High Roll Dice -----------------------------------------------------------------------


def _high_roll_dice_options(rng: random.Random) -> tuple[str, dict[str, object]]:
    dice = rng.choice((10, 6))
    options: dict[str, object] = {"dice": dice, **_limits(rng, (1, 5), (500, 10000))}
    if rng.random() < 0.6:
        options["max_wager"] = rng.choice(("5000", "10000"))
        # At least what the Rules Submission may set (checked at the $5 default and at the
        # table's own minimum), and often exactly that, so large wagers meet it.
        floor = max(payout_limit_minimum(dice, Decimal(5)), payout_limit_minimum(dice, Decimal(1)))
        options["payout_limit"] = str(floor + rng.choice((0, 0, 1000, 25000)))
    return ("10_dice" if dice == 10 else "6_dice"), options


def _high_roll_dice(b: Builder, rng: random.Random, rounds: int) -> None:
    opts = b.options
    ten = opts.dice == 10
    minimum = opts.limits.minimum or Decimal(1)
    big = opts.payout_limit is not None and (opts.limits.maximum or 0) >= 5000
    for _ in range(rounds):
        b.open_round()
        offered = []
        for position, player in enumerate(PLAYERS, start=1):
            if rng.random() < 0.3:
                continue
            # § 675a.2(e): a Pip Street Wager first, then the circles, the Extra Roll last,
            # all of one value (§ 675a.1(b)(2)(iv)); Millionaire Row apart, at most $1.
            unit = _units(rng, minimum)
            if big and rng.random() < 0.5:
                unit = str(rng.choice((2500, 5000, 8000, 10000)))  # the payout limit bites
            kinds = [f"pip:{rng.randint(1, 6)}"] if rng.random() < 0.95 else []
            if rng.random() < 0.3:
                kinds.append(f"pip:{rng.randint(1, 6)}")
            circles = [
                f"like_kind:{rng.randint(2, 8 if ten else 6)}",
                f"like_kind:{rng.randint(2, 4)}",
            ]
            kinds += rng.sample(circles, rng.randint(0, 2)) + ([] if ten else ["no_match"])[:1]
            if ten and rng.random() < 0.5:
                kinds.append("extra_roll")
            if rng.random() < 0.4:
                kinds.append(f"millionaire:{rng.choice((9, 10))}")
            for kind in kinds:
                wager = {"player": player, "kind": kind, "amount": unit}
                if kind.startswith("millionaire"):
                    wager["amount"] = rng.choice(("1", "0.50"))
                if kind == "extra_roll" and rng.random() < 0.5:
                    wager["position"] = position  # optional (SCENARIOS.md has none)
                offered.append(wager)
        if offered:
            b.wagers(offered)
        if rng.random() < 0.03:
            b.floor_only("no_roll", True)  # § 675a.4(b): thrown again
        assert b.event("throw", _dice(rng, opts.dice))
        if b.state.first_roll is not None:  # someone bought an Extra Roll (§ 675a.4(g))
            assert b.event("extra_roll", _dice(rng, b.state.first_roll.rethrown))


# --- Three Dice Football ------------------------------------------------------------------

_FULL = ("touchdown", "defense", "extra_point", "quick_strike", "game_changer")
_SINGLE = ("trips_td", "penalty", "turnover", "cover_three", "no_gain", "big_play")
_SINGLE += ("over_four", "under_four")


def _football_options(rng: random.Random) -> tuple[str, dict[str, object]]:
    return "standard", _limits(rng, (1, 5, 10), (500, 2000))


def _football(b: Builder, rng: random.Random, rounds: int) -> None:
    minimum = b.options.limits.minimum or Decimal(1)
    for _ in range(rounds):
        b.open_round()
        offered = []
        for player in rng.sample(PLAYERS, rng.randint(0, 5)):
            kinds = [*rng.sample(_SINGLE, rng.randint(0, 3))]
            if rng.random() < 0.5:
                kinds.append(rng.choice((*_FULL, f"game_length:{rng.randint(1, 6)}")))
            offered += [
                {"player": player, "kind": k, "amount": _units(rng, minimum)} for k in kinds
            ]
        if offered:
            b.wagers(offered)
        if rng.random() < 0.03:
            b.floor_only("no_roll", True)  # § 661a.5(b): thrown again
        assert b.event("throw", {"green": _dice(rng, 2), "red": rng.randint(1, 6)})


# --- Pai Gow ------------------------------------------------------------------------------


def _pai_gow_options(rng: random.Random) -> tuple[str, dict[str, object]]:
    banking = rng.random() < 0.8
    start = rng.choice(("shaker", "rng"))
    options: dict[str, object] = {
        "player_banking": banking,
        "adjacent_betting_areas": rng.random() < 0.7,
        "dealing_styles": rng.sample(ALTERNATIVE_STYLES, rng.randint(0, len(ALTERNATIVE_STYLES))),
        "starting_position": start,
        **_limits(rng, (5, 10, 25), (500, 5000)),
    }
    if banking:
        options["co_banking"] = rng.random() < 0.7
    if start == "rng":
        options["shaker_if_rng_down"] = rng.random() < 0.5
    if rng.random() < 0.3:
        options["dealer_wager_against_bank"] = rng.choice(("0", "25", "100"))
    return "standard", options


def _pai_gow_settings(tiles: list[str], rng: random.Random) -> list[dict[str, list[str]]]:
    """The house way, then other ways of setting four tiles, for the engine to judge."""
    parsed = [parse_tile(t) for t in tiles]
    proper = house_way(parsed)
    ways = [{"high": tiles_text(proper.high), "low": tiles_text(proper.low)}]
    for pair in ((0, 1), (0, 2), (0, 3)):
        rest = [i for i in range(4) if i not in pair]
        for high, low in ((pair, rest), (rest, pair)):
            ways.append({"high": [tiles[i] for i in high], "low": [tiles[i] for i in low]})
    first, others = ways[0], ways[1:]
    rng.shuffle(others)
    return [first, *others] if rng.random() < 0.7 else [*others, first]


def _pai_gow(b: Builder, rng: random.Random, rounds: int) -> None:
    opts = b.options
    minimum = opts.limits.minimum or Decimal(5)
    fallback = opts.starting_position == "rng" and opts.shaker_if_rng_down
    generator_down = fallback and rng.random() < 0.5  # the shaker stands in (§ 621a.6(a))
    for _ in range(rounds):
        b.open_round()
        positions = rng.sample(range(1, 7), rng.randint(1, 6))
        players = list(PLAYERS[: rng.randint(2, 6)])
        offered = [
            {"player": rng.choice(players), "kind": "pai_gow", "amount": _units(rng, minimum, 5)}
            | {"position": p}
            for p in positions
        ]
        b.wagers(offered)
        if opts.player_banking and rng.random() < 0.6:
            for player in rng.sample(players, len(players)):
                payload: dict[str, object] = {"player": player}
                if opts.co_banking and rng.random() < 0.5:
                    payload["co_bank"] = True
                if rng.random() < 0.7:
                    payload["chips"] = str(rng.choice((2000, 10000, 50000)))
                if b.event("bank", payload):
                    break
        tiles = [str(tile) for tile, count in TILE_SET.items() for _ in range(count)]
        rng.shuffle(tiles)
        deal: dict[str, object] = {"stacks": [tiles[i : i + 4] for i in range(0, 32, 4)]}
        styles = ["standard", *opts.dealing_styles]
        deal["style"] = rng.choice(styles)
        if opts.starting_position == "rng" and not generator_down:
            deal["rng"] = rng.randint(1, 36)
        else:
            deal["dice"] = _dice(rng, 3)
        if rng.random() < 0.03 and "dice" in deal:
            # § 621a.10(a): the shaker's dice shaken again (only where they give the start).
            b.floor_only("no_roll", True)
        if b.state.round.bank is not None and rng.random() < 0.4:
            # The bank's cut (§ 621a.9(g)): a run of adjacent stacks to one end or both.
            first, length = rng.randint(1, 8), rng.randint(1, 3)
            run = list(range(first, min(first + length, 9)))
            split = rng.randint(0, len(run))
            cut = {"to_right": run[:split], "to_left": run[split:]}
            if b.event("deal", {**deal, "cut": cut}):
                deal = {}
        if deal:
            assert b.event("deal", deal), deal
        irregular = rng.random()
        if irregular < 0.04:  # § 621a.10(c): the tiles dealt to the wrong positions
            assert b.event("irregularity", {"kind": "wrong_positions"})
            continue
        if irregular < 0.07:  # § 621a.10(e): a tile of the dealer's hand exposed
            if b.event("irregularity", {"kind": "exposed_tile", "place": "dealer"}):
                continue
        elif irregular < 0.15 and b.state.round.wagers:  # § 621a.10(d): a player's tile
            exposed = rng.choice(b.state.round.wagers)
            place = str(exposed.extra["position"])
            payload = {"kind": "exposed_tile", "place": place, "void": rng.random() < 0.6}
            if b.event("irregularity", payload) and not b.state.round.wagers:
                continue  # the last hand in play voided: the round is over
        current = b.state.round
        pending = list(current.must_set())
        while pending:  # a player's second hand waits for his first (§ 621a.5(d))
            for wager in pending:
                tiles_at = current.dealt.hands[str(wager.extra["position"])]
                if any(
                    b.event("set", {wager.id: way})
                    for way in _pai_gow_settings(tiles_text(tiles_at), rng)
                ):
                    pending.remove(wager)
                    break
            else:
                raise AssertionError(f"no setting of {[w.id for w in pending]} taken")
        live = [w.id for w in b.state.round.live()]
        if live and rng.random() < 0.15:
            b.event("surrender", [rng.choice(live)])
        assert b.event("reveal", True)


# --- every game ---------------------------------------------------------------------------

OPTIONS: dict[str, Callable[[random.Random], tuple[str, dict[str, object]]]] = {
    "craps": _craps_options,
    "sic_bo": _sic_bo_options,
    "high_roll_dice": _high_roll_dice_options,
    "three_dice_football": _football_options,
    "pai_gow": _pai_gow_options,
}
PLAYS: dict[str, Callable[[Builder, random.Random, int], None]] = {
    "craps": _craps,
    "sic_bo": _sic_bo,
    "high_roll_dice": _high_roll_dice,
    "three_dice_football": _football,
    "pai_gow": _pai_gow,
}


def game_of_seed(seed: int) -> str:
    """The game a seed plays: the games in turn, so any run of seeds covers all five."""
    return GAMES[seed % len(GAMES)]


def game_generate(
    seed: int, game: str | None = None, rounds: int | None = None, api: bool = False
) -> Game:
    """The game of this seed (or the one named), with its options and valid rounds; with
    `api`, only what an integrator can send through the REST API (API_EVENTS)."""
    game = game or game_of_seed(seed)
    rng = random.Random(f"{game}:{seed}")
    variant, options = OPTIONS[game](rng)
    if game == "craps":  # ten values: in turn, so any ten Craps seeds in a row have them all
        options["max_odds_multiple"] = 1 + (seed // len(GAMES)) % 10
    if api and game == "sic_bo":
        options["shaker"] = "manual"  # an automated shaker's dice are its own (§ 625a.7(d))
    if api and game == "pai_gow":
        options["starting_position"] = "shaker"  # the generator posts its own number
        options.pop("shaker_if_rng_down", None)
    generated = Game(seed, game, variant, options)
    events = API_EVENTS[game] if api else None
    PLAYS[game](Builder(generated, events), rng, rounds or rng.randint(3, 12))
    assert all(_rounds_are_floor_rounds(generated.game, rnd) for rnd in generated.rounds)
    return generated


def _rounds_are_floor_rounds(game: str, steps: list[Step]) -> bool:
    """Wagering events, then results (games/flow.py), the last of which ends the round."""
    events = [_event(s) for s in steps if _event(s) != "no_roll" or game == "sic_bo"]
    wagering = flow.WAGERING_EVENTS[game]
    first_result = next((i for i, e in enumerate(events) if e not in wagering), len(events))
    if any(e in wagering for e in events[first_result:]):
        return False
    return bool(events) and events[-1] in flow.ENDS_ROUND[game]
