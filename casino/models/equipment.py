"""Dice and tile sets, each stretch of time a set spends in play at a table, inspections."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from casino.models.holders import CertificateHolder
from casino.models.tables import Table
from casino.rules.equipment import COMPOSITION_CHOICES, COMPOSITIONS, REASONS, STATES, TILES


class EquipmentSet(models.Model):
    """One set of dice or tiles, as received and identified by the certificate holder."""

    class Status(models.TextChoices):
        RESERVE = "reserve", "In reserve"
        IN_PLAY = "in_play", "In play"
        RETIRED = "retired", "Retired (out of play for good)"
        SEALED = "sealed", "Unsuitable, sealed in an envelope"

    holder = models.ForeignKey(
        CertificateHolder, on_delete=models.PROTECT, related_name="equipment_sets"
    )
    identifier = models.CharField(max_length=60, help_text="The set's label or serial number.")
    composition = models.CharField(max_length=32, choices=COMPOSITION_CHOICES)
    reconstructed = models.BooleanField(
        default=False, help_text="Tiles: a reconstructed or replacement set."
    )
    meets_603a_12_c = models.BooleanField(
        "meets § 603a.12(c)",
        default=False,
        help_text="Dice: may stay a month locked in an automated Sic Bo shaker (§ 625a.2(b)).",
    )
    received_at = models.DateTimeField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RESERVE)

    class Meta:
        ordering = ["holder", "identifier"]
        constraints = [
            models.UniqueConstraint(
                fields=["holder", "identifier"], name="equipment_set_identifier_unique"
            )
        ]
        permissions = [("record_changeout", "Can put sets in play and record changeouts")]

    def __str__(self) -> str:
        return f"{self.identifier} ({COMPOSITIONS[self.composition].label})"

    @property
    def kind(self) -> str:
        return COMPOSITIONS[self.composition].kind

    @property
    def is_tiles(self) -> bool:
        return self.kind == TILES


class SetInPlay(models.Model):
    """A set's time in play at one table: who put it in, when it is due out, who took it
    out, when and why. A changeout ends one of these and starts the next."""

    equipment_set = models.ForeignKey(
        EquipmentSet, on_delete=models.PROTECT, related_name="times_in_play"
    )
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="sets_in_play")
    composition = models.CharField(max_length=32, editable=False)
    put_in_play_at = models.DateTimeField()
    put_in_play_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    locked_in_automated_shaker = models.BooleanField(default=False)
    due_at = models.DateTimeField(help_text="The last moment the set may be in play.")
    warn_from = models.DateTimeField(help_text="From here on the set is due soon.")
    limit = models.CharField(max_length=120, help_text="The limit and its section.")
    schedule_state = models.CharField(
        max_length=16,
        choices=[(s, s.replace("_", " ")) for s in STATES],
        default=STATES[0],
        help_text="Kept current by the schedule check; the gate computes it afresh.",
    )
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    removal_reason = models.CharField(
        max_length=32, blank=True, choices=[(r.key, r.label) for r in REASONS.values()]
    )
    removal_note = models.TextField(blank=True)

    class Meta:
        ordering = ["table", "-put_in_play_at"]
        verbose_name = "set in play"
        verbose_name_plural = "sets in play"
        constraints = [
            models.UniqueConstraint(
                fields=["table", "composition"],
                condition=Q(removed_at__isnull=True),
                name="one_set_of_each_kind_in_play_per_table",
            ),
            models.UniqueConstraint(
                fields=["equipment_set"],
                condition=Q(removed_at__isnull=True),
                name="a_set_in_play_at_one_table",
            ),
        ]
        indexes = [models.Index(fields=["removed_at", "due_at"], name="setinplay_open_due")]

    def __str__(self) -> str:
        return f"{self.equipment_set.identifier} at {self.table.number}"


class TileInspection(models.Model):
    """The dealer's inspection of a set of tiles received at the table, verified by the
    floorperson (§ 621a.4(a)); for an unsuitable set, the sealed envelope record."""

    set_in_play = models.ForeignKey(
        SetInPlay, on_delete=models.PROTECT, related_name="tile_inspections"
    )
    inspected_at = models.DateTimeField()
    dealer_name = models.CharField(max_length=120)
    floorperson_name = models.CharField(max_length=120, help_text="Floorperson or above.")
    all_pairs_present = models.BooleanField(
        help_text="The Supreme Pair and all 15 matched and unmatched pairs (§ 621a.4(a)(1))."
    )
    same_size_and_shading = models.BooleanField(help_text="§ 621a.4(a)(2).")
    unflawed = models.BooleanField(
        help_text="Backs and sides not flawed, scratched or marked (§ 621a.4(a)(3))."
    )
    envelope_sealed_at = models.DateTimeField(null=True, blank=True)
    envelope_table_number = models.CharField(max_length=20, blank=True)
    envelope_signed_by_dealer = models.CharField(max_length=120, blank=True)
    envelope_signed_by_floorperson = models.CharField(max_length=120, blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-inspected_at"]
        permissions = [("record_inspection", "Can record tile and Sic Bo inspections")]

    def __str__(self) -> str:
        verdict = "suitable" if self.suitable else "unsuitable"
        return f"tiles {self.set_in_play.equipment_set.identifier}: {verdict}"

    @property
    def suitable(self) -> bool:
        return self.all_pairs_present and self.same_size_and_shading and self.unflawed


class SicBoOpeningInspection(models.Model):
    """The floorperson's inspection before a Sic Bo table opens (§ 625a.5(a))."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="sic_bo_inspections")
    inspected_at = models.DateTimeField()
    floorperson_name = models.CharField(max_length=120)
    values_entered = models.CharField(
        max_length=20, help_text="The three values entered, e.g. 2,5,5 (§ 625a.5(a)(1))."
    )
    winning_combinations_lit = models.BooleanField(
        help_text="Every winning combination of those values was properly illuminated."
    )
    shaker_operations = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Automated shaker: times operated (at least 3)."
    )
    dice_properly_tossed = models.BooleanField(
        null=True, blank=True, help_text="Automated shaker: the dice were properly tossed."
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-inspected_at"]

    def __str__(self) -> str:
        return f"{self.table.number} opening inspection {self.inspected_at:%Y-%m-%d %H:%M}"
