"""gunicorn settings for the web process, from the environment."""

import multiprocessing
import os
import shutil
import tempfile
from typing import Any

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"

# /metrics adds up every worker's counters and histograms through files in
# PROMETHEUS_MULTIPROC_DIR (casino/metrics.py). Set before prometheus_client is imported
# (here, in the master: the workers are forked from it), one directory per server.
metrics_dir = os.environ.setdefault(
    "PROMETHEUS_MULTIPROC_DIR",
    os.path.join(tempfile.gettempdir(), f"casino-metrics-{bind.rsplit(':', 1)[-1]}"),
)
from prometheus_client import multiprocess  # noqa: E402 - after the variable, on purpose

workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
# Threads: a heartbeat or a request mostly waits on Redis or PostgreSQL, and a sync worker
# waits with its whole process (bench/README.md, heartbeats: about 1,000 a second on 4 sync
# workers, 3,000 on 4 gthread workers of 4 threads). Each thread keeps its own database
# connection: workers x threads of them per machine.
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
threads = int(os.environ.get("WEB_THREADS", "4"))
timeout = int(os.environ.get("WEB_TIMEOUT", "30"))
graceful_timeout = 30
# A worker is replaced after about this many requests, the jitter apart so the workers of a
# machine are not replaced together (each finishes its requests in flight first, within
# graceful_timeout): what a long-lived process keeps growing (the allocator's arenas, the
# caches each bounded on its own) stays within the web worker's memory budget
# (docs/deploy.md, Memory budgets). 0 turns it off.
max_requests = int(os.environ.get("WEB_MAX_REQUESTS", "50000"))
max_requests_jitter = int(os.environ.get("WEB_MAX_REQUESTS_JITTER", str(max_requests // 10)))
accesslog = "-"
errorlog = "-"
# gunicorn's combined line, then the time taken and the request id the answer carries
# (casino/logs.py), so a line of the access log finds the request's own log lines.
access_log_format = (
    '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms'
    " request_id=%({x-request-id}o)s"
)
# The request line: gunicorn's largest bounded limit (past it, 0, it reads a line of any
# length). The floor's own limit, CASINO_API_MAX_REQUEST_LINE (4094 bytes by default), is
# under it and is answered by Django (casino/api/middleware.py): a 414 in the one JSON
# body the schema declares. Only a line over 8190 bytes meets gunicorn's own HTML 414.
limit_request_line = 8190
# The load balancer in front terminates TLS and sets X-Forwarded-Proto.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")


def on_starting(server: Any) -> None:
    """Before the first worker: an empty metrics directory (a previous run's files out, and
    a pid that comes back would add to them)."""
    shutil.rmtree(metrics_dir, ignore_errors=True)
    os.makedirs(metrics_dir, exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    """A worker gone: its live gauges removed (its counters stay: they are totals)."""
    multiprocess.mark_process_dead(worker.pid, metrics_dir)
