"""High Roll Dice (58 Pa. Code ch. 675a): rules worked out by hand from the text.

Payout arithmetic is shown where it is not obvious: "$5 at 4 to 1 -> 20.00".
Default options: ten dice, table minimum $5, maximum $500, payout limit $50,000.
"""

from decimal import Decimal

import pytest

from games.rules.core import MalformedInput, Wager
from games.rules.high_roll_dice import ENGINE
from games.rules.high_roll_dice.payout_limit import (
    Winning,
    apply_payout_limit,
    most_won_per_unit,
)
from games.rules.high_roll_dice.settlement import read_first_roll
from games.scenario import run_scenario


def play(steps: list[dict], **options: object) -> dict:
    """Run a High Roll Dice scenario and return the result document."""
    return run_scenario({"format": 1, "game": "high_roll_dice", "options": options, "steps": steps})


def wager(wid: str, kind: str, amount: str, player: str = "p1") -> dict:
    """One wager object in the scenario form."""
    return {"id": wid, "player": player, "kind": kind, "amount": amount}


def by_id(step: dict) -> dict[str, dict]:
    """A step's resolutions keyed by wager id."""
    return {r["wager"]: r for r in step["resolutions"]}


def rejected(step: dict) -> dict[object, dict]:
    """A step's rejections keyed by wager id or event index."""
    return {r.get("wager", r.get("event")): r for r in step["rejected"]}


# --- § 675a.2(d): die ranking -----------------------------------------------------------


def test_675a_2_d_ace_highest_then_six_five_four_three_two():
    # Every face but the ace twice: the 6 outranks 5, 4, 3 and 2.
    assert read_first_roll([2, 2, 3, 3, 4, 4, 5, 5, 6, 6]).face == 6
    # Two of each of 2..5 and two aces: the ace outranks everything.
    assert read_first_roll([2, 2, 3, 3, 4, 4, 5, 5, 1, 1]).face == 1
    # 3s against 2s: the 3 is higher.
    assert read_first_roll([2, 2, 2, 2, 3, 3, 3, 3, 4, 5]).face == 3


def test_675a_2_e_1_pip_street_tie_between_fives_and_fours_goes_to_the_fives():
    # Three 5s and three 4s: the 5 ranks higher; $10 at 4 to 1 -> 40.00.
    result = play(
        [
            {"wagers": [wager("w1", "pip:5", "10"), wager("w2", "pip:4", "10")]},
            {"throw": [5, 5, 5, 4, 4, 4, 2, 2, 3, 6]},
        ]
    )
    got = by_id(result["steps"][1])
    assert got["w1"]["result"] == "win" and got["w1"]["net"] == "40.00"
    assert got["w2"]["result"] == "lose" and got["w2"]["net"] == "-10.00"


def test_675a_5_a_pip_street_paytable_every_face():
    # $5 on each face; the leading face pays 2:6, 3:6, 4:5, 5:4, 6:4, ace:3 to 1.
    expected = {2: "30.00", 3: "30.00", 4: "25.00", 5: "20.00", 6: "20.00", 1: "15.00"}
    for face, net in expected.items():
        others = [f for f in (1, 2, 3, 4, 5, 6) if f != face]
        throw = [face] * 5 + others  # five of the face, one of each other
        result = play([{"wagers": [wager("w1", f"pip:{face}", "5")]}, {"throw": throw}])
        assert by_id(result["steps"][1])["w1"]["net"] == net, face


# --- § 675a.2(e): who may place what ------------------------------------------------------


def test_675a_2_e_1_pip_street_required_before_any_other_wager():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "like_kind:4", "5"),
                    wager("w2", "millionaire:9", "1"),
                    wager("w3", "pip:2", "5"),
                    wager("w4", "like_kind:4", "5"),
                ]
            }
        ]
    )
    step = result["steps"][0]
    assert step["accepted"] == ["w3", "w4"]
    refused = rejected(step)
    assert set(refused) == {"w1", "w2"}
    assert refused["w1"]["cite"] == "58 Pa. Code § 675a.2(e)(1)"
    assert refused["w2"]["cite"] == "58 Pa. Code § 675a.2(e)(1)"


def test_675a_2_e_2_like_kind_unequal_to_pip_street_refused():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w2", "like_kind:4", "10"),
                    wager("w3", "like_kind:5", "5"),
                ]
            }
        ]
    )
    step = result["steps"][0]
    assert step["accepted"] == ["w1", "w3"]
    refusal = rejected(step)["w2"]
    assert refusal["cite"] == "58 Pa. Code § 675a.2(e)(2)"
    assert "$5.00" in refusal["error"]


def test_675a_1_b_2_iv_pip_street_wagers_must_be_of_equal_value():
    result = play([{"wagers": [wager("w1", "pip:2", "5"), wager("w2", "pip:3", "10")]}])
    step = result["steps"][0]
    assert step["accepted"] == ["w1"]
    assert rejected(step)["w2"]["cite"] == "58 Pa. Code § 675a.1(b)(2)(iv)"


def test_675a_2_e_equal_value_is_per_player():
    # p2's $10 wagers are not bound by p1's $5.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w2", "pip:2", "10", player="p2"),
                    wager("w3", "like_kind:3", "10", player="p2"),
                ]
            }
        ]
    )
    assert result["steps"][0]["accepted"] == ["w1", "w2", "w3"]


def test_675a_2_e_3_extra_roll_without_like_kind_refused():
    result = play([{"wagers": [wager("w1", "pip:2", "5"), wager("w2", "extra_roll", "5")]}])
    refusal = rejected(result["steps"][0])["w2"]
    assert refusal["cite"] == "58 Pa. Code § 675a.2(e)(3)"
    assert "Like Kind" in refusal["error"]


def test_675a_2_e_3_extra_roll_unequal_to_like_kind_refused():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w2", "like_kind:3", "5"),
                    wager("w3", "extra_roll", "10"),
                    wager("w4", "extra_roll", "5"),
                    wager("w5", "extra_roll", "5"),
                ]
            }
        ]
    )
    step = result["steps"][0]
    assert step["accepted"] == ["w1", "w2", "w4"]
    assert rejected(step)["w3"]["cite"] == "58 Pa. Code § 675a.2(e)(3)"
    # One extra-roll sensor per betting position: a second purchase is refused.
    assert rejected(step)["w5"]["cite"] == "58 Pa. Code § 675a.1(b)(2)(v)"


def test_675a_1_b_2_one_wager_per_area_per_player():
    result = play([{"wagers": [wager("w1", "pip:2", "5"), wager("w2", "pip:2", "5")]}])
    assert rejected(result["steps"][0])["w2"]["cite"] == "58 Pa. Code § 675a.1(b)(2)(iii)"


def test_675a_2_e_4_millionaire_row_of_1_01_refused():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w2", "millionaire:9", "1.01"),
                    wager("w3", "millionaire:10", "1"),
                ]
            }
        ]
    )
    step = result["steps"][0]
    assert step["accepted"] == ["w1", "w3"]
    refusal = rejected(step)["w2"]
    assert refusal["error"] == "A Millionaire Row wager may not exceed $1."
    assert refusal["cite"] == "58 Pa. Code § 675a.2(e)(4)"


def test_675a_2_e_4_millionaire_row_is_below_the_table_minimum_by_design():
    # A wager "may not be more than $1": the $5 table minimum cannot bind it.
    result = play([{"wagers": [wager("w1", "pip:2", "5"), wager("w2", "millionaire:10", "0.25")]}])
    assert result["steps"][0]["accepted"] == ["w1", "w2"]


def test_table_minimum_and_maximum_bind_pip_street():
    result = play(
        [{"wagers": [wager("w1", "pip:2", "4.99"), wager("w2", "pip:3", "500.01")]}],
        min_wager="5",
        max_wager="500",
    )
    step = result["steps"][0]
    assert step["accepted"] == []
    assert "minimum" in rejected(step)["w1"]["error"]
    assert "maximum" in rejected(step)["w2"]["error"]


def test_unknown_kind_duplicate_id_zero_negative_and_fractional_cents_are_rejected_wagers():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w1", "pip:3", "5"),
                    wager("w2", "pip:7", "5"),
                    wager("w3", "hardway", "5"),
                    wager("w4", "pip:4", "0"),
                    wager("w5", "pip:5", "-5"),
                    wager("w6", "pip:6", "5.001"),
                    wager("w7", "no_match", "5"),
                ]
            }
        ]
    )
    step = result["steps"][0]
    assert step["accepted"] == ["w1"]
    # The duplicate w1 is rejected under its id; the first w1 stands.
    assert [r["wager"] for r in step["rejected"]] == ["w1", "w2", "w3", "w4", "w5", "w6", "w7"]
    assert result["open"] == ["w1"]


def test_675a_2_a_wagers_after_the_first_throw_are_refused():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:6", "5"),
                    wager("w2", "like_kind:5", "5"),
                    wager("w3", "extra_roll", "5"),
                ]
            },
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
            {
                "wagers": [
                    wager("w4", "pip:1", "5", player="p2"),
                    wager("w5", "extra_roll", "5"),
                ]
            },
        ]
    )
    step = result["steps"][2]
    assert step["accepted"] == []
    refused = rejected(step)
    assert refused["w4"]["cite"] == "58 Pa. Code § 675a.2(a)"
    # The lock-out after "no more bets" (§ 675a.4(a), § 675a.1(c)(2)).
    assert refused["w5"]["cite"] == "58 Pa. Code § 675a.4(a)"
    assert result["open"] == ["w2"]


def test_a_new_round_opens_after_the_round_is_settled():
    result = play(
        [
            {"wagers": [wager("w1", "pip:6", "5")]},
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
            {"wagers": [wager("w2", "pip:6", "10")]},
            {"throw": [2, 2, 2, 4, 4, 4, 6, 6, 1, 1]},
        ]
    )
    assert result["steps"][2]["accepted"] == ["w2"]
    # Three 2s and three 4s: the 4 outranks the 2, so the 6 loses.
    assert by_id(result["steps"][3])["w2"]["net"] == "-10.00"


# --- Throws the rules forbid --------------------------------------------------------------


def test_675a_3_a_throw_of_nine_dice_rejected_and_nothing_settles():
    result = play([{"wagers": [wager("w1", "pip:6", "5")]}, {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1]}])
    step = result["steps"][1]
    assert step["resolutions"] == []
    refusal = rejected(step)[1]
    assert refusal["error"] == "The throw must show 10 dice; 9 were given."
    assert refusal["cite"] == "58 Pa. Code § 675a.3(a)"
    assert result["open"] == ["w1"]


def test_675a_3_a_face_of_seven_or_zero_rejected():
    for face in (7, 0):
        result = play(
            [{"wagers": [wager("w1", "pip:6", "5")]}, {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, face]}]
        )
        refusal = rejected(result["steps"][1])[1]
        assert refusal["error"] == f"A die shows 1 to 6; {face} is not a face of a die."
        assert result["open"] == ["w1"]


def test_675a_6_e_six_dice_game_rejects_a_throw_of_ten():
    result = play([{"throw": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4]}], dice=6)
    assert rejected(result["steps"][0])[0]["cite"] == "58 Pa. Code § 675a.6(e)"


def test_675a_4_g_extra_roll_without_a_purchase_rejected():
    result = play(
        [
            {"wagers": [wager("w1", "pip:6", "5"), wager("w2", "like_kind:5", "5")]},
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
            {"extra_roll": [6, 6, 2, 3, 4, 5, 1]},
        ]
    )
    # No Extra Roll bought: the five circle lost on the first roll (§ 675a.4(f)(2)(i)).
    assert by_id(result["steps"][1])["w2"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(i)"
    refusal = rejected(result["steps"][2])[2]
    assert refusal["cite"] == "58 Pa. Code § 675a.4(g)"


def test_675a_4_g_extra_roll_with_a_face_of_seven_rejected_and_circle_still_working():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:6", "5"),
                    wager("w2", "like_kind:5", "5"),
                    wager("w3", "extra_roll", "5"),
                ]
            },
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
            {"extra_roll": [6, 6, 2, 3, 4, 5, 7]},
        ]
    )
    assert 2 in rejected(result["steps"][2])
    assert result["open"] == ["w2"]


# --- § 675a.4(f)-(h): settling the first roll and the extra roll --------------------------


def test_675a_5_b_two_of_a_kind_pays_twelve_to_one():
    # Four pairs and two singles: the aces lead with two; $5 at 12 to 1 -> 60.00.
    result = play(
        [
            {"wagers": [wager("w1", "pip:1", "5"), wager("w2", "like_kind:2", "5")]},
            {"throw": [1, 1, 2, 2, 3, 3, 4, 4, 5, 6]},
        ]
    )
    got = by_id(result["steps"][1])
    assert got["w1"]["net"] == "15.00"
    assert got["w2"]["net"] == "60.00"


def test_675a_5_b_three_to_five_rounds_down_to_the_cent():
    # $7 at 3 to 5 -> 4.20 exactly; $5.05 at 3 to 5 -> 3.03 exactly.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:6", "7"),
                    wager("w2", "like_kind:3", "7"),
                    wager("w3", "pip:6", "5.05", player="p2"),
                    wager("w4", "like_kind:3", "5.05", player="p2"),
                ]
            },
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
        ]
    )
    got = by_id(result["steps"][1])
    assert got["w2"]["net"] == "4.20"
    assert got["w4"]["net"] == "3.03"


def test_675a_6_k_one_to_two_rounds_down_to_the_cent():
    # $5.05 at 1 to 2 is 2.525, rounded down to 2.52.
    result = play(
        [
            {"wagers": [wager("w1", "pip:1", "5.05"), wager("w2", "like_kind:2", "5.05")]},
            {"throw": [1, 1, 2, 3, 4, 5]},
        ],
        dice=6,
    )
    assert by_id(result["steps"][1])["w2"]["net"] == "2.52"


def test_675a_2_e_2_nine_of_a_kind_loses_every_like_kind_circle():
    circles = [wager(f"k{k}", f"like_kind:{k}", "5") for k in range(2, 9)]
    result = play(
        [
            {"wagers": [wager("w1", "pip:4", "5"), *circles]},
            {"throw": [4, 4, 4, 4, 4, 4, 4, 4, 4, 1]},
        ]
    )
    got = by_id(result["steps"][1])
    for k in range(2, 9):
        assert got[f"k{k}"]["result"] == "lose", k
        assert got[f"k{k}"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(i)"
    assert got["w1"]["net"] == "25.00"  # $5 at 5 to 1


def test_675a_4_f_ten_of_a_kind_with_extra_roll_bought_ends_the_round():
    # Ten matching dice: every circle loses, nothing is left to re-throw (§ 675a.4(g)),
    # and the $1 Millionaire Row ten circle pays $1,000,000 (§ 675a.5(c)).
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w2", "like_kind:8", "5"),
                    wager("w3", "extra_roll", "5"),
                    wager("w4", "millionaire:9", "1"),
                    wager("w5", "millionaire:10", "1"),
                ]
            },
            {"throw": [2] * 10},
            {"wagers": [wager("w6", "pip:2", "5")]},
        ]
    )
    got = by_id(result["steps"][1])
    assert got["w3"] == {
        "wager": "w3",
        "result": "lose",
        "net": "-5.00",
        "cite": "58 Pa. Code § 675a.4(a)",
    }
    assert got["w1"]["net"] == "30.00"
    assert got["w2"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(ii)"
    assert got["w4"]["net"] == "-1.00"
    assert got["w5"]["net"] == "1000000.00"
    assert result["steps"][2]["accepted"] == ["w6"]


def test_675a_4_f_2_ii_circles_below_at_and_above_the_first_count():
    # First roll: the aces lead with two. Circle 2 wins at 12 to 1; circles 3 and 8 stay.
    # Extra roll of the 8 other dice shows one more ace: a three-of-a-kind, $5 at 6 to 1.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:1", "5"),
                    wager("w2", "like_kind:2", "5"),
                    wager("w3", "like_kind:3", "5"),
                    wager("w4", "like_kind:8", "5"),
                    wager("w5", "extra_roll", "5"),
                ]
            },
            {"throw": [1, 1, 2, 2, 3, 3, 4, 4, 5, 6]},
            {"extra_roll": [1, 2, 2, 3, 4, 5, 6, 6]},
        ]
    )
    first = result["steps"][1]
    assert [r["wager"] for r in first["resolutions"]] == ["w5", "w1", "w2"]
    assert by_id(first)["w2"]["net"] == "60.00"
    extra = by_id(result["steps"][2])
    assert extra["w3"] == {
        "wager": "w3",
        "result": "win",
        "net": "30.00",
        "cite": "58 Pa. Code § 675a.5(d)",
    }
    assert extra["w4"]["result"] == "lose" and extra["w4"]["cite"] == "58 Pa. Code § 675a.4(h)"


def test_675a_4_f_2_ii_circles_below_the_count_lose_only_for_the_extra_roll_buyer():
    # p1 bought an Extra Roll, p2 did not: p2's five circle loses on the first roll,
    # p1's stays for the extra roll.
    result = play(
        [
            {
                "wagers": [
                    wager("a1", "pip:5", "5"),
                    wager("a2", "like_kind:3", "5"),
                    wager("a3", "like_kind:5", "5"),
                    wager("a4", "extra_roll", "5"),
                    wager("b1", "pip:5", "5", player="p2"),
                    wager("b2", "like_kind:5", "5", player="p2"),
                ]
            },
            {"throw": [5, 5, 5, 5, 6, 6, 6, 1, 1, 4]},
        ]
    )
    got = by_id(result["steps"][1])
    assert got["a2"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(ii)"
    assert got["b2"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(i)"
    assert result["open"] == ["a3"]


def test_675a_4_h_extra_roll_that_reaches_nine_loses_the_eight_circle():
    # Seven aces: the seven circle pays 400 to 1 ($5 -> 2,000.00); the 3 dice re-thrown
    # show two aces, nine in all: no circle holds nine, so the eight circle loses. The
    # Millionaire Row is a first roll side bet: the nine circle lost on the first roll.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:1", "5"),
                    wager("w2", "like_kind:7", "5"),
                    wager("w3", "like_kind:8", "5"),
                    wager("w4", "extra_roll", "5"),
                    wager("w5", "millionaire:9", "1"),
                ]
            },
            {"throw": [1, 1, 1, 1, 1, 1, 1, 2, 3, 4]},
            {"extra_roll": [1, 1, 5]},
        ]
    )
    first = by_id(result["steps"][1])
    assert first["w2"]["net"] == "2000.00"
    assert first["w5"]["result"] == "lose" and first["w5"]["cite"] == "58 Pa. Code § 675a.4(f)(3)"
    extra = by_id(result["steps"][2])
    assert list(extra) == ["w3"]
    assert extra["w3"]["result"] == "lose"
    assert extra["w3"]["cite"] == "58 Pa. Code § 675a.4(h)"


def test_675a_4_h_only_dice_matching_the_boxed_face_count():
    # Three 6s boxed; the seven re-thrown dice show four 2s and one 6: four 6s in all,
    # so the four circle wins at 1 to 1 on the Extra Roll, not the five.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:6", "5"),
                    wager("w2", "like_kind:4", "5"),
                    wager("w3", "like_kind:5", "5"),
                    wager("w4", "extra_roll", "5"),
                ]
            },
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
            {"extra_roll": [2, 2, 2, 2, 6, 3, 5]},
        ]
    )
    extra = by_id(result["steps"][2])
    assert extra["w2"]["net"] == "5.00" and extra["w2"]["cite"] == "58 Pa. Code § 675a.5(d)"
    assert extra["w3"]["net"] == "-5.00"


def test_675a_4_extra_roll_rejection_names_the_dice_to_rethrow():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:6", "5"),
                    wager("w2", "like_kind:5", "5"),
                    wager("w3", "extra_roll", "5"),
                ]
            },
            {"throw": [6, 6, 6, 4, 4, 4, 2, 2, 1, 1]},
            {"extra_roll": [6, 6]},
        ]
    )
    refusal = rejected(result["steps"][2])[2]
    assert refusal["error"] == (
        "The extra roll re-throws the 7 dice other than the 3 6s in the throw box; 2 were given."
    )


# --- § 675a.5(e) and § 675a.6(l): the aggregate payout limit -------------------------------


def test_675a_5_e_payout_limit_across_several_wagers_of_one_player():
    # Eight 2s: Pip Street $10 at 6 to 1 = 60, eight circle $10 at 5,000 to 1 = 50,000;
    # 50,060 is 60 over the $50,000 limit. Shares: 60*60/50060 = 0.0719 -> 0.07 and
    # 60*50000/50060 = 59.928 -> 59.92; the leftover cent goes to the largest (59.93).
    # Nets: 60 - 0.07 = 59.93 and 50,000 - 59.93 = 49,940.07 (together 50,000.00).
    # p2 wins on the same throw and is not limited.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "10"),
                    wager("w2", "like_kind:8", "10"),
                    wager("w3", "pip:2", "5", player="p2"),
                ]
            },
            {"throw": [2, 2, 2, 2, 2, 2, 2, 2, 3, 4]},
        ],
        payout_limit="50000",
    )
    step = result["steps"][1]
    got = by_id(step)
    assert got["w1"] == {
        "wager": "w1",
        "result": "win",
        "net": "59.93",
        "cite": "58 Pa. Code § 675a.5(a)",
        "payout_limit_reduction": "0.07",
    }
    assert got["w2"]["net"] == "49940.07"
    assert got["w2"]["payout_limit_reduction"] == "59.93"
    assert got["w3"] == {
        "wager": "w3",
        "result": "win",
        "net": "30.00",
        "cite": "58 Pa. Code § 675a.5(a)",
    }
    assert step["payout_limit"] == {
        "p1": {"before": "50060.00", "limit": "50000.00", "reduction": "60.00"}
    }


def test_675a_5_e_payout_limit_not_applied_to_millionaire_row():
    # Nine 3s: Pip Street $500 at 6 to 1 = 3,000 plus the $1 nine circle, $50,000:
    # 53,000 paid, above $50,000, yet nothing is reduced: Millionaire Row is excluded.
    result = play(
        [
            {"wagers": [wager("w1", "pip:3", "500"), wager("w2", "millionaire:9", "1")]},
            {"throw": [3, 3, 3, 3, 3, 3, 3, 3, 3, 1]},
        ]
    )
    step = result["steps"][1]
    got = by_id(step)
    assert got["w1"]["net"] == "3000.00" and "payout_limit_reduction" not in got["w1"]
    assert got["w2"]["net"] == "50000.00" and "payout_limit_reduction" not in got["w2"]
    assert "payout_limit" not in step


def test_675a_5_e_payout_limit_counts_the_first_roll_and_the_extra_roll_together():
    # Seven aces: Pip Street $120 at 3 to 1 = 360 and seven circle $120 at 400 to 1 =
    # 48,000 on the first roll (48,360, under the limit). One more ace on the extra roll:
    # eight circle $120 at 50 to 1 = 6,000, and 48,360 + 6,000 = 54,360 is 4,360 over.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:1", "120"),
                    wager("w2", "like_kind:7", "120"),
                    wager("w3", "like_kind:8", "120"),
                    wager("w4", "extra_roll", "120"),
                ]
            },
            {"throw": [1, 1, 1, 1, 1, 1, 1, 2, 3, 4]},
            {"extra_roll": [1, 5, 6]},
        ],
        payout_limit="50000",
    )
    first = by_id(result["steps"][1])
    assert first["w1"]["net"] == "360.00" and first["w2"]["net"] == "48000.00"
    assert "payout_limit" not in result["steps"][1]
    extra = result["steps"][2]
    assert by_id(extra)["w3"]["net"] == "1640.00"
    assert by_id(extra)["w3"]["payout_limit_reduction"] == "4360.00"
    assert extra["payout_limit"] == {
        "p1": {"before": "54360.00", "limit": "50000.00", "reduction": "4360.00"}
    }


def test_675a_6_l_payout_limit_in_the_six_dice_game():
    # Six 2s: Pip Street $10 at 8 to 1 = 80, six circle $10 at 6,000 to 1 = 60,000;
    # 60,080 is 10,080 over $50,000. Shares: 10080*80/60080 = 13.42 (13.4221..) and
    # 10080*60000/60080 = 10066.57 (10066.5778..); leftover 0.01 to the largest.
    result = play(
        [
            {"wagers": [wager("w1", "pip:2", "10"), wager("w2", "like_kind:6", "10")]},
            {"throw": [2, 2, 2, 2, 2, 2]},
        ],
        dice=6,
        payout_limit="50000",
    )
    got = by_id(result["steps"][1])
    assert got["w1"]["payout_limit_reduction"] == "13.42"
    assert got["w2"]["payout_limit_reduction"] == "10066.58"
    assert got["w1"]["net"] == "66.58"
    assert got["w2"]["net"] == "49933.42"
    assert got["w2"]["cite"] == "58 Pa. Code § 675a.6(k)"


def test_payout_limit_spread_leftover_cents_go_to_the_largest_then_earliest():
    applied = apply_payout_limit(
        Decimal("20"),
        [
            Winning("a", "p", Decimal("10")),
            Winning("b", "p", Decimal("10")),
            Winning("c", "p", Decimal("1")),
        ],
        {"p": Decimal("0")},
    )
    # 21 won, 1 over: shares 1*10/21 = 0.476 -> 0.47, 0.47, 1/21 = 0.047 -> 0.04, so 0.02
    # is left; it all goes to the largest winnings, the earliest of the two equal ones.
    assert applied.reductions == {"a": Decimal("0.49"), "b": Decimal("0.47"), "c": Decimal("0.04")}
    assert applied.paid == {"p": Decimal("20")}


def test_no_payout_limit_when_none_established():
    result = play(
        [
            {"wagers": [wager("w1", "pip:2", "10"), wager("w2", "like_kind:8", "10")]},
            {"throw": [2, 2, 2, 2, 2, 2, 2, 2, 3, 4]},
        ],
        payout_limit="none",
    )
    assert by_id(result["steps"][1])["w2"]["net"] == "50000.00"
    assert by_id(result["steps"][1])["w1"]["net"] == "60.00"
    assert result["options"]["payout_limit"] == "none"


# --- Options ------------------------------------------------------------------------------


def test_options_defaults_described():
    # § 675a.5(e): no aggregate payout limit unless the Rules Submission specifies one.
    assert ENGINE.describe_options(ENGINE.parse_options({})) == {
        "dice": 10,
        "payout_limit": "none",
        "min_wager": "5.00",
        "max_wager": "500.00",
    }


def test_675a_5_e_payout_limit_below_the_floor_is_malformed():
    with pytest.raises(MalformedInput) as error:
        ENGINE.parse_options({"payout_limit": "49999.99"})
    assert error.value.field == "options.payout_limit"


def test_675a_5_e_limit_floor_is_the_most_won_at_the_minimum_wager_when_greater():
    # Ten dice: Pip Street on the 2 (6 to 1) and the eight circle (5,000 to 1) both win
    # on eight 2s: 5,006 units. At a $20 minimum, 100,120 > 50,000.
    assert most_won_per_unit(10) == 5006
    options = ENGINE.parse_options({"min_wager": "20", "payout_limit": "100120"})
    assert options.payout_limit == Decimal("100120")
    with pytest.raises(MalformedInput):
        ENGINE.parse_options({"min_wager": "20", "payout_limit": "100119.99"})
    # Six dice: the 2 at 8 to 1 and six of a kind at 6,000 to 1: 6,008 units.
    assert most_won_per_unit(6) == 6008
    six = {"dice": "6", "min_wager": 10}
    assert ENGINE.parse_options({**six, "payout_limit": "60080"}).payout_limit == Decimal("60080")
    with pytest.raises(MalformedInput):
        ENGINE.parse_options({**six, "payout_limit": "60079.99"})


def test_options_from_strings_and_json_values():
    a = ENGINE.parse_options({"dice": "6", "min_wager": "10", "max_wager": 1000})
    b = ENGINE.parse_options({"dice": 6, "min_wager": 10, "max_wager": "1000"})
    assert a == b
    assert a.dice == 6 and a.limits.maximum == Decimal("1000")


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"colour": "red"}, "options.colour"),
        ({"dice": 8}, "options.dice"),
        ({"dice": True}, "options.dice"),
        ({"min_wager": 5.0}, "options.min_wager"),
        ({"min_wager": "0"}, "options.min_wager"),
        ({"min_wager": "50", "max_wager": "10"}, "options.max_wager"),
    ],
)
def test_bad_options_are_malformed(raw, field):
    with pytest.raises(MalformedInput) as error:
        ENGINE.parse_options(raw)
    assert error.value.field == field


# --- Malformed events and purity ------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "field"),
    [
        ({"throw": "666"}, "steps[0].throw"),
        ({"throw": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4.0]}, "steps[0].throw"),
        ({"extra_roll": {"a": 1}}, "steps[0].extra_roll"),
        (
            {"wagers": [{"id": "w1", "player": "p1", "kind": "pip:1", "amount": 5.5}]},
            "steps[0].wagers[0].amount",
        ),
        ({"roll": [1]}, "steps[0].roll"),
    ],
)
def test_malformed_events_name_the_field(step, field):
    with pytest.raises(MalformedInput) as error:
        play([step])
    assert error.value.field == field


def test_step_leaves_the_previous_state_unchanged():
    options = ENGINE.parse_options({})
    state = ENGINE.new_state(options)
    placed, _ = ENGINE.step(
        options, state, "wagers", [{"id": "w1", "player": "p1", "kind": "pip:1", "amount": "5"}]
    )
    thrown, outcome = ENGINE.step(options, placed, "throw", [1, 1, 2, 3, 4, 5, 6, 2, 3, 4])
    assert ENGINE.open_wagers(state) == ()
    assert ENGINE.open_wagers(placed) == ("w1",)
    assert ENGINE.open_wagers(thrown) == ()
    assert outcome.resolutions[0].net == Decimal("15")  # $5 at 3 to 1
    assert isinstance(placed.wagers[0].wager, Wager)


def test_675a_4_g_nine_of_a_kind_with_extra_roll_bought_still_rethrows_the_tenth_die():
    # Nine 4s: every circle loses on the first roll (none holds nine, none can win later),
    # yet the dealer still re-throws the one other die (§ 675a.4(g)); it decides nothing.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:4", "5"),
                    wager("w2", "like_kind:8", "5"),
                    wager("w3", "extra_roll", "5"),
                ]
            },
            {"throw": [4, 4, 4, 4, 4, 4, 4, 4, 4, 1]},
            {"throw": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4]},
            {"extra_roll": [4]},
            {"wagers": [wager("w4", "pip:4", "5")]},
        ]
    )
    assert by_id(result["steps"][1])["w2"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(ii)"
    assert 2 in rejected(result["steps"][2])
    assert result["steps"][3]["rejected"] == [] and result["steps"][3]["resolutions"] == []
    assert result["steps"][4]["accepted"] == ["w4"]


def test_675a_6_b_3_six_dice_all_wagers_of_equal_value():
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:2", "5"),
                    wager("w2", "pip:3", "10"),
                    wager("w3", "no_match", "10"),
                    wager("w4", "no_match", "5"),
                ]
            }
        ],
        dice=6,
    )
    step = result["steps"][0]
    assert step["accepted"] == ["w1", "w4"]
    assert rejected(step)["w2"]["cite"] == "58 Pa. Code § 675a.6(b)(3)"
    assert rejected(step)["w3"]["cite"] == "58 Pa. Code § 675a.6(d)"


# --- Reviewer's hand-worked cases ----------------------------------------------------------


def test_675a_4_f_2_ii_and_h_four_paid_first_then_two_more_fives_win_the_six_circle():
    # Four 5s lead: Pip Street $10 at 4 to 1 -> 40.00; the four circle wins at 1 to 1 ->
    # 10.00; the three circle can no longer win and is collected; five and six stay.
    # Two more 5s among the six re-thrown dice: six-of-a-kind, $10 at 4 to 1 (§ 675a.5(d))
    # -> 40.00; the five circle loses.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:5", "10"),
                    wager("w2", "like_kind:3", "10"),
                    wager("w3", "like_kind:4", "10"),
                    wager("w4", "like_kind:5", "10"),
                    wager("w5", "like_kind:6", "10"),
                    wager("w6", "extra_roll", "10"),
                ]
            },
            {"throw": [5, 5, 5, 5, 6, 6, 6, 1, 1, 4]},
            {"extra_roll": [5, 5, 6, 6, 6, 2]},
        ]
    )
    first = by_id(result["steps"][1])
    assert {w: r["net"] for w, r in first.items()} == {
        "w6": "-10.00",
        "w1": "40.00",
        "w2": "-10.00",
        "w3": "10.00",
    }
    assert first["w2"]["cite"] == "58 Pa. Code § 675a.4(f)(2)(ii)"
    extra = by_id(result["steps"][2])
    assert extra["w4"]["net"] == "-10.00" and extra["w4"]["cite"] == "58 Pa. Code § 675a.4(h)"
    assert extra["w5"]["net"] == "40.00" and extra["w5"]["cite"] == "58 Pa. Code § 675a.5(d)"


def test_675a_4_h_three_of_another_face_on_the_extra_roll_does_not_make_three_aces():
    # Two aces lead (four pairs, two singles). The eight re-thrown dice show three 2s and
    # no ace: still two aces, so the three circle loses on the Extra Roll.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:1", "5"),
                    wager("w2", "like_kind:3", "5"),
                    wager("w3", "extra_roll", "5"),
                ]
            },
            {"throw": [1, 1, 2, 2, 3, 3, 4, 4, 5, 6]},
            {"extra_roll": [2, 2, 2, 3, 4, 5, 6, 6]},
        ]
    )
    extra = by_id(result["steps"][2])
    assert extra["w2"]["net"] == "-5.00" and extra["w2"]["cite"] == "58 Pa. Code § 675a.4(h)"


def test_675a_5_e_limit_reached_on_the_first_roll_leaves_the_extra_roll_win_at_zero():
    # Seven aces at $125: Pip Street 3 to 1 = 375 and the seven circle 400 to 1 = 50,000;
    # 50,375 is 375 over. Shares: 375*375/50375 = 2.79 (2.7915..), 375*50000/50375 =
    # 372.20 (372.208..), the leftover cent to the largest: 372.21. Nets 372.21 and
    # 49,627.79. One more ace: the eight circle 50 to 1 = 6,250, all of it over the limit
    # already reached, so it wins 0.00.
    result = play(
        [
            {
                "wagers": [
                    wager("w1", "pip:1", "125"),
                    wager("w2", "like_kind:7", "125"),
                    wager("w3", "like_kind:8", "125"),
                    wager("w4", "extra_roll", "125"),
                ]
            },
            {"throw": [1, 1, 1, 1, 1, 1, 1, 2, 3, 4]},
            {"extra_roll": [1, 5, 6]},
        ],
        payout_limit="50000",
    )
    first = by_id(result["steps"][1])
    assert first["w1"]["net"] == "372.21" and first["w1"]["payout_limit_reduction"] == "2.79"
    assert first["w2"]["net"] == "49627.79"
    assert first["w2"]["payout_limit_reduction"] == "372.21"
    extra = by_id(result["steps"][2])
    assert extra["w3"] == {
        "wager": "w3",
        "result": "win",
        "net": "0.00",
        "cite": "58 Pa. Code § 675a.5(d)",
        "payout_limit_reduction": "6250.00",
    }


def test_675a_6_j_k_tie_of_pairs_goes_to_the_higher_rank_with_six_dice():
    # Two 3s and two 4s: the 4 outranks the 3. $5.55 at 5 to 1 -> 27.75; the pair circle
    # $5.55 at 1 to 2 -> 2.775, rounded down to 2.77.
    result = play(
        [
            {"wagers": [wager("w1", "pip:4", "5.55"), wager("w2", "like_kind:2", "5.55")]},
            {"throw": [3, 3, 4, 4, 5, 6]},
        ],
        dice=6,
    )
    got = by_id(result["steps"][1])
    assert got["w1"]["net"] == "27.75" and got["w1"]["cite"] == "58 Pa. Code § 675a.6(j)"
    assert got["w2"]["net"] == "2.77" and got["w2"]["cite"] == "58 Pa. Code § 675a.6(k)"


# --- § 675a.4(a): a throw with nothing on the layout -------------------------------------


def test_675a_4_a_throw_with_no_wager_on_the_layout_settles_nothing_and_the_next_round_opens():
    """§ 675a.4(a)-(f) describe a round with wagers; the text is silent on a throw with none.
    It is taken (the dealer may throw to an empty layout), decides nothing, awaits no extra
    roll (no one purchased one, § 675a.4(g)), and the next `wagers` step opens a new round:
    a $5 Pip Street on the 5 then wins at 4 to 1 on four 5s (20.00)."""
    result = play(
        [
            {"throw": [1, 1, 1, 2, 2, 3, 4, 5, 6, 6]},
            {"wagers": [wager("w1", "pip:5", "5")]},
            {"throw": [5, 5, 5, 5, 6, 6, 6, 1, 1, 4]},
        ]
    )
    empty, placed, decided = result["steps"]
    assert empty["rejected"] == [] and empty["resolutions"] == []
    assert placed["rejected"] == []
    assert by_id(decided)["w1"]["result"] == "win" and by_id(decided)["w1"]["net"] == "20.00"
