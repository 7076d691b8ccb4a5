"""GET /api/v1/equipment-sets/{id}/fairness/ and /equipment-sets/fairness/ through the real
path (authentication, scoping, content negotiation), as JSON and as CSV.

The floor is tests/api/conftest.py's: holder A's SB-01 dice saw one throw, 1-2-3.
"""

import csv
import io

import pytest

from casino.models import EquipmentSet, SetInPlay
from tests.api.conftest import API, bearer, error_of, regulator_user, session

pytestmark = pytest.mark.django_db


def a_dice(api_floor):
    return SetInPlay.objects.get(table=api_floor.a.play, removed_at__isnull=True).equipment_set


def test_a_sets_fairness_as_json(api_floor):
    dice = a_dice(api_floor)
    response = session(regulator_user()).get(f"{API}/equipment-sets/{dice.pk}/fairness/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["set_id"] == dice.pk and body["identifier"] == "SB-01-three_dice-1"
    assert (body["table_number"], body["in_play_to"], body["throws"], body["dice"]) == (
        "SB-01",
        None,
        1,
        3,
    )
    # 3 dice, 0.5 expected a face: 3 * (0.5^2 / 0.5) + 3 * (0.5^2 / 0.5) = 3 on 5 df;
    # Q(2.5, 1.5) = erfc(sqrt 1.5) + e^-1.5 (1.5^0.5 / G(1.5) + 1.5^1.5 / G(2.5)) = 0.69998...
    assert body["overall"] == {
        "label": "all dice",
        "counts": [1, 1, 1, 0, 0, 0],
        "dice": 3,
        "expected": "0.5",
        "chi_square": "3",
        "degrees_of_freedom": 5,
        "p_value": "0.6999858359",
        "valid": False,
    }
    assert body["positions"] == [] and body["starting_places"] == []
    assert (body["threshold"], body["alert"], body["advice"]) == ("0.001", False, "")


@pytest.mark.parametrize("how", [{"format": "csv"}, {"HTTP_ACCEPT": "text/csv"}])
def test_a_sets_fairness_as_csv(api_floor, how):
    dice = a_dice(api_floor)
    query = {"format": "csv"} if "format" in how else {}
    headers = {k: v for k, v in how.items() if k != "format"}
    response = bearer(api_floor.a.key).get(
        f"{API}/equipment-sets/{dice.pk}/fairness/", query, **headers
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="fairness-{dice.pk}.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:8] == [
        "set_id",
        "identifier",
        "composition",
        "table_number",
        "throws",
        "test",
        "category",
        "count",
    ]
    assert len(rows) == 1 + 6
    assert rows[1] == [
        str(dice.pk),
        "SB-01-three_dice-1",
        "three_dice",
        "SB-01",
        "1",
        "all dice",
        "1",
        "1",
        "0.5",
        "3",
        "5",
        "0.6999858359",
        "False",
        "0.001",
        "False",
    ]
    assert [row[7] for row in rows[1:]] == ["1", "1", "1", "0", "0", "0"]


def test_the_floor_list_is_every_dice_set_in_play_the_caller_sees(api_floor):
    page = session(regulator_user()).get(f"{API}/equipment-sets/fairness/").json()
    staff = page["results"]
    assert (page["count"], page["next"], page["previous"]) == (len(staff), None, None)
    in_play = SetInPlay.objects.filter(removed_at__isnull=True).count()
    assert len(staff) == in_play
    assert {(f["table_number"], f["throws"]) for f in staff} >= {("SB-01", 1), ("SB-02", 0)}
    own = bearer(api_floor.a.key).get(f"{API}/equipment-sets/fairness/").json()["results"]
    holder_a = SetInPlay.objects.filter(
        removed_at__isnull=True, table__holder=api_floor.a.holder
    ).count()
    assert len(own) == holder_a < in_play
    assert {f["set_id"] for f in own} <= set(
        EquipmentSet.objects.filter(holder=api_floor.a.holder).values_list("pk", flat=True)
    )
    as_csv = bearer(api_floor.a.key).get(f"{API}/equipment-sets/fairness/", {"format": "csv"})
    assert len(as_csv.content.decode().splitlines()) == 1 + 6 * holder_a


def test_a_name_that_looks_like_a_formula_is_a_text_cell(api_floor):
    dice = EquipmentSet.objects.create(
        holder=api_floor.a.holder,
        identifier="=HYPERLINK(1)",
        composition="three_dice",
        received_at=api_floor.at,
    )
    response = bearer(api_floor.a.key).get(
        f"{API}/equipment-sets/{dice.pk}/fairness/", {"format": "csv"}
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[1][1:4] == ["'=HYPERLINK(1)", "three_dice", ""]  # never in play: no table
    assert rows[1][4:8] == ["0", "all dice", "1", "0"]


def test_tiles_another_holders_set_and_an_error_asked_as_csv(api_floor):
    tiles = EquipmentSet.objects.create(
        holder=api_floor.a.holder,
        identifier="TILES-1",
        composition="tiles_32",
        received_at=api_floor.at,
    )
    client = bearer(api_floor.a.key)
    body = error_of(client.get(f"{API}/equipment-sets/{tiles.pk}/fairness/"), 404, "not_found")
    assert "tiles" in body["detail"]
    theirs = SetInPlay.objects.get(table=api_floor.b.play, removed_at__isnull=True)
    error_of(
        client.get(f"{API}/equipment-sets/{theirs.equipment_set_id}/fairness/"), 404, "not_found"
    )
    # Asked for as CSV, an error is still the one JSON body.
    response = client.get(f"{API}/equipment-sets/999999/fairness/", {"format": "csv"})
    assert response["Content-Type"] == "application/json"
    error_of(response, 404, "not_found")
