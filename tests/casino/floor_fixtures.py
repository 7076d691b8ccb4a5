"""Factories for the floor tests: staff in their groups, and a fully compliant table of any
game built through the services at a given moment (an injected clock, never the wall clock).

Layout elements are written out here by hand from each chapter's layout section
(§ 675a.1(b), § 675a.6(b), § 623a.2(d), § 623b, § 621a.2(b), § 625a.1(b)-(c), § 661a.2(b)),
so a test that the gates accept them also checks the code's element names.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from casino.models import (
    CertificateHolder,
    EquipmentSet,
    Layout,
    LocationApproval,
    RulesSubmission,
    SetInPlay,
    Table,
)
from casino.services.equipment import set_put_in_play, tile_inspection_record
from casino.services.layouts import layout_decide, layout_submit
from casino.services.submissions import submission_approve, submission_draft, submission_submit
from casino.services.tables import location_approval_record
from gaming.tables import sic_bo_inspection_record, table_open

NY = ZoneInfo("America/New_York")  # the casino's time zone (settings.TIME_ZONE)

DEALER = "Dee Dealer"
FLOORPERSON = "Fran Floor"


def at(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    """A wall-clock moment in Pennsylvania, as the UTC instant the services are given."""
    return datetime(year, month, day, hour, minute, second, tzinfo=NY).astimezone(UTC)


# A Monday in March before the change to daylight time (EST, UTC-5).
T0 = at(2026, 3, 2, 8, 0)

STANDARD_VARIANT = {
    "craps": "craps",
    "high_roll_dice": "10_dice",
    "pai_gow": "standard",
    "sic_bo": "standard",
    "three_dice_football": "standard",
}

NUMBER_PREFIX = {
    ("craps", "craps"): "CR",
    ("craps", "mini_craps"): "MC",
    ("high_roll_dice", "10_dice"): "HR",
    ("high_roll_dice", "6_dice"): "HS",
    ("pai_gow", "standard"): "PG",
    ("sic_bo", "standard"): "SB",
    ("three_dice_football", "standard"): "TD",
}

_CRAPS_LAYOUT = {
    "name_or_logo": True,  # § 623a.2(d)(1)
    "wager_areas": True,  # § 623a.2(d)(2)
    "no_call_bets": True,  # § 623a.2(d)(3)
    "fire_bet_areas": 12,  # § 623a.2(d)(4)(i): no more than 16
    "fire_bet_relocation_area": True,  # § 623a.2(d)(4)(ii)
    "fire_bet_wall_notice": True,  # § 623a.2(d)(4)(iii): odds, before come out, limits
    "hot_roller_areas": 12,  # § 623b.1(a)(2)(i)
    "hot_roller_relocation_area": True,  # § 623b.1(a)(2)(ii)
    "hot_roller_marker_area": True,  # § 623b.1(a)(2)(iii)
    "hot_roller_payout_odds": True,  # § 623b.1(a)(2)(iv)
    "make_em_all": True,  # § 623b.3(b)
    "lucky_shooter_electronic_area": True,  # § 623b.2(b)
    "hot_shooter_electronic_area": True,  # § 623b.4(b)
}
_HRD_COMMON = {
    "name_or_logo": True,  # § 675a.1(b)(1)
    "pip_street_dice": True,  # § 675a.1(b)(2)(iii), § 675a.6(b)(2)
    "payout_odds": True,  # § 675a.1(b)(3)
    "payout_limit_inscription": True,  # § 675a.1(b)(4)
    "throw_box": True,  # § 675a.1(b)(5)
    "like_kind_circles": True,  # § 675a.1(b)(2)(i), § 675a.6(b)(1)
    "equal_value_inscription": True,  # § 675a.1(b)(2)(iv), § 675a.6(b)(3)
}
FULL_LAYOUTS: dict[tuple[str, str], dict[str, Any]] = {
    ("craps", "craps"): _CRAPS_LAYOUT,
    ("craps", "mini_craps"): _CRAPS_LAYOUT,
    ("high_roll_dice", "10_dice"): {
        **_HRD_COMMON,
        "millionaire_row_circles": True,  # § 675a.1(b)(2)(ii)
        "extra_roll_sensor": True,  # § 675a.1(b)(2)(v)
    },
    ("high_roll_dice", "6_dice"): dict(_HRD_COMMON),
    ("pai_gow", "standard"): {
        "name_or_logo": True,  # § 621a.2(b)(1)
        "betting_areas": True,  # § 621a.2(b)(2)
        "dead_hand_area": True,  # § 621a.2(b)(3)
    },
    ("sic_bo", "standard"): {
        "name_or_logo": True,  # § 625a.1(c)(1)
        "wager_areas": True,  # § 625a.1(c)(2)
        "payout_odds": True,  # § 625a.1(c)(3)
        "illuminated_wager_area": True,  # § 625a.1(b)
    },
    ("three_dice_football", "standard"): {
        "name_or_logo": True,  # § 661a.2(b)(1)
        "wager_areas": True,  # § 661a.2(b)(2)
        "payout_odds": True,  # § 661a.2(b)(3)
        "football_field": True,  # § 661a.2(b)(4)
        "downs_area": True,  # § 661a.2(b)(5)
        "game_length_area": True,  # § 661a.2(b)(6)
    },
}

# The dice (and tiles) each table is played with, from the chapters.
SETS_NEEDED: dict[tuple[str, str], tuple[str, ...]] = {
    ("craps", "craps"): ("five_dice",),  # § 623a.7(a)
    ("craps", "mini_craps"): ("five_dice",),
    ("three_dice_football", "standard"): ("four_green_two_red",),  # § 661a.4(a)
    ("high_roll_dice", "10_dice"): ("ten_dice",),  # § 675a.3(a)
    ("high_roll_dice", "6_dice"): ("six_dice",),  # § 675a.6(e)
    ("sic_bo", "standard"): ("three_dice",),  # § 625a.2(a)
    ("pai_gow", "standard"): ("three_dice", "tiles_32"),  # § 621a.2(d), § 621a.3
}


def staff(name: str, group: str | None) -> Any:
    """A user in the named group (None: in no group)."""
    user, _ = get_user_model().objects.get_or_create(username=name)
    if group is not None:
        user.groups.add(Group.objects.get(name=group))
    return get_user_model().objects.get(pk=user.pk)  # a fresh permission cache


def operations() -> Any:
    return staff("olive_ops", "operations")


def compliance() -> Any:
    return staff("carl_compliance", "compliance")


def holder_get(name: str = "Keystone Test Casino") -> CertificateHolder:
    return CertificateHolder.objects.get_or_create(name=name)[0]


def submission_in_force(
    holder: CertificateHolder,
    game: str,
    *,
    now: datetime,
    variants: list[str],
    table_types: list[str] | None = None,
    options: dict[str, Any] | None = None,
    effective_at: datetime | None = None,
) -> RulesSubmission:
    """Drafted and submitted by operations, approved by compliance at `now`."""
    draft = submission_draft(
        holder,
        game,
        variants=variants,
        table_types=table_types or ["manual"],
        options=options or {},
        by=operations(),
        now=now,
    )
    submission_submit(draft, by=operations(), now=now)
    return submission_approve(draft, by=compliance(), now=now, effective_at=effective_at)


def layout_approved(
    holder: CertificateHolder,
    game: str,
    variant: str,
    *,
    now: datetime,
    elements: dict[str, Any] | None = None,
    name: str | None = None,
) -> Layout:
    """A layout submitted by operations and approved (§ 601a.10(a))."""
    layout = Layout.objects.create(
        holder=holder,
        name=name or f"{game} {variant} layout {Layout.objects.count() + 1}",
        game=game,
        variant=variant,
        elements=FULL_LAYOUTS[(game, variant)] if elements is None else elements,
        created_at=now,
        created_by=operations(),
    )
    layout_submit(layout, by=operations(), now=now)
    return layout_decide(layout, approve=True, by=compliance(), now=now, note="BGO-1")


def location_approve(
    table: Table, *, now: datetime, beside_the_dealer: bool = True, shaker_location: str = ""
) -> LocationApproval:
    """The Bureau of Casino Compliance's approval of the box locations (§ 601a.10(g)),
    recorded by compliance through the service."""
    return location_approval_record(
        table,
        drop_box_location="dealer's left",
        tip_box_location="dealer's right",
        beside_the_dealer=beside_the_dealer,
        shaker_location=shaker_location,
        approved_by_name="Casey Supervisor",
        approved_at=now,
        by=compliance(),
        now=now,
    )


def location_approval_unchecked(
    table: Table, *, now: datetime, beside_the_dealer: bool = True, shaker_location: str = ""
) -> LocationApproval:
    """An approval written straight to the table (the shell, an import of old records):
    the service would refuse one that lacks what the chapter asks, the gate must too."""
    return LocationApproval.objects.create(
        table=table,
        drop_box_location="dealer's left",
        tip_box_location="dealer's right",
        beside_the_dealer=beside_the_dealer,
        shaker_location=shaker_location,
        approved_by_name="Casey Supervisor",
        approved_at=now,
    )


def set_new(
    holder: CertificateHolder,
    identifier: str,
    composition: str,
    *,
    now: datetime,
    meets_603a_12_c: bool = False,
) -> EquipmentSet:
    """A set received into the reserve."""
    return EquipmentSet.objects.create(
        holder=holder,
        identifier=identifier,
        composition=composition,
        meets_603a_12_c=meets_603a_12_c,
        received_at=now - timedelta(days=1),
    )


def tiles_inspected(row: SetInPlay, *, now: datetime) -> None:
    """A suitable set: the dealer inspects, a floorperson verifies (§ 621a.4(a))."""
    tile_inspection_record(
        row,
        dealer_name=DEALER,
        floorperson_name=FLOORPERSON,
        all_pairs_present=True,
        same_size_and_shading=True,
        unflawed=True,
        by=operations(),
        now=now,
    )


def sic_bo_inspected(table: Table, *, now: datetime, **overrides: Any) -> None:
    """The floorperson's opening inspection (§ 625a.5(a)), passed unless overridden."""
    values: dict[str, Any] = {"values_entered": "2,5,5", "winning_combinations_lit": True}
    if table.automated_shaker:
        values.update(shaker_operations=3, dice_properly_tossed=True)
    values.update(overrides)
    sic_bo_inspection_record(
        table, floorperson_name=FLOORPERSON, by=operations(), now=now, **values
    )


@dataclass
class Floor:
    """One table and the records that let it open."""

    holder: CertificateHolder
    table: Table
    submission: RulesSubmission | None
    layout: Layout | None
    sets: dict[str, EquipmentSet] = field(default_factory=dict)

    def refresh(self) -> Table:
        self.table.refresh_from_db()
        return self.table


def compliant_table(
    game: str,
    variant: str | None = None,
    *,
    now: datetime = T0,
    number: str | None = None,
    operation: str = "manual",
    automated_shaker: bool = False,
    power_odds: bool = False,
    min_wager: str = "5",
    max_wager: str = "500",
    options: dict[str, Any] | None = None,
    submission_variants: list[str] | None = None,
    submission_table_types: list[str] | None = None,
    layout_elements: dict[str, Any] | None = None,
    meets_603a_12_c: bool = False,
    with_submission: bool = True,
    with_layout: bool = True,
    with_location: bool = True,
    with_sets: bool = True,
    with_inspections: bool = True,
    with_devices: bool = True,
    open_table: bool = False,
) -> Floor:
    """A table of `game` with everything the gates ask for at `now`, each part optional.

    The submission and layout are approved an hour before `now`; the sets go into play
    at `now`, tiles and the Sic Bo table are inspected at `now`.
    """
    variant = variant or STANDARD_VARIANT[game]
    holder = holder_get()
    before = now - timedelta(hours=1)
    submission = RulesSubmission.in_force(holder, game, now)
    if with_submission and not RulesSubmission.objects.filter(holder=holder, game=game).exists():
        submission = submission_in_force(
            holder,
            game,
            now=before,
            variants=submission_variants or [variant],
            table_types=submission_table_types or [operation],
            options=options,
        )
    layout = None
    if with_layout:
        layout = layout_approved(holder, game, variant, now=before, elements=layout_elements)
    prefix = NUMBER_PREFIX[(game, variant)]
    table = Table.objects.create(
        holder=holder,
        number=number or f"{prefix}-{Table.objects.filter(holder=holder).count() + 1:02d}",
        game=game,
        variant=variant,
        min_wager=Decimal(min_wager),
        max_wager=Decimal(max_wager),
        operation=operation,
        automated_shaker=automated_shaker,
        power_odds=power_odds,
        layout=layout,
    )
    table.full_clean()
    if with_location:
        location_approve(
            table, now=before, shaker_location="left of the dealer" if automated_shaker else ""
        )
    floor = Floor(holder, table, submission, layout)
    if with_sets:
        for composition in SETS_NEEDED[(game, variant)]:
            identifier = f"{table.number}-{composition}-1"
            equipment_set = set_new(
                holder, identifier, composition, now=now, meets_603a_12_c=meets_603a_12_c
            )
            row = set_put_in_play(table, equipment_set, by=operations(), now=now)
            floor.sets[composition] = equipment_set
            if composition == "tiles_32" and with_inspections:
                tiles_inspected(row, now=now)
    if game == "sic_bo" and with_inspections:
        sic_bo_inspected(table, now=now)
    if with_devices:
        from tests.devices.device_fixtures import devices_ready

        devices_ready(table, now=now)
    if open_table:
        table_open(table, by=operations(), now=now)
    floor.refresh()
    return floor
