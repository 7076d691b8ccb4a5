"""The pictures of issue 23, as SVG drawn here: no library, no CDN, nothing but text.

Two charts, each a pure function of the figures (the hold and fairness services compute
them; this module computes nothing statistical and imports no Django):

- `win_chart_svg`: the house's cumulative actual win against its theoretical win over a
  period, with the expected band: theoretical +- 1 standard deviation shaded darker, and
  theoretical +- threshold x standard deviation (the alert's band) lighter. Its time axis
  spans the hours that saw play (`play_window`), and a strip under it shows where those
  hours sit in the whole gaming day, whose bounds it names.
- `face_histogram_svg`: a dice set's face counts, one panel for all its dice and one per
  die position where the game records it, each bar against the count fair dice expect,
  with the chi-square, its degrees of freedom, the p-value and the alert in the caption.

The output is deterministic (the same figures give the same bytes), every text is
escaped, and each chart carries <title>, <desc> and labelled axes for screen readers.
Coordinates are floats rounded to 0.01 px: geometry, never money.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from decimal import Decimal
from typing import Protocol
from xml.sax.saxutils import escape, quoteattr

from casino.rules.words import money_text

SVG_NS = "http://www.w3.org/2000/svg"

# Colours a colour-blind reader tells apart (Okabe-Ito); the legend names each one too.
ACTUAL = "#d55e00"
THEORETICAL = "#0072b2"
BAND_ONE = "#56b4e9"
BAND_THRESHOLD = "#cbe6f6"
DAY_STRIP = "#eeeeee"
DAY_WINDOW = "#999999"
BAR = "#0072b2"
BAR_ALERT = "#d55e00"
EXPECTED = "#000000"


class WinPoint(Protocol):
    """A point of a hold timeline (games.services.hold.HoldPoint has this shape)."""

    @property
    def at(self) -> datetime: ...
    @property
    def win(self) -> Decimal: ...
    @property
    def theoretical_win(self) -> Decimal: ...
    @property
    def standard_deviation(self) -> Decimal: ...


class FaceTally(Protocol):
    """One group's face counts (games.services.fairness.FaceCounts has this shape)."""

    @property
    def label(self) -> str: ...
    @property
    def counts(self) -> Sequence[int]: ...
    @property
    def expected(self) -> Decimal: ...
    @property
    def chi_square(self) -> Decimal | None: ...  # None: no die read
    @property
    def degrees_of_freedom(self) -> int: ...
    @property
    def p_value(self) -> Decimal | None: ...


@dataclass(frozen=True)
class _Origin:
    """The period's start: nothing won, nothing expected, no spread."""

    at: datetime
    win: Decimal = Decimal(0)
    theoretical_win: Decimal = Decimal(0)
    standard_deviation: Decimal = Decimal(0)


# -- Writing SVG -------------------------------------------------------------------------


def _n(value: float) -> str:
    """A coordinate: two decimals, no trailing zeros, never "-0"."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _attrs(**values: object) -> str:
    # Keyword names use _ for -; a trailing _ (class_) is dropped.
    return "".join(
        f" {name.rstrip('_').replace('_', '-')}={quoteattr(str(value))}"
        for name, value in values.items()
        if value is not None
    )


def _el(tag: str, inner: str | None = None, **values: object) -> str:
    """An element: empty, or around `inner` (already escaped)."""
    return (
        f"<{tag}{_attrs(**values)}/>"
        if inner is None
        else f"<{tag}{_attrs(**values)}>{inner}</{tag}>"
    )


def _text(x: float, y: float, words: str, **values: object) -> str:
    return f"<text{_attrs(x=_n(x), y=_n(y), **values)}>{escape(words)}</text>"


def _line(x1: float, y1: float, x2: float, y2: float, **values: object) -> str:
    return f"<line{_attrs(x1=_n(x1), y1=_n(y1), x2=_n(x2), y2=_n(y2), **values)}/>"


def _points(pairs: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in pairs)


def _svg(width: int, height: int, key: str, title: str, desc: str, body: list[str]) -> str:
    """The document: role img, named by its <title> and described by its <desc>."""
    opening = _attrs(
        xmlns=SVG_NS,
        width=width,
        height=height,
        viewBox=f"0 0 {width} {height}",
        role="img",
        aria_labelledby=f"{key}-title {key}-desc",
        font_family="sans-serif",
        font_size=12,
    )
    head = f"<svg{opening}>"
    return "\n".join(
        [
            head,
            f"<title{_attrs(id=f'{key}-title')}>{escape(title)}</title>",
            f"<desc{_attrs(id=f'{key}-desc')}>{escape(desc)}</desc>",
            *body,
            "</svg>",
            "",
        ]
    )


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering low..high."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** _floor_log10(raw)
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = _ceil_div(low, step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _floor_log10(value: float) -> int:
    exponent = 0
    while value >= 10:
        value /= 10
        exponent += 1
    while value < 1:
        value *= 10
        exponent -= 1
    return exponent


def _ceil_div(value: float, step: float) -> int:
    quotient = value / step
    whole = int(quotient)
    return whole + 1 if quotient > whole + 1e-9 else whole


def _tick_money(value: float, ticks: Sequence[float]) -> str:
    """A tick's dollars: whole when every tick is whole, cents otherwise."""
    return money_text(value, cents=any(tick != int(tick) for tick in ticks))


# -- Actual against theoretical win ------------------------------------------------------

WIN_WIDTH, WIN_HEIGHT = 720, 416
WIN_LEFT, WIN_RIGHT, WIN_TOP, WIN_BOTTOM = 84, 24, 48, 122
HOUR = timedelta(hours=1)


def win_chart_svg(
    points: Sequence[WinPoint],
    *,
    threshold: Decimal,
    title: str,
    start: datetime,
    end: datetime,
    tz: tzinfo,
) -> str:
    """The house's cumulative actual win against theoretical over the gaming day [start,
    end], with the +-1 sd and +-threshold sd bands around the theoretical win; `points` in
    time order within the day, one a settled round, cumulative from `start` (where
    everything is 0). The time axis spans the hours that saw play (`play_window`); a strip
    under it places them in the whole day, whose bounds it names."""
    # In UTC: Python subtracts and compares two times of one zone by the wall clock, which
    # a daylight-saving day (23 or 25 hours) would get wrong.
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    if end <= start:
        raise ValueError(f"the chart's end ({end}) must come after its start ({start})")
    shown_from, shown_to = play_window([p.at for p in points], start, end, tz)
    # Nothing is won or expected before the first round, so the line starts at 0 on the
    # axis's left edge as it would at the day's start.
    series: list[WinPoint] = [_Origin(at=shown_from), *points]
    # Floats here place pixels and axis ticks only: nothing drawn is stored or paid, and
    # the figures stay Decimal in the services, the API and the CSV (ADR 0002).
    k = float(threshold)
    plot_w = WIN_WIDTH - WIN_LEFT - WIN_RIGHT
    plot_h = WIN_HEIGHT - WIN_TOP - WIN_BOTTOM
    span = (shown_to - shown_from).total_seconds()

    def x_of(moment: datetime) -> float:
        return WIN_LEFT + plot_w * (moment.astimezone(UTC) - shown_from).total_seconds() / span

    values = [0.0]
    for p in series:
        theo, sd = float(p.theoretical_win), float(p.standard_deviation)
        values += [float(p.win), theo + k * sd, theo - k * sd]
    ticks = nice_ticks(min(values), max(values))
    low, high = min(ticks[0], min(values)), max(ticks[-1], max(values))

    def y_of(value: float) -> float:
        return WIN_TOP + plot_h * (high - value) / (high - low)

    def band(width: float) -> list[tuple[float, float]]:
        upper = [
            (x_of(p.at), y_of(float(p.theoretical_win) + width * float(p.standard_deviation)))
            for p in series
        ]
        lower = [
            (x_of(p.at), y_of(float(p.theoretical_win) - width * float(p.standard_deviation)))
            for p in reversed(series)
        ]
        return upper + lower

    bottom = WIN_TOP + plot_h
    body = [
        _el("rect", x=WIN_LEFT, y=WIN_TOP, width=plot_w, height=plot_h, fill="#fff", stroke="#999"),
        _el("polygon", class_="band-threshold", points=_points(band(k)), fill=BAND_THRESHOLD),
        _el(
            "polygon",
            class_="band-one",
            points=_points(band(1.0)),
            fill=BAND_ONE,
            fill_opacity="0.6",
        ),
    ]
    # The y axis: dollar ticks and their grid lines.
    for value in ticks:
        y = y_of(value)
        body.append(_line(WIN_LEFT, y, WIN_LEFT + plot_w, y, class_="grid", stroke="#e5e5e5"))
        body.append(
            _text(
                WIN_LEFT - 6, y + 4, _tick_money(value, ticks), class_="y-tick", text_anchor="end"
            )
        )
    body.append(
        _line(WIN_LEFT, y_of(0), WIN_LEFT + plot_w, y_of(0), class_="zero", stroke="#666666")
    )
    # The x axis: the hours shown, in the casino's time; the date under the first tick
    # and under the first of each new calendar day (play past midnight).
    dated = None
    for moment in time_ticks(shown_from, shown_to, tz):
        x = x_of(moment)
        local = moment.astimezone(tz)
        body.append(_line(x, bottom, x, bottom + 5, stroke="#666666"))
        body.append(_text(x, bottom + 18, _clock(local), class_="x-tick", text_anchor="middle"))
        if local.date() != dated:
            dated = local.date()
            body.append(
                _text(
                    x,
                    bottom + 32,
                    _date(local),
                    class_="x-date",
                    text_anchor="middle",
                    font_size=11,
                )
            )
    body += _day_bounds(start, end, shown_from, shown_to, x_of, bottom, tz)
    zone = _zone_name(start, tz)
    body.append(
        _text(
            WIN_LEFT + plot_w / 2,
            bottom + 52,
            f"Time ({zone})",
            class_="x-label",
            text_anchor="middle",
        )
    )
    middle = WIN_TOP + plot_h / 2
    body.append(
        _text(
            16,
            middle,
            "House's cumulative win ($)",
            class_="y-label",
            text_anchor="middle",
            transform=f"rotate(-90 16 {_n(middle)})",
        )
    )
    theoretical = [(x_of(p.at), y_of(float(p.theoretical_win))) for p in series]
    actual = [(x_of(p.at), y_of(float(p.win))) for p in series]
    body.append(
        _el(
            "polyline",
            class_="theoretical",
            points=_points(theoretical),
            fill="none",
            stroke=THEORETICAL,
            stroke_width=2,
            stroke_dasharray="6 4",
        )
    )
    body.append(
        _el(
            "polyline",
            class_="actual",
            points=_points(actual),
            fill="none",
            stroke=ACTUAL,
            stroke_width=2,
        )
    )
    body.append(_text(WIN_LEFT, 22, title, class_="chart-title", font_size=15, font_weight="bold"))
    body += _win_legend(bottom + 108, threshold)
    last = series[-1]
    desc = (
        f"{len(points)} settled rounds. At the end: actual win {money_text(last.win)}, "
        f"theoretical win {money_text(last.theoretical_win)}, standard deviation "
        f"{money_text(last.standard_deviation)}; the alert's band is theoretical plus or "
        f"minus {threshold} standard deviations. "
        + _shown_words(start, end, shown_from, shown_to, tz)
    )
    return _svg(WIN_WIDTH, WIN_HEIGHT, "hold", title, desc, body)


def _win_legend(y: float, threshold: Decimal) -> list[str]:
    items = [
        ("actual win", ACTUAL, "line"),
        ("theoretical win", THEORETICAL, "dash"),
        ("within 1 sd", BAND_ONE, "box"),
        (f"within {threshold} sd (alert outside)", BAND_THRESHOLD, "box"),
    ]
    out = [f"<g{_attrs(class_='legend')}>"]
    x = float(WIN_LEFT)
    for words, colour, mark in items:
        if mark == "box":
            out.append(_el("rect", x=_n(x), y=_n(y - 9), width=18, height=10, fill=colour))
        else:
            dash = "6 4" if mark == "dash" else None
            out.append(
                _line(x, y - 4, x + 18, y - 4, stroke=colour, stroke_width=2, stroke_dasharray=dash)
            )
        out.append(_text(x + 24, y, words))
        x += 24 + 7.2 * len(words) + 18
    out.append("</g>")
    return out


# -- The time axis -----------------------------------------------------------------------

# Tick steps in minutes: the shortest giving at most MAX_TICK_STEPS steps across the axis.
TICK_STEPS = (15, 30, 60, 120, 180, 240, 360, 720)
MAX_TICK_STEPS = 8
QUARTER = timedelta(minutes=15)
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _floor_to(moment: datetime, tz: tzinfo, minutes: int) -> datetime:
    """The latest local clock time at or before `moment` on a multiple of `minutes` past
    the hour (in UTC: subtracting there is exact across a daylight-saving change)."""
    local = moment.astimezone(tz)
    past = timedelta(
        minutes=local.minute % minutes, seconds=local.second, microseconds=local.microsecond
    )
    return moment.astimezone(UTC) - past


def play_window(
    moments: Sequence[datetime], start: datetime, end: datetime, tz: tzinfo
) -> tuple[datetime, datetime]:
    """The part of the day [start, end] a chart draws, in UTC: from the last whole local
    hour before the first moment to the first whole local hour after the last, kept within
    the day; the whole day when nothing happened in it."""
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    inside = [m.astimezone(UTC) for m in moments if start <= m.astimezone(UTC) <= end]
    if not inside:
        return start, end
    first, last = min(inside), max(inside)
    before = _floor_to(first, tz, 60)
    if before == first:  # a round on the hour: show the hour before it, the line's rise
        before -= HOUR
    after = _floor_to(last, tz, 60) + HOUR
    return max(start, before), min(end, after)


def time_ticks(start: datetime, end: datetime, tz: tzinfo) -> list[datetime]:
    """The moments the time axis labels, in UTC: start, end, and between them the local
    clock times one step apart counted from start's hour (15 or 30 minutes; 1, 2, 3, 4, 6
    or 12 hours: the shortest making at most 8 steps), none nearer an end than half a step."""
    start, end = start.astimezone(UTC), end.astimezone(UTC)
    minutes = (end - start).total_seconds() / 60
    step = next((m for m in TICK_STEPS if minutes / m <= MAX_TICK_STEPS), TICK_STEPS[-1])
    anchor = _floor_to(start, tz, 60).astimezone(tz).hour * 60
    margin = timedelta(minutes=step / 2)
    ticks = [start]
    # Every quarter hour by the clock (walked in UTC, so a repeated or skipped hour is
    # walked as it happened), kept when it is a whole number of steps from the anchor.
    moment = _floor_to(start, tz, 15)
    while moment < end:
        clock = moment.astimezone(tz)
        if (
            start + margin <= moment <= end - margin
            and (clock.hour * 60 + clock.minute - anchor) % step == 0
        ):
            ticks.append(moment)
        moment += QUARTER
    return [*ticks, end]


def _clock(local: datetime) -> str:
    return f"{local.hour:02d}:{local.minute:02d}"


def _date(local: datetime) -> str:
    # Names spelled here, not by strftime, so the chart is the same under any locale.
    return f"{DAYS[local.weekday()]} {local.day} {MONTHS[local.month - 1]}"


def _stamp(moment: datetime, tz: tzinfo) -> str:
    local = moment.astimezone(tz)
    return f"{_date(local)} {_clock(local)}"


def _zone_name(moment: datetime, tz: tzinfo) -> str:
    return getattr(tz, "key", None) or moment.astimezone(tz).tzname() or "local time"


def _shown_words(
    start: datetime, end: datetime, shown_from: datetime, shown_to: datetime, tz: tzinfo
) -> str:
    """The desc's sentence on the time axis (screen readers get what the strip shows)."""
    day = f"the gaming day from {_stamp(start, tz)} to {_stamp(end, tz)} ({_zone_name(start, tz)})"
    if (shown_from, shown_to) == (start, end):
        return f"Drawn across the whole of {day}."
    return (
        f"Drawn from {_stamp(shown_from, tz)} to {_stamp(shown_to, tz)}, the hours that saw "
        f"play, of {day}."
    )


def _day_bounds(
    start: datetime,
    end: datetime,
    shown_from: datetime,
    shown_to: datetime,
    x_of: Callable[[datetime], float],
    bottom: float,
    tz: tzinfo,
) -> list[str]:
    """The gaming day's bounds: a rule at each one the axis reaches (only ever at its
    edges), and under the axis a strip for the whole day, the hours drawn shaded, its ends
    named."""
    out = []
    for bound, words, anchor in (
        (start, "gaming day starts", "start"),
        (end, "gaming day ends", "end"),
    ):
        if shown_from <= bound <= shown_to:
            x = x_of(bound)
            out.append(
                _line(
                    x, WIN_TOP - 4, x, bottom, class_="day-bound", stroke="#333333", stroke_width=2
                )
            )
            out.append(
                _text(
                    x,
                    WIN_TOP - 8,
                    words,
                    class_="day-bound-label",
                    text_anchor=anchor,
                    font_size=11,
                )
            )
    plot_w = WIN_WIDTH - WIN_LEFT - WIN_RIGHT
    day = (end - start).total_seconds()
    left = WIN_LEFT + plot_w * (shown_from - start).total_seconds() / day
    right = WIN_LEFT + plot_w * (shown_to - start).total_seconds() / day
    top = bottom + 62
    since, until = _clock(shown_from.astimezone(tz)), _clock(shown_to.astimezone(tz))
    shown = (
        "the whole day drawn above"
        if (shown_from, shown_to) == (start, end)
        else f"drawn above: {since} to {until}"
    )
    out += [
        f"<g{_attrs(class_='day-strip')}>",
        _el(
            "rect",
            class_="day",
            x=WIN_LEFT,
            y=_n(top),
            width=plot_w,
            height=8,
            fill=DAY_STRIP,
            stroke="#999999",
        ),
        _el(
            "rect",
            class_="shown",
            x=_n(left),
            y=_n(top),
            width=_n(right - left),
            height=8,
            fill=DAY_WINDOW,
        ),
        _text(WIN_LEFT, top + 22, f"gaming day {_stamp(start, tz)}", class_="day-from"),
        _text(WIN_LEFT + plot_w / 2, top + 22, shown, class_="day-shown", text_anchor="middle"),
        _text(
            WIN_LEFT + plot_w, top + 22, f"to {_stamp(end, tz)}", class_="day-to", text_anchor="end"
        ),
        "</g>",
    ]
    return out


# -- Face histograms ---------------------------------------------------------------------

HIST_WIDTH = 720
PANEL_HEIGHT = 220
HIST_LEFT, HIST_RIGHT, PANEL_TOP, PANEL_BOTTOM = 64, 24, 40, 46
HIST_HEAD = 56


def face_histogram_svg(
    groups: Sequence[FaceTally], *, title: str, threshold: Decimal, alert: bool
) -> str:
    """A panel per group (the set's dice together first, then each die position), six bars
    each against the expected count, captioned with chi-square, df, p-value and the alert
    (the first group's: the set's verdict)."""
    if not groups:
        raise ValueError("a histogram needs at least one group of face counts")
    height = HIST_HEAD + PANEL_HEIGHT * len(groups)
    under = f"{threshold.normalize():f}"  # 0.001, as a holder's row 0.001000 reads
    verdict = (
        f"ALERT: p-value under {under}, the set looks loaded: pull it and inspect"
        if alert
        else f"no alert (threshold: p-value under {under})"
    )
    body = [
        _text(HIST_LEFT, 22, title, class_="chart-title", font_size=15, font_weight="bold"),
        _text(
            HIST_LEFT,
            42,
            verdict,
            class_="verdict alert" if alert else "verdict",
            fill=BAR_ALERT if alert else "#333333",
            font_weight="bold" if alert else None,
        ),
    ]
    for index, group in enumerate(groups):
        body += _panel(group, HIST_HEAD + PANEL_HEIGHT * index, alert=alert and index == 0)
    first = groups[0]
    desc = (
        f"Face counts of {first.label}: "
        + ", ".join(f"{face} x {count}" for face, count in enumerate(first.counts, start=1))
        + f" against {_count(first.expected)} expected each; {_stats(first)}. {verdict}."
    )
    return _svg(HIST_WIDTH, height, "faces", title, desc, body)


def _count(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.1')):f}"


def _stats(group: FaceTally) -> str:
    if group.chi_square is None or group.p_value is None:
        return "no die read yet"
    return (
        f"chi-square {group.chi_square.quantize(Decimal('0.01')):f} on "
        f"{group.degrees_of_freedom} degrees of freedom, p-value {p_text(group.p_value)}"
    )


def p_text(value: Decimal | None) -> str:
    """A p-value to 4 significant figures (small ones in scientific notation)."""
    if value is None:
        return "none"
    if value == 0:
        return "0"
    if value < Decimal("0.0001"):
        return f"{float(value):.3e}"
    return f"{float(value):.4g}"


def _panel(group: FaceTally, top: float, *, alert: bool) -> list[str]:
    counts = list(group.counts)
    plot_w = HIST_WIDTH - HIST_LEFT - HIST_RIGHT
    plot_h = PANEL_HEIGHT - PANEL_TOP - PANEL_BOTTOM
    y0 = top + PANEL_TOP + plot_h  # the baseline
    expected = float(group.expected)
    ticks = nice_ticks(0, max([*counts, expected, 1]))
    high = max(ticks[-1], *counts, expected)

    def y_of(value: float) -> float:
        return y0 - plot_h * value / high

    slot = plot_w / len(counts)
    out = [
        f"<g{_attrs(class_='panel', data_label=group.label)}>",
        _text(
            HIST_LEFT,
            top + 22,
            f"{group.label}: {_stats(group)}",
            class_="caption",
            font_weight="bold",
        ),
        _text(
            HIST_LEFT + plot_w,
            top + 22,
            f"dashed: {_count(group.expected)} expected",
            class_="expected-label",
            text_anchor="end",
        ),
    ]
    for value in ticks:
        y = y_of(value)
        out.append(_line(HIST_LEFT, y, HIST_LEFT + plot_w, y, stroke="#e5e5e5"))
        out.append(_text(HIST_LEFT - 6, y + 4, f"{value:g}", class_="y-tick", text_anchor="end"))
    for face, count in enumerate(counts, start=1):
        x = HIST_LEFT + slot * (face - 1) + slot * 0.15
        y = y_of(count)
        tip = f"{group.label}, face {face}: {count} (expected {_count(group.expected)})"
        out.append(
            _el(
                "rect",
                f"<title>{escape(tip)}</title>",
                class_="bar",
                data_face=face,
                data_count=count,
                x=_n(x),
                y=_n(y),
                width=_n(slot * 0.7),
                height=_n(y0 - y),
                fill=BAR_ALERT if alert else BAR,
            )
        )
        out.append(_text(x + slot * 0.35, y - 4, str(count), class_="count", text_anchor="middle"))
        out.append(
            _text(x + slot * 0.35, y0 + 16, str(face), class_="x-tick", text_anchor="middle")
        )
    out.append(
        _line(
            HIST_LEFT,
            y_of(expected),
            HIST_LEFT + plot_w,
            y_of(expected),
            class_="expected",
            stroke=EXPECTED,
            stroke_width=2,
            stroke_dasharray="6 4",
        )
    )
    out.append(_line(HIST_LEFT, y0, HIST_LEFT + plot_w, y0, stroke="#666666"))
    out.append(
        _text(HIST_LEFT + plot_w / 2, y0 + 34, "Face", class_="x-label", text_anchor="middle")
    )
    middle = top + PANEL_TOP + plot_h / 2
    out.append(
        _text(
            18,
            middle,
            "Times thrown",
            class_="y-label",
            text_anchor="middle",
            transform=f"rotate(-90 18 {_n(middle)})",
        )
    )
    out.append("</g>")
    return out
