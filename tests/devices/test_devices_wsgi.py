"""The devices' own web process (casino/wsgi_devices.py): the devices' endpoints, the
heartbeat's short path among them, and the probes; a 404 in the one JSON body for every
other path, so nothing but a device's request (or a probe) takes its workers.

The signed-request tests of test_signed_requests.py named below run again here with
`client` sending through casino.wsgi_devices (pytest collects them in this module, with
this module's `client`): a heartbeat, a condition and a report taken, and refusals
answered as the web process answers them.
"""

# The fixtures imported from test_signed_requests are named again as tests' parameters.
# ruff: noqa: F811

import pytest

from casino import wsgi, wsgi_devices
from tests.devices.test_heartbeat_fast_path import Answer, call, environ_for
from tests.devices.test_signed_requests import (  # noqa: F401 - tests collected again, fixtures
    NOW,
    beat,
    clock,
    either_store,
    redis_store,
    sic_bo,
    test_a_device_naming_another_device_is_refused,
    test_a_signature_with_the_wrong_secret_is_refused,
    test_a_signed_condition_reports_and_clears_a_fault,
    test_a_signed_heartbeat_is_taken_and_lands_in_the_store,
    test_a_signed_report_from_the_shaker_enters_the_throw,
    test_an_unknown_key_is_refused,
    test_the_same_heartbeat_twice_is_a_replay,
)

pytestmark = pytest.mark.django_db


class DevicesClient:
    """The test client's `post` and `get`, through casino.wsgi_devices.application."""

    def post(self, path: str, data: bytes, content_type: str, headers: dict[str, str]) -> Answer:
        environ = environ_for("POST", path, data, headers, CONTENT_TYPE=content_type)
        return call(wsgi_devices.application, environ)

    def get(self, path: str) -> Answer:
        return call(wsgi_devices.application, environ_for("GET", path, b"", {}))


@pytest.fixture
def taken() -> dict[str, int]:
    return {"short": 0, "django": 0}


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch, taken: dict[str, int]) -> DevicesClient:
    """Requests through casino.wsgi_devices, the heartbeat's short path and Django's
    handler counted."""
    for name, module, attribute in (
        ("short", wsgi, "heartbeat_application"),
        ("django", wsgi_devices, "django_application"),
    ):
        handler = getattr(module, attribute)

        def counted(environ, start, handler=handler, name=name):
            taken[name] += 1
            return handler(environ, start)

        monkeypatch.setattr(module, attribute, counted)
    return DevicesClient()


def test_a_heartbeat_takes_the_short_path(client, taken, sic_bo, either_store):
    assert beat(client, sic_bo.shaker).status_code == 204
    assert taken == {"short": 1, "django": 0}
    assert either_store.seen("automated_shaker") == {sic_bo.shaker.device.pk: NOW}


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    "path",
    ["/api/v1/floor/", "/api/v1/", "/admin/", "/admin", "/floor/", "/", "/devices/v1/nope"],
)
def test_every_other_path_is_a_404_in_the_one_body(client, taken, settings, path, debug):
    settings.DEBUG = debug  # Django's own 404 page in development: not here
    answer = client.get(path)
    assert answer.status_code == 404  # no redirect to a slash either
    assert answer["Content-Type"] == "application/json"
    detail = (
        f"no endpoint at {path}; this server answers the devices' endpoints only (/devices/v1/)"
    )
    assert answer.json() == {
        "status": 404,
        "code": "not_found",
        "detail": detail,
        "reasons": [detail],
        "fields": {},
    }
    assert answer["X-Request-ID"]  # the web process's middleware on the way
    assert taken == {"short": 0, "django": 1}


def test_a_post_to_the_api_is_a_404_and_changes_nothing(client):
    answer = client.post("/api/v1/tables/", b"{}", "application/json", {})
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"


def test_the_probes_are_answered_for_the_load_balancer(client):
    assert client.get("/health/").json() == {"status": "ok"}
    assert client.get("/ready/").status_code in (200, 503)  # answered, whatever it finds


def test_a_device_endpoint_answers_as_in_the_web_process(client):
    """A GET to the heartbeat: Django's 405 in the one body, as the web process gives it."""
    ours = client.get("/devices/v1/heartbeat")
    theirs = call(wsgi.application, environ_for("GET", "/devices/v1/heartbeat", b"", {}))
    assert ours.status_code == theirs.status_code == 405
    assert ours.content == theirs.content
