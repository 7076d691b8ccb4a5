"""The engine state cache on a settled round, and the replay it falls back on (issue 7).

For Craps and Three Dice Football the table's game state carries from round to round,
and Pai Gow remembers the bank rules' history (§ 621a.9(b)-(d)). Settlement caches the
state after a round (games.replay.state_dumps); the next round starts from it. A cache
that cannot be read is only a cache: the state is rebuilt by replaying the events
(games.services.rounds.state_in), which are the record.

The round-trip tests play long seeded random sessions through the pure engines: between
every two rounds the state is dumped and loaded again, and the loaded state must step
exactly as the original does through the next round.
"""

import dataclasses
import datetime
import io
import pickle
import random
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from games.models import Resolution, Round
from games.replay import _dispatch_table, constant, state_dumps, state_loads
from games.rules.core.ids import NO_IDS, UsedIds
from games.rules.craps import bets
from games.rules.pai_gow.tiles import TILE_SET
from games.rules.registry import engine_get
from games.services.round_state import state_after_replayed, state_in
from games.services.rounds import close_refusals
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import (
    D,
    M,
    books_balance_check,
    fresh,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
)

Event = tuple[str, object]
# A session's next event, chosen from the state the original engine is in.
Chooser = Callable[[Any, random.Random, int], Iterator[Event]]

PLAYERS = ("ann", "bob", "carl", "dee")


def lockstep(game: str, options: dict, rounds: int, seed: int, chooser: Chooser) -> int:
    """Play `rounds` rounds twice at once: the original state, and a state that goes
    through the cache (dump, load) between every two rounds, where settlement writes it
    and the next round reads it. Every outcome must be the same. Return how many wagers
    were decided, so the session is seen to have played."""
    engine = engine_get(game)
    opts = engine.parse_options(options)
    original = engine.new_state(opts)
    cached = original
    rng = random.Random(seed)
    decided = 0
    for number in range(1, rounds + 1):
        cached = state_loads(state_dumps(cached))
        for event, payload in chooser(original, rng, number):
            original, expected = engine.step(opts, original, event, payload)
            cached, got = engine.step(opts, cached, event, payload)
            assert got == expected, (number, event, payload)
            assert engine.open_wagers(cached) == engine.open_wagers(original)
            decided += len(expected.resolutions)
    # The two end in the same place, the used ids (left out of the cache) apart.
    assert without_ids(cached) == without_ids(original)
    return decided


def without_ids(state: Any) -> Any:
    """The state with its used wager ids left out, as the cache leaves them out."""
    return dataclasses.replace(
        state,
        **{
            f.name: NO_IDS
            for f in dataclasses.fields(state)
            if isinstance(getattr(state, f.name), UsedIds)
        },
    )


# --- Craps ------------------------------------------------------------------------------------

POINTS = (4, 5, 6, 8, 9, 10)


def craps_round(state, rng: random.Random, number: int) -> Iterator[Event]:
    """One throw of Craps with the wagers a busy table might make before it."""
    wagers = []
    index = 0

    def add(kind: str, amount: int, **extra: object) -> str:
        nonlocal index
        index += 1
        wager_id = f"{number}.{index}"
        wagers.append(
            {
                "id": wager_id,
                "player": rng.choice(PLAYERS),
                "kind": kind,
                "amount": str(amount),
                **extra,
            }
        )
        return wager_id

    if state.point is None:
        add(rng.choice(["pass", "dont_pass"]), rng.choice([5, 10, 25]))
        if rng.random() < 0.3:
            add("fire", rng.randint(1, 5))
        if rng.random() < 0.2:
            add("hot_roller", 5)
    else:
        add(rng.choice(["come", "dont_come"]), rng.choice([5, 10]))
        lines = [
            e.wager.id
            for e in state.layout
            if e.bet.wager_type in bets.LINE_BETS and e.progress is not None
        ]
        if lines and rng.random() < 0.6:
            add("odds", 10, on=rng.choice(lines))
    for _ in range(rng.randint(0, 3)):
        add(
            rng.choice(
                [
                    f"place:{rng.choice(POINTS)}",
                    f"place_lose:{rng.choice(POINTS)}",
                    f"buy:{rng.choice(POINTS)}",
                    f"lay:{rng.choice(POINTS)}",
                    f"hard:{rng.choice([4, 6, 8, 10])}",
                    "field",
                    "any_craps",
                    "any_seven",
                    "horn",
                    f"hop:{rng.randint(1, 3)}-{rng.randint(4, 6)}",
                    "six_seven_eight",
                ]
            ),
            rng.choice([8, 12, 20, 30]),
        )
    yield "wagers", wagers
    callable_ids = [e.wager.id for e in state.layout if e.bet.wager_type in bets.CALLABLE]
    if callable_ids and rng.random() < 0.3:
        yield "working", {rng.choice(callable_ids): rng.random() < 0.5}
    if state.layout and rng.random() < 0.15:
        yield "remove", [rng.choice(state.layout).wager.id]
    if rng.random() < 0.1:
        yield "power_odds", {"any_craps": rng.choice(["7 to 1", "14 to 1"])}
    if rng.random() < 0.03:
        yield "pass_dice", True
    yield "throw", [rng.randint(1, 6), rng.randint(1, 6)]


@pytest.mark.parametrize("seed", [7, 623])
def test_a_craps_state_through_the_cache_steps_as_the_original(seed):
    decided = lockstep("craps", {"max_wager": "5000"}, rounds=150, seed=seed, chooser=craps_round)
    assert decided > 150


def test_a_craps_state_holding_a_power_odds_selection_goes_through_the_cache():
    """§ 623b.5(c): the selection is part of the state between "no more bets" and the throw,
    which the round's cache pickles; loaded again it pays the throw as the original does:
    Any Craps at 14 to 1, $140 on $10."""
    engine = engine_get("craps")
    opts = engine.parse_options({})
    wagers = [{"id": "1.1", "player": "ann", "kind": "any_craps", "amount": "10"}]
    state, _ = engine.step(opts, engine.new_state(opts), "wagers", wagers)
    state, _ = engine.step(opts, state, "power_odds", {"any_craps": "14 to 1", "hard:6": "18 to 1"})
    cached = state_loads(state_dumps(state))
    assert engine.state_view(opts, cached) == engine.state_view(opts, state)
    assert engine.state_view(opts, cached)["power_odds"] == {
        "any_craps": "14 to 1",
        "hard:6": "18 to 1",
    }
    _, expected = engine.step(opts, state, "throw", [1, 1])
    _, got = engine.step(opts, cached, "throw", [1, 1])
    assert got == expected
    [resolution] = got.resolutions
    assert (resolution.result, resolution.net) == ("win", D("140.00"))


def test_engine_constants_come_back_as_the_same_objects():
    """The wager types are compared by identity (`is bets.PASS`): the cache must give back
    the engine's own constants, not copies."""
    engine = engine_get("craps")
    options = engine.parse_options({})
    state, _ = engine.step(
        options,
        engine.new_state(options),
        "wagers",
        [{"id": "1.1", "player": "ann", "kind": "pass", "amount": "10"}],
    )
    state, _ = engine.step(options, state, "throw", [2, 2])
    loaded = state_loads(state_dumps(state))
    assert loaded.point == 4
    assert loaded.layout[0].bet.wager_type is bets.PASS
    assert len(loaded.wager_ids) == 0  # the used ids are left out; the database keeps them


# --- Three Dice Football ----------------------------------------------------------------

SINGLE_PLAY = ("trips_td", "penalty", "turnover", "cover_three", "no_gain", "big_play")
SINGLE_PLAY += ("over_four", "under_four")
FULL_GAME = ("touchdown", "defense", "extra_point", "quick_strike", "game_changer")
FULL_GAME += tuple(f"game_length:{n}" for n in range(1, 7))


def football_round(state, rng: random.Random, number: int) -> Iterator[Event]:
    """One throw of Three Dice Football: single play wagers, full game wagers before a
    game's first throw (§ 661a.3(c)), a throw of two green dice and a red one."""
    kinds = list(rng.sample(SINGLE_PLAY, rng.randint(0, 3)))
    if not state.game_started:
        kinds += rng.sample(FULL_GAME, rng.randint(1, 3))
    wagers = [
        {
            "id": f"{number}.{i}",
            "player": rng.choice(PLAYERS),
            "kind": kind,
            "amount": str(rng.choice([5, 10, 25])),
        }
        for i, kind in enumerate(kinds, start=1)
    ]
    if wagers:
        yield "wagers", wagers
    yield "throw", {"green": [rng.randint(1, 6), rng.randint(1, 6)], "red": rng.randint(1, 6)}


@pytest.mark.parametrize("seed", [11, 661])
def test_a_three_dice_football_state_through_the_cache_steps_as_the_original(seed):
    decided = lockstep("three_dice_football", {}, rounds=200, seed=seed, chooser=football_round)
    assert decided > 200


# --- Pai Gow --------------------------------------------------------------------------------

ALL_TILES = [str(tile) for tile, count in TILE_SET.items() for _ in range(count)]


def pai_gow_round(state, rng: random.Random, number: int) -> Iterator[Event]:
    """One Pai Gow round: wagers on random positions, a player bank from time to time
    (§ 621a.9), the deal, each hand set, a surrender or a void now and then, the reveal."""
    positions = sorted(rng.sample(range(1, 7), rng.randint(1, 4)))
    players = rng.sample(PLAYERS, len(positions))
    wagers = [
        {
            "id": f"{number}.{i}",
            "player": player,
            "kind": "pai_gow",
            "amount": str(rng.choice([5, 10, 25, 40])),
            "position": position,
        }
        for i, (player, position) in enumerate(zip(players, positions, strict=True), start=1)
    ]
    yield "wagers", wagers
    if rng.random() < 0.4:
        banker = rng.choice(players)
        yield (
            "bank",
            {"player": banker, "co_bank": rng.random() < 0.5, "chips": "1000"},
        )
    tiles = ALL_TILES[:]
    rng.shuffle(tiles)
    deal = {"dealer": tiles[:4], "positions": {}}
    for i, position in enumerate(positions, start=1):
        deal["positions"][str(position)] = tiles[4 * i : 4 * i + 4]
    yield "deal", deal
    if rng.random() < 0.05:
        yield "irregularity", {"kind": "wrong_positions"}
        return
    yield "set", {w["id"]: "house_way" for w in wagers}
    if rng.random() < 0.2:
        yield "surrender", [rng.choice(wagers)["id"]]
    yield "reveal", True


@pytest.mark.parametrize("seed", [3, 621])
def test_a_pai_gow_state_through_the_cache_steps_as_the_original(seed):
    decided = lockstep(
        "pai_gow", {"max_wager": "5000"}, rounds=120, seed=seed, chooser=pai_gow_round
    )
    assert decided > 120


def test_the_cache_refuses_what_is_not_an_engine_value():
    """A cache is loaded only into engine values: a pickle naming any other class (here a
    date) is refused, and the caller rebuilds the state from the events."""
    with pytest.raises(pickle.UnpicklingError, match=r"datetime\.date is not an engine value"):
        state_loads(pickle.dumps(datetime.date(2026, 3, 2)))


# --- the fallback: a corrupted cache on the previous round ------------------------------------


def craps_point_round(table):
    """Round 1: a Pass Bet and a Place Bet on the 6, then a 4 on the come out roll: the
    point is 4 (§ 623a.3(a)(1)(i)(B)); the Place Bet, not called on, works on after it."""
    first = opened(table)
    place(first, wager("ann", "pass", "10"), wager("bob", "place:6", "12"))
    result(first, "throw", [2, 2])
    settle(first)
    return fresh(first)


def craps_second_round(table):
    second = opened(table, now=T0 + 10 * M)
    place(second, wager("ann", "odds", "20", on="1.1"), now=T0 + 11 * M)
    result(second, "throw", [3, 1], now=T0 + 12 * M)
    settle(second, now=T0 + 13 * M)
    return second


def decided_in(round_: Round) -> list[tuple[str, str, Decimal, str]]:
    return [
        (r.wager.ref, r.result, r.net, r.cite)
        for r in Resolution.objects.filter(round=round_).select_related("wager").order_by("id")
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "corrupt",
    [b"not a pickle at all", pickle.dumps(datetime.date(2026, 3, 2)), b""],
    ids=["garbage", "a foreign pickle", "empty"],
)
def test_a_corrupted_cache_falls_back_to_replaying_the_chain(corrupt):
    """58 Pa. Code § 623a.3(a)(1)(i)(B) and § 623a.6(a)(2)(i): whatever the cache says, the
    point of 4 carries into round 2, where a 4 wins the Pass Bet 1 to 1 ($10) and the odds
    2 to 1 ($20 wins $40); the Place Bet on the 6 works on."""
    trusted = open_table("craps")
    broken = open_table("craps")
    craps_point_round(trusted)
    first_broken = craps_point_round(broken)
    good_cache = bytes(first_broken.state_after)
    Round.objects.filter(pk=first_broken.pk).update(state_after=corrupt)

    second_broken = opened(broken, now=T0 + 10 * M)
    replayed = state_after_replayed(fresh(first_broken))
    assert without_ids(state_in(second_broken)) == without_ids(replayed)
    assert without_ids(state_in(second_broken)) == state_loads(good_cache)
    assert state_in(second_broken).point == 4
    place(second_broken, wager("ann", "odds", "20", on="1.1"), now=T0 + 11 * M)
    result(second_broken, "throw", [3, 1], now=T0 + 12 * M)
    settle(second_broken, now=T0 + 13 * M)

    second_trusted = craps_second_round(trusted)
    expected = [
        ("1.1", "win", D("10.00"), "58 Pa. Code § 623a.3(a)(1)(i)(B)"),
        ("2.1", "win", D("40.00"), "58 Pa. Code § 623a.6(a)(2)(i)"),
    ]
    assert decided_in(second_trusted) == expected
    assert decided_in(second_broken) == expected
    # Which path each took: the cache leaves the used ids out, the replay has them.
    assert len(state_in(second_trusted).wager_ids) == 0
    assert len(state_in(second_broken).wager_ids) == 2  # 1.1 and 1.2
    books_balance_check(broken)


@pytest.mark.django_db
def test_close_refusals_see_the_working_pass_bet_through_a_corrupted_cache():
    """58 Pa. Code § 623a.4(c)(1): the Pass Bet works on its point; the table may not close
    under it, whatever the cache of the last round says."""
    table = open_table("craps")
    first = craps_point_round(table)
    Round.objects.filter(pk=first.pk).update(state_after=b"\x80\x05garbage")
    assert close_refusals(table) == [
        "wagers still working at CR-01: 1.1, 1.2; they are decided or taken down before the "
        "table closes"
    ]


def test_a_state_pickled_by_persistent_ids_still_loads():
    """States cached before the dispatch table (Round.state_after rows of a floor already
    running) named the constants and the used ids by persistent id: they load as before."""

    class Before(pickle.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, UsedIds):
                return ("used_ids",)
            if obj is bets.PASS:
                return ("constant", bets.__name__, "PASS", None)
            return None

    engine = engine_get("craps")
    options = engine.parse_options({})
    state, _ = engine.step(
        options,
        engine.new_state(options),
        "wagers",
        [{"id": "1.1", "player": "ann", "kind": "pass", "amount": "10"}],
    )
    buffer = io.BytesIO()
    Before(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
    loaded = state_loads(buffer.getvalue())
    assert loaded.layout[0].bet.wager_type is bets.PASS
    assert loaded.layout == state.layout
    assert len(loaded.wager_ids) == 0


def test_only_wager_types_and_used_ids_cost_a_python_call_when_pickled():
    """A busy round's state is pickled after every wager: the dispatch table names the
    constants' classes only, so strings, Decimals and the wagers pickle in C."""
    table = _dispatch_table()
    assert UsedIds in table and type(bets.PASS) in table
    assert not {str, int, Decimal, tuple, frozenset} & set(table)


@pytest.mark.parametrize(
    "crafted",
    [
        # builtins.eval("1 + 1") by REDUCE
        b"\x80\x05\x95\x00\x00\x00\x00\x00\x00\x00\x00\x8c\x08builtins\x94\x8c\x04eval\x94"
        b"\x93\x94\x8c\x051 + 1\x94\x85\x94R\x94.",
        # games.replay.constant("os", "getcwd", None) by REDUCE
        pickle.dumps(
            type("Crafted", (), {"__reduce__": lambda self: (constant, ("os", "getcwd", None))})()
        ),
    ],
)
def test_a_crafted_cache_entry_cannot_call_its_way_out(crafted):
    """Anyone who could write the cache must not run code in the web or worker processes:
    only the engines' classes, a few standard value types and the engines' own constants
    load (the review's probe: eval and os.getcwd were reachable)."""
    with pytest.raises(pickle.UnpicklingError):
        state_loads(crafted)


def test_an_old_persistent_id_naming_anything_but_a_constant_is_refused():
    class Crafted(pickle.Pickler):
        def persistent_id(self, obj):
            return ("constant", "os", "getpid", None) if obj == "x" else None

    buffer = io.BytesIO()
    Crafted(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(["x"])
    with pytest.raises(pickle.UnpicklingError, match="not an engine constant"):
        state_loads(buffer.getvalue())
