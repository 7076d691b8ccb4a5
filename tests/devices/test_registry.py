"""The device registry's services (devices/services.py): registering a device, its
credentials, the audit trail, retiring it.

Expected refusals are written out by hand from device_register's rules: a known kind;
manufacturer, serial number, firmware and approval named; an approval dated no later
than the day of registration; the kind's game at the table (an automated shaker only at
a table set up for one, the electronic Craps system only at a hybrid or electronic
table); an Extra Roll wagering device at a betting position 1..seats, every other kind at
the table; one device in service per kind and place; a manufacturer's serial number once.
"""

from datetime import date, datetime, timedelta
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied

from casino.models import AuditEntry, Table
from casino.services.errors import FloorRefused
from devices import signing
from devices.models import Device, DeviceCredential, DeviceEvent
from devices.services import credential_revoke, credential_rotate, device_register
from gaming.devices import device_out_of_order, device_retire
from tests.casino.floor_fixtures import T0, at, compliance, holder_get, operations, staff
from tests.devices.device_fixtures import beat, fresh, register

pytestmark = pytest.mark.django_db

APPROVED = date(2026, 1, 15)
BGLO = "tested and approved by the Bureau of Gaming Laboratory Operations (58 Pa. Code § 461a.4)"
EQUIPMENT = "approved as table game equipment (58 Pa. Code § 601a.10(a))"
ALL_KINDS = (
    "extra_roll_device, extra_roll_lockout, illumination_device, automated_shaker, "
    "pai_gow_rng, power_odds_rng, electronic_table"
)


def table_of(number: str, game: str, variant: str, **fields: Any) -> Table:
    table = Table(holder=holder_get(), number=number, game=game, variant=variant, **fields)
    table.full_clean()
    table.save()
    return table


@pytest.fixture
def tables() -> dict[str, Table]:
    return {
        "SB-01": table_of("SB-01", "sic_bo", "standard", automated_shaker=True),
        "SB-02": table_of("SB-02", "sic_bo", "standard"),
        "HR-01": table_of("HR-01", "high_roll_dice", "10_dice", seats=5),
        "CR-01": table_of("CR-01", "craps", "craps"),
        "CR-02": table_of("CR-02", "craps", "craps", operation="hybrid"),
        "PG-01": table_of("PG-01", "pai_gow", "standard"),
    }


def details(**over: Any) -> dict[str, Any]:
    """What operations types in to register the SB-01 shaker; `over` changes it."""
    values: dict[str, Any] = {
        "kind": "automated_shaker",
        "manufacturer": "Acme Gaming",
        "serial_number": "SH-1",
        "firmware": "1.0.0",
        "approval_reference": "BGLO-2026-001",
        "approved_at": APPROVED,
        "position": None,
        "by": operations(),
        "now": T0,
    }
    values.update(over)
    return values


def counts() -> tuple[int, ...]:
    return (
        Device.objects.count(),
        DeviceCredential.objects.count(),
        DeviceEvent.objects.count(),
        AuditEntry.objects.count(),
    )


def refusal(table: Table, **over: Any) -> list[str]:
    """The reasons device_register gives for `over`; nothing may be written."""
    before = counts()
    with pytest.raises(FloorRefused) as refused:
        device_register(table, **details(**over))
    assert refused.value.action == "Registering a device"
    assert counts() == before
    return refused.value.reasons


def audit(record: Any) -> list[AuditEntry]:
    kind = ContentType.objects.get_for_model(type(record))
    return list(
        AuditEntry.objects.filter(content_type=kind, object_id=str(record.pk)).order_by("id")
    )


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


# --- Refusals ---------------------------------------------------------------------------


def test_an_unknown_kind_is_refused(tables):
    assert refusal(tables["SB-01"], kind="toaster") == [
        f"unknown kind 'toaster'; choose one of: {ALL_KINDS}"
    ]


@pytest.mark.parametrize(
    ("field", "reason"),
    [
        ("manufacturer", "name the manufacturer"),
        ("serial_number", "name the serial number"),
        ("firmware", "name the firmware"),
        ("approval_reference", f"name the approval: an automated Sic Bo shaker must be {BGLO}"),
    ],
)
@pytest.mark.parametrize("blank", ["", "   "])
def test_each_blank_field_is_refused(tables, field, reason, blank):
    assert refusal(tables["SB-01"], **{field: blank}) == [reason]


def test_every_blank_field_is_named_at_once(tables):
    blank = {"manufacturer": "", "serial_number": " ", "firmware": "", "approval_reference": ""}
    assert refusal(tables["HR-01"], kind="extra_roll_lockout", **blank) == [
        "name the manufacturer",
        "name the serial number",
        "name the firmware",
        f"name the approval: an Extra Roll lock-out control must be {EQUIPMENT}",
    ]


@pytest.mark.parametrize("approved_at", [date(2026, 3, 3), date(2027, 1, 1), None])
def test_an_approval_not_yet_given_is_refused(tables, approved_at):
    # T0 is 2026-03-02 08:00 in Pennsylvania.
    assert refusal(tables["SB-01"], approved_at=approved_at) == [
        "the approval is recorded once given, not ahead of time"
    ]


def test_an_approval_given_today_is_taken(tables):
    issued = device_register(tables["SB-01"], **details(approved_at=date(2026, 3, 2)))
    assert issued.device.approved_at == date(2026, 3, 2)


def test_an_approval_dated_tomorrow_is_refused_late_in_the_evening(tables):
    evening = at(2026, 3, 2, 22, 0)  # 03:00 UTC on 3 March
    assert refusal(tables["SB-01"], approved_at=date(2026, 3, 3), now=evening) == [
        "the approval is recorded once given, not ahead of time"
    ]


@pytest.mark.parametrize(
    ("table", "kind", "reason"),
    [
        ("SB-01", "pai_gow_rng", "a Pai Gow random number generator serves pai_gow"),
        ("PG-01", "automated_shaker", "an automated Sic Bo shaker serves sic_bo"),
        ("CR-01", "illumination_device", "a Sic Bo illumination device serves sic_bo"),
        ("SB-01", "power_odds_rng", "a Power Odds random number generator serves craps"),
        ("PG-01", "extra_roll_lockout", "an Extra Roll lock-out control serves high_roll_dice"),
    ],
)
def test_a_kind_for_another_game_is_refused(tables, table, kind, reason):
    game = tables[table].game
    assert refusal(tables[table], kind=kind) == [f"{reason}, not {table}'s {game}"]


def test_an_automated_shaker_needs_a_table_set_up_for_one(tables):
    assert refusal(tables["SB-02"]) == [
        "SB-02 is not set up for an automated shaker (§ 625a.1(d)(2))"
    ]
    # The illumination device it needs is welcome.
    register(tables["SB-02"], "illumination_device", now=T0)


def test_the_electronic_craps_system_needs_a_hybrid_or_electronic_table(tables):
    assert refusal(tables["CR-01"], kind="electronic_table") == [
        "CR-01 is a manual table, not hybrid or electronic"
    ]
    register(tables["CR-02"], "electronic_table", now=T0)


@pytest.mark.parametrize("position", [None, 0, 6, 7, "1"])
def test_an_extra_roll_device_needs_a_betting_position_at_the_table(tables, position):
    # HR-01 has 5 betting positions.
    assert refusal(tables["HR-01"], kind="extra_roll_device", position=position) == [
        "an Extra Roll wagering device serves one betting position: 1 to 5 at HR-01"
    ]


@pytest.mark.parametrize("position", [1, 5])
def test_an_extra_roll_device_at_each_betting_position(tables, position):
    issued = register(tables["HR-01"], "extra_roll_device", now=T0, position=position)
    assert fresh(issued.device).position == position


@pytest.mark.parametrize(
    ("table", "kind", "label"),
    [
        ("HR-01", "extra_roll_lockout", "Extra Roll lock-out control"),
        ("SB-01", "automated_shaker", "automated Sic Bo shaker"),
    ],
)
def test_a_table_device_has_no_betting_position(tables, table, kind, label):
    assert refusal(tables[table], kind=kind, position=1) == [
        f"an {label} serves the table, not a betting position"
    ]


def test_a_second_device_of_a_kind_at_the_same_place_is_refused(tables):
    register(tables["SB-01"], "illumination_device", now=T0)
    register(tables["HR-01"], "extra_roll_device", now=T0, position=2)

    assert refusal(tables["SB-01"], kind="illumination_device", serial_number="IL-2") == [
        "SB-01 already has a Sic Bo illumination device: retire it first"
    ]
    assert refusal(tables["HR-01"], kind="extra_roll_device", position=2, serial_number="ER-2") == [
        "HR-01 already has an Extra Roll wagering device at position 2: retire it first"
    ]
    # Another position, another table: free.
    register(tables["HR-01"], "extra_roll_device", now=T0, position=3)
    register(tables["SB-02"], "illumination_device", now=T0)


@pytest.mark.parametrize("serial", ["SH-1", "  SH-1 "])
def test_a_serial_number_is_registered_once_per_manufacturer(tables, serial):
    device_register(tables["SB-01"], **details())
    assert refusal(tables["SB-02"], kind="illumination_device", serial_number=serial) == [
        "Acme Gaming serial SH-1 is already registered"
    ]
    # The same serial from another maker is another device.
    other = device_register(
        tables["SB-02"], **details(kind="illumination_device", manufacturer="Other Co")
    )
    assert other.device.serial_number == "SH-1"


def test_the_place_and_the_serial_are_both_named(tables):
    device_register(tables["SB-01"], **details())
    assert refusal(tables["SB-01"]) == [
        "SB-01 already has an automated Sic Bo shaker: retire it first",
        "Acme Gaming serial SH-1 is already registered",
    ]


# --- Who may ---------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["compliance", "no group", "nobody"])
def test_only_operations_may_register(tables, who):
    by = {"compliance": compliance, "no group": lambda: staff("nemo", None), "nobody": None}[who]
    before = counts()
    with pytest.raises(PermissionDenied, match="may not register a device"):
        device_register(tables["SB-01"], **details(by=by() if by else None))
    assert counts() == before


def test_a_device_may_not_register_another(tables):
    shaker = register(tables["SB-01"], "automated_shaker", now=T0).device
    with pytest.raises(PermissionDenied, match=r"needs devices\.add_device"):
        device_register(tables["SB-01"], **details(kind="illumination_device", by=shaker))


def test_operations_registers_a_device(tables):
    issued = device_register(tables["SB-01"], **details())
    device = fresh(issued.device)
    assert (device.kind, device.table, device.position) == (
        "automated_shaker",
        tables["SB-01"],
        None,
    )
    assert (device.manufacturer, device.serial_number, device.firmware) == (
        "Acme Gaming",
        "SH-1",
        "1.0.0",
    )
    assert (device.approval_reference, device.approved_at) == ("BGLO-2026-001", APPROVED)
    assert device.status == Device.Status.REGISTERED
    assert (device.status_changed_at, device.registered_at) == (T0, T0)
    assert device.registered_by == operations()
    assert (device.last_seen_at, device.stale_since) == (None, None)


def test_the_fields_are_stored_trimmed(tables):
    issued = device_register(
        tables["SB-01"],
        **details(manufacturer=" Acme Gaming ", serial_number=" SH-1\t", firmware=" 1.0.0 "),
    )
    device = fresh(issued.device)
    assert (device.manufacturer, device.serial_number, device.firmware) == (
        "Acme Gaming",
        "SH-1",
        "1.0.0",
    )


@pytest.mark.parametrize("who", ["compliance", "no group"])
def test_only_operations_may_rotate_revoke_or_retire(tables, who):
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    by = compliance() if who == "compliance" else staff("nemo", None)
    before = counts()
    with pytest.raises(PermissionDenied, match="rotate a device's secret"):
        credential_rotate(issued.device, by=by, now=T0)
    with pytest.raises(PermissionDenied, match="revoke a device credential"):
        credential_revoke(issued.credential, by=by, now=T0)
    with pytest.raises(PermissionDenied, match="retire a device"):
        device_retire(issued.device, by=by, now=T0)
    assert counts() == before


# --- The secret -------------------------------------------------------------------------


def test_the_secret_is_the_credentials_derived_secret_and_is_not_stored(tables):
    issued = device_register(tables["SB-01"], **details())
    credential = DeviceCredential.objects.get(device=issued.device)
    assert credential == issued.credential
    assert credential.key_id == issued.key_id
    assert signing.KEY_FORM.match(issued.key_id)
    assert issued.secret == signing.secret_for(credential.key_id, credential.salt)
    assert (credential.issued_at, credential.issued_by, credential.expires_at) == (
        T0,
        operations(),
        None,
    )
    assert credential.revoked_at is None
    assert credential.usable(T0)

    # A request signed with it checks out; with another credential's secret it does not.
    body = b'{"device": 1}'
    headers = signing.signed_headers(issued.key_id, issued.secret, "POST", "/p", body, 0)
    args = ("POST", "/p", headers[signing.TIMESTAMP], headers[signing.NONCE], body)
    signing.signature_check(
        signing.secret_for(credential.key_id, credential.salt),
        *args,
        headers[signing.SIGNATURE],
    )
    other = register(tables["SB-01"], "illumination_device", now=T0)
    assert other.secret != issued.secret
    with pytest.raises(signing.SignatureRefused):
        signing.signature_check(other.secret, *args, headers[signing.SIGNATURE])

    # Nowhere in the database: not in the credential's row, not in the audit trail.
    for row in DeviceCredential.objects.values():
        assert issued.secret not in str(row)
    for entry in AuditEntry.objects.values("before", "after", "object_repr"):
        assert issued.secret not in str(entry)


def test_a_rotation_issues_a_new_secret_and_ends_the_old_after_the_grace(tables):
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    later = T0 + timedelta(minutes=1)
    rotated = credential_rotate(issued.device, by=operations(), now=later, grace_seconds=60)
    old = DeviceCredential.objects.get(pk=issued.credential.pk)
    assert old.expires_at == later + timedelta(seconds=60)
    assert old.usable(later + timedelta(seconds=59))
    assert not old.usable(later + timedelta(seconds=60))
    assert rotated.key_id != issued.key_id and rotated.secret != issued.secret
    assert rotated.secret == signing.secret_for(rotated.key_id, rotated.credential.salt)
    assert rotated.credential.expires_at is None


# --- The audit trail --------------------------------------------------------------------


def test_registering_leaves_the_audit_trail_and_the_devices_events(tables):
    ops = operations()
    issued = device_register(tables["SB-01"], **details())
    device, credential = issued.device, issued.credential

    (created,) = audit(device)
    assert (created.action, created.actor, created.actor_name) == ("created", ops, "olive_ops")
    assert created.before is None
    assert created.after["serial_number"] == "SH-1"
    assert created.after["status"] == "registered"
    assert created.after["table_id"] == tables["SB-01"].pk
    assert created.after["registered_by_id"] == ops.pk

    (issued_entry,) = audit(credential)
    assert (issued_entry.action, issued_entry.actor) == ("created", ops)
    assert issued_entry.after["key_id"] == issued.key_id
    assert issued_entry.after["device_id"] == device.pk

    events = list(device.events.order_by("id").values_list("kind", "at", "by", "detail"))
    assert events == [
        ("registered", T0, ops.pk, BGLO),
        ("credential_issued", T0, ops.pk, issued.key_id),
    ]
    assert all(e.table_id == tables["SB-01"].pk for e in device.events.all())


def test_rotation_and_revocation_are_in_the_audit_trail(tables):
    ops = operations()
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    rotated = credential_rotate(issued.device, by=ops, now=T0 + timedelta(seconds=10))

    changed = audit(issued.credential)[-1]
    assert (changed.action, changed.actor, changed.before) == ("changed", ops, {"expires_at": None})
    assert moment(changed.after["expires_at"]) == T0 + timedelta(seconds=310)
    assert [e.action for e in audit(rotated.credential)] == ["created"]

    credential_revoke(rotated.credential, by=ops, now=T0 + timedelta(seconds=20))
    changed = audit(rotated.credential)[-1]
    assert (changed.action, changed.actor, changed.before) == ("changed", ops, {"revoked_at": None})
    assert moment(changed.after["revoked_at"]) == T0 + timedelta(seconds=20)
    assert list(issued.device.events.order_by("id").values_list("kind", "detail"))[-2:] == [
        ("credential_issued", rotated.key_id),
        ("credential_revoked", rotated.key_id),
    ]
    with pytest.raises(FloorRefused, match="it is already revoked"):
        credential_revoke(rotated.credential, by=ops, now=T0 + timedelta(seconds=30))


# --- Retirement -------------------------------------------------------------------------


def test_retiring_revokes_every_credential_and_frees_the_place(tables):
    ops = operations()
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    beat(issued.device, T0 + timedelta(seconds=1))
    rotated = credential_rotate(issued.device, by=ops, now=T0 + timedelta(seconds=2))
    retired_at = T0 + timedelta(seconds=5)

    device = device_retire(issued.device, by=ops, now=retired_at)

    assert device.status == fresh(device).status == Device.Status.RETIRED
    assert fresh(device).status_changed_at == retired_at
    assert sorted(device.credentials.values_list("key_id", "revoked_at")) == sorted(
        [(issued.key_id, retired_at), (rotated.key_id, retired_at)]
    )
    assert not any(c.usable(retired_at) for c in device.credentials.all())
    last = device.events.order_by("id").last()
    assert (last.kind, last.at, last.by) == ("retired", retired_at, ops)
    (changed,) = [e for e in audit(device) if e.action == "changed" and "status" in e.after]
    assert (changed.before["status"], changed.after["status"]) == ("registered", "retired")
    assert not device.has_perm("games.run_round")

    # The place is free for its replacement; the serial stays the retired device's.
    replacement = register(tables["SB-01"], "automated_shaker", now=retired_at, serial="SH-2")
    assert replacement.device.status == Device.Status.REGISTERED
    assert refusal(
        tables["SB-02"], kind="illumination_device", serial_number=device.serial_number
    ) == [f"Acme Gaming serial {device.serial_number} is already registered"]


def test_a_retired_device_stays_retired(tables):
    ops = operations()
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    device_retire(issued.device, by=ops, now=T0)
    with pytest.raises(FloorRefused, match="is retired"):
        device_retire(issued.device, by=ops, now=T0 + timedelta(seconds=1))
    with pytest.raises(FloorRefused, match="is retired"):
        credential_rotate(fresh(issued.device), by=ops, now=T0 + timedelta(seconds=1))
    with pytest.raises(FloorRefused, match="is retired"):
        device_out_of_order(issued.device, "gone", by=ops, now=T0 + timedelta(seconds=1))
    assert DeviceCredential.objects.filter(device=issued.device).count() == 1


def test_a_device_retired_meanwhile_gets_no_new_credential(tables):
    ops = operations()
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    read_before = Device.objects.get(pk=issued.device.pk)
    device_retire(issued.device, by=ops, now=T0)

    with pytest.raises(FloorRefused, match="is retired"):
        credential_rotate(read_before, by=ops, now=T0 + timedelta(seconds=1))
    assert DeviceCredential.objects.filter(device=issued.device, revoked_at=None).count() == 0


def test_retiring_leaves_each_revocation_in_the_audit_trail(tables):
    ops = operations()
    issued = register(tables["SB-01"], "automated_shaker", now=T0)
    retired_at = T0 + timedelta(seconds=5)
    device_retire(issued.device, by=ops, now=retired_at)

    changes = [e for e in audit(issued.credential) if e.action == "changed"]
    assert len(changes) == 1
    assert (changes[0].actor, changes[0].before) == (ops, {"revoked_at": None})
    assert moment(changes[0].after["revoked_at"]) == retired_at
