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
from collections.abc import Callable, Iterable
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


def round_begun(engine: Engine, options: Any, state: Any) -> Any:
    """The state the floor's next round starts in, after a round that left `state`: the
    engine's `round_begin` where it has one (the Engine protocol), else `state` itself."""
    begin = getattr(engine, "round_begin", None)
    return state if begin is None else begin(options, state)


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


# The type of each constant, by id (for the dispatch table).
_types: dict[int, type] = {}


def _remember(found: dict, value: object, where: tuple[str, str, object]) -> None:
    cls = type(value)
    if cls.__module__.startswith("games.rules.") and cls.__eq__ is object.__eq__:
        found.setdefault(id(value), where)
        _types.setdefault(id(value), cls)


def constant(module: str, attr: str, key: object) -> object:
    """An engine constant back from its place: the module's attribute, or an item of it;
    nothing else (an entry naming another place is refused, never followed)."""
    where = (module, attr, key)
    if not module.startswith("games.rules.") or where not in _constant_places():
        raise pickle.UnpicklingError(f"{where} is not an engine constant")
    value = getattr(import_module(module), attr)
    return value if key is None else value[key]


@cache
def _constant_places() -> frozenset[tuple[str, str, object]]:
    return frozenset(_constants().values())


def no_ids() -> UsedIds:
    return NO_IDS


@cache
def _dispatch_table() -> dict[type, Callable[[Any], Any]]:
    """Reducers for the classes that have engine constants, and for UsedIds. Pickle
    consults a dispatch table by type, in C, so the other values (strings, Decimals, the
    wagers themselves) cost no Python call each: a persistent_id was called for every
    object, ten or more a wager, and made pickling a busy round's state the wager's
    largest cost."""
    constants = _constants()
    table: dict[type, Callable[[Any], Any]] = {UsedIds: lambda _: (no_ids, ())}

    def reduce(obj: Any) -> Any:
        where = constants.get(id(obj))
        if where is not None:
            return constant, where
        return obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)

    for value_id in constants:
        table.setdefault(_types[value_id], reduce)
    return table


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = _dispatch_table()


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: object) -> object:
        # States written before the dispatch table named these by persistent id.
        if pid == ("used_ids",):
            return NO_IDS
        _, module, attr, key = pid  # type: ignore[misc]
        return constant(module, attr, key)

    def find_class(self, module: str, name: str) -> Any:
        # Only the engines' own classes, the standard values they are made of, and this
        # module's two: never a function or a module a pickle could call its way out with.
        if module == __name__ and name in ("constant", "no_ids"):
            return super().find_class(module, name)
        if (module, name) in _STANDARD:
            return super().find_class(module, name)
        if module.startswith("games.rules."):
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__.startswith("games.rules."):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not an engine value")


_BUILTINS = "set frozenset tuple list dict int float str bytes bytearray bool complex range slice"
_STANDARD = frozenset(
    {("decimal", "Decimal"), ("fractions", "Fraction")}
    | {("collections", name) for name in ("OrderedDict", "deque", "Counter")}
    | {("builtins", name) for name in _BUILTINS.split()}
)


def state_dumps(state: Any) -> bytes:
    """The engine state as bytes for the round's cache."""
    buffer = io.BytesIO()
    _Pickler(buffer).dump(state)
    return buffer.getvalue()


def state_loads(data: bytes) -> Any:
    """The engine state back from the cache; pickle.UnpicklingError (or any error) if stale."""
    return _Unpickler(io.BytesIO(data)).load()
