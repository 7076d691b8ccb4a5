"""Real services for integration tests: PostgreSQL, Redis and worker processes.

Outside CI a test whose service is unreachable is skipped with a message saying how
to enable it; with CI=true it fails, so CI never passes without having run it.
"""

import os
import re
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connection
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_URL = os.environ.get(
    "INTEGRATION_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"
)
# Database 15 is the integration tests' own: they empty it before and after.
REDIS_URL = os.environ.get("INTEGRATION_REDIS_URL", "redis://127.0.0.1:6379/15")


def in_ci() -> bool:
    """True when CI=true (or 1/yes): unreachable services fail instead of skipping."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require(service: str, check: Callable[[], object], how: str) -> None:
    """Run `check`; skip (or fail in CI) with a message naming the service and the fix."""
    try:
        check()
    except Exception as error:  # any failure to reach the service counts
        message = f"{service} is not reachable ({error.__class__.__name__}: {error}); {how}"
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)


def require_postgres() -> None:
    """PostgreSQL at INTEGRATION_POSTGRES_URL, or skip/fail."""
    require(
        "PostgreSQL",
        lambda: psycopg.connect(POSTGRES_URL, connect_timeout=3).close(),
        f"start it or set INTEGRATION_POSTGRES_URL (now {POSTGRES_URL}) to run this test",
    )


def require_redis() -> None:
    """Redis at INTEGRATION_REDIS_URL, or skip/fail."""
    require(
        "Redis",
        lambda: redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping(),
        f"start it or set INTEGRATION_REDIS_URL (now {REDIS_URL}) to run this test",
    )


def require_postgres_in_process(what: str) -> None:
    """Skip (fail with CI=true) unless the in-process tests run on PostgreSQL
    (DATABASE_URL=postgres://...): `what` needs it."""
    if connection.vendor != "postgresql":
        message = (
            f"the database is {connection.vendor}; {what} need PostgreSQL: set "
            "DATABASE_URL=postgres://... to run this test"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty PostgreSQL database for one test; yields its URL, drops it after."""
    name = f"casino_it_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield re.sub(r"/[^/]*$", f"/{name}", POSTGRES_URL)
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@contextmanager
def redis_database() -> Iterator[str]:
    """The integration tests' Redis database, emptied before and after."""
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    try:
        yield REDIS_URL
    finally:
        client.flushdb()


def project_env(**overrides: str) -> dict[str, str]:
    """The environment of a project process: this one's, minus our settings, plus these."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "CELERY_", "CASINO_"))
    }
    env["DJANGO_SETTINGS_MODULE"] = "casino.settings"
    env["PYTHONUNBUFFERED"] = "1"
    # Beat's routine tasks' lines at INFO (quiet by default): the integration tests read
    # them to know that beat's sweep ran (tests/workers).
    env["CASINO_ROUTINE_LOG_LEVEL"] = "INFO"
    env.update(overrides)
    return env


def manage(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``manage.py`` in a fresh interpreter; raise with its output if it fails."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def every_queue() -> str:
    """Every queue, for `celery worker -Q`: a test's one worker serves them all (floor.py and
    deploy/ give the webhooks a worker of their own; a test's endpoints answer)."""
    return ",".join(settings.CELERY_QUEUE_NAMES)


@contextmanager
def celery_worker(env: dict[str, str], log: Path, node: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real ``celery worker`` process on every queue; stopped with SIGTERM after the test."""
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "casino", "worker",
                "-Q", every_queue(), "-n", node,
                "--concurrency", "1", "--without-gossip", "--without-mingle", "-l", "INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while b" ready." not in log.read_bytes():
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"the worker did not start:\n{log.read_text()}")
                time.sleep(0.2)
            yield worker
        finally:
            stop(worker)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL after 30 s if it is still running."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def production_env(
    tmp_path: Path, database_url: str, redis_url: str, **overrides: str
) -> dict[str, str]:
    """A project process's environment under DJANGO_ENV=production on these services, its
    files under `tmp_path`, the secret keys made up for the test; `overrides` win."""
    secret = "integration-test-secret-" + "p" * 40
    production = {
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": secret,
        "CASINO_DEVICE_KEY": secret[::-1],
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": redis_url,
        "CASINO_DATA_DIR": str(tmp_path / "var"),
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "PYTHONPATH": str(ROOT),
    }
    return project_env(**{**production, **overrides})


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def gunicorn(env: dict[str, str], log: Path, *, deploy_config: bool = False) -> Iterator[str]:
    """A gunicorn of the project on a free port; yields its base URL once /health/ answers.
    One worker; or, with `deploy_config`, deploy/gunicorn.conf.py's settings (the
    production server's: its limits, WEB_CONCURRENCY workers of WEB_THREADS threads)."""
    import httpx

    port = free_port()
    if deploy_config:
        env = {"WEB_CONCURRENCY": "2", "PROMETHEUS_MULTIPROC_DIR": str(log.parent / "metrics"),
               **env, "HOST": "127.0.0.1", "PORT": str(port)}  # fmt: skip
        options = ["--config", str(ROOT / "deploy" / "gunicorn.conf.py")]
    else:
        options = ["--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "60"]
    with log.open("wb") as out:
        web = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "casino.wsgi:application", *options],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/health/", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if web.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"gunicorn did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield base
    finally:
        stop(web)
