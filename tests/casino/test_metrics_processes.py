"""/metrics adds up what other processes counted (PROMETHEUS_MULTIPROC_DIR): gunicorn's
workers, Celery's pool processes, the embedded floor's web server, worker and beat.

The writers are real processes: prometheus_client chooses its multiprocess mode when it is
first imported, from the environment, as each process of the floor does.
"""

import os
import runpy
import socket
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from casino import metrics
from tests.services import celery_worker, project_env

ROOT = Path(__file__).resolve().parents[2]

# A process that opens two Craps rounds and settles one in 2.5 s, as the floor's would.
WRITER = (
    "from casino import metrics;"
    "metrics.ROUNDS_OPENED.labels('craps').inc(2);"
    "metrics.RESULT_TO_SETTLED.labels('craps').observe(2.5)"
)


def write_in_a_process(directory: Path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    done = subprocess.run(
        [sys.executable, "-c", WRITER], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.mark.django_db
def test_metrics_add_up_what_other_processes_counted(tmp_path, monkeypatch, settings):
    directory = tmp_path / "metrics"
    metrics.multiprocess_dir_reset(directory)
    write_in_a_process(directory)
    write_in_a_process(directory)
    assert len(list(directory.glob("*.db"))) == 4  # a counter and a histogram file each
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(directory))
    settings.CASINO_METRICS_TOKEN = ""
    answer = Client().get("/metrics")
    assert answer.status_code == 200
    found = samples(answer.content.decode())
    assert found[("casino_rounds_opened_total", (("game", "craps"),))] == 4
    seconds = "casino_round_result_to_settled_seconds"
    assert found[(f"{seconds}_count", (("game", "craps"),))] == 2
    assert found[(f"{seconds}_sum", (("game", "craps"),))] == 5.0
    assert found[(f"{seconds}_bucket", (("game", "craps"), ("le", "2.5")))] == 2
    assert found[(f"{seconds}_bucket", (("game", "craps"), ("le", "1.0")))] == 0
    # The floor's state is read beside them (the database, at scrape time).
    assert ("casino_devices", (("status", "active"),)) in found


def test_the_directory_is_emptied_before_the_processes_start(tmp_path):
    directory = tmp_path / "metrics"
    directory.mkdir()
    (directory / "counter_4242.db").write_bytes(b"a dead run's counts")
    metrics.multiprocess_dir_reset(directory)
    assert directory.is_dir() and list(directory.iterdir()) == []


def test_gunicorn_empties_the_directory_at_start_and_forgets_a_dead_workers_gauges(
    tmp_path, monkeypatch
):
    directory = tmp_path / "metrics"
    directory.mkdir()
    (directory / "counter_11.db").write_bytes(b"")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(directory))
    config = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    config["on_starting"](SimpleNamespace())
    assert list(directory.iterdir()) == []
    (directory / "counter_12.db").write_bytes(b"")
    (directory / "gauge_livesum_12.db").write_bytes(b"")
    config["child_exit"](SimpleNamespace(), SimpleNamespace(pid=12))
    # The dead worker's counts stay (totals); its live gauge goes.
    assert sorted(p.name for p in directory.iterdir()) == ["counter_12.db"]


def test_floor_py_gives_its_processes_one_fresh_directory(tmp_path, monkeypatch):
    floor = runpy.run_path(str(ROOT / "floor.py"))
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")  # unset; and restored after the test
    monkeypatch.setenv("CASINO_DATA_DIR", str(tmp_path))
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "counter_99.db").write_bytes(b"the last run's")
    directory = floor["metrics_dir_prepare"]()
    assert directory == tmp_path / "metrics"
    assert list(directory.iterdir()) == []
    # Set in floor.py's own environment, which every process it starts inherits.
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(directory)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.integration
def test_a_worker_with_a_metrics_port_serves_its_processes_counters(tmp_path):
    # The embedded broker: no server needed. A previous run's counts are in the directory.
    directory, port = tmp_path / "metrics", free_port()
    write_in_a_process(directory)
    env = project_env(
        CASINO_DATA_DIR=str(tmp_path),
        PROMETHEUS_MULTIPROC_DIR=str(directory),
        CASINO_WORKER_METRICS_PORT=str(port),
    )
    node = f"metrics-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    with celery_worker(env, tmp_path / "worker.log", node):
        url = f"http://127.0.0.1:{port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as answer:
            first = samples(answer.read().decode())
        # Emptied at the worker's start: the last run's rounds are not counted again.
        assert ("casino_rounds_opened_total", (("game", "craps"),)) not in first
        write_in_a_process(directory)  # as one of its pool processes would
        with urllib.request.urlopen(url, timeout=10) as answer:
            found = samples(answer.read().decode())
    assert found[("casino_rounds_opened_total", (("game", "craps"),))] == 2
    assert found[("casino_round_result_to_settled_seconds_count", (("game", "craps"),))] == 1
