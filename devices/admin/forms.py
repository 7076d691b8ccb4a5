"""The forms of the registry's admin: each only gathers what one service takes.

Nothing here saves: devices.services checks the actor's permission and the rules and
refuses with every reason it finds, which the admin shows as the form's errors.
"""

from typing import Any

from django import forms
from django.utils import timezone

from casino.models import Table
from devices import rules
from devices.models import Device, DeviceCredential


def kind_choices() -> list[tuple[str, str]]:
    return [("", "---------"), *Device._meta.get_field("kind").choices]


class RegisterForm(forms.Form):
    """A device at its table (and betting position) with its approval."""

    table = forms.ModelChoiceField(queryset=Table.objects.order_by("number"))
    kind = forms.ChoiceField(choices=kind_choices)
    position = forms.IntegerField(
        required=False,
        min_value=1,
        help_text="The betting position an Extra Roll wagering device serves; empty for a "
        "device that serves the whole table.",
    )
    manufacturer = forms.CharField(max_length=100)
    serial_number = forms.CharField(max_length=100)
    firmware = forms.CharField(max_length=100)
    approval_reference = forms.CharField(
        max_length=100,
        help_text="The approval its kind requires, e.g. the BGLO approval number.",
    )
    approved_at = forms.DateField(label="Approved on", help_text="YYYY-MM-DD.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        by_approval: dict[str, list[str]] = {}
        for kind in rules.KINDS.values():
            by_approval.setdefault(kind.approval, []).append(kind.label)
        self.fields["kind"].help_text = "; ".join(
            f"{', '.join(labels)}: {approval}" for approval, labels in by_approval.items()
        )


class OutOfOrderForm(forms.Form):
    reason = forms.CharField(
        max_length=200,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text='Why, e.g. "shaker covered and signed, dice removed" (§ 625a.7(d)).',
    )


class RotateForm(forms.Form):
    grace_seconds = forms.IntegerField(
        required=False,
        min_value=0,
        label="Old secret stops after (s)",
        help_text="Seconds the device's current secret keeps working, so it can switch "
        "without a gap. Empty: the platform's default.",
    )


class RevokeForm(forms.Form):
    """Stop one of the device's credentials now."""

    credential = forms.ModelChoiceField(queryset=DeviceCredential.objects.none())

    def __init__(self, *args: Any, device: Device, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["credential"].queryset = device.credentials.filter(
            revoked_at__isnull=True
        ).order_by("-issued_at")
        self.fields["credential"].label_from_instance = _credential_label


def _credential_label(credential: DeviceCredential) -> str:
    issued = timezone.localtime(credential.issued_at).strftime("%Y-%m-%d %H:%M")
    ends = ""
    if credential.expires_at is not None:
        ends = f", stops {timezone.localtime(credential.expires_at):%Y-%m-%d %H:%M:%S}"
    return f"{credential.key_id} (issued {issued}{ends})"


class ConfirmForm(forms.Form):
    """A confirmation page: nothing to fill in, one button."""
