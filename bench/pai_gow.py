"""Pai Gow hands ranked and set per second, against a naive reading of the regulation.

    .venv/bin/python bench/pai_gow.py [--deals 10000] [--seed 621] [--repeat 3]
                                      [--par-hands 2] [--no-par]
    .venv/bin/python bench/pai_gow.py --quick    # 500 deals, one run, one par hand: the checks

A seeded stream of deals: random.Random(seed) shuffles the 32 tiles of `tiles.TILE_SET`,
cut into eight hands of four. Three measures, each next to its baseline from the same run:
- (a) two-tile hands ranked per second: `ranking.hand_strength` on the six two-tile hands
  of every four-tile hand (the hands the three splits make), through the engine on tiles
  already parsed (as a dealt table holds them) and on tile names (`parse_tile` first);
- (b) four-tile hands set the house way per second: `house_way.house_way` as the table
  calls it (its cache emptied before each run, so a run warms it itself), and the
  function under the cache (`house_way._house_way.__wrapped__`), the house way worked out;
- (c) `par.deal_counts()` once, cold (every cache it depends on emptied), next to the
  count of deals it covers.
The baseline is the naive code below, written from the regulation text (58 Pa. Code
§ 621a.3 and § 621a.8(d)): it takes tile names, parses them, finds the pair rank, the
value and the highest tile from scratch each time and tries the three splits. The ratios
engine:naive are what to compare across machines.

Cross-checks, never timing assertions (exit 1 if any fails): the naive ranking orders
every two-tile hand of the stream as `hand_strength` does; on every hand of the stream
the naive house way and the engine's give equal (high, low) strengths and cite the same
paragraph of § 621a.8(d); and for --par-hands player hands of the stream,
`par.outcome_counts` equals the naive count of win, tie and lose against each of the
20,475 dealer hands left (§ 621a.8(g)-(i), both sides set the house way).
"""

import argparse
import gc
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines import machine  # bench/ is not a package: found through sys.path above

from games.rules.pai_gow import house_way as house_way_module
from games.rules.pai_gow import par
from games.rules.pai_gow.house_way import house_way
from games.rules.pai_gow.ranking import hand_strength
from games.rules.pai_gow.tiles import TILE_SET, Tile, parse_tile

# --- the naive reading of § 621a.3 and § 621a.8(d) ---------------------------------------

# § 621a.3(h): the individual ranking of each tile, 1 the highest (the "Number of Tiles In
# Set" column is used only to make the deals).
NAIVE_TILE_RANK = {
    "6-6": 1, "1-1": 2, "4-4": 3, "1-3": 4, "5-5": 5, "3-3": 6, "2-2": 7, "5-6": 8,
    "4-6": 9, "1-6": 10, "1-5": 11, "3-6": 12, "4-5": 12, "2-6": 13, "3-5": 13, "2-5": 14,
    "3-4": 14, "2-4": 15, "1-4": 16, "2-3": 16, "1-2": 17,
}  # fmt: skip

# § 621a.3(c): the permissible pairs, first (the Supreme Pair) to twentieth, each with the
# tile combinations that form it.
NAIVE_PAIRS = [
    [("2-4", "1-2")],  # Supreme Pair
    [("6-6", "6-6")],
    [("1-1", "1-1")],
    [("4-4", "4-4")],
    [("1-3", "1-3")],
    [("5-5", "5-5")],
    [("3-3", "3-3")],
    [("2-2", "2-2")],
    [("5-6", "5-6")],
    [("4-6", "4-6")],
    [("1-6", "1-6")],
    [("1-5", "1-5")],
    [("3-6", "4-5")],  # mixed Nines
    [("3-5", "2-6")],  # mixed Eights
    [("3-4", "2-5")],  # mixed Sevens
    [("1-4", "2-3")],  # mixed Fives
    [("6-6", "4-5"), ("6-6", "3-6")],  # Wong
    [("1-1", "4-5"), ("1-1", "3-6")],  # Wong
    [("6-6", "2-6"), ("6-6", "3-5"), ("6-6", "4-4")],  # Gong
    [("1-1", "2-6"), ("1-1", "3-5"), ("1-1", "4-4")],  # Gong
]

NaiveRank = tuple[int, int, int]  # compared as tuples: greater is the higher-ranking hand


def naive_parse(name: str) -> tuple[int, int]:
    """A tile's two ends' spots from its name "A-B" (1 <= A <= B <= 6)."""
    low, sep, high = name.partition("-")
    if sep != "-" or not (low.isdigit() and high.isdigit()):
        raise ValueError(f"not a tile: {name!r}")
    spots = int(low), int(high)
    if not 1 <= spots[0] <= spots[1] <= 6:
        raise ValueError(f"not a tile: {name!r}")
    return spots


def naive_rank(first: str, second: str) -> NaiveRank:
    """The rank of a two-tile hand, read from § 621a.3(c)-(i) every time.

    (2, -pair rank, 0) for a permissible pair; (1, 0, 0) for every hand of value zero
    (zero-zero, § 621a.3(g)); (1, value, -rank of the highest-ranking tile) otherwise.
    """
    a, b = naive_parse(first), naive_parse(second)
    name_a, name_b = f"{a[0]}-{a[1]}", f"{b[0]}-{b[1]}"
    # (c): a permissible pair ranks above any hand without one.
    for rank, combos in enumerate(NAIVE_PAIRS, start=1):
        for x, y in combos:
            if (name_a == x and name_b == y) or (name_a == y and name_b == x):
                return (2, -rank, 0)
    # (e), (f): the value is the right digit of the spots; used apart, the 1-2 and the
    # 2-4 each count 3 or 6, and rank fifteenth when counted 6, seventeenth when counted 3.
    # (Reading: the count giving the hand the higher value is used.)
    best_value, best_top = -1, 0
    for count_a, rank_a in naive_counts(name_a, a):
        for count_b, rank_b in naive_counts(name_b, b):
            value = (count_a + count_b) % 10
            if value > best_value:
                best_value, best_top = value, min(rank_a, rank_b)
    # (g): a zero-zero tie is equally bad whatever the tiles; else equal values go to
    # the highest-ranking tile ((h), (i): equal rank is a copy).
    if best_value == 0:
        return (1, 0, 0)
    return (1, best_value, -best_top)


def naive_tile_rank(name: str) -> int:
    """A tile's individual ranking under § 621a.3(h), from its name."""
    low, high = naive_parse(name)
    return NAIVE_TILE_RANK[f"{low}-{high}"]


def naive_counts(name: str, spots: tuple[int, int]) -> list[tuple[int, int]]:
    """(numeric total, individual rank) a tile may count as (§ 621a.3(f), (h))."""
    if name in ("1-2", "2-4"):
        return [(3, 17), (6, 15)]
    return [(spots[0] + spots[1], NAIVE_TILE_RANK[name])]


NaiveSetting = tuple[tuple[str, str], tuple[str, str], str]  # high, low, paragraph


def naive_house_way(names: Sequence[str]) -> NaiveSetting:
    """The dealer's hands from four tile names, § 621a.8(d)(1)-(4), trying the three splits.

    Reading where several splits qualify under (1)-(3): the strongest low hand, then the
    strongest high hand (the regulation does not say).
    """
    a, b, c, d = names
    splits = []
    for one, other in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
        rank_one, rank_other = naive_rank(*one), naive_rank(*other)
        if rank_other > rank_one:
            one, other, rank_one, rank_other = other, one, rank_other, rank_one
        splits.append((rank_one, rank_other, one, other))
    # (1) The Supreme Pair is played as the Supreme Pair.
    chosen = [s for s in splits if s[0] == (2, -1, 0)]
    rule = "621a.8(d)(1)"
    if not chosen:  # (2) If possible, always play a pair, Wong or Gong.
        chosen = [s for s in splits if s[0][0] == 2 or s[1][0] == 2]
        rule = "621a.8(d)(2)"
    if not chosen:  # (3) Else any two tiles together with a value of nine, eight or seven.
        chosen = [s for s in splits if s[0][1] in (7, 8, 9) or s[1][1] in (7, 8, 9)]
        rule = "621a.8(d)(3)"
    if chosen:
        best = max(chosen, key=lambda s: (s[1], s[0]))
        return best[2], best[3], rule
    # (4) Else the highest-ranking tile with the lowest-ranking tile (ranks of (h)).
    by_rank = sorted(names, key=naive_tile_rank)
    ends = {by_rank[0], by_rank[3]}
    for _, _, one, other in splits:
        if set(one) == ends or set(other) == ends:
            return one, other, "621a.8(d)(4)"
    raise AssertionError("one split pairs the highest-ranking tile with the lowest")


def naive_decide(player: NaiveSetting, dealer: NaiveSetting) -> str:
    """§ 621a.8(g)-(i): win if both hands rank higher, lose if neither does, else a tie."""
    high = naive_rank(*player[0]) > naive_rank(*dealer[0])
    low = naive_rank(*player[1]) > naive_rank(*dealer[1])
    return "win" if high and low else "tie" if high or low else "lose"


# --- the deals ---------------------------------------------------------------------------

SET: list[Tile] = [tile for tile, copies in TILE_SET.items() for _ in range(copies)]


def deals(count: int, seed: int) -> list[tuple[Tile, ...]]:
    """`count` deals from random.Random(seed): the 32 tiles shuffled, cut into eight
    four-tile hands; returned as the hands, eight per deal, in order."""
    rng = random.Random(seed)
    hands = []
    for _ in range(count):
        tiles = SET[:]
        rng.shuffle(tiles)
        hands += [tuple(tiles[i : i + 4]) for i in range(0, 32, 4)]
    return hands


# --- timing ------------------------------------------------------------------------------


def quickest(
    work: Callable[[], object], repeat: int, before: Callable[[], None] | None = None
) -> float:
    """Seconds of the quickest of `repeat` calls of `work`, each after a full collection."""
    best = float("inf")
    for _ in range(repeat):
        if before is not None:
            before()
        gc.collect()
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def rank_tiles(pairs: list[tuple[Tile, Tile]]) -> Callable[[], None]:
    def run() -> None:
        strength = hand_strength
        for a, b in pairs:
            strength(a, b)

    return run


def rank_names_engine(pairs: list[tuple[str, str]]) -> Callable[[], None]:
    def run() -> None:
        strength, parse = hand_strength, parse_tile
        for a, b in pairs:
            strength(parse(a), parse(b))

    return run


def rank_names_naive(pairs: list[tuple[str, str]]) -> Callable[[], None]:
    def run() -> None:
        for a, b in pairs:
            naive_rank(a, b)

    return run


def set_hands(function: Callable, hands: list) -> Callable[[], None]:
    def run() -> None:
        for hand in hands:
            function(hand)

    return run


def uncached_house_way(tiles: Sequence[Tile]) -> object:
    """The engine's house way without its cache: what each new hand costs."""
    return house_way_module._house_way.__wrapped__(tuple(sorted(tiles)))


def clear_par_caches() -> None:
    """Every cache `par.deal_counts` uses, emptied: par's functools.cache functions and
    the house way's cache (ranking's strength table is built at import, not lazily)."""
    for function in (
        par.deal_counts,
        par.hand_classes,
        par.tile_classes,
        par._running_sums,
        par._holders,
        house_way_module._house_way,
    ):
        function.cache_clear()


# --- cross-checks --------------------------------------------------------------------------


def check_ranking(pairs: list[tuple[Tile, Tile]]) -> list[str]:
    """The naive ranking and hand_strength order the stream's two-tile hands alike."""
    naive_of: dict[int, set[NaiveRank]] = {}
    for a, b in pairs:
        naive_of.setdefault(hand_strength(a, b), set()).add(naive_rank(str(a), str(b)))
    errors = [f"strength {s}: naive ranks {sorted(r)}" for s, r in naive_of.items() if len(r) > 1]
    ordered = [next(iter(naive_of[s])) for s in sorted(naive_of)]
    errors += [
        f"naive {lower} is not below naive {upper}"
        for lower, upper in pairwise(ordered)
        if not lower < upper
    ]
    return errors


def check_house_way(
    hands: list[tuple[Tile, ...]], names: list[tuple[str, ...]]
) -> tuple[list[str], Counter[str]]:
    """Per hand: the engine's and the naive setting's (high, low) strengths and paragraph."""
    errors: list[str] = []
    rules: Counter[str] = Counter()
    for tiles, hand_names in zip(hands, names, strict=True):
        engine = house_way(tiles)
        high, low, rule = naive_house_way(hand_names)
        naive = (
            hand_strength(*map(parse_tile, high)),
            hand_strength(*map(parse_tile, low)),
        )
        rules[engine.rule] += 1
        if engine.strengths != naive or engine.rule != rule:
            errors.append(
                f"{' '.join(hand_names)}: engine {engine.strengths} by {engine.rule}, "
                f"naive {naive} by {rule} ({' '.join(high)} / {' '.join(low)})"
            )
    return errors, rules


def check_par(hands: list[tuple[Tile, ...]], count: int) -> tuple[list[str], float]:
    """`par.outcome_counts` for `count` player hands against the naive count over every
    dealer hand of the 28 tiles left (tiles told apart); returns errors and seconds."""
    errors: list[str] = []
    start = time.perf_counter()
    for tiles in hands[:count]:
        left = list(SET)
        for tile in tiles:
            left.remove(tile)
        player = naive_house_way([str(t) for t in tiles])
        naive = {"win": 0, "tie": 0, "lose": 0}
        for dealer in combinations(left, 4):
            naive[naive_decide(player, naive_house_way([str(t) for t in dealer]))] += 1
        engine = par.outcome_counts(tiles)
        if engine != naive:
            errors.append(f"{' '.join(map(str, tiles))}: par {engine}, naive {naive}")
    return errors, time.perf_counter() - start


# --- the run -----------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=10_000, help="deals of eight hands")
    parser.add_argument("--seed", type=int, default=621, help="random.Random seed of the deals")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, quickest kept")
    parser.add_argument(
        "--par-hands", type=int, default=2, help="player hands checked against par (0: none)"
    )
    parser.add_argument("--no-par", action="store_true", help="skip timing par.deal_counts()")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="500 deals, one run, one par hand, par.deal_counts() not timed: the checks",
    )
    args = parser.parse_args()
    if args.quick:
        args.deals, args.repeat = min(args.deals, 500), 1
        args.par_hands, args.no_par = min(args.par_hands, 1), True
    if args.deals < 1 or args.repeat < 1 or args.par_hands < 0:
        parser.error("--deals and --repeat must be at least 1, --par-hands at least 0")

    hands = deals(args.deals, args.seed)
    names = [tuple(map(str, hand)) for hand in hands]
    pairs = [pair for hand in hands for pair in combinations(hand, 2)]
    pair_names = [(str(a), str(b)) for a, b in pairs]
    print(f"machine: {machine()}")
    print(f"deals: {args.deals:,} (seed {args.seed}), {len(hands):,} four-tile hands, "
          f"{len(pairs):,} two-tile hands, quickest of {args.repeat} runs")  # fmt: skip

    # (a) two-tile hands ranked
    ranked = {
        "engine": quickest(rank_tiles(pairs), args.repeat),
        "engine+parse": quickest(rank_names_engine(pair_names), args.repeat),
        "naive": quickest(rank_names_naive(pair_names), args.repeat),
    }
    # (b) four-tile hands set the house way; the cached run starts from an empty cache.
    cache = house_way_module._house_way
    set_runs = {
        "engine": quickest(set_hands(house_way, hands), args.repeat, cache.cache_clear),
    }
    cached = cache.cache_info()
    set_runs["uncached"] = quickest(set_hands(uncached_house_way, hands), args.repeat)
    set_runs["naive"] = quickest(set_hands(naive_house_way, names), args.repeat)

    print(f"{'(a) hand_strength':<20}{'hands/s':>12}{'ratio:naive':>13}")
    for name, seconds in ranked.items():
        rate = len(pairs) / seconds
        print(f"{name:<20}{rate:>12,.0f}{ranked['naive'] / seconds:>13.2f}")
    print(f"{'(b) house_way':<20}{'settings/s':>12}{'ratio:naive':>13}")
    for name, seconds in set_runs.items():
        rate = len(hands) / seconds
        print(f"{name:<20}{rate:>12,.0f}{set_runs['naive'] / seconds:>13.2f}")
    hit = cached.hits / (cached.hits + cached.misses)
    size = "unbounded" if cached.maxsize is None else f"maxsize {cached.maxsize:,}"
    print(f"engine: cache ({size}) hits {hit:.1%} "
          f"({cached.hits:,} of {cached.hits + cached.misses:,}); "
          f"{len(set(tuple(sorted(h)) for h in hands)):,} different hands "
          f"in the stream")  # fmt: skip

    errors = check_ranking(pairs)
    house_errors, rules = check_house_way(hands, names)
    errors += house_errors
    shares = ", ".join(f"{rule[-3:]} {n:,}" for rule, n in sorted(rules.items()))
    print(f"house way by § 621a.8(d) paragraph: {shares}")

    # (c) the exact PAR count, cold
    if not args.no_par:
        clear_par_caches()
        gc.collect()
        start = time.perf_counter()
        counts = par.deal_counts()
        seconds = time.perf_counter() - start
        naive_rate = len(hands) / set_runs["naive"]
        brute = 2 * par.DEALS / naive_rate  # two settings per deal, at the naive rate
        print(f"(c) par.deal_counts() cold: {seconds:.2f} s for {par.DEALS:,} deals "
              f"({par.DEALS / seconds:,.0f} deals/s); win {counts['win']:,}, "
              f"tie {counts['tie']:,}, lose {counts['lose']:,}")  # fmt: skip
        print(f"    brute force at the naive rate (2 settings a deal; estimated, not run): "
              f"{brute / 3600:,.0f} h, {brute / seconds:,.0f} times as long")  # fmt: skip
    if args.par_hands:
        par_errors, seconds = check_par(hands, args.par_hands)
        errors += par_errors
        status = "disagree" if par_errors else "agree"
        print(f"par.outcome_counts and the naive count over {par.DEALER_HANDS:,} dealer hands "
              f"{status} for {min(args.par_hands, len(hands))} player hands "
              f"({seconds:.1f} s)")  # fmt: skip

    if errors:
        for error in errors[:10]:
            print(f"DIFFERENT {error}")
        print(f"the engine and the naive reading disagree ({len(errors):,} differences)")
        sys.exit(1)
    print(f"the engine and the naive reading agree: the order of {len(pairs):,} two-tile "
          f"hands, the house way of {len(hands):,} four-tile hands")  # fmt: skip


if __name__ == "__main__":
    main()
