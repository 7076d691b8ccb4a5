"""Game recall: ``python manage.py recall CR-01:57`` (table number:round number, or the
round's id) replays the round through the engine and shows each stored resolution
reproduced, with its citation. Exits 1 if any is not."""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Sum

from games.models import LedgerLine, Round
from games.recall import round_recall


class Command(BaseCommand):
    help = "Replay a settled round and show that its stored resolutions are reproduced."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("round", help="TABLE:NUMBER (e.g. CR-01:57) or the round's id")

    def handle(self, *args: Any, **options: Any) -> None:
        round_ = round_find(options["round"])
        if round_.status != Round.Status.SETTLED:
            raise CommandError(f"{round_.label} is {round_.get_status_display().lower()}")
        recall = round_recall(round_)
        out = self.stdout.write
        settled = f"{round_.settled_at:%Y-%m-%d %H:%M:%S %Z}"
        out(f"Round {round_.label} ({round_.game}), settled {settled}")
        out(f"Rules Submission: {round_.rules_submission}")
        out(f"Options: {json.dumps(round_.options, sort_keys=True)}")
        same = "the same" if recall.rules_hash_now == round_.rules_hash else "DIFFERENT"
        out(f"Rules hash: settled by {round_.rules_hash[:16]}..., this code {same}")
        if recall.earlier_rounds:
            out(
                f"Game state rebuilt from the {recall.earlier_rounds} earlier round(s) it continues"
            )
        out("Events:")
        for event in round_.events.select_related("device").order_by("seq"):
            cite = f"  ({event.cite})" if event.cite else ""
            device = event.device
            by = f"  from {device.get_kind_display()} {device.serial_number}" if device else ""
            out(f"  #{event.seq} {event.event} {json.dumps(event.payload)}{by}{cite}")
        out("Resolutions:")
        for decision in recall.decisions:
            shown = decision.stored or decision.replayed
            assert shown is not None
            result, net, cite = shown
            mark = (
                "reproduced"
                if decision.reproduced
                else f"NOT REPRODUCED: replay gives {decision.replayed}"
            )
            out(f"  {decision.wager}: {result} {net:+.2f}  {cite}  {mark}")
        total = LedgerLine.objects.filter(entry__round=round_).aggregate(s=Sum("amount"))["s"]
        out(f"Ledger: the round's entries sum to {total or 0:.2f}")
        done = sum(d.reproduced for d in recall.decisions)
        out(f"Reproduced {done} of {len(recall.decisions)} resolutions.")
        if not recall.all_reproduced:
            raise CommandError(f"{round_.label}: the stored resolutions are not reproduced")


def round_find(text: str) -> Round:
    """A round by TABLE:NUMBER or by id; CommandError naming the problem otherwise."""
    rounds = Round.objects.select_related("table", "rules_submission")
    if text.isdigit():
        found = rounds.filter(pk=int(text))
    elif ":" in text and text.rsplit(":", 1)[1].isdigit():
        table, number = text.rsplit(":", 1)
        found = rounds.filter(table__number=table, number=int(number))
    else:
        raise CommandError(f"{text!r}: give TABLE:NUMBER (e.g. CR-01:57) or a round id")
    matches = list(found[:2])
    if not matches:
        raise CommandError(f"no round {text!r}")
    if len(matches) > 1:
        raise CommandError(f"{text!r} names rounds of two certificate holders; give the id")
    return matches[0]
