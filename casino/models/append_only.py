"""Rows that are written once: never changed, never deleted, one by one or in bulk."""

from django.db import models


class AppendOnlyQuerySet(models.QuerySet):
    """No bulk rewriting or erasing either."""

    def update(self, **kwargs):
        raise PermissionError(f"{self.model._meta.verbose_name_plural} are append-only")

    def delete(self):
        raise PermissionError(f"{self.model._meta.verbose_name_plural} are append-only")


class AppendOnly(models.Model):
    """A model whose rows are written once (a correction is a new row, never an edit)."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None and not self._state.adding:
            raise PermissionError(f"{self._meta.verbose_name_plural} are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError(f"{self._meta.verbose_name_plural} are append-only")
