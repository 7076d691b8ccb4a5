"""The two commands as other tools run them: exit codes, one-line errors, JSON out.

SCENARIOS.md: a malformed document exits 2 with a one-line error naming the field and
never a traceback; a wager the rules forbid is rejected inside the result (exit 0).
"""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from games.par import par_document
from games.rules.registry import ENGINE_MODULES

ROOT = Path(__file__).resolve().parents[2]


def run(module: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


SIC_BO_ROUND = {
    "format": 1,
    "game": "sic_bo",
    "options": {},
    "steps": [
        {"wagers": [{"id": "w1", "player": "p1", "kind": "small", "amount": "10"}]},
        {"throw": [1, 2, 4]},
    ],
}


def test_scenario_runner_reads_stdin_and_writes_the_result():
    done = run("games.scenario", stdin=json.dumps(SIC_BO_ROUND))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["format"] == 1
    # § 625a.3: Small wins on a total of 4 to 10 (1+2+4 = 7), paid 1 to 1 (§ 625a.6).
    (resolution,) = result["steps"][1]["resolutions"]
    assert (resolution["wager"], resolution["result"], resolution["net"]) == ("w1", "win", "10.00")
    assert result["open"] == []


FLOAT_WAGER = {"id": "w1", "player": "p1", "kind": "small", "amount": 10.5}


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ("{not json", "document"),
        (json.dumps({**SIC_BO_ROUND, "game": "roulette"}), "game"),
        (json.dumps({**SIC_BO_ROUND, "format": 2}), "format"),
        (json.dumps({**SIC_BO_ROUND, "options": {"colour": "red"}}), "options.colour"),
        (json.dumps({**SIC_BO_ROUND, "steps": [{"wagers": [FLOAT_WAGER]}]}), "steps[0].wagers[0]"),
        (json.dumps({**SIC_BO_ROUND, "steps": [{"spin": 3}]}), "steps[0]"),
        (json.dumps({**SIC_BO_ROUND, "steps": [{"throw": "1,2,3"}]}), "steps[0].throw"),
    ],
    ids=[
        "bad-json", "unknown-game", "format", "unknown-option", "float-amount", "unknown-event",
        "throw-type",
    ],
)  # fmt: skip
def test_a_malformed_document_exits_2_with_one_line_naming_the_field(document, field):
    done = run("games.scenario", stdin=document)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(f"error: {field}")


def test_a_forbidden_wager_is_rejected_inside_the_result_not_malformed():
    document = {
        **SIC_BO_ROUND,
        "steps": [{"wagers": [{"id": "w1", "player": "p1", "kind": "total:3", "amount": "5"}]}],
    }
    done = run("games.scenario", stdin=json.dumps(document))
    assert done.returncode == 0
    (rejection,) = json.loads(done.stdout)["steps"][0]["rejected"]
    assert rejection["wager"] == "w1" and rejection["error"]


def test_par_prints_json_for_every_game():
    for game in ENGINE_MODULES:
        done = run("games.par", game, "--json")
        assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        assert document["format"] == 1 and document["game"] == game
        assert document["wagers"], game


@pytest.mark.parametrize("game", sorted(ENGINE_MODULES))
def test_every_par_record_sums_to_one_and_its_edge_is_minus_the_expected_net(game):
    for record in par_document(game, {})["wagers"]:
        outcomes = record["outcomes"]
        assert sum(Fraction(o["probability"]) for o in outcomes) == 1, record["kind"]
        expected_net = sum(Fraction(o["probability"]) * Fraction(o["net"]) for o in outcomes)
        assert Fraction(record["house_edge_exact"]) == -expected_net, record["kind"]


def test_par_refuses_an_unknown_game_or_option_with_exit_2():
    assert run("games.par", "roulette").returncode == 2
    done = run("games.par", "sic_bo", "--option", "colour=red")
    assert done.returncode == 2
    assert done.stderr.startswith("error: options.colour")


@pytest.mark.parametrize(
    ("amount", "complaint"),
    [
        ("99999999999999999999999999999999", "too large"),
        ("-1000000000000", "too large"),
        ("1e30", "not a decimal amount"),
        ("1_000", "not a decimal amount"),
        ("\u0661\u0660", "not a decimal amount"),  # Arabic-Indic digits: Decimal() takes them
        ("NaN", "not a decimal amount"),
    ],
)
def test_a_huge_or_odd_amount_is_malformed_not_a_crash(amount, complaint):
    wager = {"id": "w1", "player": "p1", "kind": "small", "amount": amount}
    done = run("games.scenario", stdin=json.dumps({**SIC_BO_ROUND, "steps": [{"wagers": [wager]}]}))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: steps[0].wagers[0].amount: ")
    assert complaint in done.stderr


def test_a_deeply_nested_document_is_malformed_not_a_crash():
    done = run("games.scenario", stdin="[" * 100_000)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: document: ")


def test_an_integer_past_pythons_digit_limit_is_malformed_not_a_crash():
    """json.load refuses an integer of more than 4,300 digits with a ValueError."""
    document = '{"format": 1, "game": "sic_bo", "steps": [{"throw": [' + "9" * 5000 + "]}]}"
    done = run("games.scenario", stdin=document)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: document: ")
