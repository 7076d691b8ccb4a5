"""GET /api/v1/equipment-schedule/ (issue 35, item 1): the admin's schedule as a paged
list, a token seeing its certificate holder's tables only. The floor is
tests/api/conftest.py's: holder A's SB-01, SB-02 and SB-03 and holder B's SB-01 each have
three dice in play since the floor's moment (24 hours, § 625a.2(b)); SB-04 has none."""

from datetime import timedelta

import pytest
from django.utils import timezone

from casino.models import SetInPlay
from tests.api.conftest import API, bearer, session

pytestmark = pytest.mark.django_db

URL = f"{API}/equipment-schedule/"


def test_staff_read_every_holders_sets_in_the_schedule_order(api_floor):
    f = api_floor
    body = session(f.compliance).get(URL).json()

    assert body["count"] == 4
    assert body["next"] is None and body["previous"] is None
    rows = body["results"]
    # All in date and due together: by table number, then the table's id (A's before B's).
    assert [(r["table_number"], r["holder"]) for r in rows] == [
        ("SB-01", f.a.holder.pk),
        ("SB-01", f.b.holder.pk),
        ("SB-02", f.a.holder.pk),
        ("SB-03", f.a.holder.pk),
    ]
    first = rows[0]
    in_play = f.a.in_play
    assert first == {
        "set_in_play": in_play.pk,
        "table": f.a.play.pk,
        "table_number": "SB-01",
        "table_status": "open",
        "holder": f.a.holder.pk,
        "equipment_set": in_play.equipment_set_id,
        "identifier": "SB-01-three_dice-1",
        "composition": "three_dice",
        "kind": "three dice",
        "rule": "24 hours",
        "section": "58 Pa. Code § 625a.2(b)",
        "schedule_state": "in_date",
        "due_at": first["due_at"],
        "warn_from": first["warn_from"],
        "put_in_play_at": first["put_in_play_at"],
        "put_in_play_by": "olive_ops",
    }
    put_in = timezone.datetime.fromisoformat(first["put_in_play_at"])
    assert put_in == f.at
    assert timezone.datetime.fromisoformat(first["due_at"]) == put_in + timedelta(hours=24)
    assert timezone.datetime.fromisoformat(first["warn_from"]) == put_in + timedelta(hours=22)


def test_a_token_sees_its_holders_tables_only(api_floor):
    f = api_floor
    body = bearer(f.a.key).get(URL).json()
    assert body["count"] == 3
    assert {r["holder"] for r in body["results"]} == {f.a.holder.pk}
    assert [r["table_number"] for r in body["results"]] == ["SB-01", "SB-02", "SB-03"]
    b = bearer(f.b.key).get(URL).json()
    assert [(r["table_number"], r["holder"]) for r in b["results"]] == [("SB-01", f.b.holder.pk)]


def test_an_overdue_set_comes_first(api_floor):
    f = api_floor
    idle = SetInPlay.objects.get(table=f.idle, removed_at__isnull=True)
    long_ago = timezone.now() - timedelta(hours=30)
    SetInPlay.objects.filter(pk=idle.pk).update(
        put_in_play_at=long_ago,
        due_at=long_ago + timedelta(hours=24),
        warn_from=long_ago + timedelta(hours=22),
    )
    rows = bearer(f.a.key).get(URL).json()["results"]
    assert [(r["table_number"], r["schedule_state"]) for r in rows] == [
        ("SB-02", "overdue"),
        ("SB-01", "in_date"),
        ("SB-03", "in_date"),
    ]


def test_the_schedule_is_paged_like_the_other_lists(api_floor):
    f = api_floor
    client = session(f.regulator)
    first = client.get(URL, {"page_size": 3}).json()
    assert first["count"] == 4 and len(first["results"]) == 3
    assert first["next"].endswith("page=2&page_size=3")
    second = client.get(first["next"]).json()
    assert [r["table_number"] for r in second["results"]] == ["SB-03"]
    assert client.get(URL, {"page": 3, "page_size": 3}).status_code == 404
    assert client.get(URL, {"page_size": "many"}).status_code == 400
