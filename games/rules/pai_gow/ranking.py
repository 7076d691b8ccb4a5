"""Ranking two-tile hands: pairs, Wongs and Gongs, then value, then the highest tile.

58 Pa. Code § 621a.3(c)-(i). Every comparison of a player's hand with the dealer's (or
the bank's) reduces to one integer, the hand's strength: a hand beats another exactly
when its strength is greater. Equal strengths are copy hands, which the dealer or bank
wins (§ 621a.3(d), (i)), and every hand of value zero has the same strength, because
"both hands, regardless of the highest ranking tile, are equally bad" (§ 621a.3(g)).
"""

from itertools import combinations_with_replacement

from games.rules.pai_gow.tiles import SIX, THREE, TILE_RANK, TILES, Tile, parse_tile

Hand = tuple[Tile, Tile]

# § 621a.3(c): the permissible pairs and their rank, the Supreme Pair first.
_PAIRS: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (1, "Supreme Pair", (("1-2", "2-4"),)),
    (2, "pair of Twelves", (("6-6", "6-6"),)),
    (3, "pair of Twos", (("1-1", "1-1"),)),
    (4, "pair of Eights (4-4)", (("4-4", "4-4"),)),
    (5, "pair of Fours (1-3)", (("1-3", "1-3"),)),
    (6, "pair of Tens (5-5)", (("5-5", "5-5"),)),
    (7, "pair of Sixes (3-3)", (("3-3", "3-3"),)),
    (8, "pair of Fours (2-2)", (("2-2", "2-2"),)),
    (9, "pair of Elevens", (("5-6", "5-6"),)),
    (10, "pair of Tens (4-6)", (("4-6", "4-6"),)),
    (11, "pair of Sevens (1-6)", (("1-6", "1-6"),)),
    (12, "pair of Sixes (1-5)", (("1-5", "1-5"),)),
    (13, "mixed Nines", (("3-6", "4-5"),)),
    (14, "mixed Eights", (("3-5", "2-6"),)),
    (15, "mixed Sevens", (("3-4", "2-5"),)),
    (16, "mixed Fives", (("1-4", "2-3"),)),
    (17, "Wong (Twelve and Nine)", (("6-6", "4-5"), ("6-6", "3-6"))),
    (18, "Wong (Two and Nine)", (("1-1", "4-5"), ("1-1", "3-6"))),
    (19, "Gong (Twelve and Eight)", (("6-6", "2-6"), ("6-6", "3-5"), ("6-6", "4-4"))),
    (20, "Gong (Two and Eight)", (("1-1", "2-6"), ("1-1", "3-5"), ("1-1", "4-4"))),
)
PAIR_RANK: dict[frozenset[Tile], int] = {}
PAIR_NAME: dict[int, str] = {}
for _rank, _name, _members in _PAIRS:
    PAIR_NAME[_rank] = _name
    for _a, _b in _members:
        PAIR_RANK[frozenset((parse_tile(_a), parse_tile(_b)))] = _rank

SUPREME_PAIR = 1
LOWEST_PAIR = 20
PAIR_STRENGTH_BASE = 200  # above every non-pair hand (at most 20 * 9 + 17 = 197)


def pair_rank(a: Tile, b: Tile) -> int | None:
    """The rank of the pair the two tiles form under § 621a.3(c) (1..20), or None."""
    return PAIR_RANK.get(frozenset((a, b)))


def _counts(tile: Tile) -> tuple[tuple[int, int], ...]:
    """(numeric total, individual rank) the tile may count as, used without its mate.

    § 621a.3(f): the 1-2 counts 3 (rank 17th) or 6 (rank 15th instead); the 2-4 counts
    6 (rank 15th) or 3 (rank 17th instead). Every other tile counts its spots.
    """
    if tile in (THREE, SIX):
        return ((3, 17), (6, 15))
    return ((tile.spots, TILE_RANK[tile]),)


def _value_and_top_rank(a: Tile, b: Tile) -> tuple[int, int]:
    """The hand's value (§ 621a.3(e)) and its highest-ranking tile's rank (§ 621a.3(g)).

    Reading of § 621a.3(f): the 1-2 or 2-4 counts as whichever of 3 and 6 gives the
    hand the higher value (the two always give different values), and ranks as counted.
    """
    best: tuple[int, int] | None = None
    for total_a, rank_a in _counts(a):
        for total_b, rank_b in _counts(b):
            candidate = ((total_a + total_b) % 10, min(rank_a, rank_b))
            if best is None or candidate[0] > best[0]:
                best = candidate
    assert best is not None
    return best


def hand_value(a: Tile, b: Tile) -> int:
    """The value of a hand without a pair: the right digit of its spots (§ 621a.3(e))."""
    return _value_and_top_rank(a, b)[0]


def _strength(a: Tile, b: Tile) -> int:
    rank = pair_rank(a, b)
    if rank is not None:
        return PAIR_STRENGTH_BASE + (LOWEST_PAIR + 1 - rank)
    value, top_rank = _value_and_top_rank(a, b)
    if value == 0:
        return 0  # zero-zero: equally bad whatever the tiles (§ 621a.3(g))
    return 20 * value + (18 - top_rank)


# Every two-tile hand the set allows, ranked once: 21 kinds make 231 hands.
_STRENGTH: dict[frozenset[Tile], int] = {
    frozenset((a, b)): _strength(a, b) for a, b in combinations_with_replacement(TILES, 2)
}


def hand_strength(a: Tile, b: Tile) -> int:
    """The hand's strength: greater beats, equal is a copy hand the dealer or bank wins."""
    return _STRENGTH[frozenset((a, b))]


def beats(hand: Hand, other: Hand) -> bool:
    """Whether `hand` is higher in rank than `other`, the dealer's or bank's hand."""
    return hand_strength(*hand) > hand_strength(*other)


def describe_hand(a: Tile, b: Tile) -> str:
    """The hand as a dealer announces it: ``"Wong (Twelve and Nine)"``, ``"value 7"``."""
    rank = pair_rank(a, b)
    if rank is not None:
        return PAIR_NAME[rank]
    return f"value {hand_value(a, b)}"
