"""A round opened by code from before Round.cache_token (an old web process during a
rolling deploy, docs/deploy.md) still goes in on PostgreSQL: the column has a database
default (games/migrations/0005), a fresh token each row, as the model's default gives."""

import uuid

import pytest
from django.db import connection

from games.models import Round
from tests.api.conftest import one_table_build
from tests.services import in_ci

pytestmark = pytest.mark.django_db


def test_an_insert_that_names_no_cache_token_gets_a_fresh_one():
    if connection.vendor != "postgresql":
        message = "the database default is PostgreSQL's (SQLite has no rolling deploy)"
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    built = one_table_build()
    first = built.round
    first.status = Round.Status.SETTLED
    first.save(update_fields=["status"])
    # The columns the code before 0004 wrote: everything but the id and the token.
    columns = [
        f.column
        for f in Round._meta.concrete_fields
        if f.column not in ("id", "cache_token", "number")
    ]
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.cursor() as cursor:
        for number in (first.number + 1, first.number + 2):
            cursor.execute(
                f"INSERT INTO games_round ({names}, number) SELECT {names}, %s"
                " FROM games_round WHERE id = %s",
                [number, first.pk],
            )
    tokens = list(
        Round.objects.filter(table=first.table)
        .order_by("number")
        .values_list("cache_token", flat=True)
    )
    assert len(tokens) == 3 and len(set(tokens)) == 3
    assert all(isinstance(token, uuid.UUID) for token in tokens)
