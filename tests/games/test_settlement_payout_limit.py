"""The High Roll Dice aggregate payout limit per player per round (issue 7).

58 Pa. Code § 675a.5(e) (ten dice) and § 675a.6(l) (six dice): the certificate holder
may set, in its Rules Submission, an aggregate payout limit per player per round of at
least $50,000 or the most one patron could win per round betting the minimum wager,
whichever is greater; winning Millionaire Row Wagers are not included.

How a reduction is spread over one player's winning wagers (our reading, in
games/rules/high_roll_dice/payout_limit.py): in proportion to their winnings, each share
rounded down to the cent, leftover cents on the largest winnings first. The reduction
is its own ledger line (player -> inventory) and shows on the Resolution.
"""

from decimal import Decimal

import pytest

from casino.services import FloorRefused
from games.models import LedgerLine, Resolution
from games.rules.high_roll_dice.payout_limit import payout_limit_minimum
from gaming.rounds import round_open
from gaming.tables import table_open
from tests.casino.floor_fixtures import T0, compliant_table, operations
from tests.games.round_fixtures import (
    D,
    M,
    balance,
    books_balance_check,
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
LIMIT = "50000"


def resolved(table, ref: str) -> tuple[str, Decimal, Decimal, Decimal]:
    """(result, net, winnings at the odds, payout limit reduction)."""
    r = Resolution.objects.get(wager__table=table, wager__ref=ref)
    return r.result, r.net, r.winnings, r.payout_limit_reduction


def test_the_lowest_limit_allowed_is_50000_or_the_most_won_at_the_minimum_wager():
    """58 Pa. Code § 675a.5(e), § 675a.6(l). Per $1 on every limited area, ten dice: the
    best Pip Street odds, 6 to 1 (the two, § 675a.5(a)), plus the best Like Kind line:
    eight-of-a-kind 5,000 to 1 (§ 675a.5(b)) beats seven-of-a-kind 400 to 1 plus an Extra
    Roll eight-of-a-kind 50 to 1 (§ 675a.5(d)): 5,006 per $1. Six dice: 8 to 1 (§ 675a.6(j))
    plus six-of-a-kind 6,000 to 1 (§ 675a.6(k)): 6,008 per $1."""
    assert payout_limit_minimum(10, D("5")) == D("50000")  # 5 x 5,006 = 25,030 < 50,000
    assert payout_limit_minimum(10, D("10")) == D("50060")  # 10 x 5,006
    assert payout_limit_minimum(6, D("5")) == D("50000")  # 5 x 6,008 = 30,040
    assert payout_limit_minimum(6, D("10")) == D("60080")  # 10 x 6,008


def test_the_limit_is_spread_over_one_players_several_winning_wagers():
    """58 Pa. Code § 675a.5(e). Eight 2s, a 3 and a 4: the 2s occur the most.

    Ann, $20 each: Pip Street on the 2 at 6 to 1 (§ 675a.5(a)) wins $120; Like Kind
    eight-of-a-kind at 5,000 to 1 (§ 675a.5(b)) wins $100,000; her Pip Street on the 3
    loses. Together $100,120 against a limit of $50,000: a reduction of $50,120.
      on the 2:   50,120 x 120 / 100,120     = 60.0719... -> $60.07
      eight:      50,120 x 100,000 / 100,120 = 50,059.928... -> $50,059.92, plus the
                  leftover cent (the largest winnings first): $50,059.93
    She is paid 59.93 + 49,940.07 = $50,000.00. Bob's $5 on the 2 wins $30, untouched."""
    table = open_table("high_roll_dice", options={"payout_limit": LIMIT}, max_wager="500")
    round_ = opened(table)
    assert round_.options["payout_limit"] == LIMIT
    place(
        round_,
        wager("ann", "pip:2", "20"),
        wager("ann", "like_kind:8", "20"),
        wager("ann", "pip:3", "20"),
        wager("bob", "pip:2", "5"),
    )
    result(round_, "throw", [2, 2, 2, 2, 2, 2, 2, 2, 3, 4])
    settle(round_)

    assert resolved(table, "1.1") == ("win", D("59.93"), D("120.00"), D("60.07"))
    assert resolved(table, "1.2") == ("win", D("49940.07"), D("100000.00"), D("50059.93"))
    assert resolved(table, "1.3") == ("lose", D("-20.00"), D("0.00"), D("0.00"))
    assert resolved(table, "1.4") == ("win", D("30.00"), D("30.00"), D("0.00"))
    pip = Resolution.objects.get(wager__table=table, wager__ref="1.1")
    assert pip.cite == "58 Pa. Code § 675a.5(a)"
    assert pip.extra["payout_limit_reduction"] == "60.07"

    lines = settlement_lines(round_)
    reductions = [line for line in lines if line[3] == "payout_limit_reduction"]
    assert reductions == [
        ("1.1", Account.PLAYER, "ann", "payout_limit_reduction", D("-60.07")),
        ("1.1", Account.INVENTORY, "", "payout_limit_reduction", D("60.07")),
        ("1.2", Account.PLAYER, "ann", "payout_limit_reduction", D("-50059.93")),
        ("1.2", Account.INVENTORY, "", "payout_limit_reduction", D("50059.93")),
    ]
    # The winnings at the odds are paid in full, then the reduction taken back.
    assert ("1.2", Account.PLAYER, "ann", "winnings", D("100000.00")) in lines
    # Ann: -$60 placed, +$40 stakes back, +$50,000.00 paid: +$49,980.00.
    assert balance(table, Account.PLAYER, "ann") == D("49980.00")
    assert balance(table, Account.PLAYER, "bob") == D("30.00")
    books_balance_check(table)


def test_millionaire_row_is_neither_reduced_nor_counted_toward_the_limit():
    """58 Pa. Code § 675a.5(e), last sentence: the aggregate payout limit may not include
    winning Millionaire Row Wagers. Nine 2s and a 3.

    Ann: $9,000 on the 2 at 6 to 1 wins $54,000, reduced by $4,000 to the $50,000 limit;
    her $1 nine-of-a-kind Millionaire Row Wager wins $50,000 (§ 675a.5(c)) in full.
    Carl: $10 on the 2 wins $60 and his Millionaire Row $50,000: $50,060 in all, above
    $50,000, yet nothing is reduced, since the Millionaire Row is not counted."""
    table = open_table("high_roll_dice", options={"payout_limit": LIMIT}, max_wager="10000")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "pip:2", "9000"),
        wager("ann", "millionaire:9", "1"),
        wager("carl", "pip:2", "10"),
        wager("carl", "millionaire:9", "1"),
    )
    result(round_, "throw", [2, 2, 2, 2, 2, 2, 2, 2, 2, 3])
    settle(round_)
    assert resolved(table, "1.1") == ("win", D("50000.00"), D("54000.00"), D("4000.00"))
    assert resolved(table, "1.2") == ("win", D("50000.00"), D("50000.00"), D("0.00"))
    assert resolved(table, "1.3") == ("win", D("60.00"), D("60.00"), D("0.00"))
    assert resolved(table, "1.4") == ("win", D("50000.00"), D("50000.00"), D("0.00"))
    millionaire = Resolution.objects.get(wager__table=table, wager__ref="1.2")
    assert millionaire.cite == "58 Pa. Code § 675a.5(c)"
    reduced = {line[0] for line in settlement_lines(round_) if line[3] == "payout_limit_reduction"}
    assert reduced == {"1.1"}
    books_balance_check(table)


def test_the_limit_counts_what_the_first_roll_paid_when_the_extra_roll_pays():
    """58 Pa. Code § 675a.5(e): the limit is per player per round, the Extra Roll included.
    First throw: three 2s (the most). Ann's $8,000 on the 2 wins $48,000 at 6 to 1, under
    the limit, paid in full. Her eight-of-a-kind circle waits for her Extra Roll
    (§ 675a.4(f)(2)(ii)); five more 2s make eight: 50 to 1 on the Extra Roll (§ 675a.5(d))
    is $400,000, but only $50,000 - $48,000 = $2,000 may still be paid: a reduction of
    $398,000. The $8,000 purchase goes to fees (§ 675a.4(a))."""
    table = open_table("high_roll_dice", options={"payout_limit": LIMIT}, max_wager="10000")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "pip:2", "8000"),
        wager("ann", "like_kind:8", "8000"),
        wager("ann", "extra_roll", "8000", position=1),
    )
    result(round_, "throw", [2, 2, 2, 3, 3, 4, 4, 5, 6, 1])
    result(round_, "extra_roll", [2, 2, 2, 2, 2, 3, 4], now=T0 + 5 * M)
    settle(round_, now=T0 + 6 * M)
    assert resolved(table, "1.1") == ("win", D("48000.00"), D("48000.00"), D("0.00"))
    assert resolved(table, "1.2") == ("win", D("2000.00"), D("400000.00"), D("398000.00"))
    assert resolved(table, "1.3") == ("lose", D("-8000.00"), D("0.00"), D("0.00"))
    assert balance(table, Account.FEES) == D("8000.00")
    # Ann: -$24,000 placed, +$16,000 stakes back, +$50,000 paid.
    assert balance(table, Account.PLAYER, "ann") == D("42000.00")
    books_balance_check(table)


def test_the_six_dice_limit_is_spread_the_same_way():
    """58 Pa. Code § 675a.6(l). Six 2s: Pip Street on the 2 at 8 to 1 (§ 675a.6(j)), $10
    wins $80; six-of-a-kind at 6,000 to 1 (§ 675a.6(k)), $10 wins $60,000. $60,080 against
    $50,000: a reduction of $10,080.
      on the 2:  10,080 x 80 / 60,080     = 13.4221... -> $13.42
      six:       10,080 x 60,000 / 60,080 = 10,066.5778... -> $10,066.57 + 1 cent leftover
    Paid: 66.58 + 49,933.42 = $50,000.00."""
    table = open_table("high_roll_dice", "6_dice", options={"payout_limit": LIMIT})
    round_ = opened(table)
    assert round_.options["dice"] == 6
    place(round_, wager("ann", "pip:2", "10"), wager("ann", "like_kind:6", "10"))
    result(round_, "throw", [2, 2, 2, 2, 2, 2])
    settle(round_)
    assert resolved(table, "1.1") == ("win", D("66.58"), D("80.00"), D("13.42"))
    assert resolved(table, "1.2") == ("win", D("49933.42"), D("60000.00"), D("10066.58"))
    cites = set(
        Resolution.objects.filter(wager__table=table).values_list("cite", flat=True).distinct()
    )
    assert cites == {"58 Pa. Code § 675a.6(j)", "58 Pa. Code § 675a.6(k)"}
    books_balance_check(table)


def test_no_reduction_without_a_limit_in_the_rules_submission():
    """58 Pa. Code § 675a.5(e): a limit exists only if specified in the Rules Submission."""
    table = open_table("high_roll_dice")
    round_ = opened(table)
    place(round_, wager("ann", "pip:2", "20"), wager("ann", "like_kind:8", "20"))
    result(round_, "throw", [2, 2, 2, 2, 2, 2, 2, 2, 3, 4])
    settle(round_)
    assert resolved(table, "1.2") == ("win", D("100000.00"), D("100000.00"), D("0.00"))
    assert not LedgerLine.objects.filter(kind="payout_limit_reduction").exists()


def test_a_table_does_not_open_under_a_limit_below_the_minimum_for_its_minimum_wager():
    """58 Pa. Code § 675a.5(e): with a $10 table minimum the most won at the minimum is
    10 x 5,006 = $50,060, above the submission's $50,000: the table is not opened, so no
    round is played under the limit."""
    floor = compliant_table("high_roll_dice", options={"payout_limit": LIMIT}, min_wager="10")
    with pytest.raises(FloorRefused) as refused:
        table_open(floor.table, by=operations(), now=T0 + M)
    assert refused.value.reasons == [
        "payout_limit: may not be less than $50060.00 ($50,000 or the most one patron could "
        "win at the minimum wager, § 675a.5(e)) (at this table)"
    ]
    with pytest.raises(FloorRefused):
        round_open(floor.table, by=operations(), now=T0 + 2 * M)
