"""A round waiting on a device past CASINO_DEVICE_WAIT_SECONDS is an alert at its table
(issue 33, part 4): on the floor page (in red, with the ways out), in its polled data
(`device_wait`, read with the round in progress, in no query of its own), and in the admin's
round and table pages. The API's side: tests/devices/test_device_waits_api.py.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.floor_page import floor_snapshot, summary
from gaming.rounds import generator_number_post
from tests.casino.floor_fixtures import T0, compliant_table, operations
from tests.casino.test_floor_page import busy_table, by_number, signed_in
from tests.devices.test_consequences import PAI_GOW_WAGERS, generator_at
from tests.devices.test_device_waits import CLOSED, S, closed_pai_gow
from tests.games.round_fixtures import M, close, opened, place

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.CASINO_DEVICE_WAIT_SECONDS = 30


def test_the_snapshot_shows_the_wait_and_the_alert_once_past_the_setting():
    round_, generator = closed_pai_gow(fallback=True)
    number = round_.table.number
    compliant_table("sic_bo", number="SB-01", open_table=True)
    waiting = by_number(floor_snapshot(now=CLOSED + 29 * S))[number]["device_wait"]
    assert waiting["alert"] is False and waiting["since"] == CLOSED.isoformat()
    tables = by_number(floor_snapshot(now=CLOSED + 30 * S))
    wait = tables[number]["device_wait"]
    assert (wait["round"], wait["kind"], wait["report"], wait["alert"]) == (
        {"id": round_.pk, "number": 1},
        "pai_gow_rng",
        "number",
        True,
    )
    assert wait["device"] == {
        "id": generator.pk,
        "serial": generator.serial_number,
        "status": "active",
        "status_display": "Active",
    }
    assert wait["alert_at"] == (CLOSED + 30 * S).isoformat()
    assert [w["way"] for w in wait["ways_out"]] == ["void", "out_of_order"]
    assert wait["guidance"].startswith("The Pai Gow random number generator ")
    assert tables["SB-01"]["device_wait"] is None
    assert summary({"tables": list(tables.values())})["rounds_waiting"] == 1
    # The number posted, the round stays "no more bets" for the dealer's deal: no wait.
    generator_number_post(round_, 5, by=generator, now=CLOSED + 40 * S)
    tables = by_number(floor_snapshot(now=CLOSED + 41 * S))
    assert tables[number]["round"]["status"] == "closed"
    assert tables[number]["device_wait"] is None


def test_the_wait_adds_no_query():
    for k, (game, number) in enumerate((("sic_bo", "SB-01"), ("high_roll_dice", "HR-01"))):
        busy_table(game, number, k)
    with CaptureQueriesContext(connection) as before:
        floor_snapshot(now=T0 + 8 * H)
    round_, _ = closed_pai_gow(fallback=True)
    with CaptureQueriesContext(connection) as after:
        snapshot = floor_snapshot(now=T0 + 8 * H)
    assert by_number(snapshot)[round_.table.number]["device_wait"]["alert"] is True
    assert len(after) == len(before), [q["sql"] for q in after.captured_queries]


def test_the_floor_page_shows_the_wait_in_red_with_the_ways_out(client: Client):
    """The page runs on the wall clock: "no more bets" a minute ago."""
    now = timezone.now().replace(microsecond=0)
    floor = compliant_table(
        "pai_gow",
        number="PG-01",
        now=now - H,
        options={"starting_position": "rng", "shaker_if_rng_down": True},
        open_table=True,
    )
    generator = generator_at(floor.table)
    round_ = opened(floor.table, now=now - 3 * M)
    place(round_, *PAI_GOW_WAGERS, now=now - 2 * M)
    close(round_, now=now - M)
    signed_in(client, operations())
    html = client.get("/floor/").content.decode()
    assert html.count('class="block device-wait-alert" role="alert"') == 1
    assert "<h2>Waiting on a device</h2>" in html
    assert (
        f"for the starting number from the Pai Gow random number generator "
        f"{generator.serial_number} (active)"
    ) in html
    assert '<li class="way-void">Void the round under § 621a.6(a)(1)' in html
    assert '<li class="way-out_of_order">Mark the generator out of order' in html
    assert "<b>1</b> round waiting on a device" in html
    data = client.get("/floor/data.json").json()
    assert by_number(data)["PG-01"]["device_wait"]["alert"] is True


def test_the_admin_shows_the_wait_on_the_round_and_the_table(client: Client):
    round_, generator = closed_pai_gow(fallback=True)
    signed_in(client, operations())
    for page in (
        f"/admin/games/round/{round_.pk}/change/",
        f"/admin/casino/table/{round_.table_id}/change/",
    ):
        html = client.get(page).content.decode()
        assert (
            f"The Pai Gow random number generator {generator.serial_number} at "
            f"{round_.table.number} has not given the starting number of round 1"
        ) in html, page
        assert "<li>Void the round under § 621a.6(a)(1)" in html, page
        assert 'class="equipment-overdue">waiting on a device since' in html, page  # red
