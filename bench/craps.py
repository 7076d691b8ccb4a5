"""Craps throws per second for a six-player table, against crapssim and a naive table.

    .venv/bin/python bench/craps.py [--throws 20000] [--seed 623] [--repeat 3] [--no-runner]
    .venv/bin/python bench/craps.py --quick      # 2,000 throws, one run each: the checks

Six players hold the common wagers: Pass with odds, Place 6 and Place 8, a Field on every
throw, a hardway and a Fire Bet. The throws come from random.Random(seed) ahead of time
(the engine never draws), and the wager plan is made from them ahead of time too: before
each throw every player re-places what the table allows and they no longer have (Pass
before a come out roll, odds once the point is on, Place 6/8 and the hardway once decided,
a Field every throw, a Fire Bet before each new shooter's first come out roll).
Four figures from the same throws and wagers, measured in the same run:
- engine: `ENGINE.step` (games.rules.registry.engine_get("craps")) over the events;
- runner: `games.scenario.run_scenario` on the same events as one scenario document;
- crapssim: crapssim 0.4.1 (`.venv/bin/pip install crapssim==0.4.1`, a bench-only
  dependency), the open-source simulator, its six players taking the plan's wagers
  (what its bet types do differently is said at `ComeOutOffHardWay` below);
- naive: NaiveTable below, the mutable-dict Decimal table a developer writes in an afternoon.
The ratios to crapssim and to the naive table are what to compare across machines. The
rates over the first and the last quarter of the throws show whether a throw costs more
as the table's history grows (they should be about equal). The runs take turns, and the
last two columns count this process's CPU time only, which moves less than the clock on
a machine other jobs share.

Every run must give every player the same net to the cent, the engine must reject no
planned wager and decide as many as the naive table: a correctness cross-check (exit 1
otherwise), never a timing assertion.
"""

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import machine  # bench/ is not a package: found through sys.path above

from games.rules.core import Rejection
from games.rules.registry import engine_get
from games.scenario import run_scenario

try:  # a bench-only dependency, not in requirements.txt
    from crapssim import Table as SimTable
    from crapssim import bet as sim_bet
    from crapssim.strategy import Strategy as SimStrategy
    from crapssim.table import Player as SimPlayer
except ImportError:  # pragma: no cover - depends on the venv
    sys.exit(
        "bench/craps.py measures the engine against crapssim, the open-source simulator: "
        "install it with `.venv/bin/pip install crapssim==0.4.1`"
    )

OPTIONS = {"min_wager": "5", "max_wager": "5000", "max_odds_multiple": 3}


@dataclass(frozen=True)
class Player:
    """One player's habits: the amounts they keep on the layout."""

    line: str  # Pass Line, before every come out roll
    odds: int  # odds behind the Pass Line once the point is on, as a multiple of it
    standing: tuple[tuple[str, str], ...]  # (kind, amount) put back up once decided
    field: str  # on every throw
    fire: str  # before each new shooter's first come out roll


PLAYERS = {
    "p1": Player("10", 3, (("place:6", "12"), ("place:8", "12"), ("hard:8", "5")), "5", "5"),
    "p2": Player("25", 2, (("place:6", "6"), ("place:8", "6"), ("hard:6", "5")), "10", "1"),
    "p3": Player("5", 2, (("place:6", "18"), ("place:8", "18"), ("hard:8", "10")), "5", "2"),
    "p4": Player("15", 3, (("place:6", "30"), ("place:8", "30"), ("hard:6", "5")), "25", "5"),
    "p5": Player("50", 1, (("place:6", "6"), ("place:8", "6"), ("hard:8", "5")), "5", "3"),
    "p6": Player("20", 3, (("place:6", "12"), ("place:8", "12"), ("hard:6", "10")), "15", "4"),
}


def dice_throws(count: int, seed: int) -> list[tuple[int, int]]:
    """`count` throws of two dice from random.Random(seed): the only randomness here."""
    rng = random.Random(seed)
    return [(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(count)]


def wager_plan(throws: list[tuple[int, int]]) -> list[tuple[str, object]]:
    """The scenario events: before each throw a `wagers` event, then the `throw`.

    Tracks only what decides a re-placement: the point, the new shooter, and which of
    each player's Pass, odds, Place and hardway wagers the throw decided.
    """
    events: list[tuple[str, object]] = []
    point: int | None = None
    new_shooter = True
    holding: dict[tuple[str, str], str] = {}  # (player, kind) -> wager id still up
    serial = 0
    for d1, d2 in throws:
        wagers: list[dict[str, str]] = []

        def add(player: str, kind: str, amount: str, on: str | None = None) -> str:
            nonlocal serial
            serial += 1
            wager = {"id": f"w{serial}", "player": player, "kind": kind, "amount": amount}
            if on is not None:
                wager["on"] = on
            wagers.append(wager)  # noqa: B023 - add is called only in this iteration
            return wager["id"]

        for name, player in PLAYERS.items():
            if new_shooter:
                add(name, "fire", player.fire)
            if point is None and (name, "pass") not in holding:
                holding[name, "pass"] = add(name, "pass", player.line)
            if point is not None and (name, "odds") not in holding:
                amount = str(Decimal(player.line) * player.odds)
                holding[name, "odds"] = add(name, "odds", amount, on=holding[name, "pass"])
            for kind, amount in player.standing:
                if (name, kind) not in holding:
                    holding[name, kind] = add(name, kind, amount)
            add(name, "field", player.field)
        events.append(("wagers", wagers))
        events.append(("throw", [d1, d2]))

        total, new_shooter = d1 + d2, False
        if point is None:
            if total in (7, 11, 2, 3, 12):
                decided = {"pass"}
            else:
                decided, point = set(), total
        else:
            decided = {
                k for k in ("place:6", "place:8", "hard:6", "hard:8") if total in (7, int(k[-1]))
            }
            if total in (7, point):
                decided |= {"pass", "odds"}
                new_shooter, point = total == 7, None
        for key in [key for key in holding if key[1] in decided]:
            del holding[key]
    return events


# --- the naive table -------------------------------------------------------------------

POINTS = (4, 5, 6, 8, 9, 10)
TRUE_ODDS = {4: (2, 1), 5: (3, 2), 6: (6, 5), 8: (6, 5), 9: (3, 2), 10: (2, 1)}
PLACE_ODDS = {4: (9, 5), 5: (7, 5), 6: (7, 6), 8: (7, 6), 9: (7, 5), 10: (9, 5)}
HARD_ODDS = {4: 7, 6: 9, 8: 9, 10: 7}
FIRE_ODDS = {4: 24, 5: 249, 6: 999}  # paytable A, by unique points made
CENT = Decimal("0.01")


def winnings(amount: Decimal, to: int, per: int = 1) -> Decimal:
    """`amount` paid at `to` to `per`, rounded down to the cent."""
    return (amount * to / per).quantize(CENT, rounding=ROUND_FLOOR)


class NaiveTable:
    """The obvious craps table: a dict per wager, Decimal money, one loop per throw.

    Handles Pass with its odds, Place, Field, hardways and the Fire Bet; no validation.
    """

    def __init__(self) -> None:
        self.point: int | None = None
        self.points_made: set[int] = set()  # this shooter's, for the Fire Bet
        self.wagers: dict[str, dict] = {}
        self.net: dict[str, Decimal] = {}
        self.decided = 0

    def place(self, wager: dict) -> None:
        """Put a wager on the layout."""
        kind, _, number = wager["kind"].partition(":")
        self.wagers[wager["id"]] = {
            "player": wager["player"],
            "kind": kind,
            "number": int(number) if number else None,
            "amount": Decimal(wager["amount"]),
        }

    def throw(self, d1: int, d2: int) -> None:
        """Settle every wager the throw decides, then move the point."""
        total = d1 + d2
        done = []
        for wager_id, wager in self.wagers.items():
            net = self.settle(wager, d1, d2, total)
            if net is not None:
                done.append(wager_id)
                self.net[wager["player"]] = self.net.get(wager["player"], Decimal(0)) + net
        for wager_id in done:
            del self.wagers[wager_id]
        self.decided += len(done)
        if self.point is None:
            if total in POINTS:
                self.point = total
        elif total == self.point:
            self.points_made.add(total)
            self.point = None
        elif total == 7:
            self.point = None
            self.points_made = set()  # seven-out: a new shooter

    def settle(self, wager: dict, d1: int, d2: int, total: int) -> Decimal | None:
        """The wager's net if this throw decides it, else None."""
        kind, amount, point = wager["kind"], wager["amount"], self.point
        if kind == "field":
            if total in (2, 12):
                return amount * 2
            return amount if total in (3, 4, 9, 10, 11) else -amount
        if kind == "pass":
            if point is None:
                if total in (7, 11):
                    return amount
                return -amount if total in (2, 3, 12) else None
            if total == point:
                return amount
            return -amount if total == 7 else None
        if point is None:
            return None  # odds need a point, Place and hardways are off, no loser 7
        if kind == "odds":
            if total == point:
                return winnings(amount, *TRUE_ODDS[point])
            return -amount if total == 7 else None
        number = wager["number"]
        if kind == "place":
            if total == number:
                return winnings(amount, *PLACE_ODDS[number])
            return -amount if total == 7 else None
        if kind == "hard":
            if total == number and d1 == d2:
                return winnings(amount, HARD_ODDS[number])
            return -amount if total in (number, 7) else None
        if kind == "fire":
            if total != 7:
                return None
            made = len(self.points_made)
            return winnings(amount, FIRE_ODDS[min(made, 6)]) if made >= 4 else -amount
        raise ValueError(f"the naive table has no {kind!r} wager")


# --- the runs ----------------------------------------------------------------------

Events = list[tuple[str, object]]
Run = tuple[object, list[float]]  # what the run returns, perf_counter at each mark


def quarters(events: Events) -> list[Events]:
    """The events in four parts of whole throws, so each quarter of a run is timed."""
    throws = len(events) // 2
    cuts = [2 * (throws * q // 4) for q in range(5)]
    return [events[cuts[q] : cuts[q + 1]] for q in range(4)]


def naive_run(parts: list[Events]) -> Callable[[], Run]:
    """Play the events on a fresh NaiveTable; returns the table."""

    def play() -> Run:
        table, marks = NaiveTable(), [time.perf_counter()]
        for part in parts:
            for event, payload in part:
                if event == "wagers":
                    for wager in payload:
                        table.place(wager)
                else:
                    table.throw(*payload)
            marks.append(time.perf_counter())
        return table, marks

    return play


@dataclass
class Totals:
    """What a run decided: each player's net, the count of wagers, any rejection."""

    net: dict[str, Decimal]
    decided: int = 0
    rejected: list[Rejection] = field(default_factory=list)


def engine_run(parts: list[Events], player_of: dict[str, str]) -> Callable[[], Run]:
    """Play the events through ENGINE.step from a new table, adding up each player's net
    as the naive table does (keeping every StepOutcome instead would bill the engine for
    the garbage collector walking them)."""
    engine = engine_get("craps")
    options = engine.parse_options(OPTIONS)

    def play() -> Run:
        state, marks = engine.new_state(options), [time.perf_counter()]
        totals = Totals(dict.fromkeys(PLAYERS, Decimal(0)))
        net = totals.net
        for part in parts:
            for event, payload in part:
                state, outcome = engine.step(options, state, event, payload)
                for resolution in outcome.resolutions:
                    net[player_of[resolution.wager]] += resolution.net
                totals.decided += len(outcome.resolutions)
                totals.rejected += outcome.rejected
            marks.append(time.perf_counter())
        return totals, marks

    return play


def runner_run(events: Events) -> Callable[[], Run]:
    """Run the events as one scenario document through games.scenario.run_scenario."""
    document = {
        "format": 1,
        "game": "craps",
        "options": OPTIONS,
        "steps": [{event: payload} for event, payload in events],
    }

    def play() -> Run:
        start = time.perf_counter()
        result = run_scenario(document)
        return result, [start, time.perf_counter()]

    return play


# --- crapssim ----------------------------------------------------------------------------
#
# crapssim (https://github.com/skent259/CrapsSim) fed the same throws and the same wagers.
# Its players take their bets from a Strategy; PlannedBets hands each player the plan's
# wagers for the throw, made into crapssim bets there (as the engine parses the plan's
# JSON-like wagers inside its step). Where crapssim's bets differ from the regulations':
# - a Place Bet that wins stays up (its winnings are paid, the stake keeps working), so the
#   plan's re-placement of it is skipped: the same net, one wager fewer decided;
# - its HardWay works on a come out roll; ComeOutOffHardWay keeps it off, as the engine's
#   and the naive table's are (§ 623a.3(a)(7)-(10));
# - a Fire Bet is paid as soon as a shooter has made all six points (the engine pays at the
#   loser 7, the same 999 to 1): the nets differ only if a run ends between the two;
# - money is float dollars; every payout here is whole cents, compared after rounding.
SIM_BANKROLL = 10_000_000  # never the limit: crapssim refuses a bet the bankroll can't cover


class ComeOutOffHardWay(sim_bet.HardWay):
    """crapssim's HardWay, off on a come out roll like the engine's (not called on)."""

    def get_result(self, table: SimTable) -> sim_bet.BetResult:
        if table.point.number is None:
            return sim_bet.BetResult.no_change(self.amount)
        return super().get_result(table)


def sim_place(number: int) -> Callable[[float, SimTable], sim_bet.Bet]:
    """A maker of crapssim Place bets on `number`."""
    return lambda amount, table: sim_bet.Place(number, amount)


def sim_hard(number: int) -> Callable[[float, SimTable], sim_bet.Bet]:
    """A maker of hardways on `number`, off on a come out roll."""
    return lambda amount, table: ComeOutOffHardWay(number, amount)


SIM_BETS: dict[str, Callable[[float, SimTable], sim_bet.Bet]] = {
    "pass": lambda amount, table: sim_bet.PassLine(amount),
    "odds": lambda amount, table: sim_bet.Odds(sim_bet.PassLine, table.point.number, amount),
    "field": lambda amount, table: sim_bet.Field(amount),
    "fire": lambda amount, table: sim_bet.Fire(amount),
    **{f"place:{n}": sim_place(n) for n in (6, 8)},
    **{f"hard:{n}": sim_hard(n) for n in (6, 8)},
}


class PlannedBets(SimStrategy):
    """One player's wagers from the plan, throw by throw, made into crapssim bets."""

    def __init__(self, plan: list[list[dict]]) -> None:
        self.plan = plan  # per throw, this player's wagers
        self.next_throw = 0

    def __deepcopy__(self, memo: dict) -> "PlannedBets":
        # Table.add_player deep-copies a strategy: share the read-only plan instead.
        return PlannedBets(self.plan)

    def completed(self, player: SimPlayer) -> bool:
        """Never: the run ends with the plan's throws."""
        return False

    def update_bets(self, player: SimPlayer) -> None:
        wagers = self.plan[self.next_throw]
        self.next_throw += 1
        table = player.table
        for wager in wagers:
            bet = SIM_BETS[wager["kind"]](float(wager["amount"]), table)
            if isinstance(bet, sim_bet.Place) and player.already_placed(bet):
                continue  # it won and stayed up (see above)
            player.add_bet(bet)


def sim_plans(events: Events) -> dict[str, list[list[dict]]]:
    """Each player's wagers before each throw, from the events."""
    plans: dict[str, list[list[dict]]] = {name: [] for name in PLAYERS}
    for event, payload in events:
        if event == "wagers":
            for plan in plans.values():
                plan.append([])
            for wager in payload:
                plans[wager["player"]][-1].append(wager)
    return plans


def sim_run(parts: list[Events], plans: dict[str, list[list[dict]]]) -> Callable[[], Run]:
    """Play the throws on a fresh crapssim Table, its players following the plan."""
    throws = [[tuple(payload) for event, payload in part if event == "throw"] for part in parts]

    def play() -> Run:
        table = SimTable()
        table.settings["max_odds"] = dict.fromkeys(table.settings["max_odds"], 3)
        for name in PLAYERS:
            table.add_player(SIM_BANKROLL, PlannedBets(plans[name]), name)
        marks = [time.perf_counter()]
        for part in throws:
            table.fixed_run(part, verbose=False)
            marks.append(time.perf_counter())
        return table, marks

    return play


def sim_nets(table: SimTable) -> dict[str, Decimal]:
    """Each player's net over the wagers decided, to the cent (bets still up count at cost)."""
    return {
        player.name: Decimal(f"{player.total_player_cash - SIM_BANKROLL:.2f}")
        for player in table.players
    }


def best_runs(
    plays: dict[str, Callable[[], Run]], repeat: int
) -> tuple[dict[str, Run], dict[str, float]]:
    """The quickest of `repeat` runs of each play, each run started after a full collection,
    and the least CPU time (this process's) a run of each took.

    The plays take turns (engine, crapssim, naive, engine, ...), so a machine busier for a
    while slows every figure alike and the ratios hold better than the rates. The CPU time
    leaves out the time other processes had the core: on a shared machine it moves less.
    """
    best: dict[str, Run] = {}
    cpu: dict[str, float] = {}
    for _ in range(repeat):
        for name, play in plays.items():
            gc.collect()
            start = time.process_time()
            run = play()
            cpu[name] = min(cpu.get(name, float("inf")), time.process_time() - start)
            if name not in best or run[1][-1] - run[1][0] < best[name][1][-1] - best[name][1][0]:
                best[name] = run
            del run
    return best, cpu


def runner_nets(result: dict, player_of: dict[str, str]) -> dict[str, Decimal]:
    """Each player's net in a scenario result document."""
    net = dict.fromkeys(PLAYERS, Decimal(0))
    for step in result["steps"]:
        for resolution in step["resolutions"]:
            net[player_of[resolution["wager"]]] += Decimal(resolution["net"])
    return net


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--throws", type=int, default=20_000, help="throws per run")
    parser.add_argument("--seed", type=int, default=623, help="random.Random seed of the dice")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, quickest kept")
    parser.add_argument("--no-runner", action="store_true", help="skip the scenario runner")
    parser.add_argument(
        "--quick", action="store_true", help="2,000 throws, one run each: the checks, in seconds"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.throws, args.repeat = min(args.throws, 2_000), 1
    if args.throws < 4:
        parser.error("--throws must be at least 4 (a run is timed by quarters)")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    events = wager_plan(dice_throws(args.throws, args.seed))
    parts = quarters(events)
    player_of = {w["id"]: w["player"] for e, ws in events if e == "wagers" for w in ws}
    print(f"machine: {machine()}")
    print(f"throws: {args.throws:,} (seed {args.seed}), {len(PLAYERS)} players, "
          f"{len(player_of):,} wagers placed, quickest of {args.repeat} runs")  # fmt: skip

    plays = {"engine": engine_run(parts, player_of)}
    if not args.no_runner:
        plays["runner"] = runner_run(events)
    plays["crapssim"] = sim_run(parts, sim_plans(events))
    plays["naive"] = naive_run(parts)
    runs, cpu = best_runs(plays, args.repeat)

    # Quarter rates: a rate that falls from the first quarter to the last means the cost
    # of a throw grows with what the table has seen.
    rate = {name: args.throws / (marks[-1] - marks[0]) for name, (_, marks) in runs.items()}
    cpu_rate = {name: args.throws / seconds for name, seconds in cpu.items()}
    print(f"{'':<10}{'throws/s':>10}{'ratio:naive':>13}{'ratio:crapssim':>16}"
          f"{'1st 1/4/s':>12}{'4th 1/4/s':>12}"
          f"{'CPU throws/s':>15}{'CPU:crapssim':>14}")  # fmt: skip
    for name, (_, marks) in runs.items():
        line = (
            f"{name:<10}{rate[name]:>10,.0f}{rate[name] / rate['naive']:>13.4f}"
            f"{rate[name] / rate['crapssim']:>16.4f}"
        )
        if len(marks) == 5:
            first = len(parts[0]) / 2 / (marks[1] - marks[0])
            last = len(parts[3]) / 2 / (marks[4] - marks[3])
            line += f"{first:>12,.0f}{last:>12,.0f}"
        else:
            line += f"{'-':>12}{'-':>12}"
        line += f"{cpu_rate[name]:>15,.0f}{cpu_rate[name] / cpu_rate['crapssim']:>14.4f}"
        print(line)

    # The cross-checks: every player's net to the cent in every run, no planned wager
    # rejected, as many wagers decided by the engine as by the naive table.
    table, engine = runs["naive"][0], runs["engine"][0]
    nets = {
        "engine": engine.net,
        "naive": {name: table.net.get(name, Decimal(0)) for name in PLAYERS},
        "crapssim": sim_nets(runs["crapssim"][0]),
    }
    if "runner" in runs:
        nets["runner"] = runner_nets(runs["runner"][0], player_of)
    rejected = engine.rejected
    print(f"wagers decided: engine {engine.decided:,}, naive {table.decided:,}")
    print(f"{'net':<8}" + "".join(f"{name:>14}" for name in nets))
    agree = not rejected and engine.decided == table.decided
    for name in PLAYERS:
        same = all(net[name] == engine.net[name] for net in nets.values())
        agree &= same
        mark = "" if same else "  DIFFERENT"
        print(f"{name:<8}" + "".join(f"{net[name]:>14,.2f}" for net in nets.values()) + mark)
    if rejected:
        print(f"the engine rejected {len(rejected)} planned wagers, first: {rejected[0]}")
    if not agree:
        print("the runs disagree")
        return 1
    print("checks passed: every player's net agrees to the cent in every run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
