"""Revoke an integrator's API token from the shell (the admin's action does it too): its
next request is refused, on every web process at once (the revocation bumps the token
cache's version when it commits, casino/api/auth.py), and the audit trail records who
revoked it and when."""

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from casino.models import ApiToken
from casino.models.api import TOKEN_PREFIX
from casino.services import FloorRefused
from casino.services.api_tokens import token_revoke


def token_find(named: str) -> ApiToken:
    """The one token `named` names: its id (a number, as api_token_list shows it), or its
    key's prefix (`cft_<key id>`, whole or its start, as the admin and the list show it;
    a whole key works too), in either case (a key id is lowercase hex, often read aloud or
    copied by hand). CommandError when none or several match."""
    text = named.strip()
    if text.isdigit():
        token = ApiToken.objects.filter(pk=int(text)).first()
        if token is None:
            raise CommandError(f"no API token with id {text}")
        return token
    prefix = f"{TOKEN_PREFIX}_"
    if not text.lower().startswith(prefix):
        raise CommandError(f"name a token by its id (a number) or its key's prefix ({prefix}...)")
    # The key id is case-blind hex; the secret after it (a whole key given) is not used.
    key_id = text[len(prefix) :].split("_", 1)[0].rstrip("…").lower()
    if len(key_id) < 4:
        raise CommandError(f"{text!r}: give at least 4 characters of the key id after {prefix}")
    found = list(ApiToken.objects.filter(key_id__startswith=key_id)[:3])
    if not found:
        raise CommandError(f"no API token whose key starts {prefix}{key_id}")
    if len(found) > 1:
        names = "; ".join(f"{t.pk}: {t}" for t in found)
        raise CommandError(f"{prefix}{key_id} names more than one token ({names}): give more of it")
    return found[0]


class Command(BaseCommand):
    help = (
        "Revoke an API token, named by its id or its key's prefix (cft_<key id>): refused from "
        "its next request on; the audit trail records who revoked it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("token", help="The token's id, or its key's prefix cft_<key id>.")
        parser.add_argument("--by", required=True, help="Who revokes it (operations role).")

    def handle(self, *args, **options) -> None:
        users = get_user_model().objects
        try:
            by = users.get(username=options["by"])
        except users.model.DoesNotExist:
            raise CommandError(f"no such user: {options['by']}") from None
        token = token_find(options["token"])
        try:
            token = token_revoke(token, by=by, now=timezone.now())
        except (FloorRefused, PermissionDenied) as refused:
            raise CommandError(str(refused)) from None
        self.stdout.write(f"{token} revoked by {by.get_username()}")
