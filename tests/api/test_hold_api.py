"""GET /api/v1/tables/{id}/hold/ and /api/v1/hold/: JSON and CSV through the real path
(the figures are tests/games/test_hold.py's, worked out by hand there)."""

import csv
import io

import pytest

from games.services.hold import current_gaming_day
from tests.api.conftest import API, regulator_user, session
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import M, close, open_table, opened, place, result, settle, wager

pytestmark = pytest.mark.django_db

DAY = "2026-03-02"


def played_table():
    """Two Sic Bo rounds of Small $10 and Total 4 $5: house -5, then +15."""
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    for n, dice in enumerate(([4, 4, 2], [5, 5, 6])):
        now = T0 + 10 * n * M
        round_ = opened(table, now=now + M)
        place(round_, wager("ann", "small", "10"), wager("bob", "total:4", "5"), now=now + 2 * M)
        close(round_, now=now + 3 * M)
        result(round_, "throw", dice, now=now + 4 * M)
        settle(round_, now=now + 5 * M)
    return table


DAY_FIGURES = {
    "period": DAY,
    "rounds": 2,
    "wagers": 4,
    "drop": "30.00",
    "win": "10.00",
    "hold": "0.3333",
    "theoretical_win": "3.47",
    "standard_deviation": "46.12",  # sqrt(2 * (230325/216 - (375/216)^2)) = 46.1152
    "z_score": "0.14",
    "threshold": "3.00",
    "alert": False,
}


def test_a_tables_day_as_json_for_the_regulator():
    table = played_table()
    answer = session(regulator_user()).get(f"{API}/tables/{table.pk}/hold/?day={DAY}")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert {k: body[k] for k in DAY_FIGURES} == DAY_FIGURES
    assert (body["table_id"], body["table_number"], body["game"]) == (table.pk, "SB-01", "sic_bo")
    assert (body["day"], body["shift"], body["start"]) == (DAY, None, "2026-03-02T06:00:00-05:00")
    assert [s["period"] for s in body["shifts"]] == [f"{DAY} shift {n}" for n in (1, 2, 3)]
    assert [s["drop"] for s in body["shifts"]] == ["30.00", "0.00", "0.00"]
    assert [s["z_score"] for s in body["shifts"]] == ["0.14", None, None]
    [submission] = body["submissions"]
    assert submission["period"].startswith(f"{DAY} Rules Submission v")
    assert submission["win"] == "10.00"


def test_one_shift_and_the_default_day():
    table = played_table()
    client = session(regulator_user())
    body = client.get(f"{API}/tables/{table.pk}/hold/?day={DAY}&shift=2").json()
    assert (body["period"], body["shift"], body["drop"], body["z_score"]) == (
        f"{DAY} shift 2",
        2,
        "0.00",
        None,
    )
    today = client.get(f"{API}/tables/{table.pk}/hold/").json()
    assert (today["day"], today["wagers"]) == (current_gaming_day().isoformat(), 0)


@pytest.mark.parametrize("how", ["format", "accept"])
def test_the_same_figures_as_csv(how):
    table = played_table()
    client = session(regulator_user())
    path = f"{API}/tables/{table.pk}/hold/?day={DAY}"
    if how == "format":
        answer = client.get(path + "&format=csv")
    else:
        answer = client.get(path, headers={"Accept": "text/csv"})
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="hold-SB-01-{DAY}.csv"'
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert [r["period"] for r in rows][:4] == [DAY, *(f"{DAY} shift {n}" for n in (1, 2, 3))]
    assert len(rows) == 5  # the day, its three shifts, its one Rules Submission version
    day = rows[0]
    assert {k: day[k] for k in DAY_FIGURES if k != "alert"} == {
        **{k: str(v) for k, v in DAY_FIGURES.items() if k != "alert"}
    }
    assert day["alert"] == "False"
    assert rows[3]["z_score"] == ""  # shift 3: no play, no z


def test_the_floor_lists_each_table_with_play_as_json_and_csv():
    table = played_table()
    open_table("sic_bo", number="SB-02", min_wager="5", max_wager="500")  # no play: not listed
    client = session(regulator_user())
    body = client.get(f"{API}/hold/?day={DAY}").json()
    assert body["day"] == DAY
    [row] = body["tables"]
    assert row["table_id"] == table.pk
    assert {k: row[k] for k in DAY_FIGURES} == DAY_FIGURES
    answer = client.get(f"{API}/hold/?day={DAY}&format=csv")
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    assert [(r["table_number"], r["win"]) for r in rows] == [("SB-01", "10.00")]
    assert client.get(f"{API}/hold/?day=2026-03-01").json()["tables"] == []


@pytest.mark.parametrize(
    "query, field, why",
    [
        ("day=yesterday", "day", "'yesterday' is not a date such as 2026-11-24"),
        ("day=2026-02-30", "day", "'2026-02-30' is not a date such as 2026-11-24"),
        # New York's local mean time: no ISO offset
        ("day=1883-01-01", "day", "'1883-01-01' is not between 2000-01-01 and 2999-12-31"),
        # no next day
        ("day=9999-12-31", "day", "'9999-12-31' is not between 2000-01-01 and 2999-12-31"),
        ("shift=4", "shift", "'4' is not 1, 2 or 3"),
    ],
)
def test_a_bad_day_or_shift_is_a_400_in_the_one_json_body_even_for_csv(query, field, why):
    """`fields` names the parameter, as docs/api.md says of every 400 `invalid`."""
    table = played_table()
    client = session(regulator_user())
    for path in (f"{API}/tables/{table.pk}/hold/", f"{API}/hold/"):
        if field == "shift" and path == f"{API}/hold/":
            continue  # the floor has no shift
        answer = client.get(f"{path}?{query}&format=csv")
        assert answer.status_code == 400, answer.content
        assert answer["Content-Type"] == "application/json"
        assert answer.json()["code"] == "invalid"
        assert answer.json()["detail"] == f"{field} {why}"
        assert answer.json()["fields"] == {field: [why]}
