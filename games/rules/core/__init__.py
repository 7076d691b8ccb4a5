"""What every engine shares: money, errors, wagers, resolutions, PAR records."""

from games.rules.core.errors import MalformedInput, RuleViolation
from games.rules.core.money import (
    format_money,
    parse_amount,
    round_down_to_cent,
    round_up_to_quarter,
)
from games.rules.core.results import (
    ParOutcome,
    ParRecord,
    Rejection,
    Resolution,
    StepOutcome,
    Wager,
    cite,
)

__all__ = [
    "MalformedInput",
    "ParOutcome",
    "ParRecord",
    "Rejection",
    "Resolution",
    "RuleViolation",
    "StepOutcome",
    "Wager",
    "cite",
    "format_money",
    "parse_amount",
    "round_down_to_cent",
    "round_up_to_quarter",
]
