"""The table's posted wager limits: parsed, described and enforced the same way in every game.

The game chapters set no wager amounts (except where one fixes a single wager, such as
Millionaire Row); the minimum and maximum are the certificate holder's own, posted at
the table, so a refusal for them carries no chapter citation.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from games.rules.core.errors import MalformedInput
from games.rules.core.money import format_money, has_whole_cents, parse_amount

MIN_WAGER = "min_wager"
MAX_WAGER = "max_wager"
LIMIT_OPTION_NAMES = (MIN_WAGER, MAX_WAGER)


@dataclass(frozen=True)
class TableLimits:
    """The posted minimum and maximum wager; None means no posted limit."""

    minimum: Decimal | None = None
    maximum: Decimal | None = None

    def describe(self) -> dict[str, str | None]:
        """The limits as JSON-ready option values (amounts as strings, None for no limit)."""
        return {MIN_WAGER: _describe(self.minimum), MAX_WAGER: _describe(self.maximum)}

    def refusal(self, amount: Decimal) -> str | None:
        """The dealer's sentence for an amount outside the posted limits, or None within them."""
        if self.minimum is not None and amount < self.minimum:
            return f"The table minimum wager is ${format_money(self.minimum)}."
        if self.maximum is not None and amount > self.maximum:
            return f"The table maximum wager is ${format_money(self.maximum)}."
        return None


def parse_table_limits(
    raw: Mapping[str, object],
    *,
    default_minimum: Decimal | None = None,
    default_maximum: Decimal | None = None,
) -> TableLimits:
    """The `min_wager` and `max_wager` options of `raw`, a default where one is absent."""
    minimum = _parse(raw, MIN_WAGER, default_minimum)
    maximum = _parse(raw, MAX_WAGER, default_maximum)
    if minimum is not None and maximum is not None and maximum < minimum:
        raise MalformedInput(f"options.{MAX_WAGER}", f"must not be less than {MIN_WAGER}")
    return TableLimits(minimum, maximum)


def _parse(raw: Mapping[str, object], name: str, default: Decimal | None) -> Decimal | None:
    if name not in raw:
        return default
    value = raw[name]
    if value is None and default is None:
        # null is "no posted limit", which only a game without a default limit allows.
        return None
    field = f"options.{name}"
    amount = parse_amount(value, field)
    if amount <= 0 or not has_whole_cents(amount):
        raise MalformedInput(field, "must be a positive amount in whole cents")
    return amount


def _describe(limit: Decimal | None) -> str | None:
    return None if limit is None else format_money(limit)
