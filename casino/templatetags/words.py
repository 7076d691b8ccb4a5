"""Money and labels in templates, from casino.rules.words (the one place that words them).

    {% load words %}
    {{ hold.win|money }}                          -$2,200.00
    {{ hold.game|game_label }}                    High Roll Dice
    {{ table.variant|variant_label:table.game }}  Sic Bo
    {{ fairness.composition|composition_label }}  five dice

None shows as nothing, so a figure the period has not got leaves its cell empty.
"""

from decimal import Decimal

from django import template

from casino.rules import words

register = template.Library()


@register.filter
def money(amount: Decimal | int | str | None) -> str:
    """An amount as money: -$2,200.00; None as ""."""
    return "" if amount is None or amount == "" else words.money_text(amount)


@register.filter
def game_label(game: str | None) -> str:
    """A game key by its name: high_roll_dice -> High Roll Dice."""
    return "" if game is None else words.game_label(game)


@register.filter
def variant_label(variant: str | None, game: str) -> str:
    """A variant key by its name in `game` (the argument): standard in sic_bo -> Sic Bo."""
    return "" if variant is None else words.variant_label(game, variant)


@register.filter
def composition_label(composition: str | None) -> str:
    """A composition key by the chapter's words: five_dice -> five dice."""
    return "" if composition is None else words.composition_label(composition)
