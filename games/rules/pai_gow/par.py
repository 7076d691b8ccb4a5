"""Exact PAR sheet of Pai Gow: a house-way player against the dealer's house way.

Every deal of four tiles to the player and four to the dealer from the 32 is equally
likely: C(32, 4) * C(28, 4) = 736,281,000 ordered deals, tiles told apart. They are
counted by classes of tile instead. The ranking cannot tell apart the two Nines (3-6,
4-5), the two Eights (2-6, 3-5), the two Sevens (2-5, 3-4), the two Fives (1-4, 2-3), or
the 1-2 and the 2-4 used separately (each counts 3 at the 17th rank or 6 at the 15th,
§ 621a.3(f)); `tile_classes` checks that on every hand. So the set is 16 classes of two
tiles, and a four-tile hand is a multiset of classes (3,620 of them), dealt in
prod C(2, taken) ways and set the house way once. For each player hand, the dealer hands
that share no class with it are counted at once from running sums over (high, low)
strength; only those sharing a class, whose ways the player's tiles reduce, are visited.

The same `decide` rule that settles a real round decides every deal (ADR 0004).
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import comb

from games.rules.core import ParOutcome, ParRecord
from games.rules.pai_gow.house_way import LOW_HAND, house_way
from games.rules.pai_gow.options import PaiGowOptions
from games.rules.pai_gow.ranking import hand_strength
from games.rules.pai_gow.settlement import VIGORISH_RATE, decide_strengths
from games.rules.pai_gow.tiles import TILE_SET, TILES, Tile

KIND = "pai_gow"
DEALER_HANDS = comb(28, 4)  # 20,475 dealer hands once the player holds four tiles
DEALS = comb(32, 4) * DEALER_HANDS  # 736,281,000
STRENGTHS = 221  # hand strengths run 0..220 (ranking.hand_strength)
COPIES = 2  # tiles in each class


@cache
def tile_classes() -> tuple[tuple[Tile, Tile], ...]:
    """The 16 classes of two tiles the ranking treats alike, each as its two tiles."""
    groups: list[list[Tile]] = []
    for tile in TILES:
        # Alike: the same strength with every other tile, so swapping them changes no hand.
        mate = next((g for g in groups if _alike(g[0], tile)), None)
        if mate is None:
            groups.append([tile] * TILE_SET[tile])
        else:
            mate.extend([tile] * TILE_SET[tile])
    classes = tuple(tuple(group) for group in groups)
    assert all(len(c) == COPIES for c in classes) and len(classes) == 16, classes
    return classes  # type: ignore[return-value]


def _alike(a: Tile, b: Tile) -> bool:
    return all(hand_strength(a, x) == hand_strength(b, x) for x in TILES if x not in (a, b))


@dataclass(frozen=True, slots=True)
class HandClass:
    """Four tiles by class: (class, tiles taken) pairs, ways to deal them, the house way."""

    counts: tuple[tuple[int, int], ...]
    ways: int
    high: int
    low: int
    mask: int  # a bit per class held


@cache
def hand_classes(tiebreak: str = LOW_HAND) -> tuple[HandClass, ...]:
    """Every four-tile hand by classes (3,620), set the house way with `tiebreak`."""
    classes = tile_classes()
    hands = []
    for combo in combinations_with_replacement(range(len(classes)), 4):
        counts = tuple(sorted(Counter(combo).items()))
        if any(taken > COPIES for _, taken in counts):
            continue
        tiles = [tile for c, taken in counts for tile in classes[c][:taken]]
        ways = 1
        for _, taken in counts:
            ways *= comb(COPIES, taken)
        high, low = house_way(tiles, tiebreak).strengths
        mask = sum(1 << c for c, _ in counts)
        hands.append(HandClass(counts, ways, high, low, mask))
    return tuple(hands)


@cache
def _running_sums(tiebreak: str = LOW_HAND) -> list[list[int]]:
    """sums[h][l]: ways of the dealer hands from the full set with high <= h and low <= l."""
    grid = [[0] * STRENGTHS for _ in range(STRENGTHS)]
    for hand in hand_classes(tiebreak):
        grid[hand.high][hand.low] += hand.ways
    for h in range(STRENGTHS):
        row = grid[h]
        for low in range(1, STRENGTHS):
            row[low] += row[low - 1]
        if h:
            above = grid[h - 1]
            for low in range(STRENGTHS):
                row[low] += above[low]
    return grid


@cache
def _holders(tiebreak: str = LOW_HAND) -> tuple[tuple[HandClass, ...], ...]:
    """For each class, the hands that hold it."""
    holders: list[list[HandClass]] = [[] for _ in tile_classes()]
    for hand in hand_classes(tiebreak):
        for c, _ in hand.counts:
            holders[c].append(hand)
    return tuple(tuple(h) for h in holders)


def _counts_against(player: HandClass, tiebreak: str = LOW_HAND) -> Counter[str]:
    """Win, push and lose counted over the 20,475 dealer hands left by this player hand."""
    sums = _running_sums(tiebreak)
    total = sums[-1][-1]
    high, low = player.high, player.low
    # Over the full set, by strength alone: win when both dealer hands are weaker, lose
    # when neither is (decide_strengths, checked on every visited hand below).
    win = sums[high - 1][low - 1] if high and low else 0
    weaker_high = sums[high - 1][-1] if high else 0
    weaker_low = sums[-1][low - 1] if low else 0
    lose = total - weaker_high - weaker_low + win
    counts: Counter[str] = Counter(win=win, lose=lose, push=total - win - lose)
    # Dealer hands sharing a class with the player's: the full-set ways counted above
    # become the ways left once the player holds his tiles.
    held = dict(player.counts)
    seen = 0
    for c, _ in player.counts:
        for dealer in _holders(tiebreak)[c]:
            if dealer.mask & seen:
                continue  # visited through an earlier class
            ways = 1
            for d, taken in dealer.counts:
                ways *= comb(COPIES - held.get(d, 0), taken)
            counts[decide_strengths(high, low, dealer.high, dealer.low).result] += (
                ways - dealer.ways
            )
        seen |= 1 << c
    return counts


def _hand_class_of(tiles: Iterable[Tile], tiebreak: str = LOW_HAND) -> HandClass:
    index = {tile: i for i, pair in enumerate(tile_classes()) for tile in pair}
    counts = tuple(sorted(Counter(index[t] for t in tiles).items()))
    return next(hand for hand in hand_classes(tiebreak) if hand.counts == counts)


def outcome_counts(player_tiles: Iterable[Tile], tiebreak: str = LOW_HAND) -> dict[str, int]:
    """How many of the C(28, 4) dealer hands a house-way player with these tiles wins,
    ties and loses against, the dealer setting the house way too."""
    counts = _counts_against(_hand_class_of(player_tiles, tiebreak), tiebreak)
    return {"win": counts["win"], "tie": counts["push"], "lose": counts["lose"]}


@cache
def deal_counts(tiebreak: str = LOW_HAND) -> dict[str, int]:
    """Win, tie and lose over all 736,281,000 deals, both sides setting the house way."""
    totals: Counter[str] = Counter()
    for player in hand_classes(tiebreak):
        for result, count in _counts_against(player, tiebreak).items():
            totals[result] += player.ways * count
    assert sum(totals.values()) == DEALS
    return {"win": totals["win"], "tie": totals["push"], "lose": totals["lose"]}


def par_sheet(options: PaiGowOptions) -> tuple[ParRecord, ...]:
    """The Pai Gow wager: win pays 1 to 1 less the 5% vigorish, tie returned, lose.

    Per unit the vigorish is exactly 5%; rounding it up to 25 cents (§ 621a.8(k)) costs
    more on amounts that are not multiples of $5. Of the options only the house way's
    `house_way_tiebreak` changes the odds: the player and the dealer both set that way.
    """
    counts = deal_counts(options.house_way_tiebreak)
    win_net = 1 - Fraction(VIGORISH_RATE)
    outcomes = (
        ParOutcome("win", Fraction(counts["win"], DEALS), win_net),
        ParOutcome("tie", Fraction(counts["tie"], DEALS), Fraction(0)),
        ParOutcome("lose", Fraction(counts["lose"], DEALS), Fraction(-1)),
    )
    return (ParRecord(KIND, outcomes),)
