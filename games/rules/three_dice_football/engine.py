"""The Three Dice Football engine: a table's state across games, and one event at a time."""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, replace

from games.rules.core import (
    MalformedInput,
    ParRecord,
    Rejection,
    Resolution,
    StepOutcome,
    Wager,
    cite,
    die_face_refusal,
)
from games.rules.core.ids import NO_IDS, UsedIds
from games.rules.core.offer import Offer
from games.rules.core.wagers import parse_dice, parse_wagers, take_wagers
from games.rules.three_dice_football import options as football_options
from games.rules.three_dice_football import view
from games.rules.three_dice_football.catalog import wager_catalog
from games.rules.three_dice_football.field import (
    SCORING_ENDS,
    Field,
    GameEnd,
    Throw,
    advance,
    call_play,
    game_end_cite,
)
from games.rules.three_dice_football.options import FootballOptions
from games.rules.three_dice_football.par import par_sheet
from games.rules.three_dice_football.settlement import settle_down, settle_extra_point_roll
from games.rules.three_dice_football.wagers import placement_rejection

EVENTS = ("wagers", "throw")
THROW_KEYS = ("green", "red")


@dataclass(frozen=True)
class FootballState:
    """The table between events: the field of the game in play, and the wagers working.

    `quarterback` counts Quarterbacks (1 is the first to accept the dice); it moves on
    when the dice pass to the left (§ 661a.7(a)). `extra_point_pending` is set between a
    touchdown and the extra point roll that settles the Touchdown and Extra Point Wagers.
    """

    field: Field = dataclasses.field(default_factory=Field)
    game: int = 1
    quarterback: int = 1
    wagers: tuple[Wager, ...] = ()
    placed_ids: UsedIds = NO_IDS
    extra_point_pending: bool = False

    @property
    def game_started(self) -> bool:
        """True once the game's first throw is made (the Game Length Puck left Play 1)."""
        return self.field.play > 1


class ThreeDiceFootballEngine:
    """Three Dice Football, 58 Pa. Code chapter 661a."""

    game = "three_dice_football"
    kinds = view.KINDS

    def parse_options(self, raw: Mapping[str, object]) -> FootballOptions:
        """Rules Submission options with defaults; MalformedInput on unknown or bad ones."""
        return football_options.parse_options(raw)

    def describe_options(self, options: FootballOptions) -> dict[str, object]:
        """The options in force, defaults filled in, as JSON-ready values."""
        return football_options.describe_options(options)

    def new_state(self, options: FootballOptions) -> FootballState:
        """A fresh table: § 661a.6(a), Yard Marker on the 20, 1st Down, Play 1."""
        return FootballState()

    def open_wagers(self, state: FootballState) -> tuple[str, ...]:
        """Ids of the wagers still working, in the order they were placed."""
        return tuple(w.id for w in state.wagers)

    def par_sheet(self, options: FootballOptions) -> tuple[ParRecord, ...]:
        """Exact outcome probabilities of every wager kind under these options."""
        return par_sheet(options)

    def state_view(self, options: FootballOptions, state: FootballState) -> dict[str, object]:
        """The drive and the wagers working."""
        return view.state_view(options, state, field_summary(state))

    def state_summary(self, options: FootballOptions, state: FootballState) -> dict[str, object]:
        """The drive: the game, the down, the yard line, the Quarterback."""
        return view.state_summary(options, state, field_summary(state))

    def events_now(self, options: FootballOptions, state: FootballState) -> tuple[str, ...]:
        """The events the table takes now."""
        return view.events_now(options, state)

    def kinds_now(self, options: FootballOptions, state: FootballState) -> tuple[str, ...]:
        """The wager kinds the table takes now."""
        return view.kinds_now(options, state)

    def wager_catalog(self, options: FootballOptions) -> tuple[Offer, ...]:
        """Every wager the table offers under these options."""
        return wager_catalog(options)

    def step(
        self, options: FootballOptions, state: FootballState, event: str, payload: object
    ) -> tuple[FootballState, StepOutcome]:
        """Apply one event, ``wagers`` or ``throw``, and return the new state."""
        if event == "wagers":
            return place_wagers(options, state, payload)
        if event == "throw":
            return throw_dice(state, payload)
        raise MalformedInput(
            event, f"is not a Three Dice Football event; the events are {', '.join(EVENTS)}"
        )


def place_wagers(
    options: FootballOptions, state: FootballState, payload: object
) -> tuple[FootballState, StepOutcome]:
    """Accept the wagers the rules allow now; reject the others with a reason."""

    def admit(index: int, wager: Wager, taken: object) -> Wager | Rejection:
        rejection = placement_rejection(
            wager,
            options,
            game_started=state.game_started,
            extra_point_pending=state.extra_point_pending,
        )
        return wager if rejection is None else rejection

    result = take_wagers(parse_wagers(payload), state.placed_ids, admit)
    new_state = replace(state, wagers=(*state.wagers, *result.taken), placed_ids=result.used)
    outcome = StepOutcome(
        accepted=result.accepted,
        rejected=result.rejected,
        extra={"field": field_summary(new_state)},
    )
    return new_state, outcome


def throw_dice(state: FootballState, payload: object) -> tuple[FootballState, StepOutcome]:
    """A down, or the extra point roll when one is pending (§ 661a.6(c), (f)(1))."""
    throw_or_rejection = parse_throw(payload)
    if isinstance(throw_or_rejection, Rejection):
        return state, StepOutcome(
            rejected=(throw_or_rejection,), extra={"field": field_summary(state)}
        )
    throw = throw_or_rejection
    if state.extra_point_pending:
        return extra_point(state, throw)
    return down(state, throw)


def parse_throw(payload: object) -> Throw | Rejection:
    """The form ``{"green": [g1, g2], "red": r}``; wrong dice are a rejected event."""
    if not isinstance(payload, dict):
        raise MalformedInput("throw", 'must be an object {"green": [g1, g2], "red": r}')
    for key in payload:
        if key not in THROW_KEYS:
            raise MalformedInput(f"throw.{key}", "is not a die of the throw; use green and red")
    for key in THROW_KEYS:
        if key not in payload:
            raise MalformedInput(f"throw.{key}", "is required")
    green = parse_dice(payload["green"], "throw.green")
    red = payload["red"]
    if isinstance(red, bool) or not isinstance(red, int):
        raise MalformedInput("throw.red", "must be the integer face of the one red die")
    if len(green) != 2:
        return Rejection(
            error=f"A throw has exactly two green Offensive Dice, not {len(green)}",
            cite=cite("661a.1"),
        )
    impossible = die_face_refusal((*green, red))
    if impossible:
        return Rejection(error=impossible, cite=cite("661a.4(a)"))
    return Throw((green[0], green[1]), red)


def down(state: FootballState, throw: Throw) -> tuple[FootballState, StepOutcome]:
    """One down: move the field, settle the single play wagers, and any the game's end
    decides (§ 661a.6(c)-(f))."""
    play = call_play(throw)
    field, end = advance(state.field, play)
    resolutions, still_open, extra_point_next = settle_down(
        state.wagers, play, end, state.field.play
    )
    call = {
        "offense": throw.offense,
        "defense": throw.red,
        "result": str(play.call),
        "yards": play.yards,
    }
    extra: dict[str, object] = {"call": call}
    if end is None:
        new_state = replace(state, field=field, wagers=still_open)
    else:
        extra["game_over"] = {
            "game": state.game,
            "result": str(end),
            "plays": field.play,
            "yard_line": field.yard_line,
            "down": field.down_name,
            "extra_point_roll": extra_point_next,
            "cite": game_end_cite(end, field),
        }
        extra["quarterback"] = quarterback_after(state.quarterback, end)
        if extra_point_next:
            new_state = replace(state, field=field, wagers=still_open, extra_point_pending=True)
        else:
            new_state = next_game(state, end)
    extra["field"] = field_summary(new_state)
    return new_state, StepOutcome(resolutions=resolutions, extra=extra)


def extra_point(state: FootballState, throw: Throw) -> tuple[FootballState, StepOutcome]:
    """The extra point roll: pay the Touchdown Wagers, settle the Extra Point Wagers."""
    resolutions: tuple[Resolution, ...] = settle_extra_point_roll(state.wagers, throw.faces)
    new_state = next_game(state, GameEnd.TOUCHDOWN)
    extra = {
        "call": {"result": "extra_point_roll", "dice": list(throw.faces)},
        "field": field_summary(new_state),
    }
    return new_state, StepOutcome(resolutions=resolutions, extra=extra)


def next_game(state: FootballState, end: GameEnd) -> FootballState:
    """A new game (§ 661a.6(a)), the dice kept or passed as § 661a.7(a) says."""
    quarterback = state.quarterback if end in SCORING_ENDS else state.quarterback + 1
    return FootballState(game=state.game + 1, quarterback=quarterback, placed_ids=state.placed_ids)


def quarterback_after(quarterback: int, end: GameEnd) -> dict[str, object]:
    """§ 661a.7(a): a touchdown or Trips TD keeps the dice; a defense win passes them."""
    if end in SCORING_ENDS:
        return {"number": quarterback, "retains_dice": True, "cite": cite("661a.7(a)")}
    return {
        "number": quarterback + 1,
        "retains_dice": False,
        "offered_to": "the player to the immediate left of the previous Quarterback",
        "cite": cite("661a.7(a)"),
    }


def field_summary(state: FootballState) -> dict[str, object]:
    """What the dealer announces: the game, the down, the distance to the end zone."""
    return {
        "game": state.game,
        "yard_line": state.field.yard_line,
        "down": "Extra Point" if state.extra_point_pending else state.field.down_name,
        "play": state.field.play,
        "quarterback": state.quarterback,
    }
