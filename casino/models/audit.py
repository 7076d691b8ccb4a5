"""The audit trail: every change to a compliance record, who made it and when."""

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils import timezone


class AppendOnlyQuerySet(models.QuerySet):
    """No bulk rewriting or erasing of the trail either."""

    def update(self, **kwargs):
        raise PermissionError("audit entries are append-only")

    def delete(self):
        raise PermissionError("audit entries are append-only")


class AuditEntry(models.Model):
    """One change: the record, the actor, the moment, the fields before and after.

    Append-only: an entry is never changed or deleted (save and delete refuse).
    """

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        CHANGED = "changed", "Changed"
        DELETED = "deleted", "Deleted"

    content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT)
    object_id = models.CharField(max_length=64)
    record = GenericForeignKey("content_type", "object_id")
    object_repr = models.CharField(max_length=200)
    action = models.CharField(max_length=16, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    actor_name = models.CharField(max_length=150, help_text='"system" for beat and workers.')
    at = models.DateTimeField()
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["content_type", "object_id"], name="audit_record")]

    def __str__(self) -> str:
        at = timezone.localtime(self.at)
        return f"{at:%Y-%m-%d %H:%M:%S} {self.actor_name} {self.action} {self.object_repr}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise PermissionError("audit entries are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError("audit entries are append-only")
