"""The football field: what each down's dice call, and where the Yard Marker and pucks go.

§ 661a.1 and § 661a.6(c), (e). The Quarterback throws two green Offensive Dice and
one red Defensive Die; the Yard Marker counts yards to the end zone (the 0 yard line).
"""

from dataclasses import dataclass
from enum import StrEnum

from games.rules.core import cite

START_YARD_LINE = 20  # § 661a.6(a): the Yard Marker starts in the 20 yard line circle
GOAL_YARD_LINE = 10  # § 661a.6(e): "A 1st & Goal is earned by reaching the 10 yard line"
DOWNS = 3  # § 661a.6(e): three downs, then three more after a 1st & Goal

# § 661a.2(b)(5): the Down Puck's areas, in the order the puck moves through them.
DOWN_NAMES = ("1st Down", "2nd Down", "3rd Down", "1st & Goal", "2nd & Goal", "3rd & Goal")
FIRST_AND_GOAL = 3  # index of "1st & Goal" in DOWN_NAMES
LAST_DOWNS = (2, 5)  # "3rd Down" and "3rd & Goal": the last down of each series


class Call(StrEnum):
    """What one down's dice show (§ 661a.1, § 661a.6(c))."""

    GAIN = "gain"
    PENALTY = "penalty"
    NO_GAIN = "no_gain"
    TURNOVER = "turnover"
    TRIPS_TD = "trips_td"


class GameEnd(StrEnum):
    """How a game ends."""

    TOUCHDOWN = "touchdown"
    TRIPS_TD = "trips_td"
    TURNOVER = "turnover"
    DOWNS = "downs"  # the downs ran out without a touchdown (§ 661a.6(e))


SCORING_ENDS = frozenset({GameEnd.TOUCHDOWN, GameEnd.TRIPS_TD})


def game_end_cite(end: GameEnd, field: "Field") -> str:
    """The section that ends the game this way (`field` as the last down left it)."""
    if end is GameEnd.TOUCHDOWN:
        return cite("661a.1")  # Touchdown: through downs the 0 yard line is passed
    if end is GameEnd.TRIPS_TD:
        return cite("661a.6(c)(5)")
    if end is GameEnd.TURNOVER:
        return cite("661a.6(c)(4)")
    return cite("661a.6(e)(2)") if field.goal_to_go else cite("661a.6(e)(1)")


@dataclass(frozen=True)
class Throw:
    """The faces of one throw: two green Offensive Dice and the red Defensive Die."""

    green: tuple[int, int]
    red: int

    @property
    def offense(self) -> int:
        """The total of the Offensive Dice."""
        return self.green[0] + self.green[1]

    @property
    def faces(self) -> tuple[int, int, int]:
        """All three dice, as an extra point roll reads them."""
        return (self.green[0], self.green[1], self.red)


@dataclass(frozen=True)
class Play:
    """One down as the dice call it; `yards` is the dice's margin (offense minus defense)."""

    call: Call
    yards: int


def call_play(throw: Throw) -> Play:
    """What the dice of a down call, by the definitions of § 661a.1 and § 661a.6(c)."""
    yards = throw.offense - throw.red
    if throw.green[0] == throw.green[1] == throw.red:
        # Trips TD: all three dice show the same number (§ 661a.1), whatever the margin.
        return Play(Call.TRIPS_TD, yards)
    if throw.red == 6 and throw.offense in (2, 3):
        # Turnover: Defensive Die 6, Offensive Dice total 2 or 3; not a penalty (§ 661a.1).
        return Play(Call.TURNOVER, yards)
    if yards < 0:
        return Play(Call.PENALTY, yards)  # § 661a.6(c)(2)
    if yards == 0:
        return Play(Call.NO_GAIN, yards)  # § 661a.6(c)(3)
    return Play(Call.GAIN, yards)  # § 661a.6(c)(1)


@dataclass(frozen=True)
class Field:
    """Where the Yard Marker, the Down Puck and the Game Length Puck stand.

    `down` indexes DOWN_NAMES; `play` is the Game Length Puck, the play about to be thrown.
    """

    yard_line: int = START_YARD_LINE
    down: int = 0
    play: int = 1

    @property
    def down_name(self) -> str:
        """The Down Puck's area, as the layout names it."""
        return DOWN_NAMES[self.down]

    @property
    def goal_to_go(self) -> bool:
        """True once a 1st & Goal has been earned."""
        return self.down >= FIRST_AND_GOAL


def advance(field: Field, play: Play) -> tuple[Field, GameEnd | None]:
    """Move the Yard Marker and pucks for one down (§ 661a.6(c), (e)); say if the game ends.

    The field returned for a game that ends shows the Yard Marker where the down left it
    (in the end zone, the 0 yard line, for a touchdown or Trips TD).
    """
    if play.call is Call.TRIPS_TD:
        return Field(0, field.down, field.play), GameEnd.TRIPS_TD  # § 661a.6(c)(5)
    if play.call is Call.TURNOVER:
        return field, GameEnd.TURNOVER  # § 661a.6(c)(4)
    if play.call is Call.GAIN:
        yard_line = field.yard_line - play.yards  # § 661a.6(c)(1)
    elif play.call is Call.PENALTY:
        yard_line = field.yard_line + 1  # § 661a.6(c)(2): only 1 yard, whatever the dice
    else:
        yard_line = field.yard_line  # § 661a.6(c)(3)
    if yard_line <= 0:
        # Touchdown (§ 661a.1): reaching the 0 yard line counts (docs/regulations).
        return Field(0, field.down, field.play), GameEnd.TOUCHDOWN
    if not field.goal_to_go and yard_line <= GOAL_YARD_LINE:
        # § 661a.6(e)(2): a 1st & Goal, and three more downs, as soon as the 10 is reached.
        return Field(yard_line, FIRST_AND_GOAL, field.play + 1), None
    if field.down in LAST_DOWNS:
        return Field(yard_line, field.down, field.play), GameEnd.DOWNS  # § 661a.6(e)(1)
    return Field(yard_line, field.down + 1, field.play + 1), None
