"""Suite-wide hooks."""

from django.conf import settings


def pytest_report_header(config) -> str:
    """Say which database and broker the in-process tests use (CI: PostgreSQL)."""
    database = settings.DATABASES["default"]
    return f"casino: database {database['ENGINE'].rsplit('.', 1)[-1]}, broker {settings.CELERY_BROKER_URL.split('://')[0]}"
