"""The thresholds the floor's statistics alert at (docs/statistics.md)."""

from decimal import Decimal

from casino.models import CertificateHolder, StatisticsThresholds
from casino.models.statistics import DEFAULT_FAIRNESS_P, DEFAULT_HOLD_Z


def thresholds_for(holder: CertificateHolder | int) -> tuple[Decimal, Decimal]:
    """(hold |z| threshold, fairness p-value threshold) of a certificate holder: its row in
    the admin, or the defaults (3 and 0.001) when it has none."""
    holder_id = holder if isinstance(holder, int) else holder.pk
    row = StatisticsThresholds.objects.filter(holder_id=holder_id).first()
    if row is None:
        return DEFAULT_HOLD_Z, DEFAULT_FAIRNESS_P
    return row.hold_z_threshold, row.fairness_p_threshold
