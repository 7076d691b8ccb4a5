"""Each event is written in the transaction that makes it true (issue 33, part 3): with it,
or not at all when it rolls back; only when an active endpoint of the table's certificate
holder wants its type; and its fan-out is published once it commits.

On SQLite the settlement writes "round settled" through the ORM (`event_record`); on
PostgreSQL (DATABASE_URL=postgres://...) inside its own two statements: these tests run
on both, and CI runs them on PostgreSQL.
"""

from datetime import datetime, timedelta

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction

from casino.models import AuditEntry, CertificateHolder, SetInPlay, Table
from casino.services import equipment
from casino.services.equipment import schedule_check, set_changeout
from casino.services.tables import table_suspend
from devices.models import Device
from games.models import SettlementRequest
from games.services.alerts import GUIDANCE, too_many_sends_record
from games.services.outbox import requests_resend
from games.services.settlement import SettlementError, request_failure_record, round_settle
from gaming.devices import device_out_of_order
from gaming.tables import table_close, table_open
from tests.casino.floor_fixtures import T0, holder_get, operations
from tests.games.round_fixtures import M, open_table, opened, place, result, settle, wager
from tests.webhooks.fixtures import endpoint_make
from webhooks.events import iso, round_waiting_data
from webhooks.models import Event
from webhooks.services import FAN_OUT_TASK, QUEUE, event_record, round_waiting_record

pytestmark = pytest.mark.django_db
URL = "http://127.0.0.1:9/hooks"  # nothing is sent here: these tests record, never deliver


class Broker:
    """Records every task published."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list, str]] = []

    def send_task(self, name: str, args: list, queue: str) -> None:
        self.sent.append((name, args, queue))


@pytest.fixture
def broker(monkeypatch) -> Broker:
    fake = Broker()
    monkeypatch.setattr("webhooks.services.current_app", fake)
    return fake


def round_to_settle(table: Table, minute: int = 1):
    round_ = opened(table, now=T0 + minute * M)
    place(round_, wager("ann", "small", "10"), now=T0 + (minute + 1) * M)
    return result(round_, "throw", [1, 2, 3], now=T0 + (minute + 2) * M)


# --- round settled ------------------------------------------------------------------------


def test_a_settled_round_writes_its_event_and_publishes_the_fan_out_on_commit(
    broker, django_capture_on_commit_callbacks
):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["round.settled"])
    round_ = round_to_settle(table)
    with django_capture_on_commit_callbacks(execute=True):
        assert settle(round_, now=T0 + 5 * M) == "settled"
    event = Event.objects.get()
    assert (event.event_type, event.holder_id, event.table_id) == (
        "round.settled",
        table.holder_id,
        table.pk,
    )
    assert (event.data, event.occurred_at, event.fanned_out_at, event.body) == (
        {"round": round_.pk},
        T0 + 5 * M,
        None,
        "",
    )
    assert broker.sent == [(FAN_OUT_TASK, [event.pk], QUEUE)]


def test_the_event_rolls_back_with_the_settlement(broker, monkeypatch):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["round.settled"])
    round_ = round_to_settle(table)

    def fails(_count):  # called inside the settlement's transaction, after its writes
        raise RuntimeError("the database went away before the commit")

    monkeypatch.setattr("games.services.settlement.metrics.on_commit", fails)
    with pytest.raises(RuntimeError):
        settle(round_, now=T0 + 5 * M)
    assert not Event.objects.exists()
    assert SettlementRequest.objects.get(round=round_).settled_at is None
    assert broker.sent == []


def test_nothing_is_written_when_no_endpoint_of_the_holder_wants_it(broker):
    table = open_table("sic_bo")
    other = CertificateHolder.objects.create(name="Allegheny Test Casino")
    endpoint_make(other, URL, ["round.settled"])  # another holder's
    endpoint_make(table.holder, URL, ["table.status_changed"])  # another type
    paused, _ = endpoint_make(table.holder, URL, ["round.settled"])
    Event.objects.all().delete()
    type(paused).objects.filter(pk=paused.pk).update(active=False)
    assert settle(round_to_settle(table), now=T0 + 5 * M) == "settled"
    assert not Event.objects.filter(event_type="round.settled").exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the one-statement settlement")
@pytest.mark.parametrize("wanted", [True, False])
def test_on_postgresql_the_event_adds_no_statement_to_the_settlement(
    broker, django_assert_num_queries, wanted
):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["round.settled" if wanted else "table.status_changed"])
    round_ = round_to_settle(table)
    request = SettlementRequest.objects.get(round=round_)
    # The savepoint pair of the test's transaction, the lock (which asks whether anyone
    # wants the event) and the write (which writes it, then): wanted or not.
    with django_assert_num_queries(4):
        assert round_settle(request.pk, now=T0 + 5 * M) == "settled"
    found = Event.objects.filter(event_type="round.settled")
    assert [e.data for e in found] == ([{"round": round_.pk}] if wanted else [])


# --- table status -------------------------------------------------------------------------


def test_each_table_status_change_is_an_event_with_what_it_was(broker):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["table.status_changed"])
    table_suspend(table, by=operations(), now=T0 + M)
    table_open(table, by=operations(), now=T0 + 2 * M)
    table_close(table, by=operations(), now=T0 + 3 * M)
    assert [
        (e.data["was"], e.data["status"], e.data["changed_at"], e.table_id)
        for e in Event.objects.order_by("id")
    ] == [
        ("open", "suspended", iso(T0 + M), table.pk),
        ("suspended", "open", iso(T0 + 2 * M), table.pk),
        ("open", "closed", iso(T0 + 3 * M), table.pk),
    ]
    assert Event.objects.first().data == {
        "table": table.pk,
        "table_number": table.number,
        "game": "sic_bo",
        "status": "suspended",
        "was": "open",
        "changed_at": iso(T0 + M),
    }


def test_a_refused_or_rolled_back_status_change_writes_no_event(broker):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["table.status_changed"])
    with pytest.raises(RuntimeError), transaction.atomic():
        table_suspend(table, by=operations(), now=T0 + M)
        raise RuntimeError("the request failed after the suspension")
    assert not Event.objects.exists()
    with pytest.raises(Exception, match="already open"):
        table_open(table, by=operations(), now=T0 + M)
    assert not Event.objects.exists()


# --- devices ------------------------------------------------------------------------------


def test_a_device_out_of_order_is_an_event_and_so_is_the_table_it_suspends(broker):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["device.status_changed", "table.status_changed"])
    lamp = Device.objects.get(table=table, kind="illumination_device")
    device_out_of_order(lamp, "the lamp under 4-5-6 is out", by=operations(), now=T0 + M)
    device, suspended = Event.objects.order_by("id")
    assert device.event_type == "device.status_changed"
    assert device.data == {
        "device": lamp.pk,
        "kind": "illumination_device",
        "serial_number": lamp.serial_number,
        "position": None,
        "table": table.pk,
        "table_number": table.number,
        "status": "out_of_order",
        "was": "active",
        "event": "out_of_order",
        "detail": "the lamp under 4-5-6 is out",
        "changed_at": iso(T0 + M),
    }
    # § 625a.7(b): the illumination device down suspends the table, in the same transaction.
    assert (suspended.event_type, suspended.data["status"], suspended.data["was"]) == (
        "table.status_changed",
        "suspended",
        "open",
    )


# --- equipment ----------------------------------------------------------------------------


def test_the_schedule_check_tells_due_soon_then_overdue_once_each(broker):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["equipment.due_soon", "equipment.overdue"])
    row = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    schedule_check(row.warn_from - M)  # in date: nothing to tell
    assert not Event.objects.exists()
    schedule_check(row.warn_from + M)
    schedule_check(row.warn_from + 2 * M)  # no change: nothing more
    schedule_check(row.due_at + M)
    soon, overdue = Event.objects.order_by("id")
    assert (soon.event_type, overdue.event_type) == ("equipment.due_soon", "equipment.overdue")
    assert soon.data == {
        "set_in_play": row.pk,
        "equipment_set": row.equipment_set_id,
        "identifier": row.equipment_set.identifier,
        "composition": "three_dice",
        "table": table.pk,
        "table_number": table.number,
        "due_at": iso(row.due_at),
        "warn_from": iso(row.warn_from),
        "limit": row.limit,
    }
    assert overdue.occurred_at == row.due_at + M


def test_two_schedule_checks_at_once_tell_due_soon_once(broker, monkeypatch):
    """A second beat's check reads the row before the first saves it (review finding W4):
    the state is saved and told by one of them only."""
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["equipment.due_soon"])
    row = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    at = row.warn_from + M
    real, other = equipment.set_limit, {}

    def read_then_overtaken(set_in_play):
        found = real(set_in_play)
        if not other:  # the other check runs to its end between this read and the save
            other["running"] = True
            other["counts"] = schedule_check(at)
        return found

    monkeypatch.setattr(equipment, "set_limit", read_then_overtaken)
    first = schedule_check(at)
    assert (other["counts"]["changed"], first["changed"]) == (1, 0)
    assert [e.event_type for e in Event.objects.all()] == ["equipment.due_soon"]
    changes = AuditEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(SetInPlay),
        object_id=str(row.pk),
        action="changed",
    )
    assert [entry.after for entry in changes] == [{"schedule_state": "due_soon"}]


def test_a_set_changed_out_during_the_check_is_not_told_overdue(broker, monkeypatch):
    """The check read the set in play; a changeout took it out before the save: no
    "overdue" for a set out of play, and its record is left as the changeout wrote it."""
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["equipment.overdue"])
    row = SetInPlay.objects.get(table=table, removed_at__isnull=True)
    at = row.due_at + M
    real = equipment.set_limit

    def read_then_changed_out(set_in_play):
        found = real(set_in_play)
        if set_in_play.pk == row.pk:
            set_changeout(table, row.composition, reason="schedule", by=operations(), now=at)
        return found

    monkeypatch.setattr(equipment, "set_limit", read_then_changed_out)
    assert schedule_check(at)["changed"] == 0
    assert not Event.objects.filter(event_type="equipment.overdue").exists()
    row.refresh_from_db()
    assert (row.removed_at, row.schedule_state) == (at, "in_date")


# --- settlement alerts --------------------------------------------------------------------


def test_a_failed_settlement_is_an_alert_event_written_with_its_record(broker):
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["settlement.alert"])
    round_ = round_to_settle(table)
    request = SettlementRequest.objects.get(round=round_)
    request_failure_record(request.pk, SettlementError("refused on replay"), now=T0 + 6 * M)
    event = Event.objects.get()
    assert event.data == {
        "request": request.pk,
        "round": round_.pk,
        "round_number": round_.number,
        "table": table.pk,
        "table_number": table.number,
        "game": "sic_bo",
        "status": "failed",
        "kind": "refused",
        "error": "SettlementError: refused on replay",
        "since": iso(T0 + 6 * M),
        "failures": 1,
        "sends": 1,
        "guidance": GUIDANCE["refused"],
    }


def test_too_many_sends_is_told_once_per_last_send(broker, settings):
    settings.CASINO_SETTLEMENT_MAX_SENDS = 2
    table = open_table("sic_bo")
    endpoint_make(table.holder, URL, ["settlement.alert"])
    request = SettlementRequest.objects.get(round=round_to_settle(table))
    requests_resend([request.pk], T0 + 5 * M)  # its second send: at the limit
    stuck = T0 + 5 * M + timedelta(seconds=settings.CASINO_SETTLEMENT_STUCK_SECONDS + 1)
    assert too_many_sends_record(T0 + 5 * M) == 0  # at the limit, not stuck yet
    assert too_many_sends_record(stuck) == 1
    assert too_many_sends_record(stuck + M) == 0  # told already
    (event,) = Event.objects.all()
    assert (event.data["status"], event.data["kind"], event.data["sends"]) == (
        "too_many_sends",
        "too_many_sends",
        2,
    )
    # A person sends it again; stuck at the limit again, it is told again.
    SettlementRequest.objects.filter(pk=request.pk).update(sends=1)
    requests_resend([request.pk], stuck + 2 * M)
    assert too_many_sends_record(stuck + 3 * M) == 1
    assert Event.objects.count() == 2


# --- the recording function ---------------------------------------------------------------


S = timedelta(seconds=1)


def _wait(since: datetime) -> dict:
    """A wait as gaming/waits.py `waiting_data` gives it (times as datetimes)."""
    return {
        "round": {"id": 41, "number": 6},
        "kind": "pai_gow_rng",
        "kind_display": "Pai Gow random number generator",
        "device": {"id": 3, "serial": "RNG-1", "status": "active", "status_display": "Active"},
        "report": "number",
        "step": "the starting number",
        "cite": "58 Pa. Code § 621a.6(a)(1)",
        "since": since,
        "alert_at": since + 30 * S,
        "alert": True,
        "ways_out": [
            {"way": "void", "section": "621a.6(a)(1)", "text": "Void the round under ..."}
        ],
        "guidance": "The Pai Gow random number generator RNG-1 at PG-01 has not given ...",
    }


def test_a_round_waiting_on_a_device_is_told_as_the_api_shows_the_wait(broker):
    table = open_table("pai_gow")
    endpoint_make(table.holder, URL, ["round.waiting_on_device"])
    event = round_waiting_record(table=table, wait=_wait(T0), now=T0 + 5 * M)
    assert event.data == {
        "round": 41,
        "round_number": 6,
        "table": table.pk,
        "table_number": table.number,
        "game": "pai_gow",
        **{k: v for k, v in _wait(T0).items() if k != "round"},
        "since": iso(T0),
        "alert_at": iso(T0 + 30 * S),
    }
    assert (event.event_type, event.table_id, event.occurred_at) == (
        "round.waiting_on_device",
        table.pk,
        T0 + 5 * M,
    )
    # The alert's check finds the round still waiting a minute later: told once.
    with transaction.atomic():
        again = round_waiting_record(table=table, wait=_wait(T0), now=T0 + 6 * M)
    assert again is None and Event.objects.count() == 1


def test_a_wait_with_a_field_the_api_does_not_show_is_a_programming_error():
    with pytest.raises(ValueError, match="not fields of a wait"):
        round_waiting_data(table=1, table_number="PG-01", game="pai_gow", wait={
            **_wait(T0), "waiting_for": "the number"
        })  # fmt: skip


def test_an_unknown_type_or_no_holder_is_a_programming_error():
    with pytest.raises(ValueError, match=r"no webhook event type 'round\.setled'"):
        event_record("round.setled", holder_id=1, data={}, now=T0)
    with pytest.raises(ValueError, match="belongs to a certificate holder"):
        event_record("round.settled", data={}, now=T0)


def test_a_key_makes_one_event_of_one_occurrence(broker):
    holder = holder_get()
    endpoint_make(holder, URL, ["endpoint.disabled"])
    first = event_record("endpoint.disabled", holder_id=holder.pk, data={}, now=T0, key="k1")
    with transaction.atomic():
        again = event_record("endpoint.disabled", holder_id=holder.pk, data={}, now=T0, key="k1")
    assert first is not None and again is None
    assert Event.objects.count() == 1
