"""The Craps table as an immutable value, and what each event does to it.

The table knows the point (None: the next throw is a come out roll), which shooter has
the dice and whether that shooter has thrown, whether any throw has been made since the
last 7, the Power Odds selected for the next throw, and the wagers on the layout with
each one's progress. Every event returns a new table and a StepOutcome.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Any, NamedTuple

from games.rules.core import (
    MalformedInput,
    Rejection,
    Resolution,
    RuleViolation,
    StepOutcome,
    Wager,
    cite,
    die_face_refusal,
    format_money,
    parse_amount,
)
from games.rules.core.ids import NO_IDS, UsedIds
from games.rules.core.wagers import parse_dice, parse_wagers, take_wagers
from games.rules.craps import bets
from games.rules.craps.bets import Bet, bet_from_kind
from games.rules.craps.options import CrapsOptions
from games.rules.craps.paytables import POINT_NUMBERS, POWER_ODDS, Odds
from games.rules.craps.placement import (
    amount_check,
    odds_check,
    offered_check,
    removal_check,
    seat_check,
    timing_check,
    vigorish,
)
from games.rules.craps.settlement import (
    RULES,
    Decision,
    OddsProgress,
    Roll,
    initial_progress,
)

NO_POWER_ODDS: Mapping[str, Odds] = MappingProxyType({})
ZERO = Decimal("0.00")
VIG_CHARGED = (bets.BUY, bets.LAY)  # § 623a.5(g)(3): the wagers that pay a vigorish
# The wagers a player calls "on" or "off" (§ 623a.3(a)(5)-(10), (41), (42)) and odds (§ 623a.6).
CALLED_ON_OR_OFF = (*bets.CALLABLE, bets.ODDS)


class OnLayout(NamedTuple):
    """A wager on the layout: its current amount (after any reduction) and its progress.

    A NamedTuple, immutable like the table that holds it: a wagers event makes one per
    wager taken, and building one costs half a frozen dataclass's.
    """

    wager: Wager
    bet: Bet
    amount: Decimal
    progress: Any = None
    call: bool | None = None  # the player's "on" (True) or "off" (False) call, if any
    vig_paid: Decimal = ZERO  # a vigorish collected at placement (§ 623a.5(g)(3))
    on: str | None = None  # odds: the id of the bet they support
    seat: int | None = None  # Mini-Craps: the seat of the player

    def with_progress(self, progress: object) -> "OnLayout":
        """The same wager with its progress after a throw (what `_replace` does, cheaper)."""
        return OnLayout(
            self.wager,
            self.bet,
            self.amount,
            progress,
            self.call,
            self.vig_paid,
            self.on,
            self.seat,
        )


@dataclass(frozen=True, slots=True)
class CrapsTable:
    point: int | None = None
    shooter: int = 1
    shooter_has_come_out: bool = False  # the shooter has thrown a come out roll
    series_started: bool = False  # a throw has been made since the last 7
    # The selection for the next throw (§ 623b.5(c)), as (kind, odds) pairs: a tuple, so the
    # state pickles into the round's cache (a mapping proxy does not).
    power_odds: tuple[tuple[str, Odds], ...] | None = None
    layout: tuple[OnLayout, ...] = ()
    wager_ids: UsedIds = NO_IDS

    def summary(self) -> dict[str, object]:
        """The step keys every step carries: the point and the shooter after it."""
        return {"point": self.point, "shooter": self.shooter}


def closed_refusal(table: CrapsTable) -> RuleViolation | None:
    """§ 623b.5(c): once Power Odds are selected for the throw, no wager is made, taken down,
    reduced or called on or off before it."""
    if table.power_odds is None:
        return None
    return RuleViolation(
        "Wagers are closed: Power Odds have been selected for this throw", cite("623b.5(c)")
    )


def closed_check(table: CrapsTable) -> None:
    """RuleViolation when `closed_refusal` says wagers are closed."""
    refusal = closed_refusal(table)
    if refusal is not None:
        raise refusal


def is_working(entry: OnLayout, come_out: bool) -> bool:
    """Place, Place to Lose, Buy and Hardway bets are off on a come out roll unless called on;
    Lay Bets are on unless called off (§ 623a.3(a)(5)-(10), (41), (42)). Every other wager works
    (odds too: off, they are still decided with their bet, and returned: `odds_off`)."""
    if not come_out or entry.bet.wager_type not in bets.CALLABLE:
        return True
    if entry.bet.wager_type is bets.LAY:
        return entry.call is not False
    return entry.call is True


def odds_off(entry: OnLayout, come_out: bool, options: CrapsOptions) -> bool:
    """Odds the player has called off, or Come and Don't Come odds on a come out roll unless
    called on (or worked by the Rules Submission); a call stays until changed
    (docs/regulations.md, Craps 2-3)."""
    if entry.call is not None:
        return not entry.call
    if not come_out:
        return False
    line = entry.progress.line
    if line is bets.COME:
        return not options.come_odds_working_on_come_out
    if line is bets.DONT_COME:
        return not options.dont_come_odds_working_on_come_out
    return False


# --- wagers -------------------------------------------------------------------------------


def wagers_place(
    options: CrapsOptions, table: CrapsTable, payload: object
) -> tuple[CrapsTable, StepOutcome]:
    """Put wagers on the layout; each one the rules forbid is rejected, the rest are taken."""
    wagers = parse_wagers(payload, "wagers")
    for index, wager in enumerate(wagers):
        if wager.extra:
            _check_fields(wager, f"wagers[{index}]")

    def admit(index: int, wager: Wager, taken: Sequence[OnLayout]) -> OnLayout:
        return _admit(options, table, taken, wager, index)

    result = take_wagers(wagers, table.wager_ids, admit)
    new_table = CrapsTable(
        table.point,
        table.shooter,
        table.shooter_has_come_out,
        table.series_started,
        table.power_odds,
        (*table.layout, *result.taken),
        result.used,
    )
    outcome = StepOutcome(result.accepted, result.rejected, (), new_table.summary())
    return new_table, outcome


WAGER_FIELDS = ("on", "seat")  # beyond id, player, kind and amount


def _check_fields(wager: Wager, where: str) -> None:
    """The optional fields a Craps wager takes: `on` (odds only) and `seat` (a number)."""
    for name, value in wager.extra.items():
        if name not in WAGER_FIELDS:
            raise MalformedInput(
                f"{where}.{name}", "is not a Craps wager field; the optional fields are on, seat"
            )
        if name == "on" and wager.kind != "odds":
            raise MalformedInput(f"{where}.on", "only odds name the bet they support")
        if name == "seat" and (not isinstance(value, int) or isinstance(value, bool)):
            raise MalformedInput(f"{where}.seat", "must be a seat number (Mini-Craps: 1 to 9)")


def _admit(
    options: CrapsOptions,
    table: CrapsTable,
    taken: Sequence[OnLayout],
    wager: Wager,
    index: int,
) -> OnLayout:
    """The wager on the layout, or RuleViolation; `taken`: this event's wagers so far."""
    closed_check(table)
    bet = bet_from_kind(wager.kind)
    offered_check(bet, options)
    seat = None
    # The layout with this event's wagers, built only for the checks that read it.
    if options.variant == "mini_craps":
        layout = [*table.layout, *taken]
        seats = {e.seat: e.wager.player for e in layout if e.seat is not None}
        held = {player: seat for seat, player in seats.items()}
        seat = seat_check(wager.extra.get("seat"), wager.player, seats, held)  # type: ignore[arg-type]
    timing_check(bet, table.point, table.shooter_has_come_out, table.series_started)
    amount_check(bet, wager.amount, options)
    if bet.wager_type is bets.ODDS:
        layout = [*table.layout, *taken]
        return _admit_odds(options, layout, wager, bet, seat, f"wagers[{index}]")
    vig = ZERO
    if bet.wager_type in VIG_CHARGED and options.vig_collected == "on_placement":
        vig = vigorish(wager.amount, options)
    return OnLayout(wager, bet, wager.amount, initial_progress(bet), vig_paid=vig, seat=seat)


def _admit_odds(
    options: CrapsOptions,
    layout: list[OnLayout],
    wager: Wager,
    bet: Bet,
    seat: int | None,
    where: str,
) -> OnLayout:
    on = wager.extra.get("on")
    if not isinstance(on, str) or not on:
        raise MalformedInput(f"{where}.on", "odds name the id of the bet they support")
    line = next((e for e in layout if e.wager.id == on), None)
    if line is None or line.bet.wager_type not in bets.LINE_BETS:
        raise RuleViolation(
            f"Odds support a Pass, Don't Pass, Come or Don't Come Bet on the layout; "
            f"{on!r} is not one",
            cite("623a.6"),
        )
    if line.wager.player != wager.player:
        raise RuleViolation(
            f"Odds support the player's own bet; {on} is not theirs", cite("623a.6")
        )
    existing = (e.amount for e in layout if e.on == on)
    # § 623a.6(a)-(e): the limit is on the amount originally wagered, so reducing a don't
    # bet later (§ 623a.4(d)) neither breaks the odds already laid nor lowers the limit.
    odds_check(
        line.bet.wager_type,
        line.progress,
        line.wager.amount,
        (*existing, wager.amount),
        options.odds_multiple(line.progress),
    )
    progress = OddsProgress(line.bet.wager_type, line.progress)
    return OnLayout(wager, bet, wager.amount, progress, on=on, seat=seat)


# --- throw --------------------------------------------------------------------------------


def dice_throw(
    options: CrapsOptions, table: CrapsTable, payload: object
) -> tuple[CrapsTable, StepOutcome]:
    """A valid throw decides the wagers it decides (§ 623a.9(d)) and moves the game on."""
    faces = parse_dice(payload, "throw")
    refusal = (
        f"The shooter throws two dice; {len(faces)} were entered"
        if len(faces) != 2
        else die_face_refusal(faces)
    )
    if refusal:
        # An impossible throw decides nothing: the table is as it was.
        rejection = Rejection(refusal, cite=cite("623a.8(a)"))
        return table, StepOutcome(rejected=(rejection,), extra=table.summary())
    low, high = sorted(faces)
    roll = Roll(
        low, high, table.point, dict(table.power_odds) if table.power_odds else NO_POWER_ODDS
    )
    come_out = roll.come_out
    layout: list[OnLayout] = []
    resolutions: list[Resolution] = []
    for entry in table.layout:
        if come_out and not is_working(entry, come_out):  # off only on a come out roll
            layout.append(entry)
            continue
        bet = entry.bet
        decision, progress = RULES[bet.wager_type](bet, entry.progress, roll, options)  # decide
        if decision is None:
            layout.append(entry if progress is entry.progress else entry.with_progress(progress))
            continue
        if entry.bet.wager_type is bets.ODDS and odds_off(entry, come_out, options):
            # Decided with their bet while off: the odds are returned.
            resolutions.append(_odds_returned(entry))
            continue
        resolutions.append(_resolution(entry, decision, options))
    total = roll.total
    point = table.point
    if point is None:
        point = total if total in POINT_NUMBERS else None
    elif total in (point, 7):
        point = None
    seven_out = roll.seven_out
    new_table = CrapsTable(
        point=point,
        shooter=table.shooter + 1 if seven_out else table.shooter,
        # § 623a.10(a)(1): a loser 7 passes the dice to a new shooter.
        shooter_has_come_out=not seven_out and (table.shooter_has_come_out or come_out),
        series_started=total != 7,
        power_odds=None,  # § 623b.5(c): for that throw only
        layout=tuple(layout),
        wager_ids=table.wager_ids,
    )
    extra = {
        "dice": list(faces),
        "total": total,
        "come_out_roll": come_out,
        **new_table.summary(),
    }
    return new_table, StepOutcome((), (), tuple(resolutions), extra)


def _odds_returned(entry: OnLayout) -> Resolution:
    section = f"623a.6({bets.ODDS_SUBSECTION[entry.progress.line]})"
    return Resolution(entry.wager.id, "push", ZERO, cite(section), {"working": "false"})


def _resolution(entry: OnLayout, decision: Decision, options: CrapsOptions) -> Resolution:
    amount = entry.amount
    extra: dict[str, str] = {}
    if decision.odds is not None:
        extra["odds"] = decision.odds
    if decision.power_odds is not None:
        extra["power_odds"] = decision.power_odds
    vig = entry.vig_paid
    charged = entry.bet.wager_type in VIG_CHARGED
    if decision.result == "win":
        ratio = decision.ratio
        cents = int(amount * 100) * ratio.numerator // ratio.denominator
        net = Decimal(cents).scaleb(-2)
        if charged and options.vig_collected == "on_win":
            vig = vigorish(amount, options)
    elif decision.result == "lose":
        net = -amount
    else:
        net = ZERO  # a push returns the stake; a vigorish paid stays paid
    if vig:
        net -= vig
    if charged:
        extra["vig"] = format_money(vig)
    return Resolution(entry.wager.id, decision.result, net.quantize(ZERO), decision.cite, extra)


# --- remove, working, power_odds, pass_dice ---------------------------------------------


def wagers_remove(
    options: CrapsOptions, table: CrapsTable, payload: object
) -> tuple[CrapsTable, StepOutcome]:
    """Take wagers down, or reduce them (§ 623a.4(c), (d)); odds go down with their bet."""
    if not isinstance(payload, list):
        raise MalformedInput("remove", "must be a list of wager ids or {id, reduce_to} objects")
    if not payload:  # a call the dealer could not act on: refused, play goes on
        return _names_no_wager(table, "takes down")
    layout = {e.wager.id: e for e in table.layout}
    removed: list[str] = []
    reduced: list[dict[str, str]] = []
    rejected: list[Rejection] = []
    for index, item in enumerate(payload):
        wager_id, reduce_to = _removal_item(item, f"remove[{index}]")
        entry = layout.get(wager_id)
        if entry is None and wager_id in removed:
            continue  # odds named after their bet: already taken down with it
        try:
            if entry is None:
                raise RuleViolation(f"Wager {wager_id!r} is not on the layout", cite("623a.4(c)"))
            closed_check(table)
            removal_check(entry.bet, entry.progress)
            if reduce_to is None:
                removed += [wager_id, *(i for i, e in layout.items() if e.on == wager_id)]
                for gone in removed:
                    layout.pop(gone, None)
                continue
            layout[wager_id] = _reduced(options, entry, reduce_to)
            reduced.append({"wager": wager_id, "amount": format_money(reduce_to)})
        except RuleViolation as violation:
            rejected.append(Rejection(violation.message, wager_id, violation.cite))
    resolutions = tuple(_taken_down(e, options) for e in table.layout if e.wager.id in removed)
    new_table = replace(table, layout=tuple(layout.values()))
    extra: dict[str, object] = dict(new_table.summary())
    if reduced:
        extra["reduced"] = reduced
    return new_table, StepOutcome((), tuple(rejected), resolutions, extra)


def _taken_down(entry: OnLayout, options: CrapsOptions) -> Resolution:
    """A wager taken down: its stake returned (`void`). A vigorish collected at placement is
    returned too, or kept inside the net if the Rules Submission says so (§ 623a.5(g)(3);
    docs/regulations.md, Craps 7)."""
    section = cite(_removal_section(entry.bet))
    if not entry.vig_paid or options.vig_returned_on_removal:
        return Resolution(entry.wager.id, "void", ZERO, section)
    extra = {"vig": format_money(entry.vig_paid)}
    return Resolution(entry.wager.id, "void", -entry.vig_paid, section, extra)


def _removal_section(bet: Bet) -> str:
    return "623a.4(d)" if bet.wager_type in (bets.DONT_PASS, bets.DONT_COME) else "623a.4(c)"


def _removal_item(item: object, where: str) -> tuple[str, Decimal | None]:
    if isinstance(item, str) and item:
        return item, None
    if isinstance(item, dict) and set(item) == {"id", "reduce_to"}:
        if not isinstance(item["id"], str) or not item["id"]:
            raise MalformedInput(f"{where}.id", "must be a non-empty string")
        return item["id"], parse_amount(item["reduce_to"], f"{where}.reduce_to")
    raise MalformedInput(where, 'must be a wager id or {"id": ..., "reduce_to": "..."}')


def _reduced(options: CrapsOptions, entry: OnLayout, amount: Decimal) -> OnLayout:
    if not amount < entry.amount:
        raise RuleViolation(
            f"A wager may be reduced, not increased: it is ${format_money(entry.amount)}",
            cite(_removal_section(entry.bet)),
        )
    amount_check(entry.bet, amount, options)
    if not entry.vig_paid or not options.vig_returned_on_removal:
        return entry._replace(amount=amount)  # a vigorish kept stays what was collected
    # Returned: the vigorish on the part taken down, so what stays is that of the new amount.
    return entry._replace(amount=amount, vig_paid=vigorish(amount, options))


def _names_no_wager(table: CrapsTable, what: str) -> tuple[CrapsTable, StepOutcome]:
    rejection = Rejection(f"The call names no wager: it {what} nothing")
    return table, StepOutcome(rejected=(rejection,), extra=table.summary())


def wagers_working(table: CrapsTable, payload: object) -> tuple[CrapsTable, StepOutcome]:
    """Call Place, Buy, Lay and Hardway bets "on" or "off" for the come out roll, and odds on or
    off until called again."""
    if not isinstance(payload, dict) or not all(isinstance(v, bool) for v in payload.values()):
        raise MalformedInput("working", 'must map wager ids to true ("on") or false ("off")')
    if not payload:
        return _names_no_wager(table, "calls on or off")
    layout = {e.wager.id: e for e in table.layout}
    rejected: list[Rejection] = []
    for wager_id, on in payload.items():
        entry = layout.get(wager_id)
        if entry is None:
            rejected.append(Rejection(f"Wager {wager_id!r} is not on the layout", wager_id))
        elif (closed := closed_refusal(table)) is not None:
            rejected.append(Rejection(closed.message, wager_id, closed.cite))
        elif entry.bet.wager_type not in CALLED_ON_OR_OFF:
            rejected.append(
                Rejection(
                    "Only Place, Place to Lose, Buy, Lay and Hardway bets and odds are called "
                    "on or off",
                    wager_id,
                    cite(entry.bet.section),
                )
            )
        else:
            layout[wager_id] = entry._replace(call=on)
    new_table = replace(table, layout=tuple(layout.values()))
    return new_table, StepOutcome((), tuple(rejected), (), new_table.summary())


def power_odds_select(
    options: CrapsOptions, table: CrapsTable, payload: object
) -> tuple[CrapsTable, StepOutcome]:
    """§ 623b.5(c): the generator's selection, recorded before the dice are thrown."""
    if not isinstance(payload, dict) or not all(isinstance(v, str) for v in payload.values()):
        raise MalformedInput("power_odds", 'must map eligible wagers to odds such as "14 to 1"')
    try:
        selection = _power_selection(options, table, payload)
    except RuleViolation as violation:
        rejection = Rejection(violation.message, cite=violation.cite)
        return table, StepOutcome(rejected=(rejection,), extra=table.summary())
    new_table = replace(table, power_odds=tuple(selection.items()))
    extra = {**new_table.summary(), "power_odds": {k: v.text for k, v in selection.items()}}
    return new_table, StepOutcome(extra=extra)


def _power_selection(
    options: CrapsOptions, table: CrapsTable, payload: dict[str, str]
) -> dict[str, Odds]:
    if not options.power_odds:
        raise RuleViolation("This table does not offer Power Odds", cite("623b.5(a)"))
    if table.power_odds is not None:
        raise RuleViolation(
            "Power Odds have already been selected for this throw", cite("623b.5(c)")
        )
    selection: dict[str, Odds] = {}
    for key, text in payload.items():
        choices = POWER_ODDS.get(key)
        if choices is None:
            raise RuleViolation(f"{key!r} is not eligible for Power Odds", cite("623b.5(d)"))
        odds = next((o for o in choices if o.text == " ".join(text.split())), None)
        if odds is None:
            allowed = " or ".join(o.text for o in choices)
            raise RuleViolation(f"Power Odds for {key} are {allowed}", cite("623b.5(d)"))
        selection[key] = odds
    return selection


def dice_pass(table: CrapsTable, payload: object) -> tuple[CrapsTable, StepOutcome]:
    """§ 623a.10(a): the shooter gives up the dice; pending Fire Bets go on (§ 623a.11(a)(2))."""
    if payload is not True:
        raise MalformedInput("pass_dice", "must be true")
    new_table = replace(table, shooter=table.shooter + 1, shooter_has_come_out=False)
    return new_table, StepOutcome(extra=new_table.summary())
