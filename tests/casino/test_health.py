"""The probes: /health/ (liveness) and /ready/ (readiness), as a load balancer sees them."""

import socket
import threading
from collections.abc import Callable, Iterator

import pytest
from django.test import Client

from casino import health
from casino.api.errors import error_body
from casino.celery import app
from devices import store as device_store
from tests.casino.test_settings import manage, production_env


def closed_port() -> int:
    """A local port nothing listens on: bound by us for a moment, then let go."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def probe() -> Client:
    """A load balancer: no cookies, and CSRF enforced as for any other client."""
    return Client(enforce_csrf_checks=True)


@pytest.mark.django_db
def test_health_answers_ok_without_touching_the_database(probe, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = probe.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_health_answers_head(probe):
    assert probe.head("/health/").status_code == 200


@pytest.mark.django_db
def test_ready_on_the_test_database(probe):
    response = probe.get("/ready/")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ready",
        "checks": {"database": "ok", "broker": "ok", "device_store": "ok"},
    }


@pytest.fixture
def broker_at(monkeypatch) -> Iterator[Callable[..., None]]:
    """Point the Celery app at another broker for one test, then back."""
    keys = ("broker_url", "broker_transport", "broker_transport_options")
    saved = {key: app.conf[key] for key in keys}

    def point(url: str, transport: str | None = None, options: dict | None = None) -> None:
        monkeypatch.setenv("CELERY_BROKER_URL", url)  # Celery reads it before its settings
        app.conf.update(
            broker_url=url, broker_transport=transport, broker_transport_options=options or {}
        )

    yield point
    app.conf.update(saved)


@pytest.mark.django_db
def test_ready_names_the_broker_when_it_is_down(probe, broker_at):
    port = closed_port()
    broker_at(f"redis://:s3cret-pw@127.0.0.1:{port}/0")
    response = probe.get("/ready/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not ready"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"].startswith("OperationalError")
    assert str(port) in body["checks"]["broker"]
    assert "s3cret-pw" not in response.content.decode()
    assert "Traceback" not in response.content.decode()


@pytest.mark.django_db
def test_ready_names_the_embedded_broker_when_its_folder_is_gone(probe, broker_at, tmp_path):
    missing = str(tmp_path / "gone")
    broker_at(
        "filesystem://localhost/",
        "casino.broker:Transport",
        {"data_folder_in": missing, "data_folder_out": missing, "control_folder": missing},
    )
    response = probe.get("/ready/")
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == (
        f"OSError: broker folder {missing} is missing or not writable"
    )


@pytest.mark.django_db
def test_ready_names_the_device_store_when_its_redis_is_down(probe, monkeypatch):
    unreachable = device_store.RedisStore(f"redis://127.0.0.1:{closed_port()}/0")
    monkeypatch.setattr(device_store, "store", lambda: unreachable)
    response = probe.get("/ready/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not ready"
    assert body["checks"]["device_store"].startswith("ConnectionError")
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"] == "ok"


@pytest.mark.parametrize("path", ["/health/", "/ready/"])
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_other_methods_are_refused_with_405(probe, path, method):
    response = getattr(probe, method)(path)
    assert response.status_code == 405
    text = f"method {method.upper()} not allowed"
    assert response.json() == error_body(405, "method_not_allowed", text, [text])
    assert response["Allow"] == "GET, HEAD"


def test_a_check_that_hangs_is_cut_off_and_not_started_twice(monkeypatch):
    monkeypatch.setattr(health, "CHECK_SECONDS", 0.2)
    release = threading.Event()
    started: list[int] = []

    def stuck() -> None:
        started.append(1)
        release.wait(10)

    try:
        assert health.run_checks({"stuck": stuck, "fine": lambda: None}) == {
            "stuck": "no answer within 0.2 s",
            "fine": "ok",
        }
        assert health.run_checks({"stuck": stuck}) == {
            "stuck": "an earlier check has not finished yet"
        }
        assert len(started) == 1
    finally:
        release.set()
    health._running["stuck"].join(5)
    assert health.run_checks({"stuck": stuck}) == {"stuck": "ok"}


def test_a_failing_check_is_one_line_with_no_password():
    def failing() -> None:
        raise RuntimeError("could not reach\npostgres://casino:hunter2@db.internal:5432/casino")

    message = health.run_checks({"database": failing})["database"]
    assert message == "RuntimeError: could not reach postgres://***@db.internal:5432/casino"


def test_production_lets_a_plain_http_probe_through_and_redirects_the_rest(tmp_path):
    code = (
        "from django.test import Client;"
        "c = Client(HTTP_HOST='floor.example.com');"
        "print(c.get('/health/').status_code, c.get('/ready/').status_code,"
        " c.get('/admin/login/').status_code)"
    )
    done = manage("shell", "--no-imports", "-c", code, **production_env(tmp_path))
    assert done.returncode == 0, done.stderr
    health_status, ready_status, admin_status = map(int, done.stdout.split())
    assert health_status == 200
    assert ready_status in (200, 503)  # 503 when no Redis runs here: never a redirect
    assert admin_status == 301
