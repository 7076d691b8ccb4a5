"""The Craps engine: the Engine protocol of games.rules.core.engine over table.py."""

from collections.abc import Mapping

from games.rules.core import MalformedInput, ParRecord, StepOutcome
from games.rules.core.offer import Offer
from games.rules.craps import options as craps_options
from games.rules.craps import view
from games.rules.craps.catalog import wager_catalog
from games.rules.craps.options import CrapsOptions
from games.rules.craps.par import par_sheet
from games.rules.craps.table import (
    CrapsTable,
    dice_pass,
    dice_throw,
    power_odds_select,
    wagers_place,
    wagers_remove,
    wagers_working,
)

EVENTS = ("wagers", "throw", "remove", "working", "power_odds", "pass_dice")


class CrapsEngine:
    """Craps and Mini-Craps, 58 Pa. Code ch. 623a, with the side wagers of ch. 623b."""

    game = "craps"
    kinds = view.KINDS

    def parse_options(self, raw: Mapping[str, object]) -> CrapsOptions:
        """Rules Submission options with defaults; MalformedInput on unknown or bad ones."""
        return craps_options.parse_options(raw)

    def describe_options(self, options: CrapsOptions) -> dict[str, object]:
        """The options in force, defaults filled in, as JSON-ready values."""
        return craps_options.describe_options(options)

    def new_state(self, options: CrapsOptions) -> CrapsTable:
        """A table opening: the first shooter, a come out roll next, nothing on the layout."""
        return CrapsTable()

    def step(
        self, options: CrapsOptions, state: CrapsTable, event: str, payload: object
    ) -> tuple[CrapsTable, StepOutcome]:
        """Apply one event: wagers, throw, remove, working, power_odds or pass_dice."""
        if event == "wagers":
            return wagers_place(options, state, payload)
        if event == "throw":
            return dice_throw(options, state, payload)
        if event == "remove":
            return wagers_remove(options, state, payload)
        if event == "working":
            return wagers_working(state, payload)
        if event == "power_odds":
            return power_odds_select(options, state, payload)
        if event == "pass_dice":
            return dice_pass(state, payload)
        raise MalformedInput(event, f"is not a Craps event; the events are {', '.join(EVENTS)}")

    def open_wagers(self, state: CrapsTable) -> tuple[str, ...]:
        """Ids of the wagers on the layout, in the order they were placed."""
        return tuple(entry.wager.id for entry in state.layout)

    def par_sheet(self, options: CrapsOptions) -> tuple[ParRecord, ...]:
        """Exact outcome probabilities of every Craps wager under these options."""
        return par_sheet(options)

    def state_view(self, options: CrapsOptions, state: CrapsTable) -> dict[str, object]:
        """The layout: the point, the shooter, come points, every wager and what it may do."""
        return view.state_view(options, state)

    def state_summary(self, options: CrapsOptions, state: CrapsTable) -> dict[str, object]:
        """The point and the shooter."""
        return view.state_summary(options, state)

    def events_now(self, options: CrapsOptions, state: CrapsTable) -> tuple[str, ...]:
        """The events the table takes now."""
        return view.events_now(options, state)

    def kinds_now(self, options: CrapsOptions, state: CrapsTable) -> tuple[str, ...]:
        """The wager kinds the table takes now."""
        return view.kinds_now(options, state)

    def wager_catalog(self, options: CrapsOptions) -> tuple[Offer, ...]:
        """Every wager the table offers under these options."""
        return wager_catalog(options)
