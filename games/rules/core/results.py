"""Values the engines take and give: wagers, resolutions, rejections, PAR records."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

ResultName = Literal["win", "lose", "push", "void"]


def cite(section: str) -> str:
    """The citation every decision carries: ``cite("675a.4(f)(2)")``."""
    return f"58 Pa. Code § {section}"


@dataclass(frozen=True)
class Wager:
    """One wager as placed: `extra` holds game-specific fields (``on``, ``position``)."""

    id: str
    player: str
    kind: str
    amount: Decimal
    extra: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Resolution:
    """How a wager was decided.

    `net` is the wager's whole effect on the player, fees included, after any
    payout limit: winnings for a win, minus the stake for a loss, zero for a push.
    `extra` carries notes such as a payout-limit reduction, as strings.
    """

    wager: str
    result: ResultName
    net: Decimal
    cite: str
    extra: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Rejection:
    """A wager (`wager` set) or, with no wager, the step's event that the rules forbid now.

    The runner writes the step index of a rejected event; the engine does not know it.
    """

    error: str
    wager: str | None = None
    cite: str | None = None


@dataclass(frozen=True)
class StepOutcome:
    """What one event did: wagers accepted and rejected, wagers decided."""

    accepted: tuple[str, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    resolutions: tuple[Resolution, ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ParOutcome:
    """One outcome of a wager: its exact probability and net per unit wagered."""

    name: str
    probability: Fraction
    net: Fraction


@dataclass(frozen=True)
class ParRecord:
    """Every outcome of one wager kind; the house edge follows from them."""

    kind: str
    outcomes: tuple[ParOutcome, ...]

    @property
    def house_edge(self) -> Fraction:
        """Minus the expected net per unit wagered."""
        return -sum((o.probability * o.net for o in self.outcomes), Fraction(0))

    @property
    def total_probability(self) -> Fraction:
        """Sum of the outcomes' probabilities; exactly 1 for a complete record."""
        return sum((o.probability for o in self.outcomes), Fraction(0))
