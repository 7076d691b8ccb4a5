"""Django's Redis cache with one client a process (issue 21): RedisCache builds a new
`redis.Redis` around its connection pool on every call (about 0.2 ms each, twice a cached
floor read). The client is thread-safe and its pool checks the process id itself (a
forked worker opens its own connections), so one a pool is enough. A `sentinel://` URL
(casino/redis_connect.py) is one client whose pool asks the Sentinels for the primary.

`window_count` is the request budgets' counter (casino/api/throttles.py): one atomic trip
to Redis, with the reads a request makes anyway. `newer_set` keeps a value only if no later
seq is stored (the round state's entries); `newer_done` lets such a value go."""

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

from casino.redis_connect import is_sentinel, redis_from_url

SENTINEL_TIMEOUTS = {"socket_timeout": 2, "socket_connect_timeout": 2}


class KeptClient(RedisCacheClient):
    """RedisCacheClient keeping the client it builds for each connection pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """The pool's client, built once."""
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None and is_sentinel(self._servers[index]):
            # Through Sentinel: the client's own pool follows the primary. A Sentinel or a
            # primary that does not answer costs seconds, not the system's TCP timeout.
            options = {**SENTINEL_TIMEOUTS, **self._pool_options}
            client = redis_from_url(
                self._servers[index], settings.CASINO_REDIS_MASTER_NAME, **options
            )
            self._clients[index] = client
        if client is None:
            if index not in self._pools:  # as RedisCacheClient._get_connection_pool
                self._pools[index] = self._pool_class.from_url(
                    self._servers[index], **self._pool_options
                )
            client = self._client(connection_pool=self._pools[index])
            self._clients[index] = client
        return client


class RedisCache(DjangoRedisCache):
    """settings.CACHES' backend when the cache is Redis: Django's, one client a pool."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        # Django splits LOCATION at ";" and "," into servers; a Sentinel URL is one server
        # (its Sentinels apart by ";"), whose client finds the primary.
        super().__init__([server] if is_sentinel(server) else server, params)
        self._class = KeptClient


def window_count(
    key: str, seconds: int, reading: Iterable[str] = ()
) -> tuple[int, dict[str, Any] | None]:
    """Add one to a fixed window's counter and read `reading` with it: the count so far
    and the values found (as cache.get_many gives them). On Redis one trip, atomic (MULTI:
    SET NX with the window's expiry, INCR, MGET); elsewhere add, or get and set, and
    get_many, which a single machine's file cache can afford (a race there only loses a
    count: the budget is then a little lax, never strict).

    Raises what the backend raises (the caller decides what a cache outage means)."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    names = list(reading)
    if isinstance(backend, RedisCache):
        stored = backend.make_and_validate_key(key)
        pipe = backend._cache.get_client(write=True).pipeline(transaction=True)
        pipe.set(stored, 0, nx=True, ex=seconds)
        pipe.incr(stored)
        if names:
            pipe.mget([backend.make_and_validate_key(name) for name in names])
        answers = pipe.execute()
        found: dict[str, Any] = {}
        if names:
            loads = backend._cache._serializer.loads
            for name, value in zip(names, answers[2], strict=True):
                if value is not None:
                    found[name] = loads(value)
        return int(answers[1]), found
    if backend.add(key, 1, timeout=seconds):
        count = 1
    else:
        # Not BaseCache.incr: it sets the default timeout (300 s), not the window's.
        count = (backend.get(key) or 0) + 1
        backend.set(key, count, timeout=seconds)
    return count, (backend.get_many(names) if names else {})


def window_give_back(key: str, seconds: int) -> None:
    """Take back one count `window_count` added (a request that turned out not to be the
    key's own). On Redis one trip (DECR and the window's expiry again: a counter that
    expired meanwhile comes back at -1 for the rest of a window nobody counts in any
    more). Raises what the backend raises."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, RedisCache):
        stored = backend.make_and_validate_key(key)
        pipe = backend._cache.get_client(write=True).pipeline(transaction=True)
        pipe.decr(stored)
        pipe.expire(stored, seconds)
        pipe.execute()
        return
    count = backend.get(key)
    if count:
        backend.set(key, count - 1, timeout=seconds)


# KEYS: the value's key, its seq's key, then any keys kept with it; ARGV: the seq, the
# timeout, the value, then theirs. Written only when no later seq is stored.
_NEWER_SET = """
local stored = redis.call('GET', KEYS[2])
if stored and tonumber(stored) > tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
redis.call('SET', KEYS[1], ARGV[3], 'EX', ARGV[2])
for i = 3, #KEYS do
  redis.call('SET', KEYS[i], ARGV[i + 1], 'EX', ARGV[2])
end
return 1
"""


def seq_key(key: str) -> str:
    """Where `newer_set` keeps the seq a value was written at."""
    return f"{key}:seq"


def newer_set(
    key: str, seq: int, value: Any, timeout: int, kept_with: dict[str, Any] | None = None
) -> bool:
    """Set `key` to `value`, written at `seq`, unless the cache holds it at a later seq
    already: of two writers landing out of order the later seq stays, whichever comes last.
    `kept_with`: more values written with it (and only with it), under the same timeout.
    True if written. On Redis one atomic trip (a script comparing the seq kept beside it);
    elsewhere get, compare and set, which a single machine's file cache can afford (two
    writers racing between the get and the set may still leave the older).

    Raises what the backend raises (the caller decides what a cache outage means)."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    others = dict(kept_with or {})
    if isinstance(backend, RedisCache):
        dumps = backend._cache._serializer.dumps
        keys = [backend.make_and_validate_key(name) for name in (key, seq_key(key), *others)]
        values = [dumps(value), *(dumps(v) for v in others.values())]
        script = backend._cache.get_client(write=True).register_script(_NEWER_SET)
        return bool(script(keys=keys, args=[seq, timeout, *values]))
    stored = backend.get(seq_key(key))
    if stored is not None and stored > seq:
        return False
    backend.set_many({key: value, seq_key(key): seq, **others}, timeout)
    return True


# The seq `newer_done` leaves beside a value nobody writes again: above any real seq, and
# exact as Lua's numbers (doubles) read it.
DONE_SEQ = 2**52

_NEWER_DONE = """
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[2])
for i = 1, #KEYS do
  if i ~= 2 then redis.call('EXPIRE', KEYS[i], ARGV[2]) end
end
return 1
"""


def newer_done(key: str, timeout: int, kept_with: Iterable[str] = ()) -> None:
    """A value `newer_set` wrote that nobody needs much longer: `key` and `kept_with` expire
    in `timeout` seconds (a reader in flight still finds them), and for those seconds its
    seq stands above any other, so a write landing late (its writer delayed) is refused
    rather than kept under newer_set's long timeout. On Redis one atomic trip; elsewhere a
    set and a touch a key. Raises what the backend raises."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    others = list(kept_with)
    if isinstance(backend, RedisCache):
        keys = [backend.make_and_validate_key(name) for name in (key, seq_key(key), *others)]
        script = backend._cache.get_client(write=True).register_script(_NEWER_DONE)
        script(keys=keys, args=[DONE_SEQ, timeout])
        return
    backend.set(seq_key(key), DONE_SEQ, timeout)
    for name in (key, *others):
        backend.touch(name, timeout)
