"""A ledger entry's lines in the API: an entry carries every line (`lines`, as the schema
always said: an integrator reconciles by summing them) and how many it has; the same
lines are at /ledger-lines/, in pages, by entry, by round, by table (issue 33, part 5: a
round of 5,000 wagers posts a settlement of some 20,000 lines)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.apis import LedgerLineSerializer
from games.models import LedgerEntry, LedgerLine
from tests.api.conftest import API, bearer, error_of, new_key, post, session

pytestmark = pytest.mark.django_db


def placed_60(api_floor) -> LedgerEntry:
    """60 wagers in one request at A's open round: a placement entry of 120 lines."""
    wagers = [{"player": f"p{n}", "kind": "small", "amount": "5.00"} for n in range(60)]
    ops = session(api_floor.operations)
    path = f"{API}/rounds/{api_floor.a.round2.pk}/wagers/"
    assert post(ops, path, {"wagers": wagers}, key=new_key()).status_code == 201
    return LedgerEntry.objects.filter(round=api_floor.a.round2, kind="placement").latest("id")


def test_an_entry_carries_every_line_as_the_lines_list_shows_it_and_they_balance(api_floor):
    """A placement of 60 wagers is 120 lines: the entry carries all 120 (it carried only the
    first 100 for a while, and its lines no longer summed to zero), each exactly as
    LedgerLineSerializer shows a line, by id."""
    entry = placed_60(api_floor)
    token = bearer(api_floor.a.key)
    answered = token.get(f"{API}/ledger-entries/{entry.pk}/").json()
    lines = entry.lines.order_by("id")
    assert answered["line_count"] == len(answered["lines"]) == 120
    assert answered["lines"] == [LedgerLineSerializer(line).data for line in lines]
    assert sum(Decimal(line["amount"]) for line in answered["lines"]) == 0
    # In a list too, beside an entry of 2 lines (bob's one wager), each whole and balanced.
    listed = token.get(f"{API}/ledger-entries/", {"round": api_floor.a.round2.pk}).json()
    counts = {row["id"]: (row["line_count"], len(row["lines"])) for row in listed["results"]}
    assert counts[entry.pk] == (120, 120)
    assert sorted(counts.values()) == [(2, 2), (120, 120)]
    for row in listed["results"]:
        assert sum(Decimal(line["amount"]) for line in row["lines"]) == 0


def test_every_line_is_read_in_pages_by_entry_and_by_round(api_floor):
    entry = placed_60(api_floor)
    token = bearer(api_floor.a.key)
    pages, path = [], f"{API}/ledger-lines/?entry={entry.pk}&page_size=50"
    while path:
        page = token.get(path).json()
        pages.append(page["results"])
        path = page["next"]
    lines = [line for page in pages for line in page]
    assert [len(page) for page in pages] == [50, 50, 20]
    assert [line["id"] for line in lines] == list(
        entry.lines.order_by("id").values_list("id", flat=True)
    )
    assert {line["entry"] for line in lines} == {entry.pk}
    assert sum(Decimal(line["amount"]) for line in lines) == 0
    by_round = token.get(f"{API}/ledger-lines/", {"round": api_floor.a.round2.pk}).json()
    assert by_round["count"] == LedgerLine.objects.filter(entry__round=api_floor.a.round2).count()
    assert by_round["count"] == 122


def test_another_holder_s_lines_are_not_the_token_s(api_floor):
    entry = placed_60(api_floor)
    other = bearer(api_floor.b.key)
    # Refused as an entry that exists nowhere is: the answer never tells it exists.
    refused = other.get(f"{API}/ledger-lines/", {"entry": entry.pk})
    assert error_of(refused, 400, "invalid")["fields"] == {
        "entry": ["Select a valid choice. That choice is not one of the available choices."]
    }
    assert other.get(f"{API}/ledger-lines/{entry.lines.first().pk}/").status_code == 404


def test_a_page_of_entries_reads_every_line_in_one_query_whatever_it_holds(api_floor):
    """Every entry's lines in one query of plain rows (games/apis.py `lines_attach`): the
    page of a round's entries costs as many queries with 122 lines as with 2."""
    token = bearer(api_floor.a.key)

    def queries_of_the_page() -> int:
        with CaptureQueriesContext(connection) as queries:
            answer = token.get(f"{API}/ledger-entries/", {"round": api_floor.a.round2.pk})
        assert answer.status_code == 200
        return sum("ledger" in q["sql"] for q in queries.captured_queries)

    before = queries_of_the_page()
    placed_60(api_floor)
    placed_60(api_floor)
    assert queries_of_the_page() == before
