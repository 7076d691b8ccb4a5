"""A round's engine state: where its recorded events lead (replayed: `in_play`), the
state it started in and the state after it (`state_in`, `state_after`); and the open
round as it stands: its engine state after its last event, that event's seq and the
wagers taken, kept in the shared cache so a request need not replay the round.

The events are the record; the cache only says where they lead, and is trusted only as far
as the record bears it out. An entry is written once its transaction has committed, so it
is never ahead of the record. One left behind (another process's write not yet in the
cache, the cache down, a process killed between its commit and the write) is found by the
next event: the seq it expects is taken (`event_insert`, INSERT ... ON CONFLICT DO
NOTHING), the action's transaction is rolled back, and the action is taken again with the
entry brought up to date by the events after it (`state_checked`). A cache that cannot be
reached costs a replay, never a wrong answer.
"""

import contextvars
import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connection, transaction

from casino.cache import newer_done, newer_set
from casino.models import Table
from casino.rows import read_columns, row_insert, rows_made
from games.models import Round, RoundEvent
from games.replay import Played, play, round_begun, rules_hash, state_dumps, state_loads
from games.rules.core.engine import Engine
from games.rules.registry import engine_get

log = logging.getLogger(__name__)
T = TypeVar("T")

# A round's entry stays in the cache a day at most while it is its table's latest round:
# an open round is played in minutes, and the floor reads a settled one until the table's
# next round opens. Then it is let go (`_let_go`): the cache holds a round a table, not a
# day of rounds.
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
    """The engine state the round started in: the previous round's as the next round finds
    it (`round_begun`), or a fresh table's."""
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    if round_.previous is not None:
        return round_begun(engine, options, state_after(round_.previous))
    return engine.new_state(options)


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
        state = engine.new_state(options) if state is None else round_begun(engine, options, state)
        events = member.events.order_by("seq")
        state, _ = play(engine, options, state, _triples(events))
    return state


def _triples(events) -> list[tuple[int, str, object]]:
    return [(e.seq, e.event, e.payload) for e in events]


Event = tuple[int, str, object]  # (seq, event, payload), as recorded


@dataclass(frozen=True)
class Now:
    """The round as it stands: its engine and options, the state after its last event,
    that event's seq (0: none yet) and the number of wagers taken."""

    engine: Engine
    options: Any
    state: Any
    seq: int
    wagers: int
    # Read from the cache and not yet borne out by the record: an event it refuses may
    # only be behind (`behind_check`).
    cached: bool = False
    # The cache entry it stands on: the seq of the state pickled under its own key, and
    # the events after it (`_keep`). None: no pickled state, the next write pickles one.
    base_seq: int | None = None
    tail: tuple[Event, ...] = ()


def round_locked(round_: Round) -> Round:
    """The round locked for this transaction, with its table, in one statement. A round
    locked already in this transaction is returned as it is."""
    return round_ if _locked_here(round_) else round_locked_at(round_.pk, None)


def round_locked_at(pk: int, holder_id: int | None) -> Round:
    """Round `pk` at one of `holder_id`'s tables (None: any), locked with its table, by SQL
    built once (the ORM built the join on every wager); Round.DoesNotExist when there is
    none. The API's lookup, scoped to the token's holder, and `round_locked`'s."""
    params = [pk] if holder_id is None else [pk, holder_id]
    with connection.cursor() as cursor:
        cursor.execute(_lock_at_sql(holder_id is not None), params)
        found = cursor.fetchone()
    if found is None:
        raise Round.DoesNotExist(f"no round {pk} here")
    (locked, table), _ = rows_made((Round, Table), found)
    locked.table = table
    locked._locked_in = _transaction()
    return locked


@functools.cache
def _lock_at_sql(scoped: bool) -> str:
    quote = connection.ops.quote_name
    selected = read_columns((("r", Round), ("t", Table)))
    table_id = quote(Round._meta.get_field("table").column)
    holder = f" AND t.{quote(Table._meta.get_field('holder').column)} = %s" if scoped else ""
    round_pk, table_pk = quote(Round._meta.pk.column), quote(Table._meta.pk.column)
    # FOR UPDATE locks the round and its table, as select_for_update with select_related
    # (SQLite has none: its write transaction holds the whole database).
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return (
        f"SELECT {selected} FROM {quote(Round._meta.db_table)} r"
        f" INNER JOIN {quote(Table._meta.db_table)} t ON t.{table_pk} = r.{table_id}"
        f" WHERE r.{round_pk} = %s{holder}{lock}"
    )


def _transaction() -> object | None:
    """The outermost atomic block of this connection's transaction (None outside one)."""
    blocks = connection.atomic_blocks if connection.in_atomic_block else []
    return blocks[0] if blocks else None


def _locked_here(round_: Round) -> bool:
    marker = getattr(round_, "_locked_in", None)
    return marker is not None and marker is _transaction()


def round_now(round_: Round) -> Now:
    """Where the round's recorded events lead (a round locked in this transaction): from
    the cache; or, while an action is taken again because the cache proved behind
    (`state_checked`), the cache's entry brought up to date with the events after it, or
    all the events without one."""
    known = getattr(round_, "_now", None)
    if known is not None and _locked_here(round_):
        return known
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    found = _cached(round_, engine, options)
    if found is None:
        found = _rebuilt(round_, engine, options)
        _keep_on_commit(round_, found)
    elif _rebuilding.get():
        found = _caught_up(round_, found)
        _keep_on_commit(round_, found)
    round_._now = found
    return found


class StateBehind(Exception):
    """The round's cached state was behind its record (an event took the seq it expected):
    nothing was written; the action is taken again from the record."""


def state_checked(action: Callable[..., T]) -> Callable[..., T]:
    """Decorate an action of the round flow: if the round's cached state proves behind
    (StateBehind: its transaction is rolled back, so nothing of it stays), take the action
    once more from the round's events."""

    @functools.wraps(action)
    def run(*args: Any, **kwargs: Any) -> T:
        try:
            return action(*args, **kwargs)
        except Exception as error:
            # Its savepoint rolled back what it did: the round's remembered state with it.
            for given in (*args, *kwargs.values()):
                if isinstance(given, Round):
                    given.__dict__.pop("_now", None)
            if not isinstance(error, StateBehind):
                raise
            token = _rebuilding.set(True)
            try:
                return action(*args, **kwargs)
            finally:
                _rebuilding.reset(token)

    return run


# Set while an action is taken again from the record: the cache is not read.
_rebuilding: contextvars.ContextVar[bool] = contextvars.ContextVar("rebuilding", default=False)


def behind_check(round_: Round, now: Now) -> None:
    """StateBehind if `now` came from the cache and the record holds events after it: an
    engine's refusal of the next event is then retried from the record, never answered."""
    if now.cached and round_.events.filter(seq__gt=now.seq).exists():
        raise StateBehind(f"round {round_.pk}: the cache is behind seq {now.seq}")


def event_insert(event: RoundEvent) -> None:
    """INSERT the event unless its seq is taken (StateBehind then, and nothing written): one
    statement, no savepoint, so a state cache left behind costs no error."""
    if not row_insert(event, skip_conflict=True):
        raise StateBehind(f"round {event.round_id}: seq {event.seq} is taken")


def now_moved(round_: Round, event: Event, *, state: Any = None, wagers: int = 0) -> Now:
    """The round after one more event, `event` (`state`: the engine's, None if it did not
    change), remembered for this transaction and written to the cache once it commits."""
    before = round_now(round_)
    after = replace(
        before,
        state=before.state if state is None else state,
        seq=before.seq + 1,
        wagers=before.wagers + wagers,
        cached=False,  # its event took the next seq: the record bears it out
        tail=(*before.tail, event),
    )
    round_._now = after
    _keep_on_commit(round_, after)
    return after


def opened_keep(round_: Round, *, last: Round | None = None) -> None:
    """A round just opened: its state (the table as its previous round left it, or a fresh
    table) into the cache once its transaction commits, at seq 0, so its first event and
    every read of it find the state there instead of replaying its predecessor; and the
    table's round before it, `last`, let go from the cache (`_let_go`)."""
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    _keep_on_commit(round_, Now(engine, options, state_in(round_), seq=0, wagers=0))
    if last is not None:
        transaction.on_commit(lambda: _let_go(last))


def _let_go(round_: Round) -> None:
    """The round's entry and its pickled state to expire in SUPERSEDED_SECONDS: its table
    has opened the next round, which starts from the row's `state_after` (`state_in`), and
    the floor reads the next one. A read after that finds no entry and asks the record."""
    key = _key(round_)
    _written.pop(key)
    try:  # after the commit: a cache that cannot be written never fails the request
        entry = cache.get(key)
        state_seq = entry.get("state_seq") if isinstance(entry, dict) else None
        kept = [] if state_seq is None else [_state_key(key, state_seq)]
        newer_done(key, SUPERSEDED_SECONDS, kept_with=kept)
    except Exception as error:  # it expires with KEEP_SECONDS instead
        log.warning("round state cache entry not let go: %s", error)


def _key(round_: Round) -> str:
    # The database's name and the round's own token: two databases sharing one Redis, or a
    # round that reuses an id, never share an entry.
    database = settings.DATABASES[DEFAULT_DB_ALIAS]["NAME"]
    return f"round-now:{database}:{round_.pk}:{round_.cache_token}:{rules_hash(round_.game)[:16]}"


def _cached(round_: Round, engine: Engine, options: Any) -> Now | None:
    """The round's entry: the seq of a state pickled under a key of its own and the events
    after it (`_keep`), played from this process's own last state of the round when the
    events after that are all in the entry (no state read, no unpickling), else from the
    pickled state."""
    return _cached_many([(round_, engine, options)]).get(round_.pk)


def _cached_many(rounds: Sequence[tuple[Round, Engine, Any]]) -> dict[int, Now]:
    """`_cached` for several rounds at once, by round pk: the entries in one read of the
    cache, the pickled states they need in a second (none when this process holds them)."""
    keys = {round_.pk: _key(round_) for round_, _, _ in rounds}
    starts: dict[int, tuple[Any, int]] = {}  # pk -> (state, its seq): this process's own
    wanted: dict[int, str] = {}  # pk -> the key of the pickled state to read
    try:
        entries = cache.get_many(list(keys.values()))
        for pk, key in keys.items():
            entry, mine = entries.get(key), _written.get(key)
            if not entry or "state_seq" not in entry:  # none, or written before the tail
                continue
            if mine is not None and entry["state_seq"] <= mine.seq <= entry["seq"]:
                # This process kept the same round at a seq the entry covers: the same
                # events, so the same (immutable) state, with only the entry's events after
                # it to play.
                starts[pk] = (mine.state, mine.seq)
            else:
                wanted[pk] = _state_key(key, entry["state_seq"])
        pickled = cache.get_many(list(wanted.values())) if wanted else {}
    except Exception as error:  # the cache is down: the record answers
        log.warning("round state cache unreadable: %s", error)
        return {}
    for pk, state_key in wanted.items():
        start = _loaded(pickled.get(state_key))
        if start is not None:
            starts[pk] = (start, entries[keys[pk]]["state_seq"])
    found: dict[int, Now] = {}
    for round_, engine, options in rounds:
        if round_.pk not in starts:
            continue
        start, since = starts[round_.pk]
        entry = entries[keys[round_.pk]]
        seq, tail = entry["seq"], entry["tail"]
        events = [event for event in tail if event[0] > since]
        if [event[0] for event in events] != list(range(since + 1, seq + 1)):
            continue  # not a whole run of events: the record answers
        try:
            state, _ = play(engine, options, start, events)
        except Exception as error:  # an entry no engine plays: the record answers
            log.warning("round state cache entry not played: %r", error)
            continue
        found[round_.pk] = Now(
            engine, options, state, seq, entry["wagers"], True, entry["state_seq"], tail
        )
    return found


def states_read(
    rounds: Sequence[Round], *, cache_first: bool = False
) -> dict[int, tuple[Engine, Any, Any]]:
    """Each round's engine, options and state after its last recorded event, to show it
    (nothing locked, nothing written), by round pk: a round this transaction moved, as it
    moved it (its write is not in the cache until it commits); a settled round's from its
    row (`state_after`); one in progress from the cache, else from its events.

    `cache_first`: the rounds were read without their rows' states (the floor reads
    values): a settled round's comes from the cache too (its entry is kept while it is its
    table's latest round), and only those the cache lacks are read from their rows, in one
    query."""
    read: dict[int, tuple[Engine, Any, Any]] = {}
    from_cache = []
    from_row = []
    for round_ in rounds:
        known = getattr(round_, "_now", None)
        if known is not None and _locked_here(round_):
            read[round_.pk] = (known.engine, known.options, known.state)
            continue
        engine = engine_get(round_.game)
        options = engine.parse_options(round_.options)
        settled = round_.status == Round.Status.SETTLED
        if settled and not cache_first:
            read[round_.pk] = (engine, options, state_after(round_))
        else:
            from_cache.append((round_, engine, options))
    cached = _cached_many(from_cache) if from_cache else {}
    replayed = []
    for round_, engine, options in from_cache:
        now = cached.get(round_.pk)
        if now is not None:
            read[round_.pk] = (engine, options, now.state)
        elif round_.status == Round.Status.SETTLED:
            from_row.append((round_, engine, options))
        else:
            replayed.append((round_, engine, options))
    if from_row:
        rows = Round.objects.in_bulk([round_.pk for round_, _, _ in from_row])
        for round_, engine, options in from_row:
            read[round_.pk] = (engine, options, state_after(rows[round_.pk]))
    if replayed:
        read.update(_replayed(replayed))
    return read


def _replayed(rounds: Sequence[tuple[Round, Engine, Any]]) -> dict[int, tuple[Engine, Any, Any]]:
    """The rounds' states from their events, as `_rebuilt` plays one, for several rounds in
    two queries: their events, and the rounds they continue (whose states start them)."""
    events: dict[int, list[Event]] = {}
    recorded = RoundEvent.objects.filter(round_id__in=[r.pk for r, _, _ in rounds])
    for round_id, *event in recorded.order_by("round_id", "seq").values_list(
        "round_id", "seq", "event", "payload"
    ):
        events.setdefault(round_id, []).append(tuple(event))  # type: ignore[arg-type]
    previous = Round.objects.in_bulk([r.previous_id for r, _, _ in rounds if r.previous_id])
    read = {}
    for round_, engine, options in rounds:
        if round_.previous_id is not None:
            round_.previous = previous[round_.previous_id]  # state_in reads it
        state, _ = play(engine, options, state_in(round_), events.get(round_.pk, []))
        read[round_.pk] = (engine, options, state)
    return read


def _loaded(pickled: bytes | None) -> Any:
    try:
        return None if pickled is None else state_loads(pickled)
    except Exception:  # written by another engine version
        return None


def _state_key(key: str, seq: int) -> str:
    # A pickled state never changes under its key: an entry names the one it stands on.
    return f"{key}:state:{seq}"


def _caught_up(round_: Round, known: Now) -> Now:
    """`known` (an entry never ahead of the record) with the events recorded after it played
    through the engine: a request that waited behind others replays theirs only."""
    events = _triples(round_.events.filter(seq__gt=known.seq).order_by("seq"))
    state, _ = play(known.engine, known.options, known.state, events)
    # A "wagers" event places its payload's wagers, one Wager row each (gaming.rounds).
    placed = sum(len(payload) for _, event, payload in events if event == "wagers")
    last = events[-1][0] if events else known.seq
    return replace(
        known,
        state=state,
        seq=last,
        wagers=known.wagers + placed,
        cached=False,
        tail=(*known.tail, *events),
    )


def _rebuilt(round_: Round, engine: Engine, options: Any) -> Now:
    """Every event of the round, from the state it started in (no entry in the cache)."""
    return _caught_up(round_, Now(engine, options, state_in(round_), seq=0, wagers=0))


def _keep_on_commit(round_: Round, now: Now) -> None:
    """Write the round's state to the cache once this transaction commits. One callback a
    state: Django drops those of a savepoint rolled back, so a state nothing committed is
    never written; of the rest, the last of each round wins."""
    key = _key(round_)
    transaction.on_commit(lambda: _keep({key: now}))


WRITTEN_MAX = 512
WRITTEN_SECONDS = 120.0


class _Written:
    """The states this process wrote last, by cache key, without their entries' pickled
    states: those written in the last WRITTEN_SECONDS, WRITTEN_MAX at most, the oldest
    forgotten first. A round's next write usually comes within a round's length; one
    forgotten costs that write a read of its pickled state. Kept by age, not until full:
    a round ends in whichever process opens its table's next round (`_let_go`), so the
    others would hold its state until WRITTEN_MAX, tens of MB a web process (the soak in
    bench/README.md)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._states: OrderedDict[str, tuple[float, Now]] = OrderedDict()
        self._lock = threading.Lock()  # a gthread worker's threads share it
        self._clock = clock

    def get(self, key: str) -> Now | None:
        with self._lock:
            kept = self._states.get(key)
        if kept is None or self._clock() - kept[0] > WRITTEN_SECONDS:
            return None
        return kept[1]

    def put(self, key: str, now: Now) -> None:
        with self._lock:
            at = self._clock()
            self._states[key] = (at, now)
            self._states.move_to_end(key)
            while self._states:
                oldest, (written_at, _) = next(iter(self._states.items()))
                if len(self._states) <= WRITTEN_MAX and at - written_at <= WRITTEN_SECONDS:
                    break
                del self._states[oldest]

    def pop(self, key: str) -> None:
        with self._lock:
            self._states.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        with self._lock:
            return len(self._states)


_written = _Written()
# An entry's events after its pickled state, at most: a wager pickles the state (which
# grows with the round's wagers) once in this many events, not on every one.
TAIL_MAX = 16
SUPERSEDED_SECONDS = 60


def _keep(states: dict[str, Now]) -> None:
    """Write each state's entry (and its pickled state when it takes a new one) unless the
    cache holds that round at a later seq already (casino.cache.newer_set): two commits'
    writes landing out of order leave the later, so a read never goes back to an older
    state than the cache has shown."""
    for key, now in states.items():
        pickled: dict[str, Any] = {}
        superseded = None
        try:  # after the commit: a cache that cannot be written never fails the request
            if now.base_seq is None or len(now.tail) > TAIL_MAX:
                pickled[_state_key(key, now.seq)] = state_dumps(now.state)
                if now.base_seq is not None and now.base_seq != now.seq:
                    superseded = _state_key(key, now.base_seq)
                now = replace(now, base_seq=now.seq, tail=())
            entry = {
                "seq": now.seq,
                "wagers": now.wagers,
                "state_seq": now.base_seq,
                "tail": now.tail,
            }
            _written.put(key, replace(now, tail=()))
            kept = newer_set(key, now.seq, entry, KEEP_SECONDS, kept_with=pickled)
            if kept and superseded is not None:
                # Not kept a day beside the new one (each is the whole state): a reader that
                # has just read an entry naming it still finds it for a while.
                cache.touch(superseded, SUPERSEDED_SECONDS)
        except Exception as error:  # the next request rebuilds it
            _written.pop(key)
            log.warning("round state cache not written: %s", error)
