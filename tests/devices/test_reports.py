"""A device's report into its table's round, end to end (issue 8): POST /devices/v1/report,
signed with the device's credential (devices.signing.signed_headers), at a moment set on
the endpoints' clock (devices.views.clock).

- the automated Sic Bo shaker posts the round's three dice (58 Pa. Code § 625a.1(d)(2),
  § 625a.5(b)(2), (d));
- the Pai Gow random number generator posts the starting number (§ 621a.6(a)(1));
- the Power Odds random number generator posts its selection before the throw (§ 623b.5(c));
- an Extra Roll wagering device posts a purchase at its position (§ 675a.1(c)(1));
- the Extra Roll lock-out control posts "no more bets" (§ 675a.1(c)(2), § 675a.4(a)).

What the floor refuses comes back as 422 with the API's error body, code "refused", and
writes nothing; a round that is not in progress at the device's table is 409 no_such_round.
"""

import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.test import Client

from casino.api.errors import error_body
from casino.models import Table
from devices import signing
from devices.models import Device
from games.models import LedgerLine, Resolution, Round, RoundEvent, Wager
from games.services.round_state import in_play
from gaming.devices import device_out_of_order, fault_report
from tests.casino.floor_fixtures import T0, operations
from tests.devices.conftest import Clock
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

REPORT = "/devices/v1/report"
S = timedelta(seconds=1)
Account = LedgerLine.Account


def refusal(status: int, code: str, reasons: list[str]) -> dict:
    """The API's error body for a device's refused report."""
    return error_body(status, code, "; ".join(reasons), reasons)


def code(section: str) -> str:
    return f"58 Pa. Code § {section}"


@pytest.fixture(autouse=True)
def clock(endpoint_clock):
    return endpoint_clock


def device_at(table: Table, kind: str, position: int | None = None) -> Device:
    return Device.objects.exclude(status=Device.Status.RETIRED).get(
        table=table, kind=kind, position=position
    )


def post(clock: Clock, device: Device, body: dict[str, Any], moment: datetime):
    """The device's signed report at `moment` (the endpoints' clock set to it too)."""
    clock.at(moment)
    credential = device.credentials.order_by("-issued_at").first()
    secret = signing.secret_for(credential.key_id, credential.salt)
    raw = json.dumps({"device": device.pk, **body}).encode()
    headers = signing.signed_headers(credential.key_id, secret, "POST", REPORT, raw, clock())
    return Client().post(REPORT, data=raw, content_type="application/json", headers=headers)


def decided(round_: Round) -> dict[str, tuple[str, Any]]:
    return {
        r.wager.ref: (r.result, r.net)
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }


def events(round_: Round) -> list[tuple[str, str, int | None]]:
    """(event, source, device id) of the round's events, in order."""
    return [(e.event, e.source, e.device_id) for e in fresh(round_).events.order_by("seq")]


DEALER, DEVICE = RoundEvent.Source.DEALER, RoundEvent.Source.DEVICE


# --- the automated Sic Bo shaker --------------------------------------------------------------


def test_the_automated_shaker_posts_the_three_dice_of_the_round(clock):
    """58 Pa. Code § 625a.5(b)(2), (c), (d): the automated shaker tosses the dice once
    wagering has closed; its three dice settle the round (§ 625a.5(e)): 1, 4, 4 total 9."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "double:4", "10"),  # § 625a.6(a): Two of a Kind 8 to 1: 80
        wager("ann", "total:9", "5"),  # Total Value Bet of 9, 6 to 1: 30
        wager("bob", "big", "20"),  # 9 is not 11-17: loses
        wager("bob", "single:4", "10"),  # § 625a.6(b)(2): two 4s, 2 to 1: 20
    )
    moment = T0 + 4 * M
    response = post(clock, shaker, {"table": table.number, "round": 1, "dice": [1, 4, 4]}, moment)
    assert response.status_code == 200, response.content
    assert response.json() == {"round": f"{table.number} round 1", "status": "result_entered"}

    round_ = fresh(round_)
    assert (round_.status, round_.result_at) == (Round.Status.RESULT_ENTERED, moment)
    assert events(round_) == [
        ("wagers", DEALER, None),
        ("no_more_bets", DEVICE, shaker.pk),  # the toss closes the wagering
        ("throw", DEVICE, shaker.pk),
    ]
    throw = round_.events.get(event="throw")
    assert (throw.payload, throw.entered_by_id, throw.at, throw.cite) == (
        [1, 4, 4],
        None,
        moment,
        "",
    )

    assert settle(round_) == "settled"
    assert decided(round_) == {
        "1.1": ("win", D("80.00")),
        "1.2": ("win", D("30.00")),
        "1.3": ("lose", D("-20.00")),
        "1.4": ("win", D("20.00")),
    }
    assert balance(table, Account.PLAYER, "ann") == D("110.00")
    assert balance(table, Account.PLAYER, "bob") == D("0.00")
    books_balance_check(table)


def test_a_report_for_a_round_not_in_progress_is_no_such_round(clock):
    """A device reports into a round in progress at its own table; another number, or a
    round already settled, is 409 no_such_round and changes nothing."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    first = opened(table)
    place(first, wager("ann", "small", "10"))
    dice = {"table": table.number, "round": 1, "dice": [1, 2, 3]}
    assert post(clock, shaker, dice, T0 + 4 * M).status_code == 200
    settle(first)
    before = written(table)
    for number in (1, 2):
        body = {"table": table.number, "round": number, "dice": [6, 6, 6]}
        response = post(clock, shaker, body, T0 + 6 * M + number * S)
        assert response.status_code == 409
        text = f"{table.number} has no round {number} in progress"
        assert response.json() == refusal(409, "no_such_round", [text])
    assert written(table) == before


def test_a_throw_the_floor_refuses_is_422_with_its_reasons_and_writes_nothing(clock):
    """58 Pa. Code § 625a.2(a): Sic Bo is played with three dice; a report of four is
    refused with the engine's words, and the round is left open, its wagers untouched."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    before = written(table)
    response = post(
        clock, shaker, {"table": table.number, "round": 1, "dice": [1, 2, 3, 4]}, T0 + 4 * M
    )
    assert response.status_code == 422
    assert response.json() == refusal(
        422, "refused", [f"Sic Bo is played with three dice; 4 were entered ({code('625a.2(a)')})"]
    )
    assert written(table) == before
    assert fresh(round_).status == Round.Status.OPEN


def test_a_shaker_marked_out_of_order_is_refused_its_dice(clock):
    """58 Pa. Code § 625a.7(d): a shaker covered and signed out of order has had its dice
    removed: a report from it is refused, and the manual shaker's dice are taken."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    device_out_of_order(shaker, "covered", by=operations(), now=T0 + 30 * S)
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    before = written(table)
    response = post(
        clock, shaker, {"table": table.number, "round": 1, "dice": [1, 2, 3]}, T0 + 4 * M
    )
    assert response.status_code == 422
    shaker = device_at(table, "automated_shaker")
    text = f"{shaker} is out of order: covered: its dice are not taken"
    assert response.json() == refusal(422, "refused", [text])
    assert written(table) == before
    result(round_, "throw", [1, 2, 3])  # total 6: Small wins 1 to 1
    settle(round_)
    assert decided(round_) == {"1.1": ("win", D("10.00"))}


# --- the Pai Gow random number generator ----------------------------------------------------

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


def test_the_pai_gow_generator_posts_the_number_the_deal_counts_from(clock):
    """58 Pa. Code § 621a.6(a)(1), (b), (c): "no more bets", then the generator's number;
    7 counts the dealer 1, positions 1 to 6 as 2 to 7: position 6 receives the first stack
    (stack 1, from the dealer's right), then the Dead Hand stack 2, the dealer stack 3."""
    table = open_table("pai_gow", options={"starting_position": "rng"})
    generator = device_at(table, "pai_gow_rng")
    round_ = opened(table)
    place(round_, wager("ann", "pai_gow", "10", position=6))
    moment = T0 + 3 * M
    response = post(clock, generator, {"table": table.number, "round": 1, "number": 7}, moment)
    assert response.status_code == 200, response.content
    assert response.json() == {"round": f"{table.number} round 1", "status": "closed"}
    assert events(round_) == [
        ("wagers", DEALER, None),
        ("no_more_bets", DEVICE, generator.pk),
        ("rng_number", DEVICE, generator.pk),
    ]
    posted = fresh(round_).events.get(event="rng_number")
    assert (posted.payload, posted.at, posted.cite) == (7, moment, code("621a.6(a)(1)"))

    # A second number for the same round is refused.
    again = post(clock, generator, {"table": table.number, "round": 1, "number": 3}, moment)
    assert again.status_code == 422
    assert again.json()["reasons"] == ["this round's starting position is already given"]

    result(round_, "deal", {"stacks": STACKS})
    [deal] = [p for p in in_play(fresh(round_)).played if p.event == "deal"]
    assert (deal.outcome.extra["count"], deal.outcome.extra["starting_place"]) == (7, "6")
    assert deal.outcome.extra["hands"] == {
        "dealer": ["5-5", "3-3", "5-6", "1-6"],
        "6": ["1-1", "1-1", "5-6", "2-6"],
    }


# --- the Power Odds random number generator -------------------------------------------------


def test_the_power_odds_generator_posts_its_selection_before_the_throw(clock):
    """58 Pa. Code § 623b.5(c), (d): after the wagers and before the throw the generator
    selects Any Seven at 8 to 1; a 7 then pays $40 on $5 (the usual 4 to 1, § 623a.3,
    would pay $20)."""
    table = open_table("craps", options={"power_odds": True}, power_odds=True)
    generator = device_at(table, "power_odds_rng")  # the table opened with it (§ 623b.5(c))
    round_ = opened(table)
    place(round_, wager("ann", "any_seven", "5"))
    body = {"table": table.number, "round": 1, "selection": {"any_seven": "8 to 1"}}
    response = post(clock, generator, body, T0 + 3 * M)
    assert response.status_code == 200, response.content
    assert response.json() == {"round": f"{table.number} round 1", "status": "closed"}
    assert events(round_) == [
        ("wagers", DEALER, None),
        ("no_more_bets", DEVICE, generator.pk),
        ("power_odds", DEVICE, generator.pk),
    ]
    result(round_, "throw", [3, 4])
    settle(round_)
    assert decided(round_) == {"1.1": ("win", D("40.00"))}


# --- High Roll Dice: the Extra Roll devices ---------------------------------------------------


def hrd_round(table: Table) -> Round:
    round_ = opened(table)
    place(
        round_,
        wager("ann", "pip:6", "10", position=3),
        wager("ann", "like_kind:5", "10", position=3),
    )
    return round_


def test_an_extra_roll_device_posts_a_purchase_at_its_own_position(clock):
    """58 Pa. Code § 675a.1(c)(1), § 675a.2(e)(3): the wagering device at betting position 3
    accepts the Extra Roll bought there, equal to the player's Like Kind Boulevard Wager."""
    table = open_table("high_roll_dice")
    device = device_at(table, "extra_roll_device", 3)
    round_ = hrd_round(table)
    body = {"table": table.number, "round": 1, "extra_roll": {"player": "ann", "amount": "10"}}
    response = post(clock, device, body, T0 + 2 * M + 30 * S)
    assert response.status_code == 200, response.content
    assert response.json() == {"round": f"{table.number} round 1", "status": "open"}
    bought = Wager.objects.get(round=round_, kind="extra_roll")
    assert (bought.ref, bought.player, bought.amount, bought.extra) == (
        "1.3",
        "ann",
        D("10.00"),
        {"position": 3},
    )
    assert events(round_) == [("wagers", DEALER, None), ("wagers", DEVICE, device.pk)]


def test_an_extra_roll_bought_for_a_json_number_is_a_malformed_report(clock):
    """The floor's one rule for amounts (docs/api.md, "Amounts"): a decimal string."""
    table = open_table("high_roll_dice")
    device = device_at(table, "extra_roll_device", 3)
    hrd_round(table)
    before = written(table)
    body = {"table": table.number, "round": 1, "extra_roll": {"player": "ann", "amount": 10}}
    response = post(clock, device, body, T0 + 2 * M + 30 * S)
    assert response.json() == refusal(
        400,
        "malformed_body",
        ['extra_roll.amount must be a decimal string such as "10.00", not a JSON number'],
    )
    assert written(table) == before


def test_the_lock_out_posts_no_more_bets_and_a_later_extra_roll_is_refused(clock):
    """58 Pa. Code § 675a.1(c)(2), § 675a.4(a): the lock-out engaged at "no more bets"
    prevents the recognition of an Extra Roll a player attempts to purchase after it."""
    table = open_table("high_roll_dice")
    lockout = device_at(table, "extra_roll_lockout")
    device = device_at(table, "extra_roll_device", 3)
    round_ = hrd_round(table)
    lock_out = {"table": table.number, "round": 1, "lock_out": True}
    response = post(clock, lockout, lock_out, T0 + 3 * M)
    assert response.status_code == 200, response.content
    assert response.json() == {"round": f"{table.number} round 1", "status": "closed"}
    assert events(round_) == [("wagers", DEALER, None), ("no_more_bets", DEVICE, lockout.pk)]

    before = written(table)
    body = {"table": table.number, "round": 1, "extra_roll": {"player": "ann", "amount": "10"}}
    late = post(clock, device, body, T0 + 3 * M + 5 * S)
    assert late.status_code == 422
    assert late.json() == refusal(
        422,
        "refused",
        [
            '1.3: the lock-out was engaged at "no more bets"; a later Extra Roll is not '
            f"recognized ({code('675a.1(c)(2)')})"
        ],
    )
    assert written(table) == before
    # A second "no more bets" is refused too: the round is already closed.
    again = post(clock, lockout, lock_out, T0 + 3 * M + 10 * S)
    assert again.status_code == 422
    assert again.json()["reasons"] == [f"{table.number} round 1 is no more bets"]


def test_an_extra_roll_report_from_a_device_that_is_down_is_refused(clock):
    """58 Pa. Code § 675a.1(c)(1): a purchase reported by a position's device that reported a
    fault is not taken; the dealer closes the round as usual."""
    table = open_table("high_roll_dice")
    device = device_at(table, "extra_roll_device", 3)
    fault_report(device, "sensor fault", now=T0 + 30 * S)
    round_ = hrd_round(table)
    before = written(table)
    body = {"table": table.number, "round": 1, "extra_roll": {"player": "ann", "amount": "10"}}
    response = post(clock, device, body, T0 + 2 * M + 30 * S)
    assert response.status_code == 422
    assert response.json()["reasons"] == [
        "1.3: the Extra Roll wagering device at betting position 3 is faulted: no Extra Roll "
        f"there ({code('675a.1(c)(1)')})"
    ]
    assert written(table) == before
    close(round_)
    assert fresh(round_).status == Round.Status.CLOSED
