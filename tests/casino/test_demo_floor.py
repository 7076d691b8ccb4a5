"""The demo floor holds every compliance record, in every state, and stays usable."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from casino.demo import (
    CLOSED_TABLE,
    COMPLIANCE_USERNAME,
    DEMO_HOLDER,
    DEMO_PASSWORD,
    DUE_SOON_TABLE,
    OPS_USERNAME,
    OVERDUE_TABLE,
    demo_floor_load,
)
from casino.models import (
    AuditEntry,
    CertificateHolder,
    EquipmentSet,
    Layout,
    Lifecycle,
    LocationApproval,
    RulesSubmission,
    SetInPlay,
    Table,
    TileInspection,
)
from casino.rules.equipment import REQUIRED_SETS, schedule_state
from casino.services.equipment import sets_in_play
from casino.services.tables import table_options_in_force
from games.rules.catalog import GAMES
from games.rules.registry import engine_get
from gaming.tables import round_start_check, round_start_refusals

pytestmark = pytest.mark.django_db


@pytest.fixture
def now():
    return timezone.now().replace(microsecond=0)


@pytest.fixture
def holder(now):
    return demo_floor_load(now=now)


def record_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (
            AuditEntry,
            RulesSubmission,
            Layout,
            Table,
            LocationApproval,
            EquipmentSet,
            SetInPlay,
            TileInspection,
        )
    }


def state_of(table: Table, composition: str, now) -> str:
    row = sets_in_play(table)[composition]
    return schedule_state(row.due_at, row.due_at - row.warn_from, now)


def test_the_staff_logins_have_their_roles(holder, client):
    users = get_user_model().objects
    assert [g.name for g in users.get(username=OPS_USERNAME).groups.all()] == ["operations"]
    assert [g.name for g in users.get(username=COMPLIANCE_USERNAME).groups.all()] == ["compliance"]
    assert client.login(username=OPS_USERNAME, password=DEMO_PASSWORD)
    assert client.get("/admin/").status_code == 200


def test_every_game_has_a_rules_submission_in_force_approved_by_compliance(holder, now):
    for game in GAMES:
        rs = RulesSubmission.in_force(holder, game.key, now)
        assert rs is not None, game.key
        assert rs.created_by.username == OPS_USERNAME
        assert rs.submitted_by.username == OPS_USERNAME
        assert rs.decided_by.username == COMPLIANCE_USERNAME
        assert rs.par_sheets and not rs.refusals()


def test_the_submissions_show_the_lifecycle(holder, now):
    craps = RulesSubmission.objects.filter(holder=holder, game="craps").order_by("version")
    v1, v2 = craps
    assert (v1.status, v2.status) == (Lifecycle.APPROVED, Lifecycle.APPROVED)
    assert v2.supersedes == v1 and v1.effective_at < v2.effective_at <= now
    assert RulesSubmission.in_force(holder, "craps", now) == v2
    assert "electronic" in v2.table_types and "electronic" not in v1.table_types
    rejected = RulesSubmission.objects.get(holder=holder, status=Lifecycle.REJECTED)
    assert rejected.game == "high_roll_dice" and "§ 675a.6(a)" in rejected.decision_note
    hrd = RulesSubmission.in_force(holder, "high_roll_dice", now)
    assert sorted(hrd.variants) == ["10_dice", "6_dice"]


def test_every_table_has_an_approved_layout_and_box_locations(holder, now):
    for table in holder.tables.all():
        table.full_clean()
        assert table.layout.status == Lifecycle.APPROVED
        assert (table.layout.game, table.layout.variant) == (table.game, table.variant)
        _, raw = table_options_in_force(table, now)
        assert table.layout.refusals(raw) == []
        approval = LocationApproval.objects.get(table=table)
        assert approval.refusals() == []
        assert approval.beside_the_dealer == (table.game in ("high_roll_dice", "pai_gow", "sic_bo"))


def test_the_layouts_show_the_conditional_elements_of_the_options_in_force(holder, now):
    table = holder.tables.get(operation="electronic")
    _, raw = table_options_in_force(table, now)
    engine = engine_get("craps")
    described = engine.describe_options(engine.parse_options(raw))
    elements = table.layout.elements
    assert described["fire_bet_paytable"] != "none" and elements["fire_bet_areas"] <= 16
    assert elements["lucky_shooter_electronic_area"] and elements["hot_shooter_electronic_area"]
    hrd = holder.tables.get(number="HR-01")
    assert hrd.layout.elements["payout_limit_inscription"]


def test_the_open_compliant_tables_may_start_a_round(holder, now):
    open_tables = holder.tables.filter(status=Table.Status.OPEN)
    assert open_tables.count() == 10
    for table in open_tables:
        round_start_check(table, now)


def test_one_table_is_due_soon(holder, now):
    table = holder.tables.get(number=DUE_SOON_TABLE)
    assert state_of(table, "five_dice", now) == "due_soon"
    assert SetInPlay.objects.get(table=table, removed_at=None).schedule_state == "due_soon"
    round_start_check(table, now)


def test_one_table_is_overdue_and_cannot_start_a_round(holder, now):
    table = holder.tables.get(number=OVERDUE_TABLE)
    assert table.status == Table.Status.SUSPENDED
    row = sets_in_play(table)["five_dice"]
    assert row.schedule_state == "overdue"
    refusals = round_start_refusals(table, now)
    assert any(str(row.equipment_set) in r and "due out of play" in r for r in refusals)


def test_one_table_is_closed_with_no_set(holder):
    table = holder.tables.get(number=CLOSED_TABLE)
    assert table.status == Table.Status.CLOSED
    assert sets_in_play(table) == {}


def test_the_equipment_has_history(holder):
    removed = SetInPlay.objects.filter(table__holder=holder, removed_at__isnull=False)
    reasons = set(removed.values_list("removal_reason", flat=True))
    assert {"schedule", "die_lost", "table_reopened", "failed_inspection"} <= reasons
    assert all(r.removed_by.username == OPS_USERNAME for r in removed)
    sealed = EquipmentSet.objects.get(holder=holder, status=EquipmentSet.Status.SEALED)
    inspection = TileInspection.objects.get(set_in_play__equipment_set=sealed)
    assert not inspection.suitable and inspection.envelope_sealed_at is not None
    assert inspection.envelope_signed_by_dealer and inspection.envelope_signed_by_floorperson
    assert inspection.envelope_table_number == "PG-01"
    assert EquipmentSet.objects.filter(identifier="D-CR01-0003", status="in_play").exists()


def test_every_table_in_play_has_its_sets_and_the_shaker_holds_dice_a_month(holder, now):
    for table in holder.tables.exclude(number=CLOSED_TABLE):
        assert set(sets_in_play(table)) == set(REQUIRED_SETS[(table.game, table.variant)])
    shaker = sets_in_play(holder.tables.get(automated_shaker=True))["three_dice"]
    assert shaker.locked_in_automated_shaker and "1 month" in shaker.limit
    assert holder.tables.get(number="SB-02").sic_bo_inspections.get().shaker_operations == 3


def test_every_change_is_attributed_to_a_named_user(holder):
    names = set(AuditEntry.objects.values_list("actor_name", flat=True))
    assert names == {"demo", OPS_USERNAME, COMPLIANCE_USERNAME, "system"}
    # Only beat's work is the system's: the schedule check, and the heartbeat watch making
    # each device active at its first heartbeat.
    system = AuditEntry.objects.filter(actor_name="system")
    assert set(system.values_list("content_type__model", flat=True)) == {"setinplay", "device"}


def test_loading_again_adds_nothing(holder, now):
    before = record_counts()
    demo_floor_load(now=now)
    assert record_counts() == before
    demo_floor_load()  # the real clock, a moment later
    assert record_counts() == before


def test_a_load_days_later_changes_out_the_stale_sets_but_not_the_overdue_table(holder, now):
    later = now + timedelta(days=3)
    overdue_set = sets_in_play(holder.tables.get(number=OVERDUE_TABLE))["five_dice"]
    shaker_set = sets_in_play(holder.tables.get(number="SB-02"))["three_dice"]
    before = SetInPlay.objects.count()
    demo_floor_load(now=later)
    changed = SetInPlay.objects.filter(removed_at=later)
    assert set(changed.values_list("removal_reason", flat=True)) == {"schedule"}
    assert all(r.removed_by.username == OPS_USERNAME for r in changed)
    # Every 24-hour dice set and both sets of tiles; not the month in the shaker.
    assert changed.count() == 11 and SetInPlay.objects.count() == before + 11
    assert sets_in_play(holder.tables.get(number="SB-02"))["three_dice"] == shaker_set
    assert sets_in_play(holder.tables.get(number=OVERDUE_TABLE))["five_dice"] == overdue_set
    assert any(
        "due out of play" in r
        for r in round_start_refusals(holder.tables.get(number=OVERDUE_TABLE), later)
    )
    for table in holder.tables.filter(status=Table.Status.OPEN):
        round_start_check(table, later)
    # The tiles that went back to the reserve come round again, inspected.
    assert sets_in_play(holder.tables.get(number="PG-02"))["tiles_32"].equipment_set.identifier == (
        "T-PG02-0001"
    )
    after = record_counts()
    demo_floor_load(now=later)
    assert record_counts() == after


def test_an_older_demo_floor_with_tables_only_is_completed(now):
    old = CertificateHolder.objects.create(name=DEMO_HOLDER)
    Table.objects.create(holder=old, number="CR-01", game="craps", variant="craps")
    holder = demo_floor_load(now=now)
    assert holder == old and holder.tables.count() == 12
    round_start_check(holder.tables.get(number="CR-01"), now)


def test_a_set_numbered_by_hand_does_not_stop_the_morning_changeout(holder, now):
    table = holder.tables.get(number="HR-02")
    EquipmentSet.objects.create(
        holder=holder, identifier="D-HR02-0002", composition="six_dice", received_at=now
    )
    later = now + timedelta(days=3)
    demo_floor_load(now=later)
    assert sets_in_play(table)["six_dice"].equipment_set.identifier == "D-HR02-0003"
    round_start_check(table, later)
