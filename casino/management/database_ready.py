"""manage.py's first question: is the database set up for this command?

A command run against a database nobody has migrated failed deep inside with a raw
traceback ("no such table: auth_user"), and on SQLite connecting created the file: an
empty database in a data directory nobody meant (the default ./var, when the floor ran on
another). So before a command that reads the database runs, manage.py looks: no SQLite
file, no migrations recorded, or migrations not applied is one line on stderr saying so
and what to run, and exit code 1, with nothing created. A database that does not answer
is left to the command (play_rounds waits for one that comes back).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from django.conf import settings
from django.core.management import BaseCommand, ManagementUtility
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.executor import MigrationExecutor

# Commands that set the database up, read only files or settings, or look at the database
# themselves (runserver warns of unapplied migrations): every other one, the project's
# own included, needs a database that has been set up.
NEEDS_NO_SET_UP_DATABASE = frozenset(
    {
        "check", "collectstatic", "compilemessages", "createcachetable", "dbshell",
        "diffsettings", "findstatic", "generateschema", "help", "inspectdb", "makemessages",
        "makemigrations", "migrate", "optimizemigration", "par", "runserver", "sendtestemail",
        "shell", "showmigrations", "spectacular", "sqlflush", "sqlmigrate", "sqlsequencereset",
        "squashmigrations", "startapp", "startproject", "test", "testserver", "version",
    }
)  # fmt: skip


def database_problem(connection: BaseDatabaseWrapper) -> str | None:
    """What keeps a command from using this database (missing, never migrated, behind its
    migrations), or None; None too when it does not answer."""
    where = database_name(connection)
    sqlite_file = connection.vendor == "sqlite" and not connection.is_in_memory_db()
    if sqlite_file and not Path(connection.settings_dict["NAME"]).exists():
        return f"there is no database at {where}"  # and connecting would create one
    try:
        executor = MigrationExecutor(connection)
        if not executor.recorder.has_table():
            return f"the database {where} has not been set up (no migrations applied)"
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError:
        return None
    if plan:
        first = plan[0][0]
        return (
            f"the database {where} lacks {len(plan)} migration(s) "
            f"(the first: {first.app_label}.{first.name})"
        )
    return None


def database_name(connection: BaseDatabaseWrapper) -> str:
    """The database as a person finds it: an SQLite file's path, else its name and host
    (never the URL, which may hold a password)."""
    name = str(connection.settings_dict["NAME"])
    if connection.vendor == "sqlite":
        return name
    host = connection.settings_dict.get("HOST")
    return f"{name} on {host}" if host else name


def command_refusal(
    argv: list[str], *, connection: BaseDatabaseWrapper | None = None
) -> str | None:
    """The one line manage.py prints instead of running ``argv``, or None to run it."""
    subcommand, args = argv[1], argv[2:]
    if subcommand in NEEDS_NO_SET_UP_DATABASE or {"-h", "--help"} & set(args):
        return None
    if connection is None:
        connection = connections[DEFAULT_DB_ALIAS]
    problem = database_problem(connection)
    if problem is None:
        return None
    data_dir = os.environ.get("CASINO_DATA_DIR")
    prefix = f"CASINO_DATA_DIR={shlex.quote(data_dir)} " if data_dir else ""
    manage = f"{shlex.quote(shown_path(sys.executable))} {shlex.quote(argv[0])}"
    line = f"{subcommand}: {problem}. Set it up: {prefix}{manage} migrate"
    embedded = connection.vendor == "sqlite" and not os.environ.get("DATABASE_URL")
    if embedded:
        floor = f"python3 {shlex.quote(shown_path(str(settings.BASE_DIR / 'floor.py')))}"
        if data_dir:
            floor += f" --data-dir {shlex.quote(data_dir)}"
        line += f" (or {floor}, which also loads the demo floor)"
        if not data_dir:  # most likely the floor runs on another data directory
            again = shlex.join(argv[1:])
            line += f"; or name the floor's data directory: CASINO_DATA_DIR=DIR {manage} {again}"
    return line


def shown_path(path: str) -> str:
    """A path as typed from here: relative when under the current directory."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


class Utility(ManagementUtility):
    """Django's command line, refusing a command whose database has not been set up."""

    def fetch_command(self, subcommand: str) -> BaseCommand:
        """The command, once the database it needs is known to be there."""
        command = super().fetch_command(subcommand)
        # Only the command being run: `help recall` fetches recall to print its help.
        if self.argv[1:2] == [subcommand] and settings.configured:
            refusal = command_refusal(self.argv)
            if refusal is not None:
                sys.stderr.write(refusal + "\n")
                sys.exit(1)
        return command


def execute_from_command_line(argv: list[str]) -> None:
    """``manage.py``: Django's, with the database check above."""
    Utility(argv).execute()
