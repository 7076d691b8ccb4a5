"""Parsing the common wager form ``{"id", "player", "kind", "amount", ...}``."""

from games.rules.core.errors import MalformedInput
from games.rules.core.money import parse_amount
from games.rules.core.results import Wager

_COMMON = ("id", "player", "kind", "amount")


def parse_wagers(payload: object, field: str = "wagers") -> list[Wager]:
    """A list of wager objects; extra fields (``on``, ``position``) go to `Wager.extra`."""
    if not isinstance(payload, list):
        raise MalformedInput(field, "must be a list of wagers")
    wagers = []
    for i, raw in enumerate(payload):
        where = f"{field}[{i}]"
        if not isinstance(raw, dict):
            raise MalformedInput(where, "a wager must be an object")
        for name in ("id", "player", "kind"):
            if not isinstance(raw.get(name), str) or not raw[name]:
                raise MalformedInput(f"{where}.{name}", "must be a non-empty string")
        if "amount" not in raw:
            raise MalformedInput(f"{where}.amount", "is required")
        amount = parse_amount(raw["amount"], f"{where}.amount")
        extra = {k: v for k, v in raw.items() if k not in _COMMON}
        wagers.append(Wager(raw["id"], raw["player"], raw["kind"], amount, extra))
    return wagers


def parse_dice(payload: object, field: str) -> list[int]:
    """A list of integer die faces; the count and range are the engine's rule checks.

    Only the form is checked here (a list of integers): a face of 7 or a wrong number
    of dice is well formed but impossible, and the engine rejects that event.
    """
    if not isinstance(payload, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in payload
    ):
        raise MalformedInput(field, "must be a list of integer die faces")
    return list(payload)
