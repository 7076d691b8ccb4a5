"""The open round's state in the cache (ADR 0009) is never ahead of the record, and an
entry left behind never refuses what the record allows (a review's two findings)."""

import pytest
from django.core.cache import cache
from django.db import transaction

from casino.services.errors import FloorRefused
from games.services.round_state import _key
from gaming.rounds import round_event
from tests.casino.floor_fixtures import operations
from tests.games.round_fixtures import T0, M, open_table, opened, place, result, wager

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_a_refused_result_inside_a_callers_transaction_leaves_the_cache_at_the_record():
    """The refused throw's savepoint rolls back its "no more bets" too: the state that
    counted it is never written, and the next wager takes seq 2, no gap."""
    cache.clear()
    table = open_table("sic_bo")
    round_ = opened(table)
    with transaction.atomic():
        place(round_, wager("ann", "small", "10"))
        with pytest.raises(FloorRefused):
            result(round_, "throw", [9, 9, 9])  # no die has a 9
    assert cache.get(_key(round_))["seq"] == 1
    place(round_, wager("bob", "big", "10"), now=T0 + 3 * M)
    assert list(round_.events.values_list("seq", "event")) == [(1, "wagers"), (2, "wagers")]
    assert cache.get(_key(round_))["seq"] == 2


def test_an_entry_left_behind_does_not_refuse_what_the_record_allows():
    """The cache says seq 1 (ann's wager), the record holds seq 2 (bob's): a Craps take
    down of bob's bet, refused by the stale state (no such bet), is taken from the record."""
    cache.clear()
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("ann", "pass", "10"))
    behind = cache.get(_key(round_))
    place(round_, wager("bob", "place:6", "12"), now=T0 + 2 * M)
    cache.set(_key(round_), behind)  # as if bob's write never reached the cache
    round_event(round_, "remove", [f"{round_.number}.2"], by=operations(), now=T0 + 3 * M)
    assert round_.events.order_by("seq").last().event == "remove"
