"""The floor snapshot in the shared cache (issue 21, casino/floor_cache.py): a change to a
table, round, set in play or device shows at once, nothing is ever more than a second or
two behind, and an API token's holder sees only its own tables, from the cache too. Who a
token acts as is cached the same way (casino/api/auth.py): a revoked token, a role taken
away, a user deactivated stop at once.

Most of these tests commit (COMMITS): the version is bumped when a change commits, which a
test's own rolled-back transaction never does.
"""

import pickle
import re
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from casino import floor_cache, floor_page
from casino.api import overview, throttles
from casino.api.auth import TOKENS, TokenPass
from casino.cache import RedisCache
from casino.models import ApiToken, CertificateHolder, SetInPlay, Table
from casino.services.api_tokens import token_issue, token_revoke
from casino.versioned import read
from devices.models import Device
from gaming.devices import device_out_of_order
from tests.casino.floor_fixtures import compliant_table, operations, staff
from tests.games.round_fixtures import opened

M = timedelta(minutes=1)
# Committed, then emptied: serialized_rollback puts back what the migrations wrote (content
# types, the roles' groups) for the tests after (as tests/browser does).
COMMITS = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def builds(monkeypatch) -> Iterator[list[datetime]]:
    """The empty cache, and the moments the snapshot was built (not served from it)."""
    made: list[datetime] = []
    build = floor_page.floor_snapshot

    def counted(**kwargs: Any) -> dict[str, Any]:
        made.append(kwargs["now"])
        return build(**kwargs)

    monkeypatch.setattr(floor_page, "floor_snapshot", counted)
    cache.clear()
    yield made
    cache.clear()  # the next test's database is flushed: no floor of ours survives it


def shown(snapshot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {table["number"]: table for table in snapshot["tables"]}


def young(snapshot: dict[str, Any]) -> bool:
    """Built less than two seconds ago (the page's promise)."""
    return timezone.now() - datetime.fromisoformat(snapshot["at"]) < timedelta(seconds=2)


@COMMITS
def test_a_change_to_a_round_table_set_or_device_shows_at_once(builds):
    now = timezone.now() - 10 * M
    table = compliant_table("sic_bo", number="SB-01", now=now, open_table=True).table
    first = floor_page.floor_read()
    assert floor_page.floor_read() == first and len(builds) == 1  # the second from the cache
    assert shown(first)["SB-01"]["round"] is None

    round_ = opened(table, now=now + M)
    assert shown(floor_page.floor_read())["SB-01"]["round"]["id"] == round_.pk
    assert len(builds) == 2

    device = Device.objects.get(table=table)
    device_out_of_order(device, "lamp broken", by=operations(), now=timezone.now())
    [device_shown] = shown(floor_page.floor_read())["SB-01"]["devices"]
    assert device_shown["health"] == "down"

    row = SetInPlay.objects.get(table=table)
    row.removed_at = timezone.now()
    row.save()
    assert shown(floor_page.floor_read())["SB-01"]["equipment"] == []

    table.refresh_from_db()
    table.status = Table.Status.SUSPENDED
    table.save()
    snapshot = floor_page.floor_read()
    assert shown(snapshot)["SB-01"]["status"] == "suspended"
    assert len(builds) == 5 and young(snapshot)
    assert floor_page.floor_read() == snapshot and len(builds) == 5  # nothing changed since


@COMMITS
def test_without_a_change_the_snapshot_is_never_more_than_a_second_old(builds):
    """A device's live heartbeat changes no row: the entry's second runs out instead."""
    compliant_table("sic_bo", number="SB-01", now=timezone.now() - 10 * M)
    first = floor_page.floor_read()
    assert young(first) and floor_page.floor_read() == first
    time.sleep(floor_cache.SECONDS + 0.1)
    again = floor_page.floor_read()
    assert len(builds) == 2 and young(again)
    assert again["at"] > first["at"]


@COMMITS
def test_a_holders_token_sees_only_its_tables_from_the_cache(builds):
    now = timezone.now() - 10 * M
    mine = compliant_table("sic_bo", number="SB-01", now=now).table
    other = CertificateHolder.objects.create(name="Other Casino")
    Table.objects.create(holder=other, number="OT-01", game="craps", variant="craps")
    everything = floor_page.floor_read()  # the whole floor cached first: nothing leaks
    assert sorted(shown(everything)) == ["OT-01", "SB-01"]

    user = staff("integrator-a", "integrator")
    _, key = token_issue(user=user, holder=mine.holder, name="floor", by=operations(), now=now)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    for _ in range(3):
        response = client.get("/api/v1/floor/")
        assert response.status_code == 200
        assert [t["number"] for t in response.json()["tables"]] == ["SB-01"]
    assert len(builds) == 2  # the whole floor's, then the holder's once: then its cache
    assert sorted(shown(floor_page.floor_read(holder_id=other.pk))) == ["OT-01"]


@pytest.mark.django_db
def test_a_change_not_yet_committed_is_shown_to_its_own_transaction_and_never_cached(builds):
    """Other processes must not see rows that may still roll back."""
    compliant_table("sic_bo", number="SB-01")  # in this test's transaction: not committed
    key = f"{floor_cache.FLOOR._prefix()}:entry:{floor_cache.EVERYTHING}"
    assert shown(floor_page.floor_read())["SB-01"]
    assert cache.get(key) is None
    floor_page.floor_read()
    assert len(builds) == 2


@COMMITS
def test_one_bump_for_a_transaction_however_many_rows(builds, monkeypatch):
    bumps = []
    monkeypatch.setattr(floor_cache.FLOOR, "bump", lambda: bumps.append(1))
    holder = CertificateHolder.objects.create(name="Bumped Casino")
    assert bumps == [1]  # autocommit: at once
    with transaction.atomic():
        for n in range(3):
            Table.objects.create(holder=holder, number=f"T-{n}", game="craps", variant="craps")
        assert bumps == [1]  # not before the commit
    assert bumps == [1, 1]


@pytest.mark.django_db
def test_a_cache_that_fails_costs_speed_not_the_floor(builds, monkeypatch):
    compliant_table("sic_bo", number="SB-01")

    def down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("the cache is unreachable")

    monkeypatch.setattr(cache, "get", down)
    assert shown(floor_page.floor_read())["SB-01"]["number"] == "SB-01"


@COMMITS
def test_a_transaction_reads_its_own_change_past_the_cache(builds):
    table = compliant_table("sic_bo", number="SB-01", now=timezone.now() - 10 * M).table
    assert shown(floor_page.floor_read())["SB-01"]["status"] == "closed"  # cached
    with transaction.atomic():
        table.refresh_from_db()
        table.status = Table.Status.SUSPENDED
        table.save()
        assert shown(floor_page.floor_read())["SB-01"]["status"] == "suspended"
    assert shown(floor_page.floor_read())["SB-01"]["status"] == "suspended"


# -- Who a token acts as, from the cache too (casino/api/auth.py) ------------------------


@pytest.fixture
def integrator(builds) -> tuple[Any, Any, APIClient]:
    """A committed table of the test holder, an integrator and its token's client."""
    now = timezone.now() - 10 * M
    table = compliant_table("sic_bo", number="SB-01", now=now).table
    user = staff("integrator-a", "integrator")
    token, key = token_issue(user=user, holder=table.holder, name="f", by=operations(), now=now)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return user, token, client


@COMMITS
def test_a_cached_token_reads_the_floor_without_sql(integrator):
    _, _, client = integrator
    for _ in range(2):  # the first writes the token's last use, which reads it again
        assert client.get("/api/v1/floor/").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/api/v1/floor/").status_code == 200
    assert [q["sql"] for q in queries.captured_queries] == []


@COMMITS
def test_a_revoked_token_stops_at_once(integrator):
    _, token, client = integrator
    assert client.get("/api/v1/floor/").status_code == 200
    token_revoke(token, by=operations(), now=timezone.now())
    response = client.get("/api/v1/floor/")
    assert response.status_code == 401 and "revoked" in response.json()["detail"]


@COMMITS
def test_a_role_taken_away_or_a_user_deactivated_stops_at_once(integrator):
    user, _, client = integrator
    assert client.get("/api/v1/floor/").status_code == 200
    user.groups.clear()
    assert client.get("/api/v1/floor/").status_code == 403
    user.groups.add(Group.objects.get(name="integrator"))
    assert client.get("/api/v1/floor/").status_code == 200
    user.is_active = False
    user.save()
    assert client.get("/api/v1/floor/").status_code == 401


# -- The token's floor read before DRF (casino/api/overview.py: floor_view) --------------


@pytest.fixture
def shorter(monkeypatch) -> list[int]:
    """The floor reads `floor_cached` answered itself (None: FloorView answered)."""
    answered: list[int] = []
    real = overview.floor_cached

    def counted(request: Any) -> Any:
        answer = real(request)
        if answer is not None:
            answered.append(answer.status_code)
        return answer

    monkeypatch.setattr(overview, "floor_cached", counted)
    return answered


def _answer(response: Any) -> tuple[int, bytes, list[tuple[str, str]]]:
    # X-Request-ID is each request's own (casino/logs.py): both ways send one.
    assert response.headers.get("X-Request-ID")
    headers = [(k, v) for k, v in response.headers.items() if k != "X-Request-ID"]
    return response.status_code, response.content, sorted(headers)


@COMMITS
def test_the_shorter_way_answers_as_drf_does_in_one_cache_trip(integrator, shorter, monkeypatch):
    _, _, client = integrator
    for _ in range(2):  # the first writes the token's last use (through DRF)
        client.get("/api/v1/floor/", HTTP_ACCEPT="application/json")
    trips = []
    monkeypatch.setattr(overview, "read", lambda keys, name: trips.append(keys) or read(keys, name))
    # The token's budget is counted in the same trip (casino/api/throttles.py).
    counted = throttles.window_count
    monkeypatch.setattr(
        throttles,
        "window_count",
        lambda key, seconds, reading=(): (
            trips.append(list(reading)) or counted(key, seconds, reading)
        ),
    )
    with CaptureQueriesContext(connection) as queries:
        fast = client.get("/api/v1/floor/", HTTP_ACCEPT="application/json")
    assert shorter and queries.captured_queries == [] and len(trips) == 1
    assert len(trips[0]) == 4  # the token's pass and the floor, each with its version
    monkeypatch.setattr(overview, "floor_cached", lambda request: None)
    drf = client.get("/api/v1/floor/", HTTP_ACCEPT="application/json")
    assert _answer(fast) == _answer(drf)
    assert dict(fast.headers)["Vary"] == "Accept, Cookie" and fast["Allow"] == "GET, HEAD, OPTIONS"


@COMMITS
def test_the_shorter_way_leaves_every_other_request_to_drf(integrator, shorter):
    _, _, client = integrator
    assert client.get("/api/v1/floor/").status_code == 200  # writes the last use
    assert client.get("/api/v1/floor/").status_code == 200 and len(shorter) == 1
    assert "text/html" in client.get("/api/v1/floor/", HTTP_ACCEPT="text/html")["Content-Type"]
    assert client.get("/api/v1/floor/?format=json").status_code == 200
    assert client.head("/api/v1/floor/").status_code == 200
    assert client.post("/api/v1/floor/", {}, format="json").status_code == 405
    client.credentials(HTTP_AUTHORIZATION="Bearer cft_nope_nope")
    assert client.get("/api/v1/floor/").status_code == 401
    assert len(shorter) == 1


@COMMITS
def test_the_shorter_way_writes_no_last_use_and_leaves_a_stale_one_to_drf(integrator, shorter):
    _, token, client = integrator
    client.get("/api/v1/floor/")
    token.refresh_from_db()
    used = token.last_used_at
    assert client.get("/api/v1/floor/").status_code == 200 and len(shorter) == 1
    token.refresh_from_db()
    assert token.last_used_at == used
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=used - 2 * M)
    TOKENS.bump()  # update() sends no signal
    assert client.get("/api/v1/floor/").status_code == 200 and len(shorter) == 1
    token.refresh_from_db()
    assert token.last_used_at > used  # DRF wrote it
    assert client.get("/api/v1/floor/").status_code == 200 and len(shorter) == 2


@COMMITS
def test_the_shorter_way_stops_at_once_for_a_revoked_token_or_a_role_taken_away(
    integrator, shorter
):
    user, token, client = integrator
    for _ in range(2):
        assert client.get("/api/v1/floor/").status_code == 200
    assert shorter == [200]
    user.groups.clear()
    assert client.get("/api/v1/floor/").status_code == 403
    user.groups.add(Group.objects.get(name="integrator"))
    assert client.get("/api/v1/floor/").status_code == 200 and shorter == [200, 200]
    token_revoke(token, by=operations(), now=timezone.now())
    response = client.get("/api/v1/floor/")
    assert response.status_code == 401 and "revoked" in response.json()["detail"]
    assert shorter == [200, 200]


@COMMITS
def test_the_shorter_way_serves_each_holder_its_own_tables(integrator, shorter):
    """The process's guess of a key's scope is checked against its token's holder."""
    _, _, client = integrator
    other = CertificateHolder.objects.create(name="Other Casino")
    Table.objects.create(holder=other, number="OT-01", game="craps", variant="craps")
    floor_page.floor_read(holder_id=other.pk)  # cached: nothing of it may leak
    for _ in range(3):
        response = client.get("/api/v1/floor/")
        assert [t["number"] for t in response.json()["tables"]] == ["SB-01"]
    assert len(shorter) == 2


def test_a_token_pass_survives_pickling():
    passed = TokenPass("hash", 3, timezone.now(), True)
    assert pickle.loads(pickle.dumps(passed)) == passed


def test_the_redis_cache_keeps_one_client_a_pool():
    backend = RedisCache("redis://127.0.0.1:6379/9", {})
    client = backend._cache.get_client()  # built, not connected
    assert backend._cache.get_client(write=True) is client
    assert type(client).__name__ == "Redis"


# -- The page's data for a session (casino/floor_page.py: floor_data) --------------------


@COMMITS
def test_the_pages_data_counts_its_budget_and_reads_the_right_and_the_floor_in_one_trip(
    builds, monkeypatch
):
    compliant_table("sic_bo", number="SB-01", now=timezone.now() - 10 * M)
    user = staff("ops-a", "operations")
    user.is_staff = True
    user.save()
    client = Client()
    client.force_login(user)
    first = client.get("/floor/data.json")
    assert first.status_code == 200 and len(builds) == 1
    trips = []
    # The user's budget is counted in the same trip (casino/api/throttles.py).
    counted = throttles.window_count
    monkeypatch.setattr(
        throttles,
        "window_count",
        lambda key, seconds, reading=(): (
            trips.append((key, list(reading))) or counted(key, seconds, reading)
        ),
    )
    with CaptureQueriesContext(connection) as queries:
        again = client.get("/floor/data.json")
    assert again.content == first.content and len(trips) == 1 and len(builds) == 1
    key, reading = trips[0]
    assert key.startswith(f"throttle:user:{user.pk}:")
    assert len(reading) == 4  # the user's right and the floor, each with its version
    # The session and its user only: the permissions come with the floor's entry.
    tables = [re.search(r'FROM "(\w+)"', q["sql"])[1] for q in queries.captured_queries]
    assert tables == ["django_session", "auth_user"]
    user.groups.clear()
    assert client.get("/floor/data.json").status_code == 403  # at once
    user.groups.add(Group.objects.get(name="operations"))
    assert client.get("/floor/data.json").status_code == 200
    user.is_staff = False
    user.save()
    assert client.get("/floor/data.json").status_code == 403
