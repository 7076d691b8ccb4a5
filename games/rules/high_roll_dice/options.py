"""High Roll Dice Rules Submission options: which game, the payout limit, table limits."""

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from games.rules.core import (
    MalformedInput,
    TableLimits,
    format_money,
    parse_amount,
    parse_table_limits,
)
from games.rules.core.money import has_whole_cents
from games.rules.core.options import refuse_unknown_options
from games.rules.high_roll_dice.payout_limit import payout_limit_minimum

DICE_CHOICES = (10, 6)
DEFAULT_DICE = 10
DEFAULT_MIN_WAGER = Decimal("5")
DEFAULT_MAX_WAGER = Decimal("500")
NO_LIMIT = "none"
OPTION_NAMES = ("dice", "payout_limit", "min_wager", "max_wager")


@dataclass(frozen=True)
class Options:
    """The options in force: `payout_limit` None when the certificate holder set none."""

    dice: int
    payout_limit: Decimal | None
    limits: TableLimits  # both always set: the defaults are $5 and $500


def parse_options(raw: Mapping[str, object]) -> Options:
    """Options from JSON values or command-line strings, defaults filled in."""
    refuse_unknown_options(raw, OPTION_NAMES, "High Roll Dice")
    dice = _dice(raw.get("dice", DEFAULT_DICE))
    limits = parse_table_limits(
        raw, default_minimum=DEFAULT_MIN_WAGER, default_maximum=DEFAULT_MAX_WAGER
    )
    assert limits.minimum is not None  # a default is given, so there is always a minimum
    minimum = payout_limit_minimum(dice, limits.minimum)
    # § 675a.5(e): a limit exists only "if specified in its Rules Submission".
    payout_limit = _payout_limit(raw.get("payout_limit", NO_LIMIT), minimum, dice)
    return Options(dice, payout_limit, limits)


def describe_options(options: Options) -> dict[str, object]:
    """The options in force as JSON-ready values (amounts as strings)."""
    return {
        "dice": options.dice,
        "payout_limit": (
            NO_LIMIT if options.payout_limit is None else format_money(options.payout_limit)
        ),
        **options.limits.describe(),
    }


def _dice(value: object) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or value not in DICE_CHOICES:
        raise MalformedInput("options.dice", "must be 10 (§ 675a.3) or 6 (§ 675a.6)")
    return int(value)  # type: ignore[call-overload]


def _payout_limit(value: object, minimum: Decimal, dice: int) -> Decimal | None:
    if value is None or (isinstance(value, str) and value.strip().lower() == NO_LIMIT):
        return None
    amount = value if isinstance(value, Decimal) else parse_amount(value, "options.payout_limit")
    if not has_whole_cents(amount):
        raise MalformedInput("options.payout_limit", "must be an amount in whole cents")
    section = "§ 675a.5(e)" if dice == 10 else "§ 675a.6(l)"
    if amount < minimum:
        raise MalformedInput(
            "options.payout_limit",
            f"may not be less than ${format_money(minimum)} "
            f"($50,000 or the most one patron could win at the minimum wager, {section})",
        )
    return amount
