"""Settling a round: the worker's one transaction.

The request row is locked with SKIP LOCKED, so a second worker handed the same round at
once passes it by, and a request already settled is a no-op: a task delivered twice
settles once. Resolutions (one per wager: a one-to-one), the ledger entry (a unique key),
the round's status and the request's `settled_at` are written together or not at all.

On PostgreSQL a settlement is two statements and the commit, each built once from the
models (never by the ORM per settlement): the request locked with its round, the round
before it, the round's events and its wagers (`_locked_with_reads`: the rows made into
instances through the ORM's own converters, the events and wagers as JSON text), and
every row written (`_written_at_once`), each table's rows handed over as one JSON array.

The "round settled" webhook (webhooks/) is an event row written in the same transaction:
on PostgreSQL the lock's statement also says whether any endpoint of the table's holder
wants it, and the write's statement inserts it only then (no statement of its own, no
row when nobody listens); elsewhere `event_record` asks and writes it.

A settlement that fails is recorded on its request in a transaction of its own
(`request_failure_record`): the request is then an alert, and neither the worker nor the
sweep takes it again until a person sends it again from the admin.
"""

import json
import logging
import uuid
from collections import namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any

from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Sum
from django.utils import timezone

from casino import metrics
from casino.floor_cache import FLOOR
from casino.logs import log_context
from casino.rows import read_columns, rows_made
from games import flow
from games.models import (
    LedgerEntry,
    LedgerLine,
    Resolution,
    Round,
    RoundEvent,
    SettlementRequest,
    Wager,
)
from games.models.outbox import ERROR_LENGTH
from games.replay import Played, rules_hash, state_dumps
from games.services.alerts import alert_record
from games.services.ledger import (
    Posting,
    decision_postings,
    entry_insert,
    house_side,
    line_rows,
    lines_of,
    one_statement,
    rows_json,
)
from games.services.round_state import in_play
from webhooks.events import ROUND_SETTLED
from webhooks.services import event_insert_sql, event_record, fan_out_on_commit, subscribed_sql

Account = LedgerLine.Account
Kind = SettlementRequest.FailureKind
ZERO = Decimal("0.00")
log = logging.getLogger(__name__)


class SettlementError(Exception):
    """The round cannot be settled as recorded (never retried: a person looks at it)."""


def round_settle(request_id: int, *, worker: str = "", now: datetime | None = None) -> str:
    """Settle the round of this request once; say what happened."""
    with transaction.atomic():
        # One query: the request locked, its round and the round it continues read with it
        # (only the request is locked: once a result is entered, nothing but its settlement
        # writes the round, and that is behind the request's lock).
        if one_statement():  # the round's events and wagers read in the same statement
            request = _locked_with_reads(request_id)
        else:
            request = (
                SettlementRequest.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("round__previous")
                .filter(pk=request_id)
                .first()
            )
        if request is None:
            exists = SettlementRequest.objects.filter(pk=request_id).exists()
            return "busy: another worker holds it" if exists else "no such request"
        if request.settled_at is not None:
            return "already settled"
        if request.failures:
            # An alert: settling it again would fail again. A person sends it again.
            return "failed before: waiting for a person to send it again"
        round_ = request.round
        log_context(table=round_.table_id, round=round_.pk)
        if round_.status != Round.Status.RESULT_ENTERED:
            raise SettlementError(f"{round_} is {round_.status}, not awaiting settlement")
        now = now or timezone.now()
        round_.read_with_lock = _read(request, round_)
        _settled_write(round_, request, _settle(round_, now), now=now, worker=worker)
        metrics.on_commit(_settled_count(round_.game, (now - request.created_at).total_seconds()))
        return "settled"


def _settled_count(game: str, seconds: float) -> Callable[[], None]:
    def count() -> None:
        metrics.ROUNDS_SETTLED.labels(game).inc()
        metrics.RESULT_TO_SETTLED.labels(game).observe(max(0.0, seconds))

    return count


def failure_kind(error: BaseException) -> str:
    """What kind of failure this error is, for the operator's guidance."""
    if isinstance(error, SettlementError):
        return Kind.REFUSED
    if isinstance(error, IntegrityError):
        return Kind.INTEGRITY
    if isinstance(error, (OperationalError, InterfaceError)):
        return Kind.SERVICES
    return Kind.OTHER


def error_text(error: BaseException) -> str:
    """The error's class and message, within SettlementRequest.error's length."""
    text = f"{type(error).__name__}: {error}".strip()
    return text if len(text) <= ERROR_LENGTH else text[: ERROR_LENGTH - 1] + "\u2026"


def request_failure_record(
    request_id: int,
    error: BaseException,
    *,
    kind: str | None = None,
    now: datetime | None = None,
) -> SettlementRequest | None:
    """Record that settling this request failed, in a transaction of its own (the
    settlement's has rolled back); None if it is settled meanwhile or does not exist.
    `kind` is the error's own (`failure_kind`) unless the caller knows better."""
    now = now or timezone.now()
    with transaction.atomic():
        request = (
            SettlementRequest.objects.select_for_update()
            .filter(pk=request_id, settled_at__isnull=True)
            .first()
        )
        if request is None:
            return None
        request.failures += 1
        request.failure_kind = kind or failure_kind(error)
        request.error = error_text(error)
        request.first_failed_at = request.first_failed_at or now
        request.last_failed_at = now
        request.save(
            update_fields=["failures", "failure_kind", "error", "first_failed_at", "last_failed_at"]
        )
        alert_record(request, now)  # the settlement.alert webhook, with the failure's record
    metrics.SETTLEMENT_FAILURES.labels(request.failure_kind).inc()
    log.error("settlement request %s failed (an alert now): %s", request_id, request.error)
    return request


# A resolution's columns, in the order of the rows `_settle` builds (the round's aside).
RESOLUTION_COLUMNS = (
    "wager_id",
    "event_id",
    "result",
    "net",
    "stake",
    "winnings",
    "payout_limit_reduction",
    "vigorish",
    "cite",
    "extra",
)


@dataclass(frozen=True)
class Settled:
    """What settling a round writes: its resolutions (rows of RESOLUTION_COLUMNS), its
    ledger postings, and the engine state it leaves."""

    resolutions: list[tuple]
    postings: list[Posting]
    state: Any


# A wager's columns that settling needs (no model instance).
WagerRow = namedtuple("WagerRow", "pk ref player kind amount")


@dataclass(frozen=True)
class Read:
    """The round's events in order and its own wagers, read with the request's lock."""

    events: list[RoundEvent]
    wagers: dict[str, WagerRow]


def _locked_with_reads(request_id: int) -> SettlementRequest | None:
    """PostgreSQL: the request locked (SKIP LOCKED), with its round and the round before it,
    and the round's events and wagers as JSON text (`events_read`, `wagers_read`), in one
    statement built once; the rows made instances as the ORM makes them (the same fields,
    through the same converters), without building the query each time."""
    sql = _lock_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [request_id])
        row = cursor.fetchone()
    if row is None:
        return None
    made, rest = rows_made(LOCK_READS, row)
    request, round_, previous = made
    round_.previous = previous
    request.round = round_
    request.events_read, request.wagers_read, round_.settled_wanted = rest
    return request


# The lock's rows, in its columns' order: the request, its round and the round before it.
LOCK_READS = (SettlementRequest, Round, Round)


@cache
def _lock_sql() -> str:
    # Built once from the models' tables and columns (never per settlement).
    quote = connection.ops.quote_name

    def column(model: type, name: str) -> str:
        return quote(model._meta.get_field(name).column)

    def of_round(model: type, alias: str) -> str:
        table, request_round = quote(model._meta.db_table), column(SettlementRequest, "round")
        return f" FROM {table} {alias} WHERE {alias}.{column(model, 'round')} = q.{request_round})"

    event = ", ".join(f"e.{column(RoundEvent, name)}" for name in ("id", "seq", "event", "payload"))
    wager = ", ".join(
        f"w.{column(Wager, name)}" for name in ("id", "ref", "player", "kind", "table")
    )
    selected = read_columns(list(zip(("q", "r", "p"), LOCK_READS, strict=True)))
    rounds = quote(Round._meta.db_table)
    sql = (
        f"SELECT {selected},"
        f" (SELECT json_agg(json_build_array({event}) ORDER BY e.{column(RoundEvent, 'seq')})::text"
        f"{of_round(RoundEvent, 'e')},"
        f" (SELECT json_agg(json_build_array({wager}, w.{column(Wager, 'amount')}::text))::text"
        f"{of_round(Wager, 'w')},"
        f" {subscribed_sql(ROUND_SETTLED, 'r.' + column(Round, 'table'))}"
        f" FROM {quote(SettlementRequest._meta.db_table)} q"
        f" JOIN {rounds} r ON r.{column(Round, 'id')} = q.{column(SettlementRequest, 'round')}"
        f" LEFT JOIN {rounds} p ON p.{column(Round, 'id')} = r.{column(Round, 'previous')}"
        f" WHERE q.{column(SettlementRequest, 'id')} = %s FOR UPDATE OF q SKIP LOCKED"
    )
    return sql


def _read(request: SettlementRequest, round_: Round) -> Read | None:
    """What the lock's statement read with it (PostgreSQL), None where it read nothing."""
    if not hasattr(request, "events_read"):
        return None
    events = [
        RoundEvent(pk=pk, round_id=round_.pk, seq=seq, event=event, payload=payload)
        for pk, seq, event, payload in json.loads(request.events_read or "[]")
    ]
    wagers = {
        ref: WagerRow(pk, ref, player, kind, Decimal(amount))
        for pk, ref, player, kind, table_id, amount in json.loads(request.wagers_read or "[]")
        if table_id == round_.table_id
    }
    return Read(events, wagers)


def _wagers_found(round_: Round, refs: set[str], read: Read | None) -> dict[str, WagerRow]:
    """The wagers settled, by ref: the round's own as read with the lock, and any other
    (an earlier round's, still on the layout) read now; refs are unique at a table."""
    found = {ref: read.wagers[ref] for ref in refs if ref in read.wagers} if read else {}
    missing = refs - found.keys()
    if missing:
        rows = Wager.objects.filter(table_id=round_.table_id, ref__in=missing).order_by()
        found.update(
            (row.ref, row)
            for row in map(
                WagerRow._make, rows.values_list("pk", "ref", "player", "kind", "amount")
            )
        )
    return found


def _settle(round_: Round, now: datetime) -> Settled:
    """The round's events played again, and what their decisions write (the events and
    wagers the lock read with the round, `read_with_lock`, where it read them)."""
    read = getattr(round_, "read_with_lock", None)
    current = in_play(round_, events=read.events if read else None)
    played = current.played
    _no_rejection_check(round_, played)
    event_by_seq = {e.seq: e for e in current.events}
    decided = [(p, r) for p in played for r in p.outcome.resolutions]
    reduced = [(p, item) for p in played for item in p.outcome.extra.get("reduced", ())]
    refs = {r.wager for _, r in decided} | {item["wager"] for _, item in reduced}
    wagers = _wagers_found(round_, refs, read)
    on_layout = (
        _on_layout(wagers.values())
        if round_.game in flow.STAKES_REDUCED
        else {w.pk: w.amount for w in wagers.values()}
    )

    postings: list[Posting] = []
    for _, item in reduced:  # § 623a.4(d): a don't bet reduced; the difference comes back
        wager, amount = wagers[item["wager"]], Decimal(item["amount"])
        postings.append(
            Posting(
                Account.LAYOUT,
                Account.PLAYER,
                on_layout[wager.pk] - amount,
                LedgerLine.Kind.STAKE_REDUCED,
                wager.player,
                wager.pk,
            )
        )
        on_layout[wager.pk] = amount
    resolutions = []
    for step, decision in decided:
        wager = wagers[decision.wager]
        stake = on_layout[wager.pk]
        vigorish = _money(decision.extra.get("vig"))
        reduction = _money(decision.extra.get("payout_limit_reduction"))
        winnings = max(house_side(decision.net, vigorish, reduction), ZERO)
        resolutions.append(
            (
                wager.pk,
                event_by_seq[step.seq].pk,
                decision.result,
                decision.net,
                stake,
                winnings,
                reduction,
                vigorish,
                decision.cite,
                dict(decision.extra),
            )
        )
        postings += decision_postings(
            wager.player,
            wager.pk,
            decision.net,
            stake,
            vigorish,
            reduction,
            wager.kind in flow.FEE_KINDS,
        )
    return Settled(resolutions, postings, current.state)


def _settled_write(
    round_: Round, request: SettlementRequest, settled: Settled, *, now: datetime, worker: str
) -> None:
    """The resolutions, the ledger entry and its lines, the round settled with the state it
    leaves, and the request marked: on PostgreSQL in one statement, elsewhere by the ORM."""
    entry = LedgerEntry(
        key=f"settlement:{round_.pk}",
        kind=LedgerEntry.Kind.SETTLEMENT,
        table_id=round_.table_id,
        round=round_,
        posted_at=now,
        posted_by=None,
    )
    round_.status, round_.settled_at = Round.Status.SETTLED, now
    round_.rules_hash = rules_hash(round_.game)
    round_.state_after = state_dumps(settled.state)
    request.settled_at, request.settled_by = now, worker[:200]
    if one_statement():
        lines = line_rows(settled.postings)
        wanted = getattr(round_, "settled_wanted", False)
        event_id = _written_at_once(round_, request, settled.resolutions, entry, lines, wanted)
        FLOOR.changed()  # no save() sent a signal: the floor shows the round settled at once
        if event_id is not None:
            fan_out_on_commit(event_id)
        return
    event_record(ROUND_SETTLED, table=round_.table, data={"round": round_.pk}, now=now)
    Resolution.objects.bulk_create(
        Resolution(round=round_, **dict(zip(RESOLUTION_COLUMNS, row, strict=True)))
        for row in settled.resolutions
    )
    entry.save()
    LedgerLine.objects.bulk_create(lines_of(entry, settled.postings))
    round_.save(update_fields=ROUND_SETTLED_FIELDS)
    request.save(update_fields=REQUEST_SETTLED)


ROUND_SETTLED_FIELDS = ("status", "settled_at", "rules_hash", "state_after")
REQUEST_SETTLED = ("settled_at", "settled_by")


def _written_at_once(
    round_: Round,
    request: SettlementRequest,
    resolutions: list[tuple],
    entry: LedgerEntry,
    lines: list[tuple],
    settled_wanted: bool = False,
) -> int | None:
    """Every row of the settlement in one PostgreSQL statement: the ledger entry and its
    lines, the resolutions, the round and the request (one round trip where the ORM's
    inserts and saves take five; the same rows, under the same constraints), and the
    "round settled" event when an endpoint wants it: its id, else None."""
    ledger_sql, ledger_params = entry_insert(entry, lines)
    round_sql, resolved_sql = _settled_sql()
    params = [getattr(round_, name) for name in ROUND_SETTLED_FIELDS] + [round_.pk]
    params += [getattr(request, name) for name in REQUEST_SETTLED] + [request.pk]
    params += ledger_params
    event_sql, returned = "", "NULL"
    if settled_wanted:
        event_sql = f" {event_insert_sql(ROUND_SETTLED)},"
        returned = "(SELECT id FROM recorded)"
        data = json.dumps({"round": round_.pk})
        params += [uuid.uuid4(), round_.settled_at, data, round_.table_id]
    params += [round_.pk, rows_json(RESOLUTION_COLUMNS, resolutions)]
    with connection.cursor() as cursor:
        # The round's and the request's updates first: a statement's text as PostgreSQL
        # shows it (pg_stat_activity, the locks it waits on) begins with what it locks.
        cursor.execute(
            f"WITH {round_sql}, {ledger_sql},{event_sql} {resolved_sql}"
            f" SELECT (SELECT id FROM entry), {returned}",
            params,
        )
        entry.pk, event_id = cursor.fetchone()
    entry._state.adding, entry._state.db = False, connection.alias
    return event_id


@cache
def _settled_sql() -> tuple[str, str]:
    # Built once from the models' tables and columns (never per settlement).
    quote = connection.ops.quote_name

    def column(model: type, name: str) -> str:
        return quote(model._meta.get_field(name.removesuffix("_id")).column)

    def sets(model: type, names: Sequence[str]) -> str:
        return ", ".join(f"{column(model, name)} = %s" for name in names)

    table = quote(Resolution._meta.db_table)
    names = [column(Resolution, name) for name in RESOLUTION_COLUMNS]
    updates = (
        f"round_settled AS (UPDATE {quote(Round._meta.db_table)}"
        f" SET {sets(Round, ROUND_SETTLED_FIELDS)} WHERE id = %s),"
        f" request_settled AS (UPDATE {quote(SettlementRequest._meta.db_table)}"
        f" SET {sets(SettlementRequest, REQUEST_SETTLED)} WHERE id = %s)"
    )
    resolved = (
        f"resolved AS (INSERT INTO {table} ({column(Resolution, 'round')}, {', '.join(names)})"
        f" SELECT %s, {', '.join(f'r.{name}' for name in names)}"
        f" FROM json_populate_recordset(NULL::{table}, %s) AS r)"
    )
    return updates, resolved


def _no_rejection_check(round_: Round, played: Sequence[Played]) -> None:
    for p in played:
        if p.outcome.rejected:
            first = p.outcome.rejected[0]
            raise SettlementError(
                f"{round_} event #{p.seq} ({p.event}) is refused on replay: {first.error}"
            )


def _on_layout(wagers) -> dict[int, Decimal]:
    """Each wager's stake on the layout now: placed, less what earlier reductions returned."""
    ids = [w.pk for w in wagers]
    sums = (
        LedgerLine.objects.filter(wager_id__in=ids, account=Account.LAYOUT)
        .values("wager_id")
        .annotate(total=Sum("amount"))
    )
    found = {row["wager_id"]: row["total"] for row in sums}
    return {pk: found.get(pk, ZERO) for pk in ids}


def _money(value: object) -> Decimal:
    return Decimal(str(value)) if value not in (None, "") else ZERO
