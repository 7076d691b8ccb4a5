"""Fixtures for the REST API's tests (issue 9).

`api_floor` is a floor of two certificate holders built once per test module through the
services (the tests' own writes roll back after each test), at moments just before the
wall clock: the API gives its services `timezone.now()`, so the floor must be in force
now, not at T0.

Holder A ("Keystone Test Casino"), Sic Bo tables played by hand:
    SB-01 "play"    open; round 1 settled (ann, small, $10.00 on 1-2-3: won), round 2
                    wagering open with bob's $10.00 on big
    SB-02 "idle"    open, no round yet
    SB-03 "closed"  every record in place, never opened
    SB-04 "bare"    no dice in play; its illumination device marked out of order
plus a set of dice in reserve, a Three Dice Football Rules Submission and layout submitted
and awaiting compliance, and an API token of the integrator ian_integrator.

Holder B ("Allegheny Test Casino"): SB-01 with an automated shaker, open, round 1 settled
from the shaker's dice, round 2 wagering open; a set in reserve; ivy_integrator's token.

Each holder has a webhook endpoint (on 127.0.0.1, where nothing listens: nothing is sent
in these tests) for round.settled and table.status_changed, with round 1's settlement
fanned out to it: one pending delivery.
B's shaker is the device that signs requests in these tests.

Staff sign in with a session (is_staff, so the floor page lets them in).

`one_table_build` is a smaller floor for tests that count rows or commit (the race of
test_idempotency.py): holder A's SB-01 open with round 1 wagering, no wager yet.
"""

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.test import Client, override_settings
from django.utils import timezone

from casino.models import (
    ApiToken,
    ApiWrite,
    CertificateHolder,
    EquipmentSet,
    Layout,
    RulesSubmission,
    SetInPlay,
    Table,
)
from casino.services.api_tokens import token_issue
from casino.services.equipment import set_put_in_play
from casino.services.layouts import layout_submit
from casino.services.submissions import submission_draft, submission_submit
from devices import auth as device_auth
from devices import signing
from devices.models import Device
from devices.services import Issued
from devices.store import store
from games.models import Round
from gaming.devices import device_out_of_order
from gaming.rounds import result_enter
from gaming.tables import table_open
from tests.casino.floor_fixtures import (
    FULL_LAYOUTS,
    layout_approved,
    location_approve,
    set_new,
    sic_bo_inspected,
    staff,
    submission_in_force,
)
from tests.devices.device_fixtures import heard, register
from tests.games.round_fixtures import close, opened, place, result, settle, wager
from webhooks.delivery import event_fan_out
from webhooks.events import ROUND_SETTLED
from webhooks.models import Delivery, Endpoint
from webhooks.payloads import event_body
from webhooks.services import endpoint_register, event_record

API = "/api/v1"
M = timedelta(minutes=1)
HOLDER_A = "Keystone Test Casino"
HOLDER_B = "Allegheny Test Casino"


# --- users and callers --------------------------------------------------------------------


def staff_user(name: str, group: str | None) -> Any:
    """A member of staff in `group` who may sign in to the admin (is_staff)."""
    user = staff(name, group)
    if not user.is_staff:
        get_user_model().objects.filter(pk=user.pk).update(is_staff=True)
    return get_user_model().objects.get(pk=user.pk)


def operations_user() -> Any:
    return staff_user("olive_ops", "operations")


def compliance_user() -> Any:
    return staff_user("carl_compliance", "compliance")


def regulator_user() -> Any:
    return staff_user("rita_regulator", "regulator")


def integrator_user(name: str = "ian_integrator") -> Any:
    """An integrator: no admin, it uses the API with a token."""
    return staff(name, "integrator")


def session(user: Any, **kwargs: Any) -> Client:
    """A test client signed in as `user` (a session, as the admin gives)."""
    client = Client(**kwargs)
    client.force_login(get_user_model().objects.get(pk=user.pk))  # the row's password hash
    return client


def bearer(key: str) -> Client:
    """A test client sending `Authorization: Bearer <key>` on every request."""
    return Client(headers={"Authorization": f"Bearer {key}"})


def new_key() -> str:
    """A fresh Idempotency-Key."""
    return str(uuid.uuid4())


def post(client: Client, path: str, body: Any = None, *, key: str | None = None, **headers: Any):
    """POST `body` as JSON (None: no body), with an Idempotency-Key when given."""
    if key is not None:
        headers["Idempotency-Key"] = key
    if body is None:  # no body at all (the test client's post() would send a multipart one)
        return client.generic("POST", path, headers=headers)
    return client.post(
        path, data=json.dumps(body), content_type="application/json", headers=headers
    )


def signed(issued: Issued, method: str, path: str, body: bytes = b"") -> dict[str, str]:
    """The four device headers for a request signed now by `issued`'s credential."""
    return signing.signed_headers(
        issued.key_id, issued.secret, method, path, body, timezone.now().timestamp()
    )


def device_request(client: Client, issued: Issued, method: str, path: str, body: Any = None):
    """A request signed as the device would sign it (JSON body for a POST)."""
    data = b"" if body is None else json.dumps(body).encode()
    headers = signed(issued, method, path, data)
    if method == "GET":
        return client.get(path, headers=headers)
    return client.generic(method, path, data=data, content_type="application/json", headers=headers)


ERROR_KEYS = {"status", "code", "detail", "reasons", "fields"}


def error_of(response, status: int, code: str) -> dict[str, Any]:
    """The one error body, with this status and code; returned for more checks."""
    assert response.status_code == status, (response.status_code, response.content[:2000])
    body = response.json()
    assert set(body) == ERROR_KEYS, body
    assert body["status"] == status
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["reasons"], list)
    assert isinstance(body["fields"], dict)
    return body


# --- the floor ------------------------------------------------------------------------------


@dataclass
class HolderFloor:
    """One certificate holder's records."""

    holder: CertificateHolder
    submission: RulesSubmission
    layout: Layout
    play: Table
    round1: Round
    round2: Round
    reserve: EquipmentSet
    integrator: Any
    token: ApiToken
    key: str
    api_write: ApiWrite
    webhook_endpoint: Endpoint
    webhook_delivery: Delivery
    devices: dict[str, Issued] = field(default_factory=dict)

    @property
    def in_play(self) -> SetInPlay:
        return SetInPlay.objects.get(table=self.play, removed_at__isnull=True)


@dataclass
class ApiFloor:
    """Both holders, A's other tables and pending decisions, and the staff."""

    at: datetime
    a: HolderFloor
    b: HolderFloor
    idle: Table
    closed: Table
    bare: Table
    out_of_order: Device
    pending_submission: RulesSubmission
    pending_layout: Layout
    operations: Any
    compliance: Any
    regulator: Any

    @property
    def shaker(self) -> Issued:
        """B's automated shaker: the device that signs requests in these tests."""
        return self.b.devices["automated_shaker"]


def sic_bo_table(
    holder: CertificateHolder,
    number: str,
    *,
    layout: Layout,
    now: datetime,
    automated_shaker: bool = False,
    with_sets: bool = True,
    open_table: bool = True,
) -> tuple[Table, dict[str, Issued]]:
    """A Sic Bo table of `holder` with what opening asks (compliant_table, for any holder):
    the box locations approved, three dice in play, the opening inspection, its devices
    registered and heard from; opened when asked."""
    table = Table.objects.create(
        holder=holder,
        number=number,
        game="sic_bo",
        variant="standard",
        min_wager=Decimal("5"),
        max_wager=Decimal("500"),
        automated_shaker=automated_shaker,
        layout=layout,
    )
    table.full_clean()
    location_approve(
        table,
        now=now - timedelta(hours=1),
        shaker_location="left of the dealer" if automated_shaker else "",
    )
    if with_sets:
        dice = set_new(holder, f"{number}-three_dice-1", "three_dice", now=now)
        set_put_in_play(table, dice, by=operations_user(), now=now)
    sic_bo_inspected(table, now=now)
    kinds = ["illumination_device"] + (["automated_shaker"] if automated_shaker else [])
    issued = {kind: register(table, kind, now=now) for kind in kinds}
    heard(*(i.device for i in issued.values()), now=now)
    if open_table:
        table_open(table, by=operations_user(), now=now)
    table.refresh_from_db()
    return table, issued


def holder_floor(name: str, integrator: str, *, now: datetime, automated_shaker: bool):
    """A holder with its Sic Bo rules in force, a layout, an open table with a settled round
    and one wagering open, a set in reserve and an integrator's token."""
    holder = CertificateHolder.objects.create(name=name)
    submission = submission_in_force(
        holder, "sic_bo", now=now - timedelta(hours=1), variants=["standard"]
    )
    layout = layout_approved(holder, "sic_bo", "standard", now=now - timedelta(hours=1))
    play, devices = sic_bo_table(
        holder, "SB-01", layout=layout, now=now, automated_shaker=automated_shaker
    )
    round1 = opened(play, now=now + M)
    place(round1, wager("ann", "small", "10.00"), now=now + 2 * M)
    if automated_shaker:  # the dice come from the shaker (§ 625a.7(d))
        shaker = Device.objects.get(pk=devices["automated_shaker"].device.pk)
        result_enter(round1, "throw", [1, 2, 3], by=shaker, now=now + 3 * M)
    else:
        result(close(round1, now=now + 3 * M), "throw", [1, 2, 3], now=now + 3 * M)
    assert settle(round1, now=now + 4 * M) == "settled"
    round2 = opened(play, now=now + 5 * M)
    place(round2, wager("bob", "big", "10.00"), now=now + 6 * M)
    reserve = set_new(holder, "RESERVE-1", "three_dice", now=now)
    user = integrator_user(integrator)
    token, key = token_issue(
        user=user, holder=holder, name="floor system", by=operations_user(), now=now
    )
    api_write = ApiWrite.objects.create(
        at=now + 7 * M,
        user=user,
        token=token,
        method="POST",
        path=f"{API}/tables/{play.pk}/suspend/",
        body={},
        fingerprint="0" * 64,
        status_code=200,
        response={},
    )
    endpoint, _ = endpoint_register(
        holder=holder,
        url="http://127.0.0.1:9/hooks",
        events=["round.settled", "table.status_changed"],
        by=operations_user(),
        now=now + 7 * M,
    )
    event = event_record(ROUND_SETTLED, table=play, data={"round": round1.pk}, now=now + 7 * M)
    event_fan_out(event.pk, body_of=event_body, now=now + 7 * M)
    return HolderFloor(
        holder=holder,
        submission=submission,
        layout=layout,
        play=play,
        round1=Round.objects.get(pk=round1.pk),
        round2=Round.objects.get(pk=round2.pk),
        reserve=reserve,
        integrator=user,
        token=token,
        key=key,
        api_write=api_write,
        webhook_endpoint=endpoint,
        webhook_delivery=Delivery.objects.get(event=event),
        devices=devices,
    )


def floor_build() -> ApiFloor:
    """The floor of this module's docstring, its history 20 to 12 minutes ago."""
    now = timezone.now().replace(microsecond=0) - 20 * M
    ops, comp, reg = operations_user(), compliance_user(), regulator_user()
    a = holder_floor(HOLDER_A, "ian_integrator", now=now, automated_shaker=False)
    b = holder_floor(HOLDER_B, "ivy_integrator", now=now, automated_shaker=True)
    idle, _ = sic_bo_table(a.holder, "SB-02", layout=a.layout, now=now)
    closed, _ = sic_bo_table(a.holder, "SB-03", layout=a.layout, now=now, open_table=False)
    bare, bare_devices = sic_bo_table(
        a.holder, "SB-04", layout=a.layout, now=now, with_sets=False, open_table=False
    )
    out_of_order = device_out_of_order(
        bare_devices["illumination_device"].device, "lamp out", by=ops, now=now + 8 * M
    )
    # Three Dice Football: its PAR sheet, computed when submitted, is quick (Craps' is not).
    pending = submission_draft(
        a.holder,
        "three_dice_football",
        variants=["standard"],
        table_types=["manual"],
        options={},
        by=ops,
        now=now,
    )
    submission_submit(pending, by=ops, now=now)
    layout = Layout.objects.create(
        holder=a.holder,
        name="Three Dice Football layout awaiting the Bureau",
        game="three_dice_football",
        variant="standard",
        elements=FULL_LAYOUTS[("three_dice_football", "standard")],
        created_at=now,
        created_by=ops,
    )
    layout_submit(layout, by=ops, now=now)
    return ApiFloor(
        at=now,
        a=a,
        b=b,
        idle=idle,
        closed=closed,
        bare=bare,
        out_of_order=out_of_order,
        pending_submission=RulesSubmission.objects.get(pk=pending.pk),
        pending_layout=Layout.objects.get(pk=layout.pk),
        operations=ops,
        compliance=comp,
        regulator=reg,
    )


@dataclass
class OneTable:
    """One holder's open Sic Bo table with a round wagering open and no wager yet."""

    at: datetime
    holder: CertificateHolder
    table: Table
    round: Round
    integrator: Any
    token: ApiToken
    key: str
    operations: Any


def one_table_build() -> OneTable:
    """Holder A, SB-01 open by hand-shaken dice, round 1 just opened, ian's token."""
    now = timezone.now().replace(microsecond=0) - 10 * M
    ops = operations_user()
    holder = CertificateHolder.objects.create(name=HOLDER_A)
    submission_in_force(holder, "sic_bo", now=now - timedelta(hours=1), variants=["standard"])
    layout = layout_approved(holder, "sic_bo", "standard", now=now - timedelta(hours=1))
    table, _ = sic_bo_table(holder, "SB-01", layout=layout, now=now)
    round_ = opened(table, now=now + M)
    user = integrator_user()
    token, key = token_issue(user=user, holder=holder, name="floor system", by=ops, now=now)
    return OneTable(now, holder, table, round_, user, token, key, ops)


@pytest.fixture(scope="module")
def device_store_database() -> Iterator[None]:
    """Heartbeats and nonces in the database store (rolled back with each test)."""
    with override_settings(CASINO_DEVICE_STORE_URL="database"):
        store.cache_clear()
        device_auth._cache.clear()
        yield
    store.cache_clear()
    device_auth._cache.clear()


@pytest.fixture(scope="module")
def api_floor(django_db_setup, django_db_blocker, device_store_database) -> Iterator[ApiFloor]:
    """The floor, built once per module in a transaction rolled back after its last test
    (each test runs in a savepoint inside it, rolled back after the test)."""
    with django_db_blocker.unblock(), transaction.atomic():
        built = floor_build()
        yield built
        transaction.set_rollback(True)


@pytest.fixture(autouse=True)
def fresh_device_credentials() -> Iterator[None]:
    """The devices' per-process credential cache empty around every test."""
    device_auth._cache.clear()
    yield
    device_auth._cache.clear()


@pytest.fixture
def empty_cache() -> Iterator[None]:
    """The default cache (the failed sign-in counts) emptied before and after the test."""
    cache.clear()
    yield
    cache.clear()
