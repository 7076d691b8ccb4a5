"""The settlement outbox (issue 7): a request written with the result, a task published
once the transaction commits, and the sweep that sends again what is stuck.

The broker is replaced by a recorder: what matters here is which request ids are handed
to it, and when.
"""

from datetime import timedelta

import pytest

from casino.services import FloorRefused
from games.models import SettlementRequest
from games.services.outbox import SETTLE_TASK, requests_send, requests_sweep
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import M, open_table, opened, place, result, settle, wager
from workers.tasks import round_settle_task

pytestmark = pytest.mark.django_db

S = timedelta(seconds=1)


class Broker:
    """Records every task sent; `down` makes every publish fail as a dead broker would."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list]] = []
        self.down = False

    def send_task(self, name: str, args: list) -> None:
        if self.down:
            raise ConnectionError("broker unreachable")
        self.sent.append((name, args))


@pytest.fixture
def broker(monkeypatch) -> Broker:
    fake = Broker()
    monkeypatch.setattr("games.services.outbox.current_app", fake)
    return fake


def sic_bo_round_played(table, minute: int = 1):
    round_ = opened(table, now=T0 + minute * M)
    place(round_, wager("ann", "small", "10"), now=T0 + (minute + 1) * M)
    return round_


def test_the_settlement_task_is_published_once_the_result_commits(
    broker, django_capture_on_commit_callbacks
):
    table = open_table("sic_bo")
    round_ = sic_bo_round_played(table)
    with django_capture_on_commit_callbacks(execute=True):
        result(round_, "throw", [2, 3, 4])
    request = SettlementRequest.objects.get(round=round_)
    # Besides the round state's writes to the cache (ADR 0009), one publish, once.
    assert broker.sent == [(SETTLE_TASK, [request.pk])]
    assert (request.sent_at, request.sends, request.settled_at) == (T0 + 4 * M, 1, None)


def test_a_refused_result_writes_no_request_and_publishes_nothing(
    broker, django_capture_on_commit_callbacks
):
    table = open_table("sic_bo")
    round_ = sic_bo_round_played(table)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(FloorRefused):
        result(round_, "throw", [2, 3, 7])  # no die has a 7
    assert broker.sent == []
    assert not SettlementRequest.objects.exists()


def test_a_broker_that_is_down_does_not_undo_the_result(broker, django_capture_on_commit_callbacks):
    table = open_table("sic_bo")
    round_ = sic_bo_round_played(table)
    broker.down = True
    with django_capture_on_commit_callbacks(execute=True):
        result(round_, "throw", [2, 3, 4])
    assert SettlementRequest.objects.filter(round=round_, settled_at=None).count() == 1
    assert requests_send([1, 2]) == 0


def test_the_sweep_sends_again_only_what_waited_longer_than_stuck_after(broker):
    table = open_table("sic_bo")
    stuck = sic_bo_round_played(table)
    result(stuck, "throw", [2, 3, 4])  # sent at T0 + 4 min
    request = SettlementRequest.objects.get(round=stuck)

    assert requests_sweep(T0 + 4 * M + 30 * S, stuck_after=30) == 0  # not longer than 30 s
    assert broker.sent == []
    assert requests_sweep(T0 + 4 * M + 31 * S, stuck_after=30) == 1
    assert broker.sent == [(SETTLE_TASK, [request.pk])]
    request.refresh_from_db()
    assert (request.sent_at, request.sends) == (T0 + 4 * M + 31 * S, 2)

    settle(stuck)
    assert requests_sweep(T0 + 60 * M, stuck_after=30) == 0  # a settled request stays put
    assert len(broker.sent) == 1


def test_the_worker_task_settles_by_the_request_id():
    table = open_table("sic_bo")
    round_ = sic_bo_round_played(table)
    result(round_, "throw", [2, 3, 4])
    request = SettlementRequest.objects.get(round=round_)
    assert round_settle_task(request.pk) == "settled"
    assert round_settle_task(request.pk) == "already settled"
