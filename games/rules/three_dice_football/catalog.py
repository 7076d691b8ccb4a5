"""What a Three Dice Football table offers: every wager of § 661a.3(b) and (d) at the one
paytable of § 661a.8, within the posted limits."""

from games.rules.core.offer import Moment, Offer, Payout, never_taken_down, posted
from games.rules.three_dice_football.options import FootballOptions
from games.rules.three_dice_football.paytables import (
    DEFENSE_ODDS,
    EXTRA_POINT_ODDS,
    GAME_CHANGER_ODDS,
    GAME_LENGTH_ODDS,
    OVER_FOUR_TRIPS_TD_ODDS,
    QUICK_STRIKE_ODDS,
    SINGLE_PLAY_ODDS,
    TOUCHDOWN_ODDS,
)
from games.rules.three_dice_football.view import KINDS
from games.rules.three_dice_football.wagers import (
    FULL_GAME_KINDS,
    FULL_GAME_TIMING,
    WAGER_NAMES,
    clause,
    timing,
)

# § 661a.3(c): not increased or withdrawn after the first throw; the engine takes no
# take-down before it either (no event for one).
FULL_GAME_STAYS = Moment(
    "never: a full game wager is not increased or withdrawn after the first throw, and no "
    "take-down is taken before it",
    FULL_GAME_TIMING.section,
    False,
)
SINGLE_PLAY_STAYS = never_taken_down("661a.3(e)")
_EXTRA_POINT = {
    "one_1": "a 1 on one of the dice",
    "two_1s": "a 1 on two of the dice",
    "triple_1s": "a triple of 1s",
    "other_triple": "any other triple",
}


def wager_catalog(options: FootballOptions) -> tuple[Offer, ...]:
    """Every wager of § 661a.3, full game then single play."""
    minimum, maximum = posted(options.limits)
    offers = []
    for kind in KINDS:
        full_game = kind in FULL_GAME_KINDS
        when = timing(kind)
        stays = FULL_GAME_STAYS if full_game else SINGLE_PLAY_STAYS
        offers.append(
            Offer(
                kind=kind,
                label=_label(kind),
                section=clause(kind),
                payouts=_payouts(kind),
                paid_under="661a.8(a)" if full_game else "661a.8(b)",
                made=Moment(when.made, when.section),
                reduced=stays,
                removed=stays,
                minimum=minimum,
                maximum=maximum,
                par_kinds=(kind,),
            )
        )
    return tuple(offers)


def _label(kind: str) -> str:
    name = WAGER_NAMES[kind]
    if kind.startswith("game_length:"):
        plays = int(kind.split(":")[1])
        return f"{name}: {plays} play{'s' if plays > 1 else ''}"
    return name


def _payouts(kind: str) -> tuple[Payout, ...]:
    if kind == "touchdown":
        return (Payout("a touchdown or Trips TD", str(TOUCHDOWN_ODDS)),)
    if kind == "defense":
        return (Payout("no touchdown or Trips TD", str(DEFENSE_ODDS)),)
    if kind == "extra_point":
        return tuple(Payout(_EXTRA_POINT[k], str(o)) for k, o in EXTRA_POINT_ODDS.items())
    if kind == "quick_strike":
        return tuple(
            Payout(f"a touchdown on play {play}", str(o)) for play, o in QUICK_STRIKE_ODDS.items()
        )
    if kind == "game_changer":
        return (Payout("a Trips TD or a turnover", str(GAME_CHANGER_ODDS)),)
    if kind.startswith("game_length:"):
        return (Payout("wins", str(GAME_LENGTH_ODDS[int(kind.split(":")[1])])),)
    lines = (Payout("wins", str(SINGLE_PLAY_ODDS[kind])),)
    if kind == "over_four":
        lines += (Payout("a Trips TD", str(OVER_FOUR_TRIPS_TD_ODDS)),)
    return lines
