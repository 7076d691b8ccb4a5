"""Three Dice Football, 58 Pa. Code ch. 661a: the field, the wagers, settlement, the engine.

Expected values are worked out by hand from the text; the small arithmetic is in comments.
"""

from decimal import Decimal

import pytest

from games.rules.core import MalformedInput, Wager, cite, format_money
from games.rules.three_dice_football import ENGINE
from games.rules.three_dice_football.field import (
    Call,
    Field,
    GameEnd,
    Play,
    Throw,
    advance,
    call_play,
)
from games.rules.three_dice_football.settlement import (
    SINGLE_PLAY_RULES,
    extra_point_roll,
    settle_down,
)


def throw(g1: int, g2: int, red: int) -> dict[str, object]:
    """A throw event payload."""
    return {"green": [g1, g2], "red": red}


def wager(wid: str, kind: str, amount: str = "10", player: str = "p1") -> dict[str, str]:
    """A wager as a scenario writes it."""
    return {"id": wid, "player": player, "kind": kind, "amount": amount}


def play_steps(steps: list[tuple[str, object]], raw_options: dict | None = None):
    """Run events through the engine; return the final state and every outcome."""
    options = ENGINE.parse_options(raw_options or {})
    state = ENGINE.new_state(options)
    outcomes = []
    for event, payload in steps:
        state, outcome = ENGINE.step(options, state, event, payload)
        outcomes.append(outcome)
    return state, outcomes


def nets(outcome) -> dict[str, tuple[str, str]]:
    """wager id -> (result, net as text) for one step."""
    return {r.wager: (r.result, format_money(r.net)) for r in outcome.resolutions}


# --- § 661a.1 and § 661a.6(c): what the dice call -----------------------------------


def test_661a_6_c_1_worked_example_total_10_against_2_gains_8_yards():
    # "if the total of the Offensive Dice is 10 and the value of the Defensive Die is 2,
    # the dealer shall move the Yard Marker toward the end zone 8 yards"
    play = call_play(Throw((4, 6), 2))
    assert play == Play(Call.GAIN, 8)
    field, end = advance(Field(), play)
    assert end is None
    assert field == Field(yard_line=12, down=1, play=2)  # 20 - 8 = 12, 2nd Down, Play 2


def test_661a_6_c_2_penalty_loses_only_one_yard_whatever_the_dice():
    play = call_play(Throw((1, 1), 5))  # 2 < 5: a penalty, the dice margin is -3
    assert play.call is Call.PENALTY
    field, end = advance(Field(yard_line=15, down=0, play=1), play)
    assert (field, end) == (Field(yard_line=16, down=1, play=2), None)


def test_661a_6_c_2_penalty_pushes_the_ball_back_past_the_20():
    field, end = advance(Field(), call_play(Throw((1, 2), 4)))  # 3 < 4
    assert (field.yard_line, field.down_name, end) == (21, "2nd Down", None)


def test_661a_2_b_4_three_penalties_reach_the_23_and_end_the_game_on_downs():
    field = Field()
    for _ in range(2):
        field, end = advance(field, Play(Call.PENALTY, -1))
        assert end is None
    field, end = advance(field, Play(Call.PENALTY, -1))
    assert (field.yard_line, end) == (23, GameEnd.DOWNS)  # 20 + 3, the last yard labeled


def test_661a_6_c_3_equal_dice_no_gain_moves_only_the_pucks():
    play = call_play(Throw((2, 3), 5))
    assert play == Play(Call.NO_GAIN, 0)
    assert advance(Field(), play) == (Field(yard_line=20, down=1, play=2), None)


def test_661a_1_turnover_is_a_red_6_against_green_total_2_or_3():
    assert call_play(Throw((1, 1), 6)).call is Call.TURNOVER
    assert call_play(Throw((1, 2), 6)).call is Call.TURNOVER
    assert call_play(Throw((2, 1), 6)).call is Call.TURNOVER
    assert call_play(Throw((2, 2), 6)).call is Call.PENALTY  # total 4: a penalty
    assert call_play(Throw((1, 2), 5)).call is Call.PENALTY  # red 5: a penalty


def test_661a_6_c_4_turnover_ends_the_game_where_the_ball_stands():
    field, end = advance(Field(yard_line=8, down=4, play=3), call_play(Throw((1, 2), 6)))
    assert (field, end) == (Field(yard_line=8, down=4, play=3), GameEnd.TURNOVER)


def test_661a_1_trips_td_is_all_three_dice_alike():
    for face in range(1, 7):
        assert call_play(Throw((face, face), face)).call is Call.TRIPS_TD
    assert call_play(Throw((6, 6), 5)).call is Call.GAIN


def test_661a_6_c_5_trips_td_moves_the_marker_to_the_end_zone_on_play_one():
    field, end = advance(Field(), call_play(Throw((3, 3), 3)))
    assert (field.yard_line, field.play, end) == (0, 1, GameEnd.TRIPS_TD)


def test_661a_1_touchdown_when_the_gain_reaches_the_0_yard_line_exactly():
    field, end = advance(Field(yard_line=9, down=3, play=2), call_play(Throw((5, 6), 2)))
    assert (field.yard_line, end) == (0, GameEnd.TOUCHDOWN)  # 9 - 9 = 0


def test_661a_1_touchdown_when_the_gain_passes_the_0_yard_line():
    _, end = advance(Field(yard_line=3, down=4, play=3), Play(Call.GAIN, 10))
    assert end is GameEnd.TOUCHDOWN


def test_661a_1_one_yard_short_is_no_touchdown():
    field, end = advance(Field(yard_line=3, down=4, play=3), Play(Call.GAIN, 2))
    assert (field.yard_line, field.down_name, end) == (1, "3rd & Goal", None)


# --- § 661a.6(e): downs and the 1st & Goal ------------------------------------------


def test_661a_6_e_1_three_downs_short_of_the_10_end_the_game():
    field = Field()
    for yards in (3, 3):
        field, end = advance(field, Play(Call.GAIN, yards))
        assert end is None
    field, end = advance(field, Play(Call.GAIN, 3))  # 20 - 9 = 11: short of the 10
    assert (field.yard_line, field.play, end) == (11, 3, GameEnd.DOWNS)


def test_661a_6_e_reaching_the_10_yard_line_earns_a_1st_and_goal():
    field, end = advance(Field(yard_line=12, down=1, play=2), Play(Call.GAIN, 2))
    assert (field.yard_line, field.down_name, field.play, end) == (10, "1st & Goal", 3, None)


def test_661a_6_e_1st_and_goal_earned_on_the_first_down():
    field, end = advance(Field(), Play(Call.GAIN, 11))
    assert (field.yard_line, field.down_name, field.play, end) == (9, "1st & Goal", 2, None)


def test_661a_6_e_1st_and_goal_earned_on_3rd_down_keeps_the_game_going():
    field, end = advance(Field(yard_line=14, down=2, play=3), Play(Call.GAIN, 5))
    assert (field.yard_line, field.down_name, field.play, end) == (9, "1st & Goal", 4, None)


def test_661a_6_e_2_three_more_downs_after_a_1st_and_goal_then_the_game_ends():
    field = Field(yard_line=10, down=3, play=4)
    field, end = advance(field, Play(Call.NO_GAIN, 0))
    assert (field.down_name, field.play, end) == ("2nd & Goal", 5, None)
    field, end = advance(field, Play(Call.PENALTY, -2))
    assert (field.yard_line, field.down_name, field.play, end) == (11, "3rd & Goal", 6, None)
    field, end = advance(field, Play(Call.GAIN, 4))
    assert (field.yard_line, field.play, end) == (7, 6, GameEnd.DOWNS)


def test_661a_6_e_a_penalty_back_over_the_10_earns_no_second_1st_and_goal():
    field, _ = advance(Field(yard_line=10, down=3, play=2), Play(Call.PENALTY, -1))
    assert (field.yard_line, field.down_name) == (11, "2nd & Goal")
    field, _ = advance(field, Play(Call.GAIN, 1))
    assert (field.yard_line, field.down_name) == (10, "3rd & Goal")


# --- § 661a.3(d): single play wagers, by the value of the dice (§ 661a.6(d)) ---------


def wins(kind: str, g1: int, g2: int, red: int) -> str | None:
    """The odds a single play wager wins at on this throw, as text, or None."""
    odds = SINGLE_PLAY_RULES[kind](call_play(Throw((g1, g2), red)))
    return None if odds is None else str(odds)


def test_661a_3_d_1_trips_td_wager_pays_30_to_1():
    assert wins("trips_td", 5, 5, 5) == "30 to 1"
    assert wins("trips_td", 5, 5, 4) is None


def test_661a_3_d_2_penalty_wager_wins_on_penalty_or_turnover():
    assert wins("penalty", 1, 2, 4) == "9 to 1"
    assert wins("penalty", 1, 1, 6) == "9 to 1"  # turnover
    assert wins("penalty", 2, 2, 4) is None  # no gain


def test_661a_3_d_3_turnover_wager_pays_60_to_1_only_on_a_turnover():
    assert wins("turnover", 1, 2, 6) == "60 to 1"
    assert wins("turnover", 2, 2, 6) is None  # a penalty


def test_661a_3_d_3_turnover_on_downs_does_not_qualify():
    # Three downs short of the 10 end the game (a "turnover on downs"): the third
    # down's dice are a gain, and the Turnover Wager on that down loses.
    _, outcomes = play_steps(
        [
            ("throw", throw(2, 2, 1)),  # gain 3: 17
            ("throw", throw(2, 2, 1)),  # gain 3: 14
            ("wagers", [wager("t", "turnover", "5")]),
            ("throw", throw(2, 2, 1)),  # gain 3: 11, game over on downs
        ]
    )
    assert nets(outcomes[-1]) == {"t": ("lose", "-5.00")}


def test_661a_3_d_4_cover_three_wager():
    assert wins("cover_three", 4, 4, 4) == "7 to 1"
    assert wins("cover_three", 1, 2, 6) == "7 to 1"
    assert wins("cover_three", 1, 3, 5) == "7 to 1"
    assert wins("cover_three", 2, 3, 5) is None


def test_661a_3_d_5_no_gain_wager():
    assert wins("no_gain", 2, 3, 5) == "5 to 1"
    assert wins("no_gain", 1, 3, 5) == "5 to 1"
    assert wins("no_gain", 1, 1, 6) == "5 to 1"
    assert wins("no_gain", 3, 3, 5) is None


def test_661a_3_d_6_big_play_wager_seven_yards_or_trips_td():
    assert wins("big_play", 4, 4, 1) == "4 to 1"  # 8 - 1 = 7
    assert wins("big_play", 4, 4, 2) is None  # 6 yards
    assert wins("big_play", 1, 1, 1) == "4 to 1"  # Trips TD gaining 1 on the dice


def test_661a_3_d_7_over_four_yards_wager_and_its_trips_td_odds():
    assert wins("over_four", 3, 3, 1) == "1 to 1"  # 5 yards
    assert wins("over_four", 3, 3, 2) is None  # 4 yards
    assert wins("over_four", 2, 2, 2) == "7 to 1"  # Trips TD (§ 661a.8(b))


def test_661a_8_b_over_four_trips_td_of_5s_and_6s_pays_7_to_1_not_1_to_1():
    # 5-5-5 gains 10 - 5 = 5 and 6-6-6 gains 12 - 6 = 6 by the dice: both are also
    # "5 yards or more", but the Trips TD line of § 661a.8(b) is the one paid.
    assert wins("over_four", 5, 5, 5) == "7 to 1"
    assert wins("over_four", 6, 6, 6) == "7 to 1"
    assert wins("big_play", 6, 6, 6) == "4 to 1"  # 6 yards, but a Trips TD


def test_661a_3_d_8_under_four_yards_wager_three_or_less_penalty_or_turnover():
    assert wins("under_four", 3, 3, 3) is None  # "A Trips TD does not qualify"
    assert wins("under_four", 2, 2, 1) == "1 to 1"  # 3 yards
    assert wins("under_four", 2, 3, 5) == "1 to 1"  # zero yards is 3 or less
    assert wins("under_four", 1, 2, 5) == "1 to 1"  # penalty
    assert wins("under_four", 1, 1, 6) == "1 to 1"  # turnover
    assert wins("under_four", 3, 3, 2) is None  # 4 yards: neither over nor under four


def test_661a_6_d_dice_not_yards_decide_single_play_wagers():
    # At the 2, the dice gain 3 and score: the field needed only 2 yards, but the
    # Under Four Yards Wager reads the dice's 3 yards and wins; Big Play (7+) loses.
    _, outcomes = play_steps(
        [
            ("throw", throw(6, 6, 1)),  # 11 yards: the 9, 1st & Goal
            ("throw", throw(4, 4, 1)),  # 7 yards: the 2, 2nd & Goal
            ("wagers", [wager("b", "big_play", "5"), wager("u", "under_four", "5")]),
            ("throw", throw(2, 2, 1)),  # 3 yards: touchdown
        ]
    )
    assert nets(outcomes[-1]) == {"b": ("lose", "-5.00"), "u": ("win", "5.00")}


# --- § 661a.3(b)(3), § 661a.8(a): the extra point roll --------------------------------


def test_661a_8_a_extra_point_a_1_on_one_die_pays_1_to_1():
    odds, section = extra_point_roll((1, 4, 5))
    assert (str(odds), section) == ("1 to 1", "661a.3(b)(3)(i)")


def test_661a_8_a_extra_point_a_1_on_two_dice_pays_10_to_1():
    assert str(extra_point_roll((1, 6, 1))[0]) == "10 to 1"


def test_661a_8_a_extra_point_triple_1s_pays_50_to_1():
    assert str(extra_point_roll((1, 1, 1))[0]) == "50 to 1"


def test_661a_3_b_3_ii_extra_point_any_other_triple_pays_10_to_1():
    odds, section = extra_point_roll((4, 4, 4))
    assert (str(odds), section) == ("10 to 1", "661a.3(b)(3)(ii)")


def test_661a_3_b_3_extra_point_without_a_1_or_a_triple_loses():
    assert extra_point_roll((2, 2, 3)) == (None, "661a.3(b)(3)")


# --- § 661a.6(f): the settlement order ------------------------------------------------


def placed(*pairs: tuple[str, str]) -> tuple[Wager, ...]:
    """Wagers of $10 each, by (id, kind)."""
    return tuple(Wager(wid, "p1", kind, Decimal("10")) for wid, kind in pairs)


def test_661a_6_f_1_touchdown_defense_first_then_single_play_then_full_game():
    wagers = placed(
        ("td", "touchdown"),
        ("gl", "game_length:2"),
        ("d", "defense"),
        ("ep", "extra_point"),
        ("sp", "penalty"),
    )
    resolutions, still_open, extra_point_next = settle_down(
        wagers, Play(Call.GAIN, 9), GameEnd.TOUCHDOWN, 2
    )
    assert [r.wager for r in resolutions] == ["d", "sp", "gl"]
    assert [w.id for w in still_open] == ["td", "ep"]
    assert extra_point_next is True


def test_661a_6_f_1_no_extra_point_wager_no_extra_point_roll_touchdown_paid_last():
    wagers = placed(("td", "touchdown"), ("d", "defense"), ("sp", "big_play"))
    resolutions, still_open, extra_point_next = settle_down(
        wagers, Play(Call.GAIN, 9), GameEnd.TOUCHDOWN, 2
    )
    assert [(r.wager, r.result) for r in resolutions] == [
        ("d", "lose"),
        ("sp", "win"),
        ("td", "win"),
    ]
    assert (still_open, extra_point_next) == ((), False)


def test_661a_6_f_2_no_touchdown_collect_touchdown_and_extra_point_pay_defense_first():
    wagers = placed(
        ("gc", "game_changer"),
        ("d", "defense"),
        ("sp", "no_gain"),
        ("ep", "extra_point"),
        ("td", "touchdown"),
    )
    resolutions, still_open, extra_point_next = settle_down(
        wagers, Play(Call.TURNOVER, -3), GameEnd.TURNOVER, 1
    )
    assert [(r.wager, r.result, r.net) for r in resolutions] == [
        ("ep", "lose", Decimal("-10")),
        ("td", "lose", Decimal("-10")),
        ("d", "win", Decimal("8.00")),  # 4 to 5 on $10
        ("sp", "win", Decimal("50.00")),  # 5 to 1: a turnover wins No Gain
        ("gc", "win", Decimal("50.00")),  # 5 to 1
    ]
    assert (still_open, extra_point_next) == ((), False)


def test_661a_6_d_mid_game_only_single_play_wagers_are_settled():
    wagers = placed(("td", "touchdown"), ("sp", "over_four"))
    resolutions, still_open, _ = settle_down(wagers, Play(Call.GAIN, 5), None, 1)
    assert [(r.wager, r.result) for r in resolutions] == [("sp", "win")]
    assert [w.id for w in still_open] == ["td"]


def test_661a_6_f_1_extra_point_roll_only_when_someone_has_an_extra_point_wager():
    # Touchdown on play 2, nobody on Extra Point: the next throw is game 2's 1st Down.
    _, outcomes = play_steps(
        [
            ("wagers", [wager("td", "touchdown")]),
            ("throw", throw(6, 6, 1)),  # 9, 1st & Goal
            ("throw", throw(5, 6, 2)),  # 9 yards: touchdown
            ("wagers", [wager("sp", "big_play", "5")]),
            ("throw", throw(4, 4, 1)),  # game 2, 7 yards
        ]
    )
    assert nets(outcomes[2]) == {"td": ("win", "10.00")}
    assert outcomes[3].accepted == ("sp",)
    assert nets(outcomes[4]) == {"sp": ("win", "20.00")}  # 4 to 1
    assert outcomes[4].extra["field"] == {
        "game": 2,
        "yard_line": 13,
        "down": "2nd Down",
        "play": 2,
        "quarterback": 1,
    }


def test_661a_6_f_1_extra_point_roll_pays_touchdown_then_settles_extra_point():
    state, outcomes = play_steps(
        [
            ("wagers", [wager("ep", "extra_point", "5"), wager("td", "touchdown")]),
            ("throw", throw(6, 6, 1)),
            ("throw", throw(5, 6, 2)),  # touchdown
            ("throw", throw(3, 3, 3)),  # extra point roll: a triple of 3s, 10 to 1
        ]
    )
    assert outcomes[2].resolutions == ()
    assert outcomes[2].extra["field"]["down"] == "Extra Point"
    assert ENGINE.open_wagers(state) == ()
    assert [(r.wager, r.result, str(r.net), r.cite) for r in outcomes[3].resolutions] == [
        ("td", "win", "10.00", cite("661a.3(b)(1)")),
        ("ep", "win", "50.00", cite("661a.3(b)(3)(ii)")),
    ]
    assert outcomes[3].extra["call"] == {"result": "extra_point_roll", "dice": [3, 3, 3]}
    assert state.game == 2 and state.field == Field()


def test_661a_6_f_1_extra_point_roll_is_not_a_down():
    # The extra point roll's dice (a Trips TD pattern) neither move a field nor
    # decide single play wagers: none may be placed before it.
    _, outcomes = play_steps(
        [
            ("wagers", [wager("ep", "extra_point", "5")]),
            ("throw", throw(2, 2, 2)),  # Trips TD on play 1
            ("wagers", [wager("sp", "trips_td", "5"), wager("d", "defense")]),
            ("throw", throw(2, 2, 2)),  # the extra point roll: a triple of 2s
        ]
    )
    assert [r.wager for r in outcomes[2].rejected] == ["sp", "d"]
    assert outcomes[2].rejected[0].cite == cite("661a.6(f)(1)")
    assert nets(outcomes[3]) == {"ep": ("win", "50.00")}  # 10 to 1 on $5
    assert "game_over" not in outcomes[3].extra


# --- § 661a.3(c), (e): when wagers may be placed --------------------------------------


def test_661a_3_c_full_game_wagers_refused_after_the_first_throw():
    _, outcomes = play_steps(
        [
            ("throw", throw(2, 3, 1)),  # 4 yards
            (
                "wagers",
                [
                    wager("a", "touchdown"),
                    wager("b", "game_length:3"),
                    wager("c", "under_four"),
                ],
            ),
        ]
    )
    assert outcomes[1].accepted == ("c",)
    assert [(r.wager, r.cite) for r in outcomes[1].rejected] == [
        ("a", cite("661a.3(c)")),
        ("b", cite("661a.3(c)")),
    ]
    assert outcomes[1].rejected[0].error == (
        "A Touchdown Wager is a full game wager and must be placed before the first "
        "throw of the game"
    )


def test_661a_3_c_full_game_wagers_open_again_for_the_next_game():
    _, outcomes = play_steps(
        [
            ("throw", throw(1, 2, 6)),  # turnover: game 1 over
            ("wagers", [wager("a", "defense")]),
        ]
    )
    assert outcomes[1].accepted == ("a",)


def test_661a_3_c_full_game_wagers_may_be_added_until_the_first_throw():
    """§ 661a.3(c) forbids increasing a full game wager only after the first throw (reading
    12): before it, a second wagers step adds to the layout, here a second $10 Touchdown
    Wager of the same player (taken as its own wager, reading 22). 4-4-4 is a Trips TD on
    play 1 and nobody has an Extra Point Wager, so no extra point roll: the $5 Defense
    Wager loses (-5.00), each Touchdown Wager wins 1 to 1 (10.00)."""
    _, outcomes = play_steps(
        [
            ("wagers", [wager("a", "touchdown")]),
            ("wagers", [wager("b", "touchdown"), wager("c", "defense", "5")]),
            ("throw", throw(4, 4, 4)),
        ]
    )
    assert outcomes[1].accepted == ("b", "c")
    assert [(r.wager, r.result, format_money(r.net)) for r in outcomes[2].resolutions] == [
        ("c", "lose", "-5.00"),
        ("a", "win", "10.00"),
        ("b", "win", "10.00"),
    ]


def test_661a_6_b_a_throw_is_taken_with_no_wager_on_the_layout():
    """§ 661a.6(b) has each player place a wager before the first throw; the engine has no
    seat roster and does not enforce it (reading 12). A down thrown with nothing on the
    layout still moves the field: green 3 + 4 against red 2 gains 5 yards, from the 20 to
    the 15, 2nd Down, Play 2; nothing is rejected or resolved."""
    _, (outcome,) = play_steps([("throw", throw(3, 4, 2))])
    assert (outcome.rejected, outcome.resolutions) == ((), ())
    assert outcome.extra["field"] == {
        "game": 1,
        "yard_line": 15,
        "down": "2nd Down",
        "play": 2,
        "quarterback": 1,
    }


def test_661a_3_e_single_play_wagers_before_any_throw_decided_by_that_throw():
    state, outcomes = play_steps(
        [
            ("wagers", [wager("a", "over_four", "5"), wager("g", "touchdown")]),
            ("throw", throw(3, 3, 1)),  # 5 yards
            ("wagers", [wager("b", "over_four", "5")]),
            ("throw", throw(2, 3, 1)),  # 4 yards
        ]
    )
    assert nets(outcomes[1]) == {"a": ("win", "5.00")}
    assert nets(outcomes[3]) == {"b": ("lose", "-5.00")}
    assert ENGINE.open_wagers(state) == ("g",)


def test_wager_refusals_unknown_kind_duplicate_id_zero_negative_and_fractions():
    _, outcomes = play_steps(
        [
            (
                "wagers",
                [
                    wager("a", "field_goal"),
                    wager("b", "game_length:7"),
                    wager("c", "touchdown", "0"),
                    wager("d", "touchdown", "-5"),
                    wager("e", "touchdown", "1.005"),
                    wager("f", "touchdown"),
                    wager("f", "defense"),
                ],
            ),
            ("wagers", [wager("f", "penalty")]),
        ]
    )
    assert outcomes[0].accepted == ("f",)
    assert [r.wager for r in outcomes[0].rejected] == ["a", "b", "c", "d", "e", "f"]
    assert outcomes[0].rejected[0].error == "'field_goal' is not a Three Dice Football wager"
    # Reading 20: a kind chapter 661a does not authorize cites § 661a.3; an amount or a
    # duplicate id breaks no clause of the chapter, so those carry no cite.
    assert [r.cite for r in outcomes[0].rejected] == [cite("661a.3")] * 2 + [None] * 4
    assert [r.wager for r in outcomes[1].rejected] == ["f"]


def test_wager_ids_are_unique_across_games():
    """Reading 20: a wager id is unique over the whole scenario, every game included (a
    ledger refers to it). Red 6 against green 1 + 2 is a turnover on play 1 (§ 661a.1): game
    1 ends and the $10 Defense Wager "a" wins 4 to 5, 8.00. In game 2 the id "a" is refused,
    a new id "b" is taken."""
    _, outcomes = play_steps(
        [
            ("wagers", [wager("a", "defense")]),
            ("throw", throw(1, 2, 6)),
            ("wagers", [wager("a", "defense"), wager("b", "defense")]),
        ]
    )
    assert nets(outcomes[1]) == {"a": ("win", "8.00")}
    assert outcomes[2].accepted == ("b",)
    assert [(r.wager, r.error) for r in outcomes[2].rejected] == [
        ("a", "Wager id 'a' is already in use")
    ]


def test_table_limits_from_the_options():
    _, outcomes = play_steps(
        [
            (
                "wagers",
                [
                    wager("a", "penalty", "4.99"),
                    wager("b", "penalty", "501"),
                    wager("c", "penalty", "5"),
                ],
            )
        ],
        {"min_wager": "5", "max_wager": 500},
    )
    assert outcomes[0].accepted == ("c",)
    assert [r.error for r in outcomes[0].rejected] == [
        "The table minimum wager is $5.00.",
        "The table maximum wager is $500.00.",
    ]
    assert [r.cite for r in outcomes[0].rejected] == [None, None]  # chapter 661a sets no limit


# --- § 661a.8: payouts rounded down to the cent ---------------------------------------


def test_661a_8_a_defense_pays_4_to_5_rounded_down_to_the_cent():
    _, outcomes = play_steps(
        [
            ("wagers", [wager("a", "defense", "7"), wager("b", "defense", "1.01")]),
            ("throw", throw(1, 1, 6)),  # turnover
        ]
    )
    # $7 x 4/5 = $5.60; $1.01 x 4/5 = $0.808 -> $0.80
    assert nets(outcomes[1]) == {"a": ("win", "5.60"), "b": ("win", "0.80")}


def test_661a_8_a_game_length_three_plays_pays_6_to_5():
    _, outcomes = play_steps(
        [
            ("wagers", [wager("a", "game_length:3", "3"), wager("b", "game_length:4", "3")]),
            ("throw", throw(1, 2, 2)),  # 1 yard: 19
            ("throw", throw(1, 2, 2)),  # 18
            ("throw", throw(1, 2, 2)),  # 17: three downs short of the 10
        ]
    )
    # $3 x 6/5 = $3.60
    assert nets(outcomes[3]) == {"a": ("win", "3.60"), "b": ("lose", "-3.00")}


# --- § 661a.6(a) game-length puck and § 661a.7 Quarterback ----------------------------


def test_661a_6_a_game_length_puck_moves_each_down_and_resets_for_the_next_game():
    _, outcomes = play_steps(
        [
            ("throw", throw(1, 2, 2)),
            ("throw", throw(1, 2, 2)),
            ("throw", throw(1, 2, 2)),
        ]
    )
    assert [o.extra["field"]["play"] for o in outcomes] == [2, 3, 1]
    assert outcomes[2].extra["game_over"]["plays"] == 3
    assert outcomes[2].extra["field"]["game"] == 2


@pytest.mark.parametrize(
    ("throws", "result", "plays", "section"),
    [
        # Red 6 against green 1 + 2: a turnover on play 1.
        ([(1, 2, 6)], "turnover", 1, "661a.6(c)(4)"),
        # 5-5-5: a Trips TD on play 1.
        ([(5, 5, 5)], "trips_td", 1, "661a.6(c)(5)"),
        # 12 - 1 = 11 yards: the 9, 1st & Goal; 11 - 2 = 9 yards: the 0, a touchdown.
        ([(6, 6, 1), (5, 6, 2)], "touchdown", 2, "661a.1"),
        # 1 yard a down: the 19, 18, 17, three downs short of the 10.
        ([(1, 2, 2)] * 3, "downs", 3, "661a.6(e)(1)"),
        # 11 yards: 1st & Goal at the 9 on play 2, then three no gains (5 against 5).
        ([(6, 6, 1)] + [(2, 3, 5)] * 3, "downs", 4, "661a.6(e)(2)"),
    ],
)
def test_661a_game_over_cites_what_ended_the_game(throws, result, plays, section):
    """Reading 21: the step key `game_over` names how the game ended, after how many plays
    (the Game Length Puck), and cites the clause that ended it: § 661a.1 for a touchdown
    (its definition), § 661a.6(c)(4) a turnover, (c)(5) a Trips TD, (e)(1) the downs run
    out before a 1st & Goal, (e)(2) after one."""
    _, outcomes = play_steps([("throw", throw(*t)) for t in throws])
    assert all("game_over" not in o.extra for o in outcomes[:-1])
    game_over = outcomes[-1].extra["game_over"]
    assert (game_over["result"], game_over["plays"], game_over["cite"]) == (
        result,
        plays,
        cite(section),
    )


def test_661a_7_a_quarterback_retains_the_dice_after_a_touchdown():
    state, outcomes = play_steps([("throw", throw(6, 6, 6))])  # Trips TD
    assert outcomes[0].extra["quarterback"]["retains_dice"] is True
    assert state.quarterback == 1


def test_661a_7_a_defense_win_passes_the_dice_to_the_left():
    state, outcomes = play_steps([("throw", throw(1, 1, 6)), ("throw", throw(1, 2, 6))])
    assert outcomes[0].extra["quarterback"] == {
        "number": 2,
        "retains_dice": False,
        "offered_to": "the player to the immediate left of the previous Quarterback",
        "cite": cite("661a.7(a)"),
    }
    assert state.quarterback == 3


def test_661a_7_a_quarterback_keeps_the_dice_through_the_extra_point_roll():
    state, _ = play_steps(
        [
            ("wagers", [wager("ep", "extra_point")]),
            ("throw", throw(5, 5, 5)),  # Trips TD
            ("throw", throw(2, 3, 4)),  # extra point roll, missed
        ]
    )
    assert (state.game, state.quarterback) == (2, 1)


# --- Throws the rules forbid, and malformed input -------------------------------------


def test_661a_1_a_throw_with_three_green_dice_is_rejected_and_changes_nothing():
    options = ENGINE.parse_options({})
    state = ENGINE.new_state(options)
    after, outcome = ENGINE.step(options, state, "throw", {"green": [1, 2, 3], "red": 4})
    assert after == state
    assert outcome.rejected[0].error == "A throw has exactly two green Offensive Dice, not 3"
    assert outcome.rejected[0].wager is None


def test_661a_4_a_a_face_of_7_or_0_is_rejected():
    options = ENGINE.parse_options({})
    state = ENGINE.new_state(options)
    for payload in ({"green": [1, 7], "red": 2}, {"green": [1, 2], "red": 0}):
        after, outcome = ENGINE.step(options, state, "throw", payload)
        assert after == state
        assert outcome.rejected[0].cite == cite("661a.4(a)")
    _, outcome = ENGINE.step(options, state, "throw", {"green": [1, 7], "red": 2})
    assert outcome.rejected[0].error == "A die shows 1 to 6; 7 is not a face of a die."


@pytest.mark.parametrize(
    ("event", "payload", "field"),
    [
        ("throw", [1, 2, 3], "throw"),
        ("throw", {"green": [1, 2]}, "throw.red"),
        ("throw", {"green": [1, 2], "red": [3]}, "throw.red"),
        ("throw", {"green": [1, 2], "red": True}, "throw.red"),
        ("throw", {"green": "12", "red": 3}, "throw.green"),
        ("throw", {"green": [1, 2], "red": 3, "blue": 4}, "throw.blue"),
        (
            "wagers",
            [{"id": "a", "player": "p", "kind": "penalty", "amount": 5.0}],
            "wagers[0].amount",
        ),
        ("kickoff", {}, "kickoff"),
        # § 661a.5(b)-(g): an invalid roll or a "no roll" decides nothing and is not entered
        # (reading 18); there is no such event, so one sent is malformed like any other.
        ("no_roll", {}, "no_roll"),
    ],
)
def test_malformed_events_name_the_field(event, payload, field):
    options = ENGINE.parse_options({})
    with pytest.raises(MalformedInput) as error:
        ENGINE.step(options, ENGINE.new_state(options), event, payload)
    assert error.value.field == field


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"paytable": "A"}, "options.paytable"),
        ({"min_wager": "0"}, "options.min_wager"),
        ({"max_wager": 2.5}, "options.max_wager"),
        ({"min_wager": "10", "max_wager": "5"}, "options.max_wager"),
    ],
)
def test_malformed_options_name_the_option(raw, field):
    with pytest.raises(MalformedInput) as error:
        ENGINE.parse_options(raw)
    assert error.value.field == field


def test_options_accept_strings_and_ints_and_describe_defaults():
    assert ENGINE.describe_options(ENGINE.parse_options({})) == {
        "min_wager": None,
        "max_wager": None,
    }
    options = ENGINE.parse_options({"min_wager": 5, "max_wager": "5000"})
    assert ENGINE.describe_options(options) == {"min_wager": "5.00", "max_wager": "5000.00"}


# --- § 661a.3: one player's several wagers ---------------------------------------------------


def test_661a_3_one_player_may_hold_opposing_and_repeated_wagers():
    """Chapter 661a limits no player to one wager of a kind or to one side: § 661a.3 lists
    wagers a player "may" place. So one player's Touchdown and Defense Wagers, and two
    Turnover Wagers, are all taken and each decided on its own. 1-1 against a red 6 is a
    turnover (§ 661a.1): the game ends without a touchdown, the Touchdown Wager loses
    (-10.00), the Defense Wager wins 4 to 5 (8.00), each Turnover Wager 60 to 1 (300.00)."""
    _, (placed, thrown) = play_steps(
        [
            (
                "wagers",
                [
                    wager("w1", "touchdown"),
                    wager("w2", "defense"),
                    wager("w3", "turnover", "5"),
                    wager("w4", "turnover", "5"),
                ],
            ),
            ("throw", throw(1, 1, 6)),
        ]
    )
    assert placed.accepted == ("w1", "w2", "w3", "w4"), placed.rejected
    assert nets(thrown) == {
        "w1": ("lose", "-10.00"),
        "w2": ("win", "8.00"),
        "w3": ("win", "300.00"),
        "w4": ("win", "300.00"),
    }
