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
    """Every variant key once, for a model field; a table checks its game's own.

    A key is a key only within its game: "standard" is Pai Gow's, Sic Bo's and Three Dice
    Football's, so a key several games share is named for all of them, never for the first
    ("Pai Gow" on a Sic Bo table). A page that knows the game names the variant in it
    (casino.rules.words.variant_label)."""
    games_of: dict[str, list[Game]] = {}
    for game in GAMES:
        for key, _ in game.variants:
            games_of.setdefault(key, []).append(game)
    choices = []
    for key, games in games_of.items():
        if len(games) == 1:
            choices.append((key, dict(games[0].variants)[key]))
        else:
            shared = ", ".join(game.name for game in games)
            choices.append((key, f"{key.replace('_', ' ').capitalize()}: {shared}"))
    return choices
