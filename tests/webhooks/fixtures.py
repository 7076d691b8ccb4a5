"""A plain HTTP receiver in a thread (http.server on 127.0.0.1), which records every request
and answers as a test says; and endpoints registered through the service."""

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from casino.models import CertificateHolder
from tests.casino.floor_fixtures import T0, operations
from webhooks.models import Endpoint
from webhooks.services import endpoint_register


@dataclass
class Received:
    """One request as the receiver read it."""

    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.time)  # when it came (Unix seconds)


@dataclass
class Receiver:
    """What it got, and how it answers: `answer(request) -> (status, headers, body)`."""

    url: str
    got: list[Received] = field(default_factory=list)
    answer: Callable[[Received], tuple[int, dict[str, str], bytes]] = lambda request: (204, {}, b"")
    delay: float = 0.0  # seconds before answering
    hold: threading.Event | None = None  # set: answer; unset: wait for it

    def wait_for(self, count: int, timeout: float = 10) -> list[Received]:
        """The first `count` requests, once they have come."""
        deadline = time.monotonic() + timeout
        while len(self.got) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.got)} requests came, not {count}")
            time.sleep(0.01)
        return self.got[:count]


@contextmanager
def receiver(
    path: str = "/hooks", *, port: int = 0, state: Receiver | None = None
) -> Iterator[Receiver]:
    """A receiver on 127.0.0.1 (a free port unless given), stopped after the block; `state`
    carries what an earlier one on the port got (one stopped and started again)."""
    state = state or Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            request = Received(self.path, dict(self.headers.items()), self.rfile.read(length))
            state.got.append(request)
            if state.hold is not None:
                state.hold.wait(30)
            if state.delay:
                time.sleep(state.delay)
            status, headers, body = state.answer(request)
            try:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:  # the client went away (its timeout): nothing to answer
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    try:
        yield state
    finally:
        if state.hold is not None:
            state.hold.set()
        server.shutdown()
        server.server_close()


def endpoint_make(
    holder: CertificateHolder, url: str, events: Iterable[str] = ("round.settled",), now=T0
) -> tuple[Endpoint, str]:
    """An endpoint of `holder` registered by operations, and its secret."""
    return endpoint_register(holder=holder, url=url, events=list(events), by=operations(), now=now)
