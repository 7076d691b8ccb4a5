"""Integrators' API tokens: issued to an integrator for one certificate holder, the key
shown once; revoked at once."""

from datetime import datetime
from typing import Any

from django.db import transaction

from casino.models import ApiToken, CertificateHolder
from casino.models.api import key_hash
from casino.services.errors import FloorRefused, by_actor, permission_check

INTEGRATOR = "integrator"


@by_actor
def token_issue(
    *, user: Any, holder: CertificateHolder, name: str, by: Any, now: datetime
) -> tuple[ApiToken, str]:
    """A new token for `user` bound to `holder`, and its key (never stored, never shown
    again)."""
    permission_check(by, "casino.add_apitoken", "issue an API token")
    reasons = []
    if not user.groups.filter(name=INTEGRATOR).exists():
        reasons.append(f"{user.get_username()} is not in the integrator role")
    if not user.is_active:
        reasons.append(f"{user.get_username()} is inactive")
    if not name.strip():
        reasons.append("a token is named after what uses it")
    if reasons:
        raise FloorRefused("Issuing an API token", reasons)
    key, key_id, secret = ApiToken.new_key()
    with transaction.atomic():
        token = ApiToken.objects.create(
            name=name.strip()[:100],
            user=user,
            holder=holder,
            key_id=key_id,
            key_hash=key_hash(secret),
            created_at=now,
            created_by=by,
        )
    return token, key


@by_actor
def token_revoke(token: ApiToken, *, by: Any, now: datetime) -> ApiToken:
    """Revoke the token: its next request is refused."""
    permission_check(by, "casino.change_apitoken", "revoke an API token")
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().get(pk=token.pk)
        if token.revoked_at is not None:
            raise FloorRefused("Revoking an API token", [f"{token} is already revoked"])
        token.revoked_at = now
        token.save(update_fields=["revoked_at"])
    return token
