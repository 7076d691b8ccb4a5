"""Sic Bo options: the table's shaker and the wager limits posted at the table.

Chapter 625a has one paytable (§ 625a.6) and every table depicts all eight wagers
(§ 625a.1(b)), so nothing about the wagers is optional. What differs from table to
table is the shaker (manual, or automated under § 625a.1(d)(2)) and the posted limits.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from games.rules.core import MalformedInput, format_money, parse_amount
from games.rules.core.money import has_whole_cents

OPTION_NAMES = ("shaker", "min_wager", "max_wager")
SHAKERS = ("manual", "automated")  # § 625a.1(d)(1) and (2)


@dataclass(frozen=True)
class SicBoOptions:
    """The options in force; a limit of None means no posted limit."""

    shaker: str = "manual"
    min_wager: Decimal | None = None
    max_wager: Decimal | None = None


def parse_options(raw: Mapping[str, object]) -> SicBoOptions:
    """Options from a scenario (JSON values) or the PAR command line (strings)."""
    shaker = "manual"
    limits: dict[str, Decimal | None] = {}
    for name, value in raw.items():
        if name not in OPTION_NAMES:
            raise MalformedInput(
                f"options.{name}",
                f"is not a Sic Bo option; the options are {', '.join(OPTION_NAMES)}",
            )
        if name == "shaker":
            if value not in SHAKERS:
                raise MalformedInput("options.shaker", f"must be one of {', '.join(SHAKERS)}")
            shaker = str(value)
        else:
            limits[name] = _parse_limit(value, f"options.{name}")
    options = SicBoOptions(shaker=shaker, **limits)
    if (
        options.min_wager is not None
        and options.max_wager is not None
        and options.min_wager > options.max_wager
    ):
        raise MalformedInput("options.max_wager", "must not be less than min_wager")
    return options


def describe_options(options: SicBoOptions) -> dict[str, object]:
    """Every option with defaults filled in, JSON-ready (amounts as strings, null for none)."""
    return {
        "shaker": options.shaker,
        "min_wager": _describe_limit(options.min_wager),
        "max_wager": _describe_limit(options.max_wager),
    }


def _parse_limit(value: object, field: str) -> Decimal | None:
    if value is None:
        return None
    amount = parse_amount(value, field)
    if amount <= 0 or not has_whole_cents(amount):
        raise MalformedInput(field, "must be a positive amount in whole cents")
    return amount


def _describe_limit(limit: Decimal | None) -> str | None:
    return None if limit is None else format_money(limit)
