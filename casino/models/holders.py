"""Certificate holders."""

from django.db import models


class CertificateHolder(models.Model):
    """The holder of a slot machine license certificate that runs table games."""

    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
