"""Webhook endpoints and their deliveries in the admin: register one (its secret shown
once), pause it, enable again one the circuit breaker disabled (an alert, in red), rotate
its secret; each delivery with its tries and answers, and "Send again".

Every change goes through webhooks/services.py and webhooks/delivery.py, as the API's do.
"""

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from casino.admin.common import ReadOnlyAdmin, service_call
from casino.models import CertificateHolder
from games.admin.common import ReadOnlyInline
from webhooks.delivery import SEND_AGAIN, deliveries_send_again
from webhooks.events import EVENT_TYPES
from webhooks.models import (
    ACTIVE,
    DISABLED,
    ENDPOINT_STATUS_CHOICES,
    FAILING,
    PAUSED,
    Attempt,
    Delivery,
    Endpoint,
)
from webhooks.sending import url_refusals
from webhooks.services import (
    endpoint_count_refusal,
    endpoint_register,
    endpoint_secret_rotate,
    endpoint_update,
)

# The words in colour, and always in words (colour is never the only sign).
COLOURS = {
    ACTIVE: "#1a7f37",
    FAILING: "#b26a00",
    PAUSED: "#555555",
    DISABLED: "#c62828",
    Delivery.Status.DELIVERED: "#1a7f37",
    Delivery.Status.PENDING: "#555555",
    Delivery.Status.FAILED: "#c62828",
}


def coloured(key: str, text: str) -> SafeString:
    return format_html('<strong style="color: {}">{}</strong>', COLOURS[key], text)


class EndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=[(name, f"{name}: {kind.sentence}") for name, kind in EVENT_TYPES.items()],
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = Endpoint
        fields = ["holder", "url", "description", "events", "active"]

    def clean_holder(self) -> CertificateHolder:
        """A new endpoint's holder (the field is read-only on a change): room for one more."""
        holder = self.cleaned_data["holder"]
        if full := endpoint_count_refusal(holder):
            raise forms.ValidationError(full)
        return holder

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        refusals = url_refusals(url)
        if refusals:
            raise forms.ValidationError(refusals)
        return url


class EndpointStatusFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return ENDPOINT_STATUS_CHOICES

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        found = {
            DISABLED: Q(disabled_at__isnull=False),
            PAUSED: Q(active=False, disabled_at__isnull=True),
            FAILING: Q(active=True, failures__gt=0),
            ACTIVE: Q(active=True, failures=0),
        }.get(self.value())
        return queryset if found is None else queryset.filter(found)


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = ["url", "holder", "events_shown", "status_shown", "failures", "retry_at",
                    "disabled_at"]  # fmt: skip
    list_filter = [EndpointStatusFilter, "holder"]
    search_fields = ["url", "description"]
    actions = ["enable_again", "pause", "rotate_secret"]
    readonly_fields = ["status_shown", "failures", "failing_since", "retry_at", "disabled_at",
                       "disabled_reason", "created_at", "created_by", "secret_rotated_at",
                       "previous_secret_until"]  # fmt: skip

    @admin.display(description="events")
    def events_shown(self, endpoint: Endpoint) -> str:
        return ", ".join(endpoint.events)

    @admin.display(description="status")
    def status_shown(self, endpoint: Endpoint) -> SafeString:
        status = endpoint.status
        text = dict(ENDPOINT_STATUS_CHOICES)[status]
        if status == DISABLED:
            text = f"disabled: {endpoint.disabled_reason}"
        return coloured(status, text)

    def get_fields(self, request: HttpRequest, obj: Endpoint | None = None) -> Any:
        if obj is None:
            return ["holder", "url", "description", "events"]
        return ["holder", "url", "description", "events", "active", *self.readonly_fields]

    def get_readonly_fields(self, request: HttpRequest, obj: Endpoint | None = None) -> Any:
        return [] if obj is None else ["holder", *self.readonly_fields]

    def save_model(self, request: HttpRequest, obj: Endpoint, form: Any, change: bool) -> None:
        data, now = form.cleaned_data, timezone.now()
        if change:
            done = service_call(
                request,
                "Changing the endpoint",
                lambda: endpoint_update(
                    obj, by=request.user, now=now, url=data["url"], events=data["events"],
                    description=data["description"], active=data["active"],
                ),
            )  # fmt: skip
            if done is None:
                raise PermissionError("endpoint not changed")  # the message above says why
            return
        made = service_call(
            request,
            "Registering the endpoint",
            lambda: endpoint_register(
                holder=data["holder"], url=data["url"], events=data["events"],
                description=data["description"], by=request.user, now=now,
            ),
        )  # fmt: skip
        if made is None:
            raise PermissionError("endpoint not registered")  # the message above says why
        endpoint, secret = made
        obj.pk = endpoint.pk
        messages.warning(
            request,
            f"The signing secret of {endpoint.url}, shown this once: {secret} — give it to "
            "the integrator; it verifies every message with it.",
        )

    @admin.action(description="Enable again (clears a disabling and the failures)",
                  permissions=["change"])  # fmt: skip
    def enable_again(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._switch(request, queryset, active=True)

    @admin.action(description="Pause (it receives nothing until enabled)", permissions=["change"])
    def pause(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._switch(request, queryset, active=False)

    def _switch(self, request: HttpRequest, queryset: QuerySet, *, active: bool) -> None:
        for endpoint in queryset:
            done = service_call(
                request, f"{endpoint.url}",
                lambda e=endpoint: endpoint_update(
                    e, by=request.user, now=timezone.now(), active=active
                ),
            )  # fmt: skip
            if done is not None:
                self.log_change(request, done, "Enabled again" if active else "Paused")
                messages.success(request, f"{done.url}: {done.status}")

    @admin.action(description="Rotate the signing secret (the new one shown once)",
                  permissions=["change"])  # fmt: skip
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet) -> None:
        for endpoint in queryset:
            done = service_call(
                request, f"Rotating {endpoint.url}",
                lambda e=endpoint: endpoint_secret_rotate(e, by=request.user, now=timezone.now()),
            )  # fmt: skip
            if done is not None:
                rotated, secret = done
                self.log_change(request, rotated, "Secret rotated")
                messages.warning(
                    request,
                    f"The new secret of {rotated.url}, shown this once: {secret} (the old one "
                    f"signs too until {rotated.previous_secret_until:%Y-%m-%d %H:%M} UTC).",
                )


class AttemptInline(ReadOnlyInline):
    model = Attempt
    fields = ["number", "at", "duration_ms", "status_code", "response", "error", "succeeded"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("webhooks.view_delivery")  # a delivery's tries are its own


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ["id", "event_type", "endpoint", "status_shown", "attempts",
                    "last_status_code", "last_error", "next_attempt_at", "created_at"]  # fmt: skip
    list_filter = ["status", "event__event_type", "endpoint"]
    list_select_related = ["event", "endpoint"]
    search_fields = ["endpoint__url", "event__uid"]
    date_hierarchy = "created_at"
    inlines = [AttemptInline]
    fields = ["event_type", "message_id", "endpoint", "status_shown", "attempts", "created_at",
              "next_attempt_at", "in_flight_until", "sent_at", "last_attempt_at",
              "last_status_code", "last_response", "last_error", "delivered_at",
              "payload"]  # fmt: skip
    readonly_fields = fields
    actions = ["send_again"]

    @admin.display(description="event", ordering="event__event_type")
    def event_type(self, delivery: Delivery) -> str:
        return delivery.event.event_type

    @admin.display(description="webhook-id")
    def message_id(self, delivery: Delivery) -> str:
        return delivery.event.message_id

    @admin.display(description="status", ordering="status")
    def status_shown(self, delivery: Delivery) -> SafeString:
        return coloured(delivery.status, delivery.get_status_display())

    @admin.display(description="payload")
    def payload(self, delivery: Delivery) -> SafeString:
        shown = json.dumps(json.loads(delivery.event.body), indent=2, ensure_ascii=False)
        return format_html("<pre>{}</pre>", shown)

    def has_send_again_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(SEND_AGAIN)

    @admin.action(description="Send again (a dead letter too; its tries counted afresh)",
                  permissions=["send_again"])  # fmt: skip
    def send_again(self, request: HttpRequest, queryset: QuerySet) -> None:
        rows = list(queryset.select_related("endpoint"))
        sent = service_call(
            request,
            "Sending again",
            lambda: deliveries_send_again(rows, by=request.user, now=timezone.now()),
        )
        if sent is not None:
            for row in rows:
                self.log_change(request, row, f"Sent again (it was {row.status})")
            messages.success(request, f"Sent {sent} delivery(ies) again.")
