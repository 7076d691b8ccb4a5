"""The Sic Bo table as an integrator draws it, and what it takes now: the wagers on the
layout and whether the dice have been thrown (their winning combinations lit, § 625a.5(d)).
Every kind of § 625a.3 is taken until "no more bets" (the round flow's, § 625a.5(c))."""

from games.rules.core.offer import wager_summary
from games.rules.sic_bo.options import SicBoOptions
from games.rules.sic_bo.table import SicBoTable, shaker_can_malfunction
from games.rules.sic_bo.wagers import every_bet

GAME = "sic_bo"
KINDS = tuple(bet.kind for bet in every_bet())  # § 625a.3, every number


def state_summary(options: SicBoOptions, table: SicBoTable) -> dict[str, object]:
    """Whether the dice are thrown, and what they show."""
    thrown = table.thrown
    return {
        "game": GAME,
        "thrown": thrown is not None,
        "dice": None if thrown is None else list(thrown),
    }


def state_view(options: SicBoOptions, table: SicBoTable) -> dict[str, object]:
    """The shaker, the dice, and every wager on the layout."""
    return {
        **state_summary(options, table),
        "shaker": options.shaker,
        "wagers": [
            wager_summary(p.wager.id, p.wager.player, p.bet.kind, p.wager.amount)
            for p in table.layout
        ],
    }


def kinds_now(options: SicBoOptions, table: SicBoTable) -> tuple[str, ...]:
    """Every wager of § 625a.3, in its order: the engine takes each until the throw."""
    return tuple(bet.kind for bet in every_bet())


def events_now(options: SicBoOptions, table: SicBoTable) -> tuple[str, ...]:
    """Wagers, the throw, a no roll; a shaker malfunction only at an automated shaker."""
    events = ("wagers", "throw", "no_roll")
    return (*events, "shaker_malfunction") if shaker_can_malfunction(options) else events
