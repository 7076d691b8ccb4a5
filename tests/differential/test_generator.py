"""The generator itself: deterministic, valid, and covering what the differential run must.

The coverage test reads the games the default run plays (test_differential's seeds), so
a change to the generator that stops exercising an option, an event or a wager kind fails
here, not silently in the comparison.
"""

from collections.abc import Iterator

from games.rules.craps.paytables import BONUS_CRAPS, FIRE_BET, HOT_ROLLER, LUCKY_SHOOTER
from games.rules.pai_gow.dealing import ALTERNATIVE_STYLES
from games.scenario import run_scenario
from tests.differential.generator import _CRAPS_KINDS, _CRAPS_SIDE, Game, game_generate
from tests.differential.test_differential import (
    GAMES_DEFAULT,
    LONG_DEFAULT,
    LONG_SEED_BASE,
    THROWS_DEFAULT,
)


def _default_games() -> Iterator[Game]:
    for seed in range(GAMES_DEFAULT):
        yield game_generate(seed)
    for n in range(LONG_DEFAULT):
        yield game_generate(LONG_SEED_BASE + n, "craps", THROWS_DEFAULT)


def _features(generated: Game) -> set[str]:
    """What one game exercises, as "game:what" strings."""
    game = generated.game
    found = {f"{game}:variant:{generated.variant}"}
    for name, value in generated.options.items():
        if name == "dealing_styles":
            found |= {f"{game}:style offered:{s}" for s in value} | {f"{game}:styles:{len(value)}"}
        elif name == "payout_limit":
            found.add(f"{game}:payout_limit:set")
        elif name not in ("min_wager", "max_wager"):
            found.add(f"{game}:{name}={value}")
    kinds = {}
    for rnd in generated.rounds:
        for step in rnd:
            ((event, payload),) = step.items()
            found.add(f"{game}:event:{event}")
            if event == "wagers":
                for wager in payload:
                    kinds[wager["id"]] = wager["kind"]
                    found.add(f"{game}:kind:{wager['kind'].split(':')[0]}")
                    found.add(f"{game}:kind:{wager['kind']}")
            if event == "working":
                found |= {
                    f"{game}:working:{kinds[i].split(':')[0]}={on}" for i, on in payload.items()
                }
            if event == "remove":
                found |= {
                    f"{game}:remove:{'reduce' if isinstance(i, dict) else 'down'}" for i in payload
                }
            if event == "bank":
                found.add(f"{game}:bank:co_bank={payload.get('co_bank', False)}")
            if event == "irregularity":
                found.add(f"{game}:irregularity:{payload['kind']}:{payload.get('void', '-')}")
            if event == "deal":
                found |= {f"{game}:deal:{k}" for k in payload} | {
                    f"{game}:style:{payload['style']}"
                }
    result = run_scenario(generated.scenario())
    for step in result["steps"]:
        assert not step["rejected"], (generated.seed, step)
        for r in step["resolutions"]:
            found.add(f"{game}:result:{kinds[r['wager']].split(':')[0]}:{r['result']}")
            if "payout_limit_reduction" in r:
                found.add(f"{game}:payout limit reduced")
        if "game_over" in step:
            found.add(f"{game}:game over:{step['game_over']['result']}")
            if step["game_over"].get("extra_point_roll"):
                found.add(f"{game}:extra point roll")
    return found


def test_the_same_seed_gives_the_same_game() -> None:
    for seed in (0, 1, 2, 3, 4, 77):
        assert game_generate(seed) == game_generate(seed)
    assert game_generate(0) != game_generate(5)  # both Craps, different games


def test_the_default_run_covers_every_game_option_event_and_wager_kind() -> None:
    found: set[str] = set()
    for generated in _default_games():
        found |= _features(generated)
    wanted = {
        *(f"craps:variant:{v}" for v in ("craps", "mini_craps")),
        *(f"craps:table_type={t}" for t in ("manual", "hybrid", "electronic")),
        *(f"craps:max_odds_multiple={n}" for n in range(1, 11)),
        *(f"craps:buy_lay={b}" for b in (True, False)),
        *(f"craps:vig_percent={p}" for p in ("0", "1", "2.5", "4", "5")),
        *(f"craps:vig_collected={c}" for c in ("on_win", "on_placement")),
        *(f"craps:fire_bet_paytable={p}" for p in (*FIRE_BET, "none")),
        *(f"craps:hot_roller_paytable={p}" for p in (*HOT_ROLLER, "none")),
        *(f"craps:lucky_shooter_paytable={p}" for p in (*LUCKY_SHOOTER, "none")),
        *(f"craps:bonus_craps_paytable={p}" for p in (*BONUS_CRAPS, "none")),
        *(f"craps:{o}={b}" for o in ("power_odds", "hot_shooter_jackpot") for b in (True, False)),
        *(f"craps:come_odds_working_on_come_out={b}" for b in (True, False)),
        *(f"craps:dont_come_odds_working_on_come_out={b}" for b in (True, False)),
        *(f"craps:vig_returned_on_removal={b}" for b in (True, False)),
        *(f"craps:kind:{k.split(':')[0]}" for k in (*_CRAPS_KINDS, *_CRAPS_SIDE, "odds")),
        *(f"craps:event:{e}" for e in ("remove", "working", "pass_dice", "power_odds")),
        "craps:event:no_roll",
        "craps:working:odds=False",
        "craps:working:odds=True",
        "craps:working:place=False",
        "craps:remove:reduce",
        "craps:remove:down",
        *(f"craps:result:{k}:win" for k in ("odds", "lay", "buy", "hop", "place", "hard")),
        *(f"craps:result:{k}:lose" for k in ("fire", "hot_roller", "all_small", "hot_shooter")),
        "craps:result:lucky_shooter:lose",
        "craps:result:odds:push",  # odds off when their bet is decided are returned
        "craps:result:pass:void",  # taken down
        "sic_bo:shaker=manual",
        "sic_bo:shaker=automated",
        "sic_bo:event:no_roll",
        "sic_bo:event:shaker_malfunction",
        *(f"sic_bo:kind:{k}" for k in ("triple", "double", "any_triple", "total", "combo")),
        *(f"sic_bo:kind:{k}" for k in ("small", "big", "single")),
        *(f"high_roll_dice:variant:{v}" for v in ("10_dice", "6_dice")),
        "high_roll_dice:payout_limit:set",
        "high_roll_dice:payout limit reduced",
        "high_roll_dice:event:extra_roll",
        *(f"high_roll_dice:kind:{k}" for k in ("pip", "like_kind", "no_match", "millionaire")),
        "high_roll_dice:result:extra_roll:lose",
        "three_dice_football:game over:touchdown",
        "three_dice_football:extra point roll",
        *(f"three_dice_football:kind:{k}" for k in ("touchdown", "extra_point", "game_length")),
        *(f"pai_gow:{o}={b}" for o in ("player_banking", "co_banking") for b in (True, False)),
        *(f"pai_gow:adjacent_betting_areas={b}" for b in (True, False)),
        *(f"pai_gow:starting_position={s}" for s in ("shaker", "rng")),
        *(f"pai_gow:shaker_if_rng_down={b}" for b in (True, False)),
        *(f"pai_gow:style:{s}" for s in ("standard", *ALTERNATIVE_STYLES)),
        "pai_gow:styles:0",
        f"pai_gow:styles:{len(ALTERNATIVE_STYLES)}",
        *(f"pai_gow:bank:co_bank={b}" for b in (True, False)),
        *(f"pai_gow:deal:{k}" for k in ("rng", "dice", "cut")),
        "pai_gow:event:surrender",
        "pai_gow:irregularity:wrong_positions:-",
        "pai_gow:irregularity:exposed_tile:-",
        "pai_gow:irregularity:exposed_tile:True",
        "pai_gow:irregularity:exposed_tile:False",
        "pai_gow:result:pai_gow:win",
        "pai_gow:result:pai_gow:push",
    }
    missing = sorted(wanted - found)
    assert not missing, f"the default differential run does not exercise: {missing}"
