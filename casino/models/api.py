"""The integrators' API: tokens scoped to one certificate holder, and the record of every
write made through it, which is also what an idempotency key is checked against."""

import hashlib
import secrets

from django.conf import settings
from django.db import models

from casino.models.holders import CertificateHolder

TOKEN_PREFIX = "cft"


def key_hash(secret: str) -> str:
    """The stored form of a token's secret (the secret itself is never stored)."""
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiToken(models.Model):
    """An integrator's key: acts as `user`, and sees only `holder`'s tables and records.

    The key is ``cft_<key_id>_<secret>``; the database holds the key id and a hash of the
    secret, so a copy of the database lets no one in.
    """

    name = models.CharField(max_length=100, help_text="What uses it, e.g. the floor system.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_tokens"
    )
    holder = models.ForeignKey(
        CertificateHolder, on_delete=models.PROTECT, related_name="api_tokens"
    )
    key_id = models.CharField(max_length=16, unique=True, editable=False)
    key_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.name} ({TOKEN_PREFIX}_{self.key_id}…, {self.holder})"

    @staticmethod
    def new_key() -> tuple[str, str, str]:
        """A fresh (key, key id, secret)."""
        key_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
        return f"{TOKEN_PREFIX}_{key_id}_{secret}", key_id, secret


class ApiWrite(models.Model):
    """One write request through the API: who, when, what, and the answer it got.

    Written in the same transaction as the change it made, so a change never lacks its
    record. With an Idempotency-Key the record is claimed first: a second request with
    the key finds it and gets the same answer, and nothing changes.
    """

    at = models.DateTimeField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_writes"
    )
    token = models.ForeignKey(
        ApiToken, on_delete=models.PROTECT, null=True, blank=True, related_name="writes"
    )
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=300)
    body = models.JSONField(null=True, blank=True, help_text="The request, as parsed.")
    # NULL, not "": only a key that was sent is unique per user.
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    fingerprint = models.CharField(max_length=64, help_text="sha256 of method, path and body.")
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "API write"
        constraints = [
            models.UniqueConstraint(
                fields=["user", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="api_write_idempotency_key_unique_per_user",
            )
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} → {self.status_code}"
