"""The refusal every floor service raises: each reason names what is missing and its section."""

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import ParamSpec, TypeVar

from django.core.exceptions import PermissionDenied

from casino.actors import acting_as

P = ParamSpec("P")
R = TypeVar("R")


class FloorRefused(Exception):
    """The action was refused; nothing changed. `reasons` says exactly why."""

    def __init__(self, action: str, reasons: Sequence[str]) -> None:
        self.action = action
        self.reasons = list(reasons)
        super().__init__(f"{action} refused: " + "; ".join(self.reasons))

    def __reduce__(self) -> tuple[type["FloorRefused"], tuple[str, list[str]]]:
        # Raised in a worker, it crosses a process boundary: pickle the arguments, not
        # the message (Exception's default would call __init__ with the message alone).
        return (type(self), (self.action, self.reasons))


class FloorInvalid(FloorRefused):
    """A value given is not of the documented form (a type, a length, too many items):
    `fields` maps each field to what is wrong with it ("wagers[0].amount": [...]); the API
    answers it 400 `invalid`. Nothing changed."""

    def __init__(self, action: str, fields: Mapping[str, Sequence[str]]) -> None:
        self.fields = {name: list(texts) for name, texts in fields.items()}
        reasons = [f"{name} {text}" for name, texts in self.fields.items() for text in texts]
        super().__init__(action, reasons)

    def __reduce__(self) -> tuple[type["FloorInvalid"], tuple[str, dict[str, list[str]]]]:  # type: ignore[override]
        return (type(self), (self.action, self.fields))


def permission_check(user: object, permission: str, action: str) -> None:
    """PermissionDenied unless `user` holds `permission` (app_label.codename)."""
    if user is None or not getattr(user, "has_perm", None) or not user.has_perm(permission):
        who = getattr(user, "get_username", lambda: "nobody")()
        raise PermissionDenied(f"{who} may not {action} (needs {permission})")


def by_actor(service: Callable[P, R]) -> Callable[P, R]:
    """Attribute every change the service makes to its `by` keyword (the audit's actor)."""

    @functools.wraps(service)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with acting_as(kwargs.get("by")):
            return service(*args, **kwargs)

    return wrapper
