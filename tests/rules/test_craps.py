"""Craps and Mini-Craps, 58 Pa. Code ch. 623a and ch. 623b: the regulation tests.

Every test plays a scenario document (SCENARIOS.md, format 1) through
games.scenario.run_scenario. Expected money is worked out by hand from the odds the
regulation gives; the arithmetic is in the comments. "a to b" on a stake S pays
S * a / b; "X for 1" pays X * S for the S collected, a net of (X - 1) * S. Payouts
are exact, then rounded down to the cent. Where the text is ambiguous the reading
of the engine's contract (/tmp/craps/spec.md) is followed and named.
"""

import pytest

from games.rules.core import MalformedInput, cite
from games.scenario import run_scenario

Outcome = tuple[str, str, str]  # (result, net, cite)


# --- helpers --------------------------------------------------------------------------


def w(wid: str, kind: str, amount: str = "10", player: str = "p1", **extra: object) -> dict:
    """A wager as a scenario writes it."""
    return {"id": wid, "player": player, "kind": kind, "amount": amount, **extra}


def bets(*wagers: dict) -> dict:
    return {"wagers": list(wagers)}


def roll(d1: int, d2: int) -> dict:
    return {"throw": [d1, d2]}


def rolls(*dice: tuple[int, int]) -> list[dict]:
    return [roll(*d) for d in dice]


def play(*steps: dict, **options: object) -> dict:
    """Run the steps at a craps table with these options; the result document."""
    return run_scenario({"format": 1, "game": "craps", "options": options, "steps": list(steps)})


def decided(result: dict, step: int = -1) -> dict[str, Outcome]:
    """wager id -> (result, net, cite) for every wager decided at that step."""
    return {
        r["wager"]: (r["result"], r["net"], r["cite"]) for r in result["steps"][step]["resolutions"]
    }


def resolution(result: dict, wid: str, step: int = -1) -> dict:
    """The full resolution (extras included) of one wager at one step."""
    (found,) = [r for r in result["steps"][step]["resolutions"] if r["wager"] == wid]
    return found


def refused(result: dict, step: int) -> list:
    """Wager ids (or event indexes) rejected at a step."""
    return [r.get("wager", r.get("event")) for r in result["steps"][step]["rejected"]]


def accepted(result: dict, step: int) -> list[str]:
    return result["steps"][step]["accepted"]


def one(
    kind: str,
    dice: tuple[int, int],
    amount: str = "10",
    *,
    before: tuple[tuple[int, int], ...] = (),
    **options: object,
) -> Outcome:
    """Throw `before`, place one wager, throw `dice`: the wager's (result, net, cite)."""
    result = play(*rolls(*before), bets(w("w", kind, amount)), roll(*dice), **options)
    placed = len(before)
    assert accepted(result, placed) == ["w"], result["steps"][placed]["rejected"]
    (only,) = result["steps"][-1]["resolutions"]
    return only["result"], only["net"], only["cite"]


def point_for(kind: str) -> tuple[int, int]:
    """Come out dice setting a point the wager is not about: 6, or 4 for a 6 or 10 wager."""
    number = kind.split(":")[1] if ":" in kind else ""
    return (2, 2) if number in ("6", "10") else (3, 3)


def after_point(kind: str, dice: tuple[int, int], amount: str = "10", **options: object):
    """One wager placed while a point is on, then `dice`: its (result, net, cite)."""
    return one(kind, dice, amount, before=(point_for(kind),), **options)


def after_point_play(kind: str, dice: tuple[int, int], amount: str, **options: object) -> dict:
    """The same, the whole result document (wager id "w")."""
    return play(roll(*point_for(kind)), bets(w("w", kind, amount)), roll(*dice), **options)


def is_refused(kind: str, amount: str = "10", *, before=(), **options: object) -> bool:
    result = play(*rolls(*before), bets(w("w", kind, amount)), **options)
    return refused(result, len(before)) == ["w"] and accepted(result, len(before)) == []


WIN, LOSE, PUSH = "win", "lose", "push"
C = cite


# --- § 623a.3(a)(1), (2): Pass and Don't Pass -----------------------------------------


@pytest.mark.parametrize("dice", [(3, 4), (1, 6), (5, 6)])
def test_623a_3_a_1_i_a_pass_wins_on_come_out_seven_or_eleven(dice) -> None:
    assert one("pass", dice) == (WIN, "10.00", C("623a.3(a)(1)(i)(A)"))  # 1 to 1


@pytest.mark.parametrize("dice", [(1, 1), (1, 2), (6, 6)])
def test_623a_3_a_1_ii_a_pass_loses_on_come_out_craps(dice) -> None:
    assert one("pass", dice) == (LOSE, "-10.00", C("623a.3(a)(1)(ii)(A)"))


def test_623a_3_a_1_i_b_pass_wins_when_the_point_is_thrown_again() -> None:
    result = play(bets(w("pl", "pass", "15")), *rolls((4, 5), (2, 2), (5, 6), (3, 6)))
    for step in (1, 2, 3):
        assert decided(result, step) == {}
    assert decided(result) == {"pl": (WIN, "15.00", C("623a.3(a)(1)(i)(B)"))}


def test_623a_3_a_1_ii_b_pass_loses_on_a_seven_before_the_point() -> None:
    result = play(bets(w("pl", "pass", "15")), *rolls((4, 5), (3, 4)))
    assert decided(result) == {"pl": (LOSE, "-15.00", C("623a.3(a)(1)(ii)(B)"))}


@pytest.mark.parametrize("dice", [(1, 1), (2, 1)])
def test_623a_3_a_2_i_a_dont_pass_wins_on_come_out_two_or_three(dice) -> None:
    assert one("dont_pass", dice) == (WIN, "10.00", C("623a.3(a)(2)(i)(A)"))


@pytest.mark.parametrize("dice", [(3, 4), (6, 5)])
def test_623a_3_a_2_ii_a_dont_pass_loses_on_come_out_seven_or_eleven(dice) -> None:
    assert one("dont_pass", dice) == (LOSE, "-10.00", C("623a.3(a)(2)(ii)(A)"))


def test_623a_3_a_2_iii_dont_pass_returned_on_come_out_twelve() -> None:
    result = play(bets(w("dp", "dont_pass", "10")), roll(6, 6))
    assert decided(result) == {"dp": (PUSH, "0.00", C("623a.3(a)(2)(iii)"))}
    assert result["open"] == []


def test_623a_3_a_2_i_b_dont_pass_wins_on_seven_before_the_point() -> None:
    result = play(bets(w("dp", "dont_pass", "10")), *rolls((5, 5), (6, 6), (2, 5)))
    assert decided(result, 2) == {}  # a 12 after the point decides nothing
    assert decided(result) == {"dp": (WIN, "10.00", C("623a.3(a)(2)(i)(B)"))}


def test_623a_3_a_2_ii_b_dont_pass_loses_when_the_point_is_made() -> None:
    result = play(bets(w("dp", "dont_pass", "10")), *rolls((5, 5), (6, 4)))
    assert decided(result) == {"dp": (LOSE, "-10.00", C("623a.3(a)(2)(ii)(B)"))}


def test_623a_3_a_1_and_2_line_bets_only_immediately_before_the_come_out_roll() -> None:
    result = play(
        roll(3, 3),
        bets(w("pl", "pass"), w("dp", "dont_pass", player="p2")),
        roll(1, 5),  # point made: the next throw is a come out roll
        bets(w("pl2", "pass"), w("dp2", "dont_pass", player="p2")),
    )
    assert refused(result, 1) == ["pl", "dp"]
    assert accepted(result, 3) == ["pl2", "dp2"]


# --- § 623a.3(a)(3), (4): Come and Don't Come ----------------------------------------


def test_623a_3_a_3_come_and_dont_come_only_after_the_come_out_roll() -> None:
    result = play(bets(w("c", "come"), w("dc", "dont_come")), roll(2, 4), bets(w("c2", "come")))
    assert refused(result, 0) == ["c", "dc"]
    assert accepted(result, 2) == ["c2"]


@pytest.mark.parametrize(
    ("kind", "dice", "expected"),
    [
        ("come", (3, 4), (WIN, "10.00", C("623a.3(a)(3)(i)(A)"))),
        ("come", (5, 6), (WIN, "10.00", C("623a.3(a)(3)(i)(A)"))),
        ("come", (1, 1), (LOSE, "-10.00", C("623a.3(a)(3)(ii)(A)"))),
        ("come", (1, 2), (LOSE, "-10.00", C("623a.3(a)(3)(ii)(A)"))),
        ("come", (6, 6), (LOSE, "-10.00", C("623a.3(a)(3)(ii)(A)"))),
        ("dont_come", (1, 1), (WIN, "10.00", C("623a.3(a)(4)(i)(A)"))),
        ("dont_come", (1, 2), (WIN, "10.00", C("623a.3(a)(4)(i)(A)"))),
        ("dont_come", (3, 4), (LOSE, "-10.00", C("623a.3(a)(4)(ii)(A)"))),
        ("dont_come", (5, 6), (LOSE, "-10.00", C("623a.3(a)(4)(ii)(A)"))),
        ("dont_come", (6, 6), (PUSH, "0.00", C("623a.3(a)(4)(iii)"))),
    ],
)
def test_623a_3_a_3_and_4_come_bets_on_the_throw_after_placement(kind, dice, expected) -> None:
    assert one(kind, dice, before=((2, 2),)) == expected


def test_623a_3_a_3_i_b_come_bet_moves_to_its_come_point_and_wins_there() -> None:
    result = play(roll(2, 2), bets(w("c", "come")), *rolls((4, 4), (3, 3), (2, 6)))
    assert decided(result, 2) == {} and decided(result, 3) == {}
    assert decided(result) == {"c": (WIN, "10.00", C("623a.3(a)(3)(i)(B)"))}


def test_623a_3_a_3_ii_b_come_bet_on_its_come_point_loses_to_seven() -> None:
    result = play(roll(2, 2), bets(w("c", "come")), *rolls((4, 4), (3, 4)))
    assert decided(result) == {"c": (LOSE, "-10.00", C("623a.3(a)(3)(ii)(B)"))}


def test_623a_3_a_4_dont_come_on_its_come_point() -> None:
    win = play(roll(2, 2), bets(w("dc", "dont_come")), *rolls((4, 5), (3, 4)))
    assert decided(win) == {"dc": (WIN, "10.00", C("623a.3(a)(4)(i)(B)"))}
    lose = play(roll(2, 2), bets(w("dc", "dont_come")), *rolls((4, 5), (6, 3)))
    assert decided(lose) == {"dc": (LOSE, "-10.00", C("623a.3(a)(4)(ii)(B)"))}


def test_623a_3_a_3_come_bet_on_the_point_number_moves_while_the_pass_wins() -> None:
    result = play(bets(w("pl", "pass")), roll(3, 3), bets(w("c", "come")), roll(2, 4))
    assert decided(result) == {"pl": (WIN, "10.00", C("623a.3(a)(1)(i)(B)"))}
    assert result["open"] == ["c"]


# --- Step extras: point, shooter, come_out_roll ---------------------------------------


def test_step_extras_point_shooter_and_come_out_roll() -> None:
    result = play(
        bets(w("pl", "pass")),
        *rolls((2, 2), (3, 3), (1, 3), (3, 4), (5, 5), (3, 4)),
        bets(w("pl2", "pass")),
        roll(1, 2),
    )
    steps = result["steps"]
    assert (steps[0]["point"], steps[0]["shooter"]) == (None, 1)
    expected = [  # (dice, total, come_out_roll, point after the throw)
        ([2, 2], 4, True, 4),
        ([3, 3], 6, False, 4),
        ([1, 3], 4, False, None),  # point made
        ([3, 4], 7, True, None),  # come out 7: not a loser 7
        ([5, 5], 10, True, 10),
        ([3, 4], 7, False, None),  # loser 7
    ]
    for index, (dice, total, come_out, point) in enumerate(expected, start=1):
        got = steps[index]
        assert (got["dice"], got["total"], got["come_out_roll"], got["point"]) == (
            dice,
            total,
            come_out,
            point,
        ), index
    assert [steps[i]["shooter"] for i in range(1, 6)] == [1, 1, 1, 1, 1]
    assert (steps[7]["point"], steps[7]["shooter"]) == (None, 2)
    assert (steps[8]["come_out_roll"], steps[8]["shooter"]) == (True, 2)


def test_623a_10_a_pass_dice_keeps_the_point_for_the_new_shooter() -> None:
    result = play(roll(3, 3), {"pass_dice": True}, bets(w("f", "fire", "5")), roll(2, 4))
    assert (result["steps"][1]["point"], result["steps"][1]["shooter"]) == (6, 2)
    assert refused(result, 2) == ["f"]  # a point is on: not before an initial come out roll
    assert result["steps"][3]["point"] is None  # the 6 is made by shooter 2
    assert result["steps"][3]["come_out_roll"] is False


# --- § 623a.5(a): every payout line --------------------------------------------------

PLACE = "623a.3(a)(5)(i)"
PLACE_LOSE = "623a.3(a)(6)(i)"


@pytest.mark.parametrize(
    ("kind", "amount", "dice", "net", "section"),
    [
        ("place:4", "10", (1, 3), "18.00", PLACE),  # 10 * 9/5
        ("place:5", "10", (1, 4), "14.00", PLACE),  # 10 * 7/5
        ("place:6", "10", (1, 5), "11.66", PLACE),  # 10 * 7/6 = 11.666.. -> 11.66
        ("place:6", "12", (2, 4), "14.00", PLACE),  # 12 * 7/6
        ("place:8", "12", (2, 6), "14.00", PLACE),  # 12 * 7/6
        ("place:8", "5", (3, 5), "5.83", PLACE),  # 5 * 7/6 = 5.833.. -> 5.83
        ("place:9", "5", (3, 6), "7.00", PLACE),  # 5 * 7/5
        ("place:10", "5", (4, 6), "9.00", PLACE),  # 5 * 9/5
        ("place_lose:4", "11", (3, 4), "5.00", PLACE_LOSE),  # 11 * 5/11
        ("place_lose:4", "10", (3, 4), "4.54", PLACE_LOSE),  # 10 * 5/11 = 4.5454.. -> 4.54
        ("place_lose:5", "10", (3, 4), "6.25", PLACE_LOSE),  # 10 * 5/8
        ("place_lose:6", "10", (3, 4), "8.00", PLACE_LOSE),  # 10 * 4/5
        ("place_lose:8", "6", (3, 4), "4.80", PLACE_LOSE),  # 6 * 4/5
        ("place_lose:9", "16", (3, 4), "10.00", PLACE_LOSE),  # 16 * 5/8
        ("place_lose:10", "22", (3, 4), "10.00", PLACE_LOSE),  # 22 * 5/11
        ("hard:4", "5", (2, 2), "35.00", "623a.3(a)(7)(i)"),  # 5 * 7
        ("hard:6", "5", (3, 3), "45.00", "623a.3(a)(8)(i)"),  # 5 * 9
        ("hard:8", "10", (4, 4), "90.00", "623a.3(a)(9)(i)"),  # 10 * 9
        ("hard:10", "5", (5, 5), "35.00", "623a.3(a)(10)(i)"),  # 5 * 7
    ],
)
def test_623a_5_a_place_place_to_lose_and_hardway_payouts(kind, amount, dice, net, section):
    assert after_point(kind, dice, amount) == (WIN, net, C(section))


@pytest.mark.parametrize(
    ("kind", "dice", "net", "section"),
    [
        ("field", (1, 1), "20.00", "623a.3(a)(11)(i)"),  # 2: 2 to 1
        ("field", (6, 6), "20.00", "623a.3(a)(11)(i)"),  # 12: 2 to 1
        ("field", (1, 2), "10.00", "623a.3(a)(11)(i)"),  # 3: 1 to 1
        ("field", (1, 3), "10.00", "623a.3(a)(11)(i)"),  # 4
        ("field", (4, 5), "10.00", "623a.3(a)(11)(i)"),  # 9
        ("field", (4, 6), "10.00", "623a.3(a)(11)(i)"),  # 10
        ("field", (5, 6), "10.00", "623a.3(a)(11)(i)"),  # 11
        ("any_seven", (2, 5), "40.00", "623a.3(a)(12)(i)"),  # 4 to 1
        ("any_craps", (1, 1), "70.00", "623a.3(a)(13)(i)"),  # 7 to 1
        ("any_craps", (2, 1), "70.00", "623a.3(a)(13)(i)"),
        ("any_craps", (6, 6), "70.00", "623a.3(a)(13)(i)"),
        ("craps_2", (1, 1), "300.00", "623a.3(a)(14)(i)"),  # 30 to 1
        ("craps_3", (2, 1), "150.00", "623a.3(a)(15)(i)"),  # 15 to 1
        ("craps_12", (6, 6), "300.00", "623a.3(a)(16)(i)"),  # 30 to 1
        ("eleven", (6, 5), "150.00", "623a.3(a)(17)(i)"),  # 15 to 1
        ("six_seven_eight", (1, 5), "10.00", "623a.3(a)(39)(i)"),  # 1 to 1
        ("six_seven_eight", (4, 2), "10.00", "623a.3(a)(39)(i)"),
        ("six_seven_eight", (1, 6), "10.00", "623a.3(a)(39)(i)"),
        ("six_seven_eight", (3, 4), "10.00", "623a.3(a)(39)(i)"),
        ("six_seven_eight", (6, 2), "10.00", "623a.3(a)(39)(i)"),
        ("six_seven_eight", (5, 3), "10.00", "623a.3(a)(39)(i)"),
        ("six_seven_eight", (3, 3), "20.00", "623a.3(a)(39)(i)"),  # 2 to 1
        ("six_seven_eight", (4, 4), "20.00", "623a.3(a)(39)(i)"),  # 2 to 1
    ],
)
def test_623a_5_a_one_roll_payouts(kind, dice, net, section) -> None:
    assert one(kind, dice) == (WIN, net, C(section))


HOPS = [  # kind, paragraph of § 623a.3(a)
    ("hop:2-2", 22),
    ("hop:3-3", 23),
    ("hop:4-4", 24),
    ("hop:5-5", 25),
    ("hop:1-3", 26),
    ("hop:1-4", 27),
    ("hop:2-3", 28),
    ("hop:1-5", 29),
    ("hop:2-4", 30),
    ("hop:1-6", 31),
    ("hop:2-5", 32),
    ("hop:3-4", 33),
    ("hop:2-6", 34),
    ("hop:3-5", 35),
    ("hop:3-6", 36),
    ("hop:4-5", 37),
    ("hop:4-6", 38),
]


@pytest.mark.parametrize(("kind", "paragraph"), HOPS)
def test_623a_5_a_hop_bets_pay_30_or_15_to_1(kind: str, paragraph: int) -> None:
    low, high = (int(x) for x in kind.split(":")[1].split("-"))
    net = "300.00" if low == high else "150.00"  # $10 * 30 (hardway hop) or * 15
    # thrown high die first: a hop is the combination, whatever the order of the dice
    assert one(kind, (high, low)) == (WIN, net, C(f"623a.3(a)({paragraph})(i)"))


@pytest.mark.parametrize(("kind", "paragraph"), HOPS)
def test_623a_3_a_22_to_38_hop_loses_on_any_other_combination(kind: str, paragraph: int):
    low, high = (int(x) for x in kind.split(":")[1].split("-"))
    # same total, other combination where one exists; else a neighbour
    other = {
        (2, 2): (1, 3),
        (3, 3): (1, 5),
        (4, 4): (2, 6),
        (5, 5): (4, 6),
        (1, 3): (2, 2),
        (1, 4): (2, 3),
        (2, 3): (1, 4),
        (1, 5): (3, 3),
        (2, 4): (1, 5),
        (1, 6): (2, 5),
        (2, 5): (3, 4),
        (3, 4): (1, 6),
        (2, 6): (4, 4),
        (3, 5): (2, 6),
        (3, 6): (4, 5),
        (4, 5): (3, 6),
        (4, 6): (5, 5),
    }[(low, high)]
    assert one(kind, other) == (LOSE, "-10.00", C(f"623a.3(a)({paragraph})(ii)"))


@pytest.mark.parametrize("kind", ["hop:1-1", "hop:1-2", "hop:5-6", "hop:6-6", "hop:0-3"])
def test_623a_3_a_22_to_38_no_hop_bet_on_other_pairs(kind: str) -> None:
    assert is_refused(kind)


@pytest.mark.parametrize(
    ("kind", "dice", "section"),
    [
        ("field", (2, 3), "623a.3(a)(11)(ii)"),
        ("field", (3, 3), "623a.3(a)(11)(ii)"),
        ("field", (3, 4), "623a.3(a)(11)(ii)"),
        ("field", (2, 6), "623a.3(a)(11)(ii)"),
        ("any_seven", (1, 1), "623a.3(a)(12)(ii)"),
        ("any_craps", (3, 4), "623a.3(a)(13)(ii)"),
        ("any_craps", (5, 6), "623a.3(a)(13)(ii)"),
        ("craps_2", (1, 2), "623a.3(a)(14)(ii)"),
        ("craps_3", (1, 1), "623a.3(a)(15)(ii)"),
        ("craps_12", (5, 6), "623a.3(a)(16)(ii)"),
        ("eleven", (6, 6), "623a.3(a)(17)(ii)"),
        ("six_seven_eight", (2, 3), "623a.3(a)(39)(ii)"),
        ("six_seven_eight", (4, 5), "623a.3(a)(39)(ii)"),
        ("six_seven_eight", (1, 1), "623a.3(a)(39)(ii)"),
    ],
)
def test_623a_3_a_one_roll_wagers_lose_otherwise(kind, dice, section) -> None:
    assert one(kind, dice) == (LOSE, "-10.00", C(section))


def test_623a_3_a_one_roll_wager_decided_by_the_very_next_throw_only() -> None:
    result = play(bets(w("e", "eleven"), w("f", "field", player="p2")), roll(6, 5), roll(5, 6))
    assert set(decided(result, 1)) == {"e", "f"}
    assert decided(result, 2) == {}


@pytest.mark.parametrize(
    ("kind", "amount", "dice", "section"),
    [
        ("place:6", "12", (3, 4), "623a.3(a)(5)(ii)"),
        ("place:4", "10", (3, 4), "623a.3(a)(5)(ii)"),
        ("place_lose:6", "10", (2, 4), "623a.3(a)(6)(ii)"),
        ("place_lose:9", "10", (4, 5), "623a.3(a)(6)(ii)"),
        ("hard:4", "10", (1, 3), "623a.3(a)(7)(ii)"),  # easy 4
        ("hard:6", "10", (1, 5), "623a.3(a)(8)(ii)"),  # easy 6
        ("hard:6", "10", (3, 4), "623a.3(a)(8)(ii)"),  # 7
        ("hard:8", "10", (3, 5), "623a.3(a)(9)(ii)"),  # easy 8
        ("hard:10", "10", (4, 6), "623a.3(a)(10)(ii)"),  # easy 10
    ],
)
def test_623a_3_a_5_to_10_place_and_hardway_lose(kind, amount, dice, section) -> None:
    assert after_point(kind, dice, amount) == (LOSE, f"-{amount}.00", C(section))


def test_623a_3_a_5_place_bet_stays_through_other_numbers() -> None:
    result = play(roll(2, 2), bets(w("p", "place:9")), *rolls((6, 6), (3, 3), (5, 5), (5, 4)))
    assert [decided(result, s) for s in (2, 3, 4)] == [{}, {}, {}]
    assert decided(result) == {"p": (WIN, "14.00", C(PLACE))}  # 10 * 7/5


@pytest.mark.parametrize("kind", ["place:3", "place:7", "place_lose:11", "hard:5", "hard:12"])
def test_623a_3_a_no_place_or_hardway_on_other_numbers(kind: str) -> None:
    assert is_refused(kind, before=((2, 2),))


# --- On and off on the come out roll: § 623a.3(a)(5)-(10), (41), (42) ------------------


@pytest.mark.parametrize(
    "kind", ["place:6", "place_lose:6", "buy:6", "hard:6", "place:4", "buy:10", "hard:10"]
)
def test_623a_3_a_5_inactive_on_the_come_out_roll_unless_called_on(kind: str) -> None:
    # Neither the number (6 / 4 / 10 as thrown below) nor a come out 7 decides it.
    number = kind.split(":")[1]
    dice = {"6": (3, 3), "4": (2, 2), "10": (5, 5)}[number]
    result = play(bets(w("x", kind, "30")), roll(3, 4), roll(*dice))
    assert decided(result, 1) == {} and decided(result, 2) == {}
    assert result["open"] == ["x"]


@pytest.mark.parametrize(
    ("kind", "dice", "net", "section"),
    [
        ("place:6", (3, 3), "35.00", "623a.3(a)(5)(i)"),  # 30 * 7/6
        ("place_lose:6", (3, 4), "24.00", "623a.3(a)(6)(i)"),  # 30 * 4/5
        ("buy:6", (3, 3), "34.50", "623a.3(a)(41)(i)"),  # 30 * 6/5 = 36 - 5% of 30 = 1.50
        ("hard:6", (3, 3), "270.00", "623a.3(a)(8)(i)"),  # 30 * 9
    ],
)
def test_623a_3_a_5_called_on_works_on_the_come_out_roll(kind, dice, net, section) -> None:
    result = play(bets(w("x", kind, "30")), {"working": {"x": True}}, roll(*dice))
    assert refused(result, 1) == []
    assert decided(result) == {"x": (WIN, net, C(section))}


def test_623a_3_a_42_lay_bet_active_on_the_come_out_roll() -> None:
    # Lay 4 $40: 1 to 2 = 20.00, less 5% of 40 = 2.00 -> 18.00
    result = play(bets(w("l", "lay:4", "40")), roll(3, 4))
    assert decided(result) == {"l": (WIN, "18.00", C("623a.3(a)(42)(i)"))}
    lose = play(bets(w("l", "lay:4", "40")), roll(1, 3))
    assert decided(lose) == {"l": (LOSE, "-40.00", C("623a.3(a)(42)(ii)"))}


def test_623a_3_a_42_lay_bet_called_off_sits_out_the_come_out_roll() -> None:
    result = play(bets(w("l", "lay:4", "40")), {"working": {"l": False}}, roll(3, 4), roll(1, 3))
    assert decided(result, 2) == {} and decided(result, 3) == {}
    assert result["open"] == ["l"]


def test_623a_3_a_5_a_call_persists_until_changed() -> None:
    result = play(
        bets(w("p", "place:8", "12")),
        {"working": {"p": True}},
        roll(3, 3),  # come out: point 6; 8 not thrown
        roll(1, 5),  # point made
        {"working": {"p": False}},
        roll(2, 6),  # come out 8: called off
        roll(4, 4),  # point 8 made: off only on come out rolls -> wins
    )
    assert decided(result, 5) == {}
    assert decided(result) == {"p": (WIN, "14.00", C(PLACE))}  # 12 * 7/6


def test_623a_3_a_8_hardway_called_on_loses_to_a_come_out_seven() -> None:
    result = play(bets(w("h", "hard:8", "5")), {"working": {"h": True}}, roll(2, 5))
    assert decided(result) == {"h": (LOSE, "-5.00", C("623a.3(a)(9)(ii)"))}


# --- § 623a.5(b)-(e): C and E, Horn, Horn High, Whirl ---------------------------------


@pytest.mark.parametrize("dice", [(1, 1), (1, 2), (6, 6)])
def test_623a_5_b_c_and_e_split_payout_on_craps(dice) -> None:
    # $10: $5 as Any Craps at 7 to 1 = 35, the $5 on 11 lost: 35 - 5 = 30
    assert one("c_and_e", dice) == (WIN, "30.00", C("623a.5(b)"))


def test_623a_5_b_c_and_e_split_payout_on_eleven() -> None:
    # $10: $5 on 11 at 15 to 1 = 75, the $5 on craps lost: 75 - 5 = 70
    assert one("c_and_e", (5, 6)) == (WIN, "70.00", C("623a.5(b)"))
    # $5.50: 2.75 * 15 - 2.75 = 38.50
    assert one("c_and_e", (6, 5), "5.50") == (WIN, "38.50", C("623a.5(b)"))


def test_623a_3_a_18_ii_c_and_e_loses_on_other_totals() -> None:
    assert one("c_and_e", (3, 4)) == (LOSE, "-10.00", C("623a.3(a)(18)(ii)"))
    assert one("c_and_e", (2, 2)) == (LOSE, "-10.00", C("623a.3(a)(18)(ii)"))


@pytest.mark.parametrize(
    ("dice", "amount", "net"),
    [
        ((1, 1), "4", "27.00"),  # $1 on 2 * 30 - $3 on 3, 11, 12
        ((6, 6), "4", "27.00"),
        ((1, 2), "4", "12.00"),  # $1 on 3 * 15 - $3
        ((5, 6), "4", "12.00"),
        ((1, 1), "8", "54.00"),  # $2 * 30 - $6
        ((2, 1), "8", "24.00"),  # $2 * 15 - $6
    ],
)
def test_623a_5_c_horn_bet_paid_as_four_quarter_wagers(dice, amount, net) -> None:
    assert one("horn", dice, amount, min_wager="1") == (WIN, net, C("623a.5(c)"))


def test_623a_3_a_19_ii_horn_loses_on_other_totals() -> None:
    assert one("horn", (3, 4), "8", min_wager="1") == (LOSE, "-8.00", C("623a.3(a)(19)(ii)"))


@pytest.mark.parametrize(
    ("kind", "dice", "net"),
    [
        ("horn_high:12", (6, 6), "57.00"),  # $2 on 12 * 30 - $3 on 2, 3, 11
        ("horn_high:12", (1, 1), "26.00"),  # $1 on 2 * 30 - $4
        ("horn_high:12", (1, 2), "11.00"),  # $1 on 3 * 15 - $4
        ("horn_high:12", (5, 6), "11.00"),
        ("horn_high:2", (1, 1), "57.00"),
        ("horn_high:3", (2, 1), "27.00"),  # $2 on 3 * 15 - $3
        ("horn_high:3", (6, 6), "26.00"),
        ("horn_high:11", (6, 5), "27.00"),
        ("horn_high:11", (1, 2), "11.00"),
    ],
)
def test_623a_5_d_horn_high_paid_as_five_fifths(kind, dice, net) -> None:
    assert one(kind, dice, "5") == (WIN, net, C("623a.5(d)"))


def test_623a_3_a_20_ii_horn_high_loses_on_other_totals() -> None:
    assert one("horn_high:3", (3, 4), "5") == (LOSE, "-5.00", C("623a.3(a)(20)(ii)"))


@pytest.mark.parametrize(
    ("dice", "net"),
    [
        ((1, 1), "52.00"),  # $2 on 2 * 30 - $6 horn quarters - $2 any seven
        ((6, 6), "52.00"),
        ((1, 2), "22.00"),  # $2 on 3 * 15 - $8
        ((5, 6), "22.00"),
        ((3, 4), "0.00"),  # $2 any seven * 4 - $8 horn: "shall win", net 0.00
        ((1, 6), "0.00"),
    ],
)
def test_623a_5_e_whirl_paid_as_horn_and_any_seven(dice, net) -> None:
    assert one("whirl", dice, "10") == (WIN, net, C("623a.5(e)"))


def test_623a_3_a_21_ii_whirl_loses_on_other_totals() -> None:
    assert one("whirl", (2, 4), "10") == (LOSE, "-10.00", C("623a.3(a)(21)(ii)"))


def test_623a_3_a_19_horn_bet_in_units_of_four() -> None:
    for amount in ("4", "8", "20"):
        assert not is_refused("horn", amount, min_wager="1"), amount
    for amount in ("5", "6", "10", "4.50"):
        assert is_refused("horn", amount, min_wager="1"), amount


def test_623a_3_a_20_horn_high_in_units_of_five() -> None:
    for amount in ("5", "10", "25"):
        assert not is_refused("horn_high:12", amount, min_wager="1"), amount
    for amount in ("4", "8", "12", "7.50"):
        assert is_refused("horn_high:12", amount, min_wager="1"), amount
    assert is_refused("horn_high:7", "5")


def test_623a_3_a_21_whirl_in_units_of_five() -> None:
    assert not is_refused("whirl", "15", min_wager="1")
    for amount in ("4", "8", "12"):
        assert is_refused("whirl", amount, min_wager="1"), amount


# --- § 623a.3(a)(41), (42), § 623a.5(g): Buy and Lay ----------------------------------


@pytest.mark.parametrize(
    ("kind", "amount", "dice", "net", "vig"),
    [
        ("buy:4", "20", (1, 3), "39.00", "1.00"),  # 20 * 2/1 = 40 - 5% of 20
        ("buy:5", "20", (1, 4), "29.00", "1.00"),  # 20 * 3/2 = 30 - 1.00
        ("buy:6", "25", (1, 5), "28.75", "1.25"),  # 25 * 6/5 = 30 - 1.25
        ("buy:8", "30", (2, 6), "34.50", "1.50"),  # 30 * 6/5 = 36 - 1.50
        ("buy:9", "40", (3, 6), "58.00", "2.00"),  # 40 * 3/2 = 60 - 2.00
        ("buy:10", "21", (4, 6), "40.95", "1.05"),  # 21 * 2 = 42 - 1.05
        ("buy:8", "7.77", (3, 5), "8.94", "0.38"),  # 9.324 - 0.3885->0.38 = 8.944 -> 8.94
    ],
)
def test_623a_5_g_1_buy_bet_true_odds_vig_on_win(kind, amount, dice, net, vig) -> None:
    result = after_point_play(kind, dice, amount)
    assert decided(result) == {"w": (WIN, net, C("623a.3(a)(41)(i)"))}
    assert resolution(result, "w")["vig"] == vig


@pytest.mark.parametrize(
    ("kind", "amount", "net", "vig"),
    [
        ("lay:4", "40", "18.00", "2.00"),  # 40 * 1/2 = 20 - 5% of 40
        ("lay:5", "30", "18.50", "1.50"),  # 30 * 2/3 = 20 - 1.50
        ("lay:6", "30", "23.50", "1.50"),  # 30 * 5/6 = 25 - 1.50
        ("lay:8", "24", "18.80", "1.20"),  # 24 * 5/6 = 20 - 1.20
        ("lay:9", "21", "12.95", "1.05"),  # 21 * 2/3 = 14 - 1.05
        ("lay:10", "20", "9.00", "1.00"),  # 20 * 1/2 = 10 - 1.00
    ],
)
def test_623a_5_g_2_lay_bet_true_odds_vig_on_win(kind, amount, net, vig) -> None:
    result = after_point_play(kind, (3, 4), amount)
    assert decided(result) == {"w": (WIN, net, C("623a.3(a)(42)(i)"))}
    assert resolution(result, "w")["vig"] == vig


def test_623a_5_g_3_vig_on_win_not_charged_on_a_loss() -> None:
    assert after_point("buy:4", (3, 4), "20") == (LOSE, "-20.00", C("623a.3(a)(41)(ii)"))
    assert after_point("lay:4", (1, 3), "40") == (LOSE, "-40.00", C("623a.3(a)(42)(ii)"))


def test_623a_5_g_3_vig_on_placement_inside_a_win_and_a_loss() -> None:
    opts = {"vig_collected": "on_placement"}
    # Buy 5 $20: 30.00 - 1.00 = 29.00; lost: -(20 + 1.00)
    assert after_point("buy:5", (1, 4), "20", **opts) == (WIN, "29.00", C("623a.3(a)(41)(i)"))
    assert after_point("buy:5", (3, 4), "20", **opts) == (LOSE, "-21.00", C("623a.3(a)(41)(ii)"))
    # Lay 10 $40: 20.00 - 2.00 = 18.00; lost: -(40 + 2.00)
    assert after_point("lay:10", (3, 4), "40", **opts) == (WIN, "18.00", C("623a.3(a)(42)(i)"))
    assert after_point("lay:10", (5, 5), "40", **opts) == (LOSE, "-42.00", C("623a.3(a)(42)(ii)"))
    result = after_point_play("buy:5", (3, 4), "20", **opts)
    assert resolution(result, "w")["vig"] == "1.00"


def test_623a_5_g_3_vig_percent_rounded_down_to_the_cent() -> None:
    # 2.5% of 25 = 0.625 -> 0.62; 25 * 2 = 50 - 0.62 = 49.38
    opts = {"vig_percent": "2.5"}
    assert after_point("buy:4", (2, 2), "25", **opts) == (WIN, "49.38", C("623a.3(a)(41)(i)"))
    # on placement: lost -(25 + 0.62)
    assert after_point("buy:4", (3, 4), "25", vig_collected="on_placement", **opts) == (
        LOSE,
        "-25.62",
        C("623a.3(a)(41)(ii)"),
    )


def test_623a_5_g_3_no_vig_at_zero_percent() -> None:
    assert after_point("buy:4", (2, 2), "20", vig_percent="0") == (
        WIN,
        "40.00",  # 20 * 2, nothing taken
        C("623a.3(a)(41)(i)"),
    )


def test_623a_5_g_3_removed_buy_returns_the_vig_taken_at_placement() -> None:
    result = play(
        roll(3, 3), bets(w("b", "buy:4", "20")), {"remove": ["b"]}, vig_collected="on_placement"
    )
    assert decided(result)["b"][:2] == ("void", "0.00")
    assert result["open"] == []


# docs/regulations.md, Craps 7: a Buy or Lay removed or reduced (§ 623a.4(c)) with the
# vigorish collected at placement (§ 623a.5(g)(3)); the Rules Submission's
# vig_returned_on_removal says whether that vigorish goes back (true, the default) or stays.
ON_PLACEMENT = {"vig_collected": "on_placement"}
TAKEN_DOWN = C("623a.4(c)")


def taken_down(kind: str, amount: str, **options: object) -> dict:
    """A Buy or Lay placed with the point 6 on, then taken down: its resolution."""
    result = play(roll(3, 3), bets(w("b", kind, amount)), {"remove": ["b"]}, **options)
    assert result["open"] == []
    return resolution(result, "b")


def test_623a_5_g_3_vig_returned_on_removal_by_default_and_when_true() -> None:
    # Buy 4 $20 at 5%: 1.00 collected at placement; taken down, stake and 1.00 come back.
    returned = {"wager": "b", "result": "void", "net": "0.00", "cite": TAKEN_DOWN}
    assert taken_down("buy:4", "20", **ON_PLACEMENT) == returned
    assert taken_down("buy:4", "20", vig_returned_on_removal=True, **ON_PLACEMENT) == returned
    assert taken_down("buy:4", "20", vig_returned_on_removal="true", **ON_PLACEMENT) == returned


@pytest.mark.parametrize(
    ("kind", "amount", "vig"),
    [
        ("buy:4", "20", "1.00"),  # 5% of 20
        ("lay:10", "40", "2.00"),  # 5% of 40
        ("buy:8", "7.77", "0.38"),  # 5% of 7.77 = 0.3885, rounded down
    ],
)
def test_623a_5_g_3_vig_kept_on_removal_when_the_submission_says_so(kind, amount, vig) -> None:
    # The stake comes back; the vigorish collected at placement stays: net -vig.
    assert taken_down(kind, amount, vig_returned_on_removal=False, **ON_PLACEMENT) == {
        "wager": "b",
        "result": "void",
        "net": f"-{vig}",
        "cite": TAKEN_DOWN,
        "vig": vig,
    }


def test_623a_5_g_3_vig_kept_on_removal_has_no_effect_when_collected_on_a_win() -> None:
    # on_win collects nothing before a win: nothing to keep, and a win pays as ever.
    kept = {"vig_returned_on_removal": False, "vig_collected": "on_win"}
    assert taken_down("buy:4", "20", **kept) == {
        "wager": "b",
        "result": "void",
        "net": "0.00",
        "cite": TAKEN_DOWN,
    }
    assert after_point("buy:4", (2, 2), "20", **kept) == (WIN, "39.00", C("623a.3(a)(41)(i)"))


@pytest.mark.parametrize(
    ("returned", "won", "lost", "vig"),
    [
        # Buy 4 $40 (2.00 collected) reduced to $20: the vigorish is that of $20, 1.00;
        # won 20 * 2 = 40 - 1.00; lost -(20 + 1.00).
        (True, "39.00", "-21.00", "1.00"),
        # Kept: the 2.00 collected on $40 stays; won 40 - 2.00; lost -(20 + 2.00).
        (False, "38.00", "-22.00", "2.00"),
    ],
)
def test_623a_5_g_3_reduced_buy_keeps_or_returns_the_vig_on_the_part_taken_down(
    returned, won, lost, vig
) -> None:
    options = {"vig_returned_on_removal": returned, **ON_PLACEMENT}
    for dice, outcome in (((2, 2), (WIN, won, "(i)")), ((3, 4), (LOSE, lost, "(ii)"))):
        result = play(
            roll(3, 3),
            bets(w("b", "buy:4", "40")),
            {"remove": [{"id": "b", "reduce_to": "20"}]},
            roll(*dice),
            **options,
        )
        assert result["steps"][2]["reduced"] == [{"wager": "b", "amount": "20.00"}]
        result_, net, paragraph = outcome
        assert decided(result) == {"b": (result_, net, C(f"623a.3(a)(41){paragraph}"))}
        assert resolution(result, "b")["vig"] == vig


def test_623a_3_a_41_and_42_buy_and_lay_only_when_offered() -> None:
    for kind in ("buy:4", "lay:4"):
        assert is_refused(kind, "20", before=((3, 3),), buy_lay=False), kind
        assert is_refused(kind, "20", before=((3, 3),), buy_lay="false"), kind
        assert not is_refused(kind, "20", before=((3, 3),), buy_lay="true"), kind


# --- § 623a.6: odds -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("point", "again", "odds", "net", "section"),
    [
        ((1, 3), (2, 2), "20", "40.00", "623a.6(a)(2)(i)"),  # 20 * 2/1
        ((4, 6), (5, 5), "15", "30.00", "623a.6(a)(2)(i)"),  # 15 * 2/1
        ((1, 4), (2, 3), "20", "30.00", "623a.6(a)(2)(ii)"),  # 20 * 3/2
        ((3, 6), (4, 5), "7", "10.50", "623a.6(a)(2)(ii)"),  # 7 * 3/2
        ((1, 5), (2, 4), "25", "30.00", "623a.6(a)(2)(iii)"),  # 25 * 6/5
        ((2, 6), (4, 4), "7", "8.40", "623a.6(a)(2)(iii)"),  # 7 * 6/5
        ((2, 6), (3, 5), "1", "1.20", "623a.6(a)(2)(iii)"),  # 1 * 6/5, below the table min
    ],
)
def test_623a_6_a_pass_odds_paid_at_true_odds(point, again, odds, net, section) -> None:
    result = play(
        bets(w("pl", "pass")), roll(*point), bets(w("o", "odds", odds, on="pl")), roll(*again)
    )
    assert accepted(result, 2) == ["o"]
    assert decided(result) == {
        "pl": (WIN, "10.00", C("623a.3(a)(1)(i)(B)")),  # the bet itself at 1 to 1
        "o": (WIN, net, C(section)),
    }


@pytest.mark.parametrize(
    ("point", "odds", "net", "section"),
    [
        ((1, 3), "40", "20.00", "623a.6(b)(2)(i)"),  # 40 * 1/2
        ((5, 5), "60", "30.00", "623a.6(b)(2)(i)"),  # 60 * 1/2
        ((2, 3), "30", "20.00", "623a.6(b)(2)(ii)"),  # 30 * 2/3
        ((3, 6), "45", "30.00", "623a.6(b)(2)(ii)"),  # 45 * 2/3
        ((3, 3), "36", "30.00", "623a.6(b)(2)(iii)"),  # 36 * 5/6
        ((4, 4), "25", "20.83", "623a.6(b)(2)(iii)"),  # 25 * 5/6 = 20.833.. -> 20.83
    ],
)
def test_623a_6_b_dont_pass_odds_laid_at_true_odds(point, odds, net, section) -> None:
    result = play(
        bets(w("dp", "dont_pass")), roll(*point), bets(w("o", "odds", odds, on="dp")), roll(3, 4)
    )
    assert accepted(result, 2) == ["o"]
    assert decided(result) == {
        "dp": (WIN, "10.00", C("623a.3(a)(2)(i)(B)")),
        "o": (WIN, net, C(section)),
    }


@pytest.mark.parametrize(
    ("come_point", "odds", "net", "section"),
    [
        ((1, 3), "20", "40.00", "623a.6(c)(2)(i)"),  # 20 * 2
        ((3, 6), "10", "15.00", "623a.6(c)(2)(ii)"),  # 10 * 3/2
        ((2, 6), "5", "6.00", "623a.6(c)(2)(iii)"),  # 5 * 6/5
    ],
)
def test_623a_6_c_come_odds_paid_at_true_odds(come_point, odds, net, section) -> None:
    result = play(
        roll(5, 5),  # point 10 on (4-6 / 9 / 8 come points differ from it)
        bets(w("c", "come")),
        roll(*come_point),
        bets(w("o", "odds", odds, on="c")),
        roll(*come_point),
    )
    assert accepted(result, 3) == ["o"]
    assert decided(result) == {
        "c": (WIN, "10.00", C("623a.3(a)(3)(i)(B)")),
        "o": (WIN, net, C(section)),
    }


@pytest.mark.parametrize(
    ("come_point", "odds", "net", "section"),
    [
        ((4, 6), "20", "10.00", "623a.6(d)(2)(i)"),  # 20 * 1/2
        ((1, 4), "15", "10.00", "623a.6(d)(2)(ii)"),  # 15 * 2/3
        ((2, 4), "12", "10.00", "623a.6(d)(2)(iii)"),  # 12 * 5/6
    ],
)
def test_623a_6_d_dont_come_odds_laid_at_true_odds(come_point, odds, net, section) -> None:
    result = play(
        roll(2, 6),  # point 8
        bets(w("dc", "dont_come")),
        roll(*come_point),
        bets(w("o", "odds", odds, on="dc")),
        roll(3, 4),
    )
    assert accepted(result, 3) == ["o"]
    assert decided(result) == {
        "dc": (WIN, "10.00", C("623a.3(a)(4)(i)(B)")),
        "o": (WIN, net, C(section)),
    }


# Odds on a Come or Don't Come Bet on a come out roll (docs/regulations.md, Craps 2-3): off
# unless called on, so decided with their bet they are returned (push, 0.00); the options
# `come_odds_working_on_come_out` and `dont_come_odds_working_on_come_out` work them instead.
# Come $10 on 6 with $10 odds, then the pass line point 8 made: the next throw is a come out.
COME_ODDS_TO_COME_OUT = (
    roll(4, 4),  # point 8
    bets(w("c", "come")),
    roll(1, 5),  # come point 6
    bets(w("o", "odds", "10", on="c")),
    roll(2, 6),  # 8: the point made, a come out roll next
)
RETURNED = (PUSH, "0.00")
WIN_10, LOSE_10 = (WIN, "10.00"), (LOSE, "-10.00")


@pytest.mark.parametrize(
    ("dice", "come", "come_cite"),
    [((3, 4), LOSE_10, "623a.3(a)(3)(ii)(B)"), ((2, 4), WIN_10, "623a.3(a)(3)(i)(B)")],
)
def test_623a_6_c_come_odds_off_on_the_come_out_roll_are_returned(dice, come, come_cite) -> None:
    result = play(*COME_ODDS_TO_COME_OUT, roll(*dice))
    assert decided(result) == {"c": (*come, C(come_cite)), "o": (*RETURNED, C("623a.6(c)"))}
    assert resolution(result, "o")["working"] == "false"
    assert result["open"] == []


@pytest.mark.parametrize(
    ("dice", "odds"),
    [((3, 4), (LOSE, "-10.00", C("623a.6(c)"))), ((2, 4), (WIN, "12.00", C("623a.6(c)(2)(iii)")))],
)
def test_623a_6_c_come_odds_called_on_or_worked_by_the_submission(dice, odds) -> None:
    # On: a come out 7 loses them with the bet; a 6 pays them 6 to 5: 10 * 6/5 = 12.00.
    called = play(*COME_ODDS_TO_COME_OUT, {"working": {"o": True}}, roll(*dice))
    assert decided(called)["o"] == odds
    worked = play(*COME_ODDS_TO_COME_OUT, roll(*dice), come_odds_working_on_come_out=True)
    assert decided(worked)["o"] == odds
    # The Don't Come option does not touch Come odds.
    other = play(*COME_ODDS_TO_COME_OUT, roll(*dice), dont_come_odds_working_on_come_out=True)
    assert decided(other)["o"] == (*RETURNED, C("623a.6(c)"))


def test_623a_6_d_dont_come_odds_off_on_the_come_out_roll_unless_worked() -> None:
    # Don't Come $10 on 4 with $20 laid (wins 20 * 1/2 = 10), the point 8 made, then a come
    # out 7: the Don't Come wins; the odds are returned, or with the option win 10.00.
    steps = (
        roll(4, 4),
        bets(w("dc", "dont_come")),
        roll(1, 3),  # come point 4
        bets(w("o", "odds", "20", on="dc")),
        roll(2, 6),  # 8: the point made
        roll(3, 4),
    )
    off = play(*steps)
    assert decided(off) == {
        "dc": (*WIN_10, C("623a.3(a)(4)(i)(B)")),
        "o": (*RETURNED, C("623a.6(d)")),
    }
    worked = play(*steps, dont_come_odds_working_on_come_out=True)
    assert decided(worked)["o"] == (WIN, "10.00", C("623a.6(d)(2)(i)"))


def test_623a_6_odds_called_off_while_the_point_is_on_are_returned_with_their_bet() -> None:
    # Pass $10 on 4 with $20 odds called off: the 4 pays the Pass 10.00 and returns the odds;
    # called on again, a later Pass's odds are paid 2 to 1.
    result = play(
        bets(w("pl", "pass")),
        roll(1, 3),
        bets(w("o", "odds", "20", on="pl")),
        {"working": {"o": False}},
        roll(5, 6),  # 11: nothing decided, the odds stay off
        roll(2, 2),
    )
    assert decided(result, 4) == {}
    assert decided(result) == {
        "pl": (*WIN_10, C("623a.3(a)(1)(i)(B)")),
        "o": (*RETURNED, C("623a.6(a)")),
    }
    back_on = play(
        bets(w("pl", "pass")),
        roll(1, 3),
        bets(w("o", "odds", "20", on="pl")),
        {"working": {"o": False}},
        {"working": {"o": True}},
        roll(2, 2),
    )
    assert decided(back_on)["o"] == (WIN, "40.00", C("623a.6(a)(2)(i)"))


def test_623a_6_only_callable_wagers_and_odds_take_a_call() -> None:
    result = play(
        bets(w("pl", "pass")),
        roll(1, 3),
        bets(w("o", "odds", "20", on="pl")),
        {"working": {"o": False, "pl": False, "gone": True}},
    )
    assert refused(result, 3) == ["pl", "gone"]
    assert result["steps"][3]["accepted"] == []


def test_623a_6_a_odds_lose_with_the_bet_they_support() -> None:
    result = play(
        bets(w("pl", "pass")), roll(2, 2), bets(w("o", "odds", "30", on="pl")), roll(4, 3)
    )
    got = decided(result)
    assert got["pl"] == (LOSE, "-10.00", C("623a.3(a)(1)(ii)(B)"))
    assert got["o"][:2] == (LOSE, "-30.00")
    assert got["o"][2].startswith(C("623a.6(a)"))


def test_623a_6_odds_only_on_the_players_own_bet_with_its_point() -> None:
    result = play(
        bets(w("pl", "pass"), w("early", "odds", "10", on="pl")),
        roll(3, 3),
        bets(
            w("theirs", "odds", "10", "p2", on="pl"),
            w("c", "come"),
            w("p", "place:8", "12"),
        ),
        bets(w("nocp", "odds", "10", on="c"), w("onplace", "odds", "10", on="p")),
        bets(w("mine", "odds", "10", on="pl")),
    )
    assert refused(result, 0) == ["early"]  # no point yet
    assert refused(result, 2) == ["theirs"]
    assert refused(result, 3) == ["nocp", "onplace"]  # come point not set; not a line bet
    assert accepted(result, 4) == ["mine"]


@pytest.mark.parametrize(
    ("multiple", "ok", "too_much"), [(1, "10", "10.01"), (3, "30", "30.01"), (10, "100", "100.01")]
)
def test_623a_6_e_pass_odds_limited_to_the_multiple(multiple, ok, too_much) -> None:
    # Pass $10: odds up to multiple x 10
    result = play(
        bets(w("pl", "pass")),
        roll(2, 3),
        bets(w("big", "odds", too_much, on="pl")),
        bets(w("o", "odds", ok, on="pl")),
        max_odds_multiple=multiple,
    )
    assert refused(result, 2) == ["big"]
    assert accepted(result, 3) == ["o"]


def test_623a_6_e_come_odds_limited_to_the_multiple() -> None:
    result = play(
        roll(2, 2),
        bets(w("c", "come")),
        roll(4, 5),
        bets(w("big", "odds", "11", on="c")),
        bets(w("o", "odds", "10", on="c")),
        max_odds_multiple=1,
    )
    assert refused(result, 3) == ["big"] and accepted(result, 4) == ["o"]


@pytest.mark.parametrize(
    ("multiple", "point", "ok", "too_much"),
    [
        (1, (2, 2), "20", "22"),  # 4: 20 * 1/2 = 10 = 1 x 10; 22 -> 11
        (1, (3, 3), "12", "13.20"),  # 6: 12 * 5/6 = 10; 13.20 * 5/6 = 11
        (1, (4, 5), "15", "16.50"),  # 9: 15 * 2/3 = 10; 16.50 * 2/3 = 11
        (10, (2, 2), "200", "202"),  # 4: 200 / 2 = 100 = 10 x 10; 202 -> 101
        (10, (2, 3), "150", "151.50"),  # 5: 150 * 2/3 = 100; 151.50 * 2/3 = 101
        (10, (4, 4), "120", "121.20"),  # 8: 120 * 5/6 = 100; 121.20 * 5/6 = 101
    ],
)
def test_623a_6_e_dont_pass_odds_winnings_limited_to_the_multiple(multiple, point, ok, too_much):
    result = play(
        bets(w("dp", "dont_pass")),
        roll(*point),
        bets(w("big", "odds", too_much, on="dp")),
        bets(w("o", "odds", ok, on="dp")),
        max_odds_multiple=multiple,
    )
    assert refused(result, 2) == ["big"]
    assert accepted(result, 3) == ["o"]


def test_623a_6_e_dont_come_odds_winnings_limited_to_the_multiple() -> None:
    # Don't Come $10 on 10, 3x: lay up to 60 (winnings 30); 62 -> 31
    result = play(
        roll(2, 2),
        bets(w("dc", "dont_come")),
        roll(5, 5),
        bets(w("big", "odds", "62", on="dc")),
        bets(w("o", "odds", "60", on="dc")),
    )
    assert refused(result, 3) == ["big"] and accepted(result, 4) == ["o"]


def test_623a_6_e_odds_on_one_bet_are_added_together() -> None:
    # Pass $10 at 3x: 20 + 10 = 30 taken; 1 more would be 31
    result = play(
        bets(w("pl", "pass")),
        roll(4, 6),
        bets(w("o1", "odds", "20", on="pl")),
        bets(w("o2", "odds", "10", on="pl")),
        bets(w("o3", "odds", "1", on="pl")),
        roll(5, 5),
    )
    assert accepted(result, 2) == ["o1"] and accepted(result, 3) == ["o2"]
    assert refused(result, 4) == ["o3"]
    # 2 to 1: 20 -> 40.00, 10 -> 20.00
    got = decided(result)
    assert (got["o1"][:2], got["o2"][:2]) == ((WIN, "40.00"), (WIN, "20.00"))


def test_623a_6_f_odds_exempt_from_the_table_maximum_and_minimum() -> None:
    result = play(
        bets(w("pl", "pass", "50"), w("dp", "dont_pass", "50", "p2")),
        roll(1, 3),
        bets(
            w("o", "odds", "150", on="pl"),  # 3 x 50, over the $50 maximum
            w("od", "odds", "300", "p2", on="dp"),  # winnings 300/2 = 150 = 3 x 50
        ),
        max_wager="50",
    )
    assert accepted(result, 2) == ["o", "od"]
    below = play(bets(w("pl", "pass")), roll(1, 3), bets(w("o", "odds", "2", on="pl")))
    assert accepted(below, 2) == ["o"]  # $2 odds under the $5 minimum


# --- § 623a.3(b): posted limits; amounts ----------------------------------------------


def test_623a_3_b_table_minimum_and_maximum() -> None:
    result = play(
        bets(
            w("low", "pass", "4.99"),
            w("min", "pass", "5", "p2"),
            w("max", "dont_pass", "5000", "p3"),
            w("high", "dont_pass", "5000.01", "p4"),
            w("placehigh", "place:6", "5001", "p5"),
            w("fieldlow", "field", "1", "p6"),
        )
    )
    assert accepted(result, 0) == ["min", "max"]
    assert refused(result, 0) == ["low", "high", "placehigh", "fieldlow"]


@pytest.mark.parametrize("amount", ["0", "-5", "10.005"])
def test_623a_3_b_amount_positive_in_whole_cents(amount: str) -> None:
    assert is_refused("pass", amount, min_wager="0.01")


def test_a_wager_id_is_used_once() -> None:
    result = play(
        bets(w("a", "pass"), w("a", "dont_pass", player="p2")), roll(3, 4), bets(w("a", "pass"))
    )
    assert accepted(result, 0) == ["a"] and refused(result, 0) == ["a"]
    assert refused(result, 2) == ["a"]


def test_623a_3_unknown_wager_kind_refused() -> None:
    for kind in ("big", "any_eleven", "hop", "odds:pass", "Pass"):
        assert is_refused(kind), kind


# --- § 623a.4(c), (d): removal and reduction ------------------------------------------


def test_623a_4_c_pass_bet_taken_down_before_the_come_out_roll() -> None:
    result = play(bets(w("pl", "pass")), {"remove": ["pl"]}, roll(3, 4))
    assert decided(result, 1)["pl"][:2] == ("void", "0.00")
    assert decided(result) == {}


def test_623a_4_c_1_pass_bet_cannot_be_removed_after_the_point() -> None:
    result = play(bets(w("pl", "pass")), roll(4, 4), {"remove": ["pl"]})
    assert refused(result, 2) == ["pl"]
    assert result["steps"][2]["rejected"][0]["cite"] == C("623a.4(c)(1)")
    reduce = play(
        bets(w("pl", "pass", "20")), roll(4, 4), {"remove": [{"id": "pl", "reduce_to": "10"}]}
    )
    assert refused(reduce, 2) == ["pl"]
    assert reduce["open"] == ["pl"]


def test_623a_4_c_2_come_bet_cannot_be_removed_after_its_come_point() -> None:
    result = play(roll(4, 4), bets(w("c", "come")), roll(2, 3), {"remove": ["c"]})
    assert refused(result, 3) == ["c"]
    assert result["steps"][3]["rejected"][0]["cite"] == C("623a.4(c)(2)")
    before = play(roll(4, 4), bets(w("c", "come")), {"remove": ["c"]})
    assert decided(before)["c"][:2] == ("void", "0.00")


def test_623a_4_c_3_fire_bet_cannot_be_removed_or_reduced() -> None:
    result = play(
        bets(w("f", "fire", "5")), {"remove": ["f"]}, {"remove": [{"id": "f", "reduce_to": "2"}]}
    )
    assert refused(result, 1) == ["f"] and refused(result, 2) == ["f"]
    assert result["steps"][1]["rejected"][0]["cite"] == C("623a.4(c)(3)")
    assert result["open"] == ["f"]


def test_623b_1_b_hot_roller_cannot_be_removed() -> None:
    result = play(bets(w("hr", "hot_roller", "5")), {"remove": ["hr"]})
    assert refused(result, 1) == ["hr"]
    assert result["open"] == ["hr"]


def test_623a_4_c_any_other_wager_taken_down_before_its_deciding_throw() -> None:
    result = play(
        roll(3, 3),
        bets(w("p", "place:8", "12"), w("h", "hard:4", "5"), w("fl", "field", "5")),
        roll(1, 2),  # field decided; the others stay
        {"remove": ["p", "h"]},
    )
    got = decided(result)
    assert (got["p"][:2], got["h"][:2]) == (("void", "0.00"), ("void", "0.00"))
    assert result["open"] == []


def test_623a_4_d_dont_pass_reduced_after_the_point() -> None:
    result = play(
        bets(w("dp", "dont_pass", "25")),
        roll(2, 4),
        {"remove": [{"id": "dp", "reduce_to": "15"}]},
        roll(3, 4),
    )
    assert result["steps"][2]["rejected"] == []
    assert result["steps"][2]["reduced"] == [{"wager": "dp", "amount": "15.00"}]
    assert decided(result) == {"dp": (WIN, "15.00", C("623a.3(a)(2)(i)(B)"))}


def test_623a_4_d_dont_come_removed_after_its_come_point_takes_its_odds_down() -> None:
    result = play(
        roll(2, 2),
        bets(w("dc", "dont_come")),
        roll(4, 6),
        bets(w("o", "odds", "20", on="dc")),
        {"remove": ["dc"]},
        roll(3, 4),
    )
    got = decided(result, 4)
    assert (got["dc"][:2], got["o"][:2]) == (("void", "0.00"), ("void", "0.00"))
    assert decided(result) == {}


def test_623a_4_c_reduction_cannot_increase() -> None:
    result = play(
        roll(3, 3), bets(w("p", "place:8", "12")), {"remove": [{"id": "p", "reduce_to": "18"}]}
    )
    assert refused(result, 2) == ["p"]


def test_623a_4_c_reduction_keeps_the_table_minimum_and_units() -> None:
    result = play(
        bets(w("h", "horn", "8"), w("p", "place:6", "12", "p2")),
        {"remove": [{"id": "h", "reduce_to": "6"}]},  # not units of four
        {"remove": [{"id": "p", "reduce_to": "4"}]},  # under the $5 minimum
        {"remove": [{"id": "h", "reduce_to": "4"}]},
        min_wager="5",
    )
    assert refused(result, 1) == ["h"]
    assert refused(result, 2) == ["p"]
    # $4 horn is a unit of four but under the $5 table minimum
    assert refused(result, 3) == ["h"]
    ok = play(bets(w("h", "horn", "8")), {"remove": [{"id": "h", "reduce_to": "4"}]}, min_wager="1")
    assert ok["steps"][1]["reduced"] == [{"wager": "h", "amount": "4.00"}]


def test_623a_6_b_odds_limit_is_on_the_amount_originally_wagered() -> None:
    # § 623a.4(d): a Don't Pass may be reduced "at any time"; § 623a.6(b), (e) measure the
    # odds against the amount "originally wagered". Don't Pass $10 on 4, $60 laid (wins 30 =
    # 3 x 10): reduced to $5, the $60 stays and the limit is still $60.
    result = play(
        bets(w("dp", "dont_pass")),
        roll(1, 3),
        bets(w("o", "odds", "60", on="dp")),
        {"remove": [{"id": "dp", "reduce_to": "5"}]},
        bets(w("o2", "odds", "0.01", on="dp")),
        roll(3, 4),
    )
    assert refused(result, 3) == []
    assert result["steps"][3]["reduced"] == [{"wager": "dp", "amount": "5.00"}]
    assert refused(result, 4) == ["o2"]
    # The 7: Don't Pass $5 wins 5.00; $60 laid at 1 to 2 wins 30.00.
    assert decided(result) == {
        "dp": ("win", "5.00", cite("623a.3(a)(2)(i)(B)")),
        "o": ("win", "30.00", cite("623a.6(b)(2)(i)")),
    }


def test_623a_4_c_removing_a_bet_and_its_odds_together_is_one_removal() -> None:
    result = play(
        bets(w("dp", "dont_pass")),
        roll(1, 3),
        bets(w("o", "odds", "20", on="dp")),
        {"remove": ["dp", "o"]},
    )
    assert refused(result, 3) == []
    assert [(r["wager"], r["result"], r["net"]) for r in result["steps"][3]["resolutions"]] == [
        ("dp", "void", "0.00"),
        ("o", "void", "0.00"),
    ]
    assert result["open"] == []


def test_623a_4_c_hot_shooter_stays_once_its_run_of_throws_has_begun() -> None:
    # Each throw counts toward the Hot Shooter's decision (§ 623b.4(d)): taken down before
    # its first throw, but not after (else a player leaves when the count looks bad).
    early = play(bets(w("hs", "hot_shooter")), {"remove": ["hs"]}, table_type="hybrid")
    assert decided(early, 1) == {"hs": ("void", "0.00", cite("623a.4(c)"))}
    late = play(bets(w("hs", "hot_shooter")), roll(2, 2), {"remove": ["hs"]}, table_type="hybrid")
    assert refused(late, 2) == ["hs"]
    assert late["open"] == ["hs"]


def test_623a_4_c_lucky_shooter_stays_once_its_point_is_established() -> None:
    table = {"table_type": "electronic"}
    at_point = play(bets(w("l", "lucky_shooter")), roll(4, 5), {"remove": ["l"]}, **table)
    assert refused(at_point, 2) == ["l"]
    # After a come out 7 it is back to waiting for a come out roll: it may come down.
    after_seven = play(bets(w("l", "lucky_shooter")), roll(3, 4), {"remove": ["l"]}, **table)
    assert decided(after_seven, 2) == {"l": ("void", "0.00", cite("623a.4(c)"))}


def test_malformed_wager_fields() -> None:
    for wager in (
        w("p", "pass", colour="red"),
        w("p", "pass", on="x"),
        w("p", "pass", seat="3"),
        w("p", "pass", seat=True),
    ):
        with pytest.raises(MalformedInput):
            play(bets(wager))


# --- § 623a.3(a)(40), § 623a.5(f), § 623a.11: Fire Bet ---------------------------------

POINT_DICE = {4: ((1, 3), (2, 2)), 5: ((1, 4), (2, 3)), 6: ((1, 5), (2, 4))}
POINT_DICE |= {8: ((2, 6), (3, 5)), 9: ((3, 6), (4, 5)), 10: ((4, 6), (5, 5))}


def made(*points: int) -> list[dict]:
    """Throws establishing and making each point in turn."""
    return [roll(*d) for p in points for d in POINT_DICE[p]]


SEVEN_OUT = [roll(1, 3), roll(3, 4)]  # point 4 established, then the loser 7


def test_623a_11_b_1_fire_bet_one_to_five_whole_dollars() -> None:
    for amount in ("1", "2", "5"):
        assert not is_refused("fire", amount), amount  # under the $5 table minimum is fine
    for amount in ("0.50", "2.50", "6", "10", "0"):
        assert is_refused("fire", amount), amount


def test_623a_11_a_1_fire_bet_only_before_a_new_shooters_initial_come_out_roll() -> None:
    result = play(
        bets(w("f1", "fire", "5")),
        roll(3, 4),  # come out 7: the shooter has thrown
        bets(w("f2", "fire", "5", "p2")),
        *SEVEN_OUT,
        bets(w("f3", "fire", "5", "p3")),  # shooter 2, no throw yet
    )
    assert refused(result, 2) == ["f2"]
    assert accepted(result, 5) == ["f3"]


@pytest.mark.parametrize(
    ("paytable", "points", "net"),
    [
        ("A", (4, 5, 6, 8), "120.00"),  # 5 * 24
        ("B", (4, 5, 6, 8), "195.00"),  # 5 * 39
        ("A", (4, 5, 6, 8, 9), "1245.00"),  # 5 * 249
        ("B", (10, 9, 8, 6, 5), "995.00"),  # 5 * 199
        ("A", (4, 5, 6, 8, 9, 10), "4995.00"),  # 5 * 999
        ("B", (4, 5, 6, 8, 9, 10), "2495.00"),  # 5 * 499
    ],
)
def test_623a_5_f_fire_bet_paytables(paytable, points, net) -> None:
    result = play(bets(w("f", "fire", "5")), *made(*points), *SEVEN_OUT, fire_bet_paytable=paytable)
    assert decided(result, -2) == {}
    assert decided(result) == {"f": (WIN, net, C("623a.5(f)"))}


def test_623a_5_f_fire_bet_pays_per_dollar() -> None:
    result = play(bets(w("f", "fire", "1")), *made(4, 5, 6, 8), *SEVEN_OUT)
    assert decided(result) == {"f": (WIN, "24.00", C("623a.5(f)"))}  # 1 * 24


def test_623a_3_a_40_ii_fire_bet_loses_with_fewer_than_four_points() -> None:
    # 4, 5, 6 made; 8 established but not made: three points
    result = play(bets(w("f", "fire", "5")), *made(4, 5, 6), roll(2, 6), roll(3, 4))
    assert decided(result) == {"f": (LOSE, "-5.00", C("623a.3(a)(40)(ii)"))}


def test_623a_11_b_2_same_point_twice_counts_once() -> None:
    result = play(bets(w("f", "fire", "5")), *made(4, 4, 5, 5, 6), *SEVEN_OUT)
    assert decided(result) == {"f": (LOSE, "-5.00", C("623a.3(a)(40)(ii)"))}


def test_623a_11_a_5_fire_bet_settled_only_on_a_loser_seven() -> None:
    result = play(bets(w("f", "fire", "5")), *made(4, 5, 6, 8), roll(3, 4), roll(6, 5))
    for step in range(1, len(result["steps"])):
        assert "f" not in decided(result, step), step  # a come out 7 is not a loser 7
    assert result["open"] == ["f"]


def test_623a_11_a_2_pending_fire_bet_settled_on_the_successors_loser_seven() -> None:
    result = play(
        bets(w("f", "fire", "5")),
        *made(4, 5, 6),
        {"pass_dice": True},
        *made(9),
        *SEVEN_OUT,
    )
    # Craps reading 9: the carried Fire Bet keeps its points: 4, 5, 6 + 9 = four -> 5 * 24
    assert decided(result) == {"f": (WIN, "120.00", C("623a.5(f)"))}


def test_623a_5_f_fire_bet_not_offered() -> None:
    assert is_refused("fire", "5", fire_bet_paytable="none")


# --- § 623b.1: Hot Roller -------------------------------------------------------------

_FOUR_FIVE = [(1, 3), (2, 2), (1, 4), (2, 3)]
_SIX_EIGHT = [(1, 5), (2, 4), (3, 3), (2, 6), (3, 5), (4, 4)]
ROLLER_STEPS = {  # complete numbers -> the throws after the come out 4-6 (point 10)
    2: _FOUR_FIVE,
    3: [*_FOUR_FIVE, *_SIX_EIGHT[:3]],
    4: [*_FOUR_FIVE, *_SIX_EIGHT],
    5: [*_FOUR_FIVE, *_SIX_EIGHT, (3, 6), (4, 5)],
    # 5-5 makes the point 10, then a come out 1-3 (point 4) before the seven-out
    6: [*_FOUR_FIVE, *_SIX_EIGHT, (3, 6), (4, 5), (5, 5), (1, 3)],
}


@pytest.mark.parametrize(
    ("paytable", "numbers", "net"),
    [
        ("A", 2, "25.00"),  # 5 * 5
        ("A", 3, "50.00"),  # 5 * 10
        ("A", 4, "100.00"),  # 5 * 20
        ("A", 5, "250.00"),  # 5 * 50
        ("A", 6, "1000.00"),  # 5 * 200
        ("B", 2, "25.00"),
        ("B", 3, "50.00"),
        ("B", 4, "100.00"),
        ("B", 5, "250.00"),
        ("B", 6, "1500.00"),  # 5 * 300
    ],
)
def test_623b_1_h_hot_roller_paytables(paytable, numbers, net) -> None:
    result = play(
        bets(w("hr", "hot_roller", "5")),
        roll(4, 6),
        *rolls(*ROLLER_STEPS[numbers]),
        roll(3, 4),
        hot_roller_paytable=paytable,
    )
    assert decided(result) == {"hr": (WIN, net, C("623b.1(h)"))}


def test_623b_1_g_hot_roller_loses_with_one_number_combination() -> None:
    result = play(bets(w("hr", "hot_roller", "5")), *rolls((4, 6), (1, 3), (2, 2), (3, 4)))
    assert decided(result) == {"hr": (LOSE, "-5.00", C("623b.1(g)"))}


def test_623b_1_g_hot_roller_loses_on_a_come_out_seven() -> None:
    result = play(bets(w("hr", "hot_roller", "5")), roll(5, 2))
    assert decided(result) == {"hr": (LOSE, "-5.00", C("623b.1(g)"))}


def test_623b_1_g_nine_is_three_six_and_four_five_not_two_six() -> None:
    # The text's example names "2 and 6" for the 9; 2-6 makes 8. With 1-3, 2-2 (4),
    # 4-5 and 2-6 only the 4 is complete: one number -> lose.
    result = play(
        bets(w("hr", "hot_roller", "5")), *rolls((4, 6), (1, 3), (2, 2), (4, 5), (2, 6), (3, 4))
    )
    assert decided(result) == {"hr": (LOSE, "-5.00", C("623b.1(g)"))}
    # With 3-6 instead of 2-6: 4 and 9 complete -> Any 2, 5 * 5
    result = play(
        bets(w("hr", "hot_roller", "5")), *rolls((4, 6), (1, 3), (2, 2), (4, 5), (6, 3), (3, 4))
    )
    assert decided(result) == {"hr": (WIN, "25.00", C("623b.1(h)"))}


def test_623b_1_g_hot_roller_settled_on_any_seven_come_out_or_not() -> None:
    # Craps reading 12: settled on any 7, come out or not, and come out throws mark too:
    # 1-3 (point 4), 2-2 (made), 1-4 (point 5), 2-3 (made): 4 and 5 complete; a come out 7.
    result = play(bets(w("hr", "hot_roller", "5")), *rolls((1, 3), (2, 2), (1, 4), (2, 3), (3, 4)))
    assert decided(result) == {"hr": (WIN, "25.00", C("623b.1(h)"))}  # 5 * 5


def test_623b_1_b_hot_roller_only_before_the_first_throw_of_a_series() -> None:
    result = play(
        roll(2, 2),
        bets(w("a", "hot_roller", "5")),
        roll(2, 2),  # point made: still the same series
        bets(w("b", "hot_roller", "5")),
        roll(3, 4),
        bets(w("c", "hot_roller", "5")),
    )
    assert refused(result, 1) == ["a"] and refused(result, 3) == ["b"]
    assert accepted(result, 5) == ["c"]


def test_623b_1_h_hot_roller_not_offered() -> None:
    assert is_refused("hot_roller", "5", hot_roller_paytable="none")


# --- § 623b.2: Lucky Shooter ----------------------------------------------------------

LUCKY = {"table_type": "electronic"}
HANDS = {  # hand -> throws from the come out (point 9)
    "5+P": [(4, 5), (4, 6), (1, 3), (2, 4), (2, 6), (2, 3), (3, 6)],
    "5": [(4, 5), (4, 6), (1, 3), (2, 4), (2, 6), (2, 3), (3, 4)],
    "4": [(4, 5), (4, 6), (1, 3), (2, 4), (2, 6), (3, 4)],
    "3": [(4, 5), (4, 6), (1, 3), (2, 4), (5, 5)],
    "2": [(4, 5), (4, 6), (1, 3), (1, 1)],
}


@pytest.mark.parametrize(
    ("paytable", "hand", "net", "odds"),
    [  # $10 at "X for 1": net (X - 1) * 10
        ("A", "5+P", "9990.00", "1000 for 1"),
        ("A", "5", "1490.00", "150 for 1"),
        ("A", "4", "140.00", "15 for 1"),
        ("A", "3", "40.00", "5 for 1"),
        ("B", "5+P", "4990.00", "500 for 1"),
        ("B", "5", "990.00", "100 for 1"),
        ("B", "4", "90.00", "10 for 1"),
        ("B", "3", "30.00", "4 for 1"),
        ("B", "2", "10.00", "2 for 1"),
        ("C", "5+P", "9990.00", "1000 for 1"),
        ("C", "5", "1490.00", "150 for 1"),
        ("C", "4", "190.00", "20 for 1"),
        ("C", "3", "40.00", "5 for 1"),
        ("D", "5+P", "4990.00", "500 for 1"),
        ("D", "5", "990.00", "100 for 1"),
        ("D", "4", "90.00", "10 for 1"),
        ("D", "3", "40.00", "5 for 1"),
        ("D", "2", "10.00", "2 for 1"),
    ],
)
def test_623b_2_e_lucky_shooter_paytables(paytable, hand, net, odds) -> None:
    result = play(
        bets(w("ls", "lucky_shooter")),
        *rolls(*HANDS[hand]),
        lucky_shooter_paytable=paytable,
        **LUCKY,
    )
    for step in range(1, len(result["steps"]) - 1):
        assert decided(result, step) == {}, step
    assert decided(result) == {"ls": (WIN, net, C("623b.2(e)"))}
    assert resolution(result, "ls")["odds"] == odds


@pytest.mark.parametrize("paytable", ["A", "C"])
def test_623b_2_e_two_of_five_only_in_paytables_b_and_d(paytable) -> None:
    result = play(
        bets(w("ls", "lucky_shooter")),
        *rolls(*HANDS["2"]),
        lucky_shooter_paytable=paytable,
        **LUCKY,
    )
    assert decided(result) == {"ls": (LOSE, "-10.00", C("623b.2(d)(3)"))}


def test_623b_2_d_3_text_examples() -> None:
    # 9, then 10, 4, 6 and another 10: 3 of 5 (A: 5 for 1 -> 4 * 5)
    ex1 = play(bets(w("ls", "lucky_shooter", "5")), *rolls(*HANDS["3"]), **LUCKY)
    assert decided(ex1) == {"ls": (WIN, "20.00", C("623b.2(e)"))}
    # 9, then 10, 4, 6, 8, 5 and another 9: 5 of 5 and the point (A: 1000 for 1)
    ex2 = play(bets(w("ls", "lucky_shooter", "5")), *rolls(*HANDS["5+P"]), **LUCKY)
    assert decided(ex2) == {"ls": (WIN, "4995.00", C("623b.2(e)"))}
    # 6, then 9, then another 6: lost
    ex3 = play(bets(w("ls", "lucky_shooter", "5")), *rolls((3, 3), (3, 6), (2, 4)), **LUCKY)
    assert decided(ex3) == {"ls": (LOSE, "-5.00", C("623b.2(d)(3)"))}


@pytest.mark.parametrize("dice", [(1, 1), (1, 2), (6, 6)])
def test_623b_2_d_1_lucky_shooter_loses_on_come_out_craps(dice) -> None:
    result = play(bets(w("ls", "lucky_shooter")), roll(*dice), **LUCKY)
    assert decided(result) == {"ls": (LOSE, "-10.00", C("623b.2(d)(1)"))}
    assert result["open"] == []


@pytest.mark.parametrize("dice", [(3, 4), (5, 6)])
def test_623b_2_d_2_lucky_shooter_come_out_natural_pays_1_for_1_and_stays(dice) -> None:
    # "1 for 1" is the stake itself, and the wager "remain[s] working for the next come out
    # roll": no decision, so no resolution; its one resolution comes when it is decided.
    result = play(bets(w("ls", "lucky_shooter")), roll(*dice), roll(1, 1), **LUCKY)
    assert decided(result, 1) == {}
    assert result["steps"][1]["resolutions"] == []
    assert decided(result) == {"ls": (LOSE, "-10.00", C("623b.2(d)(1)"))}
    assert result["open"] == []


def test_623b_2_d_2_lucky_shooter_after_come_out_sevens_and_elevens_plays_its_point() -> None:
    # 7, 11, 7 on the come out, then the text's first example: 9; 10, 4, 6, 10 -> 3 of 5
    # (A: 5 for 1, net 4 * 5), one resolution for the whole run.
    naturals = [(3, 4), (5, 6), (1, 6)]
    result = play(bets(w("ls", "lucky_shooter", "5")), *rolls(*naturals, *HANDS["3"]), **LUCKY)
    resolved = [r for step in result["steps"] for r in step["resolutions"]]
    assert [(r["wager"], r["result"], r["net"], r["cite"]) for r in resolved] == [
        ("ls", WIN, "20.00", C("623b.2(e)"))
    ]


def test_623b_2_a_lucky_shooter_only_at_a_fully_automated_electronic_table() -> None:
    assert is_refused("lucky_shooter", table_type="manual")
    assert is_refused("lucky_shooter", table_type="hybrid")
    assert not is_refused("lucky_shooter", table_type="electronic")
    assert is_refused("lucky_shooter", table_type="electronic", lucky_shooter_paytable="none")


def test_623b_2_c_lucky_shooter_only_before_the_come_out_roll() -> None:
    assert is_refused("lucky_shooter", before=((2, 2),), **LUCKY)
    assert not is_refused("lucky_shooter", before=((2, 2), (1, 3)), **LUCKY)


# --- § 623b.3: Bonus Craps ------------------------------------------------------------

SMALL = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)]  # 2, 3, then point 4, 5, 6
TALL = [(6, 6), (5, 6), (4, 4), (4, 5), (4, 6)]  # 12, 11, then point 8, 9, 10
ALL = [(1, 1), (1, 2), (6, 6), (5, 6), (2, 2), (2, 3), (3, 3), (4, 4), (4, 5), (4, 6)]


@pytest.mark.parametrize(
    ("kind", "dice", "paytable", "net"),
    [
        ("all_small", SMALL, "1", "170.00"),  # 5 * 34
        ("all_small", SMALL, "2", "150.00"),  # 5 * 30
        ("all_tall", TALL, "1", "170.00"),
        ("all_tall", TALL, "2", "150.00"),
        ("make_em_all", ALL, "1", "875.00"),  # 5 * 175
        ("make_em_all", ALL, "2", "750.00"),  # 5 * 150
    ],
)
def test_623b_3_c_bonus_craps_paytables(kind, dice, paytable, net) -> None:
    result = play(bets(w("b", kind, "5")), *rolls(*dice), bonus_craps_paytable=paytable)
    assert decided(result, -2) == {}
    assert decided(result) == {"b": (WIN, net, C("623b.3(c)"))}  # as soon as the last is thrown


def test_623b_3_d_bonus_craps_loses_on_a_seven() -> None:
    result = play(
        bets(
            w("s", "all_small", "5"),
            w("t", "all_tall", "5", "p2"),
            w("m", "make_em_all", "5", "p3"),
        ),
        *rolls((1, 1), (1, 2), (6, 6), (3, 4)),  # 2, 3, 12 then a come out 7
    )
    got = decided(result)
    assert {k: v[:2] for k, v in got.items()} == {
        "s": (LOSE, "-5.00"),
        "t": (LOSE, "-5.00"),
        "m": (LOSE, "-5.00"),
    }


def test_623b_3_bonus_craps_not_offered() -> None:
    for kind in ("all_small", "all_tall", "make_em_all"):
        assert is_refused(kind, "5", bonus_craps_paytable="none"), kind


# --- § 623b.4: Hot Shooter Jackpot ----------------------------------------------------

FILL = [(1, 2), (5, 6), (6, 6), (1, 1), (2, 3), (3, 3), (4, 4), (4, 5), (4, 6), (5, 5)]


def shooter_throws(count: int) -> list[dict]:
    """Come out 4 (point), count - 2 throws that are neither 4 nor 7, the seven-out."""
    fillers = [FILL[i % len(FILL)] for i in range(count - 2)]
    return [roll(2, 2), *rolls(*fillers), roll(3, 4)]


@pytest.mark.parametrize(
    ("count", "result_", "net", "section"),
    [
        (2, LOSE, "-5.00", "623b.4(d)(1)"),
        (7, LOSE, "-5.00", "623b.4(d)(1)"),
        (8, PUSH, "0.00", "623b.4(d)(1.1)"),
        (15, PUSH, "0.00", "623b.4(d)(1.1)"),
        (16, WIN, "10.00", "623b.4(e)"),  # 5 * 2
        (23, WIN, "10.00", "623b.4(e)"),
        (24, WIN, "20.00", "623b.4(e)"),  # 5 * 4
        (31, WIN, "20.00", "623b.4(e)"),
        (32, WIN, "30.00", "623b.4(e)"),  # 5 * 6
        (39, WIN, "30.00", "623b.4(e)"),
        (40, WIN, "55.00", "623b.4(e)"),  # 5 * 11
        (44, WIN, "55.00", "623b.4(e)"),
        (45, WIN, "145.00", "623b.4(e)"),  # 5 * 29
        (49, WIN, "145.00", "623b.4(e)"),
        (50, WIN, "495.00", "623b.4(e)"),  # 5 * 99
        (61, WIN, "495.00", "623b.4(e)"),
    ],
)
def test_623b_4_e_hot_shooter_bands(count, result_, net, section) -> None:
    result = play(bets(w("hs", "hot_shooter", "5")), *shooter_throws(count), table_type="hybrid")
    assert len(result["steps"]) == count + 1
    assert decided(result, -2) == {}
    assert decided(result) == {"hs": (result_, net, C(section))}


def test_623b_4_d_come_out_sevens_count_toward_the_throws() -> None:
    # Every throw from the first come out roll counts, come out naturals included:
    # 7, 11, then come out 4, 12 throws, the seven-out: 2 + 14 = 16 -> 2 to 1, 5 * 2.
    throws = [roll(3, 4), roll(5, 6), *shooter_throws(14)]
    result = play(bets(w("hs", "hot_shooter", "5")), *throws, table_type="electronic")
    assert decided(result) == {"hs": (WIN, "10.00", C("623b.4(e)"))}


def test_623b_4_a_hot_shooter_only_at_electronic_or_hybrid_tables() -> None:
    assert is_refused("hot_shooter", "5", table_type="manual")
    assert not is_refused("hot_shooter", "5", table_type="hybrid")
    assert not is_refused("hot_shooter", "5", table_type="electronic")
    assert is_refused("hot_shooter", "5", table_type="hybrid", hot_shooter_jackpot=False)


def test_623b_4_c_hot_shooter_only_before_the_come_out_roll() -> None:
    assert is_refused("hot_shooter", "5", before=((2, 2),), table_type="hybrid")


# --- § 623b.5: Power Odds -------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "amount", "key", "value", "dice", "net"),
    [
        ("any_craps", "10", "any_craps", "10 to 1", (1, 2), "100.00"),
        ("any_craps", "10", "any_craps", "14 to 1", (6, 6), "140.00"),
        ("any_seven", "10", "any_seven", "6 to 1", (3, 4), "60.00"),
        ("any_seven", "10", "any_seven", "8 to 1", (2, 5), "80.00"),
        ("eleven", "10", "eleven", "22 to 1", (5, 6), "220.00"),
        ("eleven", "10", "eleven", "30 to 1", (5, 6), "300.00"),
        ("hop:1-3", "10", "hop:1-3", "22 to 1", (3, 1), "220.00"),
        ("hop:4-5", "10", "hop:4-5", "30 to 1", (4, 5), "300.00"),
        ("hop:2-2", "10", "hop:2-2", "45 to 1", (2, 2), "450.00"),
        ("hop:5-5", "10", "hop:5-5", "60 to 1", (5, 5), "600.00"),
        ("horn", "4", "horn:3-11", "22 to 1", (1, 2), "19.00"),  # $1 * 22 - $3
        ("horn", "4", "horn:3-11", "30 to 1", (5, 6), "27.00"),  # $1 * 30 - $3
        ("horn", "4", "horn:2-12", "45 to 1", (1, 1), "42.00"),  # $1 * 45 - $3
        ("horn", "8", "horn:2-12", "60 to 1", (6, 6), "114.00"),  # $2 * 60 - $6
        ("c_and_e", "10", "c_and_e:craps", "4 to 1", (1, 2), "40.00"),  # whole wager 10 * 4
        ("c_and_e", "10", "c_and_e:craps", "6 to 1", (6, 6), "60.00"),
        ("c_and_e", "10", "c_and_e:11", "10 to 1", (5, 6), "100.00"),
        ("c_and_e", "10", "c_and_e:11", "14 to 1", (5, 6), "140.00"),
    ],
)
def test_623b_5_d_power_odds_pay_the_selected_odds(kind, amount, key, value, dice, net) -> None:
    result = play(
        bets(w("x", kind, amount)), {"power_odds": {key: value}}, roll(*dice), min_wager="1"
    )
    assert refused(result, 1) == []
    (got,) = result["steps"][2]["resolutions"]
    assert (got["result"], got["net"], got["power_odds"]) == (WIN, net, value)
    # The odds paid were set by § 623b.5(d), the most specific section.
    assert got["cite"] == cite("623b.5(d)")


@pytest.mark.parametrize(
    ("kind", "value", "dice", "net"),
    [
        ("hard:4", "10 to 1", (2, 2), "100.00"),
        ("hard:10", "14 to 1", (5, 5), "140.00"),
        ("hard:6", "13 to 1", (3, 3), "130.00"),
        ("hard:8", "18 to 1", (4, 4), "180.00"),
    ],
)
def test_623b_5_d_power_odds_on_hardways(kind, value, dice, net) -> None:
    point = (4, 5)  # point 9
    result = play(roll(*point), bets(w("h", kind)), {"power_odds": {kind: value}}, roll(*dice))
    (got,) = result["steps"][3]["resolutions"]
    assert (got["result"], got["net"], got["power_odds"]) == (WIN, net, value)


def test_623b_5_power_odds_for_the_next_throw_only() -> None:
    result = play(
        roll(4, 5),
        bets(w("h", "hard:6")),
        {"power_odds": {"hard:6": "18 to 1"}},
        roll(1, 2),  # boosted throw passes without a decision
        roll(3, 3),
    )
    assert decided(result, 3) == {}
    got = resolution(result, "h")
    assert (got["result"], got["net"]) == (WIN, "90.00")  # usual 9 to 1
    assert "power_odds" not in got


def test_623b_5_unselected_wagers_at_the_usual_odds() -> None:
    result = play(
        bets(w("ac", "any_craps"), w("h", "horn", "4", "p2")),
        {"power_odds": {"horn:2-12": "60 to 1"}},
        roll(1, 2),
        min_wager="1",
    )
    # any craps 7 to 1; horn quarter on 3 at 15: 15 - 3 = 12
    assert {k: v[:2] for k, v in decided(result).items()} == {
        "ac": (WIN, "70.00"),
        "h": (WIN, "12.00"),
    }
    assert "power_odds" not in resolution(result, "h")


def test_623b_5_a_power_odds_not_offered() -> None:
    result = play(
        bets(w("ac", "any_craps")),
        {"power_odds": {"any_craps": "14 to 1"}},
        roll(1, 1),
        power_odds=False,
    )
    assert refused(result, 1) == [1]
    assert decided(result)["ac"][:2] == (WIN, "70.00")


@pytest.mark.parametrize(
    "selection",
    [
        {"any_craps": "12 to 1"},
        {"any_seven": "14 to 1"},
        {"field": "3 to 1"},
        {"horn_high:12": "60 to 1"},
        {"whirl": "30 to 1"},
        {"hop:1-3": "60 to 1"},
        {"hop:2-2": "30 to 1"},
        {"hard:6": "14 to 1"},
        {"place:6": "2 to 1"},
        {"horn": "30 to 1"},
        {"c_and_e": "6 to 1"},
    ],
)
def test_623b_5_d_power_odds_key_or_value_not_in_the_table(selection) -> None:
    result = play(bets(w("ac", "any_craps")), {"power_odds": selection}, roll(1, 1))
    assert refused(result, 1) == [1]


def test_623b_5_c_no_second_selection_and_no_changes_after_a_selection() -> None:
    result = play(
        roll(4, 5),
        bets(w("p", "place:6", "12"), w("h", "hard:8", "5")),
        {"power_odds": {"any_craps": "10 to 1"}},
        {"power_odds": {"any_seven": "8 to 1"}},
        bets(w("late", "field", "5")),
        {"remove": ["p"]},
        {"working": {"h": False}},
        roll(3, 3),
    )
    assert refused(result, 3) == [3]
    assert refused(result, 4) == ["late"]
    assert refused(result, 5) == ["p"]
    assert refused(result, 6) == ["h"]
    assert decided(result) == {"p": (WIN, "14.00", C(PLACE))}  # still up: 12 * 7/6


# --- § 623a.2(c), § 623a.4(e): Mini-Craps ----------------------------------------------


def test_623a_2_c_mini_craps_seats_one_to_nine() -> None:
    mini = {"variant": "mini_craps"}
    result = play(
        bets(
            w("s1", "pass", "10", "p1", seat=1),
            w("s9", "pass", "10", "p9", seat=9),
            w("s0", "pass", "10", "p2", seat=0),
            w("s10", "pass", "10", "p3", seat=10),
            w("none", "pass", "10", "p4"),
        ),
        **mini,
    )
    # The seat is optional (SCENARIOS.md has none); where given it is checked.
    assert accepted(result, 0) == ["s1", "s9", "none"]
    assert refused(result, 0) == ["s0", "s10"]


def test_623a_4_e_mini_craps_played_to_the_contract_without_seats() -> None:
    # A scenario written to SCENARIOS.md alone: Pass $10, point 5, odds $20, 5 again: the Pass
    # pays 10.00, the odds 3 to 2: 30.00; a Field $5 on the 5 loses.
    result = play(
        bets(w("pl", "pass"), w("f", "field", "5", "p2")),
        roll(2, 3),
        bets(w("o", "odds", "20", on="pl")),
        roll(1, 4),
        variant="mini_craps",
    )
    assert [step["rejected"] for step in result["steps"]] == [[], [], [], []]
    assert decided(result, 1) == {"f": ("lose", "-5.00", C("623a.3(a)(11)(ii)"))}
    assert decided(result) == {
        "pl": ("win", "10.00", C("623a.3(a)(1)(i)(B)")),
        "o": ("win", "30.00", C("623a.6(a)(2)(ii)")),
    }


def test_623a_4_e_mini_craps_a_seat_given_later_is_still_checked() -> None:
    result = play(
        bets(w("a", "pass", "10", "p1", seat=4), w("b", "field", "5", "p1")),
        bets(w("c", "field", "5", "p2", seat=4), w("d", "field", "5", "p1", seat=5)),
        variant="mini_craps",
    )
    assert accepted(result, 0) == ["a", "b"]
    assert refused(result, 1) == ["c", "d"]  # seat 4 is p1's; p1 holds one seat


def test_623a_4_e_mini_craps_seat_held_while_the_player_has_wagers() -> None:
    result = play(
        bets(w("a", "pass", "10", "p1", seat=4), w("f", "field", "5", "p1", seat=4)),
        roll(2, 2),  # point 4: a stays, f loses
        bets(w("b", "place:6", "6", "p2", seat=4), w("c", "place:8", "6", "p1", seat=5)),
        roll(1, 3),  # point made: p1 has no wager left
        bets(w("d", "pass", "10", "p2", seat=4)),
        variant="mini_craps",
    )
    assert accepted(result, 0) == ["a", "f"]
    assert refused(result, 2) == ["b", "c"]  # seat 4 is p1's; p1 holds one seat
    assert accepted(result, 4) == ["d"]


# --- Options and malformed documents ---------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"max_odds_multiple": 11}, "options.max_odds_multiple"),
        ({"max_odds_multiple": 0}, "options.max_odds_multiple"),
        ({"max_odds_multiple": "11"}, "options.max_odds_multiple"),
        ({"max_odds_multiple": "²"}, "options.max_odds_multiple"),  # a digit int() refuses
        ({"max_odds_multiple": "３"}, "options.max_odds_multiple"),
        ({"vig_percent": "5.5"}, "options.vig_percent"),
        ({"vig_collected": "weekly"}, "options.vig_collected"),
        ({"vig_returned_on_removal": "sometimes"}, "options.vig_returned_on_removal"),
        ({"fire_bet_paytable": "C"}, "options.fire_bet_paytable"),
        ({"lucky_shooter_paytable": "E"}, "options.lucky_shooter_paytable"),
        ({"bonus_craps_paytable": "3"}, "options.bonus_craps_paytable"),
        ({"table_type": "robot"}, "options.table_type"),
        ({"variant": "bank_craps"}, "options.variant"),
        ({"odds": 3}, "options.odds"),
    ],
)
def test_malformed_options(options, field) -> None:
    with pytest.raises(MalformedInput) as error:
        play(**options)
    assert error.value.field == field


def test_malformed_float_amount() -> None:
    with pytest.raises(MalformedInput) as error:
        play(
            roll(3, 3), {"wagers": [{"id": "a", "player": "p1", "kind": "place:6", "amount": 12.5}]}
        )
    assert error.value.field == "steps[1].wagers[0].amount"


def test_options_accept_command_line_strings() -> None:
    # "10" as max_odds_multiple: $100 odds behind $10
    result = play(
        bets(w("pl", "pass")),
        roll(2, 2),
        bets(w("o", "odds", "100", on="pl")),
        max_odds_multiple="10",
    )
    assert accepted(result, 2) == ["o"]
    assert after_point("buy:4", (2, 2), "20", vig_percent="2.5") == (
        WIN,
        "39.50",  # 40 - 2.5% of 20 = 0.50
        C("623a.3(a)(41)(i)"),
    )


def test_623a_11_a_1_fire_bet_for_a_shooter_who_took_the_dice_with_a_point_on() -> None:
    # Shooter 2 takes the dice with the point 4 on: not before the point is decided (the
    # point was the first shooter's), but after it and before shooter 2's initial come out
    # roll the Fire Bet may be placed; after that come out roll it may not.
    result = play(
        roll(2, 2),
        {"pass_dice": True},
        bets(w("f1", "fire", "5")),
        roll(1, 3),
        bets(w("f2", "fire", "5")),
        roll(3, 3),
        bets(w("f3", "fire", "5")),
    )
    assert result["steps"][1]["shooter"] == 2
    assert refused(result, 2) == ["f1"]
    assert accepted(result, 4) == ["f2"]
    assert refused(result, 6) == ["f3"]
    assert result["open"] == ["f2"]


def test_an_empty_take_down_or_call_is_a_rejected_event_and_play_goes_on():
    """§ 623a.4(c) takes down a wager and a call is made on one: a call naming none is
    refused as an event (SCENARIOS.md: rejected inside the result), not a malformed
    document, and the table is as it was."""
    result = run_scenario(
        {
            "format": 1,
            "game": "craps",
            "steps": [
                {"wagers": [{"id": "w1", "player": "a", "kind": "pass", "amount": "5"}]},
                {"remove": []},
                {"working": {}},
            ],
        }
    )
    assert [s["rejected"] for s in result["steps"]] == [
        [],
        [{"event": 1, "error": "The call names no wager: it takes down nothing"}],
        [{"event": 2, "error": "The call names no wager: it calls on or off nothing"}],
    ]
    assert result["open"] == ["w1"]


# --- the checks' fast paths ----------------------------------------------------------------


def test_only_the_wagers_in_optional_and_timed_can_be_refused_by_those_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """offered_check and timing_check pass a wager outside OPTIONAL and TIMED at once: with
    every wager run through their whole chains, only those sets' wagers are ever refused."""
    from dataclasses import replace

    from games.rules.core import RuleViolation
    from games.rules.craps import placement
    from games.rules.craps.bets import every_bet
    from games.rules.craps.options import CrapsOptions

    every_type = frozenset(bet.wager_type for bet in every_bet())
    monkeypatch.setattr(placement, "OPTIONAL", every_type)
    monkeypatch.setattr(placement, "TIMED", every_type)
    nothing_offered = CrapsOptions(
        buy_lay=False,
        fire_bet_paytable=None,
        hot_roller_paytable=None,
        lucky_shooter_paytable=None,
        bonus_craps_paytable=None,
        hot_shooter_jackpot=False,
    )
    refused_offer, refused_timing = set(), set()
    for bet in every_bet():
        for table_type in ("manual", "hybrid", "electronic"):
            try:
                placement.offered_check(bet, replace(nothing_offered, table_type=table_type))
            except RuleViolation:
                refused_offer.add(bet.wager_type)
        for point in (None, 4, 5, 6, 8, 9, 10):
            for come_out_thrown in (False, True):
                for series in (False, True):
                    try:
                        placement.timing_check(bet, point, come_out_thrown, series)
                    except RuleViolation:
                        refused_timing.add(bet.wager_type)
    monkeypatch.undo()
    assert refused_offer == placement.OPTIONAL
    assert refused_timing == placement.TIMED


# --- § 623a.3(b), § 623a.5(i): the limits bind each wager; one player's several wagers ---------


def test_623a_5_i_the_posted_maximum_binds_each_wager_not_a_players_total_on_a_number():
    """§ 623a.5(i): the holder "may not accept any wager in excess of the maximum bet
    posted"; the text speaks of a wager, and says nothing of a player's wagers together.
    Two $3,000 Place Bets on the 6 by one player under the $5,000 default maximum are both
    taken and each paid 7 to 6 ($3,500.00); one of $5,000.01 is refused."""
    result = play(
        bets(w("a", "pass")),
        roll(2, 2),  # point 4
        bets(w("c", "place:6", "3000"), w("d", "place:6", "3000"), w("e", "place:6", "5000.01")),
        roll(3, 3),
    )
    assert result["steps"][2]["accepted"] == ["c", "d"]
    assert refused(result, 2) == ["e"]
    got = decided(result)
    assert (got["c"][:2], got["d"][:2]) == (("win", "3500.00"), ("win", "3500.00"))


def test_623a_3_a_one_player_may_hold_pass_and_dont_pass_together():
    """§ 623a.3(a) lets "a player" make each wager and forbids no pairing: one player's
    $10 Pass and $10 Don't Pass are both taken. A come out 12 loses the Pass (-10.00) and
    bars the Don't Pass (push 0.00, § 623a.3(a)(2)(iii)); a come out 7 then wins the new
    Pass pair's Pass and loses its Don't Pass."""
    result = play(
        bets(w("a", "pass"), w("b", "dont_pass")),
        roll(6, 6),
        bets(w("c", "pass"), w("d", "dont_pass")),
        roll(3, 4),
    )
    assert result["steps"][0]["accepted"] == ["a", "b"]
    assert {k: v[:2] for k, v in decided(result, 1).items()} == {
        "a": ("lose", "-10.00"),
        "b": ("push", "0.00"),
    }
    assert {k: v[:2] for k, v in decided(result, 3).items()} == {
        "c": ("win", "10.00"),
        "d": ("lose", "-10.00"),
    }


# --- the side wagers: readings of docs/regulations.md (Craps 9, 12-15, 17, 25) -----------------


def test_623a_11_a_4_only_the_point_made_counts_for_the_fire_bet_not_a_come_point():
    """§ 623a.11(a)(4) marks "the point ... which was just made" (Craps reading 9): a come
    point made does not count. Come out 4; p2's $10 Come Bet goes to 5 and is made (1 to 1,
    10.00); the 4 is made; then 6 and 8 are made; point 9, loser 7. Unique points 4, 6, 8:
    three, so the $5 Fire Bet loses (-5.00). Had the come point 5 counted, four points would
    have paid 5 * 24 = 120.00."""
    result = play(
        bets(w("f", "fire", "5")),
        roll(1, 3),  # point 4
        bets(w("c", "come", "10", "p2")),
        roll(2, 3),  # the Come Bet's come point 5
        roll(1, 4),  # its come point made
        roll(2, 2),  # the point 4 made: one unique point
        *rolls((1, 5), (2, 4), (2, 6), (3, 5)),  # 6 and 8 made: three
        roll(4, 5),  # point 9
        roll(3, 4),  # loser 7
    )
    assert decided(result, 4) == {"c": (WIN, "10.00", C("623a.3(a)(3)(i)(B)"))}
    assert decided(result) == {"f": (LOSE, "-5.00", C("623a.3(a)(40)(ii)"))}


def test_623a_11_a_2_a_carried_fire_bet_keeps_its_points_a_new_one_counts_from_none():
    """Each Fire Bet counts the points made since it was placed (Craps reading 9): f1 is
    carried through a voluntary pass with 4, 5, 6 and gains the successor's 9: four points,
    5 * 24 = 120.00 (paytable A); f2, made for the successor before its initial come out
    roll, has only the 9 and loses (-5.00). Both are settled on the successor's loser 7."""
    result = play(
        bets(w("f1", "fire", "5")),
        *made(4, 5, 6),
        {"pass_dice": True},
        bets(w("f2", "fire", "5", "p2")),
        *made(9),
        *SEVEN_OUT,
    )
    assert accepted(result, 8) == ["f2"]
    assert decided(result) == {
        "f1": (WIN, "120.00", C("623a.5(f)")),
        "f2": (LOSE, "-5.00", C("623a.3(a)(40)(ii)")),
    }


def test_623a_10_a_a_voluntary_pass_decides_no_side_wager():
    """§ 623a.10(a), Craps readings 12, 15 and 40: a voluntary pass settles nothing; the
    successor's throws go on deciding every side wager made before it, and the wagers made
    for the series (Hot Roller, Bonus Craps) are not taken again until a 7.

    Electronic table, $5 each, default paytables (Hot Roller A, Lucky Shooter A, Bonus 1).
    Shooter 1 throws 1-3 (point 4), 2-3; passes. Hot Roller offered then: refused
    (§ 623b.1(b)). Shooter 2: 1-5, 4-4, 1-1, 1-2, 2-2 (point made), 1-4 (point 5), 3-4.
    - Lucky Shooter: point 4, others 5, 6, 8, then the 2 settles it: 3 of 5, 5 for 1,
      net 4 * 5 = 20.00.
    - All Small: 4, 5, 6, 8, 2, then the 3 completes 2-6: 34 to 1, 170.00.
    - Hot Roller: 1-3, 2-2 complete the 4, 2-3, 1-4 the 5; two numbers at the 7: 5 to 1,
      25.00.
    - Hot Shooter: nine throws, two of shooter 1's and seven of shooter 2's, to the 7 out:
      8 to 15 pushes (0.00); shooter 2's seven alone would have lost."""
    result = play(
        bets(
            w("hr", "hot_roller", "5", "p1"),
            w("ls", "lucky_shooter", "5", "p2"),
            w("sm", "all_small", "5", "p3"),
            w("hs", "hot_shooter", "5", "p4"),
        ),
        roll(1, 3),
        roll(2, 3),
        {"pass_dice": True},
        bets(w("hr2", "hot_roller", "5", "p5")),
        *rolls((1, 5), (4, 4), (1, 1), (1, 2), (2, 2), (1, 4), (3, 4)),
        table_type="electronic",
    )
    assert accepted(result, 0) == ["hr", "ls", "sm", "hs"]
    assert result["steps"][3]["resolutions"] == [] and result["steps"][3]["shooter"] == 2
    assert refused(result, 4) == ["hr2"]
    assert result["steps"][4]["rejected"][0]["cite"] == C("623b.1(b)")
    assert decided(result, 7) == {"ls": (WIN, "20.00", C("623b.2(e)"))}
    assert decided(result, 8) == {"sm": (WIN, "170.00", C("623b.3(c)"))}
    assert decided(result) == {
        "hr": (WIN, "25.00", C("623b.1(h)")),
        "hs": (PUSH, "0.00", C("623b.4(d)(1.1)")),
    }
    assert result["open"] == []


def test_623b_4_c_hot_shooter_made_mid_hand_counts_from_its_own_come_out_roll():
    """§ 623b.4(c) "prior to ... the come out roll" (Craps reading 15): any come out roll,
    and the count starts at the one the wager was made for. a is made at the table's first
    come out (4, then the 4 made: two throws); b before the next come out. Then come out
    4, 13 throws, the 7 out: b has 15 throws (push, 0.00), a 17 (2 to 1, 5 * 2 = 10.00)."""
    result = play(
        bets(w("a", "hot_shooter", "5")),
        roll(2, 2),
        roll(1, 3),  # point made: a come out roll next, the same shooter
        bets(w("b", "hot_shooter", "5", "p2")),
        *shooter_throws(15),
        table_type="hybrid",
    )
    assert accepted(result, 3) == ["b"]
    assert decided(result) == {
        "a": (WIN, "10.00", C("623b.4(e)")),
        "b": (PUSH, "0.00", C("623b.4(d)(1.1)")),
    }


def test_623b_4_e_the_catalog_states_the_hot_shooter_bands_with_the_7_out_counted():
    """Craps reading 15 counts the 7 out among the throws: the catalog says so, band by band
    (16 to 23 throws pay 2 to 1 ... 50 or more 99 to 1; 8 to 15 returned)."""
    from games.rules.craps import ENGINE

    offers = {
        o.kind: o for o in ENGINE.wager_catalog(ENGINE.parse_options({"table_type": "hybrid"}))
    }
    lines = [(p.when, p.pays) for p in offers["hot_shooter"].payouts]
    assert lines == [
        ("50 or more throws, the 7 out included", "99 to 1"),
        ("45 to 49 throws, the 7 out included", "29 to 1"),
        ("40 to 44 throws, the 7 out included", "11 to 1"),
        ("32 to 39 throws, the 7 out included", "6 to 1"),
        ("24 to 31 throws, the 7 out included", "4 to 1"),
        ("16 to 23 throws, the 7 out included", "2 to 1"),
        ("8 to 15 throws, the 7 out included", "returned"),
    ]


def test_623b_side_wagers_offered_at_mini_craps_and_held_to_the_posted_limits():
    """Craps reading 17: chapter 623b is "Craps and Mini-Craps side wagers", so each is
    taken at Mini-Craps where the table type allows; and the text gives them no limits of
    their own, so § 623a.3(b)'s posted $5 to $5,000 binds them (the Fire Bet alone has its
    $1 to $5, § 623a.11(b)(1))."""
    side = ("fire", "hot_roller", "all_small", "all_tall", "make_em_all", "lucky_shooter")
    mini = {"variant": "mini_craps", "table_type": "electronic"}
    result = play(
        bets(*(w(k, k, "5", f"p{i}") for i, k in enumerate((*side, "hot_shooter")))), **mini
    )
    assert accepted(result, 0) == [*side, "hot_shooter"]
    for kind in side[1:]:
        for amount in ("4.99", "5000.01"):
            got = play(bets(w("x", kind, amount)), table_type="electronic")
            assert refused(got, 0) == ["x"], (kind, amount)
            assert got["steps"][0]["rejected"][0]["cite"] == C("623a.3(b)"), (kind, amount)
        assert not is_refused(kind, "5000", table_type="electronic"), kind
        assert not is_refused(kind, "1", table_type="electronic", min_wager="1"), kind
    assert not is_refused("fire", "1") and is_refused("fire", "6", max_wager="10000")


# --- the readings of the line-by-line audit (docs/regulations.md, Craps 6, 21-24) ---------------


def test_623a_3_a_22_to_38_a_refused_hop_names_the_wager_that_throw_is():
    """§ 623a.3(a)(14)-(17): 1-1, 1-2, 5-6 and 6-6 are the Craps Two, Craps Three, 11 in One
    Roll and Craps Twelve Bets, not hops (reading 6): the refusal names the kind to use."""
    for kind, own in (
        ("hop:1-1", "craps_2"),
        ("hop:1-2", "craps_3"),
        ("hop:5-6", "eleven"),
        ("hop:6-6", "craps_12"),
    ):
        result = play(bets(w("h", kind)))
        (rejection,) = result["steps"][0]["rejected"]
        assert f"kind {own}" in rejection["error"], kind
        assert rejection["cite"] == C("623a.3(a)(22)-(38)")


def test_623a_4_d_a_dont_bet_made_anew_is_not_a_replacement():
    """§ 623a.4(d): a don't bet "may not be replaced or increased after the bet has been
    removed or reduced", read of the bet on its point (reading 21). A $25 Don't Pass taken
    down before the come out roll and made again is taken. On the point 4 it is reduced to
    $10; a new Don't Pass is refused (made only before a come out roll) and no event adds to
    a wager. A Don't Come taken down from its 10 and made anew faces its own first roll: an
    11 loses it (-10.00). The loser 7 pays the $10 Don't Pass left at 1 to 1: 10.00."""
    result = play(
        bets(w("a", "dont_pass", "25")),
        {"remove": ["a"]},
        bets(w("b", "dont_pass", "25")),
        roll(2, 2),  # point 4
        {"remove": [{"id": "b", "reduce_to": "10"}]},
        bets(w("c", "dont_pass", "15")),
        bets(w("dc", "dont_come")),
        roll(4, 6),  # the Don't Come to the 10
        {"remove": ["dc"]},
        bets(w("dc2", "dont_come")),
        roll(5, 6),
        roll(3, 4),
    )
    assert decided(result, 1)["a"][:2] == ("void", "0.00")
    assert accepted(result, 2) == ["b"]
    assert result["steps"][4]["reduced"] == [{"wager": "b", "amount": "10.00"}]
    assert refused(result, 5) == ["c"]
    assert decided(result, 8)["dc"][:2] == ("void", "0.00")
    assert accepted(result, 9) == ["dc2"]
    assert decided(result, 10) == {"dc2": (LOSE, "-10.00", C("623a.3(a)(4)(ii)(A)"))}
    assert decided(result) == {"b": (WIN, "10.00", C("623a.3(a)(2)(i)(B)"))}


def test_623a_10_a_the_dice_may_be_passed_before_the_shooters_first_roll():
    """§ 623a.10(a) gives the shooter the choice "after any roll"; a shooter who has not yet
    thrown may hand the dice on too, as a player offered them may decline (§ 623a.7(b),
    § 623a.10(c)) (reading 22). Two passes at a fresh table: shooter 3 throws the come out
    roll; the $10 Pass made before the passes stays and the come out 7 pays it 10.00."""
    result = play(bets(w("pl", "pass")), {"pass_dice": True}, {"pass_dice": True}, roll(3, 4))
    assert [result["steps"][s]["shooter"] for s in (1, 2, 3)] == [2, 3, 3]
    assert [step["rejected"] for step in result["steps"]] == [[], [], [], []]
    assert decided(result) == {"pl": (WIN, "10.00", C("623a.3(a)(1)(i)(A)"))}


def test_623a_3_a_42_place_to_lose_offered_whether_or_not_buy_and_lay_are():
    """§ 623a.3(a)(41), (42), § 623a.5(g): Buy and Lay Bets are offered together by the Rules
    Submission (`buy_lay`); the Place Bet to Lose is offered either way (reading 23). With
    `buy_lay` false, after the point 6: Place to Lose on the 4 ($11) is taken and the 7
    pays it 5 to 11: 5.00; Buy and Lay on the 4 are refused; the catalog lists no Buy or Lay."""
    from games.rules.craps import ENGINE

    result = play(
        roll(3, 3),
        bets(w("pl", "place_lose:4", "11"), w("b", "buy:4", "20"), w("l", "lay:4", "40")),
        roll(3, 4),
        buy_lay=False,
    )
    assert accepted(result, 1) == ["pl"] and refused(result, 1) == ["b", "l"]
    assert decided(result) == {"pl": (WIN, "5.00", C("623a.3(a)(6)(i)"))}
    kinds = {offer.kind for offer in ENGINE.wager_catalog(ENGINE.parse_options({"buy_lay": False}))}
    assert "place_lose:4" in kinds
    assert not any(kind.startswith(("buy:", "lay:")) for kind in kinds)


THREE_FOUR_FIVE = {"odds_multiples_by_point": "3-4-5"}


@pytest.mark.parametrize(
    ("line", "point", "most", "flat_most"),
    [
        # Pass $10: 3-4-5 takes 3 x 10 on the 4, 4 x 10 on the 5, 5 x 10 on the 6; flat 3x: 30.
        ("pass", (1, 3), "30", "30"),
        ("pass", (2, 3), "40", "30"),
        ("pass", (3, 3), "50", "30"),
        # Don't Pass $10: winnings of 3, 4, 5 x 10 are laid with 30 * 2 = 60 against the 4,
        # 40 * 3/2 = 60 against the 5, 50 * 6/5 = 60 against the 6; flat 3x: 60, 45, 36.
        ("dont_pass", (1, 3), "60", "60"),
        ("dont_pass", (2, 3), "60", "45"),
        ("dont_pass", (3, 3), "60", "36"),
    ],
)
def test_623a_6_e_odds_multiples_by_point_three_four_five(line, point, most, flat_most):
    """§ 623a.6(e): odds "up to 10 times"; the option `odds_multiples_by_point` sets the
    multiple on the 4 and 10, 5 and 9, 6 and 8 (reading 24). The most is taken, a cent more
    refused, under "3-4-5" and under the default (one multiple, 3, on every point)."""
    for options, limit in ((THREE_FOUR_FIVE, most), ({}, flat_most)):
        over = f"{limit}.01"
        result = play(
            bets(w("b", line)),
            roll(*point),
            bets(w("big", "odds", over, on="b")),
            bets(w("o", "odds", limit, on="b")),
            **options,
        )
        assert refused(result, 2) == ["big"], (options, over)
        assert accepted(result, 3) == ["o"], (options, limit)


def test_623a_6_e_odds_multiples_by_point_on_a_come_point_and_in_the_view():
    """Come $10 on the 8 under "3-4-5": $50 odds (5 x 10) are taken and the 8 pays them 6 to
    5: 60.00; with $50 on, the table shows no room for more odds. The option is described
    only when set, and its description parses back to the same options."""
    from games.rules.craps import ENGINE

    result = play(
        roll(2, 2),  # point 4
        bets(w("c", "come")),
        roll(2, 6),  # come point 8
        bets(w("o", "odds", "50", on="c")),
        roll(3, 5),
        **THREE_FOUR_FIVE,
    )
    assert accepted(result, 3) == ["o"]
    assert decided(result) == {
        "c": (WIN, "10.00", C("623a.3(a)(3)(i)(B)")),
        "o": (WIN, "60.00", C("623a.6(c)(2)(iii)")),
    }
    options = ENGINE.parse_options(THREE_FOUR_FIVE)
    state = ENGINE.new_state(options)
    for event, payload in (
        ("throw", [2, 2]),
        ("wagers", [w("c", "come")]),
        ("throw", [2, 6]),
        ("wagers", [w("o", "odds", "49.99", on="c")]),
    ):
        state, _ = ENGINE.step(options, state, event, payload)
    come = next(v for v in ENGINE.state_view(options, state)["wagers"] if v["id"] == "c")
    assert come["may"]["add_odds"] is True  # one cent of room
    state, _ = ENGINE.step(options, state, "wagers", [w("o2", "odds", "0.01", on="c")])
    come = next(v for v in ENGINE.state_view(options, state)["wagers"] if v["id"] == "c")
    assert come["may"]["add_odds"] is False
    described = ENGINE.describe_options(options)
    assert described["odds_multiples_by_point"] == "3-4-5"
    assert ENGINE.parse_options(described) == options
    unset = ENGINE.describe_options(ENGINE.parse_options({}))
    assert unset["odds_multiples_by_point"] is None  # every option shown, null when unset
    assert ENGINE.parse_options(unset) == ENGINE.parse_options({})
    (offer,) = [o for o in ENGINE.wager_catalog(options) if o.kind == "odds"]
    assert offer.limits_note.endswith(
        "3 times on the 4 and 10, 4 times on the 5 and 9, 5 times on the 6 and 8"
    )


@pytest.mark.parametrize(
    "value", ["3-4", "0-4-5", "3-4-11", "a-b-c", 345, ["3", "4", "5"], "²-4-5", "٣-4-5", "３-4-5"]
)
def test_623a_6_e_odds_multiples_by_point_malformed(value) -> None:
    with pytest.raises(MalformedInput) as error:
        play(odds_multiples_by_point=value)
    assert error.value.field == "options.odds_multiples_by_point"


def test_623a_6_e_laying_limit_rounded_down_to_the_cent():
    """§ 623a.6(b), (e): laid odds may win at most the multiple times the bet (reading 2).
    Don't Pass $7.77 on the 6 at 3x: winnings of 23.31 are laid with 23.31 * 6/5 = 27.972,
    rounded down to $27.97 (which wins 23.308: within the limit); $27.98 is refused."""
    result = play(
        bets(w("dp", "dont_pass", "7.77")),
        roll(3, 3),
        bets(w("big", "odds", "27.98", on="dp")),
        bets(w("o", "odds", "27.97", on="dp")),
    )
    assert refused(result, 2) == ["big"]
    assert accepted(result, 3) == ["o"]
