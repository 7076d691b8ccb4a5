"""Certificate holders and their tables."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from casino.admin.audit import AuditHistory, AuditHistoryInline
from casino.models import CertificateHolder, Table


class TableInline(admin.TabularInline):
    """The holder's tables, read-only: a table's status changes only through the services."""

    model = Table
    extra = 0
    fields = ("number", "game", "variant", "status")
    readonly_fields = fields
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CertificateHolder)
class CertificateHolderAdmin(AuditHistory, admin.ModelAdmin):
    list_display = ("name", "table_count")
    search_fields = ("name",)
    inlines = [TableInline, AuditHistoryInline]

    @admin.display(description="tables")
    def table_count(self, holder: CertificateHolder) -> int:
        return holder.tables.count()
