"""The layers go one way (docs/architecture.md, `.importlinter`): the contract holds on
this tree, and an import that climbs breaks it with a message naming both modules."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("casino", "games", "devices", "gaming", "workers", "webhooks")
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "--config", str(tree / ".importlinter"), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def copy(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_every_contract_is_kept():
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 kept, 0 broken" in done.stdout


def test_the_ledger_importing_the_round_flow_breaks_the_layers(tmp_path):
    tree = copy(tmp_path)
    ledger = tree / "games" / "services" / "ledger.py"
    ledger.write_text(ledger.read_text() + "\nfrom gaming import rounds  # noqa\n")
    done = lint(tree)
    assert done.returncode == 1
    assert "games.services.ledger -> gaming.rounds" in done.stdout
    assert "Layers go one way" in done.stdout


def test_an_import_hidden_in_a_function_breaks_them_too(tmp_path):
    tree = copy(tmp_path)
    floor = tree / "casino" / "services" / "tables.py"
    floor.write_text(floor.read_text() + "\n\ndef climb():\n    from devices import gates\n")
    done = lint(tree)
    assert done.returncode == 1
    assert "casino.services.tables -> devices.gates" in done.stdout


def test_the_device_registry_importing_the_rounds_breaks_their_independence(tmp_path):
    tree = copy(tmp_path)
    services = tree / "devices" / "services.py"
    services.write_text(services.read_text() + "\nfrom games.services import ledger  # noqa\n")
    done = lint(tree)
    assert done.returncode == 1
    assert "devices imports no rounds BROKEN" in done.stdout


def test_an_engine_importing_django_breaks_their_purity(tmp_path):
    tree = copy(tmp_path)
    money = tree / "games" / "rules" / "core" / "money.py"
    money.write_text(money.read_text() + "\nimport django  # noqa\n")
    done = lint(tree)
    assert done.returncode == 1
    assert "games.rules.core.money -> django" in done.stdout
