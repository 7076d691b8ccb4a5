"""API tokens (issued with the key shown once, revoked at once) and the record of every
write made through the API."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from casino.admin.audit import AuditHistory
from casino.admin.common import ReadOnlyAdmin, service_call
from casino.models import ApiToken, ApiWrite
from casino.services.api_tokens import INTEGRATOR, token_issue, token_revoke


class TokenForm(forms.ModelForm):
    user = forms.ModelChoiceField(
        queryset=get_user_model().objects.filter(groups__name=INTEGRATOR, is_active=True),
        help_text="An active user in the integrator role.",
    )

    class Meta:
        model = ApiToken
        fields = ["name", "user", "holder"]


@admin.register(ApiToken)
class ApiTokenAdmin(AuditHistory, admin.ModelAdmin):
    history_hidden = ("key_hash",)  # the secret's hash: the change form hides it too
    list_display = [
        "name",
        "user",
        "holder",
        "key_prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = ["holder", "revoked_at"]
    search_fields = ["name", "user__username", "key_id"]
    actions = ["revoke"]
    form = TokenForm

    @admin.display(description="key")
    def key_prefix(self, token: ApiToken) -> str:
        return f"cft_{token.key_id}_…"

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> Any:
        if obj is None:
            return []
        return ["name", "user", "holder", "key_prefix", "created_at", "created_by",
                "last_used_at", "revoked_at"]  # fmt: skip

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> Any:
        return ["name", "user", "holder"] if obj is None else self.get_readonly_fields(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # revoked, never deleted: the writes it made keep pointing at it

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:
            return
        issued = service_call(
            request,
            "Issuing the token",
            lambda: token_issue(
                user=obj.user,
                holder=obj.holder,
                name=obj.name,
                by=request.user,
                now=timezone.now(),
            ),
        )
        if issued is None:
            raise PermissionError("token not issued")  # the message above says why
        token, key = issued
        obj.pk = token.pk
        messages.warning(
            request, f"The key of {token.name}, shown this once: {key} — keep it secret."
        )

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet) -> None:
        for token in queryset:
            done = service_call(
                request, f"Revoking {token}",
                lambda t=token: token_revoke(t, by=request.user, now=timezone.now()),
            )  # fmt: skip
            if done is not None:
                messages.success(request, f"{token} revoked")


@admin.register(ApiWrite)
class ApiWriteAdmin(ReadOnlyAdmin):
    list_display = ["at", "user", "method", "path", "status_code", "idempotency_key"]
    list_filter = ["method", "status_code"]
    search_fields = ["path", "idempotency_key", "user__username"]
    date_hierarchy = "at"
