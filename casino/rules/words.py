"""Words and figures for people: money as money, and every game, variant and composition
by its label, never its key.

The one place that turns the floor's codes and amounts into what a person reads: the
admin, the hold report, the floor page, the charts and the human columns of the admin's
CSV files all call these functions (templates through the `words` template library,
casino/templatetags/words.py). The REST API and the CSV's data columns keep the keys and
plain decimal strings ("-2200.00"): a program reads those.

    money_text(Decimal("-2200"))              "-$2,200.00"
    game_label("high_roll_dice")              "High Roll Dice"
    variant_label("sic_bo", "standard")       "Sic Bo"
    composition_label("five_dice")            "five dice"

A variant key is a key only within its game: "standard" is Pai Gow's, Sic Bo's and Three
Dice Football's, so a variant is labelled with its game, never alone.
"""

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from casino.rules.equipment import COMPOSITIONS
from games.rules.catalog import GAMES_BY_KEY

CENT = Decimal("0.01")
DOLLAR = Decimal("1")


def money_text(amount: Decimal | int | float | str, *, cents: bool = True) -> str:
    """An amount as a person reads it: the sign before the dollar, thousands separated,
    two places ("-$2,200.00"); whole dollars with cents=False ("$1,500", a chart's tick).

    Rounded half to even, as the hold figures are; a float (a chart's tick) is read by its
    shortest repr. Text that is no number is returned as it came: a page shows what it has
    rather than failing."""
    try:
        value = Decimal(str(amount)) if not isinstance(amount, Decimal) else amount
        rounded = value.quantize(CENT if cents else DOLLAR, rounding=ROUND_HALF_EVEN)
    except (InvalidOperation, ValueError):
        return str(amount)
    sign = "-" if rounded < 0 else ""  # -0.004 rounds to 0: no "-$0.00"
    return f"{sign}${abs(rounded):,.{2 if cents else 0}f}"


def game_label(game: str) -> str:
    """A game's name in the regulations ("High Roll Dice"); an unknown key as it is."""
    found = GAMES_BY_KEY.get(game)
    return found.name if found is not None else game


def variant_label(game: str, variant: str) -> str:
    """A variant's name in its own game ("6-dice variation (§ 675a.6)"; Sic Bo's
    "standard" is "Sic Bo"); an unknown one as it is."""
    found = GAMES_BY_KEY.get(game)
    return dict(found.variants).get(variant, variant) if found is not None else variant


def game_variant_label(game: str, variant: str) -> str:
    """A game and its variant in one phrase: "Craps (Mini-Craps)", or "Sic Bo" where the
    variant is the game's standard one of the same name."""
    name, variant_name = game_label(game), variant_label(game, variant)
    return name if variant_name in (name, name.split(" (")[0]) else f"{name} ({variant_name})"


def composition_label(composition: str) -> str:
    """What a set holds, in the chapter's words ("five dice"); an unknown key as it is."""
    found = COMPOSITIONS.get(composition)
    return found.label if found is not None else composition
