"""Sic Bo, 58 Pa. Code ch. 625a: wagers, paytable, irregularities, table limits.

Every expected value is worked out by hand from § 625a.3 and § 625a.6: a winning
wager of A at "N to 1" nets A * N, a losing one -A, a returned one 0.
"""

from decimal import Decimal

import pytest

from games.rules.core import MalformedInput, StepOutcome, cite
from games.rules.sic_bo import ENGINE
from games.rules.sic_bo.table import SicBoTable

Result = tuple[str, str, str]  # (result, net, cite)


def _wager(wager_id: str, kind: str, amount: str = "10", player: str = "p1") -> dict:
    return {"id": wager_id, "player": player, "kind": kind, "amount": amount}


def _round(
    wagers: list[dict], dice: list[int], **options: object
) -> tuple[StepOutcome, StepOutcome]:
    opts = ENGINE.parse_options(options)
    state = ENGINE.new_state(opts)
    state, placed = ENGINE.step(opts, state, "wagers", wagers)
    state, thrown = ENGINE.step(opts, state, "throw", dice)
    return placed, thrown


def _settle(kind: str, dice: list[int], amount: str = "10") -> Result:
    """One wager, one throw: its (result, net, cite)."""
    placed, thrown = _round([_wager("w1", kind, amount)], dice)
    assert placed.accepted == ("w1",), placed.rejected
    (resolution,) = thrown.resolutions
    return resolution.result, str(resolution.net), resolution.cite


def _rejected(kind: str, amount: str = "10", **options: object) -> str:
    """The error of a single wager the engine refuses."""
    placed, _ = _round([_wager("w1", kind, amount)], [1, 2, 3], **options)
    assert placed.accepted == ()
    (rejection,) = placed.rejected
    assert rejection.wager == "w1"
    return rejection.error


PAYTABLE = cite("625a.6(a)")


# § 625a.3(1), § 625a.6(a): Three of a Kind, 150 to 1.


def test_625a_6_a_three_of_a_kind_pays_150_to_1() -> None:
    assert _settle("triple:4", [4, 4, 4]) == ("win", "1500.00", PAYTABLE)  # 10 * 150


def test_625a_3_1_three_of_a_kind_loses_on_another_triple_or_a_pair() -> None:
    assert _settle("triple:4", [5, 5, 5]) == ("lose", "-10.00", cite("625a.3(1)"))
    assert _settle("triple:4", [4, 4, 1]) == ("lose", "-10.00", cite("625a.3(1)"))


# § 625a.3(2), § 625a.6(a): Two of a Kind, 8 to 1.


def test_625a_6_a_two_of_a_kind_pays_8_to_1() -> None:
    assert _settle("double:3", [3, 6, 3]) == ("win", "80.00", PAYTABLE)  # 10 * 8


def test_625a_3_2_two_of_a_kind_wins_on_three_of_that_number() -> None:
    # Our reading: three 3s show the number on two of the three dice (and one more);
    # § 625a.3(2), unlike (6) and (7), does not make a three of a kind lose.
    assert _settle("double:3", [3, 3, 3]) == ("win", "80.00", PAYTABLE)


def test_625a_3_2_two_of_a_kind_loses_on_one_die_or_another_pair() -> None:
    assert _settle("double:3", [3, 1, 2]) == ("lose", "-10.00", cite("625a.3(2)"))
    assert _settle("double:3", [5, 5, 3]) == ("lose", "-10.00", cite("625a.3(2)"))


# § 625a.3(3), § 625a.6(a): Any Three of a Kind, 24 to 1.


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_625a_6_a_any_three_of_a_kind_pays_24_to_1_on_every_triple(face: int) -> None:
    assert _settle("any_triple", [face] * 3) == ("win", "240.00", PAYTABLE)  # 10 * 24


def test_625a_3_3_any_three_of_a_kind_loses_on_a_pair() -> None:
    assert _settle("any_triple", [6, 6, 5]) == ("lose", "-10.00", cite("625a.3(3)"))


# § 625a.3(4), § 625a.6(a): Total Value Bet, every line of the paytable.


@pytest.mark.parametrize(
    ("total", "dice", "net"),
    [
        (4, [1, 1, 2], "500.00"),  # 50 to 1
        (5, [1, 1, 3], "180.00"),  # 18 to 1
        (6, [1, 2, 3], "140.00"),  # 14 to 1
        (7, [1, 2, 4], "120.00"),  # 12 to 1
        (8, [1, 3, 4], "80.00"),  # 8 to 1
        (9, [2, 3, 4], "60.00"),  # 6 to 1
        (10, [1, 4, 5], "60.00"),  # 6 to 1
        (11, [2, 4, 5], "60.00"),  # 6 to 1
        (12, [3, 4, 5], "60.00"),  # 6 to 1
        (13, [3, 4, 6], "80.00"),  # 8 to 1 ("Total Value of Bet 13")
        (14, [3, 5, 6], "120.00"),  # 12 to 1
        (15, [4, 5, 6], "140.00"),  # 14 to 1
        (16, [4, 6, 6], "180.00"),  # 18 to 1
        (17, [5, 6, 6], "500.00"),  # 50 to 1
    ],
)
def test_625a_6_a_total_value_bet_pays_its_line(total: int, dice: list[int], net: str) -> None:
    assert _settle(f"total:{total}", dice) == ("win", net, PAYTABLE)


def test_625a_3_4_total_value_bet_counts_a_three_of_a_kind() -> None:
    # 3 + 3 + 3 = 9: the total equals the number wagered; nothing in (4) excludes triples.
    assert _settle("total:9", [3, 3, 3]) == ("win", "60.00", PAYTABLE)


def test_625a_3_4_total_value_bet_loses_on_another_total() -> None:
    assert _settle("total:9", [3, 3, 4]) == ("lose", "-10.00", cite("625a.3(4)"))


@pytest.mark.parametrize("total", [3, 18, 2, 19, 0])
def test_625a_6_a_no_total_value_bet_outside_4_to_17(total: int) -> None:
    assert _rejected(f"total:{total}") == (
        f"There is no Total Value Bet on {total}; the totals are 4 through 17"
    )


# § 625a.3(5), § 625a.6(a): Two Dice Combination, 5 to 1.


def test_625a_6_a_two_dice_combination_pays_5_to_1() -> None:
    assert _settle("combo:2-5", [5, 1, 2]) == ("win", "50.00", PAYTABLE)  # 10 * 5


def test_625a_6_a_two_dice_combination_pays_once_when_a_number_shows_twice() -> None:
    assert _settle("combo:2-5", [5, 2, 2]) == ("win", "50.00", PAYTABLE)


def test_625a_3_5_two_dice_combination_loses_without_both_numbers() -> None:
    assert _settle("combo:2-5", [2, 2, 2]) == ("lose", "-10.00", cite("625a.3(5)"))
    assert _settle("combo:2-5", [5, 6, 1]) == ("lose", "-10.00", cite("625a.3(5)"))


def test_625a_3_5_two_dice_combination_needs_two_different_numbers() -> None:
    assert _rejected("combo:4-4") == "A Two Dice Combination is two different numbers"


def test_625a_3_5_two_dice_combination_is_written_smaller_number_first() -> None:
    assert _rejected("combo:5-2") == (
        "Write a Two Dice Combination smaller number first: combo:2-5"
    )


# § 625a.3(6), (7), § 625a.6(a): Small Bet and Big Bet, 1 to 1, lose on a three of a kind.


@pytest.mark.parametrize("dice", [[1, 1, 2], [1, 2, 4], [2, 4, 4], [1, 4, 5], [3, 3, 4]])
def test_625a_6_a_small_bet_pays_1_to_1_on_4_to_10(dice: list[int]) -> None:
    assert _settle("small", dice) == ("win", "10.00", PAYTABLE)


@pytest.mark.parametrize("dice", [[2, 2, 2], [3, 3, 3], [1, 1, 1]])
def test_625a_3_6_small_bet_loses_on_three_of_a_kind(dice: list[int]) -> None:
    # 2-2-2 totals 6 and 3-3-3 totals 9, yet "loses ... if a three of a kind appears".
    assert _settle("small", dice) == ("lose", "-10.00", cite("625a.3(6)"))


def test_625a_3_6_small_bet_loses_on_11() -> None:
    assert _settle("small", [2, 4, 5]) == ("lose", "-10.00", cite("625a.3(6)"))


@pytest.mark.parametrize("dice", [[2, 4, 5], [3, 4, 6], [4, 4, 6], [5, 6, 6], [6, 6, 1]])
def test_625a_6_a_big_bet_pays_1_to_1_on_11_to_17(dice: list[int]) -> None:
    assert _settle("big", dice) == ("win", "10.00", PAYTABLE)


@pytest.mark.parametrize("dice", [[4, 4, 4], [5, 5, 5], [6, 6, 6]])
def test_625a_3_7_big_bet_loses_on_three_of_a_kind(dice: list[int]) -> None:
    # 4-4-4 totals 12 and 5-5-5 totals 15, yet "loses ... if a three of a kind appears".
    assert _settle("big", dice) == ("lose", "-10.00", cite("625a.3(7)"))


def test_625a_3_7_big_bet_loses_on_10() -> None:
    assert _settle("big", [1, 4, 5]) == ("lose", "-10.00", cite("625a.3(7)"))


# § 625a.3(8), § 625a.6(b): One of a Kind, 1, 2 or 3 to 1.


def test_625a_6_b_1_one_of_a_kind_pays_1_to_1_on_one_die() -> None:
    assert _settle("single:6", [6, 1, 2]) == ("win", "10.00", cite("625a.6(b)(1)"))


def test_625a_6_b_2_one_of_a_kind_pays_2_to_1_on_two_dice() -> None:
    assert _settle("single:6", [6, 1, 6]) == ("win", "20.00", cite("625a.6(b)(2)"))


def test_625a_6_b_3_one_of_a_kind_pays_3_to_1_on_three_dice() -> None:
    assert _settle("single:6", [6, 6, 6]) == ("win", "30.00", cite("625a.6(b)(3)"))


def test_625a_3_8_one_of_a_kind_loses_when_no_die_shows_the_number() -> None:
    assert _settle("single:6", [1, 2, 3]) == ("lose", "-10.00", cite("625a.3(8)"))


# Amounts: exact at the odds, in dollars and cents.


def test_625a_6_a_payout_exact_on_cents() -> None:
    assert _settle("triple:1", [1, 1, 1], "2.50") == ("win", "375.00", PAYTABLE)  # 2.50 * 150
    assert _settle("single:1", [1, 1, 1], "12.35") == (
        "win",
        "37.05",  # 12.35 * 3
        cite("625a.6(b)(3)"),
    )


def test_625a_5_e_one_throw_settles_every_wager_on_the_layout_in_order() -> None:
    wagers = [
        _wager("a", "small", "25"),
        _wager("b", "total:7", "5", player="p2"),
        _wager("c", "combo:1-2", "5", player="p2"),
        _wager("d", "single:4", "10", player="p3"),
        _wager("e", "double:2", "5", player="p3"),
        _wager("f", "any_triple", "5", player="p4"),
    ]
    # 1 + 2 + 4 = 7: small wins 25, total 7 wins 5 * 12 = 60, 1-2 wins 5 * 5 = 25,
    # one 4 pays 10 * 1 = 10, no pair of 2s, no triple.
    _, thrown = _round(wagers, [1, 2, 4])
    assert [(r.wager, r.result, str(r.net)) for r in thrown.resolutions] == [
        ("a", "win", "25.00"),
        ("b", "win", "60.00"),
        ("c", "win", "25.00"),
        ("d", "win", "10.00"),
        ("e", "lose", "-5.00"),
        ("f", "lose", "-5.00"),
    ]
    assert thrown.extra == {"dice": [1, 2, 4], "total": 7}


# § 625a.7: irregularities.


def test_625a_7_a_no_roll_returns_every_wager() -> None:
    opts = ENGINE.parse_options({})
    state = ENGINE.new_state(opts)
    state, _ = ENGINE.step(
        opts, state, "wagers", [_wager("a", "big"), _wager("b", "triple:6", "5", player="p2")]
    )
    state, outcome = ENGINE.step(opts, state, "no_roll", True)
    assert [(r.wager, r.result, r.net, r.cite) for r in outcome.resolutions] == [
        ("a", "push", Decimal(0), cite("625a.7(a)")),
        ("b", "push", Decimal(0), cite("625a.7(a)")),
    ]
    assert ENGINE.open_wagers(state) == ()


def test_625a_7_a_no_roll_must_be_true() -> None:
    opts = ENGINE.parse_options({})
    with pytest.raises(MalformedInput) as error:
        ENGINE.step(opts, ENGINE.new_state(opts), "no_roll", False)
    assert error.value.field == "no_roll"


def test_625a_7_c_automated_shaker_malfunction_voids_the_round() -> None:
    opts = ENGINE.parse_options({"shaker": "automated"})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "wagers", [_wager("a", "small")])
    state, outcome = ENGINE.step(opts, state, "shaker_malfunction", True)
    assert [(r.wager, r.result, r.net, r.cite) for r in outcome.resolutions] == [
        ("a", "push", Decimal(0), cite("625a.7(c)"))
    ]
    assert ENGINE.open_wagers(state) == ()


def test_625a_7_c_a_manual_shaker_cannot_malfunction_the_round_void() -> None:
    opts = ENGINE.parse_options({})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "wagers", [_wager("a", "small")])
    state, outcome = ENGINE.step(opts, state, "shaker_malfunction", True)
    assert outcome.resolutions == ()
    (rejection,) = outcome.rejected
    assert rejection.wager is None and rejection.cite == cite("625a.7(c)")
    assert ENGINE.open_wagers(state) == ("a",)


# § 625a.2(a): three dice, each showing 1 through 6.


@pytest.mark.parametrize(
    ("dice", "error"),
    [
        ([1, 2], "Sic Bo is played with three dice; 2 were entered"),
        ([1, 2, 3, 4], "Sic Bo is played with three dice; 4 were entered"),
        ([], "Sic Bo is played with three dice; 0 were entered"),
        ([1, 7, 3], "A die shows 1 to 6; 7 is not a face of a die."),
        ([0, 2, 3], "A die shows 1 to 6; 0 is not a face of a die."),
    ],
)
def test_625a_2_a_impossible_throw_rejected_and_wagers_stay(dice: list[int], error: str) -> None:
    opts = ENGINE.parse_options({})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "wagers", [_wager("a", "single:3")])
    state, outcome = ENGINE.step(opts, state, "throw", dice)
    assert outcome.resolutions == ()
    (rejection,) = outcome.rejected
    assert (rejection.error, rejection.wager, rejection.cite) == (error, None, cite("625a.2(a)"))
    assert ENGINE.open_wagers(state) == ("a",)
    # The next, proper throw settles the wager: one 3 pays 10 * 1.
    state, outcome = ENGINE.step(opts, state, "throw", [3, 1, 2])
    assert [(r.wager, r.result, str(r.net)) for r in outcome.resolutions] == [("a", "win", "10.00")]


@pytest.mark.parametrize("payload", ["1,2,3", [1, 2, "3"], [1, 2.0, 3], {"d": 1}, [True, 1, 2]])
def test_throw_of_the_wrong_form_is_malformed(payload: object) -> None:
    opts = ENGINE.parse_options({})
    with pytest.raises(MalformedInput) as error:
        ENGINE.step(opts, ENGINE.new_state(opts), "throw", payload)
    assert error.value.field == "throw"


def test_unknown_event_is_malformed() -> None:
    opts = ENGINE.parse_options({})
    with pytest.raises(MalformedInput) as error:
        ENGINE.step(opts, ENGINE.new_state(opts), "deal", {})
    assert error.value.field == "deal"


# Placing wagers (§ 625a.3, § 625a.4(a)).


@pytest.mark.parametrize(
    "kind", ["pass", "triple:7", "triple:0", "single", "combo:1-7", "Small", "total:04"]
)
def test_625a_3_unknown_wager_rejected(kind: str) -> None:
    assert _rejected(kind) == f"Sic Bo has no wager {kind!r}"


@pytest.mark.parametrize(
    ("amount", "error"),
    [
        ("0", "A wager must be more than $0.00"),
        ("-5", "A wager must be more than $0.00"),
        ("1.005", "A wager must be in whole cents"),
    ],
)
def test_625a_4_a_wager_amount_must_be_chips(amount: str, error: str) -> None:
    assert _rejected("small", amount) == error


def test_wager_amount_of_the_wrong_form_is_malformed() -> None:
    opts = ENGINE.parse_options({})
    with pytest.raises(MalformedInput) as error:
        ENGINE.step(
            opts,
            ENGINE.new_state(opts),
            "wagers",
            [_wager("a", "big"), {**_wager("b", "big"), "amount": 2.5}],
        )
    assert error.value.field == "wagers[1].amount"


def test_duplicate_wager_id_rejected_in_one_step_and_across_rounds() -> None:
    opts = ENGINE.parse_options({})
    state, outcome = ENGINE.step(
        opts, ENGINE.new_state(opts), "wagers", [_wager("a", "big"), _wager("a", "small")]
    )
    assert outcome.accepted == ("a",)
    assert [r.wager for r in outcome.rejected] == ["a"]
    state, _ = ENGINE.step(opts, state, "throw", [6, 6, 1])
    state, outcome = ENGINE.step(opts, state, "wagers", [_wager("a", "big")])
    assert outcome.accepted == ()
    assert outcome.rejected[0].error == "Wager id 'a' is already in use"


def test_rejected_wager_id_may_be_placed_again_correctly() -> None:
    opts = ENGINE.parse_options({})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "wagers", [_wager("a", "big", "0")])
    state, outcome = ENGINE.step(opts, state, "wagers", [_wager("a", "big", "5")])
    assert outcome.accepted == ("a",)


def test_second_wagers_step_adds_to_the_layout_before_the_throw() -> None:
    opts = ENGINE.parse_options({})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "wagers", [_wager("a", "big")])
    state, _ = ENGINE.step(opts, state, "wagers", [_wager("b", "small", "5", player="p2")])
    assert ENGINE.open_wagers(state) == ("a", "b")
    state, outcome = ENGINE.step(opts, state, "throw", [6, 5, 1])  # 12: big wins, small loses
    assert [(r.wager, r.result, str(r.net)) for r in outcome.resolutions] == [
        ("a", "win", "10.00"),
        ("b", "lose", "-5.00"),
    ]


def test_throw_with_no_wagers_settles_nothing() -> None:
    opts = ENGINE.parse_options({})
    state, outcome = ENGINE.step(opts, ENGINE.new_state(opts), "throw", [1, 2, 3])
    assert outcome.resolutions == () and outcome.rejected == ()
    # Nothing on the layout; the dice thrown stay lit until the next wagers (§ 625a.5(d), (f)).
    assert state == SicBoTable(thrown=(1, 2, 3))


def test_step_leaves_the_old_state_unchanged() -> None:
    opts = ENGINE.parse_options({})
    before, _ = ENGINE.step(opts, ENGINE.new_state(opts), "wagers", [_wager("a", "big")])
    after, _ = ENGINE.step(opts, before, "throw", [1, 2, 3])
    assert ENGINE.open_wagers(before) == ("a",)
    assert ENGINE.open_wagers(after) == ()


# Options: the shaker and the posted table limits.


def test_options_defaults_described() -> None:
    assert ENGINE.describe_options(ENGINE.parse_options({})) == {
        "shaker": "manual",
        "min_wager": None,
        "max_wager": None,
    }


def test_options_accept_json_values_and_command_line_strings() -> None:
    described = {"shaker": "automated", "min_wager": "5.00", "max_wager": "500.00"}
    as_json = ENGINE.parse_options({"shaker": "automated", "min_wager": 5, "max_wager": "500"})
    as_text = ENGINE.parse_options({"shaker": "automated", "min_wager": "5", "max_wager": "500"})
    assert ENGINE.describe_options(as_json) == described
    assert ENGINE.describe_options(as_text) == described


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"paytable": "A"}, "options.paytable"),
        ({"shaker": "robot"}, "options.shaker"),
        ({"min_wager": 2.5}, "options.min_wager"),
        ({"min_wager": "0"}, "options.min_wager"),
        ({"max_wager": "1.001"}, "options.max_wager"),
        ({"min_wager": "10", "max_wager": "5"}, "options.max_wager"),
    ],
)
def test_bad_options_are_malformed(raw: dict, field: str) -> None:
    with pytest.raises(MalformedInput) as error:
        ENGINE.parse_options(raw)
    assert error.value.field == field


def test_posted_table_limits_reject_wagers_outside_them() -> None:
    assert _rejected("big", "4.99", min_wager="5") == ("The table minimum wager is $5.00.")
    assert _rejected("big", "500.01", max_wager="500") == ("The table maximum wager is $500.00.")
    placed, _ = _round([_wager("w1", "big", "500")], [1, 2, 3], min_wager="5", max_wager="500")
    assert placed.accepted == ("w1",)


def test_625a_3_one_player_may_hold_opposing_and_repeated_wagers() -> None:
    """Chapter 625a limits no player to one wager a spot or one side: § 625a.3 says a player
    "may" place each of its wagers and § 625a.4(a) only that a wager is chips on the layout.
    So one player's Small and Big, and two wagers on Total 9, are all taken and each decided
    on its own: 3-2-4 (9) wins Small 1 to 1 (10.00), loses Big (-10.00), and each Total 9
    pays 6 to 1 (60.00 and 30.00)."""
    placed, thrown = _round(
        [
            _wager("w1", "small"),
            _wager("w2", "big"),
            _wager("w3", "total:9"),
            _wager("w4", "total:9", "5"),
        ],
        [3, 2, 4],
    )
    assert placed.accepted == ("w1", "w2", "w3", "w4"), placed.rejected
    got = {r.wager: (r.result, str(r.net)) for r in thrown.resolutions}
    assert got == {
        "w1": ("win", "10.00"),
        "w2": ("lose", "-10.00"),
        "w3": ("win", "60.00"),
        "w4": ("win", "30.00"),
    }


# The readings of docs/regulations.md (Sic Bo) that the tests above do not hold.


def test_625a_5_e_resolutions_follow_the_placement_not_the_losers_first() -> None:
    """§ 625a.5(e) has the dealer collect the losing wagers, then pay the winners; the
    order of his hands changes no amount, so the resolutions keep the order of placement
    (reading 16). 5-5-2 totals 12: Big wins 10.00; Small loses -10.00; One of a Kind on 5
    shows on two dice, 2 to 1, 20.00; Three of a Kind on 1 loses -10.00. Win, lose, win,
    lose: neither losers first nor winners first."""
    _, thrown = _round(
        [
            _wager("a", "big"),
            _wager("b", "small", player="p2"),
            _wager("c", "single:5"),
            _wager("d", "triple:1", player="p2"),
        ],
        [5, 5, 2],
    )
    assert [(r.wager, r.result, str(r.net)) for r in thrown.resolutions] == [
        ("a", "win", "10.00"),
        ("b", "lose", "-10.00"),
        ("c", "win", "20.00"),
        ("d", "lose", "-10.00"),
    ]


def test_625a_6_a_a_win_cites_its_paytable_line_and_names_its_odds() -> None:
    """Reading 15: a win cites the line of § 625a.6 that priced it and carries its odds; a
    loss cites the wager's own paragraph of § 625a.3. 4-4-1 (9): Total 9 wins 6 to 1
    (§ 625a.6(a)), One of a Kind on 4 wins 2 to 1 (§ 625a.6(b)(2)), Big loses (§ 625a.3(7))."""
    _, thrown = _round(
        [_wager("a", "total:9"), _wager("b", "single:4"), _wager("c", "big")], [4, 4, 1]
    )
    assert [(r.wager, r.result, r.cite, dict(r.extra)) for r in thrown.resolutions] == [
        ("a", "win", PAYTABLE, {"odds": "6 to 1"}),
        ("b", "win", cite("625a.6(b)(2)"), {"odds": "2 to 1"}),
        ("c", "lose", cite("625a.3(7)"), {}),
    ]


def test_posted_limits_bind_each_wager_alike_and_carry_no_625a_citation() -> None:
    """Reading 21 (and 12): chapter 625a sets no amounts, so the posted minimum and maximum
    are one pair for every wager of § 625a.3 and hold each wager alone. With $5 to $10
    posted: a Three of a Kind of $10 is taken like a Small Bet of $10; one player's two
    Total 9 wagers of $10 ($20 on the spot) are both taken; $10.01 on Three of a Kind and
    $4.99 on One of a Kind are refused, with no citation (no section of 625a applies)."""
    placed, _ = _round(
        [
            _wager("a", "triple:1"),
            _wager("b", "small"),
            _wager("c", "total:9"),
            _wager("d", "total:9"),
            _wager("e", "triple:1", "10.01"),
            _wager("f", "single:1", "4.99"),
        ],
        [1, 2, 3],
        min_wager="5",
        max_wager="10",
    )
    assert placed.accepted == ("a", "b", "c", "d")
    assert [(r.wager, r.error, r.cite) for r in placed.rejected] == [
        ("e", "The table maximum wager is $10.00.", None),
        ("f", "The table minimum wager is $5.00.", None),
    ]


def test_625a_4_a_fields_beyond_the_wager_form_are_ignored() -> None:
    """Reading 17: a wager is its id, player, kind and amount; a Sic Bo wager has no other
    field, so one given (``on``, ``position``) changes nothing. Small of 10 on 1-2-4 (7)
    wins 10.00 with or without them."""
    extra = {**_wager("w1", "small"), "on": 6, "position": 3}
    _, thrown = _round([extra], [1, 2, 4])
    assert [(r.wager, r.result, str(r.net)) for r in thrown.resolutions] == [("w1", "win", "10.00")]


def test_625a_7_c_shaker_malfunction_must_be_true() -> None:
    opts = ENGINE.parse_options({"shaker": "automated"})
    with pytest.raises(MalformedInput) as error:
        ENGINE.step(opts, ENGINE.new_state(opts), "shaker_malfunction", False)
    assert error.value.field == "shaker_malfunction"


@pytest.mark.parametrize("event", ["no_roll", "shaker_malfunction"])
def test_625a_7_a_c_no_roll_or_void_with_nothing_on_the_layout(event: str) -> None:
    """Reading 10: like a throw, a no roll (§ 625a.7(a)) or a void (§ 625a.7(c)) with nothing
    on the layout is taken and returns nothing; and it lights nothing (reading 19), so the
    last throw's dice, 6-6-1, are no longer shown."""
    opts = ENGINE.parse_options({"shaker": "automated"})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "throw", [6, 6, 1])
    assert ENGINE.state_summary(opts, state)["dice"] == [6, 6, 1]
    state, outcome = ENGINE.step(opts, state, event, True)
    assert outcome.resolutions == () and outcome.rejected == ()
    assert ENGINE.state_summary(opts, state) == {"game": "sic_bo", "thrown": False, "dice": None}


def test_625a_5_f_a_step_whose_every_wager_is_refused_leaves_the_throw_lit() -> None:
    """Reading 19: the lit combinations are cleared when the next wagers are placed
    (§ 625a.5(f)); a step whose every wager is refused places none, so 3-3-3 stays shown
    until a wager is taken."""
    opts = ENGINE.parse_options({})
    state, _ = ENGINE.step(opts, ENGINE.new_state(opts), "throw", [3, 3, 3])
    state, outcome = ENGINE.step(opts, state, "wagers", [_wager("a", "total:3")])
    assert outcome.accepted == () and len(outcome.rejected) == 1
    assert ENGINE.state_summary(opts, state)["dice"] == [3, 3, 3]
    state, _ = ENGINE.step(opts, state, "wagers", [_wager("b", "total:9")])
    assert ENGINE.state_summary(opts, state)["dice"] is None
