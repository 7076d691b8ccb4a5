"""API tokens: ``Authorization: Bearer cft_<key id>_<secret>``.

The token's user gives the role (its groups); the token's certificate holder bounds what
it sees and changes (casino/api/permissions.py). A revoked token stops at once.

Who a key acts as is kept in the shared cache (`TOKENS`, casino/versioned.py), the user
with its permissions read (issue 21: three queries a request were most of a floor read):
a change to any token, user, group, permission, a user's groups or permissions, or a
holder bumps its version when it commits, so a revoked token, a deactivated user or a
role taken away still stops at once.

A cached read that only needs to know whether a key may read one thing (the floor,
casino/api/overview.py) reads its `TokenPass` instead: what `token_user` and the role's
permission check would decide, kept under the same version without the user to unpickle.
"""

import hmac
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from casino.api import throttles
from casino.demo_accounts import demo_account_refused
from casino.models import ApiToken
from casino.models.api import TOKEN_PREFIX, key_hash
from casino.versioned import VersionedCache

# last_used_at is written at most this often, so reading the floor writes no row.
LAST_USED_EVERY = timedelta(minutes=1)
TOKENS = VersionedCache(
    "api-token",
    watched=(
        "casino.ApiToken",
        "casino.CertificateHolder",
        settings.AUTH_USER_MODEL,
        "auth.Group",
        "auth.Permission",
    ),
    seconds=LAST_USED_EVERY.total_seconds(),
)


class TokenAuthentication(authentication.BaseAuthentication):
    """A Bearer token of ours; any other Authorization header is left to the others."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        """The token's user and the token, or None when no Bearer token was sent."""
        header = authentication.get_authorization_header(request).decode("latin-1")
        scheme, _, key = header.partition(" ")
        if scheme.lower() != self.keyword.lower():
            return None
        return token_user(key.strip(), request._request)

    def authenticate_header(self, request: Request) -> str:
        """Asked for on a 401: how to authenticate."""
        return f'{self.keyword} realm="api"'


def key_parts(key: str) -> tuple[str, str] | None:
    """A key's id and secret, or None if it is not of the form cft_<id>_<secret>."""
    prefix, _, rest = key.partition("_")
    key_id, _, secret = rest.partition("_")
    if prefix != TOKEN_PREFIX or not key_id or not secret:
        return None
    return key_id, secret


def token_user(key: str, request: HttpRequest | None = None) -> tuple[Any, ApiToken]:
    """Who a key acts as, or AuthenticationFailed naming why not. With the request, the
    token's budget is counted in the same trip as the token's cached read, and the count
    left on the request for DRF's throttle (casino/api/throttles.py: one trip, not two)."""
    parts = key_parts(key)
    if parts is None:
        if request is not None:
            throttles.credentials_refused(request)
        raise exceptions.AuthenticationFailed("the token is not of the form cft_<id>_<secret>")
    key_id, secret = parts
    counted = getattr(request, throttles.COUNTED, None) if request is not None else None
    if request is None or counted is not None:  # nothing to count, or counted already
        return _token_admit(TOKENS.cached(key_id, lambda: _token_load(key_id)), secret)
    caller = throttles.token_caller(key_id, key_hash(secret))
    taken = throttles.take("token", caller, TOKENS.keys(key_id))
    token = TOKENS.serve(taken.found, key_id, lambda: _token_load(key_id))
    try:
        admitted = _token_admit(token, secret)
    except exceptions.AuthenticationFailed:
        throttles.give_back(taken)  # a refused key spends no token's budget,
        throttles.credentials_refused(request)  # but its address's
        raise
    setattr(request, throttles.COUNTED, ("token", caller, taken.wait))
    return admitted


def _token_admit(token: ApiToken | None, secret: str) -> tuple[Any, ApiToken]:
    """The token's user and the token if the secret is its own and it may act now."""
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
        TOKENS.changed()  # update() sends no signal: the cached copy's time is read again
    return token.user, token


def _token_load(key_id: str) -> ApiToken | None:
    """The token with its user and holder, the user's permissions read (ModelBackend keeps
    them on the user, so the cached user answers has_perm without a query)."""
    token = ApiToken.objects.select_related("user", "holder").filter(key_id=key_id).first()
    if token is not None:
        token.user.get_all_permissions()
    return token


class TokenPass(NamedTuple):
    """What a read needing one permission knows of a key id, without its user."""

    key_hash: str
    holder_id: int | None
    last_used_at: datetime | None
    # token_user would accept the token (not revoked, its user active and no refused demo
    # account) and its user has the permission.
    admitted: bool


def token_pass_scope(key_id: str, permission: str) -> str:
    """The TOKENS scope of a key id's pass for a permission (apart from its user's scope)."""
    return f"{key_id}:pass:{permission}"


def token_pass_load(key_id: str, permission: str) -> TokenPass | None:
    """The key id's pass for `permission` from the database (None: no such token)."""
    token = _token_load(key_id)
    if token is None:
        return None
    user = token.user
    admitted = (
        token.revoked_at is None
        and user.is_active
        and not demo_account_refused(user)
        and user.has_perm(permission)
    )
    return TokenPass(token.key_hash, token.holder_id, token.last_used_at, admitted)


def token_pass_admits(passed: TokenPass | None, secret: str, now: datetime) -> bool:
    """The pass lets the secret's bearer read without DRF: the token and its role would,
    and its last use needs no writing yet (token_user writes it)."""
    return (
        passed is not None
        and passed.admitted
        and hmac.compare_digest(passed.key_hash, key_hash(secret))
        and passed.last_used_at is not None
        and now - passed.last_used_at <= LAST_USED_EVERY
    )


class TokenScheme(OpenApiAuthenticationExtension):
    """The token in the OpenAPI schema: an HTTP bearer scheme."""

    target_class = TokenAuthentication
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        """``Authorization: Bearer cft_<key id>_<secret>``."""
        return {"type": "http", "scheme": "bearer", "bearerFormat": "cft_<key id>_<secret>"}
