"""Craps Rules Submission options: the variant, limits, odds, vigorish, paytables, table type.

Every option has a default (docs/scenarios.md). The defaults offer every wager the
regulations allow on that table type, so an option is needed only to narrow the game:
a paytable option of ``none`` means the certificate holder does not offer that wager.
Values come from JSON (a scenario) or as strings (the PAR command line).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from games.rules.core import MalformedInput, TableLimits, parse_table_limits
from games.rules.core.options import option_choice, option_flag, refuse_unknown_options
from games.rules.craps.paytables import BONUS_CRAPS, FIRE_BET, HOT_ROLLER, LUCKY_SHOOTER

VARIANTS = ("craps", "mini_craps")
TABLE_TYPES = ("manual", "hybrid", "electronic")
VIG_COLLECTED = ("on_win", "on_placement")  # § 623a.5(g)(3)
NOT_OFFERED = "none"
MAX_ODDS_MULTIPLE = 10  # § 623a.6(e): "up to 10 times"
MAX_VIG_PERCENT = Decimal(5)  # § 623a.5(g)(3): "a vigorish of up to 5%"
DEFAULT_MIN_WAGER = Decimal("5")
DEFAULT_MAX_WAGER = Decimal("5000")
DEFAULT_ODDS_MULTIPLE = 3

OPTION_NAMES = (
    "variant",
    "min_wager",
    "max_wager",
    "max_odds_multiple",
    "buy_lay",
    "vig_percent",
    "vig_collected",
    "vig_returned_on_removal",
    "fire_bet_paytable",
    "hot_roller_paytable",
    "lucky_shooter_paytable",
    "bonus_craps_paytable",
    "power_odds",
    "hot_shooter_jackpot",
    "table_type",
    "come_odds_working_on_come_out",
    "dont_come_odds_working_on_come_out",
    "odds_multiples_by_point",
)
# § 623a.6(e): the points a by-point odds multiple is set for, as "A-B-C" names them.
ODDS_POINT_PAIRS = ((4, 10), (5, 9), (6, 8))
_PAYTABLE_CHOICES = {
    "fire_bet_paytable": tuple(FIRE_BET),
    "hot_roller_paytable": tuple(HOT_ROLLER),
    "lucky_shooter_paytable": tuple(LUCKY_SHOOTER),
    "bonus_craps_paytable": tuple(BONUS_CRAPS),
}


@dataclass(frozen=True)
class CrapsOptions:
    """The options in force; a paytable of None means that wager is not offered."""

    variant: str = "craps"
    limits: TableLimits = field(
        default_factory=lambda: TableLimits(DEFAULT_MIN_WAGER, DEFAULT_MAX_WAGER)
    )
    max_odds_multiple: int = DEFAULT_ODDS_MULTIPLE
    buy_lay: bool = True
    vig_percent: Decimal = Decimal(5)
    vig_collected: str = "on_win"
    # A vigorish collected at placement, on a Buy or Lay removed or reduced (§ 623a.4(c)):
    # the text is silent; returned by default (docs/regulations.md, Craps 7). With
    # `on_win` nothing is collected before a win, so the option has no effect.
    vig_returned_on_removal: bool = True
    fire_bet_paytable: str | None = "A"
    hot_roller_paytable: str | None = "A"
    lucky_shooter_paytable: str | None = "A"
    bonus_craps_paytable: str | None = "1"
    power_odds: bool = True
    hot_shooter_jackpot: bool = True  # § 623b.4(a): offered on electronic or hybrid tables
    table_type: str = "manual"
    # Odds on a Come or Don't Come Bet on a come out roll, unless the player calls them: the
    # text is silent; the custom is "off unless called on" (docs/regulations.md, Craps reading 2).
    come_odds_working_on_come_out: bool = False
    dont_come_odds_working_on_come_out: bool = False
    # § 623a.6(e) sets only the ceiling, "up to 10 times": a holder may set the multiple by
    # point (3-4-5 odds) instead of one for all (docs/regulations.md, Craps reading 24).
    # The multiples on the 4 and 10, the 5 and 9, the 6 and 8; None: `max_odds_multiple`.
    odds_multiples_by_point: tuple[int, int, int] | None = None

    def odds_multiple(self, point: int | None) -> int:
        """The odds multiple on this point (§ 623a.6(e)); the flat one before a point."""
        by_point = self.odds_multiples_by_point
        if by_point is None or point is None:
            return self.max_odds_multiple
        return next(m for m, pair in zip(by_point, ODDS_POINT_PAIRS, strict=True) if point in pair)

    @property
    def vig_rate(self) -> Fraction:
        """The vigorish per unit wagered, exactly (5% -> 1/20)."""
        return Fraction(self.vig_percent) / 100


def parse_options(raw: Mapping[str, object]) -> CrapsOptions:
    """Options from a scenario (JSON values) or the PAR command line (strings)."""
    refuse_unknown_options(raw, OPTION_NAMES, "Craps")
    paytables = {
        name: _paytable(raw, name, choices, getattr(CrapsOptions, name))
        for name, choices in _PAYTABLE_CHOICES.items()
    }
    return CrapsOptions(
        variant=option_choice(raw, "variant", VARIANTS, "craps"),
        limits=parse_table_limits(
            raw, default_minimum=DEFAULT_MIN_WAGER, default_maximum=DEFAULT_MAX_WAGER
        ),
        max_odds_multiple=_odds_multiple(raw),
        buy_lay=option_flag(raw, "buy_lay", True),
        vig_percent=_vig_percent(raw),
        vig_collected=option_choice(raw, "vig_collected", VIG_COLLECTED, "on_win"),
        vig_returned_on_removal=option_flag(raw, "vig_returned_on_removal", True),
        power_odds=option_flag(raw, "power_odds", True),
        hot_shooter_jackpot=option_flag(raw, "hot_shooter_jackpot", True),
        table_type=option_choice(raw, "table_type", TABLE_TYPES, "manual"),
        come_odds_working_on_come_out=option_flag(raw, "come_odds_working_on_come_out", False),
        dont_come_odds_working_on_come_out=option_flag(
            raw, "dont_come_odds_working_on_come_out", False
        ),
        odds_multiples_by_point=_odds_by_point(raw),
        **paytables,
    )


def describe_options(options: CrapsOptions) -> dict[str, object]:
    """Every option with defaults filled in, JSON-ready (amounts as strings);
    `odds_multiples_by_point` null when unset (`max_odds_multiple` on every point)."""
    described: dict[str, object] = {
        "variant": options.variant,
        **options.limits.describe(),
        "max_odds_multiple": options.max_odds_multiple,
        "buy_lay": options.buy_lay,
        "vig_percent": str(options.vig_percent),
        "vig_collected": options.vig_collected,
        "vig_returned_on_removal": options.vig_returned_on_removal,
    }
    for name in _PAYTABLE_CHOICES:
        value = getattr(options, name)
        described[name] = NOT_OFFERED if value is None else value
    described["power_odds"] = options.power_odds
    described["hot_shooter_jackpot"] = options.hot_shooter_jackpot
    described["table_type"] = options.table_type
    described["come_odds_working_on_come_out"] = options.come_odds_working_on_come_out
    described["dont_come_odds_working_on_come_out"] = options.dont_come_odds_working_on_come_out
    by_point = options.odds_multiples_by_point
    described["odds_multiples_by_point"] = (
        None if by_point is None else "-".join(str(m) for m in by_point)
    )
    return described


def _paytable(
    raw: Mapping[str, object], name: str, choices: tuple[str, ...], default: str | None
) -> str | None:
    value = raw.get(name, default)
    if value is None or value == NOT_OFFERED:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # bonus_craps_paytable: 1 or "1"
    if value not in choices:
        allowed = ", ".join((*choices, NOT_OFFERED))
        raise MalformedInput(f"options.{name}", f"must be one of {allowed}")
    return str(value)


def _odds_multiple(raw: Mapping[str, object]) -> int:
    value = raw.get("max_odds_multiple", DEFAULT_ODDS_MULTIPLE)
    if isinstance(value, str) and _digits(value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ODDS_MULTIPLE:
        raise MalformedInput(
            "options.max_odds_multiple",
            f"must be a whole number from 1 to {MAX_ODDS_MULTIPLE} (§ 623a.6(e))",
        )
    return value


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes "²" (which int() refuses) and "３"."""
    return text.isascii() and text.isdigit()


def _odds_by_point(raw: Mapping[str, object]) -> tuple[int, int, int] | None:
    """The multiples "A-B-C" on the 4 and 10, the 5 and 9, the 6 and 8, each 1 to 10."""
    value = raw.get("odds_multiples_by_point")
    if value is None:
        return None
    parts = value.split("-") if isinstance(value, str) else []
    if len(parts) != 3 or not all(_digits(p) and 1 <= int(p) <= MAX_ODDS_MULTIPLE for p in parts):
        raise MalformedInput(
            "options.odds_multiples_by_point",
            'must be three whole numbers from 1 to 10, as "3-4-5": the multiples on the 4 '
            "and 10, the 5 and 9, the 6 and 8 (§ 623a.6(e))",
        )
    low, middle, high = (int(p) for p in parts)
    return low, middle, high


def _vig_percent(raw: Mapping[str, object]) -> Decimal:
    value = raw.get("vig_percent", "5")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise MalformedInput("options.vig_percent", 'must be a percentage such as "5" or "2.5"')
    try:
        percent = Decimal(str(value).strip())
    except InvalidOperation:
        raise MalformedInput("options.vig_percent", f"{value!r} is not a percentage") from None
    if not percent.is_finite() or not 0 <= percent <= MAX_VIG_PERCENT:
        raise MalformedInput("options.vig_percent", "must be from 0 to 5 (§ 623a.5(g)(3))")
    return percent
