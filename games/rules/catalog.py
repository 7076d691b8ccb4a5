"""The games of the floor, their chapters of 58 Pa. Code and their variants."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Game:
    """A table game: its scenario name, its name in the regulations, its chapter."""

    key: str
    name: str
    chapter: str
    variants: tuple[tuple[str, str], ...]  # (key, name); the first is the standard one


GAMES: tuple[Game, ...] = (
    Game("craps", "Craps", "623a", (("craps", "Craps"), ("mini_craps", "Mini-Craps"))),
    Game(
        "high_roll_dice",
        "High Roll Dice",
        "675a",
        (("10_dice", "10 dice"), ("6_dice", "6-dice variation (§ 675a.6)")),
    ),
    Game("pai_gow", "Pai Gow (tiles)", "621a", (("standard", "Pai Gow"),)),
    Game("sic_bo", "Sic Bo", "625a", (("standard", "Sic Bo"),)),
    Game(
        "three_dice_football", "Three Dice Football", "661a", (("standard", "Three Dice Football"),)
    ),
)

GAMES_BY_KEY: dict[str, Game] = {game.key: game for game in GAMES}


def game_choices() -> list[tuple[str, str]]:
    """(key, name) pairs for a form or model field."""
    return [(game.key, game.name) for game in GAMES]


def variant_choices() -> list[tuple[str, str]]:
    """Every variant of every game, for a model field; a table checks its game's own."""
    seen: dict[str, str] = {}
    for game in GAMES:
        for key, name in game.variants:
            seen.setdefault(key, name)
    return list(seen.items())
