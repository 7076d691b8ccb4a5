"""Getting an event to its endpoints (webhooks/delivery.py, webhooks/sending.py) against a
real HTTP receiver on 127.0.0.1: the fan-out, the signature (verified with the
`standardwebhooks` package, as an integrator would), the backoff and the dead letter, the
circuit breaker and the disabling, the tries under way at one endpoint, the sweep, a try
cut off by a killed worker, "send again", rotation, pruning; and what a try never does
(follow a redirect, read a whole answer, wait past its timeout, connect to an address it
did not check).

Tasks are not run: the broker is a recorder, and each test calls the service a task calls.
"""

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from standardwebhooks import Webhook

from casino import metrics
from tests.casino.floor_fixtures import holder_get, operations
from tests.games.round_fixtures import open_table
from tests.webhooks.fixtures import Receiver, endpoint_make, receiver
from webhooks import delivery as service
from webhooks.events import TABLE_STATUS_CHANGED, table_status_data
from webhooks.models import Attempt, Delivery, Endpoint, Event
from webhooks.payloads import event_body
from webhooks.services import (
    DELIVER_TASK,
    FAN_OUT_TASK,
    endpoint_secret_rotate,
    endpoint_update,
    event_record,
)

pytestmark = pytest.mark.django_db
S = timedelta(seconds=1)


class Broker:
    def __init__(self) -> None:
        self.sent: list[tuple[str, list]] = []

    def send_task(self, name: str, args: list, queue: str) -> None:
        self.sent.append((name, args))

    def ids(self, name: str) -> list[int]:
        return [args[0] for sent, args in self.sent if sent == name]


@pytest.fixture
def broker(monkeypatch) -> Broker:
    fake = Broker()
    monkeypatch.setattr("webhooks.services.current_app", fake)
    return fake


@pytest.fixture
def table():
    return open_table("sic_bo")


def event_new(table, now: datetime) -> Event:
    """A table.status_changed event of the table's holder, as a suspension writes it."""
    data = table_status_data(
        table=table.pk, table_number=table.number, game="sic_bo", status="suspended",
        was="open", changed_at=now,
    )  # fmt: skip
    return event_record(TABLE_STATUS_CHANGED, table=table, data=data, now=now)


def fanned(table, now: datetime) -> list[Delivery]:
    """A new event, fanned out at `now`: its deliveries (none when no endpoint wants it)."""
    event = event_new(table, now)
    if event is None:
        return []
    service.event_fan_out(event.pk, body_of=event_body, now=now)
    return list(Delivery.objects.filter(event=event).order_by("id"))


def answering(status: int, body: bytes = b"", headers: dict | None = None):
    return lambda request: (status, headers or {}, body)


# --- fan-out and one try ------------------------------------------------------------------


def test_the_fan_out_makes_a_delivery_per_endpoint_that_wants_it_and_sends_each(
    broker, table, django_capture_on_commit_callbacks
):
    now = timezone.now()
    wants, _ = endpoint_make(table.holder, "http://127.0.0.1:9/a", ["table.status_changed"])
    endpoint_make(table.holder, "http://127.0.0.1:9/b", ["round.settled"])
    paused, _ = endpoint_make(table.holder, "http://127.0.0.1:9/c", ["table.status_changed"])
    event = event_new(table, now)
    Endpoint.objects.filter(pk=paused.pk).update(active=False)  # paused since the event
    with django_capture_on_commit_callbacks(execute=True):
        assert service.event_fan_out(event.pk, body_of=event_body, now=now) == "1 deliveries"
    (delivery,) = Delivery.objects.all()
    assert (delivery.endpoint_id, delivery.status, delivery.next_attempt_at) == (
        wants.pk,
        "pending",
        now,
    )
    event.refresh_from_db()
    assert json.loads(event.body) == {
        "type": "table.status_changed",
        "timestamp": event.data["changed_at"],
        "data": event.data,
    }
    assert broker.ids(DELIVER_TASK) == [delivery.pk]
    # Twice is once.
    assert service.event_fan_out(event.pk, body_of=event_body, now=now) == "already fanned out"
    assert Delivery.objects.count() == 1


def test_a_delivery_is_signed_so_any_standard_webhooks_library_verifies_it(broker, table):
    with receiver() as got:
        _endpoint, secret = endpoint_make(table.holder, got.url, ["table.status_changed"])
        (delivery,) = fanned(table, timezone.now())
        outcome = service.delivery_attempt(delivery.pk, now=timezone.now())
        (request,) = got.got
    assert outcome == "delivered (204)"
    payload = Webhook(secret).verify(request.body, request.headers)
    event = delivery.event
    event.refresh_from_db()
    assert payload == json.loads(event.body)
    assert request.headers["webhook-id"] == event.message_id == f"evt_{event.uid.hex}"
    assert request.headers["Content-Type"] == "application/json"
    assert request.path == "/hooks"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("delivered", 1, 204)
    (attempt,) = Attempt.objects.filter(delivery=delivery)
    assert (attempt.number, attempt.status_code, attempt.succeeded, attempt.error) == (
        1, 204, True, ""
    )  # fmt: skip
    # Tried again (a message delivered twice): nothing more is sent.
    assert service.delivery_attempt(delivery.pk, now=timezone.now()) == "already delivered"


def test_a_signature_by_another_secret_does_not_verify(broker, table):
    with receiver() as got:
        endpoint_make(table.holder, got.url, ["table.status_changed"])
        (delivery,) = fanned(table, timezone.now())
        service.delivery_attempt(delivery.pk, now=timezone.now())
    other = Webhook("whsec_" + "A" * 43 + "=")
    with pytest.raises(Exception, match="No matching signature"):
        other.verify(got.got[0].body, got.got[0].headers)


# --- failing: backoff, dead letter, the circuit breaker -----------------------------------


def tries_counted(outcome: str) -> float:
    """The webhook tries counted with this outcome so far (casino/metrics.py)."""
    found = metrics.registry().get_sample_value("casino_webhook_tries_total", {"outcome": outcome})
    return found or 0.0


def test_failed_tries_back_off_doubling_then_the_delivery_is_a_dead_letter(
    broker, table, settings, django_capture_on_commit_callbacks
):
    settings.CASINO_WEBHOOK_MAX_ATTEMPTS = 3
    settings.CASINO_WEBHOOK_BACKOFF_SECONDS = 5
    settings.CASINO_WEBHOOK_BREAKER_FAILURES = 10  # not this test's
    now = timezone.now()
    failed, dead = tries_counted("failed"), tries_counted("dead_letter")
    with receiver() as got:
        got.answer = answering(500, b"the receiver broke")
        endpoint_make(table.holder, got.url, ["table.status_changed"])
        (delivery,) = fanned(table, now)
        with django_capture_on_commit_callbacks(execute=True):
            outcome = service.delivery_attempt(delivery.pk, now=now)
        assert outcome.startswith("failed; tried again")
        delivery.refresh_from_db()
        first_end = delivery.last_attempt_at + timedelta(
            milliseconds=Attempt.objects.get(delivery=delivery).duration_ms
        )
        assert delivery.next_attempt_at == first_end + 5 * S  # 5 s after the first failure
        assert service.delivery_attempt(delivery.pk, now=now + 4 * S) == "not due yet"
        service.delivery_attempt(delivery.pk, now=now + 6 * S)
        delivery.refresh_from_db()
        second = Attempt.objects.get(delivery=delivery, number=2)
        assert delivery.next_attempt_at == (
            now + 6 * S + timedelta(milliseconds=second.duration_ms) + 10 * S
        )  # 10 s after the second
        with django_capture_on_commit_callbacks(execute=True):
            outcome = service.delivery_attempt(delivery.pk, now=now + 20 * S)
        assert len(got.got) == 3
    assert outcome == "failed for good after 3 tries (a dead letter)"
    assert (tries_counted("failed"), tries_counted("dead_letter")) == (failed + 1, dead + 1)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_attempt_at) == ("failed", 3, None)
    assert (delivery.last_status_code, delivery.last_response) == (500, "the receiver broke")
    assert list(Attempt.objects.filter(delivery=delivery).values_list("number", "status_code")) == [
        (1, 500), (2, 500), (3, 500)
    ]  # fmt: skip
    assert service.delivery_attempt(delivery.pk, now=now + 60 * S) == "already failed"


def test_the_backoff_doubles_up_to_its_most():
    assert [service.backoff(n).total_seconds() for n in (1, 2, 3, 4)] == [5, 10, 20, 40]
    assert service.backoff(11).total_seconds() == 3600  # 5 x 2^10 = 5120: an hour at most
    assert service.backoff(500).total_seconds() == 3600


def test_the_circuit_opens_after_failures_in_a_row_and_others_wait_without_a_request(
    broker, table, settings
):
    settings.CASINO_WEBHOOK_BREAKER_FAILURES = 2
    settings.CASINO_WEBHOOK_BACKOFF_SECONDS = 5
    now = timezone.now()
    with receiver() as got:
        got.answer = answering(503)
        endpoint, _ = endpoint_make(table.holder, got.url, ["table.status_changed"])
        first, second, third = (fanned(table, now)[0] for _ in range(3))
        service.delivery_attempt(first.pk, now=now)
        endpoint.refresh_from_db()
        assert (endpoint.failures, endpoint.retry_at, endpoint.status) == (1, None, "failing")
        service.delivery_attempt(second.pk, now=now + S)
        endpoint.refresh_from_db()
        assert endpoint.failures == 2
        assert now + 6 * S <= endpoint.retry_at <= now + 7 * S  # one backoff after the 2nd
        outcome = service.delivery_attempt(third.pk, now=now + 2 * S)
        assert outcome.startswith("waits: the endpoint's circuit is open until")
        assert len(got.got) == 2  # the third was never sent
    third.refresh_from_db()
    assert (third.attempts, third.next_attempt_at) == (0, endpoint.retry_at)


def test_an_answer_closes_the_circuit_and_the_next_waiting_delivery_is_sent_at_once(
    broker, table, settings, django_capture_on_commit_callbacks
):
    settings.CASINO_WEBHOOK_BREAKER_FAILURES = 1
    now = timezone.now()
    with receiver() as got:
        got.answer = answering(500)
        endpoint, _ = endpoint_make(table.holder, got.url, ["table.status_changed"])
        first, second = fanned(table, now)[0], fanned(table, now)[0]
        service.delivery_attempt(first.pk, now=now)
        endpoint.refresh_from_db()
        service.delivery_attempt(second.pk, now=now + S)  # waits for the circuit
        got.answer = answering(200)
        broker.sent.clear()
        after = endpoint.retry_at + S
        with django_capture_on_commit_callbacks(execute=True):
            assert service.delivery_attempt(first.pk, now=after) == "delivered (200)"
    endpoint.refresh_from_db()
    assert (endpoint.failures, endpoint.failing_since, endpoint.retry_at) == (0, None, None)
    assert broker.ids(DELIVER_TASK) == [second.pk]  # not left for the sweep


def test_an_endpoint_failing_for_long_is_disabled_with_an_alert_and_enabled_again(
    broker, table, settings
):
    settings.CASINO_WEBHOOK_BREAKER_FAILURES = 2
    settings.CASINO_WEBHOOK_DISABLE_AFTER_SECONDS = 3600
    now = timezone.now()
    watcher, _ = endpoint_make(table.holder, "http://127.0.0.1:9/ops", ["endpoint.disabled"])
    with receiver() as got:
        got.answer = answering(500, b"down for maintenance")
        endpoint, _ = endpoint_make(table.holder, got.url, ["table.status_changed"])
        deliveries = [fanned(table, now)[0] for _ in range(3)]
        service.delivery_attempt(deliveries[0].pk, now=now)
        endpoint.refresh_from_db()
        service.delivery_attempt(deliveries[1].pk, now=endpoint.retry_at or now + S)
        endpoint.refresh_from_db()
        assert endpoint.active  # failing for seconds: not yet
        later = now + timedelta(hours=1, seconds=5)
        service.delivery_attempt(deliveries[2].pk, now=later)
    endpoint.refresh_from_db()
    assert (endpoint.active, endpoint.status, endpoint.disabled_at, endpoint.failures) == (
        False, "disabled", later + timedelta(milliseconds=Attempt.objects.last().duration_ms), 3
    )  # fmt: skip
    assert endpoint.disabled_reason.startswith("3 tries in a row failed over 1.0 hours")
    assert "answered 500" in endpoint.disabled_reason
    alert = Event.objects.get(event_type="endpoint.disabled")
    assert alert.data["endpoint"] == endpoint.pk and alert.holder_id == table.holder_id
    # Disabled: nothing is tried or swept; a new event makes no delivery for it.
    waiting = Delivery.objects.get(pk=deliveries[0].pk)
    assert service.delivery_attempt(waiting.pk, now=later + timedelta(days=1)).startswith(
        "held: the endpoint is disabled"
    )
    assert fanned(table, later) == []
    # Enabled again: what disabled it is cleared and its pending deliveries are due.
    endpoint_update(endpoint, active=True, by=operations(), now=later + 2 * S)
    endpoint.refresh_from_db()
    assert (endpoint.status, endpoint.failures, endpoint.disabled_reason) == ("active", 0, "")
    broker.sent.clear()
    service.webhooks_sweep(timezone.now() + timedelta(days=2))
    assert set(broker.ids(DELIVER_TASK)) >= {deliveries[0].pk}
    assert Endpoint.objects.get(pk=watcher.pk).status == "active"  # told, not disabled


# --- at most so many tries to one endpoint at once ------------------------------------------


def test_an_endpoint_with_its_tries_all_under_way_makes_the_next_wait_its_turn(
    broker, table, settings
):
    settings.CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT = 1
    now = timezone.now()
    _endpoint, _ = endpoint_make(table.holder, "http://127.0.0.1:9/x", ["table.status_changed"])
    busy, waiting = fanned(table, now)[0], fanned(table, now)[0]
    Delivery.objects.filter(pk=busy.pk).update(in_flight_until=now + 10 * S)
    outcome = service.delivery_attempt(waiting.pk, now=now)
    assert outcome == "waits its turn: 1 tries to the endpoint under way"
    waiting.refresh_from_db()
    assert (waiting.attempts, waiting.next_attempt_at) == (0, now + service.TURN)


# --- the sweep, a killed worker, send again ----------------------------------------------------


def test_the_sweep_sends_what_is_due_or_lost_and_nothing_twice(broker, table, settings):
    settings.CASINO_WEBHOOK_STUCK_SECONDS = 10
    settings.CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT = 5
    now = timezone.now()
    endpoint_make(table.holder, "http://127.0.0.1:9/x", ["table.status_changed"])
    paused, _ = endpoint_make(table.holder, "http://127.0.0.1:9/y", ["table.status_changed"])
    rows = fanned(table, now - 60 * S)  # one for each endpoint
    due, _held = rows if rows[0].endpoint_id != paused.pk else rows[::-1]
    Endpoint.objects.filter(pk=paused.pk).update(active=False)  # `held` waits for it
    taken_late = fanned(table, now - 60 * S)[0]  # sent a minute ago, never taken: lost
    fanned(table, now - 5 * S)  # sent 5 s ago: its message may still come, not sent again
    later = fanned(table, now - 60 * S)[0]
    Delivery.objects.filter(pk=due.pk).update(next_attempt_at=now - S)  # a retry now due
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=now + 30 * S)
    lost = event_new(table, now - 60 * S)  # written, its fan-out message lost
    broker.sent.clear()
    assert service.webhooks_sweep(now) == {"events": 1, "deliveries": 2}
    assert broker.ids(FAN_OUT_TASK) == [lost.pk]
    assert sorted(broker.ids(DELIVER_TASK)) == sorted([due.pk, taken_late.pk])
    broker.sent.clear()
    assert service.webhooks_sweep(now + S) == {"events": 0, "deliveries": 0}  # not twice


def test_the_sweep_sends_no_more_to_one_endpoint_than_may_be_under_way(broker, table, settings):
    settings.CASINO_WEBHOOK_ENDPOINT_IN_FLIGHT = 2
    now = timezone.now()
    endpoint_make(table.holder, "http://127.0.0.1:9/x", ["table.status_changed"])
    rows = [fanned(table, now - 60 * S)[0] for _ in range(4)]
    Delivery.objects.filter(pk=rows[0].pk).update(  # claimed: in flight until its lease ends
        in_flight_until=now + 5 * S, next_attempt_at=now + 5 * S
    )
    assert service.webhooks_sweep(now)["deliveries"] == 1  # one under way, room for one
    assert broker.ids(DELIVER_TASK)[-1] == rows[1].pk


def test_a_worker_killed_during_a_try_leaves_it_to_the_sweep_once_its_lease_ends(broker, table):
    now = timezone.now()
    with receiver() as got:
        _endpoint, secret = endpoint_make(table.holder, got.url, ["table.status_changed"])
        (delivery,) = fanned(table, now)
        claimed = service._claim(delivery.pk, now)  # then the worker dies: no record
        assert claimed.delivery_id == delivery.pk
        lease_end = now + service.lease()
        assert service.delivery_attempt(delivery.pk, now=now + S) == "not due yet"
        broker.sent.clear()
        assert service.webhooks_sweep(lease_end - S)["deliveries"] == 0
        assert service.webhooks_sweep(lease_end + S)["deliveries"] == 1
        assert broker.ids(DELIVER_TASK) == [delivery.pk]
        assert service.delivery_attempt(delivery.pk, now=lease_end + S) == "delivered (204)"
    assert Webhook(secret).verify(got.got[0].body, got.got[0].headers)


def test_send_again_delivers_a_delivered_or_dead_delivery_once_more(
    broker, table, settings, django_capture_on_commit_callbacks
):
    settings.CASINO_WEBHOOK_MAX_ATTEMPTS = 1
    with receiver() as got:
        _endpoint, _ = endpoint_make(table.holder, got.url, ["table.status_changed"])
        delivered, dead = fanned(table, timezone.now())[0], fanned(table, timezone.now())[0]
        service.delivery_attempt(delivered.pk, now=timezone.now())
        got.answer = answering(500)
        service.delivery_attempt(dead.pk, now=timezone.now())
        assert Delivery.objects.get(pk=dead.pk).status == "failed"
        got.answer = answering(200)
        broker.sent.clear()
        now = timezone.now()
        with django_capture_on_commit_callbacks(execute=True):
            sent = service.deliveries_send_again([delivered, dead], by=operations(), now=now)
        assert sent == 2
        assert broker.ids(DELIVER_TASK) == [delivered.pk, dead.pk]
        for row in (delivered, dead):
            row.refresh_from_db()
            assert (row.status, row.attempts, row.next_attempt_at) == ("pending", 0, now)
            assert service.delivery_attempt(row.pk, now=now) == "delivered (200)"
        ids = [request.headers["webhook-id"] for request in got.got]
    assert ids[0] == ids[2] and ids[1] == ids[3]  # the same message again: the same id
    assert Attempt.objects.filter(delivery=dead).count() == 2  # the log keeps both


def test_send_again_is_refused_while_the_endpoint_is_off_and_needs_the_permission(broker, table):
    endpoint, _ = endpoint_make(table.holder, "http://127.0.0.1:9/x", ["table.status_changed"])
    (delivery,) = fanned(table, timezone.now())
    endpoint_update(endpoint, active=False, by=operations(), now=timezone.now())
    with pytest.raises(Exception, match="is paused: enable it first"):
        service.deliveries_send_again([delivery], by=operations(), now=timezone.now())
    with pytest.raises(Exception, match=r"needs webhooks.change_delivery"):
        service.deliveries_send_again([delivery], by=AnonymousUser(), now=timezone.now())


# --- rotation -------------------------------------------------------------------------------


def test_after_a_rotation_both_secrets_sign_until_the_grace_ends(broker, table, settings):
    settings.CASINO_WEBHOOK_ROTATION_GRACE_SECONDS = 3600
    with receiver() as got:
        endpoint, old = endpoint_make(table.holder, got.url, ["table.status_changed"])
        now = timezone.now()
        endpoint, new = endpoint_secret_rotate(endpoint, by=operations(), now=now)
        assert new != old and new.startswith("whsec_")
        (during,) = fanned(table, now)
        service.delivery_attempt(during.pk, now=now)
        Endpoint.objects.filter(pk=endpoint.pk).update(previous_secret_until=timezone.now())
        (after,) = fanned(table, timezone.now())
        service.delivery_attempt(after.pk, now=timezone.now())
    first, second = got.got
    assert len(first.headers["webhook-signature"].split(" ")) == 2
    for secret in (old, new):
        Webhook(secret).verify(first.body, first.headers)
    Webhook(new).verify(second.body, second.headers)
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(old).verify(second.body, second.headers)


# --- pruning --------------------------------------------------------------------------------


def test_the_history_older_than_the_retention_is_pruned_with_its_deliveries(
    broker, table, settings
):
    settings.CASINO_WEBHOOK_RETENTION_DAYS = 7
    now = timezone.now()
    with receiver() as got:
        endpoint_make(table.holder, got.url, ["table.status_changed"])
        (old,) = fanned(table, now - timedelta(days=7, seconds=1))
        service.delivery_attempt(old.pk, now=now)
        (kept,) = fanned(table, now - timedelta(days=6))
    assert service.webhooks_prune(now, batch=1) == 1
    assert not Event.objects.filter(pk=old.event_id).exists()
    assert not Delivery.objects.filter(pk=old.pk).exists()
    assert not Attempt.objects.filter(delivery_id=old.pk).exists()
    assert Delivery.objects.filter(pk=kept.pk).exists()
    assert service.webhooks_prune(now) == 0
    assert len(got.got) == 1


# --- what a try never does ----------------------------------------------------------------


def one_try(table, got: Receiver) -> Delivery:
    (delivery,) = fanned(table, timezone.now())
    service.delivery_attempt(delivery.pk, now=timezone.now())
    delivery.refresh_from_db()
    return delivery


def test_a_redirect_is_not_followed(broker, table):
    with receiver() as got:
        endpoint_make(table.holder, got.url, ["table.status_changed"])
        got.answer = answering(302, b"", {"Location": "http://169.254.169.254/latest"})
        delivery = one_try(table, got)
    assert len(got.got) == 1
    assert (delivery.status, delivery.last_status_code) == ("pending", 302)


def test_only_the_start_of_a_long_answer_is_read(broker, table):
    with receiver() as got:
        endpoint_make(table.holder, got.url, ["table.status_changed"])
        got.answer = answering(200, b"x" * 1_000_000)
        delivery = one_try(table, got)
    assert delivery.status == "delivered"
    assert delivery.last_response == "x" * 2000


def test_a_slow_endpoint_is_given_up_at_its_timeout(broker, table, settings):
    settings.CASINO_WEBHOOK_READ_SECONDS = 0.3
    with receiver() as got:
        endpoint_make(table.holder, got.url, ["table.status_changed"])
        got.delay = 2
        delivery = one_try(table, got)
    attempt = Attempt.objects.get(delivery=delivery)
    assert (attempt.status_code, attempt.error) == (None, "no answer within 0.3 s")
    assert attempt.duration_ms < 1500


@contextmanager
def trickling(head: bytes, then: bytes, every: float = 0.2) -> Iterator[str]:
    """An endpoint on 127.0.0.1 that reads the request, answers `head` at once, then
    `then` a byte every `every` seconds, well within any read timeout; yields its URL."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)

    def answer() -> None:
        with contextlib.suppress(OSError):  # the try gave up and hung up: done
            client, _ = server.accept()
            with client:
                client.recv(65536)
                client.sendall(head)
                for byte in then:
                    time.sleep(every)
                    client.sendall(bytes([byte]))

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/hooks"
    finally:
        thread.join(timeout=30)
        server.close()


def test_headers_trickled_a_line_at_a_time_are_given_up_at_the_try_s_deadline(
    broker, table, settings
):
    """Each line comes well within the read timeout; the whole try may take connect + read
    seconds (1 here), not the 4 s the endpoint would hold it (review finding W1)."""
    settings.CASINO_WEBHOOK_CONNECT_SECONDS = 0.5
    settings.CASINO_WEBHOOK_READ_SECONDS = 0.5
    lines = b"".join(b"X-Line-%d: x\r\n" % n for n in range(20)) + b"\r\n"
    with trickling(b"HTTP/1.1 200 OK\r\n", lines, every=0.2) as url:
        endpoint_make(table.holder, url, ["table.status_changed"])
        delivery = one_try(table, None)
    attempt = Attempt.objects.get(delivery=delivery)
    assert (attempt.status_code, attempt.error) == (None, "no answer within the try's 1 s")
    assert 900 <= attempt.duration_ms < 2000
    assert delivery.status == "pending"


def test_a_body_trickled_past_the_deadline_leaves_the_status_it_came_with(broker, table, settings):
    settings.CASINO_WEBHOOK_CONNECT_SECONDS = 0.5
    settings.CASINO_WEBHOOK_READ_SECONDS = 0.5
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n"
    with trickling(head, b"y" * 20, every=0.2) as url:
        endpoint_make(table.holder, url, ["table.status_changed"])
        delivery = one_try(table, None)
    attempt = Attempt.objects.get(delivery=delivery)
    assert (delivery.status, attempt.status_code, attempt.error) == ("delivered", 200, "")
    assert 0 < len(attempt.response) < 20 and set(attempt.response) == {"y"}
    assert attempt.duration_ms < 2000


def test_a_refused_connection_is_a_failed_try_saying_so(broker, table):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint_make(table.holder, f"http://127.0.0.1:{port}/", ["table.status_changed"])
    delivery = one_try(table, None)
    assert delivery.status == "pending"
    assert delivery.last_error.startswith("no connection: ")
    assert delivery.last_error.endswith("Connection refused")


def fake_dns(monkeypatch, answers: dict[str, list[str]]) -> None:
    """These names resolve to these addresses (an address still resolves to itself)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in answers:
            return real(host, port, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in answers[host]]

    monkeypatch.setattr("webhooks.sending.socket.getaddrinfo", getaddrinfo)


def test_the_address_checked_is_the_one_connected_to_with_the_name_as_host(
    broker, table, monkeypatch
):
    with receiver() as got:
        port = int(got.url.rsplit(":", 1)[1].split("/")[0])
        fake_dns(monkeypatch, {"hooks.example.test": ["127.0.0.1"]})
        endpoint_make(
            table.holder, f"http://hooks.example.test:{port}/in", ["table.status_changed"]
        )
        delivery = one_try(table, got)
    assert delivery.status == "delivered", delivery.last_error
    assert got.got[0].headers["Host"] == f"hooks.example.test:{port}"


def test_a_name_that_resolves_to_a_private_address_later_is_refused_then(
    broker, table, monkeypatch
):
    fake_dns(monkeypatch, {"hooks.example.test": ["93.184.215.14"]})
    endpoint_make(table.holder, "http://hooks.example.test/in", ["table.status_changed"])
    # Rebound: the name now answers a private address, and one routed address beside it.
    fake_dns(monkeypatch, {"hooks.example.test": ["93.184.215.14", "10.0.0.7"]})
    delivery = one_try(table, None)
    assert delivery.status == "pending"
    assert delivery.last_error == (
        "refused: hooks.example.test resolves to 10.0.0.7 is a private address: a webhook "
        "goes only to an address routed on the internet (CASINO_WEBHOOK_ALLOWED_NETWORKS "
        "lists the exceptions)"
    )
    assert holder_get() == table.holder
