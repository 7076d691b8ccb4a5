"""The devices' signed endpoints, through the Django test client (devices/views.py).

Every request is signed with devices.signing.signed_headers at a chosen moment, and the
endpoints' clock (devices.views.clock) is set to the moment the server receives it. The
expected outcomes come from the documented rules, worked out by hand:

- four headers, a key id of the form dk_..., a nonce of 16-64 [A-Za-z0-9_-], Unix seconds,
  64 hex digits of HMAC-SHA256 over method, path, timestamp, nonce and body;
- a timestamp more than CASINO_DEVICE_CLOCK_SKEW_SECONDS (30) from the server's clock is
  refused, exactly 30 is not;
- a nonce is taken once per key;
- heartbeats read the credential through a per-process cache of
  CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS (300), a revocation stopping them at once through
  the store; conditions and reports read the database;
- every refusal is JSON {"error", "detail"} and changes nothing.
"""

import json
import pickle
import re
import uuid
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings

from casino.models import AuditEntry, Table
from devices import auth, rules, signing, views
from devices import store as device_store
from devices.models import Device, DeviceCredential, DeviceEvent, DeviceNonce
from devices.services import Issued, credential_revoke, credential_rotate
from devices.store import RedisStore, Revoked, SignedBeforeStart, store
from gaming.devices import device_retire, devices_watch
from tests.casino.floor_fixtures import T0, compliant_table, holder_get, operations
from tests.devices.conftest import Clock
from tests.devices.device_fixtures import fresh, register
from tests.services import REDIS_URL, require_redis

pytestmark = pytest.mark.django_db

HEARTBEAT = "/devices/v1/heartbeat"
CONDITION = "/devices/v1/condition"
REPORT = "/devices/v1/report"
NOW = T0.timestamp()  # 2026-03-02 08:00 EST, a whole second
# The store's Redis: the integration server, database 0, a prefix of the test's own.
STORE_REDIS_URL = re.sub(r"/\d*$", "/0", REDIS_URL)


@pytest.fixture(autouse=True)
def clock(endpoint_clock):
    return endpoint_clock


@pytest.fixture
def redis_store(clock: Clock):
    """RedisStore under a prefix of the test's own, begun an hour before NOW."""
    require_redis()
    prefix = f"test:devices:{uuid.uuid4().hex}:"
    with override_settings(
        CASINO_DEVICE_STORE_URL=STORE_REDIS_URL, CASINO_DEVICE_STORE_PREFIX=prefix
    ):
        store.cache_clear()
        found = store()
        assert isinstance(found, RedisStore)
        found.begin(NOW - 3600)  # a store that has been running for an hour
        try:
            yield found
        finally:
            found.clear()
            store.cache_clear()


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.integration)])
def either_store(request: pytest.FixtureRequest, clock: Clock):
    """The test once with the database store and once with Redis (a prefix of its own)."""
    if request.param == "database":
        return store()
    return request.getfixturevalue("redis_store")


@pytest.fixture
def monotonic(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The credential cache's own clock (time.monotonic in devices.auth), set by the test."""
    fake = SimpleNamespace(value=1000.0)
    monkeypatch.setattr(auth, "time", SimpleNamespace(monotonic=lambda: fake.value))
    return fake


def table_of(number: str, game: str, variant: str, **fields: Any) -> Table:
    table = Table(holder=holder_get(), number=number, game=game, variant=variant, **fields)
    table.full_clean()
    table.save()
    return table


@pytest.fixture
def sic_bo() -> SimpleNamespace:
    """SB-01 with an automated shaker: its shaker and illumination device, registered at T0."""
    table = table_of("SB-01", "sic_bo", "standard", automated_shaker=True)
    return SimpleNamespace(
        table=table,
        shaker=register(table, "automated_shaker", now=T0),
        light=register(table, "illumination_device", now=T0),
    )


# --- Requests -------------------------------------------------------------------------


def encoded(body: Any) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


def headers_for(
    issued: Issued,
    path: str,
    body: Any,
    *,
    at: float | None = None,
    secret: str | None = None,
    sign_path: str | None = None,
) -> dict[str, str]:
    """The four headers for `body` to `path`, signed at `at` (default: the server's now)."""
    return signing.signed_headers(
        issued.key_id,
        issued.secret if secret is None else secret,
        "POST",
        sign_path or path,
        encoded(body),
        views.clock() if at is None else at,
    )


def post(client: Client, path: str, body: Any, headers: dict[str, str]):
    return client.post(path, data=encoded(body), content_type="application/json", headers=headers)


def send(client: Client, issued: Issued, path: str, body: Any, **signed: Any):
    """A request signed as `issued` would sign it."""
    return post(client, path, body, headers_for(issued, path, body, **signed))


def beat(client: Client, issued: Issued, **signed: Any):
    return send(client, issued, HEARTBEAT, {"device": issued.device.pk}, **signed)


def condition(client: Client, issued: Issued, what: str = "ok", **signed: Any):
    body = {"device": issued.device.pk, "condition": what, "detail": "self test"}
    return send(client, issued, CONDITION, body, **signed)


def report(client: Client, issued: Issued, table: str = "SB-01", round_: int = 1, **signed: Any):
    body = {"device": issued.device.pk, "table": table, "round": round_, "dice": [1, 2, 3]}
    return send(client, issued, REPORT, body, **signed)


# --- What a refusal must leave alone ----------------------------------------------------


def state() -> dict[str, Any]:
    """Everything a request could write: events, nonces, audit, rows, the store (but the
    key's budget's counter, which counts a signed heartbeat whatever its answer, in the
    Redis store's call as in the cache)."""
    current = store()
    keys = (
        sorted(
            key
            for key in current.client.scan_iter(match=f"{current.prefix}*")
            if not key.startswith(f"{current.prefix}throttle:".encode())
        )
        if isinstance(current, RedisStore)
        else []
    )
    return {
        "events": sorted(DeviceEvent.objects.values_list("pk", flat=True)),
        "nonces": sorted(DeviceNonce.objects.values_list("key_id", "nonce")),
        "audit": AuditEntry.objects.count(),
        "devices": list(Device.objects.order_by("pk").values()),
        "credentials": list(DeviceCredential.objects.order_by("pk").values()),
        "seen": {kind: current.seen(kind) for kind in rules.KINDS},
        "redis": keys,
    }


def assert_refused(response, status: int, error: str, detail: str, *, before: dict) -> None:
    """A JSON refusal (the API's error body) naming `detail`, and nothing written."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"status", "code", "detail", "reasons", "fields"}
    assert (body["status"], body["code"]) == (status, error)
    assert detail in body["detail"], body["detail"]
    assert state() == before


def kinds_seen() -> dict[str, dict[int, float]]:
    return {kind: seen for kind in rules.KINDS if (seen := store().seen(kind))}


# --- A good request ---------------------------------------------------------------------


def test_a_signed_heartbeat_is_taken_and_lands_in_the_store(client, sic_bo, clock, either_store):
    clock.now = NOW + 0.25  # the store keeps the server's moment, not the header's second
    shaker = sic_bo.shaker
    events = DeviceEvent.objects.count()

    response = beat(client, shaker)

    assert response.status_code == 204
    assert response.content == b""
    assert either_store.seen("automated_shaker") == {shaker.device.pk: NOW + 0.25}
    assert kinds_seen() == {"automated_shaker": {shaker.device.pk: NOW + 0.25}}
    # A heartbeat moves no status by itself (the watch does) and records no event.
    assert fresh(shaker.device).status == Device.Status.REGISTERED
    assert DeviceEvent.objects.count() == events


def test_a_signed_condition_reports_and_clears_a_fault(client, sic_bo, clock):
    light = sic_bo.light

    response = condition(client, light, "fault")
    assert response.status_code == 200
    assert response.json() == {"device": light.device.pk, "status": "faulted"}
    clock.now = NOW + 1
    response = condition(client, light, "ok")
    assert response.json() == {"device": light.device.pk, "status": "active"}

    kinds = list(light.device.events.order_by("at", "id").values_list("kind", "at"))
    assert kinds[-2:] == [("fault", T0), ("fault_cleared", T0 + timedelta(seconds=1))]


def test_a_signed_report_from_the_shaker_enters_the_throw(client, clock):
    from tests.games.round_fixtures import M, close, opened

    table = compliant_table("sic_bo", automated_shaker=True, open_table=True).table
    device = Device.objects.get(table=table, kind="automated_shaker")
    assert device.status == Device.Status.ACTIVE
    shaker = credential_rotate(device, by=operations(), now=T0)  # a secret to sign with
    round_ = close(opened(table))
    clock.now = (T0 + 4 * M).timestamp()

    response = report(client, shaker, table=table.number, round_=round_.number)

    assert response.status_code == 200, response.content
    assert response.json()["round"] == str(round_)
    throw = round_.events.get(event="throw")
    assert throw.payload == [1, 2, 3]
    assert (throw.source, throw.device_id, throw.entered_by_id) == ("device", device.pk, None)


# --- Headers ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", signing.HEADERS)
@pytest.mark.parametrize("value", [None, ""], ids=["absent", "empty"])
def test_each_header_is_required(client, sic_bo, name, value):
    body = {"device": sic_bo.shaker.device.pk}
    headers = headers_for(sic_bo.shaker, HEARTBEAT, body)
    if value is None:
        del headers[name]
    else:
        headers[name] = value
    before = state()

    response = post(client, HEARTBEAT, body, headers)

    assert_refused(
        response, 401, "signature_refused", f"the {name} header is missing", before=before
    )


@pytest.mark.parametrize(
    ("name", "value", "detail"),
    [
        (signing.KEY, "not-a-key", "X-Device-Key is not a device key id"),
        (signing.KEY, "dk_short", "X-Device-Key is not a device key id"),
        (signing.KEY, "dk_" + "a" * 37, "X-Device-Key is not a device key id"),
        (signing.KEY, "dk_with spaces!", "X-Device-Key is not a device key id"),
        (signing.NONCE, "a" * 15, "X-Device-Nonce must be 16 to 64 characters"),
        (signing.NONCE, "a" * 65, "X-Device-Nonce must be 16 to 64 characters"),
        (signing.NONCE, "not/a+base64url=nonce", "X-Device-Nonce must be 16 to 64 characters"),
        (signing.TIMESTAMP, "17724564OO", "X-Device-Timestamp must be Unix seconds"),
        (signing.TIMESTAMP, "-1772456400", "X-Device-Timestamp must be Unix seconds"),
        (signing.TIMESTAMP, "1772456400.0", "X-Device-Timestamp must be Unix seconds"),
        (signing.TIMESTAMP, "1" * 13, "X-Device-Timestamp must be Unix seconds"),
        (signing.SIGNATURE, "abc123", "X-Device-Signature must be 64 hex digits"),
        (signing.SIGNATURE, "0" * 65, "X-Device-Signature must be 64 hex digits"),
        # The right length but not hex: read as a signature that does not match.
        (signing.SIGNATURE, "z" * 64, "the signature does not match the request"),
    ],
)
def test_malformed_headers_are_refused(client, sic_bo, name, value, detail):
    body = {"device": sic_bo.shaker.device.pk}
    headers = headers_for(sic_bo.shaker, HEARTBEAT, body) | {name: value}
    before = state()

    assert_refused(
        post(client, HEARTBEAT, body, headers), 401, "signature_refused", detail, before=before
    )


def test_a_timestamp_of_unicode_digits_is_refused_not_a_server_error(sic_bo):
    client = Client(raise_request_exception=False)
    body = {"device": sic_bo.shaker.device.pk}
    headers = headers_for(sic_bo.shaker, HEARTBEAT, body) | {signing.TIMESTAMP: "²"}
    before = state()

    assert_refused(
        post(client, HEARTBEAT, body, headers),
        401,
        "signature_refused",
        "X-Device-Timestamp must be Unix seconds",
        before=before,
    )


# --- Keys, secrets and signatures ---------------------------------------------------------


def test_an_unknown_key_is_refused(client, sic_bo):
    stranger = Issued(sic_bo.shaker.device, "dk_" + "A" * 20, "a-secret", sic_bo.shaker.credential)
    before = state()

    assert_refused(
        beat(client, stranger),
        401,
        "signature_refused",
        f"no device credential dk_{'A' * 20}",
        before=before,
    )


def test_a_signature_with_the_wrong_secret_is_refused(client, sic_bo):
    before = state()

    response = beat(client, sic_bo.shaker, secret=sic_bo.light.secret)

    assert_refused(
        response, 401, "signature_refused", "the signature does not match", before=before
    )


def test_a_body_changed_after_signing_is_refused(client, sic_bo, either_store):
    device = sic_bo.shaker.device.pk
    signed_body = f'{{"device": {device}}}'.encode()
    headers = headers_for(sic_bo.shaker, HEARTBEAT, signed_body)
    before = state()

    # The same JSON object, one space more: a different body, so a different signature.
    response = post(client, HEARTBEAT, f'{{"device":  {device}}}'.encode(), headers)

    assert_refused(
        response, 401, "signature_refused", "the signature does not match", before=before
    )


@pytest.mark.parametrize(("signed_for", "sent_to"), [(CONDITION, HEARTBEAT), (HEARTBEAT, REPORT)])
def test_a_signature_for_another_path_is_refused(client, sic_bo, signed_for, sent_to):
    body = {"device": sic_bo.shaker.device.pk}
    headers = headers_for(sic_bo.shaker, sent_to, body, sign_path=signed_for)
    before = state()

    assert_refused(
        post(client, sent_to, body, headers),
        401,
        "signature_refused",
        "the signature does not match",
        before=before,
    )


# --- Time -------------------------------------------------------------------------------


@pytest.mark.parametrize("off", [-30, 30, 0], ids=["30s-old", "30s-ahead", "now"])
def test_a_timestamp_within_the_skew_is_accepted(client, sic_bo, off):
    assert settings.CASINO_DEVICE_CLOCK_SKEW_SECONDS == 30

    assert beat(client, sic_bo.shaker, at=NOW + off).status_code == 204
    assert store().seen("automated_shaker") == {sic_bo.shaker.device.pk: NOW}


@pytest.mark.parametrize(
    ("off", "detail"),
    [
        (-31, "signed 31 s from now: too old (limit 30 s)"),
        (31, "signed 31 s from now: too far in the future (limit 30 s)"),
        (-3600, "too old"),
    ],
    ids=["31s-old", "31s-ahead", "an-hour-old"],
)
def test_a_timestamp_beyond_the_skew_is_refused(client, sic_bo, either_store, off, detail):
    before = state()

    assert_refused(
        beat(client, sic_bo.shaker, at=NOW + off), 401, "signature_refused", detail, before=before
    )


# --- Replays ----------------------------------------------------------------------------


def test_the_same_heartbeat_twice_is_a_replay(client, sic_bo, clock, either_store):
    body = {"device": sic_bo.shaker.device.pk}
    headers = headers_for(sic_bo.shaker, HEARTBEAT, body)
    assert post(client, HEARTBEAT, body, headers).status_code == 204
    after_first = state()
    assert after_first["seen"]["automated_shaker"] == {sic_bo.shaker.device.pk: NOW}

    clock.now = NOW + 5  # still within the skew: only the nonce gives it away
    response = post(client, HEARTBEAT, body, headers)

    assert_refused(
        response, 401, "signature_refused", "the nonce has been used", before=after_first
    )
    assert store().seen("automated_shaker") == {sic_bo.shaker.device.pk: NOW}


def test_the_same_condition_twice_is_a_replay(client, sic_bo, clock, either_store):
    light = sic_bo.light
    body = {"device": light.device.pk, "condition": "fault", "detail": "lamp out"}
    headers = headers_for(light, CONDITION, body)
    assert post(client, CONDITION, body, headers).json()["status"] == "faulted"
    clock.now = NOW + 1
    assert condition(client, light, "ok").json()["status"] == "active"
    after = state()

    clock.now = NOW + 2  # the fault again, replayed: refused before it changes anything
    response = post(client, CONDITION, body, headers)

    assert_refused(response, 401, "signature_refused", "the nonce has been used", before=after)
    assert fresh(light.device).status == Device.Status.ACTIVE


def test_a_nonce_is_one_use_per_key_not_per_endpoint(client, sic_bo, either_store):
    device = sic_bo.light.device.pk
    body = {"device": device, "condition": "ok", "detail": ""}
    first = headers_for(sic_bo.light, CONDITION, body)
    assert post(client, CONDITION, body, first).status_code == 200
    # A heartbeat signed properly, but with the nonce the condition used.
    beat_body = encoded({"device": device})
    again = {
        **first,
        signing.SIGNATURE: signing.sign(
            sic_bo.light.secret,
            "POST",
            HEARTBEAT,
            first[signing.TIMESTAMP],
            first[signing.NONCE],
            beat_body,
        ),
    }
    before = state()

    assert_refused(
        post(client, HEARTBEAT, beat_body, again),
        401,
        "signature_refused",
        "the nonce has been used",
        before=before,
    )


# --- A device speaks for itself, at its own table -----------------------------------------


@pytest.mark.parametrize("path", [HEARTBEAT, CONDITION, REPORT])
def test_a_device_naming_another_device_is_refused(client, sic_bo, either_store, path):
    shaker, light = sic_bo.shaker, sic_bo.light
    body = {"device": light.device.pk, "condition": "fault", "detail": "not mine"}
    if path == HEARTBEAT:
        body = {"device": light.device.pk}
    elif path == REPORT:
        body = {"device": light.device.pk, "table": "SB-01", "round": 1, "dice": [1, 2, 3]}
    before = state()

    response = send(client, shaker, path, body)

    assert_refused(
        response,
        403,
        "wrong_device",
        f"device {shaker.device.pk} may speak only for itself, not {light.device.pk}",
        before=before,
    )


def test_a_report_naming_another_table_is_refused(client, sic_bo):
    table_of("SB-02", "sic_bo", "standard", automated_shaker=True)
    before = state()

    response = report(client, sic_bo.shaker, table="SB-02")

    assert_refused(
        response,
        403,
        "wrong_table",
        f"device {sic_bo.shaker.device.pk} serves SB-01, not SB-02",
        before=before,
    )


def test_a_device_that_reports_nothing_may_not_report(client, sic_bo):
    body = {"device": sic_bo.light.device.pk, "table": "SB-01", "round": 1, "dice": [1, 2, 3]}
    before = state()

    assert_refused(
        send(client, sic_bo.light, REPORT, body),
        403,
        "reports_nothing",
        "a Sic Bo illumination device reports no results",
        before=before,
    )


# --- Rotation, revocation, retirement -------------------------------------------------------


def test_rotation_the_old_secret_works_through_the_grace_and_not_after(client, sic_bo, clock):
    old = sic_bo.shaker
    assert beat(client, old).status_code == 204  # the old credential is in the cache
    rotated_at = T0 + timedelta(seconds=10)
    new = credential_rotate(old.device, by=operations(), now=rotated_at)
    assert settings.CASINO_DEVICE_ROTATION_GRACE_SECONDS == 300
    ends = rotated_at + timedelta(seconds=300)
    assert DeviceCredential.objects.get(key_id=old.key_id).expires_at == ends
    assert DeviceCredential.objects.get(key_id=new.key_id).expires_at is None
    assert new.secret != old.secret

    # Just rotated: both work, on the cached path and the database one.
    clock.now = NOW + 10
    assert beat(client, new).status_code == 204
    assert condition(client, new).status_code == 200
    assert beat(client, old).status_code == 204
    assert condition(client, old).status_code == 200

    # The last second of the grace (a fresh read of the credential).
    auth._cache.clear()
    clock.now = ends.timestamp() - 1
    assert beat(client, old).status_code == 204
    assert condition(client, old).status_code == 200

    # The grace is over: the old credential is refused, even from the heartbeats' cache
    # (it was read after the rotation and carries its end), and after a fresh read.
    clock.now = ends.timestamp()
    before = state()
    assert_refused(
        beat(client, old), 401, "signature_refused", "revoked or has expired", before=before
    )
    assert_refused(
        condition(client, old), 401, "signature_refused", "revoked or has expired", before=before
    )
    auth._cache.clear()
    assert_refused(
        beat(client, old), 401, "signature_refused", "revoked or has expired", before=before
    )
    # The new one goes on.
    assert beat(client, new).status_code == 204
    assert condition(client, new).status_code == 200


def test_a_revoked_credential_is_refused_at_once_for_conditions_and_reports(
    client, sic_bo, clock, monotonic
):
    shaker = sic_bo.shaker
    assert beat(client, shaker).status_code == 204  # cached for the heartbeats
    credential_revoke(shaker.credential, by=operations(), now=T0 + timedelta(seconds=5))
    clock.now = NOW + 5
    before = state()

    # Reports and conditions read the database: refused at once, cache or no cache.
    assert_refused(
        report(client, shaker), 401, "signature_refused", "revoked or has expired", before=before
    )
    assert_refused(
        condition(client, shaker, "fault"),
        401,
        "signature_refused",
        "revoked or has expired",
        before=before,
    )
    assert fresh(shaker.device).status == Device.Status.REGISTERED


def test_a_revoked_credential_stops_cached_heartbeats_at_once(
    client, sic_bo, clock, monotonic, either_store, django_capture_on_commit_callbacks
):
    """The heartbeats' credential cache lives for minutes, but a revocation reaches them at
    once: the store refuses the key in the call that would record the heartbeat."""
    shaker = sic_bo.shaker
    assert settings.CASINO_DEVICE_CREDENTIAL_CACHE_SECONDS == 300
    assert beat(client, shaker).status_code == 204  # read at monotonic 1000, now cached
    with django_capture_on_commit_callbacks(execute=True):
        credential_revoke(shaker.credential, by=operations(), now=T0 + timedelta(seconds=5))
    clock.now = NOW + 5
    monotonic.value = 1001.0  # well inside the cache's time
    before = state()
    assert_refused(
        beat(client, shaker), 401, "signature_refused", "revoked or has expired", before=before
    )
    assert either_store.seen("automated_shaker") == {shaker.device.pk: NOW}


def test_a_heartbeat_read_fresh_after_a_revocation_is_refused(client, sic_bo, clock):
    credential_revoke(sic_bo.shaker.credential, by=operations(), now=T0)
    before = state()

    assert_refused(
        beat(client, sic_bo.shaker),
        401,
        "signature_refused",
        f"the credential {sic_bo.shaker.key_id} has been revoked or has expired",
        before=before,
    )


def test_a_retired_device_is_refused(client, sic_bo, clock):
    shaker = sic_bo.shaker
    assert beat(client, shaker).status_code == 204
    device_retire(shaker.device, by=operations(), now=T0 + timedelta(seconds=1))
    clock.now = NOW + 1
    before = state()

    assert_refused(
        condition(client, shaker, "fault"),
        401,
        "signature_refused",
        "revoked or has expired",
        before=before,
    )
    assert_refused(
        report(client, shaker), 401, "signature_refused", "revoked or has expired", before=before
    )
    auth._cache.clear()
    assert_refused(
        beat(client, shaker), 401, "signature_refused", "revoked or has expired", before=before
    )
    # Retirement refuses the device as such, whatever its credentials: a credential the
    # row says is still good is refused too.
    DeviceCredential.objects.filter(key_id=shaker.key_id).update(revoked_at=None)
    auth._cache.clear()
    before = state()
    assert_refused(
        beat(client, shaker), 401, "signature_refused", "revoked or has expired", before=before
    )


# --- Method and body --------------------------------------------------------------------


@pytest.mark.parametrize("path", [HEARTBEAT, CONDITION, REPORT])
def test_only_post_is_allowed(client, sic_bo, path):
    before = state()

    assert_refused(
        client.get(path), 405, "method_not_allowed", "POST a signed JSON body", before=before
    )


@pytest.mark.parametrize(
    ("path", "body", "detail"),
    [
        (HEARTBEAT, b"device=1", "the body is not JSON"),
        (HEARTBEAT, b"\xff\xfe{}", "the body is not JSON"),
        (CONDITION, b"{not json", "the body is not JSON"),
        (REPORT, b"", "the body must be a JSON object"),
        (HEARTBEAT, b"[1]", "the body must be a JSON object"),
        (HEARTBEAT, b'{"device": "1"}', "device must be the device's id"),
        (HEARTBEAT, b'{"device": true}', "device must be the device's id"),
        (HEARTBEAT, b"{}", "device must be the device's id"),
    ],
)
def test_a_body_that_is_not_a_json_object_naming_the_device_is_refused(
    client, sic_bo, path, body, detail
):
    headers = headers_for(sic_bo.shaker, path, body)
    before = state()

    assert_refused(post(client, path, body, headers), 400, "malformed_body", detail, before=before)


def test_a_heartbeat_with_other_fields_is_refused(client, sic_bo, either_store):
    body = {"device": sic_bo.shaker.device.pk, "status": "ok"}
    before = state()

    assert_refused(
        send(client, sic_bo.shaker, HEARTBEAT, body),
        400,
        "malformed_body",
        "status is not a heartbeat field",
        before=before,
    )


def test_a_body_over_the_limit_is_refused_413_unread(client, sic_bo):
    body = json.dumps({"device": sic_bo.shaker.device.pk, "pad": "x" * 4096}).encode()
    before = state()

    assert_refused(
        send(client, sic_bo.shaker, HEARTBEAT, body),
        413,
        "body_too_large",
        f"the body is {len(body)} bytes, over the limit of 4096 bytes",
        before=before,
    )


def test_an_unreachable_store_answers_503(client, sic_bo):
    before = state()
    with override_settings(CASINO_DEVICE_STORE_URL="redis://127.0.0.1:1/0"):
        store.cache_clear()
        try:
            response = beat(client, sic_bo.shaker)
        finally:
            store.cache_clear()

    assert_refused(
        response, 503, "store_unavailable", "the heartbeat store is unreachable", before=before
    )


# --- Redis loses its data: the store fails closed -------------------------------------------


def lose_data(redis_store: RedisStore) -> None:
    """What Redis restarted empty looks like to the store: none of its keys."""
    redis_store.clear()
    assert list(redis_store.client.scan_iter(match=f"{redis_store.prefix}*")) == []


def revoked_refused_10_s_later(client, shaker, clock, monotonic, redis_store) -> None:
    """10 s after its revocation, with the credential still cached as it was, unrevoked:
    the shaker's heartbeat refused, the store's record of the end copied back."""
    clock.now = NOW + 10
    monotonic.value = 1010.0  # the cache still holds the credential as it was, unrevoked
    response = beat(client, shaker)
    assert response.status_code == 401
    assert "revoked or has expired" in response.json()["detail"]
    assert redis_store.client.hget(redis_store.ends_key, shaker.key_id) == b"0.0"


@pytest.mark.integration
def test_the_store_begins_once_and_keeps_the_earliest_end(redis_store):
    redis_store.clear()
    assert redis_store.begin(NOW) == NOW
    assert redis_store.begin(NOW + 100) == NOW  # begun: a later call changes nothing
    redis_store.revoke("dk_rotated00", NOW + 300)  # a rotation's grace ending
    redis_store.revoke("dk_rotated00", NOW + 600)  # a stale copy never lengthens it
    assert redis_store.client.hget(redis_store.ends_key, "dk_rotated00") == repr(NOW + 300).encode()
    redis_store.revoke("dk_rotated00")  # revoked outright: from now
    assert redis_store.client.hget(redis_store.ends_key, "dk_rotated00") == b"0.0"


def test_the_store_refusals_survive_pickling():
    for error in (SignedBeforeStart("dk_abcdefgh"), Revoked("dk_abcdefgh")):
        again = pickle.loads(pickle.dumps(error))
        assert (type(again), again.args) == (type(error), ("dk_abcdefgh",))


@pytest.mark.integration
def test_a_heartbeat_replayed_after_redis_lost_its_data_is_refused(
    client, sic_bo, clock, redis_store
):
    shaker = sic_bo.shaker
    body = {"device": shaker.device.pk}
    captured = headers_for(shaker, HEARTBEAT, body)  # signed at NOW
    assert post(client, HEARTBEAT, body, captured).status_code == 204
    lose_data(redis_store)

    # 5 s later, inside the 30 s window: the nonce's record is gone, but the store begins
    # again at the server's NOW + 5 and the request was signed at NOW, before that.
    clock.now = NOW + 5
    response = post(client, HEARTBEAT, body, captured)
    assert response.status_code == 401
    assert response.json()["code"] == "signature_refused"
    assert response.json()["detail"] == views.BEFORE_START
    assert redis_store.client.get(redis_store.epoch_key) == repr(NOW + 5).encode()
    assert redis_store.seen("automated_shaker") == {}  # nothing written

    # The device signs again (at NOW + 6, after the store began): taken.
    clock.now = NOW + 6
    assert beat(client, shaker).status_code == 204
    assert redis_store.seen("automated_shaker") == {shaker.device.pk: NOW + 6}


@pytest.mark.integration
def test_a_condition_replayed_after_redis_lost_its_data_is_refused(
    client, sic_bo, clock, redis_store
):
    shaker = sic_bo.shaker
    body = {"device": shaker.device.pk, "condition": "fault", "detail": "self test"}
    captured = headers_for(shaker, CONDITION, body)
    assert post(client, CONDITION, body, captured).status_code == 200
    assert fresh(shaker.device).status == Device.Status.FAULTED
    lose_data(redis_store)
    events = DeviceEvent.objects.count()

    clock.now = NOW + 29  # still inside the window
    response = post(client, CONDITION, body, captured)
    assert response.status_code == 401
    assert response.json()["detail"] == views.BEFORE_START
    assert DeviceEvent.objects.count() == events


@pytest.mark.integration
def test_a_revoked_key_with_a_cached_credential_is_refused_after_redis_lost_its_data(
    client, sic_bo, clock, monotonic, redis_store, django_capture_on_commit_callbacks
):
    shaker = sic_bo.shaker
    assert beat(client, shaker).status_code == 204  # its credential cached at monotonic 1000
    with django_capture_on_commit_callbacks(execute=True):
        credential_revoke(shaker.credential, by=operations(), now=T0 + timedelta(seconds=5))
    lose_data(redis_store)  # the store's record of the revocation is gone
    revoked_refused_10_s_later(client, shaker, clock, monotonic, redis_store)
    assert redis_store.seen("automated_shaker") == {}


@pytest.mark.integration
def test_a_revocation_the_store_never_heard_of_is_enforced_after_redis_lost_its_data(
    client, sic_bo, clock, monotonic, redis_store, django_capture_on_commit_callbacks
):
    shaker = sic_bo.shaker
    assert beat(client, shaker).status_code == 204
    # The on-commit call to the store never runs: Redis was unreachable at that moment.
    with django_capture_on_commit_callbacks(execute=False):
        credential_revoke(shaker.credential, by=operations(), now=T0 + timedelta(seconds=5))
    lose_data(redis_store)
    clock.now = NOW + 10
    monotonic.value = 1010.0

    response = beat(client, shaker)
    assert response.status_code == 401
    assert "revoked or has expired" in response.json()["detail"]


@pytest.mark.integration
def test_the_watch_copies_a_revocation_the_store_never_heard_of(
    client, sic_bo, clock, monotonic, redis_store, django_capture_on_commit_callbacks
):
    shaker = sic_bo.shaker
    assert beat(client, shaker).status_code == 204
    with django_capture_on_commit_callbacks(execute=False):
        credential_revoke(shaker.credential, by=operations(), now=T0 + timedelta(seconds=5))
    clock.now = NOW + 6
    monotonic.value = 1006.0
    # Redis kept its data but missed the revocation, and the cache holds the credential:
    # the one gap, closed by the watch's next pass (every second).
    assert beat(client, shaker).status_code == 204
    devices_watch(T0 + timedelta(seconds=7))
    clock.now = NOW + 7
    response = beat(client, shaker)
    assert response.status_code == 401
    assert "revoked or has expired" in response.json()["detail"]


def test_rotation_grace_holds_across_a_redis_loss_and_ends_even_for_a_cached_credential(
    client, sic_bo, clock, monotonic, either_store, django_capture_on_commit_callbacks
):
    old = sic_bo.shaker
    assert beat(client, old).status_code == 204  # cached before the rotation: no end known
    rotated_at = T0 + timedelta(seconds=10)
    with django_capture_on_commit_callbacks(execute=True):
        new = credential_rotate(old.device, by=operations(), now=rotated_at)
    ends = NOW + 10 + 300  # CASINO_DEVICE_ROTATION_GRACE_SECONDS after the rotation
    if isinstance(either_store, RedisStore):
        lose_data(either_store)
        either_store.begin(NOW + 20)  # back, and begun, at NOW + 20

    # Inside the grace, after the loss: both secrets work.
    clock.now = NOW + 30
    monotonic.value = 1030.0
    assert beat(client, old).status_code == 204
    assert beat(client, new).status_code == 204
    clock.now = ends - 1
    monotonic.value = 1100.0
    assert beat(client, old).status_code == 204

    # The grace is over: the old one is refused although this process cached it before
    # the rotation (its copy knows no end, and the cache has 300 - 100 s to go).
    clock.now = ends
    response = beat(client, old)
    assert response.status_code == 401
    assert "revoked or has expired" in response.json()["detail"]
    assert beat(client, new).status_code == 204


# --- Redis through Sentinel: a failover is a store begun again (casino/redis_connect.py) ----
# Replication to a replica is asynchronous: the replica Sentinel promotes holds what its old
# primary copied to it, perhaps not the last nonce or end it took. The store keeps an epoch
# for each primary, so on the promoted one it begins again, as on a Redis that came back
# empty (docs/deploy.md, "Several machines"). These tests stand the failover in with the
# primary's address the store sees (what Sentinel answers) and the writes not copied.
PRIMARY, PROMOTED = "10.77.0.11:6379", "10.77.0.12:6379"


@pytest.fixture
def primary(monkeypatch: pytest.MonkeyPatch, redis_store: RedisStore) -> SimpleNamespace:
    """The primary's address as the store's client sees it, set by the test; the store
    begun on PRIMARY an hour before NOW."""
    seen = SimpleNamespace(address=PRIMARY)
    monkeypatch.setattr(device_store, "master_address", lambda client: seen.address)
    redis_store.begin(NOW - 3600)
    return seen


def failover(redis_store: RedisStore, primary: SimpleNamespace, *lost: str) -> None:
    """PROMOTED made primary with every key of the store but `lost` (never copied to it)."""
    for key in lost:
        assert redis_store.client.delete(key) == 1
    primary.address = PROMOTED


@pytest.mark.integration
def test_a_heartbeat_replayed_after_a_failover_that_lost_its_nonce_is_refused(
    client, sic_bo, clock, redis_store, primary
):
    shaker = sic_bo.shaker
    body = {"device": shaker.device.pk}
    captured = headers_for(shaker, HEARTBEAT, body)  # signed at NOW
    assert post(client, HEARTBEAT, body, captured).status_code == 204
    nonce = captured[signing.NONCE]
    failover(redis_store, primary, redis_store._nonce_key(shaker.key_id, nonce))

    # 5 s later, inside the 30 s window, on the promoted replica: the nonce was never
    # copied there, but the store begins on it at NOW + 5, after the request was signed.
    clock.now = NOW + 5
    response = post(client, HEARTBEAT, body, captured)
    assert response.status_code == 401
    assert response.json()["detail"] == views.BEFORE_START
    epoch_keys = sorted(redis_store.client.scan_iter(match=f"{redis_store.prefix}epoch*"))
    assert epoch_keys == [f"{redis_store.prefix}epoch:{PROMOTED}".encode()]  # the old one gone
    assert redis_store.client.get(redis_store.epoch_key) == repr(NOW + 5).encode()

    clock.now = NOW + 6  # signed again, after the store began on the promoted one: taken
    assert beat(client, shaker).status_code == 204


@pytest.mark.integration
def test_a_revocation_never_copied_to_the_promoted_replica_is_still_enforced(
    client, sic_bo, clock, monotonic, redis_store, primary, django_capture_on_commit_callbacks
):
    shaker = sic_bo.shaker
    assert beat(client, shaker).status_code == 204  # its credential cached at monotonic 1000
    with django_capture_on_commit_callbacks(execute=True):
        credential_revoke(shaker.credential, by=operations(), now=T0 + timedelta(seconds=5))
    assert redis_store.client.hget(redis_store.ends_key, shaker.key_id) == b"0.0"
    # The old primary took the end, the replica never got it (nor any other end).
    failover(redis_store, primary, redis_store.ends_key)
    revoked_refused_10_s_later(client, shaker, clock, monotonic, redis_store)


@pytest.mark.integration
def test_an_answer_from_a_primary_reached_during_the_call_is_not_trusted(
    client, sic_bo, clock, redis_store, primary, monkeypatch
):
    """The store's client may reconnect to a new primary inside one call (its old one gone):
    the claim then ran against the old primary's epoch, and its answer is refused."""
    shaker = sic_bo.shaker
    claim = redis_store._evalsha

    def claim_then_fail_over(*args: Any, **kwargs: Any) -> Any:
        answer = claim(*args, **kwargs)
        primary.address = PROMOTED  # the reconnection learned of the new primary
        return answer

    monkeypatch.setattr(redis_store, "_evalsha", claim_then_fail_over)
    response = beat(client, shaker)
    assert response.status_code == 401
    assert response.json()["detail"] == views.BEFORE_START
    monkeypatch.setattr(redis_store, "_evalsha", claim)
    clock.now = NOW + 1
    assert beat(client, shaker).status_code == 204  # begun on PROMOTED at NOW + 1: taken
