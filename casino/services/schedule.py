"""The equipment schedule: every set in play on the floor, by when it must come out, and
the reserve sets on hand per kind (issue 35, item 1).

One read for the admin's page, its CSV and printable view, and the API's
/api/v1/equipment-schedule/. The due time and limit are `set_limit`'s (the gate's own),
the state is computed afresh at `now` (never the beat's flag), so the schedule says what
the gate would say.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count

from casino.models import EquipmentSet, SetInPlay, Table
from casino.rules.equipment import (
    COMPOSITIONS,
    DUE_SOON,
    IN_DATE,
    OVERDUE,
    REQUIRED_SETS,
    schedule_state,
)
from casino.services.equipment import set_limit

# Overdue first, then due soon, then in date; within each, the soonest due first. A set
# with a month's limit may be due soon while dice with 24 hours are still in date: the
# state decides before the time.
STATE_ORDER = {OVERDUE: 0, DUE_SOON: 1, IN_DATE: 2}


@dataclass(frozen=True)
class ScheduleRow:
    """One set in play, as the schedule shows it."""

    set_in_play: SetInPlay
    due_at: datetime
    warn_from: datetime
    rule: str  # "24 hours"
    section: str  # "58 Pa. Code § 623a.7(d)"
    state: str  # in_date, due_soon, overdue at `now`

    @property
    def table(self) -> Table:
        return self.set_in_play.table

    @property
    def equipment_set(self) -> EquipmentSet:
        return self.set_in_play.equipment_set

    @property
    def composition(self) -> str:
        return self.set_in_play.composition

    @property
    def kind(self) -> str:
        """The composition's label: "five dice", "32 Pai Gow tiles"."""
        return COMPOSITIONS[self.composition].label

    @property
    def put_in_play_by(self) -> str:
        user = self.set_in_play.put_in_play_by
        return user.get_username() if user is not None else ""


@dataclass(frozen=True)
class ReserveCount:
    """A certificate holder's sets of one composition: on hand in the reserve, in play,
    and how many of its tables play with that composition."""

    holder_id: int
    holder: str
    composition: str
    kind: str
    in_reserve: int
    in_play: int
    tables: int


def limit_parts(limit: str) -> tuple[str, str]:
    """A stored limit, "24 hours (58 Pa. Code § 623a.7(d))", as its rule and section (the
    form casino.services.equipment writes); the whole text as the rule if it has none."""
    rule, sep, rest = limit.partition(" (")
    if not sep or not rest.endswith(")"):
        return limit, ""
    return rule, rest[:-1]


def equipment_schedule(now: datetime, *, holder_id: int | None = None) -> list[ScheduleRow]:
    """Every set in play now (at one holder's tables, default every holder's), overdue and
    due soon first, each by when it must come out."""
    rows = SetInPlay.objects.filter(removed_at__isnull=True).select_related(
        "table", "table__holder", "equipment_set", "put_in_play_by"
    )
    if holder_id is not None:
        rows = rows.filter(table__holder=holder_id)
    schedule = []
    for row in rows:
        due_at, warn_from, limit = set_limit(row)
        rule, section = limit_parts(limit)
        state = schedule_state(due_at, due_at - warn_from, now)
        schedule.append(ScheduleRow(row, due_at, warn_from, rule, section, state))
    schedule.sort(
        key=lambda r: (STATE_ORDER[r.state], r.due_at, r.table.number, r.composition, r.table.pk)
    )
    return schedule


def reserve_on_hand(*, holder_id: int | None = None) -> list[ReserveCount]:
    """Per holder and composition its tables play with (or it keeps sets of): the sets
    in the reserve and in play. A kind a table needs with none in reserve shows 0."""
    sets = EquipmentSet.objects.filter(
        status__in=[EquipmentSet.Status.RESERVE, EquipmentSet.Status.IN_PLAY]
    )
    tables = Table.objects.all()
    if holder_id is not None:
        sets, tables = sets.filter(holder=holder_id), tables.filter(holder=holder_id)
    counts: dict[tuple[int, str], dict[str, int]] = {}
    names: dict[int, str] = {}
    for holder_id, name, composition, status, n in (
        sets.values_list("holder", "holder__name", "composition", "status")
        .annotate(n=Count("pk"))
        .order_by()
    ):
        names[holder_id] = name
        counts.setdefault((holder_id, composition), {})[status] = n
    needed: dict[tuple[int, str], int] = {}
    for holder_id, name, game, variant in tables.values_list(
        "holder", "holder__name", "game", "variant"
    ):
        names[holder_id] = name
        for composition in REQUIRED_SETS.get((game, variant), ()):
            needed[(holder_id, composition)] = needed.get((holder_id, composition), 0) + 1
    order = list(COMPOSITIONS)
    keys = sorted(set(counts) | set(needed), key=lambda k: (names[k[0]], k[0], order.index(k[1])))
    return [
        ReserveCount(
            holder_id=holder_id,
            holder=names[holder_id],
            composition=composition,
            kind=COMPOSITIONS[composition].label,
            in_reserve=counts.get((holder_id, composition), {}).get(EquipmentSet.Status.RESERVE, 0),
            in_play=counts.get((holder_id, composition), {}).get(EquipmentSet.Status.IN_PLAY, 0),
            tables=needed.get((holder_id, composition), 0),
        )
        for holder_id, composition in keys
    ]
