"""The cluster's invariants, checked from the client machine against the floor's database
(through both PostgreSQL hosts, as the floor reaches it), after a fault:

    python -m tests.cluster.checks --writes writes.jsonl --since UNIX_TIME
        [--settle-within S] [--final]

- every round whose result the floor acknowledged is settled, waited for up to
  --settle-within seconds: how long it took is the fault's "every round settled";
- nothing acknowledged lost: every round and wager the floor answered 201 for is there;
- nothing paid twice and the books balance: the single-machine fault tests' queries
  (tests/workers/test_settlement_integration.py BROKEN), but for those about rounds not
  yet settled (the dealers are still dealing), and no round with two settlement entries;
- with --final (the dealers stopped): every round the floor committed for the dealers is
  one they were answered for, and each of those is settled (or named, if abandoned).

Prints one JSON line: the counts of rounds, wagers and writes checked since --since, the
sends again and stored answers replayed, and what is wrong (empty when all holds).
"""

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.cluster.harness import DEALER_USER
from tests.workers.test_settlement_integration import BROKEN

NOT_WHILE_DEALING = (
    "a round not settled",
    "a round without a settled request",
    "a request not settled",
    "a round without exactly one settlement entry",
)
CHECKS = {name: sql for name, sql in BROKEN.items() if name not in NOT_WHILE_DEALING}
CHECKS["a round with two settlement entries"] = """
    SELECT round_id, count(*) FROM games_ledgerentry WHERE kind = 'settlement'
    GROUP BY round_id HAVING count(*) > 1
"""
DEALER_ROUNDS = """
    SELECT (w.response->>'id')::bigint FROM casino_apiwrite w
    JOIN auth_user u ON u.id = w.user_id
    WHERE u.username = %s AND w.path = '/api/v1/rounds/' AND w.status_code = 201
"""


def writes_read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


CONNECTION: list[psycopg.Connection] = []  # one, kept: a host gone costs each new one 2 s


def rows(sql: str, *params: Any) -> list[tuple]:
    for _ in range(30):  # the primary may be changing: a few seconds of refusals
        try:
            if not CONNECTION or CONNECTION[0].closed:
                CONNECTION[:] = [
                    psycopg.connect(os.environ["DATABASE_URL"], autocommit=True, connect_timeout=2)
                ]
            return CONNECTION[0].execute(sql, params).fetchall()
        except psycopg.OperationalError:
            CONNECTION.clear()
            time.sleep(1)
    raise RuntimeError("the floor's database did not answer for 30 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=Path, required=True)
    parser.add_argument("--since", type=float, required=True)
    parser.add_argument("--settle-within", type=float, default=60.0)
    parser.add_argument("--final", action="store_true")
    args = parser.parse_args()
    started = time.time()
    writes = writes_read(args.writes)
    answered = [w for w in writes if "status" in w]
    opened = {w["answer"]["id"] for w in answered if w["what"] == "open" and w["status"] == 201}
    wagers = {
        wager["id"]
        for w in answered
        if w["what"] == "wagers" and w["status"] == 201
        for wager in w["answer"]["wagers"]
    }
    resulted = {w["round"] for w in answered if w["what"] == "result" and w["status"] < 300}
    abandoned = sorted({w["round"] for w in writes if w["what"] == "abandoned"})
    problems: dict[str, Any] = {}

    def unsettled(ids: set[int]) -> list[int]:
        if not ids:
            return []
        found = rows("SELECT id FROM games_round WHERE id = ANY(%s) AND status <> 'settled'",
                     list(ids))  # fmt: skip
        return sorted(r[0] for r in found)

    must_settle = opened - set(abandoned) if args.final else resulted
    deadline = started + args.settle_within
    while (waiting := unsettled(must_settle)) and time.time() < deadline:
        time.sleep(0.5)
    settled_after = time.time() - started
    if waiting:
        problems["rounds not settled"] = waiting
    found = {r[0] for r in rows("SELECT id FROM games_round WHERE id = ANY(%s)", list(opened))}
    if lost := sorted(opened - found):
        problems["acknowledged rounds lost"] = lost
    found = {r[0] for r in rows("SELECT id FROM games_wager WHERE id = ANY(%s)", list(wagers))}
    if lost := sorted(wagers - found):
        problems["acknowledged wagers lost"] = lost
    for name, sql in CHECKS.items():
        if broken := rows(sql):
            problems[name] = [list(map(str, row)) for row in broken[:10]]
    if args.final:
        committed = {r[0] for r in rows(DEALER_ROUNDS, DEALER_USER)}
        if extra := sorted(committed - opened):
            problems["rounds committed but never acknowledged"] = extra
    recent = [w for w in answered if w["t"] >= args.since]
    recent_ok = [w for w in recent if w["status"] in (200, 201)]
    report = {
        "settled_after": round(settled_after, 1),
        "rounds": len({w["answer"]["id"] for w in recent_ok if w["what"] == "open"}),
        "rounds_settled": sum(1 for w in writes if w["what"] == "settled" and w["t"] >= args.since),
        "wagers": sum(len(w["answer"]["wagers"]) for w in recent_ok if w["what"] == "wagers"),
        "writes": len(recent),
        "sent_again": sum(1 for w in recent if w["sends"] > 1),
        "replayed": sum(1 for w in recent if w["replayed"]),
        "refused": sum(1 for w in recent if w["status"] >= 400),
        "abandoned": abandoned,
        "rounds_checked": len(opened),
        "wagers_checked": len(wagers),
        "problems": problems,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
