"""Play rounds on the floor's open tables through the services, settled by the workers.

    python manage.py play_rounds --rounds 5 [--tables CR-01,SB-01] [--seed 7] [--json]

Round-robin over the tables: a table's next round opens once the workers have settled
its last (its game state carries into the next). Exits 1 if rounds are still unsettled
after --timeout seconds.

The database may go away (a PostgreSQL restart): the dealer waits for it with backoff
and, when it is back, finishes the round it left half dealt (its result entered over the
wagers it holds), so nothing is left for a person. It gives up, naming the database,
only at --timeout.
"""

import json
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import InterfaceError, OperationalError, connections
from django.utils import timezone

from casino.models import Table
from casino.services.errors import FloorRefused
from games.demo_rounds import round_finish, round_play
from games.models import Round
from gaming.tables import round_start_refusals

T = TypeVar("T")
RETRY_ON = (OperationalError, InterfaceError)  # the database went away, or its connection
BACKOFF = (0.2, 0.5, 1.0, 2.0)  # seconds between tries, the last repeated


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
        now = self.started = timezone.now()
        tables = Table.objects.filter(status=Table.Status.OPEN).order_by("number")
        if options["tables"]:
            names = [n.strip() for n in options["tables"].split(",") if n.strip()]
            tables = tables.filter(number__in=names)
        tables = [t for t in tables if not round_start_refusals(t, now)]
        if not tables:
            raise CommandError("no open table may start a round")
        played: dict[str, list[int]] = {t.number: [] for t in tables}
        deadline = time.monotonic() + options["timeout"]
        self.database_lost = False  # once it has been, a lost answer may hide a round
        self.finished: list[
            str
        ] = []  # rounds left half dealt, finished when the database came back
        while time.monotonic() < deadline:
            waiting = False
            for table in tables:
                if len(played[table.number]) >= options["rounds"]:
                    continue
                step = self._retrying(
                    lambda t=table: self._table_step(t, played[t.number], rng, by), deadline
                )
                waiting = waiting or step
            if not waiting:
                break
            time.sleep(0.05)
        ids = [pk for pks in played.values() for pk in pks]
        if not options["no_wait"]:
            while time.monotonic() < deadline and self._retrying(
                lambda: self._pending(ids), deadline
            ):
                time.sleep(0.1)
        pending = self._retrying(lambda: self._pending(ids), deadline)
        report = {
            "played": len(ids),
            "settled": len(ids) - len(pending),
            "pending": pending,
            "tables": {number: len(pks) for number, pks in played.items()},
            "finished_after_database_loss": self.finished,
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

    def _table_step(self, table: Table, played: list[int], rng: random.Random, by: Any) -> bool:
        """Play the table's next round, or finish the one it left half dealt; False if it
        waits for nothing. A round whose result is entered waits for the workers."""
        current = table.rounds.filter(status__in=Round.IN_PROGRESS).order_by("-number").first()
        try:
            if current is None and self.database_lost:
                # A round played this run whose answer was lost with the database may be
                # settled already (the workers got there first): counted once, not dropped.
                lost = table.rounds.filter(opened_by=by, opened_at__gte=self.started)
                found = list(lost.exclude(pk__in=played).values_list("pk", flat=True))
                if found:
                    played.extend(found)
                    return True  # the caller counts again before the next round
            if current is None:
                played.append(round_play(table, rng, by=by, now=timezone.now()).pk)
            elif current.status != Round.Status.RESULT_ENTERED and current.opened_by_id == by.pk:
                # Half dealt by this dealer (this run, or one that lost the database before
                # it); a round a person is dealing is theirs to finish: the table waits.
                round_finish(current, rng, by=by, now=timezone.now())
                self.finished.append(current.label)
                if current.pk not in played:
                    played.append(current.pk)
            elif (
                current.opened_by_id == by.pk
                and current.pk not in played
                and current.opened_at >= self.started
            ):
                # Played this run to its result, its answer lost with the database: counted
                # once, and not played again.
                played.append(current.pk)
        except FloorRefused as refused:
            raise CommandError(str(refused)) from None
        return True

    def _retrying(self, action: Callable[[], T], deadline: float) -> T:
        """`action`, tried again with backoff while the database is away, until `deadline`."""
        lost_at, attempt = None, 0
        while True:
            try:
                done = action()
            except RETRY_ON as error:
                lost_at = lost_at or time.monotonic()
                self.database_lost = True
                # A broken connection is not used again: the next try opens a new one (not
                # inside a caller's transaction, a test's: closing would end it).
                for connection in connections.all():
                    if not connection.in_atomic_block:
                        connection.close_if_unusable_or_obsolete()
                wait = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                attempt += 1
                if time.monotonic() + wait > deadline:
                    raise CommandError(
                        f"the database did not come back before --timeout: {error}"
                    ) from None
                self.stderr.write(f"database unavailable ({error}); trying again in {wait:g} s")
                time.sleep(wait)
                continue
            if lost_at is not None:
                self.stderr.write(f"database back after {time.monotonic() - lost_at:.1f} s")
            return done

    @staticmethod
    def _pending(ids: list[int]) -> list[str]:
        rows = Round.objects.filter(pk__in=ids).exclude(status=Round.Status.SETTLED)
        return [r.label for r in rows.select_related("table")]
