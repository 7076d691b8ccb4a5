"""The worker self-check: a ping written to the database, answered by a worker."""

from django.db import models


class WorkerPing(models.Model):
    """A ping sent on one queue; a worker that takes it records who answered and when."""

    queue = models.CharField(max_length=64)
    sent_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.CharField(max_length=255, blank=True, help_text="The worker's node name.")
    answered_pid = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-sent_at"]
        indexes = [models.Index(fields=["queue", "-sent_at"], name="workerping_queue_sent")]

    def __str__(self) -> str:
        return f"ping {self.pk} on {self.queue}"

    @property
    def latency_ms(self) -> int | None:
        """Milliseconds from sending to the worker's answer, once answered."""
        if self.answered_at is None:
            return None
        return int((self.answered_at - self.sent_at).total_seconds() * 1000)
