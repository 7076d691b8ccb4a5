"""Database errors as Django raises them, from the driver's own (its DatabaseErrorWrapper):
what casino/api/middleware.py tells apart (an outage, or a statement that failed)."""

import psycopg
from django.db import OperationalError

REFUSED = "connection to server at 127.0.0.1, port 5432 failed: Connection refused"


def as_django_raises(error: type[Exception], cause: Exception) -> Exception:
    """Django's `error`, raised from the driver's `cause`."""
    wrapped = error(*cause.args)
    wrapped.__cause__ = cause
    return wrapped


def connection_refused() -> Exception:
    """What a query raises with PostgreSQL down: an outage."""
    return as_django_raises(OperationalError, psycopg.OperationalError(REFUSED))
