"""Settlement and the double-entry ledger, one hand-worked round per game (issue 7).

Each expected amount is worked out from the paytable of the section cited beside it.
After every settlement the books balance (round_fixtures.books_balance_check): every
ledger entry sums to zero, each resolved wager's player lines sum to its net, and the
layout holds exactly the stakes of the wagers not yet decided.
"""

from decimal import Decimal

import pytest

from games.models import LedgerEntry, LedgerLine, Resolution, Round, SettlementRequest
from games.replay import rules_hash
from games.services.settlement import round_settle
from gaming.rounds import round_event
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
    settlement_lines,
    wager,
)

pytestmark = pytest.mark.django_db

Account = LedgerLine.Account


def decided(round_: Round) -> dict[str, tuple[str, Decimal, str]]:
    """The round's resolutions: ref -> (result, net, cite)."""
    return {
        r.wager.ref: (r.result, r.net, r.cite)
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }


def code(section: str) -> str:
    return f"58 Pa. Code § {section}"


# --- Sic Bo -----------------------------------------------------------------------------------


def sic_bo_round():
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "small", "10"),
        wager("ann", "big", "10"),
        wager("bob", "total:10", "5"),
        wager("bob", "double:4", "5"),
        wager("bob", "single:4", "10"),
        wager("ann", "triple:3", "5"),
        wager("carl", "combo:2-4", "10"),
        wager("carl", "any_triple", "5"),
    )
    result(round_, "throw", [4, 4, 2])
    return table, round_


def test_a_sic_bo_round_settles_at_the_posted_odds_and_the_books_balance():
    """58 Pa. Code § 625a.3 and § 625a.6: the dice 4, 4, 2 total 10, no triple."""
    table, round_ = sic_bo_round()
    assert settle(round_) == "settled"
    assert decided(round_) == {
        # § 625a.3(6): a total of 4 to 10 wins the Small Bet, 1 to 1: $10 wins $10.
        "1.1": ("win", D("10.00"), code("625a.6(a)")),
        # § 625a.3(7): the Big Bet needs 11 to 17.
        "1.2": ("lose", D("-10.00"), code("625a.3(7)")),
        # Total Value Bet of 10, 6 to 1: $5 wins $30.
        "1.3": ("win", D("30.00"), code("625a.6(a)")),
        # Two of a Kind (two 4s), 8 to 1: $5 wins $40.
        "1.4": ("win", D("40.00"), code("625a.6(a)")),
        # § 625a.6(b)(2): One of a Kind with two dice showing the 4, 2 to 1: $10 wins $20.
        "1.5": ("win", D("20.00"), code("625a.6(b)(2)")),
        # § 625a.3(1): Three of a Kind of 3s needs three 3s.
        "1.6": ("lose", D("-5.00"), code("625a.3(1)")),
        # Two Dice Combination 2-4, both showing, 5 to 1: $10 wins $50.
        "1.7": ("win", D("50.00"), code("625a.6(a)")),
        # § 625a.3(3): Any Three of a Kind needs a triple.
        "1.8": ("lose", D("-5.00"), code("625a.3(3)")),
    }
    # The inventory paid 10 + 30 + 40 + 20 + 50 = 150 and took 10 + 5 + 5 = 20.
    assert balance(table, Account.INVENTORY) == D("-130.00")
    assert balance(table, Account.PLAYER, "ann") == D("-5.00")  # +10 - 10 - 5
    assert balance(table, Account.PLAYER, "bob") == D("90.00")  # +30 + 40 + 20
    assert balance(table, Account.PLAYER, "carl") == D("45.00")  # +50 - 5
    assert balance(table, Account.FEES) == D("0.00")
    # Nothing is left at risk once a Sic Bo round is settled.
    assert balance(table, Account.LAYOUT) == D("0.00")
    books_balance_check(table)


def test_the_ledger_lines_of_a_winning_and_a_losing_wager():
    """A win: the stake back from the layout, the winnings from the inventory. A loss:
    the stake from the layout to the inventory. The placement moved it player -> layout."""
    _, round_ = sic_bo_round()
    settle(round_)
    assert lines_of_wager(round_, "1.1") == {
        (Account.PLAYER, "ann", "stake", D("-10.00")),
        (Account.LAYOUT, "", "stake", D("10.00")),
        (Account.LAYOUT, "", "stake_returned", D("-10.00")),
        (Account.PLAYER, "ann", "stake_returned", D("10.00")),
        (Account.INVENTORY, "", "winnings", D("-10.00")),
        (Account.PLAYER, "ann", "winnings", D("10.00")),
    }
    assert lines_of_wager(round_, "1.2") == {
        (Account.PLAYER, "ann", "stake", D("-10.00")),
        (Account.LAYOUT, "", "stake", D("10.00")),
        (Account.LAYOUT, "", "stake_lost", D("-10.00")),
        (Account.INVENTORY, "", "stake_lost", D("10.00")),
    }


def test_settlement_records_who_settled_it_the_engine_and_the_state():
    _, round_ = sic_bo_round()
    settle(round_, now=T0 + 9 * M)
    round_ = fresh(round_)
    assert round_.status == Round.Status.SETTLED
    assert round_.settled_at == T0 + 9 * M
    assert round_.rules_hash == rules_hash("sic_bo")
    assert len(round_.rules_hash) == 64
    assert round_.state_after
    request = SettlementRequest.objects.get(round=round_)
    assert (request.settled_at, request.settled_by) == (T0 + 9 * M, "test-worker")
    entry = LedgerEntry.objects.get(key=f"settlement:{round_.pk}")
    assert (entry.kind, entry.posted_at, entry.posted_by) == ("settlement", T0 + 9 * M, None)


def test_settling_twice_says_already_settled_and_writes_nothing_more():
    _, round_ = sic_bo_round()
    assert settle(round_) == "settled"
    counts = (Resolution.objects.count(), LedgerEntry.objects.count(), LedgerLine.objects.count())
    settled_at = SettlementRequest.objects.get(round=round_).settled_at
    assert settle(round_, now=T0 + 30 * M) == "already settled"
    assert counts == (
        Resolution.objects.count(),
        LedgerEntry.objects.count(),
        LedgerLine.objects.count(),
    )
    assert counts == (8, 2, 8 * 2 + 5 * 4 + 3 * 2)  # 8 stakes placed; 5 wins x 4; 3 losses x 2
    assert SettlementRequest.objects.get(round=round_).settled_at == settled_at
    assert fresh(round_).settled_at == T0 + 5 * M


def test_an_unknown_settlement_request_is_said_so():
    assert round_settle(987654321) == "no such request"


def test_every_wager_is_resolved_exactly_once():
    _, round_ = sic_bo_round()
    settle(round_)
    settle(round_)
    wagers = round_.wagers.all()
    assert [w.resolution.round_id for w in wagers] == [round_.pk] * 8


# --- Craps ------------------------------------------------------------------------------------


def test_a_craps_point_round_and_the_buy_bet_vigorish():
    """Round 1: a 4 on the come out roll is the point (§ 623a.3(a)(1)(i)(B)); the Pass and
    the Buy Bet (not called "on", so inactive on the come out roll, § 623a.3(a)(41)) work on.
    Round 2 throws the 4: every wager on the 4 wins; the vigorish of 5% is collected on
    the winning Buy Bet only (Rules Submission: vig_collected on_win, § 623a.5(g)(3))."""
    table = open_table(
        "craps",
        options={"buy_lay": True, "vig_percent": "5", "vig_collected": "on_win"},
        max_wager="1000",
    )
    first = opened(table)
    place(first, wager("ann", "pass", "10"), wager("bob", "buy:4", "20"))
    result(first, "throw", [2, 2])
    settle(first)
    assert decided(first) == {}
    # Both wagers still on the layout: $10 + $20.
    assert balance(table, Account.LAYOUT) == D("30.00")
    books_balance_check(table)

    second = opened(table, now=T0 + 10 * M)
    place(
        second,
        wager("ann", "odds", "20", on="1.1"),
        wager("carl", "place:6", "12"),
        wager("carl", "field", "10"),
        wager("dave", "any_seven", "5"),
        now=T0 + 11 * M,
    )
    result(second, "throw", [1, 3], now=T0 + 12 * M)
    settle(second, now=T0 + 13 * M)
    assert decided(second) == {
        # § 623a.5(a): Pass Bet 1 to 1: $10 wins $10.
        "1.1": ("win", D("10.00"), code("623a.3(a)(1)(i)(B)")),
        # § 623a.5(g)(1): Buy Bet on the 4, 2 to 1: $20 wins $40; less the vigorish of 5%
        # of $20 = $1.00 (§ 623a.5(g)(3)): net $39.
        "1.2": ("win", D("39.00"), code("623a.3(a)(41)(i)")),
        # § 623a.6(a)(2)(i): odds on a point of 4, 2 to 1: $20 wins $40.
        "2.1": ("win", D("40.00"), code("623a.6(a)(2)(i)")),
        # § 623a.5(a): the Field on a 4 pays 1 to 1: $10 wins $10.
        "2.3": ("win", D("10.00"), code("623a.3(a)(11)(i)")),
        # Any Seven loses on any other total.
        "2.4": ("lose", D("-5.00"), code("623a.3(a)(12)(ii)")),
    }
    buy = Resolution.objects.get(wager__ref="1.2", wager__table=table)
    assert (buy.stake, buy.winnings, buy.vigorish, buy.payout_limit_reduction) == (
        D("20.00"),
        D("40.00"),
        D("1.00"),
        D("0.00"),
    )
    assert (
        "1.2",
        Account.FEES,
        "",
        "vigorish",
        D("1.00"),
    ) in settlement_lines(second)
    assert ("1.2", Account.PLAYER, "bob", "vigorish", D("-1.00")) in settlement_lines(second)
    assert balance(table, Account.FEES) == D("1.00")
    assert balance(table, Account.PLAYER, "bob") == D("39.00")
    # The Place Bet on the 6 is not decided by a 4: its $12 is all that stays at risk.
    assert balance(table, Account.LAYOUT) == D("12.00")
    # Inventory: paid 10 + 40 + 40 + 10 = 100, took 5.
    assert balance(table, Account.INVENTORY) == D("-95.00")
    books_balance_check(table)


def test_a_craps_vigorish_collected_on_placement_is_kept_on_a_losing_buy_bet():
    """58 Pa. Code § 623a.5(g)(3): a vigorish collected when the wager is made; a Buy Bet
    on the 10 loses to a 7 (§ 623a.3(a)(41)(ii)): $40 lost plus 5% of $40 = $2 vigorish."""
    table = open_table(
        "craps",
        options={"buy_lay": True, "vig_percent": "5", "vig_collected": "on_placement"},
    )
    first = opened(table)
    place(first, wager("ann", "pass", "10"))
    result(first, "throw", [4, 4])  # the point is 8
    settle(first)
    second = opened(table, now=T0 + 10 * M)
    place(second, wager("bob", "buy:10", "40"), now=T0 + 11 * M)
    result(second, "throw", [3, 4], now=T0 + 12 * M)  # seven out
    settle(second, now=T0 + 13 * M)
    lost = Resolution.objects.get(wager__ref="2.1", wager__table=table)
    assert (lost.result, lost.net, lost.stake, lost.vigorish) == (
        "lose",
        D("-42.00"),
        D("40.00"),
        D("2.00"),
    )
    assert lost.cite == code("623a.3(a)(41)(ii)")
    assert balance(table, Account.FEES) == D("2.00")
    # The Pass Bet lost to the seven too (§ 623a.3(a)(1)(ii)(B)): inventory +10 + 40.
    assert balance(table, Account.INVENTORY) == D("50.00")
    books_balance_check(table)


def test_a_reduced_dont_pass_bet_has_its_difference_back_and_wins_on_what_is_left():
    """58 Pa. Code § 623a.4(d): a Don't Pass Bet may be reduced at any time. Bob's $20 Don't
    Pass works on a point of 6; in round 2 he reduces it to $10, and the $10 difference
    comes back from the layout at once (a stake_reduced line). Round 3 throws a 7 before
    the 6: the Don't Pass wins (§ 623a.3(a)(2)(i)(B)) 1 to 1 on $10 (§ 623a.5(a))."""
    table = open_table("craps")
    first = opened(table)
    place(first, wager("bob", "dont_pass", "20"))
    result(first, "throw", [3, 3])
    settle(first)

    second = opened(table, now=T0 + 10 * M)
    round_event(
        second,
        "remove",
        [{"id": "1.1", "reduce_to": "10"}],
        by=operations(),
        now=T0 + 11 * M,
    )
    result(second, "throw", [5, 5], now=T0 + 12 * M)  # a 10 decides nothing here
    settle(second, now=T0 + 13 * M)
    assert settlement_lines(second) == [
        ("1.1", Account.LAYOUT, "", "stake_reduced", D("-10.00")),
        ("1.1", Account.PLAYER, "bob", "stake_reduced", D("10.00")),
    ]
    assert balance(table, Account.LAYOUT) == D("10.00")
    books_balance_check(table)

    third = opened(table, now=T0 + 20 * M)
    result(third, "throw", [3, 4], now=T0 + 21 * M)
    settle(third, now=T0 + 22 * M)
    won = Resolution.objects.get(wager__ref="1.1", wager__table=table)
    assert (won.round, won.result, won.net, won.stake) == (third, "win", D("10.00"), D("10.00"))
    assert won.cite == code("623a.3(a)(2)(i)(B)")
    # Bob: -20 placed, +10 reduced, +10 back, +10 won.
    assert balance(table, Account.PLAYER, "bob") == D("10.00")
    assert balance(table, Account.LAYOUT) == D("0.00")
    books_balance_check(table)


# --- High Roll Dice ---------------------------------------------------------------------------


def test_a_high_roll_dice_round_with_an_extra_roll():
    """58 Pa. Code § 675a.4 and § 675a.5, ten dice. First throw: three 2s, two 3s, two 4s,
    a 5, a 6 and an ace. The 2 occurs the most (three times)."""
    table = open_table("high_roll_dice", min_wager="5", max_wager="500")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "pip:2", "10"),
        wager("ann", "pip:1", "10"),
        wager("ann", "like_kind:3", "10"),
        wager("bob", "pip:2", "5"),
        wager("bob", "like_kind:5", "5"),
        wager("bob", "extra_roll", "5", position=2),
        wager("carl", "pip:6", "5"),
        wager("carl", "millionaire:10", "1"),
    )
    result(round_, "throw", [2, 2, 2, 3, 3, 4, 4, 5, 6, 1])
    # Bob's five-of-a-kind circle still has a possibility of winning with his Extra Roll
    # (§ 675a.4(f)(2)(ii)): the round awaits it.
    assert fresh(round_).status == Round.Status.CLOSED
    # § 675a.4(g): the seven dice other than the three 2s are thrown again; two more 2s.
    result(round_, "extra_roll", [2, 2, 1, 1, 3, 4, 5], now=T0 + 5 * M)
    settle(round_, now=T0 + 6 * M)
    assert decided(round_) == {
        # § 675a.5(a): the 2s occurred the most, 6 to 1: $10 wins $60.
        "1.1": ("win", D("60.00"), code("675a.5(a)")),
        "1.2": ("lose", D("-10.00"), code("675a.4(f)(1)")),
        # § 675a.5(b): three-of-a-kind, 3 to 5: $10 wins $6.
        "1.3": ("win", D("6.00"), code("675a.5(b)")),
        # $5 at 6 to 1 wins $30.
        "1.4": ("win", D("30.00"), code("675a.5(a)")),
        # § 675a.5(d): 3 + 2 = five-of-a-kind on the Extra Roll, 2 to 1: $5 wins $10.
        "1.5": ("win", D("10.00"), code("675a.5(d)")),
        # § 675a.4(a): the Extra Roll purchase is collected at "no more bets".
        "1.6": ("lose", D("-5.00"), code("675a.4(a)")),
        "1.7": ("lose", D("-5.00"), code("675a.4(f)(1)")),
        "1.8": ("lose", D("-1.00"), code("675a.4(f)(3)")),
    }
    # The Extra Roll purchase goes from the layout to fees, never to the inventory.
    assert ("1.6", Account.LAYOUT, "", "extra_roll", D("-5.00")) in settlement_lines(round_)
    assert ("1.6", Account.FEES, "", "extra_roll", D("5.00")) in settlement_lines(round_)
    assert balance(table, Account.FEES) == D("5.00")
    # Inventory: paid 60 + 6 + 30 + 10 = 106; took 10 + 5 + 1 = 16.
    assert balance(table, Account.INVENTORY) == D("-90.00")
    assert balance(table, Account.PLAYER, "ann") == D("56.00")
    assert balance(table, Account.PLAYER, "bob") == D("35.00")
    assert balance(table, Account.PLAYER, "carl") == D("-6.00")
    assert balance(table, Account.LAYOUT) == D("0.00")
    books_balance_check(table)


def test_the_layout_holds_a_circle_left_working_for_the_extra_roll():
    """58 Pa. Code § 675a.4(f)(2)(ii): between the throws the five-of-a-kind circle stays on
    the layout; the pip wagers and the purchase are decided, but only settled together."""
    table = open_table("high_roll_dice")
    round_ = opened(table)
    place(
        round_,
        wager("bob", "pip:2", "5"),
        wager("bob", "like_kind:5", "5"),
        wager("bob", "extra_roll", "5", position=2),
    )
    result(round_, "throw", [2, 2, 2, 3, 3, 4, 4, 5, 6, 1])
    assert not Resolution.objects.exists()
    assert balance(table, Account.LAYOUT) == D("15.00")
    books_balance_check(table)


# --- Three Dice Football ------------------------------------------------------------------


def test_a_three_dice_football_round_and_a_touchdown_wager_carried_to_the_next():
    """58 Pa. Code § 661a.6(c)(1): green 6 + 5 = 11 against red 1 gains 10 yards, from the
    20 yard line to the 10: a 1st & Goal (§ 661a.6(e)). The single play wagers are settled
    (§ 661a.6(d)); the Touchdown Wager, a full game wager, works on."""
    table = open_table("three_dice_football")
    first = opened(table)
    place(
        first,
        wager("ann", "big_play", "10"),
        wager("ann", "under_four", "10"),
        wager("bob", "touchdown", "10"),
        wager("bob", "penalty", "5"),
    )
    result(first, "throw", {"green": [6, 5], "red": 1})
    settle(first)
    assert decided(first) == {
        # § 661a.3(d)(6): 7 yards or more; § 661a.8(b) Big Play 4 to 1: $10 wins $40.
        "1.1": ("win", D("40.00"), code("661a.3(d)(6)")),
        # § 661a.3(d)(8): 3 yards or less; 10 were gained.
        "1.2": ("lose", D("-10.00"), code("661a.3(d)(8)")),
        # § 661a.3(d)(2): 11 is not less than 1, no penalty.
        "1.4": ("lose", D("-5.00"), code("661a.3(d)(2)")),
    }
    assert balance(table, Account.LAYOUT) == D("10.00")  # the Touchdown Wager
    books_balance_check(table)

    second = opened(table, now=T0 + 10 * M)
    assert second.previous == first
    # Green 6 + 6 = 12 against 1: 11 yards from the 10 yard line pass the 0: a touchdown.
    result(second, "throw", {"green": [6, 6], "red": 1}, now=T0 + 11 * M)
    settle(second, now=T0 + 12 * M)
    touchdown = Resolution.objects.get(wager__ref="1.3", wager__table=table)
    # § 661a.8(a): Touchdown Wager 1 to 1: $10 wins $10, settled in round 2.
    assert (touchdown.round, touchdown.result, touchdown.net) == (second, "win", D("10.00"))
    assert balance(table, Account.LAYOUT) == D("0.00")
    # Inventory: paid 40 + 10, took 10 + 5.
    assert balance(table, Account.INVENTORY) == D("-35.00")
    books_balance_check(table)


# --- Pai Gow ----------------------------------------------------------------------------------

DEALER_TILES = ["1-4", "2-3", "2-5", "3-4"]  # house way: mixed Sevens high, mixed Fives low


def pai_gow_round(*wagers, positions, settings):
    table = open_table("pai_gow", min_wager="5", max_wager="5000")
    round_ = opened(table)
    place(round_, *wagers)
    result(round_, "deal", {"dealer": DEALER_TILES, "positions": positions})
    result(round_, "set", settings, now=T0 + 5 * M)
    result(round_, "reveal", True, now=T0 + 6 * M)
    settle(round_, now=T0 + 7 * M)
    return table, round_


def test_a_pai_gow_round_win_lose_and_tie_with_the_vigorish():
    """58 Pa. Code § 621a.8(d)(2): the dealer's 1-4, 2-3, 2-5, 3-4 are set as two pairs,
    mixed Sevens (high) and mixed Fives (low) (§ 621a.3(c))."""
    table, round_ = pai_gow_round(
        wager("ann", "pai_gow", "17", position=1),
        wager("bob", "pai_gow", "10", position=2),
        wager("carl", "pai_gow", "20", position=3),
        positions={
            "1": ["6-6", "6-6", "1-1", "1-1"],
            "2": ["4-6", "5-5", "1-5", "2-2"],
            "3": ["4-4", "4-4", "1-6", "2-6"],
        },
        settings={
            "1.1": {"high": ["6-6", "6-6"], "low": ["1-1", "1-1"]},
            "1.2": {"high": ["4-6", "1-5"], "low": ["5-5", "2-2"]},
            "1.3": {"high": ["4-4", "4-4"], "low": ["1-6", "2-6"]},
        },
    )
    assert decided(round_) == {
        # § 621a.8(i): pair of Twelves over mixed Sevens, pair of Twos over mixed Fives.
        # § 621a.8(k): 1 to 1 less 5% of $17 = $0.85, rounded up to $1.00: net $16.
        "1.1": ("win", D("16.00"), code("621a.8(i)")),
        # § 621a.8(g): value 6 and value 4 are both below the dealer's pairs.
        "1.2": ("lose", D("-10.00"), code("621a.8(g)")),
        # § 621a.8(h)(1): pair of Eights wins the high, value 5 loses the low: a tie.
        "1.3": ("push", D("0.00"), code("621a.8(h)(1)")),
    }
    won = Resolution.objects.get(wager__ref="1.1", wager__table=table)
    assert (won.stake, won.winnings, won.vigorish) == (D("17.00"), D("17.00"), D("1.00"))
    assert ("1.1", Account.FEES, "", "vigorish", D("1.00")) in settlement_lines(round_)
    assert ("1.1", Account.PLAYER, "ann", "vigorish", D("-1.00")) in settlement_lines(round_)
    tie = Resolution.objects.get(wager__ref="1.3", wager__table=table)
    assert (tie.winnings, tie.vigorish) == (D("0.00"), D("0.00"))
    assert balance(table, Account.FEES) == D("1.00")
    assert balance(table, Account.INVENTORY) == D("-7.00")  # paid 17, took 10
    assert balance(table, Account.PLAYER, "carl") == D("0.00")
    assert balance(table, Account.LAYOUT) == D("0.00")
    books_balance_check(table)


@pytest.mark.parametrize(
    ("amount", "vigorish", "net"),
    [
        ("20", "1.00", "19.00"),  # 5% of $20 = $1.00, already a multiple of 25 cents
        ("21", "1.25", "19.75"),  # 5% of $21 = $1.05 -> $1.25
        ("5", "0.25", "4.75"),  # 5% of $5 = $0.25
        ("6", "0.50", "5.50"),  # 5% of $6 = $0.30 -> $0.50
        ("99", "5.00", "94.00"),  # 5% of $99 = $4.95 -> $5.00
    ],
)
def test_the_pai_gow_vigorish_is_five_percent_rounded_up_to_25_cents(amount, vigorish, net):
    """58 Pa. Code § 621a.8(k): 1 to 1, less 5% of the amount won, which the certificate
    holder may round to the next highest multiple of 25 cents."""
    table, _ = pai_gow_round(
        wager("ann", "pai_gow", amount, position=1),
        positions={"1": ["6-6", "6-6", "1-1", "1-1"]},
        settings={"1.1": "house_way"},
    )
    won = Resolution.objects.get(wager__ref="1.1", wager__table=table)
    assert (won.result, won.net, won.vigorish, won.winnings) == (
        "win",
        D(net),
        D(vigorish),
        D(amount).quantize(D("0.01")),
    )
    assert balance(table, Account.FEES) == D(vigorish)
    books_balance_check(table)


@pytest.mark.parametrize(
    ("ann", "bob", "bank_net", "fees"),
    [
        # Bob banks $100; ann's $10 wins: the bank pays $10, its other $90 is its own.
        # Fees: ann's vigorish on each of her two wins, 5% of $10 = $0.50 twice.
        ("10", "100", "-10.00", "1.00"),
        # Bob banks $10 with $200 on the table; ann's $100 wins: the bank pays $100, $90
        # more than its wager (§ 621a.9(o): the dealer collects it from the bank).
        # Fees: 5% of $100 = $5.00 twice.
        ("100", "10", "-100.00", "10.00"),
    ],
    ids=["bank loses less than its wager", "bank loses more than its wager"],
)
def test_a_losing_player_bank_pays_no_vigorish(ann, bob, bank_net, fees):
    """58 Pa. Code § 621a.9(o): the 5% vigorish is charged on a surplus in the centre only.
    Round 1 is against the dealer: ann wins, bob loses. Round 2: bob banks (he wagered
    against the dealer in round 1, § 621a.9(d)(1)) and directs that the dealer wager
    nothing (§ 621a.9(h)). With the same tiles ann's hand beats the bank's: the centre holds
    no losing wager, so the bank pays her winnings (§ 621a.9(o)) and pays no vigorish."""
    table = open_table("pai_gow")
    deal = {
        "dealer": DEALER_TILES,
        "positions": {"1": ["6-6", "6-6", "1-1", "1-1"], "2": ["4-6", "5-5", "1-5", "2-2"]},
    }
    first = opened(table)
    place(first, wager("ann", "pai_gow", ann, position=1), wager("bob", "pai_gow", bob, position=2))
    result(first, "deal", deal)
    result(first, "set", {"1.1": "house_way", "1.2": "house_way"})
    result(first, "reveal", True)
    settle(first)

    second = opened(table, now=T0 + 10 * M)
    place(
        second,
        wager("ann", "pai_gow", ann, position=1),
        wager("bob", "pai_gow", bob, position=2),
        now=T0 + 11 * M,
    )
    round_event(
        second,
        "bank",
        {"player": "bob", "dealer_wager": "0", "chips": "200"},
        by=operations(),
        now=T0 + 11 * M,
    )
    result(second, "deal", deal, now=T0 + 12 * M)
    result(second, "set", {"2.1": "house_way", "2.2": "house_way"}, now=T0 + 12 * M)
    result(second, "reveal", True, now=T0 + 13 * M)
    settle(second, now=T0 + 14 * M)
    bank = Resolution.objects.get(wager__ref="2.2", wager__table=table)
    assert (bank.result, bank.net, bank.cite) == ("lose", D(bank_net), code("621a.9(o)"))
    assert bank.extra["vig"] == "0.00"
    books_balance_check(table)  # the player's lines still sum to the net
    assert bank.vigorish == D("0.00")
    assert balance(table, Account.FEES) == D(fees)
