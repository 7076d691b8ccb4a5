"""Each role against each endpoint (issue 9): the permission matrix.

The endpoints are every operation of the committed schema docs/api/openapi.yaml, read
here with PyYAML, so an endpoint added to the API without a row below fails (its cases
fail, and so does `test_every_schema_operation_has_a_matrix_row_and_every_row_an_
operation`); plus the schema and its docs (served, not in the schema), the devices'
signed endpoints and the floor page.

The roles: nobody signed in; operations, compliance and a regulator signed in with a
session; an integrator with holder A's token, on holder A's records and on holder B's;
and a registered device signing its requests (devices/signing.py).

What each role may do comes from casino/roles.py and the services' own checks:
- a regulator reads everything and changes nothing (403 naming the permission);
- compliance reads, decides Rules Submissions and layouts, and records changeouts (the
  equipment schedule's row, issue 35), nothing else;
- operations reads and runs the floor (tables, rounds, changeouts, devices), but does not
  decide submissions or layouts;
- an integrator reads and runs its holder's floor; the audit trail is not its to read
  (403); any other holder's record is as if it did not exist (404);
- a device speaks only at /devices/v1/; on /api/v1/ it is nobody (401);
- the schema and its docs are public (drf-spectacular's SERVE_PERMISSIONS: AllowAny).

Every status an endpoint of the schema answers here is one the schema declares for it.

Each write is sent with an Idempotency-Key. An allowed one succeeds, or is refused by a
floor rule named in REFUSED (the void: SB-01 shakes its dice by hand); each refusal gets
the one error body, and leaves its ApiWrite. The floor is tests/api/conftest.py's.
"""

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings
from django.test import Client

from casino.models import ApiWrite, AuditEntry, SetInPlay, Table
from devices.models import Device, DeviceEvent
from games.models import LedgerEntry, LedgerLine, Resolution, Round, Wager
from tests.api.conftest import (
    API,
    ApiFloor,
    HolderFloor,
    bearer,
    device_request,
    error_of,
    new_key,
    post,
    session,
)

pytestmark = pytest.mark.django_db

SCHEMA = Path(settings.BASE_DIR) / "docs" / "api" / "openapi.yaml"
METHODS = ("get", "post", "put", "patch", "delete")


@functools.cache
def schema_operations() -> list[tuple[str, str]]:
    """Every (METHOD, path template) the committed schema documents."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when built with it
    paths = yaml.load(SCHEMA.read_text(), Loader=loader)["paths"]
    return sorted(
        (method.upper(), path) for path, ops in paths.items() for method in ops if method in METHODS
    )


@functools.cache
def declared_statuses() -> dict[tuple[str, str], set[int]]:
    """Every operation's statuses in the committed schema: each answer must be one of them."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    paths = yaml.load(SCHEMA.read_text(), Loader=loader)["paths"]
    return {
        (method.upper(), path): {int(status) for status in operation["responses"]}
        for path, ops in paths.items()
        for method, operation in ops.items()
        if method in METHODS
    }


ROLES = (
    "anonymous",
    "operations",
    "compliance",
    "regulator",
    "integrator",
    "integrator_on_b",
    "device",
)
STAFF = ("operations", "compliance", "regulator")


def statuses(**given: int) -> dict[str, int]:
    """A matrix row: every role's status, each named."""
    assert set(given) == set(ROLES), sorted(set(ROLES) ^ set(given))
    return given


# Reads: a list is scoped (holder A's token sees A's rows, whatever it asks for); one
# record of holder B is a 404 for A's token.
LIST = statuses(
    anonymous=401,
    operations=200,
    compliance=200,
    regulator=200,
    integrator=200,
    integrator_on_b=200,
    device=401,
)
ONE = {**LIST, "integrator_on_b": 404}
STAFF_ONLY_READ = {**LIST, "integrator": 403, "integrator_on_b": 403}
# The floor's actions: operations and the integrator on its own holder.
RUN = statuses(
    anonymous=401,
    operations=200,
    compliance=403,
    regulator=403,
    integrator=200,
    integrator_on_b=404,
    device=401,
)
RUN_CREATED = {**RUN, "operations": 201, "integrator": 201}
# A changeout, and a set put in play: the floor's, and compliance's from the schedule.
CHANGEOUT = {**RUN_CREATED, "compliance": 201}
# Compliance's decisions.
DECIDE = statuses(
    anonymous=401,
    operations=403,
    compliance=200,
    regulator=403,
    integrator=403,
    integrator_on_b=404,
    device=401,
)
PUBLIC = dict.fromkeys(ROLES, 200)
DEVICE_ONLY = {**dict.fromkeys(ROLES, 401), "device": 200}
FLOOR_PAGE = {**dict.fromkeys(ROLES, 302), **dict.fromkeys(STAFF, 200)}
FLOOR_DATA = {**dict.fromkeys(ROLES, 401), **dict.fromkeys(STAFF, 200)}

V = API
EXPECTED: dict[tuple[str, str], dict[str, int]] = {
    ("GET", f"{V}/api-writes/"): LIST,
    ("GET", f"{V}/api-writes/{{id}}/"): ONE,
    ("GET", f"{V}/audit-entries/"): STAFF_ONLY_READ,
    ("GET", f"{V}/audit-entries/{{id}}/"): STAFF_ONLY_READ,
    ("GET", f"{V}/certificate-holders/"): LIST,
    ("GET", f"{V}/certificate-holders/{{id}}/"): ONE,
    ("GET", f"{V}/device-events/"): LIST,
    ("GET", f"{V}/device-events/{{id}}/"): ONE,
    ("GET", f"{V}/devices/"): LIST,
    ("GET", f"{V}/devices/{{id}}/"): ONE,
    ("GET", f"{V}/devices/heartbeats/"): LIST,
    ("POST", f"{V}/devices/{{id}}/out-of-order/"): RUN,
    ("POST", f"{V}/devices/{{id}}/return-to-service/"): RUN,
    ("GET", f"{V}/equipment-sets/"): LIST,
    ("GET", f"{V}/equipment-sets/{{id}}/"): ONE,
    ("GET", f"{V}/equipment-sets/{{id}}/fairness/"): ONE,
    ("GET", f"{V}/equipment-sets/fairness/"): LIST,
    ("GET", f"{V}/floor/"): LIST,
    ("GET", f"{V}/hold/"): LIST,  # scoped: a token sees its holder's tables
    ("GET", f"{V}/layouts/"): LIST,
    ("GET", f"{V}/layouts/{{id}}/"): ONE,
    ("POST", f"{V}/layouts/{{id}}/approve/"): DECIDE,
    ("POST", f"{V}/layouts/{{id}}/reject/"): DECIDE,
    ("GET", f"{V}/ledger-entries/"): LIST,
    ("GET", f"{V}/ledger-entries/{{id}}/"): ONE,
    ("GET", f"{V}/ledger-lines/"): LIST,
    ("GET", f"{V}/ledger-lines/{{id}}/"): ONE,
    ("GET", f"{V}/par/{{game}}/"): LIST,  # a game's sheet: no holder's record
    ("GET", f"{V}/resolutions/"): LIST,
    ("GET", f"{V}/resolutions/{{id}}/"): ONE,
    ("GET", f"{V}/rounds/"): LIST,
    ("POST", f"{V}/rounds/"): RUN_CREATED,
    ("GET", f"{V}/rounds/{{id}}/"): ONE,
    ("POST", f"{V}/rounds/{{id}}/events/"): RUN,
    ("POST", f"{V}/rounds/{{id}}/no-more-bets/"): RUN,
    ("POST", f"{V}/rounds/{{id}}/no-roll/"): RUN,
    ("POST", f"{V}/rounds/{{id}}/result/"): RUN,
    # § 625a.7(c) voids a round when the automated shaker fails: SB-01 shakes by hand.
    ("POST", f"{V}/rounds/{{id}}/void/"): {**RUN, "operations": 422, "integrator": 422},
    ("POST", f"{V}/rounds/{{id}}/wagers/"): RUN_CREATED,
    ("GET", f"{V}/rules-submissions/"): LIST,
    ("GET", f"{V}/rules-submissions/{{id}}/"): ONE,
    ("POST", f"{V}/rules-submissions/{{id}}/approve/"): DECIDE,
    ("GET", f"{V}/rules-submissions/{{id}}/par/"): ONE,
    ("POST", f"{V}/rules-submissions/{{id}}/reject/"): DECIDE,
    ("GET", f"{V}/sets-in-play/"): LIST,
    ("GET", f"{V}/sets-in-play/{{id}}/"): ONE,
    ("GET", f"{V}/equipment-schedule/"): LIST,
    ("GET", f"{V}/tables/"): LIST,
    ("GET", f"{V}/tables/{{id}}/"): ONE,
    ("POST", f"{V}/tables/{{id}}/changeout/"): CHANGEOUT,
    ("POST", f"{V}/tables/{{id}}/close/"): RUN,
    ("GET", f"{V}/tables/{{id}}/compliance-report/"): ONE,
    ("GET", f"{V}/tables/{{id}}/hold/"): ONE,
    ("POST", f"{V}/tables/{{id}}/open/"): RUN,
    ("POST", f"{V}/tables/{{id}}/put-in-play/"): CHANGEOUT,
    ("POST", f"{V}/tables/{{id}}/suspend/"): RUN,
    ("GET", f"{V}/tables/{{id}}/wagers/"): ONE,  # the table's catalog
    ("GET", f"{V}/wagers/"): LIST,
    ("GET", f"{V}/wagers/{{id}}/"): ONE,
    # Webhooks: operations manage any holder's, an integrator its token's; compliance and a
    # regulator read them.
    ("GET", f"{V}/webhook-deliveries/"): LIST,
    ("GET", f"{V}/webhook-deliveries/{{id}}/"): ONE,
    ("POST", f"{V}/webhook-deliveries/{{id}}/send-again/"): RUN,
    ("GET", f"{V}/webhook-endpoints/"): LIST,
    ("POST", f"{V}/webhook-endpoints/"): RUN_CREATED,
    ("GET", f"{V}/webhook-endpoints/{{id}}/"): ONE,
    ("PATCH", f"{V}/webhook-endpoints/{{id}}/"): RUN,
    ("DELETE", f"{V}/webhook-endpoints/{{id}}/"): {**RUN, "operations": 204, "integrator": 204},
    ("POST", f"{V}/webhook-endpoints/{{id}}/rotate-secret/"): RUN,
    # Served beside the schema, not in it.
    ("GET", f"{V}/schema/"): PUBLIC,
    ("GET", f"{V}/docs/"): PUBLIC,
    # The devices' own endpoints: a signature or nothing (the heartbeat answers 204).
    ("POST", "/devices/v1/heartbeat"): {**DEVICE_ONLY, "device": 204},
    ("POST", "/devices/v1/condition"): DEVICE_ONLY,
    ("POST", "/devices/v1/report"): DEVICE_ONLY,
    # The floor page signs staff in through the admin; a token or a device is nobody there.
    ("GET", "/floor/"): FLOOR_PAGE,
    ("GET", "/floor/data.json"): FLOOR_DATA,
}
NOT_IN_SCHEMA = {
    ("GET", f"{V}/schema/"),
    ("GET", f"{V}/docs/"),
    ("POST", "/devices/v1/heartbeat"),
    ("POST", "/devices/v1/condition"),
    ("POST", "/devices/v1/report"),
    ("GET", "/floor/"),
    ("GET", "/floor/data.json"),
}

# What each refused write names (the service's permission check, casino/services).
NEEDS: dict[tuple[str, str], str] = {
    ("POST", f"{V}/devices/{{id}}/out-of-order/"): "devices.operate_device",
    ("POST", f"{V}/devices/{{id}}/return-to-service/"): "devices.operate_device",
    ("POST", f"{V}/layouts/{{id}}/approve/"): "casino.approve_layout",
    ("POST", f"{V}/layouts/{{id}}/reject/"): "casino.approve_layout",
    ("POST", f"{V}/rounds/"): "games.run_round",
    ("POST", f"{V}/rounds/{{id}}/events/"): "games.run_round",
    ("POST", f"{V}/rounds/{{id}}/no-more-bets/"): "games.run_round",
    ("POST", f"{V}/rounds/{{id}}/no-roll/"): "games.run_round",
    ("POST", f"{V}/rounds/{{id}}/result/"): "games.run_round",
    ("POST", f"{V}/rounds/{{id}}/void/"): "games.run_round",
    ("POST", f"{V}/rounds/{{id}}/wagers/"): "games.run_round",
    ("POST", f"{V}/rules-submissions/{{id}}/approve/"): "casino.approve_rulessubmission",
    ("POST", f"{V}/rules-submissions/{{id}}/reject/"): "casino.approve_rulessubmission",
    ("POST", f"{V}/tables/{{id}}/changeout/"): "casino.record_changeout",
    ("POST", f"{V}/tables/{{id}}/close/"): "casino.operate_table",
    ("POST", f"{V}/tables/{{id}}/open/"): "casino.operate_table",
    ("POST", f"{V}/tables/{{id}}/put-in-play/"): "casino.record_changeout",
    ("POST", f"{V}/tables/{{id}}/suspend/"): "casino.operate_table",
    ("POST", f"{V}/webhook-deliveries/{{id}}/send-again/"): "webhooks.change_delivery",
    ("POST", f"{V}/webhook-endpoints/"): "webhooks.add_endpoint",
    ("PATCH", f"{V}/webhook-endpoints/{{id}}/"): "webhooks.change_endpoint",
    ("DELETE", f"{V}/webhook-endpoints/{{id}}/"): "webhooks.delete_endpoint",
    ("POST", f"{V}/webhook-endpoints/{{id}}/rotate-secret/"): "webhooks.change_endpoint",
}

# Why a write an allowed role makes is refused by the floor's rules (422), exactly.
REFUSED: dict[tuple[str, str], list[str]] = {
    ("POST", f"{V}/rounds/{{id}}/void/"): [
        "Only an automated Sic Bo shaker can void a round by malfunctioning; this table uses a "
        "manual shaker (58 Pa. Code § 625a.7(c))"
    ],
}

# Requests that get a wrong answer today (none): the test says what they should get.
KNOWN_BUGS: dict[tuple[str, str, str], str] = {}

USERNAMES = {
    "operations": "olive_ops",
    "compliance": "carl_compliance",
    "regulator": "rita_regulator",
    "integrator": "ian_integrator",
    "integrator_on_b": "ian_integrator",
}


# --- what each endpoint is asked about --------------------------------------------------


@dataclass
class Targets:
    """The records a role's requests name: holder A's, or holder B's for A's token there."""

    holder: Any
    play: Table  # open, a round wagering
    idle: Table  # open, no round
    closed: Table  # compliant, closed
    bare: Table  # no dice in play
    round: Round
    wager: Wager
    resolution: Resolution
    ledger_entry: LedgerEntry
    ledger_line: LedgerLine
    submission: Any
    pending_submission: Any
    layout: Any
    pending_layout: Any
    reserve: Any
    in_play: SetInPlay
    device: Device  # active
    out_of_order: Device
    device_event: DeviceEvent
    api_write: ApiWrite
    audit_entry: AuditEntry
    webhook_endpoint: Any
    webhook_delivery: Any


def targets(f: ApiFloor, on_b: bool) -> Targets:
    h: HolderFloor = f.b if on_b else f.a
    wager = Wager.objects.get(round=h.round1)
    device = Device.objects.get(table=h.play, kind="illumination_device")
    return Targets(
        holder=h.holder,
        play=h.play,
        idle=h.play if on_b else f.idle,
        closed=h.play if on_b else f.closed,
        bare=h.play if on_b else f.bare,
        round=h.round2,
        wager=wager,
        resolution=Resolution.objects.get(wager=wager),
        ledger_entry=LedgerEntry.objects.get(key=f"settlement:{h.round1.pk}"),
        ledger_line=LedgerLine.objects.filter(entry__key=f"settlement:{h.round1.pk}").first(),
        submission=h.submission,
        pending_submission=h.submission if on_b else f.pending_submission,
        layout=h.layout,
        pending_layout=h.layout if on_b else f.pending_layout,
        reserve=h.reserve,
        in_play=h.in_play,
        device=device,
        out_of_order=device if on_b else f.out_of_order,
        device_event=DeviceEvent.objects.filter(device=device).order_by("id").first(),
        api_write=h.api_write,
        audit_entry=AuditEntry.objects.order_by("id").first(),
        webhook_endpoint=h.webhook_endpoint,
        webhook_delivery=h.webhook_delivery,
    )


Request = tuple[str, dict[str, Any] | None]  # the path, and the JSON body of a POST

# Per endpoint: the concrete path and body for these targets.
REQUESTS: dict[tuple[str, str], Callable[[Targets, ApiFloor], Request]] = {
    ("GET", f"{V}/api-writes/"): lambda t, f: (f"{V}/api-writes/", None),
    ("GET", f"{V}/api-writes/{{id}}/"): lambda t, f: (f"{V}/api-writes/{t.api_write.pk}/", None),
    ("GET", f"{V}/audit-entries/"): lambda t, f: (f"{V}/audit-entries/", None),
    ("GET", f"{V}/audit-entries/{{id}}/"): lambda t, f: (
        f"{V}/audit-entries/{t.audit_entry.pk}/",
        None,
    ),
    ("GET", f"{V}/certificate-holders/"): lambda t, f: (f"{V}/certificate-holders/", None),
    ("GET", f"{V}/certificate-holders/{{id}}/"): lambda t, f: (
        f"{V}/certificate-holders/{t.holder.pk}/",
        None,
    ),
    ("GET", f"{V}/device-events/"): lambda t, f: (f"{V}/device-events/", None),
    ("GET", f"{V}/device-events/{{id}}/"): lambda t, f: (
        f"{V}/device-events/{t.device_event.pk}/",
        None,
    ),
    ("GET", f"{V}/devices/"): lambda t, f: (f"{V}/devices/", None),
    ("GET", f"{V}/devices/{{id}}/"): lambda t, f: (f"{V}/devices/{t.device.pk}/", None),
    ("GET", f"{V}/devices/heartbeats/"): lambda t, f: (f"{V}/devices/heartbeats/", None),
    ("POST", f"{V}/devices/{{id}}/out-of-order/"): lambda t, f: (
        f"{V}/devices/{t.device.pk}/out-of-order/",
        {"reason": "the lamp under 4-5-6 is out"},
    ),
    ("POST", f"{V}/devices/{{id}}/return-to-service/"): lambda t, f: (
        f"{V}/devices/{t.out_of_order.pk}/return-to-service/",
        None,
    ),
    ("GET", f"{V}/equipment-sets/"): lambda t, f: (f"{V}/equipment-sets/", None),
    ("GET", f"{V}/equipment-sets/{{id}}/"): lambda t, f: (
        f"{V}/equipment-sets/{t.reserve.pk}/",
        None,
    ),
    ("GET", f"{V}/equipment-sets/{{id}}/fairness/"): lambda t, f: (
        f"{V}/equipment-sets/{t.reserve.pk}/fairness/",
        None,
    ),
    ("GET", f"{V}/equipment-sets/fairness/"): lambda t, f: (f"{V}/equipment-sets/fairness/", None),
    ("GET", f"{V}/floor/"): lambda t, f: (f"{V}/floor/", None),
    ("GET", f"{V}/hold/"): lambda t, f: (f"{V}/hold/", None),
    ("GET", f"{V}/layouts/"): lambda t, f: (f"{V}/layouts/", None),
    ("GET", f"{V}/layouts/{{id}}/"): lambda t, f: (f"{V}/layouts/{t.layout.pk}/", None),
    ("POST", f"{V}/layouts/{{id}}/approve/"): lambda t, f: (
        f"{V}/layouts/{t.pending_layout.pk}/approve/",
        None,
    ),
    ("POST", f"{V}/layouts/{{id}}/reject/"): lambda t, f: (
        f"{V}/layouts/{t.pending_layout.pk}/reject/",
        {"note": "the downs area is missing its markers"},
    ),
    ("GET", f"{V}/ledger-entries/"): lambda t, f: (f"{V}/ledger-entries/", None),
    ("GET", f"{V}/ledger-entries/{{id}}/"): lambda t, f: (
        f"{V}/ledger-entries/{t.ledger_entry.pk}/",
        None,
    ),
    ("GET", f"{V}/ledger-lines/"): lambda t, f: (f"{V}/ledger-lines/", None),
    ("GET", f"{V}/ledger-lines/{{id}}/"): lambda t, f: (
        f"{V}/ledger-lines/{t.ledger_line.pk}/",
        None,
    ),
    ("GET", f"{V}/par/{{game}}/"): lambda t, f: (f"{V}/par/sic_bo/", None),
    ("GET", f"{V}/resolutions/"): lambda t, f: (f"{V}/resolutions/", None),
    ("GET", f"{V}/resolutions/{{id}}/"): lambda t, f: (
        f"{V}/resolutions/{t.resolution.pk}/",
        None,
    ),
    ("GET", f"{V}/rounds/"): lambda t, f: (f"{V}/rounds/", None),
    ("POST", f"{V}/rounds/"): lambda t, f: (f"{V}/rounds/", {"table": t.idle.pk}),
    ("GET", f"{V}/rounds/{{id}}/"): lambda t, f: (f"{V}/rounds/{t.round.pk}/", None),
    ("POST", f"{V}/rounds/{{id}}/events/"): lambda t, f: (
        f"{V}/rounds/{t.round.pk}/events/",
        {"event": "wagers", "payload": [{"player": "cy", "kind": "big", "amount": "5.00"}]},
    ),
    ("POST", f"{V}/rounds/{{id}}/no-more-bets/"): lambda t, f: (
        f"{V}/rounds/{t.round.pk}/no-more-bets/",
        None,
    ),
    ("POST", f"{V}/rounds/{{id}}/no-roll/"): lambda t, f: (
        f"{V}/rounds/{t.round.pk}/no-roll/",
        None,
    ),
    ("POST", f"{V}/rounds/{{id}}/result/"): lambda t, f: (
        f"{V}/rounds/{t.round.pk}/result/",
        {"event": "throw", "payload": [2, 3, 4]},
    ),
    ("POST", f"{V}/rounds/{{id}}/void/"): lambda t, f: (
        f"{V}/rounds/{t.round.pk}/void/",
        {"section": "625a.7(c)"},
    ),
    ("POST", f"{V}/rounds/{{id}}/wagers/"): lambda t, f: (
        f"{V}/rounds/{t.round.pk}/wagers/",
        {"wagers": [{"player": "cy", "kind": "small", "amount": "10.00"}]},
    ),
    ("GET", f"{V}/rules-submissions/"): lambda t, f: (f"{V}/rules-submissions/", None),
    ("GET", f"{V}/rules-submissions/{{id}}/"): lambda t, f: (
        f"{V}/rules-submissions/{t.submission.pk}/",
        None,
    ),
    ("POST", f"{V}/rules-submissions/{{id}}/approve/"): lambda t, f: (
        f"{V}/rules-submissions/{t.pending_submission.pk}/approve/",
        {},
    ),
    ("GET", f"{V}/rules-submissions/{{id}}/par/"): lambda t, f: (
        f"{V}/rules-submissions/{t.submission.pk}/par/",
        None,
    ),
    ("POST", f"{V}/rules-submissions/{{id}}/reject/"): lambda t, f: (
        f"{V}/rules-submissions/{t.pending_submission.pk}/reject/",
        {"note": "the downs are not described"},
    ),
    ("GET", f"{V}/sets-in-play/"): lambda t, f: (f"{V}/sets-in-play/", None),
    ("GET", f"{V}/equipment-schedule/"): lambda t, f: (f"{V}/equipment-schedule/", None),
    ("GET", f"{V}/sets-in-play/{{id}}/"): lambda t, f: (f"{V}/sets-in-play/{t.in_play.pk}/", None),
    ("GET", f"{V}/tables/"): lambda t, f: (f"{V}/tables/", None),
    ("GET", f"{V}/tables/{{id}}/"): lambda t, f: (f"{V}/tables/{t.play.pk}/", None),
    ("POST", f"{V}/tables/{{id}}/changeout/"): lambda t, f: (
        f"{V}/tables/{t.play.pk}/changeout/",
        {"composition": "three_dice", "reason": "schedule", "new_set": t.reserve.pk},
    ),
    ("POST", f"{V}/tables/{{id}}/close/"): lambda t, f: (f"{V}/tables/{t.idle.pk}/close/", None),
    ("GET", f"{V}/tables/{{id}}/hold/"): lambda t, f: (f"{V}/tables/{t.play.pk}/hold/", None),
    ("GET", f"{V}/tables/{{id}}/wagers/"): lambda t, f: (f"{V}/tables/{t.play.pk}/wagers/", None),
    ("GET", f"{V}/tables/{{id}}/compliance-report/"): lambda t, f: (
        f"{V}/tables/{t.play.pk}/compliance-report/",
        None,
    ),
    ("POST", f"{V}/tables/{{id}}/open/"): lambda t, f: (f"{V}/tables/{t.closed.pk}/open/", None),
    ("POST", f"{V}/tables/{{id}}/put-in-play/"): lambda t, f: (
        f"{V}/tables/{t.bare.pk}/put-in-play/",
        {"equipment_set": t.reserve.pk},
    ),
    ("POST", f"{V}/tables/{{id}}/suspend/"): lambda t, f: (
        f"{V}/tables/{t.play.pk}/suspend/",
        None,
    ),
    ("GET", f"{V}/wagers/"): lambda t, f: (f"{V}/wagers/", None),
    ("GET", f"{V}/wagers/{{id}}/"): lambda t, f: (f"{V}/wagers/{t.wager.pk}/", None),
    ("GET", f"{V}/webhook-deliveries/"): lambda t, f: (f"{V}/webhook-deliveries/", None),
    ("GET", f"{V}/webhook-deliveries/{{id}}/"): lambda t, f: (
        f"{V}/webhook-deliveries/{t.webhook_delivery.pk}/",
        None,
    ),
    ("POST", f"{V}/webhook-deliveries/{{id}}/send-again/"): lambda t, f: (
        f"{V}/webhook-deliveries/{t.webhook_delivery.pk}/send-again/",
        None,
    ),
    ("GET", f"{V}/webhook-endpoints/"): lambda t, f: (f"{V}/webhook-endpoints/", None),
    ("POST", f"{V}/webhook-endpoints/"): lambda t, f: (
        f"{V}/webhook-endpoints/",
        {"holder": t.holder.pk, "url": "http://127.0.0.1:9/new", "events": ["round.settled"]},
    ),
    ("GET", f"{V}/webhook-endpoints/{{id}}/"): lambda t, f: (
        f"{V}/webhook-endpoints/{t.webhook_endpoint.pk}/",
        None,
    ),
    ("PATCH", f"{V}/webhook-endpoints/{{id}}/"): lambda t, f: (
        f"{V}/webhook-endpoints/{t.webhook_endpoint.pk}/",
        {"description": "the floor system's receiver"},
    ),
    ("DELETE", f"{V}/webhook-endpoints/{{id}}/"): lambda t, f: (
        f"{V}/webhook-endpoints/{t.webhook_endpoint.pk}/",
        None,
    ),
    ("POST", f"{V}/webhook-endpoints/{{id}}/rotate-secret/"): lambda t, f: (
        f"{V}/webhook-endpoints/{t.webhook_endpoint.pk}/rotate-secret/",
        None,
    ),
    ("GET", f"{V}/schema/"): lambda t, f: (f"{V}/schema/", None),
    ("GET", f"{V}/docs/"): lambda t, f: (f"{V}/docs/", None),
    ("POST", "/devices/v1/heartbeat"): lambda t, f: (
        "/devices/v1/heartbeat",
        {"device": f.shaker.device.pk},
    ),
    ("POST", "/devices/v1/condition"): lambda t, f: (
        "/devices/v1/condition",
        {"device": f.shaker.device.pk, "condition": "ok", "detail": "self test"},
    ),
    ("POST", "/devices/v1/report"): lambda t, f: (
        "/devices/v1/report",
        {"device": f.shaker.device.pk, "table": "SB-01", "round": 2, "dice": [1, 2, 3]},
    ),
    ("GET", "/floor/"): lambda t, f: ("/floor/", None),
    ("GET", "/floor/data.json"): lambda t, f: ("/floor/data.json", None),
}


def client_for(f: ApiFloor, role: str) -> Client:
    if role in STAFF:
        return session(getattr(f, role))
    if role in ("integrator", "integrator_on_b"):
        return bearer(f.a.key)
    return Client()


def send(f: ApiFloor, role: str, method: str, path: str, body: dict | None):
    """The request as the role makes it: a write with a fresh Idempotency-Key."""
    if role == "device":
        return device_request(Client(), f.shaker, method, path, body)
    client = client_for(f, role)
    if method == "GET":
        return client.get(path)
    key = new_key() if path.startswith(API) else None
    if method == "POST":
        return post(client, path, body, key=key)
    data = b"" if body is None else json.dumps(body)
    headers = {} if key is None else {"Idempotency-Key": key}
    return client.generic(method, path, data, content_type="application/json", headers=headers)


# --- the matrix -------------------------------------------------------------------------


def test_every_schema_operation_has_a_matrix_row_and_every_row_an_operation():
    documented = set(schema_operations())
    rows = set(EXPECTED) - NOT_IN_SCHEMA
    assert sorted(documented - rows) == [], "endpoints without a row in the permission matrix"
    assert sorted(rows - documented) == [], "matrix rows for endpoints the schema lacks"
    assert set(REQUESTS) == set(EXPECTED)


def cases() -> list[Any]:
    """(method, template, role) for every endpoint and role, a known bug marked xfail."""
    found = []
    for method, template in schema_operations() + sorted(NOT_IN_SCHEMA):
        for role in ROLES:
            bug = KNOWN_BUGS.get((method, template, role))
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            found.append(
                pytest.param(method, template, role, marks=marks, id=f"{method} {template} {role}")
            )
    return found


@pytest.mark.parametrize(("method", "template", "role"), cases())
def test_each_role_on_each_endpoint(api_floor, method, template, role):
    key = (method, template)
    assert key in EXPECTED, f"{method} {template} has no row in the permission matrix"
    expected = EXPECTED[key][role]
    t = targets(api_floor, on_b=role == "integrator_on_b")
    path, body = REQUESTS[key](t, api_floor)
    writes = ApiWrite.objects.count()

    response = send(api_floor, role, method, path, body)

    assert response.status_code == expected, (role, method, path, response.content[:1500])
    if key not in NOT_IN_SCHEMA:  # the schema declares what the endpoint answers
        assert expected in declared_statuses()[key], sorted(declared_statuses()[key])
    if path.startswith("/devices/v1/"):
        device_answer_check(response, expected, path, api_floor)
    elif path.startswith("/floor/"):
        floor_page_check(response, expected, path)
    else:
        api_answer_check(response, expected, role, key, path)
    # Every write a signed-in caller makes through the API is recorded, whatever its answer.
    recorded = method != "GET" and path.startswith(API) and expected != 401
    assert ApiWrite.objects.count() == writes + recorded
    if recorded:
        row = ApiWrite.objects.order_by("-id").first()
        assert (row.user.username, row.path, row.status_code) == (
            USERNAMES[role],
            path,
            expected,
        )
        assert row.token_id == (api_floor.a.token.pk if role.startswith("integrator") else None)


def api_answer_check(response, expected: int, role: str, key: tuple[str, str], path: str):
    if expected == 401:
        body = error_of(response, 401, "not_authenticated")
        assert body["detail"] == "Authentication credentials were not provided."
        assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    elif expected == 403:
        body = error_of(response, 403, "permission_denied")
        who = USERNAMES[role]
        if key[0] != "GET":
            assert body["detail"].startswith(f"{who} may not "), body
            assert body["detail"].endswith(f"(needs {NEEDS[key]})"), body
        else:
            assert body["detail"] == f"{who} may not read this (needs casino.view_auditentry)"
        assert body["reasons"] == [body["detail"]]
    elif expected == 404:
        body = error_of(response, 404, "not_found")
        assert body["detail"] == "Not found."
    elif expected == 422:
        body = error_of(response, 422, "refused")
        assert body["reasons"] == REFUSED[key]
    elif key == ("GET", f"{V}/docs/"):
        assert response["Content-Type"].startswith("text/html")
    elif key == ("GET", f"{V}/schema/"):
        assert yaml.safe_load(response.content)["info"]["title"] == "Casino floor API"
    elif expected == 204:  # a deletion: nothing to say
        assert response.content == b""
    else:
        assert expected in (200, 201), expected
        assert response["Content-Type"] == "application/json"
        assert isinstance(response.json(), dict)


def device_answer_check(response, expected: int, path: str, f: ApiFloor) -> None:
    if expected == 401:
        body = error_of(response, 401, "signature_refused")
        assert body["detail"] == "the X-Device-Key header is missing"
    elif path == "/devices/v1/heartbeat":
        assert response.content == b""
    elif path == "/devices/v1/condition":
        assert response.json() == {"device": f.shaker.device.pk, "status": "active"}
    else:  # the shaker's dice end B's round 2
        assert response.json() == {"round": "SB-01 round 2", "status": "result_entered"}
        assert Round.objects.get(pk=f.b.round2.pk).events.last().event == "throw"


def floor_page_check(response, expected: int, path: str) -> None:
    if expected == 302:
        assert response["Location"] == "/admin/login/?next=/floor/"
    elif expected == 401:
        assert response.json() == {"detail": "Sign in to the admin to see the floor."}
    elif path == "/floor/data.json":
        assert {t["number"] for t in response.json()["tables"]} == {
            "SB-01",
            "SB-02",
            "SB-03",
            "SB-04",
        }
    else:
        assert b"SB-04" in response.content


# --- what the allowed writes did ------------------------------------------------------------


def test_what_each_allowed_write_of_operations_did(api_floor):
    """The matrix's writes, one after another as operations: each one's change is made."""
    f = api_floor
    t = targets(f, on_b=False)
    ops = session(f.operations)

    def do(key: tuple[str, str]) -> dict[str, Any]:
        path, body = REQUESTS[key](t, f)
        response = post(ops, path, body, key=new_key())
        assert response.status_code in (200, 201), (path, response.content)
        return response.json()

    assert do(("POST", f"{V}/tables/{{id}}/open/"))["status"] == "open"
    assert do(("POST", f"{V}/tables/{{id}}/close/"))["status"] == "closed"
    put = do(("POST", f"{V}/tables/{{id}}/put-in-play/"))
    assert (put["table"], put["equipment_set"], put["removed_at"]) == (
        t.bare.pk,
        t.reserve.pk,
        None,
    )
    assert Table.objects.get(pk=t.idle.pk).closed_at is not None
    wagered = do(("POST", f"{V}/rounds/{{id}}/wagers/"))
    assert [(w["ref"], w["player"], w["kind"], w["amount"]) for w in wagered["wagers"]] == [
        ("2.2", "cy", "small", "10.00")
    ]
    evented = do(("POST", f"{V}/rounds/{{id}}/events/"))
    assert evented["status"] == "open"
    assert [(e["event"], e["payload"]) for e in evented["events"]][-1] == (
        "wagers",
        [{"id": "2.3", "player": "cy", "kind": "big", "amount": "5.00"}],
    )
    assert do(("POST", f"{V}/rounds/{{id}}/no-more-bets/"))["status"] == "closed"
    result = do(("POST", f"{V}/rounds/{{id}}/result/"))
    assert result["status"] == "result_entered"
    assert [(e["event"], e["payload"]) for e in result["events"]][-1] == ("throw", [2, 3, 4])
    assert do(("POST", f"{V}/tables/{{id}}/suspend/"))["status"] == "suspended"
    assert do(("POST", f"{V}/devices/{{id}}/return-to-service/"))["status"] == "registered"
    assert do(("POST", f"{V}/devices/{{id}}/out-of-order/"))["status"] == "out_of_order"


def test_what_compliance_decided(api_floor):
    f = api_floor
    comp = session(f.compliance)
    approved = post(comp, f"{V}/rules-submissions/{f.pending_submission.pk}/approve/", {})
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "approved"
    layout = post(comp, f"{V}/layouts/{f.pending_layout.pk}/reject/", {"note": "no downs area"})
    assert layout.status_code == 200, layout.content
    assert (layout.json()["status"], layout.json()["decision_note"]) == (
        "rejected",
        "no downs area",
    )


def test_a_round_opened_by_the_integrator_is_the_tables_first(api_floor):
    f = api_floor
    response = post(bearer(f.a.key), f"{V}/rounds/", {"table": f.idle.pk}, key=new_key())
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["table"], body["number"], body["status"], body["previous"]) == (
        f.idle.pk,
        1,
        "open",
        None,
    )
    assert body["opened_by"] == f.a.integrator.pk
    assert body["events"] == []


def test_a_list_for_holder_as_token_shows_only_its_holders_rows(api_floor):
    """The integrator asking for holder B's rows by filter gets none of them: B is refused
    as a holder that exists nowhere is (400 naming `holder`), not an empty page that says
    B exists."""
    f = api_floor
    client = bearer(f.a.key)
    tables = client.get(f"{V}/tables/", {"holder": f.b.holder.pk})
    nowhere = client.get(f"{V}/tables/", {"holder": 987654321})
    assert error_of(tables, 400, "invalid") == error_of(nowhere, 400, "invalid")
    mine = client.get(f"{V}/tables/").json()
    assert {row["holder"] for row in mine["results"]} == {f.a.holder.pk}
    assert mine["count"] == 4
    rounds = client.get(f"{V}/rounds/").json()
    assert {row["table"] for row in rounds["results"]} == {f.a.play.pk}
    audit = client.get(f"{V}/api-writes/").json()
    assert [row["id"] for row in audit["results"]] == [f.a.api_write.pk]
    holders = client.get(f"{V}/certificate-holders/").json()
    assert holders["results"] == [{"id": f.a.holder.pk, "name": "Keystone Test Casino"}]


def test_device_credentials_are_nobody_on_the_api_even_signed_for_the_path(api_floor):
    f = api_floor
    body = {"table": f.b.play.pk}
    response = device_request(Client(), f.shaker, "POST", f"{V}/rounds/", body)
    error_of(response, 401, "not_authenticated")
    assert not Round.objects.filter(table=f.b.play, number=3).exists()
    assert json.loads(response.content)["reasons"] == [
        "Authentication credentials were not provided."
    ]
