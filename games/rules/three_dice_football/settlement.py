"""What each wager wins, and the order the dealer settles them in (§ 661a.3, § 661a.6(f)).

Single play wagers are decided by the value of the dice of one down, not by the yards
the Yard Marker actually moves (§ 661a.6(d)). Full game wagers are decided at the
game's end; the Touchdown and Extra Point Wagers after the extra point roll when anyone
has an Extra Point Wager (§ 661a.6(f)(1)).
"""

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from games.rules.core import Resolution, Wager, cite
from games.rules.three_dice_football.field import SCORING_ENDS, Call, GameEnd, Play
from games.rules.three_dice_football.paytables import (
    DEFENSE_ODDS,
    EXTRA_POINT_ODDS,
    GAME_CHANGER_ODDS,
    GAME_LENGTH_ODDS,
    OVER_FOUR_TRIPS_TD_ODDS,
    QUICK_STRIKE_ODDS,
    SINGLE_PLAY_ODDS,
    TOUCHDOWN_ODDS,
    Odds,
)
from games.rules.three_dice_football.wagers import FULL_GAME_KINDS, SINGLE_PLAY_KINDS, clause

PENALTY_OR_TURNOVER = frozenset({Call.PENALTY, Call.TURNOVER})


# --- Single play wagers, § 661a.3(d): the odds a winning wager is paid at, or None. ---


def trips_td_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(1): wins if a Trips TD is scored."""
    return SINGLE_PLAY_ODDS["trips_td"] if play.call is Call.TRIPS_TD else None


def penalty_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(2): wins if a penalty or turnover occurs."""
    return SINGLE_PLAY_ODDS["penalty"] if play.call in PENALTY_OR_TURNOVER else None


def turnover_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(3): wins on a turnover; a turnover on downs is no Call, so never wins."""
    return SINGLE_PLAY_ODDS["turnover"] if play.call is Call.TURNOVER else None


def cover_three_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(4): wins if a Trips TD is scored or a penalty or turnover occurs."""
    won = play.call is Call.TRIPS_TD or play.call in PENALTY_OR_TURNOVER
    return SINGLE_PLAY_ODDS["cover_three"] if won else None


def no_gain_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(5): wins if zero yards are gained or a penalty or turnover occurs."""
    won = play.call is Call.NO_GAIN or play.call in PENALTY_OR_TURNOVER
    return SINGLE_PLAY_ODDS["no_gain"] if won else None


def big_play_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(6): wins if 7 yards or more are gained or a Trips TD is scored."""
    won = (play.call is Call.GAIN and play.yards >= 7) or play.call is Call.TRIPS_TD
    return SINGLE_PLAY_ODDS["big_play"] if won else None


def over_four_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(7): wins if 5 yards or more are gained (1 to 1) or a Trips TD (7 to 1)."""
    if play.call is Call.TRIPS_TD:
        return OVER_FOUR_TRIPS_TD_ODDS  # § 661a.8(b) "Over 4 Yards Wager with Trips TD"
    return SINGLE_PLAY_ODDS["over_four"] if play.call is Call.GAIN and play.yards >= 5 else None


def under_four_wager(play: Play) -> Odds | None:
    """§ 661a.3(d)(8): 3 yards or less gained (zero included), a penalty or a turnover.

    "A Trips TD does not qualify", though a Trips TD of 1s, 2s or 3s gains 3 or less.
    """
    gained_three_or_less = play.call in (Call.GAIN, Call.NO_GAIN) and play.yards <= 3
    won = gained_three_or_less or play.call in PENALTY_OR_TURNOVER
    return SINGLE_PLAY_ODDS["under_four"] if won else None


SINGLE_PLAY_RULES: Mapping[str, Callable[[Play], Odds | None]] = MappingProxyType(
    {
        "trips_td": trips_td_wager,
        "penalty": penalty_wager,
        "turnover": turnover_wager,
        "cover_three": cover_three_wager,
        "no_gain": no_gain_wager,
        "big_play": big_play_wager,
        "over_four": over_four_wager,
        "under_four": under_four_wager,
    }
)


# --- Full game wagers, § 661a.3(b): decided at the game's end after `plays` plays. ---


def touchdown_wager(end: GameEnd, plays: int) -> Odds | None:
    """§ 661a.3(b)(1): wins if a touchdown or Trips TD is scored."""
    return TOUCHDOWN_ODDS if end in SCORING_ENDS else None


def defense_wager(end: GameEnd, plays: int) -> Odds | None:
    """§ 661a.3(b)(2): wins if a touchdown or Trips TD is not scored."""
    return DEFENSE_ODDS if end not in SCORING_ENDS else None


def quick_strike_wager(end: GameEnd, plays: int) -> Odds | None:
    """§ 661a.3(b)(4): a touchdown or Trips TD in 4 downs or fewer, paid by its play."""
    return QUICK_STRIKE_ODDS.get(plays) if end in SCORING_ENDS else None


def game_changer_wager(end: GameEnd, plays: int) -> Odds | None:
    """§ 661a.3(b)(5): wins if a Trips TD or a turnover occurs."""
    return GAME_CHANGER_ODDS if end in (GameEnd.TRIPS_TD, GameEnd.TURNOVER) else None


def game_length_wager(length: int) -> Callable[[GameEnd, int], Odds | None]:
    """§ 661a.3(b)(6): the wager on a game that lasts exactly `length` plays."""

    def rule(end: GameEnd, plays: int) -> Odds | None:
        return GAME_LENGTH_ODDS[length] if plays == length else None

    return rule


FULL_GAME_RULES: Mapping[str, Callable[[GameEnd, int], Odds | None]] = MappingProxyType(
    {
        "touchdown": touchdown_wager,
        "defense": defense_wager,
        "quick_strike": quick_strike_wager,
        "game_changer": game_changer_wager,
        **{f"game_length:{n}": game_length_wager(n) for n in GAME_LENGTH_ODDS},
    }
)


def extra_point_roll(faces: tuple[int, int, int]) -> tuple[Odds | None, str]:
    """§ 661a.3(b)(3) on the extra point roll: the odds won (or None) and the clause.

    A 1 on one or more dice wins (i), paid by how many 1s show; a triple other than
    three 1s wins (ii). Three 1s are both a 1 showing and a triple: 50 to 1 (§ 661a.8(a)).
    """
    ones = faces.count(1)
    if ones == 3:
        return EXTRA_POINT_ODDS["triple_1s"], "661a.3(b)(3)(i)"
    if ones == 2:
        return EXTRA_POINT_ODDS["two_1s"], "661a.3(b)(3)(i)"
    if ones == 1:
        return EXTRA_POINT_ODDS["one_1"], "661a.3(b)(3)(i)"
    if faces[0] == faces[1] == faces[2]:
        return EXTRA_POINT_ODDS["other_triple"], "661a.3(b)(3)(ii)"
    return None, "661a.3(b)(3)"


# --- Settlement, § 661a.6(d), (f). ---


def resolve(wager: Wager, odds: Odds | None, section: str) -> Resolution:
    """A win at `odds` (rounded down to the cent), or a loss of the stake when None."""
    if odds is None:
        return Resolution(wager.id, "lose", -wager.amount, cite(section))
    return Resolution(wager.id, "win", odds.winnings(wager.amount), cite(section))


def settle_single_play(wager: Wager, play: Play) -> Resolution:
    """A single play wager, by the value of the dice of the down (§ 661a.6(d))."""
    return resolve(wager, SINGLE_PLAY_RULES[wager.kind](play), clause(wager.kind))


def settle_full_game(wager: Wager, end: GameEnd, plays: int) -> Resolution:
    """A full game wager other than the Extra Point Wager, at the game's end."""
    return resolve(wager, FULL_GAME_RULES[wager.kind](end, plays), clause(wager.kind))


def settle_down(
    wagers: Iterable[Wager], play: Play, end: GameEnd | None, plays: int
) -> tuple[tuple[Resolution, ...], tuple[Wager, ...], bool]:
    """Settle one down in the dealer's order: resolutions, wagers still open, and
    whether the Quarterback throws an extra point roll next (§ 661a.6(d), (f))."""
    wagers = tuple(wagers)
    single = [w for w in wagers if w.kind in SINGLE_PLAY_KINDS]
    full = [w for w in wagers if w.kind in FULL_GAME_KINDS]
    if end is None:
        # § 661a.6(d): after each down, the single play wagers; the game goes on.
        return tuple(settle_single_play(w, play) for w in single), tuple(full), False

    touchdown_and_extra_point = [w for w in full if w.kind in ("touchdown", "extra_point")]
    defense = [w for w in full if w.kind == "defense"]
    remaining = [w for w in full if w.kind not in ("touchdown", "extra_point", "defense")]
    resolutions: list[Resolution] = []
    if end in SCORING_ENDS:
        # § 661a.6(f)(1): first collect the Defense Wagers, then the single play wagers,
        # then the other full game wagers except the Touchdown and Extra Point Wagers.
        resolutions += [settle_full_game(w, end, plays) for w in defense]
        resolutions += [settle_single_play(w, play) for w in single]
        resolutions += [settle_full_game(w, end, plays) for w in remaining]
        if any(w.kind == "extra_point" for w in full):
            # An extra point roll follows; the Touchdown Wagers are paid after it.
            return tuple(resolutions), tuple(touchdown_and_extra_point), True
        resolutions += [settle_full_game(w, end, plays) for w in touchdown_and_extra_point]
        return tuple(resolutions), (), False
    # § 661a.6(f)(2): first collect the Touchdown and Extra Point Wagers and pay the
    # Defense Wagers, then the single play wagers and the remaining full game wagers.
    resolutions += [
        resolve(w, None, clause(w.kind)) for w in touchdown_and_extra_point
    ]  # neither wins without a touchdown or Trips TD (§ 661a.3(b)(1), (3))
    resolutions += [settle_full_game(w, end, plays) for w in defense]
    resolutions += [settle_single_play(w, play) for w in single]
    resolutions += [settle_full_game(w, end, plays) for w in remaining]
    return tuple(resolutions), (), False


def settle_extra_point_roll(
    wagers: Iterable[Wager], faces: tuple[int, int, int]
) -> tuple[Resolution, ...]:
    """§ 661a.6(f)(1): after the extra point roll, pay the Touchdown Wagers, then settle
    the Extra Point Wagers."""
    wagers = tuple(wagers)
    odds, section = extra_point_roll(faces)
    touchdowns = [
        resolve(w, TOUCHDOWN_ODDS, clause(w.kind)) for w in wagers if w.kind == "touchdown"
    ]
    extra_points = [resolve(w, odds, section) for w in wagers if w.kind == "extra_point"]
    return (*touchdowns, *extra_points)
