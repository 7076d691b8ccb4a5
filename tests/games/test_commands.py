"""The games app's management commands."""

import json

import pytest
from django.core.management import CommandError, call_command

from games.par import par_document


def test_manage_py_par_prints_the_same_sheet_as_python_m_games_par(capsys):
    call_command("par", "sic_bo", "--json")
    assert json.loads(capsys.readouterr().out) == par_document("sic_bo", {})


def test_manage_py_par_names_a_bad_option():
    with pytest.raises(CommandError, match=r"options\.dice"):
        call_command("par", "high_roll_dice", "--option", "dice=7")
