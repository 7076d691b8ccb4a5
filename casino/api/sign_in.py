"""Failed sign-ins are throttled: after CASINO_SIGN_IN_FAILURES failures for one username,
or from one address, each within CASINO_SIGN_IN_WINDOW_SECONDS of the last, every further
try is refused until that long after the last failure, whatever the password. The counts
live in the shared cache, so every web process on every machine sees them.

The admin's sign-in form says so plainly; the backend refuses on any other path. In
production it also refuses the demo's accounts and its published password
(casino/demo_accounts.py).
"""

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest

from casino.demo_accounts import demo_account_refused, demo_password_refused


def _keys(username: str | None, request: HttpRequest | None) -> list[str]:
    keys = []
    if username:
        keys.append(f"sign-in-failures:user:{username.strip().lower()[:150]}")
    address = request.META.get("REMOTE_ADDR") if request is not None else None
    if address:
        keys.append(f"sign-in-failures:address:{address}")
    return keys


def sign_in_locked(username: str | None, request: HttpRequest | None) -> bool:
    """True when the username or the address has failed too often of late."""
    limit = settings.CASINO_SIGN_IN_FAILURES
    return any((cache.get(key) or 0) >= limit for key in _keys(username, request))


def _failed(username: str | None, request: HttpRequest | None) -> None:
    window = settings.CASINO_SIGN_IN_WINDOW_SECONDS
    for key in _keys(username, request):
        cache.add(key, 0, timeout=window)
        try:
            cache.incr(key)  # atomic in Redis
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window)
        # The window runs from the latest failure (some caches' incr resets the timeout).
        cache.touch(key, timeout=window)


@receiver(user_login_failed, dispatch_uid="casino-sign-in-failed")
def _on_failure(sender: Any, credentials: dict, request: HttpRequest | None = None, **_: Any):
    _failed(credentials.get("username"), request)


@receiver(user_logged_in, dispatch_uid="casino-sign-in-succeeded")
def _on_success(sender: Any, request: HttpRequest | None, user: Any, **_: Any) -> None:
    # The user's own count starts again; the address's does not (one address, many names).
    cache.delete_many(_keys(user.get_username(), None))


class ThrottledBackend(ModelBackend):
    """Django's own check of the password, refused outright while the throttle holds."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, **kwargs):
        """The user, or None; PermissionDenied while sign-ins are throttled."""
        if sign_in_locked(username, request):
            raise PermissionDenied("too many failed sign-ins")
        if demo_password_refused(kwargs.get("password")):
            return None  # a failure like any other: counted, and the form says so
        return super().authenticate(request, username=username, **kwargs)

    def user_can_authenticate(self, user: Any) -> bool:
        """Active, and in production not a demo account (asked at sign-in and each request)."""
        return super().user_can_authenticate(user) and not demo_account_refused(user)


class ThrottledSignInForm(AdminAuthenticationForm):
    """The admin's sign-in form (also the floor page's and the browsable API's)."""

    def clean(self) -> dict[str, Any]:
        """Refuse while throttled, before the password is even looked at."""
        if sign_in_locked(self.data.get("username"), self.request):
            minutes = max(1, settings.CASINO_SIGN_IN_WINDOW_SECONDS // 60)
            raise forms.ValidationError(
                f"Too many failed sign-ins for this user or from this address. "
                f"Try again in {minutes} minutes.",
                code="throttled",
            )
        return super().clean()
