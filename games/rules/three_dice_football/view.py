"""The Three Dice Football table as an integrator draws it, and what it takes now: the drive
(the Yard Marker, the Down Puck, the Game Length Puck, the Quarterback with the ball, an
extra point roll awaited) and the wagers working. Chapter 661a keeps no score across
games: each game ends at a touchdown, a turnover or the last down (§ 661a.6(e))."""

from typing import TYPE_CHECKING

from games.rules.core.offer import wager_summary
from games.rules.three_dice_football.options import FootballOptions
from games.rules.three_dice_football.wagers import (
    FULL_GAME_CLAUSES,
    FULL_GAME_KINDS,
    SINGLE_PLAY_CLAUSES,
    timing_refusal,
)

if TYPE_CHECKING:  # the engine imports this module: the state's type only, for the hints
    from games.rules.three_dice_football.engine import FootballState

GAME = "three_dice_football"
KINDS = (*FULL_GAME_CLAUSES, *SINGLE_PLAY_CLAUSES)  # § 661a.3(b), then (d)


def state_summary(
    options: FootballOptions, state: "FootballState", field: dict[str, object]
) -> dict[str, object]:
    """The drive as the dealer announces it (`field`: the engine's field summary)."""
    return {
        "game": GAME,
        "game_number": field["game"],
        "down": field["down"],
        "yard_line": field["yard_line"],
        "play": field["play"],
        "quarterback": field["quarterback"],
        "extra_point_pending": state.extra_point_pending,
    }


def state_view(
    options: FootballOptions, state: "FootballState", field: dict[str, object]
) -> dict[str, object]:
    """The drive and the wagers working, each full game or single play."""
    return {
        **state_summary(options, state, field),
        "goal_to_go": state.field.goal_to_go,
        "game_started": state.game_started,
        "wagers": [
            {
                **wager_summary(w.id, w.player, w.kind, w.amount),
                "type": "full_game" if w.kind in FULL_GAME_KINDS else "single_play",
            }
            for w in state.wagers
        ],
    }


def kinds_now(options: FootballOptions, state: "FootballState") -> tuple[str, ...]:
    """The kinds placed now: full game wagers before a game's first throw, single play
    wagers before any throw, none while the extra point roll is awaited."""
    return tuple(
        kind
        for kind in KINDS
        if timing_refusal(
            kind,
            game_started=state.game_started,
            extra_point_pending=state.extra_point_pending,
        )
        is None
    )


def events_now(options: FootballOptions, state: "FootballState") -> tuple[str, ...]:
    """A throw at any time; wagers while any kind is taken."""
    return ("wagers", "throw") if kinds_now(options, state) else ("throw",)
