"""The engines are pure: nothing under games/rules/ imports Django, Celery, Redis, kombu,
Django REST framework, or a source of randomness (settlement never draws; dice come in
the event)."""

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "games" / "rules"
FORBIDDEN = frozenset({"django", "celery", "redis", "kombu", "rest_framework", "random", "secrets"})
DYNAMIC_IMPORTERS = frozenset({"import_module", "__import__"})


def forbidden_imports(source: str) -> list[str]:
    """Every import of a forbidden module in a source text, as ``line: module``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in DYNAMIC_IMPORTERS and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    modules = [first.value]
        found += [(node.lineno, m) for m in modules if m.split(".")[0] in FORBIDDEN]
    return [f"{line}: {module}" for line, module in sorted(found)]


def test_forbidden_imports_finds_every_form() -> None:
    source = (
        "import os\n"
        "import django.db\n"
        "from celery import shared_task\n"
        "import random as r\n"
        "from secrets import token_hex\n"
        "from . import random\n"  # a sibling module named random: relative, allowed
        "importlib.import_module('redis')\n"
        "__import__('kombu.utils')\n"
        "from rest_framework.views import APIView\n"
    )
    assert forbidden_imports(source) == [
        "2: django.db",
        "3: celery",
        "4: random",
        "5: secrets",
        "7: redis",
        "8: kombu.utils",
        "9: rest_framework.views",
    ]


def test_games_rules_import_nothing_impure() -> None:
    files = sorted(RULES.rglob("*.py"))
    assert files, f"no Python files under {RULES}"
    offenders = [
        f"{path.relative_to(RULES.parent.parent)}:{hit}"
        for path in files
        for hit in forbidden_imports(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "engines must stay pure: " + ", ".join(offenders)
