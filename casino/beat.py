"""Beat's scheduler with Redis: celery-redbeat's, which lets one beat of many send, by a
lock in Redis that the sender renews at every tick and the others wait for.

redbeat's own tick ends the process when Redis cannot be reached (a failover, a restart)
or the lock has gone from it (Redis came back empty, or the lock expired while Redis was
away): each would stop every periodic task on the machine until someone restarts beat.
Here beat rides those out: it waits for Redis, and a beat that lost its lock waits to take
it again, as a beat started second waits, so two never send at once."""

import logging
from typing import Any

from redbeat import RedBeatScheduler
from redis.exceptions import LockError, RedisError

logger = logging.getLogger(__name__)

RETRY_SECONDS = 1.0  # how soon a tick that could not reach Redis is tried again


class Scheduler(RedBeatScheduler):
    def tick(self, *args: Any, **kwargs: Any) -> float:
        try:
            return super().tick(*args, **kwargs)
        except LockError:
            logger.warning("beat lost its lock in Redis: waiting to take it again")
            try:
                self.lock.acquire()  # blocks while another beat holds it
            except RedisError as error:
                logger.warning("beat cannot reach Redis to take its lock: %s", error)
                return RETRY_SECONDS
            logger.info("beat: Acquired lock")
            return 0.0
        except RedisError as error:
            logger.warning("beat cannot reach Redis: %s; trying again", error)
            return RETRY_SECONDS
