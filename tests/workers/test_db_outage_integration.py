"""A real gunicorn on a private PostgreSQL database that becomes unreachable (issue 19,
points 3 and 7): the API answers a JSON 503 with Retry-After while it is, a 10 MB body a
JSON 413 meanwhile, and the same process answers again once the database is back.

The database is made unreachable as an outage makes it: its open connections terminated
(pg_terminate_backend) and new ones refused (ALLOW_CONNECTIONS false, which binds the
superuser too, unlike REVOKE CONNECT).
"""

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from tests.services import (
    POSTGRES_URL,
    ROOT,
    manage,
    postgres_database,
    project_env,
    redis_database,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

SECRET = "integration-test-secret-" + "k" * 40  # over 50 characters, not the development key


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ask(url: str, data: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body, whatever the status."""
    request = urllib.request.Request(
        url,
        data=data,
        headers={
            # Well formed, so the token is looked up in the database (and found in none).
            "Authorization": "Bearer cft_nosuchkey_nosuchsecret",
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def reachable(name: str, allowed: bool) -> None:
    """Let connections to database `name` in again, or refuse new ones and end the open."""
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(
            sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS {}").format(
                sql.Identifier(name), sql.SQL("true" if allowed else "false")
            )
        )
        if not allowed:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                [name],
            )


def test_postgres_unreachable_under_gunicorn_is_a_json_503_then_answers_again(tmp_path: Path):
    require_postgres()
    require_redis()
    with postgres_database() as database_url, redis_database() as redis_url:
        name = database_url.rsplit("/", 1)[1]
        port = free_port()
        env = project_env(
            DJANGO_ENV="production",
            DJANGO_SECRET_KEY=SECRET,
            CASINO_DEVICE_KEY=SECRET[::-1],
            DJANGO_ALLOWED_HOSTS="127.0.0.1",
            DJANGO_SECURE_SSL_REDIRECT="false",
            DATABASE_URL=database_url,
            CELERY_BROKER_URL=redis_url,
            CASINO_DATA_DIR=str(tmp_path / "var"),
            DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        )
        manage(env, "migrate", "--noinput")
        log = tmp_path / "gunicorn.log"
        with log.open("wb") as out:
            web = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "casino.wsgi:application",
                 "--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "30"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        tables = f"{base}/api/v1/tables/"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if ask(f"{base}/health/")[0] == 200:
                        break
                except OSError:
                    pass
                if web.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"gunicorn did not start:\n{log.read_text()}")
                time.sleep(0.2)

            # The token is looked up in the database: 401 while it answers.
            assert ask(tables)[0] == 401

            reachable(name, False)
            try:
                started = time.monotonic()
                status, headers, body = ask(tables)
                took = time.monotonic() - started
                assert status == 503, body[:500]
                assert headers["Content-Type"] == "application/json"
                assert headers["Retry-After"] == "5"
                answer = json.loads(body)
                assert (answer["code"], answer["detail"]) == (
                    "database_unavailable",
                    "the database is unreachable; try again in 5 seconds",
                )
                big = ask(tables, b"[" + b" " * (10 * 1024 * 1024 - 2) + b"]")
                assert big[0] == 413, big[2][:500]
                assert json.loads(big[2])["code"] == "body_too_large"
                assert ask(f"{base}/ready/")[0] == 503
            finally:
                reachable(name, True)

            started = time.monotonic()
            status, _, body = ask(tables)
            back = time.monotonic() - started
            assert status == 401, body[:500]
            assert web.poll() is None  # the same process, never restarted
            print(f"503 answered in {took:.2f} s; answering again {back:.2f} s after")
        finally:
            web.terminate()
            try:
                web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait()
