"""What a round takes now (`next`) against what its checks take: the engine's, the round
flow's and the devices' gates (devices/gates.py), one source. At each moment of a round, every
void, no roll, deal and Extra Roll that `next` lists is taken, and every one it leaves out is
refused (each tried, then undone).

The rules: the Pai Gow generator gives the start once "no more bets" is called (58 Pa. Code
§ 621a.6(a)(1), (b)), so no deal is taken at its table until its number is recorded, save
with the shaker's dice where the Rules Submission falls back on them while it is down
(§ 621a.6(a)(2)); a Pai Gow "no roll" is the shaker's dice not landing flat or falling out
before the deal (§ 621a.10(a), (b)); a Sic Bo round's shaker is fixed as it opens
(§ 625a.5(b)), the manual one when the automated one is out of order (§ 625a.7(d)); an Extra
Roll is bought at a working wagering device while the lock-out control works (§ 675a.1(c)).
"""

from typing import Any

import pytest
from django.db import transaction

from casino.services.errors import FloorRefused
from devices.models import Device
from devices.services import device_return_to_service
from games import flow
from games.models import Round
from gaming.devices import device_out_of_order
from gaming.round_views import round_view
from gaming.rounds import (
    generator_number_post,
    no_roll,
    result_enter,
    round_open,
    round_void,
    wagers_place,
)
from tests.casino.floor_fixtures import T0, operations
from tests.devices.device_fixtures import fresh as fresh_device
from tests.devices.device_fixtures import heard
from tests.devices.test_consequences import (
    PAI_GOW_WAGERS,
    STACKS,
    back,
    code,
    decided,
    device_at,
    down,
    extra_roll,
    generator_at,
    hrd_wagers,
    others,
    pai_gow_table,
    play_out,
    refused,
    word,
)
from tests.games.round_fixtures import (
    D,
    M,
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

S = M / 60
LATER = T0 + 4 * M  # after every step these tests make before they try
# The contract's direct deal (SCENARIOS.md): the stacks' tiles as dealt, naming no start.
DIRECT = {"dealer": STACKS[4], "positions": {"1": STACKS[5], "2": STACKS[6], "4": STACKS[0]}}
DEALS = ({"stacks": STACKS}, {"stacks": STACKS, "dice": [6, 6, 1]}, DIRECT)


class Undone(Exception):
    """Raised inside a try to roll back what it did."""


def taken(action: Any, round_: Round, *args: Any, **kwargs: Any) -> bool:
    """Whether the round flow takes the action now; undone either way."""
    try:
        with transaction.atomic():
            action(fresh(round_), *args, by=operations(), now=LATER, **kwargs)
            raise Undone
    except Undone:
        return True
    except FloorRefused:
        return False


def next_holds(round_: Round) -> dict[str, list[str]]:
    """The round's `next` (gaming.round_views), with each listed void, no roll, deal and
    Extra Roll taken and each left out refused. The `next`."""
    shown = round_view(fresh(round_))["next"]
    game = round_.game
    for section in flow.VOIDS.get(game, {}):
        assert taken(round_void, round_, section) == (section in shown["voids"]), section
    if game in flow.NO_ROLL_RETHROW:
        assert taken(no_roll, round_) == ("no_roll" in shown["events"])
    if game == "pai_gow":
        dealt = [form for form in DEALS if taken(result_enter, round_, "deal", form)]
        assert bool(dealt) == ("deal" in shown["events"]), dealt
    if game == "high_roll_dice":
        bought = [
            p
            for p in range(1, round_.table.seats + 1)
            if taken(wagers_place, round_, [extra_roll("ann", p)])
        ]
        assert bool(bought) == ("extra_roll" in shown["wagers"]), bought
    return shown


# --- S4, S5, S1: Pai Gow at the generator's table ---------------------------------------------


def test_621a_6_a_1_no_deal_of_any_form_until_the_generators_number_is_recorded():
    """§ 621a.6(a)(1), (b): at PG-01, whose Rules Submission gives the start to the generator
    alone, neither the contract's direct deal, nor the stacks, nor the dealer's dice deal a
    round before its number; while wagering is open either (a result closes wagering). Once
    the number is posted, the deal from it is taken and the round plays out."""
    table = pai_gow_table(shaker_if_rng_down=False)
    generator = device_at(table, "pai_gow_rng")
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    before = written(table)
    waiting = (
        f"no deal at {table.number} until the random number generator's number for round 1 "
        f"is recorded: it gives the starting position ({code('621a.6(a)(1)')}, (b))"
    )
    assert refused(result, round_, "deal", DIRECT) == [waiting]  # during wagering
    assert refused(result, round_, "deal", {"stacks": STACKS}) == [waiting]
    assert refused(result, round_, "deal", {"stacks": STACKS, "dice": [6, 6, 1]}) == [
        f"the random number generator at {table.number} is working: the starting position "
        f"comes from it ({code('621a.6(a)(1)')})"
    ]
    assert written(table) == before and fresh(round_).status == Round.Status.OPEN
    shown = next_holds(round_)
    assert "deal" not in shown["events"] and "no_roll" not in shown["events"]
    # The void for want of the number: listed, with the event it is made of (S1).
    assert shown["voids"] == ["621a.6(a)(1)"] and "irregularity" in shown["events"]

    close(round_)
    shown = next_holds(round_)
    assert (shown["events"], shown["voids"]) == (["irregularity"], ["621a.6(a)(1)"])

    generator_number_post(round_, 5, by=fresh_device(generator), now=T0 + 3 * M + 30 * S)
    shown = next_holds(round_)
    # § 621a.6(b): the number gives the start; no void for want of it, no shaker.
    assert (shown["events"], shown["voids"]) == (["deal"], [])
    result(round_, "deal", DIRECT)
    shown = next_holds(round_)
    assert "deal" not in shown["events"] and "no_roll" not in shown["events"]
    # After a deal from the generator's number: the dealer may still have counted it to the
    # wrong positions (docs/regulations.md, Pai Gow, § 621a.10(c)); the tiles are dealt, so
    # no void for want of a start.
    assert shown["voids"] == ["621a.10(c)", "621a.10(e)"]
    play_out(round_)


@pytest.mark.parametrize("how", ["stale", "fault"])
def test_621a_6_a_2_with_the_generator_down_the_deal_needs_the_shakers_dice(how):
    """§ 621a.6(a)(2) under the Rules Submission's fallback: with the generator down the
    dealer shakes the Pai Gow shaker, so the deal names its dice (6, 6, 1: 13, position 4),
    and a no roll of them is taken before the deal; a deal naming no start is refused. With
    the generator working, neither the shaker's deal nor its no roll."""
    table = pai_gow_table(shaker_if_rng_down=True)
    generator = generator_at(table)
    working = opened(table)
    place(working, *PAI_GOW_WAGERS)
    close(working)
    shown = next_holds(working)
    assert "deal" not in shown["events"] and "no_roll" not in shown["events"]
    assert refused(no_roll, working, by=operations(), now=LATER) == [
        f"the random number generator at {table.number} is working: the starting position "
        f"comes from it ({code('621a.6(a)(1)')})"
    ]

    down(generator, how, T0 + 3 * M + 30 * S)
    shown = next_holds(working)
    assert shown["events"] == ["deal", "irregularity", "no_roll"]
    assert shown["voids"] == ["621a.6(a)(1)"]
    assert refused(result, working, "deal", {"stacks": STACKS}) == [
        f"the random number generator at {table.number} is {word(how)}: the starting "
        "position comes from the Pai Gow shaker's three dice, named in the deal "
        f'("dice", {code("621a.6(a)(2)")})'
    ]
    no_roll(working, by=operations(), now=LATER)  # § 621a.10(a): shaken again
    result(working, "deal", {"stacks": STACKS, "dice": [6, 6, 1]}, now=LATER + M)
    assert "no_roll" not in next_holds(working)["events"]
    play_out(working)


def test_621a_10_a_a_no_roll_is_the_shakers_before_the_deal():
    """§ 621a.10(a), (b): at PG-02 (the shaker's table) a no roll is taken before the deal,
    and refused once the tiles are dealt; `next` agrees."""
    table = open_table("pai_gow")
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    close(round_)
    shown = next_holds(round_)
    assert shown["events"] == ["deal", "no_roll"] and shown["voids"] == []
    no_roll(round_, by=operations(), now=T0 + 3 * M + 30 * S)
    result(round_, "deal", {"stacks": STACKS, "dice": [6, 6, 1]})
    before = written(table)
    assert refused(no_roll, round_, by=operations(), now=LATER) == [
        'the tiles are dealt: a "no roll" is called on the Pai Gow shaker before the deal '
        f"({code('621a.10(a)')}, (b))"
    ]
    assert written(table) == before
    assert "no_roll" not in next_holds(round_)["events"]
    play_out(round_)


def test_621a_6_a_2_at_the_shakers_table_a_generator_posts_no_number():
    """§ 621a.6(a): the Rules Submission gives PG-02's start to the Pai Gow shaker; a
    generator registered there gives no round its number (so no deal or no roll there ever
    waits on one)."""
    table = open_table("pai_gow")
    generator = generator_at(table)
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    close(round_)
    assert refused(generator_number_post, round_, 5, by=generator, now=LATER) == [
        f"the Rules Submission gives the starting position at {table.number} to the Pai Gow "
        f"shaker's dice ({code('621a.6(a)(2)')}): no generator's number"
    ]
    assert not round_.events.filter(event="rng_number").exists()


# --- S6: a Sic Bo round's shaker, fixed as it opens -------------------------------------------


def test_625a_5_b_a_round_opened_with_the_manual_shaker_keeps_it_when_the_shaker_returns():
    """§ 625a.5(b), § 625a.7(d): SB-02's automated shaker is out of order as a round opens, so
    the round's options say "manual"; the shaker returned to service (and heard from) while
    the round is closed neither makes it wait nor takes its dice: the dealer's throw 2-3-5
    settles it (Small wins 1 to 1, § 625a.6(a)). A later failure of the shaker voids nothing
    of it. The next round uses the automated shaker again."""
    table = open_table("sic_bo", automated_shaker=True)
    shaker = device_at(table, "automated_shaker")
    device_out_of_order(shaker, "dome jammed, covered", by=operations(), now=T0 + 30 * S)
    round_ = opened(table)
    assert round_.options["shaker"] == "manual"
    place(round_, wager("ann", "small", "10"))
    close(round_)
    device_return_to_service(fresh_device(shaker), by=operations(), now=T0 + 3 * M + 10 * S)
    heard(fresh_device(shaker), *others(shaker), now=T0 + 3 * M + 20 * S)
    assert fresh_device(shaker).status == Device.Status.ACTIVE
    view = round_view(fresh(round_))
    assert view["device_wait"] is None
    assert view["next"] == {"events": ["throw", "no_roll"], "wagers": [], "voids": []}
    next_holds(round_)
    assert refused(
        result_enter, fresh(round_), "throw", [6, 6, 6], by=fresh_device(shaker), now=LATER
    ) == [
        f"{round_} throws with the manual Sic Bo shaker: the automated shaker was out of order "
        f"when it opened, so its dice are not taken ({code('625a.5(b)')})"
    ]
    down(shaker, "fault", LATER)  # the shaker fails again: this round is not its to void
    assert fresh(round_).status == Round.Status.CLOSED
    back(shaker, "fault", LATER + 10 * S)
    result(round_, "throw", [2, 3, 5], now=LATER + M)
    assert settle(round_, now=LATER + 2 * M) == "settled"
    assert decided(round_) == {"1.1": ("win", D("10.00"), code("625a.6(a)"))}

    following = round_open(table, by=operations(), now=LATER + 3 * M)
    assert following.options["shaker"] == "automated"
    place(following, wager("ann", "small", "10"), now=LATER + 4 * M)
    close(following, now=LATER + 5 * M)
    assert round_view(fresh(following))["device_wait"] is not None
    assert next_holds(following)["voids"] == ["625a.7(c)"]


# --- S2: the Extra Roll's devices -------------------------------------------------------------


def test_675a_1_c_next_offers_the_extra_roll_only_where_a_device_takes_it():
    """§ 675a.1(c)(1), (2): `next.wagers` lists `extra_roll` while some betting position's
    wagering device and the lock-out control work: with every position's device down, or
    the lock-out down, it is left out, and every purchase refused."""
    table = open_table("high_roll_dice")
    round_ = opened(table)
    place(round_, *hrd_wagers("ann", 1))
    assert "extra_roll" in next_holds(round_)["wagers"]
    for position in range(2, table.seats + 1):
        down(device_at(table, "extra_roll_device", position), "fault", T0 + 2 * M + 10 * S)
    assert "extra_roll" in next_holds(round_)["wagers"]  # position 1's still works
    down(device_at(table, "extra_roll_device", 1), "fault", T0 + 2 * M + 20 * S)
    shown = next_holds(round_)
    assert "extra_roll" not in shown["wagers"] and "like_kind:4" in shown["wagers"]


def test_675a_1_c_2_with_the_lock_out_down_next_offers_no_extra_roll():
    table = open_table("high_roll_dice")
    down(device_at(table, "extra_roll_lockout"), "stale", T0 + 30 * S)
    round_ = opened(table)
    place(round_, *hrd_wagers("ann", 1))
    shown = next_holds(round_)
    assert "extra_roll" not in shown["wagers"] and "pip:5" in shown["wagers"]
