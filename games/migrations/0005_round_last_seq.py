from django.db import migrations, models

# Rounds already under way: the seq of their last event (0: none yet).
LAST_SEQ = """
UPDATE games_round SET last_seq = COALESCE(
    (SELECT MAX(e.seq) FROM games_roundevent e WHERE e.round_id = games_round.id), 0
)
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_round_cache_token"),
    ]

    operations = [
        migrations.AddField(
            model_name="round",
            name="last_seq",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.RunSQL(LAST_SEQ, migrations.RunSQL.noop),
    ]
