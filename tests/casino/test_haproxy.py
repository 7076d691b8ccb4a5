"""deploy/haproxy.cfg: overload refused, not queued, and the devices' own way in.

The live test runs Debian's HAProxy (CI installs it) with the committed configuration in
front of two small servers on loopback: a "web" that takes a second over each request and a
"devices" server that answers at once. With the web's one slot busy and its queue full, a
request is answered 503 `overloaded` with Retry-After at once, one that waits is answered
503 after QUEUE_TIMEOUT, never later; and a device request, through either way in, is
answered at once however busy the web is.
"""

import http.client
import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from casino.api.errors import ERROR_CODES
from tests.services import in_ci

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CONFIG = DEPLOY / "haproxy.cfg"
ERROR_FILE = DEPLOY / "haproxy-503.http"
WEB_SECONDS = 1.0  # what the slow web takes over a request


def haproxy() -> str:
    found = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None
    )
    if found is None:
        message = "haproxy is not installed (apt-get install haproxy)"
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)
    return found


def test_the_503_is_the_apis_one_error_body_with_retry_after() -> None:
    head, body = ERROR_FILE.read_bytes().split(b"\r\n\r\n", 1)
    status, *lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    assert status == "HTTP/1.1 503 Service Unavailable"
    assert headers["content-type"] == "application/json"
    assert int(headers["retry-after"]) >= 1
    assert int(headers["content-length"]) == len(body)  # the connection can be kept
    error = json.loads(body)
    assert set(error) == {"status", "code", "detail", "reasons", "fields"}
    assert (error["status"], error["code"]) == (503, "overloaded")
    assert ERROR_CODES["overloaded"].startswith("503")
    assert error["reasons"] == [error["detail"]] and error["fields"] == {}


def test_the_configuration_is_valid() -> None:
    done = subprocess.run(
        [haproxy(), "-c", "-f", str(CONFIG)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stdout + done.stderr


class Server:
    """A threaded HTTP server on loopback answering 200 after `seconds` (/ready/ at once)."""

    def __init__(self, seconds: float) -> None:
        self.served = 0

        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                if self.path != "/ready/":
                    time.sleep(seconds)
                    outer.served += 1
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.port = self.http.server_address[1]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str) -> tuple[int, dict[str, str], bytes, float]:
    tick = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Host": "127.0.0.1"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    headers = {k.lower(): v for k, v in response.getheaders()}
    return response.status, headers, body, time.monotonic() - tick


@pytest.fixture
def balancer() -> Iterator[dict]:
    binary = haproxy()
    web, devices = Server(WEB_SECONDS), Server(0.0)
    ports = {"floor": free_port(), "devices": free_port()}
    env = {
        "FLOOR_BIND": f"127.0.0.1:{ports['floor']}",
        "DEVICES_BIND": f"127.0.0.1:{ports['devices']}",
        "WEB_SERVER": f"127.0.0.1:{web.port}",
        "DEVICES_SERVER": f"127.0.0.1:{devices.port}",
        "WEB_MAXCONN": "1",
        "WEB_MAXQUEUE": "1",
        "QUEUE_TIMEOUT": "300",
        "PROBE_HOST": "127.0.0.1",
    }
    process = subprocess.Popen(
        [binary, "-db", "-f", str(CONFIG)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while True:  # up: both servers found ready by the health check
            try:
                if get(ports["devices"], "/devices/v1/x")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "haproxy did not start"
            time.sleep(0.1)
        yield {**ports, "web": web}
    finally:
        process.terminate()
        process.wait(10)
        web.stop()
        devices.stop()


def test_overload_is_shed_at_once_and_devices_never_wait(balancer: dict) -> None:
    floor, answers = balancer["floor"], {}

    def ask(name: str, delay: float) -> None:
        time.sleep(delay)
        answers[name] = get(floor, "/api/v1/floor/")

    # One in the web's one slot, one in its queue of one (answered 503 after 300 ms of
    # waiting), the rest refused at once: the queue is full.
    threads = [threading.Thread(target=ask, args=(f"r{n}", 0.05 * n)) for n in range(5)]
    for thread in threads:
        thread.start()
    time.sleep(0.4)  # the web busy with the first: the devices' way in answers at once
    for port in (balancer["devices"], floor):
        status, _, _, took = get(port, "/devices/v1/heartbeat")
        assert status == 200 and took < 0.25, (port, status, took)
        for private in ("/ready/", "/metrics"):  # never routed from the public side
            assert get(port, private)[0] == 404, (port, private)
    for thread in threads:
        thread.join()
    statuses = sorted(status for status, _, _, _ in answers.values())
    assert statuses == [200, 503, 503, 503, 503]
    for status, headers, body, took in answers.values():
        if status == 503:
            assert headers["retry-after"] == "1"
            assert json.loads(body)["code"] == "overloaded"
            assert took < 0.3 + 0.25  # the queue's time at most, never the web's second
        else:
            assert took >= WEB_SECONDS
    assert balancer["web"].served == 1  # nothing shed reached the web
