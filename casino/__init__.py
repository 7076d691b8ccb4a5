"""The Django project: settings, urls, the Celery app, and the floor's records."""

from casino.celery import app as celery_app

__all__ = ("celery_app",)
