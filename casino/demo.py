"""The demo floor: what a newcomer sees after the README's first command.

Each capability that lands adds its records here, so the demo always shows everything
the platform does. `python3 floor.py` runs `load_demo_floor` at every start, possibly
days after the last one, so a load does this:

1. Refuses in production (DemoRefused): the logins below have a published password.
2. Creates the logins that are missing: `demo` (superuser), `demo-ops` (group
   operations) and `demo-compliance` (group compliance), all with DEMO_PASSWORD
   (casino/demo_accounts.py names them; production refuses them wherever found).
3. The first time only (the demo holder has no Rules Submission yet), builds the floor
   through the services, so the audit trail and the compliance report are real. Times
   are placed before `now` (the last ten days):
   - one Rules Submission per game, drafted and submitted by demo-ops and approved by
     demo-compliance (§ 601a.2); Craps has a superseded v1 and v2 in force, High Roll
     Dice a rejected v1 that selected no 6-dice variation;
   - one approved layout per game and variant, with every element its chapter and the
     options in force require (§ 601a.10(a)); a box location approval per table
     (§ 601a.10(g));
   - dice and tile sets put in play, with past changeouts (schedule, a lost die, a
     table reopened, a failed tile inspection sealed in its envelope), the Pai Gow tile
     inspections and the Sic Bo opening inspections; then the tables open.
   The floor then shows every state: CR-02's dice are due soon, MC-01's are overdue
   (the table is suspended and cannot start a round), TD-02 is closed with no set.
   Then the Sic Bo tables' past, for the statistics' charts (issue 23), each round
   settled at once: SB-02 (its month-long dice in the automated shaker) a spell of rounds
   on each of four days and in the last hour, fair; SB-01 72 rounds since it opened (in
   this gaming day), with LOADED dice (one of three shows 6 three times in five) and
   players backing 6: its set looks loaded (the fairness alert) and its hold falls out of
   its band (the hold alert), on the floor page and in the admin's "Hold and dice".
   `load_demo_floor --no-history` leaves the past out.
4. Every later load does the morning changeout: a set past its limit
   at any table but MC-01 is changed out by demo-ops (reason schedule), with new tiles
   inspected, so the floor is usable again; MC-01 stays overdue on purpose.
5. Keeps the reserve stocked (RESERVE_STOCK: four sets of every kind the floor plays, and
   four sets of dice for SB-02's automated shaker), so every changeout the chapters
   describe is recorded from the equipment schedule in one step, MC-01's included.
6. Runs the schedule check, so each set's due-soon or overdue flag is current.

A second load at the same moment adds nothing.
"""

import logging
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from casino.actors import acting_as
from casino.demo_accounts import (
    COMPLIANCE_USERNAME,
    DEMO_PASSWORD,
    DEMO_USERNAME,
    INTEGRATOR_USERNAME,
    OPS_USERNAME,
    REGULATOR_USERNAME,
)
from casino.models import (
    CertificateHolder,
    EquipmentSet,
    Layout,
    RulesSubmission,
    SetInPlay,
    Table,
)
from casino.roles import ROLES, roles_sync
from casino.rules.equipment import COMPOSITIONS, TILES
from casino.services import FloorRefused
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

# The demo assembles the whole floor, devices included: it sits above the devices app
# (nothing below imports it but the demo's own commands), so it imports devices openly.
from devices.models import Device
from devices.rules import KINDS
from devices.services import device_register
from devices.store import store
from games.demo_rounds import sic_bo_history_play
from games.services.hold import gaming_day_bounds, gaming_day_of
from gaming.devices import devices_watch
from gaming.tables import sic_bo_inspection_record, table_close, table_open

log = logging.getLogger(__name__)

DEMO_HOLDER = "Keystone Demo Casino"
DEMO_STAFF = {
    OPS_USERNAME: "operations",
    COMPLIANCE_USERNAME: "compliance",
    REGULATOR_USERNAME: "regulator",
}
# An integrator signs in with an API token (manage.py api_token_issue), not a password.
DEMO_INTEGRATORS = {INTEGRATOR_USERNAME: "integrator"}

# The people the records name (fictional).
DEALER = "M. Chen"
FLOORPERSON = "D. Okafor"
COMPLIANCE_SUPERVISOR = "R. Alvarez, Casino Compliance Supervisor"


class DemoTable(NamedTuple):
    number: str
    game: str
    variant: str
    seats: int
    min_wager: Decimal
    max_wager: Decimal
    operation: str = "manual"
    automated_shaker: bool = False
    power_odds: bool = False


D = Decimal
DEMO_TABLES: tuple[DemoTable, ...] = (
    DemoTable("CR-01", "craps", "craps", 14, D("10"), D("5000")),
    DemoTable("CR-02", "craps", "craps", 14, D("25"), D("5000"), power_odds=True),
    DemoTable("EC-01", "craps", "craps", 12, D("5"), D("1000"), operation="electronic"),
    DemoTable("MC-01", "craps", "mini_craps", 9, D("5"), D("1000")),
    DemoTable("HR-01", "high_roll_dice", "10_dice", 6, D("10"), D("500")),
    DemoTable("HR-02", "high_roll_dice", "6_dice", 6, D("10"), D("500")),
    DemoTable("PG-01", "pai_gow", "standard", 6, D("25"), D("5000")),
    DemoTable("PG-02", "pai_gow", "standard", 6, D("10"), D("2000")),
    DemoTable("SB-01", "sic_bo", "standard", 8, D("5"), D("1000")),
    DemoTable("SB-02", "sic_bo", "standard", 8, D("10"), D("2000"), automated_shaker=True),
    DemoTable("TD-01", "three_dice_football", "standard", 12, D("5"), D("500")),
    DemoTable("TD-02", "three_dice_football", "standard", 12, D("10"), D("500")),
)

# The devices at the tables (devices/rules.py): (table, kind, position, serial).
DEMO_DEVICES: tuple[tuple[str, str, int | None, str], ...] = (
    ("HR-01", "extra_roll_lockout", None, "ERL-1001"),
    *(("HR-01", "extra_roll_device", n, f"ERD-20{n:02d}") for n in range(1, 7)),
    ("SB-01", "illumination_device", None, "SBI-3001"),
    ("SB-02", "illumination_device", None, "SBI-3002"),
    ("SB-02", "automated_shaker", None, "ASH-4001"),
    ("EC-01", "electronic_table", None, "ECT-5001"),
    ("PG-01", "pai_gow_rng", None, "RNG-6001"),
    ("CR-02", "power_odds_rng", None, "POG-7001"),
)
DEVICE_MAKER = "Keystone Table Systems"

# The dice room's reserve, kept stocked at every load (issue 35): of each composition the
# floor plays, RESERVE_PER_KIND sets, and as many dice for SB-02's automated shaker that
# meet § 603a.12(c); so every changeout the chapters describe (on schedule, on reopening,
# a die lost, tampering, damage, a failed inspection) is one step from the schedule.
RESERVE_PER_KIND = 4  # as many as the tables that play five dice: each changed at once
# (composition, meets § 603a.12(c)) -> the identifier's middle: R-5D-0001, R-3DA-0001.
RESERVE_STOCK: dict[tuple[str, bool], str] = {
    ("five_dice", False): "5D",
    ("four_green_two_red", False): "4G2R",
    ("ten_dice", False): "10D",
    ("six_dice", False): "6D",
    ("three_dice", False): "3D",
    ("three_dice", True): "3DA",
    ("tiles_32", False): "T32",
}

DUE_SOON_TABLE = "CR-02"
OVERDUE_TABLE = "MC-01"  # left overdue on purpose: the floor shows the gate at work
CLOSED_TABLE = "TD-02"

# Rules Submissions: (game, variants, table types, options). Craps v1 and the rejected
# High Roll Dice v1 are below, in the story that supersedes or rejects them.
PAYOUT_LIMIT = "100000"  # ≥ $50,060 (10 dice) and $60,080 (6 dice) at a $10 minimum, § 675a.5(e)
SUBMISSIONS: dict[str, tuple[list[str], list[str], dict[str, object]]] = {
    "craps": (
        ["craps", "mini_craps"],
        ["manual", "electronic"],
        {
            "min_wager": "5",
            "max_wager": "5000",
            "max_odds_multiple": 5,
            "vig_percent": "5",
            "vig_collected": "on_win",
            "fire_bet_paytable": "A",
            "hot_roller_paytable": "none",
            "lucky_shooter_paytable": "A",
            "bonus_craps_paytable": "1",
            # Offered at the tables that say so (CR-02), each with its generator (§ 623b.5).
            "power_odds": True,
            "hot_shooter_jackpot": True,
        },
    ),
    "high_roll_dice": (
        ["10_dice", "6_dice"],
        ["manual"],
        {"payout_limit": PAYOUT_LIMIT, "min_wager": "10", "max_wager": "500"},
    ),
    "pai_gow": (
        ["standard"],
        ["manual"],
        {
            "player_banking": True,
            "co_banking": True,
            "dealing_styles": ["house_way_from_left", "chee_yee"],
            # PG-01's generator gives the starting position; PG-02, with none, and PG-01
            # while its generator is down, use the shaker (§ 621a.6(a)).
            "starting_position": "rng",
            "shaker_if_rng_down": True,
            "min_wager": "10",
            "max_wager": "5000",
        },
    ),
    "sic_bo": (["standard"], ["manual"], {"min_wager": "5", "max_wager": "2000"}),
    "three_dice_football": (["standard"], ["manual"], {"min_wager": "5", "max_wager": "500"}),
}
CRAPS_V1_OPTIONS: dict[str, object] = {
    **SUBMISSIONS["craps"][2],
    "max_odds_multiple": 3,
    "lucky_shooter_paytable": "none",  # § 623b.2(a): electronic tables only; v1 had none
    "hot_shooter_jackpot": False,
    "power_odds": False,
}

# Layouts per (game, variant): every element the chapter requires, and those the
# options in force need (Fire Bet, Make 'em All, the electronic areas of EC-01).
_CRAPS_LAYOUT = {
    "name_or_logo": True,
    "wager_areas": True,
    "no_call_bets": True,
    "fire_bet_relocation_area": True,
    "fire_bet_wall_notice": True,
    "make_em_all": True,
}
LAYOUTS: dict[tuple[str, str], tuple[str, dict[str, object]]] = {
    ("craps", "craps"): (
        "KDC Craps 14 (2026)",
        {
            **_CRAPS_LAYOUT,
            "fire_bet_areas": 14,
            "lucky_shooter_electronic_area": True,
            "hot_shooter_electronic_area": True,
        },
    ),
    ("craps", "mini_craps"): ("KDC Mini-Craps 9 (2026)", {**_CRAPS_LAYOUT, "fire_bet_areas": 9}),
    ("high_roll_dice", "10_dice"): (
        "KDC High Roll Dice 10 (2026)",
        {
            "name_or_logo": True,
            "pip_street_dice": True,
            "payout_odds": True,
            "payout_limit_inscription": True,
            "throw_box": True,
            "like_kind_circles": True,
            "millionaire_row_circles": True,
            "equal_value_inscription": True,
            "extra_roll_sensor": True,
        },
    ),
    ("high_roll_dice", "6_dice"): (
        # Payout odds and limit on a sign posted at the table, not on the cloth.
        "KDC High Roll Dice 6 (2026)",
        {
            "name_or_logo": True,
            "pip_street_dice": True,
            "payout_odds_sign": True,
            "payout_limit_sign": True,
            "throw_box": True,
            "like_kind_circles": True,
            "equal_value_inscription": True,
        },
    ),
    ("pai_gow", "standard"): (
        "KDC Pai Gow 6 (2026)",
        {"name_or_logo": True, "betting_areas": True, "dead_hand_area": True},
    ),
    ("sic_bo", "standard"): (
        "KDC Sic Bo (2026)",
        {
            "name_or_logo": True,
            "wager_areas": True,
            "payout_odds": True,
            "illuminated_wager_area": True,
        },
    ),
    ("three_dice_football", "standard"): (
        "KDC Three Dice Football (2026)",
        {
            "name_or_logo": True,
            "wager_areas": True,
            "payout_odds": True,
            "football_field": True,
            "downs_area": True,
            "game_length_area": True,
        },
    ),
}


class DemoRefused(Exception):
    """The demo floor (and its known login) is never loaded in production."""


class Staff(NamedTuple):
    admin: Any
    ops: Any
    compliance: Any


def _h(hours: float) -> timedelta:
    return timedelta(hours=hours)


@transaction.atomic
def demo_floor_load(now: datetime | None = None, *, history: bool = False) -> CertificateHolder:
    """Load the demo floor as of `now` (default: the clock); see the module docstring.
    `history`: with the Sic Bo tables' past on a first load (load_demo_floor's default; it
    takes seconds of rounds, which the tests of everything else go without)."""
    if settings.PRODUCTION:
        raise DemoRefused("the demo floor has a published password; not in DJANGO_ENV=production")
    now = now or timezone.now()
    staff = _staff_ensure()
    with acting_as(staff.admin):
        holder, _ = CertificateHolder.objects.get_or_create(name=DEMO_HOLDER)
    if not RulesSubmission.objects.filter(holder=holder).exists():
        _floor_build(holder, staff, now, history=history)
    else:
        _morning_changeout(holder, staff.ops, now)
        _devices_morning(holder, staff.ops, now)
    with acting_as(staff.ops):
        reserve_stock(holder, now)
    with acting_as(None):  # the beat task's work, done now so the flags are current
        schedule_check(now)
    return holder


def _staff_ensure() -> Staff:
    user_model = get_user_model()
    if not user_model.objects.filter(username=DEMO_USERNAME).exists():
        user_model.objects.create_superuser(DEMO_USERNAME, "demo@example.com", DEMO_PASSWORD)
    if Group.objects.filter(name__in=ROLES).count() != len(ROLES):
        roles_sync()  # normally done after every migrate
    users = {DEMO_USERNAME: user_model.objects.get(username=DEMO_USERNAME)}
    for username, group in DEMO_STAFF.items():
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user = user_model.objects.create_user(
                username, f"{username}@example.com", DEMO_PASSWORD, is_staff=True
            )
            user.groups.add(Group.objects.get(name=group))
        users[username] = user
    for username, group in DEMO_INTEGRATORS.items():
        user, created = user_model.objects.get_or_create(username=username)
        if created:
            user.set_unusable_password()
            user.save()
            user.groups.add(Group.objects.get(name=group))
    return Staff(users[DEMO_USERNAME], users[OPS_USERNAME], users[COMPLIANCE_USERNAME])


# --- the first load -------------------------------------------------------------------


def _floor_build(holder: CertificateHolder, staff: Staff, now: datetime, *, history: bool) -> None:
    start = now - timedelta(days=10)
    tables = _tables_configure(holder, staff.ops)
    _submissions_file(holder, staff, start)
    layouts = _layouts_approve(holder, staff, start)
    with acting_as(staff.ops):
        for table in tables.values():
            table.layout = layouts[(table.game, table.variant)]
            table.full_clean()
            table.save()
    _locations_approve(tables.values(), staff.compliance, now - timedelta(days=7))
    _devices_install(tables, staff.ops, now - timedelta(days=7))
    received = now - timedelta(days=8)
    with acting_as(staff.ops):
        _craps_story(tables, staff.ops, now, received)
        _high_roll_dice_story(tables, staff.ops, now, received)
        _pai_gow_story(tables, staff.ops, now, received)
        _sic_bo_story(tables, staff.ops, now, received)
        _three_dice_football_story(tables, staff.ops, now, received)
        if history:
            _history_play(tables, staff.ops, now)


def _tables_configure(holder: CertificateHolder, ops: Any) -> dict[str, Table]:
    tables = {}
    with acting_as(ops):
        for spec in DEMO_TABLES:
            table = Table.objects.filter(holder=holder, number=spec.number).first()
            table = table or Table(holder=holder, number=spec.number)
            for field, value in spec._asdict().items():
                setattr(table, field, value)
            table.full_clean()
            table.save()
            tables[spec.number] = table
    return tables


def _devices_install(tables: dict[str, Table], ops: Any, at: datetime) -> None:
    """Register each device with its approval; each says hello once, so the tables can
    open. `simulate_devices` keeps them beating while the floor runs."""

    for number, kind, position, serial in DEMO_DEVICES:
        issued = device_register(
            tables[number],
            kind=kind,
            manufacturer=DEVICE_MAKER,
            serial_number=serial,
            firmware="4.2.1",
            approval_reference=("BGLO-2026-" if "Laboratory" in KINDS[kind].approval else "BGO-")
            + serial,
            approved_at=(at - timedelta(days=30)).date(),
            position=position,
            by=ops,
            now=at,
        )
        _hello(issued.device, issued.key_id, at)
    devices_watch(at)


def _hello(device: Any, key_id: str, at: datetime) -> None:
    """One heartbeat, as the device gives when it is switched on."""

    nonce = f"demo-hello-{device.pk}-{int(at.timestamp())}"
    store().heartbeat(device.pk, device.kind, key_id, nonce, at.timestamp())


def _devices_morning(holder: CertificateHolder, ops: Any, now: datetime) -> None:
    """The devices switched on again, and a table their failure suspended reopened (the
    floor may have stopped with a device silent); MC-01 stays suspended on purpose."""

    devices = Device.objects.filter(table__holder=holder, status__in=["active", "stale"])
    for device in devices:
        credential = device.credentials.order_by("-issued_at").first()
        if credential is not None:
            _hello(device, credential.key_id, now)
    devices_watch(now)
    suspended = holder.tables.filter(status=Table.Status.SUSPENDED).exclude(number=OVERDUE_TABLE)
    for table in suspended:
        try:
            table_open(table, by=ops, now=now)
        except FloorRefused as refused:
            log.warning("demo floor: %s stays suspended: %s", table.number, refused)


def _submissions_file(holder: CertificateHolder, staff: Staff, start: datetime) -> None:
    """Each game's Rules Submission, v1 of Craps superseded by v2, HRD v1 rejected."""
    ops, compliance = staff.ops, staff.compliance
    approved_at = start + timedelta(days=2)

    def file(
        game: str,
        variants: list[str],
        types: list[str],
        options: dict,
        at: datetime,
        supersedes: RulesSubmission | None = None,
    ) -> RulesSubmission:
        with acting_as(ops):
            rs = submission_draft(
                holder,
                game,
                variants=variants,
                table_types=types,
                options=options,
                by=ops,
                now=at,
                supersedes=supersedes,
            )
            return submission_submit(rs, by=ops, now=at + _h(1))

    def approve(rs: RulesSubmission, at: datetime, effective_at: datetime | None = None) -> None:
        with acting_as(compliance):
            submission_approve(
                rs,
                by=compliance,
                now=at,
                effective_at=effective_at,
                note=f"Approved: {rs.get_game_display()} v{rs.version}, ref. KDC-RS-{rs.pk:04d}",
            )

    craps_v1 = file("craps", ["craps", "mini_craps"], ["manual"], CRAPS_V1_OPTIONS, start)
    approve(craps_v1, approved_at)
    hrd_v1 = file(
        "high_roll_dice", ["10_dice"], ["manual"], SUBMISSIONS["high_roll_dice"][2], start
    )
    with acting_as(compliance):
        submission_reject(
            hrd_v1,
            by=compliance,
            now=start + timedelta(days=1),
            reason="HR-02 on the floor plan is a 6-dice table; this version does not select "
            "the 6-dice variation (58 Pa. Code § 675a.6(a)). Resubmit covering both.",
        )
    for game, (variants, types, options) in SUBMISSIONS.items():
        if game == "craps":
            continue
        # High Roll Dice v2 is the resubmission after the rejection.
        drafted = start + timedelta(days=1, hours=2) if game == "high_roll_dice" else start
        approve(file(game, variants, types, options, drafted), approved_at)
    # Craps v2: higher odds, and the electronic table EC-01 with its wagers (§ 623b).
    variants, types, options = SUBMISSIONS["craps"]
    craps_v2 = file("craps", variants, types, options, start + timedelta(days=6), craps_v1)
    approve(craps_v2, start + timedelta(days=7), effective_at=start + timedelta(days=8))


def _layouts_approve(
    holder: CertificateHolder, staff: Staff, start: datetime
) -> dict[tuple[str, str], Layout]:
    layouts = {}
    for (game, variant), (name, elements) in LAYOUTS.items():
        with acting_as(staff.ops):
            layout = Layout.objects.create(
                holder=holder,
                name=name,
                game=game,
                variant=variant,
                elements=elements,
                created_at=start,
                created_by=staff.ops,
            )
            layout_submit(layout, by=staff.ops, now=start + _h(2))
        with acting_as(staff.compliance):
            layouts[(game, variant)] = layout_decide(
                layout,
                approve=True,
                by=staff.compliance,
                now=start + timedelta(days=2),
                note=f"Bureau of Gaming Operations approval ref. KDC-L-{layout.pk:04d}",
            )
    return layouts


def _locations_approve(tables: Iterable[Table], compliance: Any, at: datetime) -> None:
    """The Bureau of Casino Compliance's approval of each table's boxes (§ 601a.10(g))."""
    for table in tables:
        beside = table.game in ("high_roll_dice", "pai_gow", "sic_bo")
        location_approval_record(
            table,
            drop_box_location="dealer's side, to the dealer's right"
            if beside
            else "boxperson's side of the table, right of the boxperson",
            tip_box_location="dealer's side, to the dealer's left"
            if beside
            else "boxperson's side of the table, left of the boxperson",
            beside_the_dealer=beside,
            shaker_location="centre of the dealer's side, under the dome"
            if table.automated_shaker
            else "",
            approved_by_name=COMPLIANCE_SUPERVISOR,
            approved_at=at,
            by=compliance,
            now=at,
        )


def _new_set(
    holder: CertificateHolder,
    table: Table,
    composition: str,
    received_at: datetime,
    *,
    meets_603a_12_c: bool = False,
    reconstructed: bool = False,
) -> EquipmentSet:
    """A set from the dice room, labelled by kind, table and number: D-CR01-0003."""
    kind = "T" if COMPOSITIONS[composition].kind == TILES else "D"
    prefix = f"{kind}-{table.number.replace('-', '')}-"
    taken = EquipmentSet.objects.filter(holder=holder, identifier__startswith=prefix)
    number = taken.count() + 1
    while taken.filter(identifier=f"{prefix}{number:04d}").exists():  # one added by hand
        number += 1
    return EquipmentSet.objects.create(
        holder=holder,
        identifier=f"{prefix}{number:04d}",
        composition=composition,
        received_at=received_at,
        meets_603a_12_c=meets_603a_12_c,
        reconstructed=reconstructed,
    )


def _put_in(
    table: Table, composition: str, ops: Any, at: datetime, received: datetime, **kinds: bool
) -> SetInPlay:
    new = _new_set(table.holder, table, composition, received, **kinds)
    return set_put_in_play(table, new, by=ops, now=at)


def _change(
    table: Table,
    composition: str,
    reason: str,
    ops: Any,
    at: datetime,
    received: datetime,
    note: str = "",
) -> SetInPlay:
    new = _new_set(table.holder, table, composition, received)
    row = set_changeout(table, composition, reason=reason, by=ops, now=at, new_set=new, note=note)
    assert row is not None
    return row


def _tiles_pass(row: SetInPlay, ops: Any, at: datetime) -> None:
    """The dealer's inspection of tiles received at the table, verified (§ 621a.4(a))."""
    tile_inspection_record(
        row,
        dealer_name=DEALER,
        floorperson_name=FLOORPERSON,
        all_pairs_present=True,
        same_size_and_shading=True,
        unflawed=True,
        by=ops,
        now=at,
    )


def _craps_story(tables: dict[str, Table], ops: Any, now: datetime, received: datetime) -> None:
    # CR-01: a scheduled changeout overnight, then a die over the rail and lost.
    cr01 = tables["CR-01"]
    _put_in(cr01, "five_dice", ops, now - _h(40), received)
    table_open(cr01, by=ops, now=now - _h(40))
    _change(cr01, "five_dice", "schedule", ops, now - _h(17), received)
    _change(
        cr01,
        "five_dice",
        "die_lost",
        ops,
        now - _h(3),
        received,
        note="a die went off the table at the stickman's end and was not found",
    )
    # CR-02: in play 23 h 15 min, due out within the hour: due soon.
    cr02 = tables[DUE_SOON_TABLE]
    _put_in(cr02, "five_dice", ops, now - _h(23.25), received)
    table_open(cr02, by=ops, now=now - _h(23.25))
    # EC-01: the fully automated electronic table, opened under Craps v2.
    ec01 = tables["EC-01"]
    _put_in(ec01, "five_dice", ops, now - _h(5), received)
    table_open(ec01, by=ops, now=now - _h(5))
    # MC-01: left in play past its 24 hours; the floor suspended play an hour later.
    mc01 = tables[OVERDUE_TABLE]
    _put_in(mc01, "five_dice", ops, now - _h(27), received)
    table_open(mc01, by=ops, now=now - _h(27))
    table_suspend(mc01, by=ops, now=now - _h(2))


def _high_roll_dice_story(
    tables: dict[str, Table], ops: Any, now: datetime, received: datetime
) -> None:
    hr01 = tables["HR-01"]
    _put_in(hr01, "ten_dice", ops, now - _h(30), received)
    table_open(hr01, by=ops, now=now - _h(30))
    _change(hr01, "ten_dice", "schedule", ops, now - _h(8), received)
    hr02 = tables["HR-02"]
    _put_in(hr02, "six_dice", ops, now - _h(2), received)
    table_open(hr02, by=ops, now=now - _h(2))


def _pai_gow_story(tables: dict[str, Table], ops: Any, now: datetime, received: datetime) -> None:
    # PG-01: the first set of tiles fails the inspection and is sealed in its envelope;
    # the reconstructed set from the reserve passes.
    pg01 = tables["PG-01"]
    at = now - _h(9)
    _put_in(pg01, "three_dice", ops, at, received)
    tiles = _put_in(pg01, "tiles_32", ops, at, received)
    replacement = _new_set(pg01.holder, pg01, "tiles_32", received, reconstructed=True)
    tile_inspection_record(
        tiles,
        dealer_name=DEALER,
        floorperson_name=FLOORPERSON,
        all_pairs_present=True,
        same_size_and_shading=True,
        unflawed=False,
        by=ops,
        now=at,
        envelope_signed_by_dealer=DEALER,
        envelope_signed_by_floorperson=FLOORPERSON,
        replacement=replacement,
    )
    _tiles_pass(sets_in_play(pg01)["tiles_32"], ops, at + _h(0.25))
    table_open(pg01, by=ops, now=at + _h(0.5))
    # PG-02: open since yesterday evening; its tiles were changed on schedule.
    pg02 = tables["PG-02"]
    at = now - _h(15)
    _put_in(pg02, "three_dice", ops, at, received)
    _tiles_pass(_put_in(pg02, "tiles_32", ops, at, received), ops, at)
    table_open(pg02, by=ops, now=at + _h(0.25))
    _tiles_pass(_change(pg02, "tiles_32", "schedule", ops, now - _h(3), received), ops, now - _h(3))


def _sic_bo_story(tables: dict[str, Table], ops: Any, now: datetime, received: datetime) -> None:
    sb01 = tables["SB-01"]
    _put_in(sb01, "three_dice", ops, now - _h(7), received)
    sic_bo_inspection_record(
        sb01,
        floorperson_name=FLOORPERSON,
        values_entered="2,5,5",
        winning_combinations_lit=True,
        by=ops,
        now=now - _h(7),
    )
    table_open(sb01, by=ops, now=now - _h(7))
    # SB-02: dice locked in the automated shaker, compliant with § 603a.12(c): a month.
    sb02 = tables["SB-02"]
    at = now - timedelta(days=6)
    _put_in(sb02, "three_dice", ops, at, received, meets_603a_12_c=True)
    sic_bo_inspection_record(
        sb02,
        floorperson_name=FLOORPERSON,
        values_entered="1,3,6",
        winning_combinations_lit=True,
        shaker_operations=3,
        dice_properly_tossed=True,
        by=ops,
        now=at,
    )
    table_open(sb02, by=ops, now=at + _h(0.25))


def _three_dice_football_story(
    tables: dict[str, Table], ops: Any, now: datetime, received: datetime
) -> None:
    # TD-01: closed overnight, reopened this morning with a new set (§ 661a.4(d)).
    td01 = tables["TD-01"]
    _put_in(td01, "four_green_two_red", ops, now - _h(20), received)
    table_open(td01, by=ops, now=now - _h(20))
    table_close(td01, by=ops, now=now - _h(12))
    _change(td01, "four_green_two_red", "table_reopened", ops, now - _h(1), received)
    table_open(td01, by=ops, now=now - _h(1))
    # TD-02 stays closed with no set in play.


# The demo's past (issue 23): seeded, so every first load has the same history.
HISTORY_SEED = 23
LOADED_TABLE = "SB-01"  # loaded dice, and a hold out of its band
FAIR_HISTORY_TABLE = "SB-02"
FAIR_HISTORY_DAYS = 4
FAIR_ROUNDS_A_DAY = 8
LOADED_ROUNDS = 72
LOADED_EVERY_AT_LEAST = timedelta(minutes=1)


def _history_play(tables: dict[str, Table], ops: Any, now: datetime) -> None:
    """SB-02's fair past over FAIR_HISTORY_DAYS and SB-01's loaded one since it opened
    (see the module docstring); about 110 Sic Bo rounds, each settled at once (a round is
    some 28 queries through the services: the demo's past is kept short so a first load
    takes seconds more, not minutes)."""
    rng = random.Random(HISTORY_SEED)
    fair = tables[FAIR_HISTORY_TABLE]
    times = []
    for days_ago in range(FAIR_HISTORY_DAYS, 0, -1):
        # A busy spell each day, around this time of day: a round every 7 minutes.
        evening = now - timedelta(days=days_ago) + _h(rng.uniform(-1, 1))
        times += [evening + timedelta(minutes=7 * n) for n in range(FAIR_ROUNDS_A_DAY)]
    # And the last hour's, up to a quarter of an hour ago.
    times += [now - _h(1) + timedelta(minutes=7 * n) for n in range(7)]
    sic_bo_history_play(fair, rng, by=ops, times=times)
    loaded = Table.objects.get(pk=tables[LOADED_TABLE].pk)  # as table_open left it
    # Its rounds in the gaming day of `now`, where the floor page's badge looks: evenly
    # spread from its opening (or the day's start) to a few minutes ago, a minute apart
    # at least (a newcomer starting just after the day begins sees fewer).
    day_start = gaming_day_bounds(gaming_day_of(now))[0]
    start = max(loaded.status_changed_at, day_start) + timedelta(minutes=5)
    span = now - timedelta(minutes=5) - start
    if span >= LOADED_EVERY_AT_LEAST * LOADED_ROUNDS:
        every, count = span / LOADED_ROUNDS, LOADED_ROUNDS
    else:
        every, count = LOADED_EVERY_AT_LEAST, max(0, span // LOADED_EVERY_AT_LEAST)
    times = [start + every * n for n in range(count)]
    sic_bo_history_play(loaded, rng, by=ops, times=times, loaded=True)


# --- every load ---------------------------------------------------------------------------


def reserve_stock(holder: CertificateHolder, now: datetime) -> list[EquipmentSet]:
    """Top the reserve up to RESERVE_PER_KIND sets of each RESERVE_STOCK kind, received
    `now`; the sets added (none when it is full)."""
    added = []
    for (composition, meets), middle in RESERVE_STOCK.items():
        prefix = f"R-{middle}-"
        ours = EquipmentSet.objects.filter(holder=holder, identifier__startswith=prefix)
        on_hand = ours.filter(status=EquipmentSet.Status.RESERVE).count()
        number = ours.count()
        for _ in range(RESERVE_PER_KIND - on_hand):
            number += 1
            while ours.filter(identifier=f"{prefix}{number:04d}").exists():
                number += 1
            added.append(
                EquipmentSet.objects.create(
                    holder=holder,
                    identifier=f"{prefix}{number:04d}",
                    composition=composition,
                    meets_603a_12_c=meets,
                    received_at=now,
                )
            )
    return added


# --- every later load -------------------------------------------------------------------


def _morning_changeout(holder: CertificateHolder, ops: Any, now: datetime) -> None:
    """Change out every set past its limit, except at OVERDUE_TABLE."""
    stale = (
        SetInPlay.objects.filter(table__holder=holder, removed_at__isnull=True, due_at__lt=now)
        .exclude(table__number=OVERDUE_TABLE)
        .select_related("table", "equipment_set")
        .order_by("table__number", "composition")
    )
    with acting_as(ops):
        for row in stale:
            try:
                with transaction.atomic():  # a refusal leaves no new set behind
                    _changeout_one(holder, row, ops, now)
            except FloorRefused as refused:
                # Someone changed the table by hand; the floor still starts, and says so.
                log.warning("demo floor: morning changeout at %s: %s", row.table.number, refused)


def _changeout_one(holder: CertificateHolder, row: SetInPlay, ops: Any, now: datetime) -> None:
    table, old = row.table, row.equipment_set
    if old.is_tiles:
        new = _tiles_from_reserve(table) or _new_set(holder, table, row.composition, now)
    else:
        new = _new_set(holder, table, row.composition, now, meets_603a_12_c=old.meets_603a_12_c)
    new_row = set_changeout(
        table,
        row.composition,
        reason="schedule",
        by=ops,
        now=now,
        new_set=new,
        note="the morning changeout",
    )
    assert new_row is not None
    if new.is_tiles:
        _tiles_pass(new_row, ops, now)
    log.info("demo floor: %s changed out at %s for %s", old, table.number, new)


def _tiles_from_reserve(table: Table) -> EquipmentSet | None:
    """A set of this table's tiles back in the reserve after a scheduled changeout."""
    prefix = f"T-{table.number.replace('-', '')}-"
    return (
        EquipmentSet.objects.filter(
            holder=table.holder,
            identifier__startswith=prefix,
            status=EquipmentSet.Status.RESERVE,
        )
        .order_by("identifier")
        .first()
    )
