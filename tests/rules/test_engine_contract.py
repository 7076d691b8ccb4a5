"""The engines' contract (games/rules/core/engine.py): every resolution ends its wager, and
what a table says it takes now is what it takes.

A wager resolved by a step is not among `open_wagers` after it, is never resolved again,
and was taken before; at the end every wager taken is either resolved or still open, never
both. Random valid games of every engine, variant and option (tests/differential/
generator.py) hold each engine to it, long Craps hands included: a resolution that left
its wager working (the Lucky Shooter's come out 7 once did, § 623b.2(d)(2)) jams the
floor's settlement, which keeps one Resolution per wager.

Every step of those games is one the engine took whole, so each was among `events_now` of
the state before it, and each wager's kind among `kinds_now` (the API's `next`); and every
state's view is JSON with the game's name as its "game".
"""

import json

import pytest

from games.rules.registry import engine_get
from tests.differential.generator import GAMES, game_generate

SEEDS = range(30)
LONG_CRAPS_HANDS = range(3)  # hundreds of throws each


def contract_check(game: str, seed: int, rounds: int | None = None) -> None:
    document = game_generate(seed, game, rounds).scenario()
    engine = engine_get(game)
    options = engine.parse_options(document["options"])
    state = engine.new_state(options)
    taken: set[str] = set()
    resolved: set[str] = set()
    for index, step in enumerate(document["steps"]):
        ((event, payload),) = step.items()
        where = f"{game} seed {seed} step {index} ({event})"
        assert event in engine.events_now(options, state), f"{where}: not among events_now"
        if event == "wagers":
            kinds = set(engine.kinds_now(options, state))
            refused = {w["kind"] for w in payload} - kinds  # type: ignore[union-attr]
            assert not refused, f"{where}: taken, but not among kinds_now: {refused}"
        state, outcome = engine.step(options, state, event, payload)
        view = json.loads(json.dumps(engine.state_view(options, state)))
        assert view["game"] == game, where
        taken |= set(outcome.accepted)
        decided = [r.wager for r in outcome.resolutions]
        assert len(decided) == len(set(decided)), f"{where}: resolved twice in one step"
        assert not set(decided) & resolved, f"{where}: resolved again {set(decided) & resolved}"
        assert set(decided) <= taken, f"{where}: resolved but never taken"
        left_open = set(decided) & set(engine.open_wagers(state))
        assert not left_open, f"{where}: resolved but still working {left_open}"
        resolved |= set(decided)
    still_open = set(engine.open_wagers(state))
    assert taken == resolved | still_open, f"{game} seed {seed}: wagers lost track of"


@pytest.mark.parametrize("game", GAMES)
def test_every_resolution_ends_its_wager(game: str) -> None:
    for seed in SEEDS:
        contract_check(game, seed)


@pytest.mark.parametrize("seed", LONG_CRAPS_HANDS)
def test_every_resolution_ends_its_wager_in_a_long_craps_hand(seed: int) -> None:
    contract_check("craps", seed, rounds=300)
