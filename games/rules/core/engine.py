"""The contract every game engine keeps, so one scenario runner and one PAR tool serve all."""

from collections.abc import Mapping
from typing import Any, Protocol

from games.rules.core.errors import MalformedInput
from games.rules.core.offer import Offer
from games.rules.core.results import ParRecord, StepOutcome


class Engine(Protocol):
    """A pure game engine. State and options are the engine's own frozen values.

    `step` never draws randomness: the dice, tiles or generator selections come in
    the event, so any round replays exactly. It raises MalformedInput for an event
    of the wrong form (field named relative to the step, e.g. ``throw[2]``) and
    reports what the rules forbid inside the StepOutcome.

    Every resolution ends its wager: a wager resolved by a step is not among
    `open_wagers` after it and is never resolved again. A wager that stays working
    after a throw (a Lucky Shooter's come out 7, a Place Bet off on a come out roll)
    has not been decided and gets no resolution. The floor keeps one Resolution per
    wager and the ledger moves its stake once; tests/rules/test_engine_contract.py
    plays random games of every engine to hold each engine to it.
    """

    game: str
    kinds: tuple[str, ...]  # every wager kind of the game under any options (the schema's enum)

    def parse_options(self, raw: Mapping[str, object]) -> Any:
        """Rules Submission options with defaults; MalformedInput on unknown or bad ones."""
        ...

    def describe_options(self, options: Any) -> dict[str, object]:
        """The options in force, defaults filled in, as JSON-ready values."""
        ...

    def new_state(self, options: Any) -> Any:
        """A fresh table: no wagers, nothing thrown."""
        ...

    def step(
        self, options: Any, state: Any, event: str, payload: object
    ) -> tuple[Any, StepOutcome]:
        """Apply one event (``wagers``, ``throw``, ...) and return the new state."""
        ...

    def open_wagers(self, state: Any) -> tuple[str, ...]:
        """Ids of the wagers still working, in the order they were placed."""
        ...

    # Optional: ``round_over(state) -> bool``, when a round can be unfinished with no wager
    # open (High Roll Dice's Extra Roll); the round flow asks it instead of open_wagers.
    # Optional: ``round_begin(options, state) -> state``, the table as the floor's next round
    # finds it when the end of a round changes it (Sic Bo clears the lit combinations,
    # § 625a.5(f)); the floor plays it between rounds (games/replay.py `round_begun`). The
    # scenario runner knows no rounds and never asks it.

    def par_sheet(self, options: Any) -> tuple[ParRecord, ...]:
        """Exact outcome probabilities of every wager kind under these options."""
        ...

    # What the table shows and takes now, for the API (docs/api.md, The table's state), built
    # from the very checks `step` makes, so a kind listed now is one it admits.

    def state_view(self, options: Any, state: Any) -> dict[str, object]:
        """The table as an integrator draws it, JSON-ready; its "game" names the shape."""
        ...

    def state_summary(self, options: Any, state: Any) -> dict[str, object]:
        """A few keys of `state_view` for the floor (the point, the shooter, the drive)."""
        ...

    def events_now(self, options: Any, state: Any) -> tuple[str, ...]:
        """The engine events `step` takes now (some payload of each is admitted)."""
        ...

    def kinds_now(self, options: Any, state: Any) -> tuple[str, ...]:
        """The concrete wager kinds some player could place now, in the catalog's order."""
        ...

    def wager_catalog(self, options: Any) -> tuple[Offer, ...]:
        """Every wager kind the table offers under these options, with its terms."""
        ...


def takes(engine: Engine, options: Any, state: Any, event: str, payload: object) -> bool:
    """Whether the engine takes this very event now: its step neither rejects it nor finds
    it malformed (the state is left as it was: engines never mutate it)."""
    try:
        _, outcome = engine.step(options, state, event, payload)
    except MalformedInput:
        return False
    return not outcome.rejected
