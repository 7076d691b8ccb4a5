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
"rediss". Through Sentinel (`RedisSentinelTransport`), kombu's Sentinel transport with the
same changes.

On the connection a worker's event loop polls (its consumer's), an acknowledgement
(`AcknowledgingQoS`) is still made once the task is done (the settlement's late
acknowledgement), but a moment later, from the loop, with any others made meanwhile.
kombu makes it at once, in the loop: it waits for Redis, and the freed place among the
messages a worker may hold (its prefetch) at once brings the next message in, its entry
among the unacknowledged another wait, all before the loop hands the pool process its next
task; the pool process sits idle meanwhile (bench/acknowledgements.py: about 1 ms a task).
A worker killed before it sent one leaves the message among the unacknowledged, as one
killed just before kombu's own would: it comes back after the visibility timeout, and a
settlement already made is not made again. What waits is sent before kombu puts back what
the worker holds (a closing channel, the process's exit, a recover), so none of it is put
back. Any other consumer (one in a task, a tool, a test) acknowledges at once, as kombu's.
"""

import logging
import os
import threading
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, redis, virtual
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps
from redis.exceptions import RedisError


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


logger = logging.getLogger(__name__)


class AcknowledgingQoS(redis.QoS):
    later = 0.002  # seconds: by then the loop has handed the pool process its next message
    overdue = 1.0  # seconds: the timer cannot have been kept (a loop's timers cleared)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acks_waiting: list[str] = []
        self.acks_since = 0.0

    def ack(self, delivery_tag: str) -> None:
        transport = self.channel.connection
        loop = transport.acks_loop if transport is not None else None
        if loop is None or threading.get_ident() != transport.acks_thread:
            super().ack(delivery_tag)  # no loop of ours polls this connection: at once
            return
        self.acks_waiting.append(delivery_tag)
        if len(self.acks_waiting) == 1:
            self.acks_since = monotonic()
            loop.call_later(self.later, self.acks_send)
        elif monotonic() - self.acks_since > self.overdue:
            self.acks_send()

    # kombu puts back what a consumer holds from these (the channel closing, a finalizer
    # at the process's exit, basic_recover): what waits is acknowledged first.
    def restore_unacked_once(self, stderr: Any = None) -> Any:  # kombu's signature
        self.acks_send()
        return super().restore_unacked_once(stderr)

    def restore_unacked(self, client: Any = None) -> Any:  # kombu's signature
        self.acks_send()
        return super().restore_unacked(client)

    def acks_send(self) -> None:
        """Take the waiting acknowledgements off the unacknowledged: one MULTI for all."""
        tags, self.acks_waiting = self.acks_waiting, []
        if not tags:
            return
        for tag in tags:
            virtual.QoS.ack(self, tag)  # no longer this worker's to restore
        try:
            with self.pipe_or_acquire() as pipe:
                for tag in tags:
                    self._remove_from_indices(tag, pipe)  # kombu's own removal, one MULTI
                pipe.execute()
        except RedisError:
            logger.exception(
                "%d acknowledgements not sent to Redis: those messages come back after the "
                "visibility timeout",
                len(tags),
            )


class KeptClient:
    """A channel's clients kept, one a connection pool (the module's docstring)."""

    def _create_client(self, asynchronous: bool = False) -> Any:  # kombu's signature
        pool = self.async_pool if asynchronous else self.pool
        kept = self.__dict__.setdefault("_clients_kept", {})
        found = kept.get(asynchronous)
        if found is None or found[0] is not pool:  # a pool replaced (a reconnection)
            found = (pool, super()._create_client(asynchronous))
            kept[asynchronous] = found
        return found[1]


class AcknowledgingLoop:
    """A transport that knows the event loop polling it, for AcknowledgingQoS."""

    acks_loop: Any = None  # the event loop that polls this connection (a worker's consumer's)
    acks_thread = 0  # and the thread it runs in: kombu's timers are for that thread only

    def register_with_event_loop(self, connection: Any, loop: Any) -> Any:  # kombu's signature
        # Only the connection a worker's loop polls: a prefork pool process inherits the
        # worker's loop as kombu's current one (get_event_loop) but never runs it.
        self.acks_loop, self.acks_thread = loop, threading.get_ident()
        return super().register_with_event_loop(connection, loop)


class RedisChannel(KeptClient, redis.Channel):
    QoS = AcknowledgingQoS


class RedisTransport(AcknowledgingLoop, redis.Transport):
    Channel = RedisChannel


# Through Redis Sentinel (casino/redis_connect.py): kombu's Sentinel transport, whose pool
# asks the Sentinels for the primary on each new connection, with the same two changes.
class RedisSentinelChannel(KeptClient, redis.SentinelChannel):
    QoS = AcknowledgingQoS


class RedisSentinelTransport(AcknowledgingLoop, redis.SentinelTransport):
    Channel = RedisSentinelChannel
