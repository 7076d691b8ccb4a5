"""The audit trail in the admin: read by everyone with the view permission, changed by no one.

AuditEntry refuses save and delete itself; the admin also offers no way to try, for
superusers too, so no button leads to an error page. A record's History button shows its
trail (`AuditHistory`): the services write no LogEntry, so Django's own page was empty.
"""

from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import PAGE_VAR
from django.contrib.contenttypes.admin import GenericTabularInline
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst

from casino.models import AuditEntry

# Entries a History page shows at once (Django's own history shows 100).
HISTORY_PAGE = 100


def audit_changes(entry: AuditEntry, order: list[str]) -> list[tuple[str, Any, Any]]:
    """Each field an entry records: (field, before, after), None where there is no side; in
    the model's order (`order`: PostgreSQL's jsonb keeps keys in an order of its own), then
    anything more the entry says (a ledger adjustment's lines)."""
    before, after = entry.before or {}, entry.after or {}
    recorded = set(before) | set(after)
    names = [name for name in order if name in recorded]
    names += sorted(recorded - set(names))
    return [(name, before.get(name), after.get(name)) for name in names]


class AuditHistory:
    """A ModelAdmin's History button showing the record's audit trail (casino/audit.py),
    newest first, in pages: who, when, created, changed or deleted, each field before and
    after. Seen by whoever may view the record."""

    object_history_template = "admin/casino/audit_history.html"
    # Fields the trail records but this page never shows (as the change form hides them).
    history_hidden: tuple[str, ...] = ()

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict | None = None
    ) -> HttpResponse:
        """The record's audit trail (Django's LogEntry list, which nothing writes, no more)."""
        model = self.model  # type: ignore[attr-defined]
        obj = self.get_object(request, unquote(object_id))  # type: ignore[attr-defined]
        if obj is None:
            return self._get_obj_does_not_exist_redirect(  # type: ignore[attr-defined]
                request, model._meta, object_id
            )
        if not self.has_view_or_change_permission(request, obj):  # type: ignore[attr-defined]
            raise PermissionDenied
        entries = (
            AuditEntry.objects.filter(
                content_type=ContentType.objects.get_for_model(model), object_id=str(obj.pk)
            )
            .select_related("actor")
            .order_by("-at", "-id")
        )
        order = [field.attname for field in model._meta.concrete_fields]
        paginator = Paginator(entries, HISTORY_PAGE)
        page = paginator.get_page(request.GET.get(PAGE_VAR))
        site = self.admin_site  # type: ignore[attr-defined]
        context = {
            **site.each_context(request),
            "title": f"Audit trail: {obj}",
            "subtitle": None,
            "entries": [
                (entry, [c for c in audit_changes(entry, order) if c[0] not in self.history_hidden])
                for entry in page
            ],
            "page": page,
            "page_range": paginator.get_elided_page_range(page.number),
            "page_var": PAGE_VAR,
            "pagination_required": paginator.num_pages > 1,
            "module_name": str(capfirst(model._meta.verbose_name_plural)),
            "object": obj,
            "opts": model._meta,
            "preserved_filters": self.get_preserved_filters(request),  # type: ignore[attr-defined]
            **(extra_context or {}),
        }
        request.current_app = site.name
        return TemplateResponse(request, self.object_history_template, context)


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
