"""The thresholds the floor's statistics alert at, one row per certificate holder."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from casino.models.holders import CertificateHolder

# docs/statistics.md: |z| >= 3 happens by chance about 0.27% of a table's days (two sides,
# normal), a false alarm a year per table; a fair set's p-value falls under 0.001 one
# test in a thousand.
DEFAULT_HOLD_Z = Decimal("3")
DEFAULT_FAIRNESS_P = Decimal("0.001")


class StatisticsThresholds(models.Model):
    """Where a table's hold against theory, and a dice set's fairness, raise an alert."""

    holder = models.OneToOneField(
        CertificateHolder, on_delete=models.PROTECT, related_name="statistics_thresholds"
    )
    hold_z_threshold = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        default=DEFAULT_HOLD_Z,
        validators=[MinValueValidator(Decimal("1")), MaxValueValidator(Decimal("10"))],
        help_text="A table's hold alerts when |z| reaches this (1 to 10; 3 by default).",
    )
    fairness_p_threshold = models.DecimalField(
        max_digits=7,
        decimal_places=6,
        default=DEFAULT_FAIRNESS_P,
        validators=[
            MinValueValidator(Decimal("0.000001")),
            MaxValueValidator(Decimal("0.1")),
        ],
        help_text="A dice set alerts when its p-value falls under this (0.001 by default).",
    )

    class Meta:
        verbose_name = "statistics thresholds"
        verbose_name_plural = "statistics thresholds"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(hold_z_threshold__gte=1, hold_z_threshold__lte=10),
                name="hold_z_threshold_range",
            ),
            models.CheckConstraint(
                condition=models.Q(fairness_p_threshold__gt=0, fairness_p_threshold__lte="0.1"),
                name="fairness_p_threshold_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.holder}: |z| >= {self.hold_z_threshold}, p < {self.fairness_p_threshold}"
