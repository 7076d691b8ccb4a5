"""Three Dice Football PAR sheet (§ 661a.3, § 661a.8): exact, and summing to 1.

Single play figures are counted by hand over the 216 throws; full game figures are
checked by hand where short (game lengths 1 and 2) and otherwise against a second,
independent recursion written straight from § 661a.6(c), (e).
"""

from fractions import Fraction
from functools import cache
from itertools import product

import pytest

from games.par import par_document
from games.rules.three_dice_football import ENGINE

F = Fraction


def records(raw_options: dict[str, object] | None = None) -> dict[str, dict[str, Fraction]]:
    """kind -> {outcome name: probability} under the options."""
    sheet = ENGINE.par_sheet(ENGINE.parse_options(raw_options or {}))
    return {r.kind: {o.name: o.probability for o in r.outcomes} for r in sheet}


@pytest.mark.parametrize("raw", [{}, {"min_wager": "5", "max_wager": "5000"}, {"min_wager": 1}])
def test_par_every_record_sums_to_exactly_1_under_every_option(raw):
    sheet = ENGINE.par_sheet(ENGINE.parse_options(raw))
    for record in sheet:
        assert record.total_probability == 1, record.kind


def test_par_has_one_record_per_wager_kind():
    assert list(records()) == [
        "touchdown",
        "defense",
        "extra_point",
        "quick_strike",
        "game_changer",
        "game_length:1",
        "game_length:2",
        "game_length:3",
        "game_length:4",
        "game_length:5",
        "game_length:6",
        "trips_td",
        "penalty",
        "turnover",
        "cover_three",
        "no_gain",
        "big_play",
        "over_four",
        "under_four",
    ]


# Counts over the 216 throws (green g1, g2; red r), by hand:
# pairs of green dice with total s: n(2..12) = 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1.
# Trips TD: 6. Turnover: red 6 with total 2 (1) or 3 (2) = 3.
# Total below red (penalty or turnover): red 3: 1; 4: 1+2; 5: 1+2+3; 6: 1+2+3+4 -> 20.
# Total equal to red (no gain): red 2..6: 1+2+3+4+5 = 15.
# Gain of 7 or more: red 1, s 8..12: 15; red 2, s 9..12: 10; red 3: 6; red 4: 3;
#   red 5: 1 -> 35 (no Trips TD among them: a trip gains only its face).
# Gain of 5 or more: red 1, s 6..12: 26; red 2: 21; red 3: 15; red 4: 10; red 5: 6;
#   red 6: 3 -> 81, less the trips 5-5-5 and 6-6-6 -> 79.
# Gain of 4 or more: red 1, s 5..12: 30; red 2: 26; red 3: 21; red 4: 15; red 5: 10;
#   red 6: 6 -> 108; so 3 or less (penalties and turnovers included) is 216 - 108 = 108,
#   less the trips 1-1-1, 2-2-2, 3-3-3 -> 105.
SINGLE_PLAY_WINS = {
    "trips_td": ("win 30 to 1", F(6, 216)),
    "penalty": ("win 9 to 1", F(20, 216)),
    "turnover": ("win 60 to 1", F(3, 216)),
    "cover_three": ("win 7 to 1", F(6 + 20, 216)),
    "no_gain": ("win 5 to 1", F(15 + 20, 216)),
    "big_play": ("win 4 to 1", F(35 + 6, 216)),
    "under_four": ("win 1 to 1", F(105, 216)),
}


@pytest.mark.parametrize("kind", sorted(SINGLE_PLAY_WINS))
def test_661a_3_d_single_play_wager_probabilities_by_hand(kind):
    name, probability = SINGLE_PLAY_WINS[kind]
    assert records()[kind] == {name: probability, "lose": 1 - probability}


def test_661a_3_d_7_over_four_yards_probabilities_by_hand():
    assert records()["over_four"] == {
        "win 7 to 1": F(6, 216),
        "win 1 to 1": F(79, 216),
        "lose": F(131, 216),
    }


def test_661a_8_b_single_play_house_edges_by_hand():
    sheet = {r.kind: r.house_edge for r in ENGINE.par_sheet(ENGINE.parse_options({}))}
    assert sheet["penalty"] == 1 - F(10 * 20, 216)  # 16/216
    assert sheet["no_gain"] == 1 - F(6 * 35, 216)  # 6/216
    assert sheet["over_four"] == 1 - F(2 * 79 + 8 * 6, 216)  # 10/216
    assert sheet["under_four"] == 1 - F(2 * 105, 216)  # 6/216


def test_661a_3_b_6_i_game_length_one_play_is_a_trips_td_or_turnover():
    # No gain from the 20 reaches the end zone in one play (at most 12 - 1 = 11 yards):
    # only a Trips TD (6) or a turnover (3) ends play 1: 9/216 = 1/24.
    assert records()["game_length:1"]["win 22 to 1"] == F(1, 24)


def test_661a_3_b_6_ii_game_length_two_plays_by_hand():
    # Play 1 goes on (207/216), then play 2 is a Trips TD or turnover (9/216), or the two
    # gains reach the 0 from the 20: a + b >= 20 with gains of 9 (6 throws), 10 (3) and
    # 11 (1): (9,11) 6, (10,10) 9, (10,11) 3, (11,9) 6, (11,10) 3, (11,11) 1 -> 28.
    # A gain of 9 or more on play 1 reaches the 10, so play 2 is 1st & Goal.
    assert records()["game_length:2"]["win 22 to 1"] == F(207 * 9 + 28, 216**2)


def test_661a_3_b_4_quick_strike_play_one_and_two_by_hand():
    quick_strike = records()["quick_strike"]
    assert quick_strike["win 8 to 1"] == F(6, 216)  # a Trips TD on play 1
    assert quick_strike["win 5 to 1"] == F(207 * 6 + 28, 216**2)


def test_661a_3_b_6_every_game_lasts_one_to_six_plays():
    sheet = records()
    odds = {1: "22 to 1", 2: "22 to 1", 3: "6 to 5", 4: "5 to 1", 5: "3 to 1", 6: "6 to 1"}
    assert sum(sheet[f"game_length:{n}"][f"win {odds[n]}"] for n in odds) == 1


def test_661a_3_b_1_2_touchdown_and_defense_are_complements():
    sheet = records()
    assert sheet["touchdown"]["win 1 to 1"] == sheet["defense"]["lose"]
    assert sheet["defense"]["win 4 to 5"] == sheet["touchdown"]["lose"]


def test_661a_3_b_3_extra_point_is_a_touchdown_then_the_roll_by_hand():
    # Extra point roll: exactly one 1: 3 x 25 = 75; two 1s: 3 x 5 = 15; three 1s: 1;
    # a triple other than 1s: 5. 10 to 1 pays two 1s and other triples: 20.
    scored = records()["touchdown"]["win 1 to 1"]
    assert records()["extra_point"] == {
        "win 50 to 1": scored * F(1, 216),
        "win 10 to 1": scored * F(20, 216),
        "win 1 to 1": scored * F(75, 216),
        "lose": 1 - scored * F(96, 216),
    }


# A second model of the game, written separately from the engine: a recursion over
# (yards to go, downs left in the series, 1st & Goal earned, plays so far).


def _outcomes_of_a_down():
    for g1, g2, red in product(range(1, 7), repeat=3):
        total = g1 + g2
        if g1 == g2 == red:
            yield "trips"
        elif red == 6 and total <= 3:
            yield "turnover"
        elif total < red:
            yield -1
        else:
            yield total - red


@cache
def _game(to_go: int, downs_left: int, goal: bool, plays: int) -> dict[tuple[str, int], F]:
    ends: dict[tuple[str, int], F] = {}

    def add(key, p):
        ends[key] = ends.get(key, F(0)) + p

    for outcome in _outcomes_of_a_down():
        p = F(1, 216)
        play = plays + 1
        if outcome in ("trips", "turnover"):
            add((outcome, play), p)
            continue
        yards = to_go - outcome
        if yards <= 0:
            add(("touchdown", play), p)
        elif not goal and yards <= 10:
            for key, q in _game(yards, 3, True, play).items():
                add(key, p * q)
        elif downs_left == 1:
            add(("downs", play), p)
        else:
            for key, q in _game(yards, downs_left - 1, goal, play).items():
                add(key, p * q)
    return ends


def test_par_full_game_records_agree_with_an_independent_recursion():
    ends = _game(20, 3, False, 0)
    scored = sum(p for (how, _), p in ends.items() if how in ("touchdown", "trips"))
    changer = sum(p for (how, _), p in ends.items() if how in ("trips", "turnover"))
    sheet = records()
    assert sheet["touchdown"]["win 1 to 1"] == scored
    assert sheet["game_changer"]["win 5 to 1"] == changer
    odds = {1: "22 to 1", 2: "22 to 1", 3: "6 to 5", 4: "5 to 1", 5: "3 to 1", 6: "6 to 1"}
    for n, name in odds.items():
        lasted = sum(p for (_, plays), p in ends.items() if plays == n)
        assert sheet[f"game_length:{n}"][f"win {name}"] == lasted, n
    strikes = {1: "8 to 1", 2: "5 to 1", 3: "3 to 1", 4: "1 to 1"}
    for n, name in strikes.items():
        in_n = sum(
            p for (how, plays), p in ends.items() if plays == n and how in ("touchdown", "trips")
        )
        assert sheet["quick_strike"][f"win {name}"] == in_n, n


def test_par_document_takes_command_line_strings():
    document = par_document("three_dice_football", {"min_wager": "5", "max_wager": "5000"})
    assert document["options"] == {"min_wager": "5.00", "max_wager": "5000.00"}
    by_kind = {w["kind"]: w for w in document["wagers"]}
    assert by_kind["game_length:1"]["house_edge_exact"] == "1/24"  # 1 - 23 x 1/24
    assert by_kind["no_gain"]["house_edge_exact"] == "1/36"  # 1 - 6 x 35/216 = 6/216
