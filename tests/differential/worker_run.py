"""Play generated games on a real database, each round settled by a ``celery worker``.

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... \\
        python -m tests.differential.worker_run [--api] SEED [SEED ...]

The integration test (test_worker_integration.py) runs this in a process of its own, as
the web process would be, against a migrated PostgreSQL database and Redis with a worker
listening. Every round is played as the in-process differential test plays it, through
the round services or (``--api``) through the REST API as an integrator; the event that
ends a round writes its settlement request and sends it (the outbox), and the worker's
task settles it. This process waits for that, then compares the worker's resolutions with
the engine's and checks the ledger. It prints one JSON line: the rounds of each seed and
the workers that settled them. A disagreement exits 1 with the differential test's message
(the seed and a replay line).
"""

import json
import sys
import time

import django

WORKER_TEST = "tests/differential/test_worker_integration.py"


def main(argv: list[str]) -> int:
    django.setup()
    from games.models import Round, SettlementRequest
    from tests.differential.floor import Clock, Disagreement, engine_rounds, floor_play
    from tests.differential.generator import game_generate

    api = "--api" in argv
    seeds = [int(s) for s in argv if s != "--api"]
    settled_by: set[str] = set()

    def by_the_worker(request: SettlementRequest, clock: Clock) -> str:
        """Wait for a worker to settle the request the round's result sent."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            request.refresh_from_db()
            if request.settled_at is not None:
                assert Round.objects.get(pk=request.round_id).status == Round.Status.SETTLED
                settled_by.add(request.settled_by)
                return "settled"
            time.sleep(0.05)
        return f"not settled within 60 s (sent {request.sends} times)"

    rounds = {}
    try:
        for seed in seeds:
            generated = game_generate(seed, api=api)
            engine, still_open = engine_rounds(generated)
            rounds[seed] = floor_play(
                generated, engine, still_open, WORKER_TEST, by_the_worker, api=api
            )
    except Disagreement as error:
        print(str(error), file=sys.stderr)
        return 1
    print(json.dumps({"rounds": rounds, "settled_by": sorted(settled_by)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
