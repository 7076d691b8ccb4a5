"""Test settings: the project's own, with scratch folders so tests never touch ./var.

DATABASE_URL and CELERY_BROKER_URL still apply: CI runs this suite on PostgreSQL.
"""

import os
import tempfile

os.environ.setdefault("CASINO_DATA_DIR", tempfile.mkdtemp(prefix="casino-test-"))

from casino.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
