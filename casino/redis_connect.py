"""Redis reached directly (`redis://`, `rediss://`) or through Redis Sentinel, with one URL
for the broker, the shared cache, the device store and beat's lock. A Sentinel URL is
kombu's own form, so the broker takes it as it is:

    sentinel://[:password@]host:port;sentinel://host:port[;...][/db]

one `sentinel://` a Sentinel, the database number after the first (kombu reads it there;
another may repeat it, not differ: `/0` on the last is the same as none); the master's name is
CASINO_REDIS_MASTER_NAME (settings.py). A client made here asks the Sentinels which
server is the primary when it connects, and again when the primary stops answering or
answers as a replica (redis-py's SentinelConnectionPool): a failover is a reconnection,
not an outage (docs/deploy.md, "Several machines").
"""

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from redis.sentinel import Sentinel

REDIS_SCHEMES = ("redis://", "rediss://", "sentinel://")


def sentinel_options(timeout: float = 1.0) -> dict[str, Any]:
    """How a Sentinel is asked: within `timeout` seconds, once. redis-py's default retries
    a connection three times with backoff, so a Sentinel whose machine is gone (its SYN
    unanswered) cost about 15 s before the next was asked, on every new connection."""
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 0),
    }


def is_redis(url: str) -> bool:
    """Whether `url` names Redis, directly or through Sentinel."""
    return url.startswith(REDIS_SCHEMES)


def is_sentinel(url: str) -> bool:
    return url.startswith("sentinel://")


@dataclass(frozen=True)
class SentinelUrl:
    """A `sentinel://` URL read: the Sentinels' addresses, the database, the password."""

    sentinels: tuple[tuple[str, int], ...]
    db: int
    password: str | None

    @classmethod
    def parse(cls, url: str) -> "SentinelUrl":
        parts = [part for part in url.split(";") if part.strip()]
        sentinels, db, password = [], None, None
        for part in parts:
            if not part.startswith("sentinel://"):
                raise ValueError(f"{part!r}: expected sentinel://host:port in a Sentinel URL")
            split = urlsplit(part)
            if not split.hostname:
                raise ValueError(f"{part!r}: no host")
            sentinels.append((split.hostname, split.port or 26379))
            if split.password:
                password = unquote(split.password)
            path = split.path.strip("/")
            if path and not path.isdigit():
                raise ValueError(f"{part!r}: the database is a number, not {path!r}")
            given = int(path) if path else None
            if db is None:
                db = given or 0  # the first's (kombu's), 0 if it names none
            elif given is not None and given != db:
                raise ValueError(
                    f"{part!r}: database {given}, but the first Sentinel's is {db} (the broker "
                    "uses the first's): give it after the first, or the same after each"
                )
        if not sentinels:
            raise ValueError(f"{url!r}: no Sentinel named")
        return cls(tuple(sentinels), db or 0, password)


def redis_from_url(url: str, master_name: str, **options: Any) -> redis.Redis:
    """A client of the Redis `url` names; through Sentinel, of the primary of `master_name`.
    `options` are the client's (socket_timeout, ...); each Sentinel is asked as
    `sentinel_options` says, so one that has gone costs a second."""
    if not is_sentinel(url):
        return redis.Redis.from_url(url, **options)
    parsed = SentinelUrl.parse(url)
    manager = Sentinel(
        list(parsed.sentinels),
        sentinel_kwargs=sentinel_options(),
        password=parsed.password,
        db=parsed.db,
        **options,
    )
    return manager.master_for(master_name)


def master_address(client: redis.Redis) -> str:
    """The address of the primary `client` last connected to ("" for a client that does
    not go through Sentinel, whose server never changes; None is not returned: a Sentinel
    client that has not connected yet asks the Sentinels now)."""
    pool = client.connection_pool
    if not hasattr(pool, "get_master_address"):
        return ""
    address = pool.master_address or pool.get_master_address()
    return f"{address[0]}:{address[1]}"
