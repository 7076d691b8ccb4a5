"""Load the demo floor (development only)."""

from django.core.management.base import BaseCommand, CommandError

from casino.demo import (
    COMPLIANCE_USERNAME,
    DEMO_PASSWORD,
    DEMO_USERNAME,
    INTEGRATOR_USERNAME,
    OPS_USERNAME,
    REGULATOR_USERNAME,
    DemoRefused,
    demo_floor_load,
)
from casino.models import Table


class Command(BaseCommand):
    help = (
        "Create the demo floor (Rules Submissions, layouts, tables, dice and tiles) and its "
        "logins the first time; later, change out stale sets. Safe to repeat."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-history",
            action="store_true",
            help="Leave out the Sic Bo tables' past (the statistics' charts) on a first load.",
        )

    def handle(self, *args, **options):
        try:
            holder = demo_floor_load(history=not options["no_history"])
        except DemoRefused as error:
            raise CommandError(str(error)) from None
        tables = holder.tables.all()
        states = ", ".join(
            f"{tables.filter(status=status).count()} {label.lower()}"
            for status, label in Table.Status.choices
        )
        self.stdout.write(f"Demo floor: {holder.name}, {tables.count()} tables ({states})")
        self.stdout.write(
            f"  login {DEMO_USERNAME} / {DEMO_PASSWORD} (superuser); "
            f"{OPS_USERNAME} (operations), {COMPLIANCE_USERNAME} (compliance) and "
            f"{REGULATOR_USERNAME} (regulator, read-only), same password"
        )
        self.stdout.write(
            f"  an API token: python manage.py api_token_issue --user {INTEGRATOR_USERNAME} "
            f"--by {OPS_USERNAME}"
        )
