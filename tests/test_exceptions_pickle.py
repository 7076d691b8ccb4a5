"""Every exception class of ours survives a pickle round trip with its attributes.

An exception raised in a Celery worker or a forked process crosses a process boundary
pickled; one that cannot be rebuilt (Exception's default pickles `args`, the message
alone, and calls `__init__` with it) breaks the pool that reads it: a multiprocessing
pool waits for it forever. The classes are found by walking the packages, so a new one
is checked without being listed here; one whose constructor this test cannot fill from
its signature needs an entry in EXAMPLES.
"""

import importlib
import inspect
import pickle
import pkgutil
import types
from collections.abc import Sequence
from typing import Any, Union, get_args, get_origin

import pytest

PACKAGES = ("casino", "games", "devices", "gaming", "workers", "webhooks")
SKIPPED = (".migrations", ".tests")  # migrations import nothing of ours worth pickling

# Constructor arguments for the classes whose signature does not say enough.
EXAMPLES: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "casino.services.errors.FloorInvalid": (
        ("Wagers at SB-01 round 1", {"wagers[0].amount": ["must be a decimal string"]}),
        {},
    ),
}


def our_modules() -> list[types.ModuleType]:
    """Every module of our packages, imported (as Django has set them up)."""
    modules = []
    for name in PACKAGES:
        package = importlib.import_module(name)
        modules.append(package)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            if any(part in info.name for part in SKIPPED):
                continue
            modules.append(importlib.import_module(info.name))
    return modules


def our_exceptions() -> list[type[BaseException]]:
    """Every exception class defined in our packages, by qualified name."""
    found = {}
    for module in our_modules():
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


EXCEPTIONS = our_exceptions()

# Known to fail, strictly (an xfail that passes fails): none now.
NOT_YET: dict[str, str] = {}


def name_of(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def cases() -> list[Any]:
    """Each class as a test case, those in NOT_YET marked as strict expected failures."""
    return [
        pytest.param(
            cls,
            id=name_of(cls),
            marks=[pytest.mark.xfail(reason=NOT_YET[name_of(cls)], strict=True)]
            if name_of(cls) in NOT_YET
            else [],
        )
        for cls in EXCEPTIONS
    ]


def example_of(annotation: Any, name: str) -> Any:
    """A value of this annotation, distinct per parameter so a swapped pair shows."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    origin = get_origin(annotation) or annotation
    if origin is int:
        return 400 + len(name)
    if origin is float:
        return 1.5 + len(name)
    if origin is dict:
        return {name: [f"{name} value"]}
    if (
        isinstance(origin, type)
        and issubclass(origin, (list, tuple, Sequence))
        and origin is not str
    ):
        return [f"{name} one", f"{name} two"]
    return f"the {name}"


def instance_of(cls: type[BaseException]) -> BaseException:
    """An instance of `cls`, its required arguments filled from EXAMPLES or its signature."""
    key = name_of(cls)
    if key in EXAMPLES:
        args, kwargs = EXAMPLES[key]
        return cls(*args, **kwargs)
    if cls.__init__ is BaseException.__init__:
        return cls(f"{cls.__name__} message")
    # Every parameter given, positionally where it may be (as they are raised).
    args, kwargs = [], {}
    for name, parameter in list(inspect.signature(cls.__init__).parameters.items())[1:]:
        if parameter.kind == parameter.KEYWORD_ONLY:
            kwargs[name] = example_of(parameter.annotation, name)
        elif parameter.kind != parameter.VAR_KEYWORD:
            args.append(example_of(parameter.annotation, name))
    try:
        return cls(*args, **kwargs)
    except Exception as error:  # pragma: no cover - a new class to describe in EXAMPLES
        pytest.fail(
            f"add an EXAMPLES entry for {key}: {cls.__name__}{tuple(args)} raised {error!r}"
        )


def test_the_walk_finds_the_exceptions_we_know_of():
    names = {cls.__name__ for cls in EXCEPTIONS}
    known = {
        "FloorRefused",
        "SettlementError",
        "RuleViolation",
        "MalformedInput",
        "SignatureRefused",
        "ReportRefused",
        "BadRequest",
        "StoreUnavailable",
        "ApiError",
        "DestinationRefused",
    }
    assert known <= names


@pytest.mark.parametrize("cls", cases())
def test_an_exception_of_ours_survives_pickling(cls):
    raised = instance_of(cls)
    for protocol in (pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(raised, protocol=protocol))
        assert type(back) is cls
        assert str(back) == str(raised)
        assert back.args == raised.args
        assert vars(back) == vars(raised)
