"""The statistics' alert thresholds: operations and compliance set them, the regulator reads."""

from django.contrib import admin

from casino.admin.audit import AuditHistory, AuditHistoryInline
from casino.models import StatisticsThresholds


@admin.register(StatisticsThresholds)
class StatisticsThresholdsAdmin(AuditHistory, admin.ModelAdmin):
    list_display = ("holder", "hold_z_threshold", "fairness_p_threshold")
    fields = ("holder", "hold_z_threshold", "fairness_p_threshold")
    inlines = [AuditHistoryInline]
