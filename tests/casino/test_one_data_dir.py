"""One data directory (issue 35, point 6): `floor.py --data-dir DIR` as well as
CASINO_DATA_DIR; every command floor.py prints names that directory, so it works pasted;
a command run against a database nobody has set up says so in one line and creates none.
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connections
from django.db.migrations.executor import MigrationExecutor
from django.db.utils import ConnectionHandler

import floor
from casino.management.database_ready import command_refusal, database_problem
from tests.services import manage, project_env

ROOT = Path(__file__).resolve().parents[2]
PLAYED = subprocess.CompletedProcess([], 0, "", "")  # a worker check and demo rounds, quiet


def sqlite_at(path: Path, alias: str = "default"):
    """A connection to an SQLite file, configured as Django configures its own."""
    sqlite = {"ENGINE": "django.db.backends.sqlite3", "NAME": path}
    return ConnectionHandler({"default": sqlite, alias: sqlite})[alias]


def printed_commands() -> dict[str, str]:
    """The banner's commands to paste, by their label."""
    lines = floor.banner("http://127.0.0.1:8000", PLAYED, PLAYED)
    return {
        label.strip(): command.strip()
        for label, _, command in (line.partition(": ") for line in lines)
        if "manage.py" in command
    }


def pasted(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A command as a person pastes it into a shell with none of our variables set."""
    return subprocess.run(
        ["sh", "-c", command], cwd=cwd, env=project_env(),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_floor_py_help_says_both_ways_to_name_the_data_directory(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "floor.py"), "--help"],
        cwd=tmp_path, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python3 floor.py [-h] [--data-dir DIR] [--host HOST]")
    assert "python3 floor.py --data-dir DIR" in done.stdout
    assert "CASINO_DATA_DIR=DIR does the same" in done.stdout
    assert "python3 floor.py test" in done.stdout
    assert "(default: $CASINO_DATA_DIR, else ./var)" in " ".join(done.stdout.split())
    assert list(tmp_path.iterdir()) == []  # help installs, migrates and creates nothing


def test_data_dir_is_the_option_else_the_variable_else_var_and_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CASINO_DATA_DIR")
    assert floor.data_dir_choose(None) == ROOT / "var"
    monkeypatch.setenv("CASINO_DATA_DIR", "from-the-variable")
    assert floor.data_dir_choose(None) == tmp_path / "from-the-variable"
    # Made absolute here: floor.py's processes run in ROOT, where "mine" is another place.
    assert floor.data_dir_choose("mine") == tmp_path / "mine"
    assert os.environ["CASINO_DATA_DIR"] == str(tmp_path / "mine")  # what they inherit


def test_printed_commands_are_bare_on_the_default_data_directory(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(floor, "venv_python", lambda: ROOT / ".venv/bin/python")
    monkeypatch.setenv("CASINO_DATA_DIR", str(ROOT / "var"))
    assert printed_commands() == {
        "A token": ".venv/bin/python manage.py api_token_issue --user demo-integrator "
        "--by demo-ops",
        "More rounds": ".venv/bin/python manage.py play_rounds --rounds 10",
        "Recall one": ".venv/bin/python manage.py recall SB-01:1",
    }


def test_printed_commands_name_another_data_directory_and_paths_from_elsewhere(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(floor, "venv_python", lambda: ROOT / ".venv/bin/python")
    monkeypatch.setenv("CASINO_DATA_DIR", "/srv/my floor")
    python, manage_py = ROOT / ".venv/bin/python", ROOT / "manage.py"
    assert printed_commands()["Recall one"] == (
        f"CASINO_DATA_DIR='/srv/my floor' {python} {manage_py} recall SB-01:1"
    )
    assert (
        floor.pasteable("migrate")
        == f"CASINO_DATA_DIR='/srv/my floor' {python} {manage_py} migrate"
    )


def test_each_printed_command_pasted_reaches_the_floors_database(tmp_path, monkeypatch):
    """The floor on a data directory of its own (a space in its name); each command pasted
    into a shell elsewhere, with no CASINO_DATA_DIR of its own, reaches its database: here
    migrated with no demo floor, so each answers that what it names is not there."""
    data_dir, elsewhere = tmp_path / "my floor", tmp_path / "elsewhere"
    elsewhere.mkdir()
    manage(project_env(CASINO_DATA_DIR=str(data_dir)), "migrate", "--noinput", timeout=300)
    default_database = ROOT / "var" / "db.sqlite3"
    was_there = default_database.exists()
    monkeypatch.setattr(floor, "venv_python", lambda: Path(sys.executable))
    monkeypatch.setenv("CASINO_DATA_DIR", str(data_dir))
    monkeypatch.chdir(elsewhere)
    commands = printed_commands()
    answers = {label: pasted(command, elsewhere) for label, command in commands.items()}
    assert {label: done.stderr.strip().splitlines()[-1] for label, done in answers.items()} == {
        "A token": "CommandError: no such user: User matching query does not exist.",
        "More rounds": "CommandError: no user 'demo-ops' (load_demo_floor creates demo-ops)",
        "Recall one": "CommandError: no round 'SB-01:1'",
    }
    assert list(elsewhere.iterdir()) == []
    assert default_database.exists() == was_there


def test_a_command_on_a_data_directory_never_set_up_says_so_in_one_line(tmp_path):
    data_dir = tmp_path / "never"
    done = subprocess.run(
        [sys.executable, "manage.py", "recall", "SB-01:1"], cwd=ROOT,
        env=project_env(CASINO_DATA_DIR=str(data_dir)), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    python = shlex.quote(floor_shown(sys.executable))
    assert done.stderr.splitlines() == [
        f"recall: there is no database at {data_dir}/db.sqlite3. Set it up: "
        f"CASINO_DATA_DIR={data_dir} {python} manage.py migrate "
        f"(or python3 floor.py --data-dir {data_dir}, which also loads the demo floor)"
    ]
    assert not (data_dir / "db.sqlite3").exists()


def floor_shown(path: str) -> str:
    """A path as manage.py, run in ROOT, shows it."""
    return os.path.relpath(path, ROOT) if Path(path).is_relative_to(ROOT) else path


def test_no_database_file_is_named_and_none_is_created(tmp_path):
    path = tmp_path / "db.sqlite3"
    assert database_problem(sqlite_at(path)) == f"there is no database at {path}"
    assert not path.exists()


def test_a_database_with_no_migrations_has_not_been_set_up(tmp_path, django_db_blocker):
    path = tmp_path / "db.sqlite3"
    path.touch()  # what a command used to leave behind
    with django_db_blocker.unblock():
        problem = database_problem(sqlite_at(path))
    assert problem == (f"the database {path} has not been set up (no migrations applied)")


@pytest.mark.django_db
def test_the_migrated_database_is_ready():
    from django.db import connection

    assert database_problem(connection) is None
    assert command_refusal(["manage.py", "recall", "SB-01:1"]) is None


def test_on_the_default_data_directory_the_refusal_says_how_to_name_another(tmp_path, monkeypatch):
    monkeypatch.delenv("CASINO_DATA_DIR")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.chdir(ROOT)
    path = tmp_path / "db.sqlite3"
    refusal = command_refusal(["manage.py", "recall", "SB-01:1"], connection=sqlite_at(path))
    python = shlex.quote(floor_shown(sys.executable))
    assert refusal == (
        f"recall: there is no database at {path}. Set it up: {python} manage.py migrate "
        "(or python3 floor.py, which also loads the demo floor); or name the floor's data "
        f"directory: CASINO_DATA_DIR=DIR {python} manage.py recall SB-01:1"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["manage.py", "migrate", "--noinput"],
        ["manage.py", "showmigrations"],
        ["manage.py", "recall", "--help"],
        ["manage.py", "par", "sic_bo"],
    ],
)
def test_commands_that_set_up_or_need_no_database_are_not_refused(argv, tmp_path):
    assert command_refusal(argv, connection=sqlite_at(tmp_path / "db.sqlite3")) is None


def test_a_database_behind_its_migrations_says_how_many_and_the_first(tmp_path, django_db_blocker):
    path = tmp_path / "db.sqlite3"
    # Registered under an alias of its own: the migration recorder's queries go by alias.
    connections["probe"] = sqlite_at(path, "probe")
    try:
        with django_db_blocker.unblock():
            executor = MigrationExecutor(connections["probe"])
            executor.migrate([("contenttypes", "0001_initial")])
            behind = len(executor.loader.graph.nodes) - 1  # all but the one applied
            problem = database_problem(connections["probe"])
            connections["probe"].close()
    finally:
        del connections["probe"]
    assert problem == (
        f"the database {path} lacks {behind} migration(s) "
        "(the first: auth.0001_initial)"  # the first migrate applies
    )
