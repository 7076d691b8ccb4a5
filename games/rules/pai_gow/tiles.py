"""The 32 Pai Gow tiles and their individual ranking (58 Pa. Code § 621a.3(h)).

A tile is written ``A-B`` with A <= B pips, as the scenario contract writes it. Every
one of the 21 such names is in the set: eleven kinds twice and ten kinds once.
"""

from dataclasses import dataclass

from games.rules.core.errors import MalformedInput


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One tile by its two ends' spots: `low` <= `high`."""

    low: int
    high: int

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    @property
    def spots(self) -> int:
        """The tile's numeric total: its two ends' spots together."""
        return self.low + self.high


def _tile(name: str) -> Tile:
    low, high = name.split("-")
    return Tile(int(low), int(high))


# § 621a.3(h): (rank, tile, number of tiles in the set), highest rank first. Tiles of the
# same rank (the two Nines, the two Eights, ...) are told apart by nothing but spots.
_RANKING: tuple[tuple[int, str, int], ...] = (
    (1, "6-6", 2),  # Twelve
    (2, "1-1", 2),  # Two
    (3, "4-4", 2),  # Eight
    (4, "1-3", 2),  # Four
    (5, "5-5", 2),  # Ten
    (6, "3-3", 2),  # Six
    (7, "2-2", 2),  # Four
    (8, "5-6", 2),  # Eleven
    (9, "4-6", 2),  # Ten
    (10, "1-6", 2),  # Seven
    (11, "1-5", 2),  # Six
    (12, "3-6", 1),  # Nine
    (12, "4-5", 1),  # Nine
    (13, "2-6", 1),  # Eight
    (13, "3-5", 1),  # Eight
    (14, "2-5", 1),  # Seven
    (14, "3-4", 1),  # Seven
    (15, "2-4", 1),  # Six
    (16, "1-4", 1),  # Five
    (16, "2-3", 1),  # Five
    (17, "1-2", 1),  # Three
)

TILE_SET: dict[Tile, int] = {_tile(name): count for _, name, count in _RANKING}
TILES: tuple[Tile, ...] = tuple(TILE_SET)  # the 21 kinds, highest rank first
TILE_RANK: dict[Tile, int] = {_tile(name): rank for rank, name, _ in _RANKING}
_BY_NAME: dict[str, Tile] = {str(tile): tile for tile in TILES}

THREE = _tile("1-2")  # with SIX, the Supreme Pair; each counts 3 or 6 used alone (§ 621a.3(f))
SIX = _tile("2-4")
SET_SIZE = sum(TILE_SET.values())  # 32


def tile_rank(tile: Tile) -> int:
    """The tile's individual ranking under § 621a.3(h): 1 (6-6) to 17 (1-2)."""
    return TILE_RANK[tile]


def parse_tile(text: object, field: str = "tile") -> Tile:
    """A tile from its name ``"A-B"`` (A <= B); any other value is a malformed document."""
    if isinstance(text, str) and text in _BY_NAME:
        return _BY_NAME[text]
    raise MalformedInput(
        field, f"{text!r} is not a Pai Gow tile; tiles are written A-B with A <= B pips, e.g. 1-2"
    )


def parse_tiles(payload: object, count: int, field: str) -> tuple[Tile, ...]:
    """Exactly `count` tile names."""
    if not isinstance(payload, list) or len(payload) != count:
        raise MalformedInput(field, f'must be a list of {count} tiles such as "1-2"')
    return tuple(parse_tile(name, f"{field}[{i}]") for i, name in enumerate(payload))


def tiles_text(tiles: "tuple[Tile, ...] | list[Tile]") -> list[str]:
    """Tile names as the results write them."""
    return [str(tile) for tile in tiles]
