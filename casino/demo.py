"""The demo floor: what a newcomer sees after the README's first command.

Each capability that lands adds its records here, so the demo always shows everything
the platform does. Loading twice changes nothing.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from casino.models import CertificateHolder, Table

DEMO_HOLDER = "Keystone Demo Casino"
DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-floor"

# (number, game, variant): a few tables of each game.
DEMO_TABLES: tuple[tuple[str, str, str], ...] = (
    ("CR-01", "craps", "craps"),
    ("CR-02", "craps", "craps"),
    ("MC-01", "craps", "mini_craps"),
    ("HR-01", "high_roll_dice", "10_dice"),
    ("HR-02", "high_roll_dice", "6_dice"),
    ("PG-01", "pai_gow", "standard"),
    ("PG-02", "pai_gow", "standard"),
    ("SB-01", "sic_bo", "standard"),
    ("SB-02", "sic_bo", "standard"),
    ("TD-01", "three_dice_football", "standard"),
    ("TD-02", "three_dice_football", "standard"),
)


class DemoRefused(Exception):
    """The demo floor (and its known login) is never loaded in production."""


@transaction.atomic
def demo_floor_load() -> CertificateHolder:
    """Create the demo certificate holder, its tables and the demo login, once."""
    if settings.PRODUCTION:
        raise DemoRefused("the demo floor has a published password; not in DJANGO_ENV=production")
    user_model = get_user_model()
    if not user_model.objects.filter(username=DEMO_USERNAME).exists():
        user_model.objects.create_superuser(DEMO_USERNAME, "demo@example.com", DEMO_PASSWORD)
    holder, _ = CertificateHolder.objects.get_or_create(name=DEMO_HOLDER)
    for number, game, variant in DEMO_TABLES:
        Table.objects.get_or_create(
            holder=holder, number=number, defaults={"game": game, "variant": variant}
        )
    return holder
