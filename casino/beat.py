"""Beat's scheduler with Redis: celery-redbeat's, which lets one beat of many send, by a
lock in Redis that the sender renews at every tick and the others wait for.

redbeat's own tick ends the process when Redis cannot be reached (a failover, a restart)
or the lock has gone from it (Redis came back empty, or the lock expired while Redis was
away), and a beat whose first try at the lock failed ticks with no lock at all: each would
stop every periodic task on the machine until someone restarts beat. Here beat rides
those out: it waits for Redis, and a beat without the lock waits to take it, as a beat
started second waits. Having taken it, it writes the schedule's entries into Redis again
(those already there keep their last run): a Redis that came back empty has none, and
would send nothing. Before each send it checks that it still holds the lock, so a beat
that stalled past the lock's time (or was cut off from Redis) sends nothing the beat that
took over sends. A failover that loses the last record of an entry's run may still send
that period again: every periodic task is safe to run twice.

Through Sentinel, beat's client is ours (casino/redis_connect.py), made once: redbeat's
own makes a new client, its connections and a question to the Sentinels at every tick."""

import logging
from typing import Any

from django.conf import settings
from redbeat import RedBeatScheduler
from redbeat.schedulers import LUA_EXTEND_TO_SCRIPT, REDBEAT_REDIS_KEY, get_redis
from redis.exceptions import LockError, RedisError

from casino.redis_connect import is_sentinel, redis_from_url

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # how soon a tick that could not reach Redis is tried again


class Scheduler(RedBeatScheduler):
    def __init__(self, app: Any, *args: Any, **kwargs: Any) -> None:
        url = settings.CELERY_BROKER_URL
        if is_sentinel(url) and getattr(app, REDBEAT_REDIS_KEY, None) is None:
            client = redis_from_url(
                url, settings.CASINO_REDIS_MASTER_NAME, decode_responses=True,
                socket_timeout=2, socket_connect_timeout=2,
            )  # fmt: skip
            setattr(app, REDBEAT_REDIS_KEY, client)  # get_redis(app) answers it from now
        super().__init__(app, *args, **kwargs)

    def maybe_due(self, entry: Any, **kwargs: Any) -> Any:
        if self.lock_key and entry.is_due()[0] and not self.lock.owned():
            raise LockError("beat no longer holds its lock: it sends nothing until it does")
        return super().maybe_due(entry, **kwargs)

    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            if self.lock is None and self.lock_key:
                logger.warning("beat has no lock (Redis was away when it started): taking it")
                self.lock_take()
            return super().tick(*args, **kwargs)
        except LockError:
            logger.warning("beat lost its lock in Redis: waiting to take it again")
            try:
                self.lock_take()
            except RedisError as error:
                logger.warning("beat cannot reach Redis to take its lock: %s", error)
                return RETRY_SECONDS
            return 0.0
        except RedisError as error:
            logger.warning("beat cannot reach Redis: %s; trying again", error)
            return RETRY_SECONDS

    def lock_take(self) -> None:
        """Wait for the lock (as redbeat's start does), then write the entries again."""
        if self.lock is None:
            client = get_redis(self.app)
            lock = client.lock(self.lock_key, timeout=self.lock_timeout, sleep=self.max_interval)
            lock.lua_extend = client.register_script(LUA_EXTEND_TO_SCRIPT)
            self.lock = lock
        self.lock.acquire()  # blocks while another beat holds it
        logger.info("beat: Acquired lock")
        self.setup_schedule()
