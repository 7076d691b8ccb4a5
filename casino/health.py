"""The load balancer's probes: liveness (/health/) and readiness (/ready/).

Plain Django views: no DRF, no login, no session or CSRF, so a probe costs one count of
its address's budget (casino/api/throttles.py; let through when the cache is down) and
answers even when the API's machinery would not. Liveness touches nothing: a process
that can answer is alive, and restarting it would not mend a database that is down.
Readiness checks what a request needs (the database, the broker, the heartbeat store),
each in its own thread with a deadline, so a probe never hangs on a dead host.
"""

import os
import re
import threading
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from casino.api import throttles
from casino.api.errors import error_body, throttled_response
from casino.celery import app

# /ready/ looks at every service the floor needs, the devices' store among them: like the
# urls that serve it, it sits above the devices app.
from devices import store as device_store

# Seconds each readiness check may take; they run side by side, so a probe answers
# within about this long (load balancers usually give a probe 5 s; deploy/haproxy.cfg 4).
# More than 2: with one of two database hosts gone, the database check's new connection
# spends libpq's least connect timeout, 2 s, on it before the other (docs/deploy.md).
CHECK_SECONDS = 3.0
OK = "ok"
_ALLOWED = ("GET", "HEAD")

# A check still running from an earlier probe (a database host that swallows packets) is
# not started again: at most one stuck thread per check, however often the probe comes.
_running: dict[str, threading.Thread] = {}
_running_lock = threading.Lock()


def _refused(request: HttpRequest) -> JsonResponse | None:
    """405 for a method a probe never sends; 429 past the address's probe budget (a
    budget of its own: a flood of API calls from a load balancer's address never fails
    its probes). The load balancer's own addresses (CASINO_PROBE_TRUSTED) are never
    counted: behind it every caller has its address, and its probes must never be refused."""
    if request.method in _ALLOWED:
        probe_from = throttles.address(request)
        if probe_from in settings.CASINO_PROBE_TRUSTED:
            return None
        wait = throttles.take("probe", probe_from).wait
        return throttled_response(throttles.refusal_text("probe", wait), wait) if wait else None
    text = f"method {request.method} not allowed"
    response = JsonResponse(error_body(405, "method_not_allowed", text, [text]), status=405)
    response["Allow"] = ", ".join(_ALLOWED)
    return response


@csrf_exempt
@never_cache
def health(request: HttpRequest) -> JsonResponse:
    """Liveness: 200 whenever the process can answer; touches no database or broker."""
    return _refused(request) or JsonResponse({"status": "ok"})


@csrf_exempt
@never_cache
def ready(request: HttpRequest) -> JsonResponse:
    """Readiness: 200 when the database, broker and device store answer, else 503."""
    refused = _refused(request)
    if refused is not None:
        return refused
    checks = run_checks(
        {"database": database_check, "broker": broker_check, "device_store": device_store_check}
    )
    if all(result == OK for result in checks.values()):
        return JsonResponse({"status": "ready", "checks": checks})
    return JsonResponse({"status": "not ready", "checks": checks}, status=503)


def run_checks(checks: dict[str, Callable[[], None]]) -> dict[str, str]:
    """Run the checks side by side: "ok", or each one's message, within CHECK_SECONDS."""
    results: dict[str, str] = {}
    threads: dict[str, threading.Thread] = {}
    with _running_lock:
        for name, check in checks.items():
            earlier = _running.get(name)
            if earlier is not None and earlier.is_alive():
                results[name] = "an earlier check has not finished yet"
                continue
            thread = threading.Thread(
                target=_run, args=(name, check, results), name=f"ready-{name}", daemon=True
            )
            _running[name] = thread
            threads[name] = thread
            thread.start()
    deadline = time.monotonic() + CHECK_SECONDS
    for name, thread in threads.items():
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            results[name] = f"no answer within {CHECK_SECONDS:g} s"
    return {name: results[name] for name in checks}


def _run(name: str, check: Callable[[], None], results: dict[str, str]) -> None:
    try:
        check()
    except Exception as error:  # any failure is a message, never a traceback
        results.setdefault(name, describe(error))
    else:
        results.setdefault(name, OK)


def database_check() -> None:
    """SELECT 1 on the default database, on this thread's own connection, then closed."""
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()  # the thread ends here: keep no connection open behind it


def broker_check() -> None:
    """Connect to the Celery broker once; the embedded one: its folders are writable."""
    if app.conf.broker_write_url.startswith("filesystem://"):
        options = app.conf.broker_transport_options or {}
        for key in ("data_folder_in", "data_folder_out", "control_folder"):
            folder = options.get(key)
            if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
                raise OSError(f"broker folder {folder} is missing or not writable")
        return
    with app.connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, interval_start=0, timeout=CHECK_SECONDS)


def device_store_check() -> None:
    """PING the heartbeat store's Redis; the database store is the database check's."""
    current = device_store.store()
    if isinstance(current, device_store.RedisStore):
        current.client.ping()


def describe(error: BaseException) -> str:
    """One line naming the error, with no password from any URL or setting in it."""
    text = " ".join(f"{type(error).__name__}: {error}".split())
    text = re.sub(r"(?<=://)[^/@\s]*@", "***@", text)
    for secret in _secrets():
        text = text.replace(secret, "***")
    return text[:300]


def _secrets() -> list[str]:
    found = [str(settings.DATABASES[DEFAULT_DB_ALIAS].get("PASSWORD") or "")]
    for url in (settings.CELERY_BROKER_URL, settings.CASINO_DEVICE_STORE_URL):
        try:
            found.append(urlsplit(url).password or "")
        except ValueError:
            continue
    return [secret for secret in found if secret]
