"""What every engine shares: money, errors, table limits, wagers, resolutions, PAR records."""

from games.rules.core.dice import DIE_FACES, die_face_refusal
from games.rules.core.errors import MalformedInput, RuleViolation
from games.rules.core.limits import TableLimits, parse_table_limits
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
    "DIE_FACES",
    "MalformedInput",
    "ParOutcome",
    "ParRecord",
    "Rejection",
    "Resolution",
    "RuleViolation",
    "StepOutcome",
    "TableLimits",
    "Wager",
    "cite",
    "die_face_refusal",
    "format_money",
    "parse_amount",
    "parse_table_limits",
    "round_down_to_cent",
    "round_up_to_quarter",
]
