"""The settlement outbox: the request to settle a round, written with the round's result."""

from django.db import models


class SettlementRequest(models.Model):
    """Written in the same transaction as the event that ends a round, so a result is never
    entered without a request to settle it. A worker settles it once (`settled_at`); the
    sweep sends again whatever has waited longer than CASINO_SETTLEMENT_STUCK_SECONDS."""

    round = models.OneToOneField(
        "games.Round", on_delete=models.PROTECT, related_name="settlement_request"
    )
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True, help_text="Last handed to the broker.")
    sends = models.PositiveIntegerField(default=0)
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_by = models.CharField(max_length=200, blank=True, help_text="The worker's name.")

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
        state = "settled" if self.settled_at else "pending"
        return f"settle {self.round} ({state})"
