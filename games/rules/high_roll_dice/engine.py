"""The High Roll Dice engine: a round is wagers, the first throw, and any extra roll."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

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
from games.rules.high_roll_dice import view
from games.rules.high_roll_dice.catalog import wager_catalog
from games.rules.high_roll_dice.options import Options, describe_options, parse_options
from games.rules.high_roll_dice.par import par_sheet
from games.rules.high_roll_dice.payout_limit import Winning, apply_payout_limit
from games.rules.high_roll_dice.settlement import (
    Decision,
    FirstRoll,
    bought_extra_roll,
    collect_extra_rolls,
    read_first_roll,
    settle_extra_roll,
    settle_first_roll,
)
from games.rules.high_roll_dice.view import wagers_closed
from games.rules.high_roll_dice.wagers import (
    EXTRA_ROLL,
    KINDS,
    Kind,
    NotOffered,
    Placed,
    parse_kind,
    placement_refusal,
)

EVENTS = ("wagers", "throw", "extra_roll")
_FACE_PLURALS = {1: "aces", 2: "2s", 3: "3s", 4: "4s", 5: "5s", 6: "6s"}


@dataclass(frozen=True)
class TableState:
    """One table between events.

    `wagers`: the round's working wagers in placement order. `first_roll`: set after a
    first throw while the extra roll is awaited (wagers are then closed). `paid`: what
    each player was paid this round under the aggregate payout limit.
    """

    wagers: tuple[Placed, ...] = ()
    used_ids: UsedIds = NO_IDS
    first_roll: FirstRoll | None = None
    paid: tuple[tuple[str, Decimal], ...] = ()


class HighRollDiceEngine:
    """High Roll Dice (§ 675a) and its six-dice variation (§ 675a.6)."""

    game = "high_roll_dice"
    kinds = KINDS

    def parse_options(self, raw: Mapping[str, object]) -> Options:
        """Rules Submission options with defaults; MalformedInput on unknown or bad ones."""
        return parse_options(raw)

    def describe_options(self, options: Options) -> dict[str, object]:
        """The options in force, defaults filled in, as JSON-ready values."""
        return describe_options(options)

    def new_state(self, options: Options) -> TableState:
        """A fresh table: no wagers, nothing thrown."""
        return TableState()

    def open_wagers(self, state: TableState) -> tuple[str, ...]:
        """Ids of the wagers still working, in the order they were placed."""
        return tuple(p.wager.id for p in state.wagers)

    def round_over(self, state: TableState) -> bool:
        """No wager working and no Extra Roll still to throw: § 675a.4(g) has the dealer
        re-throw once anyone bought one, even when no wager is left to decide."""
        return not state.wagers and state.first_roll is None

    def par_sheet(self, options: Options) -> tuple[ParRecord, ...]:
        """Exact outcome probabilities of every wager kind under these options."""
        return par_sheet(options.dice)

    def state_view(self, options: Options, state: TableState) -> dict[str, object]:
        """Each player's areas, the Extra Roll and the first roll it follows."""
        return view.state_view(options, state)

    def state_summary(self, options: Options, state: TableState) -> dict[str, object]:
        """Whether an extra roll is awaited."""
        return view.state_summary(options, state)

    def events_now(self, options: Options, state: TableState) -> tuple[str, ...]:
        """The events the table takes now."""
        return view.events_now(options, state)

    def kinds_now(self, options: Options, state: TableState) -> tuple[str, ...]:
        """The wager kinds the table takes now."""
        return view.kinds_now(options, state)

    def wager_catalog(self, options: Options) -> tuple[Offer, ...]:
        """Every wager the table offers under these options."""
        return wager_catalog(options)

    def step(
        self, options: Options, state: TableState, event: str, payload: object
    ) -> tuple[TableState, StepOutcome]:
        """Apply one event (``wagers``, ``throw``, ``extra_roll``) and return the new state."""
        if event == "wagers":
            return _place_wagers(options, state, parse_wagers(payload, "wagers"))
        if event == "throw":
            return _first_throw(options, state, parse_dice(payload, "throw"))
        if event == "extra_roll":
            return _extra_roll(options, state, parse_dice(payload, "extra_roll"))
        raise MalformedInput(event, f"is not a High Roll Dice event; known: {', '.join(EVENTS)}")


def _place_wagers(
    options: Options, state: TableState, wagers: Sequence[Wager]
) -> tuple[TableState, StepOutcome]:
    """Accept what the rules allow, in order; refuse the rest with the section."""

    def admit(index: int, wager: Wager, taken: Sequence[Placed]) -> Placed | Rejection:
        kind = _admit(options, state, wager, (*state.wagers, *taken))
        return kind if isinstance(kind, Rejection) else Placed(wager, kind)

    result = take_wagers(wagers, state.used_ids, admit)
    new_state = replace(state, wagers=(*state.wagers, *result.taken), used_ids=result.used)
    return new_state, StepOutcome(accepted=result.accepted, rejected=result.rejected)


def _admit(
    options: Options, state: TableState, wager: Wager, placed: Sequence[Placed]
) -> Rejection | Kind:
    """The wager's area when it may be placed now, else its Rejection."""
    kind = parse_kind(wager.kind, options.dice)
    if isinstance(kind, NotOffered):
        return Rejection(kind.error, wager.id, cite=kind.cite)
    if wagers_closed(state):
        if kind.area == EXTRA_ROLL:
            return Rejection(
                'No more bets: an Extra Roll may not be purchased after "no more bets".',
                wager.id,
                cite=cite("675a.4(a)"),
            )
        return Rejection(
            "No more bets: wagers must be made before the dice are shaken.",
            wager.id,
            cite=cite("675a.2(a)"),
        )
    return placement_refusal(wager, kind, options, placed) or kind


def _dice_refusal(faces: Sequence[int], wanted: int, what: str, section: str) -> Rejection | None:
    """A throw with the wrong number of dice or a face no die has, as an event rejection."""
    if len(faces) != wanted:
        return Rejection(
            f"The {what} must show {wanted} dice; {len(faces)} were given.", cite=cite(section)
        )
    impossible = die_face_refusal(faces)
    return Rejection(impossible, cite=cite(section)) if impossible else None


def _first_throw(
    options: Options, state: TableState, faces: Sequence[int]
) -> tuple[TableState, StepOutcome]:
    """No more bets, Extra Rolls collected, the first roll read and settled (§ 675a.4(a)-(f))."""
    if wagers_closed(state):
        return state, StepOutcome(
            rejected=(
                Rejection(
                    f"The extra roll of {state.first_roll.rethrown} dice comes before the next "
                    "round's throw.",
                    cite=cite("675a.4(g)"),
                ),
            )
        )
    section = "675a.3(a)" if options.dice == 10 else "675a.6(e)"
    refusal = _dice_refusal(faces, options.dice, "throw", section)
    if refusal:
        return state, StepOutcome(rejected=(refusal,))
    roll = read_first_roll(faces)
    collected = collect_extra_rolls(state.wagers)
    decisions, working = settle_first_roll(state.wagers, roll)
    resolutions, extra, paid = _resolve(options, [*collected, *decisions], {})
    # § 675a.4(g): an extra roll follows if anyone bought one and dice are left to throw.
    if bought_extra_roll(state.wagers) and roll.rethrown > 0:
        new_state = replace(
            state, wagers=working, first_roll=roll, paid=tuple(sorted(paid.items()))
        )
    else:
        new_state = replace(state, wagers=(), first_roll=None, paid=())
    return new_state, StepOutcome(resolutions=resolutions, extra=extra)


def _extra_roll(
    options: Options, state: TableState, faces: Sequence[int]
) -> tuple[TableState, StepOutcome]:
    """The non-matching dice re-thrown; the circles left working settled (§ 675a.4(g)-(h))."""
    roll = state.first_roll
    if roll is None:
        return state, StepOutcome(
            rejected=(
                Rejection(
                    "There is no extra roll now: it follows a first throw in a round in which "
                    "a player purchased an Extra Roll.",
                    cite=cite("675a.4(g)"),
                ),
            )
        )
    if len(faces) != roll.rethrown:
        boxed = f"{roll.count} {_FACE_PLURALS[roll.face]}"
        return state, StepOutcome(
            rejected=(
                Rejection(
                    f"The extra roll re-throws the {roll.rethrown} dice other than the {boxed} "
                    f"in the throw box; {len(faces)} were given.",
                    cite=cite("675a.4(g)"),
                ),
            )
        )
    refusal = _dice_refusal(faces, roll.rethrown, "extra roll", "675a.4(g)")
    if refusal:
        return state, StepOutcome(rejected=(refusal,))
    decisions = settle_extra_roll(state.wagers, roll, faces)
    resolutions, extra, _ = _resolve(options, decisions, dict(state.paid))
    return replace(state, wagers=(), first_roll=None, paid=()), StepOutcome(
        resolutions=resolutions, extra=extra
    )


def _resolve(
    options: Options, decisions: Sequence[Decision], paid_before: Mapping[str, Decimal]
) -> tuple[tuple[Resolution, ...], dict[str, object], dict[str, Decimal]]:
    """Resolutions after the aggregate payout limit, its note, and the new paid totals."""
    limited = [
        Winning(d.placed.wager.id, d.placed.wager.player, d.winnings)
        for d in decisions
        if d.result == "win" and d.limited
    ]
    applied = apply_payout_limit(options.payout_limit, limited, paid_before)
    resolutions = []
    for d in decisions:
        wager = d.placed.wager
        if d.result == "lose":
            resolutions.append(Resolution(wager.id, "lose", -wager.amount, d.cite))
            continue
        reduction = applied.reductions.get(wager.id)
        if reduction is None:
            resolutions.append(Resolution(wager.id, "win", d.winnings, d.cite))
        else:
            resolutions.append(
                Resolution(
                    wager.id,
                    "win",
                    d.winnings - reduction,
                    d.cite,
                    extra={"payout_limit_reduction": str(reduction)},
                )
            )
    extra: dict[str, object] = {"payout_limit": dict(applied.notes)} if applied.notes else {}
    return tuple(resolutions), extra, dict(applied.paid)
