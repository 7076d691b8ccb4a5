"""Issue an integrator's API token from the shell (the admin's API tokens page does it too)."""

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from casino.models import CertificateHolder
from casino.services import FloorRefused
from casino.services.api_tokens import token_issue


class Command(BaseCommand):
    help = (
        "Issue an API token for an integrator user, bound to one certificate holder; the key "
        "is printed once and never stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="An integrator user's username.")
        parser.add_argument("--by", required=True, help="Who issues it (operations role).")
        parser.add_argument(
            "--holder", help="The certificate holder's name (default: the only one)."
        )
        parser.add_argument("--name", default="integration", help="What uses the token.")

    def handle(self, *args, **options) -> None:
        users = get_user_model().objects
        try:
            user = users.get(username=options["user"])
            by = users.get(username=options["by"])
        except users.model.DoesNotExist as missing:
            raise CommandError(f"no such user: {missing}") from None
        holders = CertificateHolder.objects.all()
        if options["holder"]:
            holders = holders.filter(name=options["holder"])
        if holders.count() != 1:
            names = ", ".join(CertificateHolder.objects.values_list("name", flat=True))
            raise CommandError(f"name one certificate holder with --holder; there are: {names}")
        try:
            token, key = token_issue(
                user=user, holder=holders.get(), name=options["name"], by=by, now=timezone.now()
            )
        except (FloorRefused, PermissionDenied) as refused:
            raise CommandError(str(refused)) from None
        self.stderr.write(f"{token} issued; the key, shown this once:")
        self.stdout.write(key)
