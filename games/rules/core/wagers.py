"""Parsing the common wager form ``{"id", "player", "kind", "amount", ...}``."""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from games.rules.core.errors import MalformedInput, RuleViolation
from games.rules.core.ids import UsedIds
from games.rules.core.money import amount_or_none, parse_amount
from games.rules.core.results import Rejection, Wager

Taken = TypeVar("Taken")

_COMMON = ("id", "player", "kind", "amount")


@dataclass(frozen=True, eq=False)
class WagerType:
    """One wager of a chapter: its scenario kind prefix, its name there, the paragraph
    defining it. Each is one constant of its engine, compared by identity (fast in a
    settlement loop, and a dict key)."""

    key: str
    name: str
    section: str


def parse_wagers(payload: object, field: str = "wagers") -> list[Wager]:
    """A list of wager objects; extra fields (``on``, ``position``) go to `Wager.extra`."""
    if not isinstance(payload, list):
        raise MalformedInput(field, "must be a list of wagers")
    wagers = []
    for i, raw in enumerate(payload):
        if not isinstance(raw, dict):
            raise MalformedInput(f"{field}[{i}]", "a wager must be an object")
        wager_id, player, kind = raw.get("id"), raw.get("player"), raw.get("kind")
        # The common case in one test; the messages below name the first bad field.
        if not (
            type(wager_id) is str and wager_id and type(player) is str and player
            and type(kind) is str and kind and "amount" in raw
        ):  # fmt: skip
            for name in ("id", "player", "kind"):
                if not isinstance(raw.get(name), str) or not raw[name]:
                    raise MalformedInput(f"{field}[{i}].{name}", "must be a non-empty string")
            if "amount" not in raw:
                raise MalformedInput(f"{field}[{i}].amount", "is required")
        amount = amount_or_none(raw["amount"])
        if amount is None:
            amount = parse_amount(raw["amount"], f"{field}[{i}].amount")
        extra = {k: v for k, v in raw.items() if k not in _COMMON} if len(raw) > 4 else {}
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


@dataclass(frozen=True)
class TakenWagers(Generic[Taken]):
    """What one wagers event did: the engine's entries for the wagers taken, in order."""

    taken: tuple[Taken, ...]
    accepted: tuple[str, ...]
    rejected: tuple[Rejection, ...]
    used: UsedIds  # the table's used ids, these included


def take_wagers(
    wagers: Iterable[Wager],
    used: UsedIds,
    admit: Callable[[int, Wager, Sequence[Taken]], "Taken | Rejection"],
) -> TakenWagers[Taken]:
    """Each wager in order: refused if its id was ever used at the table, else whatever
    `admit(index, wager, taken so far)` says: the engine's entry for it, or a Rejection
    (returned, or a RuleViolation raised). One place for the one-use id rule."""
    taken: list[Taken] = []
    accepted: list[str] = []
    rejected: list[Rejection] = []
    ids: set[str] = set()
    wagers = list(wagers)
    used_before = used.taken_of({wager.id for wager in wagers})
    for index, wager in enumerate(wagers):
        if wager.id in used_before or wager.id in ids:
            rejected.append(Rejection(f"Wager id {wager.id!r} is already in use", wager.id))
            continue
        try:
            entry = admit(index, wager, taken)
        except RuleViolation as violation:
            entry = Rejection(violation.message, wager.id, violation.cite)
        if isinstance(entry, Rejection):
            rejected.append(entry)
            continue
        taken.append(entry)
        ids.add(wager.id)
        accepted.append(wager.id)
    return TakenWagers(tuple(taken), tuple(accepted), tuple(rejected), used.with_ids(ids))
