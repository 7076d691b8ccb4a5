"""The posted table limits shared by every game: parsing, description and refusal."""

from decimal import Decimal

import pytest

from games.rules.core import MalformedInput, TableLimits, parse_table_limits


def test_no_options_and_no_defaults_mean_no_limits():
    limits = parse_table_limits({})
    assert limits == TableLimits(None, None)
    assert limits.describe() == {"min_wager": None, "max_wager": None}
    assert limits.refusal(Decimal("0.01")) is None
    assert limits.refusal(Decimal("999999")) is None


def test_json_values_and_command_line_strings_parse_alike():
    as_json = parse_table_limits({"min_wager": 5, "max_wager": "500"})
    as_text = parse_table_limits({"min_wager": "5", "max_wager": " 500.00 "})
    assert as_json == as_text == TableLimits(Decimal("5"), Decimal("500"))
    assert as_json.describe() == {"min_wager": "5.00", "max_wager": "500.00"}


def test_defaults_fill_only_absent_options():
    defaults = {"default_minimum": Decimal("5"), "default_maximum": Decimal("500")}
    assert parse_table_limits({}, **defaults) == TableLimits(Decimal("5"), Decimal("500"))
    limits = parse_table_limits({"max_wager": "1000"}, **defaults)
    assert limits == TableLimits(Decimal("5"), Decimal("1000"))
    assert limits.describe() == {"min_wager": "5.00", "max_wager": "1000.00"}


def test_null_is_no_limit_only_where_there_is_no_default():
    assert parse_table_limits({"min_wager": None, "max_wager": "10"}) == TableLimits(
        None, Decimal("10")
    )
    with pytest.raises(MalformedInput) as error:
        parse_table_limits({"min_wager": None}, default_minimum=Decimal("5"))
    assert error.value.field == "options.min_wager"


@pytest.mark.parametrize(
    ("raw", "field", "message"),
    [
        ({"min_wager": "0"}, "options.min_wager", "must be a positive amount in whole cents"),
        ({"min_wager": "-5"}, "options.min_wager", "must be a positive amount in whole cents"),
        ({"max_wager": "1.001"}, "options.max_wager", "must be a positive amount in whole cents"),
        (
            {"min_wager": 2.5},
            "options.min_wager",
            'an amount must be a decimal string such as "12.50"',
        ),
        (
            {"min_wager": "10", "max_wager": "9.99"},
            "options.max_wager",
            "must not be less than min_wager",
        ),
    ],
)
def test_bad_limits_are_malformed(raw, field, message):
    with pytest.raises(MalformedInput) as error:
        parse_table_limits(raw)
    assert (error.value.field, error.value.message) == (field, message)


def test_maximum_below_a_default_minimum_is_malformed():
    with pytest.raises(MalformedInput) as error:
        parse_table_limits({"max_wager": "4.99"}, default_minimum=Decimal("5"))
    assert error.value.field == "options.max_wager"


def test_equal_minimum_and_maximum_are_allowed():
    assert parse_table_limits({"min_wager": "25", "max_wager": "25"}) == TableLimits(
        Decimal("25"), Decimal("25")
    )


def test_refusal_is_the_dealers_sentence_outside_the_limits_and_none_within():
    limits = TableLimits(Decimal("5"), Decimal("500"))
    assert limits.refusal(Decimal("4.99")) == "The table minimum wager is $5.00."
    assert limits.refusal(Decimal("500.01")) == "The table maximum wager is $500.00."
    assert limits.refusal(Decimal("5")) is None
    assert limits.refusal(Decimal("500.00")) is None


def test_one_sided_limits_refuse_only_on_their_side():
    assert TableLimits(minimum=Decimal("10")).refusal(Decimal("1000000")) is None
    assert TableLimits(minimum=Decimal("10")).refusal(Decimal("9.99")) == (
        "The table minimum wager is $10.00."
    )
    assert TableLimits(maximum=Decimal("100")).refusal(Decimal("0.01")) is None
    assert TableLimits(maximum=Decimal("100")).refusal(Decimal("100.01")) == (
        "The table maximum wager is $100.00."
    )
