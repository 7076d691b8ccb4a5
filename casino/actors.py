"""Who acts: a person, a device in its own name, or the rules themselves (nobody).

The lowest layer above the engines holds this so every layer can name the actor: the
audit trail (`acting_as`), the round flow (`acting_person`) and the device registry.
No model is imported here, so anything may import it at any time.
"""

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_actor: contextvars.ContextVar[Any] = contextvars.ContextVar("casino_audit_actor", default=None)


@contextmanager
def acting_as(user: Any) -> Iterator[None]:
    """Attribute the changes made inside the block to `user` (None: the system)."""
    token = _actor.set(user)
    try:
        yield
    finally:
        _actor.reset(token)


def actor_current() -> Any:
    """The actor of the block we are in (None: the system)."""
    return _actor.get()


def is_device(actor: Any) -> bool:
    """A registered device acting in its own name (devices.models.Device)."""
    return getattr(actor, "is_device", False) is True


def acting_person(by: Any) -> Any:
    """The person who acted, or None (a device acts in its own name: RoundEvent.device)."""
    if is_device(by):
        return None
    return by if getattr(by, "pk", None) is not None else None
