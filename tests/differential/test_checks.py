"""The differential test's own checks can fail: a ledger out of balance, a resolution that
differs, and the message that says where and how to replay it."""

from decimal import Decimal

import pytest

from games.models import LedgerEntry, LedgerLine
from tests.differential.floor import (
    Disagreement,
    Where,
    books_problems,
    decisions_compare,
    engine_rounds,
    floor_play,
    floor_table,
)
from tests.differential.generator import game_generate

SEED = 3  # a Sic Bo game: every round settles on its own


@pytest.fixture(autouse=True)
def _no_par_sheets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("casino.services.submissions.submission_par_sheets", lambda _: {})


def test_a_resolution_that_differs_is_named_with_the_seed_and_the_replay_line() -> None:
    where = Where(game_generate(SEED), "tests/x.py::test_y", round=2, index=3)
    engine = {"2.1": ("win", "10.00", "58 Pa. Code § 625a.6(a)")}
    with pytest.raises(Disagreement) as raised:
        decisions_compare(where, engine, {"2.1": ("lose", "-10.00", "58 Pa. Code § 625a.6(a)")})
    message = str(raised.value)
    assert "sic_bo (standard) seed 3, round 2, settled after its 3 steps" in message
    assert "2.1: engine ('win', '10.00'" in message and "floor ('lose', '-10.00'" in message
    assert "replay: DIFFERENTIAL_SEED=3 .venv/bin/pytest 'tests/x.py::test_y'" in message
    with pytest.raises(Disagreement, match=r"2\.2: engine None, floor"):
        decisions_compare(where, engine, {**engine, "2.2": ("push", "0.00", "")})
    decisions_compare(where, engine, dict(engine))  # the same: nothing raised


@pytest.mark.django_db
def test_the_ledger_checks_find_an_entry_out_of_balance_and_a_net_not_moved() -> None:
    generated = game_generate(SEED)
    engine, still_open = engine_rounds(generated)
    floor_play(generated, engine, still_open, "tests/differential/test_checks.py")
    table = LedgerEntry.objects.filter(key__startswith="settlement:").first().table
    assert books_problems(table) == []
    line = LedgerLine.objects.filter(
        table=table, account=LedgerLine.Account.PLAYER, wager__isnull=False
    ).first()
    LedgerLine.objects.create(
        entry=line.entry,
        table=table,
        account=line.account,
        player=line.player,
        wager=line.wager,
        kind=line.kind,
        amount=Decimal("1.00"),
    )
    problems = books_problems(table)
    assert any(p.startswith(f"entry {line.entry.key} sums to 1") for p in problems), problems
    assert any(p.startswith(f"{line.wager.ref}: its player lines sum to") for p in problems)


@pytest.mark.django_db
def test_each_game_gets_a_table_of_its_own_holder_with_its_options() -> None:
    manual, automated = game_generate(3), game_generate(23)  # two Sic Bo games
    assert (manual.options["shaker"], automated.options["shaker"]) == ("manual", "automated")
    tables = [floor_table(manual), floor_table(automated)]
    assert tables[0].holder != tables[1].holder
    assert [t.automated_shaker for t in tables] == [False, True]
    assert [str(t.min_wager) for t in tables] == ["1.00", "10.00"]
