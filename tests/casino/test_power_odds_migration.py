"""casino 0005: Power Odds only where the Rules Submission names them (58 Pa. Code
§ 623b.5(a)), with what was on file kept: a Craps submission that did not name the option
offered Power Odds by the engine's default, so it is given `"power_odds": true`; the tables
that already had a Power Odds generator in service keep offering them, the others do not."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from casino.models import RulesSubmission, Table
from tests.casino.floor_fixtures import compliant_table

BEFORE = [("casino", "0004_statistics_thresholds"), ("devices", "0002_round_waiting")]
AFTER = [("casino", "0005_table_power_odds")]


def migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor


@pytest.mark.django_db(transaction=True)
def test_submissions_on_file_keep_power_odds_and_only_tables_with_a_generator_offer_them():
    equipped = compliant_table("craps", options={"power_odds": True}, power_odds=True).table
    plain = compliant_table("craps").table
    executor = migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    for submission in old.get_model("casino", "RulesSubmission").objects.all():
        options = dict(submission.options)
        options.pop("power_odds")  # filed before the option had to be named
        submission.options = options
        submission.save(update_fields=["options"])

    migrate(AFTER)

    [submission] = RulesSubmission.objects.filter(game="craps")
    assert submission.options["power_odds"] is True
    assert Table.objects.get(pk=equipped.pk).power_odds is True
    assert Table.objects.get(pk=plain.pk).power_odds is False


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("status", "stored", "offers"),
    [
        ("stale", "true", True),  # only late with its heartbeats; "true" as the engine takes it
        ("faulted", True, False),  # a generator already down: no table stops at the upgrade
        ("out_of_order", True, False),
        ("active", 1, False),  # not a value the engine takes: not offered
        ("active", None, False),  # options that are not an object: nothing read from them
    ],
)
def test_only_a_working_generator_under_a_submission_offering_them_marks_its_table(
    status, stored, offers
):
    table = compliant_table("craps", options={"power_odds": True}, power_odds=True).table
    executor = migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    old.get_model("devices", "Device").objects.filter(table_id=table.pk).update(status=status)
    for submission in old.get_model("casino", "RulesSubmission").objects.all():
        submission.options = [] if stored is None else {**submission.options, "power_odds": stored}
        submission.save(update_fields=["options"])

    migrate(AFTER)

    assert Table.objects.get(pk=table.pk).power_odds is offers
