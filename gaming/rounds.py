"""The round flow: open, wagers, events, "no more bets", the result, a no roll, a void.

Every action checks permission and its gates (the table's, gaming/tables.py; its
devices', devices/gates.py), validates through the engine against the options in force
when the round opened, and either records its event (games/services/rounds.py) or
raises FloorRefused with the engine's own words, changing nothing. The event that ends
a round writes the settlement request in the same transaction (the outbox); a worker
settles it.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

from casino import metrics
from casino.actors import acting_person, is_device
from casino.models import Table
from casino.rules.text import PLAYER_NAME_MAX_LENGTH, shown_name
from casino.services.errors import FloorInvalid, FloorRefused, permission_check
from casino.services.tables import rules_in_force, table_options_in_force, table_suspend_by_rule
from devices import gates as device_gates
from devices import rules as device_rules
from games import flow
from games.models import Round, RoundEvent, SettlementRequest, Wager
from games.rules.core import MalformedInput, cite
from games.rules.core.engine import Engine
from games.rules.core.money import amount_given
from games.services import ledger
from games.services.outbox import requests_send
from games.services.round_state import opened_keep, round_locked, round_now, state_checked
from games.services.rounds import (
    RUN,
    event_append,
    event_step,
    round_ends,
    wager_ref,
    wager_row,
    wagering_check,
    wagering_close,
    wagers_carried,
)
from gaming.tables import round_start_check

Source = RoundEvent.Source


# --- opening --------------------------------------------------------------------------------


def round_open(table: Table, *, by: Any, now: datetime) -> Round:
    """Start the next round when the table may start one (the gate of issue 6)."""
    permission_check(by, RUN, "open a round")
    with transaction.atomic():
        # Its layout is read after the lock, not joined to it: a join's rows are those from
        # before a wait for the lock.
        table = Table.objects.select_for_update().get(pk=table.pk)
        in_force = rules_in_force(table, now)  # read once for the gates and the round
        round_start_check(table, now, in_force)
        # Only the latest round can be in progress: none opens while one is (this check,
        # under the table's lock; the one_round_in_progress_per_table index), so one read
        # answers both questions.
        last = table.rounds.order_by("-number").first()
        if last is not None and last.status in Round.IN_PROGRESS:
            raise FloorRefused(
                f"Starting a round at {table.number}",
                [f"{last} is {last.get_status_display().lower()}"],
            )
        submission, options = table_options_in_force(table, now, in_force)
        if table.game == "sic_bo":
            # § 625a.5(b): the round's shaker is fixed as it opens (the waits and gates read it).
            options = device_gates.round_shaker(table, options)
        # The game carries on from the last round unless the table has closed since.
        carries = last is not None and flow.game_carries(table.closed_at, last.opened_at)
        metrics.on_commit(metrics.ROUNDS_OPENED.labels(table.game).inc)
        opened = Round.objects.create(
            table=table,
            number=last.number + 1 if last else 1,
            game=table.game,
            rules_submission=submission,
            options=options,
            previous=last if carries else None,
            opened_at=now,
            opened_by=acting_person(by),
        )
        opened_keep(opened, last=last)
        return opened


# --- wagering -------------------------------------------------------------------------------


def wagers_count_check(wagers: object, action: str) -> None:
    """FloorInvalid unless `wagers` is a list of 1 to CASINO_MAX_WAGERS_PER_REQUEST items:
    checked before anything is read or locked (the API calls it first, and so does
    wagers_place)."""
    if not isinstance(wagers, list) or not wagers:
        raise FloorInvalid(action, {"wagers": ["must be a non-empty list"]})
    most = settings.CASINO_MAX_WAGERS_PER_REQUEST
    if len(wagers) > most:
        raise FloorInvalid(
            action, {"wagers": [f"holds {len(wagers)} wagers; at most {most} in one request"]}
        )


@state_checked
def wagers_place(
    round_: Round,
    wagers: Sequence[Mapping[str, object]],
    *,
    by: Any,
    now: datetime,
    source: str = Source.DEALER,
) -> list[Wager]:
    """Take these wagers, all or none: each numbered ROUND.N and checked by the engine; at
    most CASINO_MAX_WAGERS_PER_REQUEST at once, and a round holds at most
    CASINO_MAX_WAGERS_PER_ROUND: those placed in it and those working on its layout from
    earlier throws (a Craps or Three Dice Football bet carried from round to round)."""
    permission_check(by, RUN, "place wagers")
    action = f"Wagers at {round_}"
    wagers_count_check(wagers, action)
    source = _source(by, source)
    with transaction.atomic():
        round_ = round_locked(round_)
        now_ = round_now(round_)
        taken = now_.wagers
        carried = wagers_carried(round_, now_.engine.open_wagers(now_.state))
        most = settings.CASINO_MAX_WAGERS_PER_ROUND
        if carried + taken + len(wagers) > most:
            held = f"{taken} wager" + ("" if taken == 1 else "s")
            if carried:
                held += f" and {carried} working from earlier throws,"
            raise FloorRefused(
                action,
                [f"{round_} has {held} and a round holds at most {most}: "
                 f"{len(wagers)} more would make {carried + taken + len(wagers)}"],
            )  # fmt: skip
        refusals = device_gates.extra_roll_refusals(round_, wagers, by, first=taken + 1)
        if refusals:
            raise FloorRefused(action, refusals)
        wagering_check(round_, action)
        rows = [
            wager_row(round_, wager, wager_ref(round_, taken + index + 1), index, now)
            for index, wager in enumerate(wagers)
        ]
        payload = [row.as_engine_wager() for row in rows]
        event, _ = event_step(
            round_, "wagers", payload, action, by=by, now=now, source=source, wagers=len(rows)
        )
        ledger.placement_post(round_, rows, event, by=acting_person(by), now=now)
        return rows


@state_checked
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
        round_ = round_locked(round_)
        if event not in flow.WAGERING_EVENTS[round_.game]:
            allowed = sorted(flow.WAGERING_EVENTS[round_.game])
            why = (
                f"{event!r} is a result, entered once wagering has closed, not a wagering event"
                if event in flow.RESULT_EVENTS[round_.game]
                else f"{event!r} is not a wagering event here"
            )
            raise FloorRefused(action, [f"{why}; the wagering events are: {allowed}"])
        wagering_check(round_, action)
        _amounts_check(round_.game, event, payload, action)
        if isinstance(payload, Mapping) and isinstance(payload.get("player"), str):
            # A name in an event (Pai Gow's bank) is shown like a wager's.
            where = f"{event}.player"
            player, refusals = shown_name(payload["player"], where, PLAYER_NAME_MAX_LENGTH)
            if refusals:
                raise FloorRefused(action, refusals)
            payload = {**payload, "player": player}
        event_step(round_, event, payload, action, by=by, now=now, source=source)
        return round_


@state_checked
def no_more_bets(round_: Round, *, by: Any, now: datetime, source: str = Source.DEALER) -> Round:
    """Wagering closes (§ 675a.4(a), § 621a.8, § 625a.4): no wager is taken after this."""
    permission_check(by, RUN, 'call "no more bets"')
    source = _source(by, source)
    with transaction.atomic():
        round_ = round_locked(round_)
        if round_.status != Round.Status.OPEN:
            raise FloorRefused(
                f'"No more bets" at {round_}',
                [f"{round_} is {round_.get_status_display().lower()}"],
            )
        wagering_close(round_, by=by, now=now, source=source)
        return round_


# --- the result -----------------------------------------------------------------------------


@state_checked
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
        round_ = round_locked(round_)
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
            wagering_close(round_, by=by, now=now, source=source)
        # § 625a.7(b): with the illumination device down the round is still settled, and
        # then gaming at the table ceases until the device is fixed.
        unlit = round_.game == "sic_bo" and device_gates.illumination_down(round_.table)
        cite = device_gates.ILLUMINATION_DOWN if unlit else ""
        if event == device_gates.SELECTED:
            cite = device_gates.POWER_ODDS  # the generator's selection, § 623b.5(c)
        _, state = event_step(
            round_, event, payload, action, by=by, now=now, source=source, cite=cite
        )
        if round_ends(round_, event, state):
            round_.status, round_.result_at = Round.Status.RESULT_ENTERED, now
            round_.save(update_fields=["status", "result_at"])
            request = SettlementRequest.objects.create(
                round=round_, created_at=now, sent_at=now, sends=1
            )
            transaction.on_commit(lambda: requests_send([request.pk]), robust=True)
            if unlit:
                table_suspend_by_rule(round_.table, now=now)
        return round_


@state_checked
def generator_number_post(
    round_: Round, number: object, *, by: Any, now: datetime, source: str = Source.DEVICE
) -> Round:
    """The Pai Gow generator's number for this round (§ 621a.6(a)(1)): "no more bets", then
    the number, which the dealer's deal from the stacks then uses (§ 621a.6(b), (c))."""
    permission_check(by, RUN, "post a starting number")
    action = f"The generator's number at {round_}"
    source = _source(by, source)
    with transaction.atomic():
        round_ = round_locked(round_)
        reasons = []
        if round_.game != "pai_gow":
            reasons.append(f"{round_} is not a Pai Gow round")
        elif not device_rules.rng_uses(round_.options):
            reasons.append(
                f"the Rules Submission gives the starting position at {round_.table.number} to "
                f"the Pai Gow shaker's dice ({cite('621a.6(a)(2)')}): no generator's number"
            )
        elif round_.status not in (Round.Status.OPEN, Round.Status.CLOSED):
            reasons.append(f"{round_} is {round_.get_status_display().lower()}")
        elif not is_device(by) or by.kind != "pai_gow_rng":
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
            wagering_close(round_, by=by, now=now, source=source)
        event_append(round_, "rng_number", number, by, now, source, device_gates.STARTING_POSITION)
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


@state_checked
def no_roll(round_: Round, *, by: Any, now: datetime, source: str = Source.DEALER) -> Round:
    """A "no roll": in Sic Bo every wager is returned (§ 625a.7(a)); elsewhere the throw does
    not count and the dice are thrown again, no wager touched (§ 623a.8(b), § 661a.5(b),
    § 675a.4(b), § 621a.10(a))."""
    if round_.game in flow.NO_ROLL_IN_ENGINE:
        return result_enter(round_, "no_roll", True, by=by, now=now, source=source)
    permission_check(by, RUN, 'call "no roll"')
    action = f'"No roll" at {round_}'
    with transaction.atomic():
        round_ = round_locked(round_)
        if round_.status not in (Round.Status.OPEN, Round.Status.CLOSED):
            raise FloorRefused(action, [f"{round_} is {round_.get_status_display().lower()}"])
        current = round_now(round_)
        refusals = no_roll_refusals(round_, current.engine, current.options, current.state)
        if refusals:
            raise FloorRefused(action, refusals)
        if round_.status == Round.Status.OPEN:
            wagering_close(round_, by=by, now=now, source=source)
        event_append(round_, "no_roll", True, by, now, source, flow.NO_ROLL_RETHROW[round_.game])
        return round_


def no_roll_refusals(
    round_: Round,
    engine: Engine,
    options: Any,
    state: Any,
    devices: device_gates.DevicesNow | None = None,
) -> list[str]:
    """Why a "no roll" that only has the dice thrown again is refused now (the engine's
    options and state: where the round stands): it comes before the result it re-throws,
    while the engine still takes that (flow.NO_ROLL_BEFORE: a Pai Gow deal, § 621a.10(a),
    (b)), and from dice the devices leave to the dealer (devices.gates.no_roll_refusals)."""
    before = flow.NO_ROLL_BEFORE.get(round_.game)
    if before is not None and before not in engine.events_now(options, state):
        return [flow.NO_ROLL_TOO_LATE[round_.game]]
    return device_gates.no_roll_refusals(round_, devices)


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


def _amounts_check(game: str, event: str, payload: object, action: str) -> None:
    """FloorInvalid naming each amount in the event that is no decimal string (the floor's
    one rule for amounts, games.rules.core.money.amount_given)."""
    wrong: dict[str, list[str]] = {}
    for where, value in flow.event_amounts(game, event, payload):
        try:
            amount_given(value, where)
        except MalformedInput as error:
            wrong[error.field] = [error.message]
    if wrong:
        raise FloorInvalid(action, wrong)


def _source(by: Any, source: str) -> str:
    return Source.DEVICE if is_device(by) else source
