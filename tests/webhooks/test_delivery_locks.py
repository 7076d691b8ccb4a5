"""A try's record and another delivery's claim at one endpoint never deadlock (review
finding W5). The record holds its delivery and the endpoint, then picks the endpoint's
next due delivery to send at once; a claim of that delivery holds it (SKIP LOCKED) and
then waits for the endpoint. Were the record to wait for the claimed delivery, PostgreSQL
would abort one of them: the try's record (its Attempt, outcome and the endpoint's
failure count lost, the delivery POSTed again after its lease) or the claim. The record
passes a locked delivery by instead. Real row locks need PostgreSQL: skipped on SQLite
(which takes one writer at a time), a failure with CI=true. Run it here with e.g.
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_locks .venv/bin/python -m pytest \\
        tests/webhooks/test_delivery_locks.py
"""

import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from tests.games.round_fixtures import open_table
from tests.services import require_postgres_in_process
from tests.webhooks.fixtures import endpoint_make
from tests.webhooks.test_delivery import Broker, fanned
from webhooks import delivery as service
from webhooks.models import Attempt, Delivery, Endpoint
from webhooks.sending import Answer

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_a_record_passes_by_a_delivery_being_claimed_and_neither_deadlocks(monkeypatch):
    require_postgres_in_process("row locks (SKIP LOCKED, a deadlock)")
    monkeypatch.setattr("webhooks.services.current_app", Broker())
    table = open_table("sic_bo")
    endpoint, _ = endpoint_make(table.holder, "http://127.0.0.1:9/hooks", ["table.status_changed"])
    now = timezone.now()
    tried, waiting = fanned(table, now)[0], fanned(table, now)[0]
    assert isinstance(service._claim(tried.pk, now), service.Claimed)  # the try under way
    Delivery.objects.filter(pk=waiting.pk).update(sent_at=None)  # due: the record sends it
    holding, recording = threading.Event(), threading.Event()
    claimed: list[object] = []

    def claim() -> None:  # another worker's claim of `waiting`, as _claim takes its locks
        try:
            with transaction.atomic():
                Delivery.objects.select_for_update(skip_locked=True, of=("self",)).get(
                    pk=waiting.pk
                )
                holding.set()
                recording.wait(timeout=10)
                time.sleep(0.5)  # the record holds its delivery and the endpoint by now
                Endpoint.objects.select_for_update().get(pk=endpoint.pk)
            claimed.append("claimed")
        except Exception as error:  # a deadlock PostgreSQL broke
            claimed.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=claim)
    thread.start()
    try:
        assert holding.wait(timeout=10)
        recording.set()
        outcome = service._record(tried.pk, Answer(204, "", "", 30), at=now)
    finally:
        thread.join(timeout=30)
    assert outcome == "delivered (204)"
    assert claimed == ["claimed"]
    assert Attempt.objects.filter(delivery=tried, succeeded=True).count() == 1
    waiting.refresh_from_db()
    assert waiting.sent_at is None  # passed by: its claim takes it (or the sweep)
