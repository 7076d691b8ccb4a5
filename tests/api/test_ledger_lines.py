"""A ledger entry's lines in the API, bounded (issue 33, part 5): an entry carries its first
100 lines and how many it has; every line is at /ledger-lines/, in pages, by entry, by
round, by table. A round of 5,000 wagers posts a settlement of 20,000 lines: one page of
entries used to carry them all."""

from decimal import Decimal

import pytest

from games.apis import LINES_NESTED
from games.models import LedgerEntry, LedgerLine
from tests.api.conftest import API, bearer, new_key, post, session

pytestmark = pytest.mark.django_db


def placed_60(api_floor) -> LedgerEntry:
    """60 wagers in one request at A's open round: a placement entry of 120 lines."""
    wagers = [{"player": f"p{n}", "kind": "small", "amount": "5.00"} for n in range(60)]
    ops = session(api_floor.operations)
    path = f"{API}/rounds/{api_floor.a.round2.pk}/wagers/"
    assert post(ops, path, {"wagers": wagers}, key=new_key()).status_code == 201
    return LedgerEntry.objects.filter(round=api_floor.a.round2, kind="placement").latest("id")


def test_an_entry_carries_its_first_100_lines_and_how_many_it_has(api_floor):
    entry = placed_60(api_floor)
    token = bearer(api_floor.a.key)
    answered = token.get(f"{API}/ledger-entries/{entry.pk}/").json()
    ids = list(entry.lines.order_by("id").values_list("id", flat=True))
    assert (len(ids), LINES_NESTED) == (120, 100)
    assert answered["line_count"] == 120
    assert [line["id"] for line in answered["lines"]] == ids[:100]
    # In a list too, beside an entry of 2 lines (bob's one wager), which it carries whole.
    listed = token.get(f"{API}/ledger-entries/", {"round": api_floor.a.round2.pk}).json()
    counts = {row["id"]: (row["line_count"], len(row["lines"])) for row in listed["results"]}
    assert counts[entry.pk] == (120, 100)
    assert sorted(counts.values()) == [(2, 2), (120, 100)]


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
    assert other.get(f"{API}/ledger-lines/", {"entry": entry.pk}).json()["count"] == 0
    assert other.get(f"{API}/ledger-lines/{entry.lines.first().pk}/").status_code == 404
