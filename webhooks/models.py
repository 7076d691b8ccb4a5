"""Endpoints, the events written for them (the outbox), and each event's delivery to each
endpoint with its tries: docs/adr/0011-webhooks.md says how they move."""

import uuid

from django.conf import settings
from django.db import models

from casino.models import CertificateHolder, Table
from webhooks.events import CHOICES

# What an endpoint's answer or error keeps (the log's business is what happened, not all of it).
ANSWER_LENGTH = 2000
ERROR_LENGTH = 1000

ACTIVE, FAILING, PAUSED, DISABLED = "active", "failing", "paused", "disabled"
ENDPOINT_STATUS_CHOICES = [
    (ACTIVE, "active"),
    (FAILING, "failing"),
    (PAUSED, "paused"),
    (DISABLED, "disabled"),
]


class Endpoint(models.Model):
    """An integrator's URL and the events it wants, for one certificate holder's floor.

    `secret` signs every message (Standard Webhooks: "whsec_" and base64); it is shown once,
    at registration and at each rotation, and `previous_secret` signs too until
    `previous_secret_until`, so a receiver can switch without losing a message. `failures`
    counts failed tries in a row (any 2xx answer clears it): from
    CASINO_WEBHOOK_BREAKER_FAILURES on, the endpoint is tried once per backoff
    (`retry_at`), and after CASINO_WEBHOOK_DISABLE_AFTER_SECONDS of nothing but failures
    it is disabled (`disabled_at`, `disabled_reason`): an alert until someone enables it.
    """

    holder = models.ForeignKey(
        CertificateHolder, on_delete=models.PROTECT, related_name="webhook_endpoints"
    )
    url = models.CharField(max_length=1000, help_text="Where each event is POSTed.")
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list, help_text="The event types it receives.")
    active = models.BooleanField(default=True, help_text="Off: it receives nothing.")
    secret = models.CharField(max_length=100, editable=False)
    previous_secret = models.CharField(max_length=100, blank=True, editable=False)
    previous_secret_until = models.DateTimeField(null=True, blank=True, editable=False)
    secret_rotated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    failures = models.PositiveIntegerField(default=0, help_text="Failed tries in a row.")
    failing_since = models.DateTimeField(null=True, blank=True)
    retry_at = models.DateTimeField(
        null=True, blank=True, help_text="The circuit is open: nothing is tried before this."
    )
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = "webhook endpoint"
        indexes = [models.Index(fields=["holder", "active"], name="webhook_endpoint_holder")]

    def __str__(self) -> str:
        return f"{self.url} ({self.holder})"

    @property
    def status(self) -> str:
        """active, failing (its last tries failed), paused (switched off) or disabled
        (by the circuit breaker)."""
        if self.disabled_at is not None:
            return DISABLED
        if not self.active:
            return PAUSED
        return FAILING if self.failures else ACTIVE


class Event(models.Model):
    """Something that happened at a certificate holder's floor, written in the transaction
    that made it true (and only when one of its endpoints wants it). A worker fans it out
    into deliveries (`fanned_out_at`); its body is built then, once, so every endpoint and
    every try gets the same bytes. Deleted with its deliveries after
    CASINO_WEBHOOK_RETENTION_DAYS."""

    uid = models.UUIDField(default=uuid.uuid4, editable=False, help_text="webhook-id: evt_<hex>")
    event_type = models.CharField(max_length=64, choices=CHOICES)
    holder = models.ForeignKey(
        CertificateHolder, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, null=True, blank=True, related_name="+", db_index=False
    )
    occurred_at = models.DateTimeField()
    data = models.JSONField(default=dict, help_text="What the recording code knew.")
    body = models.TextField(blank=True, help_text="The payload as sent, once fanned out.")
    fanned_out_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(
        null=True, blank=True, help_text="The fan-out last handed to the broker by the sweep."
    )
    # One event for one occurrence that the sweep may find again (a stuck settlement's alert).
    key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001

    class Meta:
        ordering = ["id"]
        verbose_name = "webhook event"
        indexes = [
            models.Index(fields=["occurred_at"], name="webhook_event_occurred"),
            models.Index(
                fields=["occurred_at"],
                condition=models.Q(fanned_out_at__isnull=True),
                name="webhook_event_unsent",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["key"], condition=models.Q(key__isnull=False), name="webhook_event_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_type} #{self.pk}"

    @property
    def message_id(self) -> str:
        """The webhook-id header: the same for every try and every endpoint."""
        return f"evt_{self.uid.hex}"


class Delivery(models.Model):
    """One event to one endpoint: tried until a 2xx answer, at most
    CASINO_WEBHOOK_MAX_ATTEMPTS times with backoff, then a dead letter (failed) that only
    a person sends again. `next_attempt_at` is when the sweep sends it next;
    `in_flight_until` marks a try under way (a worker killed during it leaves the delivery
    to be tried again once this passes)."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        DELIVERED = "delivered", "delivered"
        FAILED = "failed", "failed (dead letter)"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(
        default=0, help_text="Tries since it was last sent again."
    )
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    in_flight_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="Last handed to the broker.")
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_response = models.CharField(max_length=ANSWER_LENGTH, blank=True)
    last_error = models.CharField(max_length=ERROR_LENGTH, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.UniqueConstraint(fields=["event", "endpoint"], name="webhook_delivery_once")
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=models.Q(status="pending"),
                name="webhook_delivery_due",
            ),
            models.Index(
                fields=["endpoint", "in_flight_until"],
                condition=models.Q(in_flight_until__isnull=False),
                name="webhook_delivery_in_flight",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint.url}"


class Attempt(models.Model):
    """One try of a delivery: when, how long, and the answer (status and the start of its
    body) or the error that stopped it."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response = models.CharField(max_length=ANSWER_LENGTH, blank=True)
    error = models.CharField(max_length=ERROR_LENGTH, blank=True)
    succeeded = models.BooleanField()

    class Meta:
        ordering = ["id"]
        verbose_name = "webhook attempt"

    def __str__(self) -> str:
        return f"try {self.number} of {self.delivery_id}"
