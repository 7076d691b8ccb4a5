"""Sic Bo PAR sheet (§ 625a.6): exact probabilities derived by hand over the 216 throws.

Three dice give 6 * 6 * 6 = 216 equally likely ordered throws. Ways to make each total
(counted by hand: ordered triples (a, b, c), 1..6 each, with a + b + c = T):
    3:1  4:3  5:6  6:10  7:15  8:21  9:25  10:27  11:27  12:25  13:21  14:15  15:10
    16:6  17:3  18:1   (sum 216; symmetric about 10.5)
"""

from fractions import Fraction

import pytest

from games.par import par_document
from games.rules.core import ParOutcome
from games.rules.sic_bo import ENGINE

OPTION_SETS = [
    {},
    {"shaker": "automated"},
    {"shaker": "manual", "min_wager": "1", "max_wager": "1000"},
]


RECORDS = {r.kind: r for r in ENGINE.par_sheet(ENGINE.parse_options({}))}


def _outcomes(kind: str) -> list[tuple[str, Fraction, Fraction]]:
    return [(o.name, o.probability, o.net) for o in RECORDS[kind].outcomes]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_625a_6_every_record_sums_to_exactly_1(options: dict) -> None:
    records = ENGINE.par_sheet(ENGINE.parse_options(options))
    for record in records:
        assert record.total_probability == 1, record.kind
        assert all(isinstance(o, ParOutcome) for o in record.outcomes)


def test_625a_6_one_record_per_kind_and_value() -> None:
    kinds = [r.kind for r in ENGINE.par_sheet(ENGINE.parse_options({}))]
    # 6 triples + 6 doubles + any triple + 14 totals + 15 pairs (6 choose 2) + small, big
    # + 6 singles = 50.
    assert len(kinds) == 50 and len(set(kinds)) == 50
    assert kinds[:7] == [*(f"triple:{n}" for n in range(1, 7)), "double:1"]
    assert [k for k in kinds if k.startswith("total:")] == [f"total:{t}" for t in range(4, 18)]
    assert [k for k in kinds if k.startswith("combo:")] == [
        "combo:1-2", "combo:1-3", "combo:1-4", "combo:1-5", "combo:1-6",
        "combo:2-3", "combo:2-4", "combo:2-5", "combo:2-6",
        "combo:3-4", "combo:3-5", "combo:3-6",
        "combo:4-5", "combo:4-6",
        "combo:5-6",
    ]  # fmt: skip
    assert "any_triple" in kinds and "small" in kinds and "big" in kinds
    assert kinds[-6:] == [f"single:{n}" for n in range(1, 7)]


def test_625a_3_6_small_bet_par_by_hand() -> None:
    # Small wins on totals 4..10: 3 + 6 + 10 + 15 + 21 + 25 + 27 = 107 throws, less the two
    # three of a kinds inside that range, 2-2-2 (6) and 3-3-3 (9): 105 wins.
    # Losses: total 3 (1-1-1) 1 + totals 11..18: 27+25+21+15+10+6+3+1 = 108, plus 2-2-2 and
    # 3-3-3 = 111.  105 + 111 = 216.
    # Edge: -(105 * 1 - 111 * 1) / 216 = 6/216 = 1/36.
    assert _outcomes("small") == [
        ("win", Fraction(105, 216), Fraction(1)),
        ("lose", Fraction(111, 216), Fraction(-1)),
    ]
    assert RECORDS["small"].house_edge == Fraction(1, 36)


def test_625a_3_7_big_bet_par_by_hand() -> None:
    # The mirror image of Small (a face f <-> 7 - f): 107 throws total 11..17, less 4-4-4
    # (12) and 5-5-5 (15): 105 wins, 111 losses, edge 1/36.
    assert _outcomes("big") == [
        ("win", Fraction(105, 216), Fraction(1)),
        ("lose", Fraction(111, 216), Fraction(-1)),
    ]
    assert RECORDS["big"].house_edge == Fraction(1, 36)


@pytest.mark.parametrize("face", range(1, 7))
def test_625a_6_a_three_of_a_kind_par(face: int) -> None:
    # One throw in 216 wins 150; edge 1 - 151/216 = 65/216.
    assert _outcomes(f"triple:{face}") == [
        ("win", Fraction(1, 216), Fraction(150)),
        ("lose", Fraction(215, 216), Fraction(-1)),
    ]
    assert RECORDS[f"triple:{face}"].house_edge == Fraction(65, 216)


@pytest.mark.parametrize("face", range(1, 7))
def test_625a_6_a_two_of_a_kind_par(face: int) -> None:
    # Exactly two: 3 places for the odd die * 5 other values = 15; three of a kind: 1.
    # 16 wins at 8 to 1: edge 1 - 16 * 9 / 216 = 72/216 = 1/3.
    assert _outcomes(f"double:{face}") == [
        ("win", Fraction(16, 216), Fraction(8)),
        ("lose", Fraction(200, 216), Fraction(-1)),
    ]
    assert RECORDS[f"double:{face}"].house_edge == Fraction(1, 3)


def test_625a_6_a_any_three_of_a_kind_par() -> None:
    # Six triples at 24 to 1: edge 1 - 6 * 25 / 216 = 66/216 = 11/36.
    assert _outcomes("any_triple") == [
        ("win", Fraction(6, 216), Fraction(24)),
        ("lose", Fraction(210, 216), Fraction(-1)),
    ]
    assert RECORDS["any_triple"].house_edge == Fraction(11, 36)


# (total, ways, odds, house edge = 1 - ways * (odds + 1) / 216), each worked by hand:
TOTALS = [
    (4, 3, 50, Fraction(63, 216)),  # 216 - 3 * 51 = 63
    (5, 6, 18, Fraction(102, 216)),  # 216 - 6 * 19 = 102
    (6, 10, 14, Fraction(66, 216)),  # 216 - 10 * 15 = 66
    (7, 15, 12, Fraction(21, 216)),  # 216 - 15 * 13 = 21
    (8, 21, 8, Fraction(27, 216)),  # 216 - 21 * 9 = 27
    (9, 25, 6, Fraction(41, 216)),  # 216 - 25 * 7 = 41
    (10, 27, 6, Fraction(27, 216)),  # 216 - 27 * 7 = 27
    (11, 27, 6, Fraction(27, 216)),
    (12, 25, 6, Fraction(41, 216)),
    (13, 21, 8, Fraction(27, 216)),
    (14, 15, 12, Fraction(21, 216)),
    (15, 10, 14, Fraction(66, 216)),
    (16, 6, 18, Fraction(102, 216)),
    (17, 3, 50, Fraction(63, 216)),
]


@pytest.mark.parametrize(("total", "ways", "odds", "edge"), TOTALS)
def test_625a_6_a_total_value_bet_par(total: int, ways: int, odds: int, edge: Fraction) -> None:
    assert _outcomes(f"total:{total}") == [
        ("win", Fraction(ways, 216), Fraction(odds)),
        ("lose", Fraction(216 - ways, 216), Fraction(-1)),
    ]
    assert RECORDS[f"total:{total}"].house_edge == edge


def test_625a_6_a_two_dice_combination_par() -> None:
    # Throws showing both 2 and 5: 216 - (no 2: 125) - (no 5: 125) + (neither: 64) = 30.
    # 30 wins at 5 to 1: edge 1 - 30 * 6 / 216 = 36/216 = 1/6.
    for record in RECORDS.values():
        if record.kind.startswith("combo:"):
            assert [(o.name, o.probability, o.net) for o in record.outcomes] == [
                ("win", Fraction(30, 216), Fraction(5)),
                ("lose", Fraction(186, 216), Fraction(-1)),
            ], record.kind
            assert record.house_edge == Fraction(1, 6)


@pytest.mark.parametrize("face", range(1, 7))
def test_625a_6_b_one_of_a_kind_par(face: int) -> None:
    # Exactly one die: 3 places * 5 * 5 = 75; exactly two: 3 places * 5 = 15; three: 1;
    # none: 5 ** 3 = 125.  75 + 15 + 1 + 125 = 216.
    # Edge: -(75 * 1 + 15 * 2 + 1 * 3 - 125) / 216 = 17/216.
    assert _outcomes(f"single:{face}") == [
        ("win 1 to 1", Fraction(75, 216), Fraction(1)),
        ("win 2 to 1", Fraction(15, 216), Fraction(2)),
        ("win 3 to 1", Fraction(1, 216), Fraction(3)),
        ("lose", Fraction(125, 216), Fraction(-1)),
    ]
    assert RECORDS[f"single:{face}"].house_edge == Fraction(17, 216)


def test_par_document_through_the_shared_tool() -> None:
    document = par_document("sic_bo", {"shaker": "automated", "max_wager": "500"})
    assert document["options"] == {"shaker": "automated", "min_wager": None, "max_wager": "500.00"}
    small = next(w for w in document["wagers"] if w["kind"] == "small")
    assert small["house_edge_exact"] == "1/36"
    assert small["outcomes"] == [
        {"name": "win", "probability": "35/72", "net": "1"},  # 105/216
        {"name": "lose", "probability": "37/72", "net": "-1"},  # 111/216
    ]


def test_625a_6_no_option_changes_any_odds() -> None:
    """Reading 18: the shaker (§ 625a.1(d)) and the posted limits decide no wager, so every
    option set gives the default sheet, record for record."""
    for options in OPTION_SETS:
        assert ENGINE.par_sheet(ENGINE.parse_options(options)) == tuple(RECORDS.values())
