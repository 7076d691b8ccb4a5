"""No rolls, void rounds and irregularities (issue 7).

A Sic Bo "no roll" returns every wager (§ 625a.7(a)); a Sic Bo round is void when the
automated shaker malfunctions (§ 625a.7(c)); a Pai Gow round is void when the tiles go to
the wrong positions or a tile of the dealer's hand is exposed (§ 621a.10(c), (e)). A
returned wager is a push of net 0 whose stake comes back from the layout. Elsewhere a
"no roll" is a throw that does not count: recorded, with its section, and thrown again.
"""

import pytest

from casino.services import FloorRefused
from games.models import LedgerLine, Resolution, Round, RoundEvent
from gaming.rounds import no_roll, round_void
from tests.casino.floor_fixtures import T0, operations
from tests.games.round_fixtures import (
    D,
    M,
    balance,
    books_balance_check,
    fresh,
    lines_of_wager,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
    written,
)

pytestmark = pytest.mark.django_db

Account = LedgerLine.Account


def returned(round_: Round) -> dict[str, tuple[str, object, object, str]]:
    """ref -> (result, net, stake, cite) of the round's resolutions."""
    return {
        r.wager.ref: (r.result, r.net, r.stake, r.cite)
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }


def sic_bo_wagers(round_: Round) -> None:
    place(
        round_,
        wager("ann", "small", "10"),
        wager("ann", "triple:6", "5"),
        wager("bob", "total:11", "25"),
    )


# --- Sic Bo -----------------------------------------------------------------------------------


def test_a_sic_bo_no_roll_returns_every_wager():
    """58 Pa. Code § 625a.7(a): three dice not flat on the bottom of the shaker: the dealer
    calls a "no roll" and all wagers placed are returned to the players."""
    table = open_table("sic_bo")
    round_ = opened(table)
    sic_bo_wagers(round_)
    no_roll(round_, by=operations(), now=T0 + 4 * M)
    assert fresh(round_).status == Round.Status.RESULT_ENTERED
    assert settle(round_) == "settled"
    cite = "58 Pa. Code § 625a.7(a)"
    assert returned(round_) == {
        "1.1": ("push", D("0.00"), D("10.00"), cite),
        "1.2": ("push", D("0.00"), D("5.00"), cite),
        "1.3": ("push", D("0.00"), D("25.00"), cite),
    }
    assert lines_of_wager(round_, "1.3") == {
        (Account.PLAYER, "bob", "stake", D("-25.00")),
        (Account.LAYOUT, "", "stake", D("25.00")),
        (Account.LAYOUT, "", "stake_returned", D("-25.00")),
        (Account.PLAYER, "bob", "stake_returned", D("25.00")),
    }
    for account, player in [(Account.PLAYER, "ann"), (Account.PLAYER, "bob")]:
        assert balance(table, account, player) == D("0.00")
    for account in (Account.LAYOUT, Account.INVENTORY, Account.FEES):
        assert balance(table, account) == D("0.00")
    books_balance_check(table)


def test_a_sic_bo_round_is_void_when_the_automated_shaker_malfunctions():
    """58 Pa. Code § 625a.7(c): the automated Sic Bo shaker fails to operate when activated:
    the round of play is void and wagers placed are returned."""
    table = open_table("sic_bo", automated_shaker=True)
    round_ = opened(table)
    assert round_.options["shaker"] == "automated"
    sic_bo_wagers(round_)
    round_void(round_, "625a.7(c)", by=operations(), now=T0 + 4 * M)
    settle(round_)
    cite = "58 Pa. Code § 625a.7(c)"
    assert returned(round_) == {
        "1.1": ("push", D("0.00"), D("10.00"), cite),
        "1.2": ("push", D("0.00"), D("5.00"), cite),
        "1.3": ("push", D("0.00"), D("25.00"), cite),
    }
    assert balance(table, Account.INVENTORY) == D("0.00")
    assert balance(table, Account.LAYOUT) == D("0.00")
    books_balance_check(table)
    events = list(round_.events.values_list("event", flat=True))
    assert events == ["wagers", "no_more_bets", "shaker_malfunction"]


def test_a_manual_shaker_does_not_void_a_sic_bo_round():
    """58 Pa. Code § 625a.7(c) speaks of the automated shaker only; with a manual shaker
    the void is refused and nothing is written."""
    table = open_table("sic_bo")
    round_ = opened(table)
    sic_bo_wagers(round_)
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        round_void(round_, "625a.7(c)", by=operations(), now=T0 + 4 * M)
    assert refused.value.reasons == [
        "Only an automated Sic Bo shaker can void a round by malfunctioning; this table uses "
        "a manual shaker (58 Pa. Code § 625a.7(c))"
    ]
    assert written(table) == before
    assert fresh(round_).status == Round.Status.OPEN


@pytest.mark.parametrize(
    ("game", "section", "reason"),
    [
        ("sic_bo", "621a.10(c)", "§ 621a.10(c) voids no sic_bo round; here: § 625a.7(c)"),
        (
            "pai_gow",
            "625a.7(c)",
            "§ 625a.7(c) voids no pai_gow round; here: § 621a.10(c), § 621a.10(e), § 621a.6(a)(1)",
        ),
        ("craps", "623a.8(b)", "§ 623a.8(b) voids no craps round; here: none"),
        ("high_roll_dice", "675a.4(c)", "§ 675a.4(c) voids no high_roll_dice round; here: none"),
    ],
)
def test_a_void_under_a_section_that_does_not_void_the_game_is_refused(game, section, reason):
    table = open_table(game)
    round_ = opened(table)
    with pytest.raises(FloorRefused) as refused:
        round_void(round_, section, by=operations(), now=T0 + 4 * M)
    assert refused.value.reasons == [reason]
    assert fresh(round_).status == Round.Status.OPEN
    assert written(table) == (0, 0, 0, 0)


# --- Pai Gow ----------------------------------------------------------------------------------

DEAL = {
    "dealer": ["1-4", "2-3", "2-5", "3-4"],
    "positions": {"1": ["6-6", "6-6", "1-1", "1-1"], "2": ["4-6", "5-5", "1-5", "2-2"]},
}


def pai_gow_dealt():
    table = open_table("pai_gow")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "pai_gow", "17", position=1),
        wager("bob", "pai_gow", "10", position=2),
    )
    result(round_, "deal", DEAL)
    return table, round_


def test_tiles_dealt_to_the_wrong_positions_void_the_pai_gow_round():
    """58 Pa. Code § 621a.10(c): the dealer totals the dice wrongly and deals the tiles to
    the wrong positions: all hands are void and all wagers are returned. Ann's hand would
    have won: it does not matter."""
    table, round_ = pai_gow_dealt()
    assert fresh(round_).status == Round.Status.CLOSED
    round_void(round_, "621a.10(c)", by=operations(), now=T0 + 5 * M)
    settle(round_)
    cite = "58 Pa. Code § 621a.10(c)"
    assert returned(round_) == {
        "1.1": ("push", D("0.00"), D("17.00"), cite),
        "1.2": ("push", D("0.00"), D("10.00"), cite),
    }
    assert balance(table, Account.FEES) == D("0.00")  # no vigorish on a void round
    assert balance(table, Account.INVENTORY) == D("0.00")
    books_balance_check(table)


def test_a_tile_of_the_dealers_hand_exposed_voids_the_pai_gow_round():
    """58 Pa. Code § 621a.10(e): a tile in the dealer's hand is exposed: all hands are
    void and all wagers are returned."""
    table, round_ = pai_gow_dealt()
    round_void(round_, "621a.10(e)", by=operations(), now=T0 + 5 * M)
    settle(round_)
    results = {ref: (r, net, cite) for ref, (r, net, _, cite) in returned(round_).items()}
    cite = "58 Pa. Code § 621a.10(e)"
    assert results == {"1.1": ("push", D("0.00"), cite), "1.2": ("push", D("0.00"), cite)}
    books_balance_check(table)


def test_a_pai_gow_void_is_refused_before_the_tiles_are_dealt():
    """58 Pa. Code § 621a.10(c), (e) are irregularities of the deal: before it there is
    nothing to void."""
    table = open_table("pai_gow")
    round_ = opened(table)
    place(round_, wager("ann", "pai_gow", "17", position=1))
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        round_void(round_, "621a.10(c)", by=operations(), now=T0 + 4 * M)
    assert refused.value.reasons == ["No tiles have been dealt this round (58 Pa. Code § 621a.10)"]
    assert written(table) == before


def test_a_player_whose_tile_is_exposed_may_void_his_own_hand():
    """58 Pa. Code § 621a.10(d): the dealer exposes a tile dealt to a player, who may void
    the hand: his wager is returned; the round goes on for the others."""
    table, round_ = pai_gow_dealt()
    result(
        round_,
        "irregularity",
        {"kind": "exposed_tile", "place": "2", "void": True},
        now=T0 + 5 * M,
    )
    assert fresh(round_).status == Round.Status.CLOSED
    result(round_, "set", {"1.1": "house_way"}, now=T0 + 6 * M)
    result(round_, "reveal", True, now=T0 + 7 * M)
    settle(round_, now=T0 + 8 * M)
    found = returned(round_)
    assert found["1.2"] == ("push", D("0.00"), D("10.00"), "58 Pa. Code § 621a.10(d)")
    # Ann wins 1 to 1 less 5% of $17 = $0.85 rounded up to $1.00 (§ 621a.8(k)).
    assert found["1.1"][:2] == ("win", D("16.00"))
    books_balance_check(table)


# --- a "no roll" that is thrown again ------------------------------------------------------


def test_a_craps_no_roll_is_recorded_and_the_round_awaits_a_valid_throw():
    """58 Pa. Code § 623a.8(b): a roll is invalid when a die goes off the table; it decides
    nothing. The next valid throw, a 7 on the come out roll, wins the Pass Bet 1 to 1
    (§ 623a.3(a)(1)(i)(A), § 623a.5(a)): $10 wins $10."""
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("ann", "pass", "10"))
    no_roll(round_, by=operations(), now=T0 + 3 * M)
    round_ = fresh(round_)
    assert round_.status == Round.Status.CLOSED
    no_rolls = RoundEvent.objects.filter(round=round_, event="no_roll")
    assert [(e.payload, e.cite) for e in no_rolls] == [(True, "58 Pa. Code § 623a.8(b)")]
    assert not Resolution.objects.exists()
    with pytest.raises(FloorRefused):  # wagering closed with the no roll
        place(round_, wager("bob", "pass", "10"), now=T0 + 4 * M)

    result(round_, "throw", [5, 2], now=T0 + 5 * M)
    settle(round_, now=T0 + 6 * M)
    assert returned(round_) == {
        "1.1": ("win", D("10.00"), D("10.00"), "58 Pa. Code § 623a.3(a)(1)(i)(A)")
    }
    events = list(round_.events.values_list("event", flat=True))
    assert events == ["wagers", "no_more_bets", "no_roll", "throw"]
    books_balance_check(table)


@pytest.mark.parametrize(
    ("game", "cite"),
    [
        ("three_dice_football", "58 Pa. Code § 661a.5(b)"),
        ("high_roll_dice", "58 Pa. Code § 675a.4(b)"),
        ("pai_gow", "58 Pa. Code § 621a.10(a)"),
    ],
)
def test_a_no_roll_elsewhere_is_a_rethrow_with_its_section(game, cite):
    table = open_table(game)
    round_ = opened(table)
    no_roll(round_, by=operations(), now=T0 + 3 * M)
    no_roll(round_, by=operations(), now=T0 + 4 * M)  # and again: still awaiting the dice
    assert fresh(round_).status == Round.Status.CLOSED
    cites = list(RoundEvent.objects.filter(round=round_, event="no_roll").values_list("cite"))
    assert cites == [(cite,), (cite,)]
    assert written(table)[2:] == (0, 0)  # no ledger line, no resolution


def test_a_no_roll_is_refused_once_the_result_is_entered():
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("ann", "pass", "10"))
    result(round_, "throw", [6, 6])
    with pytest.raises(FloorRefused) as refused:
        no_roll(round_, by=operations(), now=T0 + 5 * M)
    assert refused.value.reasons == ["CR-01 round 1 is result entered, settling"]
