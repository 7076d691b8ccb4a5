"""The Sic Bo table as an immutable value, and what each event does to it.

A round is ``wagers`` (one or more steps: each adds wagers to the layout) then a
``throw`` that decides every wager on the layout (§ 625a.4(c)), or a ``no_roll``
(§ 625a.7(a)) or ``shaker_malfunction`` (§ 625a.7(c)) that returns them all.
"""

from dataclasses import dataclass

from games.rules.core import (
    MalformedInput,
    Rejection,
    RuleViolation,
    StepOutcome,
    Wager,
    cite,
)
from games.rules.core.ids import NO_IDS, UsedIds
from games.rules.core.wagers import parse_dice, parse_wagers, take_wagers
from games.rules.sic_bo.options import SicBoOptions
from games.rules.sic_bo.settlement import return_wagers, settle_throw, throw_from_faces
from games.rules.sic_bo.wagers import PlacedWager, bet_from_kind, check_amount


@dataclass(frozen=True)
class SicBoTable:
    """The wagers on the layout, in the order placed, and every wager id ever taken; and
    `thrown`, the dice of the throw that decided the last layout: their winning combinations
    stay lit (§ 625a.5(d)) until the next wagers are placed, the combinations cleared first
    (§ 625a.5(f)). None: no throw since (or a no roll, a void)."""

    layout: tuple[PlacedWager, ...] = ()
    wager_ids: UsedIds = NO_IDS
    thrown: tuple[int, int, int] | None = None


def wagers_place(
    options: SicBoOptions, table: SicBoTable, payload: object
) -> tuple[SicBoTable, StepOutcome]:
    """Put wagers on the layout; each one the rules forbid is rejected, the rest are taken."""

    def admit(index: int, wager: Wager, taken: object) -> PlacedWager | Rejection:
        bet = bet_from_kind(wager.kind)
        check_amount(wager.amount)
        # Chapter 625a sets no wager amounts: the posted limits are the certificate
        # holder's own, so a refusal for them carries no 625a citation.
        limit_error = options.limits.refusal(wager.amount)
        if limit_error is not None:
            return Rejection(limit_error, wager.id)
        return PlacedWager(wager, bet)

    result = take_wagers(parse_wagers(payload, "wagers"), table.wager_ids, admit)
    # The next round's first wager: the last throw's combinations were cleared (§ 625a.5(f)).
    thrown = None if result.taken else table.thrown
    new_table = SicBoTable((*table.layout, *result.taken), result.used, thrown)
    return new_table, StepOutcome(accepted=result.accepted, rejected=result.rejected)


def dice_throw(table: SicBoTable, payload: object) -> tuple[SicBoTable, StepOutcome]:
    """The three dice entered into the electrical device settle every wager (§ 625a.5(d), (e))."""
    faces = parse_dice(payload, "throw")
    try:
        dice = throw_from_faces(faces)
    except RuleViolation as violation:
        # An impossible throw settles nothing: the wagers stay on the layout.
        return table, StepOutcome(rejected=(Rejection(violation.message, cite=violation.cite),))
    resolutions = settle_throw(table.layout, dice)
    summary = {"dice": list(dice), "total": sum(dice)}
    new_table = SicBoTable((), table.wager_ids, dice)
    return new_table, StepOutcome(resolutions=resolutions, extra=summary)


def no_roll(table: SicBoTable, payload: object) -> tuple[SicBoTable, StepOutcome]:
    """§ 625a.7(a): a die not flat on the bottom of the shaker; every wager is returned."""
    _require_true(payload, "no_roll")
    resolutions = return_wagers(table.layout, "625a.7(a)")
    return SicBoTable((), table.wager_ids), StepOutcome(resolutions=resolutions)


def shaker_malfunction(
    options: SicBoOptions, table: SicBoTable, payload: object
) -> tuple[SicBoTable, StepOutcome]:
    """§ 625a.7(c): the automated shaker fails when activated: void round, wagers returned."""
    _require_true(payload, "shaker_malfunction")
    if not shaker_can_malfunction(options):
        rejection = Rejection(
            "Only an automated Sic Bo shaker can void a round by malfunctioning; "
            "this table uses a manual shaker",
            cite=cite("625a.7(c)"),
        )
        return table, StepOutcome(rejected=(rejection,))
    resolutions = return_wagers(table.layout, "625a.7(c)")
    return SicBoTable((), table.wager_ids), StepOutcome(resolutions=resolutions)


def shaker_can_malfunction(options: SicBoOptions) -> bool:
    """Only an automated shaker voids a round by failing when activated (§ 625a.7(c))."""
    return options.shaker == "automated"


def _require_true(payload: object, field: str) -> None:
    if payload is not True:
        raise MalformedInput(field, "must be true")
