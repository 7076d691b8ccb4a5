"""List the integrators' API tokens from the shell (the admin's API tokens page lists them
too): who holds each, for which certificate holder, when it was issued and last used, and
whether it is revoked. `api_token_revoke` revokes one."""

from datetime import datetime

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from casino.models import ApiToken
from casino.models.api import TOKEN_PREFIX

COLUMNS = ("id", "key", "name", "user", "holder", "created", "by", "last used", "revoked")


def moment(at: datetime | None) -> str:
    """A time as the floor's clock reads it, to the minute; "-" for none."""
    return timezone.localtime(at).strftime("%Y-%m-%d %H:%M") if at is not None else "-"


def token_row(token: ApiToken) -> tuple[str, ...]:
    """One token's line: what COLUMNS names."""
    return (
        str(token.pk),
        f"{TOKEN_PREFIX}_{token.key_id}_…",
        token.name,
        token.user.get_username(),
        token.holder.name,
        moment(token.created_at),
        token.created_by.get_username() if token.created_by is not None else "-",
        moment(token.last_used_at),
        moment(token.revoked_at) if token.revoked_at is not None else "no",
    )


class Command(BaseCommand):
    help = (
        "List API tokens, newest first: id, key prefix, name, user, certificate holder, "
        "issued (when, by whom), last used and revoked. The secret is never stored or shown."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--holder", help="Only this certificate holder's tokens.")
        parser.add_argument("--user", help="Only this user's tokens.")
        parser.add_argument("--active", action="store_true", help="Only the tokens not revoked.")

    def handle(self, *args, **options) -> None:
        tokens = ApiToken.objects.select_related("user", "holder", "created_by").order_by(
            "-created_at", "-pk"
        )
        if options["holder"]:
            tokens = tokens.filter(holder__name=options["holder"])
        if options["user"]:
            tokens = tokens.filter(user__username=options["user"])
        if options["active"]:
            tokens = tokens.filter(revoked_at__isnull=True)
        rows = [COLUMNS, *(token_row(token) for token in tokens)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
        for row in rows:
            self.stdout.write(
                "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
            )
        self.stderr.write(
            f"{len(rows) - 1} token(s); times in {timezone.get_current_timezone_name()}"
        )
