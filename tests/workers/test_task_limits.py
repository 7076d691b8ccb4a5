"""Every task can be sent: Celery refuses one whose soft time limit is above its hard
limit (taking the settings' default for whichever the task leaves unset)."""

from django.conf import settings

from casino.celery import app


def test_every_task_of_ours_has_a_soft_limit_within_its_hard_limit():
    app.loader.import_default_modules()
    ours = {n: t for n, t in app.tasks.items() if n.split(".")[0] in settings.CELERY_QUEUE_NAMES}
    assert {"settlement.round_settle", "monitoring.settlement_sweep"} <= set(ours)
    for name, task in ours.items():
        hard = task.time_limit or settings.CELERY_TASK_TIME_LIMIT
        soft = task.soft_time_limit or settings.CELERY_TASK_SOFT_TIME_LIMIT
        assert soft <= hard, f"{name}: soft {soft} s above hard {hard} s"


def test_settlement_is_acknowledged_only_once_done():
    """A worker killed mid-settlement leaves the message to come back (and the sweep too)."""
    task = app.tasks["settlement.round_settle"]
    assert task.acks_late and task.reject_on_worker_lost
