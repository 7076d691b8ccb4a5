"""Pai Gow options: what a certificate holder's Rules Submission chooses (§ 601a.2).

Chapter 621a leaves to the Rules Submission: player banking (§ 621a.9(a)) and
co-banking (§ 621a.9(e)), wagers on two adjacent betting areas (§ 621a.5(d)), the
alternative dealing styles (§ 621a.7(a)), a random number generator in place of the
shaker (§ 621a.6(a)(1)), with or without the shaker when the generator is down,
the dealer's wager against a player bank (§ 621a.9(h)), whether the vigorish is
rounded off to 25 cents (§ 621a.8(k) "may"), and the house way's choice where
§ 621a.8(d) allows several settings (§ 621a.8(b), § 621a.9(e), § 621a.10(f) leave the
manner of setting to the Rules Submission). The defaults offer everything the
chapter allows; a submission narrows them.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from games.rules.core import MalformedInput, TableLimits, format_money, parse_amount
from games.rules.core.limits import parse_table_limits
from games.rules.core.money import has_whole_cents
from games.rules.core.options import option_choice, option_flag, refuse_unknown_options
from games.rules.pai_gow.dealing import ALTERNATIVE_STYLES
from games.rules.pai_gow.house_way import LOW_HAND, TIEBREAKS
from games.rules.pai_gow.settlement import QUARTER, VIG_ROUNDINGS

OPTION_NAMES = (
    "player_banking",
    "co_banking",
    "adjacent_betting_areas",
    "dealing_styles",
    "starting_position",
    "shaker_if_rng_down",
    "dealer_wager_against_bank",
    "vig_rounding",
    "house_way_tiebreak",
    "min_wager",
    "max_wager",
)
SHAKER = "shaker"
RNG = "rng"
STARTING_POSITIONS = (SHAKER, RNG)  # § 621a.6(a)(2) and (1)
LAST_WAGER = "last_wager"  # § 621a.9(h): "equal to the banker's last wager ... against the dealer"


@dataclass(frozen=True)
class PaiGowOptions:
    """The options in force. `dealer_wager_against_bank` None means the bank's last wager."""

    player_banking: bool = True
    co_banking: bool = True
    adjacent_betting_areas: bool = True
    dealing_styles: tuple[str, ...] = ALTERNATIVE_STYLES
    starting_position: str = SHAKER
    shaker_if_rng_down: bool = False  # the shaker when the generator is down (§ 621a.6(a))
    dealer_wager_against_bank: Decimal | None = None
    vig_rounding: str = QUARTER  # § 621a.8(k): up to 25 cents, or "cent" (5% to the cent)
    house_way_tiebreak: str = LOW_HAND  # § 621a.8(d)(2), (3): or "high_hand"
    limits: TableLimits = field(default_factory=lambda: TableLimits(Decimal("5"), Decimal("5000")))


def parse_options(raw: Mapping[str, object]) -> PaiGowOptions:
    """Options from a scenario (JSON values) or the PAR command line (strings)."""
    refuse_unknown_options(raw, OPTION_NAMES, "Pai Gow")
    co_banking = option_flag(raw, "co_banking", True)
    player_banking = option_flag(raw, "player_banking", True)
    if co_banking and not player_banking and "co_banking" in raw:
        raise MalformedInput(
            "options.co_banking",
            "co-banking is offered to a player bank (§ 621a.9(e)): it needs player_banking",
        )
    starting_position = option_choice(raw, "starting_position", STARTING_POSITIONS, SHAKER)
    shaker_if_rng_down = option_flag(raw, "shaker_if_rng_down", False)
    if shaker_if_rng_down and starting_position != RNG:
        raise MalformedInput(
            "options.shaker_if_rng_down",
            "falls back from a random number generator: it needs starting_position rng",
        )
    return PaiGowOptions(
        player_banking=player_banking,
        co_banking=co_banking and player_banking,
        adjacent_betting_areas=option_flag(raw, "adjacent_betting_areas", True),
        dealing_styles=_dealing_styles(raw),
        starting_position=starting_position,
        shaker_if_rng_down=shaker_if_rng_down,
        dealer_wager_against_bank=_dealer_wager(raw),
        vig_rounding=option_choice(raw, "vig_rounding", VIG_ROUNDINGS, QUARTER),
        house_way_tiebreak=option_choice(raw, "house_way_tiebreak", TIEBREAKS, LOW_HAND),
        limits=parse_table_limits(
            raw, default_minimum=Decimal("5"), default_maximum=Decimal("5000")
        ),
    )


def describe_options(options: PaiGowOptions) -> dict[str, object]:
    """Every option with defaults filled in, JSON-ready."""
    dealer_wager = options.dealer_wager_against_bank
    return {
        "player_banking": options.player_banking,
        "co_banking": options.co_banking,
        "adjacent_betting_areas": options.adjacent_betting_areas,
        "dealing_styles": list(options.dealing_styles),
        "starting_position": options.starting_position,
        "shaker_if_rng_down": options.shaker_if_rng_down,
        "dealer_wager_against_bank": LAST_WAGER
        if dealer_wager is None
        else format_money(dealer_wager),
        "vig_rounding": options.vig_rounding,
        "house_way_tiebreak": options.house_way_tiebreak,
        **options.limits.describe(),
    }


def _dealing_styles(raw: Mapping[str, object]) -> tuple[str, ...]:
    field_name = "options.dealing_styles"
    value = raw.get("dealing_styles", list(ALTERNATIVE_STYLES))
    if isinstance(value, str):  # the PAR command line: "chee_yee,jung_quat" or ""
        value = [name for name in value.split(",") if name]
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise MalformedInput(field_name, "must be a list of dealing style names")
    for name in value:
        if name not in ALTERNATIVE_STYLES:
            raise MalformedInput(
                field_name,
                f"{name!r} is not a dealing style of § 621a.7; they are "
                + ", ".join(ALTERNATIVE_STYLES),
            )
    # Kept in the order of § 621a.7(a), each once.
    return tuple(name for name in ALTERNATIVE_STYLES if name in value)


def _dealer_wager(raw: Mapping[str, object]) -> Decimal | None:
    value = raw.get("dealer_wager_against_bank", LAST_WAGER)
    if value == LAST_WAGER:
        return None
    field_name = "options.dealer_wager_against_bank"
    amount = parse_amount(value, field_name)
    if amount < 0 or not has_whole_cents(amount):
        raise MalformedInput(field_name, f'must be "{LAST_WAGER}" or an amount in whole cents')
    return amount
