"""The wagers of § 623a.3(a), § 623a.6 and ch. 623b, their scenario kinds, and where each sits.

Kinds (SCENARIOS.md): ``pass``, ``dont_pass``, ``come``, ``dont_come``, ``odds`` (with
``"on"``), ``place:N``, ``place_lose:N``, ``buy:N``, ``lay:N`` (N = 4, 5, 6, 8, 9, 10),
``hard:N`` (4, 6, 8, 10), ``field``, ``any_seven``, ``any_craps``, ``craps_2``, ``craps_3``,
``craps_12``, ``eleven``, ``c_and_e``, ``horn``, ``horn_high:N`` (2, 3, 11, 12), ``whirl``,
``hop:A-B`` (A <= B), ``six_seven_eight``, ``fire``, ``hot_roller``, ``lucky_shooter``,
``all_small``, ``all_tall``, ``make_em_all``, ``hot_shooter``.
"""

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from games.rules.core import RuleViolation, cite
from games.rules.core.wagers import WagerType
from games.rules.craps.paytables import POINT_NUMBERS

PASS = WagerType("pass", "Pass Bet", "623a.3(a)(1)")
DONT_PASS = WagerType("dont_pass", "Don't Pass Bet", "623a.3(a)(2)")
COME = WagerType("come", "Come Bet", "623a.3(a)(3)")
DONT_COME = WagerType("dont_come", "Don't Come Bet", "623a.3(a)(4)")
PLACE = WagerType("place", "Place Bet to Win", "623a.3(a)(5)")
PLACE_LOSE = WagerType("place_lose", "Place Bet to Lose", "623a.3(a)(6)")
HARD = WagerType("hard", "Hardway Bet", "623a.3(a)(7)-(10)")
FIELD = WagerType("field", "Field Bet", "623a.3(a)(11)")
ANY_SEVEN = WagerType("any_seven", "Any Seven Bet", "623a.3(a)(12)")
ANY_CRAPS = WagerType("any_craps", "Any Craps Bet", "623a.3(a)(13)")
CRAPS_2 = WagerType("craps_2", "Craps Two Bet", "623a.3(a)(14)")
CRAPS_3 = WagerType("craps_3", "Craps Three Bet", "623a.3(a)(15)")
CRAPS_12 = WagerType("craps_12", "Craps Twelve Bet", "623a.3(a)(16)")
ELEVEN = WagerType("eleven", "11 in One Roll Bet", "623a.3(a)(17)")
C_AND_E = WagerType("c_and_e", "Craps-Eleven or C and E Bet", "623a.3(a)(18)")
HORN = WagerType("horn", "Horn Bet", "623a.3(a)(19)")
HORN_HIGH = WagerType("horn_high", "Horn High Bet", "623a.3(a)(20)")
WHIRL = WagerType("whirl", "Whirl Bet", "623a.3(a)(21)")
HOP = WagerType("hop", "on the Hop Bet", "623a.3(a)(22)-(38)")
SIX_SEVEN_EIGHT = WagerType("six_seven_eight", "6-7-8 Bet", "623a.3(a)(39)")
FIRE = WagerType("fire", "Fire Bet", "623a.3(a)(40)")
BUY = WagerType("buy", "Buy Bet", "623a.3(a)(41)")
LAY = WagerType("lay", "Lay Bet", "623a.3(a)(42)")
ODDS = WagerType("odds", "supplemental wager (odds)", "623a.6")
HOT_ROLLER = WagerType("hot_roller", "Hot Roller wager", "623b.1")
LUCKY_SHOOTER = WagerType("lucky_shooter", "Lucky Shooter wager", "623b.2")
ALL_SMALL = WagerType("all_small", "All Small wager", "623b.3")
ALL_TALL = WagerType("all_tall", "All Tall wager", "623b.3")
MAKE_EM_ALL = WagerType("make_em_all", "Make 'em All wager", "623b.3(b)")
HOT_SHOOTER = WagerType("hot_shooter", "Hot Shooter Jackpot wager", "623b.4")

LINE_BETS = (PASS, DONT_PASS, COME, DONT_COME)
# Wagers that win when the point (or come point) is made, and lose on a 7.
RIGHT_WAY = (PASS, COME)
BONUS_CRAPS = (ALL_SMALL, ALL_TALL, MAKE_EM_ALL)
# § 623a.3(a)(5)-(10), (41), (42): the wagers with an on/off marker for the come out roll.
CALLABLE = (PLACE, PLACE_LOSE, BUY, LAY, HARD)
# § 623a.6: the subsection for odds on each line bet ((a) Pass ... (d) Don't Come).
ODDS_SUBSECTION = {PASS: "a", DONT_PASS: "b", COME: "c", DONT_COME: "d"}
# Wagers decided by a run of throws, each of which counts toward the decision: once the
# first has been thrown they stay until decided (docs/regulations.md).
DECIDED_BY_A_RUN = (HOT_SHOOTER, LUCKY_SHOOTER)

HARDWAY_NUMBERS = (4, 6, 8, 10)
HORN_NUMBERS = (2, 3, 11, 12)
# § 623a.3(a)(22)-(38): the seventeen hops, each written low face first.
HOPS = (
    (2, 2),
    (3, 3),
    (4, 4),
    (5, 5),
    (1, 3),
    (1, 4),
    (2, 3),
    (1, 5),
    (2, 4),
    (1, 6),
    (2, 5),
    (3, 4),
    (2, 6),
    (3, 5),
    (3, 6),
    (4, 5),
    (4, 6),
)
_HOP_PARAGRAPH = {pair: 22 + i for i, pair in enumerate(HOPS)}
# The one-roll combinations that are their own wagers, not hops (§ 623a.3(a)(14)-(17)):
# a refused hop on one of them names the kind to use instead.
_OWN_WAGER = {
    (1, 1): ("craps_2", "Craps Two Bet"),
    (1, 2): ("craps_3", "Craps Three Bet"),
    (5, 6): ("eleven", "11 in One Roll Bet"),
    (6, 6): ("craps_12", "Craps Twelve Bet"),
}

_BY_KEY = {
    t.key: t
    for t in (
        PASS,
        DONT_PASS,
        COME,
        DONT_COME,
        FIELD,
        ANY_SEVEN,
        ANY_CRAPS,
        CRAPS_2,
        CRAPS_3,
        CRAPS_12,
        ELEVEN,
        C_AND_E,
        HORN,
        WHIRL,
        SIX_SEVEN_EIGHT,
        FIRE,
        ODDS,
        HOT_ROLLER,
        LUCKY_SHOOTER,
        ALL_SMALL,
        ALL_TALL,
        MAKE_EM_ALL,
        HOT_SHOOTER,
    )
}
_NUMBERED = {t.key: t for t in (PLACE, PLACE_LOSE, BUY, LAY, HARD, HORN_HIGH)}
_ALLOWED_NUMBERS = {
    PLACE: POINT_NUMBERS,
    PLACE_LOSE: POINT_NUMBERS,
    BUY: POINT_NUMBERS,
    LAY: POINT_NUMBERS,
    HARD: HARDWAY_NUMBERS,
    HORN_HIGH: HORN_NUMBERS,
}
_NUMBERED_KIND = re.compile(r"([a-z_]+):(0|[1-9][0-9]?)")
_HOP_KIND = re.compile(r"hop:([1-6])-([1-6])")


@dataclass(frozen=True)
class Bet:
    """Where a wager sits: its type, and the number (or hop faces) it names."""

    wager_type: WagerType
    number: int | None = None
    faces: tuple[int, int] | None = None

    # Cached: a bet is a frozen value, and the table reads these on every throw.
    @cached_property
    def kind(self) -> str:
        """The scenario kind, e.g. ``place:6`` or ``hop:1-3``."""
        if self.faces is not None:
            return f"hop:{self.faces[0]}-{self.faces[1]}"
        if self.number is not None:
            return f"{self.wager_type.key}:{self.number}"
        return self.wager_type.key

    @cached_property
    def section(self) -> str:
        """The paragraph of § 623a.3(a) (or ch. 623b) that defines this very wager."""
        if self.wager_type is HARD and self.number is not None:
            return f"623a.3(a)({6 + HARDWAY_NUMBERS.index(self.number) + 1})"
        if self.faces is not None:
            return f"623a.3(a)({_HOP_PARAGRAPH[self.faces]})"
        return self.wager_type.section


@lru_cache(maxsize=1024)  # a few hundred kinds exist; a refused kind is not cached
def bet_from_kind(kind: str) -> Bet:
    """The Bet a scenario kind names; RuleViolation for a wager the regulations do not have."""
    if kind in _BY_KEY:
        return Bet(_BY_KEY[kind])
    if match := _HOP_KIND.fullmatch(kind):
        low, high = int(match[1]), int(match[2])
        if low > high:
            raise RuleViolation(
                f"Write a hop lower face first: hop:{high}-{low}", cite("623a.3(a)(22)-(38)")
            )
        if (low, high) not in _HOP_PARAGRAPH:
            own = _OWN_WAGER.get((low, high))
            instead = f"; that throw is the {own[1]}, kind {own[0]}" if own else ""
            raise RuleViolation(
                f"There is no {low}-{high} on the Hop Bet; the hops are the hardways and the "
                f"two-face combinations of 4 through 10 (§ 623a.3(a)(22)-(38)){instead}",
                cite("623a.3(a)(22)-(38)"),
            )
        return Bet(HOP, faces=(low, high))
    if (match := _NUMBERED_KIND.fullmatch(kind)) and match[1] in _NUMBERED:
        wager_type, number = _NUMBERED[match[1]], int(match[2])
        allowed = _ALLOWED_NUMBERS[wager_type]
        if number not in allowed:
            numbers = ", ".join(str(n) for n in allowed)
            raise RuleViolation(
                f"A {wager_type.name} is made on {numbers}; not on {number}",
                cite(wager_type.section),
            )
        return Bet(wager_type, number=number)
    raise RuleViolation(f"Craps has no wager {kind!r}", cite("623a.3(a)"))


def every_bet() -> tuple[Bet, ...]:
    """Every wager a player can make, in the order of § 623a.3(a), then odds and ch. 623b."""
    return (
        *(Bet(t) for t in LINE_BETS),
        *(Bet(PLACE, number=n) for n in POINT_NUMBERS),
        *(Bet(PLACE_LOSE, number=n) for n in POINT_NUMBERS),
        *(Bet(BUY, number=n) for n in POINT_NUMBERS),
        *(Bet(LAY, number=n) for n in POINT_NUMBERS),
        *(Bet(HARD, number=n) for n in HARDWAY_NUMBERS),
        *(Bet(t) for t in (FIELD, ANY_SEVEN, ANY_CRAPS, CRAPS_2, CRAPS_3, CRAPS_12, ELEVEN)),
        Bet(C_AND_E),
        Bet(HORN),
        *(Bet(HORN_HIGH, number=n) for n in HORN_NUMBERS),
        Bet(WHIRL),
        *(Bet(HOP, faces=pair) for pair in HOPS),
        Bet(SIX_SEVEN_EIGHT),
        Bet(FIRE),
        Bet(HOT_ROLLER),
        Bet(LUCKY_SHOOTER),
        Bet(ALL_SMALL),
        Bet(ALL_TALL),
        Bet(MAKE_EM_ALL),
        Bet(HOT_SHOOTER),
    )
