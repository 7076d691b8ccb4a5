"""The settlement outbox: the request to settle a round, written with the round's result."""

from django.db import models

# The recorded error is kept to this many characters (a traceback is the log's business).
ERROR_LENGTH = 1000


class SettlementRequest(models.Model):
    """Written in the same transaction as the event that ends a round, so a result is never
    entered without a request to settle it. A worker settles it once (`settled_at`); the
    sweep sends again whatever has waited longer than CASINO_SETTLEMENT_STUCK_SECONDS,
    unless it failed (`failures`) or was sent CASINO_SETTLEMENT_MAX_SENDS times: those are
    alerts for a person (games/services/alerts.py), never sent again on their own."""

    class FailureKind(models.TextChoices):
        REFUSED = "refused", "Refused on replay"
        INTEGRITY = "integrity", "Integrity error"
        SERVICES = "services", "Database or broker unavailable"
        OTHER = "other", "Unexpected error"

    round = models.OneToOneField(
        "games.Round", on_delete=models.PROTECT, related_name="settlement_request"
    )
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True, help_text="Last handed to the broker.")
    sends = models.PositiveIntegerField(default=0)
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_by = models.CharField(max_length=200, blank=True, help_text="The worker's name.")
    failures = models.PositiveIntegerField(
        default=0, help_text="Settlements that failed since the last 'send again'."
    )
    failure_kind = models.CharField(max_length=16, choices=FailureKind.choices, blank=True)
    error = models.CharField(
        max_length=ERROR_LENGTH, blank=True, help_text="The last failure: its kind and message."
    )
    first_failed_at = models.DateTimeField(null=True, blank=True)
    last_failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=models.Q(settled_at__isnull=True),
                name="settlement_pending",
            )
        ]

    def __str__(self) -> str:
        if self.settled_at:
            state = "settled"
        elif self.failures:
            state = "failed"
        else:
            state = "pending"
        return f"settle {self.round} ({state})"
