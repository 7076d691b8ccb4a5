"""One differential test for every game: the engine and the floor decide every wager alike.

Each seed is a random valid game in play (tests/differential/generator.py): its options
drawn from every value a Rules Submission may choose, its rounds offered to the engine as
they were made. It is played twice, by `games.scenario.run_scenario` and by the floor's own
path (a compliant table, the round services, the worker's settlement), and after every
round each wager's resolution (result, net, cite) must be the same, every ledger entry
must sum to zero, each resolved wager's player lines must sum to its net and the layout
must hold exactly the stakes still open (tests/games/round_fixtures.py).

    DIFFERENTIAL_SEED=<n>        replays that seed only (the failure message gives the line)
    DIFFERENTIAL_GAMES=<count>   short games to play (default 175: 35 of each game)
    DIFFERENTIAL_LONG=<count>    long Craps hands of DIFFERENTIAL_THROWS throws (default 2)
    DIFFERENTIAL_THROWS=<count>  throws in each long hand (default 200)
    DIFFERENTIAL_API=<count>     short games through the REST API (default 20: 4 of each game)
"""

import os

import pytest

from tests.differential.floor import engine_rounds, floor_play
from tests.differential.generator import GAMES, game_generate, game_of_seed

GAMES_DEFAULT = 35 * len(GAMES)
LONG_DEFAULT = 2
API_DEFAULT = 4 * len(GAMES)
API_SEED_BASE = 2_000_000  # games through the API, apart from the others
THROWS_DEFAULT = 200
LONG_SEED_BASE = 1_000_000  # long hands' seeds, apart from the short games'
HERE = "tests/differential/test_differential.py"


@pytest.fixture(autouse=True)
def _no_par_sheets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A submission's PAR sheets (shown to compliance before approval; not what this test
    checks) take seconds for Pai Gow and Craps under options no other seed shares."""
    monkeypatch.setattr("casino.services.submissions.submission_par_sheets", lambda _: {})


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit():
        raise pytest.UsageError(f"{name} must be a whole number, not {value!r}")
    return int(value)


def _seeds(count_name: str, default: int, base: int = 0) -> list[int]:
    one = os.environ.get("DIFFERENTIAL_SEED", "").strip()
    if one:
        return [_env_int("DIFFERENTIAL_SEED", 0)]
    return [base + n for n in range(_env_int(count_name, default))]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "seed", _seeds("DIFFERENTIAL_GAMES", GAMES_DEFAULT), ids=lambda s: f"{game_of_seed(s)}-{s}"
)
def test_game(seed: int) -> None:
    """A short game (3 to 12 rounds) of the seed's game: the engine and the floor agree."""
    generated = game_generate(seed)
    engine, still_open = engine_rounds(generated)
    floor_play(generated, engine, still_open, f"{HERE}::test_game")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "seed", _seeds("DIFFERENTIAL_LONG", LONG_DEFAULT, LONG_SEED_BASE), ids=lambda s: f"craps-{s}"
)
def test_long_craps_hand(seed: int) -> None:
    """LONG: hundreds of Craps throws at one table, side wagers, odds, calls, removals and
    shooters passing the dice; the engine and the floor agree after every throw."""
    throws = _env_int("DIFFERENTIAL_THROWS", THROWS_DEFAULT)
    generated = game_generate(seed, "craps", throws)
    engine, still_open = engine_rounds(generated)
    floor_play(generated, engine, still_open, f"{HERE}::test_long_craps_hand")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "seed",
    _seeds("DIFFERENTIAL_API", API_DEFAULT, API_SEED_BASE),
    ids=lambda s: f"{game_of_seed(s)}-{s}",
)
def test_game_through_the_api(seed: int) -> None:
    """A short game sent through the REST API as an integrator's floor system sends it
    (only the events the API takes: generator.API_EVENTS); the engine and the floor agree."""
    generated = game_generate(seed, api=True)
    engine, still_open = engine_rounds(generated)
    floor_play(generated, engine, still_open, f"{HERE}::test_game_through_the_api", api=True)
