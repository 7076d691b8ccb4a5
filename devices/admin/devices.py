"""Devices: the registry with each device's live last heartbeat, its credentials and its
history; registration (the secret shown once) and the floor's actions on a device.

Every action calls devices.services with the signed-in user and timezone.now(); the
services check the permission and the rules, and a refusal is shown reason by reason.
Nothing on the page edits a device directly: its status moves only through the services,
its heartbeats and its own reports. The changelist refuses (403) an action the user may
not run: a hidden button is not a lock.
"""

from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from casino.admin.audit import AuditHistory, AuditHistoryInline
from casino.admin.common import (
    FitsTheWindow,
    ReadOnlyAdmin,
    action_form,
    form_page,
    one_selected,
    refusal_to_form,
    service_call,
)
from devices import signing
from devices.admin.forms import ConfirmForm, OutOfOrderForm, RegisterForm, RevokeForm, RotateForm
from devices.models import Device, DeviceCredential, DeviceEvent
from devices.selectors import Seen, seen_attach
from devices.services import (
    OPERATE,
    REGISTER,
    Issued,
    credential_revoke,
    credential_rotate,
    device_register,
    device_return_to_service,
)
from devices.watch import threshold
from games.admin.common import ReadOnlyInline
from gaming.devices import device_out_of_order, device_retire

Status = Device.Status

STATUS_COLOURS = {
    Status.REGISTERED: "#555555",
    Status.ACTIVE: "#1a7f37",  # green
    Status.STALE: "#b26a00",  # amber
    Status.FAULTED: "#c62828",  # red
    Status.OUT_OF_ORDER: "#c62828",
    Status.RETIRED: "#888888",
}

# The actions that need devices.operate_device, and the statuses each applies to (for
# the buttons on a device's page; the services decide what is allowed).
NOT_RETIRED = tuple(s for s in Status.values if s != Status.RETIRED)
DEVICE_ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "mark_out_of_order": (
        "Mark out of order",
        (Status.REGISTERED, Status.ACTIVE, Status.STALE, Status.FAULTED),
    ),
    "return_to_service": ("Return to service", (Status.OUT_OF_ORDER, Status.FAULTED)),
    "rotate_secret": ("Rotate the secret", NOT_RETIRED),
    "revoke_credential": ("Revoke a credential", tuple(Status.values)),
    "retire": ("Retire", NOT_RETIRED),
}


def when_text(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S")


# -- The live last heartbeat ---------------------------------------------------------------


def seen_html(seen: Seen, now: datetime) -> SafeString | str:
    if seen.at is None:
        return "never (store unreachable)" if seen.unreachable else "never"
    ago = max(0, int((now - seen.at).total_seconds()))
    note = ""
    if not seen.live:
        note = "; store unreachable, the row's copy" if seen.unreachable else "; the row's copy"
    return format_html(
        '<span class="device-last-seen">{}</span> <span class="quiet">({} s ago{})</span>',
        when_text(seen.at),
        ago,
        note,
    )


class DeviceChangeList(ChangeList):
    """The page of devices, each with its live last heartbeat read from the store."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        self.result_list = seen_attach(self.result_list)


# -- A secret, shown once --------------------------------------------------------------


def secret_page(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    issued: Issued,
    *,
    title: str,
    old: Iterable[DeviceCredential] = (),
) -> TemplateResponse:
    """The key id, the secret and how a device signs with them; rendered once, never
    stored, never put in a message, never cached."""
    opts = model_admin.model._meta
    now = timezone.now()
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "device": issued.device,
        "key_id": issued.key_id,
        "secret": issued.secret,
        "old": [
            {
                "key_id": credential.key_id,
                "stops_at": when_text(credential.expires_at) if credential.expires_at else None,
                "in_seconds": (
                    max(0, int((credential.expires_at - now).total_seconds()))
                    if credential.expires_at
                    else None
                ),
            }
            for credential in old
        ],
        "headers": [
            (signing.KEY, issued.key_id),
            (
                signing.TIMESTAMP,
                "the Unix time of signing, in seconds (within "
                f"{settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS} s of the platform's clock)",
            ),
            (signing.NONCE, "16 to 64 characters of A-Z a-z 0-9 _ -, never used twice"),
            (
                signing.SIGNATURE,
                "hex HMAC-SHA256 with the secret over the method, the path, the timestamp, "
                "the nonce and the hex SHA-256 of the body, one per line",
            ),
        ],
        "endpoints": [
            reverse("device-heartbeat"),
            reverse("device-condition"),
            reverse("device-report"),
        ],
    }
    response = TemplateResponse(request, "admin/devices/device/secret.html", context)
    response["Cache-Control"] = "no-store, no-cache, must-revalidate, private, max-age=0"
    return response


# -- The device's rows, read-only --------------------------------------------------------


class CredentialInline(ReadOnlyInline):
    """Key ids and when each works; never a secret (or the salt it is derived from)."""

    model = DeviceCredential
    fields = ("key_id", "issued", "issued_by", "expires", "revoked", "state")
    ordering = ("-issued_at", "-id")
    verbose_name_plural = "credentials (the secret is shown once, when issued)"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("issued_by")

    @admin.display(description="issued")
    def issued(self, credential: DeviceCredential) -> str:
        return when_text(credential.issued_at)

    @admin.display(description="expires")
    def expires(self, credential: DeviceCredential) -> str:
        return when_text(credential.expires_at) if credential.expires_at else "-"

    @admin.display(description="revoked")
    def revoked(self, credential: DeviceCredential) -> str:
        return when_text(credential.revoked_at) if credential.revoked_at else "-"

    @admin.display(description="now")
    def state(self, credential: DeviceCredential) -> str:
        now = timezone.now()
        if credential.revoked_at is not None and credential.revoked_at <= now:
            return "revoked"
        if credential.expires_at is not None:
            if now >= credential.expires_at:
                return "expired"
            return f"in use, stops in {int((credential.expires_at - now).total_seconds())} s"
        return "in use"


def round_link(event: DeviceEvent) -> SafeString | str:
    if event.round_id is None:
        return "-"
    url = reverse("admin:games_round_change", args=[event.round_id])
    return format_html('<a href="{}">{}</a>', url, event.round)


class DeviceEventInline(ReadOnlyInline):
    """What happened to the device, newest first."""

    model = DeviceEvent
    fields = ("when", "kind", "detail", "cite", "event_round", "by")
    ordering = ("-at", "-id")
    verbose_name_plural = "history (newest first)"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("round__table", "by")

    @admin.display(description="at")
    def when(self, event: DeviceEvent) -> str:
        return when_text(event.at)

    @admin.display(description="round")
    def event_round(self, event: DeviceEvent) -> SafeString | str:
        return round_link(event)


# -- The admin -------------------------------------------------------------------------


@admin.register(Device)
class DeviceAdmin(FitsTheWindow, AuditHistory, ReadOnlyAdmin):
    list_display = (
        "table",
        "position",
        "kind",
        "serial_number",
        "firmware",
        "status_coloured",
        "last_seen",
        "stale",
        "approval_reference",
    )
    list_filter = ("status", "kind", "table")
    search_fields = ("serial_number", "manufacturer")
    list_select_related = ("table",)
    fieldsets = [
        (None, {"fields": ("table", "position", "kind", "manufacturer", "serial_number")}),
        ("Approval", {"fields": ("firmware", "approval_reference", "approved_at", "needs")}),
        (
            "Status (changed only by the actions, its heartbeats and its own reports)",
            {
                "fields": (
                    "status_coloured",
                    "status_changed_at",
                    "out_of_order_reason",
                    "stale_since",
                    "last_seen",
                    "last_seen_at",
                    "heartbeats",
                    "registered_at",
                    "registered_by",
                    "events_link",
                )
            },
        ),
    ]
    readonly_fields = ("status_coloured", "last_seen", "heartbeats", "needs", "events_link")
    inlines = [CredentialInline, DeviceEventInline, AuditHistoryInline]
    actions = list(DEVICE_ACTIONS)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(REGISTER)

    def has_operate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(OPERATE)

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return DeviceChangeList

    # -- Columns and read-only fields ----------------------------------------------------

    @admin.display(description="status", ordering="status")
    def status_coloured(self, device: Device) -> SafeString:
        return format_html(
            '<span style="color: {}; font-weight: bold;" class="device-{}">{}</span>',
            STATUS_COLOURS[device.status],
            device.status,
            device.get_status_display(),
        )

    @admin.display(description="last seen (live)", ordering="last_seen_at")
    def last_seen(self, device: Device) -> SafeString | str:
        seen = getattr(device, "seen", None)
        if seen is None:  # the device's own page
            seen = seen_attach([device])[0].seen
        return seen_html(seen, timezone.now())

    @admin.display(description="stale since", ordering="stale_since")
    def stale(self, device: Device) -> str:
        return when_text(device.stale_since) if device.stale_since else "-"

    @admin.display(description="heartbeats")
    def heartbeats(self, device: Device) -> str:
        interval, missed, allowed = threshold(device.kind)
        return f"every {interval} s; stale after {missed} missed ({allowed:.0f} s of silence)"

    @admin.display(description="its kind needs")
    def needs(self, device: Device) -> str:
        info = device.kind_info
        return f"{info.approval[0].upper()}{info.approval[1:]} ({info.cite})"

    @admin.display(description="all events")
    def events_link(self, device: Device) -> SafeString:
        url = reverse("admin:devices_deviceevent_changelist") + f"?device__id__exact={device.pk}"
        return format_html('<a href="{}">{} event(s)</a>', url, device.events.count())

    # -- Pages -------------------------------------------------------------------------

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        posted = set(request.POST.getlist("action")) if request.method == "POST" else set()
        if posted & set(DEVICE_ACTIONS) and not self.has_operate_permission(request):
            raise PermissionDenied(f"{request.user} may not act on devices (needs {OPERATE})")
        return super().changelist_view(request, extra_context)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        device = self.get_object(request, unquote(object_id))
        if device is not None and self.has_operate_permission(request):
            buttons = [
                {"action": name, "label": label}
                for name, (label, statuses) in DEVICE_ACTIONS.items()
                if device.status in statuses
            ]
            extra_context = {**(extra_context or {}), "device_actions": buttons}
        return super().change_view(request, object_id, form_url, extra_context)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """Register a device through the service, then show its secret, once."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            form = RegisterForm(request.POST)
        else:
            form = RegisterForm(initial=request.GET.dict())
        if form.is_bound and form.is_valid():
            data = form.cleaned_data
            issued = refusal_to_form(
                form,
                partial(
                    device_register,
                    data["table"],
                    kind=data["kind"],
                    manufacturer=data["manufacturer"],
                    serial_number=data["serial_number"],
                    firmware=data["firmware"],
                    approval_reference=data["approval_reference"],
                    approved_at=data["approved_at"],
                    position=data["position"],
                    by=request.user,
                    now=timezone.now(),
                ),
            )
            if issued is not None:
                messages.success(
                    request,
                    f"{issued.device} is registered; it becomes active at its first heartbeat.",
                )
                return secret_page(self, request, issued, title=f"{issued.device}: its secret")
        return form_page(
            self,
            request,
            form=form,
            title="Register a device",
            submit_label="Register and issue its secret",
            intro="Who and when are recorded from your login and the clock. The device's "
            "secret is shown once, on the next page.",
        )

    # -- Actions -----------------------------------------------------------------------

    def _each(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        service: Callable[..., Any],
        doing: str,
        done: str,
        *args: Any,
    ) -> None:
        now = timezone.now()
        for device in queryset:
            call = partial(service, device, *args, by=request.user, now=now)
            if service_call(request, f"{doing} {device}", call) is not None:
                messages.success(request, f"{device} {done}.")

    @admin.action(description="Mark out of order", permissions=["operate"])
    def mark_out_of_order(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        form = action_form(request, OutOfOrderForm)
        if form.is_bound and form.is_valid():
            reason = form.cleaned_data["reason"]
            self._each(request, queryset, device_out_of_order, "Marking", "is out of order", reason)
            return None
        return form_page(
            self,
            request,
            form=form,
            title="Mark devices out of order",
            submit_label="Mark out of order",
            objects=queryset,
            action="mark_out_of_order",
            intro="Heartbeats no longer bring it back: only returning it to service does.",
        )

    @admin.action(description="Return to service", permissions=["operate"])
    def return_to_service(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._each(
            request,
            queryset,
            device_return_to_service,
            "Returning",
            "is back in service: registered, active at its next heartbeat",
        )

    @admin.action(description="Rotate the secret (one device)", permissions=["operate"])
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        device = one_selected(request, queryset, "rotate its secret")
        if device is None:
            return None
        form = action_form(request, RotateForm)
        if form.is_bound and form.is_valid():
            call = partial(
                credential_rotate,
                device,
                by=request.user,
                now=timezone.now(),
                grace_seconds=form.cleaned_data["grace_seconds"],
            )
            issued = service_call(request, f"Rotating the secret of {device}", call)
            if issued is None:
                return None
            old = issued.device.credentials.exclude(pk=issued.credential.pk).filter(
                revoked_at__isnull=True, expires_at__gte=issued.credential.issued_at
            )
            messages.success(request, f"{device} has a new secret ({issued.key_id}).")
            return secret_page(
                self, request, issued, title=f"{device}: its new secret", old=old.order_by("pk")
            )
        return form_page(
            self,
            request,
            form=form,
            title=f"Rotate the secret of {device}",
            submit_label="Issue a new secret",
            objects=[device],
            action="rotate_secret",
            intro="The new secret is shown once, on the next page.",
        )

    @admin.action(description="Revoke a credential (one device)", permissions=["operate"])
    def revoke_credential(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        device = one_selected(request, queryset, "revoke its credential")
        if device is None:
            return None
        form = action_form(request, RevokeForm, device=device)
        if not form.fields["credential"].queryset.exists():
            messages.error(request, f"{device} has no credential in use to revoke.")
            return None
        if form.is_bound and form.is_valid():
            credential = form.cleaned_data["credential"]
            call = partial(credential_revoke, credential, by=request.user, now=timezone.now())
            if service_call(request, f"Revoking {credential.key_id} of {device}", call):
                messages.success(
                    request, f"{credential.key_id} of {device} is revoked: it stops now."
                )
            return None
        return form_page(
            self,
            request,
            form=form,
            title=f"Revoke a credential of {device}",
            submit_label="Revoke it now",
            objects=[device],
            action="revoke_credential",
            intro="A request signed with it is refused from now on.",
        )

    @admin.action(description="Retire", permissions=["operate"])
    def retire(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        form = action_form(request, ConfirmForm)
        if form.is_bound and form.is_valid():
            done = "is retired; its credentials are revoked"
            self._each(request, queryset, device_retire, "Retiring", done)
            return None
        return form_page(
            self,
            request,
            form=form,
            title="Retire devices",
            submit_label="Yes, retire for good",
            objects=queryset,
            action="retire",
            intro="Retiring is for good: the device's credentials are revoked now and its "
            "place at the table is freed for a new device. A retired device never returns "
            "to service.",
        )
