"""What a Pai Gow table offers: its one wager (§ 621a.5(a)), paid even money less the
vigorish (§ 621a.8(i), (k)), within the posted limits."""

from games.rules.core.offer import Moment, Offer, Payout, never_taken_down, posted
from games.rules.pai_gow.options import PaiGowOptions
from games.rules.pai_gow.settlement import CENT, LOSE, TIE_HIGH_WINS, VIGORISH_RATE, WIN
from games.rules.pai_gow.table import KIND

MADE = Moment('before "no more bets", when the tiles are dealt', "621a.5(c)")
STAYS = never_taken_down("621a.5(a)")


def wager_catalog(options: PaiGowOptions) -> tuple[Offer, ...]:
    """The Pai Gow wager, one a betting position (two adjacent ones a player where offered)."""
    minimum, maximum = posted(options.limits)
    vig = f"{VIGORISH_RATE:.0%}"
    adjacent = "two adjacent" if options.adjacent_betting_areas else "one"
    return (
        Offer(
            kind=KIND,
            label="Pai Gow wager",
            section="621a.5(a)",
            payouts=(
                Payout(
                    f"both hands beat the banker's (§ {WIN.section})",
                    f"1 to 1, less a {vig} vigorish "
                    + (
                        "to the cent"
                        if options.vig_rounding == CENT
                        else "rounded up to the next 25 cents"
                    ),
                ),
                Payout(f"one hand wins, one loses (§ {TIE_HIGH_WINS.section[:-3]})", "returned"),
                Payout(f"both hands lose, copy hands included (§ {LOSE.section})", "loses"),
            ),
            paid_under="621a.8(k)",
            made=MADE,
            reduced=STAYS,
            removed=STAYS,
            minimum=minimum,
            maximum=maximum,
            par_kinds=(KIND,),
            limits_note=f"one wager a betting position; {adjacent} betting area(s) a player "
            "(§ 621a.5(d))",
        ),
    )
