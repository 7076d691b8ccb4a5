"""High Roll Dice PAR sheet: exact probabilities, derived by hand where they can be."""

from fractions import Fraction

import pytest

from games.par import par_document
from games.rules.high_roll_dice import ENGINE

TEN = 6**10  # 60,466,176 equally likely first throws of ten dice
SIX = 6**6  # 46,656 of six dice


def records(dice: int) -> dict:
    """The PAR records for a dice option, by kind."""
    sheet = ENGINE.par_sheet(ENGINE.parse_options({"dice": dice}))
    return {r.kind: r for r in sheet}


def outcome(record, name: str) -> Fraction:
    """The probability of one named outcome of a record."""
    return next(o.probability for o in record.outcomes if o.name == name)


@pytest.mark.parametrize("dice", [10, 6])
def test_par_every_record_sums_to_exactly_one(dice):
    for record in records(dice).values():
        assert record.total_probability == 1, record.kind


def test_par_kinds_for_both_games():
    assert list(records(10)) == [
        *(f"pip:{f}" for f in range(1, 7)),
        *(f"like_kind:{k}" for k in range(2, 9)),
        *(f"like_kind:{k}+extra" for k in range(2, 9)),
        "millionaire:9",
        "millionaire:10",
        "extra_roll",
    ]
    assert list(records(6)) == [
        *(f"pip:{f}" for f in range(1, 7)),
        *(f"like_kind:{k}" for k in range(2, 7)),
        "no_match",
    ]


def test_675a_6_j_pip_street_ace_by_hand():
    # The ace leads when no face occurs more often (ties go to the ace, § 675a.2(d)).
    # a aces, the other 6-a dice over five faces each at most a times:
    #   a=1: the other five all different, 5! = 120, times 6 places = 720
    #   a=2: 5^4 = 625 less 80 with a triple (5*4*4) and 5 with a quad = 540, * C(6,2)=15
    #        = 8,100
    #   a=3: 5^3 = 125, * C(6,3)=20 = 2,500; a=4: 25*15 = 375; a=5: 5*6 = 30; a=6: 1
    # 720 + 8,100 + 2,500 + 375 + 30 + 1 = 11,726 of 46,656; it pays 2 to 1.
    record = records(6)["pip:1"]
    assert outcome(record, "win") == Fraction(11726, SIX)
    assert record.house_edge == 1 - 3 * Fraction(11726, SIX)  # = 1913/7776


def test_675a_6_j_pip_street_two_by_hand():
    # The 2 leads only when it occurs strictly more often than every other face:
    #   b=2: the other four all different among five faces, 5*4*3*2 = 120, * 15 = 1,800
    #   b=3: 5^3 = 125 less the 5 triples = 120, * 20 = 2,400
    #   b=4: 25*15 = 375; b=5: 30; b=6: 1
    # 1,800 + 2,400 + 375 + 30 + 1 = 4,606 of 46,656; it pays 8 to 1.
    record = records(6)["pip:2"]
    assert outcome(record, "win") == Fraction(4606, SIX)
    assert record.house_edge == 1 - 9 * Fraction(4606, SIX)


def test_675a_6_k_like_kind_by_hand():
    sheet = records(6)
    assert outcome(sheet["no_match"], "win") == Fraction(720, SIX)  # 6! orders
    assert outcome(sheet["like_kind:6"], "win") == Fraction(6, SIX)
    # five of one face (6) and one of another (5) in one of 6 places: 180
    assert outcome(sheet["like_kind:5"], "win") == Fraction(180, SIX)
    assert sheet["no_match"].house_edge == 1 - 61 * Fraction(720, SIX)


def test_675a_5_pip_street_faces_share_every_throw():
    # Exactly one face leads each throw, so the six Pip Street wins add up to 1.
    for dice in (10, 6):
        sheet = records(dice)
        assert sum(outcome(sheet[f"pip:{f}"], "win") for f in range(1, 7)) == 1


def test_675a_5_b_like_kind_by_hand():
    sheet = records(10)
    # Two-of-a-kind leads only when no face shows three: counts 2,2,2,2,2,0 (6 choices of
    # the missing face, 10!/2^5 = 113,400 orders) or 2,2,2,2,1,1 (C(6,2)=15 choices of the
    # singles, 10!/2^4 = 226,800 orders): 680,400 + 3,402,000 = 4,082,400.
    assert outcome(sheet["like_kind:2"], "win") == Fraction(4082400, TEN)
    # Eight of a kind: 6 faces * C(10,8)=45 places * 5^2 for the other two dice = 6,750.
    assert outcome(sheet["like_kind:8"], "win") == Fraction(6750, TEN)
    assert sheet["like_kind:8"].house_edge == 1 - 5001 * Fraction(6750, TEN)


def test_675a_5_c_millionaire_row_by_hand():
    sheet = records(10)
    # Nine of a kind: 6 faces * 5 other faces * 10 places = 300; ten of a kind: 6.
    assert outcome(sheet["millionaire:9"], "win") == Fraction(300, TEN)
    assert outcome(sheet["millionaire:10"], "win") == Fraction(6, TEN)
    assert sheet["millionaire:10"].house_edge == 1 - 1000001 * Fraction(6, TEN)


def test_675a_4_h_extra_roll_circles():
    sheet = records(10)
    # The first roll part of each circle is the same as without the Extra Roll.
    for k in range(2, 9):
        assert outcome(sheet[f"like_kind:{k}+extra"], "win_first_roll") == outcome(
            sheet[f"like_kind:{k}"], "win"
        )
    # The two circle can never win on the extra roll: the count only grows from two.
    assert [o.name for o in sheet["like_kind:2+extra"].outcomes] == ["win_first_roll", "lose"]
    # The three circle wins on the extra roll only from a first count of two (4,082,400
    # throws, see above) when exactly one of the 8 re-thrown dice matches: 8 * 5^7 / 6^8.
    assert outcome(sheet["like_kind:3+extra"], "win_extra_roll") == Fraction(
        4082400, TEN
    ) * Fraction(8 * 5**7, 6**8)
    net = {o.name: o.net for o in sheet["like_kind:8+extra"].outcomes}
    assert net == {"win_first_roll": 5000, "win_extra_roll": 50, "lose": -1}


def test_par_document_from_command_line_strings():
    document = par_document("high_roll_dice", {"dice": "6"})
    assert document["options"]["dice"] == 6
    pip_ace = next(w for w in document["wagers"] if w["kind"] == "pip:1")
    assert pip_ace["house_edge_exact"] == "1913/7776"


def test_675a_4_a_extra_roll_purchase_is_always_collected():
    # A purchase, not a wager that can win: the house keeps every unit (edge exactly 1).
    purchase = records(10)["extra_roll"]
    assert [(o.name, o.probability, o.net) for o in purchase.outcomes] == [
        ("collected", Fraction(1), Fraction(-1))
    ]
    assert purchase.house_edge == 1
