"""Power Odds only where the Rules Submission offers them (58 Pa. Code § 623b.5(a)).

A Craps Rules Submission that does not name `power_odds` now offers none
(casino.rules.submissions.NOT_OFFERED_UNLESS_NAMED); until now the engine's default offered
them. So each Craps submission already on file that does not name it is given
`"power_odds": true`, what it offered when filed: a filed choice is never changed by an
upgrade. A table offers Power Odds only once staff say so (`Table.power_odds`), and then
needs its generator to start a round (§ 623b.5(c)); the tables whose Power Odds generator
works (active, or stale: only late with its heartbeats), under a submission in force that
offers them, keep offering them. A table whose generator is faulted, out of order or never
heard from had no Power Odds, and is not marked: staff mark it once its generator works,
so no table stops at the upgrade for a generator that was already down. Reversed, the field goes and the submissions keep the key (it says what they offer).
"""

from django.db import migrations, models
from django.utils import timezone


def submissions_keep_what_they_offered(apps, schema_editor):
    RulesSubmission = apps.get_model("casino", "RulesSubmission")
    for submission in RulesSubmission.objects.filter(game="craps"):
        options = submission.options if isinstance(submission.options, dict) else None
        if options is not None and "power_odds" not in options:
            submission.options = {**options, "power_odds": True}
            submission.save(update_fields=["options"])


def tables_with_a_generator_keep_power_odds(apps, schema_editor):
    Table = apps.get_model("casino", "Table")
    RulesSubmission = apps.get_model("casino", "RulesSubmission")
    Device = apps.get_model("devices", "Device")
    now = timezone.now()
    # A generator working, or only late with its heartbeats: the table had Power Odds.
    equipped = Device.objects.filter(kind="power_odds_rng", status__in=("active", "stale"))
    for table in Table.objects.filter(game="craps", pk__in=equipped.values("table_id")):
        in_force = (
            RulesSubmission.objects.filter(
                holder_id=table.holder_id, game="craps", status="approved", effective_at__lte=now
            )
            .order_by("-effective_at")
            .first()
        )
        options = in_force.options if in_force is not None else None
        value = options.get("power_odds") if isinstance(options, dict) else None
        if value is True or value == "true":  # as the engine takes it (never 1)
            table.power_odds = True
            table.save(update_fields=["power_odds"])


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0004_statistics_thresholds"),
        ("devices", "0002_round_waiting"),
    ]

    operations = [
        migrations.AddField(
            model_name="table",
            name="power_odds",
            field=models.BooleanField(
                default=False,
                help_text="Craps: offers Power Odds, where the Rules Submission in force does "
                "(§ 623b.5(a)); a round starts only with the table's Power Odds random number "
                "generator active (§ 623b.5(c)).",
            ),
        ),
        migrations.RunPython(submissions_keep_what_they_offered, migrations.RunPython.noop),
        migrations.RunPython(tables_with_a_generator_keep_power_odds, migrations.RunPython.noop),
    ]
