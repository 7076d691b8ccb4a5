"""A stuck settlement is an alarm, not a loop (issue 18, point 6).

A settlement that fails is recorded on its request by the worker's own task (kind, error,
first and last failure, count); the sweep then leaves it alone, as it leaves a request
sent CASINO_SETTLEMENT_MAX_SENDS times; "send again" in the admin clears it. The jam the
issue found (a second resolution for a wager, a round the engine refuses on replay) ends
as one alert, sent once, never again on its own.

The broker is a recorder (tests/games/test_settlement_outbox.py): what matters is which
request ids are handed to it, and when.
"""

import pickle
from datetime import timedelta
from decimal import Decimal

import pytest
from celery.exceptions import Retry, SoftTimeLimitExceeded
from django.db import IntegrityError, OperationalError, connection

from casino.floor_page import floor_snapshot
from casino.models import Table
from games.models import LedgerEntry, Resolution, Round, RoundEvent, SettlementRequest
from games.services import alerts
from games.services.outbox import SETTLE_TASK, requests_send_again, requests_sweep
from games.services.settlement import (
    SettlementError,
    error_text,
    request_failure_record,
    round_settle,
)
from tests.casino.floor_fixtures import T0
from tests.games.round_fixtures import M, open_table, opened, place, result, settle, wager
from tests.games.test_settlement_outbox import Broker
from workers.tasks import SETTLE_RETRIES, round_settle_task

pytestmark = pytest.mark.django_db

S = timedelta(seconds=1)
H = timedelta(hours=1)
RESULT_AT = T0 + 4 * M  # result() enters the throw then: the request's first send
Kind = SettlementRequest.FailureKind


@pytest.fixture
def broker(monkeypatch) -> Broker:
    fake = Broker()
    monkeypatch.setattr("games.services.outbox.current_app", fake)
    return fake


def played(minute: int = 1, number: str = "SB-01") -> Round:
    """A Sic Bo round with ann's $10 on small and the throw 2-3-4 entered at RESULT_AT
    (minute 1), so its settlement request is written and sent once."""
    table = open_table("sic_bo", number=number)
    round_ = opened(table, now=T0 + minute * M)
    place(round_, wager("ann", "small", "10"), now=T0 + (minute + 1) * M)
    result(round_, "throw", [2, 3, 4], now=T0 + (minute + 3) * M)
    return round_


def request_of(round_: Round) -> SettlementRequest:
    return SettlementRequest.objects.get(round=round_)


def jammed_by_a_second_resolution(round_: Round) -> None:
    """The issue's jam: a Resolution already written for a wager this round decides (a
    Lucky Shooter's "push" of an earlier round did it), so settling breaks the one-to-one."""
    [bet] = round_.wagers.all()
    throw = round_.events.get(event="throw")
    Resolution.objects.create(
        wager=bet, round=round_, event=throw, result="push", net=Decimal("0.00"),
        stake=Decimal("10.00"), cite="625a.4(a)",
    )  # fmt: skip


def refused_on_replay(round_: Round) -> None:
    """A recorded event the engine refuses when the worker replays the round."""
    last = round_.events.order_by("-seq").first()
    RoundEvent.objects.create(
        round=round_, seq=last.seq + 1, event="throw", payload=[7, 7, 7], at=RESULT_AT
    )


def nothing_settled(round_: Round) -> None:
    round_.refresh_from_db()
    assert (round_.status, round_.settled_at) == (Round.Status.RESULT_ENTERED, None)
    assert not LedgerEntry.objects.filter(key=f"settlement:{round_.pk}").exists()


# -- The jam, through the worker's task ----------------------------------------------------


def test_the_issue_s_jam_ends_as_one_alert_never_sent_again(broker):
    round_ = played()
    jammed_by_a_second_resolution(round_)
    request = request_of(round_)

    done = round_settle_task.apply(args=[request.pk]).get()

    assert done.startswith("failed: IntegrityError: ")
    request.refresh_from_db()
    assert (request.failures, request.failure_kind, request.sends) == (1, "integrity", 1)
    assert request.error.startswith("IntegrityError: ") and "wager_id" in request.error
    assert request.first_failed_at == request.last_failed_at is not None
    nothing_settled(round_)
    assert Resolution.objects.filter(round=round_).count() == 1  # the planted one only
    # The sweep, long after: not sent again, ever.
    for later in (RESULT_AT + 31 * S, RESULT_AT + H, RESULT_AT + 24 * H):
        assert requests_sweep(later, stuck_after=30) == 0
    assert broker.sent == []
    request.refresh_from_db()
    assert (request.failures, request.sends) == (1, 1)
    assert alerts.request_status(request, RESULT_AT + H) == alerts.FAILED


def test_a_round_the_engine_refuses_on_replay_is_an_alert_at_once():
    round_ = played()
    refused_on_replay(round_)
    request = request_of(round_)

    done = round_settle_task(request.pk)

    assert done == (
        "failed: SettlementError: SB-01 round 1 event #4 (throw) is refused on replay: "
        "A die shows 1 to 6; 7 is not a face of a die."
    )
    request.refresh_from_db()
    assert (request.failures, request.failure_kind) == (1, "refused")
    assert request.error == done.removeprefix("failed: ")
    nothing_settled(round_)
    alert = alerts.request_alert(request, RESULT_AT + H)
    assert (alert.status, alert.kind, alert.failures, alert.sends) == ("failed", "refused", 1, 1)
    assert alert.since == request.first_failed_at
    assert alert.guidance == alerts.GUIDANCE[Kind.REFUSED]


def test_a_failed_request_delivered_again_is_not_settled_again_nor_counted():
    round_ = played()
    refused_on_replay(round_)
    request = request_of(round_)
    round_settle_task(request.pk)
    first = SettlementRequest.objects.get(pk=request.pk)

    assert round_settle_task(request.pk) == "failed before: waiting for a person to send it again"
    again = SettlementRequest.objects.get(pk=request.pk)
    assert (again.failures, again.last_failed_at, again.error) == (
        1,
        first.last_failed_at,
        first.error,
    )


# -- Transient errors: retried, then an alert ----------------------------------------------


def test_a_database_error_is_retried_and_after_the_last_retry_is_an_alert(monkeypatch):
    round_ = played()
    request = request_of(round_)
    calls = []

    def database_down(request_id, *, worker="", now=None):
        calls.append(request_id)
        raise OperationalError("could not connect to server: Connection refused")

    monkeypatch.setattr("workers.tasks.round_settle", database_down)
    done = round_settle_task.apply(args=[request.pk]).get()

    assert len(calls) == 1 + SETTLE_RETRIES == 9
    assert done == (
        "failed after 8 retries: OperationalError: could not connect to server: Connection refused"
    )
    request.refresh_from_db()
    assert (request.failures, request.failure_kind) == (1, "services")
    assert request.error == "OperationalError: could not connect to server: Connection refused"
    assert alerts.request_alert(request, RESULT_AT).guidance == alerts.GUIDANCE[Kind.SERVICES]


def test_a_database_error_that_passes_settles_with_no_alert(monkeypatch):
    round_ = played()
    request = request_of(round_)
    calls = []

    def down_twice(request_id, *, worker="", now=None):
        calls.append(request_id)
        if len(calls) <= 2:
            raise OperationalError("server closed the connection unexpectedly")
        return round_settle(request_id, worker=worker, now=RESULT_AT + M)

    monkeypatch.setattr("workers.tasks.round_settle", down_twice)
    assert round_settle_task.apply(args=[request.pk]).get() == "settled"
    assert len(calls) == 3
    request.refresh_from_db()
    assert (request.failures, request.error, request.settled_at) == (0, "", RESULT_AT + M)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_connection_the_error_broke_is_closed_so_the_retry_opens_a_new_one(monkeypatch):
    """Workers keep their connection across tasks: a broken one is dropped at once.
    (Transactional: a test's own transaction would keep the connection open.)"""
    request = request_of(played())

    def connection_lost(request_id, *, worker="", now=None):
        connection.errors_occurred = True  # as Django marks it when the server goes away
        raise OperationalError("server closed the connection unexpectedly")

    closed = []
    close = connection.close  # SQLite's in-memory test database ignores it: counted here

    def counted_close() -> None:
        closed.append(True)
        close()

    monkeypatch.setattr("workers.tasks.round_settle", connection_lost)
    monkeypatch.setattr(connection, "is_usable", lambda: False)
    monkeypatch.setattr(connection, "close", counted_close)
    connection.ensure_connection()
    with pytest.raises(OperationalError):
        round_settle_task(request.pk)
    assert closed == [True]
    if connection.vendor == "postgresql":
        assert connection.connection is None
    monkeypatch.undo()
    assert SettlementRequest.objects.get(pk=request.pk).failures == 0  # a new connection


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_soft_limit_landing_in_begin_on_the_last_retry_is_still_recorded(monkeypatch):
    """The soft time limit raised the moment the driver's BEGIN returned, before Django
    marked the block atomic (casino/db_connections.py): the failure's record, in the same
    task, would fail "cannot start a transaction within a transaction" on that connection;
    it is rolled back and closed first. (Transactional: no test transaction around it.)"""
    request = request_of(played())

    def begun_then_limited(request_id, *, worker="", now=None):
        connection.cursor().execute("BEGIN")
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr("workers.tasks.round_settle", begun_then_limited)
    done = round_settle_task.apply(args=[request.pk], retries=SETTLE_RETRIES).get()
    assert done == "failed after 8 retries: SoftTimeLimitExceeded: SoftTimeLimitExceeded()"
    request.refresh_from_db()
    assert (request.failures, request.failure_kind) == (1, "services")


def test_called_directly_a_database_error_is_raised_for_the_caller_and_recorded_nowhere(
    monkeypatch,
):
    """Outside a worker Celery's retry raises the error itself: nothing loops either way."""
    round_ = played()
    request = request_of(round_)

    def database_down(request_id, *, worker="", now=None):
        raise OperationalError("connection refused")

    monkeypatch.setattr("workers.tasks.round_settle", database_down)
    with pytest.raises(OperationalError) as raised:
        round_settle_task(request.pk)
    back = pickle.loads(pickle.dumps(raised.value))
    assert (type(back), back.args) == (OperationalError, ("connection refused",))
    request.refresh_from_db()
    assert request.failures == 0


# -- What crosses a process boundary -------------------------------------------------------


def test_the_errors_the_record_and_the_alert_survive_pickling():
    round_ = played()
    refused_on_replay(round_)
    request = request_of(round_)
    with pytest.raises(SettlementError) as raised:
        settle(round_)
    back = pickle.loads(pickle.dumps(raised.value))
    assert (type(back), back.args) == (SettlementError, raised.value.args)

    done = round_settle_task(request.pk)
    request.refresh_from_db()
    assert pickle.loads(pickle.dumps(done)) == done
    stored = pickle.loads(pickle.dumps(request))
    assert (stored.error, stored.failure_kind, stored.first_failed_at) == (
        request.error,
        "refused",
        request.first_failed_at,
    )
    alert = alerts.request_alert(request, RESULT_AT + H)
    assert pickle.loads(pickle.dumps(alert)) == alert
    retry = Retry(exc=OperationalError("connection refused"), when=4)
    assert str(pickle.loads(pickle.dumps(retry)).exc) == "connection refused"


def test_the_recorded_error_is_bounded_and_names_its_class():
    long = IntegrityError("x" * 5000)
    text = error_text(long)
    assert len(text) == 1000 and text.startswith("IntegrityError: xxx") and text.endswith("…")
    assert error_text(SettlementError("short")) == "SettlementError: short"


def test_a_failure_of_a_request_settled_meanwhile_is_not_recorded():
    round_ = played()
    request = request_of(round_)
    settle(round_)
    assert request_failure_record(request.pk, OperationalError("late"), now=RESULT_AT) is None
    assert request_failure_record(10**9, OperationalError("gone"), now=RESULT_AT) is None
    request.refresh_from_db()
    assert (request.failures, request.error) == (0, "")


def test_a_second_failure_keeps_the_first_moment_and_counts():
    round_ = played()
    request = request_of(round_)
    request_failure_record(request.pk, SettlementError("first"), now=RESULT_AT + M)
    request_failure_record(request.pk, IntegrityError("second"), now=RESULT_AT + 2 * M)
    request.refresh_from_db()
    assert (request.failures, request.failure_kind, request.error) == (
        2,
        "integrity",
        "IntegrityError: second",
    )
    assert (request.first_failed_at, request.last_failed_at) == (RESULT_AT + M, RESULT_AT + 2 * M)


# -- The sweep and CASINO_SETTLEMENT_MAX_SENDS ---------------------------------------------


def test_a_request_sent_max_sends_times_is_sent_no_more_and_is_an_alert(broker, settings):
    """MAX_SENDS 3: the result sends it (1), the sweep at +31 s (2) and +62 s (3); at +93 s
    the sweep would send it a fourth time, and does not."""
    settings.CASINO_SETTLEMENT_MAX_SENDS = 3
    settings.CASINO_SETTLEMENT_STUCK_SECONDS = 30
    request = request_of(played())

    assert requests_sweep(RESULT_AT + 31 * S) == 1
    assert requests_sweep(RESULT_AT + 62 * S) == 1
    request.refresh_from_db()
    assert (request.sends, request.sent_at) == (3, RESULT_AT + 62 * S)
    # Sent a third time: in hand until its time has run out as the sweep counts it.
    assert alerts.request_status(request, RESULT_AT + 92 * S) == alerts.PENDING
    assert requests_sweep(RESULT_AT + 93 * S) == 0
    assert requests_sweep(RESULT_AT + 24 * H) == 0
    assert broker.sent == [(SETTLE_TASK, [request.pk])] * 2
    alert = alerts.request_alert(request, RESULT_AT + 93 * S)
    assert (alert.status, alert.kind, alert.sends, alert.failures) == (
        "too_many_sends",
        "too_many_sends",
        3,
        0,
    )
    assert alert.since == RESULT_AT  # when the request was written
    assert alert.error == "sent 3 times; no worker settled it or reported why"
    assert alert.guidance == alerts.GUIDANCE[alerts.TOO_MANY_SENDS]


def test_the_sweep_sends_a_pending_request_but_not_a_failed_one_beside_it(broker):
    pending = request_of(played(1, "SB-01"))
    failed_round = played(1, "SB-02")
    refused_on_replay(failed_round)
    failed = request_of(failed_round)
    round_settle_task(failed.pk)

    assert requests_sweep(RESULT_AT + 31 * S, stuck_after=30) == 1
    assert broker.sent == [(SETTLE_TASK, [pending.pk])]


def test_send_again_clears_the_alert_and_the_worker_and_sweep_take_it_again(
    broker, settings, monkeypatch
):
    settings.CASINO_SETTLEMENT_MAX_SENDS = 2
    failing = played(1, "SB-01")
    failed = request_of(failing)
    too_many = request_of(played(1, "SB-02"))
    SettlementRequest.objects.filter(pk=too_many.pk).update(sends=2)

    def broken(round_, now):
        raise RuntimeError("the engine package is missing")

    monkeypatch.setattr("games.services.settlement._settle", broken)
    assert round_settle_task(failed.pk) == "failed: RuntimeError: the engine package is missing"
    failed.refresh_from_db()
    assert (failed.failures, failed.failure_kind) == (1, "other")
    assert requests_sweep(RESULT_AT + H, stuck_after=30) == 0
    monkeypatch.undo()
    monkeypatch.setattr("games.services.outbox.current_app", broker)

    later = RESULT_AT + 2 * H
    assert requests_send_again([failed.pk, too_many.pk], later) == 2
    assert broker.sent == [(SETTLE_TASK, [failed.pk]), (SETTLE_TASK, [too_many.pk])]
    failed.refresh_from_db()
    too_many.refresh_from_db()
    cleared = ("", "", None, None, 0)
    assert (
        failed.failure_kind,
        failed.error,
        failed.first_failed_at,
        failed.last_failed_at,
        failed.failures,
    ) == cleared
    # The failed one keeps its count (1 < 2) and is sent once more; the other starts again.
    assert (failed.sends, failed.sent_at) == (2, later)
    assert (too_many.sends, too_many.sent_at) == (1, later)
    assert alerts.request_status(failed, later + H) == alerts.TOO_MANY_SENDS
    assert alerts.request_status(too_many, later + 31 * S) == alerts.PENDING
    assert requests_sweep(later + 31 * S, stuck_after=30) == 1  # too_many, sent a 2nd time
    # The worker takes them again: both settle.
    assert round_settle(failed.pk, worker="w", now=later + M) == "settled"
    assert round_settle(too_many.pk, worker="w", now=later + M) == "settled"


def test_send_again_leaves_a_settled_request_alone(broker):
    round_ = played()
    request = request_of(round_)
    settle(round_)
    assert requests_send_again([request.pk], RESULT_AT + H) == 0
    request.refresh_from_db()
    assert (request.sends, broker.sent) == (1, [])


# -- The status, as a filter and one by one ------------------------------------------------


def test_every_request_has_exactly_one_status_and_the_filter_agrees(settings):
    settings.CASINO_SETTLEMENT_MAX_SENDS = 2
    settings.CASINO_SETTLEMENT_STUCK_SECONDS = 30
    settled_round = played(1, "SB-01")
    settle(settled_round)
    pending = request_of(played(1, "SB-02"))
    failed_round = played(1, "SB-03")
    refused_on_replay(failed_round)
    round_settle_task(request_of(failed_round).pk)
    too_many = request_of(played(1, "SB-04"))
    SettlementRequest.objects.filter(pk=too_many.pk).update(sends=2)
    unsent = request_of(played(1, "SB-05"))  # sent once, 91 s before `now`
    SettlementRequest.objects.filter(pk=unsent.pk).update(sent_at=RESULT_AT - 60 * S)
    now = RESULT_AT + 31 * S
    expected = {
        request_of(settled_round).pk: alerts.SETTLED,
        pending.pk: alerts.PENDING,
        request_of(failed_round).pk: alerts.FAILED,
        too_many.pk: alerts.TOO_MANY_SENDS,
        unsent.pk: alerts.NOT_SENT_AGAIN,
    }
    for request in SettlementRequest.objects.all():
        assert alerts.request_status(request, now) == expected[request.pk]
    for status in alerts.STATUS_LABELS:
        found = SettlementRequest.objects.filter(alerts.status_q(status, now))
        assert [r.pk for r in found] == [pk for pk, s in expected.items() if s == status]
    with pytest.raises(ValueError, match="no settlement request status 'stuck'"):
        alerts.status_q("stuck", now)


def test_a_request_whose_only_send_was_lost_and_no_sweep_sent_again_is_an_alert(broker, settings):
    """Found in review: the broker down at the result's commit (the one message lost) and
    beat not running, a request stayed `pending` for ever, under MAX_SENDS, with no alert
    while its table could start no round. With the sweep looking every 5 s and sending
    again after 30 s, a request last sent more than 2 x (30 + 5) = 70 s ago has been missed
    twice: it is an alert until something sends it again."""
    settings.CASINO_SETTLEMENT_STUCK_SECONDS = 30
    settings.CELERY_BEAT_SCHEDULE = {
        **settings.CELERY_BEAT_SCHEDULE,
        "settlement-sweep": {"task": "monitoring.settlement_sweep", "schedule": 5},
    }
    round_ = played()
    request = request_of(round_)
    assert (request.sends, request.sent_at) == (1, RESULT_AT)

    assert alerts.request_status(request, RESULT_AT + 70 * S) == alerts.PENDING
    alert = alerts.request_alert(request, RESULT_AT + 71 * S)
    assert (alert.status, alert.kind, alert.sends, alert.failures, alert.since) == (
        "not_sent_again",
        "not_sent_again",
        1,
        0,
        RESULT_AT,
    )
    assert alert.error == f"sent 1 times, last at {RESULT_AT.isoformat()}; not sent again since"
    assert alert.guidance == alerts.GUIDANCE[alerts.NOT_SENT_AGAIN]
    snapshot = floor_snapshot(
        now=RESULT_AT + 24 * H, tables=Table.objects.filter(pk=round_.table_id)
    )
    assert snapshot["tables"][0]["settlement_alert"]["status"] == "not_sent_again"

    # The sweep, started again, sends it: in hand again, and settled by the worker.
    assert requests_sweep(RESULT_AT + 24 * H) == 1
    request.refresh_from_db()
    assert alerts.request_status(request, RESULT_AT + 24 * H + S) == alerts.PENDING
    assert settle(round_) == "settled"
