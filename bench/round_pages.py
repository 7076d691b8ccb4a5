"""What the pages and endpoints that list a round's rows cost for the biggest round the floor
takes, against a round of six wagers, in the same run.

    .venv/bin/python bench/round_pages.py [--quick] [--repeat 5] [--postgres]
        [--database-name casino_bench_<random>]

A scratch floor: a temporary CASINO_DATA_DIR (its SQLite database), or with --postgres a
database of that name at 127.0.0.1:5432 (user postgres, trust), made anew and dropped at
the end; `migrate` and `load_demo_floor` as floor.py runs them. At SB-01, through the
services (as the API's views call them): a round of CASINO_MAX_WAGERS_PER_ROUND wagers
(5,000 by default; --quick: 500) placed in requests of CASINO_MAX_WAGERS_PER_REQUEST, and
a round of six wagers, the baseline; each thrown and settled as the worker settles it
(`round_settle`, in this process). Then every page is asked for by the demo superuser
through Django's test client (the whole middleware, DEBUG off): once to warm, then
--repeat times, the median printed, for both rounds, with the ratio big / six. The floor
(/floor/data.json, its snapshot made afresh each time: the cache is emptied first) is
timed while the big round is open for wagers, before it is thrown.

Checks, never timing assertions (exit 1 if one fails): every page answers 200, and the big
round settles.

Each page reads a page of rows (docs/api.md, Lists; the admin: games/admin/common.py), so
its time is about a page's whatever the round holds: a ratio near 1 is the aim, against
the 10.5 s 503 the admin gave a round of 5,000 wagers before. The one answer the round's
size makes is the API's ledger entries of the round, each carrying every line (some 2.8 MB
for 5,000 wagers): its size is printed beside the time (KB, the big round's answer).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"


@contextmanager
def scratch(postgres: bool, name: str) -> Iterator[dict[str, str]]:
    """The environment of a scratch floor: a temporary data dir, and a database made anew."""
    with tempfile.TemporaryDirectory(prefix="round-pages-") as data:
        env = {"CASINO_DATA_DIR": data, "DJANGO_DEBUG": "false", "CASINO_LOG_LEVEL": "ERROR"}
        if not postgres:
            yield env
            return
        import psycopg
        from psycopg import sql

        def admin(statement: str) -> None:
            with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
                connection.execute(sql.SQL(statement).format(sql.Identifier(name)))

        admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        admin("CREATE DATABASE {}")
        try:
            yield env | {"DATABASE_URL": ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"}
        finally:
            from django.db import connections

            connections.close_all()
            admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")


def median_seconds(call: Callable[[], int], repeat: int) -> tuple[float, int]:
    """The median time of `call` over `repeat` runs after one to warm, and its last status."""
    status = call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        status = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), status


def played(table, wagers: int, by, *, settle: bool = True, before_throw=None):
    """A round at `table` of `wagers` Small bets, in requests of the limit, thrown and
    settled; `before_throw(round_)` runs while it is still open."""
    from django.conf import settings
    from django.utils import timezone

    from games.models import SettlementRequest
    from games.services.settlement import round_settle
    from gaming.rounds import no_more_bets, result_enter, round_open, wagers_place

    round_ = round_open(table, by=by, now=timezone.now())
    most = settings.CASINO_MAX_WAGERS_PER_REQUEST
    for first in range(0, wagers, most):
        batch = [
            {"player": f"p{n}", "kind": "small", "amount": "10.00"}
            for n in range(first, min(first + most, wagers))
        ]
        wagers_place(round_, batch, by=by, now=timezone.now())
    if before_throw is not None:
        before_throw(round_)
    no_more_bets(round_, by=by, now=timezone.now())
    result_enter(round_, "throw", [1, 2, 4], by=by, now=timezone.now())
    request = SettlementRequest.objects.get(round=round_)
    started = time.perf_counter()
    outcome = round_settle(request.pk) if settle else "not settled"
    round_.refresh_from_db()
    return round_, outcome, time.perf_counter() - started


def pages(round_) -> dict[str, str]:
    """Every page and endpoint that lists this round's rows, by a label."""
    from games.admin.common import PagedInline
    from games.models import LedgerEntry

    settlement = LedgerEntry.objects.get(key=f"settlement:{round_.pk}")
    wagers = round_.wagers.count()
    last = max(1, -(-wagers // PagedInline.per_page))
    rid = round_.pk
    return {
        "admin: the round": f"/admin/games/round/{rid}/change/",
        "admin: the round, last wagers": f"/admin/games/round/{rid}/change/"
        f"?wagers-page={last}&resolutions-page={last}",
        "admin: its settlement entry": f"/admin/games/ledgerentry/{settlement.pk}/change/",
        "admin: its ledger entries": f"/admin/games/ledgerentry/?round__id__exact={rid}",
        "api: the round": f"/api/v1/rounds/{rid}/",
        "api: its wagers": f"/api/v1/wagers/?round={rid}",
        "api: its resolutions": f"/api/v1/resolutions/?round={rid}",
        "api: its ledger entries": f"/api/v1/ledger-entries/?round={rid}",
        "api: its settlement's lines": f"/api/v1/ledger-lines/?entry={settlement.pk}",
        "api: its lines, page 500": f"/api/v1/ledger-lines/?round={rid}&page_size=50&page="
        f"{min(500, -(-(wagers * 6) // 50))}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a round of 500 wagers, 2 runs")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL, not SQLite")
    parser.add_argument("--database-name", default=f"casino_bench_{uuid.uuid4().hex[:10]}")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else args.repeat
    # Never the caller's floor: DATABASE_URL (CI's names a database pytest-django makes only
    # as test_casino_ci) gives way to the scratch floor's own.
    os.environ.pop("DATABASE_URL", None)
    with scratch(args.postgres, args.database_name) as env:
        os.environ.update(env)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.core.cache import cache
        from django.core.management import call_command
        from django.db import connection
        from django.test import Client

        from casino.models import Table

        settings.ALLOWED_HOSTS = ["testserver"]
        call_command("migrate", verbosity=0)
        call_command("load_demo_floor", stdout=open(os.devnull, "w"))  # noqa: SIM115
        user = get_user_model()
        ops, demo = user.objects.get(username="demo-ops"), user.objects.get(username="demo")
        client = Client()
        client.force_login(demo)
        table = Table.objects.get(number="SB-01", holder__name__startswith="Keystone")
        big = 500 if args.quick else settings.CASINO_MAX_WAGERS_PER_ROUND
        floor: dict[str, float] = {}

        def floor_read(size: str) -> Callable[[object], None]:
            def timed(_round: object) -> None:
                def read() -> int:
                    cache.clear()
                    return client.get("/floor/data.json").status_code

                floor[size], status = median_seconds(read, repeat)
                assert status == 200, f"/floor/data.json answered {status}"

            return timed

        small_round, small_outcome, _ = played(table, 6, ops, before_throw=floor_read("six"))
        big_round, big_outcome, settled_in = played(table, big, ops, before_throw=floor_read("big"))
        failures = [
            f"{label} round: {outcome}"
            for label, outcome in (("six", small_outcome), ("big", big_outcome))
            if outcome != "settled"
        ]
        engine = connection.vendor
        print(
            f"{engine}; a round of {big:,} wagers (settled in {settled_in:.2f} s by "
            f"round_settle) against one of 6; median of {repeat} after one to warm"
        )
        print(
            f"{'page':<34} {'6 wagers ms':>12} {f'{big:,} wagers ms':>17} {'ratio':>7}"
            f" {f'{big:,} KB':>10}"
        )
        rows = [("floor: /floor/data.json, open", floor["six"], floor["big"], None)]
        for (label, path), (_, big_path) in zip(
            pages(small_round).items(), pages(big_round).items(), strict=True
        ):
            timed = []
            for url in (path, big_path):
                seconds, status = median_seconds(
                    lambda url=url: client.get(url).status_code, repeat
                )
                if status != 200:
                    failures.append(f"{url} answered {status}")
                timed.append(seconds)
            rows.append((label, *timed, len(client.get(big_path).content) / 1024))
        for label, small, large, size in rows:
            shown = "" if size is None else f"{size:>10.1f}"
            print(
                f"{label:<34} {small * 1000:>12.1f} {large * 1000:>17.1f} {large / small:>7.2f}"
                f" {shown}"
            )
        for failure in failures:
            print(f"FAILED: {failure}")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
