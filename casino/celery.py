"""The Celery app: configured from Django settings (the CELERY_ namespace).

Logging is Django's (settings.LOGGING: JSON lines in production, the request id), not
Celery's own: a receiver of `setup_logging` stops Celery from replacing the root handler.
A task carries the request id, table and round of the request that published it
(casino/logs.py), and a worker given CASINO_WORKER_METRICS_PORT serves its processes'
counters there (casino/metrics.py). After every task a database connection left inside a
transaction Django does not know of (a soft time limit landing in BEGIN) is rolled back and
closed (casino/db_connections.py).
"""

import logging.config
import os
from typing import Any

from celery import Celery, signals
from django.conf import settings
from prometheus_client import start_http_server

from casino import db_connections, logs, metrics

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
# celery-redbeat looks its settings up by their own names (redbeat_redis_url, ...), which
# the namespace leaves prefixed: given here as it reads them.
app.conf.update(
    {
        name.removeprefix("CELERY_").lower(): getattr(settings, name)
        for name in dir(settings)
        if name.startswith("CELERY_REDBEAT_")
    }
)
app.autodiscover_tasks()


@signals.setup_logging.connect
def _logging_from_settings(**kwargs: Any) -> None:
    logging.config.dictConfig(settings.LOGGING)


signals.before_task_publish.connect(logs.task_publish_context, weak=False)
signals.task_prerun.connect(logs.task_context_enter, weak=False)
signals.task_postrun.connect(logs.task_context_leave, weak=False)
signals.task_postrun.connect(db_connections.after_task, weak=False)


@signals.worker_init.connect
def _worker_metrics_serve(**kwargs: Any) -> None:
    """A worker on its own machine (deploy/) serves its processes' counters and histograms
    (rounds settled, result to settled) for Prometheus on CASINO_WORKER_METRICS_PORT; with
    floor.py the web's /metrics reads the same directory and no port is needed."""
    port = os.environ.get("CASINO_WORKER_METRICS_PORT", "")
    if not port:
        return
    directory = metrics.multiprocess_dir()
    if directory is None:
        raise RuntimeError("CASINO_WORKER_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR (deploy/)")
    metrics.multiprocess_dir_reset(directory)  # this worker's own: its pool starts after
    start_http_server(int(port), registry=metrics.registry())
