"""The beat task that marks sets due soon and overdue (issue 6, item 3)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from casino.models import CertificateHolder, EquipmentSet, SetInPlay, Table
from casino.services.equipment import set_put_in_play
from workers.tasks import equipment_schedule_check_task


def test_beat_runs_the_schedule_check_every_minute_on_the_monitoring_queue() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["equipment-schedule-check"]
    assert entry["task"] == "monitoring.equipment_schedule_check"
    assert entry["schedule"] == 60
    assert settings.CELERY_TASK_ROUTES["monitoring.*"] == {"queue": "monitoring"}


@pytest.mark.django_db
def test_task_marks_dice_in_play_for_more_than_24_hours_overdue() -> None:
    # § 623a.7(d): "changed at least once every 24 hours". Put in play 24 h 1 min ago.
    user = get_user_model().objects.create_superuser("boss", "b@example.com", "x")
    holder = CertificateHolder.objects.create(name="H")
    table = Table.objects.create(holder=holder, number="CR-1", game="craps", variant="craps")
    dice = EquipmentSet.objects.create(
        holder=holder, identifier="D1", composition="five_dice", received_at=timezone.now()
    )
    set_put_in_play(table, dice, by=user, now=timezone.now() - timedelta(hours=24, minutes=1))

    counts = equipment_schedule_check_task()

    assert counts == {"in_date": 0, "due_soon": 0, "overdue": 1, "changed": 1}
    assert SetInPlay.objects.get().schedule_state == "overdue"
    assert equipment_schedule_check_task()["changed"] == 0  # marked once
