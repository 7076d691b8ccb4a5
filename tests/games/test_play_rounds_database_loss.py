"""The demo dealer survives a database restart (issue 19, point 5): `play_rounds` waits
for the database with backoff and finishes the round it left half dealt, instead of
crashing and leaving it for a person; it gives up, naming the database, at --timeout.

The database's loss is an OperationalError raised where PostgreSQL's restart raised it
(between the wagers and the result); tests/workers has the real services.
"""

import json
from io import StringIO
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from games import demo_rounds
from games.models import Round, RoundEvent
from gaming.rounds import round_open
from tests.casino.floor_fixtures import T0, operations, staff
from tests.games.round_fixtures import M, open_table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def floor_clock(monkeypatch):
    """The dealer's clock on the fixtures' day (their equipment is in date then)."""
    clock = SimpleNamespace(now=lambda: T0 + 2 * M)
    monkeypatch.setattr("games.management.commands.play_rounds.timezone", clock)


LOST = "terminating connection due to administrator command"  # PostgreSQL's restart


def run(*args: str) -> tuple[dict, str]:
    out, err = StringIO(), StringIO()
    call_command("play_rounds", "--json", "--no-wait", *args, stdout=out, stderr=err)
    return json.loads(out.getvalue().strip().splitlines()[-1]), err.getvalue()


def fails(times: int, game: str, monkeypatch) -> list[int]:
    """The game's result step raises the database's loss `times` times, then works."""
    real, calls = demo_rounds.RESULTS[game], []

    def flaky(round_, rng, by, now):
        calls.append(round_.pk)
        if len(calls) <= times:
            raise OperationalError(LOST)
        return real(round_, rng, by, now)

    monkeypatch.setitem(demo_rounds.RESULTS, game, flaky)
    return calls


@pytest.mark.parametrize("game", ["sic_bo", "pai_gow", "craps"])
def test_a_round_half_dealt_when_the_database_went_away_is_finished(game, monkeypatch):
    table = open_table(game)
    operations()
    calls = fails(2, game, monkeypatch)
    report, err = run("--tables", table.number, "--rounds", "1", "--user", "olive_ops")
    [round_] = Round.objects.filter(table=table)
    # Opened and wagered; the result failed twice, then the dealer finished the same round.
    assert calls == [round_.pk] * 3
    assert err.count(f"database unavailable ({LOST}); trying again in ") == 2
    assert err.splitlines()[-1].startswith("database back after ")  # floor.py shows it
    assert report["played"] == 1 and report["finished_after_database_loss"] == [round_.label]
    assert round_.status == Round.Status.RESULT_ENTERED  # the workers settle it
    assert round_.wagers.count() > 0
    events = list(RoundEvent.objects.filter(round=round_).values_list("event", flat=True))
    assert events.count("wagers") >= 1 and events[-1] in {"throw", "reveal"}


def test_a_database_that_never_comes_back_is_a_clear_error_at_the_timeout(monkeypatch):
    real_sic_bo = demo_rounds.RESULTS["sic_bo"]
    table = open_table("sic_bo")
    operations()
    fails(1_000, "sic_bo", monkeypatch)
    with pytest.raises(CommandError) as refused:
        run("--tables", table.number, "--rounds", "1", "--user", "olive_ops", "--timeout", "1")
    assert str(refused.value) == f"the database did not come back before --timeout: {LOST}"
    # Half dealt, not lost: the next run finishes it.
    [round_] = Round.objects.filter(table=table)
    assert round_.status == Round.Status.OPEN
    monkeypatch.setitem(demo_rounds.RESULTS, "sic_bo", real_sic_bo)
    report, _ = run("--tables", table.number, "--rounds", "1", "--user", "olive_ops")
    round_.refresh_from_db()
    assert round_.status == Round.Status.RESULT_ENTERED
    assert report["finished_after_database_loss"] == [round_.label]
    assert Round.objects.filter(table=table).count() == 1


def test_a_round_a_person_is_dealing_is_left_to_them():
    table = open_table("sic_bo")
    operations()
    theirs = round_open(table, by=staff("dana_dealer", "operations"), now=T0 + M)
    report, _ = run(
        "--tables", table.number, "--rounds", "1", "--user", "olive_ops", "--timeout", "1"
    )
    theirs.refresh_from_db()
    assert theirs.status == Round.Status.OPEN and report["played"] == 0


def test_a_round_whose_result_went_in_before_the_answer_was_lost_is_counted_once(monkeypatch):
    """The database went away after the result was committed, before the dealer heard: the
    round is counted as played (once), and no extra round is dealt in its place."""
    table, calls, report, err = _answer_lost_after_the_result(monkeypatch, settled=False)
    [round_] = Round.objects.filter(table=table)
    assert calls == [round_.pk]
    assert round_.status == Round.Status.RESULT_ENTERED
    assert report["played"] == 1 and report["finished_after_database_loss"] == []
    assert err.count("database unavailable") == 1


def test_a_round_settled_before_the_dealer_heard_of_it_is_counted_once(monkeypatch):
    """The result committed, the answer lost with the database, and the workers settled the
    round before the dealer tried again (tests/workers met it): no round is in progress, yet
    the round is counted as played, once, and no extra round is dealt in its place."""
    table, calls, report, err = _answer_lost_after_the_result(monkeypatch, settled=True)
    [round_] = Round.objects.filter(table=table)
    assert calls == [round_.pk]
    assert report["played"] == 1 and report["tables"] == {table.number: 1}
    assert report["pending"] == [] and err.count("database unavailable") == 1


def _answer_lost_after_the_result(monkeypatch, *, settled: bool):
    """One Sic Bo round played by play_rounds whose first result is committed, then (if
    `settled`) settled as a worker would, before the database goes away: the table, the
    rounds the result was entered at, the report and the error output."""
    table = open_table("sic_bo")
    operations()
    real, calls = demo_rounds.RESULTS["sic_bo"], []

    def entered_then_lost(round_, rng, by, now):
        real(round_, rng, by, now)
        calls.append(round_.pk)
        if len(calls) == 1:
            if settled:  # a worker
                Round.objects.filter(pk=round_.pk).update(status=Round.Status.SETTLED)
            raise OperationalError(LOST)

    monkeypatch.setitem(demo_rounds.RESULTS, "sic_bo", entered_then_lost)
    report, err = run("--tables", table.number, "--rounds", "1", "--user", "olive_ops")
    return table, calls, report, err
