"""What a Celery worker spends around each task, by how it acknowledges (issue 21, part 3).

    .venv/bin/python bench/acknowledgements.py [--tasks 1500] [--task-ms 3] [--repeat 2]

A real `celery worker` (the prefork pool, one pool process, four messages taken ahead, as
the settlement worker runs) on Redis, taking `--tasks` tasks published before it starts;
each task spins the CPU `--task-ms` milliseconds, touches nothing else and records in
Redis when it began and ended. Everything else a task costs is the worker's: the message
from Redis, its entry among the unacknowledged, the hand-off to the pool process and
back, the acknowledgement, the log line. "Around a task" is a task's share of the wall
time from the first task's start to the last task's end, less `--task-ms`. One worker
run a way, the ways alternated `--repeat` times, medians printed:

- kombu: kombu's own Redis transport, late acknowledgement (the baseline);
- one client: casino.broker's transport (one redis client a pool), each acknowledgement
  sent at once, as kombu sends it (what 45f8f0c ran);
- ours: casino.broker's transport as settings configures it: acknowledgements sent from
  the worker's event loop a moment later, together;
- on receipt: ours, acknowledged when the pool process takes the task (`acks_late`
  off: what the settlement task does not do; the floor of this measure).

Checks (exit 1): every task ran exactly once, and nothing is left unacknowledged in Redis
once each worker has shut down (warm shutdown, SIGTERM). Needs Redis at 127.0.0.1:6379;
empties database 11 (`--redis-db`). `--quick`: 40 tasks a way, one round: it still runs.

This file is also the Celery app the worker loads (`-A acknowledgements`, bench/ on its
path); the way comes to it in ACK_WAY.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from celery import Celery
from kombu.transport import redis as kombu_redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from casino.broker import RedisChannel, RedisTransport  # noqa: E402 - the repository root

WAYS = ("kombu", "one client", "ours", "on receipt")
BROKER = os.environ.get("ACK_BROKER", "redis://127.0.0.1:6379/11")  # the worker's (run)


class AtOnceChannel(RedisChannel):
    """casino.broker's channel with kombu's QoS: each acknowledgement sent at once."""

    QoS = kombu_redis.QoS


class AtOnceTransport(RedisTransport):
    Channel = AtOnceChannel


WAY = os.environ.get("ACK_WAY", "ours")
TRANSPORTS = {
    "kombu": None,
    "one client": "acknowledgements:AtOnceTransport",
    "ours": "casino.broker:RedisTransport",
    "on receipt": "casino.broker:RedisTransport",
}
app = Celery("acknowledgements", broker=BROKER)
app.conf.update(
    worker_prefetch_multiplier=4,
    task_acks_late=WAY != "on receipt",
    task_ignore_result=True,
    worker_hijack_root_logger=False,
    broker_connection_retry_on_startup=True,
)
if TRANSPORTS[WAY]:
    app.conf.broker_transport = TRANSPORTS[WAY]


_recorder: redis.Redis | None = None  # the pool process's own, made at its first task


@app.task(name="bench.spin")
def spin(number: int, seconds: float) -> None:
    global _recorder
    began = time.time()
    while time.time() - began < seconds:
        pass
    if _recorder is None:
        _recorder = redis.Redis.from_url(BROKER)
    record = _recorder.pipeline(transaction=False).incr("ran").hset("ended", number, time.time())
    if number == 0:
        record.set("began", began)
    record.execute()


def run(way: str, tasks: int, task_ms: float, broker: str, logs: Path) -> float:
    """One worker run on `broker`; the ms around a task."""
    client = redis.Redis.from_url(broker)
    client.flushdb()
    env = {
        **os.environ,
        "ACK_WAY": way,
        "ACK_BROKER": broker,
        "PYTHONPATH": f"{ROOT / 'bench'}{os.pathsep}{ROOT}",
    }
    publish = (
        "from acknowledgements import spin\n"
        f"for n in range({tasks}): spin.delay(n, {task_ms / 1000!r})\n"
    )
    subprocess.run([sys.executable, "-c", publish], env=env, check=True, cwd=ROOT)
    log = logs / f"{way.replace(' ', '-')}.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "acknowledgements", "worker",
                "-P", "prefork", "-c", "1", "-l", "INFO",
                "--without-gossip", "--without-mingle", "--without-heartbeat",
            ],
            env=env, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 60 + tasks * task_ms / 100
        try:
            while int(client.get("ran") or 0) < tasks:
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{way}: the worker did not finish:\n{log.read_text()}")
                time.sleep(0.02)
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    time.sleep(0.2)  # any task a second worker run would repeat shows in "ran"
    ran = int(client.get("ran") or 0)
    left = client.hlen("unacked")
    if ran != tasks or left:
        raise SystemExit(f"{way}: {ran} of {tasks} tasks ran, {left} left unacknowledged")
    ended = max(float(t) for t in client.hvals("ended"))
    wall_ms = (ended - float(client.get("began"))) * 1000
    return wall_ms / tasks - task_ms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=1500, help="tasks a worker run")
    parser.add_argument("--task-ms", type=float, default=3.0, help="a task's CPU spin")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the four ways")
    parser.add_argument("--redis-db", type=int, default=11, help="emptied and used (11)")
    parser.add_argument("--quick", action="store_true", help="40 tasks a way, once")
    args = parser.parse_args()
    if args.quick:
        args.tasks, args.repeat = 40, 1
    broker = f"redis://127.0.0.1:6379/{args.redis_db}"
    around: dict[str, list[float]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory(prefix="casino-bench-acks-") as logs:
        for _ in range(args.repeat):
            for way in WAYS:
                around[way].append(run(way, args.tasks, args.task_ms, broker, Path(logs)))
    redis.Redis.from_url(broker).flushdb()
    print(
        f"{args.tasks} tasks of {args.task_ms:g} ms of CPU a worker run, prefork, 1 pool "
        f"process, prefetch 4; {args.repeat} run(s) a way, alternated; medians"
    )
    print(f"{'way':<12} {'ms around a task':>17} {'(min-max)':>12} {':kombu':>8}")
    base = statistics.median(around["kombu"])
    for way in WAYS:
        figures = around[way]
        median = statistics.median(figures)
        spread = f"{min(figures):.2f}-{max(figures):.2f}"
        print(f"{way:<12} {median:>17.3f} {spread:>12} {median / base:>8.2f}")
    print("checks passed: every task ran once, nothing left unacknowledged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
