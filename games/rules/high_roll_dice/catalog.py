"""What a High Roll Dice table offers: the areas of its variation (ten dice, § 675a.2(e); six,
§ 675a.6(d)), their paytables (§ 675a.5, § 675a.6(j)-(k)), the equal-value rule and the
Millionaire Row's dollar, and the PAR records that price each."""

from decimal import Decimal

from games.rules.core.offer import Moment, Offer, Payout, never_taken_down, posted
from games.rules.high_roll_dice.options import Options
from games.rules.high_roll_dice.paytables import (
    EXTRA_ROLL as EXTRA_ROLL_ODDS,
)
from games.rules.high_roll_dice.paytables import (
    LIKE_KIND_FIRST_ROLL,
    MILLIONAIRE_ROW_MAXIMUM,
    PIP_STREET,
)
from games.rules.high_roll_dice.paytables import (
    MILLIONAIRE_ROW as MILLIONAIRE_ROW_ODDS,
)
from games.rules.high_roll_dice.wagers import (
    EXTRA_ROLL,
    LIKE_KIND,
    MILLIONAIRE_ROW,
    NO_MATCH,
    Kind,
    every_kind,
)
from games.rules.high_roll_dice.wagers import (
    PIP_STREET as PIP,
)

MADE = Moment("before the dice are shaken", "675a.2(a)")
EXTRA_ROLL_MADE = Moment('before "no more bets", when the lock-out is engaged', "675a.4(a)")
STAYS = never_taken_down("675a.2(b)")
# The paragraph that authorizes each area.
SECTIONS = {
    10: {PIP: "675a.2(e)(1)", LIKE_KIND: "675a.2(e)(2)", EXTRA_ROLL: "675a.2(e)(3)"}
    | {MILLIONAIRE_ROW: "675a.2(e)(4)"},
    6: {PIP: "675a.6(d)", LIKE_KIND: "675a.6(d)", NO_MATCH: "675a.6(d)"},
}
PAID_UNDER = {
    10: {PIP: "675a.5(a)", LIKE_KIND: "675a.5(b), (d)", MILLIONAIRE_ROW: "675a.5(c)"}
    | {EXTRA_ROLL: "675a.4(a)"},
    6: {PIP: "675a.6(j)", LIKE_KIND: "675a.6(k)", NO_MATCH: "675a.6(k)"},
}
_FACES = {1: "aces", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}


def wager_catalog(options: Options) -> tuple[Offer, ...]:
    """Every area of the table's variation, in the order of § 675a.2(e)."""
    return tuple(_offer(options, kind) for kind in every_kind(options.dice))


def _offer(options: Options, kind: Kind) -> Offer:
    dice, area = options.dice, kind.area
    minimum, maximum = posted(options.limits)
    equal = "§ 675a.1(b)(2)(iv)" if dice == 10 else "§ 675a.6(b)(3)"
    note: str | None = f"equal to the player's first Pip Street Wager of the round ({equal})"
    if area == MILLIONAIRE_ROW:
        # § 675a.2(e)(4): at most $1; the table minimum does not bind it (docs/regulations.md).
        minimum, maximum, note = None, MILLIONAIRE_ROW_MAXIMUM, "at most $1 (§ 675a.2(e)(4))"
    elif dice == 10 and area == PIP:
        note = (
            f"every Pip Street and Like Kind Boulevard Wager of a player of equal value ({equal})"
        )
    par_kinds = (kind.text,)
    if dice == 10 and area == LIKE_KIND:
        par_kinds = (kind.text, f"{kind.text}+extra")
    return Offer(
        kind=kind.text,
        label=kind.describe().split(" ", 1)[1],  # the layout's words, without the article
        section=SECTIONS[dice][area],
        payouts=_payouts(dice, kind),
        paid_under=PAID_UNDER[dice][area],
        made=EXTRA_ROLL_MADE if area == EXTRA_ROLL else MADE,
        reduced=STAYS,
        removed=STAYS,
        minimum=minimum,
        maximum=maximum,
        par_kinds=par_kinds,
        limits_note=note,
    )


def _payouts(dice: int, kind: Kind) -> tuple[Payout, ...]:
    area, number = kind.area, kind.number or 0
    if area == PIP:
        odds = PIP_STREET[dice][number]
        return (Payout(f"{_FACES[number]} occur the most", f"{odds.wins} to {odds.per}"),)
    if area == NO_MATCH:
        odds = LIKE_KIND_FIRST_ROLL[dice][1]
        return (Payout("no two dice match", f"{odds.wins} to {odds.per}"),)
    if area == LIKE_KIND:
        odds = LIKE_KIND_FIRST_ROLL[dice][number]
        lines = (Payout(f"{number} of a kind on the first roll", f"{odds.wins} to {odds.per}"),)
        extra = EXTRA_ROLL_ODDS.get(number)
        if dice == 10 and extra is not None:
            lines += (
                Payout(f"{number} of a kind after an Extra Roll", f"{extra.wins} to {extra.per}"),
            )
        return lines
    if area == MILLIONAIRE_ROW:
        odds = MILLIONAIRE_ROW_ODDS[number]
        paid = Decimal(odds.wins) * MILLIONAIRE_ROW_MAXIMUM
        return (Payout(f"{number} of a kind on the first roll", f"${paid:,.0f} for a $1 wager"),)
    return (
        Payout(
            'bought: collected at "no more bets"; the player\'s circles ride on the re-throw',
            "nothing",
        ),
    )
