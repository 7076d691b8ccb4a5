"""The floor's counters and histograms (Prometheus), written where things happen.

Counters and histograms count events in the process that sees them: a round opened in a
web process, a round settled in a Celery worker's pool process. /metrics is served by
another process, so with PROMETHEUS_MULTIPROC_DIR set (floor.py, deploy/) prometheus_client
writes each process's values to memory-mapped files in that directory and the scrape adds
them up (`registry`). That choice is made when prometheus_client is first imported, from
the environment: set the variable before the process starts, never in settings.

What describes the floor's state now (settlement requests waiting, devices by status, sets
due) is not counted here: gaming/metrics.py reads it from the database and the heartbeat
store at scrape time, so it is right whichever process changed it, and after a restart.

The casino layer: anything above may import it; it imports only prometheus_client.
"""

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from django.db import transaction
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, multiprocess

MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
# A process given the variable writes there from its first count: the directory must be.
if os.environ.get(MULTIPROC_VARIABLE):
    Path(os.environ[MULTIPROC_VARIABLE]).mkdir(parents=True, exist_ok=True)

# Seconds: a request is milliseconds; a round's settlement well under a second on a sound
# floor, seconds while the sweep sends a lost message again (issue 19), minutes when stuck.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SETTLE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0, 300.0)

ROUNDS_OPENED = Counter("casino_rounds_opened", "Rounds opened, by game.", ["game"])
ROUNDS_SETTLED = Counter("casino_rounds_settled", "Rounds settled by a worker, by game.", ["game"])
RESULT_TO_SETTLED = Histogram(
    "casino_round_result_to_settled_seconds",
    "From the round's result (its settlement request written) to its settlement committed.",
    ["game"],
    buckets=SETTLE_BUCKETS,
)
SETTLEMENT_FAILURES = Counter(
    "casino_settlement_failures",
    "Settlements that failed and were recorded as an alert, by failure kind.",
    ["kind"],
)
WEBHOOK_TRIES = Counter(
    "casino_webhook_tries",
    "Webhook tries recorded, by outcome: delivered, failed (tried again), dead_letter.",
    ["outcome"],
)
for _outcome in ("delivered", "failed", "dead_letter"):
    WEBHOOK_TRIES.labels(_outcome)  # each at 0 from the start: a rate needs its zero
REFUSALS = Counter(
    "casino_api_refusals",
    "Error answers under /api/ and /devices/, by the error body's code and the status.",
    ["code", "status"],
)
RESPONSES = Counter(
    "casino_http_responses", "Answers by status code (every path but /metrics).", ["status"]
)
REQUEST_SECONDS = Histogram(
    "casino_http_request_duration_seconds",
    "Time to answer a request, by view (its URL name) and method.",
    ["view", "method"],
    buckets=REQUEST_BUCKETS,
)


def on_commit(count: Callable[[], None]) -> None:
    """Count once the transaction commits: a rolled-back action counts nothing."""
    transaction.on_commit(count)


def multiprocess_dir() -> Path | None:
    """Where this process's values go when several processes serve one /metrics."""
    value = os.environ.get(MULTIPROC_VARIABLE, "")
    return Path(value) if value else None


def multiprocess_dir_reset(directory: Path) -> None:
    """Empty the directory before the processes that share it start (a dead process's
    files would otherwise be added to the next run's, and its pid may come back)."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's files when they are shared, else this
    process's own metrics (one process: runserver, the tests)."""
    directory = multiprocess_dir()
    if directory is None:
        return REGISTRY
    scraped = CollectorRegistry()
    multiprocess.MultiProcessCollector(scraped, path=str(directory))
    return scraped
