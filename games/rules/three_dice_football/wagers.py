"""The wagers of § 661a.3: their kinds, and when each may be placed.

Full game wagers (§ 661a.3(b)) are placed before a game's first throw and work to the
game's end (§ 661a.3(c)); single play wagers (§ 661a.3(d)) are placed before any throw
of the game and decided by that throw (§ 661a.3(e)).
"""

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Timing:
    """When a wager may be placed: the moment in words, its section, and whether it may be
    once the game's first throw is made."""

    made: str
    section: str
    after_first_throw: bool


FULL_GAME_TIMING = Timing("before the first throw of a game", "661a.3(c)", False)
SINGLE_PLAY_TIMING = Timing(
    "at any time during the game before the Quarterback's throw; settled by that throw",
    "661a.3(e)",
    True,
)
# § 661a.6(f)(1): the extra point roll is no down; the next game's wagers open after it.
EXTRA_POINT_SECTION = "661a.6(f)(1)"


def timing(kind: str) -> Timing:
    """When a wager of this kind (full game or single play) may be placed."""
    return FULL_GAME_TIMING if kind in FULL_GAME_KINDS else SINGLE_PLAY_TIMING


def timing_refusal(
    kind: str, *, game_started: bool, extra_point_pending: bool
) -> tuple[str, str] | None:
    """Why a wager of this kind may not be placed now (the sentence and its section), or None."""
    name = WAGER_NAMES[kind]
    if extra_point_pending:
        # The game has ended in a touchdown; its settlement waits on the extra point
        # roll, which is no down (§ 661a.6(f)(1)). The next game opens after it.
        return (
            f"No {name} may be placed while the extra point roll is pending; "
            "wagers open again for the next game",
            EXTRA_POINT_SECTION,
        )
    if game_started and not timing(kind).after_first_throw:
        return (
            f"A {name} is a full game wager and must be placed before the first throw of the game",
            FULL_GAME_TIMING.section,
        )
    return None


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
    refusal = timing_refusal(
        wager.kind, game_started=game_started, extra_point_pending=extra_point_pending
    )
    if refusal is not None:
        return _refuse(wager, *refusal)
    # The certificate holder's posted table limits; chapter 661a sets none.
    limit_error = options.limits.refusal(wager.amount)
    return None if limit_error is None else _refuse(wager, limit_error)


def _refuse(wager: Wager, error: str, section: str | None = None) -> Rejection:
    return Rejection(error=error, wager=wager.id, cite=cite(section) if section else None)
