"""The admin for both roles (issue 6, item 6): each action as operations and as compliance.

The admin stamps actions with the wall clock (timezone.now()), so the floors here are
built through the services a little before it.
"""

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from casino.models import (
    AuditEntry,
    EquipmentSet,
    Layout,
    Lifecycle,
    LocationApproval,
    RulesSubmission,
    SetInPlay,
    SicBoOpeningInspection,
    Table,
    TileInspection,
)
from casino.services.layouts import layout_submit
from casino.services.submissions import submission_draft, submission_submit
from tests.casino.floor_fixtures import (
    DEALER,
    FLOORPERSON,
    compliance,
    compliant_table,
    holder_get,
    operations,
    set_new,
    staff,
)

pytestmark = pytest.mark.django_db


def recently() -> Any:
    """An hour ago: records built then are in force and in date for the admin's clock."""
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


def act(client: Client, model: str, action: str, *objects: Any) -> Any:
    """Run a changelist action on `objects` (the first step of an intermediate form)."""
    return client.post(
        f"/admin/casino/{model}/",
        {"action": action, "_selected_action": [o.pk for o in objects], "index": 0},
        follow=True,
    )


def apply(client: Client, model: str, action: str, *objects: Any, **fields: Any) -> Any:
    """Fill in and send an action's intermediate form (fields without their prefix)."""
    data = {f"act-{name}": value for name, value in fields.items()}
    return client.post(
        f"/admin/casino/{model}/",
        {
            "action": action,
            "_selected_action": [o.pk for o in objects],
            "apply": "Apply",
            **data,
        },
        follow=True,
    )


def said(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def submitted_rs(game: str = "three_dice_football", **choices: Any) -> RulesSubmission:
    holder = holder_get()
    draft = submission_draft(
        holder,
        game,
        variants=choices.get("variants", ["standard"]),
        table_types=choices.get("table_types", ["manual"]),
        options=choices.get("options", {}),
        by=operations(),
        now=recently(),
    )
    return submission_submit(draft, by=operations(), now=recently())


def draft_layout(name: str = "TDF cloth 2026", **elements: Any) -> Layout:
    return Layout.objects.create(
        holder=holder_get(),
        name=name,
        game="three_dice_football",
        variant="standard",
        elements=elements
        or {
            "name_or_logo": True,
            "wager_areas": True,
            "payout_odds": True,
            "football_field": True,
            "downs_area": True,
            "game_length_area": True,
        },
        created_at=recently(),
    )


# -- Who may see what ------------------------------------------------------------------


@pytest.mark.parametrize("model", ["table", "rulessubmission", "layout", "auditentry"])
def test_a_staff_user_in_no_group_gets_403_on_the_changelist(client: Client, model: str):
    login(client, staff("nobody", None))
    assert client.get(f"/admin/casino/{model}/").status_code == 403


@pytest.mark.parametrize("user", [operations, compliance])
def test_both_roles_see_every_changelist(client: Client, user: Any):
    login(client, user())
    compliant_table("three_dice_football", now=recently())
    for model in (
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
    ):
        assert client.get(f"/admin/casino/{model}/").status_code == 200, model


# -- Tables: open, suspend, close --------------------------------------------------------


def test_operations_opens_suspends_and_closes_a_compliant_table(ops_client: Client):
    table = compliant_table("three_dice_football", now=recently()).table
    response = act(ops_client, "table", "open_tables", table)
    assert f"{table.number} is open." in said(response)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert act(ops_client, "table", "suspend_tables", table).status_code == 200
    table.refresh_from_db()
    assert table.status == Table.Status.SUSPENDED
    act(ops_client, "table", "close_tables", table)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert table.closed_at is not None


def test_an_opening_refusal_is_reported_reason_by_reason(ops_client: Client):
    table = compliant_table(
        "three_dice_football", now=recently(), with_layout=False, with_sets=False
    ).table
    messages = said(act(ops_client, "table", "open_tables", table))
    assert any("has no layout assigned (58 Pa. Code § 601a.10(a))" in m for m in messages)
    assert any("no set of four green and two red dice is in play" in m for m in messages)
    assert all(m.startswith(f"Opening {table.number} refused: ") for m in messages)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_compliance_may_not_open_a_table(compliance_client: Client):
    table = compliant_table("three_dice_football", now=recently()).table
    messages = said(act(compliance_client, "table", "open_tables", table))
    assert messages == [
        f"Opening {table.number}: carl_compliance may not open a table (needs casino.operate_table)"
    ]
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_closing_a_closed_table_is_refused(ops_client: Client):
    table = compliant_table("three_dice_football", now=recently()).table
    messages = said(act(ops_client, "table", "close_tables", table))
    assert messages == [f"Closing {table.number} refused: {table.number} is closed"]


# -- Tables: sets in play and changeouts -----------------------------------------------


def test_operations_records_a_changeout_through_the_intermediate_form(ops_client: Client):
    floor = compliant_table("three_dice_football", now=recently())
    table, old = floor.table, floor.sets["four_green_two_red"]
    spare = set_new(floor.holder, "TD-SPARE", "four_green_two_red", now=recently())
    page = act(ops_client, "table", "record_changeout", table)
    assert page.templates[0].name == "admin/casino/action_form.html"
    assert b"Record the changeout" in page.content and b"TD-SPARE" in page.content
    response = apply(
        ops_client,
        "table",
        "record_changeout",
        table,
        composition="four_green_two_red",
        reason="die_lost",
        new_set=spare.pk,
        note="a die left the table at the stick end",
    )
    assert any(m.startswith(f"Changeout at {table.number} recorded") for m in said(response))
    out = SetInPlay.objects.get(equipment_set=old)
    assert out.removal_reason == "die_lost"
    assert out.removed_by.username == "olive_ops"
    assert out.removal_note == "a die left the table at the stick end"
    current = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    assert current.equipment_set == spare
    assert current.put_in_play_by.username == "olive_ops"


def test_a_changeout_refused_by_the_service_shows_on_the_form_and_writes_nothing(
    client: Client,
):
    floor = compliant_table("three_dice_football", now=recently())
    before = SetInPlay.objects.count()
    login(client, staff("rita_regulator", "regulator"))  # reads everything, records nothing
    response = apply(
        client,
        "table",
        "record_changeout",
        floor.table,
        composition="four_green_two_red",
        reason="schedule",
        note="",
    )
    assert response.templates[0].name == "admin/casino/action_form.html"
    assert "rita_regulator may not record a changeout" in response.content.decode()
    assert SetInPlay.objects.count() == before
    assert SetInPlay.objects.filter(removed_at__isnull=False).count() == 0


def test_changeout_needs_exactly_one_table(ops_client: Client):
    one = compliant_table("three_dice_football", now=recently()).table
    two = compliant_table("three_dice_football", now=recently()).table
    response = act(ops_client, "table", "record_changeout", one, two)
    assert said(response) == ["Select exactly one record to record a changeout."]


def test_operations_puts_a_set_in_play(ops_client: Client):
    floor = compliant_table("three_dice_football", now=recently(), with_sets=False)
    dice = set_new(floor.holder, "TD-NEW", "four_green_two_red", now=recently())
    response = apply(ops_client, "table", "put_set_in_play", floor.table, equipment_set=dice.pk)
    assert any("TD-NEW" in m and "is in play at" in m for m in said(response))
    dice.refresh_from_db()
    assert dice.status == EquipmentSet.Status.IN_PLAY


# -- Tables: the list and the change page ----------------------------------------------


def test_the_table_list_shows_each_equipment_state_in_colour_and_filters_by_it(
    ops_client: Client,
):
    now = timezone.now()
    in_date = compliant_table("three_dice_football", now=now - timedelta(hours=1)).table
    due_soon = compliant_table("three_dice_football", now=now - timedelta(hours=23)).table
    overdue = compliant_table("three_dice_football", now=now - timedelta(hours=30)).table
    missing = compliant_table("three_dice_football", now=now, with_sets=False).table
    page = ops_client.get("/admin/casino/table/").content.decode()
    # A line a set (issue 35): the state as a word on a badge coloured by admin-fit.css,
    # the set and when it is due out; the whole sentence in the tooltip.
    assert '<span class="fit-state equipment-in_date">in date</span>' in page
    assert '<span class="fit-state equipment-due_soon">due soon</span>' in page
    assert '<span class="fit-state equipment-overdue">overdue</span>' in page
    assert "overdue since" in page  # the tooltip
    missing_line = (
        '<span class="fit-state equipment-missing">missing</span>four green and two red dice'
    )
    assert missing_line in page
    assert "casino/admin-fit.css" in page
    headings = re.findall(r'<th scope="col" class="[^"]*column-(\w+)', page)
    assert headings == [
        "number", "holder", "game", "variant_name", "status",
        "sets_due_out", "rules_in_force", "layout_name", "report_link",
    ]  # fmt: skip
    assert page.count(">equipment<") == 0  # once two columns were both headed "equipment"
    expected = {"in_date": in_date, "due_soon": due_soon, "overdue": overdue, "missing": missing}
    for state, table in expected.items():
        response = ops_client.get(f"/admin/casino/table/?equipment={state}")
        shown = {t.number for t in response.context["cl"].result_list}
        assert shown == {table.number}, state


def test_the_table_list_shows_the_rules_submission_in_force(ops_client: Client):
    floor = compliant_table("three_dice_football", now=recently())
    page = ops_client.get("/admin/casino/table/").content.decode()
    assert f"/admin/casino/rulessubmission/{floor.submission.pk}/change/" in page
    assert f"/admin/casino/table/{floor.table.pk}/report/" in page


def test_the_table_page_shows_what_stops_it_opening_and_its_audit_history(ops_client: Client):
    table = compliant_table("three_dice_football", now=recently(), with_location=False).table
    page = ops_client.get(f"/admin/casino/table/{table.pk}/change/").content.decode()
    assert "what stops it opening now" in page.lower()
    assert "have not been approved by the Bureau of Casino Compliance" in page
    assert "Audit history" in page or "audit history" in page
    assert f"/admin/casino/table/{table.pk}/report/" in page
    # The status is the services' alone: not a field of the form.
    response = ops_client.get(f"/admin/casino/table/{table.pk}/change/")
    assert "status" not in response.context["adminform"].form.fields


def test_a_compliant_table_page_says_nothing_stops_it(ops_client: Client):
    table = compliant_table("three_dice_football", now=recently()).table
    page = ops_client.get(f"/admin/casino/table/{table.pk}/change/").content.decode()
    assert "nothing: every gate passes" in page


# -- Rules Submissions -----------------------------------------------------------------


def test_operations_cannot_approve_a_submission_and_it_stays_submitted(ops_client: Client):
    rs = submitted_rs()
    page = act(ops_client, "rulessubmission", "approve", rs)
    assert page.templates[0].name == "admin/casino/action_form.html"
    response = apply(ops_client, "rulessubmission", "approve", rs, effective_at="", note="")
    assert said(response) == [
        f"Approving {rs}: olive_ops may not approve a Rules Submission "
        "(needs casino.approve_rulessubmission)"
    ]
    rs.refresh_from_db()
    assert rs.status == Lifecycle.SUBMITTED


def test_compliance_approves_a_submission_from_a_date(compliance_client: Client):
    rs = submitted_rs()
    effective = timezone.localtime() + timedelta(days=2)
    response = apply(
        compliance_client,
        "rulessubmission",
        "approve",
        rs,
        effective_at=effective.strftime("%Y-%m-%d %H:%M"),
        note="BGO approval 2026-117",
    )
    assert said(response) == [f"{rs} is approved."]
    rs.refresh_from_db()
    assert rs.status == Lifecycle.APPROVED
    assert rs.decided_by.username == "carl_compliance"
    assert rs.decision_note == "BGO approval 2026-117"
    assert timezone.localtime(rs.effective_at).strftime("%Y-%m-%d %H:%M") == effective.strftime(
        "%Y-%m-%d %H:%M"
    )


def test_an_approval_in_the_past_is_refused(compliance_client: Client):
    rs = submitted_rs()
    response = apply(
        compliance_client, "rulessubmission", "approve", rs, effective_at="2020-01-01 08:00"
    )
    assert any("is in the past" in m for m in said(response))
    rs.refresh_from_db()
    assert rs.status == Lifecycle.SUBMITTED


def test_a_rejection_needs_a_reason(compliance_client: Client):
    rs = submitted_rs()
    response = apply(compliance_client, "rulessubmission", "reject", rs, reason="")
    assert response.templates[0].name == "admin/casino/action_form.html"
    assert "This field is required." in response.content.decode()
    rs.refresh_from_db()
    assert rs.status == Lifecycle.SUBMITTED
    response = apply(
        compliance_client, "rulessubmission", "reject", rs, reason="vig above 5% on lays"
    )
    assert said(response) == [f"{rs} is rejected."]
    rs.refresh_from_db()
    assert (rs.status, rs.decision_note) == (Lifecycle.REJECTED, "vig above 5% on lays")


def test_operations_cannot_reject_a_submission(ops_client: Client):
    rs = submitted_rs()
    response = apply(ops_client, "rulessubmission", "reject", rs, reason="no")
    assert "may not reject a Rules Submission" in said(response)[0]
    rs.refresh_from_db()
    assert rs.status == Lifecycle.SUBMITTED


def test_submitting_an_invalid_draft_reports_each_refusal(ops_client: Client):
    draft = submission_draft(
        holder_get(),
        "craps",
        variants=["craps"],
        table_types=["manual"],
        options={"max_odds_multiple": 11, "vig_percent": 6},
        by=operations(),
        now=recently(),
    )
    messages = said(act(ops_client, "rulessubmission", "submit", draft))
    assert len(messages) >= 2
    assert all(m.startswith(f"Submitting {draft} refused: ") for m in messages)
    assert any("max_odds_multiple" in m for m in messages)
    assert any("vig_percent" in m for m in messages)
    draft.refresh_from_db()
    assert draft.status == Lifecycle.DRAFT


def test_operations_submits_a_draft_and_starts_a_new_version(ops_client: Client):
    draft = submission_draft(
        holder_get(),
        "three_dice_football",
        variants=["standard"],
        table_types=["manual"],
        options={},
        by=operations(),
        now=recently(),
    )
    assert said(act(ops_client, "rulessubmission", "submit", draft)) == [f"{draft} is submitted."]
    draft.refresh_from_db()
    assert draft.status == Lifecycle.SUBMITTED and draft.par_sheets
    act(ops_client, "rulessubmission", "new_version", draft)
    newer = RulesSubmission.objects.get(version=2)
    assert newer.supersedes == draft and newer.status == Lifecycle.DRAFT


def test_a_submitted_submission_is_read_only(compliance_client: Client):
    rs = submitted_rs()
    response = compliance_client.get(f"/admin/casino/rulessubmission/{rs.pk}/change/")
    assert response.status_code == 200
    assert response.context["has_change_permission"] is False
    assert b'name="_save"' not in response.content
    post = compliance_client.post(
        f"/admin/casino/rulessubmission/{rs.pk}/change/",
        {
            "holder": rs.holder_id,
            "game": "craps",
            "variants": ["craps"],
            "table_types": ["manual"],
            "options": "{}",
        },
    )
    assert post.status_code == 403
    rs.refresh_from_db()
    assert rs.game == "three_dice_football"


def test_a_draft_is_validated_by_its_refusals_and_not_saved(ops_client: Client):
    draft = submission_draft(
        holder_get(),
        "craps",
        variants=["craps"],
        table_types=["manual"],
        options={},
        by=operations(),
        now=recently(),
    )
    url = f"/admin/casino/rulessubmission/{draft.pk}/change/"
    response = ops_client.post(
        url,
        {
            "holder": draft.holder_id,
            "game": "craps",
            "variants": ["craps"],
            "table_types": ["manual"],
            "options": '{"max_odds_multiple": 11, "lucky_shooter_paytable": "A"}',
            **audit_inline_management(),
        },
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert any("max_odds_multiple" in e for e in errors)
    assert any("only on a fully automated electronic table" in e for e in errors)
    draft.refresh_from_db()
    assert draft.options == {}


def test_a_valid_draft_change_is_saved_and_audited(ops_client: Client):
    draft = submission_draft(
        holder_get(),
        "craps",
        variants=["craps"],
        table_types=["manual"],
        options={},
        by=operations(),
        now=recently(),
    )
    response = ops_client.post(
        f"/admin/casino/rulessubmission/{draft.pk}/change/",
        {
            "holder": draft.holder_id,
            "game": "craps",
            "variants": ["craps", "mini_craps"],
            "table_types": ["manual"],
            "options": '{"max_odds_multiple": 5}',
            **audit_inline_management(),
        },
    )
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.options == {"max_odds_multiple": 5}
    entry = AuditEntry.objects.filter(object_id=str(draft.pk), action="changed").get()
    assert entry.actor_name == "olive_ops"
    assert entry.after["variants"] == ["craps", "mini_craps"]


def test_adding_a_submission_goes_through_the_draft_service(ops_client: Client):
    response = ops_client.post(
        "/admin/casino/rulessubmission/add/",
        {
            "holder": holder_get().pk,
            "game": "sic_bo",
            "variants": ["standard"],
            "table_types": ["manual"],
            "options": "{}",
            **audit_inline_management(),
        },
    )
    assert response.status_code == 302
    rs = RulesSubmission.objects.get()
    assert (rs.version, rs.status, rs.created_by.username) == (1, "draft", "olive_ops")


def test_the_submission_page_shows_each_options_house_edge_beside_it(
    compliance_client: Client,
):
    draft = submission_draft(
        holder_get(),
        "craps",
        variants=["craps"],
        table_types=["manual"],
        options={"max_odds_multiple": 3},
        by=operations(),
        now=recently(),
    )
    # A draft's page computes nothing (Pai Gow's sheet takes seconds, issue 19 point 4).
    url = f"/admin/casino/rulessubmission/{draft.pk}/change/"
    html = compliance_client.get(url).content.decode()
    assert "The house edges are computed when it is submitted." in html
    assert "buy:4" not in html
    submission_submit(draft, by=operations(), now=recently())
    html = compliance_client.get(url).content.decode()
    assert "Computed when it was submitted." in html
    # buy_lay sets the Buy Bets' edges: 5% on the 4 and 10 -> 1/60 (§ 623a.7 vig).
    assert "buy:4 1.667%" in html
    # The full wager list: the Pass Line's 7/495.
    assert "<td>pass</td><td>1.414%</td>" in html


def test_a_submitted_submission_shows_the_par_computed_when_submitted(compliance_client: Client):
    rs = submitted_rs("sic_bo")
    html = compliance_client.get(f"/admin/casino/rulessubmission/{rs.pk}/change/").content.decode()
    assert "Computed when it was submitted." in html
    assert "Sic Bo, manual table" in html
    assert "<td>triple:1</td><td>30.093%</td>" in html


# -- Layouts ---------------------------------------------------------------------------


def test_operations_submits_a_layout_but_cannot_approve_it(ops_client: Client):
    layout = draft_layout()
    assert said(act(ops_client, "layout", "submit", layout)) == [f"{layout} is submitted."]
    response = apply(ops_client, "layout", "approve", layout, note="")
    assert said(response) == [
        f"Approving {layout}: olive_ops may not approve or reject a layout "
        "(needs casino.approve_layout)"
    ]
    layout.refresh_from_db()
    assert layout.status == Lifecycle.SUBMITTED


def test_an_incomplete_layout_is_refused_at_submission(ops_client: Client):
    layout = draft_layout(name_or_logo=True)
    messages = said(act(ops_client, "layout", "submit", layout))
    assert any("football field" in m and "§ 661a.2(b)(4)" in m for m in messages)
    layout.refresh_from_db()
    assert layout.status == Lifecycle.DRAFT


def test_compliance_approves_and_rejects_layouts(compliance_client: Client):
    approved, rejected = draft_layout(), draft_layout("TDF cloth old")
    for layout in (approved, rejected):
        layout_submit(layout, by=operations(), now=recently())
    response = apply(compliance_client, "layout", "approve", approved, note="BGO-42")
    assert said(response) == [f"{approved} is approved."]
    response = apply(compliance_client, "layout", "reject", rejected, reason="no downs area")
    assert said(response) == [f"{Layout.objects.get(pk=rejected.pk)} is rejected."]
    approved.refresh_from_db()
    rejected.refresh_from_db()
    assert (approved.status, approved.decision_note) == ("approved", "BGO-42")
    assert (rejected.status, rejected.decision_note) == ("rejected", "no downs area")
    response = compliance_client.get(f"/admin/casino/layout/{approved.pk}/change/")
    assert response.context["has_change_permission"] is False


def test_adding_a_layout_records_who_drafted_it(ops_client: Client):
    response = ops_client.post(
        "/admin/casino/layout/add/",
        {
            "holder": holder_get().pk,
            "name": "SB cloth",
            "game": "sic_bo",
            "variant": "standard",
            "elements": '{"name_or_logo": true}',
            **audit_inline_management(),
        },
    )
    assert response.status_code == 302
    layout = Layout.objects.get()
    assert (layout.status, layout.created_by.username) == ("draft", "olive_ops")
    page = ops_client.get(f"/admin/casino/layout/{layout.pk}/change/").content.decode()
    assert "illuminated_wager_area" in page  # what the chapter asks, and what it lacks


# -- Inspections -----------------------------------------------------------------------


def tile_form(row: SetInPlay, **overrides: Any) -> dict[str, Any]:
    return {
        "set_in_play": row.pk,
        "dealer_name": DEALER,
        "floorperson_name": FLOORPERSON,
        "all_pairs_present": "on",
        "same_size_and_shading": "on",
        "unflawed": "on",
        **overrides,
    }


def test_a_refused_tile_inspection_is_a_form_error_and_writes_nothing(ops_client: Client):
    floor = compliant_table("pai_gow", now=recently(), with_inspections=False)
    row = SetInPlay.objects.get(table=floor.table, composition="tiles_32")
    response = ops_client.post(
        "/admin/casino/tileinspection/add/", tile_form(row, floorperson_name=DEALER)
    )
    assert response.status_code == 200
    assert "the floorperson who verifies is not the dealer" in response.content.decode()
    assert TileInspection.objects.count() == 0


def test_an_unsuitable_tile_set_needs_the_envelope_signatures(ops_client: Client):
    floor = compliant_table("pai_gow", now=recently(), with_inspections=False)
    row = SetInPlay.objects.get(table=floor.table, composition="tiles_32")
    form = tile_form(row)
    del form["unflawed"]
    response = ops_client.post("/admin/casino/tileinspection/add/", form)
    assert "sealed in an envelope signed by the dealer" in response.content.decode()
    assert TileInspection.objects.count() == 0
    form.update(envelope_signed_by_dealer=DEALER, envelope_signed_by_floorperson=FLOORPERSON)
    response = ops_client.post("/admin/casino/tileinspection/add/", form)
    assert response.status_code == 302
    inspection = TileInspection.objects.get()
    assert inspection.envelope_table_number == floor.table.number
    row.refresh_from_db()
    assert row.removal_reason == "failed_inspection"


def test_operations_records_a_tile_inspection_through_the_service(ops_client: Client):
    floor = compliant_table("pai_gow", now=recently(), with_inspections=False)
    row = SetInPlay.objects.get(table=floor.table, composition="tiles_32")
    page = ops_client.get(f"/admin/casino/tileinspection/add/?set_in_play={row.pk}")
    assert page.templates[0].name == "admin/casino/action_form.html"
    response = ops_client.post("/admin/casino/tileinspection/add/", tile_form(row))
    inspection = TileInspection.objects.get()
    assert response.url == f"/admin/casino/tileinspection/{inspection.pk}/change/"
    assert inspection.recorded_by.username == "olive_ops" and inspection.suitable
    view = ops_client.get(response.url)
    assert view.context["has_change_permission"] is False


def test_compliance_cannot_record_an_inspection(compliance_client: Client):
    assert compliance_client.get("/admin/casino/tileinspection/add/").status_code == 403
    assert compliance_client.get("/admin/casino/sicboopeninginspection/add/").status_code == 403


def test_the_sic_bo_opening_inspection_goes_through_the_service(ops_client: Client):
    table = compliant_table("sic_bo", now=recently(), with_inspections=False).table
    form = {
        "table": table.pk,
        "floorperson_name": FLOORPERSON,
        "values_entered": "2,5,7",
        "winning_combinations_lit": "on",
        "shaker_operations": "",
        "dice_properly_tossed": "",
    }
    response = ops_client.post("/admin/casino/sicboopeninginspection/add/", form)
    assert "enter three numeric values from 1 to 6" in response.content.decode()
    assert SicBoOpeningInspection.objects.count() == 0
    form["values_entered"] = "2,5,5"
    response = ops_client.post("/admin/casino/sicboopeninginspection/add/", form)
    assert response.status_code == 302
    inspection = SicBoOpeningInspection.objects.get()
    assert (inspection.values_entered, inspection.recorded_by.username) == ("2,5,5", "olive_ops")


def test_sets_in_play_are_read_only(ops_client: Client):
    floor = compliant_table("three_dice_football", now=recently())
    row = SetInPlay.objects.get(table=floor.table)
    assert ops_client.get("/admin/casino/setinplay/add/").status_code == 403
    response = ops_client.get(f"/admin/casino/setinplay/{row.pk}/change/")
    assert response.context["has_change_permission"] is False
    assert ops_client.post(f"/admin/casino/setinplay/{row.pk}/delete/").status_code == 403
    listing = ops_client.get("/admin/casino/setinplay/?equipment=in_date")
    assert [r.pk for r in listing.context["cl"].result_list] == [row.pk]


def test_a_played_sets_identity_is_read_only_and_its_status_always(ops_client: Client):
    floor = compliant_table("three_dice_football", now=recently())
    dice = floor.sets["four_green_two_red"]
    spare = set_new(floor.holder, "TD-SPARE", "four_green_two_red", now=recently())
    form = ops_client.get(f"/admin/casino/equipmentset/{dice.pk}/change/").context["adminform"]
    assert "composition" not in form.form.fields and "status" not in form.form.fields
    form = ops_client.get(f"/admin/casino/equipmentset/{spare.pk}/change/").context["adminform"]
    assert "composition" in form.form.fields and "status" not in form.form.fields


# -- The audit trail -------------------------------------------------------------------


def audit_inline_management() -> dict[str, str]:
    """The management form of the read-only audit inline, which every change page posts."""
    prefix = "casino-auditentry-content_type-object_id"
    return {
        f"{prefix}-TOTAL_FORMS": "0",
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "0",
    }


@pytest.mark.parametrize(
    "model",
    [
        "table",
        "rulessubmission",
        "layout",
        "locationapproval",
        "equipmentset",
        "setinplay",
        "certificateholder",
    ],
)
def test_every_audited_record_shows_its_audit_history_read_only(ops_client: Client, model: str):
    floor = compliant_table("three_dice_football", now=recently())
    records = {
        "table": floor.table,
        "rulessubmission": floor.submission,
        "layout": floor.layout,
        "locationapproval": floor.table.location_approvals.get(),
        "equipmentset": floor.sets["four_green_two_red"],
        "setinplay": SetInPlay.objects.get(table=floor.table),
        "certificateholder": floor.holder,
    }
    record = records[model]
    response = ops_client.get(f"/admin/casino/{model}/{record.pk}/change/")
    inline = next(
        f for f in response.context["inline_admin_formsets"] if f.opts.model is AuditEntry
    )
    entries = list(inline.formset.queryset)
    assert entries and all(e.object_id == str(record.pk) for e in entries)
    assert inline.has_add_permission is False
    assert inline.has_change_permission is False
    assert inline.has_delete_permission is False
    html = response.content.decode()
    assert "Audit history" in html
    assert "olive_ops" in html or "carl_compliance" in html


def test_audit_entries_cannot_be_added_changed_or_deleted_even_by_a_superuser(client: Client):
    compliant_table("three_dice_football", now=recently())
    root = get_user_model().objects.create_superuser("root", "root@example.com", "x")
    client.force_login(root)
    entry = AuditEntry.objects.first()
    assert client.get("/admin/casino/auditentry/").status_code == 200
    response = client.get(f"/admin/casino/auditentry/{entry.pk}/change/")
    assert response.status_code == 200 and response.context["has_change_permission"] is False
    assert client.get("/admin/casino/auditentry/add/").status_code == 403
    assert client.post(f"/admin/casino/auditentry/{entry.pk}/change/", {}).status_code == 403
    delete = client.post(f"/admin/casino/auditentry/{entry.pk}/delete/", {"post": "yes"})
    assert delete.status_code == 403
    listing = client.get("/admin/casino/auditentry/")
    assert listing.context["action_form"] is None  # not even "delete selected"
    count = AuditEntry.objects.count()
    client.post(
        "/admin/casino/auditentry/",
        {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"},
    )
    assert AuditEntry.objects.count() == count


def test_the_audit_list_filters_by_record_type_action_and_actor(ops_client: Client):
    compliant_table("three_dice_football", now=recently())
    response = ops_client.get("/admin/casino/auditentry/?action__exact=created")
    assert response.status_code == 200
    assert {e.action for e in response.context["cl"].result_list} == {"created"}
    actor = get_user_model().objects.get(username="carl_compliance")
    response = ops_client.get(f"/admin/casino/auditentry/?actor__id__exact={actor.pk}")
    assert {e.actor_name for e in response.context["cl"].result_list} == {"carl_compliance"}
    filters = {spec.title for spec in response.context["cl"].filter_specs}
    assert {"content type", "action", "actor"} <= filters


def test_a_set_put_in_play_by_the_admin_is_audited_to_its_user(ops_client: Client):
    floor = compliant_table("three_dice_football", now=recently(), with_sets=False)
    dice = set_new(floor.holder, "TD-AUD", "four_green_two_red", now=recently())
    apply(ops_client, "table", "put_set_in_play", floor.table, equipment_set=dice.pk)
    row = SetInPlay.objects.get(equipment_set=dice)
    entry = AuditEntry.objects.get(object_id=str(row.pk), content_type__model="setinplay")
    assert (entry.action, entry.actor_name) == ("created", "olive_ops")


def test_every_admin_page_renders_for_a_superuser(client: Client):
    floor = compliant_table("pai_gow", now=recently())
    compliant_table("sic_bo", now=recently())
    root = get_user_model().objects.create_superuser("root", "root@example.com", "x")
    client.force_login(root)
    assert client.get("/admin/").status_code == 200
    records = {
        "certificateholder": floor.holder,
        "rulessubmission": floor.submission,
        "layout": floor.layout,
        "table": floor.table,
        "locationapproval": floor.table.location_approvals.get(),
        "equipmentset": floor.sets["tiles_32"],
        "setinplay": SetInPlay.objects.filter(table=floor.table).first(),
        "tileinspection": TileInspection.objects.get(),
        "sicboopeninginspection": SicBoOpeningInspection.objects.get(),
        "auditentry": AuditEntry.objects.first(),
    }
    no_add = {"setinplay", "auditentry"}
    for model, record in records.items():
        base = f"/admin/casino/{model}/"
        assert client.get(base).status_code == 200, model
        assert client.get(f"{base}{record.pk}/change/").status_code == 200, model
        assert client.get(f"{base}add/").status_code == (403 if model in no_add else 200), model


# --- § 601a.10(g): box location approvals are recorded through the service -------------


@pytest.mark.django_db
def test_box_location_approval_recorded_by_compliance_refused_without_the_dealer_side(
    compliance_client: Client,
) -> None:
    # § 621a.2(c): a Pai Gow drop box and tip box on the dealer's side, opposite sides of
    # the dealer. Leaving that box unticked is refused on the form and writes nothing.
    table = Table.objects.create(
        holder=holder_get(), number="PG-9", game="pai_gow", variant="standard", seats=6
    )
    url = "/admin/casino/locationapproval/add/"
    fields = {
        "table": table.pk,
        "drop_box_location": "dealer's right",
        "tip_box_location": "dealer's left",
        "approved_by_name": "R. Casino Compliance Supervisor",
        "approved_at": "2026-03-10 09:00",
    }
    refused = compliance_client.post(url, fields)
    assert refused.status_code == 200
    assert "§ 621a.2(c)" in refused.content.decode()
    assert not LocationApproval.objects.exists()

    accepted = compliance_client.post(url, {**fields, "beside_the_dealer": "on"})
    assert accepted.status_code == 302
    approval = LocationApproval.objects.get()
    assert approval.beside_the_dealer and approval.recorded_by.username == "carl_compliance"


@pytest.mark.django_db
def test_box_location_approval_not_recorded_by_operations(ops_client: Client) -> None:
    assert ops_client.get("/admin/casino/locationapproval/add/").status_code == 403
