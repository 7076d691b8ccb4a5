"""Who may read what through the API, and which certificate holder's records a caller sees.

Reads need the model's view permission (the roles in casino/roles.py grant them). Writes
need a signed-in caller here; the floor service each write calls checks the permission
for that action (one place for each rule), and refuses with 403 naming it.

An API token sees only its certificate holder's records: everything else is 404, as if
it did not exist.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Model, QuerySet
from rest_framework import permissions
from rest_framework.request import Request

from casino.api import throttles
from casino.models import ApiToken


def view_permission(model: type[Model]) -> str:
    """``app_label.view_model``."""
    return f"{model._meta.app_label}.view_{model._meta.model_name}"


class RolePermission(permissions.BasePermission):
    """Signed in, and for reads the view permission of what the endpoint lists."""

    message = "your role may not read this"

    def has_permission(self, request: Request, view: Any) -> bool:
        """See the module's docstring."""
        user = request.user
        if not (user and user.is_authenticated):
            throttles.credentials_refused(request._request)  # its address's budget
            return False
        if request.method not in permissions.SAFE_METHODS:
            return True  # the service checks the action's own permission
        needed = getattr(view, "read_permission", None)
        if needed is None:
            queryset = getattr(view, "queryset", None)
            if queryset is None:
                return False
            needed = view_permission(queryset.model)
        self.message = f"{user.get_username()} may not read this (needs {needed})"
        return user.has_perm(needed)


def token_holder_id(request: Request) -> int | None:
    """The certificate holder an API token is bound to, or None (a staff session)."""
    token = getattr(request, "auth", None)
    return token.holder_id if isinstance(token, ApiToken) else None


# Each model's lookup to its certificate holder: as the view that lists it declares
# (casino.api.floor.ScopedViewSet registers its `holder_path` here), and for the records no
# view lists, here. A filter that names a record looks it up among those the caller sees.
HOLDER_PATHS: dict[type[Model], str | None] = {ApiToken: "holder"}


def holder_path_register(model: type[Model], holder_path: str | None) -> None:
    """Record how `model`'s rows reach their holder; two views of one model must agree."""
    known = HOLDER_PATHS.setdefault(model, holder_path)
    if known != holder_path:
        raise ImproperlyConfigured(f"{model.__name__}: holder_path {holder_path!r} != {known!r}")


def seen(queryset: QuerySet, request: Request) -> QuerySet:
    """The rows of `queryset` the caller sees: all for a staff session; for a token, its
    holder's (a user: one its holder's tokens act as; a model of no holder: none)."""
    holder_id = token_holder_id(request)
    if holder_id is None:
        return queryset
    model = queryset.model
    if model is get_user_model():
        return queryset.filter(pk__in=ApiToken.objects.filter(holder=holder_id).values("user"))
    return scoped(queryset, request, HOLDER_PATHS.get(model))


def scoped(queryset: QuerySet, request: Request, holder_path: str | None) -> QuerySet:
    """Only the token's certificate holder's rows (all rows for a staff session).

    `holder_path` is the lookup from the model to its holder's id, e.g. ``table__holder``;
    None means the records belong to no holder and a token sees none of them.
    """
    holder_id = token_holder_id(request)
    if holder_id is None:
        return queryset
    if holder_path is None:
        return queryset.none()
    return queryset.filter(**{holder_path: holder_id})
