"""The floor's one rule for amounts (issue 33, part 6): a decimal string, at most 12
digits before the point and 2 after; a JSON number is refused wherever an amount is taken
(a wager, a Craps bet reduced, a Pai Gow bank, an adjusting line), naming the field, and
nothing is written. The engines take "10" and 10 alike (SCENARIOS.md): the rule is the
floor's door, not theirs. And how many wagers a request and a round take."""

import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import override_settings

from casino.services.errors import FloorInvalid, FloorRefused
from games.admin.forms import AdjustmentForm
from games.models import Round
from games.rules.core import MalformedInput
from games.rules.core.money import AMOUNT_GIVEN, amount_given, parse_amount
from games.services.round_state import round_now
from gaming.rounds import round_event
from tests.casino.floor_fixtures import T0, operations
from tests.games.round_fixtures import (
    M,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
    written,
)

pytestmark = pytest.mark.django_db

SCHEMA = yaml.safe_load((Path(settings.BASE_DIR) / "docs" / "api" / "openapi.yaml").read_text())
NUMBER = 'must be a decimal string such as "10.00", not a JSON number'


@pytest.mark.parametrize(
    ("given", "taken"),
    [
        ("10", "10.00"),
        ("10.5", "10.50"),
        ("10.00", "10.00"),
        ("-5.25", "-5.25"),
        ("0", "0.00"),
        ("10.", "10.00"),
        (".5", "0.50"),
        ("-.25", "-0.25"),
    ],
)
def test_a_decimal_string_is_taken_to_the_cent(given, taken):
    amount = amount_given(given, "amount")
    assert (amount, str(amount)) == (Decimal(taken), taken)


# The schema's amount before issue 33 (docs/api/openapi.yaml at 5be0a9d), and what the
# server then took (games.rules.core.money.AMOUNT_TEXT): the rule refuses nothing the two
# took together, so a caller of the old schema loses nothing.
BEFORE_SCHEMA = re.compile(r"-?[0-9]{0,12}(?:\.[0-9]{0,2})?")
BEFORE_SERVER = re.compile(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
SHAPES = [
    sign + digits + fraction
    for sign in ("", "-")
    for digits in ("", "7", "10", "9" * 12)
    for fraction in ("", ".", ".5", ".05")
]


@pytest.mark.parametrize("given", SHAPES, ids=repr)
def test_an_amount_the_old_schema_and_server_took_is_taken_and_nothing_else_it_allowed(given):
    assert BEFORE_SCHEMA.fullmatch(given)
    if BEFORE_SERVER.fullmatch(given):
        assert amount_given(given, "amount") == Decimal(given).quantize(Decimal("0.01"))
    else:  # "", "-", ".", "-.": no digit, which the old server refused too
        with pytest.raises(MalformedInput):
            amount_given(given, "amount")


def test_the_schema_s_pattern_is_the_rule():
    """The committed schema's amount pattern is AMOUNT_GIVEN, so it takes exactly what the
    server takes."""
    amount = SCHEMA["components"]["schemas"]["WagerInRequest"]["properties"]["amount"]
    assert amount["pattern"] == f"^{AMOUNT_GIVEN.pattern}$"


@pytest.mark.parametrize(
    ("given", "why"),
    [
        (10, NUMBER),
        (10.5, NUMBER),
        (True, 'must be a decimal string such as "10.00"'),
        (None, 'must be a decimal string such as "10.00"'),
        ("10.555", "has 3 decimal places ('10.555'); at most 2"),
        ("1234567890123", "has 13 digits before the point ('1234567890123'); at most 12"),
        ("1e3", "is '1e3', not a decimal string such as \"10.00\""),
        (" 10", "is ' 10', not a decimal string such as \"10.00\""),
        ("", "is '', not a decimal string such as \"10.00\""),
        ("-", "is '-', not a decimal string such as \"10.00\""),
        (".", "is '.', not a decimal string such as \"10.00\""),
        ("-.", "is '-.', not a decimal string such as \"10.00\""),
        (".555", "has 3 decimal places ('.555'); at most 2"),
        ("\u0661\u0660", "is '\u0661\u0660', not a decimal string such as \"10.00\""),
        ("9" * 40, "has 40 digits before the point (a string of 40 characters); at most 12"),
    ],
    ids=repr,
)
def test_anything_else_is_refused_saying_what_it_is(given, why):
    with pytest.raises(MalformedInput) as refused:
        amount_given(given, "wagers[0].amount")
    assert (refused.value.field, refused.value.message) == ("wagers[0].amount", why)


def test_the_engines_still_take_an_integer_amount():
    """SCENARIOS.md's contract is untouched: python -m games.scenario prints as before."""
    assert parse_amount(10, "amount") == Decimal("10")


@pytest.mark.parametrize("amount", [10, 10.5], ids=["an integer", "a fraction"])
def test_a_wager_whose_amount_is_a_json_number_is_refused_naming_it(amount):
    table = open_table("sic_bo")
    round_ = opened(table)
    with pytest.raises(FloorInvalid) as refused:
        place(round_, wager("ann", "small", "10"), wager("bob", "big", amount))
    assert refused.value.fields == {"wagers[1].amount": [NUMBER]}
    assert written(table) == (0, 0, 0, 0)


def test_a_craps_bet_reduced_to_a_json_number_is_refused_before_the_engine():
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("bob", "dont_pass", "20"))
    before = written(table)
    with pytest.raises(FloorInvalid) as refused:
        round_event(
            round_, "remove", [{"id": "1.1", "reduce_to": 10}], by=operations(), now=T0 + 3 * M
        )
    assert refused.value.fields == {"remove[0].reduce_to": [NUMBER]}
    assert written(table) == before


def test_a_pai_gow_bank_naming_its_chips_as_a_json_number_is_refused():
    table = open_table("pai_gow")
    round_ = opened(table)
    payload = {"player": "p3", "co_bank": False, "chips": 500, "dealer_wager": "12.345"}
    with pytest.raises(FloorInvalid) as refused:
        round_event(round_, "bank", payload, by=operations(), now=T0 + 2 * M)
    assert refused.value.fields == {
        "bank.chips": [NUMBER],
        "bank.dealer_wager": ["has 3 decimal places ('12.345'); at most 2"],
    }


def test_an_adjusting_line_s_amount_follows_the_same_rule_in_the_admin():
    round_ = opened(open_table("sic_bo"))
    lines = '[["player", "ann", 5], ["inventory", "", "-5.00"]]'
    form = AdjustmentForm({"memo": "make good", "lines": lines}, round_=round_)
    assert not form.is_valid()
    assert form.errors["lines"] == [f"lines[0].amount {NUMBER}"]
    good = '[["player", "ann", "5.00"], ["inventory", "", "-5.00"]]'
    form = AdjustmentForm({"memo": "make good", "lines": good}, round_=round_)
    assert form.is_valid(), form.errors
    assert [line[2] for line in form.cleaned_data["lines"]] == [Decimal("5.00"), Decimal("-5.00")]


# --- how many wagers ------------------------------------------------------------------------


@override_settings(CASINO_MAX_WAGERS_PER_REQUEST=3)
def test_a_request_over_the_limit_is_refused_before_any_wager_is_read():
    table = open_table("sic_bo")
    round_ = opened(table)
    # The fourth is no wager at all: the count is refused before any is looked at.
    with pytest.raises(FloorInvalid) as refused:
        place(round_, *[wager(f"p{n}", "small", "10") for n in range(3)], "not a wager")
    assert refused.value.fields == {"wagers": ["holds 4 wagers; at most 3 in one request"]}
    assert written(table) == (0, 0, 0, 0)
    assert len(place(round_, *[wager(f"p{n}", "small", "10") for n in range(3)])) == 3


@override_settings(CASINO_MAX_WAGERS_PER_ROUND=4)
def test_a_round_takes_at_most_its_limit_in_all():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, *[wager(f"p{n}", "small", "10") for n in range(3)])
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        place(round_, wager("p3", "small", "10"), wager("p4", "small", "10"))
    assert not isinstance(refused.value, FloorInvalid)  # the request is sound; the round full
    assert refused.value.reasons == [
        f"{round_} has 3 wagers and a round holds at most 4: 2 more would make 5"
    ]
    assert written(table) == before
    assert [w.ref for w in place(round_, wager("p3", "small", "10"))] == [f"{round_.number}.4"]


@override_settings(CASINO_MAX_WAGERS_PER_ROUND=5)
def test_a_craps_round_holds_the_bets_carried_from_earlier_throws_in_its_limit():
    """A round holds what works on its layout. Round 1's come out 3 loses its Pass Bet and
    decides no Place Bet (inactive on a come out roll, 58 Pa. Code § 623a.3(a)(5): it
    stands until its number or a 7), so round 2 holds round 1's three Place Bets beside its
    own wagers, against the one limit."""
    table = open_table("craps")
    first = opened(table)
    place(
        first, *[wager(f"p{n}", f"place:{n}", "12") for n in (4, 5, 6)], wager("ann", "pass", "10")
    )
    result(first, "throw", [1, 2])  # craps 3 on the come out: the Pass Bet loses
    assert settle(first) == "settled"
    second = opened(table, now=T0 + 10 * M)
    assert working_wagers_of(second) == ("1.1", "1.2", "1.3")
    place(second, wager("bob", "pass", "10"), now=T0 + 11 * M)
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        place(second, wager("cy", "field", "5"), wager("dee", "field", "5"), now=T0 + 12 * M)
    assert refused.value.reasons == [
        f"{second} has 1 wager and 3 working from earlier throws, and a round holds at most "
        "5: 2 more would make 6"
    ]
    assert written(table) == before
    (taken,) = place(second, wager("cy", "field", "5"), now=T0 + 12 * M)
    assert taken.ref == "2.2"


@override_settings(CASINO_MAX_WAGERS_PER_ROUND=3)
def test_a_bet_taken_down_no_longer_counts_as_carried():
    """§ 623a.4(c): a Place Bet may be removed before a roll decides it; once off the
    layout it is no longer held, and the round has room again."""
    table = open_table("craps")
    first = opened(table)
    place(first, *[wager(f"p{n}", f"place:{n}", "12") for n in (4, 5, 6)])
    result(first, "throw", [1, 2])
    settle(first)
    second = opened(table, now=T0 + 10 * M)
    with pytest.raises(FloorRefused):
        place(second, wager("bob", "pass", "10"), now=T0 + 11 * M)
    round_event(second, "remove", ["1.1"], by=operations(), now=T0 + 12 * M)
    (taken,) = place(second, wager("bob", "pass", "10"), now=T0 + 13 * M)
    assert taken.ref == "2.1"


def working_wagers_of(round_) -> tuple[str, ...]:
    now = round_now(Round.objects.get(pk=round_.pk))
    return now.engine.open_wagers(now.state)


def test_a_refusal_naming_fields_survives_pickling():
    import pickle

    refusal = FloorInvalid("Wagers at SB-01 round 1", {"wagers[0].amount": [NUMBER]})
    again = pickle.loads(pickle.dumps(refusal))
    assert (type(again), again.action, again.fields, again.reasons, str(again)) == (
        FloorInvalid,
        refusal.action,
        refusal.fields,
        [f"wagers[0].amount {NUMBER}"],
        str(refusal),
    )
