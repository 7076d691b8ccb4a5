"""Check that workers serve the queues: send a ping on each, wait for the answers."""

import json
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from workers.models import WorkerPing
from workers.services import worker_ping_send


class Command(BaseCommand):
    help = "Send a ping on each queue and wait until a worker answers; exit 1 if none does."

    def add_arguments(self, parser):
        parser.add_argument(
            "--queue",
            action="append",
            choices=settings.CELERY_QUEUE_NAMES,
            help="A queue to check (repeatable); default: every queue.",
        )
        parser.add_argument("--timeout", type=float, default=30.0, help="Seconds to wait.")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="Print the answers as JSON."
        )

    def handle(self, *args, queue, timeout, as_json: bool, **options):
        queues = queue or list(settings.CELERY_QUEUE_NAMES)
        ids = [worker_ping_send(queue=name).pk for name in queues]
        deadline = time.monotonic() + timeout
        while True:
            pings = list(WorkerPing.objects.filter(pk__in=ids).order_by("pk"))
            if all(p.answered_at for p in pings) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        report = [
            {
                "id": p.pk,
                "queue": p.queue,
                "answered_by": p.answered_by or None,
                "answered_pid": p.answered_pid,
                "latency_ms": p.latency_ms,
            }
            for p in pings
        ]
        if as_json:
            self.stdout.write(json.dumps({"pings": report}))
        else:
            for row in report:
                if row["answered_by"]:
                    self.stdout.write(
                        f"queue {row['queue']}: answered by {row['answered_by']} "
                        f"in {row['latency_ms']} ms"
                    )
                else:
                    self.stdout.write(f"queue {row['queue']}: no answer within {timeout:g} s")
        silent = [row["queue"] for row in report if not row["answered_by"]]
        if silent:
            raise CommandError(f"no worker answered on: {', '.join(silent)}")
