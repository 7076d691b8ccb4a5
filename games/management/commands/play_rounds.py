"""Play rounds on the floor's open tables through the services, settled by the workers.

    python manage.py play_rounds --rounds 5 [--tables CR-01,SB-01] [--seed 7] [--json]

Round-robin over the tables: a table's next round opens once the workers have settled
its last (its game state carries into the next). Exits 1 if rounds are still unsettled
after --timeout seconds.
"""

import json
import random
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from casino.models import Table
from casino.services.errors import FloorRefused
from casino.services.floor import round_start_refusals
from games.demo_rounds import round_play
from games.models import Round


class Command(BaseCommand):
    help = "Play rounds on every open table (or those named) through the services."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--rounds", type=int, default=3, help="Rounds per table.")
        parser.add_argument("--tables", default="", help="Comma-separated table numbers.")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--user", default="demo-ops", help="Who deals (needs run_round).")
        parser.add_argument("--timeout", type=float, default=120.0)
        parser.add_argument("--no-wait", action="store_true", help="Do not wait at the end.")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        by = get_user_model().objects.filter(username=options["user"]).first()
        if by is None:
            raise CommandError(f"no user {options['user']!r} (load_demo_floor creates demo-ops)")
        rng = random.Random(options["seed"])
        now = timezone.now()
        tables = Table.objects.filter(status=Table.Status.OPEN).order_by("number")
        if options["tables"]:
            names = [n.strip() for n in options["tables"].split(",") if n.strip()]
            tables = tables.filter(number__in=names)
        tables = [t for t in tables if not round_start_refusals(t, now)]
        if not tables:
            raise CommandError("no open table may start a round")
        played: dict[str, list[int]] = {t.number: [] for t in tables}
        deadline = time.monotonic() + options["timeout"]
        while time.monotonic() < deadline:
            waiting = False
            for table in tables:
                if len(played[table.number]) >= options["rounds"]:
                    continue
                if table.rounds.filter(status__in=Round.IN_PROGRESS).exists():
                    waiting = True  # the workers have not settled its last round yet
                    continue
                try:
                    round_ = round_play(table, rng, by=by, now=timezone.now())
                except FloorRefused as refused:
                    raise CommandError(str(refused)) from None
                played[table.number].append(round_.pk)
                waiting = True
            if not waiting:
                break
            time.sleep(0.05)
        ids = [pk for pks in played.values() for pk in pks]
        if not options["no_wait"]:
            while time.monotonic() < deadline and self._pending(ids):
                time.sleep(0.1)
        pending = self._pending(ids)
        report = {
            "played": len(ids),
            "settled": len(ids) - len(pending),
            "pending": pending,
            "tables": {number: len(pks) for number, pks in played.items()},
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            self.stdout.write(
                f"{report['played']} rounds played on {len(tables)} tables, "
                f"{report['settled']} settled"
                + (f"; pending: {', '.join(pending)}" if pending else "")
            )
        short = any(len(p) < options["rounds"] for p in played.values())
        if (pending and not options["no_wait"]) or (short and not options["no_wait"]):
            raise SystemExit(1)

    @staticmethod
    def _pending(ids: list[int]) -> list[str]:
        rows = Round.objects.filter(pk__in=ids).exclude(status=Round.Status.SETTLED)
        return [r.label for r in rows.select_related("table")]
