"""A device request captured before Redis fails over, replayed after it (from the client
machine, through HAProxy's devices way in): the device store's fail-closed rule across a
failover (docs/deploy.md, "Several machines").

    python -m tests.cluster.replay before --url http://127.0.0.1:8081 --state FILE
    python -m tests.cluster.replay after --url http://127.0.0.1:8081 --state FILE

`before`: SB-01's illumination device is given a second credential (its first, which the
device simulator holds, keeps working for an hour); a heartbeat signed with it is sent and
must be taken (204); then that credential is revoked (the store told at once). The request
and the secret go to FILE. `after`: the captured heartbeat is sent again, and a new one
signed with the revoked credential: both must be refused (401). Prints one JSON line.
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


def send(url: str, body: bytes, headers: dict[str, str]) -> int:
    host, port = url.removeprefix("http://").split(":")
    for _ in range(30):  # the floor may be failing over: a 503 or no answer is sent again
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            sent = {**headers, "Host": "localhost", "Content-Type": "application/json"}
            connection.request("POST", PATH, body, sent)
            status = connection.getresponse().status
        except OSError:
            status = 0
        finally:
            connection.close()
        if status not in (0, 502, 503, 504):
            return status
        time.sleep(1)
    return status


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["before", "after"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--state", type=Path, required=True)
    args = parser.parse_args()
    if args.step == "before":
        device = Device.objects.get(serial_number=DEVICE)
        ops = get_user_model().objects.get(username=OPS_USERNAME)
        issued = credential_rotate(device, by=ops, now=timezone.now(), grace_seconds=3600)
        body = json.dumps({"device": device.pk}).encode()
        headers = signing.signed_headers(
            issued.key_id, issued.secret, "POST", PATH, body, time.time()
        )
        taken = send(args.url, body, headers)
        with transaction.atomic():
            credential_revoke(issued.credential, by=ops, now=timezone.now())
        state = {"device": device.pk, "key_id": issued.key_id, "secret": issued.secret,
                 "body": body.decode(), "headers": headers}  # fmt: skip
        args.state.write_text(json.dumps(state))
        print(json.dumps({"taken": taken}))
        return
    state = json.loads(args.state.read_text())
    body = state["body"].encode()
    replayed = send(args.url, body, state["headers"])
    fresh = signing.signed_headers(
        state["key_id"], state["secret"], "POST", PATH, body, time.time()
    )
    revoked = send(args.url, body, fresh)
    print(json.dumps({"replayed": replayed, "revoked": revoked}))


if __name__ == "__main__":
    main()
