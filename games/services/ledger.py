"""Postings to the double-entry ledger: what each kind of event moves, from where, to where.

Every posting is a pair of lines of equal and opposite amount, so every entry sums to
zero by construction; an adjusting entry's free-form lines are checked to.
"""

import json
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any, NamedTuple

from django.db import connection, models, transaction

from casino.audit import audit_created
from casino.rules.text import PLAYER_NAME_MAX_LENGTH, shown_name
from casino.services.errors import FloorRefused, by_actor, permission_check
from games.models import LedgerEntry, LedgerLine, Round, RoundEvent, Wager

Account = LedgerLine.Account
Kind = LedgerLine.Kind
ZERO = Decimal("0.00")
ADJUST = "games.adjust_ledger"
# A line's own columns, in the order of the rows `line_rows` gives.
LINE_COLUMNS = ("account", "player", "wager_id", "kind", "amount")


class Posting(NamedTuple):
    """`amount` moves from one account to another (a player's, when `player` is set);
    `wager_id` names the wager it is for, if any. A tuple: a settlement makes six a wager
    (a third of a frozen dataclass's cost)."""

    source: str
    target: str
    amount: Decimal
    kind: str
    player: str = ""
    wager_id: int | None = None


def line_rows(postings: Iterable[Posting]) -> list[tuple[str, str, int | None, str, Decimal]]:
    """The two lines of each posting with an amount (a zero moves nothing), as
    (account, player, wager_id, kind, amount): the player only on a player's line."""
    rows = []
    for p in postings:
        if p.amount == 0:
            continue
        player = p.player if p.source == Account.PLAYER else ""
        rows.append((p.source, player, p.wager_id, p.kind, -p.amount))
        player = p.player if p.target == Account.PLAYER else ""
        rows.append((p.target, player, p.wager_id, p.kind, p.amount))
    return rows


def lines_of(entry: LedgerEntry, postings: Iterable[Posting]) -> list[LedgerLine]:
    """The lines of these postings as unsaved rows of `entry`."""
    table_id = entry.table_id
    return [
        LedgerLine(entry=entry, table_id=table_id, **dict(zip(LINE_COLUMNS, row, strict=True)))
        for row in line_rows(postings)
    ]


def entry_post(
    *,
    key: str,
    kind: str,
    round_: Round,
    postings: Iterable[Posting],
    by: Any,
    now: datetime,
    memo: str = "",
) -> LedgerEntry:
    """One entry and its lines; the unique key refuses the same posting twice. On
    PostgreSQL one statement writes them all (`entry_insert`)."""
    entry = LedgerEntry(
        key=key,
        kind=kind,
        table_id=round_.table_id,
        round=round_,
        posted_at=now,
        posted_by=by,
        memo=memo,
    )
    if not one_statement():
        entry.save()
        LedgerLine.objects.bulk_create(lines_of(entry, postings))
        return entry
    sql, params = entry_insert(entry, line_rows(postings))
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {sql} SELECT id FROM entry", params)
        entry.pk = cursor.fetchone()[0]
    entry._state.adding, entry._state.db = False, connection.alias
    return entry


def entry_insert(
    entry: LedgerEntry, lines: Sequence[tuple[str, str, int | None, str, Decimal]]
) -> tuple[str, list[Any]]:
    """`entry AS (INSERT ... RETURNING id), entry_lines AS (INSERT ...)` and its
    parameters: an unsaved entry and its `line_rows`, as WITH clauses of one PostgreSQL
    statement (`entry` holds the new id)."""
    params = [*_entry_values(entry), entry.table_id, rows_json(LINE_COLUMNS, lines)]
    return f"{_entry_clause()}, {_lines_clause()}", params


def _entry_values(entry: LedgerEntry) -> list[Any]:
    """The values of `_entry_clause`'s parameters, in its columns' order."""
    return [getattr(entry, name) for name in ENTRY_COLUMNS]


ENTRY_COLUMNS = ("key", "kind", "table_id", "round_id", "posted_at", "posted_by_id", "memo")


def rows_json(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows as a JSON array of objects for `json_populate_recordset`: one parameter for a
    set of rows, dumped in C. Amounts go as strings, read back by PostgreSQL exactly."""
    return json.dumps(
        [
            {c: str(v) if isinstance(v, Decimal) else v for c, v in zip(columns, row, strict=True)}
            for row in rows
        ]
    )


@cache
def _entry_clause() -> str:
    # Built once from the models' own tables and columns (never per insert).
    entry_table, entry_columns = _columns(LedgerEntry, ENTRY_COLUMNS)
    return (
        f"entry AS (INSERT INTO {entry_table} ({', '.join(entry_columns)})"
        f" VALUES ({', '.join(['%s'] * len(entry_columns))}) RETURNING id)"
    )


@cache
def _lines_clause() -> str:
    line_table, line_columns = _columns(LedgerLine, ("entry", "table", *LINE_COLUMNS))
    picked = ", ".join(f"line.{column}" for column in line_columns[2:])
    return (
        f"entry_lines AS (INSERT INTO {line_table} ({', '.join(line_columns)})"
        f" SELECT entry.id, %s, {picked}"
        f" FROM entry, json_populate_recordset(NULL::{line_table}, %s) AS line)"
    )


def _columns(model: type[models.Model], names: Sequence[str]) -> tuple[str, list[str]]:
    """The model's table and these fields' columns, quoted."""
    quote = connection.ops.quote_name
    fields = [model._meta.get_field(name.removesuffix("_id")) for name in names]
    return quote(model._meta.db_table), [quote(field.column) for field in fields]


def one_statement() -> bool:
    """Whether a write's rows go in one statement: on PostgreSQL (data-modifying WITH
    clauses); SQLite has none, so there the ORM writes them."""
    return connection.vendor == "postgresql"


def placement_post(
    round_: Round, wagers: Sequence[Wager], event: RoundEvent, *, by: Any, now: datetime
) -> LedgerEntry:
    """The wagers saved, and their entry: each stake moves from the player to the layout,
    where it is at risk. On PostgreSQL the wagers, the entry and its lines go in one
    statement (`_placed_at_once`); elsewhere the ORM writes them."""
    if one_statement():
        return _placed_at_once(round_, wagers, event, by=by, now=now)
    Wager.objects.bulk_create(wagers)
    return entry_post(
        key=_placement_key(round_, event),
        kind=LedgerEntry.Kind.PLACEMENT,
        round_=round_,
        postings=_stakes(wagers),
        by=by,
        now=now,
    )


def _placement_key(round_: Round, event: RoundEvent) -> str:
    return f"placement:{round_.pk}:{event.seq}"


def _stakes(wagers: Sequence[Wager]) -> list[Posting]:
    return [
        Posting(Account.PLAYER, Account.LAYOUT, w.amount, Kind.STAKE, w.player, w.pk)
        for w in wagers
    ]


def _placed_at_once(
    round_: Round, wagers: Sequence[Wager], event: RoundEvent, *, by: Any, now: datetime
) -> LedgerEntry:
    """The wagers, the placement entry and its lines in one PostgreSQL statement (one round
    trip where the ORM's bulk insert and the entry's took two, and no ORM building an
    insert): each line finds its wager's new id by the wager's ref, unique at the table."""
    entry = LedgerEntry(
        key=_placement_key(round_, event),
        kind=LedgerEntry.Kind.PLACEMENT,
        table_id=round_.table_id,
        round=round_,
        posted_at=now,
        posted_by=by,
    )
    placed = [
        (
            w.round_id,
            w.table_id,
            w.ref,
            w.player,
            w.kind,
            w.amount,
            w.extra,
            w.placed_at.isoformat(),
        )
        for w in wagers
    ]
    # Each wager's lines, the wager named by its ref (its id is not known yet).
    lines = [
        (account, player, w.ref, kind, amount)
        for w in wagers
        for account, player, _, kind, amount in line_rows(_stakes([w]))
    ]
    params = [rows_json(WAGER_COLUMNS, placed), *_entry_values(entry), round_.table_id]
    with connection.cursor() as cursor:
        cursor.execute(_placed_sql(), [*params, rows_json(REF_LINE_COLUMNS, lines)])
        entry_id, ids = cursor.fetchone()
    made = dict(json.loads(ids))
    for w in wagers:
        w.pk = made[w.ref]
        w._state.adding, w._state.db = False, connection.alias
    entry.pk = entry_id
    entry._state.adding, entry._state.db = False, connection.alias
    return entry


WAGER_COLUMNS = ("round_id", "table_id", "ref", "player", "kind", "amount", "extra", "placed_at")
# A placement line as `_placed_sql` reads it: its wager named by ref.
REF_LINE_COLUMNS = ("account", "player", "ref", "kind", "amount")


@cache
def _placed_sql() -> str:
    # Built once from the models' own tables and columns (never per wager).
    wager_table, wager_columns = _columns(Wager, WAGER_COLUMNS)
    line_table, line_columns = _columns(LedgerLine, ("entry", "table", *LINE_COLUMNS))
    _, (ref,) = _columns(Wager, ("ref",))
    return (
        f"WITH placed AS (INSERT INTO {wager_table} ({', '.join(wager_columns)})"
        f" SELECT {', '.join(f'w.{column}' for column in wager_columns)}"
        f" FROM json_populate_recordset(NULL::{wager_table}, %s) AS w RETURNING id, {ref}),"
        f" {_entry_clause()},"
        f" placement_lines AS (INSERT INTO {line_table} ({', '.join(line_columns)})"
        " SELECT entry.id, %s, line.account, line.player, placed.id, line.kind, line.amount"
        " FROM entry, ROWS FROM (json_to_recordset(%s)"
        " AS (account text, player text, ref text, kind text, amount numeric))"
        " WITH ORDINALITY AS line(account, player, ref, kind, amount, n)"
        # In the given order: the lines' ids follow it, as the ORM's bulk insert's do.
        f" JOIN placed ON placed.{ref} = line.ref ORDER BY line.n)"
        f" SELECT entry.id, (SELECT json_agg(json_build_array({ref}, id)) FROM placed)::text"
        " FROM entry"
    )


def house_side(net: Decimal, vigorish: Decimal, reduction: Decimal) -> Decimal:
    """What the house pays (positive: the winnings at the posted odds) or takes (negative)
    for a decided wager, before the vigorish and any payout limit reduction."""
    return net + vigorish + reduction


def decision_postings(
    player: str,
    wager_id: int,
    net: Decimal,
    stake: Decimal,
    vigorish: Decimal,
    reduction: Decimal,
    fee_kind: bool,
) -> list[Posting]:
    """What a decided wager moves. The house's side is `net + vigorish + reduction`: paid
    from the inventory when positive, taken from the stake (and beyond it: a player bank
    can lose more than its wager, § 621a.9(o)) when negative. The vigorish goes to fees,
    a payout limit reduction back to the inventory. The player's lines for the wager, with
    its placement and any stake reduction, add up to the engine's `net` exactly."""

    def move(source: str, target: str, amount: Decimal, kind: str) -> Posting:
        return Posting(source, target, amount, kind, player, wager_id)

    if fee_kind:  # the Extra Roll purchase is spent, never at risk (§ 675a.2(e)(3))
        return [move(Account.LAYOUT, Account.FEES, stake, Kind.EXTRA_ROLL)]
    house = house_side(net, vigorish, reduction)
    lost = max(-house, ZERO)
    return [
        move(Account.LAYOUT, Account.INVENTORY, min(stake, lost), Kind.STAKE_LOST),
        move(Account.PLAYER, Account.INVENTORY, max(lost - stake, ZERO), Kind.STAKE_LOST),
        move(Account.LAYOUT, Account.PLAYER, stake - min(stake, lost), Kind.STAKE_RETURNED),
        move(Account.INVENTORY, Account.PLAYER, max(house, ZERO), Kind.WINNINGS),
        move(Account.PLAYER, Account.INVENTORY, reduction, Kind.PAYOUT_LIMIT_REDUCTION),
        move(Account.PLAYER, Account.FEES, vigorish, Kind.VIGORISH),
    ]


@by_actor
def adjustment_post(
    round_: Round,
    lines: Sequence[tuple[str, str, Decimal]],
    *,
    memo: str,
    by: Any,
    now: datetime,
) -> LedgerEntry:
    """A correction to a settled round: a new entry of (account, player, amount) lines that
    sum to zero, with its reason; never an edit of what was posted."""
    permission_check(by, ADJUST, "post an adjusting entry")
    round_ = Round.objects.select_related("table").get(pk=round_.pk)  # as it is now
    action = f"Adjusting {round_}"
    reasons = []
    if round_.status != Round.Status.SETTLED:
        reasons.append(f"{round_} is {round_.get_status_display().lower()}, not settled")
    if not memo.strip():
        reasons.append("an adjusting entry says why (memo)")
    if len(lines) < 2:
        reasons.append("an adjusting entry has at least two lines")
    parsed = []
    for index, line in enumerate(lines):
        try:
            account, player, amount = line
            amount = Decimal(str(amount))
        except Exception:
            reasons.append(f"lines[{index}] must be (account, player, amount)")
            continue
        if account not in Account.values:
            reasons.append(f"lines[{index}]: {account!r} is not an account: {Account.values}")
        if (account == Account.PLAYER) != bool(player):
            reasons.append(f"lines[{index}]: a player line, and only a player line, names one")
        elif player:
            # The same names as the wagers': nothing hidden (casino/rules/text.py).
            where = f"lines[{index}].player"
            player, refused = shown_name(str(player), where, PLAYER_NAME_MAX_LENGTH)
            reasons += refused
        if not amount.is_finite() or amount == 0 or amount != amount.quantize(Decimal("0.01")):
            reasons.append(f"lines[{index}]: {amount} is not a non-zero amount in cents")
        parsed.append((account, player, amount))
    if not reasons and sum(a for _, _, a in parsed) != 0:
        reasons.append(f"the lines sum to {sum(a for _, _, a in parsed)}, not zero")
    if reasons:
        raise FloorRefused(action, reasons)
    with transaction.atomic():
        entry = LedgerEntry.objects.create(
            key=f"adjustment:{round_.pk}:{uuid.uuid4().hex}",
            kind=LedgerEntry.Kind.ADJUSTMENT,
            table_id=round_.table_id,
            round=round_,
            posted_at=now,
            posted_by=by if getattr(by, "pk", None) else None,
            memo=memo.strip(),
        )
        LedgerLine.objects.bulk_create(
            LedgerLine(
                entry=entry,
                table_id=round_.table_id,
                account=account,
                player=player,
                kind=Kind.ADJUSTMENT,
                amount=amount,
            )
            for account, player, amount in parsed
        )
        audit_created(
            entry, lines=[f"{a}:{p} {amt:+}" if p else f"{a} {amt:+}" for a, p, amt in parsed]
        )
        return entry
