#!/usr/bin/env python3
"""Set up and run the casino floor on this machine, or run its tests.

    python3 floor.py            virtualenv, install, migrate, load the demo floor, then run
                                the web server, the demo devices, two Celery workers (the
                                floor's queues; the webhooks' own) and Celery beat
                                together; Ctrl-C stops them all
    python3 floor.py --data-dir DIR
                                the same, with the floor's files (the SQLite database, the
                                broker's messages, beat's schedule, the metrics) in DIR
                                rather than ./var; CASINO_DATA_DIR=DIR does the same
    python3 floor.py test       virtualenv, install, then the whole test suite
                                (further arguments go to pytest)

Standard library only: it runs before anything is installed. The embedded default
(SQLite and kombu's filesystem broker under ./var) needs no server; DATABASE_URL and
CELERY_BROKER_URL switch to PostgreSQL and Redis. Every command it prints names the data
directory it runs on (CASINO_DATA_DIR=DIR in front, when not ./var), so it works pasted.
"""

from __future__ import annotations  # a clear message below, even on an old Python

import argparse
import contextlib
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "requirements.txt"  # what runs the floor
REQUIREMENTS_DEV = ROOT / "requirements-dev.txt"  # that, and what tests it
# Two workers, as deploy/Procfile has them: the floor's own work, and the webhooks' POSTs,
# so an integrator's slow or dead endpoint holds only the second, never a settlement.
FLOOR_QUEUES = "settlement,monitoring,default"
WEBHOOK_QUEUES = "webhooks"


def venv_python() -> Path:
    """The virtualenv's interpreter."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def data_dir_choose(given: str | None) -> Path:
    """The floor's data directory: --data-dir, else CASINO_DATA_DIR, else ./var; made
    absolute against the directory floor.py was run from (its processes run in ROOT) and
    set as CASINO_DATA_DIR, which every process it starts inherits."""
    chosen = given or os.environ.get("CASINO_DATA_DIR") or str(ROOT / "var")
    data_dir = Path(chosen).expanduser().resolve()
    os.environ["CASINO_DATA_DIR"] = str(data_dir)
    return data_dir


def pasteable(*words: str) -> str:
    """A manage.py command as a person pastes it: the virtualenv's python, from this
    directory when floor.py runs here (else by full path), and CASINO_DATA_DIR in front
    unless the data directory is the default, so it reaches the same database."""
    python, manage = venv_python(), ROOT / "manage.py"
    if Path.cwd().resolve() == ROOT:
        python, manage = python.relative_to(ROOT), manage.relative_to(ROOT)
    data_dir = os.environ.get("CASINO_DATA_DIR")
    default = not data_dir or Path(data_dir).resolve() == ROOT / "var"
    prefix = "" if default else f"CASINO_DATA_DIR={shlex.quote(str(data_dir))} "
    return prefix + shlex.join([str(python), str(manage), *words])


def say(message: str) -> None:
    print(f"floor | {message}", flush=True)


def ensure_venv(requirements: Path = REQUIREMENTS) -> Path:
    """Create ./.venv and install a requirements file into it, again only when it (or
    requirements.txt, which the dev file includes) changes."""
    if sys.version_info < (3, 11):  # noqa: UP036 - the bootstrap runs on any python3
        sys.exit(f"floor: Python 3.11 or newer is needed; this is {sys.version.split()[0]}")
    python = venv_python()
    if not python.exists():
        say(f"creating the virtualenv {VENV}")
        venv.create(VENV, with_pip=True)
    stamp = VENV / f".{requirements.stem}.sha256"
    digest = hashlib.sha256(requirements.read_bytes() + REQUIREMENTS.read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != digest:
        say(f"installing {requirements.name} (a minute or two the first time)")
        subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
             "-r", str(requirements)],
            check=True,
        )  # fmt: skip
        stamp.write_text(digest)
    return python


def run_tests(pytest_args: list[str]) -> int:
    """The whole test suite, in the virtualenv."""
    python = ensure_venv(REQUIREMENTS_DEV)
    return subprocess.call([str(python), "-m", "pytest", *pytest_args], cwd=ROOT)


# Lines too frequent to read: each heartbeat the web server answers, each pass of the
# device watch and flush (the simulator prints its own summary every 30 s).
CHATTER = (
    '"POST /devices/v1/heartbeat ',
    "monitoring.devices_watch",
    "monitoring.heartbeats_flush",
)


def banner(
    base: str, ping: subprocess.CompletedProcess[str], play: subprocess.CompletedProcess[str]
) -> list[str]:
    """What floor.py says once the floor runs: where everything is, the worker check and the
    demo rounds (the last line of each one's errors), and commands to paste."""
    return [
        "",
        "The floor is running.",
        f"  Floor: {base}/floor/",
        f"  Admin: {base}/admin/",
        f"  API:   {base}/api/v1/ (docs: {base}/api/v1/docs/)",
        f"  Metrics: {base}/metrics (Prometheus; every process's counters)",
        "  Login: demo / demo-floor",
        f"  Data:  {os.environ.get('CASINO_DATA_DIR') or ROOT / 'var'} (the database, the broker,"
        " the metrics)",
        "  A token: "
        + pasteable("api_token_issue", "--user", "demo-integrator", "--by", "demo-ops"),
        *(f"  Worker check, {line}" for line in ping.stdout.splitlines()),
        *(f"  {line}" for line in ping.stderr.splitlines()[-1:]),
        *(f"  Demo rounds: {line}" for line in play.stdout.splitlines()),
        *(f"  {line}" for line in play.stderr.splitlines()[-1:]),
        "  More rounds: " + pasteable("play_rounds", "--rounds", "10"),
        "  Recall one: " + pasteable("recall", "SB-01:1"),
        '  Devices: the simulator keeps them beating, and once "no more bets" is called',
        "  SB-02's shaker throws, PG-01's generator posts its number and CR-02's Power Odds",
        "  generator its selection (§ 623b.5), as real ones do;",
        "  HR-01's Extra Roll device at position 6 goes quiet every other minute and comes",
        "  back (Admin > Devices).",
        "Ctrl-C stops the web server, the devices, the workers and beat.",
        "",
    ]


class Floor:
    """The web server, the device simulator, two workers and beat as child processes,
    stopped together."""

    def __init__(self, python: Path, host: str, port: int) -> None:
        self.python = str(python)
        self.base = f"http://{host}:{port}"
        self.commands = {
            "web": [self.python, "manage.py", "runserver", f"{host}:{port}", "--noreload"],
            "worker": [self.python, "-m", "celery", "-A", "casino", "worker",
                       "-Q", FLOOR_QUEUES, "-n", "floor-worker@%h", "--concurrency", "2",
                       "-l", "INFO"],
            "hooks": [self.python, "-m", "celery", "-A", "casino", "worker",
                      "-Q", WEBHOOK_QUEUES, "-n", "floor-webhooks@%h", "--concurrency", "2",
                      "-l", "INFO"],
            "beat": [self.python, "-m", "celery", "-A", "casino", "beat", "-l", "INFO"],
            # The demo floor's shakers, sensors and generators, heartbeating and reporting
            # (dice, numbers) over HTTP as real ones do.
            "devices": [self.python, "manage.py", "simulate_devices", "--url", self.base],
        }  # fmt: skip
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.stopping = threading.Event()

    def start(self) -> None:
        """The web server first; the devices once it answers, then the workers and beat, so
        the heartbeat watch never starts before the devices it watches."""
        self._spawn("web")
        threading.Thread(target=self._announce, daemon=True).start()

    def _spawn(self, name: str) -> None:
        """Start one process in its own session, so Ctrl-C reaches only us."""
        # The links the compliance officers' emails carry point at this server.
        env = {"CASINO_SITE_URL": self.base, **os.environ, "PYTHONUNBUFFERED": "1"}
        process = subprocess.Popen(
            self.commands[name], cwd=ROOT, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        self.processes[name] = process
        threading.Thread(target=self._relay, args=(name, process), daemon=True).start()

    def _relay(self, name: str, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            text = line.decode(errors="replace")
            if any(chatter in text for chatter in CHATTER):
                continue
            sys.stdout.write(f"{name:<6} | {text}")
            sys.stdout.flush()

    def _announce(self) -> None:
        """Once the admin answers and a worker has run a task, say where everything is."""
        deadline = time.monotonic() + 120
        while not self.stopping.is_set():
            try:
                with urllib.request.urlopen(f"{self.base}/admin/login/", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                say("the web server did not answer within two minutes")
                return
            time.sleep(0.5)
        if self.stopping.is_set():
            return
        self._spawn("devices")
        time.sleep(3)  # the devices' first heartbeats land before the watch starts
        for name in ("worker", "hooks", "beat"):
            self._spawn(name)
        ping = subprocess.run(
            [self.python, "manage.py", "ping_workers", "--timeout", "60"],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        if self.stopping.is_set():
            return
        # The demo floor plays rounds on every table that may start one, settled by the worker.
        play = subprocess.run(
            [self.python, "manage.py", "play_rounds", "--rounds", "5", "--timeout", "120"],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        if self.stopping.is_set():
            return
        print("\n".join(f"floor | {line}" for line in banner(self.base, ping, play)), flush=True)

    def wait(self) -> int:
        """Until Ctrl-C (0) or until one process dies on its own (1)."""
        while not self.stopping.is_set():
            for name, process in list(self.processes.items()):
                code = process.poll()
                if code is not None:
                    say(f"{name} exited with code {code}; stopping the others")
                    self.stop()
                    return 1
            time.sleep(0.3)
        return 0

    def stop(self) -> None:
        """SIGTERM to each process (a worker's warm shutdown), SIGKILL after 20 seconds.
        Beat goes first, so the watch does not see the devices fall silent as they stop."""
        self.stopping.set()
        beat = self.processes.get("beat")
        if beat is not None and beat.poll() is None:
            beat.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                beat.wait(timeout=10)
        for process in list(self.processes.values()):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for name, process in list(self.processes.items()):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{name} did not stop in time; killing it")
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def metrics_dir_prepare() -> Path:
    """Where the web server, the workers' processes and beat write their counters, which
    /metrics adds up (PROMETHEUS_MULTIPROC_DIR, casino/metrics.py): under CASINO_DATA_DIR
    unless set, emptied before the processes start, and handed to each of them."""
    data_dir = Path(os.environ.get("CASINO_DATA_DIR") or ROOT / "var")
    directory = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or data_dir / "metrics")
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)
    return directory


def run_floor(host: str, port: int) -> int:
    """Set everything up, then run the floor in the foreground until Ctrl-C."""
    python = ensure_venv()
    metrics_dir_prepare()
    for step in (["migrate", "--noinput"], ["load_demo_floor"]):
        subprocess.run([str(python), "manage.py", *step], cwd=ROOT, check=True)
    floor = Floor(python, host, port)

    def interrupted(signum: int, frame: object) -> None:
        if not floor.stopping.is_set():
            say("stopping the web server, the devices, the workers and beat")
            floor.stopping.set()

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    floor.start()
    code = floor.wait()
    floor.stop()
    say("stopped")
    return code


def main(argv: list[str]) -> int:
    """``floor.py [--data-dir DIR] [--host H] [--port P]`` runs the floor; ``floor.py test
    [ARGS]`` tests."""
    if argv[:1] == ["test"]:
        return run_tests(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python3 floor.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="where the floor keeps its files (default: $CASINO_DATA_DIR, else ./var)",
    )
    parser.add_argument(
        "--host",
        default=os.environ.get("FLOOR_HOST", "127.0.0.1"),
        help="the web server's address (default: $FLOOR_HOST, else 127.0.0.1)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("FLOOR_PORT", "8000")),
        help="the web server's port (default: $FLOOR_PORT, else 8000)",
    )
    args = parser.parse_args(argv)
    data_dir_choose(args.data_dir)
    try:
        return run_floor(args.host, args.port)
    except subprocess.CalledProcessError as error:
        words = [str(word) for word in error.cmd[1:]]
        failed = pasteable(*words[1:]) if words[:1] == ["manage.py"] else " ".join(words)
        say(f"{failed} failed with code {error.returncode}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
