"""API tokens: ``Authorization: Bearer cft_<key id>_<secret>``.

The token's user gives the role (its groups); the token's certificate holder bounds what
it sees and changes (casino/api/permissions.py). A revoked token stops at once.
"""

import hmac
from datetime import timedelta
from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from casino.demo_accounts import demo_account_refused
from casino.models import ApiToken
from casino.models.api import TOKEN_PREFIX, key_hash

# last_used_at is written at most this often, so reading the floor writes no row.
LAST_USED_EVERY = timedelta(minutes=1)


class TokenAuthentication(authentication.BaseAuthentication):
    """A Bearer token of ours; any other Authorization header is left to the others."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        """The token's user and the token, or None when no Bearer token was sent."""
        header = authentication.get_authorization_header(request).decode("latin-1")
        scheme, _, key = header.partition(" ")
        if scheme.lower() != self.keyword.lower():
            return None
        return token_user(key.strip())

    def authenticate_header(self, request: Request) -> str:
        """Asked for on a 401: how to authenticate."""
        return f'{self.keyword} realm="api"'


def token_user(key: str) -> tuple[Any, ApiToken]:
    """Who a key acts as, or AuthenticationFailed naming why not."""
    prefix, _, rest = key.partition("_")
    key_id, _, secret = rest.partition("_")
    if prefix != TOKEN_PREFIX or not key_id or not secret:
        raise exceptions.AuthenticationFailed("the token is not of the form cft_<id>_<secret>")
    token = ApiToken.objects.select_related("user", "holder").filter(key_id=key_id).first()
    if token is None or not hmac.compare_digest(token.key_hash, key_hash(secret)):
        raise exceptions.AuthenticationFailed("unknown token")
    if token.revoked_at is not None:
        raise exceptions.AuthenticationFailed("the token was revoked")
    if not token.user.is_active:
        raise exceptions.AuthenticationFailed("the token's user is inactive")
    if demo_account_refused(token.user):
        raise exceptions.AuthenticationFailed("a demo account: refused in production")
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user, token


class TokenScheme(OpenApiAuthenticationExtension):
    """The token in the OpenAPI schema: an HTTP bearer scheme."""

    target_class = TokenAuthentication
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        """``Authorization: Bearer cft_<key id>_<secret>``."""
        return {"type": "http", "scheme": "bearer", "bearerFormat": "cft_<key id>_<secret>"}
