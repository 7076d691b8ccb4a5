"""A round at a table, the events that made it, the wagers placed and how each was decided."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from casino.models.append_only import AppendOnly
from casino.rules.text import PLAYER_NAME_KEPT_LENGTH


class Round(models.Model):
    """One pass through wagering, "no more bets", a result and settlement at one table.

    `options` are the engine options in force when the round opened (the Rules
    Submission's with the table's own laid over them); `previous` is the round whose
    game state this one continues (None: a fresh table, after an opening). The events are
    the record; `state_after` is only a cache of the engine state they lead to.
    """

    class Status(models.TextChoices):
        OPEN = "open", "Wagering open"
        CLOSED = "closed", "No more bets"
        RESULT_ENTERED = "result_entered", "Result entered, settling"
        SETTLED = "settled", "Settled"

    IN_PROGRESS = (Status.OPEN, Status.CLOSED, Status.RESULT_ENTERED)

    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="rounds")
    number = models.PositiveIntegerField(help_text="Numbered per table from 1.")
    game = models.CharField(max_length=32)
    rules_submission = models.ForeignKey(
        "casino.RulesSubmission", on_delete=models.PROTECT, related_name="rounds"
    )
    options = models.JSONField(help_text="The engine options in force when the round opened.")
    previous = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="next"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    opened_at = models.DateTimeField()
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    result_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    rules_hash = models.CharField(
        max_length=64, blank=True, help_text="SHA-256 of the engine source that settled it."
    )
    state_after = models.BinaryField(
        null=True, blank=True, editable=False, help_text="A cache: the events are the record."
    )
    # Names the round's entry in the state cache (games/services/round_state.py): a round
    # that reuses an id (a database restored, a test's) never reads another's entry.
    cache_token = models.UUIDField(default=uuid.uuid4, editable=False)

    class Meta:
        ordering = ["table", "-number"]
        permissions = [("run_round", "Can run rounds: open, wagers, no more bets, results")]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="round_number_per_table"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status__in=["open", "closed", "result_entered"]),
                name="one_round_in_progress_per_table",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table.number} round {self.number}"

    @property
    def label(self) -> str:
        """What `manage.py recall` takes: TABLE-NUMBER:ROUND, e.g. CR-01:57."""
        return f"{self.table.number}:{self.number}"


class RoundEvent(AppendOnly):
    """One event of a round, in order: wagers, "no more bets", the dice, tiles or settings.

    `event` and `payload` are the engine's (SCENARIOS.md), except ``no_more_bets`` and a
    rethrown ``no_roll``, which the engine never sees.
    """

    class Source(models.TextChoices):
        DEALER = "dealer", "Dealer (admin)"
        INTEGRATOR = "integrator", "Integrator (service layer, API)"
        DEVICE = "device", "Device"

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    event = models.CharField(max_length=32)
    payload = models.JSONField()
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.DEALER)
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    device = models.ForeignKey(
        "devices.Device", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField()
    cite = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["round", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seq"], name="round_event_seq_unique")
        ]

    def __str__(self) -> str:
        return f"{self.round} #{self.seq} {self.event}"


class Wager(AppendOnly):
    """A wager as placed. `ref` is the engine's id for it, unique at the table."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="wagers")
    table = models.ForeignKey("casino.Table", on_delete=models.PROTECT, related_name="+")
    ref = models.CharField(max_length=32, help_text="ROUND.N: the engine's id for the wager.")
    player = models.CharField(max_length=PLAYER_NAME_KEPT_LENGTH)
    kind = models.CharField(max_length=32)
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    extra = models.JSONField(default=dict, blank=True, help_text="on, seat, position, ...")
    placed_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["table", "ref"], name="wager_ref_per_table")]

    def __str__(self) -> str:
        return f"{self.ref} {self.player} {self.kind} {self.amount}"

    def as_engine_wager(self) -> dict[str, object]:
        """The wager in the engine's form."""
        return {
            "id": self.ref,
            "player": self.player,
            "kind": self.kind,
            "amount": str(self.amount),
            **self.extra,
        }


class Resolution(AppendOnly):
    """How a wager was decided: once (the one-to-one is the guard), by the round that settled it.

    `net` is the engine's: the whole effect on the player, fees included, after any payout
    limit. `winnings` is what the posted odds paid before the limit; `payout_limit_reduction`
    and `vigorish` are their own ledger lines.
    """

    wager = models.OneToOneField(Wager, on_delete=models.PROTECT, related_name="resolution")
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="resolutions")
    event = models.ForeignKey(RoundEvent, on_delete=models.PROTECT, related_name="+")
    result = models.CharField(max_length=8)
    net = models.DecimalField(max_digits=14, decimal_places=2)
    stake = models.DecimalField(
        max_digits=14, decimal_places=2, help_text="On the layout when decided."
    )
    winnings = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    payout_limit_reduction = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    vigorish = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    cite = models.CharField(max_length=64)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.wager.ref} {self.result} {self.net}"
