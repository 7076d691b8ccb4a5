"""Issue 19, point 6: player names are text a person can trust, on every way in (the API,
the admin, a device, an event's payload, an adjusting entry): one rule
(casino/rules/text.py) applied by the floor's services; refused with nothing written."""

import json
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from casino.services import FloorRefused
from casino.services.api_tokens import token_issue
from games.demo_rounds import RESULTS
from games.models import LedgerLine, Round, RoundEvent, Wager
from games.services.ledger import adjustment_post
from gaming.rounds import result_enter, wagers_place
from tests.api.conftest import API, bearer, error_of, integrator_user, new_key, operations_user
from tests.api.conftest import post as post_json
from tests.api.test_round_events import Play, craps_table
from tests.casino.floor_fixtures import T0, compliance, compliant_table, operations
from tests.games.round_fixtures import D, settle, written
from tests.games.test_admin_rounds import act, ops_client, round_at, said  # noqa: F401

pytestmark = pytest.mark.django_db

OVERRIDE = "p1\u202egpj.exe"  # shows as "p1exe.jpg"


def test_a_name_with_a_bidi_override_is_a_422_naming_field_and_code_point():
    play = craps_table()
    round_id = play.round_open()
    before = written(play.table)
    body = {"wagers": [{"player": OVERRIDE, "kind": "pass", "amount": "10"}]}
    refused = post_json(play.client, f"{API}/rounds/{round_id}/wagers/", body, key=new_key())
    assert error_of(refused, 422, "refused")["reasons"] == [
        "wagers[0].player contains U+202E RIGHT-TO-LEFT OVERRIDE"
    ]
    assert written(play.table) == before


@pytest.mark.parametrize(
    ("player", "reason"),
    [
        ("p\x00", "wagers[0].player contains U+0000 (a control character)"),
        ("p\ud800", "wagers[0].player contains U+D800 (a lone surrogate)"),
    ],
)
def test_what_postgresql_cannot_store_is_a_400_naming_it_not_a_server_error(player, reason):
    """Refused by the parser, before the write's record (a jsonb column) is claimed."""
    play = craps_table()
    round_id = play.round_open()
    before = written(play.table)
    body = {"wagers": [{"player": player, "kind": "pass", "amount": "10"}]}
    refused = post_json(play.client, f"{API}/rounds/{round_id}/wagers/", body, key=new_key())
    assert error_of(refused, 400, "parse_error")["reasons"] == [f"JSON parse error - {reason}"]
    assert written(play.table) == before


def test_one_hidden_name_refuses_the_whole_list():
    play = craps_table()
    round_id = play.round_open()
    before = written(play.table)
    body = {
        "wagers": [
            {"player": "ann", "kind": "pass", "amount": "10"},
            {"player": "a\u200bnn", "kind": "pass", "amount": "10"},
        ]
    }
    refused = post_json(play.client, f"{API}/rounds/{round_id}/wagers/", body, key=new_key())
    assert error_of(refused, 422, "refused")["reasons"] == [
        "wagers[1].player contains U+200B ZERO WIDTH SPACE"
    ]
    assert written(play.table) == before


def test_a_decomposed_name_is_stored_and_shown_composed():
    round_ = round_at("sic_bo")
    [placed] = wagers_place(
        round_,
        [{"player": "Zoe\u0308", "kind": "small", "amount": "10"}],
        by=operations(),
        now=timezone.now(),
    )
    assert Wager.objects.get(pk=placed.pk).player == "Zo\u00eb"
    assert set(LedgerLine.objects.filter(account="player").values_list("player", flat=True)) == {
        "Zo\u00eb"
    }
    [event] = RoundEvent.objects.filter(round=round_, event="wagers")
    assert event.payload[0]["player"] == "Zo\u00eb"


def test_the_admin_shows_the_same_refusal(ops_client):  # noqa: F811
    round_ = round_at("sic_bo")
    wagers = json.dumps([{"player": "p\u20661", "kind": "small", "amount": "10"}])
    [message] = said(act(ops_client, round_, "wagers", wagers=wagers))
    assert message == (
        f"Place wagers at {round_} refused: wagers[0].player contains U+2066 LEFT-TO-RIGHT ISOLATE"
    )
    assert not Wager.objects.exists() and not RoundEvent.objects.exists()


def test_an_adjusting_entry_names_players_by_the_same_rule():
    round_ = round_at("sic_bo")
    wagers_place(
        round_, [{"player": "ann", "kind": "small", "amount": "10"}], by=operations(), now=T0
    )
    result_enter(round_, "throw", [1, 2, 3], by=operations(), now=timezone.now())
    assert settle(Round.objects.get(pk=round_.pk), now=timezone.now()) == "settled"
    lines = [("inventory", "", D("-5.00")), ("player", "ann\u200d", D("5.00"))]
    before = LedgerLine.objects.count()
    with pytest.raises(FloorRefused) as refused:
        adjustment_post(
            Round.objects.get(pk=round_.pk),
            lines,
            memo="make good",
            by=compliance(),
            now=timezone.now() + timedelta(minutes=1),
        )
    assert refused.value.reasons == ["lines[1].player contains U+200D ZERO WIDTH JOINER"]
    assert LedgerLine.objects.count() == before


def test_a_bank_named_with_a_hidden_code_point_is_refused_before_the_engine():
    """The Pai Gow bank (§ 621a.9(c)) names a player in its payload: the same rule."""
    now = timezone.now().replace(microsecond=0) - timedelta(seconds=5)
    floor = compliant_table("pai_gow", now=now, open_table=True)
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="floor", by=operations_user(), now=now
    )
    play = Play(floor.table, bearer(key))
    first = play.round_open()
    play.wagers(first, {"player": "p3", "kind": "pai_gow", "amount": "25", "position": 3})
    RESULTS["pai_gow"](Round.objects.get(pk=first), random.Random(7), operations_user(), now)
    assert settle(Round.objects.get(pk=first), now=timezone.now()) == "settled"
    second = play.round_open()
    play.wagers(second, {"player": "p3", "kind": "pai_gow", "amount": "25", "position": 3})
    before = written(floor.table)
    body = {"event": "bank", "payload": {"player": "p3\ufeff", "co_bank": False}}
    refused = post_json(play.client, f"{API}/rounds/{second}/events/", body, key=new_key())
    assert error_of(refused, 422, "refused")["reasons"] == [
        "bank.player contains U+FEFF ZERO WIDTH NO-BREAK SPACE"
    ]
    assert written(floor.table) == before


def test_a_refusal_naming_a_code_point_survives_pickling():
    import pickle

    reasons = ["wagers[0].player contains U+202E RIGHT-TO-LEFT OVERRIDE"]
    refusal = FloorRefused("Wagers at CR-01 round 1", reasons)
    again = pickle.loads(pickle.dumps(refusal))
    assert (type(again), again.action, again.reasons, str(again)) == (
        FloorRefused,
        "Wagers at CR-01 round 1",
        reasons,
        "Wagers at CR-01 round 1 refused: wagers[0].player contains U+202E RIGHT-TO-LEFT OVERRIDE",
    )


def test_a_name_that_looks_like_markup_is_taken_and_every_admin_page_escapes_it(
    ops_client,  # noqa: F811
):
    """ "<" and "&" are visible characters: the name is taken, and shown as text."""
    name = "<img src=x onerror=alert(1)>"
    round_ = round_at("sic_bo")
    wagers_place(
        round_, [{"player": name, "kind": "small", "amount": "10"}], by=operations(), now=T0
    )
    result_enter(round_, "throw", [1, 2, 3], by=operations(), now=timezone.now())
    assert settle(Round.objects.get(pk=round_.pk), now=timezone.now()) == "settled"
    escaped = "&lt;img src=x onerror=alert(1)&gt;"
    entry_id = LedgerLine.objects.filter(player=name).first().entry_id
    for path in (
        f"/admin/games/round/{round_.pk}/change/",  # its wagers and ledger lines
        f"/admin/games/ledgerentry/{entry_id}/change/",
    ):
        response = ops_client.get(path)
        html = response.content.decode()
        assert response.status_code == 200 and escaped in html, path
        assert name not in html, path


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (rb'{"a": [1, {"b\u0000": 2}]}', "a name in a[1] contains U+0000 (a control character)"),
        (rb'{"a": {"b": ["x", "\udfff"]}}', "a.b[1] contains U+DFFF (a lone surrogate)"),
        (rb'"\u0000"', "the body contains U+0000 (a control character)"),
    ],
)
def test_the_parser_names_where_an_unstorable_string_is(body, problem):
    from io import BytesIO

    from rest_framework.exceptions import ParseError

    from casino.api.parsers import StrictJSONParser

    with pytest.raises(ParseError) as refused:
        StrictJSONParser().parse(BytesIO(body))
    assert str(refused.value.detail) == f"JSON parse error - {problem}"
    # A visible escape (\u00e9 is "é") parses as before.
    assert StrictJSONParser().parse(BytesIO(rb'{"p": "Zo\u00eb"}')) == {"p": "Zo\u00eb"}
