"""Every game engine by its scenario name (SCENARIOS.md: ``game``).

Engines are imported on first use, so a command that plays one game loads one engine.
"""

from importlib import import_module

from games.rules.core.engine import Engine

# Scenario name -> the package whose ENGINE plays it.
ENGINE_MODULES: dict[str, str] = {
    "high_roll_dice": "games.rules.high_roll_dice",
    "sic_bo": "games.rules.sic_bo",
    "three_dice_football": "games.rules.three_dice_football",
    "craps": "games.rules.craps",
    "pai_gow": "games.rules.pai_gow",
}


def engine_get(game: str) -> Engine:
    """The engine for a game name; KeyError names the known games."""
    if game not in ENGINE_MODULES:
        raise KeyError(f"unknown game {game!r}; known: {', '.join(sorted(ENGINE_MODULES))}")
    return import_module(ENGINE_MODULES[game]).ENGINE
