"""Beat's look for rounds waiting on a device (issue 33, part 4): on the monitoring queue,
every CASINO_DEVICE_WAIT_CHECK_SECONDS; each alert raised once however often it runs."""

import pytest
from django.conf import settings

from devices.models import DeviceEvent
from tests.devices.test_device_waits import closed_pai_gow, closed_sic_bo
from workers.tasks import device_waits_check_task


def test_beat_looks_every_five_seconds_on_the_monitoring_queue() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["device-waits-check"]
    assert (entry["task"], entry["schedule"]) == ("monitoring.device_waits_check", 5)
    assert settings.CELERY_TASK_ROUTES["monitoring.*"] == {"queue": "monitoring"}
    assert settings.CASINO_DEVICE_WAIT_SECONDS == 30


@pytest.mark.django_db
def test_the_task_raises_each_alert_once() -> None:
    """The rounds closed at the fixtures' T0, long before the wall clock: both waiting."""
    pai_gow, generator = closed_pai_gow(fallback=True)
    sic_bo, shaker = closed_sic_bo()
    assert device_waits_check_task() == 2
    assert device_waits_check_task() == 0  # run again: nothing new
    raised = DeviceEvent.objects.filter(kind=DeviceEvent.Kind.ROUND_WAITING)
    assert sorted(raised.values_list("round_id", "device_id")) == sorted(
        [(pai_gow.pk, generator.pk), (sic_bo.pk, shaker.pk)]
    )
