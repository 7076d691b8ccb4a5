"""No round waits forever on a device (issue 33, part 4): after "no more bets" a round at
a Pai Gow table whose Rules Submission gives the starting position to the random number
generator waits for its number (58 Pa. Code § 621a.6(a)(1)), and one at a Sic Bo table with
an automated shaker for its dice (§ 625a.5(b)(2), (c)). Past CASINO_DEVICE_WAIT_SECONDS
(30 s here) the wait is an alert naming the device and the ways out the rules allow
(docs/regulations.md, Devices), raised once as the device's event by beat's check; the way
out is taken through the round flow, and a device's report that comes after it is refused.
"""

from datetime import timedelta
from unittest import mock

import pytest

from devices import rules
from devices.models import Device, DeviceEvent
from games.models import LedgerLine, Resolution, Round, SettlementRequest
from gaming import waits
from gaming.devices import device_out_of_order
from gaming.rounds import generator_number_post, round_void
from gaming.waits import device_waits_check, round_waiting, waiting_data, waits_q
from tests.casino import floor_fixtures
from tests.casino.floor_fixtures import T0, holder_get, operations
from tests.devices.device_fixtures import fresh as fresh_device
from tests.devices.test_consequences import (
    PAI_GOW_WAGERS,
    STACKS,
    decided,
    device_at,
    down,
    generator_at,
    pai_gow_table,
    play_out,
    refused,
)
from tests.devices.test_reports import post
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

S = timedelta(seconds=1)
CLOSED = T0 + 3 * M  # round_fixtures.close's "no more bets"
Account = LedgerLine.Account
Kind = DeviceEvent.Kind


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.CASINO_DEVICE_WAIT_SECONDS = 30


def code(section: str) -> str:
    return f"58 Pa. Code § {section}"


def closed_pai_gow(*, fallback: bool) -> tuple[Round, Device]:
    """A Pai Gow round at a generator table: three wagers, "no more bets" at CLOSED."""
    table = pai_gow_table(shaker_if_rng_down=fallback)
    generator = generator_at(table) if fallback else device_at(table, "pai_gow_rng")
    round_ = opened(table)
    place(round_, *PAI_GOW_WAGERS)
    close(round_, now=CLOSED)
    return fresh(round_), generator


def closed_sic_bo() -> tuple[Round, Device]:
    """A Sic Bo round at a table with an automated shaker, wagering closed at CLOSED:
    ann $10 small, bob $20 big."""
    table = open_table("sic_bo", automated_shaker=True)
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"), wager("bob", "big", "20"))
    close(round_, now=CLOSED)
    return fresh(round_), device_at(table, "automated_shaker")


def every_stake_returned(round_: Round, players: dict[str, str]) -> None:
    """Each wager a push at net 0.00 under § 621a.6(a)(1) or § 625a.7(c), each player's
    account back where it was, nothing left on the layout, and every entry balanced."""
    table = round_.table
    for player in players:
        assert balance(table, Account.PLAYER, player) == D("0.00"), player
    assert balance(table, Account.LAYOUT) == D("0.00")
    books_balance_check(table)


# --- the data --------------------------------------------------------------------------------


def test_what_a_round_waits_for_is_one_entry_a_device():
    """§ 621a.6(a)(1), § 625a.5(b), (c): the generator's number, the automated shaker's dice,
    each read from the round's options (a Sic Bo round's shaker is fixed as it opens); and
    § 623b.5(c), the Power Odds selection where the table offers Power Odds; a round
    without them, none."""
    rng, shaker = rules.WAITS["pai_gow_rng"], rules.WAITS["automated_shaker"]
    assert rules.round_wait("pai_gow", {"starting_position": "rng"}) is rng
    assert rules.round_wait("pai_gow", {"starting_position": "shaker"}) is None
    assert rules.round_wait("pai_gow", {}) is None  # the engine's default: the shaker
    assert rules.round_wait("sic_bo", {"shaker": "automated"}) is shaker
    assert rules.round_wait("sic_bo", {"shaker": "manual"}) is None
    assert rules.round_wait("sic_bo", {}) is None  # the engine's default: manual
    power = rules.WAITS["power_odds_rng"]
    assert rules.round_wait("craps", {"power_odds": True}) is power
    assert rules.round_wait("craps", {"power_odds": False}) is None
    assert rules.round_wait("craps", {}) is None  # a table offers none unless it says so
    assert (power.report, power.cite, power.ends) == (
        "selection",
        code("623b.5(c)"),
        frozenset({"power_odds", "throw"}),
    )
    assert [w.way for w in rules.ways_out(power, {"power_odds": True})] == ["out_of_order"]
    assert (rng.report, rng.cite, rng.ends) == (
        "number",
        code("621a.6(a)(1)"),
        frozenset({"rng_number", "deal"}),
    )
    assert (shaker.report, shaker.cite) == ("dice", code("625a.5(c)"))
    assert shaker.ends == frozenset({"throw", "no_roll", "shaker_malfunction"})


def test_the_ways_out_follow_the_rules_submission():
    """§ 621a.6(a)(2): the shaker only where the Rules Submission falls back on it; the void
    of § 621a.6(a)(1) everywhere the generator gives the start. Sic Bo: § 625a.7(c), (d)."""
    rng = rules.WAITS["pai_gow_rng"]
    alone = {"starting_position": "rng"}
    fallback = {**alone, "shaker_if_rng_down": True}
    assert [(w.way, w.section) for w in rules.ways_out(rng, alone)] == [("void", "621a.6(a)(1)")]
    assert [(w.way, w.section) for w in rules.ways_out(rng, fallback)] == [
        ("void", "621a.6(a)(1)"),
        ("out_of_order", "621a.6(a)(2)"),
    ]
    shaker = rules.WAITS["automated_shaker"]
    assert [(w.way, w.section) for w in rules.ways_out(shaker, {})] == [
        ("void", "625a.7(c)"),
        ("out_of_order", "625a.7(d)"),
    ]
    # Still waiting: while the step is not recorded and, with the device down, only where
    # no dealer's step is allowed.
    assert rules.still_waiting(rng, fallback, "active", ended=False)
    assert not rules.still_waiting(rng, fallback, "active", ended=True)
    assert not rules.still_waiting(rng, fallback, "out_of_order", ended=False)
    assert not rules.still_waiting(rng, fallback, "stale", ended=False)
    assert rules.still_waiting(rng, alone, "out_of_order", ended=False)
    assert rules.still_waiting(rng, alone, None, ended=False)
    # § 625a.7(d): the manual shaker once the automated one is marked out of order (or
    # none is in service); not while it is merely silent or faulted.
    assert not rules.still_waiting(shaker, {}, "out_of_order", ended=False)
    assert not rules.still_waiting(shaker, {}, None, ended=False)
    assert rules.still_waiting(shaker, {}, "faulted", ended=False)
    assert rules.still_waiting(shaker, {}, "active", ended=False)


# --- Pai Gow: the generator's number, § 621a.6(a)(1) --------------------------------------


def test_621a_6_a_1_the_round_waits_for_the_number_and_is_an_alert_after_the_setting():
    round_, generator = closed_pai_gow(fallback=True)
    waiting = round_waiting(round_)
    assert waiting is not None
    assert (waiting.since, waiting.alert_at) == (CLOSED, CLOSED + 30 * S)
    assert not waiting.alert(CLOSED + 29 * S) and waiting.alert(CLOSED + 30 * S)
    data = waiting_data(waiting, CLOSED + 31 * S)
    assert data == {
        "round": {"id": round_.pk, "number": 1},
        "kind": "pai_gow_rng",
        "kind_display": "Pai Gow random number generator",
        "device": {
            "id": generator.pk,
            "serial": generator.serial_number,
            "status": "active",
            "status_display": "Active",
        },
        "report": "number",
        "step": "the starting number",
        "cite": code("621a.6(a)(1)"),
        "since": CLOSED,
        "alert_at": CLOSED + 30 * S,
        "alert": True,
        "ways_out": [
            {
                "way": "void",
                "section": "621a.6(a)(1)",
                "text": "Void the round under § 621a.6(a)(1): no tile is dealt, so every "
                "wager is returned.",
            },
            {
                "way": "out_of_order",
                "section": "621a.6(a)(2)",
                "text": "Mark the generator out of order, then deal from the Pai Gow shaker's "
                "three dice (§ 621a.6(a)(2)), as the Rules Submission allows while the "
                "generator is down.",
            },
        ],
        "guidance": f"The Pai Gow random number generator {generator.serial_number} at "
        f"{round_.table.number} has not given the starting number of round 1 "
        f"({code('621a.6(a)(1)')}). The rules allow: Void the round under § 621a.6(a)(1): "
        "no tile is dealt, so every wager is returned. Or: Mark the generator out of "
        "order, then deal from the Pai Gow shaker's three dice (§ 621a.6(a)(2)), as the "
        "Rules Submission allows while the generator is down.",
    }
    # Before "no more bets" the round waits on nobody but its players.
    other = opened(pai_gow_table(shaker_if_rng_down=True))
    assert round_waiting(other) is None


def test_the_alert_is_raised_once_by_beat_and_never_before_the_setting():
    round_, generator = closed_pai_gow(fallback=True)
    assert device_waits_check(CLOSED + 29 * S) == []
    assert device_waits_check(CLOSED + 30 * S) == [round_.pk]
    assert device_waits_check(CLOSED + 35 * S) == []  # once, however often beat looks
    assert device_waits_check(CLOSED + 10 * M) == []
    (raised,) = DeviceEvent.objects.filter(kind=Kind.ROUND_WAITING)
    assert (raised.device_id, raised.table_id, raised.round_id, raised.at, raised.cite) == (
        generator.pk,
        round_.table_id,
        round_.pk,
        CLOSED + 30 * S,
        code("621a.6(a)(1)"),
    )
    assert raised.detail == round_waiting(round_).guidance


def test_the_generators_number_ends_the_wait(endpoint_clock):
    """§ 621a.6(a)(1), (b): the number posted, the dealer deals from it: no alert, and the
    one already raised is no longer shown."""
    round_, generator = closed_pai_gow(fallback=True)
    late = CLOSED + 40 * S
    assert device_waits_check(late) == [round_.pk]
    body = {"table": round_.table.number, "round": 1, "number": 5}
    response = post(endpoint_clock, generator, body, late + S)
    assert response.status_code == 200, response.content
    assert round_waiting(fresh(round_)) is None
    assert device_waits_check(late + M) == []
    result(round_, "deal", {"stacks": STACKS}, now=late + 2 * M)
    play_out(round_)


def test_621a_6_a_2_the_generator_out_of_order_leaves_the_start_to_the_dealers_shaker():
    """§ 621a.6(a)(2) under the Rules Submission's fallback: marked out of order, the
    generator no longer holds the round; the dealer's three dice 6, 6, 1 (13) start the deal
    at position 4 (§ 621a.6(c)) and the round plays out."""
    round_, generator = closed_pai_gow(fallback=True)
    assert device_waits_check(CLOSED + 31 * S) == [round_.pk]
    device_out_of_order(generator, "no number shown", by=operations(), now=CLOSED + 40 * S)
    assert round_waiting(fresh(round_)) is None
    result(round_, "deal", {"stacks": STACKS, "dice": [6, 6, 1]}, now=CLOSED + M)
    play_out(round_)


def test_621a_6_a_1_with_the_generator_alone_the_void_returns_every_stake():
    """The Rules Submission gives the start to the generator alone: down, it still holds the
    round (no dealer's dice: they are refused), and the way out is the void of § 621a.6(a)(1)
    (docs/regulations.md, Devices): every wager a push, every stake back to its player."""
    round_, generator = closed_pai_gow(fallback=False)
    device_out_of_order(generator, "display dark", by=operations(), now=CLOSED + 10 * S)
    waiting = round_waiting(fresh(round_))
    assert waiting is not None and waiting.device.status == "out_of_order"
    assert [w.way for w in waiting.ways_out] == ["void"]
    assert "It is out of order." in waiting.guidance
    before = written(round_.table)
    assert refused(result, round_, "deal", {"stacks": STACKS, "dice": [6, 6, 1]}) == [
        f"the Rules Submission gives the starting position at {round_.table.number} to the "
        f"random number generator alone, with no shaker to fall back on "
        f"({code('621a.6(a)(1)')}): with no number from it, the round is voided under "
        "§ 621a.6(a)(1)"
    ]
    assert written(round_.table) == before

    round_void(round_, "621a.6(a)(1)", by=operations(), now=CLOSED + M)
    assert fresh(round_).status == Round.Status.RESULT_ENTERED
    assert round_waiting(fresh(round_)) is None
    assert settle(round_, now=CLOSED + 2 * M) == "settled"
    cited = code("621a.6(a)(1)")
    assert decided(round_) == {
        "1.1": ("push", D("0.00"), cited),
        "1.2": ("push", D("0.00"), cited),
        "1.3": ("push", D("0.00"), cited),
    }
    every_stake_returned(round_, {"p1": "20", "p2": "10", "p3": "25"})


def test_a_number_posted_after_the_void_is_refused_and_changes_nothing(endpoint_clock):
    """The void and the generator's late number: whichever comes second is refused, so the
    round is decided once. After the void, the number is refused (422 while the round is
    settling, 409 once it is settled), and nothing is written."""
    round_, generator = closed_pai_gow(fallback=True)
    round_void(round_, "621a.6(a)(1)", by=operations(), now=CLOSED + M)
    before = written(round_.table)
    body = {"table": round_.table.number, "round": 1, "number": 5}
    response = post(endpoint_clock, generator, body, CLOSED + M + S)
    assert response.status_code == 422, response.content
    assert response.json()["reasons"] == [f"{round_} is result entered, settling"]
    assert written(round_.table) == before
    assert settle(round_, now=CLOSED + 2 * M) == "settled"
    settled = written(round_.table)
    response = post(endpoint_clock, generator, body, CLOSED + 3 * M)
    assert response.status_code == 409 and response.json()["code"] == "no_such_round"
    assert written(round_.table) == settled
    assert not round_.events.filter(event="rng_number").exists()
    assert Resolution.objects.filter(round=round_).count() == 3


def test_a_number_posted_first_refuses_the_void():
    """§ 621a.6(b): the number posted gives the starting position; the round is dealt from
    it, never voided for want of it."""
    round_, generator = closed_pai_gow(fallback=False)
    generator_number_post(round_, 5, by=fresh_device(generator), now=CLOSED + 5 * S)
    before = written(round_.table)
    assert refused(round_void, round_, "621a.6(a)(1)", by=operations(), now=CLOSED + M) == [
        "the generator posted 5 for this round: that number gives the starting position; "
        f"deal from it ({code('621a.6(b)')})"
    ]
    assert written(round_.table) == before
    result(round_, "deal", {"stacks": STACKS}, now=CLOSED + 2 * M)
    play_out(round_)


# --- Sic Bo: the automated shaker, § 625a.7(c), (d) -------------------------------------------


def test_625a_7_c_the_round_waits_for_the_shakers_dice_and_the_void_returns_every_stake(
    endpoint_clock,
):
    """§ 625a.5(c): the shaker's dice come once "no more bets" is called; a shaker that does
    not throw "fails to operate": the round is void and every wager returned (§ 625a.7(c)).
    Its dice coming after the void are refused."""
    round_, shaker = closed_sic_bo()
    waiting = round_waiting(round_)
    assert (waiting.wait.kind, waiting.device.id, waiting.since) == (
        "automated_shaker",
        shaker.pk,
        CLOSED,
    )
    assert [(w.way, w.section) for w in waiting.ways_out] == [
        ("void", "625a.7(c)"),
        ("out_of_order", "625a.7(d)"),
    ]
    assert device_waits_check(CLOSED + 30 * S) == [round_.pk]
    round_void(round_, "625a.7(c)", by=operations(), now=CLOSED + M)
    before = written(round_.table)
    body = {"table": round_.table.number, "round": 1, "dice": [6, 6, 6]}
    response = post(endpoint_clock, shaker, body, CLOSED + M + S)
    assert response.status_code == 422 and response.json()["code"] == "refused"
    assert written(round_.table) == before
    assert settle(round_, now=CLOSED + 2 * M) == "settled"
    assert decided(round_) == {
        "1.1": ("push", D("0.00"), code("625a.7(c)")),
        "1.2": ("push", D("0.00"), code("625a.7(c)")),
    }
    every_stake_returned(round_, {"ann": "10", "bob": "20"})


def test_625a_7_d_the_shaker_marked_out_of_order_voids_the_round_and_ends_the_wait():
    round_, shaker = closed_sic_bo()
    device_out_of_order(shaker, "dome jammed", by=operations(), now=CLOSED + 40 * S)
    round_ = fresh(round_)
    assert round_.status == Round.Status.RESULT_ENTERED and round_waiting(round_) is None
    assert device_waits_check(CLOSED + M) == []
    assert settle(round_, now=CLOSED + 2 * M) == "settled"
    every_stake_returned(round_, {"ann": "10", "bob": "20"})
    # The next round's dice are the dealer's manual shaker's: nothing waits on a device.
    following = opened(round_.table, now=CLOSED + 3 * M)
    place(following, wager("ann", "small", "10"), now=CLOSED + 4 * M)
    close(following, now=CLOSED + 5 * M)
    assert round_waiting(fresh(following)) is None
    result(following, "throw", [1, 2, 4], now=CLOSED + 6 * M)
    assert SettlementRequest.objects.filter(round=following).exists()


# --- beat's check: only the rounds that wait are locked -------------------------------------


def at_holder(name: str, make, *args, **kwargs):
    """`make(*args, **kwargs)` at a certificate holder of its own (a holder files one Rules
    Submission a game: another holder's tables may have other options)."""
    with mock.patch.object(floor_fixtures, "holder_get", lambda: holder_get(name)):
        return make(*args, **kwargs)


def test_beat_finds_in_sql_the_rounds_that_wait_and_locks_only_those(monkeypatch):
    """Every round below closed wagering a while ago; only three wait on a device (§ 621a.6
    (a)(1): the generator's number; § 625a.5(c): the automated shaker's dice). Those that
    wait on nobody, or on the dealer, are found by no query and never locked: a generator
    table's round dealt from the posted number (hands being set), one whose start fell back
    on the dealer's shaker with the generator down (§ 621a.6(a)(2)), a shaker table's round,
    a Sic Bo round opened with the manual shaker (§ 625a.5(b), § 625a.7(d)) and one at a
    table with no automated shaker. The SQL (`waits_q`) says what `round_waiting` says."""
    alone, _ = closed_pai_gow(fallback=False)  # waits
    shaken, _ = closed_sic_bo()  # waits
    dealt = opened(pai_gow_table(shaker_if_rng_down=False))  # the same submission as `alone`
    place(dealt, *PAI_GOW_WAGERS)
    generator_number_post(dealt, 5, by=fresh_device(device_at(dealt.table, "pai_gow_rng")),
                          now=CLOSED)  # fmt: skip
    result(dealt, "deal", {"stacks": STACKS}, now=CLOSED)
    manual_table = open_table("sic_bo", automated_shaker=True)
    device_out_of_order(device_at(manual_table, "automated_shaker"), "covered", by=operations(),
                        now=T0 + 30 * S)  # fmt: skip
    manual = opened(manual_table)
    no_shaker = opened(open_table("sic_bo"))
    fallback_table = at_holder("Fallback Casino", pai_gow_table, shaker_if_rng_down=True)
    on_dealer = opened(fallback_table)
    fallback_working = at_holder("Fallback Casino", pai_gow_table, shaker_if_rng_down=True)
    generator_at(fallback_working)
    waits_too = opened(fallback_working)  # fallback allowed, but its generator works: waits
    shaker_table = at_holder("Shaker Casino", open_table, "pai_gow")
    shaker_round = opened(shaker_table)
    for round_ in (manual, no_shaker, on_dealer, waits_too, shaker_round):
        place(round_, *(PAI_GOW_WAGERS if round_.game == "pai_gow" else
                        [wager("ann", "small", "10")]))  # fmt: skip
        close(round_, now=CLOSED)
    down(generator_at(fallback_table), "fault", CLOSED + S)
    every = [alone, shaken, dealt, manual, no_shaker, on_dealer, waits_too, shaker_round]
    assert fresh(dealt).status == fresh(on_dealer).status == Round.Status.CLOSED

    waiting = {r.pk for r in every if round_waiting(fresh(r)) is not None}
    assert waiting == {alone.pk, shaken.pk, waits_too.pk}
    found = set(Round.objects.filter(waits_q(CLOSED)).values_list("pk", flat=True))
    assert found == waiting
    assert not Round.objects.filter(waits_q(CLOSED - S)).exists()  # closed after that

    locked = []
    lock = waits.round_locked_at
    monkeypatch.setattr(waits, "round_locked_at", lambda *a: locked.append(a[0]) or lock(*a))
    assert sorted(device_waits_check(CLOSED + 30 * S)) == sorted(waiting)
    assert sorted(locked) == sorted(waiting)
    locked.clear()
    assert device_waits_check(CLOSED + M) == [] and locked == []  # raised once, never again
