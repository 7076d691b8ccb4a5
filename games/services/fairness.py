"""Dice fairness per set: every die read at the set's table while it was in play, counted
by face, and Pearson's chi-square test against fair dice (docs/statistics.md, "Dice
fairness").

A set in play (casino's SetInPlay) saw every throw recorded at its table from
`put_in_play_at` up to, not including, `removed_at` (a changeout at 20:00 hands a throw
at 20:00 to the new set). The throws are the RoundEvents the engines accepted (a refused
event is never recorded), of any round status: a voided round's dice were still thrown.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import product

from django.db.models import Q

from casino.models import EquipmentSet, SetInPlay
from casino.models.statistics import DEFAULT_FAIRNESS_P
from casino.rules.equipment import DICE, REASONS
from casino.services.statistics import thresholds_for
from games.models import RoundEvent
from games.statistics import chi_square

# The holder's p-value threshold until issue 23's thresholds model reaches this branch:
# the ONE place the merge replaces with casino.services.thresholds_for(holder). 0.001: a
# fair set is flagged about once in a thousand tests, and a die loaded as P(6) = 1/4 still
# within a few hundred throws (docs/statistics.md).

FACES = 6
# Pearson's statistic is near enough chi-square only when every expected count is 5 or
# more (Cochran's rule): 30 dice read for a six-faced test, 5 a face.
MIN_EXPECTED = 5

# The events that read dice, per game (each engine's payload; docs/scenarios.md).
DICE_EVENTS = ("throw", "extra_roll", "deal")
ALL_DICE = "all dice"
GREEN = "green dice"
RED = "red dice"

# Pai Gow: the count (the dice total or the generator's number) lands on one of the eight
# places counted from number one (§ 621a.6(c)): place = (count - 1) mod 8.
PLACES = 8
SHAKER = "shaker"
GENERATOR = "generator"

# The reason a changeout after an alert most likely records; the inspection decides.
PULL_REASON = REASONS["tampering"]


@dataclass(frozen=True)
class FaceCounts:
    """The faces 1 to 6 counted over some dice, tested against fair dice."""

    label: str  # "all dice", or the dice the game tells apart ("green dice", "red dice")
    counts: tuple[int, ...]  # faces 1 to 6
    dice: int
    expected: Decimal  # dice / 6, a face
    chi_square: Decimal | None  # None when no die was read
    degrees_of_freedom: int
    p_value: Decimal | None
    valid: bool  # every expected count >= MIN_EXPECTED: the test means something


@dataclass(frozen=True)
class StartingPlaces:
    """Pai Gow: where the deals' counts landed, 1 to 8 counted from number one (the dealer,
    or the bank's position), against where fair dice or a fair generator land them."""

    source: str  # "shaker" (the set's three dice) or "generator" (the table's generator)
    deals: int
    counts: tuple[int, ...]  # places 1 to 8
    expected: tuple[Decimal, ...]
    chi_square: Decimal | None
    degrees_of_freedom: int
    p_value: Decimal | None
    valid: bool
    alert: bool  # the generator's only: the shaker's places follow from faces tested above


@dataclass(frozen=True)
class Fairness:
    """One dice set's fairness over every throw it saw."""

    set_id: int
    identifier: str
    composition: str
    table_number: str | None  # where it is in play now, else where it was last
    in_play_from: datetime | None
    in_play_to: datetime | None  # None while in play
    throws: int  # throws recorded (a first throw and its extra roll are two; a deal one)
    dice: int  # dice read
    overall: FaceCounts
    positions: list[FaceCounts]  # the dice the game tells apart (Three Dice Football's colours)
    starting_places: list[StartingPlaces] = field(default_factory=list)
    threshold: Decimal = DEFAULT_FAIRNESS_P
    alert: bool = False  # overall p-value < threshold, with a valid test
    advice: str = ""  # what to do when alert is set


class NotDice(ValueError):
    """A set of tiles has no faces to count."""


def set_fairness(equipment_set: EquipmentSet) -> Fairness:
    """The set's fairness over every throw recorded while it was in play (three queries:
    its stretches, their throws, its holder's thresholds)."""
    if equipment_set.kind != DICE:
        raise NotDice(f"{equipment_set} is a set of tiles: only dice have faces to count")
    stretches = list(SetInPlay.objects.filter(equipment_set=equipment_set).select_related("table"))
    return _fairness(equipment_set, stretches, _events(stretches), _p_threshold(equipment_set))


def floor_fairness(*, holder_id: int | None = None) -> list[Fairness]:
    """Every dice set in play now (of one certificate holder, or all), by table number:
    two queries, and one a holder for its threshold."""
    # Every stretch of every set that is in play now (dice are single-use, retired when
    # they leave play, but a set's earlier stretches would count too).
    rows = SetInPlay.objects.filter(equipment_set__times_in_play__removed_at__isnull=True)
    if holder_id is not None:
        rows = rows.filter(equipment_set__holder_id=holder_id)
    every = list(
        rows.select_related("table", "equipment_set").order_by(
            "table__number", "composition", "put_in_play_at"
        )
    )
    every = [row for row in every if row.equipment_set.kind == DICE]
    by_set: dict[int, list[SetInPlay]] = {}
    for row in every:
        by_set.setdefault(row.equipment_set_id, []).append(row)
    events = _events(every)
    thresholds: dict[int, Decimal] = {}
    result = []
    for current in (row for row in every if row.removed_at is None):
        equipment_set = current.equipment_set
        if equipment_set.holder_id not in thresholds:
            thresholds[equipment_set.holder_id] = _p_threshold(equipment_set)
        rows = by_set[equipment_set.id]
        mine = [e for e in events if any(_saw(row, e) for row in rows)]
        result.append(_fairness(equipment_set, rows, mine, thresholds[equipment_set.holder_id]))
    return result


def _p_threshold(equipment_set: EquipmentSet) -> Decimal:
    """The holder's fairness threshold (its statistics thresholds, set in the admin)."""
    return thresholds_for(equipment_set.holder_id)[1]


@dataclass(frozen=True)
class _Event:
    table_id: int
    at: datetime
    game: str
    event: str
    payload: object


def _events(stretches: Sequence[SetInPlay]) -> list[_Event]:
    """The dice events at the stretches' tables inside their times, in one query."""
    if not stretches:
        return []
    window = Q()
    for row in stretches:
        one = Q(round__table_id=row.table_id, at__gte=row.put_in_play_at)
        if row.removed_at is not None:
            one &= Q(at__lt=row.removed_at)
        window |= one
    rows = (
        RoundEvent.objects.filter(window, event__in=DICE_EVENTS)
        .order_by()  # counts need no order: skip the default's joins and sort
        .values_list("round__table_id", "at", "round__game", "event", "payload")
    )
    return [_Event(*row) for row in rows]


def _saw(row: SetInPlay, event: _Event) -> bool:
    return (
        event.table_id == row.table_id
        and event.at >= row.put_in_play_at
        and (row.removed_at is None or event.at < row.removed_at)
    )


def dice_read(game: str, event: str, payload: object) -> dict[str, list[int]]:
    """The faces an accepted event records, by the dice the game tells apart.

    Sic Bo, Craps and Mini-Craps, High Roll Dice (its throw and Extra Roll) and a Pai Gow
    deal from the shaker list the faces in the order read: a die's place in the list is not
    a physical die, so all go together. Three Dice Football records its two green
    Offensive Dice and its red Defensive Die apart: the colours are counted apart too.
    """
    if game == "three_dice_football" and event == "throw" and isinstance(payload, dict):
        return {GREEN: list(payload["green"]), RED: [payload["red"]]}
    if game == "pai_gow":
        if event == "deal" and isinstance(payload, dict) and "dice" in payload:
            return {ALL_DICE: list(payload["dice"])}
        return {}
    if event in ("throw", "extra_roll") and isinstance(payload, list):
        return {ALL_DICE: list(payload)}
    return {}


def face_counts(label: str, faces: Iterable[int]) -> FaceCounts:
    """Count faces 1 to 6 and test them against fair dice."""
    counts = [0] * FACES
    for face in faces:
        counts[face - 1] += 1
    return face_counts_of(label, counts)


def face_counts_of(label: str, counts: Sequence[int]) -> FaceCounts:
    """The test of counts already made, faces 1 to 6."""
    dice = sum(counts)
    expected = Fraction(dice, FACES)
    statistic = p_value = None
    if dice:
        test = chi_square(counts, [float(expected)] * FACES)
        statistic, p_value = _decimal(test.statistic), _decimal(test.p_value)
    return FaceCounts(
        label=label,
        counts=tuple(counts),
        dice=dice,
        expected=_decimal(float(expected)),
        chi_square=statistic,
        degrees_of_freedom=FACES - 1,
        p_value=p_value,
        valid=expected >= MIN_EXPECTED,
    )


def flagged(counts: FaceCounts, threshold: Decimal) -> bool:
    """A valid test whose p-value falls under the threshold."""
    return counts.valid and counts.p_value is not None and counts.p_value < threshold


@cache
def shaker_places() -> tuple[Fraction, ...]:
    """Where three fair dice land the count: P(place) for places 1 to 8, exactly."""
    landed = [0] * PLACES
    for dice in product(range(1, FACES + 1), repeat=3):
        landed[(sum(dice) - 1) % PLACES] += 1
    return tuple(Fraction(n, FACES**3) for n in landed)


def starting_places(source: str, counts: Sequence[int], threshold: Decimal) -> StartingPlaces:
    """The places' test: the shaker's against three fair dice, the generator's against
    eight equal places (a fair generator whose range is a multiple of 8, or wide)."""
    deals = sum(counts)
    chances = shaker_places() if source == SHAKER else (Fraction(1, PLACES),) * PLACES
    expected = [deals * p for p in chances]
    statistic = p_value = None
    if deals:
        test = chi_square(counts, [float(e) for e in expected])
        statistic, p_value = _decimal(test.statistic), _decimal(test.p_value)
    valid = deals > 0 and min(expected) >= MIN_EXPECTED
    return StartingPlaces(
        source=source,
        deals=deals,
        counts=tuple(counts),
        expected=tuple(_decimal(float(e)) for e in expected),
        chi_square=statistic,
        degrees_of_freedom=PLACES - 1,
        p_value=p_value,
        valid=valid,
        alert=source == GENERATOR and valid and p_value is not None and p_value < threshold,
    )


def _fairness(
    equipment_set: EquipmentSet,
    stretches: Sequence[SetInPlay],
    events: Iterable[_Event],
    threshold: Decimal,
) -> Fairness:
    faces: dict[str, list[int]] = {}
    places = {SHAKER: [0] * PLACES, GENERATOR: [0] * PLACES}
    throws = 0
    for e in events:
        read = dice_read(e.game, e.event, e.payload)
        if read:
            throws += 1
            for label, values in read.items():
                faces.setdefault(label, []).extend(values)
        if e.game == "pai_gow" and e.event == "deal" and isinstance(e.payload, dict):
            if "dice" in e.payload:
                places[SHAKER][(sum(e.payload["dice"]) - 1) % PLACES] += 1
            elif "rng" in e.payload:
                places[GENERATOR][(e.payload["rng"] - 1) % PLACES] += 1
    everything = [face for values in faces.values() for face in values]
    overall = face_counts(ALL_DICE, everything)
    positions = [face_counts(label, faces[label]) for label in (GREEN, RED) if label in faces]
    ordered = sorted(stretches, key=lambda row: row.put_in_play_at)
    last = ordered[-1] if ordered else None
    alert = flagged(overall, threshold)
    return Fairness(
        set_id=equipment_set.id,
        identifier=equipment_set.identifier,
        composition=equipment_set.composition,
        table_number=last.table.number if last else None,
        in_play_from=ordered[0].put_in_play_at if ordered else None,
        in_play_to=last.removed_at if last else None,
        throws=throws,
        dice=overall.dice,
        overall=overall,
        positions=positions,
        starting_places=[
            starting_places(source, counts, threshold)
            for source, counts in places.items()
            if sum(counts)
        ],
        threshold=threshold,
        alert=alert,
        advice=_advice(equipment_set, overall, threshold) if alert else "",
    )


def _advice(equipment_set: EquipmentSet, overall: FaceCounts, threshold: Decimal) -> str:
    return (
        f"p = {overall.p_value:.3g} under {threshold} over {overall.dice} dice: pull "
        f"{equipment_set.identifier} and inspect it. Record the changeout with its reason "
        f'("{PULL_REASON.key}": {PULL_REASON.label}, {PULL_REASON.cite}, if the inspection '
        "finds it; nothing is changed out automatically."
    )


def _decimal(value: float) -> Decimal:
    """A statistic as a Decimal to 10 significant digits (p-values can be 1e-40)."""
    return Decimal(f"{value:.10g}")
