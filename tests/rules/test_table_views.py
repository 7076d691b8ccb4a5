"""What each engine shows of its table and takes now (`state_view`, `kinds_now`,
`events_now`) and what it offers (`wager_catalog`): the API's round `state`, its `next` and
the table's catalog (docs/api.md). Values worked out by hand from the regulations.
"""

import json
from decimal import Decimal
from pathlib import Path

import pytest

from games.rules.registry import engine_get

# The eight stacks of one set, from the dealer's right: the regulation's example of a start
# given by the generator (§ 621a.6(a)(1)), as its scenario file deals them.
STACKS = json.loads(
    (Path(__file__).parents[1] / "scenarios/pai_gow"
     / "621a_6_a_1_random_number_generator_starting_position.json").read_text()
)["scenario"]["steps"][2]["deal"]["stacks"]  # fmt: skip

CRAPS = engine_get("craps")


def w(wid: str, kind: str, amount: str = "10", player: str = "p1", **extra: object) -> dict:
    return {"id": wid, "player": player, "kind": kind, "amount": amount, **extra}


def played(game: str, steps: list[tuple[str, object]], **options: object):
    """The options and the state after `steps`, each taken whole (nothing rejected)."""
    engine = engine_get(game)
    opts = engine.parse_options(options)
    state = engine.new_state(opts)
    for event, payload in steps:
        state, outcome = engine.step(opts, state, event, payload)
        assert not outcome.rejected, (event, outcome.rejected)
    return opts, state


def wager_view(view: dict, wager_id: str) -> dict:
    (found,) = [x for x in view["wagers"] if x["id"] == wager_id]
    return found


# --- Craps (ch. 623a, 623b) -------------------------------------------------------------


def test_623a_3_a_1_a_come_out_4_4_makes_the_point_8_and_closes_the_pass_line() -> None:
    opts, state = played("craps", [("wagers", [w("1", "pass")]), ("throw", [4, 4])])
    view = CRAPS.state_view(opts, state)
    assert (view["game"], view["point"], view["come_out"], view["shooter"]) == (
        "craps",
        8,
        False,
        1,
    )
    assert CRAPS.state_summary(opts, state) == {"game": "craps", "point": 8, "shooter": 1}
    line = wager_view(view, "1")
    # § 623a.4(c)(1): a Pass Bet stays once its point is set; odds may be taken (§ 623a.6(a)).
    assert (line["number"], line["working"]) == (8, True)
    assert line["may"] == {
        "remove": False,
        "reduce": False,
        "add_odds": True,
        "call_on": False,
        "call_off": False,
    }
    kinds = CRAPS.kinds_now(opts, state)
    # § 623a.3(a)(1), (2): Pass and Don't Pass are made immediately prior to the come out
    # roll; § 623a.3(a)(3), (4): Come and Don't Come after it; odds on the Pass Bet.
    assert "pass" not in kinds and "dont_pass" not in kinds
    assert kinds[:3] == ("come", "dont_come", "odds")


def test_623a_3_a_3_a_come_bet_moves_to_its_come_point() -> None:
    opts, state = played(
        "craps",
        [
            ("wagers", [w("1", "pass")]),
            ("throw", [4, 4]),  # point 8
            ("wagers", [w("2", "come"), w("3", "dont_come", player="p2")]),
            ("throw", [5, 1]),  # 6: the come point of both
        ],
    )
    view = CRAPS.state_view(opts, state)
    assert (view["point"], view["come_points"], view["dont_come_points"]) == (8, [6], [6])
    come, dont = wager_view(view, "2"), wager_view(view, "3")
    assert (come["number"], dont["number"]) == (6, 6)
    # § 623a.4(c)(2): the Come Bet stays; § 623a.4(d): the Don't Come comes down at any time.
    assert (come["may"]["remove"], dont["may"]["remove"], dont["may"]["reduce"]) == (
        False,
        True,
        True,
    )


def test_623a_3_a_5_a_place_bet_is_off_on_the_come_out_until_called_on() -> None:
    opts, state = played("craps", [("wagers", [w("1", "place:6", "12")])])
    bet = wager_view(CRAPS.state_view(opts, state), "1")
    assert (bet["number"], bet["working"], bet["called"]) == (6, False, None)
    assert bet["may"] == {
        "remove": True,
        "reduce": True,  # $12 down to the $5 table minimum
        "add_odds": False,
        "call_on": True,
        "call_off": True,
    }
    state, _ = CRAPS.step(opts, state, "working", {"1": True})
    bet = wager_view(CRAPS.state_view(opts, state), "1")
    assert (bet["working"], bet["called"], bet["may"]["call_on"]) == (True, "on", False)


def test_623a_6_e_odds_up_to_three_times_then_no_room() -> None:
    # $10 Pass, point 8, 3 times odds: $30 at most (§ 623a.6(e)).
    opts, state = played(
        "craps",
        [
            ("wagers", [w("1", "pass")]),
            ("throw", [4, 4]),
            ("wagers", [w("2", "odds", "30", on="1")]),
        ],
        max_odds_multiple=3,
    )
    view = CRAPS.state_view(opts, state)
    line, odds = wager_view(view, "1"), wager_view(view, "2")
    assert (line["odds"], line["may"]["add_odds"]) == ("30.00", False)
    assert (odds["on"], odds["number"], odds["working"]) == ("1", 8, True)
    assert "odds" not in CRAPS.kinds_now(opts, state)


def test_623a_11_a_1_the_fire_bet_only_before_a_new_shooters_first_come_out() -> None:
    opts, fresh = played("craps", [])
    assert "fire" in CRAPS.kinds_now(opts, fresh)
    assert CRAPS.state_view(opts, fresh)["new_shooter"] is True
    opts, state = played("craps", [("throw", [3, 4])])  # a come out 7: same shooter
    assert "fire" not in CRAPS.kinds_now(opts, state)
    # § 623b.1(b), § 623a.12: Hot Roller and Bonus Craps before the first throw after a 7.
    assert {"hot_roller", "all_small"} <= set(CRAPS.kinds_now(opts, state))


def test_623b_5_c_power_odds_close_the_layout_for_that_throw() -> None:
    opts, state = played(
        "craps", [("wagers", [w("1", "hard:6")]), ("power_odds", {"hard:6": "18 to 1"})]
    )
    view = CRAPS.state_view(opts, state)
    assert view["power_odds"] == {"hard:6": "18 to 1"}
    assert wager_view(view, "1")["may"] == dict.fromkeys(
        ("remove", "reduce", "add_odds", "call_on", "call_off"), False
    )
    assert CRAPS.kinds_now(opts, state) == ()
    assert CRAPS.events_now(opts, state) == ("pass_dice", "throw")
    opts, fresh = played("craps", [])
    assert CRAPS.events_now(opts, fresh) == ("wagers", "power_odds", "pass_dice", "throw")


def test_every_kind_now_is_taken_and_every_other_offered_kind_refused() -> None:
    # After a come out 4-4, with a $10 Pass Bet, on an electronic table: each kind the
    # table takes now, placed alone by a new player, is accepted; each other kind of the
    # catalog is refused.
    opts, state = played(
        "craps", [("wagers", [w("1", "pass")]), ("throw", [4, 4])], table_type="electronic"
    )
    now = set(CRAPS.kinds_now(opts, state))
    for offer in CRAPS.wager_catalog(opts):
        # $20: a multiple of the Horn's 4 and the Horn High's and Whirl's 5 (§ 623a.3(a)(19)-(21)).
        amount, extra, player = "20", {}, "p9"
        if offer.kind == "fire":
            amount = "5"  # § 623a.11(b)(1)
        elif offer.kind == "odds":
            amount, extra, player = "10", {"on": "1"}, "p1"
        _, outcome = CRAPS.step(
            opts, state, "wagers", [w("9", offer.kind, amount, player, **extra)]
        )
        assert bool(outcome.accepted) == (offer.kind in now), (offer.kind, outcome.rejected)


def test_the_catalog_lists_the_par_sheets_kinds_with_their_terms() -> None:
    opts = CRAPS.parse_options({"table_type": "manual"})
    offers = {o.kind: o for o in CRAPS.wager_catalog(opts)}
    par_kinds = {r.kind for r in CRAPS.par_sheet(opts)}
    # Every kind is priced by the PAR sheet under the same options; Lucky Shooter needs an
    # electronic table (§ 623b.2(a)), Hot Shooter one not manual (§ 623b.4(a)).
    assert all(set(o.par_kinds) <= par_kinds for o in offers.values())
    assert "lucky_shooter" not in offers and "hot_shooter" not in offers
    assert "lucky_shooter" in {
        o.kind for o in CRAPS.wager_catalog(CRAPS.parse_options({"table_type": "electronic"}))
    }
    place = offers["place:6"]
    assert (place.label, place.section, place.payouts[0].pays) == (
        "Place Bet to Win on 6",
        "623a.3(a)(5)",
        "7 to 6",  # § 623a.5(a)
    )
    fire = offers["fire"]
    assert (fire.minimum, fire.maximum) == (Decimal(1), Decimal(5))  # § 623a.11(b)(1)
    assert (fire.removed.allowed, fire.removed.section) == (False, "623a.4(c)(3)")
    assert (offers["pass"].made.section, offers["pass"].removed.section) == (
        "623a.3(a)(1)",
        "623a.4(c)(1)",
    )
    assert offers["dont_pass"].removed.section == "623a.4(d)"
    assert offers["horn"].limits_note.startswith("in units of 4")  # § 623a.3(a)(19)


def test_the_timing_data_is_the_check() -> None:
    # The catalog's "made" and the check read one Timing: a refusal cites its section.
    opts, state = played("craps", [("throw", [4, 4])])
    _, outcome = CRAPS.step(opts, state, "wagers", [w("1", "pass")])
    (refusal,) = outcome.rejected
    assert (
        refusal.error == "A Pass Bet is made immediately prior to the come out roll; the point is 8"
    )
    assert refusal.cite == "58 Pa. Code § 623a.3(a)(1)"


# --- Sic Bo (ch. 625a) ------------------------------------------------------------------


def test_625a_5_d_the_throw_is_shown_until_the_next_wagers() -> None:
    sic_bo = engine_get("sic_bo")
    opts, state = played("sic_bo", [("wagers", [w("1", "small")])])
    assert sic_bo.state_view(opts, state) == {
        "game": "sic_bo",
        "thrown": False,
        "dice": None,
        "shaker": "manual",
        "wagers": [{"id": "1", "player": "p1", "kind": "small", "amount": "10.00"}],
    }
    state, _ = sic_bo.step(opts, state, "throw", [1, 2, 3])
    assert sic_bo.state_summary(opts, state) == {
        "game": "sic_bo",
        "thrown": True,
        "dice": [1, 2, 3],
    }
    state, _ = sic_bo.step(opts, state, "wagers", [w("2", "big")])  # § 625a.5(f): cleared
    assert sic_bo.state_summary(opts, state)["thrown"] is False


def test_625a_5_f_the_next_round_begins_with_the_combinations_cleared() -> None:
    """The floor's next round starts from `round_begin` (the Engine protocol): once every
    wager is settled the dealer clears the lit combinations (§ 625a.5(f)), so the next round
    shows no throw until its own; the wager ids stay used."""
    sic_bo = engine_get("sic_bo")
    opts, state = played("sic_bo", [("wagers", [w("1", "small")]), ("throw", [1, 2, 3])])
    begun = sic_bo.round_begin(opts, state)
    assert sic_bo.state_summary(opts, begun) == {"game": "sic_bo", "thrown": False, "dice": None}
    assert begun.wager_ids == state.wager_ids
    _, outcome = sic_bo.step(opts, begun, "wagers", [w("1", "big")])
    assert outcome.rejected  # the id was taken in the round before
    assert sic_bo.round_begin(opts, begun) is begun  # nothing lit: nothing to clear


def test_625a_3_every_wager_is_taken_and_a_malfunction_only_at_an_automated_shaker() -> None:
    sic_bo = engine_get("sic_bo")
    opts, state = played("sic_bo", [])
    # 6 triples, 6 doubles, any triple, 14 totals, 15 combinations, small, big, 6 singles.
    assert len(sic_bo.kinds_now(opts, state)) == 6 + 6 + 1 + 14 + 15 + 1 + 1 + 6
    assert sic_bo.events_now(opts, state) == ("wagers", "throw", "no_roll")
    automated = sic_bo.parse_options({"shaker": "automated"})
    assert sic_bo.events_now(automated, state)[-1] == "shaker_malfunction"  # § 625a.7(c)
    offers = {o.kind: o for o in sic_bo.wager_catalog(opts)}
    assert offers["total:4"].payouts[0].pays == "50 to 1"  # § 625a.6(a)
    assert [p.pays for p in offers["single:3"].payouts] == ["1 to 1", "2 to 1", "3 to 1"]


# --- High Roll Dice (ch. 675a) -----------------------------------------------------------


def test_675a_4_g_after_a_first_roll_with_an_extra_roll_bought_only_the_extra_roll() -> None:
    hrd = engine_get("high_roll_dice")
    wagers = [
        w("1", "pip:1", "5", position=2),
        w("2", "like_kind:5", "5"),
        w("3", "extra_roll", "5"),
    ]
    opts, state = played("high_roll_dice", [("wagers", wagers)])
    view = hrd.state_view(opts, state)
    assert view["extra_roll_players"] == ["p1"]
    assert view["positions"] == [
        {
            "player": "p1",
            "position": 2,
            "pip_street": [1],
            "like_kind": [5],
            "no_match": False,
            "millionaire_row": [],
            "extra_roll": True,
        }
    ]
    # Three aces, two 2s, two 3s: aces occur the most (§ 675a.2(d)); 3 to the throw box,
    # 7 re-thrown (§ 675a.4(e), (g)); the five-of-a-kind circle rides on the extra roll.
    state, _ = hrd.step(opts, state, "throw", [1, 1, 1, 2, 3, 4, 5, 6, 2, 3])
    assert hrd.state_summary(opts, state) == {
        "game": "high_roll_dice",
        "extra_roll_pending": True,
        "first_roll": {"face": 1, "count": 3, "rethrown": 7},
    }
    assert hrd.kinds_now(opts, state) == ()
    assert hrd.events_now(opts, state) == ("extra_roll",)


def test_675a_6_d_the_six_dice_game_has_no_match_and_no_extra_roll() -> None:
    hrd = engine_get("high_roll_dice")
    opts, state = played("high_roll_dice", [], dice=6)
    kinds = hrd.kinds_now(opts, state)
    assert "no_match" in kinds and "extra_roll" not in kinds and "millionaire:9" not in kinds
    offers = {o.kind: o for o in hrd.wager_catalog(opts)}
    assert offers["pip:2"].payouts[0].pays == "8 to 1"  # § 675a.6(j)
    ten = {o.kind: o for o in hrd.wager_catalog(hrd.parse_options({}))}
    assert (ten["millionaire:10"].maximum, ten["millionaire:10"].minimum) == (Decimal(1), None)
    assert ten["like_kind:3"].par_kinds == ("like_kind:3", "like_kind:3+extra")


# --- Three Dice Football (ch. 661a) -------------------------------------------------------


def test_661a_3_c_full_game_wagers_close_at_the_first_throw() -> None:
    football = engine_get("three_dice_football")
    opts, state = played("three_dice_football", [("wagers", [w("1", "touchdown")])])
    assert len(football.kinds_now(opts, state)) == 11 + 8  # § 661a.3(b), (d)
    # Green 3 + 4 against red 2: 5 yards from the 20 to the 15, 2nd Down (§ 661a.6(c)(1)).
    state, _ = football.step(opts, state, "throw", {"green": [3, 4], "red": 2})
    view = football.state_view(opts, state)
    assert {k: view[k] for k in ("game_number", "yard_line", "down", "play", "quarterback")} == {
        "game_number": 1,
        "yard_line": 15,
        "down": "2nd Down",
        "play": 2,
        "quarterback": 1,
    }
    assert view["wagers"][0]["type"] == "full_game"
    assert football.kinds_now(opts, state) == (
        "trips_td", "penalty", "turnover", "cover_three",
        "no_gain", "big_play", "over_four", "under_four",
    )  # fmt: skip


def test_661a_6_f_1_nothing_is_taken_while_the_extra_point_roll_is_pending() -> None:
    football = engine_get("three_dice_football")
    # 6 + 6 against 1: 11 yards, the 20 to the 9 (1st & Goal); 6 + 5 against 1: touchdown.
    opts, state = played(
        "three_dice_football",
        [
            ("wagers", [w("1", "extra_point")]),
            ("throw", {"green": [6, 6], "red": 1}),
            ("throw", {"green": [6, 5], "red": 1}),
        ],
    )
    assert football.state_summary(opts, state)["extra_point_pending"] is True
    assert football.kinds_now(opts, state) == ()
    assert football.events_now(opts, state) == ("throw",)


# --- Pai Gow (ch. 621a) ------------------------------------------------------------------


def test_621a_9_b_no_player_bank_at_the_start_of_the_game() -> None:
    pai_gow = engine_get("pai_gow")
    opts, state = played("pai_gow", [])
    assert pai_gow.events_now(opts, state) == ("wagers", "deal")
    six = [w(str(n), "pai_gow", "10", f"p{n}", position=n) for n in range(1, 7)]
    opts, state = played("pai_gow", [("wagers", six)])
    assert pai_gow.kinds_now(opts, state) == ()  # § 621a.2(b)(2): a wager a position


def test_621a_8_c_the_dealer_sets_and_shows_his_hands_once_every_player_has() -> None:
    pai_gow = engine_get("pai_gow")
    deal = {
        "dealer": ["1-2", "2-4", "3-3", "6-6"],
        "positions": {"1": ["1-1", "4-4", "5-6", "2-5"]},
    }
    opts, state = played("pai_gow", [("wagers", [w("1", "pai_gow", position=1)]), ("deal", deal)])
    view = pai_gow.state_view(opts, state)
    assert [h["state"] for h in view["hands"]] == ["to_set"]
    assert view["dealer"] is None
    assert pai_gow.events_now(opts, state) == ("set", "irregularity")
    setting = {"1": {"high": ["1-1", "4-4"], "low": ["5-6", "2-5"]}}
    state, _ = pai_gow.step(opts, state, "set", setting)
    view = pai_gow.state_view(opts, state)
    assert view["hands"][0]["state"] == "set"
    assert view["dealer"] is not None
    assert pai_gow.events_now(opts, state) == ("set", "surrender", "reveal", "irregularity")


def test_621a_5_a_the_one_wager_paid_less_the_vigorish() -> None:
    pai_gow = engine_get("pai_gow")
    (offer,) = pai_gow.wager_catalog(pai_gow.parse_options({}))
    assert (offer.kind, offer.paid_under) == ("pai_gow", "621a.8(k)")
    assert "5% vigorish" in offer.payouts[0].pays
    assert offer.removed.allowed is False


@pytest.mark.parametrize(
    "game", ["craps", "sic_bo", "high_roll_dice", "three_dice_football", "pai_gow"]
)
def test_the_catalog_describes_to_json_and_names_sections(game: str) -> None:
    engine = engine_get(game)
    offers = engine.wager_catalog(engine.parse_options({}))
    described = [o.describe() for o in offers]
    assert len({d["kind"] for d in described}) == len(described)
    assert all(d["section"] and d["made"]["section"] for d in described)


def test_621a_6_a_1_before_the_deal_the_generators_table_takes_the_void_for_want_of_a_start() -> (
    None
):
    """The engine's `events_now` lists every event it takes: before the deal, at a table whose
    Rules Submission gives the start to the generator, the irregularity of its giving none
    (§ 621a.6(a)(1), `no_starting_position`); not at the shaker's table, nor once dealt."""
    pai_gow = engine_get("pai_gow")
    void = {"kind": "no_starting_position"}
    opts, state = played("pai_gow", [], starting_position="rng")
    assert pai_gow.events_now(opts, state) == ("wagers", "deal", "irregularity")
    assert not pai_gow.step(opts, state, "irregularity", void)[1].rejected
    opts, state = played("pai_gow", [])
    assert "irregularity" not in pai_gow.events_now(opts, state)
    assert pai_gow.step(opts, state, "irregularity", void)[1].rejected
    stacks = {"stacks": STACKS, "rng": 5}
    opts, state = played(
        "pai_gow",
        [("wagers", [w("1", "pai_gow", position=1)]), ("deal", stacks)],
        starting_position="rng",
    )
    assert pai_gow.events_now(opts, state) == ("set", "irregularity")
    assert pai_gow.step(opts, state, "irregularity", void)[1].rejected
