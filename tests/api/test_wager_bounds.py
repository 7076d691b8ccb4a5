"""How many wagers a request and a round take, through the API (issue 33, part 5), and a
player's name too long (part 6): each refused in the one body, naming the field and the
limit, nothing written."""

import pytest
from django.test import override_settings

from games.models import LedgerLine, Round, Wager
from tests.api.conftest import API, error_of, new_key, post, session
from tests.api.test_round_events import ann, craps_table
from tests.games.round_fixtures import M, close, result, settle

pytestmark = pytest.mark.django_db

MANY = [{"player": f"p{n}", "kind": "small", "amount": "10.00"} for n in range(5000)]


@pytest.fixture
def ops(api_floor):
    return session(api_floor.operations)


def test_a_request_of_5000_wagers_is_refused_before_its_round_is_read(api_floor, ops):
    before = Wager.objects.count()
    for round_id in (api_floor.a.round2.pk, 10**15):  # a round that does not exist: not a 404
        response = post(ops, f"{API}/rounds/{round_id}/wagers/", {"wagers": MANY}, key=new_key())
        refused = error_of(response, 400, "invalid")
        assert refused["fields"] == {"wagers": ["holds 5000 wagers; at most 2000 in one request"]}
        assert refused["reasons"] == ["wagers holds 5000 wagers; at most 2000 in one request"]
    assert Wager.objects.count() == before


def test_the_same_wagers_as_an_event_are_refused_the_same_way(api_floor, ops):
    body = {"event": "wagers", "payload": MANY}
    response = post(ops, f"{API}/rounds/{api_floor.a.round2.pk}/events/", body, key=new_key())
    assert error_of(response, 400, "invalid")["fields"] == {
        "wagers": ["holds 5000 wagers; at most 2000 in one request"]
    }


@override_settings(CASINO_MAX_WAGERS_PER_ROUND=2)
def test_a_round_full_of_wagers_refuses_more_naming_its_limit(api_floor, ops):
    round2 = api_floor.a.round2  # holds bob's one wager
    path = f"{API}/rounds/{round2.pk}/wagers/"
    two = {"wagers": MANY[:2]}
    refused = error_of(post(ops, path, two, key=new_key()), 422, "refused")
    assert refused["reasons"] == [
        f"{round2} has 1 wager and a round holds at most 2: 2 more would make 3"
    ]
    assert post(ops, path, {"wagers": MANY[:1]}, key=new_key()).status_code == 201


def test_a_player_name_too_long_says_the_limit(api_floor, ops):
    body = {"wagers": [{"player": "p" * 200, "kind": "small", "amount": "10.00"}]}
    response = post(ops, f"{API}/rounds/{api_floor.a.round2.pk}/wagers/", body, key=new_key())
    refused = error_of(response, 400, "invalid")
    assert refused["fields"] == {"wagers[0].player": ["is 200 characters; at most 64"]}
    assert refused["reasons"] == ["wagers[0].player is 200 characters; at most 64"]


def test_a_name_is_counted_as_sent_as_the_schema_says(api_floor, ops):
    """The schema's `maxLength: 64` counts code points as sent: "e" + U+0301 64 times (128
    sent, schema-invalid) is refused, though NFC keeps it as 64; nothing written."""
    before = Wager.objects.count()
    body = {"wagers": [{"player": "e\u0301" * 64, "kind": "small", "amount": "10.00"}]}
    response = post(ops, f"{API}/rounds/{api_floor.a.round2.pk}/wagers/", body, key=new_key())
    refused = error_of(response, 400, "invalid")
    assert refused["fields"] == {"wagers[0].player": ["is 128 characters; at most 64"]}
    assert Wager.objects.count() == before


def test_a_schema_valid_name_nfc_lengthens_is_taken_and_kept_whole(api_floor, ops):
    """U+0958 x 33 (33 code points, schema-valid) was refused as "66 characters": NFC keeps
    each as two (U+0915 U+093C). The longest such name, 64 sent and 128 kept, is taken,
    settled, and its ledger lines keep it whole (on PostgreSQL too, whose varchar counts
    characters: the migration widened both columns to 192)."""
    f = api_floor
    name = "\u0958" * 64
    body = {"wagers": [{"player": name, "kind": "small", "amount": "10.00"}]}
    response = post(ops, f"{API}/rounds/{api_floor.a.round2.pk}/wagers/", body, key=new_key())
    assert response.status_code == 201, response.content
    (placed,) = response.json()["wagers"]
    kept = "\u0915\u093c" * 64
    assert placed["player"] == kept
    assert Wager.objects.get(pk=placed["id"]).player == kept
    round2 = f.a.round2
    result(close(round2, now=f.at + 10 * M), "throw", [2, 2, 3], now=f.at + 11 * M)
    assert settle(round2, now=f.at + 12 * M) == "settled"
    lines = LedgerLine.objects.filter(wager_id=placed["id"], account="player")
    assert {line.player for line in lines} == {kept}


@override_settings(CASINO_MAX_WAGERS_PER_ROUND=4)
def test_a_craps_round_counts_the_bets_working_from_earlier_throws():
    """Through the API, as an integrator: round 1's Place Bets on 4 and 5 still work after
    its come out 3 (inactive on a come out roll, 58 Pa. Code § 623a.3(a)(5)), so round 2
    holds them: two more wagers fill it, a third is refused naming the limit (422), and
    nothing is written."""
    play = craps_table()
    first = play.round_open()
    play.wagers(first, ann("place:4", "10"), ann("place:5", "10"), ann("pass", "10"))
    assert play.throw(first, [1, 2]) == {"1.3": "lose -10.00 58 Pa. Code § 623a.3(a)(1)(ii)(A)"}
    second = play.round_open()
    assert play.wagers(second, ann("pass", "10")) == ["2.1"]
    before = Wager.objects.filter(table=play.table).count()
    two = {"wagers": [ann("field", "5"), ann("field", "5")]}
    response = post(play.client, f"{API}/rounds/{second}/wagers/", two, key=new_key())
    refused = error_of(response, 422, "refused")
    round_ = Round.objects.get(pk=second)
    assert refused["reasons"] == [
        f"{round_} has 1 wager and 2 working from earlier throws, and a round holds at most "
        "4: 2 more would make 5"
    ]
    assert Wager.objects.filter(table=play.table).count() == before
    assert play.wagers(second, ann("field", "5")) == ["2.2"]
