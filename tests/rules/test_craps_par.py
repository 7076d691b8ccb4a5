"""Craps PAR sheet (§ 623a.3, § 623a.5, § 623a.6, ch. 623b): every record against a value
derived here, independently of the engine.

Two dice give 36 equally likely ordered throws. Ways to make each total:
    2:1  3:2  4:3  5:4  6:5  7:6  8:5  9:4  10:3  11:2  12:1   (sum 36)
A number N (4, 5, 6, 8, 9, 10) with W ways is thrown before a 7 with probability W / (W + 6)
(only the W + 6 deciding throws count; every other throw repeats the race).

The main wagers are worked by hand below (closed forms in comments). The side wagers are
computed by small routines of this module's own, never by an absorbing-chain solver and
never by simulation: inclusion-exclusion over races against the 7 (Fire Bet, Hot Roller,
Bonus Craps), enumeration of ordered sequences (Lucky Shooter) and a forward count over the
throw number (Hot Shooter). Where the step is fiddly a second method checks the first.

The engine names its outcomes descriptively, so records are compared by net: the
probabilities of the outcomes with the same net are added up (zero-probability outcomes
dropped) and the resulting {net: probability} map must equal the one derived here exactly.
Counting conventions are the spec's (docs/regulations.md, Craps, "PAR").
"""

import json
import subprocess
import sys
from fractions import Fraction
from functools import cache
from itertools import combinations, permutations
from pathlib import Path

import pytest

from games.par import par_document
from games.rules.registry import engine_get

F = Fraction
ROOT = Path(__file__).resolve().parents[2]

WAYS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
SEVEN = WAYS[7]
POINTS = (4, 5, 6, 8, 9, 10)
HARDWAYS = (4, 6, 8, 10)
HOPS = (
    "2-2", "3-3", "4-4", "5-5",
    "1-3", "1-4", "2-3", "1-5", "2-4", "1-6", "2-5", "3-4", "2-6", "3-5", "3-6", "4-5", "4-6",
)  # fmt: skip
# Payout odds, § 623a.5(a), (g)(1), (g)(2), § 623a.6(a)-(d).
PLACE_ODDS = {4: F(9, 5), 5: F(7, 5), 6: F(7, 6), 8: F(7, 6), 9: F(7, 5), 10: F(9, 5)}
PLACE_LOSE_ODDS = {4: F(5, 11), 5: F(5, 8), 6: F(4, 5), 8: F(4, 5), 9: F(5, 8), 10: F(5, 11)}
TRUE_ODDS = {4: F(2), 5: F(3, 2), 6: F(6, 5), 8: F(6, 5), 9: F(3, 2), 10: F(2)}
LAY_ODDS = {n: 1 / TRUE_ODDS[n] for n in POINTS}  # 1 to 2, 2 to 3, 5 to 6


def p36(ways: int) -> Fraction:
    return F(ways, 36)


def before_seven(n: int) -> Fraction:
    """N before a 7: W / (W + 6)."""
    return F(WAYS[n], WAYS[n] + SEVEN)


# ---------------------------------------------------------------------------------------
# The engine's records, compared by net.


@cache
def _sheet(items: tuple[tuple[str, object], ...]) -> dict[str, object]:
    engine = engine_get("craps")
    records = engine.par_sheet(engine.parse_options(dict(items)))
    return {r.kind: r for r in records}


def sheet(**options: object) -> dict[str, object]:
    return _sheet(tuple(sorted(options.items())))


def kinds(**options: object) -> list[str]:
    return list(sheet(**options))


def by_net(record) -> dict[Fraction, Fraction]:
    merged: dict[Fraction, Fraction] = {}
    for o in record.outcomes:
        if o.probability:
            merged[F(o.net)] = merged.get(F(o.net), F(0)) + F(o.probability)
    return merged


def edge_of(expected: dict[Fraction, Fraction]) -> Fraction:
    return -sum((p * net for net, p in expected.items()), F(0))


def check(kind: str, expected: dict, edge: Fraction | None = None, **options: object) -> None:
    """The engine's record for `kind` has exactly these {net: probability} and this edge."""
    expected = {F(net): F(p) for net, p in expected.items() if p}
    assert sum(expected.values()) == 1, f"{kind}: my own outcomes do not sum to 1"
    if edge is not None:
        assert edge_of(expected) == edge, f"{kind}: my own edge arithmetic"
    records = sheet(**options)
    assert kind in records, f"{kind} missing under {options}"
    record = records[kind]
    assert by_net(record) == expected, kind
    assert record.house_edge == edge_of(expected), kind


# ---------------------------------------------------------------------------------------
# Structure of the sheet.

OPTION_SETS = [
    {},
    {"buy_lay": False},
    {"vig_percent": "2.5", "vig_collected": "on_placement"},
    {"fire_bet_paytable": "B", "hot_roller_paytable": "B", "bonus_craps_paytable": "2"},
    {"lucky_shooter_paytable": "D", "table_type": "electronic", "max_odds_multiple": 10},
    {"power_odds": False, "fire_bet_paytable": "none"},
    {"variant": "mini_craps"},
]


def default_kinds(table_type: str = "manual") -> list[str]:
    """Every kind of the spec's list, defaults: buy/lay on, every paytable, Power Odds on.

    Lucky Shooter only at a fully automated electronic table (§ 623b.2(a)); Hot Shooter
    Jackpot at an electronic or hybrid table (§ 623b.4(a)): the sheet shows what the
    table may offer.
    """
    main = ["pass", "dont_pass", "come", "dont_come"]
    main += [
        f"odds:{line}:{n}" for line in ("pass", "dont_pass", "come", "dont_come") for n in POINTS
    ]
    main += [f"{k}:{n}" for k in ("place", "place_lose", "buy", "lay") for n in POINTS]
    main += [f"hard:{n}" for n in HARDWAYS]
    main += ["field", "any_seven", "any_craps", "craps_2", "craps_3", "craps_12", "eleven"]
    main += ["c_and_e", "horn", *(f"horn_high:{n}" for n in (2, 3, 11, 12)), "whirl"]
    main += [f"hop:{h}" for h in HOPS]
    main += ["six_seven_eight", "fire", "hot_roller"]
    main += ["lucky_shooter"] if table_type == "electronic" else []
    main += ["all_small", "all_tall", "make_em_all"]
    main += ["hot_shooter"] if table_type in ("electronic", "hybrid") else []
    return main + sorted(POWER_ODDS_EXPECTED)


def _group(kind: str) -> str:
    """A kind without its parameter: `odds:pass:4` -> `odds:pass`, `hop:1-3` -> `hop`."""
    if kind.startswith("power_odds:"):
        return "power_odds"
    head, _, tail = kind.rpartition(":")
    return head if head and (tail.isdigit() or "-" in tail) else kind


@pytest.mark.parametrize("options", OPTION_SETS)
def test_par_every_record_sums_to_exactly_1(options):
    for kind, record in sheet(**options).items():
        assert record.total_probability == 1, kind
        assert all(o.probability >= 0 for o in record.outcomes), kind


@pytest.mark.parametrize("table_type", ["manual", "hybrid", "electronic"])
def test_par_every_kind_of_the_spec_once_under_default_options(table_type):
    got = kinds(table_type=table_type)
    assert len(got) == len(set(got)), "a kind twice"
    assert sorted(got) == sorted(default_kinds(table_type))


def test_par_kinds_come_in_the_spec_order():
    # The spec: "Kinds, in this order: pass, dont_pass, come, dont_come, odds:pass:N, ...",
    # Power Odds records last. Compared group by group (the order inside Power Odds is free).
    def groups(seq: list[str]) -> list[str]:
        out: list[str] = []
        for kind in seq:
            if not out or out[-1] != _group(kind):
                out.append(_group(kind))
        return out

    assert groups(kinds(table_type="electronic")) == groups(default_kinds("electronic"))
    for prefix in ("odds:pass:", "place:", "place_lose:", "buy:", "lay:"):
        assert [k for k in kinds() if k.startswith(prefix)] == [f"{prefix}{n}" for n in POINTS]


def test_par_buy_and_lay_only_when_offered():
    # § 623a.3(a)(41), (42): offered only if the Rules Submission says so.
    without = kinds(buy_lay=False)
    assert not [k for k in without if k.startswith(("buy:", "lay:"))]
    assert [k for k in kinds() if k not in without] == [
        *(f"buy:{n}" for n in POINTS),
        *(f"lay:{n}" for n in POINTS),
    ]


@pytest.mark.parametrize(
    ("option", "gone"),
    [
        ("fire_bet_paytable", ["fire"]),
        ("hot_roller_paytable", ["hot_roller"]),
        ("lucky_shooter_paytable", ["lucky_shooter"]),
        ("bonus_craps_paytable", ["all_small", "all_tall", "make_em_all"]),
    ],
)
def test_par_side_wager_absent_when_its_paytable_is_none(option, gone):
    without = kinds(**{option: "none"}, table_type="electronic")
    assert [k for k in kinds(table_type="electronic") if k not in without] == gone


def test_par_power_odds_records_only_when_offered():
    # § 623b.5(a): Power Odds only if the Rules Submission offers them.
    without = kinds(power_odds=False)
    assert not [k for k in without if k.startswith("power_odds:")]
    assert sorted(k for k in kinds() if k not in without) == sorted(POWER_ODDS_EXPECTED)


def test_par_every_wager_but_odds_and_power_odds_favours_the_house():
    # (Lucky Shooter included: read as net +1, its come out 7/11 gave the player 9.03%.)
    for kind, record in sheet().items():
        if kind.startswith(("odds:", "power_odds:")):
            continue
        assert record.house_edge > 0, kind


# ---------------------------------------------------------------------------------------
# Line bets, from placement (the come out roll for Pass/Don't Pass, the next throw for
# Come/Don't Come - the same race).
#
# Pass, § 623a.3(a)(1):
#   win  = P(7 or 11) + sum over points P(point) * P(point again before 7)
#        = 8/36 + 2 * (3/36 * 3/9 + 4/36 * 4/10 + 5/36 * 5/11)
#        = 2/9 + 2 * (1/36 + 2/45 + 25/396)
#        = 440/1980 + 2 * (55 + 88 + 125)/1980 = (440 + 536)/1980 = 976/1980 = 244/495
#   lose = 251/495; edge = (251 - 244)/495 = 7/495.
# Don't Pass, § 623a.3(a)(2): push on 12 (1/36);
#   win  = P(2 or 3) + sum P(point) * 6/(W + 6)
#        = 3/36 + 2 * (3/36 * 6/9 + 4/36 * 6/10 + 5/36 * 6/11)
#        = 165/1980 + 2 * (110 + 132 + 150)/1980 = 949/1980
#   lose = the Pass win = 244/495 = 976/1980; edge = (976 - 949)/1980 = 27/1980 = 3/220.
PASS = {1: F(244, 495), -1: F(251, 495)}
DONT_PASS = {1: F(949, 1980), 0: F(1, 36), -1: F(244, 495)}


@pytest.mark.parametrize("kind", ["pass", "come"])
def test_623a_3_a_1_3_pass_and_come_par_by_hand(kind):
    check(kind, PASS, F(7, 495))


@pytest.mark.parametrize("kind", ["dont_pass", "dont_come"])
def test_623a_3_a_2_4_dont_pass_and_dont_come_par_by_hand(kind):
    check(kind, DONT_PASS, F(3, 220))


# Odds, § 623a.6, from the point being established: true odds, edge 0.
#   taken on 4: win 3/9 at 2 to 1, lose 6/9: 2/3 - 2/3 = 0; 5: 4/10 * 3/2 = 6/10;
#   6: 5/11 * 6/5 = 6/11. Laid: the mirror (win 6/(W+6) at W/6).
@pytest.mark.parametrize("line", ["pass", "come"])
@pytest.mark.parametrize("n", POINTS)
def test_623a_6_a_c_odds_taken_par(line, n):
    check(f"odds:{line}:{n}", {TRUE_ODDS[n]: before_seven(n), -1: 1 - before_seven(n)}, F(0))


@pytest.mark.parametrize("line", ["dont_pass", "dont_come"])
@pytest.mark.parametrize("n", POINTS)
def test_623a_6_b_d_odds_laid_par(line, n):
    check(f"odds:{line}:{n}", {LAY_ODDS[n]: 1 - before_seven(n), -1: before_seven(n)}, F(0))


# ---------------------------------------------------------------------------------------
# Place, Place to Lose, Buy, Lay, Hardways: as working bets; only deciding throws count.
#
# Place to win (§ 623a.3(a)(5), § 623a.5(a)):
#   4: 3/9 * 9/5 - 6/9 = 3/5 - 2/3 = -1/15            edge 1/15
#   5: 4/10 * 7/5 - 6/10 = 28/50 - 30/50 = -1/25       edge 1/25
#   6: 5/11 * 7/6 - 6/11 = 35/66 - 36/66 = -1/66       edge 1/66
# Place to lose (§ 623a.3(a)(6)):
#   4: 6/9 * 5/11 - 3/9 = 30/99 - 33/99 = -1/33        edge 1/33
#   5: 6/10 * 5/8 - 4/10 = 30/80 - 32/80 = -1/40       edge 1/40
#   6: 6/11 * 4/5 - 5/11 = 24/55 - 25/55 = -1/55       edge 1/55
PLACE_EDGE = {4: F(1, 15), 5: F(1, 25), 6: F(1, 66), 8: F(1, 66), 9: F(1, 25), 10: F(1, 15)}
PLACE_LOSE_EDGE = {4: F(1, 33), 5: F(1, 40), 6: F(1, 55), 8: F(1, 55), 9: F(1, 40), 10: F(1, 33)}


@pytest.mark.parametrize("n", POINTS)
def test_623a_3_a_5_place_to_win_par_by_hand(n):
    win = before_seven(n)
    check(f"place:{n}", {PLACE_ODDS[n]: win, -1: 1 - win}, PLACE_EDGE[n])


@pytest.mark.parametrize("n", POINTS)
def test_623a_3_a_6_place_to_lose_par_by_hand(n):
    win = 1 - before_seven(n)
    check(f"place_lose:{n}", {PLACE_LOSE_ODDS[n]: win, -1: 1 - win}, PLACE_LOSE_EDGE[n])


# Buy and Lay (§ 623a.3(a)(41), (42), § 623a.5(g)): true odds, so without a vigorish the
# expectation is 0; a vigorish v (vig_percent / 100 of the amount wagered):
#   on_win:       win net = odds - v, lose net = -1       -> edge = P(win) * v
#   on_placement: win net = odds - v, lose net = -1 - v   -> edge = v
# Buy 4 at 5%: 1/3 * (2 - 1/20) - 2/3 = -1/60 (edge 1/60); collected at placement: 1/20.
# Lay 4 at 5%: 2/3 * (1/2 - 1/20) - 1/3 = 2/3 * 9/20 - 1/3 = 3/10 - 1/3 = -1/30 (edge 1/30).
VIG_SETTINGS = [
    ("5", "on_win"),
    ("5", "on_placement"),
    ("2.5", "on_win"),
    ("2.5", "on_placement"),
    ("4", "on_placement"),
    ("0", "on_win"),
]


def _vig_options(percent: str, collected: str) -> dict[str, object]:
    return {"vig_percent": percent, "vig_collected": collected}


@pytest.mark.parametrize(("percent", "collected"), VIG_SETTINGS)
@pytest.mark.parametrize("n", POINTS)
def test_623a_5_g_buy_bet_par_with_the_vigorish(n, percent, collected):
    v = F(percent) / 100
    win = before_seven(n)
    lose_net = -1 - v if collected == "on_placement" else F(-1)
    edge = v if collected == "on_placement" else win * v
    check(
        f"buy:{n}",
        {TRUE_ODDS[n] - v: win, lose_net: 1 - win},
        edge,
        **_vig_options(percent, collected),
    )


@pytest.mark.parametrize(("percent", "collected"), VIG_SETTINGS)
@pytest.mark.parametrize("n", POINTS)
def test_623a_5_g_lay_bet_par_with_the_vigorish(n, percent, collected):
    v = F(percent) / 100
    win = 1 - before_seven(n)
    lose_net = -1 - v if collected == "on_placement" else F(-1)
    edge = v if collected == "on_placement" else win * v
    check(
        f"lay:{n}",
        {LAY_ODDS[n] - v: win, lose_net: 1 - win},
        edge,
        **_vig_options(percent, collected),
    )


def test_623a_5_g_buy_4_and_lay_4_default_vigorish_by_hand():
    check("buy:4", {F(39, 20): F(1, 3), -1: F(2, 3)}, F(1, 60))
    check("lay:4", {F(9, 20): F(2, 3), -1: F(1, 3)}, F(1, 30))
    on_placement = {"vig_collected": "on_placement"}
    check("buy:4", {F(39, 20): F(1, 3), F(-21, 20): F(2, 3)}, F(1, 20), **on_placement)
    check("lay:4", {F(9, 20): F(2, 3), F(-21, 20): F(1, 3)}, F(1, 20), **on_placement)
    # The edge moves with the options exactly as computed.
    assert sheet(vig_percent="2.5")["buy:6"].house_edge == F(5, 11) * F(1, 40)  # 1/88
    assert sheet()["buy:6"].house_edge == F(1, 44)
    assert sheet(vig_percent="0")["lay:5"].house_edge == 0


# Hardways (§ 623a.3(a)(7)-(10)): the pair (1 way) before the easy way or a 7.
#   4/10: 1 / (1 + 2 + 6) = 1/9 at 7 to 1: 7/9 - 8/9 = -1/9      edge 1/9
#   6/8:  1 / (1 + 4 + 6) = 1/11 at 9 to 1: 9/11 - 10/11 = -1/11  edge 1/11
@pytest.mark.parametrize(
    ("n", "win", "net", "edge"),
    [
        (4, F(1, 9), 7, F(1, 9)),
        (10, F(1, 9), 7, F(1, 9)),
        (6, F(1, 11), 9, F(1, 11)),
        (8, F(1, 11), 9, F(1, 11)),
    ],
)
def test_623a_3_a_7_10_hardway_par_by_hand(n, win, net, edge):
    check(f"hard:{n}", {net: win, -1: 1 - win}, edge)


# ---------------------------------------------------------------------------------------
# One-roll wagers (§ 623a.3(a)(11)-(39), § 623a.5(a)-(e)), over the 36 throws.
#   Field: 2, 12 (2/36) at 2; 3, 4, 9, 10, 11 (2+3+4+3+2 = 14/36) at 1; 5-8 lose (20/36):
#          (4 + 14 - 20)/36 = -1/18.
#   Any Seven 6/36 at 4: (24 - 30)/36 = -1/6.  Any Craps 4/36 at 7: (28 - 32)/36 = -1/9.
#   Craps 2 / 12: (30 - 35)/36 = -5/36.  Craps 3 / Eleven: 2/36 at 15: (30 - 34)/36 = -1/9.
#   C and E (b): craps 4/36 -> half at 7 to 1, half lost = 3; 11 (2/36) -> 15/2 - 1/2 = 7:
#          (12 + 14 - 30)/36 = -1/9.
#   Horn (c): 2/12 -> 30/4 - 3/4 = 27/4; 3/11 -> 15/4 - 3/4 = 3:
#          (2 * 27/4 + 4 * 3 - 30)/36 = (27/2 - 18)/36 = -1/8.
#   Horn High 2 (d): on 2: 2/5 * 30 - 3/5 = 57/5; on 12: 30/5 - 4/5 = 26/5; on 3/11: 15/5 - 4/5
#          = 11/5: (57 + 26 + 4 * 11 - 150)/5/36 = -23/180.
#   Horn High 3: on 3: 2/5 * 15 - 3/5 = 27/5; on 11: 11/5; on 2/12: 26/5:
#          (2 * 27 + 2 * 11 + 2 * 26 - 150)/5/36 = -22/180 = -11/90.
#   Whirl (e): on 7: 4/5 - 4/5 = 0; on 2/12: 30/5 - 4/5 = 26/5; on 3/11: 15/5 - 4/5 = 11/5:
#          (2 * 26 + 4 * 11 - 120)/5/36 = -24/180 = -2/15.
#   6-7-8: 1-5, 2-4, 2-6, 3-5 (8 throws) and 7 (6) at 1; 3-3, 4-4 (2) at 2; 20 lose:
#          (14 + 4 - 20)/36 = -1/18.
HORN_HIGH_2 = {F(57, 5): p36(1), F(26, 5): p36(1), F(11, 5): p36(4), -1: p36(30)}
HORN_HIGH_3 = {F(27, 5): p36(2), F(11, 5): p36(2), F(26, 5): p36(2), -1: p36(30)}
ONE_ROLL = [
    ("field", {2: p36(2), 1: p36(14), -1: p36(20)}, F(1, 18)),
    ("any_seven", {4: p36(6), -1: p36(30)}, F(1, 6)),
    ("any_craps", {7: p36(4), -1: p36(32)}, F(1, 9)),
    ("craps_2", {30: p36(1), -1: p36(35)}, F(5, 36)),
    ("craps_3", {15: p36(2), -1: p36(34)}, F(1, 9)),
    ("craps_12", {30: p36(1), -1: p36(35)}, F(5, 36)),
    ("eleven", {15: p36(2), -1: p36(34)}, F(1, 9)),
    ("c_and_e", {3: p36(4), 7: p36(2), -1: p36(30)}, F(1, 9)),
    ("horn", {F(27, 4): p36(2), 3: p36(4), -1: p36(30)}, F(1, 8)),
    ("horn_high:2", HORN_HIGH_2, F(23, 180)),
    ("horn_high:12", HORN_HIGH_2, F(23, 180)),
    ("horn_high:3", HORN_HIGH_3, F(11, 90)),
    ("horn_high:11", HORN_HIGH_3, F(11, 90)),
    ("whirl", {0: p36(6), F(26, 5): p36(2), F(11, 5): p36(4), -1: p36(24)}, F(2, 15)),
    ("six_seven_eight", {1: p36(14), 2: p36(2), -1: p36(20)}, F(1, 18)),
]


@pytest.mark.parametrize(("kind", "expected", "edge"), ONE_ROLL, ids=[k for k, _, _ in ONE_ROLL])
def test_623a_5_one_roll_wager_par_by_hand(kind, expected, edge):
    check(kind, expected, edge)


# Hops (§ 623a.3(a)(22)-(38)): a pair is 1 throw in 36 at 30 to 1: (30 - 35)/36 = -5/36;
# two different faces are 2 throws at 15 to 1: (30 - 34)/36 = -1/9.
@pytest.mark.parametrize("hop", HOPS)
def test_623a_3_a_22_38_hop_par_by_hand(hop):
    a, b = hop.split("-")
    if a == b:
        check(f"hop:{hop}", {30: p36(1), -1: p36(35)}, F(5, 36))
    else:
        check(f"hop:{hop}", {15: p36(2), -1: p36(34)}, F(1, 9))


# ---------------------------------------------------------------------------------------
# Fire Bet (§ 623a.3(a)(40), § 623a.5(f), § 623a.11): distinct points made before the
# seven-out, from a new shooter's first come out roll.
#
# Split the shooter's hand into point cycles; come out 2, 3, 7, 11, 12 change nothing (the
# next throw is a come out roll of the same shooter), so per cycle the point is p with
# probability W/24 and then it is made with W/(W + 6):
#   q_p = W^2 / (24 (W + 6)):  q_4 = q_10 = 1/24, q_5 = q_9 = 1/15, q_6 = q_8 = 25/264
#   sum = 2 * (55 + 88 + 125)/1320 = 67/165; seven-out per cycle s = 98/165.
# P(no point of a set B made before the seven-out) = s / (s + q(B)) (only cycles that make a
# point of B or seven out decide it). Then with Möbius inversion:
#   P(made set is inside T) = s / (s + q(POINTS minus T))
#   P(made set = A) = sum over T inside A of (-1)^|A - T| * s / (s + q(POINTS minus T)).
Q_CYCLE = {p: F(WAYS[p] ** 2, 24 * (WAYS[p] + SEVEN)) for p in POINTS}
S_CYCLE = 1 - sum(Q_CYCLE.values())


def subsets(items):
    for r in range(len(items) + 1):
        yield from combinations(items, r)


def fire_counts() -> dict[int, Fraction]:
    counts = dict.fromkeys(range(7), F(0))
    for made in subsets(POINTS):
        exact = F(0)
        for inside in subsets(made):
            outside = sum(Q_CYCLE[p] for p in POINTS if p not in inside)
            exact += (-1) ** (len(made) - len(inside)) * S_CYCLE / (S_CYCLE + outside)
        counts[len(made)] += exact
    return counts


@cache
def _fire_recursion(made: frozenset) -> dict[int, Fraction]:
    # Second method: condition on the next cycle; a cycle making an old point loops back.
    stay = sum(Q_CYCLE[p] for p in made)
    out = {len(made): S_CYCLE / (1 - stay)}
    for p in POINTS:
        if p not in made:
            for k, v in _fire_recursion(made | {p}).items():
                out[k] = out.get(k, F(0)) + Q_CYCLE[p] / (1 - stay) * v
    return out


def test_fire_bet_my_two_methods_agree():
    assert Q_CYCLE[4] == F(1, 24) and Q_CYCLE[5] == F(1, 15) and Q_CYCLE[6] == F(25, 264)
    assert F(98, 165) == S_CYCLE
    counts = fire_counts()
    assert counts[0] == S_CYCLE  # the first cycle sevens out
    assert sum(counts.values()) == 1
    assert counts == _fire_recursion(frozenset())


FIRE_PAYS = {"A": (24, 249, 999), "B": (39, 199, 499)}


def fire_expected(table: str) -> dict[Fraction, Fraction]:
    counts = fire_counts()
    four, five, six = FIRE_PAYS[table]
    return {
        four: counts[4],
        five: counts[5],
        six: counts[6],
        -1: counts[0] + counts[1] + counts[2] + counts[3],
    }


@pytest.mark.parametrize("table", ["A", "B"])
def test_623a_5_f_fire_bet_par(table):
    expected = fire_expected(table)
    # Published figure for 24/249/999: 20.76%.
    if table == "A":
        assert abs(float(edge_of(expected)) - 0.2076) < 0.0001
    check("fire", expected, fire_bet_paytable=table)


# ---------------------------------------------------------------------------------------
# Hot Roller (§ 623b.1): the dice combinations thrown before any 7 (come out roll or not),
# from the first throw of a series; a number is complete when all its combinations are in.
# P(every combination of a set C before the 7) = sum over B inside C of (-1)^|B| 6/(6 + w(B))
# (w in 36ths). Expanding prod over C of (1 - x^w) gives the sum grouped by w(B).
# E.g. the 4 alone (1-3: 2 ways, 2-2: 1): 1 - 6/8 - 6/7 + 6/9 = (84 - 63 - 72 + 56)/84 = 5/84.
# Exactly the numbers N complete: Möbius over supersets M of N of P(all of M complete).
HOT_ROLLER_COMBOS = {
    4: {"1-3": 2, "2-2": 1},
    5: {"1-4": 2, "2-3": 2},
    6: {"1-5": 2, "2-4": 2, "3-3": 1},
    8: {"2-6": 2, "3-5": 2, "4-4": 1},
    9: {"3-6": 2, "4-5": 2},
    10: {"4-6": 2, "5-5": 1},
}


def all_before_seven(weights) -> Fraction:
    """P(every one of the events with these ways (in 36ths) before a 7), inclusion-exclusion."""
    signed = {0: 1}
    for w in weights:
        nxt = dict(signed)
        for total, c in signed.items():
            nxt[total + w] = nxt.get(total + w, 0) - c
        signed = nxt
    return sum((c * F(SEVEN, SEVEN + total) for total, c in signed.items()), F(0))


def hot_roller_counts() -> dict[int, Fraction]:
    complete = {
        m: all_before_seven([w for n in m for w in HOT_ROLLER_COMBOS[n].values()])
        for m in subsets(POINTS)
    }
    counts = dict.fromkeys(range(7), F(0))
    for n_set in subsets(POINTS):
        exact = sum(
            (
                (-1) ** (len(m) - len(n_set)) * p
                for m, p in complete.items()
                if set(n_set) <= set(m)
            ),
            F(0),
        )
        counts[len(n_set)] += exact
    return counts


def test_hot_roller_my_two_methods_agree():
    assert all_before_seven([2, 1]) == F(5, 84)
    counts = hot_roller_counts()
    assert sum(counts.values()) == 1
    # Second method: condition on the next throw among the 7 and the unseen combinations.
    combos = [(n, w) for n, d in HOT_ROLLER_COMBOS.items() for w in d.values()]

    @cache
    def walk(seen: int) -> dict[int, Fraction]:
        done = sum(
            all(seen >> i & 1 for i, (m, _) in enumerate(combos) if m == n)
            for n in HOT_ROLLER_COMBOS
        )
        rest = [(i, w) for i, (_, w) in enumerate(combos) if not seen >> i & 1]
        deciding = SEVEN + sum(w for _, w in rest)
        out = {done: F(SEVEN, deciding)}
        for i, w in rest:
            for k, v in walk(seen | 1 << i).items():
                out[k] = out.get(k, F(0)) + F(w, deciding) * v
        return out

    assert {k: v for k, v in counts.items() if v} == walk(0)


@pytest.mark.parametrize(("table", "top"), [("A", 200), ("B", 300)])
def test_623b_1_h_hot_roller_par(table, top):
    c = hot_roller_counts()
    expected = {5: c[2], 10: c[3], 20: c[4], 50: c[5], top: c[6], -1: c[0] + c[1]}
    check("hot_roller", expected, hot_roller_paytable=table)


# ---------------------------------------------------------------------------------------
# Bonus Craps (§ 623a.12 standard reading, § 623b.3): every number of the set before any 7,
# from the first throw of a series: sum over B inside the set of (-1)^|B| 6/(6 + w(B)).
# All Small = All Tall (mirror) = 20049/760760 = 0.026354; at 34 to 1 the edge is
# 1 - 35 * 20049/760760 = 59045/760760 = 7.7613% (the published 7.76%).
# Make 'em All = 126538525259/24067258815600 = 0.0052577; at 175 to 1: 7.4644%.
# (The brief's "about 7.99%" does not follow from this reading; the commonly published
# figure for 175 to 1 is 7.46%, which this matches.)
BONUS_SETS = {
    "all_small": (2, 3, 4, 5, 6),
    "all_tall": (8, 9, 10, 11, 12),
    "make_em_all": (2, 3, 4, 5, 6, 8, 9, 10, 11, 12),
}
BONUS_PAYS = {"1": {"all_small": 34, "all_tall": 34, "make_em_all": 175},
              "2": {"all_small": 30, "all_tall": 30, "make_em_all": 150}}  # fmt: skip


def bonus_win(kind: str) -> Fraction:
    return all_before_seven([WAYS[n] for n in BONUS_SETS[kind]])


@cache
def _first_of(missing: tuple[int, ...]) -> Fraction:
    # Second method: the next deciding throw is a 7 (lose) or one of the missing numbers.
    if not missing:
        return F(1)
    deciding = SEVEN + sum(WAYS[n] for n in missing)
    return sum(
        (F(WAYS[n], deciding) * _first_of(tuple(m for m in missing if m != n)) for n in missing),
        F(0),
    )


def test_bonus_craps_my_two_methods_agree_and_published_edges():
    for kind, numbers in BONUS_SETS.items():
        assert bonus_win(kind) == _first_of(numbers), kind
    assert bonus_win("all_small") == F(20049, 760760) == bonus_win("all_tall")
    assert bonus_win("make_em_all") == F(126538525259, 24067258815600)
    assert 1 - 35 * bonus_win("all_small") == F(59045, 760760)
    assert round(float(1 - 35 * bonus_win("all_small")), 4) == 0.0776
    assert round(float(1 - 176 * bonus_win("make_em_all")), 4) == 0.0746


@pytest.mark.parametrize("table", ["1", "2"])
@pytest.mark.parametrize("kind", sorted(BONUS_SETS))
def test_623b_3_c_bonus_craps_par(kind, table):
    win = bonus_win(kind)
    check(kind, {BONUS_PAYS[table][kind]: win, -1: 1 - win}, bonus_craps_paytable=table)


# ---------------------------------------------------------------------------------------
# Lucky Shooter (§ 623b.2), from placement to its one decision: come out 2, 3, 12 lose (4/36);
# a come out 7 or 11 (8/36) is paid "1 for 1", the stake itself, and the wager "remain[s]
# working for the next come out roll": no decision, the same come out again. So each decision
# below has its one-cycle probability times 1 + 8/36 + (8/36)^2 + ... = 36/28.
# A point P (W/36), then each throw that is one of the other five point numbers not yet
# thrown adds it, any other throw settles with the count k; after all five the next throw
# settles (P: the top award).
# Enumerated over the ordered sequences of distinct other points:
#   P(k, sequence o1..ok) = W(P)/36 * prod W(oi)/36 * (36 - ways of the others not thrown)/36
#   k = 5: W(P)/36 * prod/36^5 * (W(P)/36 for the top, (36 - W(P))/36 for "5 of 5").
# "X for 1" returns X including the stake: net X - 1.
# The text's examples: 9; 10, 4, 6, 10 -> the repeat 10 settles with 3; 9; 10, 4, 6, 8, 5, 9 ->
# top; 6; 9, 6 -> the point settles with 1 -> lose. All three are this rule.
LUCKY_PAYS = {  # (5 + point, 5, 4, 3, 2) "for 1"; None: N/A (a loss)
    "A": (1000, 150, 15, 5, None),
    "B": (500, 100, 10, 4, 2),
    "C": (1000, 150, 20, 5, None),
    "D": (500, 100, 10, 5, 2),
}


def lucky_point_phase() -> dict[object, Fraction]:
    out: dict[object, Fraction] = {}
    for point in POINTS:
        others = [n for n in POINTS if n != point]
        for k in range(6):
            for seq in permutations(others, k):
                pr = p36(WAYS[point])
                for n in seq:
                    pr *= p36(WAYS[n])
                if k < 5:
                    not_thrown = sum(WAYS[n] for n in others if n not in seq)
                    out[k] = out.get(k, F(0)) + pr * p36(36 - not_thrown)
                else:
                    out["top"] = out.get("top", F(0)) + pr * p36(WAYS[point])
                    out[5] = out.get(5, F(0)) + pr * p36(36 - WAYS[point])
    return out


@pytest.mark.parametrize("table", sorted(LUCKY_PAYS))
def test_623b_2_lucky_shooter_par(table):
    phase = lucky_point_phase()
    assert sum(phase.values()) == F(24, 36)
    # By hand: the point, then at once a settling throw: each P has 36 - (24 - W(P)) = 12 + W
    # settling throws: sum W(P)(12 + W(P))/36^2 = 2 * (3 * 15 + 4 * 16 + 5 * 17)/1296 = 388/1296.
    assert phase[0] == F(388, 1296)
    top, five, four, three, two = LUCKY_PAYS[table]
    expected: dict[Fraction, Fraction] = {}

    def add(net, p):
        expected[F(net)] = expected.get(F(net), F(0)) + p

    repeats = F(36, 28)  # come out 7s and 11s before the decision: no resolution, no money
    add(-1, (p36(4) + phase[0] + phase[1]) * repeats)  # come out craps; 0 or 1 other point
    add(top - 1, phase["top"] * repeats)
    add(five - 1, phase[5] * repeats)
    add(four - 1, phase[4] * repeats)
    add(three - 1, phase[3] * repeats)
    add(two - 1 if two else -1, phase[2] * repeats)
    # Per decided wager: A 16.96%, B 16.11%, C 10.53%, D 10.84%; per come out cycle (the 7 or
    # 11 counted as a cycle returning 0) they were 13.19%, 12.53%, 8.19%, 8.43%: times 36/28.
    per_cycle = {"A": F(249299, 1889568), "B": F(118345, 944784), "C": F(154799, 1889568)}
    per_cycle["D"] = F(159317, 1889568)
    edges = {"A": F(249299, 1469664), "B": F(118345, 734832), "C": F(154799, 1469664)}
    edges["D"] = F(159317, 1469664)
    assert edges[table] == per_cycle[table] * repeats
    assert edge_of(expected) == edges[table]
    check("lucky_shooter", expected, lucky_shooter_paytable=table, table_type="electronic")


# ---------------------------------------------------------------------------------------
# Hot Shooter (§ 623b.4): the spec counts every throw from the come out roll through the
# seven-out, both included. Forward count: the probability of each state (come out roll
# next, or point p on) after n throws with no seven-out yet; the seven-out at throw n + 1 is
# P(point on after n) * 6/36.
# By hand: N = 2 is a point then a 7: 24/36 * 6/36 = 1/9. N = 3: craps/7/11 then point then
# 7 (12/36 * 1/9) or point, a non-deciding throw, 7 (sum W(30 - W) * 6/36^3 with
# sum W(30 - W) = 2 * (81 + 104 + 125) = 620): 1728/46656 + 3720/46656 = 5448/46656.
def hot_shooter_lengths(up_to: int = 49) -> dict[int, Fraction]:
    state: dict[object, Fraction] = {"come_out": F(1)}
    ends: dict[int, Fraction] = {}
    for n in range(1, up_to + 1):
        nxt: dict[object, Fraction] = {}
        ends[n] = F(0)
        for where, pr in state.items():
            if where == "come_out":
                for total, ways in WAYS.items():
                    go = total if total in POINTS else "come_out"
                    nxt[go] = nxt.get(go, F(0)) + pr * p36(ways)
            else:
                ends[n] += pr * p36(SEVEN)
                nxt["come_out"] = nxt.get("come_out", F(0)) + pr * p36(WAYS[where])
                nxt[where] = nxt.get(where, F(0)) + pr * p36(36 - SEVEN - WAYS[where])
        state = nxt
    return ends


HOT_SHOOTER_BANDS = [  # (first count, last count or None, net), § 623b.4(d), (e)
    (2, 7, -1), (8, 15, 0), (16, 23, 2), (24, 31, 4), (32, 39, 6), (40, 44, 11), (45, 49, 29),
]  # fmt: skip


def test_623b_4_hot_shooter_par():
    lengths = hot_shooter_lengths()
    assert lengths[1] == 0 and lengths[2] == F(1, 9) and lengths[3] == F(5448, 46656)
    expected = {
        net: sum(lengths[n] for n in range(lo, hi + 1)) for lo, hi, net in HOT_SHOOTER_BANDS
    }
    expected[99] = 1 - sum(lengths.values())  # 50 throws or more
    # 9.07%; the published analysis of the product (a slightly different top band) ~9.9%.
    assert round(float(edge_of(expected)), 4) == 0.0907
    check("hot_shooter", expected, table_type="electronic")
    check("hot_shooter", expected, table_type="hybrid")
    assert "hot_shooter" not in kinds()  # § 623b.4(a): not at a manual table


# ---------------------------------------------------------------------------------------
# Power Odds (§ 623b.5): the wager whose first throw after placement is boosted.
#   any_craps: (4N - 32)/36:  10 -> +8/36 (edge -2/9);  14 -> +24/36 (edge -2/3)
#   any_seven: (6N - 30)/36:   6 -> edge -1/6;  8 -> edge -1/2
#   eleven and a non-pair hop: (2N - 34)/36: 22 -> edge -5/18; 30 -> edge -13/18
#   a pair hop: (N - 35)/36: 45 -> edge -5/18; 60 -> edge -25/36
#   horn:3-11 (the 3 and 11 quarters at N): 3/11 -> N/4 - 3/4, 2/12 -> 27/4:
#       22: (2 * 27/4 + 4 * 19/4 - 30)/36 = (130/4 - 120/4)/36 = 5/72 -> edge -5/72
#       30: 27/4 on 6 throws: (162/4 - 120/4)/36 = 7/24 -> edge -7/24
#   horn:2-12: 2/12 -> N/4 - 3/4, 3/11 -> 3:
#       45: (2 * 21/2 + 12 - 30)/36 = 1/12 -> edge -1/12;  60: (57/2 - 18)/36 = 7/24
#   c_and_e:craps (whole wager at N on 2, 3, 12; 7 on 11): 4: (16 + 14 - 30)/36 = 0;
#       6: (24 + 14 - 30)/36 = 2/9 -> edge -2/9
#   c_and_e:11 (3 on craps, N on 11): 10: (12 + 20 - 30)/36 = 1/18; 14: 10/36 = 5/18
#   hard:4/10: the pair at once 1/36 (N); easy or 7 at once 8/36; otherwise (27/36) the usual
#       race, 1/9 at 7 to 1: 27/36 * 1/9 = 3/36 at 7, 24/36 lost:
#       10: (10 + 21 - 32)/36 = -1/36 (edge 1/36); 14: (14 + 21 - 32)/36 -> edge -1/12
#   hard:6/8: 1/36 at N; 10/36 lost at once; 25/36 * 1/11 = 25/396 at 9; 250/396 lost later:
#       13: (143 + 225 - 360)/396 = 8/396 -> edge -2/99; 18: 63/396 -> edge -7/44
def _one_roll_boost(ways: int, n: int) -> dict:
    return {n: p36(ways), -1: 1 - p36(ways)}


def _hard_boost(n: int, value: int) -> dict:
    easy = {4: 2, 10: 2, 6: 4, 8: 4}[n]
    pays = {4: 7, 10: 7, 6: 9, 8: 9}[n]
    later = p36(36 - 1 - easy - SEVEN) * F(1, 1 + easy + SEVEN)
    return {value: p36(1), pays: later, -1: 1 - p36(1) - later}


def _power_odds_expected() -> dict[str, tuple[dict, Fraction]]:
    out: dict[str, tuple[dict, Fraction]] = {}

    def put(key, value, expected, edge):
        out[f"power_odds:{key}:{value}"] = (expected, edge)

    put("any_craps", 10, _one_roll_boost(4, 10), F(-2, 9))
    put("any_craps", 14, _one_roll_boost(4, 14), F(-2, 3))
    put("any_seven", 6, _one_roll_boost(6, 6), F(-1, 6))
    put("any_seven", 8, _one_roll_boost(6, 8), F(-1, 2))
    put("eleven", 22, _one_roll_boost(2, 22), F(-5, 18))
    put("eleven", 30, _one_roll_boost(2, 30), F(-13, 18))
    for hop in HOPS:
        a, b = hop.split("-")
        if a == b:
            put(f"hop:{hop}", 45, _one_roll_boost(1, 45), F(-5, 18))
            put(f"hop:{hop}", 60, _one_roll_boost(1, 60), F(-25, 36))
        else:
            put(f"hop:{hop}", 22, _one_roll_boost(2, 22), F(-5, 18))
            put(f"hop:{hop}", 30, _one_roll_boost(2, 30), F(-13, 18))
    put("horn:3-11", 22, {F(27, 4): p36(2), F(19, 4): p36(4), -1: p36(30)}, F(-5, 72))
    put("horn:3-11", 30, {F(27, 4): p36(6), -1: p36(30)}, F(-7, 24))
    put("horn:2-12", 45, {F(21, 2): p36(2), 3: p36(4), -1: p36(30)}, F(-1, 12))
    put("horn:2-12", 60, {F(57, 4): p36(2), 3: p36(4), -1: p36(30)}, F(-7, 24))
    put("c_and_e:craps", 4, {4: p36(4), 7: p36(2), -1: p36(30)}, F(0))
    put("c_and_e:craps", 6, {6: p36(4), 7: p36(2), -1: p36(30)}, F(-2, 9))
    put("c_and_e:11", 10, {3: p36(4), 10: p36(2), -1: p36(30)}, F(-1, 18))
    put("c_and_e:11", 14, {3: p36(4), 14: p36(2), -1: p36(30)}, F(-5, 18))
    for n in (4, 10):
        put(f"hard:{n}", 10, _hard_boost(n, 10), F(1, 36))
        put(f"hard:{n}", 14, _hard_boost(n, 14), F(-1, 12))
    for n in (6, 8):
        put(f"hard:{n}", 13, _hard_boost(n, 13), F(-2, 99))
        put(f"hard:{n}", 18, _hard_boost(n, 18), F(-7, 44))
    return out


POWER_ODDS_EXPECTED = _power_odds_expected()


def test_623b_5_power_odds_hardway_by_hand():
    assert _hard_boost(4, 14) == {14: F(1, 36), 7: F(3, 36), -1: F(32, 36)}
    assert _hard_boost(6, 18) == {18: F(11, 396), 9: F(25, 396), -1: F(360, 396)}
    assert len(POWER_ODDS_EXPECTED) == 2 * (3 + 17 + 2 + 2 + 4)


@pytest.mark.parametrize("kind", sorted(POWER_ODDS_EXPECTED))
def test_623b_5_d_power_odds_par(kind):
    expected, edge = POWER_ODDS_EXPECTED[kind]
    check(kind, expected, edge)


# ---------------------------------------------------------------------------------------
# The shared tool and its command line.


def test_par_document_for_craps():
    document = par_document("craps", {})
    wagers = {w["kind"]: w for w in document["wagers"]}
    assert wagers["pass"]["house_edge_exact"] == "7/495"
    assert wagers["pass"]["house_edge"] == "0.0141414141"
    assert wagers["dont_pass"]["house_edge_exact"] == "3/220"
    assert wagers["place:6"]["house_edge_exact"] == "1/66"
    assert wagers["buy:4"]["house_edge_exact"] == "1/60"
    assert wagers["fire"]["house_edge_exact"] == str(edge_of(fire_expected("A")))
    for wager in document["wagers"]:
        assert sum(F(o["probability"]) for o in wager["outcomes"]) == 1, wager["kind"]


def test_par_document_takes_command_line_strings():
    document = par_document(
        "craps",
        {
            "buy_lay": "false",
            "power_odds": "false",
            "vig_percent": "2.5",
            "max_odds_multiple": "10",
        },
    )
    got = [w["kind"] for w in document["wagers"]]
    assert "place:4" in got
    assert not [k for k in got if k.startswith(("buy:", "lay:", "power_odds:"))]


def run_par(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games.par", "craps", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_par_command_line_json():
    done = run_par("--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["game"] == "craps"
    wagers = {w["kind"]: w for w in document["wagers"]}
    assert sorted(wagers) == sorted(default_kinds())
    assert wagers["pass"]["house_edge_exact"] == "7/495"


def test_par_command_line_fire_bet_paytable_b():
    done = run_par("--json", "--option", "fire_bet_paytable=B")
    assert done.returncode == 0, done.stderr
    wagers = {w["kind"]: w for w in json.loads(done.stdout)["wagers"]}
    assert wagers["fire"]["house_edge_exact"] == str(edge_of(fire_expected("B")))
    nets = {F(o["net"]) for o in wagers["fire"]["outcomes"]}
    assert {F(39), F(199), F(499)} <= nets


def test_par_command_line_table():
    done = run_par("--option", "vig_collected=on_placement")
    assert done.returncode == 0, done.stderr
    assert "pass" in done.stdout and "7/495" in done.stdout
