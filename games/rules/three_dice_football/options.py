"""Three Dice Football options: the table limits posted at the table.

Chapter 661a has one paytable (§ 661a.8) and authorizes every wager of § 661a.3, so
the only choices it leaves to the certificate holder are the posted minimum and
maximum wager. The chapter sets no limit itself, so each defaults to none.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from games.rules.core import MalformedInput, format_money, parse_amount
from games.rules.core.money import has_whole_cents

OPTION_NAMES = ("min_wager", "max_wager")


@dataclass(frozen=True)
class FootballOptions:
    """The options in force; None means no posted limit."""

    min_wager: Decimal | None = None
    max_wager: Decimal | None = None


def parse_options(raw: Mapping[str, object]) -> FootballOptions:
    """Options from a scenario (JSON values) or the PAR command line (strings)."""
    limits: dict[str, Decimal | None] = {}
    for name, value in raw.items():
        if name not in OPTION_NAMES:
            raise MalformedInput(
                f"options.{name}",
                f"is not a Three Dice Football option; the options are {', '.join(OPTION_NAMES)}",
            )
        limits[name] = _parse_limit(value, f"options.{name}")
    options = FootballOptions(**limits)
    if (
        options.min_wager is not None
        and options.max_wager is not None
        and options.min_wager > options.max_wager
    ):
        raise MalformedInput("options.max_wager", "must not be less than min_wager")
    return options


def describe_options(options: FootballOptions) -> dict[str, object]:
    """Every option with defaults filled in, JSON-ready (amounts as strings, null for none)."""
    return {
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
