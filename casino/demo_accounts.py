"""The demo's logins, known by name, and how production keeps them out.

The demo (casino/demo.py) creates these users with a published password (or, for the
integrator, an API token anyone with the demo can issue). It refuses to load in
production, but a database once loaded in development (or restored from one) may still
hold them. In production, therefore:

- the authentication backend refuses them (password sign-in and every later request of
  a session: Django asks the backend again) and refuses the published password for any
  user, and an API token of theirs is refused (casino/api/auth.py). This needs no write
  and no hook to have run, so it holds even on a database copied in after the last
  migrate; it is the guarantee.
- after every migrate (each release runs one) they are set inactive, with a warning in
  the log, so the admin shows them disabled and anything that looks only at is_active
  (issuing a token, the integrator list) leaves them out.
"""

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

log = logging.getLogger(__name__)

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-floor"
OPS_USERNAME = "demo-ops"
COMPLIANCE_USERNAME = "demo-compliance"
INTEGRATOR_USERNAME = "demo-integrator"
REGULATOR_USERNAME = "demo-regulator"
DEMO_USERNAMES = frozenset(
    {DEMO_USERNAME, OPS_USERNAME, COMPLIANCE_USERNAME, INTEGRATOR_USERNAME, REGULATOR_USERNAME}
)


def demo_account_refused(user: Any) -> bool:
    """True in production for a user the demo created (by its username)."""
    return bool(settings.PRODUCTION) and user.get_username() in DEMO_USERNAMES


def demo_password_refused(password: str | None) -> bool:
    """True in production for the demo's published password, whoever offers it."""
    return bool(settings.PRODUCTION) and password == DEMO_PASSWORD


def demo_accounts_disable(using: str = "default", **_: Any) -> int:
    """In production, set every demo account inactive (a post_migrate receiver)."""
    if not settings.PRODUCTION:
        return 0
    users = get_user_model().objects.using(using)
    found = users.filter(username__in=DEMO_USERNAMES, is_active=True)
    names = sorted(found.values_list("username", flat=True))
    if names:
        found.update(is_active=False)
        log.warning(
            "demo accounts found in a production database, now disabled: %s", ", ".join(names)
        )
    return len(names)
