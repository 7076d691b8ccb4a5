"""The way out of a round waiting on its device, racing the device's late report (issue 33,
part 4): the void and the report reach the round at the same moment, from two connections.
Each takes the round's row lock; whichever comes second finds the round moved on and is
refused, so the round is decided once: voided with every stake returned, or decided by the
device's report, never both, never neither (docs/regulations.md, Devices, reading 9).

Real row locks need PostgreSQL: on SQLite these tests are skipped, and with CI=true they
fail instead (tests/services.py). Run them with e.g.
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino .venv/bin/python -m pytest \\
        tests/devices/test_device_wait_race.py
"""

import threading
from collections.abc import Callable

import pytest
from django.db import connection

from casino.services.errors import FloorRefused
from devices.models import Device
from games.models import Resolution, Round, SettlementRequest
from gaming.reports import report_apply, report_read
from gaming.rounds import round_void
from tests.casino.floor_fixtures import T0, operations
from tests.devices.test_consequences import PAI_GOW_WAGERS, STACKS, device_at, pai_gow_table
from tests.games.round_fixtures import (
    M,
    books_balance_check,
    close,
    fresh,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
)
from tests.services import in_ci

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        message = (
            f"the database is {connection.vendor}; two connections racing for a round's row "
            "lock need PostgreSQL: set DATABASE_URL=postgres://... to run this test"
        )
        if in_ci():
            pytest.fail(f"CI=true and {message}", pytrace=False)
        pytest.skip(message)


def at_once(*calls: Callable[[], object]) -> list[str]:
    """Run each call in its own thread (its own connection) from one barrier: "done" or
    the refusal's reasons, in the calls' order."""
    barrier = threading.Barrier(len(calls))
    said: list[str] = [""] * len(calls)
    errors: list[BaseException] = []

    def work(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=30)
            call()
            said[index] = "done"
        except FloorRefused as refused:
            said[index] = "; ".join(refused.reasons)
        except BaseException as error:  # reported in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return said


def report_call(device: Device, round_: Round, field: str, value: object, now) -> Callable:
    body = {"table": round_.table.number, "round": round_.number, field: value}

    def call() -> None:
        report_apply(device, report_read(device, body), now=now)

    return call


def void_call(round_: Round, section: str, now) -> Callable:
    return lambda: round_void(Round.objects.get(pk=round_.pk), section, by=operations(), now=now)


@pytest.mark.parametrize(
    ("game", "section", "field", "value"),
    [("pai_gow", "621a.6(a)(1)", "number", 5), ("sic_bo", "625a.7(c)", "dice", [2, 3, 4])],
)
def test_the_void_and_the_late_report_at_once_decide_the_round_once(game, section, field, value):
    if game == "pai_gow":
        table = pai_gow_table(shaker_if_rng_down=False)
        device, wagers = device_at(table, "pai_gow_rng"), PAI_GOW_WAGERS
    else:
        table = open_table("sic_bo", automated_shaker=True)
        device = device_at(table, "automated_shaker")
        wagers = (wager("ann", "small", "10"), wager("bob", "big", "20"))
    for n in range(4):  # four rounds: four chances for the two to collide
        start = T0 + 10 * n * M
        round_ = opened(table, now=start + M)
        place(round_, *wagers, now=start + 2 * M)
        close(round_, now=start + 3 * M)
        said = at_once(
            void_call(round_, section, start + 4 * M),
            report_call(device, round_, field, value, start + 4 * M),
        )
        assert sorted(s == "done" for s in said) == [False, True], said
        events = {e.event for e in fresh(round_).events.all()}
        voided = said[0] == "done"
        assert ("irregularity" in events or "shaker_malfunction" in events) == voided
        loser = said[1] if voided else said[0]
        assert loser in (
            f"{round_} is result entered, settling",
            "the generator posted 5 for this round: that number gives the starting position; "
            "deal from it (58 Pa. Code § 621a.6(b))",
        ), said
        if game == "pai_gow" and not voided:  # the number given: the round is dealt from it
            refs = [w.ref for w in round_.wagers.all()]
            result(round_, "deal", {"stacks": STACKS}, now=start + 5 * M)
            result(round_, "set", dict.fromkeys(refs, "house_way"), now=start + 5 * M)
            result(round_, "reveal", True, now=start + 5 * M)
        request = SettlementRequest.objects.get(round=round_)
        assert settle(round_, now=start + 6 * M) == "settled", request
        decided = Resolution.objects.filter(round=round_)
        assert decided.count() == len(wagers)
        if voided:  # every stake returned
            assert set(decided.values_list("result", "net")) == {("push", 0)}
    books_balance_check(table)
