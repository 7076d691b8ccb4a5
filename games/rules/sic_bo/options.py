"""Sic Bo options: the table's shaker and the wager limits posted at the table.

Chapter 625a has one paytable (§ 625a.6) and every table depicts all eight wagers
(§ 625a.1(b)), so nothing about the wagers is optional. What differs from table to
table is the shaker (manual, or automated under § 625a.1(d)(2)) and the posted limits.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from games.rules.core import MalformedInput, TableLimits, parse_table_limits
from games.rules.core.options import refuse_unknown_options

OPTION_NAMES = ("shaker", "min_wager", "max_wager")
SHAKERS = ("manual", "automated")  # § 625a.1(d)(1) and (2)


@dataclass(frozen=True)
class SicBoOptions:
    """The options in force; a limit of None means no posted limit."""

    shaker: str = "manual"
    limits: TableLimits = field(default_factory=TableLimits)


def parse_options(raw: Mapping[str, object]) -> SicBoOptions:
    """Options from a scenario (JSON values) or the PAR command line (strings)."""
    refuse_unknown_options(raw, OPTION_NAMES, "Sic Bo")
    shaker = raw.get("shaker", "manual")
    if shaker not in SHAKERS:
        raise MalformedInput("options.shaker", f"must be one of {', '.join(SHAKERS)}")
    return SicBoOptions(shaker=str(shaker), limits=parse_table_limits(raw))


def describe_options(options: SicBoOptions) -> dict[str, object]:
    """Every option with defaults filled in, JSON-ready (amounts as strings, null for none)."""
    return {"shaker": options.shaker, **options.limits.describe()}
