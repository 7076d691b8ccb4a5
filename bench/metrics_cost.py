"""What the request id and the request's metrics cost a request (issue 22, point 3).

    .venv/bin/python bench/metrics_cost.py [--requests 300]

In one process, through Django's WSGI handler (the request signals included): the demo
floor (SQLite in a scratch CASINO_DATA_DIR; with --postgres a scratch PostgreSQL database
on 127.0.0.1, dropped at the end; DATABASE_URL is never used), an
integrator's token, and two handlers built from the same settings, one with
settings.MIDDLEWARE as it is and one without `casino.logs.RequestIdMiddleware` and
`casino.api.metrics.MetricsMiddleware`. Requests alternate between the two, each first
every other time, so drift (the round growing, the machine's load, warm caches) falls on
both alike:

- `GET /api/v1/floor/` with the token;
- `POST /api/v1/rounds/{id}/wagers/`: one $25 Sic Bo wager, a new player and
  Idempotency-Key each;
- the two middlewares alone around a view that does nothing (the added cost, no noise).

PROMETHEUS_MULTIPROC_DIR is set (a scratch directory) unless --single-process: production
runs multiprocess mode, where an observation is a write to a memory-mapped file.
"""

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from settlement import database_create, database_drop  # noqa: E402 - bench/ is on sys.path

ADDED = ("casino.logs.RequestIdMiddleware", "casino.api.metrics.MetricsMiddleware")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="each endpoint, each way")
    parser.add_argument("--single-process", action="store_true", help="no multiprocess mode")
    parser.add_argument("--postgres", action="store_true", help="a scratch PostgreSQL database")
    parser.add_argument("--quick", action="store_true", help="20 requests each: it still runs")
    args = parser.parse_args()
    if args.quick:
        args.requests = 20
    scratch = Path(tempfile.mkdtemp(prefix="casino-metrics-cost-"))
    # Never the caller's floor: a scratch data directory, and DATABASE_URL (CI's points at
    # a database pytest only borrows the name of) replaced by a scratch database or dropped.
    os.environ["CASINO_DATA_DIR"] = str(scratch)
    os.environ.pop("DATABASE_URL", None)
    name = f"casino_bench_metrics_{uuid.uuid4().hex[:10]}"
    if args.postgres:
        os.environ["DATABASE_URL"] = database_create(name)
    try:
        return measure(args, scratch)
    finally:
        if args.postgres:
            if "django.db" in sys.modules:
                from django.db import connections

                connections.close_all()
            database_drop(name)


def measure(args: argparse.Namespace, scratch: Path) -> int:
    if not args.single_process:  # before prometheus_client is imported
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(scratch / "metrics")
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command
    from django.http import HttpResponse
    from django.test import RequestFactory
    from django.utils import timezone
    from django.utils.module_loading import import_string

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from casino.demo import OPS_USERNAME, demo_floor_load
    from casino.models import Table
    from casino.services.api_tokens import token_issue
    from gaming import rounds

    now = timezone.now()
    holder = demo_floor_load(now)
    users = get_user_model()
    ops = users.objects.get(username=OPS_USERNAME)
    integrator = users.objects.get(username="demo-integrator")
    _, key = token_issue(user=integrator, holder=holder, name="metrics_cost", by=ops, now=now)
    table = Table.objects.get(number="SB-01")
    round_id = rounds.round_open(table, by=integrator, now=now).pk

    with_them = WSGIHandler()
    full = list(settings.MIDDLEWARE)
    settings.MIDDLEWARE = [m for m in full if m not in ADDED]
    without = WSGIHandler()
    settings.MIDDLEWARE = full
    token = {"HTTP_AUTHORIZATION": f"Bearer {key}", "HTTP_ACCEPT": "application/json"}

    def call(handler: WSGIHandler, method: str, path: str, extra: dict, body: bytes = b"") -> int:
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1", "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
            "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/json", **extra,
        }  # fmt: skip
        status: list[str] = []
        response = handler(environ, lambda line, *_: status.append(line))
        b"".join(response)
        response.close()
        return int(status[0].split()[0])

    players = iter(range(1, 10**9))

    def floor(handler: WSGIHandler) -> int:
        return call(handler, "GET", "/api/v1/floor/", token)

    def wager(handler: WSGIHandler) -> int:
        body = json.dumps(
            {"wagers": [{"player": f"p{next(players)}", "kind": "small", "amount": "25.00"}]}
        ).encode()
        extra = {**token, "HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex}
        return call(handler, "POST", f"/api/v1/rounds/{round_id}/wagers/", extra, body)

    def alternated(request: Callable[[WSGIHandler], int], expected: int) -> tuple[float, float]:
        spent: dict[str, list[float]] = {"with": [], "without": []}
        for handler in (with_them, without):  # one each, not counted
            assert request(handler) == expected
        pair = [("with", with_them), ("without", without)]
        for index in range(args.requests):
            # Each goes first every other time: the second of a pair finds warm caches.
            for name, handler in pair if index % 2 else pair[::-1]:
                tick = time.perf_counter()
                status = request(handler)
                spent[name].append(time.perf_counter() - tick)
                assert status == expected, status
        return statistics.median(spent["with"]), statistics.median(spent["without"])

    # The two middlewares alone, around a view that does nothing.
    request_of = RequestFactory().get("/api/v1/floor/")

    def nothing(request):
        return HttpResponse(b"")

    chain = nothing
    for path in reversed(ADDED):
        chain = import_string(path)(chain)

    def alone(call_: Callable, times: int = 20000) -> float:
        tick = time.perf_counter()
        for _ in range(times):
            call_(request_of)
        return (time.perf_counter() - tick) / times

    mode = "single process" if args.single_process else "multiprocess mode (mmap files)"
    print(f"metrics_cost: {args.requests} requests each way, alternated; {mode}")
    print(f"  database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}")
    for label, request, expected in (
        ("GET /api/v1/floor/", floor, 200),
        ("POST /api/v1/rounds/{id}/wagers/", wager, 201),
    ):
        with_ms, without_ms = (1e3 * t for t in alternated(request, expected))
        print(
            f"  {label:<34} median {without_ms:7.3f} ms without, {with_ms:7.3f} ms with"
            f" ({with_ms - without_ms:+.3f} ms, {100 * (with_ms / without_ms - 1):+.1f}%)"
        )
    added_us = 1e6 * (alone(chain) - alone(nothing))
    print(f"  the two middlewares alone (an id, one observation, one increment): {added_us:.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
