"""The contract every game engine keeps, so one scenario runner and one PAR tool serve all."""

from collections.abc import Mapping
from typing import Any, Protocol

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

    def par_sheet(self, options: Any) -> tuple[ParRecord, ...]:
        """Exact outcome probabilities of every wager kind under these options."""
        ...
