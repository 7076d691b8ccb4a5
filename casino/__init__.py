"""The Django project (settings, urls, the Celery app) and the floor's records.

Its place in the layers (docs/architecture.md): models, rules, services, audit, roles and
actors are the `casino` layer, just above the engines: they import only games.rules,
casino.rules and each other. Its admin, api, floor page, demo, health and commands are
entry points at the top.
"""

from casino.celery import app as celery_app

__all__ = ("celery_app",)
