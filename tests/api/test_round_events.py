"""Every wagering event of the scenario contract through the REST API (issue 18):
`POST /api/v1/rounds/{id}/events/` takes `{"event": NAME, "payload": ...}` as
../shared/SCENARIOS.md writes it, under an Idempotency-Key, with the admin's refusals.

The rounds are settled as the worker settles them (the task's service, in process); the
same sequences run against a real worker on the demo floor (docs/api.md).
"""

import random
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from casino.models import Table
from casino.services.api_tokens import token_issue
from games.demo_rounds import RESULTS
from games.models import LedgerLine, Resolution, Round, RoundEvent, Wager
from tests.api.conftest import API, bearer, error_of, integrator_user, new_key, operations_user
from tests.api.conftest import post as post_json
from tests.casino.floor_fixtures import compliant_table
from tests.games.round_fixtures import books_balance_check, settle

pytestmark = pytest.mark.django_db


@dataclass
class Play:
    table: Table
    client: Client

    def post(self, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
        response = post_json(self.client, f"{API}/{path}", body, key=new_key())
        assert response.status_code == status, response.content[:2000]
        return response.json()

    def round_open(self) -> int:
        return self.post("rounds/", {"table": self.table.pk}, status=201)["id"]

    def wagers(self, round_id: int, *wagers: dict[str, Any]) -> list[str]:
        placed = self.post(f"rounds/{round_id}/wagers/", {"wagers": list(wagers)}, status=201)
        return [w["ref"] for w in placed["wagers"]]

    def event(self, round_id: int, event: str, payload: Any) -> dict[str, Any]:
        return self.post(f"rounds/{round_id}/events/", {"event": event, "payload": payload})

    def throw(self, round_id: int, dice: list[int]) -> dict[str, str]:
        """No more bets, the dice, the worker's settlement: each wager decided, by ref."""
        self.post(f"rounds/{round_id}/no-more-bets/")
        assert (
            self.post(f"rounds/{round_id}/result/", {"event": "throw", "payload": dice})["status"]
            == "result_entered"
        )
        round_ = Round.objects.get(pk=round_id)
        assert settle(round_, now=timezone.now()) == "settled"
        books_balance_check(self.table)
        return decided(round_)


def decided(round_: Round) -> dict[str, str]:
    """Each wager this round decided: ref -> "result net cite"."""
    return {
        r.wager.ref: f"{r.result} {r.net} {r.cite}"
        for r in Resolution.objects.filter(round=round_).select_related("wager")
    }


def craps_table(operation: str = "manual", **options: Any) -> Play:
    now = timezone.now().replace(microsecond=0) - timedelta(seconds=5)
    floor = compliant_table(
        "craps", now=now, operation=operation, options=options or None, open_table=True
    )
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="floor", by=operations_user(), now=now
    )
    return Play(floor.table, bearer(key))


def ann(kind: str, amount: str, **extra: Any) -> dict[str, Any]:
    return {"player": "ann", "kind": kind, "amount": amount, **extra}


def test_ec01_a_lucky_shooter_through_a_come_out_seven_is_decided_once_when_decided():
    """58 Pa. Code § 623b.2(d)(2): a come out 7 returns the Lucky Shooter "1 for 1" and it
    stays working: no resolution and no money that round; the next round's 1-1 decides it
    (§ 623b.2(d)(1)). The table's settlement never jams (the issue's EC-01 sequence)."""
    play = craps_table("electronic")
    first = play.round_open()
    assert play.wagers(first, ann("pass", "10"), ann("lucky_shooter", "5")) == ["1.1", "1.2"]

    assert play.throw(first, [3, 4]) == {"1.1": "win 10.00 58 Pa. Code § 623a.3(a)(1)(i)(A)"}
    lucky = Wager.objects.get(table=play.table, ref="1.2")
    assert lucky_on_layout(lucky) == Decimal("5.00")

    second = play.round_open()
    assert play.throw(second, [1, 1]) == {"1.2": "lose -5.00 58 Pa. Code § 623b.2(d)(1)"}
    assert Resolution.objects.filter(wager=lucky).count() == 1
    assert lucky_on_layout(lucky) == Decimal("0.00")
    play.round_open()  # the table goes on


def lucky_on_layout(wager: Wager) -> Decimal:
    lines = LedgerLine.objects.filter(wager=wager, account=LedgerLine.Account.LAYOUT)
    return sum((line.amount for line in lines), Decimal("0.00"))


def test_odds_called_off_through_the_api_are_returned_when_their_bet_loses():
    """§ 623a.6(a): odds taken with the Pass bet; called off, they are returned when the
    shooter sevens out (push 0.00) while the Pass bet loses; a Place bet taken down
    (§ 623a.4(c)) is returned at once."""
    play = craps_table()
    first = play.round_open()
    play.wagers(first, ann("pass", "10"), ann("place:8", "12"))
    assert play.throw(first, [4, 2]) == {}

    second = play.round_open()
    assert play.wagers(second, ann("odds", "10", on="1.1")) == ["2.1"]
    answer = play.event(second, "working", {"2.1": False})
    assert (answer["status"], answer["events"][-1]["event"]) == ("open", "working")
    assert answer["events"][-1]["source"] == RoundEvent.Source.INTEGRATOR
    play.event(second, "remove", ["1.2"])
    assert play.throw(second, [3, 4]) == {
        "1.1": "lose -10.00 58 Pa. Code § 623a.3(a)(1)(ii)(B)",
        "1.2": "void 0.00 58 Pa. Code § 623a.4(c)",
        "2.1": "push 0.00 58 Pa. Code § 623a.6(a)",
    }


@pytest.mark.parametrize(
    ("returned", "net", "vigorish"),
    [(True, "0.00", "0.00"), (False, "-1.00", "1.00")],
)
def test_623a_5_g_3_a_buy_taken_down_through_the_api_returns_or_keeps_the_vig(
    returned, net, vigorish
):
    """58 Pa. Code § 623a.5(g)(3), § 623a.4(c); docs/regulations.md, Craps 7. Under a Rules
    Submission collecting 5% on placement, ann's $20 Buy on the 4 pays 5% of $20 = $1.00;
    she takes it down (`remove`) before a 5 is thrown. Her $20 stake comes back either way;
    with vig_returned_on_removal true so does the $1.00 (void, net 0.00), with false the
    $1.00 stays, posted to fees (void, net -1.00)."""
    play = craps_table(vig_collected="on_placement", vig_returned_on_removal=returned)
    first = play.round_open()
    play.wagers(first, ann("pass", "10"))
    assert play.throw(first, [4, 2]) == {}  # the point is 6
    second = play.round_open()
    assert play.wagers(second, ann("buy:4", "20")) == ["2.1"]
    play.event(second, "remove", ["2.1"])
    assert play.throw(second, [2, 3]) == {"2.1": f"void {net} 58 Pa. Code § 623a.4(c)"}

    buy = Wager.objects.get(table=play.table, ref="2.1")
    answer = play.client.get(f"{API}/resolutions/", {"wager": buy.pk})
    assert answer.status_code == 200, answer.content[:2000]
    [resolution] = answer.json()["results"]
    shown = ("result", "stake", "net", "winnings", "vigorish")
    assert {name: resolution[name] for name in shown} == {
        "result": "void",
        "stake": "20.00",
        "net": net,
        "winnings": "0.00",
        "vigorish": vigorish,
    }
    answer = play.client.get(f"{API}/ledger-lines/", {"wager": buy.pk, "page_size": 50})
    assert answer.status_code == 200, answer.content[:2000]
    lines = sorted(
        (line["account"], line["kind"], line["amount"]) for line in answer.json()["results"]
    )
    # Placed: $20 from ann to the layout; taken down: the $20 back; kept: $1.00 to fees.
    expected = [
        ("layout", "stake", "20.00"),
        ("layout", "stake_returned", "-20.00"),
        ("player", "stake", "-20.00"),
        ("player", "stake_returned", "20.00"),
    ]
    if not returned:
        expected += [("fees", "vigorish", "1.00"), ("player", "vigorish", "-1.00")]
    assert lines == sorted(expected)
    player_lines = sum(Decimal(a) for account, _, a in lines if account == "player")
    assert player_lines == Decimal(net)  # ann's lines for the wager add up to its net


def test_come_odds_are_off_on_the_come_out_unless_called_on():
    """docs/regulations.md (Craps reading 11): Come odds do not work on a come out roll
    unless called on. A Come bet on 9 wins on a come out 9; its odds are returned."""
    play = craps_table()
    rounds = [play.round_open()]
    play.wagers(rounds[-1], ann("pass", "10"))
    play.throw(rounds[-1], [4, 2])  # point 6
    rounds.append(play.round_open())
    play.wagers(rounds[-1], ann("come", "10"))
    play.throw(rounds[-1], [5, 4])  # the Come bet goes to 9
    rounds.append(play.round_open())
    play.wagers(rounds[-1], ann("odds", "10", on="2.1"))
    assert play.throw(rounds[-1], [3, 3]) == {"1.1": "win 10.00 58 Pa. Code § 623a.3(a)(1)(i)(B)"}
    rounds.append(play.round_open())
    assert play.throw(rounds[-1], [4, 5]) == {
        "2.1": "win 10.00 58 Pa. Code § 623a.3(a)(3)(i)(B)",
        "3.1": "push 0.00 58 Pa. Code § 623a.6(c)",
    }


def test_come_odds_called_on_for_the_come_out_are_paid():
    """The same hand with the odds called on before the come out: 3 to 2 on a 9
    (§ 623a.6(c)): $10 wins $15."""
    play = craps_table()
    rounds = [play.round_open()]
    play.wagers(rounds[-1], ann("pass", "10"))
    play.throw(rounds[-1], [4, 2])
    rounds.append(play.round_open())
    play.wagers(rounds[-1], ann("come", "10"))
    play.throw(rounds[-1], [5, 4])
    rounds.append(play.round_open())
    play.wagers(rounds[-1], ann("odds", "10", on="2.1"))
    play.throw(rounds[-1], [3, 3])
    rounds.append(play.round_open())
    play.event(rounds[-1], "working", {"3.1": True})
    assert play.throw(rounds[-1], [4, 5]) == {
        "2.1": "win 10.00 58 Pa. Code § 623a.3(a)(3)(i)(B)",
        "3.1": "win 15.00 58 Pa. Code § 623a.6(c)(2)(ii)",
    }


def test_a_result_sent_as_an_event_is_refused_naming_the_result_endpoints_events():
    play = craps_table()
    round_id = play.round_open()
    play.wagers(round_id, ann("pass", "10"))
    response = post_json(
        play.client,
        f"{API}/rounds/{round_id}/events/",
        {"event": "throw", "payload": [3, 4]},
        key=new_key(),
    )
    body = error_of(response, 422, "refused")
    assert body["reasons"] == [
        "'throw' is a result, entered once wagering has closed, not a wagering event; the "
        "wagering events are: ['pass_dice', 'remove', 'wagers', 'working']"
    ]
    assert Round.objects.get(pk=round_id).status == Round.Status.OPEN
    assert not RoundEvent.objects.filter(round_id=round_id, event="throw").exists()


def test_an_event_the_engine_refuses_is_a_422_naming_the_section_and_changes_nothing():
    """§ 623a.4(c)(1): a Pass bet with a point on may not be taken down."""
    play = craps_table()
    first = play.round_open()
    play.wagers(first, ann("pass", "10"))
    play.throw(first, [4, 2])
    second = play.round_open()
    before = RoundEvent.objects.filter(round_id=second).count()
    response = post_json(
        play.client,
        f"{API}/rounds/{second}/events/",
        {"event": "remove", "payload": ["1.1"]},
        key=new_key(),
    )
    body = error_of(response, 422, "refused")
    assert body["reasons"] == [
        "1.1: A Pass Bet may not be removed or reduced after the point is established "
        "(58 Pa. Code § 623a.4(c)(1))"
    ]
    assert RoundEvent.objects.filter(round_id=second).count() == before


def test_an_event_replayed_with_its_key_is_answered_once_and_recorded_once():
    play = craps_table()
    first = play.round_open()
    play.wagers(first, ann("place:6", "12"))
    body, key = {"event": "working", "payload": {"1.1": False}}, new_key()
    path = f"{API}/rounds/{first}/events/"
    one = post_json(play.client, path, body, key=key)
    two = post_json(play.client, path, body, key=key)
    assert one.status_code == two.status_code == 200
    assert two["Idempotent-Replayed"] == "true"
    assert one.json() == two.json()
    assert RoundEvent.objects.filter(round_id=first, event="working").count() == 1


def test_an_event_without_a_key_or_a_name_is_refused():
    play = craps_table()
    round_id = play.round_open()
    path = f"{API}/rounds/{round_id}/events/"
    error_of(
        post_json(play.client, path, {"event": "pass_dice", "payload": True}),
        400,
        "idempotency_key_required",
    )
    body = error_of(post_json(play.client, path, {"payload": True}, key=new_key()), 400, "invalid")
    assert body["fields"] == {"event": ["This field is required."]}


def test_passing_the_dice_through_the_api_keeps_a_pending_fire_bet():
    """§ 623a.10(a) and § 623a.11(a)(2): a shooter may give up the dice; a Fire Bet with
    a point made stays pending for the new shooter (no resolution, its stake still out)."""
    play = craps_table()
    first = play.round_open()
    play.wagers(first, ann("fire", "5"), ann("pass", "10"))
    play.throw(first, [4, 2])
    second = play.round_open()
    assert play.throw(second, [3, 3]) == {"1.2": "win 10.00 58 Pa. Code § 623a.3(a)(1)(i)(B)"}
    third = play.round_open()
    answer = play.event(third, "pass_dice", True)
    assert [(e["event"], e["payload"]) for e in answer["events"]] == [("pass_dice", True)]
    assert play.throw(third, [3, 4]) == {}  # a come out 7 for the new shooter
    assert not Resolution.objects.filter(wager__table=play.table, wager__ref="1.1").exists()


def test_a_pai_gow_bank_through_the_api_is_refused_at_the_start_and_taken_after():
    """§ 621a.9(b): no player banks the first round of the game; once a round has been
    played, a player may take the bank (§ 621a.9(c): before the tiles are dealt)."""
    now = timezone.now().replace(microsecond=0) - timedelta(seconds=5)
    floor = compliant_table("pai_gow", now=now, open_table=True)
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="floor", by=operations_user(), now=now
    )
    play = Play(floor.table, bearer(key))
    first = play.round_open()
    play.wagers(first, {"player": "p3", "kind": "pai_gow", "amount": "25", "position": 3})
    body = {"event": "bank", "payload": {"player": "p3", "co_bank": False}}
    refused = post_json(play.client, f"{API}/rounds/{first}/events/", body, key=new_key())
    assert error_of(refused, 422, "refused")["reasons"] == [
        "A player may not be the bank at the start of the game (58 Pa. Code § 621a.9(b))"
    ]
    # The stand-in dealer deals, sets and reveals the first round.
    RESULTS["pai_gow"](Round.objects.get(pk=first), random.Random(7), operations_user(), now)
    assert settle(Round.objects.get(pk=first), now=timezone.now()) == "settled"

    second = play.round_open()
    play.wagers(second, {"player": "p3", "kind": "pai_gow", "amount": "25", "position": 3})
    answer = play.event(second, "bank", {"player": "p3", "co_bank": False})
    assert [(e["event"], e["payload"]) for e in answer["events"]][-1] == (
        "bank",
        {"player": "p3", "co_bank": False},
    )


@pytest.mark.parametrize(
    "event,payload,why",
    [
        ("remove", [], "The call names no wager: it takes down nothing"),
        ("working", {}, "The call names no wager: it calls on or off nothing"),
    ],
)
def test_a_call_that_names_no_wager_is_refused_and_recorded_nowhere(event, payload, why):
    """An empty take-down or call is nothing a dealer could act on: refused (422), not a
    round event replayed for ever (found by the review of issue 18)."""
    play = craps_table()
    round_id = play.round_open()
    play.wagers(round_id, ann("place:6", "12"))
    response = post_json(
        play.client,
        f"{API}/rounds/{round_id}/events/",
        {"event": event, "payload": payload},
        key=new_key(),
    )
    assert error_of(response, 422, "refused")["reasons"] == [why]
    assert not RoundEvent.objects.filter(round_id=round_id, event=event).exists()
