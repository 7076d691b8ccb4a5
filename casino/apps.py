from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"

    def ready(self) -> None:
        # Here, not at the top: models are importable only once the registry is ready.
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group

        from casino import audit, floor_cache
        from casino.api import (
            auth,
            sign_in,  # noqa: F401  (its signal receivers)
        )
        from casino.demo_accounts import demo_accounts_disable
        from casino.roles import roles_sync

        audit.connect()
        floor_cache.FLOOR.connect()  # the floor snapshot's version, bumped by what it shows
        user = get_user_model()
        memberships = (
            user.groups.through,
            user.user_permissions.through,
            Group.permissions.through,
        )
        auth.TOKENS.connect(m2m=memberships)  # who a token acts as: its user's roles too
        floor_cache.VIEWERS.connect(m2m=memberships)  # who may see the floor page's data
        post_migrate.connect(roles_sync, dispatch_uid="casino-roles")
        # Every release migrates: a demo account in a production database is disabled.
        post_migrate.connect(demo_accounts_disable, sender=self, dispatch_uid="casino-demo-off")
