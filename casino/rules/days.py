"""A day as a query names it, `?day=YYYY-MM-DD`: one rule, and one set of words when it is
refused, for the API and the admin (the hold pages, the compliance report).

The days the floor can have played: 2000-01-01 to 2999-12-31. A zone's old local mean
time (New York's -04:56:02 before 1883) is no offset an ISO 8601 date-time can write, and
9999-12-31 has no next day.
"""

import re
from collections.abc import Callable
from datetime import date

FIRST_DAY, LAST_DAY = date(2000, 1, 1), date(2999, 12, 31)
# YYYY-MM-DD only: Python's fromisoformat also reads 20261124 and 2026-W48-2. The schema's
# pattern says the same with the years 2000 to 2999 (the range is checked after).
DAY_PATTERN = r"^2[0-9]{3}-[0-9]{2}-[0-9]{2}$"
DAY_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class DayRefused(ValueError):
    """The text names no day the floor keeps; the message says why, naming `day`, and
    `why` says it without the name (an API error's `fields`)."""

    def __init__(self, why: str) -> None:
        super().__init__(f"day {why}")
        self.why = why

    def __reduce__(self) -> tuple:
        return (type(self), (self.why,))


def day_parse(text: str) -> date:
    """The day `text` writes; DayRefused in the words the API and the admin both answer."""
    try:
        day = date.fromisoformat(text) if DAY_TEXT.fullmatch(text) else None
    except ValueError:
        day = None
    if day is None:
        raise DayRefused(f"{text!r} is not a date such as 2026-11-24")
    if not FIRST_DAY <= day <= LAST_DAY:
        raise DayRefused(f"{text!r} is not between {FIRST_DAY} and {LAST_DAY}")
    return day


def day_or(text: str | None, default: Callable[[], date]) -> date:
    """The day `text` names (day_parse), or `default()` when the query names none."""
    return default() if text is None else day_parse(text)
