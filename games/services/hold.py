"""A table's hold against theory: drop, the house's win, and what the PAR sheets expect.

docs/statistics.md, "Hold against theory", gives the formulas and every choice. In short:
the wagers counted are those placed in the period and decided (a void returns the stake,
so it is no wager); drop is their stakes, win the house's side of their resolutions (what
the ledger posted), theoretical win the sum of stake x the exact house edge of each
wager's PAR record under the round's options, and the variance the sum over rounds of
each round's variance (rounds are independent): exact for a Sic Bo throw, a High Roll Dice
round and the one-roll wagers of a Craps throw, otherwise the perfectly-correlated bound
(sum of the wagers' standard deviations, squared).
"""

import json
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from casino.models import Table
from casino.rules.submissions import OPTION_WAGERS
from casino.services.statistics import thresholds_for
from games.models import Round, RoundEvent, Wager
from games.par import default_document
from games.rules.core import ParRecord
from games.rules.registry import engine_get
from games.services.round_state import state_in
from games.statistics import (
    UnmappedWager,
    correlated_bound,
    craps_one_roll_moments,
    craps_wager_context,
    fraction_decimal,
    high_roll_dice_round_moments,
    is_one_roll,
    par_kind,
    record_from_document,
    sic_bo_round_moments,
    unit_moments,
)

log = logging.getLogger(__name__)

SHIFTS = 3
# Games whose round is enumerated whole: every wager's joint outcome, exactly.
EXACT = ("sic_bo", "high_roll_dice")
SHIFT_HOURS = 8
CENT = Decimal("0.01")
HOLD_PLACES = Decimal("0.0001")


@dataclass(frozen=True)
class Hold:
    """A table's hold against theory over one period (a gaming day, a shift of it, or the
    part of it played under one Rules Submission version)."""

    table_id: int
    table_number: str
    game: str
    period: str  # "2026-11-24", "2026-11-24 shift 2" or "2026-11-24 Rules Submission v3"
    start: datetime
    end: datetime
    rounds: int
    wagers: int
    drop: Decimal
    win: Decimal
    hold: Decimal | None  # win / drop; None with no drop
    theoretical_win: Decimal
    standard_deviation: Decimal
    z_score: Decimal | None  # None when the standard deviation is 0
    threshold: Decimal
    alert: bool  # |z| >= threshold


@dataclass(frozen=True)
class HoldPoint:
    """The day's figures so far, after one more round's wagers were decided (the chart)."""

    at: datetime
    win: Decimal
    theoretical_win: Decimal
    standard_deviation: Decimal


# --- the gaming day ----------------------------------------------------------------------


def _zone() -> ZoneInfo:
    return ZoneInfo(settings.TIME_ZONE)


def _day_start_time() -> time:
    hours, minutes = settings.CASINO_GAMING_DAY_START.split(":")
    return time(int(hours), int(minutes))


def gaming_day_bounds(day: date, shift: int | None = None) -> tuple[datetime, datetime]:
    """Where a gaming day (or its shift 1, 2 or 3) starts and ends: from
    CASINO_GAMING_DAY_START in CASINO_TIME_ZONE to the next day's; shifts of 8 hours on the
    clock (the last one an hour shorter or longer on a daylight-saving day)."""
    zone, start_time = _zone(), _day_start_time()
    start = datetime.combine(day, start_time)
    end = datetime.combine(day + timedelta(days=1), start_time)
    if shift is not None:
        if shift not in range(1, SHIFTS + 1):
            raise ValueError(f"a shift is 1, 2 or 3; not {shift!r}")
        end = start + timedelta(hours=SHIFT_HOURS * shift) if shift < SHIFTS else end
        start = start + timedelta(hours=SHIFT_HOURS * (shift - 1))
    return start.replace(tzinfo=zone), end.replace(tzinfo=zone)


def gaming_day_of(at: datetime) -> date:
    """The gaming day a moment belongs to."""
    local = at.astimezone(_zone())
    if local.time() < _day_start_time():
        return local.date() - timedelta(days=1)
    return local.date()


def current_gaming_day() -> date:
    """The gaming day now."""
    return gaming_day_of(timezone.now())


def shift_of(at: datetime) -> int:
    """The shift (1, 2 or 3) of its gaming day a moment falls in."""
    day = gaming_day_of(at)
    for shift in range(1, SHIFTS):
        if at < gaming_day_bounds(day, shift)[1]:
            return shift
    return SHIFTS


# --- PAR records of the options in force ---------------------------------------------------


@lru_cache(maxsize=64)
def _records(game: str, options_json: str, *, computed: bool) -> dict[str, ParRecord]:
    """The PAR records of a game under options: the stored default sheet when the options
    that set any house edge (casino.rules OPTION_WAGERS) are the defaults (a request never
    computes Pai Gow's, which no option changes), else computed once per process."""
    engine = engine_get(game)
    options = engine.parse_options(json.loads(options_json))
    stored = default_document(game)
    described = json.loads(json.dumps(engine.describe_options(options), default=str))
    defaults = stored["options"]
    if not computed and all(
        described.get(name) == defaults.get(name) for name in OPTION_WAGERS.get(game, {})
    ):
        return {w["kind"]: record_from_document(w) for w in stored["wagers"]}
    if not computed:
        return {}
    return {record.kind: record for record in engine.par_sheet(options)}


def par_record(game: str, options: dict[str, object], kind: str) -> ParRecord:
    """The PAR record of one wager kind under a round's options; UnmappedWager if none."""
    return _record(game, json.dumps(options, sort_keys=True, default=str), kind)


# --- the figures ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _RoundFigures:
    """One round's counted wagers: their sums, and the variance of the house's win."""

    round_id: int
    placed_at: datetime  # the first of them: the round's shift
    at: datetime  # when the last of them was decided
    submission_id: int
    submission_version: int
    wagers: int
    drop: Decimal
    win: Decimal
    theoretical: Fraction
    variance: Fraction | Decimal


@dataclass(frozen=True)
class HoldDay:
    """A table's gaming day, its three shifts and its Rules Submission versions, computed
    from one read of the day's wagers."""

    day: Hold
    shifts: list[Hold]
    submissions: list[Hold]


def _round_figures(
    round_: Round, rows: Sequence[Wager], events: list[tuple[int, str, object]] | None
) -> _RoundFigures | None:
    """The figures of the counted wagers placed at one round (`events`: a Craps round's,
    when a wager's record depends on the table's state)."""
    odds_on: dict[str, tuple[str, int]] = {}
    power: dict[str, tuple[str, int]] = {}
    engine = engine_get(round_.game)
    options = engine.parse_options(round_.options)
    if events is not None:
        odds_on, power = craps_wager_context(engine, options, state_in(round_), events)
    options_json = json.dumps(round_.options, sort_keys=True, default=str)
    extra_roll_players = {w.player for w in rows if w.kind == "extra_roll"}
    theoretical = Fraction(0)
    one_roll: list[tuple[str, Decimal, tuple[str, int] | None]] = []
    variances: list[Fraction] = []
    counted: list[Wager] = []
    for wager in rows:
        try:
            kind = par_kind(
                round_.game,
                wager.kind,
                odds_on=odds_on.get(wager.ref),
                extra_roll=wager.player in extra_roll_players,
                power_odds=power.get(wager.ref),
            )
            record = _record(round_.game, options_json, kind)
        except UnmappedWager as error:
            # The engines' kinds all map (tests/rules/test_hold_statistics.py); a row that
            # does not is left out of every figure rather than guessed at.
            log.warning("hold: wager %s left out: %s", wager.pk, error)
            continue
        edge, unit_variance = unit_moments(record)
        stake = Fraction(wager.amount)
        theoretical += stake * edge
        counted.append(wager)
        if round_.game == "craps" and is_one_roll(wager.kind):
            one_roll.append((wager.kind, wager.amount, power.get(wager.ref)))
        elif round_.game not in EXACT:
            variances.append(stake * stake * unit_variance)
    if not counted:
        return None
    round_variance: Fraction | Decimal
    if round_.game == "sic_bo":
        _, round_variance = sic_bo_round_moments([(w.kind, w.amount) for w in counted])
    elif round_.game == "high_roll_dice":
        every = [(w.player, w.kind, w.amount) for w in counted]
        _, round_variance = high_roll_dice_round_moments(every, options.dice)
    else:
        if one_roll:
            _, exact = craps_one_roll_moments(one_roll, options)
            variances.append(exact)  # the one-roll wagers' joint variance, as one
        round_variance = variances[0] if len(variances) == 1 else correlated_bound(variances)
    submission = round_.rules_submission
    return _RoundFigures(
        round_id=round_.pk,
        placed_at=min(w.placed_at for w in counted),
        at=max(_decided_at(w) for w in counted),
        submission_id=submission.pk,
        submission_version=submission.version,
        wagers=len(counted),
        drop=sum((w.amount for w in counted), Decimal(0)),
        win=-sum((w.resolution.net for w in counted), Decimal(0)),
        theoretical=theoretical,
        variance=round_variance,
    )


def _record(game: str, options_json: str, kind: str) -> ParRecord:
    record = _records(game, options_json, computed=False).get(kind)
    if record is None:
        # Options that change an edge, or a wager the default options do not offer.
        record = _records(game, options_json, computed=True).get(kind)
    if record is None:
        raise UnmappedWager(f"{game} has no PAR record {kind!r} under these options")
    return record


def _decided_at(wager: Wager) -> datetime:
    deciding = wager.resolution.round
    return deciding.settled_at or deciding.result_at or deciding.opened_at


def _counted_wagers(tables: Iterable[int] | None, start: datetime, end: datetime) -> list[Wager]:
    rows = Wager.objects.filter(
        placed_at__gte=start, placed_at__lt=end, resolution__isnull=False
    ).exclude(resolution__result="void")
    if tables is not None:
        rows = rows.filter(table_id__in=list(tables))
    return list(
        rows.select_related(
            "round", "round__rules_submission", "resolution", "resolution__round"
        ).order_by("id")
    )


def _by_round(rows: Iterable[Wager]) -> list[_RoundFigures]:
    """Each round's figures, in the order their wagers were decided."""
    groups: dict[int, list[Wager]] = defaultdict(list)
    rounds: dict[int, Round] = {}
    for wager in rows:
        groups[wager.round_id].append(wager)
        rounds[wager.round_id] = wager.round
    events = _craps_events(rounds, groups)
    figures = [_round_figures(rounds[rid], group, events.get(rid)) for rid, group in groups.items()]
    return sorted((f for f in figures if f is not None), key=lambda f: (f.at, f.round_id))


def _craps_events(
    rounds: dict[int, Round], groups: dict[int, list[Wager]]
) -> dict[int, list[tuple[int, str, object]]]:
    """The events of the Craps rounds with odds or Power Odds, in one read."""
    craps = [rid for rid, r in rounds.items() if r.game == "craps"]
    if not craps:
        return {}
    with_power = set(
        RoundEvent.objects.filter(round_id__in=craps, event="power_odds").values_list(
            "round_id", flat=True
        )
    )
    needed = [r for r in craps if r in with_power or any(w.kind == "odds" for w in groups[r])]
    events: dict[int, list[tuple[int, str, object]]] = defaultdict(list)
    for event in RoundEvent.objects.filter(round_id__in=needed).order_by("round_id", "seq"):
        events[event.round_id].append((event.seq, event.event, event.payload))
    return events


def _variance_decimal(value: Fraction | Decimal) -> Decimal:
    return value if isinstance(value, Decimal) else fraction_decimal(value)


def _hold(
    table: Table,
    period: str,
    start: datetime,
    end: datetime,
    figures: Sequence[_RoundFigures],
    threshold: Decimal,
) -> Hold:
    drop = sum((f.drop for f in figures), Decimal(0))
    win = sum((f.win for f in figures), Decimal(0))
    theoretical = fraction_decimal(sum((f.theoretical for f in figures), Fraction(0)))
    with localcontext() as ctx:
        ctx.prec = 28
        variance = sum((_variance_decimal(f.variance) for f in figures), Decimal(0))
        deviation = variance.sqrt()
        z = (win - theoretical) / deviation if deviation > 0 else None
    z_score = z.quantize(CENT, ROUND_HALF_EVEN) if z is not None else None
    return Hold(
        table_id=table.pk,
        table_number=table.number,
        game=table.game,
        period=period,
        start=start,
        end=end,
        rounds=len({f.round_id for f in figures}),
        wagers=sum(f.wagers for f in figures),
        drop=drop,
        win=win,
        hold=(win / drop).quantize(HOLD_PLACES, ROUND_HALF_EVEN) if drop else None,
        theoretical_win=theoretical.quantize(CENT, ROUND_HALF_EVEN),
        standard_deviation=deviation.quantize(CENT, ROUND_HALF_EVEN),
        z_score=z_score,
        threshold=threshold,
        alert=z_score is not None and abs(z_score) >= threshold,
    )


def table_hold_day(table: Table, day: date) -> HoldDay:
    """A table's gaming day with its shifts (a round counts in the shift its first counted
    wager was placed in) and its Rules Submission versions (in version order)."""
    start, end = gaming_day_bounds(day)
    threshold = thresholds_for(table.holder_id)[0]
    figures = _by_round(_counted_wagers([table.pk], start, end))
    label = day.isoformat()
    shifts = []
    for shift in range(1, SHIFTS + 1):
        shift_start, shift_end = gaming_day_bounds(day, shift)
        mine = [f for f in figures if shift_start <= f.placed_at < shift_end]
        shifts.append(
            _hold(table, f"{label} shift {shift}", shift_start, shift_end, mine, threshold)
        )
    versions = sorted({(f.submission_version, f.submission_id) for f in figures})
    submissions = [
        _hold(
            table,
            f"{label} Rules Submission v{version}",
            start,
            end,
            [f for f in figures if f.submission_id == sid],
            threshold,
        )
        for version, sid in versions
    ]
    return HoldDay(_hold(table, label, start, end, figures, threshold), shifts, submissions)


def table_hold(table: Table, day: date, shift: int | None = None) -> Hold:
    """A table's hold against theory over a gaming day, or one shift (1, 2, 3) of it."""
    held = table_hold_day(table, day)
    if shift is None:
        return held.day
    if shift not in range(1, SHIFTS + 1):
        raise ValueError(f"a shift is 1, 2 or 3; not {shift!r}")
    return held.shifts[shift - 1]


def table_hold_by_shift(table: Table, day: date) -> list[Hold]:
    """The day's three shifts, in order."""
    return table_hold_day(table, day).shifts


def table_hold_by_submission(table: Table, day: date) -> list[Hold]:
    """The day split by the Rules Submission version its rounds were played under."""
    return table_hold_day(table, day).submissions


def hold_timeline(table: Table, day: date) -> list[HoldPoint]:
    """The day's cumulative win, theoretical win and standard deviation, one point a round
    whose wagers were decided, in the order they were decided (the chart's line and band)."""
    start, end = gaming_day_bounds(day)
    points = []
    win, theoretical, variance = Decimal(0), Fraction(0), Decimal(0)
    with localcontext() as ctx:
        ctx.prec = 28
        for figures in _by_round(_counted_wagers([table.pk], start, end)):
            win += figures.win
            theoretical += figures.theoretical
            variance += _variance_decimal(figures.variance)
            points.append(
                HoldPoint(
                    at=figures.at,
                    win=win,
                    theoretical_win=fraction_decimal(theoretical).quantize(CENT),
                    standard_deviation=variance.sqrt().quantize(CENT),
                )
            )
    return points


def floor_hold(day: date, *, tables: Iterable[int] | None = None) -> list[Hold]:
    """Every table with play that gaming day (among `tables`, ids, if given), by number."""
    start, end = gaming_day_bounds(day)
    by_table: dict[int, list[Wager]] = defaultdict(list)
    for wager in _counted_wagers(tables, start, end):
        by_table[wager.table_id].append(wager)
    thresholds: dict[int, Decimal] = {}
    holds = []
    for table in Table.objects.filter(pk__in=list(by_table)).order_by("number", "pk"):
        if table.holder_id not in thresholds:
            thresholds[table.holder_id] = thresholds_for(table.holder_id)[0]
        figures = _by_round(by_table[table.pk])
        holds.append(
            _hold(table, day.isoformat(), start, end, figures, thresholds[table.holder_id])
        )
    return holds
