"""The live floor page (issue 9, part 4): the snapshot it shows, the colours of the
equipment schedule worked out by hand, who may see it, and its queries.

The snapshot takes `now`, so the schedule is checked at fixed moments after T0 (a Monday
08:00 EST, tests/casino/floor_fixtures.py). The pages use the wall clock; their tests
check only who gets in and that the page carries the snapshot.
"""

import json
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from casino.floor_page import floor_snapshot, result_text
from casino.models import CertificateHolder, Table
from devices.models import Device
from games.models import Round
from gaming.devices import device_out_of_order
from gaming.rounds import round_void
from tests.casino.floor_fixtures import T0, compliant_table, operations, staff
from tests.devices.device_fixtures import heard
from tests.games.round_fixtures import M, opened, place, result, settle, wager

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)
S = timedelta(seconds=1)


def by_number(snapshot: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {table["number"]: table for table in snapshot["tables"]}


@pytest.fixture
def floor() -> dict[str, Any]:
    """SB-01: open at T0, round 1 settled on 3-4-5, round 2 taking wagers; its Sic Bo
    illumination device last heard at T0. CR-01: opened 30 hours before T0, on dice that
    were due out 6 hours before T0."""
    sic_bo = compliant_table("sic_bo", number="SB-01", open_table=True).table
    first = opened(sic_bo, now=T0 + M)
    place(first, wager("ann", "big", "10"), now=T0 + 2 * M)
    result(first, "throw", [3, 4, 5], now=T0 + 4 * M)
    settle(first, now=T0 + 5 * M)
    second = opened(sic_bo, now=T0 + 10 * M)
    place(second, wager("ann", "small", "10"), wager("bob", "total:9", "25"), now=T0 + 11 * M)
    craps = compliant_table("craps", number="CR-01", now=T0 - 30 * H, open_table=True).table
    return {"sic_bo": sic_bo, "first": first, "second": second, "craps": craps}


def test_the_snapshot_shows_each_table_its_round_equipment_devices_and_results(floor):
    now = T0 + H
    snapshot = floor_snapshot(now=now)
    json.dumps(snapshot)  # JSON-ready as it is
    assert snapshot["at"] == now.isoformat()
    tables = by_number(snapshot)
    assert list(tables) == ["CR-01", "SB-01"]
    sic_bo = tables["SB-01"]
    assert sic_bo["id"] == floor["sic_bo"].pk
    assert sic_bo["holder"] == "Keystone Test Casino"
    assert sic_bo["game"] == {"key": "sic_bo", "name": "Sic Bo"}
    assert sic_bo["variant"] == {"key": "standard", "name": "Sic Bo"}
    assert (sic_bo["status"], sic_bo["status_display"]) == ("open", "Open")
    assert sic_bo["status_changed_at"] == T0.isoformat()
    assert sic_bo["admin_url"] == f"/admin/casino/table/{floor['sic_bo'].pk}/change/"

    second = floor["second"]
    assert sic_bo["round"] == {
        "id": second.pk,
        "number": 2,
        "status": "open",
        "status_display": "Wagering open",
        "opened_at": (T0 + 10 * M).isoformat(),
        "wagers": 2,
        "wagered": "35.00",
        "admin_url": f"/admin/games/round/{second.pk}/change/",
    }
    # In at T0 for 24 hours (§ 625a.2(b)): in date an hour later.
    assert sic_bo["equipment"] == [
        {
            "composition": "three dice",
            "set": "SB-01-three_dice-1",
            "put_in_play_at": T0.isoformat(),
            "due_at": (T0 + 24 * H).isoformat(),
            "warn_from": (T0 + 22 * H).isoformat(),
            "limit": "24 hours (58 Pa. Code § 625a.2(b))",
            "due": "ok",
        }
    ]
    assert sic_bo["missing_sets"] == []
    # Heard from at T0, an hour of silence: 6 s are allowed (every 2 s, 3 missed).
    [device] = sic_bo["devices"]
    shown = Device.objects.get(table=floor["sic_bo"])
    assert device == {
        "id": shown.pk,
        "kind": "Sic Bo illumination device",
        "serial": shown.serial_number,
        "status": "active",
        "status_display": "Active",
        "position": None,
        "last_seen_at": T0.isoformat(),
        "seconds_since_seen": 3600,
        "health": "stale",
        "admin_url": f"/admin/devices/device/{shown.pk}/change/",
    }
    first = floor["first"]
    assert sic_bo["last_results"] == [
        {
            "id": first.pk,
            "number": 1,
            "result": "3-4-5",
            "status": "settled",
            "status_display": "Settled",
            "at": (T0 + 4 * M).isoformat(),
            "admin_url": f"/admin/games/round/{first.pk}/change/",
        }
    ]

    craps = tables["CR-01"]
    assert craps["round"] is None and craps["last_results"] == [] and craps["devices"] == []
    [dice] = craps["equipment"]
    assert dice["due_at"] == (T0 - 6 * H).isoformat()
    assert dice["limit"] == "24 hours (58 Pa. Code § 623a.7(d))"
    assert dice["due"] == "overdue"


def test_the_device_is_ok_while_heard_from_and_down_out_of_order(floor):
    device = Device.objects.get(table=floor["sic_bo"])
    heard(device, now=T0 + H)
    [shown] = by_number(floor_snapshot(now=T0 + H + 6 * S))["SB-01"]["devices"]
    assert (shown["health"], shown["seconds_since_seen"]) == ("ok", 6)  # 6 s: still allowed
    [shown] = by_number(floor_snapshot(now=T0 + H + 7 * S))["SB-01"]["devices"]
    assert shown["health"] == "stale"  # before the watch has even run
    device_out_of_order(device, "lamp broken", by=operations(), now=T0 + 2 * H)
    [shown] = by_number(floor_snapshot(now=T0 + 2 * H))["SB-01"]["devices"]
    assert (shown["status"], shown["health"]) == ("out_of_order", "down")


@pytest.mark.parametrize(
    "after, due",
    [
        (timedelta(0), "ok"),
        (22 * H - S, "ok"),
        (22 * H, "soon"),  # 24 hours less the 2-hour warning: due soon from here
        (24 * H, "soon"),  # in date up to and including the moment the limit runs out
        (24 * H + S, "overdue"),
    ],
)
def test_dice_24_hours_ok_soon_overdue_by_hand(after, due):
    """Dice in at T0 may stay 24 hours (§ 675a.3(b)(1)); the floor is warned 2 hours
    before (casino/rules/equipment.py)."""
    compliant_table("high_roll_dice", number="HR-01")
    [dice] = by_number(floor_snapshot(now=T0 + after))["HR-01"]["equipment"]
    assert dice["limit"] == "24 hours (58 Pa. Code § 675a.3(b)(1))"
    assert dice["due"] == due


@pytest.mark.parametrize(
    "after, tiles_due, dice_due",
    [
        (11 * H - S, "ok", "ok"),
        (11 * H, "soon", "ok"),  # 12 hours less the 1-hour warning (§ 621a.3(b))
        (12 * H + S, "overdue", "ok"),
        (22 * H, "overdue", "soon"),
    ],
)
def test_pai_gow_tiles_12_hours_and_its_dice_24(after, tiles_due, dice_due):
    compliant_table("pai_gow", number="PG-01")
    equipment = by_number(floor_snapshot(now=T0 + after))["PG-01"]["equipment"]
    states = {row["composition"]: (row["due"], row["limit"]) for row in equipment}
    assert states == {
        "32 Pai Gow tiles": (tiles_due, "12 hours (58 Pa. Code § 621a.3(b))"),
        "three dice": (dice_due, "24 hours (58 Pa. Code § 621a.2(d)(1))"),
    }


def test_a_table_without_its_sets_says_which_are_missing():
    compliant_table("pai_gow", number="PG-01", with_sets=False)
    table = by_number(floor_snapshot(now=T0))["PG-01"]
    assert table["equipment"] == []
    assert table["missing_sets"] == ["three dice", "32 Pai Gow tiles"]


def test_a_voided_round_is_shown_voided():
    """§ 621a.10(c): tiles dealt to the wrong positions void the round."""
    table = compliant_table("pai_gow", number="PG-01", open_table=True).table
    round_ = opened(table)
    place(round_, wager("ann", "pai_gow", "10", position=1))
    hands = {
        "dealer": ["1-4", "2-3", "2-5", "3-4"],
        "positions": {"1": ["6-6", "6-6", "1-1", "1-1"]},
    }
    result(round_, "deal", hands)
    round_void(round_, "621a.10(c)", by=operations(), now=T0 + 4 * M)
    settle(round_)
    [shown] = by_number(floor_snapshot(now=T0 + H))["PG-01"]["last_results"]
    assert (shown["status"], shown["status_display"]) == ("voided", "Voided")
    assert shown["result"] == "void (§ 621a.10(c)): every wager returned"


def test_only_the_last_five_results_newest_first(floor):
    sic_bo = floor["sic_bo"]
    result(floor["second"], "throw", [1, 1, 2], now=T0 + 12 * M)
    settle(floor["second"], now=T0 + 13 * M)
    for n in range(3, 8):
        round_ = opened(sic_bo, now=T0 + n * 10 * M)
        result(round_, "throw", [n - 1, n - 1, n - 1], now=T0 + (n * 10 + 1) * M)
        if n < 7:
            settle(round_, now=T0 + (n * 10 + 2) * M)
    shown = by_number(floor_snapshot(now=T0 + 2 * H))["SB-01"]["last_results"]
    assert [r["number"] for r in shown] == [7, 6, 5, 4, 3]
    assert shown[0]["result"] == "6-6-6"
    # The worker has not settled round 7 yet: a result, settling; no round in progress.
    assert [r["status"] for r in shown] == ["result_entered"] + ["settled"] * 4
    assert shown[0]["status_display"] == "Result entered, settling"


def _events(*pairs: tuple[str, object]) -> list[SimpleNamespace]:
    return [SimpleNamespace(event=event, payload=payload) for event, payload in pairs]


@pytest.mark.parametrize(
    "game, events, text",
    [
        ("sic_bo", [("throw", [3, 4, 5])], "3-4-5"),
        ("sic_bo", [("no_roll", True)], "no roll: every wager returned"),
        ("craps", [("no_roll", True), ("throw", [3, 4])], "3-4 (7)"),
        ("three_dice_football", [("throw", {"green": [2, 5], "red": 6})], "green 2-5, red 6"),
        (
            "high_roll_dice",
            [("throw", [1, 1, 2, 2, 3, 3, 4, 4, 5, 6]), ("extra_roll", [6, 6])],
            "1-1-2-2-3-3-4-4-5-6, Extra Roll 6-6",
        ),
        # § 621a.6(c): the dealer counts as one, then positions 1 to 6 and the Dead Hand;
        # "9 is the dealer, 15 the sixth position" are the text's own examples.
        (
            "pai_gow",
            [("deal", {"stacks": [], "dice": [2, 3, 4]})],
            "dice 2-3-4: starts at the dealer",
        ),
        (
            "pai_gow",
            [("deal", {"stacks": [], "dice": [4, 5, 6]})],
            "dice 4-5-6: starts at position 6",
        ),
        (
            "pai_gow",
            [("deal", {"stacks": [], "dice": [3, 4, 5]})],
            "dice 3-4-5: starts at position 3",
        ),
        ("pai_gow", [("deal", {"stacks": [], "rng": 8})], "generator 8: starts at the Dead Hand"),
        (
            "pai_gow",
            [("bank", {"player": "p2"}), ("deal", {"stacks": [], "dice": [1, 1, 1]})],
            "dice 1-1-1: count 3 from the bank",
        ),
        ("pai_gow", [("deal", {"dealer": [], "positions": {}})], "hands dealt as given"),
        (
            "sic_bo",
            [("shaker_malfunction", True)],
            "void (§ 625a.7(c)): every wager returned",
        ),
    ],
)
def test_results_read_as_the_floor_says_them(game, events, text):
    assert result_text(game, _events(*events))[0] == text


# -- Who sees it ------------------------------------------------------------------------


def signed_in(client: Client, user: Any) -> Any:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return user


def test_anonymous_is_sent_to_the_admin_login(client: Client):
    response = client.get("/floor/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/floor/"
    response = client.get("/floor/data.json")
    assert response.status_code == 401
    assert "Sign in" in response.json()["detail"]


def test_the_root_goes_to_the_floor(client: Client):
    response = client.get("/")
    assert (response.status_code, response["Location"]) == (302, "/floor/")


def test_staff_without_view_table_get_403(client: Client):
    signed_in(client, staff("nobody", None))
    assert client.get("/floor/").status_code == 403
    response = client.get("/floor/data.json")
    assert response.status_code == 403
    assert "casino.view_table" in response.json()["detail"]


def test_a_user_who_is_not_staff_is_not_let_in(client: Client):
    client.force_login(staff("not_staff", "operations"))  # in the group, not staff
    assert client.get("/floor/")["Location"] == "/admin/login/?next=/floor/"
    assert client.get("/floor/data.json").status_code == 403


@pytest.mark.parametrize("group", ["operations", "compliance"])
def test_both_roles_see_the_page_and_its_data(client: Client, group: str, floor):
    signed_in(client, staff(f"someone_{group}", group))
    response = client.get("/floor/")
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
    html = response.content.decode()
    for shown in (
        "SB-01",
        "CR-01",
        "Sic Bo",
        "Craps",
        "Round 2",
        "Wagering open",
        "$35.00",
        'class="set due-overdue"',
        "overdue",
        'class="device health-stale"',
        "3-4-5",
        reverse("floor-data"),
        "/static/floor/floor.js",
        "/static/floor/floor.css",
        f'href="{reverse("admin:games_round_changelist")}"',
        f'href="{reverse("admin:devices_device_changelist")}"',
        f'href="/admin/casino/table/{floor["sic_bo"].pk}/change/"',
    ):
        assert shown in html, shown
    data = client.get("/floor/data.json")
    assert data.status_code == 200 and "no-cache" in data["Cache-Control"]
    assert sorted(t["number"] for t in data.json()["tables"]) == ["CR-01", "SB-01"]


def test_the_page_escapes_what_it_shows(client: Client):
    signed_in(client, operations())
    holder = CertificateHolder.objects.create(name="<script>alert(1)</script> Casino")
    Table.objects.create(holder=holder, number="<b>X</b>", game="craps", variant="craps")
    html = client.get("/floor/").content.decode()
    assert "<script>alert(1)" not in html and "<b>X</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Casino" in html
    assert "&lt;b&gt;X&lt;/b&gt;" in html


# -- Its queries ------------------------------------------------------------------------


def busy_table(game: str, number: str, k: int) -> None:
    """An open table with a settled round, a round taking wagers, sets and devices."""
    table = compliant_table(game, number=number, open_table=True).table
    base = T0 + k * 20 * M
    first = opened(table, now=base + M)
    if game == "sic_bo":
        place(first, wager("ann", "big", "10"), now=base + 2 * M)
        result(first, "throw", [1, 2, 3], now=base + 3 * M)
    else:  # high roll dice
        place(first, wager("ann", "pip:2", "10"), now=base + 2 * M)
        result(first, "throw", [1, 2, 3, 4, 5, 6, 1, 2, 3, 4], now=base + 3 * M)
    settle(first, now=base + 4 * M)
    second = opened(table, now=base + 5 * M)
    place(second, wager("bob", "big" if game == "sic_bo" else "pip:3", "5"), now=base + 6 * M)


def test_the_queries_do_not_grow_with_the_tables(django_capture_on_commit_callbacks):
    # The rounds' states reach the shared cache on commit, as on a live floor: each table's
    # summary (`state`) is read from it, no query of its own.
    with django_capture_on_commit_callbacks(execute=True):
        for k, (game, number) in enumerate((("sic_bo", "SB-01"), ("high_roll_dice", "HR-01"))):
            busy_table(game, number, k)
    with CaptureQueriesContext(connection) as two:
        small = floor_snapshot(now=T0 + 8 * H)
    with django_capture_on_commit_callbacks(execute=True):
        for k in range(2, 10):
            game = "sic_bo" if k % 2 else "high_roll_dice"
            busy_table(game, f"{'SB' if k % 2 else 'HR'}-{k:02d}", k)
    with CaptureQueriesContext(connection) as ten:
        large = floor_snapshot(now=T0 + 8 * H)
    assert len(small["tables"]) == 2 and len(large["tables"]) == 10
    assert all(t["round"] and t["last_results"] and t["devices"] for t in large["tables"])
    assert all(t["state"]["game"] == t["game"]["key"] for t in large["tables"])
    assert len(ten) == len(two), [q["sql"] for q in ten.captured_queries]
    assert len(two) <= 6
    some = Table.objects.filter(number__in=["SB-03", "HR-04"])
    with CaptureQueriesContext(connection) as chosen:
        picked = floor_snapshot(now=T0 + 8 * H, tables=some)
    assert sorted(t["number"] for t in picked["tables"]) == ["HR-04", "SB-03"]
    assert len(chosen) == len(two)
    # The cache lost (a flushed Redis): the ten rounds in progress are replayed from their
    # events, all in two queries (the events, the rounds they continue), to the same states.
    cache.clear()
    with CaptureQueriesContext(connection) as lost:
        replayed = floor_snapshot(now=T0 + 8 * H)
    assert [t["state"] for t in replayed["tables"]] == [t["state"] for t in large["tables"]]
    assert len(lost) == len(ten) + 2


def test_a_live_store_is_read_once_per_kind(floor, monkeypatch):
    """With Redis the live time is the store's, a flush ahead of the row's copy."""
    from devices import store as heartbeat_store

    device = Device.objects.get(table=floor["sic_bo"])
    asked = []

    class Live:
        def seen(self, kind: str) -> dict[int, float]:
            asked.append(kind)
            return {device.pk: (T0 + H).timestamp()}

    monkeypatch.setattr(heartbeat_store, "store", lambda: Live())
    [shown] = by_number(floor_snapshot(now=T0 + H + 2 * S))["SB-01"]["devices"]
    assert (shown["seconds_since_seen"], shown["health"]) == (2, "ok")
    assert asked == ["illumination_device"]

    class Down:
        def seen(self, kind: str) -> dict[int, float]:
            raise heartbeat_store.StoreUnavailable("connection refused")

    monkeypatch.setattr(heartbeat_store, "store", lambda: Down())
    [shown] = by_number(floor_snapshot(now=T0 + H))["SB-01"]["devices"]
    assert shown["last_seen_at"] == T0.isoformat()  # the row's copy


def test_rounds_in_progress_only(floor):
    """A settled round is a result, never the round in progress."""
    result(floor["second"], "throw", [6, 6, 6], now=T0 + 12 * M)
    settle(floor["second"], now=T0 + 13 * M)
    assert Round.objects.filter(table=floor["sic_bo"], status__in=Round.IN_PROGRESS).count() == 0
    table = by_number(floor_snapshot(now=T0 + H))["SB-01"]
    assert table["round"] is None
    assert [r["result"] for r in table["last_results"]] == ["6-6-6", "3-4-5"]


def test_a_sic_bo_tables_variant_displays_as_sic_bo():
    # Variant keys repeat across games ("standard"): the name is the table's game's own.
    table = compliant_table("sic_bo", number="SB-01", with_devices=False).table
    assert table.get_variant_display() == "Sic Bo"
