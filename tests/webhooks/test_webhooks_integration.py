"""Webhooks through the real path (issue 33, "Done when"): a plain HTTP receiver
(http.server on 127.0.0.1, in this process), a real gunicorn, a real Celery worker and
beat, PostgreSQL and Redis. An integrator registers an endpoint through the API and plays
Sic Bo rounds through the API, as tests/api/test_generated_client_integration.py does.

1. "round settled" reaches the receiver within 2 s of the settlement, verifies with the
   `standardwebhooks` package and the secret the registration answered, and carries
   exactly the resolutions GET /api/v1/resolutions/?round= shows.
2. The worker is killed (SIGKILL, its whole process group) while the receiver holds the
   request: a new worker and beat's sweep deliver it again once the try's lease ends.
3. The receiver is down for a minute while rounds settle: once it is back, it gets every
   one of them (the backoff and the circuit breaker set short here, as a floor would not).

CELERY_VISIBILITY_TIMEOUT is 600 s, so nothing comes back from Redis within the test:
whatever is delivered again, the sweep sent again. Without PostgreSQL or Redis the test
skips, saying so; with CI=true it fails.
"""

import json
import os
import signal
import threading
import time
import uuid
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook

from tests.api.test_generated_client_integration import gunicorn
from tests.services import (
    ROOT,
    manage,
    postgres_database,
    project_env,
    redis_database,
    require_postgres,
    require_redis,
)
from tests.webhooks.fixtures import Receiver, receiver
from tests.workers.test_db_outage_integration import free_port
from tests.workers.test_settlement_integration import beat_start, wait_until, worker_start

pytestmark = pytest.mark.integration

DOWN_SECONDS = 60  # "a receiver down for a minute"
FLOOR_SCRIPT = """
import json
from django.utils import timezone
from casino.services.api_tokens import token_issue
from tests.casino.floor_fixtures import compliant_table, operations, staff

now = timezone.now()
floor = compliant_table("sic_bo", number="SB-01", now=now, open_table=True)
integrator = staff("hook_integrator", "integrator")
_, key = token_issue(
    user=integrator, holder=floor.table.holder, name="webhooks", by=operations(), now=now
)
print(json.dumps({"key": key, "table": floor.table.pk}))
"""


class Integrator:
    """The API as an integrator calls it, with its token."""

    def __init__(self, base: str, key: str, table: int) -> None:
        self.http = httpx.Client(
            base_url=f"{base}/api/v1", headers={"Authorization": f"Bearer {key}"}, timeout=30
        )
        self.table = table

    def call(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        headers = {"Idempotency-Key": str(uuid.uuid4())} if method == "POST" else {}
        response = self.http.request(method, path, json=body, headers=headers)
        assert response.status_code == status, (path, response.status_code, response.text)
        return response.json() if response.content else None

    def round_play(self) -> int:
        """A Sic Bo round through the API to its result: its id (the worker settles it)."""
        round_ = self.call("POST", "/rounds/", {"table": self.table}, status=201)
        wagers = [{"player": "ann", "kind": "small", "amount": "10.00"},
                  {"player": "bob", "kind": "big", "amount": "25.00"},
                  {"player": "cy", "kind": "total:10", "amount": "5.00"}]  # fmt: skip
        self.call("POST", f"/rounds/{round_['id']}/wagers/", {"wagers": wagers}, status=201)
        self.call("POST", f"/rounds/{round_['id']}/no-more-bets/")
        self.call("POST", f"/rounds/{round_['id']}/result/", {"event": "throw",
                                                               "payload": [2, 3, 5]})  # fmt: skip
        return round_["id"]

    def settled_at(self, round_id: int, timeout: float = 30) -> float:
        """When the worker settled the round (Unix seconds), once it has."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.call("GET", f"/rounds/{round_id}/")
            if found["status"] == "settled":
                return _unix(found["settled_at"])
            assert time.monotonic() < deadline, f"round {round_id} not settled: {found}"
            time.sleep(0.05)


def _unix(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def settled_rounds(got: Receiver, secret: str) -> dict[int, dict]:
    """Each round.settled the receiver got, verified, by round id (the last of each)."""
    found = {}
    for request in list(got.got):
        payload = Webhook(secret).verify(request.body, request.headers)
        if payload["type"] == "round.settled":
            found[payload["data"]["round"]["id"]] = payload
    return found


def test_round_settled_reaches_a_receiver_through_a_killed_worker_and_an_outage(tmp_path: Path):
    require_postgres()
    require_redis()
    with ExitStack() as stack:
        database_url = stack.enter_context(postgres_database())
        redis_url = stack.enter_context(redis_database())
        env = project_env(
            DATABASE_URL=database_url,
            CELERY_BROKER_URL=redis_url,
            CASINO_DATA_DIR=str(tmp_path / "var"),
            CELERY_VISIBILITY_TIMEOUT="600",
            # No device sends heartbeats here: the fixture's, at setup, stay live.
            CASINO_DEVICE_HEARTBEATS=json.dumps({"illumination_device": [600, 3]}),
            # Short, for a test: tries of 3 s at most (a lease of 10 s), backoff from 1 s to
            # 4 s, the circuit open after 3 failures in a row, the sweep every second.
            CASINO_WEBHOOK_CONNECT_SECONDS="1",
            CASINO_WEBHOOK_READ_SECONDS="2",
            CASINO_WEBHOOK_BACKOFF_SECONDS="1",
            CASINO_WEBHOOK_BACKOFF_MAX_SECONDS="4",
            CASINO_WEBHOOK_BREAKER_FAILURES="3",
            CASINO_WEBHOOK_MAX_ATTEMPTS="60",
            CASINO_WEBHOOK_SWEEP_SECONDS="1",
            CASINO_WEBHOOK_STUCK_SECONDS="3",
            PYTHONPATH=str(ROOT),
        )
        manage(env, "migrate", "--noinput")
        floor = json.loads(manage(env, "shell", "-c", FLOOR_SCRIPT).stdout.strip().splitlines()[-1])
        base = stack.enter_context(gunicorn(env, tmp_path / "gunicorn.log"))
        worker_log = tmp_path / "worker.log"
        worker = worker_start(stack, env, worker_log, "hooks")
        beat_start(stack, env, tmp_path / "beat.log")
        api = Integrator(base, floor["key"], floor["table"])
        port = free_port()

        with receiver(port=port) as got:
            registered = api.call(
                "POST", "/webhook-endpoints/", {"url": got.url, "events": ["round.settled"]}, 201
            )
            secret = registered["secret"]

            # 1. Within 2 s of the settlement, verified, exactly the API's resolutions.
            first = api.round_play()
            settled = api.settled_at(first)
            (request,) = got.wait_for(1, timeout=10)
            assert request.at - settled < 2.0, f"{request.at - settled:.3f} s after settling"
            payload = Webhook(secret).verify(request.body, request.headers)
            shown = api.call("GET", f"/resolutions/?round={first}")["results"]
            assert len(shown) == 3 and payload["data"]["resolutions"] == shown
            assert payload["data"]["round"] == next(
                r for r in api.call("GET", "/rounds/")["results"] if r["id"] == first
            )

            # 2. The worker killed (its whole process group) while the receiver holds the
            # request; a new worker, and the sweep once the try's lease ends, send it again.
            got.hold = threading.Event()
            second = api.round_play()
            got.wait_for(2, timeout=15)
            held_id = got.got[1].headers["webhook-id"]
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
            got.hold.set()
            got.hold = None
            worker_start(stack, env, tmp_path / "worker-2.log", "hooks-again")
            wait_until(lambda: len(got.got) >= 3, 40, "the held delivery sent again", worker_log)
            assert got.got[2].headers["webhook-id"] == held_id  # the same message, again
            assert second in settled_rounds(got, secret)

        # 3. The receiver down (its port refuses) for a minute while rounds settle.
        down_since = time.monotonic()
        during = []
        for _ in range(3):  # a table starts a round once the last is settled
            during.append(api.round_play())
            api.settled_at(during[-1])
        time.sleep(max(0.0, DOWN_SECONDS - (time.monotonic() - down_since)))
        refused = api.call("GET", "/webhook-deliveries/?status=pending")["results"]
        assert len(refused) == 3 and all(
            r["last_error"].startswith("no connection") for r in refused
        )
        with receiver(port=port, state=got):  # back, on the same port
            wait_until(
                lambda: set(during) <= set(settled_rounds(got, secret)),
                20,
                "every round settled during the outage delivered once the receiver is back",
            )
        deliveries = api.call("GET", "/webhook-deliveries/")["results"]
        assert len(deliveries) == 5
        assert {row["status"] for row in deliveries} == {"delivered"}, deliveries
