"""The floor: certificate holders and their tables.

Rules Submissions, layouts, equipment and the changeout schedule join these (issue 6).
"""

from django.core.exceptions import ValidationError
from django.db import models

from games.rules.catalog import GAMES_BY_KEY, game_choices, variant_choices


class CertificateHolder(models.Model):
    """The holder of a slot machine license certificate that runs table games."""

    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


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
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CLOSED)

    class Meta:
        ordering = ["holder", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["holder", "number"], name="table_number_unique_per_holder"
            )
        ]

    def __str__(self) -> str:
        return f"{self.number} ({self.get_game_display()})"

    def clean(self) -> None:
        """A table's variant must be one of its game's variants."""
        game = GAMES_BY_KEY.get(self.game)
        if game and self.variant not in dict(game.variants):
            allowed = ", ".join(dict(game.variants))
            raise ValidationError(
                {"variant": f"{game.name} has no variant {self.variant!r}; choose {allowed}."}
            )
