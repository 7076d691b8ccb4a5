"""Load the demo floor (development only)."""

from django.core.management.base import BaseCommand, CommandError

from casino.demo import DEMO_PASSWORD, DEMO_USERNAME, DemoRefused, demo_floor_load


class Command(BaseCommand):
    help = "Create the demo certificate holder, its tables and a demo login; safe to repeat."

    def handle(self, *args, **options):
        try:
            holder = demo_floor_load()
        except DemoRefused as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"Demo floor: {holder.name}, {holder.tables.count()} tables; "
            f"login {DEMO_USERNAME} / {DEMO_PASSWORD}"
        )
