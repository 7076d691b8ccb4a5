"""The round flow through the services (issue 7): open, wagers, "no more bets", the result.

Every refusal is a FloorRefused whose reasons are the engine's own sentence with its
section, and a refused action writes nothing: no Wager, no RoundEvent, no LedgerLine.
Times are Pennsylvania wall-clock moments after T0 (Monday 2 March 2026, 08:00 EST).
"""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied

from casino.models import RulesSubmission, Table
from casino.services import FloorRefused
from casino.services.equipment import set_changeout
from casino.services.errors import FloorInvalid
from casino.services.tables import table_suspend
from games.models import Round, RoundEvent, Wager
from gaming.rounds import no_more_bets, round_event, round_open
from gaming.tables import table_close, table_open
from tests.casino.floor_fixtures import T0, compliance, compliant_table, operations, set_new
from tests.games.round_fixtures import (
    D,
    M,
    close,
    fresh,
    open_table,
    opened,
    place,
    refs,
    resolution_of,
    result,
    settle,
    wager,
    written,
)

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)


# --- opening --------------------------------------------------------------------------------


def test_rounds_are_numbered_per_table_from_one():
    first = open_table("sic_bo")
    second = open_table("sic_bo")
    numbers = []
    for minute in (1, 10):
        round_ = opened(first, now=T0 + minute * M)
        place(round_, wager("ann", "small", "10"), now=T0 + (minute + 1) * M)
        result(round_, "throw", [1, 2, 3], now=T0 + (minute + 2) * M)
        settle(round_, now=T0 + (minute + 3) * M)
        numbers.append((round_.table.number, round_.number))
    other = opened(second, now=T0 + 20 * M)
    numbers.append((other.table.number, other.number))
    assert numbers == [("SB-01", 1), ("SB-01", 2), ("SB-02", 1)]
    assert str(other) == "SB-02 round 1"
    assert other.label == "SB-02:1"


def test_one_round_in_progress_per_table():
    table = open_table("sic_bo")
    round_ = opened(table)
    with pytest.raises(FloorRefused) as refused:
        round_open(table, by=operations(), now=T0 + 2 * M)
    assert refused.value.action == "Starting a round at SB-01"
    assert refused.value.reasons == ["SB-01 round 1 is wagering open"]

    place(round_, wager("ann", "big", "10"))
    result(round_, "throw", [6, 6, 5])
    # The result is entered but the worker has not settled it: still in progress.
    with pytest.raises(FloorRefused) as refused:
        round_open(table, by=operations(), now=T0 + 5 * M)
    assert refused.value.reasons == ["SB-01 round 1 is result entered, settling"]
    assert Round.objects.filter(table=table).count() == 1

    assert settle(round_) == "settled"
    assert opened(table, now=T0 + 6 * M).number == 2


def test_a_round_is_not_opened_at_a_table_that_is_not_open():
    table = compliant_table("sic_bo").table  # every record in place, but never opened
    with pytest.raises(FloorRefused) as refused:
        round_open(table, by=operations(), now=T0 + M)
    assert refused.value.action == "Starting a round at SB-01"
    assert "SB-01 is closed, not open" in refused.value.reasons
    assert not Round.objects.exists()


def test_a_round_is_opened_only_by_someone_who_runs_rounds():
    table = open_table("sic_bo")
    with pytest.raises(PermissionDenied, match=r"needs games\.run_round"):
        round_open(table, by=compliance(), now=T0 + M)
    assert not Round.objects.exists()


def test_the_round_takes_the_options_of_the_rules_submission_in_force_and_the_table():
    table = open_table("craps", options={"buy_lay": False}, min_wager="10", max_wager="1000")
    round_ = opened(table)
    assert round_.options["buy_lay"] is False
    assert round_.options["min_wager"] == "10.00"
    assert round_.options["max_wager"] == "1000.00"
    assert round_.options["table_type"] == "manual"
    assert round_.rules_submission == RulesSubmission.in_force(table.holder, "craps", T0 + M)


# --- wagers refused with the engine's words, nothing written ------------------------------


def test_a_sic_bo_wager_below_the_table_minimum_is_refused_and_nothing_is_written():
    """58 Pa. Code § 625a.4; the posted minimum is the table's own ($5)."""
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    round_ = opened(table)
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        place(round_, wager("ann", "small", "10"), wager("bob", "big", "4.99"))
    # All or none: the first wager, which the engine accepted, is not taken either.
    assert refused.value.action == "Wagers at SB-01 round 1"
    assert refused.value.reasons == ["1.2: The table minimum wager is $5.00."]
    assert written(table) == before == (0, 0, 0, 0)


def test_craps_odds_before_a_point_are_refused():
    """58 Pa. Code § 623a.6(a): odds are a supplemental wager made once a total of 4, 5,
    6, 8, 9 or 10 is thrown on the come out roll; before it there is no point to back."""
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("ann", "pass", "10"))
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        place(round_, wager("ann", "odds", "10", on="1.1"), now=T0 + 3 * M)
    assert refused.value.reasons == [
        "1.2: Odds are made on a Pass Bet only after its point is established "
        "(58 Pa. Code § 623a.6(a))"
    ]
    assert written(table) == before == (1, 1, 2, 0)


def test_a_wager_the_rules_submission_does_not_offer_is_refused():
    """58 Pa. Code § 623a.11(a): the Fire Bet is offered only if the Rules Submission says
    so; this one selects no Fire Bet paytable."""
    table = open_table("craps", options={"fire_bet_paytable": "none"})
    round_ = opened(table)
    with pytest.raises(FloorRefused) as refused:
        place(round_, wager("ann", "fire", "5"))
    assert refused.value.reasons == [
        "1.1: This table does not offer the Fire Bet (58 Pa. Code § 623a.11(a))"
    ]
    assert written(table) == (0, 0, 0, 0)


def test_a_buy_bet_is_refused_where_the_rules_submission_offers_no_buy_bets():
    """58 Pa. Code § 623a.3(a)(41): a Buy Bet only if specified in the Rules Submission."""
    table = open_table("craps", options={"buy_lay": False})
    round_ = opened(table)
    with pytest.raises(FloorRefused) as refused:
        place(round_, wager("ann", "buy:4", "20"))
    assert refused.value.reasons == [
        "1.1: This table does not offer Buy Bets (58 Pa. Code § 623a.3(a)(41))"
    ]
    assert written(table) == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("bad", "field", "reason"),
    [
        ({"kind": "small", "amount": "10"}, "wagers[0].player", "is required"),
        ({"player": "ann", "amount": "10"}, "wagers[0].kind", "is required"),
        ({"player": 7, "kind": "small", "amount": "10"}, "wagers[0].player", "must be a string"),
        ({"player": "", "kind": "small", "amount": "10"}, "wagers[0].player", "must not be empty"),
        (wager("p" * 200, "small", "10"), "wagers[0].player", "is 200 characters; at most 64"),
        (wager("ann", "k" * 33, "10"), "wagers[0].kind", "is 33 characters; at most 32"),
        (
            {"player": "ann", "kind": "small", "amount": "abc"},
            "wagers[0].amount",
            "is 'abc', not a decimal string such as \"10.00\"",
        ),
        (
            {"player": "ann", "kind": "small", "amount": "10", "id": "mine"},
            "wagers[0].id",
            "is not a wager field",
        ),
    ],
    ids=[
        "missing player",
        "missing kind",
        "player a number",
        "empty player",
        "player of 200",
        "kind of 33",
        "amount abc",
        "unknown field id",
    ],
)
def test_malformed_wager_input_is_refused_naming_the_field(bad, field, reason):
    table = open_table("sic_bo")
    round_ = opened(table)
    with pytest.raises(FloorInvalid) as refused:
        place(round_, bad)
    assert refused.value.fields == {field: [reason]}
    assert refused.value.reasons == [f"{field} {reason}"]
    assert written(table) == (0, 0, 0, 0)


def test_a_name_is_counted_as_sent_and_kept_composed():
    """The limit counts the name as sent, as the schema's maxLength does: 32 letters each
    with its accent apart are 64 code points sent (taken, kept as 32 in NFC); 64 of them,
    128 sent, are refused though NFC would keep 64."""
    table = open_table("sic_bo")
    round_ = opened(table)
    (placed,) = place(round_, wager("e\u0301" * 32, "small", "10"))
    assert placed.player == "\u00e9" * 32
    before = written(table)
    with pytest.raises(FloorInvalid) as refused:
        place(round_, wager("e\u0301" * 64, "small", "10"))
    assert refused.value.fields == {"wagers[0].player": ["is 128 characters; at most 64"]}
    assert written(table) == before


def test_an_empty_list_of_wagers_is_refused():
    table = open_table("sic_bo")
    round_ = opened(table)
    with pytest.raises(FloorInvalid) as refused:
        place(round_)
    assert refused.value.fields == {"wagers": ["must be a non-empty list"]}


def test_no_wager_is_taken_after_no_more_bets():
    """58 Pa. Code § 625a.5(c): "no more bets" is announced before the dice are revealed."""
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    close(round_)
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        place(round_, wager("bob", "big", "10"), now=T0 + 4 * M)
    assert refused.value.reasons == ["SB-01 round 1 is no more bets: no wager is taken"]
    assert written(table) == before
    events = list(RoundEvent.objects.filter(round=round_).values_list("event", flat=True))
    assert events == ["wagers", "no_more_bets"]


def test_no_more_bets_is_called_once():
    table = open_table("sic_bo")
    round_ = opened(table)
    close(round_)
    with pytest.raises(FloorRefused) as refused:
        no_more_bets(round_, by=operations(), now=T0 + 4 * M)
    assert refused.value.reasons == ["SB-01 round 1 is no more bets"]


def test_a_craps_wagering_event_is_refused_after_no_more_bets():
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("ann", "place:6", "12"))
    close(round_)
    with pytest.raises(FloorRefused) as refused:
        round_event(round_, "remove", ["1.1"], by=operations(), now=T0 + 4 * M)
    assert refused.value.reasons == ["CR-01 round 1 is no more bets: no wager is taken"]
    assert RoundEvent.objects.filter(round=round_, event="remove").count() == 0


# --- result events: the right game, the right moment ----------------------------------------


def test_a_result_event_of_another_game_is_refused():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        result(round_, "deal", {"dealer": [], "positions": {}})
    assert refused.value.reasons == [
        "'deal' is not a result here; these are: ['no_roll', 'shaker_malfunction', 'throw']"
    ]
    # The refused result did not close wagering either.
    assert fresh(round_).status == Round.Status.OPEN
    assert written(table) == before


def test_a_wagering_event_of_another_game_is_refused():
    table = open_table("craps")
    round_ = opened(table)
    with pytest.raises(FloorRefused) as refused:
        round_event(round_, "bank", {"player": "ann"}, by=operations(), now=T0 + 2 * M)
    assert refused.value.reasons == [
        "'bank' is not a wagering event here; the wagering events are: "
        "['pass_dice', 'remove', 'wagers', 'working']"
    ]


def test_a_result_sent_as_a_wagering_event_is_refused_and_wagering_stays_open():
    table = open_table("craps")
    round_ = opened(table)
    place(round_, wager("ann", "pass", "10"))
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        round_event(round_, "throw", [3, 4], by=operations(), now=T0 + 2 * M)
    assert refused.value.reasons == [
        "'throw' is a result, entered once wagering has closed, not a wagering event; the "
        "wagering events are: ['pass_dice', 'remove', 'wagers', 'working']"
    ]
    assert fresh(round_).status == Round.Status.OPEN
    assert written(table) == before


def test_new_wagers_sent_as_a_wagering_event_are_placed_as_wagers_are():
    table = open_table("craps")
    round_ = opened(table)
    round_event(round_, "wagers", [wager("ann", "pass", "10")], by=operations(), now=T0 + 2 * M)
    (row,) = Wager.objects.filter(round=round_)
    assert (row.ref, row.player, row.kind, row.amount) == ("1.1", "ann", "pass", D("10.00"))
    assert [e.event for e in fresh(round_).events.order_by("seq")] == ["wagers"]


def test_a_pai_gow_reveal_before_the_deal_is_refused():
    """58 Pa. Code § 621a.8(f): the dealer reveals the hands once they are dealt and set."""
    table = open_table("pai_gow")
    round_ = opened(table)
    place(round_, wager("ann", "pai_gow", "10", position=1))
    before = written(table)
    with pytest.raises(FloorRefused) as refused:
        result(round_, "reveal", True)
    assert refused.value.reasons == [
        "No tiles have been dealt this round (58 Pa. Code § 621a.8(f))"
    ]
    assert fresh(round_).status == Round.Status.OPEN
    assert written(table) == before


def test_a_high_roll_dice_extra_roll_before_the_first_throw_is_refused():
    """58 Pa. Code § 675a.4(g): the extra roll follows a first throw in a round in which a
    player purchased an Extra Roll."""
    table = open_table("high_roll_dice")
    round_ = opened(table)
    place(
        round_,
        wager("ann", "pip:5", "10"),
        wager("ann", "like_kind:4", "10"),
        wager("ann", "extra_roll", "10", position=1),
    )
    with pytest.raises(FloorRefused) as refused:
        result(round_, "extra_roll", [1, 2, 3])
    assert refused.value.reasons == [
        "There is no extra roll now: it follows a first throw in a round in which a player "
        "purchased an Extra Roll. (58 Pa. Code § 675a.4(g))"
    ]


def test_a_result_is_refused_once_the_round_is_settled():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    result(round_, "throw", [1, 2, 3])
    with pytest.raises(FloorRefused) as refused:
        result(round_, "throw", [4, 5, 6], now=T0 + 5 * M)
    assert refused.value.reasons == ["SB-01 round 1 is result entered, settling"]
    settle(round_)
    with pytest.raises(FloorRefused) as refused:
        result(round_, "throw", [4, 5, 6], now=T0 + 6 * M)
    assert refused.value.reasons == ["SB-01 round 1 is settled"]
    events = list(RoundEvent.objects.filter(round=round_).values_list("event", flat=True))
    assert events == ["wagers", "no_more_bets", "throw"]


def test_a_result_closes_wagering_first_and_ends_the_round_with_a_settlement_request():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    result(round_, "throw", [1, 2, 3])
    round_ = fresh(round_)
    assert round_.status == Round.Status.RESULT_ENTERED
    assert round_.closed_at == round_.result_at == T0 + 4 * M
    events = list(round_.events.values_list("seq", "event"))
    assert events == [(1, "wagers"), (2, "no_more_bets"), (3, "throw")]
    request = round_.settlement_request
    assert (request.created_at, request.sends, request.settled_at) == (T0 + 4 * M, 1, None)


# --- refs -----------------------------------------------------------------------------------


def test_wager_refs_are_round_dot_index_across_calls():
    table = open_table("sic_bo")
    first = opened(table)
    assert refs(place(first, wager("ann", "small", "10"))) == ["1.1"]
    result(first, "throw", [1, 1, 2])
    settle(first)
    second = opened(table, now=T0 + 10 * M)
    taken = place(second, wager("ann", "small", "10"), wager("bob", "big", "10"), now=T0 + 11 * M)
    more = place(second, wager("carl", "single:3", "5"), now=T0 + 12 * M)
    assert refs(taken) + refs(more) == ["2.1", "2.2", "2.3"]
    assert [e.payload[0]["id"] for e in second.events.filter(event="wagers")] == ["2.1", "2.3"]


# --- Craps: the game state carries from throw to throw ------------------------------------


def test_a_craps_point_carries_to_the_next_round_and_decides_the_pass_bet_there():
    """58 Pa. Code § 623a.3(a)(1)(i)(B): a 4 on the come out roll is the point; a 4 thrown
    again before a 7 wins the Pass Bet, paid 1 to 1 (§ 623a.5(a)): $10 wins $10."""
    table = open_table("craps")
    first = opened(table)
    place(first, wager("ann", "pass", "10"))
    result(first, "throw", [2, 2])
    assert settle(first) == "settled"
    assert fresh(first).resolutions.count() == 0  # the Pass Bet works on the point of 4

    second = opened(table, now=T0 + 10 * M)
    assert second.previous == first
    result(second, "throw", [1, 3], now=T0 + 11 * M)
    settle(second, now=T0 + 12 * M)
    won = resolution_of(second, "1.1")
    assert (won.round, won.result, won.net) == (second, "win", D("10.00"))
    assert won.cite == "58 Pa. Code § 623a.3(a)(1)(i)(B)"


def test_table_close_is_refused_while_a_round_is_in_progress():
    table = open_table("sic_bo")
    opened(table)
    with pytest.raises(FloorRefused) as refused:
        table_close(table, by=operations(), now=T0 + 2 * M)
    assert refused.value.reasons == ["SB-01 round 1 is wagering open: settle it first"]
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN


def test_table_close_is_refused_while_a_pass_bet_works_on_a_point():
    """58 Pa. Code § 623a.4(c)(1): a Pass Bet may not be removed after its point is
    established, so it stays until decided; the table cannot close under it."""
    table = open_table("craps")
    first = opened(table)
    place(first, wager("ann", "pass", "10"))
    result(first, "throw", [3, 3])
    settle(first)
    with pytest.raises(FloorRefused) as refused:
        table_close(table, by=operations(), now=T0 + 10 * M)
    assert refused.value.action == "Closing CR-01"
    assert refused.value.reasons == [
        "wagers still working at CR-01: 1.1; they are decided or taken down before the table closes"
    ]
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN


def test_after_the_table_closes_and_reopens_the_game_starts_afresh():
    """58 Pa. Code § 623a.7(d): a new set of dice when a Craps table is reopened; the
    point, shooter and wagers do not carry over the closing (round 2's previous is None),
    while the numbering of the table's rounds goes on."""
    floor = compliant_table("craps", open_table=True)
    table = floor.table
    first = opened(table)
    place(first, wager("ann", "pass", "10"))
    result(first, "throw", [3, 4])  # 7 on the come out roll: the Pass Bet wins at once
    settle(first)
    table_close(table, by=operations(), now=T0 + H)

    new_dice = set_new(floor.holder, "CR-01-new", "five_dice", now=T0)
    set_changeout(
        table,
        "five_dice",
        reason="table_reopened",
        new_set=new_dice,
        by=operations(),
        now=T0 + 2 * H,
    )
    table_open(table, by=operations(), now=T0 + 2 * H)
    second = opened(table, now=T0 + 2 * H + M)
    assert (second.number, second.previous) == (2, None)
    # A Pass Bet again, on a fresh come out roll.
    assert refs(place(second, wager("ann", "pass", "10"), now=T0 + 2 * H + 2 * M)) == ["2.1"]


def test_a_suspension_is_not_a_closing_and_the_point_carries():
    table = open_table("craps")
    first = opened(table)
    place(first, wager("ann", "pass", "10"))
    result(first, "throw", [4, 6])
    settle(first)
    table_suspend(table, by=operations(), now=T0 + H)
    table_open(table, by=operations(), now=T0 + 2 * H)
    second = opened(table, now=T0 + 2 * H + M)
    assert second.previous == first


# --- a round that ends must leave the engine ready for the next one -----------------------


def test_an_extra_roll_bought_with_no_circle_left_working_does_not_block_the_next_round():
    """58 Pa. Code § 675a.4(f)(2), (g). Three 2s on the first roll: Ann's three-of-a-kind
    circle wins at once (3 to 5, § 675a.5(b)), so none of her circles waits for the Extra
    Roll she bought. Either the dealer throws the extra roll in this round (§ 675a.4(g))
    or the round is over; in neither case may the next round be refused its wagers."""
    table = open_table("high_roll_dice")
    first = opened(table)
    place(
        first,
        wager("ann", "pip:2", "10"),
        wager("ann", "like_kind:3", "10"),
        wager("ann", "extra_roll", "10", position=1),
    )
    result(first, "throw", [2, 2, 2, 3, 3, 4, 4, 5, 6, 1])
    if fresh(first).status == Round.Status.CLOSED:  # the round awaits the extra roll
        result(first, "extra_roll", [1, 3, 3, 4, 4, 5, 6], now=T0 + 5 * M)
    settle(first, now=T0 + 6 * M)
    assert resolution_of(first, "1.2").net == D("6.00")  # $10 at 3 to 5

    second = opened(table, now=T0 + 10 * M)
    assert refs(place(second, wager("bob", "pip:5", "10"), now=T0 + 11 * M)) == ["2.1"]
    result(second, "throw", [5, 5, 5, 5, 2, 3, 4, 6, 1, 1], now=T0 + 12 * M)
    settle(second, now=T0 + 13 * M)
    # § 675a.5(a): four 5s occur the most; Pip Street on the 5, 4 to 1: $10 wins $40.
    assert resolution_of(second, "2.1").net == D("40.00")


def test_a_pai_gow_round_whose_only_hand_is_voided_does_not_block_the_next_round():
    """58 Pa. Code § 621a.10(d): the dealer exposes a tile of the only player's hand and the
    player voids it: his wager is returned. The next round takes wagers as usual
    (§ 621a.5(c) forbids wagers only after "no more bets" of the round in play)."""
    table = open_table("pai_gow")
    first = opened(table)
    place(first, wager("ann", "pai_gow", "10", position=1))
    result(
        first,
        "deal",
        {"dealer": ["1-4", "2-3", "2-5", "3-4"], "positions": {"1": ["6-6", "6-6", "1-1", "1-1"]}},
    )
    result(first, "irregularity", {"kind": "exposed_tile", "place": "1", "void": True})
    settle(first)
    assert resolution_of(first, "1.1").result == "push"

    second = opened(table, now=T0 + 10 * M)
    assert refs(place(second, wager("bob", "pai_gow", "10", position=2), now=T0 + 11 * M)) == [
        "2.1"
    ]
