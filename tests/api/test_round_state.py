"""A round's table through the API: `state` (one shape per game, the schema's `TableState`)
and `next` on every round the API answers (a read, a page, every write), and each table's
summary on the floor (docs/api.md, The table's state).

Rounds are settled as the worker settles them (its service, in process); the same play
runs against a real worker in tests/api/test_generated_client_integration.py.
"""

from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.services.api_tokens import token_issue
from devices.models import Device
from games.models import Round
from games.rules.registry import engine_get
from gaming.devices import fault_report
from tests.api.conftest import API, bearer, integrator_user, operations_user
from tests.api.openapi_check import component_errors, component_fields
from tests.api.test_round_events import Play, ann, craps_table
from tests.casino.floor_fixtures import compliant_table
from tests.games.round_fixtures import settle

pytestmark = pytest.mark.django_db


def state_check(round_: dict[str, Any]) -> dict[str, Any]:
    """The round's state and next, held to the schema's components; the state."""
    assert component_errors("TableState", round_["state"]) == []
    assert component_errors("Next", round_["next"]) == []
    shape = {
        "craps": "CrapsState",
        "sic_bo": "SicBoState",
        "high_roll_dice": "HighRollDiceState",
        "three_dice_football": "ThreeDiceFootballState",
        "pai_gow": "PaiGowState",
    }[round_["state"]["game"]]
    assert set(round_["state"]) == component_fields(shape)  # nothing undeclared either
    return round_["state"]


def settled(round_id: int) -> None:
    assert settle(Round.objects.get(pk=round_id), now=timezone.now()) == "settled"


def test_623a_3_a_1_the_point_made_by_a_come_out_4_4_shows_in_the_round_and_the_next():
    play = craps_table()
    first = play.post("rounds/", {"table": play.table.pk}, status=201)
    state = state_check(first)
    # A fresh table: no point, the first shooter; the line bets are made now, not Come.
    assert (state["point"], state["shooter"], state["come_out"]) == (None, 1, True)
    assert "pass" in first["next"]["wagers"] and "come" not in first["next"]["wagers"]
    assert first["next"]["events"][:2] == ["wagers", "pass_dice"]
    assert "no_more_bets" in first["next"]["events"] and "throw" in first["next"]["events"]

    placed = play.post(f"rounds/{first['id']}/wagers/", {"wagers": [ann("pass", "10")]}, 201)
    (line,) = state_check(placed["round"])["wagers"]
    assert (line["id"], line["kind"], line["amount"], line["number"]) == (
        "1.1",
        "pass",
        "10.00",
        None,
    )
    # § 623a.4(c)(1): a Pass Bet comes down until its point is set.
    assert line["may"]["remove"] is True

    closed = play.post(f"rounds/{first['id']}/no-more-bets/")
    assert closed["next"]["wagers"] == [] and "wagers" not in closed["next"]["events"]
    assert "no_more_bets" not in closed["next"]["events"]

    thrown = play.post(f"rounds/{first['id']}/result/", {"event": "throw", "payload": [4, 4]})
    assert state_check(thrown)["point"] == 8  # in the write's own answer
    assert thrown["next"] == {"events": [], "wagers": [], "voids": []}
    settled(first["id"])

    read = play.client.get(f"{API}/rounds/{first['id']}/").json()
    state = state_check(read)
    assert (state["point"], state["come_out"]) == (8, False)
    (line,) = state["wagers"]
    assert (line["number"], line["working"], line["may"]["remove"], line["may"]["add_odds"]) == (
        8,
        True,
        False,  # § 623a.4(c)(1)
        True,  # § 623a.6(a)
    )

    second = play.post("rounds/", {"table": play.table.pk}, status=201)
    assert state_check(second)["point"] == 8
    kinds = second["next"]["wagers"]
    # § 623a.3(a)(1)-(4): no Pass Bet while the point is 8; Come, Don't Come and odds.
    assert "pass" not in kinds and kinds[:3] == ["come", "dont_come", "odds"]

    floor = play.client.get(f"{API}/floor/").json()
    (table,) = [t for t in floor["tables"] if t["id"] == play.table.pk]
    assert table["state"] == {"game": "craps", "point": 8, "shooter": 1}
    assert component_errors("TableSummary", table["state"]) == []


def test_the_floor_reads_the_summary_from_the_cache_and_a_settled_round_from_its_row():
    play = craps_table()
    first = play.post("rounds/", {"table": play.table.pk}, status=201)["id"]
    play.throw(first, [2, 2])  # the point is 4
    cache.clear()  # the round's entry gone: its row's state answers
    floor = play.client.get(f"{API}/floor/").json()
    (table,) = [t for t in floor["tables"] if t["id"] == play.table.pk]
    assert table["state"] == {"game": "craps", "point": 4, "shooter": 1}


def test_a_page_of_rounds_reads_every_state_in_a_fixed_number_of_queries():
    play = craps_table()
    for dice in ([2, 2], [1, 3], [3, 3]):
        round_id = play.post("rounds/", {"table": play.table.pk}, status=201)["id"]
        play.throw(round_id, dice)
    play.post("rounds/", {"table": play.table.pk}, status=201)  # in progress

    def page() -> tuple[list[dict[str, Any]], int]:
        cache.clear()  # nothing from the cache: the rows and the events answer
        with CaptureQueriesContext(connection) as queries:
            answer = play.client.get(f"{API}/rounds/", {"table": play.table.pk})
        assert answer.status_code == 200, answer.content[:500]
        return answer.json()["results"], len(queries.captured_queries)

    rounds, spent = page()
    # Newest first: 2-2 sets the point 4, 1-3 makes it (a come out next), 3-3 sets the
    # point 6, which the round in progress carries (§ 623a.3(a)(1)).
    assert [state_check(r)["point"] for r in rounds] == [6, 6, None, 4]
    play.throw(rounds[0]["id"], [4, 2])  # 6: the point made
    for dice in ([1, 1], [6, 6]):
        round_id = play.post("rounds/", {"table": play.table.pk}, status=201)["id"]
        play.throw(round_id, dice)
    play.post("rounds/", {"table": play.table.pk}, status=201)
    longer, spent_longer = page()
    assert len(longer) == 7
    # One round in progress either way (replayed: the cache is empty): no query a round.
    assert spent_longer == spent


def test_high_roll_dice_state_carries_its_extra_roll_devices():
    now = timezone.now().replace(microsecond=0) - timedelta(seconds=5)
    floor = compliant_table("high_roll_dice", now=now, open_table=True)
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name="hrd", by=operations_user(), now=now
    )
    play = Play(floor.table, bearer(key))
    opened = play.post("rounds/", {"table": play.table.pk}, status=201)
    state = state_check(opened)
    devices = state["devices"]
    assert devices["lock_out"]["status"] == "active"
    assert [d["position"] for d in devices["extra_roll"]] == list(range(1, floor.table.seats + 1))
    assert "extra_roll" in opened["next"]["wagers"]


@pytest.mark.parametrize(
    ("game", "steps"),
    [
        ("sic_bo", [("wagers", [{"id": "1", "player": "p", "kind": "small", "amount": "5"}]),
                    ("throw", [1, 2, 3])]),
        ("three_dice_football", [("wagers", [{"id": "1", "player": "p", "kind": "touchdown",
                                              "amount": "5"}]),
                                 ("throw", {"green": [3, 4], "red": 2})]),
        ("pai_gow", [("wagers", [{"id": "1", "player": "p", "kind": "pai_gow", "amount": "5",
                                  "position": 1}]),
                     ("deal", {"dealer": ["1-2", "2-4", "3-3", "6-6"],
                               "positions": {"1": ["1-1", "4-4", "5-6", "2-5"]}}),
                     ("set", {"1": {"high": ["1-1", "4-4"], "low": ["5-6", "2-5"]}})]),
        ("craps", [("wagers", [{"id": "1", "player": "p", "kind": "dont_pass", "amount": "5"},
                                {"id": "2", "player": "p", "kind": "place:6", "amount": "6"}]),
                   ("throw", [5, 5]),
                   ("wagers", [{"id": "3", "player": "p", "kind": "odds", "amount": "5",
                                "on": "1"}]),
                   ("power_odds", {"hard:6": "18 to 1"})]),
        ("high_roll_dice", [("wagers", [{"id": "1", "player": "p", "kind": "pip:1", "amount": "5"},
                                        {"id": "2", "player": "p", "kind": "like_kind:6",
                                         "amount": "5"},
                                        {"id": "3", "player": "p", "kind": "extra_roll",
                                         "amount": "5"}]),
                            ("throw", [1, 1, 2, 3, 4, 5, 6, 2, 3, 4])]),
    ],
)  # fmt: skip
def test_every_games_view_is_its_shape_in_the_schema(game: str, steps: list) -> None:
    engine = engine_get(game)
    options = engine.parse_options({})
    state = engine.new_state(options)
    views = []
    for event, payload in steps:
        state, outcome = engine.step(options, state, event, payload)
        assert not outcome.rejected, outcome.rejected
        views.append(engine.state_view(options, state))
    for view in views:
        if game == "high_roll_dice":
            view["devices"] = {"extra_roll": [], "lock_out": None}  # gaming adds them
        assert component_errors("TableState", view) == [], view
        assert component_errors("TableSummary", engine.state_summary(options, state)) == []


def table_play(game: str, **kwargs: Any) -> Play:
    """A compliant, open table of `game` a minute before the wall clock, with an integrator's
    token for its holder."""
    now = timezone.now().replace(microsecond=0) - timedelta(minutes=1)
    floor = compliant_table(game, now=now, open_table=True, **kwargs)
    _, key = token_issue(
        user=integrator_user(), holder=floor.holder, name=game, by=operations_user(), now=now
    )
    return Play(floor.table, bearer(key))


def sic_bo_state(play: Play, round_id: int) -> tuple[bool, list[int] | None]:
    state = state_check(play.client.get(f"{API}/rounds/{round_id}/").json())
    return state["thrown"], state["dice"]


def test_625a_5_f_a_sic_bo_round_shows_only_its_own_throw():
    """58 Pa. Code § 625a.5(d), (f): the throw's winning combinations are lit until every
    wager is settled, then cleared: that is the end of the round. So a settled round shows
    its dice; the next round, open or after "no more bets", shows none until its own throw,
    and so does the floor's summary of it; with no round in progress the floor shows the
    last round's dice."""
    play = table_play("sic_bo")
    first = play.round_open()
    play.wagers(first, ann("small", "10"))
    play.throw(first, [1, 2, 3])
    assert sic_bo_state(play, first) == (True, [1, 2, 3])

    second = play.post("rounds/", {"table": play.table.pk}, status=201)
    assert (second["state"]["thrown"], second["state"]["dice"]) == (False, None)
    floor = play.client.get(f"{API}/floor/").json()
    (table,) = [t for t in floor["tables"] if t["id"] == play.table.pk]
    assert table["state"] == {"game": "sic_bo", "thrown": False, "dice": None}
    play.post(f"rounds/{second['id']}/no-more-bets/")
    assert sic_bo_state(play, second["id"]) == (False, None)
    assert sic_bo_state(play, first) == (True, [1, 2, 3])  # its own throw, always
    play.post(f"rounds/{second['id']}/result/", {"event": "throw", "payload": [4, 4, 4]})
    assert settled(second["id"]) is None
    assert sic_bo_state(play, second["id"]) == (True, [4, 4, 4])
    floor = play.client.get(f"{API}/floor/").json()
    (table,) = [t for t in floor["tables"] if t["id"] == play.table.pk]
    assert table["state"] == {"game": "sic_bo", "thrown": True, "dice": [4, 4, 4]}


def test_675a_1_c_next_leaves_out_the_extra_roll_the_devices_refuse():
    """58 Pa. Code § 675a.1(c)(2): with the Extra Roll lock-out control down, `next.wagers`
    has no `extra_roll`, and a purchase is refused; the other kinds are still offered."""
    play = table_play("high_roll_dice")
    lockout = Device.objects.get(table=play.table, kind="extra_roll_lockout")
    fault_report(lockout, "relay stuck", now=timezone.now())
    opened = play.post("rounds/", {"table": play.table.pk}, status=201)
    assert "extra_roll" not in opened["next"]["wagers"] and "pip:1" in opened["next"]["wagers"]
    play.wagers(opened["id"], ann("pip:5", "10", position=1), ann("like_kind:4", "10", position=1))
    refused = play.post(
        f"rounds/{opened['id']}/wagers/",
        {"wagers": [ann("extra_roll", "10", position=1)]},
        status=422,
    )
    assert "lock-out control" in refused["reasons"][0]


def test_a_page_of_rounds_waiting_on_devices_costs_the_same_queries_as_one():
    """A page's `device_wait`, `next` and `state` are read for the page at once: its
    tables' devices and the events that end a wait in one query each, whatever the number
    of rounds waiting (each on its Pai Gow generator, § 621a.6(a)(1))."""
    plays = [
        table_play("pai_gow", number=f"PG-0{n}", options={"starting_position": "rng"})
        for n in (1, 2, 3)
    ]
    ids = []
    for play in plays:
        round_id = play.round_open()
        play.wagers(round_id, ann("pai_gow", "10", position=1))
        ids.append(round_id)
    client = plays[0].client

    def page() -> tuple[list[dict[str, Any]], int]:
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"{API}/rounds/")
        assert answer.status_code == 200, answer.content[:500]
        return answer.json()["results"], len(queries.captured_queries)

    plays[0].post(f"rounds/{ids[0]}/no-more-bets/")
    rounds, one = page()
    assert [r["device_wait"] is not None for r in rounds] == [False, False, True]
    for play, round_id in zip(plays[1:], ids[1:], strict=True):
        play.post(f"rounds/{round_id}/no-more-bets/")
    rounds, three = page()
    assert [r["device_wait"]["kind"] for r in rounds] == ["pai_gow_rng"] * 3
    assert all(r["next"]["voids"] == ["621a.6(a)(1)"] for r in rounds)
    assert three == one
