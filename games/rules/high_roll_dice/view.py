"""The High Roll Dice table as an integrator draws it, and what it takes now: each player's
areas (Pip Street, the Like Kind Boulevard circles, Millionaire Row), who bought an Extra
Roll, and the first roll waiting for it (the dice in the throw box, those re-thrown).
Wagers close when the dice are thrown (§ 675a.2(a)); until the extra roll, nothing else is
taken (§ 675a.4(g)). The devices at the table are the floor's to add (gaming)."""

from typing import TYPE_CHECKING

from games.rules.core.offer import wager_summary
from games.rules.high_roll_dice.options import Options
from games.rules.high_roll_dice.settlement import bought_extra_roll
from games.rules.high_roll_dice.wagers import (
    EXTRA_ROLL,
    LIKE_KIND,
    MILLIONAIRE_ROW,
    NO_MATCH,
    PIP_STREET,
    Placed,
    every_kind,
)

if TYPE_CHECKING:  # the engine imports this module: the state's type only, for the hints
    from games.rules.high_roll_dice.engine import TableState

GAME = "high_roll_dice"


def wagers_closed(state: "TableState") -> bool:
    """No wager is taken once the first roll is thrown, until the round's extra roll."""
    return state.first_roll is not None


def state_summary(options: Options, state: "TableState") -> dict[str, object]:
    """Whether an extra roll is awaited, and the first roll it follows."""
    roll = state.first_roll
    first = None
    if roll is not None:
        first = {"face": roll.face, "count": roll.count, "rethrown": roll.rethrown}
    return {"game": GAME, "extra_roll_pending": roll is not None, "first_roll": first}


def state_view(options: Options, state: "TableState") -> dict[str, object]:
    """The dice, the payout limit, every player's areas and the Extra Roll."""
    if state.first_roll is None:
        riding = sorted(bought_extra_roll(state.wagers))
    else:  # the purchases are collected: the circles left working ride on the extra roll
        riding = sorted({p.wager.player for p in state.wagers})
    limit = options.payout_limit
    return {
        **state_summary(options, state),
        "dice": options.dice,
        "payout_limit": None if limit is None else f"{limit:.2f}",
        "extra_roll_players": riding,
        "positions": _positions(state.wagers),
        "wagers": [_wager(p) for p in state.wagers],
    }


def _position(placed: Placed) -> int | None:
    spot = placed.wager.extra.get("position")
    return spot if isinstance(spot, int) and not isinstance(spot, bool) else None


def _wager(placed: Placed) -> dict[str, object]:
    wager = placed.wager
    return {
        **wager_summary(wager.id, wager.player, placed.kind.text, wager.amount),
        "position": _position(placed),
    }


def _positions(wagers: tuple[Placed, ...]) -> list[dict[str, object]]:
    """Each player's areas, in the order the players first wagered."""
    players: dict[str, dict[str, object]] = {}
    for placed in wagers:
        seat = players.setdefault(
            placed.wager.player,
            {
                "player": placed.wager.player,
                "position": None,
                "pip_street": [],
                "like_kind": [],
                "no_match": False,
                "millionaire_row": [],
                "extra_roll": False,
            },
        )
        if seat["position"] is None:
            seat["position"] = _position(placed)
        area, number = placed.kind.area, placed.kind.number
        if area == PIP_STREET:
            seat["pip_street"].append(number)  # type: ignore[attr-defined]
        elif area == LIKE_KIND:
            seat["like_kind"].append(number)  # type: ignore[attr-defined]
        elif area == NO_MATCH:
            seat["no_match"] = True
        elif area == MILLIONAIRE_ROW:
            seat["millionaire_row"].append(number)  # type: ignore[attr-defined]
        elif area == EXTRA_ROLL:
            seat["extra_roll"] = True
    return list(players.values())


def kinds_now(options: Options, state: "TableState") -> tuple[str, ...]:
    """Every area of the variation while wagers are open (a Like Kind circle or an Extra
    Roll with the Pip Street Wager it needs, § 675a.2(e)); none once the dice are thrown."""
    if wagers_closed(state):
        return ()
    return tuple(kind.text for kind in every_kind(options.dice))


def events_now(options: Options, state: "TableState") -> tuple[str, ...]:
    """Wagers and the throw; after a first roll with an Extra Roll bought, the extra roll."""
    return ("extra_roll",) if wagers_closed(state) else ("wagers", "throw")
