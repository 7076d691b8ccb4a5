"""What the regulations say about the electronics at a table, as data: the kinds of
device, the approval each kind needs, what each may report, which a table needs, and what
a round waits for from one and the ways out when it does not come (WAITS).

Pure Python, like games/rules: the services read it, nothing here touches the database.
"""

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from games import flow
from games.rules.core import cite
from games.rules.craps.paytables import POWER_ODDS as POWER_ODDS_PAYTABLE

BGLO = "tested and approved by the Bureau of Gaming Laboratory Operations (58 Pa. Code § 461a.4)"
EQUIPMENT = "approved as table game equipment (58 Pa. Code § 601a.10(a))"

# What a device may post into its table's round (devices/views.py, devices/reports.py).
DICE = "dice"  # the three dice of a Sic Bo round
NUMBER = "number"  # the Pai Gow starting position
SELECTION = "selection"  # the Power Odds selection, made before the throw
EXTRA_ROLL = "extra_roll"  # an Extra Roll purchased at the device's betting position
LOCK_OUT = "lock_out"  # the lock-out engaged at "no more bets"


@dataclass(frozen=True)
class Kind:
    """A kind of device: what it is, the section that puts it on the table, the approval
    it needs, the game it serves, whether it sits at a betting position, what it reports,
    and its heartbeat: one every `interval` seconds, stale after `missed` missed."""

    key: str
    label: str
    cite: str
    approval: str
    game: str
    per_position: bool = False
    reports: str = ""
    interval: int = 5
    missed: int = 3


KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        kind.key: kind
        for kind in (
            Kind(
                "extra_roll_device",
                "Extra Roll wagering device",
                cite("675a.1(c)(1)"),
                EQUIPMENT,
                "high_roll_dice",
                per_position=True,
                reports=EXTRA_ROLL,
            ),
            Kind(
                "extra_roll_lockout",
                "Extra Roll lock-out control",
                cite("675a.1(c)(2)"),
                EQUIPMENT,
                "high_roll_dice",
                reports=LOCK_OUT,
            ),
            Kind(
                "illumination_device",
                "Sic Bo illumination device",
                cite("625a.1(b)"),
                BGLO,
                "sic_bo",
                interval=2,
            ),
            Kind(
                "automated_shaker",
                "automated Sic Bo shaker",
                cite("625a.1(d)(2)"),
                BGLO,
                "sic_bo",
                reports=DICE,
                interval=2,
            ),
            Kind(
                "pai_gow_rng",
                "Pai Gow random number generator",
                cite("621a.2(e)"),
                BGLO,
                "pai_gow",
                reports=NUMBER,
            ),
            Kind(
                "power_odds_rng",
                "Power Odds random number generator",
                cite("623b.5(a)"),
                BGLO,
                "craps",
                reports=SELECTION,
            ),
            Kind(
                "electronic_table",
                "fully automated or hybrid Craps table system",
                f"{cite('623b.2(a)')}, § 623b.4(a)",
                BGLO,
                "craps",
            ),
        )
    }
)

# Statuses (the Device model's choices take these values).
REGISTERED = "registered"
ACTIVE = "active"
STALE = "stale"
FAULTED = "faulted"
OUT_OF_ORDER = "out_of_order"
RETIRED = "retired"
STATUSES = (REGISTERED, ACTIVE, STALE, FAULTED, OUT_OF_ORDER, RETIRED)
# The heartbeat watch moves these, and only these, between each other.
WATCHED = (REGISTERED, ACTIVE, STALE)


@dataclass(frozen=True)
class Need:
    """A device a table needs: its kind, the betting position it serves (or None for the
    table), the section that asks for it, whether the table may start a round without it,
    and whether marking it out of order lets the table play on without it."""

    kind: str
    position: int | None
    cite: str
    blocks_rounds: bool = True
    out_of_order_ok: bool = False

    def label(self) -> str:
        where = f" at betting position {self.position}" if self.position else ""
        return f"the {KINDS[self.kind].label}{where}"


def needs(
    game: str,
    variant: str,
    operation: str,
    automated_shaker: bool,
    seats: int,
    options: Mapping[str, object],
) -> tuple[Need, ...]:
    """The devices a table must have active to open (docs/regulations.md, "Devices")."""
    if game == "sic_bo":
        found = [Need("illumination_device", None, cite("625a.1(b)"))]
        if automated_shaker:
            # § 625a.7(d): a shaker covered and marked out of order lets the manual one play.
            found.append(Need("automated_shaker", None, cite("625a.7(d)"), out_of_order_ok=True))
        return tuple(found)
    if game == "high_roll_dice" and variant == "10_dice":
        # § 675a.1(c): the table "must have" the system; a device down later stops the
        # Extra Roll at its position (or the table's, for the lock-out), not the game.
        lockout = Need("extra_roll_lockout", None, cite("675a.1(c)(2)"), blocks_rounds=False)
        positions = (
            Need("extra_roll_device", n, cite("675a.1(c)(1)"), blocks_rounds=False)
            for n in range(1, seats + 1)
        )
        return (lockout, *positions)
    if game == "pai_gow" and rng_only(options):
        return (Need("pai_gow_rng", None, cite("621a.2(e)")),)
    if game == "craps":
        found = []
        if operation in ("hybrid", "electronic"):
            found.append(Need("electronic_table", None, KINDS["electronic_table"].cite))
        if power_odds_offered(options):
            # § 623b.5(c): the generator "shall be initiated" before every throw.
            found.append(Need("power_odds_rng", None, cite("623b.5(c)")))
        return tuple(found)
    return ()


# The options that put a device in charge of a round's step: (the engine's option, its value).
RNG_START = ("starting_position", "rng")  # Pai Gow, § 621a.6(a)(1)
POWER_ODDS = ("power_odds", True)  # Craps, § 623b.5(c): the table's options say bool
AUTOMATED_SHAKER = ("shaker", "automated")  # Sic Bo, § 625a.5(b)(2): fixed as the round opens


def option_is(options: Mapping[str, object], option: tuple[str, object]) -> bool:
    """Whether the options say `option` (a (name, value) pair such as RNG_START)."""
    name, value = option
    given = options.get(name)
    return type(given) is type(value) and given == value  # True, never 1


def rng_uses(options: Mapping[str, object]) -> bool:
    """Pai Gow: the Rules Submission has the generator give the starting position."""
    return option_is(options, RNG_START)


def uses_automated_shaker(options: Mapping[str, object]) -> bool:
    """Sic Bo: the round's dice are the automated shaker's (its options say so as it opens,
    devices/gates.py `round_shaker`)."""
    return option_is(options, AUTOMATED_SHAKER)


def power_odds_offered(options: Mapping[str, object]) -> bool:
    """Craps: the table offers Power Odds, so its generator selects before every throw."""
    return option_is(options, POWER_ODDS)


def rng_only(options: Mapping[str, object]) -> bool:
    """Pai Gow: the generator, with no shaker to fall back on when it is down."""
    return rng_uses(options) and not options.get("shaker_if_rng_down", False)


# --- What a round waits for from a device, and the ways out ----------------------------------

VOID = "void"  # POST .../void/ under the way's section
OUT_OF_ORDER = "out_of_order"  # the device marked out of order, then as the way's text says
WAYS = (VOID, OUT_OF_ORDER)


@dataclass(frozen=True)
class WayOut:
    """What the rules allow when the device does not report: `way` (VOID or OUT_OF_ORDER),
    the section it goes under (a void's is what void/ takes), what the operator does in
    words, and the Rules Submission option it needs, if any."""

    way: str
    section: str
    text: str
    option: str = ""


@dataclass(frozen=True)
class Wait:
    """Once "no more bets" is called, a round at a table of `game` whose options say `when`
    (an (option, value) pair, read in Python and in SQL alike) waits for its device of
    `kind` to report `report` (the report's field, devices/views.py): the `step` that
    `cite` gives the device, until one of the events `ends` is recorded. While the device's
    status is one of `dealer_when` (or none is in service), and the Rules Submission has the
    option `dealer_option` if one is named, the dealer takes the step instead (`dealer_step`,
    which devices/gates.py asks too): the round then waits on the dealer, not the device."""

    game: str
    kind: str
    report: str
    step: str
    cite: str
    ends: frozenset[str]
    when: tuple[str, object]
    ways_out: tuple[WayOut, ...]
    dealer_when: frozenset[str] = frozenset()
    dealer_option: str = ""

    @property
    def label(self) -> str:
        """The device's kind in words."""
        return KINDS[self.kind].label

    def applies(self, options: Mapping[str, object]) -> bool:
        """Whether a round with these options waits on the device after "no more bets"."""
        return option_is(options, self.when)


# One entry a device that gives a round its next step (docs/regulations.md, Devices).
WAITS: Mapping[str, Wait] = MappingProxyType(
    {
        wait.kind: wait
        for wait in (
            Wait(
                "pai_gow",
                "pai_gow_rng",
                NUMBER,
                "the starting number",
                cite("621a.6(a)(1)"),
                frozenset({"rng_number", "deal"}),
                RNG_START,
                (
                    WayOut(
                        VOID,
                        "621a.6(a)(1)",
                        "Void the round under § 621a.6(a)(1): no tile is dealt, so every "
                        "wager is returned.",
                    ),
                    WayOut(
                        OUT_OF_ORDER,
                        "621a.6(a)(2)",
                        "Mark the generator out of order, then deal from the Pai Gow "
                        "shaker's three dice (§ 621a.6(a)(2)), as the Rules Submission allows "
                        "while the generator is down.",
                        option="shaker_if_rng_down",
                    ),
                ),
                # § 621a.6(a)(2): the shaker while the generator is not working.
                dealer_when=frozenset({REGISTERED, STALE, FAULTED, OUT_OF_ORDER, RETIRED}),
                dealer_option="shaker_if_rng_down",
            ),
            Wait(
                "sic_bo",
                "automated_shaker",
                DICE,
                "the dice",
                cite("625a.5(c)"),
                flow.ENDS_ROUND["sic_bo"],
                AUTOMATED_SHAKER,
                (
                    WayOut(
                        VOID,
                        "625a.7(c)",
                        "Void the round under § 625a.7(c): the automated shaker failed to "
                        "operate, so every wager is returned.",
                    ),
                    WayOut(
                        OUT_OF_ORDER,
                        "625a.7(d)",
                        "Mark the automated shaker out of order: the round is void at once, "
                        "every wager returned (§ 625a.7(c)); with its dice removed and the "
                        "shaker covered or signed, the manual Sic Bo shaker throws the next "
                        "rounds (§ 625a.7(d)).",
                    ),
                ),
                # § 625a.7(d): the manual shaker once the automated one is out of order.
                dealer_when=frozenset({OUT_OF_ORDER, RETIRED}),
            ),
            Wait(
                "craps",
                "power_odds_rng",
                SELECTION,
                "the Power Odds selection",
                cite("623b.5(c)"),
                frozenset({"power_odds", "throw"}),
                POWER_ODDS,
                (
                    WayOut(
                        OUT_OF_ORDER,
                        "623b.5(c)",
                        "Mark the Power Odds generator out of order: this round's throw is then "
                        "taken without a selection and every wager is paid at the posted odds; "
                        "no round starts at the table until the generator works again "
                        "(§ 623b.5(c)).",
                    ),
                ),
                # The text gives no other way to select: only staff marking the generator
                # out of order lets the round end without one (docs/regulations.md, Devices).
                dealer_when=frozenset({OUT_OF_ORDER, RETIRED}),
            ),
        )
    }
)


WAIT_KINDS = tuple(WAITS)  # the kinds a round may wait on
WAIT_REPORTS = tuple(sorted({wait.report for wait in WAITS.values()}))


def round_wait(game: str, options: Mapping[str, object]) -> Wait | None:
    """What a round of `game` with these options waits for from a device after "no more
    bets", if any."""
    return next((w for w in WAITS.values() if w.game == game and w.applies(options)), None)


def dealer_step(wait: Wait, options: Mapping[str, object], device_status: str | None) -> bool:
    """Whether the rules hand the device's step to the dealer now (`device_status`: None
    when none is in service): the device is in one of `dealer_when`, and the Rules
    Submission has `dealer_option` if the wait names one (§ 621a.6(a)(2): the shaker while
    the generator is down; § 625a.7(d): the manual shaker once the automated one is out of
    order). The one answer the waits and the gates read."""
    allowed = not wait.dealer_option or bool(options.get(wait.dealer_option))
    return allowed and (device_status or RETIRED) in wait.dealer_when


def still_waiting(
    wait: Wait, options: Mapping[str, object], device_status: str | None, *, ended: bool
) -> bool:
    """Whether the round still waits on the device (`device_status`: None when none is in
    service): none of the wait's `ends` recorded (`ended`), and the step not the dealer's
    (then only the device, or a way out, moves the round)."""
    return not ended and not dealer_step(wait, options, device_status)


def ways_out(wait: Wait, options: Mapping[str, object]) -> tuple[WayOut, ...]:
    """The ways out the rules allow at this table (those needing an option it has)."""
    return tuple(w for w in wait.ways_out if not w.option or options.get(w.option))


def stale_after(kind: str, overrides: Mapping[str, object] | None = None) -> tuple[int, int]:
    """(interval, missed) for a kind, with the settings' override if there is one."""
    found = KINDS[kind]
    interval, missed = (overrides or {}).get(kind, (found.interval, found.missed))  # type: ignore[misc]
    return int(interval), int(missed)


def a(label: str) -> str:
    """ "an automated Sic Bo shaker", "a Pai Gow random number generator"."""
    return f"{'an' if label[0] in 'aeiouAEIOU' else 'a'} {label}"


def simulated_selection(rng: random.Random) -> dict[str, str]:
    """A stand-in Power Odds generator's selection, for the demo floor and the tests: how
    often a real one selects what is the approved device's (the text gives no frequencies,
    § 623b.5(c)). This one selects nothing one time in four, else one to three of the
    eligible wagers, each at one of the two odds § 623b.5(d) lists for it."""
    if rng.random() < 0.25:
        return {}
    chosen = rng.sample(sorted(POWER_ODDS_PAYTABLE), rng.randint(1, 3))
    return {kind: rng.choice(POWER_ODDS_PAYTABLE[kind]).text for kind in sorted(chosen)}
