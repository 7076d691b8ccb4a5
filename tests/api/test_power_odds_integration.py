"""Power Odds through the API with the real worker (58 Pa. Code § 623b.5), as an integrator
and the table's generator meet them: against a real gunicorn on a private PostgreSQL
database, with a real Celery worker on Redis.

CR-02 offers Power Odds with its generator active; CR-03 offers them with its generator
marked out of order. At CR-03 no round starts, the refusal citing § 623b.5(c). At CR-02:
Any Craps for $10, "no more bets", the round waiting on the generator (`device_wait`), a
throw refused naming § 623b.5(c); the generator's signed report over HTTP selects Any
Craps at 14 to 1, shown in the round's `state` before the throw; the throw 1-1, the worker's
settlement: $140 won (the usual 7 to 1 would pay $70), the resolution naming the increased
odds, and `recall` showing the selection with the generator that made it.

The floor is built by tests/casino/floor_fixtures.py in a `manage.py shell` of the same
environment. Without PostgreSQL or Redis the test skips, saying so; with CI=true it fails.
"""

import json
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from devices import signing
from tests.services import (
    celery_worker,
    gunicorn,
    manage,
    postgres_database,
    production_env,
    redis_database,
    require_postgres,
    require_redis,
)

pytestmark = pytest.mark.integration

API = "/api/v1"
REPORT = "/devices/v1/report"

# Two Craps tables offering Power Odds, open; CR-03's generator then marked out of order;
# CR-02's generator's new secret and an integrator's token: printed as one JSON line.
FLOOR_SCRIPT = """
import json
from django.utils import timezone
from casino.services.api_tokens import token_issue
from devices.models import Device
from devices.services import credential_rotate
from gaming.devices import device_out_of_order
from tests.casino.floor_fixtures import compliant_table, operations, staff

now = timezone.now()
cr02 = compliant_table("craps", number="CR-02", now=now, options={"power_odds": True},
                       power_odds=True, open_table=True).table
cr03 = compliant_table("craps", number="CR-03", now=now, power_odds=True, open_table=True).table
device_out_of_order(Device.objects.get(table=cr03, kind="power_odds_rng"), "display dark",
                    by=operations(), now=now)
generator = Device.objects.get(table=cr02, kind="power_odds_rng")
issued = credential_rotate(generator, by=operations(), now=now)
_, key = token_issue(user=staff("po_integrator", "integrator"), holder=cr02.holder,
                     name="power odds", by=operations(), now=now)
print(json.dumps({"key": key, "cr02": cr02.pk, "cr03": cr03.pk, "device": generator.pk,
                  "serial": generator.serial_number, "key_id": issued.key_id,
                  "secret": issued.secret}))
"""


def test_power_odds_through_the_api_with_the_generator_and_the_worker(tmp_path: Path):
    require_postgres()
    require_redis()
    with postgres_database() as database_url, redis_database() as redis_url:
        env = production_env(
            tmp_path,
            database_url,
            redis_url,
            # No device beats here: the fixture's heartbeats, at setup, stay live.
            CASINO_DEVICE_HEARTBEATS=json.dumps({"power_odds_rng": [600, 3]}),
        )
        manage(env, "migrate", "--noinput")
        floor = json.loads(manage(env, "shell", "-c", FLOOR_SCRIPT).stdout.strip().splitlines()[-1])
        with (
            celery_worker(env, tmp_path / "worker.log", f"power-odds-{uuid.uuid4().hex[:6]}@%h"),
            gunicorn(env, tmp_path / "gunicorn.log") as base,
            httpx.Client(base_url=base, timeout=30) as http,
        ):
            play(http, floor)
        recalled = manage(env, "recall", "CR-02:1").stdout
    assert (
        f'power_odds {{"any_craps": "14 to 1"}}  from Power Odds random number generator '
        f"{floor['serial']}  (58 Pa. Code § 623b.5(c))"
    ) in recalled
    assert "1.1: win +140.00" in recalled


def play(http: httpx.Client, floor: dict[str, Any]) -> None:
    token = {"Authorization": f"Bearer {floor['key']}"}

    def call(method: str, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
        headers = {**token, "Idempotency-Key": str(uuid.uuid4())}
        response = http.request(method, API + path, json=body, headers=headers)
        assert response.status_code == status, response.text[:2000]
        return response.json()

    # CR-03's generator is out of order: no round (§ 623b.5(c)).
    refused = call("POST", "/rounds/", {"table": floor["cr03"]}, status=422)
    assert "Power Odds random number generator at CR-03 is out of order" in refused["detail"]
    assert "58 Pa. Code § 623b.5(c)" in refused["detail"]

    opened = call("POST", "/rounds/", {"table": floor["cr02"]}, status=201)
    assert opened["state"]["power_odds"] is None
    wagers = {"wagers": [{"player": "ann", "kind": "any_craps", "amount": "10.00"}]}
    call("POST", f"/rounds/{opened['id']}/wagers/", wagers, status=201)
    closed = call("POST", f"/rounds/{opened['id']}/no-more-bets/")
    wait = closed["device_wait"]
    assert (wait["kind"], wait["device"]["id"], wait["cite"]) == (
        "power_odds_rng",
        floor["device"],
        "58 Pa. Code § 623b.5(c)",
    )
    assert "throw" not in closed["next"]["events"]
    early = call("POST", f"/rounds/{opened['id']}/result/", {"event": "throw", "payload": [1, 1]},
                 status=422)  # fmt: skip
    assert (
        "until the Power Odds random number generator has displayed its selection"
        in (early["detail"])
    )

    # The generator's selection, a signed report over HTTP, as a real device sends it.
    body = json.dumps(
        {"device": floor["device"], "table": "CR-02", "round": opened["number"],
         "selection": {"any_craps": "14 to 1"}}
    ).encode()  # fmt: skip
    headers = signing.signed_headers(
        floor["key_id"], floor["secret"], "POST", REPORT, body, time.time()
    )
    reported = http.post(
        REPORT, content=body, headers={**headers, "Content-Type": "application/json"}
    )
    assert reported.status_code == 200, reported.text

    shown = call("GET", f"/rounds/{opened['id']}/")
    assert shown["state"]["power_odds"] == {"any_craps": "14 to 1"}
    assert shown["device_wait"] is None and "throw" in shown["next"]["events"]
    [selection] = [e for e in shown["events"] if e["event"] == "power_odds"]
    assert (selection["source"], selection["device"]) == ("device", floor["device"])

    thrown = call("POST", f"/rounds/{opened['id']}/result/", {"event": "throw", "payload": [1, 1]})
    assert thrown["status"] == "result_entered"
    deadline = time.monotonic() + 60
    while call("GET", f"/rounds/{opened['id']}/")["status"] != "settled":
        assert time.monotonic() < deadline, "not settled in 60 s"
        time.sleep(0.3)
    [resolution] = call("GET", f"/resolutions/?round={opened['id']}")["results"]
    assert (resolution["result"], resolution["net"], resolution["cite"]) == (
        "win",
        "140.00",
        "58 Pa. Code § 623b.5(d)",
    )
    assert resolution["extra"]["power_odds"] == "14 to 1"
