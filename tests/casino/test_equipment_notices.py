"""The compliance officers are told by email when a set in play becomes due soon and when
it is overdue, once each (issue 35, item 2), through Django's locmem backend.

T0 is Monday 2 March 2026, 08:00 EST. Dice go in for 24 hours, due soon 2 hours before
(§ 623a.7(d)): CR-01's, put in at T0, are due soon from T0 + 22 h (06:00 the next day)
and overdue after T0 + 24 h (08:00 on 3 March); CR-02's, put in at T0 + 4 h, are due soon
from T0 + 26 h and overdue after T0 + 28 h (12:00 on 3 March).
"""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail

from casino.models import EquipmentNotice, SetInPlay
from casino.services.equipment import schedule_check, set_changeout
from casino.services.notices import notice_recipients, notices_send
from tests.casino.floor_fixtures import T0, compliant_table, operations, staff
from workers.tasks import equipment_notices_send_task

pytestmark = pytest.mark.django_db

H = timedelta(hours=1)
S = timedelta(seconds=1)
SITE = "https://floor.example.com"


@pytest.fixture(autouse=True)
def site(settings):
    settings.CASINO_SITE_URL = SITE
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def officers():
    """Two compliance officers with an address; one without, one inactive, and an
    operations manager with one: only the first two are told."""
    for name, group, email, active in (
        ("carl_compliance", "compliance", "carl@floor.example.com", True),
        ("ann_compliance", "compliance", "ann@floor.example.com", True),
        ("no_address", "compliance", "", True),
        ("gone", "compliance", "gone@floor.example.com", False),
        ("olive_ops", "operations", "olive@floor.example.com", True),
    ):
        user = staff(name, group)
        user.email, user.is_active = email, active
        user.save()
    return ["ann@floor.example.com", "carl@floor.example.com"]


def beat(now):
    """What beat does each minute: the schedule check, then the notices' sweep."""
    schedule_check(now)
    return notices_send(now)


def row_at(number: str) -> SetInPlay:
    return SetInPlay.objects.get(table__number=number, removed_at=None)


def test_due_soon_then_overdue_emails_go_to_the_compliance_officers_once_each(officers):
    compliant_table("craps", number="CR-01", now=T0)
    compliant_table("craps", number="CR-02", now=T0 + 4 * H)
    cr01, cr02 = row_at("CR-01"), row_at("CR-02")

    assert beat(T0 + 22 * H - S)["sent"] == 0  # both in date
    assert mail.outbox == []

    # 06:00 on 3 March: CR-01 due soon, told; CR-02 still in date.
    assert beat(T0 + 22 * H) == {"sent": 1, "withdrawn": 0, "failed": 0, "taken": 0}
    [soon] = mail.outbox
    assert soon.subject == "Due soon: CR-01-five_dice-1 at CR-01, out by 2026-03-03 08:00 EST"
    assert soon.to == officers
    assert soon.from_email == settings.DEFAULT_FROM_EMAIL
    assert soon.body.splitlines()[:5] == [
        "The five dice of set CR-01-five_dice-1 at table CR-01 are due soon: they must be "
        "out of play by 2026-03-03 08:00 EST.",
        "",
        "Limit: 24 hours (58 Pa. Code § 623a.7(d))",
        "In play since 2026-03-02 08:00 EST, put in by olive_ops.",
        "",
    ]
    assert f"{SITE}/admin/casino/setinplay/schedule/#schedule-row-{cr01.pk}" in soon.body

    # A second beat, and a retry of the sweep, at the same moment or later: nothing more.
    assert beat(T0 + 22 * H)["sent"] == 0
    assert notices_send(T0 + 23 * H)["sent"] == 0
    assert beat(T0 + 24 * H)["sent"] == 0  # still due soon at the limit itself
    assert len(mail.outbox) == 1

    # One second past the limit: overdue, told once.
    assert beat(T0 + 24 * H + S)["sent"] == 1
    overdue = mail.outbox[1]
    assert overdue.subject == "Overdue: CR-01-five_dice-1 at CR-01, due out at 2026-03-03 08:00 EST"
    assert overdue.to == officers
    assert overdue.body.splitlines()[0] == (
        "The five dice of set CR-01-five_dice-1 at table CR-01 are overdue: they were due "
        "out of play at 2026-03-03 08:00 EST. The table starts no round until they are "
        "changed."
    )
    assert f"{SITE}/admin/casino/setinplay/schedule/#schedule-row-{cr01.pk}" in overdue.body
    assert beat(T0 + 25 * H)["sent"] == 0

    # CR-02 follows its own clock: due soon at T0 + 26 h, overdue after T0 + 28 h.
    assert beat(T0 + 26 * H)["sent"] == 1
    assert beat(T0 + 28 * H + S)["sent"] == 1
    assert beat(T0 + 30 * H)["sent"] == 0
    assert [m.subject for m in mail.outbox[2:]] == [
        "Due soon: CR-02-five_dice-1 at CR-02, out by 2026-03-03 12:00 EST",
        "Overdue: CR-02-five_dice-1 at CR-02, due out at 2026-03-03 12:00 EST",
    ]
    assert f"/admin/casino/setinplay/schedule/#schedule-row-{cr02.pk}" in mail.outbox[3].body

    # The record of each: sent, when, to whom; one per set and state.
    sent = EquipmentNotice.objects.order_by("set_in_play", "state")
    assert [(n.set_in_play_id, n.state, n.status, n.sent_at, n.attempts) for n in sent] == [
        (cr01.pk, "due_soon", "sent", T0 + 22 * H, 1),
        (cr01.pk, "overdue", "sent", T0 + 24 * H + S, 1),
        (cr02.pk, "due_soon", "sent", T0 + 26 * H, 1),
        (cr02.pk, "overdue", "sent", T0 + 28 * H + S, 1),
    ]
    assert sent[0].recipients.splitlines() == officers


def test_the_beat_task_sends_through_the_email_framework_once(officers):
    compliant_table("craps", number="CR-01", now=T0)
    schedule_check(T0 + 24 * H + S)  # overdue at once: never due soon on record
    assert equipment_notices_send_task() == {"sent": 1, "withdrawn": 0, "failed": 0, "taken": 0}
    assert equipment_notices_send_task()["sent"] == 0  # a second beat (or a retry)
    assert [m.subject[:8] for m in mail.outbox] == ["Overdue:"]
    entry = settings.CELERY_BEAT_SCHEDULE["equipment-notices-send"]
    assert entry["task"] == "casino.equipment_notices_send"
    # With the webhooks' POSTs: a slow mail server holds no monitoring or settlement worker.
    assert settings.CELERY_TASK_ROUTES[entry["task"]] == {"queue": "webhooks"}


def test_a_set_changed_out_before_the_sweep_is_not_told(officers):
    floor = compliant_table("craps", number="CR-01", now=T0)
    schedule_check(T0 + 23 * H)
    set_changeout(floor.table, "five_dice", reason="schedule", by=operations(), now=T0 + 23 * H)
    assert notices_send(T0 + 23 * H)["withdrawn"] == 1
    assert mail.outbox == []
    notice = EquipmentNotice.objects.get()
    assert (notice.status, notice.withdrawn_reason) == (
        "withdrawn",
        "the set left play before the notice was sent",
    )
    assert schedule_check(T0 + 30 * H)["overdue"] == 0  # and no overdue for it either
    assert EquipmentNotice.objects.count() == 1


def test_a_due_soon_notice_overtaken_by_overdue_gives_way_to_the_overdue_one(officers):
    compliant_table("craps", number="CR-01", now=T0)
    schedule_check(T0 + 23 * H)  # due soon written, not yet sent (the mail sweep lagged)
    assert beat(T0 + 24 * H + S) == {"sent": 1, "withdrawn": 1, "failed": 0, "taken": 0}
    assert [m.subject[:8] for m in mail.outbox] == ["Overdue:"]


def test_a_mail_server_that_fails_leaves_the_notice_for_the_next_sweep(officers, settings):
    compliant_table("craps", number="CR-01", now=T0)
    schedule_check(T0 + 22 * H)
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 1
    assert notices_send(T0 + 22 * H)["failed"] == 1
    notice = EquipmentNotice.objects.get()
    assert (notice.status, notice.attempts, notice.claimed_until) == ("pending", 1, None)
    assert "ConnectionRefusedError" in notice.last_error

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert notices_send(T0 + 22 * H + 60 * S)["sent"] == 1
    assert notices_send(T0 + 22 * H + 120 * S)["sent"] == 0
    assert len(mail.outbox) == 1
    notice.refresh_from_db()
    assert (notice.status, notice.attempts, notice.last_error) == ("sent", 2, "")


def test_a_notice_claimed_by_another_sender_is_not_sent_twice(officers):
    compliant_table("craps", number="CR-01", now=T0)
    schedule_check(T0 + 22 * H)
    # Another sweep claimed it a moment ago and is sending: this one leaves it alone ...
    EquipmentNotice.objects.update(claimed_until=T0 + 22 * H + 5 * 60 * S)
    assert notices_send(T0 + 22 * H)["sent"] == 0
    # ... unless that sender died: past its lease the notice is sent.
    assert notices_send(T0 + 22 * H + 5 * 60 * S + S)["sent"] == 1
    assert len(mail.outbox) == 1


def test_without_an_officer_s_address_the_notice_waits(officers):
    get_user_model().objects.filter(groups__name="compliance").update(email="")
    compliant_table("craps", number="CR-01", now=T0)
    schedule_check(T0 + 22 * H)
    assert notices_send(T0 + 22 * H)["failed"] == 1
    assert EquipmentNotice.objects.get().last_error == (
        "no active compliance officer has an email address"
    )
    get_user_model().objects.filter(username="carl_compliance").update(email="carl@x.example")
    assert notice_recipients() == ["carl@x.example"]
    assert notices_send(T0 + 22 * H + 60 * S)["sent"] == 1
    assert mail.outbox[0].to == ["carl@x.example"]
