"""Dice and tile sets: what each table needs in play, and how long a set may stay there.

Every limit is the text's "more than 24 hours" or "at least every 12 hours": a set is
in date up to and including the moment its limit runs out, and overdue after it.
"""

import calendar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

DICE = "dice"
TILES = "tiles"
KINDS = (DICE, TILES)


@dataclass(frozen=True)
class Composition:
    """What one set holds, in the chapter's words."""

    key: str
    kind: str
    label: str
    cite: str


COMPOSITIONS: dict[str, Composition] = {
    c.key: c
    for c in (
        Composition("five_dice", DICE, "five dice", "58 Pa. Code § 623a.7(a)"),
        Composition(
            "four_green_two_red", DICE, "four green and two red dice", "58 Pa. Code § 661a.4(a)"
        ),
        Composition("ten_dice", DICE, "ten 19 mm dice", "58 Pa. Code § 675a.3(a)"),
        Composition("six_dice", DICE, "six 19 mm dice", "58 Pa. Code § 675a.6(e)"),
        Composition("three_dice", DICE, "three dice", "58 Pa. Code § 625a.2(a), § 621a.2(d)"),
        Composition("tiles_32", TILES, "32 Pai Gow tiles", "58 Pa. Code § 621a.3(a)"),
    )
}
# The choices of every field that names a composition (the model, the admin, the API),
# in one order: the schema's one CompositionEnum.
COMPOSITION_CHOICES: list[tuple[str, str]] = [(c.key, c.label) for c in COMPOSITIONS.values()]

# (game, variant) -> the compositions that must be in play at the table, one set each.
# A Pai Gow table always keeps its shaker and three dice (§ 621a.2(d)), even where a
# random number generator picks the starting position: the shaker is its fallback.
REQUIRED_SETS: dict[tuple[str, str], tuple[str, ...]] = {
    ("craps", "craps"): ("five_dice",),
    ("craps", "mini_craps"): ("five_dice",),
    ("three_dice_football", "standard"): ("four_green_two_red",),
    ("high_roll_dice", "10_dice"): ("ten_dice",),
    ("high_roll_dice", "6_dice"): ("six_dice",),
    ("sic_bo", "standard"): ("three_dice",),
    ("pai_gow", "standard"): ("three_dice", "tiles_32"),
}

# Games whose chapter asks for a new set of dice when the table reopens for gaming.
NEW_SET_ON_REOPENING: dict[str, str] = {
    "craps": "58 Pa. Code § 623a.7(d)",
    "three_dice_football": "58 Pa. Code § 661a.4(d)",
}


@dataclass(frozen=True)
class Schedule:
    """How long a set may stay in play, and when the floor is warned beforehand."""

    key: str
    label: str
    cite: str
    warn_before: timedelta
    hours: int | None = None  # None: one calendar month
    months: int = 0

    def due_at(self, put_in_play_at: datetime, local: tzinfo) -> datetime:
        """The last moment the set may be in play."""
        if self.hours is not None:
            # Real hours: in UTC, so a change of clocks neither adds nor takes an hour.
            return put_in_play_at.astimezone(UTC) + timedelta(hours=self.hours)
        return add_months(put_in_play_at.astimezone(local), self.months)


DICE_24_HOURS = {
    "craps": "58 Pa. Code § 623a.7(d)",
    "three_dice_football": "58 Pa. Code § 661a.4(d)",
    "high_roll_dice": "58 Pa. Code § 675a.3(b)(1)",
    "pai_gow": "58 Pa. Code § 621a.2(d)(1)",
    "sic_bo": "58 Pa. Code § 625a.2(b)",
}
TILES_12_HOURS = Schedule(
    "tiles_12h", "12 hours", "58 Pa. Code § 621a.3(b)", timedelta(hours=1), hours=12
)
SIC_BO_AUTOMATED_MONTH = Schedule(
    "automated_month", "1 month", "58 Pa. Code § 625a.2(b)", timedelta(days=2), months=1
)


def schedule_for(
    game: str, composition: str, locked_in_automated_shaker: bool, meets_603a_12_c: bool
) -> Schedule:
    """The limit that applies to a set of this composition in play at a table of `game`.

    Dice locked in an automated Sic Bo shaker get a month only if they also comply with
    § 603a.12(c); otherwise the 24 hours of a manual shaker apply (§ 625a.2(b)).
    """
    if COMPOSITIONS[composition].kind == TILES:
        return TILES_12_HOURS
    if game == "sic_bo" and locked_in_automated_shaker and meets_603a_12_c:
        return SIC_BO_AUTOMATED_MONTH
    return Schedule("dice_24h", "24 hours", DICE_24_HOURS[game], timedelta(hours=2), hours=24)


IN_DATE = "in_date"
DUE_SOON = "due_soon"
OVERDUE = "overdue"
STATES = (IN_DATE, DUE_SOON, OVERDUE)


def schedule_state(due_at: datetime, warn_before: timedelta, now: datetime) -> str:
    """In date, due soon (within the warning window) or overdue (past `due_at`)."""
    if now > due_at:
        return OVERDUE
    if now >= due_at - warn_before:
        return DUE_SOON
    return IN_DATE


def add_months(moment: datetime, months: int) -> datetime:
    """The same wall-clock time `months` calendar months later, on the month's last day
    when the day does not exist (31 January + 1 month = 28 or 29 February)."""
    month_index = moment.month - 1 + months
    year, month = moment.year + month_index // 12, month_index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    # zoneinfo works out the UTC offset in force on the new date (DST) by itself.
    return moment.replace(year=year, month=month, day=day)


@dataclass(frozen=True)
class Reason:
    """Why a set came out of play."""

    key: str
    label: str
    cite: str


REASONS: dict[str, Reason] = {
    r.key: r
    for r in (
        Reason("schedule", "scheduled changeout", "the set's time limit"),
        Reason(
            "table_reopened", "table reopened for gaming", "58 Pa. Code § 623a.7(d), § 661a.4(d)"
        ),
        Reason(
            "die_lost",
            "a die went off the table and was lost",
            "58 Pa. Code § 623a.7(d), § 661a.4(d)",
        ),
        Reason(
            "tampering", "signs of tampering or alteration", "58 Pa. Code § 623a.7(d), § 661a.4(d)"
        ),
        Reason(
            "damaged",
            "marked, chipped, scratched or no longer suitable for play",
            "58 Pa. Code § 623a.7(d), § 661a.4(d)",
        ),
        Reason("failed_inspection", "failed inspection", "58 Pa. Code § 621a.4(a)(3)"),
    )
}
