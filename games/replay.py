"""Playing a round's events through its engine: the one path the web process, the
settlement worker and `manage.py recall` share, so all three decide alike.

The engine state after a round is cached on the round as a pickle. Engine constants
compared by identity (the wager types) are pickled by reference to the module attribute
that holds them, and the table's used wager ids are left out: the database's unique
(table, ref) keeps them. If a cache cannot be read (the engine changed shape), the
state is rebuilt from the events, which are the record.
"""

import hashlib
import io
import pickle
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

from games.rules.core.engine import Engine
from games.rules.core.ids import NO_IDS, UsedIds
from games.rules.core.results import StepOutcome
from games.rules.registry import ENGINE_MODULES, engine_get

RULES = Path(__file__).resolve().parent / "rules"


@cache
def rules_hash(game: str) -> str:
    """SHA-256 of the engine's source: its own package and the shared core, by path."""
    package = RULES / ENGINE_MODULES[game].rsplit(".", 1)[1]
    digest = hashlib.sha256()
    for path in sorted([*(RULES / "core").glob("*.py"), *package.glob("*.py")]):
        digest.update(path.relative_to(RULES).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class Played:
    """What one event did, with the engine state after it."""

    seq: int
    event: str
    outcome: StepOutcome


def engine_events(engine: Engine) -> frozenset[str]:
    """The events the engine itself plays (others, like "no more bets", are the floor's)."""
    return frozenset(import_module(type(engine).__module__).EVENTS)


def play(
    engine: Engine, options: Any, state: Any, events: Iterable[tuple[int, str, object]]
) -> tuple[Any, list[Played]]:
    """Apply (seq, event, payload) in order; the floor's own events are passed over."""
    own = engine_events(engine)
    played = []
    for seq, event, payload in events:
        if event not in own:
            continue
        state, outcome = engine.step(options, state, event, payload)
        played.append(Played(seq, event, outcome))
    return state, played


# --- the state cache -----------------------------------------------------------------------


@cache
def _constants() -> dict[int, tuple[str, str, object]]:
    """Identity-compared engine constants by id: (module, attribute, key within it)."""
    for module in ENGINE_MODULES.values():
        engine_get(module.rsplit(".", 1)[1])  # every engine module loaded
    found: dict[int, tuple[str, str, object]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("games.rules.") or module is None:
            continue
        for attr, value in vars(module).items():
            _remember(found, value, (name, attr, None))
            if isinstance(value, dict):
                for key, item in value.items():
                    _remember(found, item, (name, attr, key))
            elif isinstance(value, tuple):
                for index, item in enumerate(value):
                    _remember(found, item, (name, attr, index))
    return found


def _remember(found: dict, value: object, where: tuple[str, str, object]) -> None:
    cls = type(value)
    if cls.__module__.startswith("games.rules.") and cls.__eq__ is object.__eq__:
        found.setdefault(id(value), where)


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj: object) -> object:
        if isinstance(obj, UsedIds):
            return ("used_ids",)
        where = _constants().get(id(obj))
        return ("constant", *where) if where is not None else None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: object) -> object:
        if pid == ("used_ids",):
            return NO_IDS
        _, module, attr, key = pid  # type: ignore[misc]
        value = getattr(import_module(module), attr)
        return value if key is None else value[key]

    def find_class(self, module: str, name: str) -> Any:
        # Only engine values, and the standard values they are made of.
        if module.startswith("games.rules.") or module in _STANDARD:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not an engine value")


_STANDARD = frozenset({"builtins", "decimal", "fractions", "collections", "types", "copyreg"})


def state_dumps(state: Any) -> bytes:
    """The engine state as bytes for the round's cache."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
    return buffer.getvalue()


def state_loads(data: bytes) -> Any:
    """The engine state back from the cache; pickle.UnpicklingError (or any error) if stale."""
    return _Unpickler(io.BytesIO(data)).load()
