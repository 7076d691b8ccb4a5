"""The embedded broker: kombu's filesystem transport, with each message written atomically.

kombu writes a message file in place and locks it only once it is open, while a consumer
takes files without the lock: a worker polling every 0.1 s can take a message before its
bytes are written, read an empty file and die (`JSONDecodeError`). Beat publishing every
second (the device watch) made that happen within minutes. Here a message is written under
a name no consumer looks at and renamed into place, which POSIX makes atomic.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
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
