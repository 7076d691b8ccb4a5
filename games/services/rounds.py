"""The round flow: open, wagers, "no more bets", the result, a no roll, a void.

Every action checks permission, validates through the engine against the options in
force when the round opened, and either records its event or raises FloorRefused with
the engine's own words, changing nothing. The event that ends a round writes the
settlement request in the same transaction (the outbox); a worker settles it.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Max

from casino.models import Table
from casino.rules.text import shown_name
from casino.services.errors import FloorRefused, permission_check
from casino.services.floor import round_start_check, table_options_in_force, table_suspend_by_rule
from devices import gates as device_gates
from games import flow
from games.models import Round, RoundEvent, SettlementRequest, Wager
from games.replay import Played, play, state_loads
from games.rules.core import MalformedInput, Rejection
from games.rules.core.engine import Engine
from games.rules.core.money import parse_amount
from games.rules.registry import engine_get
from games.services import ledger
from games.services.outbox import requests_send

RUN = "games.run_round"
# Fields a wager may carry besides player, kind and amount (SCENARIOS.md).
WAGER_FIELDS = frozenset({"player", "kind", "amount", "on", "seat", "position"})
PLAYER_MAX_LENGTH = Wager._meta.get_field("player").max_length  # as LedgerLine.player
Source = RoundEvent.Source


@dataclass(frozen=True)
class InPlay:
    """A round's engine and options, its recorded events, what each engine event did, and
    the state they lead to."""

    engine: Engine
    options: Any
    events: list[RoundEvent]
    played: list[Played]
    state: Any


def in_play(round_: Round) -> InPlay:
    """Play the round's recorded events from the state it started in (the one path the web
    process, the settlement worker and the demo dealer share)."""
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    events = list(round_.events.order_by("seq"))
    state, played = play(engine, options, state_in(round_), _triples(events))
    return InPlay(engine, options, events, played, state)


def state_in(round_: Round) -> Any:
    """The engine state the round started in: the previous round's, or a fresh table's."""
    if round_.previous is not None:
        return state_after(round_.previous)
    engine = engine_get(round_.game)
    return engine.new_state(engine.parse_options(round_.options))


def state_after(round_: Round) -> Any:
    """The engine state after a settled round: its cache, or its chain's events if the cache
    cannot be read (written by another engine version)."""
    if round_.state_after:
        try:
            return state_loads(bytes(round_.state_after))
        except Exception:
            pass
    return state_after_replayed(round_)


def state_after_replayed(round_: Round) -> Any:
    """The state after a round, from its chain's events alone (the cache not trusted)."""
    chain = [round_]
    while chain[-1].previous_id is not None:
        chain.append(Round.objects.get(pk=chain[-1].previous_id))
    state = None
    for member in reversed(chain):
        engine = engine_get(member.game)
        options = engine.parse_options(member.options)
        if state is None:
            state = engine.new_state(options)
        events = member.events.order_by("seq")
        state, _ = play(engine, options, state, _triples(events))
    return state


def _triples(events) -> list[tuple[int, str, object]]:
    return [(e.seq, e.event, e.payload) for e in events]


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


# --- opening --------------------------------------------------------------------------------


def round_open(table: Table, *, by: Any, now: datetime) -> Round:
    """Start the next round when the table may start one (the gate of issue 6)."""
    permission_check(by, RUN, "open a round")
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        round_start_check(table, now)
        current = table.rounds.filter(status__in=Round.IN_PROGRESS).first()
        if current is not None:
            raise FloorRefused(
                f"Starting a round at {table.number}",
                [f"{current} is {current.get_status_display().lower()}"],
            )
        submission, options = table_options_in_force(table, now)
        last = table.rounds.order_by("-number").first()
        # The game carries on from the last round unless the table has closed since.
        carries = last is not None and (table.closed_at is None or table.closed_at < last.opened_at)
        return Round.objects.create(
            table=table,
            number=last.number + 1 if last else 1,
            game=table.game,
            rules_submission=submission,
            options=options,
            previous=last if carries else None,
            opened_at=now,
            opened_by=acting_person(by),
        )


# --- wagering -------------------------------------------------------------------------------


def wagers_place(
    round_: Round,
    wagers: Sequence[Mapping[str, object]],
    *,
    by: Any,
    now: datetime,
    source: str = Source.DEALER,
) -> list[Wager]:
    """Take these wagers, all or none: each numbered ROUND.N and checked by the engine."""
    permission_check(by, RUN, "place wagers")
    action = f"Wagers at {round_}"
    source = _source(by, source)
    with transaction.atomic():
        round_ = _locked(round_)
        if not isinstance(wagers, Sequence) or isinstance(wagers, str) or not wagers:
            raise FloorRefused(action, ["wagers must be a non-empty list"])
        taken = round_.wagers.count()
        refusals = device_gates.extra_roll_refusals(round_, wagers, by, first=taken + 1)
        if refusals:
            raise FloorRefused(action, refusals)
        _wagering_check(round_, action)
        rows = [
            _wager_row(round_, wager, f"{round_.number}.{taken + index + 1}", index, now)
            for index, wager in enumerate(wagers)
        ]
        payload = [row.as_engine_wager() for row in rows]
        event, _ = _event_record(round_, "wagers", payload, action, by=by, now=now, source=source)
        Wager.objects.bulk_create(rows)
        ledger.placement_post(round_, rows, event, by=acting_person(by), now=now)
        return rows


def _wager_row(round_: Round, wager: object, ref: str, index: int, now: datetime) -> Wager:
    where = f"wagers[{index}]"
    action = f"Wagers at {round_}"
    if not isinstance(wager, Mapping):
        raise FloorRefused(action, [f"{where} must be an object"])
    unknown = sorted(set(wager) - WAGER_FIELDS)
    if unknown:
        raise FloorRefused(action, [f"{where}.{unknown[0]} is not a wager field"])
    for name in ("player", "kind"):
        value = wager.get(name)
        if not isinstance(value, str) or not value or len(value) > PLAYER_MAX_LENGTH:
            raise FloorRefused(action, [f"{where}.{name} must be a non-empty string"])
    # Shown on every page and report: no hidden code points (casino/rules/text.py).
    player, refusals = shown_name(str(wager["player"]), f"{where}.player", PLAYER_MAX_LENGTH)
    if refusals:
        raise FloorRefused(action, refusals)
    try:
        amount = parse_amount(wager.get("amount"), f"{where}.amount")
    except MalformedInput as error:
        raise FloorRefused(action, [str(error)]) from None
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


def round_event(
    round_: Round,
    event: str,
    payload: object,
    *,
    by: Any,
    now: datetime,
    source: str = Source.DEALER,
) -> Round:
    """Any wagering event of the game (SCENARIOS.md): Craps remove/working/pass_dice, Pai
    Gow bank; new wagers go to wagers_place. A result is refused: it closes wagering."""
    permission_check(by, RUN, "act on a round")
    action = f"{event} at {round_}"
    if event == "wagers" and event in flow.WAGERING_EVENTS.get(round_.game, ()):
        wagers_place(round_, payload, by=by, now=now, source=source)  # type: ignore[arg-type]
        return round_
    source = _source(by, source)
    with transaction.atomic():
        round_ = _locked(round_)
        if event not in flow.WAGERING_EVENTS[round_.game]:
            allowed = sorted(flow.WAGERING_EVENTS[round_.game])
            why = (
                f"{event!r} is a result, entered once wagering has closed, not a wagering event"
                if event in flow.RESULT_EVENTS[round_.game]
                else f"{event!r} is not a wagering event here"
            )
            raise FloorRefused(action, [f"{why}; the wagering events are: {allowed}"])
        _wagering_check(round_, action)
        if isinstance(payload, Mapping) and isinstance(payload.get("player"), str):
            # A name in an event (Pai Gow's bank) is shown like a wager's.
            player, refusals = shown_name(payload["player"], f"{event}.player", PLAYER_MAX_LENGTH)
            if refusals:
                raise FloorRefused(action, refusals)
            payload = {**payload, "player": player}
        _event_record(round_, event, payload, action, by=by, now=now, source=source)
        return round_


def no_more_bets(round_: Round, *, by: Any, now: datetime, source: str = Source.DEALER) -> Round:
    """Wagering closes (§ 675a.4(a), § 621a.8, § 625a.4): no wager is taken after this."""
    permission_check(by, RUN, 'call "no more bets"')
    source = _source(by, source)
    with transaction.atomic():
        round_ = _locked(round_)
        if round_.status != Round.Status.OPEN:
            raise FloorRefused(
                f'"No more bets" at {round_}',
                [f"{round_} is {round_.get_status_display().lower()}"],
            )
        _close(round_, by=by, now=now, source=source)
        return round_


# --- the result -----------------------------------------------------------------------------


def result_enter(
    round_: Round,
    event: str,
    payload: object,
    *,
    by: Any,
    now: datetime,
    source: str = Source.DEALER,
) -> Round:
    """The dice, tiles, settings or a generator's selection; the one that ends the round
    writes its settlement request in the same transaction."""
    permission_check(by, RUN, "enter a result")
    action = f"{event} at {round_}"
    source = _source(by, source)
    with transaction.atomic():
        round_ = _locked(round_)
        if round_.status not in (Round.Status.OPEN, Round.Status.CLOSED):
            raise FloorRefused(action, [f"{round_} is {round_.get_status_display().lower()}"])
        if event not in flow.RESULT_EVENTS[round_.game]:
            allowed = sorted(flow.RESULT_EVENTS[round_.game])
            raise FloorRefused(action, [f"{event!r} is not a result here; these are: {allowed}"])
        refusals = device_gates.result_refusals(round_, event, payload, by)
        if refusals:
            raise FloorRefused(action, refusals)
        payload = _with_generator_number(round_, event, payload)
        if round_.status == Round.Status.OPEN:
            _close(round_, by=by, now=now, source=source)
        # § 625a.7(b): with the illumination device down the round is still settled, and
        # then gaming at the table ceases until the device is fixed.
        unlit = round_.game == "sic_bo" and device_gates.illumination_down(round_.table)
        _, state = _event_record(
            round_, event, payload, action, by=by, now=now, source=source,
            cite=device_gates.ILLUMINATION_DOWN if unlit else "",
        )  # fmt: skip
        if _ends_round(round_, event, state):
            round_.status, round_.result_at = Round.Status.RESULT_ENTERED, now
            round_.save(update_fields=["status", "result_at"])
            request = SettlementRequest.objects.create(
                round=round_, created_at=now, sent_at=now, sends=1
            )
            transaction.on_commit(lambda: requests_send([request.pk]), robust=True)
            if unlit:
                table_suspend_by_rule(round_.table, now=now)
        return round_


def generator_number_post(
    round_: Round, number: object, *, by: Any, now: datetime, source: str = Source.DEVICE
) -> Round:
    """The Pai Gow generator's number for this round (§ 621a.6(a)(1)): "no more bets", then
    the number, which the dealer's deal from the stacks then uses (§ 621a.6(b), (c))."""
    permission_check(by, RUN, "post a starting number")
    action = f"The generator's number at {round_}"
    source = _source(by, source)
    with transaction.atomic():
        round_ = _locked(round_)
        reasons = []
        if round_.game != "pai_gow":
            reasons.append(f"{round_} is not a Pai Gow round")
        elif round_.status not in (Round.Status.OPEN, Round.Status.CLOSED):
            reasons.append(f"{round_} is {round_.get_status_display().lower()}")
        elif not device_gates.is_device(by) or by.kind != "pai_gow_rng":
            reasons.append("the number is posted by the table's random number generator")
        elif by.table_id != round_.table_id:
            reasons.append(f"{by} serves {by.table.number}, not {round_.table.number}")
        elif by.status != by.Status.ACTIVE:
            reasons.append(f"{by} is {by.get_status_display().lower()}: its number is not taken")
        elif round_.events.filter(event__in=("rng_number", "deal")).exists():
            reasons.append("this round's starting position is already given")
        elif isinstance(number, bool) or not isinstance(number, int) or number < 1:
            reasons.append("the number must be a whole number from 1 (§ 621a.6(c))")
        if reasons:
            raise FloorRefused(action, reasons)
        if round_.status == Round.Status.OPEN:
            _close(round_, by=by, now=now, source=source)
        _append(round_, "rng_number", number, by, now, source, device_gates.STARTING_POSITION)
        return round_


def _with_generator_number(round_: Round, event: str, payload: object) -> object:
    """A Pai Gow deal from the stacks, given neither dice nor a number, takes the number
    the generator posted for the round."""
    if round_.game != "pai_gow" or event != "deal" or not isinstance(payload, Mapping):
        return payload
    if "stacks" not in payload or "dice" in payload or "rng" in payload:
        return payload
    number = device_gates.generator_number(round_)
    return payload if number is None else {**payload, "rng": number}


def no_roll(round_: Round, *, by: Any, now: datetime, source: str = Source.DEALER) -> Round:
    """A "no roll": in Sic Bo every wager is returned (§ 625a.7(a)); elsewhere the throw does
    not count and the dice are thrown again, no wager touched (§ 623a.8(b), § 661a.5(b),
    § 675a.4(b), § 621a.10(a))."""
    if round_.game in flow.NO_ROLL_IN_ENGINE:
        return result_enter(round_, "no_roll", True, by=by, now=now, source=source)
    permission_check(by, RUN, 'call "no roll"')
    action = f'"No roll" at {round_}'
    with transaction.atomic():
        round_ = _locked(round_)
        if round_.status not in (Round.Status.OPEN, Round.Status.CLOSED):
            raise FloorRefused(action, [f"{round_} is {round_.get_status_display().lower()}"])
        if round_.status == Round.Status.OPEN:
            _close(round_, by=by, now=now, source=source)
        _append(round_, "no_roll", True, by, now, source, flow.NO_ROLL_RETHROW[round_.game])
        return round_


def round_void(
    round_: Round, section: str, *, by: Any, now: datetime, source: str = Source.DEALER
) -> Round:
    """Void the round and return every wager, under the section that says so
    (§ 625a.7(c): the automated Sic Bo shaker fails; § 621a.10(c), (e): Pai Gow)."""
    voids = flow.VOIDS.get(round_.game, {})
    if section not in voids:
        allowed = ", ".join(f"§ {s}" for s in voids) or "none"
        raise FloorRefused(
            f"Voiding {round_}", [f"§ {section} voids no {round_.game} round; here: {allowed}"]
        )
    event, payload = voids[section]
    return result_enter(round_, event, payload, by=by, now=now, source=source)


# --- helpers --------------------------------------------------------------------------------


def _locked(round_: Round) -> Round:
    return Round.objects.select_for_update().select_related("table").get(pk=round_.pk)


def acting_person(by: Any) -> Any:
    """The person who acted, or None (a device acts in its own name: RoundEvent.device)."""
    if device_gates.is_device(by):
        return None
    return by if getattr(by, "pk", None) is not None else None


def _source(by: Any, source: str) -> str:
    return Source.DEVICE if device_gates.is_device(by) else source


def _wagering_check(round_: Round, action: str) -> None:
    reasons = []
    if round_.status != Round.Status.OPEN:
        reasons.append(f"{round_} is {round_.get_status_display().lower()}: no wager is taken")
    if round_.table.status != Table.Status.OPEN:
        reasons.append(f"{round_.table.number} is {round_.table.get_status_display().lower()}")
    if reasons:
        raise FloorRefused(action, reasons)


def _close(round_: Round, *, by: Any, now: datetime, source: str) -> None:
    _append(round_, "no_more_bets", True, by, now, source, "")
    round_.status, round_.closed_at = Round.Status.CLOSED, now
    round_.save(update_fields=["status", "closed_at"])


def _event_record(
    round_: Round,
    event: str,
    payload: object,
    action: str,
    *,
    by: Any,
    now: datetime,
    source: str,
    cite: str = "",
) -> tuple[RoundEvent, Any]:
    """Step the engine; refuse with its words, or record the event (and give the state)."""
    current = in_play(round_)
    try:
        state, outcome = current.engine.step(current.options, current.state, event, payload)
    except MalformedInput as error:
        raise FloorRefused(action, [str(error)]) from None
    if outcome.rejected:
        raise FloorRefused(action, [_rejection_text(r) for r in outcome.rejected])
    return _append(round_, event, payload, by, now, source, cite), state


def _rejection_text(rejection: Rejection) -> str:
    text = f"{rejection.wager}: {rejection.error}" if rejection.wager else rejection.error
    return f"{text} ({rejection.cite})" if rejection.cite else text


def _append(
    round_: Round, event: str, payload: object, by: Any, now: datetime, source: str, cite: str
) -> RoundEvent:
    last = round_.events.aggregate(last=Max("seq"))["last"] or 0
    return RoundEvent.objects.create(
        round=round_,
        seq=last + 1,
        event=event,
        payload=payload,
        source=source,
        entered_by=acting_person(by),
        device=by if device_gates.is_device(by) else None,
        at=now,
        cite=cite,
    )


def _ends_round(round_: Round, event: str, state: Any) -> bool:
    if event not in flow.ENDS_ROUND[round_.game]:
        return False
    if round_.game in flow.THROW_BY_THROW:
        return True
    engine = engine_get(round_.game)
    round_over = getattr(engine, "round_over", None)  # an engine that knows better says so
    return round_over(state) if round_over else not engine.open_wagers(state)
