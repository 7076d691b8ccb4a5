"""Read-only bases: the rows of a round are history, written by the services alone."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from casino.admin.common import ReadOnlyAdmin

__all__ = ["ReadOnlyAdmin", "ReadOnlyInline"]


class ReadOnlyInline(admin.TabularInline):
    """The rows of a record, listed under it and shown only."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
