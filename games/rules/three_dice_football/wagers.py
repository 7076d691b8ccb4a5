"""The wagers of § 661a.3: their kinds, and when each may be placed.

Full game wagers (§ 661a.3(b)) are placed before a game's first throw and work to the
game's end (§ 661a.3(c)); single play wagers (§ 661a.3(d)) are placed before any throw
of the game and decided by that throw (§ 661a.3(e)).
"""

from games.rules.core import Rejection, Wager, cite
from games.rules.core.money import has_whole_cents
from games.rules.three_dice_football.options import FootballOptions

# § 661a.3(b)(6)(i)-(vi): a Game Length Wager names one to six plays.
GAME_LENGTHS = (1, 2, 3, 4, 5, 6)
GAME_LENGTH_CLAUSES = {1: "i", 2: "ii", 3: "iii", 4: "iv", 5: "v", 6: "vi"}

# § 661a.3(b): full game wagers, with the paragraph that authorizes each.
FULL_GAME_CLAUSES = {
    "touchdown": "661a.3(b)(1)",
    "defense": "661a.3(b)(2)",
    "extra_point": "661a.3(b)(3)",
    "quick_strike": "661a.3(b)(4)",
    "game_changer": "661a.3(b)(5)",
    **{f"game_length:{n}": f"661a.3(b)(6)({GAME_LENGTH_CLAUSES[n]})" for n in GAME_LENGTHS},
}

# § 661a.3(d): single play wagers, with the paragraph that authorizes each.
SINGLE_PLAY_CLAUSES = {
    "trips_td": "661a.3(d)(1)",
    "penalty": "661a.3(d)(2)",
    "turnover": "661a.3(d)(3)",
    "cover_three": "661a.3(d)(4)",
    "no_gain": "661a.3(d)(5)",
    "big_play": "661a.3(d)(6)",
    "over_four": "661a.3(d)(7)",
    "under_four": "661a.3(d)(8)",
}

FULL_GAME_KINDS = frozenset(FULL_GAME_CLAUSES)
SINGLE_PLAY_KINDS = frozenset(SINGLE_PLAY_CLAUSES)

WAGER_NAMES = {
    "touchdown": "Touchdown Wager",
    "defense": "Defense Wager",
    "extra_point": "Extra Point Wager",
    "quick_strike": "Quick Strike TD Wager",
    "game_changer": "Game Changer Wager",
    **{f"game_length:{n}": "Game Length Wager" for n in GAME_LENGTHS},
    "trips_td": "Trips TD Wager",
    "penalty": "Penalty Wager",
    "turnover": "Turnover Wager",
    "cover_three": "Cover Three Wager",
    "no_gain": "No Gain Wager",
    "big_play": "Big Play Wager",
    "over_four": "Over Four Yards Wager",
    "under_four": "Under Four Yards Wager",
}


def clause(kind: str) -> str:
    """The paragraph of § 661a.3 that authorizes and decides a wager kind."""
    return FULL_GAME_CLAUSES.get(kind) or SINGLE_PLAY_CLAUSES[kind]


def placement_rejection(
    wager: Wager, options: FootballOptions, *, game_started: bool, extra_point_pending: bool
) -> Rejection | None:
    """Why the rules refuse this wager now, or None when it may be placed."""
    if wager.kind not in FULL_GAME_KINDS and wager.kind not in SINGLE_PLAY_KINDS:
        # Only the wagers of § 661a.3(b) and (d) are authorized.
        return _refuse(wager, f"{wager.kind!r} is not a Three Dice Football wager", "661a.3")
    if wager.amount <= 0:
        return _refuse(wager, "A wager must be a positive amount")
    if not has_whole_cents(wager.amount):
        return _refuse(wager, "A wager must be a whole number of cents")
    name = WAGER_NAMES[wager.kind]
    if extra_point_pending:
        # The game has ended in a touchdown; its settlement waits on the extra point
        # roll, which is no down (§ 661a.6(f)(1)). The next game opens after it.
        return _refuse(
            wager,
            f"No {name} may be placed while the extra point roll is pending; "
            "wagers open again for the next game",
            "661a.6(f)(1)",
        )
    if wager.kind in FULL_GAME_KINDS and game_started:
        return _refuse(
            wager,
            f"A {name} is a full game wager and must be placed before the first throw of the game",
            "661a.3(c)",
        )
    # The certificate holder's posted table limits; chapter 661a sets none.
    limit_error = options.limits.refusal(wager.amount)
    return None if limit_error is None else _refuse(wager, limit_error)


def _refuse(wager: Wager, error: str, section: str | None = None) -> Rejection:
    return Rejection(error=error, wager=wager.id, cite=cite(section) if section else None)
