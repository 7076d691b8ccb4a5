"""The Sic Bo engine: the Engine protocol of games.rules.core.engine over table.py."""

from collections.abc import Mapping
from dataclasses import replace

from games.rules.core import MalformedInput, ParRecord, StepOutcome
from games.rules.core.offer import Offer
from games.rules.sic_bo import options as sic_bo_options
from games.rules.sic_bo import view
from games.rules.sic_bo.catalog import wager_catalog
from games.rules.sic_bo.options import SicBoOptions
from games.rules.sic_bo.par import par_sheet
from games.rules.sic_bo.table import (
    SicBoTable,
    dice_throw,
    no_roll,
    shaker_malfunction,
    wagers_place,
)

EVENTS = ("wagers", "throw", "no_roll", "shaker_malfunction")


class SicBoEngine:
    """Sic Bo, 58 Pa. Code ch. 625a."""

    game = "sic_bo"
    kinds = view.KINDS

    def parse_options(self, raw: Mapping[str, object]) -> SicBoOptions:
        """Rules Submission options with defaults; MalformedInput on unknown or bad ones."""
        return sic_bo_options.parse_options(raw)

    def describe_options(self, options: SicBoOptions) -> dict[str, object]:
        """The options in force, defaults filled in, as JSON-ready values."""
        return sic_bo_options.describe_options(options)

    def new_state(self, options: SicBoOptions) -> SicBoTable:
        """A fresh table: nothing on the layout."""
        return SicBoTable()

    def step(
        self, options: SicBoOptions, state: SicBoTable, event: str, payload: object
    ) -> tuple[SicBoTable, StepOutcome]:
        """Apply one event: ``wagers``, ``throw``, ``no_roll`` or ``shaker_malfunction``."""
        if event == "wagers":
            return wagers_place(options, state, payload)
        if event == "throw":
            return dice_throw(state, payload)
        if event == "no_roll":
            return no_roll(state, payload)
        if event == "shaker_malfunction":
            return shaker_malfunction(options, state, payload)
        raise MalformedInput(event, f"is not a Sic Bo event; the events are {', '.join(EVENTS)}")

    def round_begin(self, options: SicBoOptions, state: SicBoTable) -> SicBoTable:
        """The table as the floor's next round finds it: once every wager is settled the
        dealer clears the lit combinations (§ 625a.5(f)), so no throw is shown."""
        return state if state.thrown is None else replace(state, thrown=None)

    def open_wagers(self, state: SicBoTable) -> tuple[str, ...]:
        """Ids of the wagers on the layout, in the order they were placed."""
        return tuple(placed.wager.id for placed in state.layout)

    def par_sheet(self, options: SicBoOptions) -> tuple[ParRecord, ...]:
        """Exact outcome probabilities of every Sic Bo wager."""
        return par_sheet(options)

    def state_view(self, options: SicBoOptions, state: SicBoTable) -> dict[str, object]:
        """The shaker, the dice thrown, the wagers on the layout."""
        return view.state_view(options, state)

    def state_summary(self, options: SicBoOptions, state: SicBoTable) -> dict[str, object]:
        """Whether the dice are thrown, and what they show."""
        return view.state_summary(options, state)

    def events_now(self, options: SicBoOptions, state: SicBoTable) -> tuple[str, ...]:
        """The events the table takes now."""
        return view.events_now(options, state)

    def kinds_now(self, options: SicBoOptions, state: SicBoTable) -> tuple[str, ...]:
        """The wager kinds the table takes now."""
        return view.kinds_now(options, state)

    def wager_catalog(self, options: SicBoOptions) -> tuple[Offer, ...]:
        """Every wager the table offers under these options."""
        return wager_catalog(options)
