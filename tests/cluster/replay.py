"""A device request captured before Redis fails over, replayed after it (from the client
machine, through HAProxy's devices way in): the device store's fail-closed rule across a
failover (docs/deploy.md, "Several machines").

    python -m tests.cluster.replay before --url http://127.0.0.1:8081 --state FILE
    python -m tests.cluster.replay after --url http://127.0.0.1:8081 --state FILE

`before` (the harness has stopped the replica's copying, so what the primary takes now is
lost with it): SB-01's illumination device is given two more credentials (the one the
device simulator holds keeps working for an hour); a heartbeat signed with each is sent
and must be taken (204), its nonce on the primary alone; then the second is revoked. The
requests and the secrets go to FILE. `after`, on the promoted replica, which never had
those nonces: the first heartbeat sent again must be refused as signed before the store
began on it, and a new one signed with the revoked credential refused too. Prints one
JSON line: each status, and the replay's detail.
"""

import argparse
import http.client
import json
import time
from pathlib import Path

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402 - after django.setup()
from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from casino.demo_accounts import OPS_USERNAME  # noqa: E402
from devices import signing  # noqa: E402
from devices.models import Device  # noqa: E402
from devices.services import credential_revoke, credential_rotate  # noqa: E402

PATH = "/devices/v1/heartbeat"
DEVICE = "SBI-3001"  # SB-01's illumination device


def send(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    host, port = url.removeprefix("http://").split(":")
    for _ in range(30):  # the floor may be failing over: a 503 or no answer is sent again
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            sent = {**headers, "Host": "localhost", "Content-Type": "application/json"}
            connection.request("POST", PATH, body, sent)
            response = connection.getresponse()
            status, answer = response.status, response.read()
        except OSError:
            status, answer = 0, b""
        finally:
            connection.close()
        if status not in (0, 502, 503, 504):
            detail = json.loads(answer).get("detail", "") if answer else ""
            return status, detail
        time.sleep(1)
    return status, ""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["before", "after"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--state", type=Path, required=True)
    args = parser.parse_args()
    if args.step == "before":
        device = Device.objects.get(serial_number=DEVICE)
        ops = get_user_model().objects.get(username=OPS_USERNAME)
        state: dict = {"device": device.pk, "taken": []}
        body = json.dumps({"device": device.pk}).encode()
        for name in ("replayed", "revoked"):
            issued = credential_rotate(device, by=ops, now=timezone.now(), grace_seconds=3600)
            headers = signing.signed_headers(
                issued.key_id, issued.secret, "POST", PATH, body, time.time()
            )
            state["taken"].append(send(args.url, body, headers)[0])
            state[name] = {"key_id": issued.key_id, "secret": issued.secret, "headers": headers}
            if name == "revoked":
                with transaction.atomic():
                    credential_revoke(issued.credential, by=ops, now=timezone.now())
        state["body"] = body.decode()
        args.state.write_text(json.dumps(state))
        print(json.dumps({"taken": state["taken"]}))
        return
    state = json.loads(args.state.read_text())
    body = state["body"].encode()
    replayed, detail = send(args.url, body, state["replayed"]["headers"])
    revoked = state["revoked"]
    fresh = signing.signed_headers(
        revoked["key_id"], revoked["secret"], "POST", PATH, body, time.time()
    )
    revoked_status = send(args.url, body, fresh)[0]
    print(json.dumps({"replayed": replayed, "detail": detail, "revoked": revoked_status}))


if __name__ == "__main__":
    main()
