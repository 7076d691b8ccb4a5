"""The pictures of issue 23, as SVG drawn here: no library, no CDN, nothing but text.

Two charts, each a pure function of the figures (the hold and fairness services compute
them; this module computes nothing statistical and imports no Django):

- `win_chart_svg`: the house's cumulative actual win against its theoretical win over a
  period, with the expected band: theoretical +- 1 standard deviation shaded darker, and
  theoretical +- threshold x standard deviation (the alert's band) lighter.
- `face_histogram_svg`: a dice set's face counts, one panel for all its dice and one per
  die position where the game records it, each bar against the count fair dice expect,
  with the chi-square, its degrees of freedom, the p-value and the alert in the caption.

The output is deterministic (the same figures give the same bytes), every text is
escaped, and each chart carries <title>, <desc> and labelled axes for screen readers.
Coordinates are floats rounded to 0.01 px: geometry, never money.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
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

WIN_WIDTH, WIN_HEIGHT = 720, 380
WIN_LEFT, WIN_RIGHT, WIN_TOP, WIN_BOTTOM = 84, 24, 48, 86


def win_chart_svg(
    points: Sequence[WinPoint],
    *,
    threshold: Decimal,
    title: str,
    start: datetime,
    end: datetime,
    tz: tzinfo,
) -> str:
    """The house's cumulative actual win against theoretical over [start, end], with the
    +-1 sd and +-threshold sd bands around the theoretical win; `points` in time order,
    one a settled round, cumulative from `start` (where everything is 0)."""
    if end <= start:
        raise ValueError(f"the chart's end ({end}) must come after its start ({start})")
    series: list[WinPoint] = [_Origin(at=start), *points]
    # Floats here place pixels and axis ticks only: nothing drawn is stored or paid, and
    # the figures stay Decimal in the services, the API and the CSV (ADR 0002).
    k = float(threshold)
    plot_w = WIN_WIDTH - WIN_LEFT - WIN_RIGHT
    plot_h = WIN_HEIGHT - WIN_TOP - WIN_BOTTOM
    span = (end - start).total_seconds()

    def x_of(moment: datetime) -> float:
        return WIN_LEFT + plot_w * (moment - start).total_seconds() / span

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
    # The x axis: the period's start, end and the hours between, in the casino's time.
    for moment in _time_ticks(start, end, tz):
        x = x_of(moment)
        body.append(_line(x, bottom, x, bottom + 5, stroke="#666666"))
        body.append(
            _text(
                x,
                bottom + 18,
                moment.astimezone(tz).strftime("%H:%M"),
                class_="x-tick",
                text_anchor="middle",
            )
        )
    zone = getattr(tz, "key", None) or start.astimezone(tz).tzname() or "local time"
    body.append(
        _text(
            WIN_LEFT + plot_w / 2,
            bottom + 38,
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
    body += _win_legend(bottom + 56, threshold)
    last = series[-1]
    desc = (
        f"{len(points)} settled rounds. At the end: actual win {money_text(last.win)}, "
        f"theoretical win {money_text(last.theoretical_win)}, standard deviation "
        f"{money_text(last.standard_deviation)}; the alert's band is theoretical plus or "
        f"minus {threshold} standard deviations."
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


def _time_ticks(start: datetime, end: datetime, tz: tzinfo) -> list[datetime]:
    """start, end and every whole local hour between, thinned to at most 9 labels."""
    hours = []
    local = start.astimezone(tz).replace(minute=0, second=0, microsecond=0)
    step_seconds = 3600
    moment = local
    while moment.timestamp() < end.timestamp():
        if moment.timestamp() > start.timestamp():
            hours.append(moment)
        moment = datetime.fromtimestamp(moment.timestamp() + step_seconds, tz)
    every = max(1, -(-len(hours) // 7))
    return [start, *hours[every - 1 :: every], end] if hours else [start, end]


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
