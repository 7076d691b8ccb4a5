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

Its acknowledgement (`AcknowledgingQoS`) is still sent once the task is done (the
settlement's late acknowledgement), but by a thread of the worker's own rather than in the
worker's event loop: kombu waits there for Redis's answer to each acknowledgement before
the loop hands the next message to the pool process, which then sits idle (about 0.45 ms
a settlement, bench/README.md). A worker killed before the thread has sent it leaves the
message among the unacknowledged, exactly as one killed before kombu's own: it comes back
after the visibility timeout, and a settlement already made is not made again.
"""

import logging
import os
import queue
import threading
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem, redis, virtual
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


logger = logging.getLogger(__name__)

_STOP = object()


class AcknowledgementSender:
    """A thread that takes acknowledged delivery tags off the unacknowledged in Redis.

    Tags that wait together go in one MULTI (one ZREM and one HDEL for all of them).
    """

    def __init__(self, qos: "AcknowledgingQoS") -> None:
        self.qos = qos
        self.tags: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.pid = 0

    def send(self, delivery_tag: str) -> None:
        if self.thread is None or self.pid != os.getpid():  # none yet, or a forked copy
            self.tags = queue.SimpleQueue()
            self.pid = os.getpid()
            self.thread = threading.Thread(
                target=self.run, args=(self.tags,), name="broker-acknowledgements", daemon=True
            )
            self.thread.start()
        self.tags.put(delivery_tag)

    def run(self, waiting: queue.SimpleQueue) -> None:
        while True:
            tags = [waiting.get()]
            while not waiting.empty():  # the thread is the one reader
                tags.append(waiting.get_nowait())
            stop = _STOP in tags
            tags = [tag for tag in tags if tag is not _STOP]
            if tags:
                self.remove(tags)
            if stop:
                return

    def remove(self, tags: list[str]) -> None:
        qos = self.qos
        try:
            with qos.channel.conn_or_acquire() as client:
                pipe = client.pipeline()
                pipe.zrem(qos.unacked_index_key, *tags).hdel(qos.unacked_key, *tags)
                pipe.execute()
        except Exception:  # the thread must live on; the messages return, as documented
            logger.exception(
                "acknowledgements not sent to Redis (%d messages): they come back after "
                "the visibility timeout",
                len(tags),
            )

    def stop(self, timeout: float = 5.0) -> None:
        """Send what waits, then end the thread (the channel is closing)."""
        thread = self.thread
        if thread is None or self.pid != os.getpid():
            return
        self.tags.put(_STOP)
        thread.join(timeout)
        self.thread = None


class AcknowledgingQoS(redis.QoS):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sender = AcknowledgementSender(self)

    def ack(self, delivery_tag: str) -> None:
        virtual.QoS.ack(self, delivery_tag)  # no longer this worker's to restore
        self.sender.send(delivery_tag)


class RedisChannel(redis.Channel):
    QoS = AcknowledgingQoS

    def _create_client(self, asynchronous: bool = False) -> Any:  # kombu's signature
        pool = self.async_pool if asynchronous else self.pool
        kept = self.__dict__.setdefault("_clients_kept", {})
        found = kept.get(asynchronous)
        if found is None or found[0] is not pool:  # a pool replaced (a reconnection)
            found = (pool, super()._create_client(asynchronous))
            kept[asynchronous] = found
        return found[1]

    def close(self) -> None:
        qos = self._qos
        if qos is not None and not self.closed:
            qos.sender.stop()  # before kombu closes the pools and restores the unacknowledged
        super().close()


class RedisTransport(redis.Transport):
    Channel = RedisChannel
