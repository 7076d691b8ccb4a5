"""High Roll Dice wager kinds and the rules for placing them (§ 675a.2, § 675a.6(b), (d)).

Kinds: ``pip:F`` (F = 1..6, 1 is the ace), ``like_kind:K`` (2..8; 2..6 with six dice),
``no_match`` (six dice), ``extra_roll`` (ten dice), ``millionaire:9``, ``millionaire:10``.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from games.rules.core import Rejection, Wager, cite, format_money
from games.rules.core.money import has_whole_cents
from games.rules.high_roll_dice.options import Options
from games.rules.high_roll_dice.paytables import LIKE_KIND_FIRST_ROLL, MILLIONAIRE_ROW_MAXIMUM

PIP_STREET = "pip"
LIKE_KIND = "like_kind"
NO_MATCH = "no_match"
EXTRA_ROLL = "extra_roll"
MILLIONAIRE_ROW = "millionaire"

_NUMBERED = re.compile(r"^(pip|like_kind|millionaire):([1-9][0-9]?)$")

# Where each area sits on the layout: one wager per area per player.
_LAYOUT = {
    10: {
        PIP_STREET: "675a.1(b)(2)(iii)",
        LIKE_KIND: "675a.1(b)(2)(i)",
        EXTRA_ROLL: "675a.1(b)(2)(v)",
        MILLIONAIRE_ROW: "675a.1(b)(2)(ii)",
    },
    6: {PIP_STREET: "675a.6(b)(2)", LIKE_KIND: "675a.6(b)(1)", NO_MATCH: "675a.6(b)(1)"},
}
_AREA_NAMES = {
    PIP_STREET: "a Pip Street Wager on the {}",
    LIKE_KIND: "a Like Kind Boulevard Wager on the {}-of-a-kind circle",
    NO_MATCH: "a Like Kind Boulevard Wager on the no match circle",
    EXTRA_ROLL: "an Extra Roll",
    MILLIONAIRE_ROW: "a Millionaire Row Wager on the {}-of-a-kind circle",
}
_FACE_NAMES = {1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class Kind:
    """A betting area: `number` is the die face (Pip Street) or the count of matching
    dice a circle needs (Like Kind, Millionaire Row; 1 for the no match circle)."""

    area: str
    number: int | None = None

    @property
    def is_circle(self) -> bool:
        """A Like Kind Boulevard circle (the no match circle is one, § 675a.6(d))."""
        return self.area in (LIKE_KIND, NO_MATCH)

    def describe(self) -> str:
        """The area in the layout's words, for a dealer."""
        name = _AREA_NAMES[self.area]
        if self.area == PIP_STREET:
            return name.format(_FACE_NAMES[self.number or 0])
        return name.format(self.number)

    @property
    def text(self) -> str:
        """The scenario kind, e.g. ``like_kind:3``."""
        if self.area in (NO_MATCH, EXTRA_ROLL):
            return self.area
        return f"{self.area}:{self.number}"


@dataclass(frozen=True)
class Placed:
    """An accepted wager and the area it is on."""

    wager: Wager
    kind: Kind


@dataclass(frozen=True)
class NotOffered:
    """A kind this variation does not offer: the dealer's sentence and the section."""

    error: str
    cite: str | None = None


def parse_kind(text: str, dice: int) -> Kind | NotOffered:
    """The area a kind names under this variation, or why it is not offered."""
    match = _NUMBERED.match(text)
    if match:
        area, number = match.group(1), int(match.group(2))
        if area == PIP_STREET and 1 <= number <= 6:
            return Kind(PIP_STREET, number)
        if area == LIKE_KIND and 2 <= number <= 8:
            if number in LIKE_KIND_FIRST_ROLL[dice]:
                return Kind(LIKE_KIND, number)
            return NotOffered(
                "The six-dice game has Like Kind Boulevard circles two through six only.",
                cite("675a.6(b)(1)"),
            )
        if area == MILLIONAIRE_ROW and number in (9, 10):
            if dice == 10:
                return Kind(MILLIONAIRE_ROW, number)
            return NotOffered("The six-dice game has no Millionaire Row Wager.", cite("675a.6(d)"))
    if text == NO_MATCH:
        if dice == 6:
            return Kind(NO_MATCH, 1)
        return NotOffered("Only the six-dice game has a no match circle.", cite("675a.1(b)(2)(i)"))
    if text == EXTRA_ROLL:
        if dice == 10:
            return Kind(EXTRA_ROLL)
        return NotOffered("The six-dice game has no Extra Roll.", cite("675a.6(d)"))
    return NotOffered(f"High Roll Dice has no wager {text!r}.")


# Every kind either variation may have, in the order of § 675a.2(e) and § 675a.6(d).
KINDS = (
    *(f"{PIP_STREET}:{face}" for face in range(1, 7)),
    *(f"{LIKE_KIND}:{count}" for count in range(2, 9)),
    NO_MATCH,
    EXTRA_ROLL,
    *(f"{MILLIONAIRE_ROW}:{count}" for count in (9, 10)),
)


def every_kind(dice: int) -> tuple[Kind, ...]:
    """Every area the variation offers (those `parse_kind` takes), in the order of § 675a.2(e)."""
    return tuple(kind for text in KINDS if isinstance(kind := parse_kind(text, dice), Kind))


def placement_refusal(
    wager: Wager, kind: Kind, options: Options, placed: Sequence[Placed]
) -> Rejection | None:
    """Why the rules refuse this wager before the throw, given the round's wagers, or None.

    `placed` holds the wagers accepted so far this round, in order: a wager is checked
    against those placed before it (§ 675a.2(e)(2): "After placing a Pip Street Wager").
    """
    amount, dice = wager.amount, options.dice

    def refuse(error: str, section: str | None = None) -> Rejection:
        return Rejection(error=error, wager=wager.id, cite=cite(section) if section else None)

    if amount <= 0:
        return refuse("A wager must be a positive amount.")
    if not has_whole_cents(amount):
        return refuse("A wager must be a whole number of cents.")
    if kind.area == MILLIONAIRE_ROW:
        # § 675a.2(e)(4): at most $1, so the table minimum does not bind it (our reading).
        if amount > MILLIONAIRE_ROW_MAXIMUM:
            return refuse("A Millionaire Row wager may not exceed $1.", "675a.2(e)(4)")
    elif (limit_error := options.limits.refusal(amount)) is not None:
        return refuse(limit_error)

    mine = [p for p in placed if p.wager.player == wager.player]
    pip_street = [p for p in mine if p.kind.area == PIP_STREET]
    if kind.area == EXTRA_ROLL and not any(p.kind.is_circle for p in mine):
        return refuse(
            "An Extra Roll may be purchased only by a player who placed a Like Kind "
            "Boulevard Wager.",
            "675a.2(e)(3)",
        )
    if kind.area != PIP_STREET and not pip_street:
        return refuse(
            "A player must place a Pip Street Wager to take part in the round, before any "
            "other wager.",
            "675a.2(e)(1)",
        )
    if any(p.kind == kind for p in mine):
        return refuse(
            f"Player {wager.player} already has {kind.describe()}.", _LAYOUT[dice][kind.area]
        )
    if kind.area == MILLIONAIRE_ROW:
        return None
    # All Pip Street and Like Kind Boulevard Wagers and the purchase of an Extra Roll must
    # be of equal value (§ 675a.1(b)(2)(iv); "all wagers" with six dice, § 675a.6(b)(3)):
    # each one equals the player's first Pip Street Wager of the round.
    unit = pip_street[0].wager.amount if pip_street else amount
    if amount == unit:
        return None
    money = format_money(unit)
    if kind.area == PIP_STREET:
        section = "675a.1(b)(2)(iv)" if dice == 10 else "675a.6(b)(3)"
        return refuse(
            f"All of a player's wagers must be of equal value: this player's Pip Street "
            f"Wager is ${money}.",
            section,
        )
    if kind.area == EXTRA_ROLL:
        return refuse(
            f"An Extra Roll must be purchased for an amount equal to the player's Like Kind "
            f"Boulevard Wager of ${money}.",
            "675a.2(e)(3)",
        )
    return refuse(
        f"A Like Kind Boulevard Wager must equal the player's Pip Street Wager of ${money}.",
        "675a.2(e)(2)" if dice == 10 else "675a.6(d)",
    )
