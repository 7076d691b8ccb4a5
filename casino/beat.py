"""Beat's scheduler with Redis: celery-redbeat's, which lets one beat of many send, by a
lock in Redis that the sender renews at every tick and the others wait for.

redbeat's own tick ends the process when Redis cannot be reached (a failover, a restart)
or the lock has gone from it (Redis came back empty, or the lock expired while Redis was
away), and a beat whose first try at the lock failed ticks with no lock at all: each would
stop every periodic task on the machine until someone restarts beat. Here beat rides
those out: it waits for Redis, and a beat without the lock waits to take it, as a beat
started second waits, so two never send at once. Having taken it, it writes the schedule's
entries into Redis again (those already there keep their last run): a Redis that came
back empty has none, and would send nothing."""

import logging
from typing import Any

from redbeat import RedBeatScheduler
from redbeat.schedulers import LUA_EXTEND_TO_SCRIPT, get_redis
from redis.exceptions import LockError, RedisError

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # how soon a tick that could not reach Redis is tried again


class Scheduler(RedBeatScheduler):
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
