"""A round's entry in the state cache lives while its table may read it: as the table's
latest round, a day at most; once the table's next round opens, SUPERSEDED_SECONDS
(games/services/round_state.py `_let_go`). The cache then holds a round a table, not a day
of rounds, and a read that finds no entry answers from the record."""

import pytest
import redis
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from casino.cache import DONE_SEQ, newer_set, seq_key
from casino.floor_page import floor_snapshot
from games.models import Round
from games.services import round_state
from games.services.round_state import KEEP_SECONDS, SUPERSEDED_SECONDS, _key
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import M, close, open_table, opened, place, result, settle, wager
from tests.services import redis_database, require_redis

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def point_of_four():
    """A craps table whose round 1 ended on a come out of 4: the point is 4."""
    table = open_table("craps")
    first = opened(table, now=T0 + M)
    place(first, wager("ann", "pass", "10"), now=T0 + 2 * M)
    close(first, now=T0 + 3 * M)
    result(first, "throw", [2, 2], now=T0 + 4 * M)
    settle(first, now=T0 + 5 * M)
    return table, first


def entry_keys(round_: Round) -> list[str]:
    """The round's entry, its seq and the pickled state the entry stands on."""
    key = _key(round_)
    return [key, seq_key(key), f"{key}:state:{cache.get(key)['state_seq']}"]


def states(snapshot: dict) -> dict[str, dict]:
    return {table["number"]: table["state"] for table in snapshot["tables"]}


def test_the_next_round_opening_lets_the_last_go(monkeypatch):
    cache.clear()
    table, first = point_of_four()
    keys = entry_keys(first)
    touched = []
    real_touch = cache.touch
    monkeypatch.setattr(
        cache,
        "touch",
        lambda key, timeout: touched.append((key, timeout)) or real_touch(key, timeout),
    )
    second = opened(table, now=T0 + 6 * M)
    # The entry and its state go in a minute (a reader in flight still finds them).
    assert sorted(touched) == sorted([(keys[0], SUPERSEDED_SECONDS), (keys[2], SUPERSEDED_SECONDS)])
    assert cache.get(keys[0]) is not None and cache.get(keys[2]) is not None
    assert cache.get(keys[1]) == DONE_SEQ
    # A write of the first round landing late (its writer delayed) is refused, not kept a day.
    assert newer_set(keys[0], 3, {"seq": 3}, KEEP_SECONDS) is False
    # The table's latest round is kept, and the process forgot the first.
    assert cache.get(_key(second))["seq"] == 0
    assert _key(first) not in round_state._written


def test_a_round_opened_in_a_transaction_rolled_back_lets_nothing_go(monkeypatch):
    cache.clear()
    table, first = point_of_four()
    let_go = []
    monkeypatch.setattr(round_state, "_let_go", let_go.append)
    with pytest.raises(RuntimeError), transaction.atomic():
        opened(table, now=T0 + 6 * M)
        raise RuntimeError("rolled back")
    assert let_go == []
    assert cache.get(seq_key(_key(first))) != DONE_SEQ


def test_the_floor_reads_a_round_whose_entry_expired_from_its_row():
    cache.clear()
    table, first = point_of_four()
    with CaptureQueriesContext(connection) as cached:
        shown = states(floor_snapshot(now=T0 + 10 * M))
    assert shown[table.number] == {"game": "craps", "point": 4, "shooter": 1}
    # A table idle past KEEP_SECONDS: its latest round's entry expired. One query more, for
    # every such round at once (their rows' state_after), and the same answer.
    cache.delete_many(entry_keys(first))
    with CaptureQueriesContext(connection) as from_rows:
        assert states(floor_snapshot(now=T0 + 10 * M)) == shown
    assert len(from_rows) == len(cached) + 1


def test_a_round_let_go_is_not_what_the_floor_reads():
    cache.clear()
    table, first = point_of_four()
    gone = entry_keys(first)
    second = opened(table, now=T0 + 6 * M)
    with CaptureQueriesContext(connection) as before:
        floor_snapshot(now=T0 + 10 * M)
    cache.delete_many(gone)  # expired, SUPERSEDED_SECONDS after the second round opened
    with CaptureQueriesContext(connection) as after:
        shown = states(floor_snapshot(now=T0 + 10 * M))
    # The second round's own entry answers: it started from the first's row (`state_in`).
    assert shown[table.number] == {"game": "craps", "point": 4, "shooter": 1}
    assert len(after) == len(before)
    # ... and its throw is played from that state: a 4 makes the point, and ann's pass wins.
    close(second, now=T0 + 8 * M)
    result(second, "throw", [1, 3], now=T0 + 9 * M)
    settle(second, now=T0 + 10 * M)
    assert states(floor_snapshot(now=T0 + 11 * M))[table.number]["point"] is None
    [pass_line] = first.wagers.all()
    assert pass_line.resolution.net > 0


@pytest.mark.integration
def test_on_redis_a_round_let_go_expires_in_a_minute_and_the_latest_in_a_day(settings):
    require_redis()
    with redis_database() as url:
        settings.CACHES = {
            "default": {"BACKEND": "casino.cache.RedisCache", "LOCATION": url, "KEY_PREFIX": "t"}
        }
        client = redis.Redis.from_url(url)

        def ttls(keys: list[str]) -> list[int]:
            return [client.ttl(cache.make_and_validate_key(key)) for key in keys]

        table, first = point_of_four()
        first_keys = entry_keys(first)
        assert all(KEEP_SECONDS - 60 < ttl <= KEEP_SECONDS for ttl in ttls(first_keys))
        second = opened(table, now=T0 + 6 * M)
        assert all(0 < ttl <= SUPERSEDED_SECONDS for ttl in ttls(first_keys))
        assert cache.get(first_keys[1]) == DONE_SEQ
        assert newer_set(first_keys[0], 3, {"seq": 3}, KEEP_SECONDS) is False
        assert all(KEEP_SECONDS - 60 < ttl <= KEEP_SECONDS for ttl in ttls(entry_keys(second)))
