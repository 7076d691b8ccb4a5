"""Tables, and where their drop and tip boxes may sit (§ 601a.10(g))."""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models

from casino.models.holders import CertificateHolder
from casino.models.layouts import Layout
from casino.rules.tables import (
    AUTOMATED_SHAKER_GAMES,
    MANUAL,
    OPERATIONS,
    OPERATIONS_BY_GAME,
    SEATING,
)
from casino.rules.words import variant_label
from games.rules.catalog import GAMES_BY_KEY, game_choices, variant_choices

# Chapters where the drop box and tip box sit "on the same side of the gaming table as,
# but on opposite sides of, the dealer".
BOXES_BESIDE_THE_DEALER = {
    "high_roll_dice": "58 Pa. Code § 675a.1(d)",
    "pai_gow": "58 Pa. Code § 621a.2(c)",
    "sic_bo": "58 Pa. Code § 625a.1(a)",
}


class Table(models.Model):
    """A gaming table on the floor, numbered within its certificate holder."""

    class Status(models.TextChoices):
        CLOSED = "closed", "Closed"
        OPEN = "open", "Open"
        SUSPENDED = "suspended", "Suspended"

    holder = models.ForeignKey(CertificateHolder, on_delete=models.PROTECT, related_name="tables")
    number = models.CharField(
        max_length=20, help_text="The table's number on the floor, e.g. CR-01."
    )
    game = models.CharField(max_length=32, choices=game_choices())
    variant = models.CharField(max_length=32, choices=variant_choices())
    seats = models.PositiveSmallIntegerField(default=6, help_text="Betting positions.")
    min_wager = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("5.00"),
        validators=[MinValueValidator(Decimal("0.01"))],
    )  # fmt: skip
    max_wager = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal("500.00"),
        validators=[MinValueValidator(Decimal("0.01"))],
    )  # fmt: skip
    operation = models.CharField(
        max_length=16,
        choices=[(o, o.capitalize()) for o in OPERATIONS],
        default=MANUAL,
        help_text="Manual, hybrid or fully automated electronic (Craps only, § 623b).",
    )
    automated_shaker = models.BooleanField(
        default=False, help_text="Sic Bo: an automated shaker (§ 625a.1(d)(2))."
    )
    power_odds = models.BooleanField(
        default=False,
        help_text="Craps: offers Power Odds, where the Rules Submission in force does "
        "(§ 623b.5(a)); a round starts only with the table's Power Odds random number "
        "generator active (§ 623b.5(c)).",
    )
    layout = models.ForeignKey(
        Layout, on_delete=models.PROTECT, null=True, blank=True, related_name="tables"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CLOSED)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the table last closed; reopening follows it."
    )

    class Meta:
        ordering = ["holder", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["holder", "number"], name="table_number_unique_per_holder"
            ),
            models.CheckConstraint(
                condition=models.Q(min_wager__lte=models.F("max_wager")),
                name="table_min_wager_not_above_max",
            ),
        ]
        permissions = [
            ("operate_table", "Can open, close and suspend a table"),
            ("view_compliance_report", "Can view the daily compliance report"),
        ]

    def __str__(self) -> str:
        return f"{self.number} ({self.get_game_display()})"

    def get_variant_display(self) -> str:
        """The variant's name in the table's own game (keys such as "standard" repeat)."""
        return variant_label(self.game, self.variant)

    def clean(self) -> None:
        """The chapter's rules on the table itself: variant, seats, table type, limits."""
        game = GAMES_BY_KEY.get(self.game)
        if game is None:
            return
        errors: dict[str, str] = {}
        if self.variant not in dict(game.variants):
            allowed = ", ".join(dict(game.variants))
            errors["variant"] = f"{game.name} has no variant {self.variant!r}; choose {allowed}."
        else:
            refusal = SEATING[(self.game, self.variant)].refusal(self.seats or 0)
            if refusal:
                errors["seats"] = f"{game.name}: {refusal}."
        if self.operation not in OPERATIONS_BY_GAME[self.game]:
            errors["operation"] = (
                f"{game.name} is played only on a {' or '.join(OPERATIONS_BY_GAME[self.game])} "
                "table; hybrid and fully automated electronic tables are Craps tables (§ 623b)."
            )
        if self.automated_shaker and self.game not in AUTOMATED_SHAKER_GAMES:
            errors["automated_shaker"] = (
                "Only a Sic Bo table has an automated shaker (§ 625a.1(d))."
            )
        if self.power_odds and self.game != "craps":
            errors["power_odds"] = "Only a Craps or Mini-Craps table offers Power Odds (§ 623b.5)."
        if (
            self.min_wager is not None
            and self.max_wager is not None
            and self.min_wager > self.max_wager
        ):
            errors["max_wager"] = "The maximum wager may not be below the minimum wager."
        if self.layout_id is not None and self.layout is not None:
            if (self.layout.game, self.layout.variant) != (self.game, self.variant):
                errors["layout"] = (
                    f"The layout {self.layout} is for {self.layout.game} {self.layout.variant}, "
                    f"not {self.game} {self.variant}."
                )
            elif self.layout.holder_id != self.holder_id:
                errors["layout"] = "The layout belongs to another certificate holder."
        if errors:
            raise ValidationError(errors)


class LocationApproval(models.Model):
    """The Bureau of Casino Compliance's approval of where a table's boxes (and an
    automated Sic Bo shaker) sit, given before the table first opens (§ 601a.10(g))."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="location_approvals")
    drop_box_location = models.CharField(max_length=200)
    tip_box_location = models.CharField(max_length=200)
    beside_the_dealer = models.BooleanField(
        default=False,
        help_text="Both boxes on the dealer's side of the table, on opposite sides of the "
        "dealer (High Roll Dice, Pai Gow, Sic Bo).",
    )
    shaker_location = models.CharField(
        max_length=200, blank=True, help_text="An automated Sic Bo shaker (§ 625a.1(d)(2)(iii))."
    )
    approved_by_name = models.CharField(
        max_length=200, help_text="The Casino Compliance Supervisor who approved it."
    )
    approved_at = models.DateTimeField()
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["table", "-approved_at"]
        permissions = [("record_locationapproval", "Can record a box location approval")]

    def __str__(self) -> str:
        return f"{self.table.number}: boxes approved {self.approved_at:%Y-%m-%d}"

    def refusals(self) -> list[str]:
        """What this approval lacks for its table's game."""
        refusals = []
        cite = BOXES_BESIDE_THE_DEALER.get(self.table.game)
        if cite and not self.beside_the_dealer:
            refusals.append(
                "the drop box and tip box must be on the same side of the table as, but on "
                f"opposite sides of, the dealer ({cite})"
            )
        if self.table.automated_shaker and not self.shaker_location.strip():
            refusals.append(
                "the automated shaker's location must be approved (58 Pa. Code § 625a.1(d)(2)(iii))"
            )
        return refusals
