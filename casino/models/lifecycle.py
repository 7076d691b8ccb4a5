"""The lifecycle shared by Rules Submissions and layouts: draft, submitted, decided."""

from django.conf import settings
from django.db import models


class Lifecycle(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class Filed(models.Model):
    """Who drafted, submitted and decided a record, and when. Only a draft may change."""

    status = models.CharField(max_length=16, choices=Lifecycle.choices, default=Lifecycle.DRAFT)
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decision_note = models.TextField(
        blank=True, help_text="The approval reference, or why it was rejected."
    )

    class Meta:
        abstract = True

    @property
    def is_draft(self) -> bool:
        return self.status == Lifecycle.DRAFT
