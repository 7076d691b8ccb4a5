"""Every module of the floor imports with requirements.txt alone (what `python3 floor.py`
and the image install): a dependency only the dev tools bring in (kombu's Redis transport
needed `packaging`, which pytest brought) would pass every test and still stop a fresh
floor's worker. Run by .ci/run in a virtualenv of its own; exits 1 naming each failure."""

import importlib
import os
import pkgutil
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import django

django.setup()
failed = []
count = 0
for package in ("casino", "games", "gaming", "devices", "workers", "webhooks"):
    root = importlib.import_module(package)
    for module in pkgutil.walk_packages(root.__path__, f"{package}."):
        if ".migrations." in f"{module.name}.":
            continue
        count += 1
        try:
            importlib.import_module(module.name)
        except Exception as error:
            failed.append(f"{module.name}: {error!r}")
for line in failed:
    print(f"not importable with requirements.txt alone: {line}", file=sys.stderr)
print(f"{count} modules imported with requirements.txt alone, {len(failed)} failed")
sys.exit(1 if failed else 0)
