"""A round's records: its events stepped through the engine, the state they lead to, its
wagers; and what stops a table closing.

The round flow (gaming/rounds.py) checks permission and the gates, then records through
these. An event the engine refuses raises FloorRefused with the engine's own words, and
nothing is written.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from casino.actors import acting_person, is_device
from casino.models import Table
from casino.rules.text import PLAYER_NAME_MAX_LENGTH, length_refusal, shown_name
from casino.services.errors import FloorInvalid, FloorRefused
from games import flow
from games.models import Round, RoundEvent, Wager
from games.rules.core import MalformedInput, Rejection
from games.rules.core.money import amount_given
from games.rules.registry import engine_get
from games.services.round_state import (
    behind_check,
    event_insert,
    now_moved,
    round_now,
    state_after,
)

RUN = "games.run_round"
# Fields a wager may carry besides player, kind and amount (SCENARIOS.md).
WAGER_FIELDS = frozenset({"player", "kind", "amount", "on", "seat", "position"})
# The longest each name may be, as sent (a player's: casino/rules/text.py; a kind's: its
# column, which keeps it as sent).
NAME_LENGTHS = {"player": PLAYER_NAME_MAX_LENGTH, "kind": Wager._meta.get_field("kind").max_length}
Source = RoundEvent.Source


def working_wagers(table: Table) -> tuple[str, ...]:
    """Refs of wagers still working at the table once its last round is over."""
    last = table.rounds.order_by("-number").first()
    if last is None or last.status != Round.Status.SETTLED:
        return ()
    return engine_get(last.game).open_wagers(state_after(last))


def close_refusals(table: Table) -> list[str]:
    """What stops a table closing: a round in progress, or wagers still working on it."""
    reasons = []
    current = table.rounds.filter(status__in=Round.IN_PROGRESS).first()
    if current is not None:
        reasons.append(f"{current} is {current.get_status_display().lower()}: settle it first")
    working = working_wagers(table)
    if working:
        reasons.append(
            f"wagers still working at {table.number}: {', '.join(working)}; "
            "they are decided or taken down before the table closes"
        )
    return reasons


def _refs_of(round_: Round) -> str:
    return f"{round_.number}."


def wager_ref(round_: Round, n: int) -> str:
    """The ref of the round's `n`th wager, e.g. "42.3": unique at its table."""
    return f"{_refs_of(round_)}{n}"


def wagers_carried(round_: Round, open_refs: Sequence[str]) -> int:
    """How many of the wagers working on the round's layout earlier rounds placed (a Craps
    or Three Dice Football bet carried from throw to throw)."""
    own = _refs_of(round_)
    return sum(1 for ref in open_refs if not ref.startswith(own))


def wager_row(round_: Round, wager: object, ref: str, index: int, now: datetime) -> Wager:
    """A wager as a row (not saved), its fields checked: FloorInvalid naming a field not of
    the documented form, FloorRefused for a name that hides a code point."""
    where = f"wagers[{index}]"
    action = f"Wagers at {round_}"
    if not isinstance(wager, Mapping):
        raise FloorInvalid(action, {where: ["must be an object"]})
    unknown = sorted(set(wager) - WAGER_FIELDS)
    if unknown:
        raise FloorInvalid(action, {f"{where}.{unknown[0]}": ["is not a wager field"]})
    missing = [name for name in ("player", "kind", "amount") if name not in wager]
    if missing:
        raise FloorInvalid(action, {f"{where}.{name}": ["is required"] for name in missing})
    for name, longest in NAME_LENGTHS.items():
        value = wager[name]
        wrong = length_refusal(value, longest) if isinstance(value, str) else "must be a string"
        if wrong:
            raise FloorInvalid(action, {f"{where}.{name}": [wrong]})
    # Shown on every page and report: no hidden code points (casino/rules/text.py).
    player, refusals = shown_name(wager["player"], f"{where}.player", PLAYER_NAME_MAX_LENGTH)
    if refusals:
        raise FloorRefused(action, refusals)
    try:
        amount = amount_given(wager["amount"], f"{where}.amount")
    except MalformedInput as error:
        raise FloorInvalid(action, {error.field: [error.message]}) from None
    extra = {k: v for k, v in wager.items() if k not in ("player", "kind", "amount")}
    return Wager(
        round=round_,
        table_id=round_.table_id,
        ref=ref,
        player=player,
        kind=str(wager["kind"]),
        amount=amount,
        extra=extra,
        placed_at=now,
    )


def wagering_check(round_: Round, action: str) -> None:
    """FloorRefused unless the round is open for wagers at an open table."""
    reasons = []
    if round_.status != Round.Status.OPEN:
        reasons.append(f"{round_} is {round_.get_status_display().lower()}: no wager is taken")
    if round_.table.status != Table.Status.OPEN:
        reasons.append(f"{round_.table.number} is {round_.table.get_status_display().lower()}")
    if reasons:
        raise FloorRefused(action, reasons)


def wagering_close(round_: Round, *, by: Any, now: datetime, source: str) -> None:
    """Record "no more bets" and close the round to wagers."""
    event_append(round_, "no_more_bets", True, by, now, source, "")
    round_.status, round_.closed_at = Round.Status.CLOSED, now
    round_.save(update_fields=["status", "closed_at"])


def event_step(
    round_: Round,
    event: str,
    payload: object,
    action: str,
    *,
    by: Any,
    now: datetime,
    source: str,
    cite: str = "",
    wagers: int = 0,
) -> tuple[RoundEvent, Any]:
    """Step the engine from where the round stands; refuse with its words, or record the
    event (and give the state). `wagers`: how many wagers the event places."""
    current = round_now(round_)
    try:
        state, outcome = current.engine.step(current.options, current.state, event, payload)
    except MalformedInput as error:
        behind_check(round_, current)
        raise FloorRefused(action, [str(error)]) from None
    if outcome.rejected:
        behind_check(round_, current)
        raise FloorRefused(action, [rejection_text(r) for r in outcome.rejected])
    appended = event_append(
        round_, event, payload, by, now, source, cite, state=state, wagers=wagers
    )
    return appended, state


def rejection_text(rejection: Rejection) -> str:
    """An engine's rejection in words: the wager, the error, its section."""
    text = f"{rejection.wager}: {rejection.error}" if rejection.wager else rejection.error
    return f"{text} ({rejection.cite})" if rejection.cite else text


def event_append(
    round_: Round,
    event: str,
    payload: object,
    by: Any,
    now: datetime,
    source: str,
    cite: str,
    *,
    state: Any = None,
    wagers: int = 0,
) -> RoundEvent:
    """Record the round's next event as given, by a person or a device; `state` is the
    engine's after it (None: unchanged), `wagers` how many wagers it places."""
    seq = round_now(round_).seq + 1
    appended = RoundEvent(
        round=round_,
        seq=seq,
        event=event,
        payload=payload,
        source=source,
        entered_by=acting_person(by),
        device=by if is_device(by) else None,
        at=now,
        cite=cite,
    )
    event_insert(appended)  # StateBehind if the seq is taken: the cache was behind
    now_moved(round_, (seq, event, payload), state=state, wagers=wagers)
    return appended


def round_ends(round_: Round, event: str, state: Any) -> bool:
    """Whether `event`, leading to `state`, ends the round (its settlement follows)."""
    if event not in flow.ENDS_ROUND[round_.game]:
        return False
    if round_.game in flow.THROW_BY_THROW:
        return True
    engine = engine_get(round_.game)
    round_over = getattr(engine, "round_over", None)  # an engine that knows better says so
    return round_over(state) if round_over else not engine.open_wagers(state)
