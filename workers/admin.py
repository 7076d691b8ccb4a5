from django.contrib import admin

from workers.models import WorkerPing


@admin.register(WorkerPing)
class WorkerPingAdmin(admin.ModelAdmin):
    """Read-only: operations staff see which queues are served and how fast."""

    list_display = ("id", "queue", "sent_at", "answered_at", "answered_by", "latency_ms")
    list_filter = ("queue",)
    date_hierarchy = "sent_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
