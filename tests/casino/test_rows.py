"""Rows through SQL built once a model (casino/rows.py): the same row as `save()` writes
and a queryset reads, field for field, on SQLite and PostgreSQL alike."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from casino.models import ApiWrite
from casino.rows import row_find, row_insert
from games.models import RoundEvent
from tests.casino.floor_fixtures import T0, operations
from tests.games.round_fixtures import open_table, opened

pytestmark = pytest.mark.django_db


def fields(row) -> dict[str, object]:
    return {f.attname: getattr(row, f.attname) for f in row._meta.concrete_fields}


def a_write(key: str | None, **changes) -> ApiWrite:
    values = dict(
        at=T0 + timedelta(microseconds=123456),
        user=operations(),
        token=None,
        method="POST",
        path="/api/v1/rounds/7/wagers/",
        body={"wagers": [{"player": "Zoë", "amount": "25.00", "on": [1, 2]}]},
        idempotency_key=key,
        fingerprint="f" * 64,
        status_code=201,
        response={"round": {"id": 7}, "wagers": [], "note": None},
    )
    return ApiWrite(**{**values, **changes})


def test_an_inserted_row_is_what_save_writes():
    mine, theirs = a_write("k-1"), a_write("k-2")
    assert row_insert(mine) is True
    theirs.save()
    assert isinstance(mine.pk, int) and mine.pk != theirs.pk and not mine._state.adding
    read_mine, read_theirs = ApiWrite.objects.get(pk=mine.pk), ApiWrite.objects.get(pk=theirs.pk)
    expected = {**fields(read_theirs), "id": mine.pk, "idempotency_key": "k-1"}
    assert fields(read_mine) == expected
    assert read_mine.body["wagers"][0]["player"] == "Zoë"
    assert read_mine.at == T0 + timedelta(microseconds=123456)


def test_a_found_row_is_what_the_queryset_reads():
    row = a_write("k-3", body=None)
    row_insert(row)
    found = row_find(ApiWrite, user_id=row.user_id, idempotency_key="k-3")
    assert fields(found) == fields(ApiWrite.objects.get(pk=row.pk))
    assert found.body is None and found.response["round"] == {"id": 7}
    assert row_find(ApiWrite, user_id=row.user_id, idempotency_key="k-4") is None


def test_a_unique_key_taken_is_an_integrity_error_as_save_raises():
    row_insert(a_write("k-5"))
    with pytest.raises(IntegrityError), transaction.atomic():
        row_insert(a_write("k-5"))
    assert ApiWrite.objects.filter(idempotency_key="k-5").count() == 1


def test_a_conflict_skipped_writes_nothing_and_says_so():
    round_ = opened(open_table("sic_bo"))

    def event(payload) -> RoundEvent:
        return RoundEvent(round=round_, seq=1, event="wagers", payload=payload, at=T0)

    first = event([{"id": "1.1", "amount": "10.00"}])
    assert row_insert(first, skip_conflict=True) is True
    assert row_insert(event([{"id": "other"}]), skip_conflict=True) is False
    [kept] = RoundEvent.objects.filter(round=round_)
    assert kept.pk == first.pk and kept.payload == [{"id": "1.1", "amount": "10.00"}]
    assert Decimal(kept.payload[0]["amount"]) == Decimal("10.00")
