"""The Pai Gow engine: the Engine protocol of games.rules.core.engine over table.py."""

from collections.abc import Mapping

from games.rules.core import MalformedInput, ParRecord, StepOutcome
from games.rules.core.offer import Offer
from games.rules.pai_gow import options as pai_gow_options
from games.rules.pai_gow import view
from games.rules.pai_gow.catalog import wager_catalog
from games.rules.pai_gow.options import PaiGowOptions
from games.rules.pai_gow.par import par_sheet
from games.rules.pai_gow.table import (
    KIND,
    PaiGowTable,
    bank_take,
    hands_reveal,
    hands_set,
    irregularity,
    tiles_deal,
    wagers_place,
    wagers_surrender,
)

EVENTS = ("wagers", "bank", "deal", "set", "surrender", "reveal", "irregularity")


class PaiGowEngine:
    """Pai Gow (tiles), 58 Pa. Code ch. 621a."""

    game = "pai_gow"
    kinds = (KIND,)

    def parse_options(self, raw: Mapping[str, object]) -> PaiGowOptions:
        """Rules Submission options with defaults; MalformedInput on unknown or bad ones."""
        return pai_gow_options.parse_options(raw)

    def describe_options(self, options: PaiGowOptions) -> dict[str, object]:
        """The options in force, defaults filled in, as JSON-ready values."""
        return pai_gow_options.describe_options(options)

    def new_state(self, options: PaiGowOptions) -> PaiGowTable:
        """A fresh table at the start of the game (§ 621a.9(b)): no bank yet."""
        return PaiGowTable()

    def step(
        self, options: PaiGowOptions, state: PaiGowTable, event: str, payload: object
    ) -> tuple[PaiGowTable, StepOutcome]:
        """Apply one event of EVENTS."""
        if event == "wagers":
            return wagers_place(options, state, payload)
        if event == "bank":
            return bank_take(options, state, payload)
        if event == "deal":
            return tiles_deal(options, state, payload)
        if event == "set":
            return hands_set(options, state, payload)
        if event == "surrender":
            return wagers_surrender(state, payload)
        if event == "reveal":
            return hands_reveal(options, state, payload)
        if event == "irregularity":
            return irregularity(options, state, payload)
        raise MalformedInput(event, f"is not a Pai Gow event; the events are {', '.join(EVENTS)}")

    def open_wagers(self, state: PaiGowTable) -> tuple[str, ...]:
        """Ids of the wagers of the round in play not yet decided, in the order placed."""
        decided = state.round.decided
        return tuple(w.id for w in state.round.wagers if w.id not in decided)

    def par_sheet(self, options: PaiGowOptions) -> tuple[ParRecord, ...]:
        """The exact win, tie and lose of a house-way player against the house way."""
        return par_sheet(options)

    def state_view(self, options: PaiGowOptions, state: PaiGowTable) -> dict[str, object]:
        """The bank, the deal, the dealer's hands and every hand's state."""
        return view.state_view(options, state)

    def state_summary(self, options: PaiGowOptions, state: PaiGowTable) -> dict[str, object]:
        """Who banks, whether the tiles are dealt, where the deal started."""
        return view.state_summary(options, state)

    def events_now(self, options: PaiGowOptions, state: PaiGowTable) -> tuple[str, ...]:
        """The events the table takes now."""
        return view.events_now(options, state)

    def kinds_now(self, options: PaiGowOptions, state: PaiGowTable) -> tuple[str, ...]:
        """The wager kinds the table takes now."""
        return view.kinds_now(options, state)

    def wager_catalog(self, options: PaiGowOptions) -> tuple[Offer, ...]:
        """Every wager the table offers under these options."""
        return wager_catalog(options)
