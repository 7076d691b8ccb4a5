"""The heartbeat watch and the flush of last-seen times (devices/watch.py), on both stores.

The rule, from the module's documentation: a device of a kind with a heartbeat every
`interval` seconds is stale once MORE than `interval * missed` seconds have passed since
its last one. The defaults (devices/rules.py) are 5 s x 3 for every kind but the two Sic
Bo devices, which beat every 2 s (x 3); CASINO_DEVICE_HEARTBEATS overrides per kind.
So a shaker last heard at t is active at t + 6 s and stale at t + 6.001 s, and its
stale_since is t + 6 s, the moment the silence went over the limit.
"""

import re
import uuid
from datetime import timedelta

import pytest
from django.test import override_settings

from casino.models import Table
from devices import watch
from devices.models import Device, DeviceEvent
from devices.services import device_return_to_service, fault_clear
from devices.store import DatabaseStore, RedisStore, store
from devices.watch import Watched, heartbeats_flush
from gaming.devices import device_out_of_order, device_retire, devices_watch, fault_report
from tests.casino.floor_fixtures import T0, holder_get, operations
from tests.devices.device_fixtures import beat, fresh, register
from tests.services import REDIS_URL, require_redis

pytestmark = pytest.mark.django_db

S = timedelta(seconds=1)
MS = timedelta(milliseconds=1)
STORE_REDIS_URL = re.sub(r"/\d*$", "/0", REDIS_URL)
Status = Device.Status

# (interval s, missed) by kind, from devices/rules.py's Kind defaults (5 s x 3; the Sic Bo
# illumination device and automated shaker beat every 2 s).
DEFAULTS = {
    "extra_roll_device": (5, 3),
    "extra_roll_lockout": (5, 3),
    "illumination_device": (2, 3),
    "automated_shaker": (2, 3),
    "pai_gow_rng": (5, 3),
    "power_odds_rng": (5, 3),
    "electronic_table": (5, 3),
}
# The table each kind serves: (number, game, variant, operation, automated shaker, position).
PLACES = {
    "extra_roll_device": ("HR-01", "high_roll_dice", "10_dice", "manual", False, 1),
    "extra_roll_lockout": ("HR-01", "high_roll_dice", "10_dice", "manual", False, None),
    "illumination_device": ("SB-01", "sic_bo", "standard", "manual", True, None),
    "automated_shaker": ("SB-01", "sic_bo", "standard", "manual", True, None),
    "pai_gow_rng": ("PG-01", "pai_gow", "standard", "manual", False, None),
    "power_odds_rng": ("CR-01", "craps", "craps", "hybrid", False, None),
    "electronic_table": ("CR-01", "craps", "craps", "hybrid", False, None),
}


@pytest.fixture(autouse=True)
def database_store():
    """The database store unless the test asks for Redis (whatever the broker is)."""
    with override_settings(CASINO_DEVICE_STORE_URL="database"):
        store.cache_clear()
        yield
    store.cache_clear()


@pytest.fixture
def redis_store(database_store):
    """RedisStore under a prefix of the test's own, cleared after it."""
    require_redis()
    prefix = f"test:devices:{uuid.uuid4().hex}:"
    with override_settings(
        CASINO_DEVICE_STORE_URL=STORE_REDIS_URL, CASINO_DEVICE_STORE_PREFIX=prefix
    ):
        store.cache_clear()
        found = store()
        assert isinstance(found, RedisStore)
        assert found.prefix == prefix
        try:
            yield found
        finally:
            found.clear()
            store.cache_clear()


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.integration)])
def either_store(request: pytest.FixtureRequest):
    """The test once on each store."""
    if request.param == "redis":
        return request.getfixturevalue("redis_store")
    found = store()
    assert isinstance(found, DatabaseStore)
    return found


def device_of(kind: str, *, now=T0) -> Device:
    """A device of `kind`, registered at `now` at the table it serves (made if need be)."""
    number, game, variant, operation, shaker, position = PLACES[kind]
    table = Table.objects.filter(number=number).first()
    if table is None:
        table = Table(
            holder=holder_get(),
            number=number,
            game=game,
            variant=variant,
            operation=operation,
            automated_shaker=shaker,
        )
        table.full_clean()
        table.save()
    return register(table, kind, now=now, position=position).device


def kinds_of(device: Device) -> list[str]:
    return list(device.events.order_by("at", "id").values_list("kind", flat=True))


def test_the_defaults_are_the_documented_ones():
    for kind, (interval, missed) in DEFAULTS.items():
        assert watch.threshold(kind) == (interval, missed, float(interval * missed)), kind


def stale_at_the_boundary(device: Device, allowed: timedelta) -> None:
    """Last heard at t: active at t + allowed, stale 1 ms later, back when it beats again."""
    t = T0 + 10 * S
    beat(device, t)
    assert devices_watch(t) == Watched(activated=[device.pk])
    assert fresh(device).status == Status.ACTIVE

    assert devices_watch(t + allowed) == Watched()
    assert fresh(device).status == Status.ACTIVE

    late = t + allowed + MS
    assert devices_watch(late) == Watched(stale=[device.pk])
    row = fresh(device)
    assert row.status == Status.STALE
    assert row.stale_since == t + allowed
    assert row.status_changed_at == late
    stale = device.events.get(kind=DeviceEvent.Kind.STALE)
    assert stale.at == late

    # A second pass (and a later one) changes nothing more.
    assert devices_watch(late) == Watched()
    assert devices_watch(t + 10 * allowed) == Watched()
    assert fresh(device).status == Status.STALE
    assert device.events.filter(kind=DeviceEvent.Kind.STALE).count() == 1

    back = t + 10 * allowed + S
    beat(device, back)
    assert devices_watch(back) == Watched(recovered=[device.pk])
    row = fresh(device)
    assert (row.status, row.stale_since, row.status_changed_at) == (Status.ACTIVE, None, back)
    assert devices_watch(back) == Watched()
    assert kinds_of(device) == [
        "registered",
        "credential_issued",
        "active",
        "stale",
        "recovered",
    ]


@pytest.mark.parametrize("kind", list(DEFAULTS))
def test_stale_exactly_past_interval_times_missed_for_each_kind(kind, either_store):
    interval, missed = DEFAULTS[kind]
    stale_at_the_boundary(device_of(kind), timedelta(seconds=interval * missed))


@pytest.mark.parametrize(
    ("overrides", "kind", "seconds"),
    [
        ({"automated_shaker": [1, 3]}, "automated_shaker", 3),
        ({"automated_shaker": [1, 3]}, "illumination_device", 6),  # not overridden
        ({"pai_gow_rng": [10, 2]}, "pai_gow_rng", 20),
        ({"extra_roll_device": [1, 1]}, "extra_roll_device", 1),
    ],
)
def test_the_settings_override_a_kinds_heartbeat(overrides, kind, seconds, either_store):
    with override_settings(CASINO_DEVICE_HEARTBEATS=overrides):
        assert watch.threshold(kind)[2] == seconds
        stale_at_the_boundary(device_of(kind), timedelta(seconds=seconds))


def test_a_registered_device_becomes_active_at_its_first_heartbeat(either_store):
    device = device_of("automated_shaker")
    # Never heard from: registered, however long the watch waits.
    assert devices_watch(T0 + timedelta(hours=1)) == Watched()
    assert fresh(device).status == Status.REGISTERED

    first = T0 + timedelta(hours=1, seconds=1)
    beat(device, first)
    assert devices_watch(first + 2 * S) == Watched(activated=[device.pk])
    row = fresh(device)
    assert (row.status, row.status_changed_at) == (Status.ACTIVE, first + 2 * S)
    assert devices_watch(first + 3 * S) == Watched()
    assert kinds_of(device) == ["registered", "credential_issued", "active"]


def test_each_device_is_judged_by_its_own_heartbeat(either_store):
    shaker, light = device_of("automated_shaker"), device_of("illumination_device")
    pai_gow = device_of("pai_gow_rng")
    t = T0 + S
    for device in (shaker, light, pai_gow):
        beat(device, t)
    assert sorted(devices_watch(t).activated) == sorted([shaker.pk, light.pk, pai_gow.pk])

    beat(light, t + 5 * S)
    # At t + 7 s: the shaker (6 s) is stale, the light (heard at t + 5) and the generator
    # (15 s) are not; the light's 6 s run out at t + 11, the generator's at t + 15.
    assert devices_watch(t + 7 * S) == Watched(stale=[shaker.pk])
    assert devices_watch(t + 11 * S) == Watched()
    assert devices_watch(t + 15 * S) == Watched(stale=[light.pk])
    assert devices_watch(t + 15 * S + MS) == Watched(stale=[pai_gow.pk])
    assert fresh(light).stale_since == t + 11 * S


@pytest.mark.parametrize("how", ["faulted", "out_of_order"])
def test_a_faulted_or_out_of_order_device_is_not_moved_by_the_watch(how, either_store):
    device = device_of("automated_shaker")
    t = T0 + S
    beat(device, t)
    devices_watch(t)
    if how == "faulted":
        fault_report(device, "motor jammed", now=t + S)
    else:
        device_out_of_order(device, "covered, dice removed", by=operations(), now=t + S)
    events = kinds_of(device)

    # Silent well past the limit: not made stale.
    assert devices_watch(t + timedelta(minutes=5)) == Watched()
    # Heard from again: not made active.
    beat(device, t + timedelta(minutes=6))
    assert devices_watch(t + timedelta(minutes=6)) == Watched()
    assert fresh(device).status == how
    assert kinds_of(device) == events


def test_a_device_back_from_a_fault_or_out_of_order_is_watched_again(either_store):
    device = device_of("automated_shaker")
    t = T0 + S
    beat(device, t)
    devices_watch(t)
    device = fault_report(device, "motor jammed", now=t + S)
    device = fault_clear(device, "motor free", now=t + 2 * S)  # active again, at once
    assert fresh(device).status == Status.ACTIVE
    # Its last heartbeat was at t: 6 s later it is stale like any other.
    assert devices_watch(t + 6 * S) == Watched()
    assert devices_watch(t + 6 * S + MS) == Watched(stale=[device.pk])

    device_out_of_order(device, "covered", by=operations(), now=t + 10 * S)
    device_return_to_service(device, by=operations(), now=t + 20 * S)
    assert fresh(device).status == Status.REGISTERED
    assert devices_watch(t + 21 * S) == Watched()  # nothing heard since t
    beat(device, t + 22 * S)
    assert devices_watch(t + 22 * S) == Watched(activated=[device.pk])


def test_a_retired_device_is_not_watched(either_store):
    device = device_of("automated_shaker")
    beat(device, T0 + S)
    devices_watch(T0 + S)
    device_retire(device, by=operations(), now=T0 + 2 * S)
    assert either_store.seen("automated_shaker") == (
        {device.pk: (T0 + S).timestamp()} if isinstance(either_store, DatabaseStore) else {}
    )
    assert devices_watch(T0 + timedelta(minutes=1)) == Watched()
    assert fresh(device).status == Status.RETIRED


def test_an_active_device_never_heard_from_is_judged_from_when_it_became_active(either_store):
    """A fault cleared with no heartbeat on record: the silence counts from the clearing."""
    device = device_of("automated_shaker")
    device = fault_report(device, "power-on self test failed", now=T0 + S)
    device = fault_clear(device, "self test passed", now=T0 + 2 * S)
    assert fresh(device).last_seen_at is None
    assert devices_watch(T0 + 8 * S) == Watched()
    assert devices_watch(T0 + 8 * S + MS) == Watched(stale=[device.pk])
    assert fresh(device).stale_since == T0 + 8 * S


# --- The store's last-seen times and the rows -------------------------------------------


def test_heartbeats_flush_writes_the_last_seen_times_to_the_rows(either_store):
    shaker, light = device_of("automated_shaker"), device_of("illumination_device")
    t = T0 + S
    beat(shaker, t)
    beat(light, t + S)
    redis = isinstance(either_store, RedisStore)

    # The database store writes the row at the heartbeat: nothing is behind. Redis keeps
    # the times to itself until the flush.
    assert fresh(shaker).last_seen_at == (None if redis else t)
    assert heartbeats_flush(t + 2 * S) == (2 if redis else 0)
    assert fresh(shaker).last_seen_at == t
    assert fresh(light).last_seen_at == t + S
    assert heartbeats_flush(t + 3 * S) == 0

    beat(shaker, t + 4 * S)
    assert heartbeats_flush(t + 5 * S) == (1 if redis else 0)
    assert fresh(shaker).last_seen_at == t + 4 * S
    assert fresh(light).last_seen_at == t + S


def test_heartbeats_flush_keeps_fractions_of_a_second(either_store):
    device = device_of("automated_shaker")
    at = T0 + timedelta(seconds=1, microseconds=250_000)
    beat(device, at)
    heartbeats_flush(at)
    assert fresh(device).last_seen_at == at


def test_the_row_stands_in_when_redis_loses_the_last_seen(redis_store):
    device = device_of("automated_shaker")
    t = T0 + 10 * S
    beat(device, t)
    assert devices_watch(t + S) == Watched(activated=[device.pk])  # active from t + 1
    assert heartbeats_flush(t + S) == 1
    assert fresh(device).last_seen_at == t

    redis_store.clear()  # Redis flushed (or restarted without its data)
    assert redis_store.seen("automated_shaker") == {}

    # Judged by the row's copy, t: not by when it became active (t + 1).
    assert devices_watch(t + 6 * S) == Watched()
    assert devices_watch(t + 6 * S + MS) == Watched(stale=[device.pk])
    assert fresh(device).stale_since == t + 6 * S

    # Its heartbeats return into the empty store: recovered.
    beat(device, t + 20 * S)
    assert devices_watch(t + 20 * S) == Watched(recovered=[device.pk])


def test_without_a_flush_a_lost_store_falls_back_to_when_it_became_active(redis_store):
    device = device_of("automated_shaker")
    t = T0 + 10 * S
    beat(device, t)
    devices_watch(t + S)  # active from t + 1 s; the row has no last-seen yet
    redis_store.clear()

    assert devices_watch(t + 7 * S) == Watched()
    assert devices_watch(t + 7 * S + MS) == Watched(stale=[device.pk])
    assert fresh(device).stale_since == t + 7 * S
