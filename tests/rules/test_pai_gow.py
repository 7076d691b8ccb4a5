"""Pai Gow (tiles), 58 Pa. Code ch. 621a: tiles, hands, the house way, dealing, vigorish.

Every expected value is worked out by hand from the chapter's text (the Annex of
chapter 621a; struck text deleted, CAPITALS added) and the readings of the engine's
spec where the text leaves a choice:

- § 621a.3(f): a 1-2 or 2-4 used without its mate counts 3 or 6, whichever gives the
  hand the higher value, and ranks as counted (1-2 as 6: 15th; 2-4 as 3: 17th).
- § 621a.8(d)(2), (3): where several settings qualify, the one with the strongest low
  hand, then the strongest high hand.
- § 621a.9(j): in a player-bank round the count begins with the bank's position.

Stacks are listed from the dealer's right (S1 is the rightmost), each top tile first.
"""

from collections import Counter
from decimal import Decimal
from itertools import combinations_with_replacement

import pytest

from games.rules.core import MalformedInput, RuleViolation, cite
from games.rules.pai_gow.dealing import (
    DEALING_STYLES,
    PLACES,
    apply_cut,
    deliver,
    places_from,
    starting_place,
)
from games.rules.pai_gow.house_way import Setting, house_way
from games.rules.pai_gow.options import describe_options, parse_options
from games.rules.pai_gow.ranking import beats, hand_strength, hand_value, pair_rank
from games.rules.pai_gow.settlement import WIN, Centre, decide, vigorish
from games.rules.pai_gow.tiles import TILE_SET, TILES, Tile, parse_tile, tile_rank
from games.rules.registry import engine_get
from games.scenario import run_scenario


def _t(name: str) -> Tile:
    return parse_tile(name)


def _hand(a: str, b: str) -> tuple[Tile, Tile]:
    return _t(a), _t(b)


def _names(tiles) -> list[str]:
    return sorted(str(t) for t in tiles)


# § 621a.3(h): the 32 tiles, their individual ranking and number in the set.

# (tile, rank, number in the set), copied from the table of § 621a.3(h).
RANK_TABLE = [
    ("6-6", 1, 2), ("1-1", 2, 2), ("4-4", 3, 2), ("1-3", 4, 2), ("5-5", 5, 2),
    ("3-3", 6, 2), ("2-2", 7, 2), ("5-6", 8, 2), ("4-6", 9, 2), ("1-6", 10, 2),
    ("1-5", 11, 2), ("3-6", 12, 1), ("4-5", 12, 1), ("2-6", 13, 1), ("3-5", 13, 1),
    ("2-5", 14, 1), ("3-4", 14, 1), ("2-4", 15, 1), ("1-4", 16, 1), ("2-3", 16, 1),
    ("1-2", 17, 1),
]  # fmt: skip


def test_621a_3_h_the_set_is_32_tiles_of_21_kinds() -> None:
    """58 Pa. Code § 621a.3(h): eleven kinds twice and ten kinds once, 22 + 10 = 32."""
    assert {str(tile): count for tile, count in TILE_SET.items()} == {
        name: count for name, _, count in RANK_TABLE
    }
    assert sum(TILE_SET.values()) == 32
    assert len(TILES) == 21
    # Every tile A-B with 1 <= A <= B <= 6 is in the set: 6 doubles + 15 others = 21.
    every = {f"{a}-{b}" for a in range(1, 7) for b in range(a, 7)}
    assert {str(tile) for tile in TILES} == every


@pytest.mark.parametrize(("name", "rank", "count"), RANK_TABLE)
def test_621a_3_h_individual_rank_of_each_tile(name: str, rank: int, count: int) -> None:
    """58 Pa. Code § 621a.3(h): the individual ranking, 6-6 first to 1-2 seventeenth."""
    tile = _t(name)
    assert tile_rank(tile) == rank
    assert TILE_SET[tile] == count
    low, high = (int(x) for x in name.split("-"))
    assert (tile.low, tile.high, str(tile)) == (low, high, name)


def test_621a_4_a_1_the_set_sorts_into_the_supreme_pair_and_15_pairs() -> None:
    """58 Pa. Code § 621a.4(a)(1), (b): the 32 tiles are 16 pairs, ranks 1 to 16 of
    § 621a.3(c) (the Supreme Pair, 11 matched pairs, 4 mixed pairs)."""
    sixteen = [
        ("1-2", "2-4"), ("6-6", "6-6"), ("1-1", "1-1"), ("4-4", "4-4"), ("1-3", "1-3"),
        ("5-5", "5-5"), ("3-3", "3-3"), ("2-2", "2-2"), ("5-6", "5-6"), ("4-6", "4-6"),
        ("1-6", "1-6"), ("1-5", "1-5"), ("3-6", "4-5"), ("3-5", "2-6"), ("3-4", "2-5"),
        ("1-4", "2-3"),
    ]  # fmt: skip
    assert [pair_rank(*_hand(a, b)) for a, b in sixteen] == list(range(1, 17))
    assert Counter(_t(name) for pair in sixteen for name in pair) == Counter(TILE_SET)


@pytest.mark.parametrize("text", ["2-1", "7-1", "1-7", "0-0", "x", "6-6 ", "66", "", 12, None])
def test_621a_3_h_a_name_that_is_not_a_tile_is_malformed(text: object) -> None:
    with pytest.raises(MalformedInput):
        parse_tile(text)


# § 621a.3(c): the permissible pairs, Wongs and Gongs, and their rank.

# Rank -> every pairing the table of § 621a.3(c) lists for it.
PAIRS: dict[int, list[tuple[str, str]]] = {
    1: [("2-4", "1-2")],  # Supreme Pair
    2: [("6-6", "6-6")],
    3: [("1-1", "1-1")],
    4: [("4-4", "4-4")],
    5: [("1-3", "1-3")],
    6: [("5-5", "5-5")],
    7: [("3-3", "3-3")],
    8: [("2-2", "2-2")],
    9: [("5-6", "5-6")],
    10: [("4-6", "4-6")],
    11: [("1-6", "1-6")],
    12: [("1-5", "1-5")],
    13: [("3-6", "4-5")],  # mixed Nines
    14: [("3-5", "2-6")],  # mixed Eights
    15: [("3-4", "2-5")],  # mixed Sevens
    16: [("1-4", "2-3")],  # mixed Fives
    17: [("6-6", "4-5"), ("6-6", "3-6")],  # Wong
    18: [("1-1", "4-5"), ("1-1", "3-6")],
    19: [("6-6", "2-6"), ("6-6", "3-5"), ("6-6", "4-4")],  # Gong
    20: [("1-1", "2-6"), ("1-1", "3-5"), ("1-1", "4-4")],
}
ALL_PAIRINGS = [(rank, a, b) for rank, members in PAIRS.items() for a, b in members]
# The best hand without a pair: value 9 (12 + 7 = 19) with the first-ranking tile.
BEST_NON_PAIR = ("6-6", "1-6")


@pytest.mark.parametrize(("rank", "a", "b"), ALL_PAIRINGS)
def test_621a_3_c_pair_rank_of_every_pairing_in_the_table(rank: int, a: str, b: str) -> None:
    """58 Pa. Code § 621a.3(c): the rank of each permissible pair, either tile first."""
    assert pair_rank(*_hand(a, b)) == rank
    assert pair_rank(*_hand(b, a)) == rank


def test_621a_3_c_only_the_pairings_of_the_table_are_pairs() -> None:
    """58 Pa. Code § 621a.3(c): 26 pairings in all; two Tens (5-5, 4-6), two Sixes
    (3-3, 1-5), 6-6 with 1-2 or 1-1 with 6-6 are no pairs."""
    listed = {frozenset((a, b)) for _, a, b in ALL_PAIRINGS}
    assert len(listed) == 26
    for a, b in combinations_with_replacement([str(t) for t in TILES], 2):
        if frozenset((a, b)) not in listed:
            assert pair_rank(*_hand(a, b)) is None, (a, b)
    for a, b in [("5-5", "4-6"), ("3-3", "1-5"), ("6-6", "1-2"), ("6-6", "1-1"), ("1-3", "2-2")]:
        assert pair_rank(*_hand(a, b)) is None


@pytest.mark.parametrize("rank", range(1, 20))
def test_621a_3_c_each_pair_beats_the_next_one_down(rank: int) -> None:
    """58 Pa. Code § 621a.3(c): the pairs rank in the order of the table."""
    for higher in PAIRS[rank]:
        for lower in PAIRS[rank + 1]:
            assert beats(_hand(*higher), _hand(*lower)), (higher, lower)
            assert not beats(_hand(*lower), _hand(*higher)), (lower, higher)
            assert hand_strength(*_hand(*higher)) > hand_strength(*_hand(*lower))


@pytest.mark.parametrize(("rank", "a", "b"), ALL_PAIRINGS)
def test_621a_3_c_every_pair_beats_the_best_hand_without_a_pair(rank: int, a: str, b: str) -> None:
    """58 Pa. Code § 621a.3(c): "A hand with a permissible pair of tiles shall rank higher
    than a hand which does not contain a permissible pair." 6-6 + 1-6 is value 9 with
    the first-ranking tile, the best hand without a pair."""
    assert hand_value(*_hand(*BEST_NON_PAIR)) == 9
    assert beats(_hand(a, b), _hand(*BEST_NON_PAIR))
    assert not beats(_hand(*BEST_NON_PAIR), _hand(a, b))


def test_621a_3_c_a_gong_that_counts_zero_is_still_a_pair() -> None:
    """58 Pa. Code § 621a.3(c): 1-1 + 4-4 (2 + 8 = 10) and 1-1 + 2-6 count zero, yet
    they are the twentieth pair and beat a 9."""
    assert pair_rank(*_hand("1-1", "4-4")) == 20
    assert beats(_hand("1-1", "4-4"), _hand("6-6", "1-6"))
    assert beats(_hand("1-1", "2-6"), _hand("6-6", "2-5"))


def test_621a_3_c_twelve_with_three_is_not_a_gong() -> None:
    """58 Pa. Code § 621a.3(c): 6-6 + 1-2 is not listed; it counts 12 + 6 = 18, a value 8,
    and loses to every Gong."""
    assert pair_rank(*_hand("6-6", "1-2")) is None
    assert hand_value(*_hand("6-6", "1-2")) == 8
    assert beats(_hand("1-1", "3-5"), _hand("6-6", "1-2"))


@pytest.mark.parametrize(
    ("hand", "copy"),
    [
        (("6-6", "4-5"), ("6-6", "3-6")),  # two Wongs of the seventeenth rank
        (("1-1", "2-6"), ("1-1", "4-4")),  # two Gongs of the twentieth rank
        (("6-6", "3-5"), ("6-6", "4-4")),  # two Gongs of the nineteenth rank
    ],
)
def test_621a_3_d_equal_pair_rank_is_a_copy_the_dealer_wins(
    hand: tuple[str, str], copy: tuple[str, str]
) -> None:
    """58 Pa. Code § 621a.3(d): hands of identical pair rank are a copy hand; the dealer or
    bank wins, so neither hand is higher than the other."""
    assert not beats(_hand(*hand), _hand(*copy))
    assert not beats(_hand(*copy), _hand(*hand))
    assert hand_strength(*_hand(*hand)) == hand_strength(*_hand(*copy))


# § 621a.3(e): the value of a hand without a pair.


def test_621a_3_e_1_two_and_six_is_a_value_8() -> None:
    """58 Pa. Code § 621a.3(e)(1): a Two (1-1) and a Six (3-3) have a value of 8."""
    assert pair_rank(*_hand("1-1", "3-3")) is None
    assert hand_value(*_hand("1-1", "3-3")) == 8


def test_621a_3_e_2_eleven_and_seven_total_18_value_8() -> None:
    """58 Pa. Code § 621a.3(e)(2): an Eleven (5-6) and a Seven (1-6) total 18, value 8."""
    assert hand_value(*_hand("5-6", "1-6")) == 8


@pytest.mark.parametrize(
    ("a", "b", "value"),
    [
        ("6-6", "1-6", 9),  # 12 + 7 = 19
        ("4-6", "5-6", 1),  # 10 + 11 = 21
        ("5-5", "4-6", 0),  # 10 + 10 = 20
        ("2-2", "2-3", 9),  # 4 + 5
        ("6-6", "5-5", 2),  # 12 + 10 = 22
        ("1-4", "3-4", 2),  # 5 + 7 = 12
    ],
)
def test_621a_3_e_value_is_the_right_digit_of_the_spots(a: str, b: str, value: int) -> None:
    """58 Pa. Code § 621a.3(e): the right digit of the total of the spots."""
    assert hand_value(*_hand(a, b)) == value


def test_621a_3_e_a_higher_value_beats_higher_tiles() -> None:
    """58 Pa. Code § 621a.3(e): without a pair, value decides first: 2-2 + 2-3 (9, top
    tile seventh) beats 6-6 + 5-6 (23, value 3, top tile first)."""
    assert beats(_hand("2-2", "2-3"), _hand("6-6", "5-6"))
    assert not beats(_hand("6-6", "5-6"), _hand("2-2", "2-3"))


# § 621a.3(f): the 1-2 and the 2-4 used separately count 3 or 6.


@pytest.mark.parametrize(
    ("a", "b", "value"),
    [
        ("1-2", "6-6", 8),  # 3 + 12 = 15 -> 5, or 6 + 12 = 18 -> 8: the 1-2 counts 6
        ("1-2", "1-1", 8),  # 5 or 8
        ("1-2", "5-6", 7),  # 14 -> 4 or 17 -> 7
        ("1-2", "1-3", 7),  # 3 + 4 = 7 or 6 + 4 = 10 -> 0: the 1-2 counts 3
        ("1-2", "4-5", 5),  # 12 -> 2 or 15 -> 5
        ("2-4", "1-3", 7),  # 6 + 4 = 10 -> 0 or 3 + 4 = 7: the 2-4 counts 3
        ("2-4", "5-5", 6),  # 16 -> 6 or 13 -> 3
        ("2-4", "6-6", 8),  # 18 -> 8 or 15 -> 5
        ("2-4", "1-4", 8),  # 11 -> 1 or 3 + 5 = 8
        ("2-4", "4-5", 5),  # 15 -> 5 or 12 -> 2
    ],
)
def test_621a_3_f_three_or_six_whichever_gives_the_higher_value(a: str, b: str, value: int) -> None:
    """58 Pa. Code § 621a.3(f): used separately, the 1-2 and the 2-4 may each count as 3
    or 6 (our reading: the count that gives the hand the higher value)."""
    assert pair_rank(*_hand(a, b)) is None
    assert hand_value(*_hand(a, b)) == value


def test_621a_3_f_three_counted_as_six_wins_on_the_first_ranking_tile() -> None:
    """58 Pa. Code § 621a.3(f), (g): 1-2 + 6-6 counts 18, a value 8 topped by the 6-6; it
    beats 5-6 + 1-6 (value 8, topped by the eighth-ranking 5-6)."""
    assert beats(_hand("1-2", "6-6"), _hand("5-6", "1-6"))
    assert not beats(_hand("5-6", "1-6"), _hand("1-2", "6-6"))


@pytest.mark.parametrize(
    ("six_as_three", "other"),
    [
        (("2-4", "1-4"), ("1-2", "2-3")),
        (("2-4", "2-3"), ("1-2", "1-4")),
    ],
)
def test_621a_3_f_six_counted_as_three_ranks_seventeenth(
    six_as_three: tuple[str, str], other: tuple[str, str]
) -> None:
    """58 Pa. Code § 621a.3(f): 2-4 + 1-4 is a value 8 only with the 2-4 counted as three,
    and then the 2-4 ranks seventeenth, not fifteenth: the hand's highest tile is the
    1-4 (sixteenth). Against 1-2 + 2-3 (8: the 1-2 counts 3, ranks 17th; highest tile
    the 2-3, sixteenth) the highest tiles are of identical rank: a copy, the dealer wins
    (§ 621a.3(i)). Were the 2-4 still fifteenth, 2-4 + 1-4 would win.

    (The 1-2 counted as six, fifteenth, is never the highest tile of its hand under our
    reading of (f): its partner would be the 2-4 (the Supreme Pair) or a Five, and
    with a Five the 1-2 counts 3 for a value 8.)"""
    assert hand_value(*_hand(*six_as_three)) == 8
    assert hand_value(*_hand(*other)) == 8
    assert not beats(_hand(*six_as_three), _hand(*other))
    assert not beats(_hand(*other), _hand(*six_as_three))
    assert hand_strength(*_hand(*six_as_three)) == hand_strength(*_hand(*other))


# § 621a.3(g), (i): equal values, the highest-ranking tile; zero-zero.


def test_621a_3_g_equal_value_the_higher_ranking_tile_wins() -> None:
    """58 Pa. Code § 621a.3(g): 6-6 + 1-5 (18, value 8, 6-6 first) beats 1-1 + 3-3 (value
    8, 1-1 second)."""
    assert hand_value(*_hand("6-6", "1-5")) == hand_value(*_hand("1-1", "3-3")) == 8
    assert beats(_hand("6-6", "1-5"), _hand("1-1", "3-3"))
    assert not beats(_hand("1-1", "3-3"), _hand("6-6", "1-5"))


def test_621a_3_i_only_the_highest_tile_is_compared() -> None:
    """58 Pa. Code § 621a.3(g), (i): 4-4 + 5-5 and 4-4 + 4-6 are both 18, value 8, and
    both topped by a 4-4: a copy hand, though the 5-5 outranks the 4-6."""
    assert not beats(_hand("4-4", "5-5"), _hand("4-4", "4-6"))
    assert not beats(_hand("4-4", "4-6"), _hand("4-4", "5-5"))


def test_621a_3_i_highest_tiles_of_identical_rank_are_a_copy() -> None:
    """58 Pa. Code § 621a.3(h), (i): 4-5 + 2-6 (17, value 7) and 3-6 + 3-5 (17, value 7)
    are both topped by a Nine, twelfth: a copy hand, the dealer wins."""
    assert not beats(_hand("4-5", "2-6"), _hand("3-6", "3-5"))
    assert not beats(_hand("3-6", "3-5"), _hand("4-5", "2-6"))


@pytest.mark.parametrize(
    ("player", "dealer"),
    [
        (("1-3", "1-5"), ("5-6", "4-5")),  # 4 + 6 = 10 against 11 + 9 = 20
        (("1-3", "3-3"), ("2-2", "1-5")),  # 10 against 10
        (("5-5", "4-6"), ("3-3", "2-2")),  # 20 against 10
    ],
)
def test_621a_3_g_zero_zero_goes_to_the_dealer_whatever_the_tiles(
    player: tuple[str, str], dealer: tuple[str, str]
) -> None:
    """58 Pa. Code § 621a.3(g): both hands of value zero are equally bad and the dealer or
    bank wins, even where the player holds the higher-ranking tile (1-3 fourth against
    5-6 eighth)."""
    assert hand_value(*_hand(*player)) == hand_value(*_hand(*dealer)) == 0
    assert not beats(_hand(*player), _hand(*dealer))
    assert not beats(_hand(*dealer), _hand(*player))


def test_621a_3_e_value_one_beats_any_value_zero() -> None:
    """58 Pa. Code § 621a.3(e), (g): 1-4 + 1-5 (11, value 1) beats 5-5 + 4-6 (value 0)
    though the 5-5 outranks both its tiles."""
    assert beats(_hand("1-4", "1-5"), _hand("5-5", "4-6"))
    assert not beats(_hand("5-5", "4-6"), _hand("1-4", "1-5"))


# § 621a.8(d): the house way.


def _house(*names: str) -> tuple[list[str], list[str], str]:
    setting = house_way([_t(n) for n in names])
    assert sorted([*setting.high, *setting.low]) == sorted(_t(n) for n in names)
    return _names(setting.high), _names(setting.low), setting.rule


def test_621a_8_d_1_the_supreme_pair_is_played_with_a_wong_beside_it() -> None:
    """58 Pa. Code § 621a.8(d)(1): 1-2, 2-4, 6-6, 3-6: the Supreme Pair high, the Wong low."""
    assert _house("6-6", "1-2", "3-6", "2-4") == (["1-2", "2-4"], ["3-6", "6-6"], "621a.8(d)(1)")


def test_621a_8_d_1_the_supreme_pair_even_when_the_low_hand_is_then_a_1() -> None:
    """58 Pa. Code § 621a.8(d)(1): 1-2, 2-4, 5-6, 5-5 is played as the Supreme Pair and
    5-6 + 5-5 (21, value 1), not as 1-2 + 5-6 (17, value 7) and 2-4 + 5-5 (16, value 6)."""
    assert _house("5-6", "2-4", "5-5", "1-2") == (["1-2", "2-4"], ["5-5", "5-6"], "621a.8(d)(1)")


def test_621a_8_d_2_a_pair_is_played_before_an_8() -> None:
    """58 Pa. Code § 621a.8(d)(2): 6-6, 6-6, 5-5, 1-2: the pair of Twelves and 5-5 + 1-2
    (10 + 6 = 16, value 6), not 6-6 + 1-2 (18, value 8) and 6-6 + 5-5 (22, value 2)."""
    assert _house("6-6", "5-5", "6-6", "1-2") == (["6-6", "6-6"], ["1-2", "5-5"], "621a.8(d)(2)")


def test_621a_8_d_2_a_wong_is_played() -> None:
    """58 Pa. Code § 621a.8(d)(2): 6-6, 4-5, 1-3, 2-2: the Wong and 1-3 + 2-2 (value 8)."""
    assert _house("1-3", "6-6", "2-2", "4-5") == (["4-5", "6-6"], ["1-3", "2-2"], "621a.8(d)(2)")


def test_621a_8_d_2_of_two_pairs_the_higher_is_the_high_hand() -> None:
    """58 Pa. Code § 621a.8(d)(2): 6-6, 6-6, 4-4, 4-4 could be two Gongs (19th); our
    reading plays the strongest low hand, the pair of Eights (4th), so the pair of
    Twelves (2nd) is the high hand."""
    assert _house("6-6", "4-4", "4-4", "6-6") == (["6-6", "6-6"], ["4-4", "4-4"], "621a.8(d)(2)")


def test_621a_8_d_2_two_gongs_over_a_pair_of_twos() -> None:
    """58 Pa. Code § 621a.8(d)(2): 1-1, 1-1, 4-4, 2-6: the pair of Twos (3rd) with 4-4 +
    2-6 (16, value 6), or two Gongs (20th, 1-1 + 4-4 and 1-1 + 2-6). Our reading: the
    strongest low hand, a Gong rather than a 6."""
    high, low, rule = _house("4-4", "1-1", "2-6", "1-1")
    assert sorted([high, low]) == [["1-1", "2-6"], ["1-1", "4-4"]]
    assert rule == "621a.8(d)(2)"


def test_621a_8_d_2_two_wongs_over_mixed_nines() -> None:
    """58 Pa. Code § 621a.8(d)(2): 6-6, 4-5, 1-1, 3-6 qualifies three ways: two Wongs
    (17th and 18th) either way round, or the mixed Nines (13th) with 6-6 + 1-1 (14,
    value 4). The strongest low hand is the Wong of the Two (18th): 6-6 and a Nine
    high, 1-1 and the other Nine low."""
    high, low, rule = _house("6-6", "4-5", "1-1", "3-6")
    assert pair_rank(*map(_t, high)) == 17 and "6-6" in high
    assert pair_rank(*map(_t, low)) == 18 and "1-1" in low
    assert rule == "621a.8(d)(2)"


def test_621a_8_d_2_equal_high_hands_the_stronger_low_hand() -> None:
    """58 Pa. Code § 621a.8(d)(2): 6-6, 4-4, 3-5, 1-5: 6-6 + 4-4 and 6-6 + 3-5 are both
    Gongs (19th). Beside them 3-5 + 1-5 (14, value 4, topped by 1-5, 11th) or 4-4 + 1-5
    (value 4, topped by 4-4, 3rd): the second is stronger. (6-6 + 1-5 and 4-4 + 3-5
    hold no pair.)"""
    assert _house("6-6", "4-4", "3-5", "1-5") == (["3-5", "6-6"], ["1-5", "4-4"], "621a.8(d)(2)")


def test_621a_8_d_3_a_7_with_a_1_rather_than_an_8_with_a_0() -> None:
    """58 Pa. Code § 621a.8(d)(3): 5-6, 1-6, 2-2, 1-5 holds no pair; 5-6 + 1-6 (18,
    value 8) and 2-2 + 1-5 (value 0), or 5-6 + 1-5 (17, value 7) and 1-6 + 2-2 (11,
    value 1). Both play a 7, 8 or 9; the stronger low hand is the 1."""
    assert _house("2-2", "1-5", "5-6", "1-6") == (["1-5", "5-6"], ["1-6", "2-2"], "621a.8(d)(3)")


def test_621a_8_d_3_the_strongest_low_hand_before_the_high_hand() -> None:
    """58 Pa. Code § 621a.8(d)(3): 6-6, 1-6, 5-5, 2-2: 6-6 + 1-6 (9) with 5-5 + 2-2 (14,
    value 4), or 1-6 + 5-5 (17, value 7) with 6-6 + 2-2 (16, value 6). Our reading
    keeps the low hand strongest: the 7 high and the 6 low."""
    assert _house("5-5", "2-2", "1-6", "6-6") == (["1-6", "5-5"], ["2-2", "6-6"], "621a.8(d)(3)")


def test_621a_8_d_3_six_counted_six_makes_the_8() -> None:
    """58 Pa. Code § 621a.8(d)(3), § 621a.3(f): 2-4, 1-3, 5-5, 6-6: 2-4 + 6-6 (18, value 8)
    with 1-3 + 5-5 (14, value 4); 2-4 + 1-3 (counted 3: value 7) with 5-5 + 6-6 (value
    2) is the weaker high hand."""
    assert _house("2-4", "1-3", "5-5", "6-6") == (["2-4", "6-6"], ["1-3", "5-5"], "621a.8(d)(3)")


def test_621a_8_d_4_highest_with_lowest_even_for_zero_zero() -> None:
    """58 Pa. Code § 621a.8(d)(4): 1-3, 1-5, 5-5, 4-6: no pair and no split makes 7, 8 or
    9 (10 + 10 -> 0 with 4 + 6 -> 0; 14 -> 4 with 16 -> 6; 16 -> 6 with 14 -> 4). The
    highest-ranking tile (1-3, 4th) goes with the lowest (1-5, 11th): two hands of
    value zero."""
    high, low, rule = _house("5-5", "1-3", "4-6", "1-5")
    assert rule == "621a.8(d)(4)"
    assert {tuple(high), tuple(low)} == {("1-3", "1-5"), ("4-6", "5-5")}
    assert hand_value(*_hand("1-3", "1-5")) == hand_value(*_hand("5-5", "4-6")) == 0


def test_621a_8_d_4_the_highest_tile_may_go_to_the_low_hand() -> None:
    """58 Pa. Code § 621a.8(d)(4): 4-4, 1-6, 2-6, 1-2: splits 15 -> 5 with 1-2 + 2-6 (4);
    16 -> 6 with 1-6 + 1-2 (3); 4-4 + 1-2 (8 + 6 = 14 -> 4) with 1-6 + 2-6 (15 -> 5).
    Highest 4-4 (3rd) with lowest 1-2 (17th) makes the low hand, 1-6 + 2-6 the high."""
    assert _house("4-4", "1-6", "2-6", "1-2") == (["1-6", "2-6"], ["1-2", "4-4"], "621a.8(d)(4)")


def test_621a_8_d_4_six_is_fifteenth_and_lowest() -> None:
    """58 Pa. Code § 621a.8(d)(4), § 621a.3(h): 1-6, 3-6, 2-5, 2-4: no pair (1-6 + 2-5 are
    no mixed Sevens), no 7, 8 or 9 (16 -> 6 with 13 -> 3; 14 -> 4 with 15 -> 5; 13 -> 3
    with 16 -> 6). Highest 1-6 (10th) with lowest 2-4 (15th): 1-6 + 2-4 (value 3) low,
    3-6 + 2-5 (value 6) high."""
    assert _house("2-5", "2-4", "3-6", "1-6") == (["2-5", "3-6"], ["1-6", "2-4"], "621a.8(d)(4)")


# § 621a.6(c), § 621a.9(j): the count for the starting place.

COUNT_FROM_DEALER = [
    (1, "dealer"), (2, "1"), (3, "2"), (4, "3"), (5, "4"), (6, "5"), (7, "6"),
    (8, "dead_hand"), (9, "dealer"), (10, "1"), (11, "2"), (12, "3"), (13, "4"),
    (14, "5"), (15, "6"), (16, "dead_hand"), (17, "dealer"), (18, "1"),
]  # fmt: skip


@pytest.mark.parametrize(("count", "place"), COUNT_FROM_DEALER)
def test_621a_6_c_starting_place_for_every_count(count: int, place: str) -> None:
    """58 Pa. Code § 621a.6(c): the dealer is number one, then positions 1 to 6 and the
    Dead Hand counterclockwise, around again."""
    assert starting_place(count) == place
    assert starting_place(count, first="dealer") == place


def test_621a_6_c_1_dice_total_nine_the_dealer_receives_the_first_stack() -> None:
    """58 Pa. Code § 621a.6(c)(1): "If the dice total nine, the dealer would receive the
    first stack of four tiles." """
    assert starting_place(9) == "dealer"


def test_621a_6_c_2_dice_total_15_the_sixth_position_receives_the_first_stack() -> None:
    """58 Pa. Code § 621a.6(c)(2): "If the dice total 15, the sixth wagering position
    would receive the first stack of four tiles." """
    assert starting_place(15) == "6"


@pytest.mark.parametrize(
    ("count", "place"),
    [
        (1, "3"), (2, "4"), (3, "5"), (4, "6"), (5, "dead_hand"), (6, "dealer"),
        (7, "1"), (8, "2"), (9, "3"), (15, "1"), (18, "4"),
    ],
)  # fmt: skip
def test_621a_9_j_the_count_begins_with_the_banks_position(count: int, place: str) -> None:
    """58 Pa. Code § 621a.9(j) (our reading): with the bank at position 3, the count
    begins there as number one and goes on counterclockwise, dealer and Dead Hand
    included."""
    assert starting_place(count, first="3") == place


def test_621a_9_j_bank_at_six_counts_dead_hand_then_dealer() -> None:
    assert [starting_place(c, first="6") for c in (1, 2, 3, 4)] == ["6", "dead_hand", "dealer", "1"]


def test_621a_6_d_places_in_dealing_order() -> None:
    """58 Pa. Code § 621a.6(d): from the starting place counterclockwise, every place."""
    assert PLACES == ("dealer", "1", "2", "3", "4", "5", "6", "dead_hand")
    assert places_from("dealer") == PLACES
    assert places_from("6") == ("6", "dead_hand", "dealer", "1", "2", "3", "4", "5")
    assert places_from("dead_hand") == ("dead_hand", "dealer", "1", "2", "3", "4", "5", "6")


# § 621a.6(d), § 621a.7(a): the ten styles of delivery.

# A legal arrangement of the 32 tiles, stacks from the dealer's right, top tile first.
STACKS = [
    ["6-6", "6-6", "5-5", "1-2"],
    ["1-1", "1-1", "4-4", "1-3"],
    ["5-6", "1-6", "2-2", "1-5"],
    ["4-4", "4-6", "2-6", "3-5"],
    ["1-3", "5-5", "3-3", "3-3"],
    ["2-2", "5-6", "4-6", "1-6"],
    ["1-5", "3-6", "4-5", "2-5"],
    ["3-4", "2-4", "1-4", "2-3"],
]

# Each delivery P1..P8 as the (stack, tile from the top) places it takes, derived from
# the words of § 621a.6(d) and § 621a.7(a)(1)-(9). "Sk[i,j]" = tiles i and j of stack k.
DELIVERIES = {
    # § 621a.6(d): the first stack from the right to the starting place, and so on.
    "standard": ["S1[0,1,2,3]", "S2[0,1,2,3]", "S3[0,1,2,3]", "S4[0,1,2,3]",
                 "S5[0,1,2,3]", "S6[0,1,2,3]", "S7[0,1,2,3]", "S8[0,1,2,3]"],
    # (a)(1): the first stack on the left to the starting place, the rest left to right.
    "house_way_from_left": ["S8[0,1,2,3]", "S7[0,1,2,3]", "S6[0,1,2,3]", "S5[0,1,2,3]",
                            "S4[0,1,2,3]", "S3[0,1,2,3]", "S2[0,1,2,3]", "S1[0,1,2,3]"],
    # (a)(2): top two of the first two stacks on the right, then the four remaining.
    "cup_say_from_right": ["S1[0,1] S2[0,1]", "S1[2,3] S2[2,3]",
                           "S3[0,1] S4[0,1]", "S3[2,3] S4[2,3]",
                           "S5[0,1] S6[0,1]", "S5[2,3] S6[2,3]",
                           "S7[0,1] S8[0,1]", "S7[2,3] S8[2,3]"],
    # (a)(3): the same from the left.
    "cup_say_from_left": ["S8[0,1] S7[0,1]", "S8[2,3] S7[2,3]",
                          "S6[0,1] S5[0,1]", "S6[2,3] S5[2,3]",
                          "S4[0,1] S3[0,1]", "S4[2,3] S3[2,3]",
                          "S2[0,1] S1[0,1]", "S2[2,3] S1[2,3]"],
    # (a)(4): the two centre stacks (4th from each side), pushed together, again.
    "jung_quat": ["S4[0,1] S5[0,1]", "S4[2,3] S5[2,3]",
                  "S3[0,1] S6[0,1]", "S3[2,3] S6[2,3]",
                  "S2[0,1] S7[0,1]", "S2[2,3] S7[2,3]",
                  "S1[0,1] S8[0,1]", "S1[2,3] S8[2,3]"],
    # (a)(5): the first stack on the right and on the left, centred, then the next two.
    "chee_yee": ["S1[0,1] S8[0,1]", "S1[2,3] S8[2,3]",
                 "S2[0,1] S7[0,1]", "S2[2,3] S7[2,3]",
                 "S3[0,1] S6[0,1]", "S3[2,3] S6[2,3]",
                 "S4[0,1] S5[0,1]", "S4[2,3] S5[2,3]"],
    # (a)(6): the top tile of each of the four stacks on the right, then of the four on
    # the left, then the tiles now on top on the right, on the left, ...
    "pin_say_from_right": ["S1[0] S2[0] S3[0] S4[0]", "S5[0] S6[0] S7[0] S8[0]",
                           "S1[1] S2[1] S3[1] S4[1]", "S5[1] S6[1] S7[1] S8[1]",
                           "S1[2] S2[2] S3[2] S4[2]", "S5[2] S6[2] S7[2] S8[2]",
                           "S1[3] S2[3] S3[3] S4[3]", "S5[3] S6[3] S7[3] S8[3]"],
    # (a)(7): the same, the left first.
    "pin_say_from_left": ["S5[0] S6[0] S7[0] S8[0]", "S1[0] S2[0] S3[0] S4[0]",
                          "S5[1] S6[1] S7[1] S8[1]", "S1[1] S2[1] S3[1] S4[1]",
                          "S5[2] S6[2] S7[2] S8[2]", "S1[2] S2[2] S3[2] S4[2]",
                          "S5[3] S6[3] S7[3] S8[3]", "S1[3] S2[3] S3[3] S4[3]"],
    # (a)(8): S1 and S2 put on top of S3 and S4; two tiles off each eight-tile stack (the
    # dragon head), then the top tile of each of the four stacks on the left (the
    # phoenix tail), alternately, until every place has four tiles.
    "dragon_head_phoenix_tail_from_right": [
        "S1[0,1] S2[0,1]", "S5[0] S6[0] S7[0] S8[0]",
        "S1[2,3] S2[2,3]", "S5[1] S6[1] S7[1] S8[1]",
        "S3[0,1] S4[0,1]", "S5[2] S6[2] S7[2] S8[2]",
        "S3[2,3] S4[2,3]", "S5[3] S6[3] S7[3] S8[3]",
    ],
    # (a)(9): the same from the left: S8 and S7 on top of S6 and S5.
    "dragon_head_phoenix_tail_from_left": [
        "S8[0,1] S7[0,1]", "S1[0] S2[0] S3[0] S4[0]",
        "S8[2,3] S7[2,3]", "S1[1] S2[1] S3[1] S4[1]",
        "S6[0,1] S5[0,1]", "S1[2] S2[2] S3[2] S4[2]",
        "S6[2,3] S5[2,3]", "S1[3] S2[3] S3[3] S4[3]",
    ],
}  # fmt: skip


def _places(delivery: str) -> set[tuple[int, int]]:
    """ "S1[0,1] S2[0,1]" -> {(1, 0), (1, 1), (2, 0), (2, 1)}."""
    out = set()
    for part in delivery.split():
        stack, tiles = part[1:].rstrip("]").split("[")
        out |= {(int(stack), int(i)) for i in tiles.split(",")}
    return out


def test_621a_7_a_ten_styles_of_delivery() -> None:
    """58 Pa. Code § 621a.6(d) and the nine styles of § 621a.7(a)(1)-(9)."""
    assert tuple(DELIVERIES) == DEALING_STYLES
    for style, deliveries in DELIVERIES.items():
        places = [_places(d) for d in deliveries]
        assert all(len(p) == 4 for p in places), style
        assert set().union(*places) == {(s, i) for s in range(1, 9) for i in range(4)}, style


@pytest.mark.parametrize("style", list(DELIVERIES))
def test_621a_7_a_each_tile_goes_to_the_delivery_the_text_names(style: str) -> None:
    """58 Pa. Code § 621a.6(d), § 621a.7(a): where each of the 32 tiles goes. The marked
    tile (the one 1-2 of the set) is moved to each place of the stacks in turn; the
    delivery that receives it must be the one the style's words give that place."""
    expected = {
        place: number
        for number, delivery in enumerate(DELIVERIES[style], start=1)
        for place in _places(delivery)
    }
    for (stack, depth), number in sorted(expected.items()):
        stacks = [[_t(n) for n in s] for s in STACKS]
        s1, d1 = 0, 3  # where the 1-2 is in STACKS
        stacks[s1][d1], stacks[stack - 1][depth] = stacks[stack - 1][depth], stacks[s1][d1]
        delivered = deliver(stacks, style)
        assert len(delivered) == 8 and all(len(d) == 4 for d in delivered)
        assert Counter(t for d in delivered for t in d) == Counter(TILE_SET)
        receiving = [i for i, d in enumerate(delivered, start=1) if _t("1-2") in d]
        assert receiving == [number], (style, f"S{stack}[{depth}]")


# § 621a.9(g): the bank's cut.


def _stack_tiles() -> list[tuple[Tile, ...]]:
    return [tuple(_t(n) for n in s) for s in STACKS]


def _after_cut(to_right: list[int], to_left: list[int]) -> list[int]:
    """The stack numbers in their new order, from the right."""
    stacks = _stack_tiles()
    cut = apply_cut(stacks, to_right, to_left)
    assert len(set(stacks)) == 8  # every stack tells itself apart
    return [stacks.index(tuple(s)) + 1 for s in cut]


@pytest.mark.parametrize(
    ("to_right", "to_left", "order"),
    [
        ([4, 5], [], [4, 5, 1, 2, 3, 6, 7, 8]),
        ([8], [], [8, 1, 2, 3, 4, 5, 6, 7]),
        ([], [2, 3], [1, 4, 5, 6, 7, 8, 2, 3]),
        ([], [1], [2, 3, 4, 5, 6, 7, 8, 1]),
        ([3, 4, 5, 6, 7], [], [3, 4, 5, 6, 7, 1, 2, 8]),
    ],
)
def test_621a_9_g_1_adjacent_stacks_to_one_end(
    to_right: list[int], to_left: list[int], order: list[int]
) -> None:
    """58 Pa. Code § 621a.9(g)(1): one or more adjacent stacks to the right or left end."""
    assert _after_cut(to_right, to_left) == order


@pytest.mark.parametrize(
    ("to_right", "to_left", "order"),
    [
        ([3], [4, 5], [3, 1, 2, 6, 7, 8, 4, 5]),
        ([5, 6], [7], [5, 6, 1, 2, 3, 4, 8, 7]),
        ([2], [3], [2, 1, 4, 5, 6, 7, 8, 3]),
    ],
)
def test_621a_9_g_2_adjacent_stacks_split_between_both_ends(
    to_right: list[int], to_left: list[int], order: list[int]
) -> None:
    """58 Pa. Code § 621a.9(g)(2): two or more adjacent stacks, at least one moved to one
    end and the others to the opposite end, each group keeping its order."""
    assert _after_cut(to_right, to_left) == order


@pytest.mark.parametrize(
    ("to_right", "to_left"),
    [
        ([], []),  # no stack moved: no cut
        ([2, 4], []),  # not adjacent
        ([2], [5]),  # the two groups are not one run of adjacent stacks
        ([0], []),
        ([9], []),
        ([3, 3], []),
        ([3], [3]),
        ([1, 2, 3, 4, 5, 6, 7, 8], []),  # all eight: nothing is cut
    ],
)
def test_621a_9_g_cuts_the_text_does_not_allow_are_refused(
    to_right: list[int], to_left: list[int]
) -> None:
    """58 Pa. Code § 621a.9(g): a cut is one run of adjacent stacks of the eight."""
    with pytest.raises(RuleViolation) as refused:
        apply_cut(_stack_tiles(), to_right, to_left)
    assert refused.value.cite == cite("621a.9(g)")


# § 621a.8(k): the vigorish.


@pytest.mark.parametrize(
    ("won", "vig"),
    [
        ("10", "0.50"),  # 5% exactly
        ("15", "0.75"),
        ("17", "1.00"),  # 0.85 rounded up to the next 25 cents
        ("1", "0.25"),  # 0.05 rounded up
        ("20", "1.00"),
        ("21", "1.25"),  # 1.05 rounded up
        ("5", "0.25"),
        ("100", "5.00"),
        ("5000", "250.00"),
        ("12.50", "0.75"),  # 0.625 rounded up
    ],
)
def test_621a_8_k_vigorish_5_percent_rounded_up_to_25_cents(won: str, vig: str) -> None:
    """58 Pa. Code § 621a.8(k): 5% of the amount won, which may be rounded off to 25 cents
    or the next highest multiple of 25 cents."""
    assert vigorish(Decimal(won)) == Decimal(vig)


def test_621a_8_k_vigorish_never_more_than_the_amount_won() -> None:
    """Spec reading of § 621a.8(k): rounding up never takes more than the amount won."""
    assert vigorish(Decimal("0.20")) == Decimal("0.20")


@pytest.mark.parametrize(
    ("won", "quarter", "cent"),
    [
        ("17", "1.00", "0.85"),  # 0.85: up to 1.00, or 0.85 as it is
        ("10.10", "0.75", "0.50"),  # 0.505: up to 0.75, or down to 0.50 (never above 5%)
        ("100", "5.00", "5.00"),  # a multiple of $5: the same either way
    ],
)
def test_621a_8_k_vigorish_rounded_off_to_25_cents_only_if_the_rules_submission_says(
    won: str, quarter: str, cent: str
) -> None:
    """58 Pa. Code § 621a.8(k): the holder "may round off the vigorish to 25 cents or the
    next highest multiple of 25 cents". `vig_rounding` "quarter" (default) rounds up;
    "cent" charges 5% exactly, down to the cent where it is a fraction of one."""
    assert vigorish(Decimal(won)) == Decimal(quarter)
    assert vigorish(Decimal(won), "quarter") == Decimal(quarter)
    assert vigorish(Decimal(won), "cent") == Decimal(cent)


def test_621a_8_k_vig_rounding_option_parsed_described_and_refused() -> None:
    """§ 621a.8(k): the default is today's (rounded up to 25 cents); every option is shown;
    anything else is malformed."""
    assert parse_options({}).vig_rounding == "quarter"
    assert describe_options(parse_options({}))["vig_rounding"] == "quarter"
    cent = parse_options({"vig_rounding": "cent"})
    assert cent.vig_rounding == "cent"
    assert describe_options(cent)["vig_rounding"] == "cent"
    with pytest.raises(MalformedInput):
        parse_options({"vig_rounding": "dollar"})


def test_621a_9_o_bank_surplus_vigorish_follows_the_vig_rounding() -> None:
    """§ 621a.9(o) charges the bank's surplus "a 5% vigorish in accordance with
    § 621a.8": $27 surplus, 5% = 1.35, rounded up to 1.50 (net 25.50) or 1.35 as it is
    (net 25.65)."""
    quarter = Centre(Decimal("27"), Decimal("0"), co_bank=False)
    cent = Centre(Decimal("27"), Decimal("0"), co_bank=False, vig_rounding="cent")
    assert (quarter.vig, quarter.bank_net) == (Decimal("1.50"), Decimal("25.50"))
    assert (cent.vig, cent.bank_net) == (Decimal("1.35"), Decimal("25.65"))


@pytest.mark.parametrize(
    ("rounding", "net", "vig"), [("quarter", "16.00", "1.00"), ("cent", "16.15", "0.85")]
)
def test_621a_8_k_a_won_round_under_each_vig_rounding(rounding: str, net: str, vig: str) -> None:
    """§ 621a.8(k), a whole round: the dealer's 5-6, 1-6, 2-2, 1-5 is set 5-6 + 1-6 (8)
    high, 2-2 + 1-5 (0) low; a $17 wager on mixed Eights and 4-4 + 4-6 (value 8) wins
    both hands: 17 less 0.85, rounded up to 1.00 by default or kept at 0.85 with "cent"."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "17", 1)]},
            {
                "deal": {
                    "dealer": ["5-6", "1-6", "2-2", "1-5"],
                    "positions": {"1": ["4-4", "4-6", "2-6", "3-5"]},
                }
            },
            {"set": {"w1": {"high": ["3-5", "2-6"], "low": ["4-4", "4-6"]}}},
            {"reveal": True},
        ],
        vig_rounding=rounding,
    )
    for step in result["steps"]:
        assert step["rejected"] == [], step
    (resolution,) = result["steps"][3]["resolutions"]
    assert (resolution["result"], resolution["net"], resolution["vig"]) == ("win", net, vig)


# Whole rounds through the scenario runner.


def _wager(wager_id: str, player: str, amount: str, spot: int) -> dict:
    return {"id": wager_id, "player": player, "kind": "pai_gow", "amount": amount, "position": spot}


def _play(steps: list[dict], **options: object) -> dict:
    return run_scenario({"format": 1, "game": "pai_gow", "options": options, "steps": steps})


def _settled(step: dict) -> list[tuple[str, str, str, str]]:
    return [(r["wager"], r["result"], r["net"], r["cite"]) for r in step["resolutions"]]


def test_the_engine_is_registered() -> None:
    assert engine_get("pai_gow").game == "pai_gow"


def test_621a_8_a_round_against_the_dealer() -> None:
    """58 Pa. Code § 621a.8(d), (g)-(k): the dealer's 5-6, 1-6, 2-2, 1-5 is set the house
    way: 5-6 + 1-6 (value 8, topped by 5-6) high, 2-2 + 1-5 (value 0) low.

    w1 (house way): pair of Twelves and 5-5 + 1-2 (value 6): both higher, wins 10 less
    vig 0.50. w2: 1-1 + 3-3 (8, topped by 1-1) beats the high; 1-3 + 3-3 (10, value 0)
    against 0 is zero-zero, the dealer's: a tie under (h)(1). w3: mixed Eights and 4-4 +
    4-6 (18, value 8): wins 17 less 1.00 (0.85 rounded up). w4: 1-4 + 2-5 (value 2) and
    4-6 + 5-5 (value 0): loses. w5: 3-6 + 2-2 (13, value 3) loses the high, 2-3 + 1-6
    (12, value 2) wins the low: a tie under (h)(2)."""
    result = _play(
        [
            {
                "wagers": [
                    _wager("w1", "p1", "10", 1),
                    _wager("w2", "p2", "15", 2),
                    _wager("w3", "p3", "17", 3),
                    _wager("w4", "p4", "5", 4),
                    _wager("w5", "p5", "25", 5),
                ]
            },
            {
                "deal": {
                    "dealer": ["5-6", "1-6", "2-2", "1-5"],
                    "positions": {
                        "1": ["6-6", "5-5", "1-2", "6-6"],
                        "2": ["1-1", "3-3", "1-3", "3-3"],
                        "3": ["4-4", "4-6", "2-6", "3-5"],
                        "4": ["4-6", "5-5", "1-4", "2-5"],
                        "5": ["3-6", "2-2", "2-3", "1-6"],
                    },
                }
            },
            {
                "set": {
                    "w1": "house_way",
                    "w2": {"high": ["1-1", "3-3"], "low": ["1-3", "3-3"]},
                    "w3": {"high": ["3-5", "2-6"], "low": ["4-4", "4-6"]},
                    "w4": {"high": ["1-4", "2-5"], "low": ["4-6", "5-5"]},
                    "w5": {"high": ["3-6", "2-2"], "low": ["2-3", "1-6"]},
                }
            },
            {"reveal": True},
        ]
    )
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert _settled(result["steps"][3]) == [
        ("w1", "win", "9.50", cite("621a.8(i)")),
        ("w2", "push", "0.00", cite("621a.8(h)(1)")),
        ("w3", "win", "16.00", cite("621a.8(i)")),
        ("w4", "lose", "-5.00", cite("621a.8(g)")),
        ("w5", "push", "0.00", cite("621a.8(h)(2)")),
    ]
    assert result["open"] == []


@pytest.mark.parametrize(
    ("dealer", "position"),
    [
        (["6-6", "6-6", "2-2", "1-5"], ["6-6", "5-5", "1-2", "4-4"]),  # three 6-6, two in a set
        (["1-2", "6-6", "2-2", "1-5"], ["6-6", "5-5", "1-2", "4-4"]),  # two 1-2, one in a set
    ],
)
def test_621a_3_h_more_copies_than_the_set_holds_is_rejected(
    dealer: list[str], position: list[str]
) -> None:
    """58 Pa. Code § 621a.3(h): the number of each tile in the set; a deal of more is refused."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1)]},
            {"deal": {"dealer": dealer, "positions": {"1": position}}},
        ]
    )
    (rejection,) = result["steps"][1]["rejected"]
    assert rejection["cite"] == cite("621a.3(h)")
    assert result["open"] == ["w1"]


def test_621a_3_h_a_tile_written_high_end_first_is_malformed() -> None:
    with pytest.raises(MalformedInput):
        _play(
            [
                {"wagers": [_wager("w1", "p1", "10", 1)]},
                {
                    "deal": {
                        "dealer": ["2-1", "6-6", "2-2", "1-5"],
                        "positions": {"1": ["6-6", "5-5", "1-3", "4-4"]},
                    }
                },
            ]
        )


def test_621a_1_a_high_hand_below_the_low_hand_is_rejected() -> None:
    """58 Pa. Code § 621a.1 (High hand, Low hand): 2-2 + 1-5 (value 0) may not be the high
    hand over 5-6 + 1-6 (value 8)."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1)]},
            {
                "deal": {
                    "dealer": ["6-6", "6-6", "5-5", "1-2"],
                    "positions": {"1": ["5-6", "1-6", "2-2", "1-5"]},
                }
            },
            {"set": {"w1": {"high": ["2-2", "1-5"], "low": ["5-6", "1-6"]}}},
            {"set": {"w1": {"high": ["5-6", "1-6"], "low": ["2-2", "1-5"]}}},
        ]
    )
    (rejection,) = result["steps"][2]["rejected"]
    assert rejection["cite"] == cite("621a.1")
    assert result["steps"][3]["rejected"] == []


def _stacks_deal(dice: list[int], style: str = "standard", **more: object) -> dict:
    return {"deal": {"stacks": STACKS, "dice": dice, "style": style, **more}}


def test_621a_6_c_2_dice_15_deal_from_the_stacks() -> None:
    """58 Pa. Code § 621a.6(c)(2), (d), (e): dice 4 + 5 + 6 = 15: position 6 gets S1, the
    Dead Hand S2, the dealer S3, position 1 S4 (positions 2 to 5 have no wager: their
    stacks go to the Dead Hand). The players' explicit settings are accepted only if
    they use the tiles dealt. Dealer: 5-6 + 1-6 (8) and 2-2 + 1-5 (0). Position 6, S1:
    pair of Twelves and 5-5 + 1-2 (6): wins. Position 1, S4: mixed Eights and 4-4 + 4-6
    (8): wins."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1), _wager("w6", "p6", "20", 6)]},
            _stacks_deal([4, 5, 6]),
            {
                "set": {
                    "w6": {"high": ["6-6", "6-6"], "low": ["5-5", "1-2"]},
                    "w1": {"high": ["2-6", "3-5"], "low": ["4-4", "4-6"]},
                }
            },
            {"reveal": True},
        ]
    )
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert _settled(result["steps"][3]) == [
        ("w1", "win", "9.50", cite("621a.8(i)")),
        ("w6", "win", "19.00", cite("621a.8(i)")),
    ]


def test_621a_7_a_1_house_way_from_the_left_deal() -> None:
    """58 Pa. Code § 621a.7(a)(1), § 621a.6(c): dice 1 + 1 + 1 = 3: position 2 first,
    receiving S8; then 3 <- S7, 4 <- S6, 5 <- S5, 6 <- S4, Dead Hand <- S3, dealer <- S2,
    1 <- S1. Dealer 1-1, 1-1, 4-4, 1-3: the pair of Twos with 4-4 + 1-3 (12, value 2),
    or the Gong 1-1 + 4-4 (20th) with 1-1 + 1-3 (6, topped by 1-1, 2nd); our reading
    of (d)(2) plays the stronger low hand, the Gong and the 6. Position 1 (S1): the
    pair of Twelves beats the Gong, but 5-5 + 1-2 is 6 topped by 5-5 (5th, the 1-2
    counted as 6 ranking 15th) and loses to the 6 topped by 1-1: a tie, (h)(1).
    Position 6 (S4): mixed Eights (14th) beat the Gong (20th) and 4-4 + 4-6 (8) beats
    the 6: a win, $20 less $1.00."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1), _wager("w6", "p6", "20", 6)]},
            _stacks_deal([1, 1, 1], "house_way_from_left"),
            {
                "set": {
                    "w1": {"high": ["6-6", "6-6"], "low": ["5-5", "1-2"]},
                    "w6": {"high": ["2-6", "3-5"], "low": ["4-4", "4-6"]},
                }
            },
            {"reveal": True},
        ]
    )
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert _settled(result["steps"][3]) == [
        ("w1", "push", "0.00", cite("621a.8(h)(1)")),
        ("w6", "win", "19.00", cite("621a.8(i)")),
    ]


def test_621a_7_a_a_style_the_rules_submission_does_not_offer_is_rejected() -> None:
    """58 Pa. Code § 621a.7(a): the alternatives only "if specified in the certificate
    holder's Rules Submission"."""
    result = _play(
        [{"wagers": [_wager("w1", "p1", "10", 1)]}, _stacks_deal([1, 1, 1], "chee_yee")],
        dealing_styles=[],
    )
    (rejection,) = result["steps"][1]["rejected"]
    assert rejection["cite"] == cite("621a.7(a)")


def test_621a_9_g_no_cut_without_a_player_bank() -> None:
    """58 Pa. Code § 621a.9(g): the cut is the bank's option."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1)]},
            _stacks_deal([1, 1, 1], cut={"to_right": [3, 4]}),
        ]
    )
    (rejection,) = result["steps"][1]["rejected"]
    assert rejection["cite"] == cite("621a.9(g)")


def test_621a_9_player_bank_cuts_counts_from_his_position_and_pays() -> None:
    """58 Pa. Code § 621a.9(g)(1), (j), (n), (o). Round 1 against the dealer; round 2 p1
    banks at position 1 with the dealer wagering 10 against him. The cut moves S3, S4 to
    the right end: S3, S4, S1, S2, S5, S6, S7, S8. Dice 3 + 3 + 3 = 9 counted from the
    bank's position (1 = position 1, ..., 7 = Dead Hand, 8 = dealer, 9 = position 1):
    position 1 (the bank) <- S3, position 2 <- S4, ..., dealer <- S8.

    The bank, S3 = 5-6, 1-6, 2-2, 1-5: 8 and 0. Position 2 (S4): mixed Eights and 4-4 +
    4-6 (8): wins 10 less 0.50. The dealer, S8 = 3-4, 2-4, 1-4, 2-3: mixed Fives and
    3-4 + 2-4 (7 + 6 = 13, value 3): wins his 10. Nothing lost to the centre; 20 of
    winners collected from the bank: the bank's net is -20."""
    round_1 = [
        {"wagers": [_wager("a1", "p1", "10", 1), _wager("a2", "p2", "10", 2)]},
        {
            "deal": {
                "dealer": ["5-6", "1-6", "2-2", "1-5"],
                "positions": {"1": ["4-4", "4-6", "2-6", "3-5"], "2": ["1-1", "1-1", "1-3", "4-4"]},
            }
        },
        {"set": {"a1": "house_way", "a2": "house_way"}},
        {"reveal": True},
    ]
    round_2 = [
        {"wagers": [_wager("b1", "p1", "10", 1), _wager("b2", "p2", "10", 2)]},
        {"bank": {"player": "p1", "co_bank": False, "chips": "100", "dealer_wager": "10"}},
        _stacks_deal([3, 3, 3], cut={"to_right": [3, 4]}),
        {
            "set": {
                "b1": {"high": ["5-6", "1-6"], "low": ["2-2", "1-5"]},
                "b2": {"high": ["2-6", "3-5"], "low": ["4-4", "4-6"]},
            }
        },
        {"reveal": True},
    ]
    result = _play(round_1 + round_2)
    for step in result["steps"]:
        assert step["rejected"] == [], step
    settled = {r["wager"]: (r["result"], r["net"]) for r in result["steps"][-1]["resolutions"]}
    assert settled == {"b1": ("lose", "-20.00"), "b2": ("win", "9.50")}


# --- Found by the independent review: refusals that once crashed, and edge cases --------


@pytest.mark.parametrize(
    ("wager", "cited"),
    [
        (_wager("w1", "p1", "3", 1), None),  # below the posted minimum ($5 by default)
        (_wager("w1", "p1", "5000.01", 1), None),  # above the posted maximum
        ({**_wager("w1", "p1", "10", 1), "kind": "field"}, cite("621a.5(a)")),
        (_wager("w1", "p1", "10.005", 1), cite("621a.5(a)")),
        (_wager("w1", "p1", "10", 7), cite("621a.2(a)")),
        (_wager("dealer", "p1", "10", 1), None),  # the set event's key for the dealer
    ],
)
def test_621a_5_a_refused_wagers_are_rejected_not_a_crash(wager: dict, cited: str | None) -> None:
    """The posted limits are the certificate holder's own: refused without a citation."""
    (step,) = _play([{"wagers": [wager]}])["steps"]
    (rejection,) = step["rejected"]
    assert rejection["wager"] == wager["id"] and rejection.get("cite") == cited


def test_621a_8_c_a_tile_of_the_dealer_shown_after_every_player_has_set_voids_nothing() -> None:
    """§ 621a.8(c): the dealer's tiles are turned over once every player has set, so an
    exposure reported then is not the irregularity of § 621a.10(e)."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1)]},
            {
                "deal": {
                    "dealer": ["1-4", "2-5", "3-6", "2-3"],
                    "positions": {"1": ["6-6", "6-6", "1-1", "1-1"]},
                }
            },
            {"set": {"w1": "house_way"}},
            {"irregularity": {"kind": "exposed_tile", "place": "dealer"}},
            {"reveal": True},
        ]
    )
    assert [r["event"] for r in result["steps"][3]["rejected"]] == [3]
    assert _settled(result["steps"][4]) == [("w1", "win", "9.50", cite("621a.8(i)"))]


def test_621a_5_d_a_players_two_hands_are_set_in_turn_whatever_the_order_of_the_keys() -> None:
    """§ 621a.5(d): the $20 hand is set before the $10 one even when the event lists the
    $10 hand first (a JSON object's keys have no order)."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1), _wager("w2", "p1", "20", 2)]},
            {
                "deal": {
                    "dealer": ["1-4", "2-5", "3-6", "2-3"],
                    "positions": {
                        "1": ["6-6", "6-6", "1-1", "1-1"],
                        "2": ["4-4", "4-4", "1-3", "1-3"],
                    },
                }
            },
            {"set": {"w1": "house_way", "w2": "house_way"}},
        ]
    )
    assert result["steps"][2]["rejected"] == []
    assert "dealer" in result["steps"][2]


def test_621a_9_g_a_cut_that_leaves_the_stacks_in_order_is_refused() -> None:
    """§ 621a.9(g)(1): moving the rightmost stack to the right end moves nothing."""
    with pytest.raises(RuleViolation):
        apply_cut(STACKS, [1], [])


# --- A generator that gives no number (docs/regulations.md, Devices) --------------------


NO_START = {"irregularity": {"kind": "no_starting_position"}}


def test_621a_6_a_1_no_number_from_the_generator_voids_the_round_before_any_tile_is_dealt():
    """§ 621a.6(a)(1): "no more bets", then the generator's number; with none, no tile can be
    dealt, so every hand is void and every wager returned (push, 0.00), the bank's too."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1), _wager("w2", "p2", "25", 4)]},
            NO_START,
            {"wagers": [_wager("w3", "p1", "10", 1)]},  # the next round takes wagers
        ],
        starting_position="rng",
    )
    assert result["steps"][1]["rejected"] == []
    assert _settled(result["steps"][1]) == [
        ("w1", "push", "0.00", cite("621a.6(a)(1)")),
        ("w2", "push", "0.00", cite("621a.6(a)(1)")),
    ]
    assert result["steps"][2]["accepted"] == ["w3"] and result["open"] == ["w3"]


def test_621a_6_a_1_once_the_tiles_are_dealt_the_void_for_no_number_is_refused():
    """The tiles dealt show the starting position was given: that round plays on (its own
    irregularities are § 621a.10's)."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1)]},
            {
                "deal": {
                    "dealer": ["1-4", "2-5", "3-6", "2-3"],
                    "positions": {"1": ["6-6", "6-6", "1-1", "1-1"]},
                }
            },
            NO_START,
            {"set": {"w1": "house_way"}},
            {"reveal": True},
        ],
        starting_position="rng",
    )
    assert result["steps"][2]["rejected"] == [
        {
            "event": 2,
            "error": "The tiles are dealt: the starting position was given",
            "cite": cite("621a.6(a)(1)"),
        }
    ]
    assert _settled(result["steps"][4]) == [("w1", "win", "9.50", cite("621a.8(i)"))]


def test_621a_10_a_a_shaker_table_has_no_generator_to_fail():
    """With the Pai Gow shaker giving the start (§ 621a.6(a)(2)), a bad throw is a "no roll"
    and the dealer shakes again (§ 621a.10(a), (b)); nothing is voided."""
    result = _play([{"wagers": [_wager("w1", "p1", "10", 1)]}, NO_START])
    (rejection,) = result["steps"][1]["rejected"]
    assert rejection["cite"] == cite("621a.10(a)") and "no roll" in rejection["error"]
    assert result["steps"][1]["resolutions"] == [] and result["open"] == ["w1"]


# --- The silent readings of docs/regulations.md, each tested where it decides -----------

# Hands used below, each worked out once (§ 621a.8(d) for the house way):
# 4-6 1-5 2-2 3-4: no pair; only 4-6 + 3-4 (17) makes a 7: (d)(3), 7 high, 1-5 + 2-2 (0) low.
# 6-6 6-6 5-5 4-6: the pair of Twelves high (d)(2), 5-5 + 4-6 (20, value 0) low.
# 3-3 2-2 1-4 1-6: no pair, no 7, 8 or 9; (d)(4) 3-3 (6th) with 1-4 (16th).
# 1-1 1-1 5-6 2-6: the pair of Twos high, 5-6 + 2-6 (19, value 9) low.
SEVEN_ZERO = ["4-6", "1-5", "2-2", "3-4"]
TWELVES_ZERO = ["6-6", "6-6", "5-5", "4-6"]
TWO_ZERO = ["3-3", "2-2", "1-4", "1-6"]
TWOS_NINE = ["1-1", "1-1", "5-6", "2-6"]


def _round_against_dealer(*wagers: dict) -> list[dict]:
    """A round with no player bank: the wagers at positions 1 to 3, dealt TWELVES_ZERO to the
    dealer and SEVEN_ZERO, TWO_ZERO, TWOS_NINE to positions 1, 2, 3, set the house way."""
    hands = {"1": SEVEN_ZERO, "2": TWO_ZERO, "3": TWOS_NINE}
    spots = {str(w["position"]) for w in wagers}
    return [
        {"wagers": list(wagers)},
        {"deal": {"dealer": TWELVES_ZERO, "positions": {s: hands[s] for s in sorted(spots)}}},
        {"set": {w["id"]: "house_way" for w in wagers}},
        {"reveal": True},
    ]


def test_621a_8_g_a_low_pair_whose_spots_end_in_zero_is_no_value_zero() -> None:
    """Reading 4, § 621a.8(g), (h)(1) "or has a value of zero": read of hands without a pair.
    The player's low hand 5-5 + 5-5 (20 spots) is the sixth pair and 1-1 + 4-4 (10 spots)
    the twentieth; against the dealer's 4-6 + 3-4 (7) and 1-5 + 2-2 (0) both hands are
    higher: a win, not the tie (h)(1) would give a low hand "of value zero"."""
    dealer = house_way([_t(n) for n in SEVEN_ZERO])
    for low in (("5-5", "5-5"), ("1-1", "4-4")):
        player = Setting(_hand("6-6", "6-6"), _hand(*low))
        assert decide(player, dealer) == WIN, low
    # A low hand without a pair whose spots end in zero is value zero: the dealer's copy.
    assert decide(Setting(_hand("6-6", "6-6"), _hand("5-5", "4-6")), dealer).result == "push"


def test_621a_1_two_hands_of_equal_strength_may_be_set_either_way() -> None:
    """Reading 5, § 621a.1 (High hand, Low hand): 1-3 + 3-3 (10) and 2-2 + 1-5 (10) are both
    value zero, equally bad (§ 621a.3(g)); neither ranks below the other, so the player may
    call either the high hand."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1), _wager("w2", "p2", "10", 2)]},
            {
                "deal": {
                    "dealer": ["6-6", "5-6", "4-5", "2-3"],
                    "positions": {
                        "1": ["1-3", "3-3", "2-2", "1-5"],
                        "2": ["1-3", "3-3", "2-2", "1-5"],
                    },
                }
            },
            {
                "set": {
                    "w1": {"high": ["2-2", "1-5"], "low": ["1-3", "3-3"]},
                    "w2": {"high": ["1-3", "3-3"], "low": ["2-2", "1-5"]},
                }
            },
        ]
    )
    assert result["steps"][2]["rejected"] == []
    assert "dealer" in result["steps"][2]  # both set: the dealer sets his


def test_621a_8_d_the_same_tiles_of_a_class_either_way_is_the_house_way() -> None:
    """Reading 7, § 621a.10(f): the dealer's 6-6 4-5 1-1 3-6 are two Wongs whichever Nine
    goes with the 6-6 (§ 621a.3(c) seventeenth and eighteenth, copies either way): neither
    setting is reset. 6-6 + 1-1 (value 4) with the mixed Nines is reset."""
    steps = [
        {"wagers": [_wager("w1", "p1", "10", 1)]},
        {"deal": {"dealer": ["6-6", "4-5", "1-1", "3-6"], "positions": {"1": TWO_ZERO}}},
        {"set": {"w1": "house_way"}},
    ]
    for high, low, reset in (
        (["6-6", "4-5"], ["1-1", "3-6"], False),
        (["6-6", "3-6"], ["1-1", "4-5"], False),
        (["3-6", "4-5"], ["6-6", "1-1"], True),
    ):
        result = _play([*steps, {"set": {"dealer": {"high": high, "low": low}}}])
        assert result["steps"][3]["rejected"] == []
        assert ("reset" in result["steps"][3]) is reset, (high, low)


def test_621a_8_d_4_the_ranks_as_printed_or_as_counted_give_the_same_setting() -> None:
    """Reading 6, § 621a.8(d)(4), § 621a.3(f): (4) reads the ranks of § 621a.3(h) as printed
    (1-2 seventeenth, 2-4 fifteenth). Counted the other way (1-2 as six, fifteenth; 2-4
    as three, seventeenth) the highest tile with the lowest is the same on every four
    tiles (d)(4) sets: a 1-2 or 2-4 beside a Five makes an 8 (3 + 5), so (3) sets those,
    and no other tile ranks fifteenth to seventeenth."""
    reached = 0
    for combo in combinations_with_replacement(TILES, 4):
        if any(combo.count(t) > TILE_SET[t] for t in combo):
            continue
        setting = house_way(list(combo))
        if setting.rule != "621a.8(d)(4)":
            continue
        reached += 1
        hands = (frozenset(setting.high), frozenset(setting.low))
        for counted in ({_t("1-2"): 15}, {_t("2-4"): 17}, {_t("1-2"): 15, _t("2-4"): 17}):
            by_rank = sorted(combo, key=lambda t: counted.get(t, tile_rank(t)))
            assert frozenset((by_rank[0], by_rank[3])) in hands, combo
    assert reached == 379  # four-tile hands by kind that (d)(4) sets


def test_621a_6_c_a_generators_number_is_counted_round_and_round() -> None:
    """Reading 8, § 621a.6(a)(1), (c): the text sets no range for the generator's number; 100
    is counted from the dealer as one: (100 - 1) mod 8 = 3 places on, position 3. A
    number below one counts nothing and is refused."""
    deal = {"deal": {"stacks": STACKS, "rng": 100}}
    result = _play([{"wagers": [_wager("w1", "p1", "10", 3)]}, deal], starting_position="rng")
    assert result["steps"][1]["rejected"] == []
    assert result["steps"][1]["starting_place"] == "3"
    zero = {"deal": {"stacks": STACKS, "rng": 0}}
    result = _play([{"wagers": [_wager("w1", "p1", "10", 3)]}, zero], starting_position="rng")
    (rejection,) = result["steps"][1]["rejected"]
    assert rejection["cite"] == cite("621a.6(c)")


def test_621a_9_g_a_co_bank_cuts_too() -> None:
    """Reading 11, § 621a.9(g), § 621a.1 (Co-banking): a co-bank is the bank, co-banking with
    the dealer; "the bank shall have the option to cut" is his as well. Stacks 3 and 4 to
    the right end: S3, S4, S1, S2, S5, ... Dice 1 + 1 + 1 = 3 counted from the co-bank at
    position 1 (reading 9): 1 = position 1, 2 = 2, 3 = 3: position 3 receives S3 first."""
    steps = [
        *_round_against_dealer(_wager("a1", "p1", "10", 1), _wager("a3", "p3", "10", 3)),
        {"wagers": [_wager("b1", "p1", "10", 1), _wager("b3", "p3", "10", 3)]},
        {"bank": {"player": "p1", "co_bank": True, "chips": "100"}},
        _stacks_deal([1, 1, 1], cut={"to_right": [3, 4]}),
    ]
    result = _play(steps)
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert result["steps"][-1]["starting_place"] == "3"
    assert result["steps"][-1]["hands"]["3"] == STACKS[2]


def test_621a_9_c_the_bank_is_taken_by_whoever_accepts_the_offer() -> None:
    """Reading 21, § 621a.9(c): the order in which the dealer offers the bank is the floor's;
    the engine takes the acceptance as given and checks only who may bank. Position 3's
    player takes the bank though position 1's, offered first, was eligible too."""
    steps = [
        *_round_against_dealer(_wager("a1", "p1", "10", 1), _wager("a3", "p3", "10", 3)),
        {"wagers": [_wager("b1", "p1", "10", 1), _wager("b3", "p3", "10", 3)]},
        {"bank": {"player": "p3", "chips": "100"}},
    ]
    result = _play(steps)
    assert result["steps"][-1]["rejected"] == []
    assert result["steps"][-1]["bank"]["player"] == "p3"


def test_621a_9_d_1_h_a_surrendered_wager_was_placed_against_the_dealer() -> None:
    """Reading 22, § 621a.9(d)(1), (h): p1's $20 surrendered in round 1 (§ 621a.8(e)) was still
    "placed ... against the dealer": he may bank in round 2 and the dealer's wager against
    him is that $20 (his last wager against the dealer)."""
    round_1 = _round_against_dealer(
        _wager("a1", "p1", "20", 1), _wager("a2", "p2", "10", 2), _wager("a3", "p3", "10", 3)
    )
    round_1.insert(3, {"surrender": ["a1"]})
    steps = [
        *round_1,
        {"wagers": [_wager("b1", "p1", "20", 1), _wager("b3", "p3", "10", 3)]},
        {"bank": {"player": "p1", "chips": "100"}},
    ]
    result = _play(steps)
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert _settled(result["steps"][3]) == [("a1", "lose", "-20.00", cite("621a.8(e)"))]
    assert result["steps"][-1]["bank"]["dealer_wager"] == "20.00"


def test_621a_10_d_a_round_whose_every_hand_its_player_voided_was_played() -> None:
    """Reading 23, § 621a.10(d), § 621a.9(b), (d)(1): p1's only hand, a tile exposed, voided by
    him: the round was dealt and played, so round 2 is not the start of the game and his
    voided $10 was placed against the dealer: he may bank (dealer's wager 10). A round
    voided whole (§ 621a.10(c)) is not played: after it a bank is still refused."""
    voided_by_player = [
        {"wagers": [_wager("a1", "p1", "10", 1)]},
        {"deal": {"dealer": TWELVES_ZERO, "positions": {"1": SEVEN_ZERO}}},
        {"irregularity": {"kind": "exposed_tile", "place": "1", "void": True}},
    ]
    voided_whole = [*voided_by_player[:2], {"irregularity": {"kind": "wrong_positions"}}]
    round_2 = [
        {"wagers": [_wager("b1", "p1", "10", 1), _wager("b3", "p3", "10", 3)]},
        {"bank": {"player": "p1", "chips": "100"}},
    ]
    played = _play([*voided_by_player, *round_2])
    assert _settled(played["steps"][2]) == [("a1", "push", "0.00", cite("621a.10(d)"))]
    assert played["steps"][-1]["rejected"] == []
    assert played["steps"][-1]["bank"]["dealer_wager"] == "10.00"
    not_played = _play([*voided_whole, *round_2])
    (rejection,) = not_played["steps"][-1]["rejected"]
    assert rejection["cite"] == cite("621a.9(b)")


def test_621a_9_d_2_a_later_wager_the_bank_cannot_cover_is_refused() -> None:
    """Reading 13, § 621a.9(d)(2): p1 banks with $40 of chips; the dealer's wager against him
    is his round-1 $10. p3's $10 makes 20 to cover; p2's $25 would make 45 > 40: refused."""
    steps = [
        *_round_against_dealer(_wager("a1", "p1", "10", 1)),
        {"wagers": [_wager("b1", "p1", "10", 1), _wager("b3", "p3", "10", 3)]},
        {"bank": {"player": "p1", "chips": "40"}},
        {"wagers": [_wager("b2", "p2", "25", 2)]},
    ]
    result = _play(steps)
    assert result["steps"][-2]["rejected"] == []
    (rejection,) = result["steps"][-1]["rejected"]
    assert rejection["cite"] == cite("621a.9(d)(2)")


@pytest.mark.parametrize(
    ("options", "dealer_wager"), [({}, "25.00"), ({"dealer_wager_against_bank": "30"}, "30.00")]
)
def test_621a_9_h_the_dealers_wager_is_both_adjacent_wagers_or_the_submissions_amount(
    options: dict, dealer_wager: str
) -> None:
    """Reading 14, § 621a.9(h): p1 wagered $10 and $15 on positions 1 and 2 against the dealer
    in round 1; "the banker's last wager" is the two together, $25. A Rules Submission
    amount ($30) replaces it."""
    steps = [
        *_round_against_dealer(_wager("a1", "p1", "10", 1), _wager("a2", "p1", "15", 2)),
        {"wagers": [_wager("b1", "p1", "10", 1), _wager("b3", "p3", "10", 3)]},
        {"bank": {"player": "p1", "chips": "100"}},
    ]
    result = _play(steps, **options)
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert result["steps"][-1]["bank"]["dealer_wager"] == dealer_wager


def test_621a_9_o_a_surrendered_wager_goes_to_the_centre_and_the_bank_may_not_surrender() -> None:
    """Readings 15 and 17, § 621a.8(e), § 621a.9(o). Round 2, p1 banks with SEVEN_ZERO (7 / 0);
    the dealer's $10 against him: the dealer's 6-6 + 6-6 beats the 7, his 5-5 + 4-6 (0) is
    zero-zero, the bank's: a tie, returned. The bank may not surrender. p2 surrenders
    $10: it goes to the centre. p3's TWOS_NINE (pair, 9) wins $10, paid from the centre:
    nothing is left or short, the bank nets 0.00 (were the surrender not in the centre,
    the bank would pay $10)."""
    steps = [
        *_round_against_dealer(_wager("a1", "p1", "10", 1)),
        {
            "wagers": [
                _wager("b1", "p1", "10", 1),
                _wager("b2", "p2", "10", 2),
                _wager("b3", "p3", "10", 3),
            ]
        },
        {"bank": {"player": "p1", "chips": "100"}},
        {
            "deal": {
                "dealer": TWELVES_ZERO,
                "positions": {"1": SEVEN_ZERO, "2": TWO_ZERO, "3": TWOS_NINE},
            }
        },
        {"set": {"b1": "house_way", "b2": "house_way", "b3": "house_way"}},
        {"surrender": ["b1", "b2"]},
        {"reveal": True},
    ]
    result = _play(steps)
    surrender, reveal = result["steps"][-2], result["steps"][-1]
    (refused,) = surrender["rejected"]
    assert (refused["wager"], refused["cite"]) == ("b1", cite("621a.8(e)"))
    assert _settled(surrender) == [("b2", "lose", "-10.00", cite("621a.8(e)"))]
    assert reveal["dealer_wager"]["result"] == "push"
    assert reveal["centre"]["losing"] == "10.00" and reveal["centre"]["from_bank"] == "0.00"
    assert _settled(reveal) == [
        ("b3", "win", "9.50", cite("621a.8(i)")),
        ("b1", "push", "0.00", cite("621a.9(o)")),
    ]


@pytest.mark.parametrize(
    ("losing", "winning", "from_bank", "bank_share", "table_inventory", "bank_net"),
    [
        ("10.01", "0", "0.00", "5.00", "5.01", "4.75"),  # surplus 10.01: 5.005 each; vig 0.25
        ("0", "10.01", "5.00", "0.00", "-5.01", "-5.00"),  # shortfall 10.01
    ],
)
def test_621a_9_r_a_co_banks_half_cent_is_the_table_inventorys(
    losing: str, winning: str, from_bank: str, bank_share: str, table_inventory: str, bank_net: str
) -> None:
    """Reading 15, § 621a.9(r): half of an odd-cent surplus or shortfall is half a cent; the
    co-bank's half is rounded down to the cent and the table inventory takes the odd cent
    (keeps it from a surplus, pays it of a shortfall)."""
    centre = Centre(Decimal(losing), Decimal(winning), co_bank=True)
    assert centre.from_bank == Decimal(from_bank)
    assert centre.bank_share == Decimal(bank_share)
    assert centre.table_inventory == Decimal(table_inventory)
    assert centre.bank_net == Decimal(bank_net)


def test_621a_8_k_adjacent_wagers_each_pay_their_own_vigorish() -> None:
    """Reading 16, § 621a.8(k), § 621a.5(d) "played separately": p1's two $17 wagers on
    positions 1 and 2 both win against the dealer's 7 / 0 (TWOS_NINE: pair, 9; 6-6 6-6
    4-4 1-3: the Gong 6-6 + 4-4 with 6-6 + 1-3 (16, value 6), the stronger low hand).
    Each pays 0.85 rounded up to 1.00: 2.00 in all, not 5% of $34 (1.70 -> 1.75)."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "17", 1), _wager("w2", "p1", "17", 2)]},
            {
                "deal": {
                    "dealer": SEVEN_ZERO,
                    "positions": {"1": TWOS_NINE, "2": ["6-6", "6-6", "4-4", "1-3"]},
                }
            },
            {"set": {"w1": "house_way", "w2": "house_way"}},
            {"reveal": True},
        ]
    )
    for step in result["steps"]:
        assert step["rejected"] == [], step
    assert [(r["wager"], r["net"], r["vig"]) for r in result["steps"][3]["resolutions"]] == [
        ("w1", "16.00", "1.00"),
        ("w2", "16.00", "1.00"),
    ]


def test_621a_10_d_a_surrendered_wager_stays_lost_when_the_round_is_voided() -> None:
    """Reading 18, § 621a.8(e), § 621a.10(c), (d): w1 surrendered (collected) before the
    dealer is found to have dealt to the wrong positions: only w2 is returned. And a
    player may void his hand for an exposed tile only before he has set it."""
    steps = [
        {"wagers": [_wager("w1", "p1", "10", 1), _wager("w2", "p2", "10", 2)]},
        {"deal": {"dealer": TWELVES_ZERO, "positions": {"1": SEVEN_ZERO, "2": TWO_ZERO}}},
        {"set": {"w1": "house_way", "w2": "house_way"}},
        {"irregularity": {"kind": "exposed_tile", "place": "2", "void": True}},
        {"surrender": ["w1"]},
        {"irregularity": {"kind": "wrong_positions"}},
    ]
    result = _play(steps)
    (late_void,) = result["steps"][3]["rejected"]
    assert late_void["cite"] == cite("621a.10(d)")
    assert _settled(result["steps"][4]) == [("w1", "lose", "-10.00", cite("621a.8(e)"))]
    assert _settled(result["steps"][5]) == [("w2", "push", "0.00", cite("621a.10(c)"))]


def test_621a_5_d_positions_6_and_1_are_not_adjacent_and_a_position_holds_one_wager() -> None:
    """Reading 19, § 621a.5(d), § 621a.2(b)(2): positions 6 and 1 are the two ends of the
    table; a second player may not wager on a position already taken."""
    (step,) = _play(
        [
            {
                "wagers": [
                    _wager("w6", "p1", "10", 6),
                    _wager("w1", "p1", "10", 1),
                    _wager("x6", "p2", "10", 6),
                ]
            }
        ]
    )["steps"]
    assert step["accepted"] == ["w6"]
    assert [(r["wager"], r["cite"]) for r in step["rejected"]] == [
        ("w1", cite("621a.5(d)")),
        ("x6", cite("621a.2(b)(2)")),
    ]


def test_621a_defaults_offer_everything_the_chapter_allows() -> None:
    """Reading 20: with no options, player banking, co-banking, adjacent areas and all nine
    styles of § 621a.7(a); the shaker gives the start; the dealer's wager is the bank's last."""
    options = parse_options({})
    assert (options.player_banking, options.co_banking, options.adjacent_betting_areas) == (
        True,
        True,
        True,
    )
    assert options.dealing_styles == DEALING_STYLES[1:]
    assert (options.starting_position, options.dealer_wager_against_bank) == ("shaker", None)


@pytest.mark.parametrize(
    ("tiebreak", "dealer", "settled"),
    [
        (
            "low_hand",
            {"high": ["2-4", "5-6"], "low": ["2-2", "3-6"]},
            ("w1", "push", "0.00", cite("621a.8(h)(1)")),
        ),
        (
            "high_hand",
            {"high": ["2-2", "2-4"], "low": ["3-6", "5-6"]},
            ("w1", "win", "9.50", cite("621a.8(i)")),
        ),
    ],
)
def test_621a_8_d_3_the_house_way_tiebreak_of_the_rules_submission(
    tiebreak: str, dealer: dict, settled: tuple
) -> None:
    """Reading 6, option house_way_tiebreak (§ 621a.8(d)(3); the manner of setting is the
    Rules Submission's, § 621a.8(b), § 621a.9(e), § 621a.10(f)). The dealer's 3-6 2-4 5-6
    2-2 holds no pair; two splits make a 7: 2-4 + 5-6 (6 + 11 = 17, topped by the 5-6,
    8th) with 3-6 + 2-2 (13, value 3), or 2-4 + 2-2 (the 2-4 counted 3: 7, topped by the
    2-2, 7th) with 3-6 + 5-6 (20, value 0). By default the stronger low hand (the 3); with
    "high_hand" the stronger high hand (the 7 topped by the 2-2). The player's pair of
    Twelves beats either 7; his 1-1 + 5-5 (12, value 2) loses to the 3 (a tie, (h)(1)) and
    beats the 0 (a win, $10 less 0.50)."""
    result = _play(
        [
            {"wagers": [_wager("w1", "p1", "10", 1)]},
            {
                "deal": {
                    "dealer": ["3-6", "2-4", "5-6", "2-2"],
                    "positions": {"1": ["6-6", "6-6", "1-1", "5-5"]},
                }
            },
            {"set": {"w1": {"high": ["6-6", "6-6"], "low": ["1-1", "5-5"]}}},
            {"reveal": True},
        ],
        house_way_tiebreak=tiebreak,
    )
    for step in result["steps"]:
        assert step["rejected"] == [], step
    shown = result["steps"][2]["dealer"]
    assert (sorted(shown["high"]), sorted(shown["low"])) == (dealer["high"], dealer["low"])
    assert _settled(result["steps"][3]) == [settled]


def test_621a_8_d_house_way_tiebreak_option_parsed_described_and_refused() -> None:
    """Reading 6: the default is "low_hand"; every option is shown; "high_hand" changes the
    PAR; anything else is malformed."""
    assert parse_options({}).house_way_tiebreak == "low_hand"
    assert describe_options(parse_options({}))["house_way_tiebreak"] == "low_hand"
    high = parse_options({"house_way_tiebreak": "high_hand"})
    assert describe_options(high)["house_way_tiebreak"] == "high_hand"
    with pytest.raises(MalformedInput):
        parse_options({"house_way_tiebreak": "strongest"})
    tiles = [_t(n) for n in ("3-6", "2-4", "5-6", "2-2")]
    assert _names(house_way(tiles, "high_hand").high) == ["2-2", "2-4"]
    assert _names(house_way(tiles).high) == ["2-4", "5-6"]
    # How many of the 8,130 four-tile hands (by kind) the two tiebreaks set apart.
    differ = 0
    for combo in combinations_with_replacement(TILES, 4):
        if all(combo.count(t) <= TILE_SET[t] for t in combo):
            differ += house_way(combo).strengths != house_way(combo, "high_hand").strengths
    assert differ == 2092
