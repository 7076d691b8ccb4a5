"""Pai Gow PAR (58 Pa. Code § 621a.3, § 621a.8): an independent check of the engine.

This file has its own small implementation of the tile ranking, the comparison of
hands and the house way, written from the regulation text alone (nothing of the
engine's ranking or house way is imported for it). With it:

(a) the engine's house way is compared, hand by hand, with ours on every distinct
    four-tile hand the 32-tile set allows (by tile kinds: 8,130 of them);
(b) for fixed player hands, win/tie/lose are counted over all C(28, 4) = 20,475
    dealer hands of the 28 remaining (distinguishable) tiles and compared with the
    engine's ``par.outcome_counts``;
(c) the PAR record of ``python -m games.par pai_gow`` is checked for form and against
    our own enumeration of all C(32, 4) * C(28, 4) = 736,281,000 deals.

Readings shared with the engine's spec (the text leaves a choice): a 1-2 or 2-4 used
alone counts 3 or 6, whichever gives the higher value, and ranks as counted
(§ 621a.3(f)); where several settings qualify under § 621a.8(d)(2) or (3), the
strongest low hand, then the strongest high hand.
"""

from collections import Counter
from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import accumulate, combinations, combinations_with_replacement, product
from math import comb, prod
from operator import add

import pytest

from games.par import par_document
from games.rules.pai_gow.house_way import house_way
from games.rules.pai_gow.par import outcome_counts
from games.rules.pai_gow.tiles import parse_tile

# ---------------------------------------------------------------------------------------
# Our own ranking, from § 621a.3.

# § 621a.3(h): individual rank (1 = highest) and number in the set.
RANK = {
    "6-6": 1, "1-1": 2, "4-4": 3, "1-3": 4, "5-5": 5, "3-3": 6, "2-2": 7, "5-6": 8,
    "4-6": 9, "1-6": 10, "1-5": 11, "3-6": 12, "4-5": 12, "2-6": 13, "3-5": 13,
    "2-5": 14, "3-4": 14, "2-4": 15, "1-4": 16, "2-3": 16, "1-2": 17,
}  # fmt: skip
COPIES = {name: 2 if rank <= 11 else 1 for name, rank in RANK.items()}
KINDS = sorted(RANK, key=lambda name: (RANK[name], name))

# § 621a.3(c): the permissible pairs; the Supreme Pair first.
PAIR_TABLE = [
    [("1-2", "2-4")],
    [("6-6", "6-6")], [("1-1", "1-1")], [("4-4", "4-4")], [("1-3", "1-3")],
    [("5-5", "5-5")], [("3-3", "3-3")], [("2-2", "2-2")], [("5-6", "5-6")],
    [("4-6", "4-6")], [("1-6", "1-6")], [("1-5", "1-5")],
    [("3-6", "4-5")], [("3-5", "2-6")], [("3-4", "2-5")], [("1-4", "2-3")],
    [("6-6", "4-5"), ("6-6", "3-6")], [("1-1", "4-5"), ("1-1", "3-6")],
    [("6-6", "2-6"), ("6-6", "3-5"), ("6-6", "4-4")],
    [("1-1", "2-6"), ("1-1", "3-5"), ("1-1", "4-4")],
]  # fmt: skip
PAIR_RANK = {
    frozenset(members): rank
    for rank, pairings in enumerate(PAIR_TABLE, start=1)
    for members in pairings
}
SUPREME = 1

Hand = tuple[str, str]


def _spots(name: str) -> int:
    low, high = name.split("-")
    return int(low) + int(high)


def _counts_as(name: str) -> list[tuple[int, int]]:
    """(numeric total, individual rank) a tile may count as when used in a hand with a tile
    other than its mate: § 621a.3(f) for the 1-2 and the 2-4, its spots otherwise."""
    if name == "1-2":
        return [(3, 17), (6, 15)]
    if name == "2-4":
        return [(6, 15), (3, 17)]
    return [(_spots(name), RANK[name])]


def value_and_top(a: str, b: str) -> tuple[int, int]:
    """Value (§ 621a.3(e), (f): the best count) and rank of the highest-ranking tile."""
    options = [
        ((ta + tb) % 10, min(ra, rb)) for ta, ra in _counts_as(a) for tb, rb in _counts_as(b)
    ]
    best = max(value for value, _ in options)
    return best, min(top for value, top in options if value == best)


def key(hand: Hand) -> tuple[int, int, int]:
    """Order of hands: greater key beats; equal keys are a copy the dealer wins.

    A pair beats any non-pair (§ 621a.3(c)), pairs by their rank; otherwise the value
    (§ 621a.3(e)), then the highest-ranking tile (§ 621a.3(g), (i)); every value 0 is
    the same (zero-zero, § 621a.3(g))."""
    rank = PAIR_RANK.get(frozenset(hand))
    if rank is not None:
        return (2, -rank, 0)
    value, top = value_and_top(*hand)
    if value == 0:
        return (0, 0, 0)
    return (1, value, -top)


def result(player: tuple[Hand, Hand], dealer: tuple[Hand, Hand]) -> str:
    """§ 621a.8(g)-(i): win only if both hands are higher; lose if neither is."""
    high = key(player[0]) > key(dealer[0])
    low = key(player[1]) > key(dealer[1])
    if high and low:
        return "win"
    if high or low:
        return "tie"
    return "lose"


@cache
def my_house_way(tiles: tuple[str, ...], high_first: bool = False) -> tuple[Hand, Hand, str]:
    """§ 621a.8(d)(1)-(4); tiles sorted. Returns (high, low, paragraph number). Of several
    settings (2) or (3) allows, the strongest low hand, then high hand; with `high_first`
    (the option house_way_tiebreak "high_hand") the strongest high hand, then low."""
    a, b, c, d = tiles
    splits = []
    for one, other in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
        if key(other) > key(one):
            one, other = other, one
        splits.append((one, other))

    def strongest(settings: list[tuple[Hand, Hand]]) -> tuple[Hand, Hand]:
        if high_first:
            return max(settings, key=lambda s: (key(s[0]), key(s[1])))
        return max(settings, key=lambda s: (key(s[1]), key(s[0])))

    supreme = [s for s in splits if PAIR_RANK.get(frozenset(s[0])) == SUPREME]
    if supreme:
        return (*supreme[0], "1")
    with_pair = [s for s in splits if any(frozenset(h) in PAIR_RANK for h in s)]
    if with_pair:
        return (*strongest(with_pair), "2")
    seven_to_nine = [s for s in splits if any(value_and_top(*h)[0] >= 7 for h in s)]
    if seven_to_nine:
        return (*strongest(seven_to_nine), "3")
    by_rank = sorted(tiles, key=lambda name: RANK[name])
    outer, inner = (by_rank[0], by_rank[3]), (by_rank[1], by_rank[2])
    if key(inner) > key(outer):
        return inner, outer, "4"
    return outer, inner, "4"


def hand_kinds() -> list[tuple[str, ...]]:
    """Every four-tile hand by kinds (sorted names) that the set's copies allow."""
    return [
        combo
        for combo in combinations_with_replacement(sorted(RANK), 4)
        if all(n <= COPIES[name] for name, n in Counter(combo).items())
    ]


def _the_32_tiles() -> list[str]:
    return [name for name in sorted(RANK) for _ in range(COPIES[name])]


# ---------------------------------------------------------------------------------------
# Checks of our own implementation against values worked by hand.


def test_own_ranking_by_hand() -> None:
    """Our reference, on values of § 621a.3 worked by hand (a wrong reference would make
    every comparison below meaningless)."""
    assert sum(COPIES.values()) == 32 and len(KINDS) == 21
    assert value_and_top("1-1", "3-3") == (8, 2)  # § 621a.3(e)(1)
    assert value_and_top("5-6", "1-6") == (8, 8)  # § 621a.3(e)(2)
    assert value_and_top("1-2", "6-6") == (8, 1)  # 1-2 counts 6: 18
    assert value_and_top("2-4", "1-4") == (8, 16)  # 2-4 counts 3 and ranks 17th
    assert key(("1-2", "2-4")) > key(("6-6", "6-6")) > key(("1-1", "4-4")) > key(("6-6", "1-6"))
    assert key(("1-3", "1-5")) == key(("5-6", "4-5"))  # zero-zero
    assert key(("4-5", "2-6")) == key(("3-6", "3-5"))  # copy: both topped by a Nine
    assert my_house_way(("1-3", "1-5", "4-6", "5-5"))[2] == "4"
    high, low, paragraph = my_house_way(("1-1", "3-6", "4-5", "6-6"))
    # Two Wongs, the strongest low hand (the Wong of the Two), not the mixed Nines.
    assert (set(high), set(low), paragraph) == ({"4-5", "6-6"}, {"1-1", "3-6"}, "2")


def test_there_are_8130_distinct_four_tile_hands() -> None:
    """By kinds: the coefficient of x^4 in (1 + x + x^2)^11 (1 + x)^10 (eleven kinds twice,
    ten once): 880 + 275 * 10 + 66 * 45 + 11 * 120 + 210 = 8,130. Weighted by the ways
    to draw them, C(32, 4) = 35,960 hands of distinguishable tiles."""
    kinds = hand_kinds()
    assert len(kinds) == 8130
    ways = sum(prod(comb(COPIES[k], n) for k, n in Counter(h).items()) for h in kinds)
    assert ways == comb(32, 4) == 35960


# ---------------------------------------------------------------------------------------
# (a) The engine's house way against ours on every hand.


@pytest.mark.parametrize("tiebreak", ["low_hand", "high_hand"])
def test_621a_8_d_house_way_equals_ours_on_every_hand(tiebreak: str) -> None:
    """58 Pa. Code § 621a.8(d): for each of the 8,130 hands, the engine's setting uses the
    four tiles, follows the same paragraph, and has a high and a low hand as strong as
    ours (judged by our ranking), the high hand not below the low hand; under either
    `house_way_tiebreak` (Pai Gow reading 6)."""
    disagreements = []
    for hand in hand_kinds():
        mine_high, mine_low, paragraph = my_house_way(hand, tiebreak == "high_hand")
        setting = house_way([parse_tile(name) for name in hand], tiebreak)
        high = tuple(str(t) for t in setting.high)
        low = tuple(str(t) for t in setting.low)
        if sorted((*high, *low)) != list(hand):
            disagreements.append((hand, "tiles", high, low))
        elif (key(high), key(low)) != (key(mine_high), key(mine_low)):
            disagreements.append((hand, (high, low), (mine_high, mine_low)))
        elif setting.rule != f"621a.8(d)({paragraph})":
            disagreements.append((hand, setting.rule, paragraph))
    assert disagreements == [], f"{len(disagreements)} hands differ, e.g. {disagreements[:5]}"


# ---------------------------------------------------------------------------------------
# (b) Fixed player hands against all 20,475 dealer hands.

FIXED_HANDS = {
    # § 621a.8(d)(1): the Supreme Pair high, 1-1 + 5-6 (13, value 3) low.
    "supreme_pair": (("1-2", "2-4", "1-1", "5-6"), (("1-2", "2-4"), ("1-1", "5-6"))),
    # (d)(2): the Wong 6-6 + 4-5 high, 1-3 + 2-2 (8) low.
    "wong": (("6-6", "4-5", "1-3", "2-2"), (("6-6", "4-5"), ("1-3", "2-2"))),
    # (d)(4): no pair, no 7, 8 or 9: 1-3 + 1-5 and 5-5 + 4-6, both value 0.
    "value_zero": (("1-3", "1-5", "5-5", "4-6"), (("1-3", "1-5"), ("5-5", "4-6"))),
    # (d)(3): 1-2 + 1-1 (the 1-2 counted 6: 8) high, 5-5 + 4-6 (0) low.
    "three_as_six": (("1-2", "1-1", "5-5", "4-6"), (("1-1", "1-2"), ("5-5", "4-6"))),
    # (d)(2): a pair of Eights, 2-3 + 1-6 (12, value 2) low.
    "pair_of_eights": (("4-4", "4-4", "2-3", "1-6"), (("4-4", "4-4"), ("2-3", "1-6"))),
    # (d)(4): highest 1-6 with lowest 2-4 (value 3) low; 3-6 + 2-5 (value 6) high.
    "six_lowest": (("1-6", "3-6", "2-5", "2-4"), (("3-6", "2-5"), ("1-6", "2-4"))),
    # (d)(2): two Wongs (our reading: the strongest low hand), not the mixed Nines
    # with 6-6 + 1-1 (value 4): 6-6 + 4-5 high, 1-1 + 3-6 low.
    "two_wongs": (("6-6", "4-5", "1-1", "3-6"), (("6-6", "4-5"), ("1-1", "3-6"))),
    # (d)(3): 2-4 + 6-6 (18, value 8) high, 1-3 + 5-5 (14, value 4) low.
    "six_as_six": (("2-4", "1-3", "5-5", "6-6"), (("2-4", "6-6"), ("1-3", "5-5"))),
}


def _count_by_enumeration(player: tuple[str, ...]) -> dict[str, int]:
    """Every 4-subset of the 28 remaining tiles, told apart: C(28, 4) dealer hands."""
    rest = Counter(_the_32_tiles())
    rest.subtract(player)
    remaining = sorted(rest.elements())
    assert len(remaining) == 28
    high, low, _ = my_house_way(tuple(sorted(player)))
    counts = Counter()
    for dealer in combinations(remaining, 4):
        dealer_high, dealer_low, _ = my_house_way(dealer)  # combinations of a sorted list
        counts[result((high, low), (dealer_high, dealer_low))] += 1
    return {name: counts[name] for name in ("win", "tie", "lose")}


@pytest.mark.parametrize("name", list(FIXED_HANDS))
def test_621a_8_outcome_counts_of_a_fixed_hand(name: str) -> None:
    """58 Pa. Code § 621a.8(d), (g)-(i): the player's four tiles set the house way against
    each of the 20,475 dealer hands of the 28 other tiles, set the house way."""
    tiles, (high, low) = FIXED_HANDS[name]
    mine_high, mine_low, _ = my_house_way(tuple(sorted(tiles)))
    assert {frozenset(mine_high), frozenset(mine_low)} == {frozenset(high), frozenset(low)}
    assert key(mine_high) >= key(mine_low)
    expected = _count_by_enumeration(tiles)
    assert sum(expected.values()) == comb(28, 4) == 20475
    if key(mine_low) == (0, 0, 0):
        # A low hand of value 0 beats no low hand (zero-zero goes to the dealer): no win.
        assert expected["win"] == 0
    if name == "value_zero":
        # Both hands of value 0: neither beats anything; every deal loses.
        assert expected == {"win": 0, "tie": 0, "lose": 20475}
    assert _counts_by_inclusion_exclusion()[tuple(sorted(tiles))] == expected
    assert outcome_counts([parse_tile(t) for t in tiles]) == expected


# ---------------------------------------------------------------------------------------
# (c) The whole PAR: every deal of two four-tile hands.


def _sub_multisets(hand: Counter) -> list[tuple[tuple[str, int], ...]]:
    items = sorted(hand.items())
    return [
        tuple((k, s) for (k, _), s in zip(items, picks, strict=True) if s)
        for picks in product(*(range(n + 1) for _, n in items))
    ]


@cache
def _counts_by_inclusion_exclusion(
    high_first: bool = False,
) -> dict[tuple[str, ...], dict[str, int]]:
    """For each player hand (by kinds): the numbers of the C(28, 4) dealer hands that the
    player wins, ties and loses against.

    The dealer's four tiles must avoid the player's four (told apart). By
    inclusion-exclusion over the subsets S of the player's tiles,
        #{D from the 28 in a region} = sum over S of (-1)^|S| #{D from the 32, D ⊇ S, in it}.
    Grouping S by kinds (s), #{D ⊇ S with kinds M} = prod_k C(copies_k - s_k, m_k - s_k).
    The regions are "dealer high < player high and dealer low < player low" (win) and
    "dealer high >= player high and dealer low >= player low" (lose), each a corner of
    the plane of (dealer high, dealer low) strengths: for |s| <= 2 a table of 2-D prefix
    sums answers each at once; for |s| = 3 the few hands D ⊇ s are summed directly; for
    |s| = 4, D is the player's own hand."""
    hands = hand_kinds()
    setting = {h: my_house_way(h, high_first) for h in hands}
    levels = sorted({key(hand) for h in hands for hand in setting[h][:2]})
    index = {level: i for i, level in enumerate(levels)}
    size = len(levels)
    points = {h: (index[key(setting[h][0])], index[key(setting[h][1])]) for h in hands}

    tables: dict[tuple, list[list[int]]] = {}
    threes: dict[tuple, list[tuple[int, int, int]]] = {}
    for hand in hands:
        kinds = Counter(hand)
        high, low = points[hand]
        for s in _sub_multisets(kinds):
            taken = dict(s)
            ways = prod(
                comb(COPIES[k] - taken.get(k, 0), n - taken.get(k, 0)) for k, n in kinds.items()
            )
            if sum(taken.values()) <= 2:
                table = tables.setdefault(s, [[0] * (size + 1) for _ in range(size + 1)])
                table[high + 1][low + 1] += ways
            elif sum(taken.values()) == 3:
                threes.setdefault(s, []).append((high, low, ways))
    for table in tables.values():
        for row in range(1, size + 1):
            table[row] = list(map(add, table[row - 1], accumulate(table[row])))

    counts = {}
    for hand in hands:
        kinds = Counter(hand)
        high, low = points[hand]
        win = lose = total = 0
        for s in _sub_multisets(kinds):
            taken = sum(n for _, n in s)
            factor = (-1) ** taken * prod(comb(kinds[k], n) for k, n in s)
            if taken <= 2:
                t = tables[s]
                win += factor * t[high][low]
                lose += factor * (t[size][size] - t[high][size] - t[size][low] + t[high][low])
                total += factor * t[size][size]
            elif taken == 3:
                win += factor * sum(w for h, lo, w in threes[s] if h < high and lo < low)
                lose += factor * sum(w for h, lo, w in threes[s] if h >= high and lo >= low)
                total += factor * sum(w for _, _, w in threes[s])
            else:
                lose += factor  # the dealer holding the player's own hand: a copy both ways
                total += factor
        assert total == comb(28, 4), hand
        counts[hand] = {"win": win, "tie": total - win - lose, "lose": lose}
    return counts


@cache
def _deal_counts(high_first: bool = False) -> dict[str, int]:
    totals = Counter()
    for hand, counts in _counts_by_inclusion_exclusion(high_first).items():
        ways = prod(comb(COPIES[k], n) for k, n in Counter(hand).items())
        for name, count in counts.items():
            totals[name] += ways * count
    return dict(totals)


DEALS = comb(32, 4) * comb(28, 4)


def test_our_enumeration_covers_every_deal_once() -> None:
    """The counts add up to the 736,281,000 ordered deals, and equal a brute force run
    once outside the suite: a C loop over every pair of disjoint 4-tile hands of the 32
    tiles, with each hand's house way from a third, separately written ranking (the
    independent review of the engine; 1.5 seconds): 217,488,676 won, 293,171,208 tied,
    225,621,116 lost."""
    assert DEALS == 736_281_000
    counts = _deal_counts()
    assert sum(counts.values()) == DEALS
    assert counts == {"win": 217_488_676, "tie": 293_171_208, "lose": 225_621_116}


@pytest.fixture(scope="module")
def record() -> dict:
    document = par_document("pai_gow", {})
    assert document["game"] == "pai_gow"
    (only,) = document["wagers"]
    return only


def test_621a_8_par_record_form(record: dict) -> None:
    """One record, kind pai_gow: win pays 1 to 1 less the 5% vigorish (§ 621a.8(k)),
    19/20 per unit; a tie is returned (§ 621a.8(h)); a loss is -1 (§ 621a.8(g))."""
    assert record["kind"] == "pai_gow"
    assert [(o["name"], o["net"]) for o in record["outcomes"]] == [
        ("win", "19/20"),
        ("tie", "0"),
        ("lose", "-1"),
    ]
    probabilities = [Fraction(o["probability"]) for o in record["outcomes"]]
    assert sum(probabilities) == 1
    for p in probabilities:
        assert 0 < p < 1
        assert DEALS % p.denominator == 0, p


def test_621a_8_par_probabilities_equal_our_enumeration(record: dict) -> None:
    """Each outcome's probability is our count over the 736,281,000 deals, and the house
    edge is minus the expected net: lose - 19/20 win."""
    counts = _deal_counts()
    assert {o["name"]: Fraction(o["probability"]) for o in record["outcomes"]} == {
        name: Fraction(count, DEALS) for name, count in counts.items()
    }
    edge = Fraction(counts["lose"], DEALS) - Fraction(19, 20) * Fraction(counts["win"], DEALS)
    assert Fraction(record["house_edge_exact"]) == edge
    ten_places = (Decimal(edge.numerator) / Decimal(edge.denominator)).quantize(Decimal("1e-10"))
    assert record["house_edge"] == str(ten_places)  # 19,744,038.8 / 736,281,000 = 0.0268...


def test_621a_8_par_of_the_high_hand_tiebreak_equals_our_enumeration() -> None:
    """Pai Gow reading 6, option house_way_tiebreak "high_hand": the player and the dealer
    both take the strongest high hand where § 621a.8(d)(2), (3) allow several settings.
    The PAR equals our enumeration under that house way; the edge rises from 2.58% to
    2.68% (the dealer's low hand weaker more often loses him more copies of both)."""
    document = par_document("pai_gow", {"house_way_tiebreak": "high_hand"})
    assert document["options"]["house_way_tiebreak"] == "high_hand"
    (record,) = document["wagers"]
    counts = _deal_counts(high_first=True)
    assert sum(counts.values()) == DEALS
    assert {o["name"]: Fraction(o["probability"]) for o in record["outcomes"]} == {
        name: Fraction(count, DEALS) for name, count in counts.items()
    }
    edge = Fraction(counts["lose"], DEALS) - Fraction(19, 20) * Fraction(counts["win"], DEALS)
    assert Fraction(record["house_edge_exact"]) == edge
    assert Decimal("0.0268") < Decimal(record["house_edge"]) < Decimal("0.0269")
