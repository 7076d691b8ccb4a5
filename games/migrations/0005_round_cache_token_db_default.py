"""A database default for Round.cache_token on PostgreSQL.

0004 added the column NOT NULL with a default Django drops once the column is filled, so
during a rolling deploy (docs/deploy.md: the release migrates while the old web processes
still serve) an old process's INSERT of a round, which does not name the column, failed.
With the database's own default it gets a fresh token, as the model's default would give.
SQLite (the embedded default) runs one machine and has no rolling deploy.
"""

from django.db import migrations

TABLE, COLUMN = "games_round", "cache_token"


def database_default(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        # gen_random_uuid() is built in from PostgreSQL 13.
        schema_editor.execute(
            f"ALTER TABLE {TABLE} ALTER COLUMN {COLUMN} SET DEFAULT gen_random_uuid()"
        )


def no_database_default(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE {TABLE} ALTER COLUMN {COLUMN} DROP DEFAULT")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_round_cache_token"),
    ]

    operations = [migrations.RunPython(database_default, no_database_default)]
