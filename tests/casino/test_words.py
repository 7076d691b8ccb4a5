"""Issue 35, item 4: words and figures. Money reads as money (-$2,200.00) and every game,
variant and composition by its label, from one place (casino.rules.words and its
template library), in the admin, the hold report, the floor page, the charts and the
CSV's human columns; the CSV's data columns and the API keep keys and plain numbers."""

import csv
import io
import re
import subprocess
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.template import Context, Template
from django.test import Client

from casino import floor_page
from casino.admin import statistics_views
from casino.models import Table
from casino.rules.words import (
    composition_label,
    game_label,
    game_variant_label,
    money_text,
    variant_label,
)
from games.rules.catalog import variant_choices
from games.services.hold import Hold
from tests.casino.floor_fixtures import NY, staff
from tests.games.round_fixtures import open_table, opened, place, wager

FLOOR_JS = Path(__file__).resolve().parents[2] / "casino" / "static" / "floor" / "floor.js"


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("-2200"), "-$2,200.00"),  # the issue's: not $-2200.00
        (Decimal("-2200.00"), "-$2,200.00"),
        (Decimal("1234567.891"), "$1,234,567.89"),
        (Decimal("999.995"), "$1,000.00"),  # half to even: 999.995 -> 1000.00
        (Decimal("0.125"), "$0.12"),  # half to even, as the hold figures round
        (Decimal("-0.004"), "$0.00"),  # no "-$0.00"
        (Decimal("0"), "$0.00"),
        (30, "$30.00"),
        ("-4130.5", "-$4,130.50"),
        (-2500.0, "-$2,500.00"),  # a chart's float tick
    ],
)
def test_money_reads_as_money(amount: Any, shown: str):
    assert money_text(amount) == shown


def test_whole_dollars_for_a_charts_ticks_and_text_that_is_no_number_as_it_came():
    assert money_text(-1500.0, cents=False) == "-$1,500"
    assert money_text(Decimal("12500"), cents=False) == "$12,500"
    assert money_text("n/a") == "n/a"


def test_games_variants_and_compositions_by_their_labels():
    assert game_label("high_roll_dice") == "High Roll Dice"
    assert game_label("pai_gow") == "Pai Gow (tiles)"
    # A variant key is a key only within its game.
    assert variant_label("sic_bo", "standard") == "Sic Bo"
    assert variant_label("pai_gow", "standard") == "Pai Gow"
    assert variant_label("three_dice_football", "standard") == "Three Dice Football"
    assert variant_label("high_roll_dice", "6_dice") == "6-dice variation (§ 675a.6)"
    assert composition_label("five_dice") == "five dice"
    assert composition_label("tiles_32") == "32 Pai Gow tiles"
    assert [game_variant_label(*pair) for pair in [
        ("craps", "craps"), ("craps", "mini_craps"), ("sic_bo", "standard"),
        ("pai_gow", "standard"), ("high_roll_dice", "10_dice"),
    ]] == [
        "Craps", "Craps (Mini-Craps)", "Sic Bo", "Pai Gow (tiles)", "High Roll Dice (10 dice)"
    ]  # fmt: skip
    # An unknown key is shown as it is, never an error on a page.
    assert (game_label("roulette"), composition_label("seven_dice")) == ("roulette", "seven_dice")


def test_a_variant_key_several_games_share_is_named_for_all_of_them():
    """The cause of "Variant: Pai Gow" on SB-01: "standard" was named for the first game
    that has it. Each key is once among the choices (a model field's)."""
    choices = variant_choices()
    assert len(choices) == len(dict(choices))
    assert dict(choices)["standard"] == "Standard: Pai Gow (tiles), Sic Bo, Three Dice Football"
    assert dict(choices)["mini_craps"] == "Mini-Craps"


def test_the_template_library_says_the_same():
    template = Template(
        "{% load words %}{{ win|money }}|{{ game|game_label }}|{{ variant|variant_label:game }}|"
        "{{ composition|composition_label }}|{{ none|money }}"
    )
    context = {
        "win": Decimal("-2200.00"),
        "game": "sic_bo",
        "variant": "standard",
        "composition": "three_dice",
        "none": None,
    }
    assert template.render(Context(context)) == "-$2,200.00|Sic Bo|Sic Bo|three dice|"


@pytest.mark.skipif(not Path("/usr/bin/node").exists(), reason="no node to run floor.js's money")
def test_the_floor_pages_script_writes_money_as_the_server_does():
    """floor.js redraws the round's amount from the snapshot's decimal string."""
    source = FLOOR_JS.read_text()
    body = re.search(r"  function money\(amount\) \{.*?\n  \}\n", source, re.S).group(0)
    amounts = ["2200.00", "-2200.00", "0.00", "-0.00", "1234567.5", "35", "12.30"]
    script = f"{body}\nconsole.log(JSON.stringify({amounts!r}.map(money)));"
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        '["$2,200.00","-$2,200.00","$0.00","$0.00","$1,234,567.50","$35.00","$12.30"]'
    )
    assert [money_text(a) for a in amounts] == [
        "$2,200.00", "-$2,200.00", "$0.00", "$0.00", "$1,234,567.50", "$35.00", "$12.30"
    ]  # fmt: skip


# -- In the admin, the floor page and the CSV ---------------------------------------------


def _login(client: Client, group: str | None, name: str) -> Any:
    user = staff(name, group)
    user.is_staff = True
    user.save()
    client.force_login(user)
    return user


def _losing(table: Table) -> Hold:
    """A High Roll Dice day the house lost: drop $12,000, win -$2,200, theory $1,234.56."""
    return Hold(
        table_id=table.pk,
        table_number=table.number,
        game="high_roll_dice",
        period="2026-03-02",
        start=datetime(2026, 3, 2, 6, tzinfo=NY),
        end=datetime(2026, 3, 3, 6, tzinfo=NY),
        rounds=40,
        wagers=400,
        drop=Decimal("12000.00"),
        win=Decimal("-2200.00"),
        hold=Decimal("-0.1833"),
        theoretical_win=Decimal("1234.56"),
        standard_deviation=Decimal("1100.00"),
        z_score=Decimal("-3.12"),
        threshold=Decimal("3.00"),
        alert=True,
    )


def _cells(html: str, table_id: str) -> list[str]:
    table = re.search(rf'<table id="{table_id}">(.*?)</table>', html, re.S).group(1)
    body = table.split("<tbody>")[1]
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", body)]


@pytest.mark.django_db
def test_the_hold_report_shows_labels_and_money(client: Client, monkeypatch: pytest.MonkeyPatch):
    table = open_table("high_roll_dice", "6_dice", min_wager="10", max_wager="500")
    losing = _losing(table)
    monkeypatch.setattr(statistics_views, "floor_hold", lambda day: [losing])
    monkeypatch.setattr(statistics_views, "floor_fairness", lambda: [])
    _login(client, "regulator", "rita_regulator")
    page = client.get("/admin/casino/table/statistics/?day=2026-03-02").content.decode()
    cells = _cells(page, "statistics-holds")
    assert cells[1:9] == [
        "High Roll Dice", "40", "$12,000.00", "-$2,200.00", "-0.1833", "$1,234.56",
        "$1,100.00", "-3.12",
    ]  # fmt: skip
    assert "high_roll_dice" not in page and "$-" not in page
    # The CSV: its data columns plain, its human columns in words and money.
    csv_text = client.get("/admin/casino/table/statistics/?day=2026-03-02&format=csv")
    (row,) = csv.DictReader(io.StringIO(csv_text.content.decode()))
    assert (row["game"], row["drop"], row["win"], row["theoretical_win"]) == (
        "high_roll_dice",
        "12000.00",
        "-2200.00",
        "1234.56",
    )
    assert row["game_label"] == "High Roll Dice"
    assert row["summary"] == (
        "2026-03-02: drop $12,000.00, win -$2,200.00, theoretical win $1,234.56"
    )


@pytest.mark.django_db
def test_a_tables_hold_page_names_its_variant_and_says_money(
    client: Client, monkeypatch: pytest.MonkeyPatch
):
    table = open_table("high_roll_dice", "6_dice", min_wager="10", max_wager="500")
    losing = _losing(table)
    monkeypatch.setattr(statistics_views, "table_hold", lambda table, day: losing)
    monkeypatch.setattr(statistics_views, "table_hold_by_shift", lambda table, day: [])
    monkeypatch.setattr(statistics_views, "table_hold_by_submission", lambda table, day: [])
    _login(client, "regulator", "rita_regulator")
    page = client.get(f"/admin/casino/table/{table.pk}/hold/?day=2026-03-02").content.decode()
    assert "High Roll Dice (6-dice variation (§ 675a.6))" in page
    assert _cells(page, "hold-figures")[3:8] == [
        "$12,000.00", "-$2,200.00", "-0.1833", "$1,234.56", "$1,100.00"
    ]  # fmt: skip
    assert "$-" not in page


@pytest.mark.django_db
def test_the_floor_pages_badge_and_round_say_money(monkeypatch: pytest.MonkeyPatch):
    table = open_table("high_roll_dice", "6_dice", min_wager="10", max_wager="500")
    monkeypatch.setattr(floor_page, "current_gaming_day", lambda: date(2026, 3, 2))
    monkeypatch.setattr(floor_page, "floor_hold", lambda day: [_losing(table)])
    monkeypatch.setattr(floor_page, "floor_fairness", lambda: [])
    (badge,) = floor_page.statistics_build()["tables"][str(table.pk)]
    assert badge["detail"] == "z = -3.12 (alert at ±3.00): won -$2,200.00, theory $1,234.56"
    page = Template("{% load words %}· {{ round.wagered|money }} ·").render(
        Context({"round": {"wagered": "1234.50"}})  # the snapshot's decimal string
    )
    assert page == "· $1,234.50 ·"


@pytest.mark.django_db
@pytest.mark.parametrize(("group", "name"), [(None, "sam_super"), ("regulator", "rita_regulator")])
def test_a_sic_bo_tables_page_names_its_own_game(client: Client, group: str | None, name: str):
    """SB-01's page said "Variant: Pai Gow": the read-only field took the label of the key
    "standard" from the field's choices, which named it for Pai Gow."""
    table = open_table("sic_bo", min_wager="5", max_wager="500")
    user = _login(client, group, name)
    if group is None:
        user.is_superuser = True
        user.save()
    page = client.get(f"/admin/casino/table/{table.pk}/change/").content.decode()
    variant = re.search(r'<div class="form-row field-variant\w*">(.*?)</div>\s*</div>', page, re.S)
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", variant.group(1))).strip()
    assert shown == "Variant: Sic Bo"
    assert "Variant: Pai Gow" not in re.sub(r"<[^>]+>|\s+", " ", page).replace("  ", " ")
    listing = client.get("/admin/casino/table/").content.decode()
    assert '<td class="field-variant_name">Sic Bo</td>' in listing


@pytest.mark.django_db
def test_a_layout_is_named_by_its_game_and_variant_labels():
    table = open_table("craps", "mini_craps", min_wager="5", max_wager="500")
    assert str(table.layout).endswith(" · Craps (Mini-Craps)")
    assert table.layout.get_variant_display() == "Mini-Craps"


@pytest.mark.django_db
def test_a_rounds_page_shows_its_wagers_as_money(client: Client):
    table = open_table("sic_bo", min_wager="5", max_wager="5000")
    round_ = opened(table)
    place(round_, wager("ann", "small", "1250"))
    user = _login(client, None, "sam_super")
    user.is_superuser = True
    user.save()
    page = client.get(f"/admin/games/round/{round_.pk}/change/").content.decode()
    assert re.search(r'class="field-amount_money">\s*(<p>)?\$1,250\.00', page), page
    assert "High Roll Dice" not in page and "Sic Bo" in page
