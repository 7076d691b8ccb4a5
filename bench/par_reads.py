"""What GET /api/v1/par/{game}/ costs a fresh web worker: computed, or read as stored.

    .venv/bin/python bench/par_reads.py [--quick] [--repeat 3]

Before issue 19 the view computed the sheet (`games.par.par_document(game, {})`, then
kept it in the process): the first request in each gunicorn worker paid the whole
computation, Pai Gow's about 5 to 10 s. Now it reads games/par_sheets/<game>.json
(`games.par.default_document`). Each figure is timed in a fresh Python process, as a
new worker meets it (no cache of any kind warm), quickest of --repeat; the ratio is
computed / read. --quick leaves out Pai Gow and Craps' computations (seconds each) so
the test suite can run it (tests/api/test_par_reads.py).

Checks, never timing assertions (exit 1 if one fails): every child process succeeds
with the game's sheet, and for every game computed the stored sheet read is the very
sheet the engine computes (compared by a digest of its JSON).
"""

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.rules.registry import ENGINE_MODULES  # noqa: E402

CHILD = """
import hashlib, json, sys, time
sys.path.insert(0, {root!r})
import games.par as par
start = time.perf_counter()
document = {call}
elapsed = time.perf_counter() - start
assert document["game"] == {game!r} and document["wagers"]
print(elapsed, hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest())
"""
SLOW = {"pai_gow", "craps"}


class ChildFailed(Exception):
    """A child process did not give the game's sheet."""


def cold(game: str, call: str, repeat: int) -> tuple[float, str]:
    """Seconds `call` takes in a fresh process, the quickest of `repeat`, and the digest of
    the sheet it gave (the same in every run, or ChildFailed)."""
    code = CHILD.format(root=str(ROOT), call=call, game=game)
    runs, digests = [], set()
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if out.returncode != 0:
            raise ChildFailed(f"{game}: {call} failed: {out.stderr.strip().splitlines()[-1:]}")
        seconds, digest = out.stdout.split()
        runs.append(float(seconds))
        digests.add(digest)
    if len(digests) != 1:
        raise ChildFailed(f"{game}: {call} gave different sheets in different runs")
    return min(runs), digests.pop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow computations")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(
        f"a fresh process, quickest of {args.repeat}; ratio = computed / read; "
        "each sheet computed must equal the one stored (exit 1 if not)"
    )
    print(f"{'game':<22} {'computed ms':>12} {'read ms':>10} {'ratio':>10}")
    errors = []
    for game in sorted(ENGINE_MODULES):
        try:
            read, stored = cold(game, f"par.default_document({game!r})", args.repeat)
            if args.quick and game in SLOW:
                print(f"{game:<22} {'-':>12} {read * 1000:>10.2f} {'-':>10}")
                continue
            computed, sheet = cold(game, f"par.par_document({game!r}, {{}})", args.repeat)
        except ChildFailed as failure:
            errors.append(str(failure))
            continue
        ratio = computed / read
        print(f"{game:<22} {computed * 1000:>12.2f} {read * 1000:>10.2f} {ratio:>10.1f}")
        if sheet != stored:
            errors.append(f"{game}: the stored sheet is not the one the engine computes")
    for error in errors:
        print(f"FAILED {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
