"""Game recall: `manage.py recall ROUND` replays a settled round from its chain's events and
shows each stored resolution reproduced with its citation (issue 7, item 6)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from games.models import Resolution, Round, SettlementRequest
from games.services.settlement import round_settle
from gaming.rounds import result_enter, round_open, wagers_place
from tests.casino.floor_fixtures import T0, compliant_table, operations

pytestmark = pytest.mark.django_db


def settle(round_: Round) -> Round:
    assert round_settle(SettlementRequest.objects.get(round=round_).pk) == "settled"
    return Round.objects.get(pk=round_.pk)


def craps_two_rounds() -> tuple[Round, Round]:
    """Round 1: a Pass bet, 4 thrown (the point). Round 2: odds of 10, then 4 again."""
    table = compliant_table("craps", open_table=True).table
    ops = operations()
    first = round_open(table, by=ops, now=T0)
    wagers_place(first, [{"player": "p1", "kind": "pass", "amount": "10"}], by=ops, now=T0)
    result_enter(first, "throw", [1, 3], by=ops, now=T0)
    settle(first)
    second = round_open(table, by=ops, now=T0)
    odds = {"player": "p1", "kind": "odds", "on": "1.1", "amount": "10"}
    wagers_place(second, [odds], by=ops, now=T0)
    result_enter(second, "throw", [2, 2], by=ops, now=T0)
    return first, settle(second)


def recall(label: str) -> str:
    out = StringIO()
    call_command("recall", label, stdout=out)
    return out.getvalue()


def test_a_craps_round_is_reproduced_from_its_chain_with_each_citation():
    """The Pass bet placed in round 1 wins even money when the point 4 is made in round 2
    (§ 623a.3(a)(1)); the odds on a point of 4 pay 2 to 1 (§ 623a.6): 10 -> +20."""
    _, second = craps_two_rounds()
    text = recall(f"{second.table.number}:2")
    assert "Game state rebuilt from the 1 earlier round(s) it continues" in text
    assert "1.1: win +10.00  58 Pa. Code § 623a.3(a)(1)" in text
    assert "2.1: win +20.00  58 Pa. Code § 623a.6" in text
    assert "Reproduced 2 of 2 resolutions." in text
    assert "Rules hash: settled by" in text and "this code the same" in text
    assert "Ledger: the round's entries sum to 0.00" in text


def test_recall_never_trusts_the_state_cache():
    """A corrupt cache on round 1 changes nothing: recall replays the events."""
    first, second = craps_two_rounds()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE games_round SET state_after = %s WHERE id = %s", [b"junk", first.pk])
    assert "Reproduced 2 of 2 resolutions." in recall(str(second.pk))


def test_a_stored_resolution_that_the_engine_does_not_reproduce_fails_the_recall():
    """Someone edits a stored net behind the application's back: recall says so and exits 1."""
    _, second = craps_two_rounds()
    resolution = Resolution.objects.get(round=second, wager__ref="2.1")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE games_resolution SET net = 25 WHERE id = %s", [resolution.pk])
    out = StringIO()
    with pytest.raises(CommandError, match="not reproduced"):
        call_command("recall", f"{second.table.number}:2", stdout=out)
    assert "2.1: win +25.00" in out.getvalue() and "NOT REPRODUCED" in out.getvalue()


@pytest.mark.parametrize(
    ("label", "message"),
    [("CR-99:1", "no round 'CR-99:1'"), ("yesterday", "give TABLE:NUMBER"), ("999999", "no round")],
)
def test_recall_names_what_is_wrong_with_the_round_asked_for(label, message):
    with pytest.raises(CommandError, match=message):
        call_command("recall", label, stdout=StringIO())


def test_a_round_not_yet_settled_is_not_recalled():
    table = compliant_table("sic_bo", open_table=True).table
    round_ = round_open(table, by=operations(), now=T0)
    with pytest.raises(CommandError, match="wagering open"):
        call_command("recall", str(round_.pk), stdout=StringIO())
