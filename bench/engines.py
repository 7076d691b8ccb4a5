"""Wagers settled per second by each pure engine on a realistic round.

    .venv/bin/python bench/engines.py [--seconds 0.5]
    .venv/bin/python bench/engines.py --quick     # 0.05 s a figure: the checks, in seconds

Each game's round is bench/rounds/<game>.json: six players with their usual wagers,
played to the end. Three figures per game, measured in the same run:
- engine: `ENGINE.step` over the round's events (already parsed), counting resolutions;
- runner: `games.scenario.run_scenario` on the whole document (parsing and output too);
- baseline: the floor of any settlement, one Decimal multiply-and-round per wager
  (an even-money payout rounded down to the cent) over the same wagers.
The ratios engine/baseline and runner/baseline are what to compare across machines.

Checks, never timing assertions (exit 1 if one fails): every round is played without a
rejected wager or event, and `ENGINE.step` and the runner decide the same wagers with the
same results and nets.
"""

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules.core import format_money, round_down_to_cent
from games.rules.registry import engine_get
from games.scenario import run_scenario

ROUNDS = Path(__file__).resolve().parent / "rounds"


def best_rate(work: Callable[[], int], seconds: float) -> float:
    """Units per second of `work` (which returns how many units it did), best of five."""
    rates = []
    for _ in range(5):
        done, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds / 5:
            done += work()
        rates.append(done / elapsed)
    return max(rates)


def round_errors(game: str, document: dict) -> list[str]:
    """What is wrong with a round: a rejection, or the engine and the runner disagreeing."""
    engine = engine_get(game)
    options = engine.parse_options(document.get("options", {}))
    state, decided, errors = engine.new_state(options), [], []
    for index, step in enumerate(document["steps"]):
        ((event, payload),) = step.items()
        state, outcome = engine.step(options, state, event, payload)
        errors += [f"{game}: step {index} rejected: {r.error}" for r in outcome.rejected]
        decided += [(r.wager, r.result, format_money(r.net)) for r in outcome.resolutions]
    result = run_scenario(document)
    by_runner = [
        (r["wager"], r["result"], r["net"]) for step in result["steps"] for r in step["resolutions"]
    ]
    if by_runner != decided:
        errors.append(f"{game}: the engine and the runner decide the round differently")
    if not decided:
        errors.append(f"{game}: the round decides no wager")
    return errors


def engine_round(game: str, document: dict) -> Callable[[], int]:
    engine = engine_get(game)
    options = engine.parse_options(document.get("options", {}))
    events = [next(iter(step.items())) for step in document["steps"]]

    def play() -> int:
        state, settled = engine.new_state(options), 0
        for event, payload in events:
            state, outcome = engine.step(options, state, event, payload)
            settled += len(outcome.resolutions)
        return settled

    return play


def runner_round(document: dict) -> Callable[[], int]:
    def play() -> int:
        result = run_scenario(document)
        return sum(len(step["resolutions"]) for step in result["steps"])

    return play


def baseline_round(document: dict) -> Callable[[], int]:
    amounts = [
        Decimal(wager["amount"]) for step in document["steps"] for wager in step.get("wagers", [])
    ]

    def settle() -> int:
        for amount in amounts:
            round_down_to_cent(amount * 1)
        return len(amounts)

    return settle


def machine() -> str:
    cpu = platform.processor() or "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{python}, {cpu}, {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per figure")
    parser.add_argument("--quick", action="store_true", help="0.05 s a figure: the checks")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = 0.05
    errors: list[str] = []
    print(f"machine: {machine()}")
    print(f"{'game':<22}{'wagers':>7}{'engine/s':>12}{'runner/s':>12}{'baseline/s':>13}"
          f"{'engine:base':>13}{'runner:base':>13}")  # fmt: skip
    for path in sorted(ROUNDS.glob("*.json")):
        game = path.stem
        document = json.loads(path.read_text())
        errors += round_errors(game, document)
        wagers = engine_round(game, document)()
        engine = best_rate(engine_round(game, document), args.seconds)
        runner = best_rate(runner_round(document), args.seconds)
        baseline = best_rate(baseline_round(document), args.seconds)
        print(f"{game:<22}{wagers:>7}{engine:>12,.0f}{runner:>12,.0f}{baseline:>13,.0f}"
              f"{engine / baseline:>13.4f}{runner / baseline:>13.4f}")  # fmt: skip
    for error in errors:
        print(f"FAILED {error}")
    if errors:
        return 1
    print("checks passed: no rejection, the engine and the runner decide every round alike")
    return 0


if __name__ == "__main__":
    sys.exit(main())
