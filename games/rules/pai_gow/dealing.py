"""Dealing the eight stacks: the starting place, the ten styles of delivery, the bank's cut.

58 Pa. Code § 621a.6 (the standard delivery), § 621a.7 (the nine alternatives) and
§ 621a.9(g), (j) (the bank's cut and count). Stacks are listed from the dealer's right
(stack 1 is the rightmost), each from its top tile down. A style is a recipe: for each
of the eight deliveries, in dealing order, the (stack, tile) places it takes.
"""

from collections.abc import Sequence

from games.rules.core.errors import RuleViolation
from games.rules.core.results import cite
from games.rules.pai_gow.tiles import Tile

DEALER = "dealer"
DEAD_HAND = "dead_hand"
# Counterclockwise around the table: the dealer, the six betting positions from the
# dealer's right, then the Dead Hand on the dealer's left (§ 621a.2(b)(3), § 621a.6(c)).
PLACES: tuple[str, ...] = (DEALER, "1", "2", "3", "4", "5", "6", DEAD_HAND)
POSITIONS: tuple[str, ...] = PLACES[1:-1]  # § 621a.2(a): six betting positions
STACKS = 8
TILES_PER_STACK = 4

Recipe = tuple[tuple[tuple[int, int], ...], ...]  # per delivery: (stack index, depth) x 4


def starting_place(count: int, first: str = DEALER) -> str:
    """The place the count of the dice total (or generator number) ends on.

    § 621a.6(c): the dealer is number one, then each betting position and the Dead Hand
    counterclockwise, whether or not a position has a wager: 9 is the dealer, 15 the
    sixth position (the text's examples). In a player-bank round the count begins with
    the bank's position (our reading of § 621a.9(j)).
    """
    if count < 1:
        raise ValueError("the count starts at 1")
    start = PLACES.index(first)
    return PLACES[(start + count - 1) % len(PLACES)]


def places_from(start: str) -> tuple[str, ...]:
    """The eight places in dealing order, the starting place first (§ 621a.6(d))."""
    i = PLACES.index(start)
    return PLACES[i:] + PLACES[:i]


def _whole(order: Sequence[int]) -> Recipe:
    """A stack to each delivery, in the given order of stacks."""
    return tuple(tuple((s, depth) for depth in range(4)) for s in order)


def _cup_say(pairs: Sequence[tuple[int, int]]) -> Recipe:
    """Two stacks pushed forward: their top two tiles to one place, the rest to the next."""
    recipe = []
    for one, other in pairs:
        recipe.append(((one, 0), (one, 1), (other, 0), (other, 1)))
        recipe.append(((one, 2), (one, 3), (other, 2), (other, 3)))
    return tuple(recipe)


def _pin_say(first: Sequence[int], second: Sequence[int]) -> Recipe:
    """A tile off each of four stacks on one side, then each of four on the other, ..."""
    recipe = []
    for depth in range(4):
        recipe.append(tuple((s, depth) for s in first))
        recipe.append(tuple((s, depth) for s in second))
    return tuple(recipe)


def _dragon_head(head: Sequence[int], tail: Sequence[int]) -> Recipe:
    """Head stacks put on top of the next two: two tiles off each of those two eight-tile
    stacks to one place, the top tile of each of the four tail stacks to the next."""
    first, second, third, fourth = head
    heads = ((first, second), (first, second), (third, fourth), (third, fourth))
    recipe = []
    for depth, (one, other) in enumerate(heads):
        top = 2 * (depth % 2)
        recipe.append(((one, top), (one, top + 1), (other, top), (other, top + 1)))
        recipe.append(tuple((s, depth) for s in tail))
    return tuple(recipe)


RIGHT = (0, 1, 2, 3, 4, 5, 6, 7)  # stack indexes from the dealer's right
LEFT = RIGHT[::-1]

# Style name -> (the paragraph that describes it, its recipe).
DEALING_STYLE_RECIPES: dict[str, tuple[str, Recipe]] = {
    "standard": ("621a.6(d)", _whole(RIGHT)),
    "house_way_from_left": ("621a.7(a)(1)", _whole(LEFT)),
    "cup_say_from_right": ("621a.7(a)(2)", _cup_say(((0, 1), (2, 3), (4, 5), (6, 7)))),
    "cup_say_from_left": ("621a.7(a)(3)", _cup_say(((7, 6), (5, 4), (3, 2), (1, 0)))),
    "jung_quat": ("621a.7(a)(4)", _cup_say(((3, 4), (2, 5), (1, 6), (0, 7)))),
    "chee_yee": ("621a.7(a)(5)", _cup_say(((0, 7), (1, 6), (2, 5), (3, 4)))),
    "pin_say_from_right": ("621a.7(a)(6)", _pin_say((0, 1, 2, 3), (7, 6, 5, 4))),
    "pin_say_from_left": ("621a.7(a)(7)", _pin_say((7, 6, 5, 4), (0, 1, 2, 3))),
    "dragon_head_phoenix_tail_from_right": (
        "621a.7(a)(8)",
        _dragon_head((0, 1, 2, 3), (4, 5, 6, 7)),
    ),
    "dragon_head_phoenix_tail_from_left": (
        "621a.7(a)(9)",
        _dragon_head((7, 6, 5, 4), (3, 2, 1, 0)),
    ),
}
DEALING_STYLES: tuple[str, ...] = tuple(DEALING_STYLE_RECIPES)
ALTERNATIVE_STYLES: tuple[str, ...] = DEALING_STYLES[1:]


def deliver(stacks: Sequence[Sequence[Tile]], style: str) -> tuple[tuple[Tile, ...], ...]:
    """The eight deliveries of four tiles, in dealing order, for a style of delivery."""
    _, recipe = DEALING_STYLE_RECIPES[style]
    return tuple(tuple(stacks[s][depth] for s, depth in delivery) for delivery in recipe)


def apply_cut(
    stacks: Sequence[Sequence[Tile]], to_right: Sequence[int], to_left: Sequence[int]
) -> tuple[tuple[Tile, ...], ...]:
    """The stacks after the bank's one cut (§ 621a.9(g)); stack numbers count from 1 at
    the dealer's right. The moved stacks must together be one run of adjacent stacks:
    all to one end ((g)(1)), or split between both ends ((g)(2), two or more stacks)."""
    moved = [*to_right, *to_left]
    section = cite("621a.9(g)")
    if not moved:
        raise RuleViolation("A cut moves at least one stack", section)
    if any(not 1 <= n <= STACKS for n in moved) or len(set(moved)) != len(moved):
        raise RuleViolation("A cut names each stack once, by its number 1 to 8", section)
    run = sorted(moved)
    if run != list(range(run[0], run[0] + len(run))):
        raise RuleViolation("The stacks moved by a cut must be adjacent", section)
    if len(run) == STACKS:
        raise RuleViolation("A cut leaves at least one stack in place", section)
    staying = [n for n in range(1, STACKS + 1) if n not in moved]
    order = sorted(to_right) + staying + sorted(to_left)
    if order == list(range(1, STACKS + 1)):
        raise RuleViolation("A cut must change the order of the stacks", section)
    return tuple(tuple(stacks[n - 1]) for n in order)
