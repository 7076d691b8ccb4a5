"""The Rounds list (issue 22): readable at a 1400 px window (the "Open a round" form a row
of its own above the list, not floated beside it), and games by their names, not codes."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Round
from gaming.rounds import round_open
from tests.casino.floor_fixtures import compliant_table, operations
from tests.games.test_admin_rounds import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_rounds() -> None:
    recently = timezone.now() - timedelta(hours=1)
    for game in ("high_roll_dice", "sic_bo"):
        table = compliant_table(game, now=recently, open_table=True).table
        round_open(table, by=operations(), now=timezone.now())


def test_the_open_a_round_form_is_a_row_above_the_list_not_floated(client: Client, two_rounds):
    login(client, operations())
    html = client.get("/admin/games/round/").content.decode()
    [form] = re.findall(r'<form[^>]*class="open-round"[^>]*>', html, re.S)
    assert "float" not in form
    assert "clear: both" in form and "display: flex" in form
    assert html.index('class="open-round"') < html.index('id="changelist"')


def test_the_rounds_list_names_games_in_its_column_and_filter(client: Client, two_rounds):
    login(client, operations())
    html = client.get("/admin/games/round/").content.decode()
    columns = re.findall(r'<td class="field-game_name">(.*?)</td>', html)
    assert sorted(columns) == ["High Roll Dice", "Sic Bo"]
    assert '<a href="?game=high_roll_dice">High Roll Dice</a>' in html
    assert ">high_roll_dice<" not in html and ">sic_bo<" not in html
    filtered = client.get("/admin/games/round/?game=high_roll_dice").content.decode()
    assert re.findall(r'<td class="field-game_name">(.*?)</td>', filtered) == ["High Roll Dice"]


def test_a_round_s_page_names_its_game(client: Client, two_rounds):
    login(client, operations())
    round_ = Round.objects.get(game="high_roll_dice")
    html = client.get(f"/admin/games/round/{round_.pk}/change/").content.decode()
    assert re.search(r'<div class="readonly">High Roll Dice</div>', html)


def test_sets_in_play_show_their_composition_by_its_label(client: Client, two_rounds):
    login(client, operations())
    html = client.get("/admin/casino/setinplay/").content.decode()
    # High Roll Dice's standard variant plays ten dice; Sic Bo three.
    columns = sorted(re.findall(r'<td class="field-composition_label">(.*?)</td>', html))
    assert columns == ["Ten 19 mm dice", "Three dice"]
    assert '<a href="?composition=three_dice">Three dice</a>' in html
    assert '<a href="?composition=tiles_32">32 Pai Gow tiles</a>' in html
    assert ">three_dice<" not in html and ">ten_dice<" not in html
