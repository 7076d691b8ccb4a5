"""The compliance officers' notices of a set in play due soon or overdue: one row per set
and state, written by the schedule check and sent by email from beat (an outbox)."""

from django.db import models
from django.db.models import Q

from casino.models.equipment import SetInPlay
from casino.rules.equipment import DUE_SOON, OVERDUE

NOTICE_STATES = (DUE_SOON, OVERDUE)


class EquipmentNotice(models.Model):
    """One notice to the compliance officers: `set_in_play` is due soon or overdue.

    The unique constraint makes it once per set and state, whatever runs twice; the
    status says whether it went out (and to whom), is still to go, or was withdrawn
    because the set left play (or became overdue) before it went.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "To send"
        SENT = "sent", "Sent"
        WITHDRAWN = "withdrawn", "Not sent: overtaken"

    set_in_play = models.ForeignKey(SetInPlay, on_delete=models.PROTECT, related_name="notices")
    state = models.CharField(
        max_length=16, choices=[(s, s.replace("_", " ")) for s in NOTICE_STATES]
    )
    noticed_at = models.DateTimeField(help_text="When the schedule check found the state.")
    due_at = models.DateTimeField(help_text="The last moment the set may be in play, then.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    claimed_until = models.DateTimeField(
        null=True, blank=True, help_text="A sender is sending it until then (its lease)."
    )
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    recipients = models.TextField(blank=True, help_text="The addresses it went to, one a line.")
    withdrawn_reason = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["-noticed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["set_in_play", "state"], name="one_notice_per_set_in_play_and_state"
            )
        ]
        indexes = [
            models.Index(
                fields=["noticed_at"], condition=Q(status="pending"), name="equipmentnotice_pending"
            )
        ]

    def __str__(self) -> str:
        return f"{self.set_in_play}: {self.get_state_display()}"
