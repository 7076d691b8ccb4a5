"""What a Sic Bo table offers: all eight wagers of § 625a.3 (every table depicts them,
§ 625a.1(b)), each number a kind, at the one paytable of § 625a.6, within the posted limits."""

from games.rules.core.offer import Moment, Offer, Payout, never_taken_down, posted
from games.rules.sic_bo.options import SicBoOptions
from games.rules.sic_bo.paytables import PAYTABLE_625A_6 as PAYTABLE
from games.rules.sic_bo.wagers import (
    ANY_THREE_OF_A_KIND,
    BIG_BET,
    ONE_OF_A_KIND,
    SMALL_BET,
    THREE_OF_A_KIND,
    TOTAL_VALUE_BET,
    TWO_DICE_COMBINATION,
    TWO_OF_A_KIND,
    Bet,
    every_bet,
)

MADE = Moment('until the dealer calls "no more bets", before the dice are revealed', "625a.5(c)")
STAYS = never_taken_down("625a.4(c)")
_DICE = {1: "one die", 2: "two dice", 3: "three dice"}


def wager_catalog(options: SicBoOptions) -> tuple[Offer, ...]:
    """Every Sic Bo wager, in the order of § 625a.3."""
    minimum, maximum = posted(options.limits)
    return tuple(
        Offer(
            kind=bet.kind,
            label=_label(bet),
            section=bet.wager_type.section,
            payouts=_payouts(bet),
            paid_under="625a.6(b)" if bet.wager_type is ONE_OF_A_KIND else "625a.6(a)",
            made=MADE,
            reduced=STAYS,
            removed=STAYS,
            minimum=minimum,
            maximum=maximum,
            par_kinds=(bet.kind,),
        )
        for bet in every_bet()
    )


def _label(bet: Bet) -> str:
    name, numbers = bet.wager_type.name, bet.numbers
    if bet.wager_type is TWO_DICE_COMBINATION:
        return f"{name} {numbers[0]}-{numbers[1]}"
    if bet.wager_type is TOTAL_VALUE_BET:
        return f"{name} of {numbers[0]}"
    return f"{name} on {numbers[0]}" if numbers else name


def _odds(wins: int) -> str:
    return f"{wins} to 1"


def _payouts(bet: Bet) -> tuple[Payout, ...]:
    wager_type = bet.wager_type
    if wager_type is ONE_OF_A_KIND:
        return tuple(
            Payout(f"the number on {_DICE[count]}", _odds(wins))
            for count, wins in PAYTABLE.one_of_a_kind.items()
        )
    if wager_type is TOTAL_VALUE_BET:
        return (Payout("wins", _odds(PAYTABLE.total_value_bet[bet.numbers[0]])),)
    single = {
        THREE_OF_A_KIND: PAYTABLE.three_of_a_kind,
        TWO_OF_A_KIND: PAYTABLE.two_of_a_kind,
        ANY_THREE_OF_A_KIND: PAYTABLE.any_three_of_a_kind,
        TWO_DICE_COMBINATION: PAYTABLE.two_dice_combination,
        SMALL_BET: PAYTABLE.small_bet,
        BIG_BET: PAYTABLE.big_bet,
    }
    return (Payout("wins", _odds(single[wager_type])),)
