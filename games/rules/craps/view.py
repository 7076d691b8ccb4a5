"""The Craps table as an integrator draws it, and what it takes now.

`state_view` is the layout: the point (the puck), the shooter, the come and don't come
points, every wager on the layout with its number, its odds, whether it works on the next
throw and what it may still do, and a Power Odds selection waiting for the throw.
`kinds_now` and `events_now` ask the very checks that admit a wager or an event
(placement.py, table.py), so they cannot disagree with them.
"""

from decimal import Decimal

from games.rules.core import RuleViolation, format_money
from games.rules.core.money import CENT
from games.rules.core.offer import wager_summary
from games.rules.craps import bets
from games.rules.craps.bets import Bet, every_bet
from games.rules.craps.options import CrapsOptions
from games.rules.craps.placement import (
    UNITS,
    amount_check,
    odds_check,
    offered_check,
    removal_check,
    timing_check,
)
from games.rules.craps.settlement import OddsProgress
from games.rules.craps.table import (
    CALLED_ON_OR_OFF,
    CrapsTable,
    OnLayout,
    closed_refusal,
    is_working,
    odds_off,
)

GAME = "craps"
ODDS_KIND = bets.ODDS.key
_LINE_KINDS = frozenset(t.key for t in bets.LINE_BETS)
_EVERY = tuple(bet.kind for bet in every_bet())
# Every kind under any options: the line bets, odds, then § 623a.3(a) and ch. 623b.
KINDS = (*_EVERY[: len(bets.LINE_BETS)], ODDS_KIND, *_EVERY[len(bets.LINE_BETS) :])


def state_summary(options: CrapsOptions, table: CrapsTable) -> dict[str, object]:
    """The puck and the dice: the point (None: the next throw is a come out roll), the shooter."""
    return {"game": GAME, "point": table.point, "shooter": table.shooter}


def state_view(options: CrapsOptions, table: CrapsTable) -> dict[str, object]:
    """The layout as the table shows it now (docs/api.md, The table's state)."""
    come_out = table.point is None
    closed = closed_refusal(table) is not None
    selection = table.power_odds
    return {
        **state_summary(options, table),
        "variant": options.variant,
        "come_out": come_out,
        "new_shooter": not table.shooter_has_come_out,
        "power_odds": None if selection is None else {k: v.text for k, v in selection},
        "come_points": _points(table, bets.COME),
        "dont_come_points": _points(table, bets.DONT_COME),
        "wagers": [_wager(options, table, entry, come_out, closed) for entry in table.layout],
    }


def _points(table: CrapsTable, line: bets.WagerType) -> list[int]:
    """The come points (or don't come points) on the layout, each once, in order."""
    return sorted({e.progress for e in table.layout if e.bet.wager_type is line and e.progress})


def _number(entry: OnLayout) -> int | None:
    """The number a wager stands on: a line bet's point, odds' point, a Place, Buy, Lay,
    Hardway or Horn High number."""
    if entry.bet.wager_type in bets.LINE_BETS:
        return entry.progress
    if isinstance(entry.progress, OddsProgress):
        return entry.progress.point
    return entry.bet.number


def _wager(
    options: CrapsOptions, table: CrapsTable, entry: OnLayout, come_out: bool, closed: bool
) -> dict[str, object]:
    odds = [e for e in table.layout if e.on == entry.wager.id]
    if entry.bet.wager_type is bets.ODDS:
        working = not odds_off(entry, come_out, options)
    else:
        working = is_working(entry, come_out)
    removable = not closed and _removable(entry)
    callable_ = not closed and entry.bet.wager_type in CALLED_ON_OR_OFF
    return {
        **wager_summary(entry.wager.id, entry.wager.player, entry.bet.kind, entry.amount),
        "number": _number(entry),
        "on": entry.on,
        "odds": format_money(sum((e.amount for e in odds), Decimal(0))) if odds else None,
        "working": working,
        "called": None if entry.call is None else ("on" if entry.call else "off"),
        "seat": entry.seat,
        "may": {
            "remove": removable,
            "reduce": removable and _reducible(options, entry),
            "add_odds": not closed and _odds_room(options, entry, odds),
            "call_on": callable_ and entry.call is not True,
            "call_off": callable_ and entry.call is not False,
        },
    }


def _removable(entry: OnLayout) -> bool:
    try:
        removal_check(entry.bet, entry.progress)
    except RuleViolation:
        return False
    return True


def _reducible(options: CrapsOptions, entry: OnLayout) -> bool:
    """Some smaller amount passes the amount check: the table minimum, a unit, a cent."""
    units = UNITS.get(entry.bet.wager_type)
    lowest = Decimal(units) if units else options.limits.minimum or CENT
    if lowest >= entry.amount:
        return False
    try:
        amount_check(entry.bet, lowest, options)
    except RuleViolation:
        return False
    return True


def _odds_room(options: CrapsOptions, entry: OnLayout, odds: list[OnLayout]) -> bool:
    """A line or come bet with its point set whose odds are below the limit (§ 623a.6)."""
    line_type = entry.bet.wager_type
    if line_type not in bets.LINE_BETS or entry.progress is None:
        return False
    try:
        odds_check(
            line_type,
            entry.progress,
            entry.wager.amount,
            (*(e.amount for e in odds), CENT),
            options.odds_multiple(entry.progress),
        )
    except RuleViolation:
        return False
    return True


def _admitted(options: CrapsOptions, table: CrapsTable, bet: Bet) -> bool:
    try:
        offered_check(bet, options)
        timing_check(bet, table.point, table.shooter_has_come_out, table.series_started)
    except RuleViolation:
        return False
    return True


def kinds_now(options: CrapsOptions, table: CrapsTable) -> tuple[str, ...]:
    """Every kind a player could have taken now, in the order of § 623a.3(a): offered under
    the options, at a moment its paragraph allows; odds while a line or come bet has room."""
    if closed_refusal(table) is not None:
        return ()
    kinds = [bet.kind for bet in every_bet() if _admitted(options, table, bet)]
    layout = table.layout
    if any(_odds_room(options, e, [o for o in layout if o.on == e.wager.id]) for e in layout):
        lines = sum(1 for kind in kinds if kind in _LINE_KINDS)
        kinds.insert(lines, ODDS_KIND)
    return tuple(kinds)


def events_now(options: CrapsOptions, table: CrapsTable) -> tuple[str, ...]:
    """The events the engine takes now (any payload aside): wagers and calls until Power
    Odds are selected; a take-down while a wager may come down; the selection once; a
    throw and the dice passed at any time."""
    events = []
    if closed_refusal(table) is None:
        events.append("wagers")
        if any(_removable(e) for e in table.layout):
            events.append("remove")
        if any(e.bet.wager_type in CALLED_ON_OR_OFF for e in table.layout):
            events.append("working")
        if options.power_odds:
            events.append("power_odds")
    events += ["pass_dice", "throw"]
    return tuple(events)
