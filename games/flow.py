"""The round flow of each game as data: which events come before "no more bets", which
are the result, which end a round, and what a "no roll" or a void is under each chapter.

Pure Python, like games/rules: the services in games/services/ read it, the engines
decide. A round is one pass through wagering, "no more bets" and a result; for Craps and
Three Dice Football that is one throw, and the table's game state carries into the next.
"""

from datetime import datetime
from types import MappingProxyType

from games.rules.core import cite

# Events a player or dealer makes while wagering is open.
WAGERING_EVENTS: MappingProxyType[str, frozenset[str]] = MappingProxyType(
    {
        "craps": frozenset({"wagers", "remove", "working", "pass_dice"}),
        "sic_bo": frozenset({"wagers"}),
        "high_roll_dice": frozenset({"wagers"}),
        "three_dice_football": frozenset({"wagers"}),
        "pai_gow": frozenset({"wagers", "bank"}),
    }
)

# Events after "no more bets": the dice, the tiles and settings, a generator's selection.
RESULT_EVENTS: MappingProxyType[str, frozenset[str]] = MappingProxyType(
    {
        # § 623b.5(c): the Power Odds selection is made once wagering has closed.
        "craps": frozenset({"power_odds", "throw"}),
        "sic_bo": frozenset({"throw", "no_roll", "shaker_malfunction"}),
        "high_roll_dice": frozenset({"throw", "extra_roll"}),
        "three_dice_football": frozenset({"throw"}),
        "pai_gow": frozenset({"deal", "set", "surrender", "irregularity", "reveal"}),
    }
)

# A result event that ends the round once no wager of the round is left open
# (for Craps and Three Dice Football: once the throw is made; wagers carry on).
ENDS_ROUND: MappingProxyType[str, frozenset[str]] = MappingProxyType(
    {
        "craps": frozenset({"throw"}),
        "sic_bo": frozenset({"throw", "no_roll", "shaker_malfunction"}),
        "high_roll_dice": frozenset({"throw", "extra_roll"}),
        "three_dice_football": frozenset({"throw"}),
        "pai_gow": frozenset({"reveal", "irregularity"}),
    }
)

# Games whose wagers stay working across throws: one throw ends the round.
THROW_BY_THROW = frozenset({"craps", "three_dice_football"})

# A "no roll" in the engine's own hands (Sic Bo returns every wager, § 625a.7(a)), or
# a throw that does not count: the dice are thrown again and no wager is touched.
NO_ROLL_IN_ENGINE = frozenset({"sic_bo"})
NO_ROLL_RETHROW: MappingProxyType[str, str] = MappingProxyType(
    {
        "craps": cite("623a.8(b)"),
        "three_dice_football": cite("661a.5(b)"),
        "high_roll_dice": cite("675a.4(b)"),
        "pai_gow": cite("621a.10(a)"),
    }
)

# A "no roll" that re-throws the dice of a result still to come: taken only while the engine
# takes that result. Pai Gow's is called on the shaker's dice before the tiles are dealt
# (§ 621a.10(a), (b): the dice that give the starting position, § 621a.6(a)(2)).
NO_ROLL_BEFORE: MappingProxyType[str, str] = MappingProxyType({"pai_gow": "deal"})
NO_ROLL_TOO_LATE: MappingProxyType[str, str] = MappingProxyType(
    {
        "pai_gow": 'the tiles are dealt: a "no roll" is called on the Pai Gow shaker before '
        f"the deal ({cite('621a.10(a)')}, (b))"
    }
)

# The voids that return every wager of the round, each the engine event that says so.
VOIDS: MappingProxyType[str, MappingProxyType[str, tuple[str, object]]] = MappingProxyType(
    {
        "sic_bo": MappingProxyType({"625a.7(c)": ("shaker_malfunction", True)}),
        "pai_gow": MappingProxyType(
            {
                "621a.10(c)": ("irregularity", {"kind": "wrong_positions"}),
                "621a.10(e)": ("irregularity", {"kind": "exposed_tile", "place": "dealer"}),
                # The generator gives no number and no tile is dealt (docs/regulations.md,
                # Devices): the way out of a round waiting on it (devices/rules.py WAITS).
                "621a.6(a)(1)": ("irregularity", {"kind": "no_starting_position"}),
            }
        ),
    }
)


def game_carries(table_closed_at: datetime | None, last_opened_at: datetime) -> bool:
    """The game state carries on from the table's last round (a Craps point, a Pai Gow
    bank's history) unless the table has closed since that round opened."""
    return table_closed_at is None or table_closed_at < last_opened_at


# Wager kinds that are a fee, not a stake at risk: what they cost goes to fees.
# Games where a stake can be reduced after it is placed (§ 623a.4(d): a don't bet), so the
# stake on the layout is read from the ledger rather than taken as placed.
STAKES_REDUCED = frozenset({"craps"})

# The Extra Roll purchase (§ 675a.2(e)(3)) buys a second throw; it is never returned.
FEE_KINDS = frozenset({"extra_roll"})

# The amounts a Pai Gow `bank` event may name (§ 621a.9).
BANK_AMOUNTS = ("chips", "dealer_wager")


def event_amounts(game: str, event: str, payload: object) -> list[tuple[str, object]]:
    """Each amount a wagering event other than `wagers` carries, with where it sits (the
    floor checks its form, games.rules.core.money.amount_given): a Craps bet reduced
    (`remove`: `{"id", "reduce_to"}`, § 623a.4(d)), a Pai Gow bank's `chips` and
    `dealer_wager` (§ 621a.9). Anything else in the payload is the engine's to check."""
    found: list[tuple[str, object]] = []
    if game == "craps" and event == "remove" and isinstance(payload, list):
        for index, item in enumerate(payload):
            if isinstance(item, dict) and "reduce_to" in item:
                found.append((f"remove[{index}].reduce_to", item["reduce_to"]))
    elif game == "pai_gow" and event == "bank" and isinstance(payload, dict):
        found += [(f"bank.{name}", payload[name]) for name in BANK_AMOUNTS if name in payload]
    return found
