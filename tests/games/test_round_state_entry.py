"""The open round's cache entry (games/services/round_state.py, issue 21): a state pickled
once in a while and the events after it, so a wager neither pickles the whole round (which
grows with its wagers) nor, in a process that saw the round a few events ago, unpickles it."""

import pytest
from django.core.cache import cache

from casino.cache import newer_set, seq_key
from games.models import Round
from games.services import round_state
from games.services.round_state import TAIL_MAX, _key, _written, in_play, states_read
from tests.games.round_fixtures import open_table, opened, place, wager
from tests.services import redis_database, require_redis

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def placed_one_by_one(count: int):
    round_ = opened(open_table("sic_bo", max_wager="1000"))
    for n in range(count):
        place(round_, wager(f"p{n}", "big" if n % 2 else "small", "10"))
    return round_


def test_the_state_is_pickled_once_in_tail_max_events(monkeypatch):
    cache.clear()
    dumped = []
    real = round_state.state_dumps
    monkeypatch.setattr(round_state, "state_dumps", lambda s: dumped.append(s) or real(s))
    count = 3 * (TAIL_MAX + 1) + 2  # 53 wagers, one event each
    round_ = placed_one_by_one(count)
    # The round's opening pickles its start (seq 0, gaming.rounds.round_open); then the
    # state once every TAIL_MAX + 1 events (at seq 17, 34 and 51).
    assert len(dumped) == 1 + count // (TAIL_MAX + 1) == 4
    entry = cache.get(_key(round_))
    assert entry["seq"] == count and entry["wagers"] == count
    assert len(entry["tail"]) == entry["seq"] - entry["state_seq"] <= TAIL_MAX
    assert [seq for seq, _, _ in entry["tail"]] == list(range(entry["state_seq"] + 1, count + 1))
    # The entry a wager rewrites is small: the pickled state has a key of its own.
    assert set(entry) == {"seq", "wagers", "state_seq", "tail"}
    assert isinstance(cache.get(f"{_key(round_)}:state:{entry['state_seq']}"), bytes)


def test_a_pickled_state_gone_from_the_cache_costs_a_replay_not_a_wrong_answer():
    cache.clear()
    round_ = placed_one_by_one(3)
    key = _key(round_)
    cache.delete(f"{key}:state:{cache.get(key)['state_seq']}")
    _written.clear()
    state = in_play(round_)
    assert round_state._cached(round_, state.engine, state.options) is None
    assert [w.ref for w in place(round_, wager("dan", "big", "10"))] == ["1.4"]


def test_a_process_behind_plays_the_entrys_events_from_its_own_state(monkeypatch):
    cache.clear()
    round_ = placed_one_by_one(5)
    key = _key(round_)
    mine = _written.get(key)
    assert mine.seq == 5
    place(round_, wager("ann", "big", "25"), wager("bob", "total:9", "5"))
    place(round_, wager("carl", "small", "15"))
    _written.put(key, mine)  # as if another process took the last two events

    def refused(data):
        raise AssertionError("unpickled: the entry's events after seq 5 were enough")

    monkeypatch.setattr(round_state, "state_loads", refused)
    now = round_state._cached(round_, mine.engine, mine.options)
    replayed = in_play(round_)
    assert (now.seq, now.wagers) == (7, 8)
    assert now.state == replayed.state
    assert [p.wager.id for p in now.state.layout][-3:] == ["1.6", "1.7", "1.8"]


def test_a_process_that_never_saw_the_round_unpickles_and_plays_the_tail():
    cache.clear()
    round_ = placed_one_by_one(TAIL_MAX + 5)  # pickled at seq 0 (the opening) and TAIL_MAX + 1
    _written.clear()
    engine_state = in_play(round_)
    now = round_state._cached(round_, engine_state.engine, engine_state.options)
    assert now.seq == TAIL_MAX + 5
    # The pickled state leaves the used ids out (the database keeps them): the layout.
    assert now.state.layout == engine_state.state.layout
    assert len(now.state.layout) == TAIL_MAX + 5
    assert now.base_seq == TAIL_MAX + 1 and len(now.tail) == 4


def test_an_entry_missing_an_event_is_not_trusted():
    cache.clear()
    round_ = placed_one_by_one(4)
    key = _key(round_)
    entry = cache.get(key)
    entry["tail"] = tuple(e for e in entry["tail"] if e[0] != 3)  # a hole at seq 3
    cache.set(key, entry)
    _written.clear()
    state = in_play(round_)
    assert round_state._cached(round_, state.engine, state.options) is None
    # ... and the next wager is taken from the record, numbered after every event.
    placed = place(round_, wager("dan", "big", "10"))
    assert [w.ref for w in placed] == ["1.5"]


def test_a_tail_no_engine_plays_sends_the_read_to_the_record():
    """A corrupt entry (an event the engine refuses) costs a replay, never a 500 on every
    request at the round (the review's probe)."""
    cache.clear()
    round_ = placed_one_by_one(3)
    key = _key(round_)
    entry = cache.get(key)
    entry["tail"] = (*entry["tail"], (4, "wagers", "not a list"))
    entry["seq"] = 4
    cache.set(key, entry)
    state = in_play(round_)
    assert round_state._cached(round_, state.engine, state.options) is None
    assert [w.ref for w in place(round_, wager("dan", "big", "10"))] == ["1.4"]


def test_a_superseded_pickled_state_is_not_kept_a_day(monkeypatch):
    cache.clear()
    touched = []
    real_touch = cache.touch
    monkeypatch.setattr(
        cache,
        "touch",
        lambda key, timeout: touched.append((key, timeout)) or real_touch(key, timeout),
    )
    round_ = placed_one_by_one(TAIL_MAX + 3)  # pickled at seq 0 (opened), then TAIL_MAX + 1
    key = _key(round_)
    assert cache.get(key)["state_seq"] == TAIL_MAX + 1
    # The state at seq 0 is given a minute (a reader in flight still finds it), not a day.
    assert touched == [(f"{key}:state:0", round_state.SUPERSEDED_SECONDS)]
    assert cache.get(f"{key}:state:0") is not None
    assert cache.get(f"{key}:state:{TAIL_MAX + 1}") is not None


def later_write_stays(monkeypatch) -> None:
    """Two commits' cache writes of one round landing out of order (each is written on its
    commit, by its own process: the later can come first): the entry keeps the later, and
    the round read to be shown is the later state."""
    cache.clear()
    round_ = placed_one_by_one(1)
    held: list = []
    real = round_state._keep
    monkeypatch.setattr(round_state, "_keep", held.append)
    place(round_, wager("bob", "big", "10"))  # seq 2
    place(round_, wager("carl", "small", "10"))  # seq 3
    monkeypatch.setattr(round_state, "_keep", real)
    for states in reversed(held):  # seq 3's write first, then seq 2's
        real(states)
    assert cache.get(_key(round_))["seq"] == 3
    _written.clear()
    (_, _, state) = states_read([Round.objects.get(pk=round_.pk)])[round_.pk]
    assert [p.wager.id for p in state.layout] == ["1.1", "1.2", "1.3"]


def test_two_writes_out_of_order_leave_the_later_in_the_file_cache(monkeypatch):
    later_write_stays(monkeypatch)


@pytest.mark.integration
def test_two_writes_out_of_order_leave_the_later_on_redis(monkeypatch, settings):
    """On Redis one atomic trip compares the seq kept beside the entry (casino.cache)."""
    require_redis()
    with redis_database() as url:
        settings.CACHES = {
            "default": {"BACKEND": "casino.cache.RedisCache", "LOCATION": url, "KEY_PREFIX": "t"}
        }
        later_write_stays(monkeypatch)
        key = _key(Round.objects.get())
        assert cache.get(seq_key(key)) == 3
        assert newer_set(key, 2, {"seq": 2}, 60) is False
        assert cache.get(key)["seq"] == 3
        assert newer_set(key, 4, {"seq": 4}, 60, kept_with={f"{key}:x": b"kept"}) is True
        assert (cache.get(key), cache.get(f"{key}:x")) == ({"seq": 4}, b"kept")
