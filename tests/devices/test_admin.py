"""The device registry's admin (issue 8): operations register devices and act on them
through devices.services, compliance reads everything and acts on nothing.

The admin stamps actions with the wall clock (timezone.now()), so devices here are
registered and heard from a little before it.
"""

import json
import re
import time
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from devices import auth, signing
from devices import store as heartbeat_store
from devices.models import Device, DeviceCredential, DeviceEvent
from devices.services import credential_revoke, credential_rotate, device_register
from games.models import Round
from gaming.devices import device_out_of_order
from gaming.rounds import round_open
from tests.casino.floor_fixtures import compliance, compliant_table, operations
from tests.devices.device_fixtures import APPROVED, fresh, heard, register

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/devices/device/"
Event = DeviceEvent.Kind


def recently() -> Any:
    """An hour ago: tables and devices built then are in place for the admin's clock."""
    return timezone.now() - timedelta(hours=1)


def login(client: Client, user: Any) -> Any:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return user


@pytest.fixture
def ops_client(client: Client) -> Client:
    login(client, operations())
    return client


@pytest.fixture
def compliance_client(client: Client) -> Client:
    login(client, compliance())
    return client


def sic_bo_device() -> Device:
    """A Sic Bo illumination device, registered an hour ago (not yet heard from), at a
    table set up for an automated shaker too."""
    floor = compliant_table("sic_bo", now=recently(), automated_shaker=True, with_devices=False)
    return register(floor.table, "illumination_device", now=recently()).device


def active_device() -> Device:
    """A Sic Bo illumination device heard from a few seconds ago: active."""
    device = sic_bo_device()
    heard(device, now=timezone.now() - timedelta(seconds=3))
    return fresh(device)


def act(client: Client, action: str, *devices: Any) -> Any:
    """Run a changelist action on `devices` (the first step of an intermediate page)."""
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [d.pk for d in devices], "index": 0},
        follow=True,
    )


def apply(client: Client, action: str, *devices: Any, **fields: Any) -> Any:
    """Fill in and send an action's intermediate page (fields without their prefix)."""
    data = {f"act-{name}": value for name, value in fields.items()}
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [d.pk for d in devices], "apply": "Apply", **data},
        follow=True,
    )


def said(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def events(device: Device) -> list[str]:
    return list(
        DeviceEvent.objects.filter(device=device)
        .order_by("at", "id")
        .values_list("kind", flat=True)
    )


def shown_secret(response: Any) -> tuple[str, str]:
    """The key id and secret on a secret page."""
    html = response.content.decode()
    key_id = re.search(r'class="device-key-id">([^<]+)<', html).group(1)
    secret = re.search(r'class="device-secret">([^<]+)<', html).group(1)
    return key_id, secret


def credential_audited(credential: DeviceCredential) -> bool:
    """A "changed" entry in the audit trail for the credential, by operations."""
    from django.contrib.contenttypes.models import ContentType

    from casino.models import AuditEntry

    return AuditEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(DeviceCredential),
        object_id=str(credential.pk),
        action=AuditEntry.Action.CHANGED,
        actor=operations(),
    ).exists()


def ago(html: str) -> list[int]:
    return [int(n) for n in re.findall(r"\((\d+) s ago", html)]


class FakeStore:
    """A heartbeat store that has heard what it is told (the Redis profile's view)."""

    def __init__(self, seen: dict[int, float] | None = None, down: bool = False) -> None:
        self._seen, self.down, self.kinds = seen or {}, down, []

    def seen(self, kind: str) -> dict[int, float]:
        self.kinds.append(kind)
        if self.down:
            raise heartbeat_store.StoreUnavailable("connection refused")
        return dict(self._seen)


# -- The list and a device's page ------------------------------------------------------


@pytest.mark.parametrize("user", [operations, compliance])
def test_both_roles_see_the_registry_with_the_live_last_heartbeat(client: Client, user: Any):
    login(client, user())
    device = active_device()
    quiet = register(device.table, "automated_shaker", now=recently()).device
    response = client.get(CHANGELIST)
    assert response.status_code == 200
    html = response.content.decode()
    assert device.serial_number in html and quiet.serial_number in html
    assert device.approval_reference in html and "Active" in html and "Registered" in html
    seen = timezone.localtime(fresh(device).last_seen_at).strftime("%Y-%m-%d %H:%M:%S")
    assert seen in html
    assert len(ago(html)) == 1 and 3 <= ago(html)[0] <= 10
    assert "never" in html  # the shaker was never heard from
    for query in ("status__exact=active", "kind__exact=illumination_device", "q=Acme"):
        assert client.get(f"{CHANGELIST}?{query}").status_code == 200, query
    assert client.get(f"{CHANGELIST}?table__id__exact={device.table_id}").status_code == 200


def test_the_last_heartbeat_is_read_from_the_store_not_the_row(ops_client: Client, monkeypatch):
    device = sic_bo_device()
    shaker = register(device.table, "automated_shaker", now=recently()).device
    assert fresh(device).last_seen_at is None  # nothing written back yet
    moment = timezone.now() - timedelta(seconds=42)
    store = FakeStore({device.pk: moment.timestamp()})
    monkeypatch.setattr(heartbeat_store, "store", lambda: store)
    html = ops_client.get(CHANGELIST).content.decode()
    assert timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") in html
    assert 42 <= ago(html)[0] <= 50
    assert sorted(store.kinds) == ["automated_shaker", "illumination_device"]  # once per kind
    page = ops_client.get(f"{CHANGELIST}{device.pk}/change/").content.decode()
    assert timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") in page
    assert shaker.pk not in store._seen


def test_an_unreachable_store_falls_back_to_the_row(ops_client: Client, monkeypatch):
    device = active_device()
    monkeypatch.setattr(heartbeat_store, "store", lambda: FakeStore(down=True))
    response = ops_client.get(CHANGELIST)
    assert response.status_code == 200
    html = response.content.decode()
    seen = timezone.localtime(fresh(device).last_seen_at).strftime("%Y-%m-%d %H:%M:%S")
    assert seen in html and "store unreachable, the row&#x27;s copy" in html


@pytest.mark.parametrize("user", [operations, compliance])
def test_a_devices_page_shows_credentials_and_history_never_a_secret(client: Client, user: Any):
    floor = compliant_table("sic_bo", now=recently(), with_devices=False)
    issued = register(floor.table, "illumination_device", now=recently())
    device = issued.device
    device_out_of_order(device, "lamp cracked", by=operations(), now=recently() + timedelta(1))
    login(client, user())
    response = client.get(f"{CHANGELIST}{device.pk}/change/")
    assert response.status_code == 200
    html = response.content.decode()
    assert issued.key_id in html
    assert issued.secret not in html and issued.credential.salt not in html
    history = html[html.index('id="events-group"') :]
    assert history.index("Marked out of order") < history.index("Credential issued")
    assert history.index("Credential issued") < history.index("Registered")
    assert "lamp cracked" in history
    assert "BGLO" in html or "Bureau of Gaming Laboratory Operations" in html
    assert 'name="_save"' not in html  # nothing edited here
    assert "every 2 s; stale after 3 missed" in html


def test_operations_sees_the_action_buttons_and_compliance_does_not(client: Client):
    device = active_device()
    url = f"{CHANGELIST}{device.pk}/change/"
    login(client, operations())
    html = client.get(url).content.decode()
    for label in ("Mark out of order", "Rotate the secret", "Revoke a credential", "Retire"):
        assert f'value="{label}"' in html, label
    assert 'value="Return to service"' not in html  # it is active
    changelist = client.get(CHANGELIST).content.decode()
    assert 'name="action"' in changelist and 'value="rotate_secret"' in changelist
    assert f'href="{CHANGELIST}add/"' in changelist
    login(client, compliance())
    html = client.get(url).content.decode()
    assert "device-actions" not in html and 'value="Retire"' not in html
    changelist = client.get(CHANGELIST).content.decode()
    assert 'name="action"' not in changelist
    assert f'href="{CHANGELIST}add/"' not in changelist


def test_nothing_is_changed_or_deleted_through_forms():
    request = RequestFactory().get("/admin/")
    request.user = get_user_model().objects.create_superuser("root", "", "x")
    for model in (Device, DeviceEvent):
        model_admin = admin.site._registry[model]
        assert model_admin.has_change_permission(request) is False, model
        assert model_admin.has_delete_permission(request) is False, model
    assert admin.site._registry[DeviceEvent].has_add_permission(request) is False
    assert admin.site._registry[Device].has_add_permission(request) is True  # registration


# -- Registration ------------------------------------------------------------------------


def registration(table: Any, **overrides: Any) -> dict[str, Any]:
    return {
        "table": table.pk,
        "kind": "illumination_device",
        "position": "",
        "manufacturer": "Lumen Tables",
        "serial_number": "LT-0042",
        "firmware": "3.1.4",
        "approval_reference": "BGLO-2026-117",
        "approved_at": APPROVED.isoformat(),
        **overrides,
    }


def test_registration_shows_the_secret_once_and_it_signs(ops_client: Client):
    table = compliant_table("sic_bo", now=recently(), with_devices=False).table
    page = ops_client.get(f"{CHANGELIST}add/")
    assert page.status_code == 200 and 'name="serial_number"' in page.content.decode()
    response = ops_client.post(f"{CHANGELIST}add/", registration(table))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    device = Device.objects.get(serial_number="LT-0042")
    assert device.status == Device.Status.REGISTERED and device.registered_by == operations()
    assert (device.table, device.firmware, device.approved_at) == (table, "3.1.4", APPROVED)
    key_id, secret = shown_secret(response)
    credential = DeviceCredential.objects.get(device=device)
    assert key_id == credential.key_id
    assert signing.secret_for(key_id, credential.salt) == secret
    html = response.content.decode()
    assert "will not be shown again" in html
    for header in signing.HEADERS:
        assert header in html
    assert events(device) == [Event.REGISTERED, Event.CREDENTIAL_ISSUED]
    assert all(secret not in message for message in said(response))
    # Shown once: nowhere else, not on the device's page nor in the list.
    assert secret not in ops_client.get(f"{CHANGELIST}{device.pk}/change/").content.decode()
    assert secret not in ops_client.get(CHANGELIST).content.decode()
    # And it is the device's: a heartbeat signed with it is accepted.
    auth._cache.clear()
    path = reverse("device-heartbeat")
    body = json.dumps({"device": device.pk}).encode()
    headers = signing.signed_headers(key_id, secret, "POST", path, body, time.time())
    beat = Client().post(path, body, content_type="application/json", headers=headers)
    assert beat.status_code == 204
    auth._cache.clear()


def test_a_refused_registration_shows_the_reasons_and_writes_nothing(ops_client: Client):
    table = compliant_table("sic_bo", now=recently(), with_devices=False).table
    data = registration(table, kind="extra_roll_device", approved_at="2099-01-01")
    response = ops_client.post(f"{CHANGELIST}add/", data)
    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert any("serves high_roll_dice, not" in e for e in errors), errors
    assert any("not ahead of time" in e for e in errors), errors
    assert any("one betting position" in e for e in errors), errors
    assert "Refused, for these reasons" in response.content.decode()
    assert not Device.objects.exists() and not DeviceCredential.objects.exists()
    # A second device of the same kind at the table: retire the first one first.
    register(table, "illumination_device", now=recently())
    response = ops_client.post(f"{CHANGELIST}add/", registration(table))
    assert any("retire it first" in e for e in response.context["form"].non_field_errors())
    assert Device.objects.count() == 1


def test_compliance_may_not_register(compliance_client: Client):
    table = compliant_table("sic_bo", now=recently(), with_devices=False).table
    assert compliance_client.get(f"{CHANGELIST}add/").status_code == 403
    assert compliance_client.post(f"{CHANGELIST}add/", registration(table)).status_code == 403
    assert not Device.objects.exists()


# -- The actions -------------------------------------------------------------------------


def test_mark_out_of_order_asks_why_then_records_it(ops_client: Client):
    device = active_device()
    page = act(ops_client, "mark_out_of_order", device)
    assert 'name="act-reason"' in page.content.decode()
    assert fresh(device).status == Device.Status.ACTIVE  # nothing yet
    response = apply(ops_client, "mark_out_of_order", device, reason="")
    assert response.context["form"].errors["reason"]
    assert fresh(device).status == Device.Status.ACTIVE
    response = apply(ops_client, "mark_out_of_order", device, reason="lamp cracked")
    assert said(response) == [f"{device} is out of order."]
    device = fresh(device)
    assert device.status == Device.Status.OUT_OF_ORDER
    assert device.out_of_order_reason == "lamp cracked"
    last = DeviceEvent.objects.filter(device=device).first()
    assert (last.kind, last.detail, last.by) == (Event.OUT_OF_ORDER, "lamp cracked", operations())


def test_return_to_service(ops_client: Client):
    device = active_device()
    device_out_of_order(device, "lamp cracked", by=operations(), now=timezone.now())
    html = ops_client.get(f"{CHANGELIST}{device.pk}/change/").content.decode()
    assert 'value="Return to service"' in html
    response = act(ops_client, "return_to_service", device)
    assert said(response) == [
        f"{device} is back in service: registered, active at its next heartbeat."
    ]
    device = fresh(device)
    assert device.status == Device.Status.REGISTERED and device.out_of_order_reason == ""
    assert events(device)[-1] == Event.RETURNED


def test_rotate_shows_the_new_secret_once_and_when_the_old_one_stops(ops_client: Client):
    device = active_device()
    old = device.credentials.get()
    page = act(ops_client, "rotate_secret", device)
    assert 'name="act-grace_seconds"' in page.content.decode()
    assert device.credentials.count() == 1  # nothing yet
    before = timezone.now()
    response = apply(ops_client, "rotate_secret", device, grace_seconds=60)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    key_id, secret = shown_secret(response)
    new = DeviceCredential.objects.get(key_id=key_id)
    assert new.device == device and new.issued_by == operations()
    assert signing.secret_for(key_id, new.salt) == secret
    old.refresh_from_db()
    assert before + timedelta(seconds=60) <= old.expires_at <= timezone.now() + timedelta(60)
    html = response.content.decode()
    stops = timezone.localtime(old.expires_at).strftime("%Y-%m-%d %H:%M:%S")
    assert old.key_id in html and f"keeps working until {stops}" in html
    assert "will not be shown again" in html
    assert events(device)[-1] == Event.CREDENTIAL_ISSUED
    assert all(secret not in message for message in said(response))


def test_rotate_is_one_device_at_a_time(ops_client: Client):
    device = active_device()
    other = register(device.table, "automated_shaker", now=recently()).device
    response = act(ops_client, "rotate_secret", device, other)
    assert said(response) == ["Select exactly one record to rotate its secret."]
    assert DeviceCredential.objects.count() == 2


def test_revoke_a_credential(ops_client: Client):
    device = active_device()
    credential = device.credentials.get()
    page = act(ops_client, "revoke_credential", device)
    assert credential.key_id in page.content.decode()
    response = apply(ops_client, "revoke_credential", device, credential=credential.pk)
    assert said(response) == [f"{credential.key_id} of {device} is revoked: it stops now."]
    credential.refresh_from_db()
    assert credential.revoked_at is not None and not credential.usable(timezone.now())
    last = DeviceEvent.objects.filter(device=device).first()
    assert (last.kind, last.detail) == (Event.CREDENTIAL_REVOKED, credential.key_id)
    assert credential_audited(credential)
    # None left to revoke: said so, nothing written.
    response = act(ops_client, "revoke_credential", device)
    assert said(response) == [f"{device} has no credential in use to revoke."]
    assert DeviceEvent.objects.filter(kind=Event.CREDENTIAL_REVOKED).count() == 1


def test_retire_asks_for_confirmation(ops_client: Client):
    device = active_device()
    page = act(ops_client, "retire", device)
    assert "Retiring is for good" in page.content.decode()
    assert fresh(device).status == Device.Status.ACTIVE  # not until confirmed
    response = apply(ops_client, "retire", device)
    assert said(response) == [f"{device} is retired; its credentials are revoked."]
    assert fresh(device).status == Device.Status.RETIRED
    assert not device.credentials.filter(revoked_at__isnull=True).exists()
    assert events(device)[-1] == Event.RETIRED
    html = ops_client.get(f"{CHANGELIST}{device.pk}/change/").content.decode()
    assert 'value="Retire"' not in html and 'value="Rotate the secret"' not in html


def test_a_refused_action_changes_nothing_and_says_why(ops_client: Client):
    device = active_device()
    before = events(device)
    response = act(ops_client, "return_to_service", device)
    assert said(response) == [f"Returning {device} refused: {device} is active"]
    assert fresh(device).status == Device.Status.ACTIVE and events(device) == before
    # A retired device gets no new secret.
    apply(ops_client, "retire", device)
    before = events(device)
    response = apply(ops_client, "rotate_secret", device, grace_seconds="")
    assert said(response) == [f"Rotating the secret of {device} refused: {device} is retired"]
    assert events(device) == before and device.credentials.count() == 1


def test_a_credential_revoked_meanwhile_is_no_longer_a_choice(ops_client: Client):
    device = active_device()
    credential_rotate(device, by=operations(), now=timezone.now())
    old = device.credentials.order_by("issued_at", "id").first()
    page = act(ops_client, "revoke_credential", device)  # the page is up...
    assert old.key_id in page.content.decode()
    credential_revoke(old, by=operations(), now=timezone.now())  # ...someone else revokes it
    response = apply(ops_client, "revoke_credential", device, credential=old.pk)
    assert response.context["form"].errors["credential"]
    assert DeviceEvent.objects.filter(kind=Event.CREDENTIAL_REVOKED).count() == 1


def test_marking_the_shaker_out_of_order_voids_the_round_and_links_it(ops_client: Client):
    table = compliant_table("sic_bo", now=recently(), automated_shaker=True, open_table=True).table
    round_ = round_open(table, by=operations(), now=timezone.now())
    shaker = Device.objects.get(table=table, kind="automated_shaker")
    assert shaker.status == Device.Status.ACTIVE
    response = apply(ops_client, "mark_out_of_order", shaker, reason="dice jammed")
    assert said(response) == [f"{shaker} is out of order."]
    round_.refresh_from_db()
    assert round_.status == Round.Status.RESULT_ENTERED  # void: every wager returned
    voided = DeviceEvent.objects.get(device=shaker, kind=Event.ROUND_VOIDED)
    assert voided.round == round_ and voided.cite
    link = f'href="/admin/games/round/{round_.pk}/change/"'
    assert link in ops_client.get(f"{CHANGELIST}{shaker.pk}/change/").content.decode()
    assert link in ops_client.get("/admin/devices/deviceevent/").content.decode()


@pytest.mark.parametrize(
    "action",
    ["mark_out_of_order", "return_to_service", "rotate_secret", "revoke_credential", "retire"],
)
def test_compliance_gets_403_on_every_action(compliance_client: Client, action: str):
    device = active_device()
    before = (
        events(device),
        list(device.credentials.values_list("pk", "expires_at", "revoked_at")),
    )
    response = compliance_client.post(
        CHANGELIST, {"action": action, "_selected_action": [device.pk], "index": 0}
    )
    assert response.status_code == 403
    response = compliance_client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [device.pk], "apply": "1", "act-reason": "x"},
    )
    assert response.status_code == 403
    after = (events(device), list(device.credentials.values_list("pk", "expires_at", "revoked_at")))
    assert after == before and fresh(device).status == Device.Status.ACTIVE


# -- Device events -----------------------------------------------------------------------


@pytest.mark.parametrize("user", [operations, compliance])
def test_device_events_are_listed_read_only(client: Client, user: Any):
    device = active_device()
    login(client, user())
    response = client.get("/admin/devices/deviceevent/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "First heartbeat: active" in html and "Credential issued" in html
    assert device.table.number in html
    for query in ("kind__exact=active", f"table__id__exact={device.table_id}", "q=Acme"):
        assert client.get(f"/admin/devices/deviceevent/?{query}").status_code == 200, query
    day = timezone.localtime(timezone.now())
    by_day = f"at__year={day.year}&at__month={day.month}&at__day={day.day}"
    assert client.get(f"/admin/devices/deviceevent/?{by_day}").status_code == 200
    event = DeviceEvent.objects.filter(device=device).first()
    page = client.get(f"/admin/devices/deviceevent/{event.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get("/admin/devices/deviceevent/add/").status_code == 403


def test_the_device_page_links_its_events(ops_client: Client):
    device = active_device()
    html = ops_client.get(f"{CHANGELIST}{device.pk}/change/").content.decode()
    assert f"/admin/devices/deviceevent/?device__id__exact={device.pk}" in html
    listed = ops_client.get(f"/admin/devices/deviceevent/?device__id__exact={device.pk}")
    assert listed.status_code == 200
    assert listed.context["cl"].result_count == DeviceEvent.objects.filter(device=device).count()


def test_an_extra_roll_device_is_registered_at_its_betting_position(ops_client: Client):
    table = compliant_table("high_roll_dice", now=recently(), with_devices=False).table
    data = registration(table, kind="extra_roll_device", position=2, serial_number="XR-2")
    response = ops_client.post(f"{CHANGELIST}add/", data)
    assert response.status_code == 200 and "device-secret" in response.content.decode()
    device = Device.objects.get(serial_number="XR-2")
    assert (device.kind, device.position) == ("extra_roll_device", 2)
    response = ops_client.post(
        f"{CHANGELIST}add/", registration(table, kind="extra_roll_lockout", position=1)
    )
    errors = response.context["form"].non_field_errors()
    assert any("serves the table, not a betting position" in e for e in errors), errors


@pytest.mark.integration
def test_the_live_last_heartbeat_comes_from_redis(ops_client: Client, settings):
    from tests.services import REDIS_URL, require_redis

    require_redis()
    settings.CASINO_DEVICE_STORE_URL = REDIS_URL
    settings.CASINO_DEVICE_STORE_PREFIX = f"test-devices-admin-{time.time_ns()}:"
    heartbeat_store.store.cache_clear()
    try:
        redis_store = heartbeat_store.store()
        assert isinstance(redis_store, heartbeat_store.RedisStore)
        device = sic_bo_device()
        moment = timezone.now() - timedelta(seconds=4)
        key_id = device.credentials.get().key_id
        assert redis_store.heartbeat(device.pk, device.kind, key_id, "n" * 16, moment.timestamp())
        assert fresh(device).last_seen_at is None  # not written back yet
        html = ops_client.get(CHANGELIST).content.decode()
        assert timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S") in html
        assert 4 <= ago(html)[0] <= 10
    finally:
        heartbeat_store.store().clear()
        heartbeat_store.store.cache_clear()


# -- Bugs found in files this admin does not own (strict xfail: fixed means it passes) --------


def test_retiring_while_the_store_is_down_still_reports_the_retirement(
    ops_client: Client, monkeypatch
):
    device = active_device()

    class DownStore(FakeStore):
        def forget(self, device_id: int, kind: str) -> None:
            raise heartbeat_store.StoreUnavailable("connection refused")

    down = DownStore(down=True)
    monkeypatch.setattr(heartbeat_store, "store", lambda: down)
    monkeypatch.setattr("devices.services.store", lambda: down)  # its own reference
    response = apply(ops_client, "retire", device)
    assert fresh(device).status == Device.Status.RETIRED  # committed either way
    assert said(response) == [f"{device} is retired; its credentials are revoked."]


def test_retiring_records_each_credential_revoked(ops_client: Client):
    device = active_device()
    credential = device.credentials.get()
    apply(ops_client, "retire", device)
    credential.refresh_from_db()
    assert credential.revoked_at is not None
    assert credential_audited(credential)
    assert Event.CREDENTIAL_REVOKED in events(device)


def test_an_approval_dated_tomorrow_in_pennsylvania_is_refused():
    from datetime import date

    from casino.services.errors import FloorRefused
    from tests.casino.floor_fixtures import at

    evening = at(2026, 3, 2, 21, 0)  # 9 pm in Pennsylvania: already 3 March in UTC
    table = compliant_table("sic_bo", now=evening - timedelta(hours=2), with_devices=False).table
    with pytest.raises(FloorRefused, match="not ahead of time"):
        device_register(
            table,
            kind="illumination_device",
            manufacturer="Lumen Tables",
            serial_number="LT-TOMORROW",
            firmware="1.0",
            approval_reference="BGLO-1",
            approved_at=date(2026, 3, 3),
            by=operations(),
            now=evening,
        )
