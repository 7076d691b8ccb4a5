"""Every refusal to open a table or start a round, each with its message (issue 6 item 4).

A table is built compliant through the services (tests/casino/floor_fixtures.py) and one
thing is taken away; the gate must then give exactly that reason and nothing else.
"""

from datetime import timedelta

import pytest

from casino.models import CertificateHolder, Layout, LocationApproval, Table
from casino.services import FloorRefused
from casino.services.layouts import layout_decide, layout_submit
from casino.services.submissions import (
    submission_approve,
    submission_draft,
    submission_new_version,
    submission_submit,
)
from casino.services.tables import location_approval_record, table_suspend
from gaming.tables import (
    opening_refusals,
    round_start_check,
    round_start_refusals,
    sic_bo_inspection_record,
    table_close,
    table_open,
)
from tests.casino.floor_fixtures import (
    FLOORPERSON,
    FULL_LAYOUTS,
    T0,
    compliance,
    compliant_table,
    location_approval_unchecked,
    location_approve,
    operations,
    sic_bo_inspected,
    submission_in_force,
)

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)
HOLDER = "Keystone Test Casino"


def open_refused(table: Table, now=T0) -> list[str]:
    """The reasons table_open gives; the table must stay as it was."""
    status = Table.objects.get(pk=table.pk).status
    with pytest.raises(FloorRefused) as refused:
        table_open(table, by=operations(), now=now)
    assert Table.objects.get(pk=table.pk).status == status
    return refused.value.reasons


def opening_refused_none(table: Table) -> bool:
    """True when nothing stops the table opening at T0."""
    return opening_refusals(table, T0) == []


def without(game: str, variant: str, *keys: str) -> dict:
    return {k: v for k, v in FULL_LAYOUTS[(game, variant)].items() if k not in keys}


# --- a compliant table of each game opens ---------------------------------------------


@pytest.mark.parametrize(
    ("game", "variant", "extra"),
    [
        ("craps", "craps", {}),
        ("craps", "mini_craps", {}),
        ("craps", "craps", {"operation": "hybrid"}),
        ("craps", "craps", {"operation": "electronic"}),
        ("high_roll_dice", "10_dice", {}),
        ("high_roll_dice", "6_dice", {}),
        ("pai_gow", "standard", {}),
        ("sic_bo", "standard", {}),
        ("sic_bo", "standard", {"automated_shaker": True}),
        ("three_dice_football", "standard", {}),
    ],
)
def test_a_fully_compliant_table_opens_and_starts_a_round(game, variant, extra):
    floor = compliant_table(game, variant, **extra)
    assert opening_refusals(floor.table, T0) == []
    table_open(floor.table, by=operations(), now=T0)
    table = floor.refresh()
    assert (table.status, table.status_changed_at) == ("open", T0)
    round_start_check(table, T0)
    round_start_check(table, T0 + 11 * H)  # tiles are in date 12 hours, dice 24


def test_everything_missing_is_said_at_once():
    floor = compliant_table(
        "craps", with_submission=False, with_layout=False, with_location=False, with_sets=False
    )
    assert open_refused(floor.table) == [
        f"no approved Rules Submission is in force for Craps at {HOLDER} (58 Pa. Code § 601a.2)",
        "CR-01 has no layout assigned (58 Pa. Code § 601a.10(a))",
        "the drop box and tip box locations have not been approved by the Bureau of Casino "
        "Compliance (58 Pa. Code § 623a.2(e), § 601a.10(g))",
        "no set of five dice is in play at CR-01 (58 Pa. Code § 623a.7(a))",
    ]


# --- the Rules Submission in force (§ 601a.2) -----------------------------------------


def test_no_rules_submission_in_force():
    floor = compliant_table("craps", with_submission=False)
    assert open_refused(floor.table) == [
        f"no approved Rules Submission is in force for Craps at {HOLDER} (58 Pa. Code § 601a.2)"
    ]


def test_a_submitted_but_not_approved_submission_is_not_in_force():
    floor = compliant_table("sic_bo", with_submission=False)
    draft = submission_draft(
        floor.holder,
        "sic_bo",
        variants=["standard"],
        table_types=["manual"],
        options={},
        by=operations(),
        now=T0 - H,
    )
    submission_submit(draft, by=operations(), now=T0 - H)
    assert open_refused(floor.table) == [
        f"no approved Rules Submission is in force for Sic Bo at {HOLDER} (58 Pa. Code § 601a.2)"
    ]


def test_a_submission_effective_in_the_future_is_not_yet_in_force_then_is():
    floor = compliant_table("three_dice_football", with_submission=False)
    submission_in_force(
        floor.holder,
        "three_dice_football",
        now=T0 - H,
        variants=["standard"],
        effective_at=T0 + H,
    )
    message = (
        "no approved Rules Submission is in force for Three Dice Football at "
        f"{HOLDER} (58 Pa. Code § 601a.2)"
    )
    assert open_refused(floor.table, T0 + H - timedelta(seconds=1)) == [message]
    table_open(floor.table, by=operations(), now=T0 + H)  # in force at that very moment
    assert floor.refresh().status == "open"


def test_another_holders_submission_does_not_count():
    floor = compliant_table("craps", with_submission=False)
    other = CertificateHolder.objects.create(name="Other Casino")
    submission_in_force(other, "craps", now=T0 - H, variants=["craps"])
    assert open_refused(floor.table) == [
        f"no approved Rules Submission is in force for Craps at {HOLDER} (58 Pa. Code § 601a.2)"
    ]


def test_675a_6_a_the_6_dice_variation_only_if_selected():
    floor = compliant_table("high_roll_dice", "6_dice", submission_variants=["10_dice"])
    assert open_refused(floor.table) == [
        f"the Rules Submission in force ({HOLDER} · High Roll Dice v1) does not select the "
        "6-dice variation (58 Pa. Code § 675a.6(a))"
    ]


def test_a_variant_the_submission_does_not_cover():
    floor = compliant_table("craps", "mini_craps", submission_variants=["craps"])
    assert open_refused(floor.table) == [
        f"the Rules Submission in force ({HOLDER} · Craps v1) does not cover the Mini-Craps variant"
    ]


def test_a_table_type_the_submission_does_not_cover():
    floor = compliant_table("craps", operation="hybrid", submission_table_types=["manual"])
    assert open_refused(floor.table) == [
        f"the Rules Submission in force ({HOLDER} · Craps v1) does not cover hybrid tables"
    ]


def test_the_tables_minimum_below_the_submissions_and_maximum_above():
    floor = compliant_table(
        "craps", options={"min_wager": "10", "max_wager": "400"}, min_wager="5", max_wager="500"
    )
    assert open_refused(floor.table) == [
        f"the table's min wager $5.00 is below the $10 of the Rules Submission in force "
        f"({HOLDER} · Craps v1)",
        f"the table's max wager $500.00 is above the $400 of the Rules Submission in force "
        f"({HOLDER} · Craps v1)",
    ]


def test_limits_within_the_submissions_range_open():
    floor = compliant_table(
        "craps", options={"min_wager": "10", "max_wager": "400"}, min_wager="10", max_wager="400"
    )
    assert opening_refusals(floor.table, T0) == []


# The payout-limit floor of § 675a.5(e), worked by hand from the paytables
# (games/rules/high_roll_dice/payout_limit.py counts the same way): one unit on every
# Pip Street die and every Like Kind circle, and an Extra Roll. Ten dice: the best round
# is eight 2s (or 3s) on the first roll: Pip Street 6 to 1 plus eight of a kind 5,000 to 1
# = 5,006 units (seven of a kind then eight on the Extra Roll is only 400 + 50 + 6 = 456;
# Millionaire Row is excluded by § 675a.5(e)). At a $10 minimum: $50,060 > $50,000.
# Six dice (§ 675a.6(j), (k)): six 2s: 8 to 1 plus six of a kind 6,000 to 1 = 6,008 units;
# at a $10 minimum: $60,080.


def test_675a_5_e_a_payout_limit_below_the_floor_at_this_tables_minimum_is_refused():
    floor = compliant_table("high_roll_dice", options={"payout_limit": "50000"}, min_wager="10")
    assert open_refused(floor.table) == [
        "payout_limit: may not be less than $50060.00 ($50,000 or the most one patron could "
        "win at the minimum wager, § 675a.5(e)) (at this table)"
    ]


def test_675a_5_e_the_same_limit_is_fine_at_a_5_dollar_table():
    # 5,006 x $5 = $25,030, below $50,000: the floor is $50,000.
    floor = compliant_table("high_roll_dice", options={"payout_limit": "50000"}, min_wager="5")
    assert opening_refusals(floor.table, T0) == []


def test_675a_6_l_the_6_dice_floor_at_a_10_dollar_minimum():
    floor = compliant_table(
        "high_roll_dice", "6_dice", options={"payout_limit": "60079.99"}, min_wager="10"
    )
    assert open_refused(floor.table) == [
        "payout_limit: may not be less than $60080.00 ($50,000 or the most one patron could "
        "win at the minimum wager, § 675a.6(l)) (at this table)"
    ]


def test_a_round_refused_when_the_next_version_no_longer_covers_the_table():
    floor = compliant_table(
        "craps", "mini_craps", submission_variants=["craps", "mini_craps"], open_table=True
    )
    v2 = submission_new_version(floor.submission, by=operations(), now=T0)
    v2.variants = ["craps"]
    v2.save()
    submission_submit(v2, by=operations(), now=T0)
    submission_approve(v2, by=compliance(), now=T0, effective_at=T0 + 23 * H)
    assert round_start_refusals(floor.table, T0 + 22 * H) == []
    assert round_start_refusals(floor.table, T0 + 23 * H) == [
        f"the Rules Submission in force ({HOLDER} · Craps v2) does not cover the Mini-Craps variant"
    ]


# --- the layout (§ 601a.10(a)) --------------------------------------------------------


def test_no_layout():
    floor = compliant_table("craps", with_layout=False)
    assert open_refused(floor.table) == ["CR-01 has no layout assigned (58 Pa. Code § 601a.10(a))"]


@pytest.mark.parametrize("stage", ["draft", "submitted", "rejected"])
def test_a_layout_not_approved(stage):
    floor = compliant_table("pai_gow", with_layout=False)
    layout = Layout.objects.create(
        holder=floor.holder,
        name="PG cloth",
        game="pai_gow",
        variant="standard",
        elements=FULL_LAYOUTS[("pai_gow", "standard")],
        created_at=T0 - H,
    )
    if stage != "draft":
        layout_submit(layout, by=operations(), now=T0 - H)
    if stage == "rejected":
        layout_decide(layout, approve=False, by=compliance(), now=T0 - H, note="colours")
    floor.table.layout = layout
    floor.table.save()
    assert open_refused(floor.table) == [
        f"the layout PG cloth · Pai Gow (tiles) is {stage}, not approved (58 Pa. Code § 601a.10(a))"
    ]


def test_623a_2_d_4_i_a_layout_without_fire_bet_areas_when_the_fire_bet_is_offered():
    floor = compliant_table(
        "craps",
        options={"fire_bet_paytable": "B"},
        layout_elements=without("craps", "craps", "fire_bet_areas"),
    )
    assert open_refused(floor.table) == [
        "the layout lacks numbered Fire Bet areas (no more than 16) around the perimeter "
        "(58 Pa. Code § 623a.2(d)(4)(i))"
    ]


def test_623a_11_b_1_the_fire_bet_limits_fixed_by_the_text_must_be_on_the_wall():
    # Reading: § 623a.11(b)(1) fixes $1-$5, so the holder chooses nothing in its
    # submission; what the floor enforces is § 623a.2(d)(4)(iii)(C), the limits shown
    # on the inside wall.
    floor = compliant_table(
        "craps",
        options={"fire_bet_paytable": "A"},
        layout_elements=without("craps", "craps", "fire_bet_wall_notice"),
    )
    assert open_refused(floor.table) == [
        "the layout lacks on the inside wall: the Fire Bet payout odds, that Fire Bets are "
        "accepted only before a shooter's initial come out roll, and the Fire Bet wager "
        "limitations (58 Pa. Code § 623a.2(d)(4)(iii))"
    ]


def test_the_fire_bet_is_offered_by_default_so_its_areas_are_needed_by_default():
    # The engine's defaults offer every wager (docs/scenarios.md): an empty submission
    # offers the Fire Bet with paytable A.
    floor = compliant_table("craps", layout_elements=without("craps", "craps", "fire_bet_areas"))
    assert "(58 Pa. Code § 623a.2(d)(4)(i))" in open_refused(floor.table)[0]


def test_a_layout_without_fire_bet_areas_is_fine_when_the_fire_bet_is_not_offered():
    floor = compliant_table(
        "craps",
        options={"fire_bet_paytable": "none"},
        layout_elements=without(
            "craps", "craps", "fire_bet_areas", "fire_bet_relocation_area", "fire_bet_wall_notice"
        ),
    )
    assert opening_refusals(floor.table, T0) == []


def test_675a_1_b_4_a_payout_limit_needs_its_inscription_or_a_sign():
    elements = without("high_roll_dice", "10_dice", "payout_limit_inscription")
    floor = compliant_table(
        "high_roll_dice", options={"payout_limit": "50000"}, layout_elements=elements
    )
    assert open_refused(floor.table) == [
        "the layout lacks inscriptions advising patrons of the payout limit, or a sign "
        "identifying the payout limit, posted at the table (58 Pa. Code § 675a.1(b)(4))"
    ]


def test_675a_1_b_4_a_sign_posted_at_the_table_does_instead():
    elements = without("high_roll_dice", "10_dice", "payout_limit_inscription")
    elements["payout_limit_sign"] = True
    floor = compliant_table(
        "high_roll_dice", options={"payout_limit": "50000"}, layout_elements=elements
    )
    assert opening_refused_none(floor.table)


def test_675a_1_b_4_no_payout_limit_no_inscription_needed():
    elements = without("high_roll_dice", "10_dice", "payout_limit_inscription")
    floor = compliant_table("high_roll_dice", layout_elements=elements)
    assert opening_refused_none(floor.table)


@pytest.mark.parametrize(
    ("game", "variant", "missing", "message"),
    [
        (
            "high_roll_dice",
            "10_dice",
            "throw_box",
            'the layout lacks a throw box with areas labeled "Ace" through "Six" '
            "(58 Pa. Code § 675a.1(b)(5))",
        ),
        (
            "high_roll_dice",
            "10_dice",
            "extra_roll_sensor",
            "the layout lacks an extra-roll sensor at each betting position "
            "(58 Pa. Code § 675a.1(b)(2)(v))",
        ),
        (
            "craps",
            "craps",
            "no_call_bets",
            'the layout lacks the words "no call bets" (58 Pa. Code § 623a.2(d)(3))',
        ),
        (
            "pai_gow",
            "standard",
            "dead_hand_area",
            "the layout lacks an area to the left of the dealer for the four tiles of the Dead "
            "Hand (58 Pa. Code § 621a.2(b)(3))",
        ),
        (
            "sic_bo",
            "standard",
            "payout_odds",
            "the layout lacks the payout odds for all permissible wagers, or a sign identifying "
            "the payout odds, posted at the table (58 Pa. Code § 625a.1(c)(3))",
        ),
        (
            "three_dice_football",
            "standard",
            "game_length_area",
            "the layout lacks a game length area labeled 1 through 6 (58 Pa. Code § 661a.2(b)(6))",
        ),
    ],
)
def test_a_layout_lacking_an_element_every_layout_needs_is_not_submitted(
    game, variant, missing, message
):
    floor = compliant_table(game, variant, with_layout=False)
    layout = Layout.objects.create(
        holder=floor.holder,
        name="cloth",
        game=game,
        variant=variant,
        elements=without(game, variant, missing),
        created_at=T0,
    )
    with pytest.raises(FloorRefused) as refused:
        layout_submit(layout, by=operations(), now=T0)
    assert refused.value.reasons == [message]
    layout.refresh_from_db()
    assert layout.status == "draft"


def test_a_payout_odds_sign_may_stand_in_for_the_odds_on_the_layout():
    elements = without("sic_bo", "standard", "payout_odds")
    elements["payout_odds_sign"] = True
    floor = compliant_table("sic_bo", layout_elements=elements)
    assert opening_refused_none(floor.table)


def test_623a_2_d_4_i_no_more_than_16_fire_bet_areas():
    floor = compliant_table("craps", with_layout=False)
    elements = {**FULL_LAYOUTS[("craps", "craps")], "fire_bet_areas": 17}
    layout = Layout.objects.create(
        holder=floor.holder,
        name="cloth",
        game="craps",
        variant="craps",
        elements=elements,
        created_at=T0,
    )
    with pytest.raises(FloorRefused) as refused:
        layout_submit(layout, by=operations(), now=T0)
    assert refused.value.reasons == [
        "no more than 16 fire bet areas (58 Pa. Code § 623a.2(d)(4)(i)); the layout has 17"
    ]


# --- box locations (§ 601a.10(g)) -----------------------------------------------------


@pytest.mark.parametrize(
    ("game", "cite"),
    [
        ("craps", "§ 623a.2(e)"),
        ("three_dice_football", "§ 661a.2(c)"),
        ("high_roll_dice", "§ 675a.1(d)"),
        ("pai_gow", "§ 621a.2(c)"),
        ("sic_bo", "§ 625a.1(a)"),
    ],
)
def test_no_box_location_approval(game, cite):
    floor = compliant_table(game, with_location=False)
    assert open_refused(floor.table) == [
        "the drop box and tip box locations have not been approved by the Bureau of Casino "
        f"Compliance (58 Pa. Code {cite}, § 601a.10(g))"
    ]


@pytest.mark.parametrize(
    ("game", "cite"),
    [("high_roll_dice", "§ 675a.1(d)"), ("pai_gow", "§ 621a.2(c)"), ("sic_bo", "§ 625a.1(a)")],
)
def test_boxes_beside_the_dealer_for_high_roll_dice_pai_gow_and_sic_bo(game, cite):
    floor = compliant_table(game, with_location=False)
    location_approval_unchecked(floor.table, now=T0 - H, beside_the_dealer=False)
    assert open_refused(floor.table) == [
        "the drop box and tip box must be on the same side of the table as, but on opposite "
        f"sides of, the dealer (58 Pa. Code {cite})"
    ]


def test_craps_and_three_dice_football_boxes_need_not_be_beside_the_dealer():
    for game in ("craps", "three_dice_football"):
        floor = compliant_table(game, with_location=False)
        location_approve(floor.table, now=T0 - H, beside_the_dealer=False)
        assert opening_refused_none(floor.table)


def test_the_latest_box_approval_counts():
    floor = compliant_table("pai_gow", with_location=False)
    location_approval_unchecked(floor.table, now=T0 - 2 * H, beside_the_dealer=False)
    location_approve(floor.table, now=T0 - H, beside_the_dealer=True)
    assert opening_refused_none(floor.table)


def test_601a_10_g_the_service_refuses_an_approval_lacking_what_the_chapter_asks():
    floor = compliant_table("sic_bo", automated_shaker=True, with_location=False)
    with pytest.raises(FloorRefused) as refused:
        location_approval_record(
            floor.table,
            drop_box_location=" ",
            tip_box_location="dealer's right",
            approved_by_name="",
            approved_at=T0 + H,
            by=compliance(),
            now=T0,
        )
    assert refused.value.reasons == [
        "name the drop box location",
        "name the Casino Compliance Supervisor who approved it",
        "an approval is recorded once given, not ahead of time",
        "the drop box and tip box must be on the same side of the table as, but on opposite "
        "sides of, the dealer (58 Pa. Code § 625a.1(a))",
        "the automated shaker's location must be approved (58 Pa. Code § 625a.1(d)(2)(iii))",
    ]
    assert not LocationApproval.objects.filter(table=floor.table).exists()


def test_625a_1_d_2_iii_an_automated_shakers_location_is_approved_too():
    floor = compliant_table("sic_bo", automated_shaker=True, with_location=False)
    location_approval_unchecked(floor.table, now=T0 - H, shaker_location="  ")
    assert open_refused(floor.table) == [
        "the automated shaker's location must be approved (58 Pa. Code § 625a.1(d)(2)(iii))"
    ]


# --- the Sic Bo opening inspection (§ 625a.5(a)) --------------------------------------


def test_625a_5_a_no_opening_inspection():
    floor = compliant_table("sic_bo", with_inspections=False)
    assert open_refused(floor.table) == [
        "the floorperson has not inspected the table since it last closed (58 Pa. Code § 625a.5(a))"
    ]


def test_625a_5_a_1_winning_combinations_not_lit():
    floor = compliant_table("sic_bo", with_inspections=False)
    sic_bo_inspected(floor.table, now=T0, winning_combinations_lit=False)
    assert open_refused(floor.table) == [
        "the opening inspection found the winning combinations not properly illuminated "
        "(58 Pa. Code § 625a.5(a)(1))"
    ]


@pytest.mark.parametrize(
    ("operations_count", "tossed"), [(2, True), (3, False)], ids=["twice", "not-tossed"]
)
def test_625a_5_a_2_the_automated_shaker_operated_three_times(operations_count, tossed):
    floor = compliant_table("sic_bo", automated_shaker=True, with_inspections=False)
    sic_bo_inspected(
        floor.table, now=T0, shaker_operations=operations_count, dice_properly_tossed=tossed
    )
    assert open_refused(floor.table) == [
        "the opening inspection did not operate the automated shaker three times with the dice "
        "properly tossed (58 Pa. Code § 625a.5(a)(2))"
    ]


def test_625a_5_a_2_an_automated_shakers_inspection_must_say_how_it_went():
    floor = compliant_table("sic_bo", automated_shaker=True, with_inspections=False)
    with pytest.raises(FloorRefused) as refused:
        sic_bo_inspection_record(
            floor.table,
            floorperson_name=FLOORPERSON,
            values_entered="2,5,5",
            winning_combinations_lit=True,
            by=operations(),
            now=T0,
        )
    assert refused.value.reasons == [
        "an automated shaker is inspected by operating it at least three times and checking "
        "the dice are properly tossed (58 Pa. Code § 625a.5(a)(2))"
    ]
    assert not floor.table.sic_bo_inspections.exists()


@pytest.mark.parametrize("values", ["2,5", "2,5,7", "a,b,c", "1,2,3,4"])
def test_625a_5_a_1_three_values_from_1_to_6_are_entered(values):
    floor = compliant_table("sic_bo", with_inspections=False)
    with pytest.raises(FloorRefused) as refused:
        sic_bo_inspected(floor.table, now=T0, values_entered=values)
    assert refused.value.reasons == [
        "enter three numeric values from 1 to 6, e.g. 2,5,5 (58 Pa. Code § 625a.5(a)(1))"
    ]


def test_625a_5_a_the_latest_inspection_counts():
    floor = compliant_table("sic_bo", with_inspections=False)
    sic_bo_inspected(floor.table, now=T0 - H, winning_combinations_lit=False)
    sic_bo_inspected(floor.table, now=T0 - H / 2)
    assert opening_refused_none(floor.table)


def test_625a_5_a_an_inspection_before_the_table_last_closed_does_not_count():
    floor = compliant_table("sic_bo", open_table=True)
    table_close(floor.table, by=operations(), now=T0 + H)
    assert open_refused(floor.table, T0 + 2 * H) == [
        "the floorperson has not inspected the table since it last closed (58 Pa. Code § 625a.5(a))"
    ]
    sic_bo_inspected(floor.table, now=T0 + 2 * H)
    table_open(floor.table, by=operations(), now=T0 + 2 * H)


# --- status: open, suspended, closed --------------------------------------------------


def test_a_suspended_table_refuses_rounds():
    floor = compliant_table("craps", open_table=True)
    table_suspend(floor.table, by=operations(), now=T0 + H)
    table = floor.refresh()
    assert (table.status, table.status_changed_at, table.closed_at) == ("suspended", T0 + H, None)
    assert round_start_refusals(table, T0 + H) == ["CR-01 is suspended, not open"]
    with pytest.raises(FloorRefused) as refused:
        round_start_check(table, T0 + H)
    assert refused.value.action == "Starting a round at CR-01"


def test_a_closed_table_refuses_rounds():
    floor = compliant_table("craps")
    assert round_start_refusals(floor.table, T0) == ["CR-01 is closed, not open"]


def test_an_open_table_is_not_opened_again():
    floor = compliant_table("sic_bo", open_table=True)
    assert open_refused(floor.table, T0 + H) == ["SB-01 is already open"]


def test_closing_records_when():
    floor = compliant_table("high_roll_dice", open_table=True)
    table_close(floor.table, by=operations(), now=T0 + 5 * H)
    table = floor.refresh()
    assert (table.status, table.status_changed_at, table.closed_at) == (
        "closed",
        T0 + 5 * H,
        T0 + 5 * H,
    )
    assert round_start_refusals(table, T0 + 5 * H) == ["HR-01 is closed, not open"]


def test_a_suspended_table_can_be_closed_and_a_closed_one_not_again():
    floor = compliant_table("pai_gow", open_table=True)
    table_suspend(floor.table, by=operations(), now=T0 + H)
    table_close(floor.table, by=operations(), now=T0 + 2 * H)
    assert floor.refresh().closed_at == T0 + 2 * H
    with pytest.raises(FloorRefused) as refused:
        table_close(floor.table, by=operations(), now=T0 + 3 * H)
    assert refused.value.reasons == ["PG-01 is closed"]
    with pytest.raises(FloorRefused):
        table_suspend(floor.table, by=operations(), now=T0 + 3 * H)
    assert floor.refresh().closed_at == T0 + 2 * H
