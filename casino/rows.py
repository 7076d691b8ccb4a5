"""Rows written and found through SQL built once a model, not on every call (issue 21).

The ORM builds an INSERT or a SELECT anew each time: on a wager, the event, the write's
record and the key's lookup cost more in building than in the database. These build the
same statement once from the model's own table and columns, and pass the values through
each field's own `get_db_prep_save` (writing) and the ORM's converters (reading), so a row
goes in and comes back as `save()` and a queryset would give it
(`tests/casino/test_rows.py` compares them). No model signal is sent: for rows no signal
watches (an event, a write's record), never for audited or cached models.
"""

from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

M = TypeVar("M", bound=models.Model)


@cache
def _insert_sql(model: type[models.Model], skip_conflict: bool) -> str:
    meta, quote = model._meta, connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in _written_fields(model))
    values = ", ".join(["%s"] * len(_written_fields(model)))
    conflict = " ON CONFLICT DO NOTHING" if skip_conflict else ""
    return (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({values}){conflict}"
        f" RETURNING {quote(meta.pk.column)}"
    )


@cache
def _written_fields(model: type[models.Model]) -> list[models.Field]:
    return [f for f in model._meta.concrete_fields if not f.primary_key]


def row_insert(row: models.Model, *, skip_conflict: bool = False) -> bool:
    """INSERT the unsaved `row` and give it its id; with `skip_conflict`, False (and
    nothing written) when a unique constraint already holds its values. An IntegrityError
    otherwise, as `save()` raises."""
    model = type(row)
    params = [f.get_db_prep_save(f.pre_save(row, True), connection) for f in _written_fields(model)]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model, skip_conflict), params)
        found = cursor.fetchone()
    if found is None:
        return False
    row.pk = found[0]
    row._state.adding, row._state.db = False, connection.alias
    return True


@cache
def read_fields(model: type[models.Model]) -> list[tuple[models.Field, Any, list]]:
    """Each concrete field, its column as the ORM's converters are handed it, and the
    converters (the backend's and the field's own), in the model's order."""
    fields = []
    for field in model._meta.concrete_fields:
        col = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(col) + field.get_db_converters(connection)
        fields.append((field, col, converters))
    return fields


def row_made(model: type[M], values: Sequence[Any]) -> M:
    """An instance from its columns' values as read (`read_fields`' order), through the
    same converters the ORM applies."""
    fields = read_fields(model)
    converted = []
    for value, (_, col, converters) in zip(values, fields, strict=True):
        for converter in converters:
            value = converter(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, [f.attname for f, _, _ in fields], converted)


def read_columns(aliased: Sequence[tuple[str, type[models.Model]]]) -> str:
    """The columns of each model under its alias, in `read_fields`' order: a joined
    SELECT whose row `rows_made` splits back into instances."""
    quote = connection.ops.quote_name
    return ", ".join(
        f"{alias}.{quote(f.column)}" for alias, model in aliased for f, _, _ in read_fields(model)
    )


def rows_made(
    kinds: Sequence[type[models.Model]], row: Sequence[Any]
) -> tuple[list[Any], Sequence[Any]]:
    """One instance of each model from a row of `read_columns` (None where its id is NULL:
    an outer join that found nothing), and the values after them."""
    made, start = [], 0
    for model in kinds:
        values = row[start : start + len(read_fields(model))]
        start += len(values)
        made.append(None if values[0] is None else row_made(model, values))
    return made, row[start:]


@cache
def _find_sql(model: type[models.Model], names: tuple[str, ...]) -> str:
    meta, quote = model._meta, connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f, _, _ in read_fields(model))
    where = " AND ".join(f"{quote(meta.get_field(name).column)} = %s" for name in names)
    return f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {where} LIMIT 1"


def row_find(model: type[M], **equal: Any) -> M | None:
    """The row whose columns equal these values (by attname: `user_id`), if any: for a
    lookup a unique constraint makes one row at most."""
    names = tuple(sorted(equal))
    fields = [model._meta.get_field(name) for name in names]
    params = [f.get_db_prep_value(equal[f.attname], connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(_find_sql(model, names), params)
        found = cursor.fetchone()
    return None if found is None else row_made(model, found)
