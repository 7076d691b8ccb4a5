"""Rules Submissions (§ 601a.2): the lifecycle, which version is in force, the validation
of each rule of issue 6 item 5, and the house edges shown before approval.

The validation tests call the pure `submission_refusals` (no database); the lifecycle
tests go through the services.
"""

from datetime import timedelta
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cache

import pytest
from django.db import IntegrityError, transaction

from casino.models import RulesSubmission
from casino.rules.submissions import PER_TABLE_OPTIONS, submission_refusals, table_options
from casino.services import FloorRefused
from casino.services.par import option_house_edges
from casino.services.submissions import (
    submission_approve,
    submission_draft,
    submission_new_version,
    submission_reject,
    submission_submit,
)
from games.par import par_document
from games.rules.craps.options import parse_options
from gaming.tables import opening_refusals
from tests.casino.floor_fixtures import T0, compliance, compliant_table, holder_get, operations

H = timedelta(hours=1)
SECOND = timedelta(seconds=1)
HOLDER = "Keystone Test Casino"

# The payout-limit floor of § 675a.5(e) and § 675a.6(l), by hand: "the maximum amount that
# one patron could win per round when betting the minimum wager", one minimum on every
# Pip Street die and every Like Kind circle (and an Extra Roll with ten dice).
# - Ten dice (§ 675a.5(a), (b), (d)): only one die value wins Pip Street (best 6 to 1, the
#   two or the three) and only one Like Kind circle wins on the first roll (best: eight of a
#   kind, 5,000 to 1). An Extra Roll cannot pay the eight again (§ 675a.4(h)) and (d) has no
#   nine or ten; seven then eight is 400 + 50 = 450 < 5,000. So 6 + 5,000 = 5,006 units.
#   Millionaire Row is left out of the limit by § 675a.5(e).
# - Six dice (§ 675a.6(j), (k)): two 8 to 1 + six of a kind 6,000 to 1 = 6,008 units.
TEN_DICE_UNITS = 5006
SIX_DICE_UNITS = 6008
TEN = "10 dice, manual"
SIX = "6-dice variation (§ 675a.6), manual"


def floor_refusal(amount: str, section: str, where: str) -> str:
    return (
        f"payout_limit: may not be less than ${amount} ($50,000 or the most one patron could "
        f"win at the minimum wager, {section}) [{where}]"
    )


def hrd(variants: list[str], **options: object) -> list[str]:
    return submission_refusals("high_roll_dice", variants, ["manual"], options)


def craps(table_types: list[str] | None = None, **options: object) -> list[str]:
    return submission_refusals("craps", ["craps"], table_types or ["manual"], options)


# --- § 675a.5(e), § 675a.6(l): the payout limit floor --------------------------------


def test_the_multipliers_worked_by_hand():
    assert TEN_DICE_UNITS * 10 == 50_060 and SIX_DICE_UNITS * 10 == 60_080
    assert TEN_DICE_UNITS * 5 == 25_030 < 50_000  # at $5 the $50,000 is the greater


def test_675a_5_e_at_a_5_dollar_minimum_the_floor_is_50000():
    assert hrd(["10_dice"], payout_limit="50000") == []
    assert hrd(["10_dice"], payout_limit="49999.99") == [
        floor_refusal("50000.00", "§ 675a.5(e)", TEN)
    ]


def test_675a_5_e_at_a_10_dollar_minimum_the_floor_is_5006_times_it():
    assert hrd(["10_dice"], min_wager="10", payout_limit="50060") == []
    assert hrd(["10_dice"], min_wager="10", payout_limit="50059.99") == [
        floor_refusal("50060.00", "§ 675a.5(e)", TEN)
    ]


def test_675a_6_l_the_6_dice_floor_is_6008_times_the_minimum():
    assert hrd(["6_dice"], min_wager="10", payout_limit="60080") == []
    assert hrd(["6_dice"], min_wager="10", payout_limit="60079.99") == [
        floor_refusal("60080.00", "§ 675a.6(l)", SIX)
    ]
    # $20 minimum: 6,008 x 20 = $120,160.
    assert hrd(["6_dice"], min_wager="20", payout_limit="120159.99") == [
        floor_refusal("120160.00", "§ 675a.6(l)", SIX)
    ]


def test_a_limit_fine_for_ten_dice_can_be_too_low_for_six():
    assert hrd(["10_dice", "6_dice"], min_wager="10", payout_limit="50060") == [
        floor_refusal("60080.00", "§ 675a.6(l)", SIX)
    ]


def test_675a_5_e_no_payout_limit_is_allowed():
    assert hrd(["10_dice", "6_dice"]) == []
    assert hrd(["10_dice"], payout_limit="none") == []


# --- § 623a.6(e): odds up to 10 times; § 623a.5(g)(3): vigorish up to 5% -------------


@pytest.mark.parametrize("multiple", [1, 10, "10"])
def test_623a_6_e_odds_multiple_from_1_to_10_accepted(multiple):
    assert craps(max_odds_multiple=multiple) == []


@pytest.mark.parametrize("multiple", [0, 11, -1, 2.5])
def test_623a_6_e_odds_multiple_outside_1_to_10_refused(multiple):
    assert craps(max_odds_multiple=multiple) == [
        "max_odds_multiple: must be a whole number from 1 to 10 (§ 623a.6(e)) [Craps, manual]"
    ]


@pytest.mark.parametrize("vig", ["5", "0", "2.5", "4.99"])
def test_623a_5_g_3_vigorish_up_to_5_percent_accepted(vig):
    assert craps(vig_percent=vig) == []


@pytest.mark.parametrize("vig", ["5.01", "6", "-1"])
def test_623a_5_g_3_vigorish_above_5_percent_refused(vig):
    assert craps(vig_percent=vig) == [
        "vig_percent: must be from 0 to 5 (§ 623a.5(g)(3)) [Craps, manual]"
    ]


@pytest.mark.parametrize("returned", [True, False, "true", "false"])
@pytest.mark.parametrize("collected", ["on_placement", "on_win"])
def test_623a_5_g_3_vig_returned_on_removal_accepted_with_either_procedure(returned, collected):
    # docs/regulations.md, Craps 7: with on_win it has no effect, and is not refused.
    assert craps(vig_collected=collected, vig_returned_on_removal=returned) == []


@pytest.mark.parametrize("returned", ["yes", 1, None, "kept"])
def test_623a_5_g_3_vig_returned_on_removal_not_true_or_false_refused(returned):
    assert craps(vig_collected="on_placement", vig_returned_on_removal=returned) == [
        "vig_returned_on_removal: must be true or false [Craps, manual]"
    ]


# --- § 623b.2(a) Lucky Shooter, § 623b.4(a) Hot Shooter Jackpot ----------------------

LUCKY = (
    "lucky_shooter_paytable: the Lucky Shooter wager is offered only on a fully automated "
    "electronic table, and this submission covers none (58 Pa. Code § 623b.2(a))"
)
HOT = (
    "hot_shooter_jackpot: the Hot Shooter Jackpot wager is offered only on an electronic or "
    "hybrid table, and this submission covers neither (58 Pa. Code § 623b.4(a))"
)


def test_623b_2_a_lucky_shooter_only_when_the_submission_covers_electronic_tables():
    assert craps(["manual", "hybrid"], lucky_shooter_paytable="A") == [LUCKY]
    assert craps(["electronic"], lucky_shooter_paytable="A") == []
    assert craps(["manual", "electronic"], lucky_shooter_paytable="B") == []
    assert craps(["manual"], lucky_shooter_paytable="none") == []


@pytest.mark.parametrize("offered", [True, "true"])
def test_623b_4_a_hot_shooter_only_with_hybrid_or_electronic_tables(offered):
    assert craps(["manual"], hot_shooter_jackpot=offered) == [HOT]
    assert craps(["hybrid"], hot_shooter_jackpot=offered) == []
    assert craps(["electronic"], hot_shooter_jackpot=offered) == []
    assert craps(["manual"], hot_shooter_jackpot=False) == []


# --- § 623b.5(a): Power Odds "if specified in its Rules Submission" ------------------


def test_623b_5_a_power_odds_only_where_the_submission_names_them():
    """A submission that does not name `power_odds` offers none on the floor (the engine's
    own default, offered, stays the scenario contract's); a table offers them only where it
    says so and its submission does; the PAR sheets of a submission follow what it says."""

    def at_table(submission: dict, table: bool | None) -> object:
        return table_options("craps", "craps", "manual", False, None, None, submission,
                             power_odds=table)["power_odds"]  # fmt: skip

    assert at_table({}, None) is False
    assert at_table({"power_odds": True}, None) is True
    assert at_table({}, True) is False
    assert at_table({"power_odds": False}, True) is False
    assert at_table({"power_odds": "true"}, True) is True  # as the engine takes it
    assert at_table({"power_odds": True}, False) is False
    assert parse_options({}).power_odds is True  # the scenario contract's default
    assert craps(["manual"], power_odds="yes") == [
        "power_odds: must be true or false [Craps, manual]"
    ]
    kinds = {w["kind"] for w in par_document("craps", at_options({}))["wagers"]}
    assert not any(kind.startswith("power_odds:") for kind in kinds)


def at_options(submission: dict) -> dict:
    return table_options("craps", "craps", "manual", False, None, None, submission)


# --- § 623a.11(b)(1): the Fire Bet's limits are the text's, not the holder's ---------


def test_623a_11_b_1_the_fire_bet_limits_are_no_submission_option():
    # Reading (docs/regulations.md 14): $1 to $5 are fixed, so there is nothing to choose;
    # an attempt is refused as an unknown option, and the floor checks instead that the
    # layout shows the limits (tests/casino/test_gates.py,
    # test_623a_11_b_1_the_fire_bet_limits_fixed_by_the_text_must_be_on_the_wall).
    [refusal] = craps(fire_bet_max_wager="25")
    assert refusal.startswith("fire_bet_max_wager: is not a Craps option; the options are ")
    assert craps(fire_bet_paytable="B") == []
    assert craps(fire_bet_paytable="C") == [
        "fire_bet_paytable: must be one of A, B, none [Craps, manual]"
    ]


# --- § 675a.6(a): the 6-dice variation only if selected ------------------------------


@pytest.mark.django_db
def test_675a_6_a_a_6_dice_table_under_a_submission_of_10_dice_only_is_refused():
    floor = compliant_table("high_roll_dice", "6_dice", submission_variants=["10_dice"])
    assert floor.submission.variants == ["10_dice"]
    assert opening_refusals(floor.table, T0) == [
        f"the Rules Submission in force ({HOLDER} · High Roll Dice v1) does not select the "
        "6-dice variation (58 Pa. Code § 675a.6(a))"
    ]


# --- per-table options, unknown options, every refusal at once -----------------------


@pytest.mark.parametrize(
    ("game", "variants", "name", "value"),
    [
        ("craps", ["craps"], "variant", "mini_craps"),
        ("craps", ["craps"], "table_type", "electronic"),
        ("high_roll_dice", ["10_dice"], "dice", 6),
        ("sic_bo", ["standard"], "shaker", "automated"),
    ],
)
def test_options_set_on_each_table_are_refused_in_a_submission(game, variants, name, value):
    assert submission_refusals(game, variants, ["manual"], {name: value}) == [
        f"{name}: set on each table, not in the Rules Submission"
    ]


def test_the_per_table_options_are_the_variant_type_dice_and_shaker():
    assert PER_TABLE_OPTIONS == {
        "craps": ("variant", "table_type"),
        "high_roll_dice": ("dice",),
        "sic_bo": ("shaker",),
        "pai_gow": (),
        "three_dice_football": (),
    }


@pytest.mark.parametrize(
    ("game", "variants", "name"),
    [
        ("craps", ["craps"], "Craps"),
        ("high_roll_dice", ["10_dice"], "High Roll Dice"),
        ("sic_bo", ["standard"], "Sic Bo"),
    ],
)
def test_unknown_options_are_refused_with_the_engines_message(game, variants, name):
    [refusal] = submission_refusals(game, variants, ["manual"], {"colour": "red"})
    assert refusal.startswith(f"colour: is not a {name} option; the options are ")


def test_every_bad_option_is_reported_not_only_the_first():
    refusals = craps(colour="red", fire_bet_paytable="Z", max_odds_multiple=11, vig_percent="6")
    assert sorted(r.split(":")[0] for r in refusals) == [
        "colour",
        "fire_bet_paytable",
        "max_odds_multiple",
        "vig_percent",
    ]
    assert all(r.endswith(" [Craps, manual]") for r in refusals)


def test_a_refusal_names_every_variant_and_table_type_it_applies_to():
    refusals = submission_refusals(
        "craps", ["craps", "mini_craps"], ["manual", "electronic"], {"max_odds_multiple": 0}
    )
    assert refusals == [
        "max_odds_multiple: must be a whole number from 1 to 10 (§ 623a.6(e)) "
        "[Craps, manual; Craps, electronic; Mini-Craps, manual; Mini-Craps, electronic]"
    ]


def test_a_per_table_option_does_not_hide_the_engines_refusals():
    refusals = submission_refusals(
        "high_roll_dice", ["10_dice"], ["manual"], {"dice": 6, "payout_limit": "1"}
    )
    assert refusals == [
        "dice: set on each table, not in the Rules Submission",
        floor_refusal("50000.00", "§ 675a.5(e)", TEN),
    ]


def test_variants_and_table_types_are_checked():
    assert submission_refusals("craps", ["big"], ["manual"], {}) == [
        "craps has no variant 'big'; choose from craps, mini_craps"
    ]
    assert submission_refusals("high_roll_dice", ["10_dice"], ["hybrid"], {}) == [
        "high_roll_dice is not played on a 'hybrid' table; choose from manual"
    ]
    assert submission_refusals("sic_bo", [], [], {}) == [
        "a submission covers at least one variant of the game",
        "a submission covers at least one kind of table",
    ]
    assert submission_refusals("sic_bo", ["standard"], ["manual"], ["shaker"]) == [
        "options must be a JSON object of option names and values"
    ]
    assert submission_refusals("roulette", ["x"], ["manual"], {}) == ["unknown game 'roulette'"]


# --- the lifecycle (§ 601a.2) ----------------------------------------------------------


def draft(game: str = "sic_bo", *, now=T0, **kwargs) -> RulesSubmission:
    values = {"variants": ["standard"], "table_types": ["manual"], "options": {}}
    values.update(kwargs)
    return submission_draft(holder_get(), game, by=operations(), now=now, **values)


@pytest.mark.django_db
def test_draft_submitted_approved():
    rs = draft()
    assert (rs.status, rs.version, rs.created_at, rs.created_by) == (
        "draft",
        1,
        T0,
        operations(),
    )
    submission_submit(rs, by=operations(), now=T0 + H)
    rs.refresh_from_db()
    assert (rs.status, rs.submitted_at, rs.submitted_by) == ("submitted", T0 + H, operations())
    submission_approve(rs, by=compliance(), now=T0 + 2 * H, note="BGO approval 26-17")
    rs.refresh_from_db()
    assert (rs.status, rs.decided_at, rs.decided_by, rs.decision_note) == (
        "approved",
        T0 + 2 * H,
        compliance(),
        "BGO approval 26-17",
    )
    assert rs.effective_at == T0 + 2 * H  # in force from its approval unless told later
    assert RulesSubmission.in_force(holder_get(), "sic_bo", T0 + 2 * H) == rs


@pytest.mark.django_db
def test_draft_submitted_rejected_with_a_reason():
    rs = draft()
    submission_submit(rs, by=operations(), now=T0)
    for blank in ("", "   "):
        with pytest.raises(FloorRefused) as refused:
            submission_reject(rs, by=compliance(), now=T0 + H, reason=blank)
        assert refused.value.reasons == ["a rejection says why"]
    rs.refresh_from_db()
    assert rs.status == "submitted"
    submission_reject(rs, by=compliance(), now=T0 + H, reason="  paytable not on file ")
    rs.refresh_from_db()
    assert (rs.status, rs.decision_note, rs.decided_at) == (
        "rejected",
        "paytable not on file",
        T0 + H,
    )
    with pytest.raises(FloorRefused) as refused:
        submission_approve(rs, by=compliance(), now=T0 + 2 * H)
    assert refused.value.reasons == [
        f"{HOLDER} · Sic Bo v1 is rejected; only a submitted one is approved"
    ]
    assert RulesSubmission.in_force(holder_get(), "sic_bo", T0 + 2 * H) is None


@pytest.mark.django_db
def test_only_a_draft_is_submitted_and_only_a_submitted_one_decided():
    rs = draft()
    with pytest.raises(FloorRefused) as refused:
        submission_approve(rs, by=compliance(), now=T0)
    assert refused.value.reasons == [
        f"{HOLDER} · Sic Bo v1 is draft; only a submitted one is approved"
    ]
    with pytest.raises(FloorRefused) as refused:
        submission_reject(rs, by=compliance(), now=T0, reason="no")
    assert refused.value.reasons == [
        f"{HOLDER} · Sic Bo v1 is draft; only a submitted one is rejected"
    ]
    submission_submit(rs, by=operations(), now=T0)
    with pytest.raises(FloorRefused) as refused:
        submission_submit(rs, by=operations(), now=T0)
    assert refused.value.reasons == [f"{HOLDER} · Sic Bo v1 is submitted, not a draft"]


@pytest.mark.django_db
def test_an_invalid_draft_is_not_submitted_and_stays_a_draft():
    rs = draft("craps", variants=["craps"], options={"max_odds_multiple": 11})
    with pytest.raises(FloorRefused) as refused:
        submission_submit(rs, by=operations(), now=T0)
    assert refused.value.reasons == [
        "max_odds_multiple: must be a whole number from 1 to 10 (§ 623a.6(e)) [Craps, manual]"
    ]
    rs.refresh_from_db()
    assert (rs.status, rs.submitted_at, rs.par_sheets) == ("draft", None, {})


@pytest.mark.django_db
def test_approval_may_not_date_a_version_in_the_past():
    rs = draft()
    submission_submit(rs, by=operations(), now=T0)
    with pytest.raises(FloorRefused) as refused:
        submission_approve(rs, by=compliance(), now=T0, effective_at=T0 - SECOND)
    [reason] = refused.value.reasons
    assert reason.endswith("is in the past; it would rewrite which rules were in force")
    rs.refresh_from_db()
    assert (rs.status, rs.effective_at) == ("submitted", None)
    submission_approve(rs, by=compliance(), now=T0, effective_at=T0)  # now itself is fine


@pytest.mark.django_db
def test_two_approved_versions_may_not_take_force_at_the_same_moment():
    v1 = draft()
    submission_submit(v1, by=operations(), now=T0)
    submission_approve(v1, by=compliance(), now=T0, effective_at=T0 + 24 * H)
    v2 = draft()  # a second version not superseding v1, so only the moment clashes
    submission_submit(v2, by=operations(), now=T0)
    with pytest.raises(FloorRefused) as refused:
        submission_approve(v2, by=compliance(), now=T0, effective_at=T0 + 24 * H)
    assert refused.value.reasons == [f"{HOLDER} · Sic Bo v1 already takes force at that moment"]
    v2.refresh_from_db()
    assert v2.status == "submitted"
    # The database refuses it too, whatever path the write takes.
    v2.status, v2.effective_at = "approved", T0 + 24 * H
    with pytest.raises(IntegrityError), transaction.atomic():
        v2.save()


@pytest.mark.django_db
def test_superseding_v1_today_v2_from_tomorrow_exactly_one_in_force_at_any_moment():
    v1 = draft()
    submission_submit(v1, by=operations(), now=T0)
    submission_approve(v1, by=compliance(), now=T0)
    v2 = submission_new_version(v1, by=operations(), now=T0 + H)
    assert (v2.version, v2.supersedes, v2.status) == (2, v1, "draft")
    assert (v2.variants, v2.table_types, v2.options) == (v1.variants, v1.table_types, v1.options)
    submission_submit(v2, by=operations(), now=T0 + H)
    tomorrow = T0 + 24 * H
    submission_approve(v2, by=compliance(), now=T0 + 2 * H, effective_at=tomorrow)
    v1.refresh_from_db()
    v2.refresh_from_db()

    expected = [
        (T0 - SECOND, None),
        (T0, v1),
        (T0 + 3 * H, v1),  # v2 is approved but not yet in force
        (tomorrow - SECOND, v1),
        (tomorrow, v2),
        (tomorrow + 30 * 24 * H, v2),
    ]
    for moment, version in expected:
        assert RulesSubmission.in_force(holder_get(), "sic_bo", moment) == version, moment
        approved_so_far = RulesSubmission.objects.filter(
            status="approved", effective_at__lte=moment
        ).order_by("-effective_at")
        # Exactly one candidate is the latest: no two share an effective moment.
        if version is not None:
            assert [r.effective_at for r in approved_so_far].count(version.effective_at) == 1
    assert v1.status == "approved"  # history keeps both


@pytest.mark.django_db
def test_a_superseded_version_never_comes_back_into_force():
    # v1 is approved to take force in a week; v2, superseding it, is approved for today.
    # Reading: v2 replaces v1, so v1 must never be in force after v2 (or the approval of
    # v2 for a date before v1's is refused).
    v1 = draft()
    submission_submit(v1, by=operations(), now=T0)
    submission_approve(v1, by=compliance(), now=T0, effective_at=T0 + 7 * 24 * H)
    v2 = submission_new_version(v1, by=operations(), now=T0)
    submission_submit(v2, by=operations(), now=T0)
    try:
        submission_approve(v2, by=compliance(), now=T0, effective_at=T0)
    except FloorRefused:
        return  # refusing the out-of-order approval is the other acceptable answer
    assert RulesSubmission.in_force(holder_get(), "sic_bo", T0 + 8 * 24 * H) == v2


@pytest.mark.django_db
def test_versions_are_numbered_per_holder_and_game():
    a = draft()
    b = draft()
    c = draft("three_dice_football")
    assert (a.version, b.version, c.version) == (1, 2, 1)


# --- house edges shown before approval -------------------------------------------------


def decimal_10(value: Fraction) -> str:
    """Rounded half-even to 10 places, as the PAR format writes house edges."""
    with localcontext() as ctx:
        ctx.prec = 50
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return str(exact.quantize(Decimal("1E-10")))


# Ways to throw each point with two dice, out of 36.
WAYS = {4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3}


@cache
def unique_points(made: frozenset[int]) -> dict[int, Fraction]:
    """P(the shooter ends with exactly k different points made), from points `made`.

    On a come out roll a point is established with probability ways/24 among the points
    (naturals and craps do not end the hand); it is made before a 7 with ways/(ways + 6).
    A repeated point leaves the count unchanged (§ 623a.11(b)(2)).
    """
    if len(made) == 6:
        return {6: Fraction(1)}
    established = {p: Fraction(w, 24) for p, w in WAYS.items()}
    made_it = {p: Fraction(w, w + 6) for p, w in WAYS.items()}
    stay = sum((established[p] * made_it[p] for p in made), Fraction(0))
    result = {len(made): sum((established[p] * (1 - made_it[p]) for p in WAYS), Fraction(0))}
    for p in WAYS:
        if p not in made:
            for k, q in unique_points(made | {p}).items():
                result[k] = result.get(k, Fraction(0)) + established[p] * made_it[p] * q
    return {k: v / (1 - stay) for k, v in result.items()}


def fire_bet_edge(pays: dict[int, int]) -> Fraction:
    """House edge of a Fire Bet paying `pays[k]` to 1 for k unique points (§ 623a.5(f))."""
    return -sum(
        (q * (pays[k] if k >= 4 else -1) for k, q in unique_points(frozenset()).items()),
        Fraction(0),
    )


def test_the_fire_bet_computation_agrees_with_the_published_edge_of_paytable_a():
    # Paytable A (24, 249, 999 to 1) is the common Fire Bet; its edge is the often
    # published 20.76%: a check of the independent computation used below.
    assert sum(unique_points(frozenset()).values()) == 1
    assert decimal_10(fire_bet_edge({4: 24, 5: 249, 6: 999}))[:6] == "0.2076"


@pytest.mark.django_db
def test_par_sheets_are_stored_at_submission_with_the_pass_line_edge():
    rs = draft("craps", variants=["craps"], options={"fire_bet_paytable": "B"})
    assert rs.par_sheets == {}
    submission_submit(rs, by=operations(), now=T0)
    rs.refresh_from_db()
    assert list(rs.par_sheets) == ["craps/manual"]
    sheet = rs.par_sheets["craps/manual"]
    assert sheet["title"] == "Craps, manual table"
    edges = {w["kind"]: w["house_edge"] for w in sheet["wagers"]}
    # Pass line: win 8/36 on the come out, then 2·(3/36·3/9 + 4/36·4/10 + 5/36·5/11):
    # 976/1980 = 244/495; edge 1 - 2·244/495 = 7/495 = 0.01414141414...
    assert edges["pass"] == "0.0141414141"
    assert sheet["options"]["fire_bet_paytable"] == "B"

    # § 623a.5(f) paytable B: 39, 199, 499 to 1 for four, five, six points.
    fire_b = decimal_10(fire_bet_edge({4: 39, 5: 199, 6: 499}))
    assert edges["fire"] == fire_b
    rows = {row["option"]: row for row in option_house_edges("craps", sheet)}
    assert rows["fire_bet_paytable"] == {
        "option": "fire_bet_paytable",
        "value": "B",
        "edges": [("fire", fire_b)],
    }
    assert rows["max_odds_multiple"]["edges"][0][0] == "odds:pass:4"
    assert rows["min_wager"]["edges"] == []


@pytest.mark.django_db
def test_par_sheets_one_per_variant_and_table_type():
    rs = draft(
        "craps",
        variants=["craps", "mini_craps"],
        table_types=["manual", "electronic"],
        options={"lucky_shooter_paytable": "A"},
    )
    submission_submit(rs, by=operations(), now=T0)
    rs.refresh_from_db()
    assert sorted(rs.par_sheets) == [
        "craps/electronic",
        "craps/manual",
        "mini_craps/electronic",
        "mini_craps/manual",
    ]
    assert rs.par_sheets["mini_craps/electronic"]["title"] == "Mini-Craps, electronic table"
    kinds = {w["kind"] for w in rs.par_sheets["craps/electronic"]["wagers"]}
    assert "lucky_shooter" in kinds  # § 623b.2(a): offered on the electronic table only
    assert "lucky_shooter" not in {w["kind"] for w in rs.par_sheets["craps/manual"]["wagers"]}


@pytest.mark.django_db
def test_par_sheet_of_pai_gow():
    rs = draft("pai_gow")
    submission_submit(rs, by=operations(), now=T0)
    rs.refresh_from_db()
    # docs/regulations.md: 31678123/1227135000 = 0.02581470090|9...; long division to
    # ten places gives 0.0258147009 (the eleventh digit is 0).
    assert decimal_10(Fraction(31678123, 1227135000)) == "0.0258147009"
    assert rs.par_sheets["standard/manual"]["wagers"] == [
        {"kind": "pai_gow", "house_edge": "0.0258147009"}
    ]


def test_a_zero_house_edge_reads_as_a_decimal():
    document = par_document("craps", {"max_odds_multiple": 3})
    sheet = {"options": {"max_odds_multiple": 3}, "wagers": document["wagers"]}
    [row] = option_house_edges("craps", sheet)
    # Odds are paid at true odds: no edge (§ 623a.6(a)-(d)).
    assert dict(row["edges"])["odds:pass:4"] == "0.0000000000"
