"""/metrics (issue 22, point 3): the floor's counters where things happen, its state read at
scrape time, the API's latency by view and refusals by code, and who may read them.

In one process (these tests) prometheus_client keeps values in memory: each test reads a
counter before and after. Several processes adding up through PROMETHEUS_MULTIPROC_DIR are
tested with real processes in tests/casino/test_metrics_processes.py.
"""

import io
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.urls import resolve
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from casino import wsgi
from casino.env import production_refusals
from casino.models import SetInPlay
from casino.services import FloorRefused
from devices.models import Device
from games.models import SettlementRequest
from games.services.settlement import SettlementError, request_failure_record
from gaming.metrics import heartbeat_lags, sets_by_state, settlement_waiting
from tests.api.conftest import API, error_of, new_key, operations_user, post, session
from tests.casino.floor_fixtures import T0, compliant_table
from tests.casino.test_settings import GOOD_KEY
from tests.database_errors import connection_refused
from tests.devices.device_fixtures import heard
from tests.games.round_fixtures import M, open_table, opened, place, result, settle, wager

pytestmark = pytest.mark.django_db
S = timedelta(seconds=1)
TOKEN = "m" * 40


def value(name: str, **labels: str) -> float:
    """A sample's value in this process (0 before its first use)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scraped(client: Client, **headers: str) -> dict[tuple[str, tuple], float]:
    """GET /metrics, parsed: (sample name, sorted labels) -> value."""
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


# --- counters where things happen -------------------------------------------------------------


def test_a_round_opened_counts_once_it_commits_and_a_refusal_counts_nothing(
    django_capture_on_commit_callbacks,
):
    table = open_table("sic_bo")
    before = value("casino_rounds_opened_total", game="sic_bo")
    with django_capture_on_commit_callbacks(execute=True):
        round_ = opened(table)
    assert value("casino_rounds_opened_total", game="sic_bo") == before + 1
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(FloorRefused):
        opened(table)  # a round is in progress: refused, nothing counted
    assert value("casino_rounds_opened_total", game="sic_bo") == before + 1
    assert round_.number == 1


def test_a_settled_round_counts_and_observes_its_time_from_result_to_settled(
    django_capture_on_commit_callbacks,
):
    table = open_table("sic_bo")
    round_ = opened(table, now=T0 + M)
    place(round_, wager("ann", "small", "10"), now=T0 + 2 * M)
    result(round_, "throw", [2, 3, 4], now=T0 + 4 * M)  # the request written at T0 + 4 min
    name = "casino_round_result_to_settled_seconds"
    before = {
        "settled": value("casino_rounds_settled_total", game="sic_bo"),
        "count": value(f"{name}_count", game="sic_bo"),
        "sum": value(f"{name}_sum", game="sic_bo"),
        "le30": value(f"{name}_bucket", game="sic_bo", le="30.0"),
        "le60": value(f"{name}_bucket", game="sic_bo", le="60.0"),
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert settle(round_, now=T0 + 4 * M + 45 * S) == "settled"
    # 45 s from the result: in the 60 s bucket, not the 30 s one.
    assert value("casino_rounds_settled_total", game="sic_bo") == before["settled"] + 1
    assert value(f"{name}_count", game="sic_bo") == before["count"] + 1
    assert value(f"{name}_sum", game="sic_bo") == before["sum"] + 45
    assert value(f"{name}_bucket", game="sic_bo", le="30.0") == before["le30"]
    assert value(f"{name}_bucket", game="sic_bo", le="60.0") == before["le60"] + 1
    # Settled again (a second delivery): a no-op, counted nothing.
    with django_capture_on_commit_callbacks(execute=True):
        assert settle(round_, now=T0 + 5 * M) == "already settled"
    assert value("casino_rounds_settled_total", game="sic_bo") == before["settled"] + 1


def test_a_settlement_failure_counts_by_kind():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    result(round_, "throw", [2, 3, 4])
    request = SettlementRequest.objects.get(round=round_)
    before = value("casino_settlement_failures_total", kind="refused")
    request_failure_record(request.pk, SettlementError("the engine refuses it"), now=T0 + 5 * M)
    assert value("casino_settlement_failures_total", kind="refused") == before + 1


# --- the request's measures -------------------------------------------------------------------


def test_each_request_is_timed_by_its_view_and_counted_by_status():
    client = session(operations_user())
    view = resolve(f"{API}/tables/").view_name
    before = value("casino_http_request_duration_seconds_count", view=view, method="GET")
    ok = value("casino_http_responses_total", status="200")
    assert client.get(f"{API}/tables/").status_code == 200
    assert value("casino_http_request_duration_seconds_count", view=view, method="GET") == (
        before + 1
    )
    assert value("casino_http_responses_total", status="200") >= ok + 1
    # An unknown path is "other", never the path itself (bounded series).
    other = value("casino_http_request_duration_seconds_count", view="other", method="GET")
    assert Client().get("/no/such/place/").status_code == 404
    assert value("casino_http_request_duration_seconds_count", view="other", method="GET") == (
        other + 1
    )
    assert (
        REGISTRY.get_sample_value(
            "casino_http_request_duration_seconds_count",
            {"view": "/no/such/place/", "method": "GET"},
        )
        is None
    )


def test_refusals_count_by_the_error_bodys_code():
    client = session(operations_user())
    table = compliant_table("sic_bo").table  # compliant, but closed: a round is refused
    refused = value("casino_api_refusals_total", code="refused", status="422")
    not_found = value("casino_api_refusals_total", code="not_found", status="404")
    error_of(post(client, f"{API}/rounds/", {"table": table.pk}, key=new_key()), 422, "refused")
    error_of(client.get(f"{API}/rounds/999999/"), 404, "not_found")
    error_of(client.get(f"{API}/no-such-thing/"), 404, "not_found")  # Django's own 404
    assert value("casino_api_refusals_total", code="refused", status="422") == refused + 1
    assert value("casino_api_refusals_total", code="not_found", status="404") == not_found + 2


def test_a_heartbeat_on_the_fast_path_is_timed_as_the_heartbeat_view():
    # An unsigned heartbeat through casino.wsgi's shorter way: refused, timed under the
    # heartbeat view's name as Django's own handler would name it, its code counted.
    started: list[str] = []
    environ = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/devices/v1/heartbeat",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b"{}"),
        "wsgi.errors": io.StringIO(),
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": "2",
    }
    labels = {"view": "device-heartbeat", "method": "POST"}
    before = value("casino_http_request_duration_seconds_count", **labels)
    # Every code's count first: which 401 the shorter way answers depends on what earlier
    # tests left (an unknown device is unauthenticated, a known one's bad signature refused).
    refusals = {
        sample.labels["code"]: sample.value
        for family in REGISTRY.collect()
        for sample in family.samples
        if sample.name == "casino_api_refusals_total" and sample.labels.get("status") == "401"
    }
    body = b"".join(wsgi.application(environ, lambda status, headers: started.append(status)))
    assert started == ["401 Unauthorized"]
    code = json.loads(body)["code"]
    assert value("casino_http_request_duration_seconds_count", **labels) == before + 1
    assert value("casino_api_refusals_total", code=code, status="401") == refusals.get(code, 0) + 1


# --- the floor's state, read at scrape time ---------------------------------------------------


def test_settlement_requests_waiting_and_failed_are_read_by_status():
    now = T0 + 10 * M
    rounds = []
    for number in ("SB-01", "SB-02", "SB-03"):
        round_ = opened(open_table("sic_bo", number=number), now=T0 + M)
        place(round_, wager("ann", "small", "10"), now=T0 + 2 * M)
        result(round_, "throw", [2, 3, 4], now=T0 + 4 * M)
        rounds.append(round_)
    settle(rounds[0], now=T0 + 5 * M)
    failed = SettlementRequest.objects.get(round=rounds[1])
    request_failure_record(failed.pk, SettlementError("refused"), now=T0 + 5 * M)
    # The third: pending, last sent at T0 + 4 min, 6 minutes ago: beat is not running.
    waiting, oldest = settlement_waiting(now)
    assert waiting == {"pending": 0, "failed": 1, "too_many_sends": 0, "not_sent_again": 1}
    assert oldest == 6 * 60  # the oldest unsettled request was written at T0 + 4 min
    # Within the sweep's time it is pending, not an alert.
    waiting, oldest = settlement_waiting(T0 + 4 * M + 5 * S)
    assert waiting == {"pending": 1, "failed": 1, "too_many_sends": 0, "not_sent_again": 0}
    assert oldest == 5


def test_sets_in_play_by_schedule_state():
    floor = compliant_table("sic_bo")  # its dice put in play at T0
    in_play = SetInPlay.objects.get(table=floor.table, removed_at__isnull=True)
    due_at, warn_from = in_play.due_at, in_play.warn_from
    assert sets_by_state(warn_from - S) == {"in_date": 1, "due_soon": 0, "overdue": 0}
    assert sets_by_state(warn_from) == {"in_date": 0, "due_soon": 1, "overdue": 0}
    assert sets_by_state(due_at) == {"in_date": 0, "due_soon": 1, "overdue": 0}
    assert sets_by_state(due_at + S) == {"in_date": 0, "due_soon": 0, "overdue": 1}


def test_heartbeat_lag_of_each_device_in_service():
    table = compliant_table("sic_bo", automated_shaker=True).table  # its devices heard at T0
    devices = list(Device.objects.filter(table=table).order_by("pk"))
    assert len(devices) >= 2 and {d.status for d in devices} == {Device.Status.ACTIVE}
    heard(devices[0], now=T0 + 5 * S)
    Device.objects.filter(pk=devices[-1].pk).update(status=Device.Status.RETIRED)
    lags = heartbeat_lags(T0 + 35 * S)
    expected = [(devices[0].serial_number, devices[0].kind, table.number, 30.0)] + [
        (d.serial_number, d.kind, table.number, 35.0) for d in devices[1:-1]
    ]
    assert lags == expected  # the retired one is not in service


# --- the endpoint --------------------------------------------------------------------------


def test_metrics_in_development_are_open_and_show_the_floor(settings):
    settings.CASINO_METRICS_TOKEN = ""
    table = compliant_table("sic_bo", automated_shaker=True).table  # its devices active
    active = Device.objects.filter(table=table).count()
    Device.objects.filter(pk=Device.objects.filter(table=table).first().pk).update(
        status=Device.Status.STALE
    )
    samples = scraped(Client())
    assert samples[("casino_devices", (("status", "active"),))] == active - 1
    assert samples[("casino_devices", (("status", "stale"),))] == 1
    assert samples[("casino_devices", (("status", "registered"),))] == 0
    assert samples[("casino_settlement_requests", (("status", "failed"),))] == 0
    # Its dice were put in play at T0 (March 2026) for 24 hours: overdue now.
    assert samples[("casino_equipment_sets_in_play", (("state", "overdue"),))] >= 1
    assert samples[("casino_rounds_in_progress", (("status", "open"),))] == 0
    lag = [key for key in samples if key[0] == "casino_device_heartbeat_lag_seconds"]
    assert len(lag) == active
    # The counters are there too.
    assert "casino_http_responses_total" in {name for name, _ in samples}


def test_metrics_need_the_bearer_token_when_one_is_set(settings):
    settings.CASINO_METRICS_TOKEN = TOKEN
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        response = Client().get("/metrics", headers=headers)
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
        assert b"casino_" not in response.content
    assert scraped(Client(), Authorization=f"Bearer {TOKEN}")


def test_metrics_are_off_in_production_without_a_token(settings):
    settings.PRODUCTION, settings.CASINO_METRICS_TOKEN = True, ""
    response = Client().get("/metrics")
    assert response.status_code == 404
    assert b"casino_" not in response.content
    settings.CASINO_METRICS_TOKEN = TOKEN
    assert scraped(Client(), Authorization=f"Bearer {TOKEN}")


def test_metrics_answer_a_scrape_by_address_and_over_plain_http(settings):
    # Prometheus scrapes each web process by its address, inside the network: no host
    # check, no HTTPS redirect (the answer is built before those middlewares).
    settings.CASINO_METRICS_TOKEN = TOKEN
    settings.SECURE_SSL_REDIRECT = True
    client = Client(HTTP_HOST="10.1.2.3:8000")
    assert scraped(client, Authorization=f"Bearer {TOKEN}")
    assert (
        Client().post("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 405
    )


def test_a_metrics_token_under_32_characters_is_refused_in_production():
    env = {
        "DJANGO_SECRET_KEY": GOOD_KEY,
        "CASINO_DEVICE_KEY": GOOD_KEY[::-1],
        "DJANGO_ALLOWED_HOSTS": "floor.example.com",
        "DATABASE_URL": "postgres://db/casino",
        "CELERY_BROKER_URL": "redis://redis:6379/0",
    }
    assert production_refusals({**env, "CASINO_METRICS_TOKEN": "t" * 32}) == []
    assert production_refusals({**env, "CASINO_METRICS_TOKEN": "t" * 31}) == [
        "CASINO_METRICS_TOKEN has 31 characters; 32 or more are required"
    ]


def test_every_metric_the_deploy_docs_name_is_served(settings):
    settings.CASINO_METRICS_TOKEN = ""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "deploy.md").read_text()
    named = set(re.findall(r"\b(casino_[a-z_]+)", docs))
    served = Client().get("/metrics").content.decode()
    types = set(re.findall(r"^# TYPE (\S+) ", served, re.M))
    suffixes = ("_bucket", "_count", "_sum")
    missing = {
        name
        for name in named
        if name not in types and not any(name.removesuffix(s) in types for s in suffixes)
    }
    assert len(named) >= 13 and missing == set()


def test_the_counters_answer_when_the_floors_state_cannot_be_read(settings, monkeypatch):
    settings.CASINO_METRICS_TOKEN = ""
    assert scraped(Client())[("casino_floor_state_readable", ())] == 1

    def down(now):
        raise connection_refused()

    monkeypatch.setattr("gaming.metrics.settlement_waiting", down)
    samples = scraped(Client())
    assert samples[("casino_floor_state_readable", ())] == 0
    assert not any(name.startswith("casino_settlement_requests") for name, _ in samples)
    assert "casino_http_responses_total" in {name for name, _ in samples}
