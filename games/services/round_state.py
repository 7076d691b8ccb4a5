"""A round's engine state: where its recorded events lead (replayed: `in_play`), the
state it started in and the state after it (`state_in`, `state_after`); and the open
round as it stands: its engine state after its last event, that event's seq and
the wagers taken, kept in the shared cache so a request need not replay the round.

The events are the record; this is only a cache of where they lead, and it is trusted
only when it matches the record. The round's row is locked with the seq of its last event
and the count of its wagers read in the same statement (`round_locked`); an entry is used
when its seq is that seq, and is otherwise rebuilt from the events. An entry is written
once its transaction has committed, so it is never ahead of the record; one left behind
(the cache was down, or a process died between the commit and the write) does not match
and is rebuilt. A cache that cannot be reached costs a replay, never a wrong answer.
"""

import logging
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import Count, IntegerField, Max, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from games.models import Round, RoundEvent, Wager
from games.replay import Played, play, rules_hash, state_dumps, state_loads
from games.rules.core.engine import Engine
from games.rules.registry import engine_get

log = logging.getLogger(__name__)

# A round's state stays in the cache a day at most: an open round is played in minutes.
KEEP_SECONDS = 24 * 60 * 60


@dataclass(frozen=True)
class InPlay:
    """A round's engine and options, its recorded events, what each engine event did, and
    the state they lead to."""

    engine: Engine
    options: Any
    events: list[RoundEvent]
    played: list[Played]
    state: Any


def in_play(round_: Round, *, events: list[RoundEvent] | None = None) -> InPlay:
    """Play the round's recorded events from the state it started in (the one path the web
    process, the settlement worker and the demo dealer share); `events`, the round's events
    in order when the caller read them already (the settlement reads them with its lock)."""
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    if events is None:
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


@dataclass(frozen=True)
class Now:
    """The round as it stands: its engine and options, the state after its last event,
    that event's seq (0: none yet) and the number of wagers taken."""

    engine: Engine
    options: Any
    state: Any
    seq: int
    wagers: int


def round_locked(round_: Round, *, rows: QuerySet[Round] | None = None) -> Round:
    """The round locked for this transaction, with its table, the seq of its last event
    (`last_seq`) and its wagers' count (`wagers_taken`), in one statement. A round locked
    already in this transaction is returned as it is; `rows` bounds where it is looked
    for (Round.DoesNotExist outside them)."""
    if _locked_here(round_):
        return round_
    rows = Round.objects.all() if rows is None else rows
    last_seq = (
        RoundEvent.objects.filter(round=OuterRef("pk"))
        .order_by()
        .values("round")
        .annotate(last=Max("seq"))
        .values("last")
    )
    wagers = (
        Wager.objects.filter(round=OuterRef("pk"))
        .order_by()
        .values("round")
        .annotate(n=Count("pk"))
        .values("n")
    )
    locked = (
        rows.select_for_update()
        .select_related("table")
        .annotate(
            last_seq=Coalesce(Subquery(last_seq), Value(0), output_field=IntegerField()),
            wagers_taken=Coalesce(Subquery(wagers), Value(0), output_field=IntegerField()),
        )
        .get(pk=round_.pk)
    )
    locked._locked_in = _transaction()
    return locked


def _transaction() -> object | None:
    """The outermost atomic block of this connection's transaction (None outside one)."""
    blocks = connection.atomic_blocks if connection.in_atomic_block else []
    return blocks[0] if blocks else None


def _locked_here(round_: Round) -> bool:
    marker = getattr(round_, "_locked_in", None)
    return marker is not None and marker is _transaction()


def round_now(round_: Round) -> Now:
    """Where the round's recorded events lead (a locked round: see the module's doc)."""
    known = getattr(round_, "_now", None)
    if known is not None and _locked_here(round_):
        return known
    if not _locked_here(round_):
        round_ = round_locked(round_)
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    found = _cached(round_, engine, options)
    if found is None:
        found = _rebuilt(round_, engine, options)
        _keep_on_commit(round_, found)
    round_._now = found
    return found


def now_moved(round_: Round, *, state: Any = None, wagers: int = 0) -> Now:
    """The round after one more event (`state`: the engine's, None if it did not change),
    remembered for this transaction and written to the cache once it commits."""
    before = round_now(round_)
    after = replace(
        before,
        state=before.state if state is None else state,
        seq=before.seq + 1,
        wagers=before.wagers + wagers,
    )
    round_._now = after
    _keep_on_commit(round_, after)
    return after


def _key(round_: Round) -> str:
    # The database's name: two databases sharing one Redis never share an entry.
    database = settings.DATABASES[DEFAULT_DB_ALIAS]["NAME"]
    opened = round_.opened_at.timestamp()
    return (
        f"round-now:{database}:{round_.pk}:{round_.table_id}:{opened}:"
        f"{rules_hash(round_.game)[:16]}"
    )


def _cached(round_: Round, engine: Engine, options: Any) -> Now | None:
    try:
        entry = cache.get(_key(round_))
    except Exception as error:  # the cache is down: the record answers
        log.warning("round state cache unreadable: %s", error)
        return None
    if not entry or entry.get("seq") != round_.last_seq:
        return None
    try:
        state = state_loads(entry["state"])
    except Exception:  # written by another engine version
        return None
    return Now(engine, options, state, entry["seq"], round_.wagers_taken)


def _rebuilt(round_: Round, engine: Engine, options: Any) -> Now:
    events = _triples(round_.events.order_by("seq"))
    state, _ = play(engine, options, state_in(round_), events)
    return Now(engine, options, state, round_.last_seq, round_.wagers_taken)


def _keep_on_commit(round_: Round, now: Now) -> None:
    """Write the round's state to the cache once this transaction commits (one callback
    per transaction, whatever the rounds and events: the last state of each is kept)."""
    marker = _transaction()
    pending = _pending.get(marker)
    if pending is None:
        _pending.clear()  # a rolled-back transaction's, never to be written
        pending = _pending[marker] = {}
        transaction.on_commit(lambda: _keep(_pending.pop(marker, {})))
    pending[_key(round_)] = now


# Per connection's transaction (the outermost atomic block): cache key -> the state to keep.
_pending: dict[object, dict[str, Now]] = {}


def _keep(states: dict[str, Now]) -> None:
    try:
        cache.set_many(
            {key: {"seq": now.seq, "state": state_dumps(now.state)} for key, now in states.items()},
            KEEP_SECONDS,
        )
    except Exception as error:  # the next request rebuilds it
        log.warning("round state cache not written: %s", error)
