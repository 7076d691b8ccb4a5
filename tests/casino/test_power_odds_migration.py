"""casino 0005: Power Odds only where the Rules Submission names them (58 Pa. Code
§ 623b.5(a)), with what was on file kept: a Craps submission that did not name the option
offered Power Odds by the engine's default, so it is given `"power_odds": true`; the tables
whose Power Odds generator works keep offering them, the others do not.

The migration's two data steps are run here on the floor as it is (its `apps` the project's
own: the models they read are unchanged since), in the ordinary test transaction: a test
that migrated the schema back and forth would have to flush the database around it."""

import importlib

import pytest
from django.apps import apps

from casino.models import RulesSubmission, Table
from devices.models import Device
from tests.casino.floor_fixtures import compliant_table

pytestmark = pytest.mark.django_db

migration = importlib.import_module("casino.migrations.0005_table_power_odds")


def upgrade() -> None:
    migration.submissions_keep_what_they_offered(apps, None)
    migration.tables_with_a_generator_keep_power_odds(apps, None)


def filed_as(stored: object) -> None:
    """Every Craps submission's options as filed before the option had to be named:
    without it (`...`), with `stored`, or not an object at all (None)."""
    for submission in RulesSubmission.objects.filter(game="craps"):
        options = {k: v for k, v in submission.options.items() if k != "power_odds"}
        if stored is not ...:
            options = [] if stored is None else {**options, "power_odds": stored}
        RulesSubmission.objects.filter(pk=submission.pk).update(options=options)


def test_submissions_on_file_keep_power_odds_and_only_tables_with_a_generator_offer_them():
    equipped = compliant_table("craps", options={"power_odds": True}, power_odds=True).table
    plain = compliant_table("craps").table
    Table.objects.update(power_odds=False)  # as the new column starts
    filed_as(...)

    upgrade()

    [submission] = RulesSubmission.objects.filter(game="craps")
    assert submission.options["power_odds"] is True
    assert Table.objects.get(pk=equipped.pk).power_odds is True
    assert Table.objects.get(pk=plain.pk).power_odds is False


def test_a_submission_that_named_the_option_keeps_its_choice():
    compliant_table("craps", options={"power_odds": False})
    upgrade()
    [submission] = RulesSubmission.objects.filter(game="craps")
    assert submission.options["power_odds"] is False


@pytest.mark.parametrize(
    ("status", "stored", "offers"),
    [
        ("active", True, True),
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
    Table.objects.update(power_odds=False)
    Device.objects.filter(table=table).update(status=status)
    filed_as(stored)

    upgrade()

    assert Table.objects.get(pk=table.pk).power_odds is offers
