"""The deal event: the tiles each place receives, given directly or dealt from the stacks.

Two forms (docs/scenarios.md). The contract's ``{"dealer": [...], "positions": {...}}``
names the hands as dealt. The stacks form gives the eight stacks, the dice or the
random number generator's number, the style of delivery and a bank's cut, and the
engine deals them as § 621a.6, § 621a.7 and § 621a.9(g), (j) say.
"""

from collections import Counter
from collections.abc import Mapping, Set
from dataclasses import dataclass

from games.rules.core import MalformedInput, RuleViolation, cite, die_face_refusal
from games.rules.core.wagers import parse_dice
from games.rules.pai_gow.dealing import (
    DEAD_HAND,
    DEALER,
    DEALING_STYLES,
    POSITIONS,
    STACKS,
    TILES_PER_STACK,
    apply_cut,
    deliver,
    places_from,
    starting_place,
)
from games.rules.pai_gow.options import RNG, SHAKER, PaiGowOptions
from games.rules.pai_gow.tiles import TILE_SET, Tile, parse_tiles, tiles_text

DICE = 3  # § 621a.2(d): three dice in the Pai Gow shaker
_DIRECT_FIELDS = ("dealer", "positions")
_STACK_FIELDS = ("stacks", "dice", "rng", "style", "cut")


@dataclass(frozen=True)
class Dealt:
    """The four tiles of the dealer and of each position with a wager, and the Dead Hand."""

    hands: Mapping[str, tuple[Tile, ...]]
    dead_hand: tuple[tuple[Tile, ...], ...] = ()
    count: int | None = None
    starting_place: str | None = None
    style: str | None = None

    def describe(self) -> dict[str, object]:
        """The deal as the step reports it."""
        described: dict[str, object] = {
            "hands": {place: tiles_text(tiles) for place, tiles in self.hands.items()},
            "dead_hand": [tiles_text(stack) for stack in self.dead_hand],
        }
        if self.count is not None:
            described.update(count=self.count, starting_place=self.starting_place, style=self.style)
        return described


def deal_from_payload(
    options: PaiGowOptions, payload: object, with_wager: Set[str], bank_place: str | None
) -> Dealt:
    """The deal, or MalformedInput for a wrong form, or RuleViolation for what the rules forbid."""
    if not isinstance(payload, dict):
        raise MalformedInput("deal", 'must be an object with "dealer" and "positions", or "stacks"')
    if "stacks" in payload:
        _known(payload, _STACK_FIELDS)
        return _deal_stacks(options, payload, with_wager, bank_place)
    _known(payload, _DIRECT_FIELDS)
    return _deal_direct(payload, with_wager)


def _known(payload: dict, names: tuple[str, ...]) -> None:
    for name in payload:
        if name not in names:
            raise MalformedInput(
                f"deal.{name}", f"is not a field of this deal; they are {', '.join(names)}"
            )


def _deal_direct(payload: dict, with_wager: Set[str]) -> Dealt:
    if "dealer" not in payload or "positions" not in payload:
        raise MalformedInput("deal", 'needs "dealer" and "positions" (or "stacks")')
    dealer = parse_tiles(payload["dealer"], TILES_PER_STACK, "deal.dealer")
    raw_positions = payload["positions"]
    if not isinstance(raw_positions, dict):
        raise MalformedInput("deal.positions", 'must be an object such as {"1": [4 tiles]}')
    positions: dict[str, tuple[Tile, ...]] = {}
    for name, tiles in raw_positions.items():
        if name not in POSITIONS:
            raise MalformedInput(f"deal.positions.{name}", "is not a betting position 1 to 6")
        positions[name] = parse_tiles(tiles, TILES_PER_STACK, f"deal.positions.{name}")
    _within_the_set([dealer, *positions.values()])
    missing = sorted(with_wager - set(positions))
    if missing:
        raise RuleViolation(
            f"Every position is dealt a stack; position {missing[0]} has a wager and no tiles",
            cite("621a.6(d)"),
        )
    hands = {DEALER: dealer, **{p: positions[p] for p in POSITIONS if p in with_wager}}
    dead = tuple(positions[p] for p in POSITIONS if p in positions and p not in with_wager)
    return Dealt(hands, dead)


def _within_the_set(hands: list[tuple[Tile, ...]]) -> None:
    counts = Counter(tile for hand in hands for tile in hand)
    for tile, count in counts.items():
        if count > TILE_SET[tile]:
            copies = "one" if TILE_SET[tile] == 1 else "two"
            raise RuleViolation(
                f"A set of Pai Gow tiles has {copies} {tile} tile, and {count} were dealt",
                cite("621a.3(h)"),
            )


def _deal_stacks(
    options: PaiGowOptions, payload: dict, with_wager: Set[str], bank_place: str | None
) -> Dealt:
    raw_stacks = payload["stacks"]
    if not isinstance(raw_stacks, list) or len(raw_stacks) != STACKS:
        raise MalformedInput("deal.stacks", "must be the eight stacks of four tiles")
    stacks = tuple(
        parse_tiles(stack, TILES_PER_STACK, f"deal.stacks[{i}]")
        for i, stack in enumerate(raw_stacks)
    )
    counts = Counter(tile for stack in stacks for tile in stack)
    if counts != Counter(TILE_SET):
        wrong = sorted(t for t in TILE_SET if counts[t] != TILE_SET[t])
        raise RuleViolation(
            "The eight stacks must be the 32 tiles of one set; wrong count of "
            + ", ".join(str(t) for t in wrong),
            cite("621a.3(h)"),
        )
    style = payload.get("style", "standard")
    if style not in DEALING_STYLES:
        raise MalformedInput("deal.style", f"must be one of {', '.join(DEALING_STYLES)}")
    if style != "standard" and style not in options.dealing_styles:
        raise RuleViolation(
            f"This table's Rules Submission does not offer the {style} style of delivery",
            cite("621a.7(a)"),
        )
    if "cut" in payload:
        stacks = _cut(payload["cut"], stacks, bank_place)
    count = _count(options, payload)
    start = starting_place(count, bank_place or DEALER)
    delivered = dict(zip(places_from(start), deliver(stacks, style), strict=True))
    hands = {DEALER: delivered[DEALER], **{p: delivered[p] for p in POSITIONS if p in with_wager}}
    dead = tuple(
        delivered[place]
        for place in places_from(start)
        if place == DEAD_HAND or (place in POSITIONS and place not in with_wager)
    )
    return Dealt(hands, dead, count, start, style)


def _count(options: PaiGowOptions, payload: dict) -> int:
    """The dice total or the generator's number (§ 621a.6(a), (b))."""
    if ("dice" in payload) == ("rng" in payload):
        raise MalformedInput("deal", 'a deal from the stacks needs "dice" or "rng", not both')
    if "dice" in payload:
        dice = parse_dice(payload["dice"], "deal.dice")
        if options.starting_position != SHAKER and not options.shaker_if_rng_down:
            raise RuleViolation(
                "This table uses a random number generator, not the Pai Gow shaker",
                cite("621a.6(a)(1)"),
            )
        if len(dice) != DICE:
            raise RuleViolation("The Pai Gow shaker holds three dice", cite("621a.2(d)(1)"))
        refusal = die_face_refusal(dice)
        if refusal is not None:
            raise RuleViolation(refusal, cite("621a.6(a)(2)"))
        return sum(dice)
    number = payload["rng"]
    if isinstance(number, bool) or not isinstance(number, int):
        raise MalformedInput("deal.rng", "must be the whole number the generator displayed")
    if options.starting_position != RNG:
        raise RuleViolation(
            "This table uses the Pai Gow shaker, not a random number generator",
            cite("621a.6(a)(2)"),
        )
    if number < 1:
        raise RuleViolation("The generator's number counts from 1", cite("621a.6(c)"))
    return number


def _cut(raw: object, stacks: tuple[tuple[Tile, ...], ...], bank_place: str | None) -> tuple:
    if not isinstance(raw, dict) or not set(raw) <= {"to_right", "to_left"}:
        raise MalformedInput("deal.cut", 'must be {"to_right": [stack numbers], "to_left": [...]}')
    moves: dict[str, list[int]] = {}
    for side in ("to_right", "to_left"):
        numbers = raw.get(side, [])
        if not isinstance(numbers, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in numbers
        ):
            raise MalformedInput(f"deal.cut.{side}", "must be a list of stack numbers 1 to 8")
        moves[side] = numbers
    if bank_place is None:
        raise RuleViolation("Only a player bank may cut the tiles", cite("621a.9(g)"))
    return apply_cut(stacks, moves["to_right"], moves["to_left"])
