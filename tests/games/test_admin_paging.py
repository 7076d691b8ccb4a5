"""A round's page in the admin lists its events, wagers, resolutions and ledger entries a
page at a time, and an entry's page its lines (issue 33, part 5). A round of 5,000 wagers
answered, after 10.5 s, a 503 "the database is unreachable": SQLite's "Expression tree is
too large", from the prefetch of every ledger line's wager (Django 5.2 writes it as an OR
of one term a wager, past SQLite's depth of 1000)."""

import re
from collections.abc import Iterator

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.models import LedgerEntry, Round
from tests.casino.floor_fixtures import operations
from tests.games.round_fixtures import close, open_table, opened, place, result, settle, wager
from tests.games.test_admin_rounds import login

pytestmark = pytest.mark.django_db

WAGERS = 1001  # one more than the OR's depth SQLite takes


@pytest.fixture(scope="module")
def big_round(django_db_setup, django_db_blocker) -> Iterator[Round]:
    """A Sic Bo round of 1,001 wagers in two requests, settled (placement entries of 2,000
    and 2 lines, a settlement of 4,002: 4 lines a win, 2 a loss); built once, in a
    transaction rolled back after the module's last test."""
    with django_db_blocker.unblock(), transaction.atomic():
        round_ = opened(open_table("sic_bo"))
        place(round_, *[wager(f"p{n}", "small", "10") for n in range(WAGERS - 1)])
        place(round_, wager("last", "big", "10"))
        close(round_)
        result(round_, "throw", [1, 2, 4])
        assert settle(round_) == "settled"
        yield round_
        transaction.set_rollback(True)


@pytest.fixture
def ops_client(client: Client) -> Client:
    login(client, operations())
    return client


def pagers(html: str) -> list[str]:
    """Each list's pager on the page, as text."""
    found = re.findall(r'<p class="paginator" id="[^"]+">(.*?)</p>', html, re.S)
    return [re.sub(r"<[^>]+>|\s+", " ", text).split("  ")[0].strip() for text in found]


def test_the_page_of_a_round_of_1001_wagers_lists_each_a_page_at_a_time(big_round, ops_client):
    url = f"/admin/games/round/{big_round.pk}/change/"
    with CaptureQueriesContext(connection) as queries:
        page = ops_client.get(url)
    assert page.status_code == 200  # was a 503 on SQLite
    html = page.content.decode()
    assert pagers(html) == [
        "Wagers 1 to 50 of 1,001.",
        "Resolutions (the wagers this round settled) 1 to 50 of 1,001.",
    ]
    assert "and 1,980 more: the entry's page" in html  # the first placement: 2,000
    assert "and 3,982 more: the entry's page" in html  # settlement: 4,002
    assert len(queries) < 60  # a page's worth, whatever the round holds
    last = ops_client.get(f"{url}?wagers-page=21&resolutions-page=2").content.decode()
    assert pagers(last) == [
        "Wagers 1,001 to 1,001 of 1,001.",
        "Resolutions (the wagers this round settled) 51 to 100 of 1,001.",
    ]
    assert f">{big_round.number}.1001<" in last and f">{big_round.number}.1000<" not in last


def test_an_entry_s_page_lists_its_lines_a_hundred_at_a_time(big_round, ops_client):
    entry = LedgerEntry.objects.get(key=f"settlement:{big_round.pk}")
    url = f"/admin/games/ledgerentry/{entry.pk}/change/"
    page = ops_client.get(url)
    assert page.status_code == 200
    assert pagers(page.content.decode()) == ["Ledger lines 1 to 100 of 4,002."]
    last = ops_client.get(f"{url}?lines-page=41").content.decode()
    assert pagers(last) == ["Ledger lines 4,001 to 4,002 of 4,002."]


def test_a_long_payload_is_cut_on_the_page_saying_how_long_it_is(big_round, ops_client):
    html = ops_client.get(f"/admin/games/round/{big_round.pk}/change/").content.decode()
    assert re.search(r"\.\.\. \([0-9,]+ characters in all\)", html)
