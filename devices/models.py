"""The device registry: each device at a table, its credentials and its event history."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from casino.models import Table
from casino.models.append_only import AppendOnly
from devices import rules


class Device(models.Model):
    """A shaker, sensor, lock-out control or random number generator serving one table
    (and, for an Extra Roll wagering device, one betting position)."""

    class Status(models.TextChoices):
        REGISTERED = rules.REGISTERED, "Registered"
        ACTIVE = rules.ACTIVE, "Active"
        STALE = rules.STALE, "Stale"
        FAULTED = rules.FAULTED, "Faulted"
        OUT_OF_ORDER = rules.OUT_OF_ORDER, "Out of order"
        RETIRED = rules.RETIRED, "Retired"

    kind = models.CharField(
        max_length=32,
        choices=[(k.key, k.label[0].upper() + k.label[1:]) for k in rules.KINDS.values()],
    )
    manufacturer = models.CharField(max_length=100)
    serial_number = models.CharField(max_length=100)
    firmware = models.CharField(max_length=100)
    approval_reference = models.CharField(
        max_length=100, help_text="The approval its kind requires, e.g. the BGLO approval number."
    )
    approved_at = models.DateField()
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="devices")
    position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The betting position an Extra Roll device serves."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.REGISTERED)
    status_changed_at = models.DateTimeField()
    stale_since = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(
        null=True, blank=True, help_text="The last heartbeat written back from the fast path."
    )
    out_of_order_reason = models.CharField(max_length=200, blank=True)
    registered_at = models.DateTimeField()
    registered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["table", "kind", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["manufacturer", "serial_number"], name="device_serial_unique"
            ),
            # One device in service for each kind and place at a table.
            models.UniqueConstraint(
                fields=["table", "kind", "position"],
                condition=~Q(status=rules.RETIRED) & Q(position__isnull=False),
                name="device_one_per_position",
            ),
            models.UniqueConstraint(
                fields=["table", "kind"],
                condition=~Q(status=rules.RETIRED) & Q(position__isnull=True),
                name="device_one_per_table",
            ),
        ]
        permissions = [("operate_device", "Can mark a device out of order, rotate or retire it")]

    def __str__(self) -> str:
        where = f" #{self.position}" if self.position else ""
        return f"{self.table.number}{where} {self.kind_info.label} {self.serial_number}"

    @property
    def kind_info(self) -> rules.Kind:
        return rules.KINDS[self.kind]

    # A device acts in the round flow in its own name: it holds the one permission that
    # lets it post what it reports, and nothing else.
    is_device = True

    def has_perm(self, permission: str) -> bool:
        return permission == "games.run_round" and self.status != self.Status.RETIRED

    def get_username(self) -> str:
        return f"device {self.pk} ({self.kind})"


class DeviceCredential(models.Model):
    """A key id and the salt its secret is derived from (devices/signing.py); the secret
    itself is never stored. Rotation issues a new one; the old one stops at `expires_at`."""

    device = models.ForeignKey(Device, on_delete=models.PROTECT, related_name="credentials")
    key_id = models.CharField(max_length=40, unique=True)
    salt = models.CharField(max_length=64)
    issued_at = models.DateTimeField()
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["device", "-issued_at"]

    def __str__(self) -> str:
        return f"{self.key_id} ({self.device_id})"

    def usable(self, now) -> bool:
        if self.revoked_at is not None and self.revoked_at <= now:
            return False
        return self.expires_at is None or now < self.expires_at


class DeviceEvent(AppendOnly):
    """What happened to a device, and what the floor did about it."""

    class Kind(models.TextChoices):
        REGISTERED = "registered", "Registered"
        CREDENTIAL_ISSUED = "credential_issued", "Credential issued"
        CREDENTIAL_REVOKED = "credential_revoked", "Credential revoked"
        ACTIVE = "active", "First heartbeat: active"
        STALE = "stale", "Stale: heartbeats missed"
        RECOVERED = "recovered", "Heartbeats returned"
        FAULT = "fault", "Fault reported"
        FAULT_CLEARED = "fault_cleared", "Fault cleared"
        OUT_OF_ORDER = "out_of_order", "Marked out of order"
        RETURNED = "returned", "Returned to service"
        RETIRED = "retired", "Retired"
        ROUND_VOIDED = "round_voided", "Round voided"
        TABLE_SUSPENDED = "table_suspended", "Table suspended"
        REPORTED = "reported", "Result reported"
        ROUND_WAITING = "round_waiting", "Round waiting on it too long"

    device = models.ForeignKey(Device, on_delete=models.PROTECT, related_name="events")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="device_events")
    kind = models.CharField(max_length=24, choices=Kind.choices)
    at = models.DateTimeField()
    detail = models.TextField(blank=True)
    cite = models.CharField(max_length=80, blank=True)
    round = models.ForeignKey(
        "games.Round", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["device", "-at"], name="device_event_recent")]
        constraints = [
            # A round's wait on a device is an alert once (gaming/waits.py), however often
            # beat looks and however many look at once.
            models.UniqueConstraint(
                fields=["round"],
                condition=Q(kind="round_waiting"),
                name="device_event_round_waiting_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.device}: {self.get_kind_display()}"


class DeviceNonce(models.Model):
    """Nonces seen, for the database store (devices/store.py) when there is no Redis."""

    key_id = models.CharField(max_length=40)
    nonce = models.CharField(max_length=64)
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key_id", "nonce"], name="device_nonce_once")
        ]
        indexes = [models.Index(fields=["seen_at"], name="device_nonce_seen")]

    def __str__(self) -> str:
        return f"{self.key_id}:{self.nonce}"
