"""Placing wagers on PostgreSQL: the wagers, the placement entry and its lines in one
statement, the same rows as the ORM's (issue 21). Both writers place the same Sic Bo
wagers at two tables (a wager with `on`, amounts in cents) and every row is compared;
statement counts are asserted, never times."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import LedgerEntry, Round
from games.services import ledger
from tests.games.round_fixtures import books_balance_check, open_table, opened, place, wager
from tests.games.test_settlement_statements import postgres_only  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

WAGERS = (
    wager("ann", "big", "10.00"),
    wager("bob", "total:9", "5.25"),
    wager("ann", "triple:4", "6.50"),
    wager("carl", "single:3", "20"),
)


def placed(number: str) -> Round:
    round_ = opened(open_table("sic_bo", number=number, max_wager="1000"))
    rows = place(round_, *WAGERS)
    assert [w.pk for w in rows] == list(round_.wagers.order_by("id").values_list("id", flat=True))
    place(round_, wager("dave", "small", "7.00"))
    return round_


def written(round_: Round) -> dict[str, object]:
    """Every row placing wagers wrote, without ids (which differ between tables)."""
    wagers = round_.wagers.order_by("id")
    return {
        "wagers": [(w.ref, w.player, w.kind, w.amount, w.extra, w.placed_at) for w in wagers],
        "entries": [
            (e.key.rsplit(":", 1)[1], e.kind, e.posted_at, e.posted_by_id, e.memo)
            for e in LedgerEntry.objects.filter(round=round_).order_by("id")
        ],
        "lines": [
            (line.wager.ref, line.account, line.player, line.kind, line.amount, line.table_id)
            for e in LedgerEntry.objects.filter(round=round_).order_by("id")
            for line in e.lines.select_related("wager").order_by("id")
        ],
    }


def test_the_one_statement_places_the_rows_the_orm_places(monkeypatch):
    one = placed("SB-01")
    monkeypatch.setattr(ledger, "one_statement", lambda: False)
    orm = placed("SB-02")
    got, expected = written(one), written(orm)
    # The tables differ, so do the lines' table ids: compare each to its own table.
    assert {line[5] for line in got["lines"]} == {one.table_id}
    assert {line[5] for line in expected["lines"]} == {orm.table_id}
    strip = lambda rows: [row[:5] for row in rows]  # noqa: E731
    assert strip(got["lines"]) == strip(expected["lines"])
    assert got["wagers"] == expected["wagers"]
    assert got["entries"] == expected["entries"]
    # Each stake leaves the player for the layout: two lines a wager, by hand.
    assert strip(got["lines"])[:2] == [
        ("1.1", "player", "ann", "stake", Decimal("-10.00")),
        ("1.1", "layout", "", "stake", Decimal("10.00")),
    ]
    assert len(got["lines"]) == 2 * 5
    for round_ in (one, orm):
        books_balance_check(round_.table)


def test_a_placement_writes_in_one_statement_after_its_event():
    round_ = opened(open_table("sic_bo", max_wager="1000"))
    place(round_, wager("ann", "big", "10"))
    with CaptureQueriesContext(connection) as captured:
        place(round_, wager("bob", "small", "10"), wager("carl", "total:4", "5"))
    writes = [q["sql"] for q in captured if q["sql"].startswith(("INSERT", "WITH"))]
    assert len(writes) == 2, [sql[:80] for sql in writes]  # the event, then the rest
    assert writes[0].startswith('INSERT INTO "games_roundevent"')
    assert writes[1].startswith('WITH placed AS (INSERT INTO "games_wager"')
