"""A round with a player bank moves money only between the players, the bank and the
table: the players' nets, the bank's net, the dealer's wager, the vigorish and the table
inventory's share add up to zero, to the cent (58 Pa. Code § 621a.9(n)-(r), § 621a.8(k)).
Seeded random deals, banked and co-banked, with odd amounts so halves fall on half cents."""

import random
from decimal import Decimal

import pytest

from games.rules.pai_gow.tiles import TILE_SET
from games.scenario import run_scenario

TILES = [str(tile) for tile, copies in TILE_SET.items() for _ in range(copies)]


def _deal(rng: random.Random) -> dict:
    tiles = TILES[:]
    rng.shuffle(tiles)
    stacks = [tiles[i : i + 4] for i in range(0, 32, 4)]
    return {"deal": {"stacks": stacks, "dice": [rng.randint(1, 6) for _ in range(3)]}}


def _table_take(step: dict) -> Decimal:
    """What the table gains in a banked reveal: vigorish, the dealer's wager, its share."""
    take = sum((Decimal(r.get("vig", "0")) for r in step["resolutions"]), Decimal(0))
    take += Decimal(step["centre"]["table_inventory"])
    dealer = step.get("dealer_wager")
    if dealer is not None:
        # The dealer's wager is the table's: it loses what the bank wins and wins what it loses.
        sign = {"win": 1, "lose": -1, "push": 0}[dealer["result"]]
        take += sign * Decimal(dealer["amount"])
    return take


@pytest.mark.parametrize("co_bank", [False, True], ids=["bank", "co_bank"])
@pytest.mark.parametrize("seed", range(30))
def test_a_banked_round_balances_to_the_cent(seed: int, co_bank: bool) -> None:
    rng = random.Random(seed)
    positions = sorted(rng.sample(range(1, 7), rng.randint(2, 6)))
    amounts = {p: str(rng.choice([5, 7, 10, 15, 17, 25, 33, 55])) for p in positions}

    def wagers(prefix: str) -> dict:
        return {
            "wagers": [
                {
                    "id": f"{prefix}{p}",
                    "player": f"p{p}",
                    "kind": "pai_gow",
                    "amount": amounts[p],
                    "position": p,
                }
                for p in positions
            ]
        }

    bank = positions[0]
    banked_round = [
        wagers("b"),
        {"bank": {"player": f"p{bank}", "co_bank": co_bank, "chips": "1000"}},
        _deal(rng),
        {"set": {f"b{p}": "house_way" for p in positions if not (co_bank and p == bank)}},
        {"reveal": True},
    ]
    first_round = [
        wagers("a"),
        _deal(rng),
        {"set": {f"a{p}": "house_way" for p in positions}},
        {"reveal": True},
    ]
    steps = [*first_round, *banked_round]
    result = run_scenario({"format": 1, "game": "pai_gow", "options": {}, "steps": steps})
    reveal = result["steps"][-1]
    assert all(not s["rejected"] for s in result["steps"]), result["steps"]
    assert [r["wager"] for r in reveal["resolutions"]][-1] == f"b{bank}"  # the bank last
    nets = sum((Decimal(r["net"]) for r in reveal["resolutions"]), Decimal(0))
    assert nets + _table_take(reveal) == 0, reveal
    section = "621a.9(r)" if co_bank else "621a.9(o)"
    assert reveal["centre"]["cite"] == f"58 Pa. Code § {section}"
