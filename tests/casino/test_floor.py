"""The floor's first records, the demo floor, the admin and the API, in-process."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command

from casino.demo import DEMO_PASSWORD, DEMO_TABLES, DEMO_USERNAME, DemoRefused, demo_floor_load
from casino.models import CertificateHolder, Table
from games.rules.catalog import GAMES

pytestmark = pytest.mark.django_db


def test_the_demo_floor_has_a_few_tables_of_every_game_and_loads_twice_the_same():
    demo_floor_load()
    demo_floor_load()
    holder = CertificateHolder.objects.get()
    games = sorted(set(holder.tables.values_list("game", flat=True)))
    assert games == sorted(game.key for game in GAMES)
    for game in GAMES:
        assert holder.tables.filter(game=game.key).count() >= 2
    assert holder.tables.count() == len(DEMO_TABLES) == 12
    assert get_user_model().objects.filter(username=DEMO_USERNAME).count() == 1


def test_every_demo_table_is_a_valid_table():
    holder = demo_floor_load()
    for table in holder.tables.all():
        table.full_clean()


def test_the_demo_floor_is_refused_in_production(settings):
    settings.PRODUCTION = True
    with pytest.raises(DemoRefused, match="not in DJANGO_ENV=production"):
        demo_floor_load()
    assert CertificateHolder.objects.count() == 0
    assert not get_user_model().objects.filter(username=DEMO_USERNAME).exists()


def test_load_demo_floor_command_prints_the_login(capsys):
    call_command("load_demo_floor", "--no-history")
    assert f"login {DEMO_USERNAME} / {DEMO_PASSWORD}" in capsys.readouterr().out


def test_a_table_variant_must_belong_to_its_game():
    holder = CertificateHolder.objects.create(name="Holder")
    table = Table(holder=holder, number="SB-9", game="sic_bo", variant="mini_craps")
    with pytest.raises(ValidationError) as error:
        table.full_clean()
    assert "Sic Bo has no variant 'mini_craps'" in str(error.value)


def test_the_admin_login_page_is_served(client):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert b"Casino floor" in response.content


def test_the_demo_login_reaches_the_admin(client):
    demo_floor_load()
    assert client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    response = client.get("/admin/casino/table/?game__exact=craps")
    assert response.status_code == 200
    assert b"CR-01" in response.content and b"SB-01" not in response.content


def test_the_api_requires_a_login(client):
    assert client.get("/api/v1/tables/").status_code == 401


def test_the_api_lists_tables_filtered_by_game(client):
    demo_floor_load()
    client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    body = client.get("/api/v1/tables/?game=high_roll_dice").json()
    assert body["count"] == 2
    assert [(t["number"], t["variant"]) for t in body["results"]] == [
        ("HR-01", "10_dice"),
        ("HR-02", "6_dice"),
    ]


def test_an_unknown_filter_value_gets_a_clear_error(client):
    demo_floor_load()
    client.login(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    response = client.get("/api/v1/tables/?status=burning")
    assert response.status_code == 400
    body = response.json()
    assert (body["status"], body["code"]) == (400, "invalid")
    assert body["fields"] == {
        "status": ["Select a valid choice. burning is not one of the available choices."]
    }
