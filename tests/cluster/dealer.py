"""The cluster's dealers: a thread a table, dealing rounds through the REST API behind the
load balancer at a steady rate, as an integrator's table would, until SIGTERM (the round
under way is finished first).

    python -m tests.cluster.dealer --url http://127.0.0.1:8080 --tables 4 --period 3
        --writes writes.jsonl        (the token in CLUSTER_TOKEN)

A round: open it, one request of wagers, no more bets, the result (the dealer's own
dice), then GET until it is settled. A write whose answer is lost (the connection
dropped, the balancer's 502/503/504, the floor's own 503 with Retry-After, a 429) is sent
again with the same Idempotency-Key until it is answered, which is what the key is for: so
a write is committed once whichever machine took it. Every answered write is a line of
`--writes` (what, table, round, key, status, whether the floor replayed a stored answer,
how many sends it took); so is every round seen settled, with the time. A table the
floor suspended (a device went stale while Redis was away) is opened again, as its
operator would; a round refused half-way is logged as abandoned.
"""

import argparse
import http.client
import json
import os
import random
import signal
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

# The tables dealt, in this order: live tables whose results the dealer enters (no
# automated shaker, no Power Odds generator to wait for), of four games.
TABLES = ("SB-01", "TD-01", "CR-01", "HR-02")
LOST = {502, 503, 504, 429}  # answers that say the write was not taken: send it again
TIMEOUT = 10.0  # seconds an answer may take before the dealer calls it lost
SETTLE_WAIT = 120.0  # seconds a dealer waits to see its round settled


class Floor:
    """One table's connection to the floor through the balancer; every write logged."""

    def __init__(self, url: str, token: str, log: "Writes") -> None:
        parsed = url.removeprefix("http://").split(":")
        self.host, self.port = parsed[0], int(parsed[1])
        self.token, self.log = token, log
        self.connection: http.client.HTTPConnection | None = None

    def send(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple:
        """(status, headers, answer) or None if the answer was lost."""
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        try:
            data = json.dumps(body).encode() if body is not None else None
            self.connection.request(method, path, data, headers)
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            return None
        if response.will_close:
            self.connection.close()
            self.connection = None
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = {"raw": raw[:200].decode(errors="replace")}
        return response.status, dict(response.getheaders()), answer

    def headers(self) -> dict[str, str]:
        return {
            "Host": "localhost",
            "Accept": "application/json",
            "Authorization": f"Bearer {self.token}",
        }

    def get(self, path: str) -> tuple[int, Any]:
        while True:
            sent = self.send("GET", path, None, self.headers())
            if sent is not None and sent[0] not in LOST:
                return sent[0], sent[2]
            time.sleep(0.5)

    def write(self, what: str, path: str, body: Any, **about: Any) -> tuple[int, Any]:
        """POST with an Idempotency-Key, sent again with the same key until answered."""
        key = uuid.uuid4().hex
        headers = {**self.headers(), "Idempotency-Key": key, "Content-Type": "application/json"}
        sends, lost = 0, []
        while True:
            sends += 1
            sent = self.send("POST", path, body, headers)
            if sent is None:
                lost.append("no answer")
            elif sent[0] in LOST:
                lost.append(str(sent[0]))
            else:
                status, answer_headers, answer = sent
                replayed = answer_headers.get("Idempotent-Replayed") == "true"
                self.log.write(what=what, key=key, status=status, replayed=replayed,
                               sends=sends, lost=lost, answer=answer, **about)  # fmt: skip
                return status, answer
            wait = 0.5
            if sent is not None and sent[1].get("Retry-After", "").isdigit():
                wait = min(float(sent[1]["Retry-After"]), 2.0)
            time.sleep(wait * random.uniform(0.8, 1.2))


class Writes:
    """The writes file, a JSON line each, written by every thread."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("a", buffering=1)
        self.lock = threading.Lock()

    def write(self, **line: Any) -> None:
        with self.lock:
            self.file.write(json.dumps({"t": time.time(), **line}, default=str) + "\n")


def wagers_for(table: dict, rng: random.Random) -> list[dict]:
    amount = str(table["min_wager"])
    game = table["game"]
    if game == "sic_bo":
        kinds = [rng.choice(("big", "small")), f"total:{rng.randint(4, 17)}", "single:3"]
    elif game == "three_dice_football":
        kinds = ["over_four", "under_four", "penalty"]  # a throw's own: no full game wager
    elif game == "craps":
        kinds = ["field"]  # decided by every throw
    else:  # High Roll Dice: each player with a Pip Street Wager (the engine wants one)
        return [
            {"player": player, "kind": kind, "amount": amount}
            for player in ("p1", "p2")
            for kind in (f"pip:{rng.randint(1, 6)}", "like_kind:3")
        ]
    return [
        {"player": f"p{n}", "kind": kind, "amount": amount} for n, kind in enumerate(kinds, start=1)
    ]


def result_for(table: dict, round_: dict, rng: random.Random) -> dict:
    def dice(count: int) -> list[int]:
        return [rng.randint(1, 6) for _ in range(count)]

    game = table["game"]
    if game == "sic_bo":
        payload: Any = dice(3)
    elif game == "three_dice_football":
        payload = {"green": dice(2), "red": rng.randint(1, 6)}
    elif game == "craps":
        payload = dice(2)
    else:
        payload = dice(int(round_["options"].get("dice", 10)))
    return {"event": "throw", "payload": payload}


def round_deal(floor: Floor, table: dict, rng: random.Random) -> None:
    about = {"table": table["number"]}
    status, round_ = floor.write("open", "/api/v1/rounds/", {"table": table["id"]}, **about)
    if status != 201:
        if status == 422 and "suspended" in json.dumps(round_):
            floor.write("reopen", f"/api/v1/tables/{table['id']}/open/", None, **about)
        time.sleep(1)
        return
    path = f"/api/v1/rounds/{round_['id']}/"
    about["round"] = round_["id"]
    steps = [
        ("wagers", path + "wagers/", {"wagers": wagers_for(table, rng)}),
        ("no more bets", path + "no-more-bets/", None),
        ("result", path + "result/", result_for(table, round_, rng)),
    ]
    for what, step_path, body in steps:
        status, _ = floor.write(what, step_path, body, **about)
        if status >= 400 and what == "wagers":  # refused: the round is dealt without them
            continue
        if status >= 400:  # refused (the checks name such rounds): the table deals on
            floor.log.write(what="abandoned", step=what, **about)
            return
    deadline = time.monotonic() + SETTLE_WAIT
    while time.monotonic() < deadline:
        status, seen = floor.get(path)
        if status == 200 and seen["status"] == "settled":
            floor.log.write(what="settled", **about)
            return
        time.sleep(0.3)
    floor.log.write(what="not settled", **about)


def table_deal(floor: Floor, table: dict, period: float, stop: threading.Event) -> None:
    rng = random.Random(table["id"])
    time.sleep(rng.uniform(0, period))  # the tables' rounds spread out
    while not stop.is_set():
        started = time.monotonic()
        try:
            round_deal(floor, table, rng)
        except Exception as error:  # logged; the table deals on
            floor.log.write(what="dealer error", table=table["number"], error=repr(error))
        stop.wait(max(0.0, period - (time.monotonic() - started)))


def tables_find(floor: Floor, count: int) -> list[dict]:
    answer = floor.get("/api/v1/tables/?page_size=100")[1]
    rows = answer["results"] if isinstance(answer, dict) else answer
    by_number = {row["number"]: row for row in rows}
    chosen = [by_number[n] for n in TABLES if n in by_number][:count]
    if len(chosen) < count:
        sys.exit(f"dealer: {count} tables asked for, found {[t['number'] for t in chosen]}")
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--period", type=float, default=3.0, help="Seconds a round, at least.")
    parser.add_argument("--writes", type=Path, required=True)
    args = parser.parse_args()
    token = os.environ["CLUSTER_TOKEN"]
    log = Writes(args.writes)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    tables = tables_find(Floor(args.url, token, log), args.tables)
    log.write(what="tables", tables=[t["number"] for t in tables])
    threads = [
        threading.Thread(
            target=table_deal, args=(Floor(args.url, token, log), t, args.period, stop)
        )
        for t in tables
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    log.write(what="stopped")


if __name__ == "__main__":
    main()
