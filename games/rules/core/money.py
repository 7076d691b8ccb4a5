"""Money is Decimal dollars. Rounding and breakage are named functions, used everywhere."""

import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from functools import lru_cache

from games.rules.core.errors import MalformedInput

CENT = Decimal("0.01")
QUARTER = Decimal("0.25")
# No wager, limit or payout comes near a trillion dollars; larger is a typing error, and
# refusing it keeps every later quantize within Decimal's 28 digits.
LARGEST_AMOUNT = Decimal("1000000000000")
# Plain ASCII decimals only: Decimal() would also take "1_000", "1e3" and other scripts' digits.
AMOUNT_TEXT = re.compile(r"-?([0-9]+(\.[0-9]*)?|\.[0-9]+)")


def parse_amount(value: object, field: str) -> Decimal:
    """A dollar amount from a decimal string or an int; floats and junk are refused."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise MalformedInput(field, 'an amount must be a decimal string such as "12.50"')
    amount = _amount(value)
    if amount is None:
        text = str(value).strip()
        if not AMOUNT_TEXT.fullmatch(text):
            raise MalformedInput(field, f'{value!r} is not a decimal amount such as "12.50"')
        raise MalformedInput(field, f"{value!r} is too large for an amount in dollars")
    return amount


# An amount as the floor takes it (the API, the admin, a device; docs/api.md, "Amounts"): a
# JSON string of a decimal, at most 12 digits before the point and 2 after (the ledger's 14
# digits, 2 places), either side of the point may be empty ("10." and ".5", as the schema
# always allowed) but not both. Never a JSON number, which a JSON reader makes a float
# (ADR 0002). The engines take "12" and 12 alike (SCENARIOS.md): this is the floor's door,
# not theirs.
AMOUNT_DIGITS, AMOUNT_PLACES = 12, 2
AMOUNT_GIVEN = re.compile(
    rf"-?([0-9]{{1,{AMOUNT_DIGITS}}}(\.[0-9]{{0,{AMOUNT_PLACES}}})?|\.[0-9]{{1,{AMOUNT_PLACES}}})"
)
AMOUNT_EXAMPLE = '"10.00"'


def amount_given(value: object, field: str) -> Decimal:
    """An amount given to the floor, to the cent ("10." is 10.00, ".5" 0.50); MalformedInput
    naming the field unless it is a decimal string of AMOUNT_GIVEN (a JSON number is
    refused, integer or not)."""
    if type(value) is str and AMOUNT_GIVEN.fullmatch(value):
        return Decimal(value).quantize(CENT)
    raise MalformedInput(field, _amount_given_refusal(value))


def _amount_given_refusal(value: object) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"must be a decimal string such as {AMOUNT_EXAMPLE}, not a JSON number"
    if not isinstance(value, str):
        return f"must be a decimal string such as {AMOUNT_EXAMPLE}"
    shown = repr(value) if len(value) <= 32 else f"a string of {len(value)} characters"
    digits, _, places = value.removeprefix("-").partition(".")
    if (digits or places) and all(not part or _ascii_digits(part) for part in (digits, places)):
        if len(digits) > AMOUNT_DIGITS:
            return f"has {len(digits)} digits before the point ({shown}); at most {AMOUNT_DIGITS}"
        return f"has {len(places)} decimal places ({shown}); at most {AMOUNT_PLACES}"
    return f"is {shown}, not a decimal string such as {AMOUNT_EXAMPLE}"


def _ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def amount_or_none(value: object) -> Decimal | None:
    """The amount a decimal string writes, or None for anything else (then `parse_amount`
    says what is wrong): the common case, without building the field's name to blame."""
    return _amount(value) if type(value) is str else None


@lru_cache(maxsize=4096)
def _amount(value: str | int) -> Decimal | None:
    """The amount `value` writes, or None when it is no amount (parse_amount says why).

    Cached: a table sees the same few amounts ("5", "12", "25.50") on every throw, and a
    Decimal is immutable. Bounded, so a stream of distinct amounts cannot grow it.
    """
    text = str(value).strip()
    if not AMOUNT_TEXT.fullmatch(text):
        return None
    amount = Decimal(text)
    return amount if abs(amount) < LARGEST_AMOUNT else None


def round_down_to_cent(amount: Decimal) -> Decimal:
    """Payouts are exact at the posted odds, then rounded down to the cent (breakage)."""
    return amount.quantize(CENT, rounding=ROUND_FLOOR)


def round_up_to_quarter(amount: Decimal) -> Decimal:
    """Round up to the next 25 cents, as the Pai Gow vigorish is (§ 621a.8(k))."""
    quarters = (amount / QUARTER).to_integral_value(rounding=ROUND_CEILING)
    return (quarters * QUARTER).quantize(CENT)


def format_money(amount: Decimal) -> str:
    """Dollars with two decimals, as every output shows them: ``"-10.00"``."""
    return str(amount.quantize(CENT))


def has_whole_cents(amount: Decimal) -> bool:
    """True when the amount is a whole number of cents."""
    return amount == amount.quantize(CENT)
