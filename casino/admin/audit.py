"""The audit trail in the admin: read by everyone with the view permission, changed by no one.

AuditEntry refuses save and delete itself; the admin also offers no way to try, for
superusers too, so no button leads to an error page.
"""

from typing import Any

from django.contrib import admin
from django.contrib.contenttypes.admin import GenericTabularInline
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

from casino.models import AuditEntry

AUDIT_FIELDS = ("at", "actor_name", "action", "before", "after")


class AuditHistoryInline(GenericTabularInline):
    """Who changed this record, when, and each field before and after."""

    model = AuditEntry
    ct_field = "content_type"
    ct_fk_field = "object_id"
    fields = AUDIT_FIELDS
    readonly_fields = AUDIT_FIELDS
    extra = 0
    can_delete = False
    verbose_name = "audit entry"
    verbose_name_plural = "audit history"
    ordering = ("-at", "-id")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ("at", "actor_name", "action", "content_type", "record_link")
    list_filter = ("content_type", "action", "actor")
    search_fields = ("object_repr", "actor_name", "object_id")
    list_select_related = ("content_type", "actor")
    date_hierarchy = "at"
    fields = (
        "at",
        "actor",
        "actor_name",
        "action",
        "content_type",
        "object_id",
        "record_link",
        "before",
        "after",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="record")
    def record_link(self, entry: AuditEntry) -> str:
        model = entry.content_type.model_class()
        if model is None or entry.action == AuditEntry.Action.DELETED:
            return entry.object_repr
        meta = model._meta
        try:
            url = reverse(
                f"admin:{meta.app_label}_{meta.model_name}_change", args=[entry.object_id]
            )
        except NoReverseMatch:
            return entry.object_repr
        return format_html('<a href="{}">{}</a>', url, entry.object_repr)
