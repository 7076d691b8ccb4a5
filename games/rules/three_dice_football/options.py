"""Three Dice Football options: the table limits posted at the table.

Chapter 661a has one paytable (§ 661a.8) and authorizes every wager of § 661a.3, so
the only choices it leaves to the certificate holder are the posted minimum and
maximum wager. The chapter sets no limit itself, so each defaults to none.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from games.rules.core import TableLimits, parse_table_limits
from games.rules.core.options import refuse_unknown_options

OPTION_NAMES = ("min_wager", "max_wager")


@dataclass(frozen=True)
class FootballOptions:
    """The options in force: the posted table limits, None meaning no posted limit."""

    limits: TableLimits = field(default_factory=TableLimits)


def parse_options(raw: Mapping[str, object]) -> FootballOptions:
    """Options from a scenario (JSON values) or the PAR command line (strings)."""
    refuse_unknown_options(raw, OPTION_NAMES, "Three Dice Football")
    return FootballOptions(limits=parse_table_limits(raw))


def describe_options(options: FootballOptions) -> dict[str, object]:
    """Every option with defaults filled in, JSON-ready (amounts as strings, null for none)."""
    return dict(options.limits.describe())
