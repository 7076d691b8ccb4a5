"""The production refusals against a real gunicorn (issue 19, points 2, 3 and 7).

`gunicorn casino.wsgi` under DJANGO_ENV=production with the committed development key,
DEBUG on, a "*" host and no CASINO_DEVICE_KEY: its worker cannot load the application,
the master exits non-zero, and stderr carries the one message naming each unsafe
setting. With safe settings the same command serves /health/ (which touches neither the
database nor the broker, so none is needed here) and answers a 10 MB body the JSON 413.
"""

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from casino.env import DEVELOPMENT_SECRET_KEY
from tests.services import ROOT, project_env
from tests.workers.test_settlement_integration import free_port

pytestmark = pytest.mark.integration

SAFE_KEY = "gunicorn-integration-secret-" + "s" * 40  # 68 characters, not committed
HEAD = "DJANGO_ENV=production refuses to start:"
NAMED = [
    "- CASINO_DEVICE_KEY is not set (device secrets derive from it)",
    "- DJANGO_SECRET_KEY is the development key committed in casino/settings.py",
    "- DJANGO_DEBUG='true': debug pages show settings and code",
    "- DJANGO_ALLOWED_HOSTS has the wildcard '*': name each host (a leading dot allows "
    "one domain's subdomains)",
]


def production(tmp_path: Path, **overrides: str) -> dict[str, str]:
    """A safe production environment (unreachable services: nothing here connects)."""
    safe = {
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": SAFE_KEY,
        "CASINO_DEVICE_KEY": SAFE_KEY[::-1],
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": "postgres://postgres@127.0.0.1:1/none",
        "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
        "CASINO_DATA_DIR": str(tmp_path / "var"),
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
    }
    return project_env(**{**safe, **overrides})


def gunicorn(port: int) -> list[str]:
    return [
        sys.executable, "-m", "gunicorn", "casino.wsgi:application",
        "--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "30",
    ]  # fmt: skip


def test_gunicorn_in_production_refuses_every_unsafe_setting_in_one_message(tmp_path):
    env = production(
        tmp_path,
        DJANGO_SECRET_KEY=DEVELOPMENT_SECRET_KEY,
        DJANGO_DEBUG="true",
        DJANGO_ALLOWED_HOSTS="*",
        CASINO_DEVICE_KEY="",
    )
    started = time.monotonic()
    done = subprocess.run(
        gunicorn(free_port()), cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    took = time.monotonic() - started
    lines = done.stderr.splitlines()
    # The traceback's last line, and gunicorn's own report of it: the same one message.
    at = [i for i, line in enumerate(lines) if line.endswith(HEAD)]
    print(f"\ngunicorn exited {done.returncode} after {took:.1f} s; the message shown {len(at)}x")
    assert done.returncode != 0, done.stderr
    assert at, done.stderr
    for i in at:  # every unsafe setting named in each, and nothing else
        assert lines[i + 1 : i + 1 + len(NAMED)] == NAMED, done.stderr
        assert not [*lines, ""][i + 1 + len(NAMED)].startswith("- "), done.stderr
    assert lines[at[0]] == f"django.core.exceptions.ImproperlyConfigured: {HEAD}"
    assert DEVELOPMENT_SECRET_KEY not in done.stderr  # named, never echoed
    assert "Worker failed to boot" in done.stderr


def test_gunicorn_in_production_with_safe_settings_serves_health(tmp_path):
    port = free_port()
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        web = subprocess.Popen(
            gunicorn(port), cwd=ROOT, env=production(tmp_path), stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=5) as r:
                    status, body = r.status, r.read()
                break
            except OSError:
                if web.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"gunicorn did not serve:\n{log.read_text()}") from None
                time.sleep(0.2)
        assert (status, body) == (200, b'{"status": "ok"}')
        # A 10 MB body: the one JSON 413, decided from Content-Length before anything reads
        # the database (unreachable here) or the body.
        big = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1/tables/",
            data=b"[" + b" " * (10 * 1024 * 1024 - 2) + b"]",
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(big, timeout=20)
        answer = json.loads(refused.value.read())
        assert (refused.value.code, refused.value.headers["Content-Type"]) == (
            413,
            "application/json",
        )
        assert (answer["status"], answer["code"]) == (413, "body_too_large")
        assert answer["detail"] == "the body is 10485760 bytes, over the limit of 1048576 bytes"
        assert web.poll() is None
        assert "refuses to start" not in log.read_text()
    finally:
        web.terminate()
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()
