"""The brokers' transports: kombu's, each with one change.

The embedded broker (`Transport`): kombu's filesystem transport, with each message written
atomically. kombu writes a message file in place and locks it only once it is open, while
a consumer takes files without the lock: a worker polling every 0.1 s can take a message
before its bytes are written, read an empty file and die (`JSONDecodeError`). Beat
publishing every second (the device watch) made that happen within minutes. Here a
message is written under a name no consumer looks at and renamed into place, which POSIX
makes atomic.

Redis (`RedisTransport`): kombu's, keeping one client a connection pool. kombu builds a
new `redis.Redis` for each command it sends outside its event loop: each message
published, and for a worker each message's entry among the unacknowledged and its
acknowledgement (two a settlement); redis-py fills each new client's table of ~170
response callbacks anew (redis-py issue #3624), which made about a quarter of a worker's
own CPU around a task (bench/settlement.py --profile-worker). A client holds no
connection of its own (it takes one from the pool for each command), so one serves them
all. Not for `rediss://` (settings.py): kombu sets up TLS only for a transport named
"rediss".
"""

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, redis
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):  # kombu's signature
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f"partial-{uuid.uuid4()}")  # no ".msg"
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


class RedisChannel(redis.Channel):
    def _create_client(self, asynchronous: bool = False) -> Any:  # kombu's signature
        pool = self.async_pool if asynchronous else self.pool
        kept = self.__dict__.setdefault("_clients_kept", {})
        found = kept.get(asynchronous)
        if found is None or found[0] is not pool:  # a pool replaced (a reconnection)
            found = (pool, super()._create_client(asynchronous))
            kept[asynchronous] = found
        return found[1]


class RedisTransport(redis.Transport):
    Channel = RedisChannel
