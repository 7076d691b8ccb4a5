"""What the regulations make of a device that stops working (issue 8), through the services
and the settlement worker, as the floor plays it.

- Sic Bo illumination device (58 Pa. Code § 625a.1(b)) down after the dice: the round is
  settled as usual, then all gaming at the table ceases until it is fixed (§ 625a.7(b)).
- Automated Sic Bo shaker down during a round: the round is void and every wager returned
  (§ 625a.7(c)); the dealer's own dice only once it is marked out of order (§ 625a.7(d)).
- High Roll Dice: the Extra Roll wagering device at each betting position and the lock-out
  control (§ 675a.1(c)(1), (2); § 675a.2(e)(3); § 675a.4(a)).
- Pai Gow random number generator (§ 621a.2(e), § 621a.6(a)(1)).
- Craps Power Odds random number generator (§ 623b.5(c)).
- Opening: a table that needs devices opens only with every one of them active.

Devices go down by their own fault report (`fault_report`) or by the heartbeat watch
(`devices_watch`: stale once more than interval x missed seconds have passed since the last
heartbeat; 2 s x 3 for the Sic Bo devices, 5 s x 3 for the others). Every expected net is
worked out by hand from the paytables in the comments.
"""

from datetime import timedelta
from decimal import Decimal

import pytest

from casino.models import Table
from casino.services import FloorRefused
from casino.services.tables import table_suspend
from devices import gates, rules
from devices.gates import table_needs
from devices.models import Device, DeviceEvent
from devices.services import device_return_to_service, fault_clear
from games.models import LedgerLine, Resolution, Round, RoundEvent
from games.services.round_state import in_play
from gaming.devices import device_out_of_order, devices_watch, fault_report
from gaming.rounds import generator_number_post, result_enter, round_open, wagers_place
from gaming.tables import table_open
from tests.casino.floor_fixtures import T0, compliant_table, operations, sic_bo_inspected
from tests.devices.device_fixtures import fresh as fresh_device
from tests.devices.device_fixtures import heard, register
from tests.games.round_fixtures import (
    D,
    M,
    balance,
    books_balance_check,
    close,
    fresh,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
    written,
)

pytestmark = pytest.mark.django_db

Status = Device.Status
Event = DeviceEvent.Kind
Account = LedgerLine.Account
S = timedelta(seconds=1)


def code(section: str) -> str:
    return f"58 Pa. Code § {section}"


def device_at(table: Table, kind: str, position: int | None = None) -> Device:
    return Device.objects.exclude(status=Status.RETIRED).get(
        table=table, kind=kind, position=position
    )


def others(device: Device) -> list[Device]:
    """The table's other devices in service."""
    return list(
        Device.objects.filter(table_id=device.table_id)
        .exclude(status=Status.RETIRED)
        .exclude(pk=device.pk)
    )


def down(device: Device, how: str, now) -> Device:
    """The device stops working at `now`: it reports a fault, or it falls silent and the
    watch finds it stale (every other device at its table heard from at `now`)."""
    if how == "fault":
        fault_report(device, "lamp driver failure", now=now)
    elif how == "stale":
        heard(*others(device), now=now)
    else:  # pragma: no cover - a test's typo
        raise AssertionError(how)
    device = fresh_device(device)
    assert device.status == (Status.FAULTED if how == "fault" else Status.STALE)
    return device


def back(device: Device, how: str, now) -> Device:
    """The device works again: its fault cleared, or its heartbeats back."""
    device = fresh_device(device)
    if how == "fault":
        fault_clear(device, "lamp driver replaced", now=now)
    else:
        heard(device, now=now)
    device = fresh_device(device)
    assert device.status == Status.ACTIVE
    return device


def word(how: str) -> str:
    return {"fault": "faulted", "stale": "stale"}[how]


def decided(round_: Round) -> dict[str, tuple[str, Decimal, str]]:
    """ref -> (result, net, cite) of the round's resolutions."""
    return {
        r.wager.ref: (r.result, r.net, r.cite)
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }


def refused(call, *args, **kwargs) -> list[str]:
    with pytest.raises(FloorRefused) as caught:
        call(*args, **kwargs)
    return caught.value.reasons


def device_events(device: Device, kind: str) -> list[DeviceEvent]:
    return list(DeviceEvent.objects.filter(device=device, kind=kind).order_by("at", "id"))


# --- Sic Bo: the illumination device, § 625a.7(b) ---------------------------------------------

SIC_BO_WAGERS = (
    wager("ann", "small", "10"),
    wager("ann", "triple:6", "5"),
    wager("bob", "total:10", "10"),
    wager("bob", "single:5", "20"),
    wager("carl", "big", "25"),
    wager("carl", "combo:2-3", "5"),
)
# The dice 2, 3, 5: total 10, no three of a kind.
SIC_BO_DICE = [2, 3, 5]
SIC_BO_DECIDED = {
    # § 625a.3(6): Small wins on a total of 4 to 10 and no triple; 1 to 1 (§ 625a.6(a)).
    "1.1": ("win", D("10.00"), code("625a.6(a)")),
    # § 625a.3(1): no three 6s.
    "1.2": ("lose", D("-5.00"), code("625a.3(1)")),
    # § 625a.3(4): Total Value Bet of 10 at 6 to 1 (§ 625a.6(a)): 60.
    "1.3": ("win", D("60.00"), code("625a.6(a)")),
    # § 625a.3(8): one die shows 5: 1 to 1 (§ 625a.6(b)(1)).
    "1.4": ("win", D("20.00"), code("625a.6(b)(1)")),
    # § 625a.3(7): Big needs 11 to 17.
    "1.5": ("lose", D("-25.00"), code("625a.3(7)")),
    # § 625a.3(5): a 2 and a 3 are showing: 5 to 1 (§ 625a.6(a)).
    "1.6": ("win", D("25.00"), code("625a.6(a)")),
}


@pytest.mark.parametrize("how", ["fault", "stale"])
def test_illumination_down_after_no_more_bets_the_round_is_settled_then_the_table_ceases(how):
    """58 Pa. Code § 625a.7(b): the illumination device malfunctions once the dice are
    revealed: the dealer collects losing wagers and pays winning wagers; once the layout is
    settled all gaming at the table ceases until the device has been fixed."""
    table = open_table("sic_bo")
    lamp = device_at(table, "illumination_device")
    round_ = opened(table)
    place(round_, *SIC_BO_WAGERS)
    close(round_)
    lamp = down(lamp, how, T0 + 3 * M + 30 * S)
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN  # the round goes on
    notice = device_events(lamp, Event.TABLE_SUSPENDED)
    assert [(e.round_id, e.cite) for e in notice] == [(round_.pk, code("625a.7(b)"))]

    result(round_, "throw", SIC_BO_DICE, now=T0 + 4 * M)
    round_ = fresh(round_)
    assert round_.status == Round.Status.RESULT_ENTERED
    throw = round_.events.get(event="throw")
    assert (throw.payload, throw.cite) == (SIC_BO_DICE, code("625a.7(b)"))
    table.refresh_from_db()
    assert table.status == Table.Status.SUSPENDED
    assert table.status_changed_at == T0 + 4 * M

    assert settle(round_) == "settled"
    assert decided(round_) == SIC_BO_DECIDED
    # Each player's lines sum to the nets: ann 10 - 5, bob 60 + 20, carl -25 + 25.
    assert balance(table, Account.PLAYER, "ann") == D("5.00")
    assert balance(table, Account.PLAYER, "bob") == D("80.00")
    assert balance(table, Account.PLAYER, "carl") == D("0.00")
    books_balance_check(table)

    # Gaming ceases: no round opens, and the table does not reopen until the device works.
    reason = (
        f"the Sic Bo illumination device at {table.number} is {word(how)} ({code('625a.1(b)')})"
    )
    assert refused(round_open, table, by=operations(), now=T0 + 6 * M) == [
        f"{table.number} is suspended, not open",
        reason,
    ]
    assert refused(table_open, table, by=operations(), now=T0 + 6 * M) == [reason]
    back(lamp, how, T0 + 7 * M)
    assert table_open(table, by=operations(), now=T0 + 8 * M).status == Table.Status.OPEN
    assert round_open(table, by=operations(), now=T0 + 9 * M).number == 2


@pytest.mark.parametrize("how", ["fault", "stale"])
def test_illumination_down_with_no_round_in_progress_suspends_the_table_at_once(how):
    """58 Pa. Code § 625a.7(b): with nothing on the layout to settle, gaming ceases at once
    until the device is fixed (a round settled before it does not matter)."""
    table = open_table("sic_bo")
    lamp = device_at(table, "illumination_device")
    first = opened(table)
    place(first, wager("ann", "small", "10"))
    result(first, "throw", [1, 2, 3])
    settle(first)
    lamp = down(lamp, how, T0 + 10 * M)
    table.refresh_from_db()
    assert (table.status, table.status_changed_at) == (Table.Status.SUSPENDED, T0 + 10 * M)
    [notice] = device_events(lamp, Event.TABLE_SUSPENDED)
    assert (notice.at, notice.round, notice.cite) == (T0 + 10 * M, None, code("625a.7(b)"))
    assert refused(round_open, table, by=operations(), now=T0 + 11 * M)[0] == (
        f"{table.number} is suspended, not open"
    )
    assert fresh(first).status == Round.Status.SETTLED


def test_illumination_down_while_the_result_awaits_settlement_suspends_the_table_at_once():
    """58 Pa. Code § 625a.7(b): the dice were already entered and lit; the settlement goes
    on, and gaming ceases from the moment the device fails."""
    table = open_table("sic_bo")
    lamp = device_at(table, "illumination_device")
    round_ = opened(table)
    place(round_, *SIC_BO_WAGERS)
    result(round_, "throw", SIC_BO_DICE)
    assert round_.events.get(event="throw").cite == ""  # lit as usual
    down(lamp, "fault", T0 + 4 * M + 10 * S)
    table.refresh_from_db()
    assert (table.status, table.status_changed_at) == (
        Table.Status.SUSPENDED,
        T0 + 4 * M + 10 * S,
    )
    assert settle(round_) == "settled"
    assert decided(round_) == SIC_BO_DECIDED


# --- Sic Bo: the automated shaker, § 625a.7(c) and (d) --------------------------------------


@pytest.mark.parametrize("how", ["fault", "stale"])
@pytest.mark.parametrize("after_no_more_bets", [False, True])
def test_the_automated_shaker_down_during_a_round_voids_it_and_returns_every_wager(
    how, after_no_more_bets
):
    """58 Pa. Code § 625a.7(c): the automated Sic Bo shaker fails to operate or malfunctions:
    the round of play is void and the wagers placed are returned to the players."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    round_ = opened(table)
    place(round_, *SIC_BO_WAGERS)
    if after_no_more_bets:
        close(round_)
    shaker = down(shaker, how, T0 + 3 * M + 30 * S)

    round_ = fresh(round_)
    assert round_.status == Round.Status.RESULT_ENTERED
    events = list(round_.events.order_by("seq"))
    assert [e.event for e in events] == ["wagers", "no_more_bets", "shaker_malfunction"]
    void = events[-1]
    assert (void.source, void.device_id, void.entered_by_id, void.at) == (
        RoundEvent.Source.DEVICE,
        shaker.pk,
        None,
        T0 + 3 * M + 30 * S,
    )
    [notice] = device_events(shaker, Event.ROUND_VOIDED)
    assert (notice.round_id, notice.cite, notice.detail) == (
        round_.pk,
        code("625a.7(c)"),
        "every wager returned",
    )

    assert settle(round_) == "settled"
    returned = code("625a.7(c)")
    assert decided(round_) == {ref: ("push", D("0.00"), returned) for ref in SIC_BO_DECIDED}
    for player in ("ann", "bob", "carl"):
        assert balance(table, Account.PLAYER, player) == D("0.00")
    assert balance(table, Account.LAYOUT) == D("0.00")
    assert balance(table, Account.INVENTORY) == D("0.00")
    books_balance_check(table)
    # The table stays open, but the next round waits for the shaker (§ 625a.7(d)).
    assert refused(round_open, table, by=operations(), now=T0 + 6 * M) == [
        f"the automated Sic Bo shaker at {table.number} is {word(how)} ({code('625a.7(d)')})"
    ]


@pytest.mark.parametrize("how", ["fault", "stale"])
def test_the_automated_shaker_down_with_no_round_in_progress_voids_nothing(how):
    """58 Pa. Code § 625a.7(c) voids "the round of play": with none in progress (the last one
    settled on the shaker's own dice) nothing is voided or returned."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    round_ = opened(table)
    place(round_, *SIC_BO_WAGERS)
    result_enter(round_, "throw", SIC_BO_DICE, by=shaker, now=T0 + 4 * M)
    settle(round_)
    before = written(table)
    down(shaker, how, T0 + 6 * M)
    assert written(table) == before
    assert device_events(shaker, Event.ROUND_VOIDED) == []
    assert fresh(round_).status == Round.Status.SETTLED
    assert decided(round_) == SIC_BO_DECIDED
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN


def test_the_dealers_dice_are_refused_while_the_automated_shaker_is_active():
    """58 Pa. Code § 625a.7(d): a manual Sic Bo shaker is used only once the automated one
    is covered or signed out of order; while it works, the dice are the shaker's."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    round_ = opened(table)
    place(round_, *SIC_BO_WAGERS)
    before = written(table)
    assert refused(result, round_, "throw", SIC_BO_DICE) == [
        f"the automated shaker at {table.number} is active: the dice come from it; a manual "
        "Sic Bo shaker is used only once the automated one is covered or signed out of order "
        f"({code('625a.7(d)')})"
    ]
    assert written(table) == before
    assert fresh(round_).status == Round.Status.OPEN
    result_enter(round_, "throw", SIC_BO_DICE, by=shaker, now=T0 + 4 * M)
    settle(round_)
    assert decided(round_) == SIC_BO_DECIDED


@pytest.mark.parametrize("status", [Status.STALE, Status.FAULTED, Status.REGISTERED])
def test_the_dealers_dice_are_refused_while_the_automated_shaker_is_down_but_not_out_of_order(
    status,
):
    """58 Pa. Code § 625a.7(d): a shaker that is stale or faulted but not yet covered or
    signed out of order does not let the manual shaker play. Through the services the round
    it fails in is void (§ 625a.7(c)) and no other starts, so the result gate is asked here
    directly, for a round left open."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    round_ = opened(table)
    Device.objects.filter(pk=shaker.pk).update(status=status)  # no consequence applied
    state = "registered but not yet heard from" if status == Status.REGISTERED else status.label
    assert gates.result_refusals(fresh(round_), "throw", SIC_BO_DICE, operations()) == [
        f"the automated shaker at {table.number} is {state.lower()}: the dice come from it; a "
        "manual Sic Bo shaker is used only once the automated one is covered or signed out "
        f"of order ({code('625a.7(d)')})"
    ]


def test_after_the_shaker_fails_the_dealers_dice_wait_for_it_to_be_marked_out_of_order():
    """58 Pa. Code § 625a.7(c), (d): the round the shaker fails in is void; the dealer's dice
    are refused, and no round starts, until the shaker is covered or signed out of order;
    then the manual shaker's dice are taken and the round settles as usual."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    first = opened(table)
    place(first, wager("ann", "small", "10"))
    down(shaker, "fault", T0 + 3 * M)
    assert refused(result, first, "throw", SIC_BO_DICE) == [f"{first} is result entered, settling"]
    settle(first)
    assert refused(round_open, table, by=operations(), now=T0 + 5 * M) == [
        f"the automated Sic Bo shaker at {table.number} is faulted ({code('625a.7(d)')})"
    ]

    device_out_of_order(
        shaker, "dice removed, covered, out-of-order sign placed", by=operations(), now=T0 + 6 * M
    )
    second = round_open(table, by=operations(), now=T0 + 7 * M)
    # § 625a.5(b): the round opened with the manual shaker, and keeps it.
    assert second.options["shaker"] == "manual"
    place(second, *SIC_BO_WAGERS, now=T0 + 8 * M)
    # The out-of-order shaker's own dice are no longer taken.
    assert refused(
        result_enter, second, "throw", [6, 6, 6], by=fresh_device(shaker), now=T0 + 9 * M
    ) == [
        f"{fresh_device(shaker)} is out of order: dice removed, covered, out-of-order sign "
        "placed: its dice are not taken"
    ]
    result(second, "throw", SIC_BO_DICE, now=T0 + 9 * M)
    throw = fresh(second).events.get(event="throw")
    assert (throw.source, throw.device_id, throw.cite) == (RoundEvent.Source.DEALER, None, "")
    assert settle(second, now=T0 + 10 * M) == "settled"
    assert decided(second) == {
        ref.replace("1.", "2.", 1): value for ref, value in SIC_BO_DECIDED.items()
    }


def test_a_table_whose_automated_shaker_is_out_of_order_opens_with_the_manual_shaker():
    """58 Pa. Code § 625a.7(d): once the automated shaker is covered or signed out of order
    a manual Sic Bo shaker may be used: the table opens and rounds start."""
    floor = compliant_table("sic_bo", automated_shaker=True)
    table = floor.table
    shaker = device_at(table, "automated_shaker")
    fault_report(shaker, "tumbler jammed", now=T0 + 10 * S)
    assert refused(table_open, table, by=operations(), now=T0 + M) == [
        f"the automated Sic Bo shaker at {table.number} is faulted ({code('625a.7(d)')})"
    ]
    device_out_of_order(shaker, "covered, sign placed", by=operations(), now=T0 + M)
    assert table_open(table, by=operations(), now=T0 + 2 * M).status == Table.Status.OPEN
    round_ = round_open(table, by=operations(), now=T0 + 3 * M)
    place(round_, wager("ann", "big", "10"), now=T0 + 4 * M)
    result(round_, "throw", [4, 5, 6], now=T0 + 5 * M)  # 15: Big wins 1 to 1
    settle(round_, now=T0 + 6 * M)
    assert decided(round_) == {"1.1": ("win", D("10.00"), code("625a.6(a)"))}


def test_the_opening_inspection_leaves_out_an_automated_shaker_that_is_out_of_order():
    """58 Pa. Code § 625a.5(a)(2): the floorperson inspects "the automated dice shaker, if one
    is in use". Covered and signed out of order (§ 625a.7(d)) it is not in use, so an honest
    inspection that could not toss the dice does not keep the table closed."""
    floor = compliant_table("sic_bo", automated_shaker=True, with_inspections=False)
    table = floor.table
    shaker = device_at(table, "automated_shaker")
    device_out_of_order(shaker, "covered, sign placed", by=operations(), now=T0 + 10 * S)
    sic_bo_inspected(table, now=T0 + 20 * S, shaker_operations=0, dice_properly_tossed=False)
    assert table_open(table, by=operations(), now=T0 + M).status == Table.Status.OPEN


# --- High Roll Dice: the Extra Roll system, § 675a.1(c) -------------------------------------


def hrd_wagers(player: str, position: int, amount: str = "10") -> list[dict]:
    """A Pip Street Wager on the 5 and a Like Kind Boulevard Wager on four of a kind
    (§ 675a.2(e)(1), (2)), of equal value (§ 675a.1(b)(2)(iv))."""
    return [
        wager(player, "pip:5", amount, position=position),
        wager(player, "like_kind:4", amount, position=position),
    ]


def extra_roll(player: str, position: int | None, amount: str = "10") -> dict:
    extra = {} if position is None else {"position": position}
    return wager(player, "extra_roll", amount, **extra)


@pytest.mark.parametrize("how", ["stale", "fault", "out_of_order"])
def test_an_extra_roll_is_not_bought_at_a_position_whose_device_is_down(how):
    """58 Pa. Code § 675a.1(c)(1): the wagering device at each betting position acknowledges
    or accepts the Extra Roll bought there; with it down, no Extra Roll at that position,
    while the other positions still buy theirs."""
    table = open_table("high_roll_dice")
    second = device_at(table, "extra_roll_device", 2)
    if how == "out_of_order":
        device_out_of_order(second, "sensor cracked", by=operations(), now=T0 + 30 * S)
        state = "out of order: sensor cracked"
    else:
        down(second, how, T0 + 30 * S)
        state = word(how)
    round_ = opened(table)  # a position's device does not stop the game
    taken = place(round_, *hrd_wagers("ann", 1), extra_roll("ann", 1))
    assert [(w.ref, w.kind, w.extra) for w in taken] == [
        ("1.1", "pip:5", {"position": 1}),
        ("1.2", "like_kind:4", {"position": 1}),
        ("1.3", "extra_roll", {"position": 1}),
    ]
    place(round_, *hrd_wagers("bob", 2))
    before = written(table)
    assert refused(place, round_, extra_roll("bob", 2)) == [
        f"1.6: the Extra Roll wagering device at betting position 2 is {state}: no "
        f"Extra Roll there ({code('675a.1(c)(1)')})"
    ]
    assert written(table) == before


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_with_the_lock_out_control_down_no_extra_roll_is_taken_anywhere(how):
    """58 Pa. Code § 675a.1(c)(2): the device that controls the placement of Extra Rolls and
    locks them out at "no more bets"; with it down no Extra Roll is recognized at the table,
    and the other wagers are taken and settled as usual (§ 675a.4(f))."""
    table = open_table("high_roll_dice")
    lockout = device_at(table, "extra_roll_lockout")
    down(lockout, how, T0 + 30 * S)
    round_ = opened(table)
    for position in (1, 6):
        assert refused(
            place, round_, *hrd_wagers("ann", position), extra_roll("ann", position)
        ) == [
            f"1.3: the Extra Roll lock-out control at {table.number} is {word(how)}: no "
            f"Extra Roll is taken until it works ({code('675a.1(c)(2)')})"
        ]
    assert refs_of(place(round_, *hrd_wagers("ann", 1))) == ["1.1", "1.2"]
    close(round_)
    # § 675a.4(e) example: four 5s, three 6s, two 1s and one 4.
    result(round_, "throw", [5, 5, 5, 5, 6, 6, 6, 1, 1, 4])
    assert settle(round_) == "settled"
    assert decided(round_) == {
        # § 675a.5(a): the 5 occurred most: Five pays 4 to 1.
        "1.1": ("win", D("40.00"), code("675a.5(a)")),
        # § 675a.5(b): four of a kind pays 1 to 1.
        "1.2": ("win", D("10.00"), code("675a.5(b)")),
    }
    books_balance_check(table)


def refs_of(wagers) -> list[str]:
    return [w.ref for w in wagers]


def test_after_no_more_bets_the_lock_out_refuses_an_extra_roll_from_the_dealer_or_the_device():
    """58 Pa. Code § 675a.1(c)(2), § 675a.4(a): once the dealer announces "no more bets" the
    lock-out prevents the recognition of an Extra Roll, whoever enters it."""
    table = open_table("high_roll_dice")
    first = device_at(table, "extra_roll_device", 1)
    round_ = opened(table)
    place(round_, *hrd_wagers("ann", 1))
    close(round_)
    before = written(table)
    reason = (
        '1.3: the lock-out was engaged at "no more bets"; a later Extra Roll is not '
        f"recognized ({code('675a.1(c)(2)')})"
    )
    assert refused(place, round_, extra_roll("ann", 1)) == [reason]
    assert refused(
        wagers_place,
        round_,
        [{"player": "ann", "kind": "extra_roll", "amount": "10"}],
        by=first,
        now=T0 + 3 * M + 10 * S,
    ) == [reason]
    assert written(table) == before


def test_an_extra_roll_without_a_betting_position_is_taken_while_every_device_works():
    """58 Pa. Code § 675a.1(c)(1): an Extra Roll is accepted by the wagering device at a
    betting position. SCENARIOS.md's wager has no position, so one is optional: a purchase
    naming none is taken while the device at every position works (the buyer's among them),
    and refused, naming the position that is down, while one does not."""
    table = open_table("high_roll_dice")
    round_ = opened(table)
    place(round_, *hrd_wagers("ann", 1))
    assert refs_of(place(round_, extra_roll("ann", None))) == ["1.3"]
    place(round_, *hrd_wagers("bob", 2))
    down(device_at(table, "extra_roll_device", 5), "stale", T0 + 2 * M + 30 * S)
    before = written(table)
    assert refused(place, round_, extra_roll("bob", None)) == [
        "1.6: the Extra Roll wagering device at betting position 5 is stale: no Extra Roll "
        f"there ({code('675a.1(c)(1)')}); name the buyer's position"
    ]
    assert written(table) == before
    assert refs_of(place(round_, extra_roll("bob", 2))) == ["1.6"]


def test_an_extra_roll_device_buys_only_at_its_own_position():
    """58 Pa. Code § 675a.1(c)(1): "a wagering device at each betting position": the device at
    position 1 speaks for position 1 only."""
    table = open_table("high_roll_dice")
    first = device_at(table, "extra_roll_device", 1)
    round_ = opened(table)
    place(round_, *hrd_wagers("bob", 3))
    assert refused(wagers_place, round_, [extra_roll("bob", 3)], by=first, now=T0 + 2 * M) == [
        f"1.3: {first} may buy an Extra Roll only at its own position"
    ]


# --- Pai Gow: the random number generator, § 621a.2(e), § 621a.6(a) -------------------------

# The stacks from the dealer's right, top tile first (tests/scenarios/pai_gow/
# 621a_6_a_1_random_number_generator_starting_position.json).
STACKS = [
    ["1-1", "1-1", "5-6", "2-6"],
    ["4-4", "4-4", "1-3", "1-3"],
    ["5-5", "3-3", "5-6", "1-6"],
    ["2-5", "2-4", "2-3", "1-2"],
    ["4-6", "1-5", "2-2", "3-4"],
    ["6-6", "6-6", "5-5", "4-6"],
    ["3-3", "2-2", "1-4", "1-6"],
    ["1-5", "3-6", "4-5", "3-5"],
]
PAI_GOW_WAGERS = (
    wager("p1", "pai_gow", "20", position=1),
    wager("p2", "pai_gow", "10", position=2),
    wager("p3", "pai_gow", "25", position=4),
)
# A count of 5 (or 13) ends on position 4 (§ 621a.6(c): dealer 1, positions 1-6 are 2-7,
# the Dead Hand 8, the dealer 9, ...). The standard delivery (§ 621a.6(d)) gives stack 1
# to position 4, 2 to 5, 3 to 6, 4 to the Dead Hand, 5 to the dealer, 6 to 1, 7 to 2, 8 to 3.
PAI_GOW_SETTINGS = {
    "1.1": {"high": ["6-6", "6-6"], "low": ["5-5", "4-6"]},
    "1.2": {"high": ["1-6", "1-4"], "low": ["3-3", "2-2"]},
    "1.3": {"high": ["1-1", "1-1"], "low": ["5-6", "2-6"]},
}
PAI_GOW_DECIDED = {
    # The dealer 4-6 1-5 2-2 3-4 sets high 4-6+3-4 = 7, low 1-5+2-2 = 0 (§ 621a.8(d)(3)).
    # Position 1: pair of Twelves beats 7; 5-5+4-6 = 0 against 0 goes to the dealer: a tie.
    "1.1": ("push", D("0.00"), code("621a.8(h)(1)")),
    # Position 2: 1-6+1-4 = 2 under 7; 3-3+2-2 = 0 against 0 to the dealer: loses.
    "1.2": ("lose", D("-10.00"), code("621a.8(g)")),
    # Position 4: pair of Twos beats 7, 5-6+2-6 = 9 beats 0: wins 25 less 5% = 1.25.
    "1.3": ("win", D("23.75"), code("621a.8(i)")),
}


def pai_gow_table(shaker_if_rng_down: bool) -> Table:
    options = {"starting_position": "rng", "shaker_if_rng_down": shaker_if_rng_down}
    return open_table("pai_gow", options=options)


def generator_at(table: Table) -> Device:
    """The table's generator: found if the table needed it to open, else registered now."""
    found = Device.objects.filter(table=table, kind="pai_gow_rng").first()
    if found is None:
        found = register(table, "pai_gow_rng", now=T0).device
        heard(found, now=T0)
    return fresh_device(found)


def deal_outcome(round_: Round) -> dict:
    [deal] = [p for p in in_play(fresh(round_)).played if p.event == "deal"]
    return deal.outcome.extra


def play_out(round_: Round) -> None:
    result(round_, "set", PAI_GOW_SETTINGS, now=T0 + 5 * M)
    result(round_, "reveal", True, now=T0 + 6 * M)
    assert settle(round_, now=T0 + 7 * M) == "settled"
    assert decided(round_) == PAI_GOW_DECIDED


def test_a_working_generator_gives_the_starting_position_and_the_dealers_dice_are_refused():
    """58 Pa. Code § 621a.2(e), § 621a.6(a)(1), (b), (c): with the Rules Submission's
    generator working, "no more bets" is followed by its number, not the shaker's dice; the
    number the generator posted is the count the dealer deals the stacks from."""
    table = pai_gow_table(shaker_if_rng_down=True)
    generator = generator_at(table)
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    before = written(table)
    assert refused(result, round_, "deal", {"stacks": STACKS, "dice": [6, 6, 1]}) == [
        f"the random number generator at {table.number} is working: the starting position "
        f"comes from it ({code('621a.6(a)(1)')})"
    ]
    assert written(table) == before

    generator_number_post(round_, 5, by=generator, now=T0 + 3 * M)
    round_ = fresh(round_)
    assert round_.status == Round.Status.CLOSED
    posted = round_.events.get(event="rng_number")
    assert (posted.payload, posted.source, posted.device_id, posted.cite) == (
        5,
        RoundEvent.Source.DEVICE,
        generator.pk,
        code("621a.6(a)(1)"),
    )
    result(round_, "deal", {"stacks": STACKS}, now=T0 + 4 * M)
    assert round_.events.get(event="deal").payload == {"stacks": STACKS, "rng": 5}
    outcome = deal_outcome(round_)
    assert (outcome["count"], outcome["starting_place"]) == (5, "4")
    assert outcome["hands"]["4"] == ["1-1", "1-1", "5-6", "2-6"]
    play_out(round_)


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_with_the_generator_down_the_dealers_dice_give_the_starting_position(how):
    """58 Pa. Code § 621a.6(a)(2): with the Rules Submission's shaker to fall back on, a
    generator that is down leaves the starting position to the dealer's three dice: 6, 6, 1
    total 13, which counts round to position 4 (§ 621a.6(c))."""
    table = pai_gow_table(shaker_if_rng_down=True)
    generator = generator_at(table)
    down(generator, how, T0 + 30 * S)
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    close(round_)
    result(round_, "deal", {"stacks": STACKS, "dice": [6, 6, 1]})
    outcome = deal_outcome(round_)
    assert (outcome["count"], outcome["starting_place"]) == (13, "4")
    play_out(round_)


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_with_no_shaker_to_fall_back_on_a_generator_down_stops_the_table(how):
    """58 Pa. Code § 621a.2(e), § 621a.6(a)(1): a table whose Rules Submission gives the
    starting position to the generator alone starts no round, and does not open, while the
    generator is down."""
    table = pai_gow_table(shaker_if_rng_down=False)
    generator = device_at(table, "pai_gow_rng")
    down(generator, how, T0 + 30 * S)
    reason = (
        f"the Pai Gow random number generator at {table.number} is {word(how)} "
        f"({code('621a.2(e)')})"
    )
    assert refused(round_open, table, by=operations(), now=T0 + M) == [reason]
    table_suspend(table, by=operations(), now=T0 + 2 * M)
    assert refused(table_open, table, by=operations(), now=T0 + 3 * M) == [reason]
    back(generator, how, T0 + 4 * M)
    assert table_open(table, by=operations(), now=T0 + 5 * M).status == Table.Status.OPEN


def test_a_number_the_generator_did_not_post_is_refused():
    """58 Pa. Code § 621a.6(a)(1), (b): the number is the one the generator "automatically
    selects and displays"; the dealer may not enter one of his own."""
    table = pai_gow_table(shaker_if_rng_down=False)
    generator = device_at(table, "pai_gow_rng")
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    close(round_)
    assert refused(result, round_, "deal", {"stacks": STACKS, "rng": 5}) == [
        f"the generator's number is posted by the generator ({code('621a.6(a)(1)')})"
    ]
    assert refused(generator_number_post, round_, 5, by=operations(), now=T0 + 3 * M) == [
        "the number is posted by the table's random number generator"
    ]
    generator_number_post(round_, 5, by=generator, now=T0 + 3 * M + 30 * S)
    assert refused(result, round_, "deal", {"stacks": STACKS, "rng": 6}) == [
        f"the generator posted 5, not 6 ({code('621a.6(a)(1)')})"
    ]
    result(round_, "deal", {"stacks": STACKS, "rng": 5})
    assert deal_outcome(round_)["starting_place"] == "4"
    play_out(round_)


@pytest.mark.parametrize("how", ["fault", "out_of_order"])
def test_a_generator_that_is_faulted_or_out_of_order_does_not_give_the_starting_position(how):
    """58 Pa. Code § 621a.2(e), § 621a.6(a)(1): the starting position comes from an approved
    generator in working order; one that reported a fault or that staff marked out of order
    does not give it (the dealer's dice do, under the Rules Submission's fallback)."""
    table = pai_gow_table(shaker_if_rng_down=True)
    generator = generator_at(table)
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    if how == "fault":
        fault_report(generator, "display failure", now=T0 + 2 * M + 30 * S)
    else:
        device_out_of_order(generator, "display dark", by=operations(), now=T0 + 2 * M + 30 * S)
    with pytest.raises(FloorRefused):
        generator_number_post(round_, 5, by=fresh_device(generator), now=T0 + 3 * M)
    assert not round_.events.filter(event="rng_number").exists()


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_once_the_generator_has_posted_its_number_the_dealers_dice_do_not_replace_it(how):
    """58 Pa. Code § 621a.6(a)(1), (b): the number the generator displayed "shall determine
    which player receives the first stack"; the generator going down afterwards does not
    let the dealer's dice choose another starting position."""
    table = pai_gow_table(shaker_if_rng_down=True)
    generator = generator_at(table)
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    generator_number_post(round_, 5, by=generator, now=T0 + 3 * M)
    down(generator, how, T0 + 3 * M + 30 * S)
    before = written(table)
    with pytest.raises(FloorRefused):
        result(round_, "deal", {"stacks": STACKS, "dice": [6, 6, 6]})
    assert written(table) == before


# --- Craps: Power Odds, § 623b.5 ------------------------------------------------------------


def power_odds_table(submission_offers: bool = True) -> tuple[Table, Device]:
    """A Craps table offering Power Odds, open with its generator active (the table needs
    it, § 623b.5(c): `compliant_table` registers every device the table needs)."""
    table = open_table("craps", options={"power_odds": submission_offers}, power_odds=True)
    return table, device_at(table, "power_odds_rng")


def throw_refusal(table: Table, round_: Round, why: str = "") -> str:
    return (
        f"no throw at {table.number} until the Power Odds random number generator has "
        f"displayed its selection for round {round_.number}{why} ({code('623b.5(c)')})"
    )


def test_the_power_odds_selection_is_the_generators_and_is_made_before_the_throw():
    """58 Pa. Code § 623b.5(c), (d): after the wagers, before the dice are thrown, the
    generator selects the wagers with increased odds; Any Craps at 14 to 1 pays $140 on $10
    where the usual 7 to 1 would pay $70. A selection entered by the dealer is refused, and
    so is a throw before the generator has selected."""
    table, generator = power_odds_table()
    round_ = opened(table)
    place(round_, wager("ann", "any_craps", "10"))
    before = written(table)
    assert refused(result, round_, "power_odds", {"any_craps": "14 to 1"}) == [
        f"the Power Odds selection is the random number generator's ({code('623b.5(c)')})"
    ]
    assert refused(result, round_, "throw", [1, 1]) == [throw_refusal(table, round_)]
    assert written(table) == before
    close(round_)
    assert refused(result, round_, "throw", [1, 1]) == [throw_refusal(table, round_)]

    result_enter(round_, "power_odds", {"any_craps": "14 to 1"}, by=generator, now=T0 + 3 * M)
    selection = fresh(round_).events.get(event="power_odds")
    assert (selection.source, selection.device_id) == (RoundEvent.Source.DEVICE, generator.pk)
    assert fresh(round_).status == Round.Status.CLOSED
    result(round_, "throw", [1, 1])
    assert settle(round_) == "settled"
    [(ref, (outcome, net, _))] = decided(round_).items()
    assert (ref, outcome, net) == ("1.1", "win", D("140.00"))
    assert Resolution.objects.get(round=round_).extra.get("power_odds") == "14 to 1"


def test_a_selection_of_nothing_lets_the_throw_pay_the_posted_odds():
    """58 Pa. Code § 623b.5(c): the generator shows "which bet or bets have been selected
    for which, if any, Power Odds increased payouts": selecting none is a selection, and Any
    Craps then pays its usual 7 to 1 (§ 623a.3(a)(23)): $70 on $10."""
    table, generator = power_odds_table()
    round_ = opened(table)
    place(round_, wager("ann", "any_craps", "10"))
    result_enter(round_, "power_odds", {}, by=generator, now=T0 + 3 * M)
    result(round_, "throw", [1, 1])
    settle(round_)
    assert {ref: (r, net) for ref, (r, net, _) in decided(round_).items()} == {
        "1.1": ("win", D("70.00"))
    }


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_a_power_odds_generator_down_during_a_round_holds_the_throw_until_marked_out_of_order(
    how,
):
    """58 Pa. Code § 623b.5(c) (docs/regulations.md, Devices): a generator that goes down
    after the wagers takes no selection, and the throw waits for it; staff marking it out of
    order let this round's throw play without Power Odds: Any Craps at 7 to 1, $70 on $10.
    The next round does not start until the generator works again."""
    table, generator = power_odds_table()
    round_ = opened(table)
    place(round_, wager("ann", "any_craps", "10"))
    close(round_)
    generator = down(generator, how, T0 + 3 * M)
    assert refused(
        result_enter, round_, "power_odds", {"any_craps": "14 to 1"}, by=generator, now=T0 + 3 * M
    ) == [
        f"the Power Odds random number generator at {table.number} is {word(how)}: no Power "
        f"Odds at this table until it works ({code('623b.5(c)')})"
    ]
    why = f"; it is {word(how)}"
    assert refused(result, round_, "throw", [1, 1]) == [throw_refusal(table, round_, why)]

    device_out_of_order(generator, "display dark", by=operations(), now=T0 + 4 * M)
    result(round_, "throw", [1, 1])
    settle(round_)
    [(ref, (outcome, net, _))] = decided(round_).items()
    assert (ref, outcome, net) == ("1.1", "win", D("70.00"))
    assert refused(round_open, table, by=operations(), now=T0 + 6 * M) == [
        f"the Power Odds random number generator at {table.number} is out of order: display "
        f"dark ({code('623b.5(c)')})"
    ]


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_a_table_offering_power_odds_starts_no_round_and_does_not_open_without_its_generator(
    how,
):
    """58 Pa. Code § 623b.5(c): "the random number generator shall be initiated" before
    every throw, so a table that offers Power Odds starts no round, and does not open, while
    its generator is down; once it works again the table opens."""
    table, generator = power_odds_table()
    down(generator, how, T0 + 30 * S)
    reason = (
        f"the Power Odds random number generator at {table.number} is {word(how)} "
        f"({code('623b.5(c)')})"
    )
    assert refused(round_open, table, by=operations(), now=T0 + M) == [reason]
    table_suspend(table, by=operations(), now=T0 + 2 * M)
    assert refused(table_open, table, by=operations(), now=T0 + 3 * M) == [reason]
    back(generator, how, T0 + 4 * M)
    assert table_open(table, by=operations(), now=T0 + 5 * M).status == Table.Status.OPEN


def test_a_table_offering_power_odds_with_no_generator_registered_does_not_open():
    """58 Pa. Code § 623b.5(c): the refusal names the generator the table lacks."""
    floor = compliant_table("craps", options={"power_odds": True}, power_odds=True,
                            with_devices=False)  # fmt: skip
    assert refused(table_open, floor.table, by=operations(), now=T0) == [
        f"{floor.table.number} has no Power Odds random number generator registered "
        f"({code('623b.5(c)')})"
    ]


def test_a_table_that_does_not_offer_power_odds_throws_without_a_generator():
    """58 Pa. Code § 623b.5(a): Power Odds are offered only where the Rules Submission says
    so, and then only at the tables that offer them: at another table of the same holder
    nothing waits for a selection, none is taken, and Any Craps pays 7 to 1."""
    power_odds_table()
    table = open_table("craps")
    assert table_needs(table, T0) == ()
    round_ = opened(table)
    place(round_, wager("ann", "any_craps", "10"))
    assert fresh(round_).options["power_odds"] is False
    assert refused(result, round_, "power_odds", {"any_craps": "14 to 1"})
    result(round_, "throw", [1, 1])
    settle(round_)
    assert decided(round_)["1.1"][:2] == ("win", D("70.00"))


def test_a_table_offering_power_odds_under_a_submission_that_does_not_is_refused():
    """58 Pa. Code § 623b.5(a): "if specified in its Rules Submission": a table marked as
    offering Power Odds does not open under a submission that offers none."""
    floor = compliant_table("craps", options={"power_odds": False}, power_odds=True)
    refusals = refused(table_open, floor.table, by=operations(), now=T0)
    assert (
        f"the Rules Submission in force ({floor.submission}) does not offer Power Odds "
        f"(58 Pa. Code § 623b.5(a))"
    ) in refusals


# --- Opening: every device the table needs, active --------------------------------------------

# (label for the id, compliant_table arguments, the devices needed as (kind, position,
#  what the refusal calls it, the section)).
LABELS = {
    "illumination_device": ("Sic Bo illumination device", "625a.1(b)"),
    "automated_shaker": ("automated Sic Bo shaker", "625a.7(d)"),
    "extra_roll_lockout": ("Extra Roll lock-out control", "675a.1(c)(2)"),
    "pai_gow_rng": ("Pai Gow random number generator", "621a.2(e)"),
}
TABLES = {
    "sic_bo": (("sic_bo", None), {}, [("illumination_device", None)]),
    "sic_bo_automated": (
        ("sic_bo", None),
        {"automated_shaker": True},
        [("illumination_device", None), ("automated_shaker", None)],
    ),
    "high_roll_dice_10": (
        ("high_roll_dice", "10_dice"),
        {},
        [("extra_roll_lockout", None), *(("extra_roll_device", n) for n in range(1, 7))],
    ),
    "pai_gow_rng_only": (
        ("pai_gow", None),
        {"options": {"starting_position": "rng"}},
        [("pai_gow_rng", None)],
    ),
    "craps_electronic": (
        ("craps", None),
        {"operation": "electronic"},
        [("electronic_table", None)],
    ),
}


def described(kind: str, position: int | None) -> tuple[str, str]:
    """(the device as the refusal names it, its citation), written out by hand."""
    if kind == "extra_roll_device":
        return f"Extra Roll wagering device at betting position {position}", code("675a.1(c)(1)")
    if kind == "electronic_table":
        return (
            "fully automated or hybrid Craps table system",
            "58 Pa. Code § 623b.2(a), § 623b.4(a)",
        )
    label, section = LABELS[kind]
    return label, code(section)


OPENING_CASES = [
    pytest.param(name, kind, position, state, id=f"{name}-{kind}{position or ''}-{state}")
    for name, (_, _, needed) in TABLES.items()
    for kind, position in needed
    for state in ("missing", "registered", "stale", "faulted", "out_of_order")
]


@pytest.mark.parametrize(("name", "kind", "position", "state"), OPENING_CASES)
def test_a_table_does_not_open_until_every_device_it_needs_is_active(name, kind, position, state):
    """58 Pa. Code § 625a.1(b), § 625a.5(a), § 625a.1(d)(2), § 675a.1(c), § 621a.2(e),
    § 623b.2(a): each device the table's chapter asks for is registered with its approval
    and heard from; missing, registered but never heard, stale, faulted or out of order
    (but for an automated Sic Bo shaker, § 625a.7(d)), the table does not open; with all of
    them active it does."""
    (game, variant), kwargs, needed = TABLES[name]
    table = compliant_table(game, variant, with_devices=False, **kwargs).table
    assert {(n.kind, n.position) for n in gates_needs(table)} == set(needed)
    made = {}
    for need in needed:
        if need == (kind, position) and state == "missing":
            continue
        made[need] = register(table, need[0], now=T0, position=need[1]).device
    target = made.get((kind, position))
    rest = [d for key, d in made.items() if key != (kind, position)]
    if state == "registered":
        heard(*rest, now=T0)
    elif state == "stale":
        heard(*made.values(), now=T0)
        heard(*rest, now=T0 + M)
    elif state == "faulted":
        heard(*made.values(), now=T0)
        fault_report(target, "self-test failed", now=T0 + 30 * S)
    elif state == "out_of_order":
        heard(*made.values(), now=T0)
        device_out_of_order(target, "sign placed", by=operations(), now=T0 + 30 * S)
    else:
        heard(*rest, now=T0 + M)

    what, section = described(kind, position)
    if state == "missing":
        reason = f"{table.number} has no {what} registered ({section})"
    else:
        words = {
            "registered": "registered but not yet heard from",
            "out_of_order": "out of order: sign placed",
        }.get(state, state)
        reason = f"the {what} at {table.number} is {words} ({section})"
    if state == "out_of_order" and kind == "automated_shaker":
        # § 625a.7(d): covered or signed out of order, the manual shaker plays instead.
        assert table_open(table, by=operations(), now=T0 + M).status == Table.Status.OPEN
        return
    assert refused(table_open, table, by=operations(), now=T0 + M) == [reason]
    assert Table.objects.get(pk=table.pk).status == Table.Status.CLOSED

    if state == "missing":
        made[(kind, position)] = register(table, kind, now=T0 + M, position=position).device
    elif state == "faulted":
        fault_clear(fresh_device(target), "self-test passed", now=T0 + M)
    elif state == "out_of_order":
        device_return_to_service(fresh_device(target), by=operations(), now=T0 + M)
    heard(*made.values(), now=T0 + 2 * M)
    assert all(fresh_device(d).status == Status.ACTIVE for d in made.values())
    assert table_open(table, by=operations(), now=T0 + 2 * M).status == Table.Status.OPEN


def gates_needs(table: Table) -> tuple[rules.Need, ...]:
    return table_needs(table, T0)


@pytest.mark.parametrize(
    ("game", "variant", "kwargs"),
    [
        ("high_roll_dice", "6_dice", {}),
        ("craps", None, {}),
        ("craps", "mini_craps", {}),
        ("pai_gow", None, {}),
        ("pai_gow", None, {"options": {"starting_position": "rng", "shaker_if_rng_down": True}}),
        ("three_dice_football", None, {}),
    ],
    ids=["hrd_6_dice", "craps_manual", "mini_craps", "pai_gow_shaker", "pai_gow_rng_fallback",
         "three_dice_football"],
)  # fmt: skip
def test_a_table_that_needs_no_device_opens_without_one(game, variant, kwargs):
    """58 Pa. Code § 675a.6(b) (the six-dice game's layout leaves out § 675a.1(c)), § 623a
    (a manual Craps table), § 621a.6(a)(2) (the Pai Gow shaker, or the shaker to fall back
    on): nothing electronic is needed to open."""
    table = compliant_table(game, variant, with_devices=False, **kwargs).table
    assert gates_needs(table) == ()
    assert table_open(table, by=operations(), now=T0 + M).status == Table.Status.OPEN
    assert Device.objects.filter(table=table).count() == 0
    assert round_open(table, by=operations(), now=T0 + 2 * M).number == 1


def test_registered_devices_heard_long_ago_go_stale_at_the_watch():
    """The watch (devices/watch.py): a Sic Bo device's heartbeat every 2 s, stale after 3
    missed, i.e. more than 6 s of silence: active at 6 s, stale at 7 s."""
    floor = compliant_table("sic_bo", with_devices=True)
    lamp = device_at(floor.table, "illumination_device")
    devices_watch(T0 + 6 * S)
    assert fresh_device(lamp).status == Status.ACTIVE
    devices_watch(T0 + 7 * S)
    assert fresh_device(lamp).status == Status.STALE
