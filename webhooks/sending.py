"""The POST itself: the URL's host resolved and every address checked
(webhooks/addresses.py), then the connection made to the address that was checked (the
name kept for the Host header and TLS), so a name that resolves elsewhere a moment later
(DNS rebinding) reaches nothing new. Short timeouts, no redirect followed, no proxy from
the environment, and at most the first few kilobytes of the answer read.

A socket's timeout bounds each read, not the answer: an endpoint sending its headers a
line every second would hold a try for as long as it liked. So the whole try has a
deadline, CASINO_WEBHOOK_CONNECT_SECONDS + CASINO_WEBHOOK_READ_SECONDS after it starts: a
watcher thread (urllib3's advice for a wall-clock limit) shuts the socket down then, and
the read waiting on it returns at once. Connecting is bounded by the connect timeout (the
TLS handshake too: CPython applies a socket's timeout to the whole handshake); resolving
the host is the system resolver's.
"""

import contextlib
import http.client
import ipaddress
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime

import urllib3
from django.conf import settings
from standardwebhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection

from webhooks.addresses import Address, Target, address_refusal, url_split
from webhooks.models import ANSWER_LENGTH, ERROR_LENGTH

READ_LIMIT = 4096  # bytes of an answer read; the rest is never read
USER_AGENT = "casino-floor-webhooks/1"


class DestinationRefused(Exception):
    """The URL, or an address its host resolves to, is not one a webhook may go to."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Answer:
    """What one try got: the status and the start of the body, or the error instead."""

    status: int | None
    body: str
    error: str
    duration_ms: int

    @property
    def succeeded(self) -> bool:
        """A 2xx answer: delivered."""
        return self.status is not None and 200 <= self.status < 300


def resolve(host: str, port: int) -> list[Address]:
    """Every address the host resolves to, in the resolver's order (an address is itself)."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise DestinationRefused(f"the host {host} does not resolve ({error})") from None
    addresses: list[Address] = []
    for _family, _type, _proto, _name, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%", 1)[0])  # an IPv6 zone dropped
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise DestinationRefused(f"the host {host} has no address")
    return addresses


def destination(url: str) -> tuple[Target, Address]:
    """The URL's parts and the address to connect to; DestinationRefused naming why not
    (its form, or any address its host resolves to: one bad address refuses them all)."""
    target, reasons = url_split(url, https_only=settings.CASINO_WEBHOOK_HTTPS_ONLY)
    if target is None:
        raise DestinationRefused("; ".join(reasons))
    addresses = resolve(target.host, target.port)
    allowed = settings.CASINO_WEBHOOK_ALLOWED_NETWORKS
    for address in addresses:
        refusal = address_refusal(address, allowed)
        if refusal is not None:
            where = "" if str(address) == target.host else f"{target.host} resolves to "
            raise DestinationRefused(where + refusal)
    return target, addresses[0]


def url_refusals(url: str) -> list[str]:
    """Why an endpoint may not have this URL (its form, its host's addresses); [] if it may."""
    target, reasons = url_split(url, https_only=settings.CASINO_WEBHOOK_HTTPS_ONLY)
    if target is None:
        return reasons
    try:
        destination(url)
    except DestinationRefused as refused:
        return [refused.reason]
    return []


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST `body` to `url` once: the answer, or the error that stopped it (never raised),
    within the try's deadline (the module's docstring)."""
    started = time.monotonic()
    connect, read = settings.CASINO_WEBHOOK_CONNECT_SECONDS, settings.CASINO_WEBHOOK_READ_SECONDS
    deadline = started + connect + read
    try:
        target, address = destination(url)
    except DestinationRefused as refused:
        return _answer(None, b"", f"refused: {refused.reason}", started)
    connection = _connection(target, address, timeout=connect)
    sent = {
        **headers,
        "Host": target.host_header,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Accept-Encoding": "identity",
        "Connection": "close",
    }
    watch = None
    try:
        connection.connect()
        watch = Deadline(connection, deadline)
        connection.request(
            "POST", target.path, body=body, headers=sent, preload_content=False,
            decode_content=False,
        )  # fmt: skip
        connection.timeout = read  # each read of the answer; the deadline bounds them all
        response = connection.getresponse()
        try:
            if watch.fired:  # the headers cut short (http.client takes the end for theirs)
                raise TimeoutError("the try's deadline")
            return _answer(response.status, _read_some(response, deadline), "", started)
        finally:
            response.close()
    except (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError) as error:
        if watch is not None and watch.fired:
            text = f"no answer within the try's {connect + read:g} s"
        else:
            text = _error_text(error, connect, read)
        return _answer(None, b"", text, started)
    finally:
        if watch is not None:
            watch.cancel()
        connection.close()


def _connection(target: Target, address: Address, timeout: float) -> HTTPConnection:
    """A connection to the checked address, the URL's host named for TLS and its
    certificate; no proxy, no retry, no redirect (one request, then closed)."""
    if target.scheme == "https":
        return HTTPSConnection(
            str(address),
            target.port,
            timeout=timeout,
            server_hostname=None if _is_address(target.host) else target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
        )
    return HTTPConnection(str(address), target.port, timeout=timeout)


class Deadline:
    """Shuts the connection's socket down at `deadline` (time.monotonic()), from a thread
    of its own: whatever read or write waits on it then returns at once. `fired` says it
    did."""

    def __init__(self, connection: HTTPConnection, deadline: float) -> None:
        self.connection = connection
        self.fired = False
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # closed meanwhile: nothing waits on it
                # The plain socket's own shutdown, for TLS too: the SSL object is the
                # reading thread's, never touched from here.
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        """The try is over: the watcher stops."""
        self._timer.cancel()


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _read_some(response: urllib3.BaseHTTPResponse, deadline: float) -> bytes:
    """At most READ_LIMIT bytes of the body, and nothing after the try's deadline (the
    watcher ends a read that waits past it). The status came: a body cut short, by the
    deadline or the endpoint, leaves the answer what its status says."""
    got = b""
    with contextlib.suppress(urllib3.exceptions.HTTPError, http.client.HTTPException, OSError):
        while len(got) < READ_LIMIT and time.monotonic() < deadline:
            chunk = response.read1(READ_LIMIT - len(got), decode_content=False)
            if not chunk:
                break
            got += chunk
    return got


def _error_text(error: BaseException, connect: float, read: float) -> str:
    if isinstance(error, urllib3.exceptions.NewConnectionError):  # a ConnectTimeoutError too
        text = f"no connection: {error}"
    elif isinstance(error, urllib3.exceptions.ConnectTimeoutError):
        text = f"no connection within {connect:g} s"
    elif isinstance(error, (urllib3.exceptions.ReadTimeoutError, TimeoutError)):
        # One read waited its whole timeout (socket.timeout is TimeoutError).
        text = f"no answer within {read:g} s"
    else:
        text = f"{type(error).__name__}: {error}"
    return text if len(text) <= ERROR_LENGTH else text[: ERROR_LENGTH - 1] + "\u2026"


def _answer(status: int | None, body: bytes, error: str, started: float) -> Answer:
    text = body.decode("utf-8", errors="replace")[:ANSWER_LENGTH]
    return Answer(status, text, error[:ERROR_LENGTH], int((time.monotonic() - started) * 1000))


def signature_headers(
    message_id: str, body: str, secrets: list[str], at: datetime
) -> dict[str, str]:
    """The Standard Webhooks headers of one try: its id (the same every try), the moment it
    is signed, and a signature by each secret (two during a rotation's grace), signed by
    the `standardwebhooks` package."""
    signatures = " ".join(Webhook(secret).sign(message_id, at, body) for secret in secrets)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": signatures,
    }
