"""Dice and tile sets: into play, changeouts, inspections and the schedule check."""

import logging
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.models import (
    EquipmentNotice,
    EquipmentSet,
    SetInPlay,
    Table,
    TileInspection,
)
from casino.models.notices import NOTICE_STATES
from casino.rules.equipment import (
    COMPOSITIONS,
    REASONS,
    REQUIRED_SETS,
    TILES,
    schedule_for,
    schedule_state,
)
from casino.services.errors import FloorRefused, by_actor, permission_check
from webhooks.events import EQUIPMENT_DUE_SOON, EQUIPMENT_OVERDUE, equipment_due_data
from webhooks.services import event_record

log = logging.getLogger(__name__)

# Dice are single-use (docs/regulations.md): out of play, they are retired. Tiles go back
# to the reserve after a scheduled changeout, to be inspected again (§ 621a.4(a)).
_TILES_BACK_TO_RESERVE = ("schedule", "table_reopened")


def sets_in_play(table: Table) -> dict[str, SetInPlay]:
    """The set of each composition in play at the table now."""
    rows = SetInPlay.objects.filter(table=table, removed_at__isnull=True).select_related(
        "equipment_set"
    )
    for row in rows:
        row.table = table  # the caller's table: set_limit reads it without a query
    return {row.composition: row for row in rows}


@by_actor
def set_put_in_play(
    table: Table, equipment_set: EquipmentSet, *, by: Any, now: datetime
) -> SetInPlay:
    """Put a set from the reserve into play where the table has none of its kind."""
    permission_check(by, "casino.record_changeout", "put a set in play")
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        equipment_set = EquipmentSet.objects.select_for_update().get(pk=equipment_set.pk)
        reasons = _put_in_play_refusals(table, equipment_set)
        current = sets_in_play(table).get(equipment_set.composition)
        if current is not None:
            reasons.append(
                f"{current.equipment_set} is already in play at {table.number}; "
                "record a changeout instead"
            )
        if reasons:
            raise FloorRefused("Put in play", reasons)
        return _start(table, equipment_set, by, now)


@by_actor
def set_changeout(
    table: Table,
    composition: str,
    *,
    reason: str,
    by: Any,
    now: datetime,
    new_set: EquipmentSet | None = None,
    note: str = "",
    set_in_play_id: int | None = None,
) -> SetInPlay | None:
    """Take the set of `composition` out of play, saying why, and put `new_set` in.

    Without a new set the table is left without one, and cannot start a round until one
    is put in play (a lost die, a set taken for inspection). With `set_in_play_id` (the
    schedule's row), refused unless that time in play is still the one to end: a form
    sent twice, or one a changeout overtook, never takes the new set out again.
    """
    permission_check(by, "casino.record_changeout", "record a changeout")
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        current = sets_in_play(table).get(composition)
        reasons = []
        if reason not in REASONS:
            reasons.append(f"unknown reason {reason!r}; the reasons are {', '.join(REASONS)}")
        if current is None:
            reasons.append(f"{table.number} has no {_label(composition)} in play to change")
        elif set_in_play_id is not None and current.pk != set_in_play_id:
            reasons.append(
                f"the set shown is no longer in play at {table.number}: {current.equipment_set} "
                f"is, since {timezone.localtime(current.put_in_play_at):%Y-%m-%d %H:%M}"
            )
        if new_set is not None:
            new_set = EquipmentSet.objects.select_for_update().get(pk=new_set.pk)
            reasons += _put_in_play_refusals(table, new_set)
            if new_set.composition != composition:
                reasons.append(f"{new_set} is not {_label(composition)}")
        if reasons:
            raise FloorRefused("Changeout", reasons)
        assert current is not None
        _end(current, reason, by, now, note)
        return _start(table, new_set, by, now) if new_set is not None else None


def _label(composition: str) -> str:
    return COMPOSITIONS[composition].label if composition in COMPOSITIONS else composition


def _put_in_play_refusals(table: Table, equipment_set: EquipmentSet) -> list[str]:
    reasons = []
    required = REQUIRED_SETS.get((table.game, table.variant), ())
    if equipment_set.composition not in required:
        wanted = " and ".join(COMPOSITIONS[c].label for c in required)
        reasons.append(
            f"{table.number} is played with {wanted}, not {equipment_set}"
            f" ({COMPOSITIONS[equipment_set.composition].cite})"
        )
    if equipment_set.holder_id != table.holder_id:
        reasons.append(f"{equipment_set} belongs to another certificate holder")
    if equipment_set.status != EquipmentSet.Status.RESERVE:
        reasons.append(
            f"{equipment_set} is {equipment_set.get_status_display().lower()}, not in reserve"
            + ("; dice once out of play are not used again" if equipment_set.kind != TILES
               and equipment_set.status == EquipmentSet.Status.RETIRED else "")
        )  # fmt: skip
    return reasons


def set_limit(row: SetInPlay) -> tuple[datetime, datetime, str]:
    """The set's due time, the start of its warning, and the limit with its section.

    The limit it went in under, unless the table's now is sooner: dice put in for a month
    in an automated Sic Bo shaker fall back to 24 hours once the table no longer has one
    (§ 625a.2(b)). The gate, the beat and the admin all ask here.
    """
    table = row.table
    return set_limit_of(
        game=table.game,
        automated_shaker=table.automated_shaker,
        composition=row.composition,
        locked_in_automated_shaker=row.locked_in_automated_shaker,
        meets_603a_12_c=row.equipment_set.meets_603a_12_c,
        put_in_play_at=row.put_in_play_at,
        due_at=row.due_at,
        warn_from=row.warn_from,
        limit=row.limit,
    )


def set_limit_of(
    *,
    game: str,
    automated_shaker: bool,
    composition: str,
    locked_in_automated_shaker: bool,
    meets_603a_12_c: bool,
    put_in_play_at: datetime,
    due_at: datetime,
    warn_from: datetime,
    limit: str,
) -> tuple[datetime, datetime, str]:
    """`set_limit` from the row's values (the floor snapshot reads values, not models)."""
    locked = locked_in_automated_shaker and automated_shaker
    schedule = schedule_for(game, composition, locked, meets_603a_12_c)
    due_now = schedule.due_at(put_in_play_at, timezone.get_default_timezone())
    if due_now < due_at:
        return due_now, due_now - schedule.warn_before, f"{schedule.label} ({schedule.cite})"
    return due_at, warn_from, limit


def _start(table: Table, equipment_set: EquipmentSet, by: Any, now: datetime) -> SetInPlay:
    locked = table.game == "sic_bo" and table.automated_shaker
    schedule = schedule_for(
        table.game, equipment_set.composition, locked, equipment_set.meets_603a_12_c
    )
    due_at = schedule.due_at(now, timezone.get_default_timezone())
    equipment_set.status = EquipmentSet.Status.IN_PLAY
    equipment_set.save()
    return SetInPlay.objects.create(
        equipment_set=equipment_set,
        table=table,
        composition=equipment_set.composition,
        put_in_play_at=now,
        put_in_play_by=by,
        locked_in_automated_shaker=locked,
        due_at=due_at,
        warn_from=due_at - schedule.warn_before,
        limit=f"{schedule.label} ({schedule.cite})",
        schedule_state=schedule_state(due_at, schedule.warn_before, now),
    )


def _end(row: SetInPlay, reason: str, by: Any, now: datetime, note: str) -> None:
    row.removed_at, row.removed_by = now, by
    row.removal_reason, row.removal_note = reason, note
    row.save()
    equipment_set = row.equipment_set
    if equipment_set.kind == TILES and reason in _TILES_BACK_TO_RESERVE:
        equipment_set.status = EquipmentSet.Status.RESERVE
    elif reason == "failed_inspection":
        equipment_set.status = EquipmentSet.Status.SEALED
    else:
        equipment_set.status = EquipmentSet.Status.RETIRED
    equipment_set.save()


@by_actor
def tile_inspection_record(
    set_in_play: SetInPlay,
    *,
    dealer_name: str,
    floorperson_name: str,
    all_pairs_present: bool,
    same_size_and_shading: bool,
    unflawed: bool,
    by: Any,
    now: datetime,
    envelope_signed_by_dealer: str = "",
    envelope_signed_by_floorperson: str = "",
    replacement: EquipmentSet | None = None,
) -> TileInspection:
    """The dealer's inspection of tiles received at the table, verified by the floorperson
    (§ 621a.4(a)). An unsuitable set goes into a sealed envelope identified by table number,
    date and time and signed by both (§ 621a.4(a)(3)(ii)); it leaves play, and the
    `replacement` brought from the reserve (§ 621a.4(a)(3)(i)) goes in."""
    permission_check(by, "casino.record_inspection", "record a tile inspection")
    with transaction.atomic():
        # Under the table's lock and read afresh: a second form for the same tiles must
        # not seal the replacement that came in after the first.
        Table.objects.select_for_update().get(pk=set_in_play.table_id)
        set_in_play = SetInPlay.objects.select_related("table", "equipment_set").get(
            pk=set_in_play.pk
        )
        return _tile_inspection(
            set_in_play,
            dealer_name=dealer_name,
            floorperson_name=floorperson_name,
            all_pairs_present=all_pairs_present,
            same_size_and_shading=same_size_and_shading,
            unflawed=unflawed,
            by=by,
            now=now,
            envelope_signed_by_dealer=envelope_signed_by_dealer,
            envelope_signed_by_floorperson=envelope_signed_by_floorperson,
            replacement=replacement,
        )


def _tile_inspection(
    set_in_play: SetInPlay,
    *,
    dealer_name: str,
    floorperson_name: str,
    all_pairs_present: bool,
    same_size_and_shading: bool,
    unflawed: bool,
    by: Any,
    now: datetime,
    envelope_signed_by_dealer: str,
    envelope_signed_by_floorperson: str,
    replacement: EquipmentSet | None,
) -> TileInspection:
    suitable = all_pairs_present and same_size_and_shading and unflawed
    reasons = []
    if set_in_play.equipment_set.kind != TILES:
        reasons.append(f"{set_in_play.equipment_set} is not a set of tiles")
    if set_in_play.removed_at is not None:
        reasons.append(f"{set_in_play} is no longer in play")
    if not dealer_name.strip() or not floorperson_name.strip():
        reasons.append("the dealer inspects and the floorperson verifies: name both (§ 621a.4(a))")
    elif dealer_name.strip() == floorperson_name.strip():
        reasons.append("the floorperson who verifies is not the dealer who inspected (§ 621a.4(a))")
    if not suitable and not (
        envelope_signed_by_dealer.strip() and envelope_signed_by_floorperson.strip()
    ):
        reasons.append(
            "an unsuitable set is sealed in an envelope signed by the dealer and the "
            "floorperson or above (58 Pa. Code § 621a.4(a)(3)(ii)): give both signatures"
        )
    if reasons:
        raise FloorRefused("Tile inspection", reasons)
    with transaction.atomic():
        inspection = TileInspection.objects.create(
            set_in_play=set_in_play,
            inspected_at=now,
            dealer_name=dealer_name.strip(),
            floorperson_name=floorperson_name.strip(),
            all_pairs_present=all_pairs_present,
            same_size_and_shading=same_size_and_shading,
            unflawed=unflawed,
            envelope_sealed_at=None if suitable else now,
            envelope_table_number="" if suitable else set_in_play.table.number,
            envelope_signed_by_dealer="" if suitable else envelope_signed_by_dealer.strip(),
            envelope_signed_by_floorperson=""
            if suitable
            else envelope_signed_by_floorperson.strip(),
            recorded_by=by,
        )
        if not suitable:
            set_changeout(
                set_in_play.table,
                set_in_play.composition,
                reason="failed_inspection",
                by=by,
                now=now,
                new_set=replacement,
                note="unsuitable at the inspection of § 621a.4(a); sealed in an envelope",
            )
        return inspection


def schedule_check(now: datetime) -> dict[str, int]:
    """Mark every set in play in date, due soon or overdue at `now` (the beat task).

    Only a change of state is saved (and audited), and told once: the row is locked and
    read again with the state it was read in and still in play, so a second check at the
    same time changes (and tells) nothing, nor does one that a changeout overtook (no
    "overdue" for a set already out of play). The gates never rely on this flag: they
    compute the state from `due_at` at the moment of the action.

    A set due soon or overdue also gets the compliance officers' notice of that state,
    once (`notice_record`; casino/services/notices.py emails it), even when its state was
    saved before notices existed.
    """
    counts = {"in_date": 0, "due_soon": 0, "overdue": 0, "changed": 0}
    rows = SetInPlay.objects.filter(removed_at__isnull=True).select_related(
        "table", "equipment_set"
    )
    noticed = set(
        EquipmentNotice.objects.filter(set_in_play__removed_at__isnull=True).values_list(
            "set_in_play_id", "state"
        )
    )
    for row in rows:
        limits = set_limit(row)
        due_at, warn_from, _ = limits
        state = schedule_state(due_at, due_at - warn_from, now)
        counts[state] += 1
        if state != row.schedule_state and _schedule_move(row, state, limits, now):
            counts["changed"] += 1
            if state == "overdue":
                log.warning(
                    "%s at %s was due out of play at %s (%s)",
                    row.equipment_set, row.table.number, row.due_at, row.limit,
                )  # fmt: skip
        if state in NOTICE_STATES and (row.pk, state) not in noticed:
            notice_record(row, state=state, due_at=due_at, now=now)
    return counts


def notice_record(
    row: SetInPlay, *, state: str, due_at: datetime, now: datetime
) -> EquipmentNotice | None:
    """The compliance officers' notice that `row` is `state` (due soon, overdue), to be
    emailed; None when the set has left play or the notice was written before (one per
    set and state: the unique constraint holds it when two checks run at once)."""
    with transaction.atomic():
        if (
            not SetInPlay.objects.select_for_update()
            .filter(pk=row.pk, removed_at__isnull=True)
            .exists()
        ):
            return None
        try:
            with transaction.atomic():  # a savepoint: a notice already written rolls back alone
                return EquipmentNotice.objects.create(
                    set_in_play=row, state=state, noticed_at=now, due_at=due_at
                )
        except IntegrityError:
            return None


# The schedule states a webhook tells (the way back to "in date" is a changeout, told by
# the table's records, not here).
SCHEDULE_EVENTS = {"due_soon": EQUIPMENT_DUE_SOON, "overdue": EQUIPMENT_OVERDUE}


def _schedule_move(
    row: SetInPlay, state: str, limits: tuple[datetime, datetime, str], now: datetime
) -> bool:
    """Save `state` and tell it, in one transaction, if the row is still in play in the
    state it was read in (locked: a conditional change); False when it was not."""
    with transaction.atomic():
        current = (
            SetInPlay.objects.select_for_update()
            .filter(pk=row.pk, schedule_state=row.schedule_state, removed_at__isnull=True)
            .first()
        )
        if current is None:
            return False
        current.schedule_state = state
        current.save(update_fields=["schedule_state"])  # audited (a queryset update is not)
        if state in SCHEDULE_EVENTS:
            _schedule_record(row, state, *limits, now)
    return True


def _schedule_record(
    row: SetInPlay, state: str, due_at: datetime, warn_from: datetime, limit: str, now: datetime
) -> None:
    """equipment.due_soon or equipment.overdue, written with the state's change."""
    data = equipment_due_data(
        set_in_play=row.pk,
        equipment_set=row.equipment_set_id,
        identifier=row.equipment_set.identifier,
        composition=row.composition,
        table=row.table_id,
        table_number=row.table.number,
        due_at=due_at,
        warn_from=warn_from,
        limit=limit,
    )
    event_record(SCHEDULE_EVENTS[state], table=row.table, data=data, now=now)
