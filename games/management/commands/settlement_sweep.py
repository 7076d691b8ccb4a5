"""Send again every settlement request stuck longer than --stuck-after seconds (beat does
this every CASINO_SETTLEMENT_SWEEP_SECONDS; this is the same sweep by hand)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from games.services.outbox import requests_sweep


class Command(BaseCommand):
    help = "Re-send settlement requests that no worker has settled in time."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--stuck-after", type=float, default=None)

    def handle(self, *args: Any, **options: Any) -> None:
        count = requests_sweep(timezone.now(), options["stuck_after"])
        self.stdout.write(f"{count} settlement request(s) sent again")
