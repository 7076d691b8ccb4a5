"""Hold against theory and dice fairness where people see them (issue 23): the admin's
table, set and floor pages with their charts and CSV, and the floor page's badges. The
figures are worked out by hand in tests/games/test_hold.py and test_fairness.py; here
the same rounds, and what each page shows of them."""

import csv
import io
import xml.etree.ElementTree as ET
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from casino import floor_page
from casino.models import SetInPlay, StatisticsThresholds, Table
from tests.casino.floor_fixtures import T0, staff
from tests.games.round_fixtures import M, close, open_table, opened, place, result, settle, wager
from tests.games.test_fairness import hand_built

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 2)  # T0 is 08:00 that day in Pennsylvania
SVG = "{http://www.w3.org/2000/svg}"


def login(client: Client, group: str | None, name: str = "rita_regulator") -> Any:
    user = staff(name, group)
    user.is_staff = True
    user.save()
    client.force_login(user)
    return user


@pytest.fixture
def out_of_band() -> Table:
    """Sic Bo: a $10 Small lost three times (house +30; theory 30/36, sd 17.31, z 1.68),
    with the holder's hold threshold at 1.5: out of band. Its set then reads 60 throws
    more with too many 6s: 63 throws, 189 dice, 31.5 expected a face, counted
    25 25 25 25 31 58: chi-square (4 x 6.5^2 + 0.5^2 + 26.5^2) / 31.5 = 27.67 on 5 df,
    p 4.229e-05: loaded."""
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    for n in range(3):
        round_ = opened(table, now=T0 + 10 * n * M + M)
        place(round_, wager("ann", "small", "10"), now=T0 + 10 * n * M + 2 * M)
        close(round_, now=T0 + 10 * n * M + 3 * M)
        result(round_, "throw", [5, 5, 6], now=T0 + 10 * n * M + 4 * M)
        settle(round_, now=T0 + 10 * n * M + 5 * M)
    StatisticsThresholds.objects.create(holder=table.holder, hold_z_threshold=Decimal("1.5"))
    faces = [1, 2, 3, 4, 5] * 25 + [6] * 55
    throws = [faces[i : i + 3] for i in range(0, 180, 3)]
    hand_built(table, T0 + timedelta(hours=1), *(("throw", t) for t in throws))
    return table


def the_set(table: Table) -> Any:
    return SetInPlay.objects.get(table=table, removed_at__isnull=True).equipment_set


def test_the_regulator_reads_a_tables_hold_and_its_chart(client: Client, out_of_band: Table):
    login(client, "regulator")
    page = client.get(f"/admin/casino/table/{out_of_band.pk}/hold/?day={DAY}")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Out of band:" in text and "1.68 standard deviations" in text
    assert 'id="hold-chart"' in text
    # The day (3 rounds, $30 drop, $30 won), its three shifts and its Rules Submission.
    rows = page.context["shifts"]
    assert [(h.period, h.rounds) for h in rows] == [
        ("2026-03-02 shift 1", 3),
        ("2026-03-02 shift 2", 0),
        ("2026-03-02 shift 3", 0),
    ]
    hold = page.context["hold"]
    assert (hold.drop, hold.win, hold.z_score, hold.alert) == (
        Decimal("30.00"),
        Decimal("30.00"),
        Decimal("1.68"),
        True,
    )
    chart = client.get(f"/admin/casino/table/{out_of_band.pk}/hold/?day={DAY}&format=svg")
    assert chart["Content-Type"] == "image/svg+xml; charset=utf-8"
    root = ET.fromstring(chart.content)
    actual = root.find(f".//{SVG}polyline[@class='actual']").get("points").split()
    assert len(actual) == 4  # the axis's start, then one point a round
    # The rounds were decided between 08:04 and 08:25: the axis is 08:00 to 09:00, in the
    # gaming day from 06:00 to 06:00.
    ticks = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "x-tick"]
    assert ticks == ["08:00", "08:15", "08:30", "08:45", "09:00"]
    strip = [t.text for t in root.iter(f"{SVG}text") if t.get("class", "").startswith("day-")]
    assert strip == [
        "gaming day Mon 2 Mar 06:00",
        "drawn above: 08:00 to 09:00",
        "to Tue 3 Mar 06:00",
    ]
    assert root.find(f"{SVG}title").text == (
        f"{out_of_band.number}: actual against theoretical win, gaming day 2026-03-02"
    )


def test_a_day_is_picked_and_a_bad_one_refused(client: Client, out_of_band: Table):
    login(client, "operations", "olive_ops")
    before = client.get(f"/admin/casino/table/{out_of_band.pk}/hold/?day=2026-03-01")
    assert before.status_code == 200
    assert before.context["hold"].rounds == 0
    assert "No wager decided this day" in before.content.decode()
    bad = client.get(f"/admin/casino/table/{out_of_band.pk}/hold/?day=2026-13-01")
    assert bad.status_code == 400
    assert client.get("/admin/casino/table/999999/hold/").status_code == 404


@pytest.mark.parametrize(
    "text",
    ["1999-12-31", "3000-01-01", "20260302", "2026-W10-1", "2026-13-01", "", "someday"],
)
def test_the_admin_takes_the_api_s_day_and_refuses_it_in_the_same_words(
    client: Client, out_of_band: Table, text: str
):
    """Issue 33: the admin read ?date=, the API ?day= (and the admin ignored ?day=)."""
    login(client, "operations", "olive_ops")
    api = client.get(f"/api/v1/tables/{out_of_band.pk}/hold/", {"day": text})
    assert api.status_code == 400, api.content
    for page in (f"/admin/casino/table/{out_of_band.pk}/hold/", "/admin/casino/table/statistics/"):
        refused = client.get(page, {"day": text})
        assert (refused.status_code, refused.content.decode()) == (400, api.json()["detail"])


def test_an_old_link_with_date_is_sent_on_to_day(client: Client, out_of_band: Table):
    login(client, "operations", "olive_ops")
    page = f"/admin/casino/table/{out_of_band.pk}/hold/"
    moved = client.get(f"{page}?date=2026-03-02&format=svg")
    assert (moved.status_code, moved["Location"]) == (301, f"{page}?format=svg&day=2026-03-02")
    shown = client.get(f"{page}?date=2026-03-01", follow=True)
    assert shown.context["day"] == date(2026, 3, 1)
    report = f"/admin/casino/table/{out_of_band.pk}/report/"
    assert client.get(f"{report}?date=2026-03-02")["Location"] == f"{report}?day=2026-03-02"
    assert client.get(f"{page}?day=2026-03-01").context["day"] == date(2026, 3, 1)


def test_a_sets_fairness_page_and_histogram(client: Client, out_of_band: Table):
    login(client, "compliance", "carl_compliance")
    equipment_set = the_set(out_of_band)
    page = client.get(f"/admin/casino/equipmentset/{equipment_set.pk}/fairness/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Looks loaded:" in text and "p-value 4.229e-05" in text
    assert page.context["fairness"].overall.chi_square.quantize(Decimal("0.01")) == Decimal("27.67")
    svg = client.get(f"/admin/casino/equipmentset/{equipment_set.pk}/fairness/?format=svg")
    root = ET.fromstring(svg.content)
    bars = root.findall(f".//{SVG}rect[@class='bar']")
    assert [int(b.get("data-count")) for b in bars] == [25, 25, 25, 25, 31, 58]
    # The set's change page links to it.
    change = client.get(f"/admin/casino/equipmentset/{equipment_set.pk}/change/")
    assert f"/admin/casino/equipmentset/{equipment_set.pk}/fairness/" in change.content.decode()


def test_the_floor_report_and_its_csv(client: Client, out_of_band: Table):
    login(client, "regulator")
    page = client.get(f"/admin/casino/table/statistics/?day={DAY}")
    assert page.status_code == 200
    text = page.content.decode()
    assert "OUT OF BAND" in text and "LOOKS LOADED" in text
    assert f"/admin/casino/table/{out_of_band.pk}/hold/?day=2026-03-02" in text
    assert (page.context["hold_alerts"], page.context["set_alerts"]) == (1, 1)
    download = client.get(f"/admin/casino/table/statistics/?day={DAY}&format=csv")
    assert download["Content-Disposition"] == 'attachment; filename="statistics-2026-03-02.csv"'
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    hold, fairness = rows
    assert {k: v for k, v in hold.items() if v} == {
        "record": "hold",
        "table": out_of_band.number,
        "game": "sic_bo",
        "period": "2026-03-02",
        "start": "2026-03-02T06:00:00-05:00",
        "end": "2026-03-03T06:00:00-05:00",
        "rounds": "3",
        "wagers": "3",
        "drop": "30.00",
        "win": "30.00",
        "hold": "1.0000",
        "theoretical_win": "0.83",
        "standard_deviation": "17.31",
        "z_score": "1.68",
        "threshold": "1.50",
        "alert": "yes",
        # Issue 35: the human columns name the game, and say the money as money.
        "game_label": "Sic Bo",
        "summary": "2026-03-02: drop $30.00, win $30.00, theoretical win $0.83",
    }
    assert (fairness["record"], fairness["counts"], fairness["alert"]) == (
        "fairness",
        "25 25 25 25 31 58",
        "yes",
    )
    assert (fairness["composition"], fairness["composition_label"]) == ("three_dice", "three dice")
    assert fairness["set"] == the_set(out_of_band).identifier


def test_the_holders_fairness_threshold_decides_the_sets_alert(client: Client, out_of_band: Table):
    login(client, "regulator")
    equipment_set = the_set(out_of_band)
    url = f"/admin/casino/equipmentset/{equipment_set.pk}/fairness/"
    assert client.get(url).context["fairness"].alert  # p 4.229e-05 under 0.001
    StatisticsThresholds.objects.filter(holder=out_of_band.holder).update(
        fairness_p_threshold=Decimal("0.00001")
    )
    fairness = client.get(url).context["fairness"]
    assert (fairness.threshold, fairness.alert) == (Decimal("0.000010"), False)
    root = ET.fromstring(client.get(url + "?format=svg").content)
    verdict = root.find(f".//{SVG}text[@class='verdict']").text
    assert verdict == "no alert (threshold: p-value under 0.00001)"


def test_the_pages_need_the_compliance_report_right(client: Client, out_of_band: Table):
    login(client, None, "nobody")
    equipment_set = the_set(out_of_band)
    for url in (
        f"/admin/casino/table/{out_of_band.pk}/hold/",
        f"/admin/casino/equipmentset/{equipment_set.pk}/fairness/",
        "/admin/casino/table/statistics/",
    ):
        assert client.get(url).status_code == 403, url


def test_the_floor_page_badges_link_to_the_charts(
    client: Client, out_of_band: Table, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(floor_page, "current_gaming_day", lambda: DAY)
    cache.delete(floor_page.STATISTICS_KEY)
    login(client, "operations", "olive_ops")
    equipment_set = the_set(out_of_band)
    data = client.get("/floor/statistics.json").json()
    assert data["day"] == "2026-03-02"
    assert data["tables"] == {
        str(out_of_band.pk): [
            {
                "kind": "hold",
                "text": "hold out of band",
                "detail": "z = 1.68 (alert at ±1.50): won $30.00, theory $0.83",
                "url": f"/admin/casino/table/{out_of_band.pk}/hold/?day=2026-03-02",
            },
            {
                "kind": "dice",
                "text": "dice look loaded",
                "detail": (
                    f"set {equipment_set.identifier}: p = 4.229e-05 over 63 throws "
                    "(alert under 0.001)"
                ),
                "url": f"/admin/casino/equipmentset/{equipment_set.pk}/fairness/",
            },
        ]
    }
    page = client.get("/floor/").content.decode()
    assert '<li class="stat-badge stat-hold"><a href="/admin/casino/table/' in page
    assert "dice look loaded" in page


def test_the_badges_are_computed_once_a_minute(
    client: Client, out_of_band: Table, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(floor_page, "current_gaming_day", lambda: DAY)
    cache.delete(floor_page.STATISTICS_KEY)
    built = []
    real = floor_page.statistics_build
    monkeypatch.setattr(floor_page, "statistics_build", lambda: built.append(1) or real())
    login(client, "operations", "olive_ops")
    for _ in range(3):
        assert client.get("/floor/statistics.json").status_code == 200
    assert built == [1]  # then from the cache, for STATISTICS_SECONDS
    assert floor_page.STATISTICS_SECONDS == 60


def test_the_badges_need_the_floor_right(client: Client):
    assert client.get("/floor/statistics.json").status_code == 401
    login(client, None, "nobody")
    assert client.get("/floor/statistics.json").status_code == 403


def test_the_floor_page_stands_when_the_statistics_fail(
    client: Client, out_of_band: Table, monkeypatch: pytest.MonkeyPatch
):
    def broken() -> None:
        raise RuntimeError("a figure that cannot be computed")

    cache.delete(floor_page.STATISTICS_KEY)
    monkeypatch.setattr(floor_page, "statistics_build", broken)
    login(client, "operations", "olive_ops")
    page = client.get("/floor/")
    assert page.status_code == 200
    assert "stat-badge" not in page.content.decode()
