"""A round waiting on its device too long is the device's event `round_waiting`, once a
round (gaming/waits.py): the kind, and a unique index on the round for that kind."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0004_statistics_thresholds"),
        ("devices", "0001_initial"),
        ("games", "0005_round_cache_token_db_default"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="deviceevent",
            name="kind",
            field=models.CharField(
                choices=[
                    ("registered", "Registered"),
                    ("credential_issued", "Credential issued"),
                    ("credential_revoked", "Credential revoked"),
                    ("active", "First heartbeat: active"),
                    ("stale", "Stale: heartbeats missed"),
                    ("recovered", "Heartbeats returned"),
                    ("fault", "Fault reported"),
                    ("fault_cleared", "Fault cleared"),
                    ("out_of_order", "Marked out of order"),
                    ("returned", "Returned to service"),
                    ("retired", "Retired"),
                    ("round_voided", "Round voided"),
                    ("table_suspended", "Table suspended"),
                    ("reported", "Result reported"),
                    ("round_waiting", "Round waiting on it too long"),
                ],
                max_length=24,
            ),
        ),
        migrations.AddConstraint(
            model_name="deviceevent",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind", "round_waiting")),
                fields=("round",),
                name="device_event_round_waiting_once",
            ),
        ),
    ]
