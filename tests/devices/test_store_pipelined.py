"""RedisStore.heartbeats, the pipelined path: many heartbeats a script call, each claimed as
RedisStore.heartbeat claims one (the same Lua function, _CLAIM_ONE), so the two agree on
what is new, what is refused and what the store keeps."""

import contextlib
import uuid
from collections.abc import Iterator
from random import Random

import pytest

from devices import store as store_module
from devices.store import RedisStore, Revoked, SignedBeforeStart, StoreUnavailable
from tests.services import REDIS_URL, require_redis

pytestmark = pytest.mark.integration

NOW = 1_772_456_400.0
KIND = "automated_shaker"


def redis_store(ends: dict[str, float] | None = None) -> RedisStore:
    """A store under a prefix of its own, begun an hour before NOW; `ends` what the
    database would say has ended, copied in when the store (re)begins."""
    require_redis()
    made = RedisStore(REDIS_URL, f"test:pipelined:{uuid.uuid4().hex}:", lambda: dict(ends or {}))
    made.begin(NOW - 3600)
    return made


@pytest.fixture
def stores() -> Iterator[tuple[RedisStore, RedisStore]]:
    """Two stores side by side: one fed a heartbeat at a time, one pipelined."""
    pair = (redis_store(), redis_store())
    yield pair
    for made in pair:
        made.clear()


def one_at_a_time(store: RedisStore, beats: list[tuple[int, str, str, str, float]]) -> int:
    new = 0
    for beat in beats:
        with contextlib.suppress(Revoked):
            new += store.heartbeat(*beat)
    return new


def test_new_heartbeats_are_counted_and_kept(stores):
    _, piped = stores
    beats = [(device, KIND, f"dk_key{device:05d}", f"nonce{device:011d}", NOW + device)
             for device in range(1, 601)]  # fmt: skip  # more than a batch

    assert piped.heartbeats(beats) == 600
    assert piped.seen(KIND) == {device: NOW + device for device in range(1, 601)}


def test_a_used_nonce_is_not_counted_and_moves_nothing(stores):
    single, piped = stores
    beat = (7, KIND, "dk_key00007", "nonce00000000007", NOW)
    assert piped.heartbeats([beat]) == 1
    assert single.heartbeat(*beat) is True

    later = (7, KIND, "dk_key00007", "nonce00000000007", NOW + 5)  # the same nonce again
    assert piped.heartbeats([later]) == 0
    assert single.heartbeat(*later) is False
    assert piped.seen(KIND) == single.seen(KIND) == {7: NOW}


def test_a_heartbeat_never_moves_a_device_back(stores):
    _, piped = stores
    assert piped.heartbeats([(7, KIND, "dk_key00007", "nonce0000000000a", NOW + 10)]) == 1
    assert piped.heartbeats([(7, KIND, "dk_key00007", "nonce0000000000b", NOW + 5)]) == 1
    assert piped.seen(KIND) == {7: NOW + 10}


def test_a_revoked_or_ended_credential_is_refused_as_heartbeat_refuses_it(stores):
    single, piped = stores
    for made in stores:
        made.revoke("dk_revoked01")
        made.ends_copy({"dk_expiring1": NOW + 10})
    beats = [
        (1, KIND, "dk_revoked01", "nonce00000000001", NOW),
        (2, KIND, "dk_expiring1", "nonce00000000002", NOW + 9.5),  # before its end: taken
        (2, KIND, "dk_expiring1", "nonce00000000003", NOW + 10),  # at its end: refused
        (3, KIND, "dk_goodkey01", "nonce00000000004", NOW),
    ]

    assert piped.heartbeats(beats) == 2
    with pytest.raises(Revoked):
        single.heartbeat(*beats[0])
    assert single.heartbeat(*beats[1]) is True
    with pytest.raises(Revoked):
        single.heartbeat(*beats[2])
    assert single.heartbeat(*beats[3]) is True
    assert piped.seen(KIND) == single.seen(KIND) == {2: NOW + 9.5, 3: NOW}


def test_after_redis_lost_its_data_the_ends_come_back_before_a_heartbeat_is_taken():
    made = redis_store(ends={"dk_revoked01": 0.0})
    try:
        made.clear()  # Redis lost everything: no epoch, no ends
        beats = [
            (1, KIND, "dk_revoked01", "nonce00000000001", NOW),
            (2, KIND, "dk_goodkey01", "nonce00000000002", NOW),
        ]
        assert made.heartbeats(beats) == 1
        assert made.seen(KIND) == {2: NOW}
        with pytest.raises(SignedBeforeStart):  # the single path, a request signed before
            made.heartbeat(3, KIND, "dk_goodkey03", "nonce00000000003", NOW, NOW - 1)
    finally:
        made.clear()


def test_the_pipelined_and_the_single_path_agree_on_a_mixed_stream(stores):
    single, piped = stores
    for made in stores:
        made.revoke("dk_key00003")
    draw = Random(21)
    nonces = [f"nonce{n:011d}" for n in range(300)]
    beats = [
        (device, draw.choice((KIND, "illumination_device")) if device % 2 else KIND,
         f"dk_key{device:05d}", draw.choice(nonces), NOW + draw.uniform(0, 60))
        for device in (draw.randrange(1, 40) for _ in range(700))
    ]  # fmt: skip  # reused nonces, a revoked key, times out of order, two kinds

    assert piped.heartbeats(beats) == one_at_a_time(single, beats)
    for kind in (KIND, "illumination_device"):
        assert piped.seen(kind) == single.seen(kind)


def test_an_unreachable_redis_is_store_unavailable():
    unreachable = RedisStore("redis://127.0.0.1:1/0", "test:pipelined:down:", dict)
    with pytest.raises(StoreUnavailable):
        unreachable.heartbeats([(1, KIND, "dk_key00001", "nonce00000000001", NOW)])


def test_a_batch_is_one_script_call(stores, monkeypatch):
    _, piped = stores
    monkeypatch.setattr(store_module, "_BATCH", 4)
    beats = [(d, KIND, f"dk_key{d:05d}", f"nonce{d:011d}", NOW) for d in range(1, 11)]
    calls = []
    packed = piped._claims_packed
    monkeypatch.setattr(
        piped, "_claims_packed", lambda chunk: calls.append(len(chunk)) or packed(chunk)
    )

    assert piped.heartbeats(beats) == 10
    assert calls == [4, 4, 2]


@pytest.mark.parametrize("path", ["single", "pipelined"])
def test_a_script_redis_does_not_know_is_loaded_and_run(stores, path):
    """As after a Redis restart: the script's SHA is unknown (a script of its own here, not
    SCRIPT FLUSH, which would empty the cache of every other user of this Redis)."""
    made = stores[0]
    fresh = f"\n-- {uuid.uuid4().hex}"
    made._claim = made.client.register_script(store_module._CLAIM + fresh)
    made._claims = made.client.register_script(store_module._CLAIMS + fresh)
    assert made.client.script_exists(made._claim.sha, made._claims.sha) == [False, False]
    beat = (7, KIND, "dk_key00007", "nonce00000000007", NOW)
    if path == "single":
        assert made.heartbeat(*beat) is True
    else:
        assert made.heartbeats([beat]) == 1
    assert made.seen(KIND) == {7: NOW}
