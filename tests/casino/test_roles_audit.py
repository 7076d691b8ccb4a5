"""The roles (operations, compliance) and the audit trail (issue 6 item 6).

Only compliance approves or rejects; operations runs the floor; a user in no group can do
nothing. Every change to a compliance record leaves an AuditEntry naming who made it:
the service's `by`, else the user of `acting_as` or of the web request, else "system".
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Group
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.test import RequestFactory

from casino.actors import acting_as
from casino.audit import AUDITED, AuditActorMiddleware
from casino.models import (
    ApiToken,
    AuditEntry,
    CertificateHolder,
    Layout,
    LocationApproval,
    RulesSubmission,
    SicBoOpeningInspection,
    StatisticsThresholds,
    Table,
    TileInspection,
)
from casino.services.equipment import (
    schedule_check,
    set_changeout,
    set_put_in_play,
    sets_in_play,
    tile_inspection_record,
)
from casino.services.layouts import layout_decide, layout_submit
from casino.services.submissions import (
    submission_approve,
    submission_draft,
    submission_reject,
    submission_submit,
)
from casino.services.tables import location_approval_record, table_suspend
from gaming.tables import sic_bo_inspection_record, table_close, table_open
from tests.casino.floor_fixtures import (
    DEALER,
    FLOORPERSON,
    FULL_LAYOUTS,
    NY,
    T0,
    compliance,
    compliant_table,
    holder_get,
    operations,
    set_new,
    staff,
)

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)


def entries(record) -> list[AuditEntry]:
    """The record's audit trail, oldest first."""
    kind = ContentType.objects.get_for_model(type(record))
    return list(
        AuditEntry.objects.filter(content_type=kind, object_id=str(record.pk)).order_by("id")
    )


def perms(group: str) -> set[str]:
    return {
        f"{p.content_type.app_label}.{p.codename}"
        for p in Group.objects.get(name=group).permissions.all()
    }


# --- the groups -----------------------------------------------------------------------

VIEWS = {
    f"casino.view_{m}"
    for m in (
        "certificateholder",
        "rulessubmission",
        "layout",
        "table",
        "locationapproval",
        "equipmentset",
        "setinplay",
        "tileinspection",
        "sicboopeninginspection",
        "auditentry",
        "apiwrite",
        "statisticsthresholds",
    )
} | {"casino.view_compliance_report"}
# The alert thresholds of hold and dice fairness: operations and compliance set them.
THRESHOLDS = {"casino.add_statisticsthresholds", "casino.change_statisticsthresholds"}
ROUND_VIEWS = {
    f"games.view_{m}"
    for m in (
        "round",
        "roundevent",
        "wager",
        "resolution",
        "ledgerentry",
        "ledgerline",
        "settlementrequest",
    )
}

DEVICE_VIEWS = {f"devices.view_{m}" for m in ("device", "devicecredential", "deviceevent")}
WEBHOOK_VIEWS = {"webhooks.view_endpoint", "webhooks.view_delivery"}
# Register, change and delete webhook endpoints, send a delivery again: operations for any
# holder, an integrator for its token's (docs/api.md, Webhooks).
WEBHOOKS = WEBHOOK_VIEWS | {
    "webhooks.add_endpoint",
    "webhooks.change_endpoint",
    "webhooks.delete_endpoint",
    "webhooks.change_delivery",
}


def test_the_operations_group_runs_the_floor_and_files_but_never_approves():
    assert perms("operations") == VIEWS | ROUND_VIEWS | DEVICE_VIEWS | {
        "games.run_round",
        "devices.add_device",
        "devices.operate_device",
        "casino.add_table",
        "casino.change_table",
        "casino.operate_table",
        "casino.add_equipmentset",
        "casino.change_equipmentset",
        "casino.record_changeout",
        "casino.record_inspection",
        "casino.add_rulessubmission",
        "casino.change_rulessubmission",
        "casino.submit_rulessubmission",
        "casino.add_layout",
        "casino.change_layout",
        "casino.submit_layout",
        "casino.add_apitoken",
        "casino.view_apitoken",
        "casino.change_apitoken",
        *THRESHOLDS,
        *WEBHOOKS,
    }


def test_the_compliance_group_approves_and_records_box_locations():
    assert perms("compliance") == VIEWS | ROUND_VIEWS | DEVICE_VIEWS | WEBHOOK_VIEWS | {
        "games.adjust_ledger",
        "casino.add_rulessubmission",
        "casino.change_rulessubmission",
        "casino.submit_rulessubmission",
        "casino.approve_rulessubmission",
        "casino.approve_layout",
        "casino.add_locationapproval",
        "casino.record_locationapproval",
        *THRESHOLDS,
        "casino.record_changeout",  # from the equipment schedule's row (issue 35)
    }


def test_the_integrator_group_drives_the_floor_and_decides_nothing():
    assert perms("integrator") == {
        "casino.view_certificateholder",
        "casino.view_rulessubmission",
        "casino.view_layout",
        "casino.view_table",
        "casino.view_equipmentset",
        "casino.view_setinplay",
        "casino.view_apiwrite",
        "casino.view_compliance_report",
        *ROUND_VIEWS,
        "devices.view_device",
        "devices.view_deviceevent",
        "games.run_round",
        "casino.operate_table",
        "casino.record_changeout",
        "devices.operate_device",
        *WEBHOOKS,
    }


def test_the_regulator_group_reads_everything_and_changes_nothing():
    assert perms("regulator") == VIEWS | ROUND_VIEWS | DEVICE_VIEWS | WEBHOOK_VIEWS


def test_nobody_may_edit_or_delete_the_audit_trail():
    for group in ("operations", "compliance", "integrator", "regulator"):
        assert {"casino.change_auditentry", "casino.delete_auditentry"} & perms(group) == set()
        assert "casino.add_auditentry" not in perms(group)


# --- permissions at each service ------------------------------------------------------


def submitted() -> RulesSubmission:
    rs = submission_draft(
        holder_get(),
        "sic_bo",
        variants=["standard"],
        table_types=["manual"],
        options={},
        by=operations(),
        now=T0,
    )
    return submission_submit(rs, by=operations(), now=T0)


def denied(call, *args, **kwargs) -> str:
    """PermissionDenied's message; the audit trail must not have grown."""
    count = AuditEntry.objects.count()
    with pytest.raises(PermissionDenied) as error:
        call(*args, **kwargs)
    assert AuditEntry.objects.count() == count
    return str(error.value)


def test_operations_cannot_approve_or_reject_and_nothing_changes():
    rs = submitted()
    ops = operations()
    assert denied(submission_approve, rs, by=ops, now=T0 + H) == (
        "olive_ops may not approve a Rules Submission (needs casino.approve_rulessubmission)"
    )
    assert denied(submission_reject, rs, by=ops, now=T0 + H, reason="no") == (
        "olive_ops may not reject a Rules Submission (needs casino.approve_rulessubmission)"
    )
    rs.refresh_from_db()
    assert (rs.status, rs.decided_at, rs.decided_by, rs.effective_at) == (
        "submitted",
        None,
        None,
        None,
    )
    assert RulesSubmission.in_force(holder_get(), "sic_bo", T0 + 2 * H) is None


def test_compliance_approves():
    rs = submitted()
    submission_approve(rs, by=compliance(), now=T0 + H)
    rs.refresh_from_db()
    assert (rs.status, rs.decided_by) == ("approved", compliance())


def test_operations_cannot_approve_a_layout_compliance_can():
    holder = holder_get()
    layout = Layout.objects.create(
        holder=holder,
        name="TD cloth",
        game="three_dice_football",
        variant="standard",
        elements=FULL_LAYOUTS[("three_dice_football", "standard")],
        created_at=T0,
    )
    assert denied(layout_submit, layout, by=compliance(), now=T0) == (
        "carl_compliance may not submit a layout (needs casino.submit_layout)"
    )
    layout_submit(layout, by=operations(), now=T0)
    assert denied(layout_decide, layout, approve=True, by=operations(), now=T0) == (
        "olive_ops may not approve or reject a layout (needs casino.approve_layout)"
    )
    layout.refresh_from_db()
    assert layout.status == "submitted"
    layout_decide(layout, approve=True, by=compliance(), now=T0, note="BGO-7")
    layout.refresh_from_db()
    assert layout.status == "approved"


def test_compliance_does_not_run_the_floor_but_records_changeouts():
    floor = compliant_table("craps")
    comp = compliance()
    spare = set_new(floor.holder, "CR-dice-2", "five_dice", now=T0)
    assert denied(table_open, floor.table, by=comp, now=T0) == (
        "carl_compliance may not open a table (needs casino.operate_table)"
    )
    assert floor.refresh().status == "closed"
    # The equipment schedule's changeout (issue 35): the compliance officer records it.
    row = set_changeout(floor.table, "five_dice", reason="schedule", new_set=spare, by=comp, now=T0)
    assert row is not None and row.put_in_play_by == comp


def test_operations_does_not_record_box_location_approvals():
    floor = compliant_table("craps", with_location=False)
    message = denied(
        location_approval_record,
        floor.table,
        drop_box_location="left",
        tip_box_location="right",
        approved_by_name="Casey",
        approved_at=T0,
        by=operations(),
        now=T0,
    )
    assert message == (
        "olive_ops may not record a box location approval (needs casino.record_locationapproval)"
    )
    assert not LocationApproval.objects.filter(table=floor.table).exists()


def test_a_user_in_no_group_can_do_nothing():
    floor = compliant_table("pai_gow", open_table=True)
    table = floor.table
    nobody = staff("norm_nogroup", None)
    holder = holder_get()
    rs = floor.submission
    layout = floor.layout
    tiles_row = sets_in_play(table)["tiles_32"]
    spare = set_new(holder, "PG-dice-2", "three_dice", now=T0)
    calls = [
        (
            submission_draft,
            (holder, "pai_gow"),
            {"variants": ["standard"], "table_types": ["manual"], "options": {}},
        ),
        (submission_submit, (rs,), {}),
        (submission_approve, (rs,), {}),
        (submission_reject, (rs,), {"reason": "no"}),
        (layout_submit, (layout,), {}),
        (layout_decide, (layout,), {"approve": True}),
        (
            location_approval_record,
            (table,),
            {
                "drop_box_location": "l",
                "tip_box_location": "r",
                "approved_by_name": "C",
                "approved_at": T0,
            },
        ),
        (set_put_in_play, (table, spare), {}),
        (set_changeout, (table, "three_dice"), {"reason": "schedule", "new_set": spare}),
        (
            tile_inspection_record,
            (tiles_row,),
            {
                "dealer_name": DEALER,
                "floorperson_name": FLOORPERSON,
                "all_pairs_present": True,
                "same_size_and_shading": True,
                "unflawed": True,
            },
        ),
        (
            sic_bo_inspection_record,
            (table,),
            {
                "floorperson_name": FLOORPERSON,
                "values_entered": "1,2,3",
                "winning_combinations_lit": True,
            },
        ),
        (table_suspend, (table,), {}),
        (table_close, (table,), {}),
        (table_open, (table,), {}),
    ]
    for call, args, kwargs in calls:
        message = denied(call, *args, by=nobody, now=T0 + H, **kwargs)
        assert message.startswith("norm_nogroup may not "), call.__name__
        assert "needs casino." in message
        # Without a user at all: the same refusal, naming nobody.
        assert denied(call, *args, by=None, now=T0 + H, **kwargs).startswith("nobody may not ")
    assert floor.refresh().status == "open"
    assert sets_in_play(table)["three_dice"].equipment_set == floor.sets["three_dice"]


def test_an_inactive_compliance_officer_cannot_approve():
    rs = submitted()
    officer = compliance()
    officer.is_active = False
    officer.save()
    denied(submission_approve, rs, by=get_user_model().objects.get(pk=officer.pk), now=T0 + H)


# --- the audit trail: create, change, delete ------------------------------------------


def test_create_change_delete_are_each_audited_with_only_the_changed_fields():
    user = operations()
    with acting_as(user):
        holder = CertificateHolder.objects.create(name="Lakeside")
        pk = holder.pk
        holder.save()  # no change: no entry
        holder.name = "Lakeside Downs"
        holder.save()
        holder.delete()
    created, changed, deleted = entries(CertificateHolder(pk=pk))
    assert (created.action, created.before, created.after) == (
        "created",
        None,
        {"id": pk, "name": "Lakeside"},
    )
    assert (changed.action, changed.before, changed.after) == (
        "changed",
        {"name": "Lakeside"},
        {"name": "Lakeside Downs"},
    )
    assert (deleted.action, deleted.before, deleted.after) == (
        "deleted",
        {"id": pk, "name": "Lakeside Downs"},
        None,
    )
    assert deleted.object_repr == "Lakeside Downs" and deleted.object_id == str(pk)
    for entry in (created, changed, deleted):
        assert (entry.actor, entry.actor_name) == (user, "olive_ops")
        assert entry.at is not None


def test_a_change_of_several_fields_holds_exactly_those():
    floor = compliant_table("craps")
    table = floor.table
    with acting_as(operations()):
        table.seats, table.max_wager = 10, Decimal("1000.00")
        table.save()
    last = entries(table)[-1]
    assert (last.before, last.after) == (
        {"seats": 6, "max_wager": "500.00"},
        {"seats": 10, "max_wager": "1000.00"},
    )


def test_outside_any_request_or_acting_as_the_actor_is_the_system():
    holder = CertificateHolder.objects.create(name="Riverside")
    [entry] = entries(holder)
    assert (entry.actor, entry.actor_name) == (None, "system")
    with acting_as(None):
        holder.name = "Riverside II"
        holder.save()
    assert entries(holder)[-1].actor_name == "system"


def test_acting_as_nests_and_restores_the_outer_actor():
    ops, comp = operations(), compliance()
    with acting_as(ops):
        first = CertificateHolder.objects.create(name="A")
        with acting_as(comp):
            second = CertificateHolder.objects.create(name="B")
        third = CertificateHolder.objects.create(name="C")
    fourth = CertificateHolder.objects.create(name="D")
    assert [entries(h)[0].actor_name for h in (first, second, third, fourth)] == [
        "olive_ops",
        "carl_compliance",
        "olive_ops",
        "system",
    ]


def test_the_middleware_attributes_a_requests_changes_to_its_signed_in_user():
    comp = compliance()

    def view(request):
        CertificateHolder.objects.create(name=f"made by {request.user}")
        return HttpResponse("ok")

    request = RequestFactory().post("/admin/")
    request.user = comp
    AuditActorMiddleware(view)(request)
    anonymous = RequestFactory().post("/admin/")
    anonymous.user = AnonymousUser()
    AuditActorMiddleware(view)(anonymous)
    by_user, by_anonymous = (
        entries(CertificateHolder.objects.get(name=f"made by {who}"))[0]
        for who in (comp, AnonymousUser())
    )
    assert (by_user.actor, by_user.actor_name) == (comp, "carl_compliance")
    assert (by_anonymous.actor, by_anonymous.actor_name) == (None, "system")
    # After the request the actor is gone again.
    assert entries(CertificateHolder.objects.create(name="later"))[0].actor_name == "system"


def test_a_service_attributes_its_changes_to_its_by_even_inside_another_actor():
    floor = compliant_table("craps")
    with acting_as(compliance()):
        table_open(floor.table, by=operations(), now=T0)
    last = entries(floor.table)[-1]
    assert (last.actor, last.actor_name) == (operations(), "olive_ops")
    assert (last.action, last.before, last.after) == (
        "changed",
        {"status": "closed", "status_changed_at": None},
        {"status": "open", "status_changed_at": "2026-03-02T13:00:00Z"},
    )


def test_the_schedule_check_is_the_system():
    floor = compliant_table("craps")
    schedule_check(T0 + 23 * H)
    row = sets_in_play(floor.table)["five_dice"]
    assert entries(row)[-1].actor_name == "system"


def test_every_step_of_a_changeout_is_audited():
    floor = compliant_table("craps", open_table=True)
    old_row = sets_in_play(floor.table)["five_dice"]
    old_set = floor.sets["five_dice"]
    spare = set_new(floor.holder, "CR-dice-2", "five_dice", now=T0)
    new_row = set_changeout(
        floor.table,
        "five_dice",
        reason="tampering",
        new_set=spare,
        by=operations(),
        now=T0 + H,
        note="a shaved edge",
    )
    removed = entries(old_row)[-1]
    assert removed.action == "changed" and removed.actor_name == "olive_ops"
    assert removed.before == {
        "removed_at": None,
        "removed_by_id": None,
        "removal_reason": "",
        "removal_note": "",
    }
    assert removed.after == {
        "removed_at": "2026-03-02T14:00:00Z",
        "removed_by_id": operations().pk,
        "removal_reason": "tampering",
        "removal_note": "a shaved edge",
    }
    assert [(e.before, e.after) for e in entries(old_set)][-1] == (
        {"status": "in_play"},
        {"status": "retired"},
    )
    assert [(e.before, e.after) for e in entries(spare)][-1] == (
        {"status": "reserve"},
        {"status": "in_play"},
    )
    [created] = entries(new_row)
    assert created.action == "created"
    assert created.after["put_in_play_at"] == "2026-03-02T14:00:00Z"
    assert created.after["due_at"] == "2026-03-03T14:00:00Z"
    assert created.after["limit"] == "24 hours (58 Pa. Code § 623a.7(d))"


def test_approval_is_audited_with_the_decision():
    rs = submitted()
    submission_approve(rs, by=compliance(), now=T0 + H, note="BGO 26-17")
    last = entries(rs)[-1]
    assert last.actor_name == "carl_compliance"
    assert last.before == {
        "status": "submitted",
        "decided_at": None,
        "decided_by_id": None,
        "decision_note": "",
        "effective_at": None,
    }
    assert last.after == {
        "status": "approved",
        "decided_at": "2026-03-02T14:00:00Z",
        "decided_by_id": compliance().pk,
        "decision_note": "BGO 26-17",
        "effective_at": "2026-03-02T14:00:00Z",
    }


def test_every_audited_record_leaves_a_trail_on_a_floor_built_through_the_services():
    compliant_table("pai_gow", open_table=True)
    compliant_table("sic_bo", open_table=True)
    for model in AUDITED:
        if model in (ApiToken, StatisticsThresholds):
            # No floor needs one: tests/api issues and revokes tokens; a holder without
            # thresholds has the defaults (tests/casino/test_statistics_thresholds.py).
            continue
        kind = ContentType.objects.get_for_model(model)
        assert AuditEntry.objects.filter(content_type=kind, action="created").exists(), model
    inspection = TileInspection.objects.get()
    assert entries(inspection)[0].actor_name == "olive_ops"
    assert entries(SicBoOpeningInspection.objects.get())[0].actor_name == "olive_ops"
    assert entries(LocationApproval.objects.first())[0].actor_name == "carl_compliance"
    table = Table.objects.get(number="PG-01")
    assert [(e.before["status"], e.after["status"]) for e in entries(table)[1:]] == [
        ("closed", "open")
    ]


# --- the trail is append-only ---------------------------------------------------------


def test_an_audit_entry_is_never_changed_nor_deleted():
    holder = CertificateHolder.objects.create(name="Hillside")
    [entry] = entries(holder)
    entry.actor_name = "someone else"
    with pytest.raises(PermissionError, match="append-only"):
        entry.save()
    with pytest.raises(PermissionError, match="append-only"):
        entry.delete()
    assert AuditEntry.objects.get(pk=entry.pk).actor_name == "system"


def test_the_trail_cannot_be_erased_in_bulk():
    CertificateHolder.objects.create(name="Hillside")
    with pytest.raises(PermissionError):
        AuditEntry.objects.all().delete()
    assert AuditEntry.objects.count() == 1


def test_an_unchanged_amount_is_not_recorded_as_changed():
    table = Table.objects.create(
        holder=holder_get(),
        number="CR-09",
        game="craps",
        variant="craps",
        min_wager=Decimal("10"),
        max_wager=Decimal("500"),
    )
    table.seats = 8
    table.save()
    assert entries(table)[-1].after == {"seats": 8}


def test_an_unchanged_moment_in_another_time_zone_is_not_recorded_as_changed():
    floor = compliant_table("craps")
    approval = LocationApproval.objects.get(table=floor.table)
    # What a ModelForm does: every field assigned from the form's cleaned (local) values.
    approval.approved_at = approval.approved_at.astimezone(NY)
    approval.drop_box_location = "dealer's far left"
    approval.save()
    assert entries(approval)[-1].after == {"drop_box_location": "dealer's far left"}
