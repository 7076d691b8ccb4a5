"""Hold against theory, the pure part: a wager's moments from its PAR record, worked out by
hand; the joint variance of a Sic Bo throw; every wager kind the engines take maps to a
PAR record (docs/statistics.md)."""

from decimal import Decimal
from fractions import Fraction

import pytest

from games.par import default_document
from games.rules.core import ParOutcome, ParRecord
from games.rules.craps import bets as craps_bets
from games.rules.craps.options import CrapsOptions
from games.rules.craps.paytables import POINT_NUMBERS, POWER_ODDS
from games.rules.registry import engine_get
from games.rules.sic_bo.wagers import every_bet as sic_bo_bets
from games.rules.three_dice_football.wagers import FULL_GAME_KINDS, SINGLE_PLAY_KINDS
from games.services.hold import par_record
from games.statistics import (
    UnmappedWager,
    correlated_bound,
    craps_one_roll_moments,
    high_roll_dice_round_moments,
    is_one_roll,
    par_kind,
    record_from_document,
    sic_bo_round_moments,
    unit_moments,
)


def stored(game: str, kind: str) -> ParRecord:
    entry = next(w for w in default_document(game)["wagers"] if w["kind"] == kind)
    return record_from_document(entry)


def test_sic_bo_small_edge_one_36th_variance_one_less_its_square():
    # Small wins 1 to 1 on 105 of 216 throws (totals 4-10, no triple): 105 - 111 = -6.
    assert unit_moments(stored("sic_bo", "small")) == (Fraction(1, 36), 1 - Fraction(1, 36) ** 2)


def test_sic_bo_total_4_pays_50_to_1_on_3_throws_of_216():
    # E[net] = (3 * 50 - 213) / 216 = -63/216 = -7/24; E[net^2] = (3 * 2500 + 213) / 216.
    edge, variance = unit_moments(stored("sic_bo", "total:4"))
    assert edge == Fraction(7, 24)
    assert variance == Fraction(7713, 216) - Fraction(49, 576) == Fraction(20519, 576)


def test_craps_pass_line_edge_7_495_and_its_variance():
    # Wins 244/495, loses 251/495, always decided at even money: E[net^2] = 1.
    edge, variance = unit_moments(stored("craps", "pass"))
    assert edge == Fraction(7, 495)
    assert variance == Fraction(244976, 245025)


def test_craps_odds_on_a_pass_point_of_4_pay_true_odds():
    # 2 to 1 on 3 ways against 6: mean 0, E[net^2] = 1/3 * 4 + 2/3 * 1 = 2.
    assert unit_moments(stored("craps", "odds:pass:4")) == (Fraction(0), Fraction(2))


def test_a_certain_loss_has_no_variance():
    record = ParRecord("x", (ParOutcome("collected", Fraction(1), Fraction(-1)),))
    assert unit_moments(record) == (Fraction(1), Fraction(0))


def test_small_and_big_on_one_throw_win_together_only_never():
    # The house wins both stakes on a triple (6/216) and nothing else: mean 2/36, variance
    # 4/36 - (1/18)^2 = 35/324 (the sum of their variances would be 2 * 1295/1296).
    assert sic_bo_round_moments([("small", Decimal(1)), ("big", Decimal(1))]) == (
        Fraction(1, 18),
        Fraction(35, 324),
    )


def test_one_sic_bo_wager_alone_is_its_par_record():
    mean, variance = sic_bo_round_moments([("total:4", Decimal("10"))])
    assert (mean, variance) == (Fraction(70, 24), 100 * Fraction(20519, 576))


def test_the_correlated_bound_is_the_square_of_the_summed_deviations():
    assert correlated_bound([Fraction(4), Fraction(9)]) == Decimal(25)


def test_par_kind_of_odds_extra_roll_and_power_odds():
    assert par_kind("craps", "odds", odds_on=("come", 6)) == "odds:come:6"
    assert par_kind("craps", "hop:1-3", power_odds=("hop:1-3", 22)) == "power_odds:hop:1-3:22"
    assert par_kind("craps", "come") == "come"
    assert par_kind("high_roll_dice", "like_kind:5", extra_roll=True) == "like_kind:5+extra"
    assert par_kind("high_roll_dice", "pip:3", extra_roll=True) == "pip:3"
    with pytest.raises(UnmappedWager):
        par_kind("craps", "odds")


def _every_kind() -> list[tuple[str, dict[str, object], str, dict[str, object]]]:
    """(game, options, kind, context) for every wager each engine takes."""
    cases: list[tuple[str, dict[str, object], str, dict[str, object]]] = []
    electronic = {"table_type": "electronic"}
    for bet in craps_bets.every_bet():
        options = electronic if bet.wager_type is craps_bets.LUCKY_SHOOTER else {}
        if bet.wager_type is craps_bets.HOT_SHOOTER:
            options = electronic
        cases.append(("craps", options, bet.kind, {}))
    for line in craps_bets.LINE_BETS:
        for point in POINT_NUMBERS:
            cases.append(("craps", {}, "odds", {"odds_on": (line.key, point)}))
    for key, choices in POWER_ODDS.items():
        for odds in choices:
            cases.append(("craps", {}, key, {"power_odds": (key, odds.wins)}))
    cases += [("sic_bo", {}, bet.kind, {}) for bet in sic_bo_bets()]
    cases += [("three_dice_football", {}, k, {}) for k in sorted(FULL_GAME_KINDS)]
    cases += [("three_dice_football", {}, k, {}) for k in sorted(SINGLE_PLAY_KINDS)]
    ten = [f"pip:{f}" for f in range(1, 7)] + [f"like_kind:{k}" for k in range(2, 9)]
    ten += ["millionaire:9", "millionaire:10", "extra_roll"]
    cases += [("high_roll_dice", {}, k, {}) for k in ten]
    cases += [("high_roll_dice", {}, f"like_kind:{k}", {"extra_roll": True}) for k in range(2, 9)]
    six = [f"pip:{f}" for f in range(1, 7)] + [f"like_kind:{k}" for k in range(2, 7)]
    cases += [("high_roll_dice", {"dice": 6}, k, {}) for k in [*six, "no_match"]]
    cases.append(("pai_gow", {}, "pai_gow", {}))
    return cases


def test_every_kind_the_engines_take_maps_to_a_complete_par_record():
    for game, options, kind, context in _every_kind():
        record = par_record(game, options, par_kind(game, kind, **context))
        assert record.total_probability == 1, (game, kind)


def test_craps_one_roll_wagers_on_one_throw_any_seven_and_any_craps_by_hand():
    # Any 7 pays 4 to 1 (6 throws of 36), Any Craps 7 to 1 (4 throws): the house's win is
    # -4 + 1 = -3 on a 7, 1 - 7 = -6 on craps, +2 otherwise. Mean (-18 - 24 + 52)/36 =
    # 5/18; E[W^2] = (6 * 9 + 4 * 36 + 26 * 4)/36 = 302/36; variance 302/36 - 25/324.
    pair = [("any_seven", Decimal(1), None), ("any_craps", Decimal(1), None)]
    assert craps_one_roll_moments(pair, CrapsOptions()) == (Fraction(5, 18), Fraction(2693, 324))


def test_every_one_roll_wager_alone_is_its_par_record_power_odds_too():
    options = CrapsOptions()
    one_roll = [bet.kind for bet in craps_bets.every_bet() if is_one_roll(bet.kind)]
    assert len(one_roll) == 7 + 1 + 1 + 4 + 1 + 17  # field..eleven, C&E, horn, highs, whirl, hops
    for kind in one_roll:
        alone = craps_one_roll_moments([(kind, Decimal(1), None)], options)
        assert alone == unit_moments(stored("craps", kind)), kind
    for key, choices in POWER_ODDS.items():
        kind = key.split(":")[0] if key.startswith(("horn", "c_and_e")) else key
        if not is_one_roll(kind):
            continue  # the Hardways: decided by a run of throws
        for odds in choices:
            alone = craps_one_roll_moments([(kind, Decimal(1), (key, odds.wins))], options)
            record = stored("craps", f"power_odds:{key}:{odds.wins}")
            assert alone == unit_moments(record), (key, odds.wins)


def test_every_high_roll_dice_wager_alone_is_its_par_record():
    for dice, kinds in (
        (10, [*(f"pip:{f}" for f in range(1, 7)), *(f"like_kind:{k}" for k in range(2, 9))]),
        (6, [*(f"pip:{f}" for f in range(1, 7)), *(f"like_kind:{k}" for k in range(2, 7))]),
    ):
        sheet = {
            r.kind: r
            for r in engine_get("high_roll_dice").par_sheet(
                engine_get("high_roll_dice").parse_options({"dice": dice})
            )
        }
        for kind in [*kinds, "millionaire:9", "millionaire:10", "extra_roll", "no_match"]:
            if kind not in sheet:
                continue  # not offered with this many dice
            alone = high_roll_dice_round_moments([("p", kind, Decimal(1))], dice)
            assert alone == unit_moments(sheet[kind]), (dice, kind)
    for k in range(2, 9):  # with the Extra Roll bought (its price counted apart)
        bought = [("p", f"like_kind:{k}", Decimal(1)), ("p", "extra_roll", Decimal(0))]
        record = stored("high_roll_dice", f"like_kind:{k}+extra")
        assert high_roll_dice_round_moments(bought, 10) == unit_moments(record), k


def test_two_pip_street_faces_on_one_roll_never_both_win():
    # The roll's face is one face: on face 1 (q1) the house pays a1 and keeps the other
    # stake, on face 2 (q2) pays a2 and keeps the other, else keeps both. Not the sum of
    # the two variances.
    (q1, a1), (q2, a2) = (
        next((o.probability, o.net) for o in stored("high_roll_dice", k).outcomes if o.net > 0)
        for k in ("pip:1", "pip:2")
    )
    mean = (1 - a1) * q1 + (1 - a2) * q2 + 2 * (1 - q1 - q2)
    second = (1 - a1) ** 2 * q1 + (1 - a2) ** 2 * q2 + 4 * (1 - q1 - q2)
    pair = [("ann", "pip:1", Decimal(1)), ("bob", "pip:2", Decimal(1))]
    assert high_roll_dice_round_moments(pair, 10) == (mean, second - mean * mean)
    apart = sum(unit_moments(stored("high_roll_dice", k))[1] for k in ("pip:1", "pip:2"))
    assert second - mean * mean < apart
