"""The SVG charts (issue 23, item 3), read back with xml.etree: the geometry follows the
figures (bars proportional to counts, the bands where the numbers put them), text is
escaped, the output is deterministic and accessible. No database."""

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from casino.charts import face_histogram_svg, nice_ticks, play_window, time_ticks, win_chart_svg

NS = {"svg": "http://www.w3.org/2000/svg"}
NEW_YORK = ZoneInfo("America/New_York")
START = datetime(2026, 11, 24, 10, tzinfo=UTC)  # 05:00 in New York, a gaming day's start
END = START + timedelta(hours=24)


@dataclass(frozen=True)
class Point:
    at: datetime
    win: Decimal
    theoretical_win: Decimal
    standard_deviation: Decimal


@dataclass(frozen=True)
class Faces:
    label: str
    counts: tuple[int, ...]
    expected: Decimal
    chi_square: Decimal
    degrees_of_freedom: int
    p_value: Decimal


# Three rounds, at 1, 2 and 6 hours into the day.
POINTS = [
    Point(START + timedelta(hours=1), Decimal("25"), Decimal("1.40"), Decimal("25.00")),
    Point(START + timedelta(hours=2), Decimal("-10"), Decimal("2.80"), Decimal("35.36")),
    Point(START + timedelta(hours=6), Decimal("150"), Decimal("4.20"), Decimal("43.30")),
]


def pairs(text: str) -> list[tuple[float, float]]:
    return [tuple(float(n) for n in pair.split(",")) for pair in text.split()]  # type: ignore[misc]


def win_chart(points=POINTS, threshold=Decimal(3), title="HR-01, Tuesday") -> ET.Element:
    svg = win_chart_svg(points, threshold=threshold, title=title, start=START, end=END, tz=NEW_YORK)
    return ET.fromstring(svg)


def one(root: ET.Element, css: str) -> ET.Element:
    found = root.findall(f".//*[@class='{css}']")
    assert len(found) == 1, css
    return found[0]


def test_the_theoretical_line_runs_down_the_middle_of_both_bands():
    root = win_chart()
    theo = pairs(one(root, "theoretical").get("points"))
    for css in ("band-one", "band-threshold"):
        band = pairs(one(root, css).get("points"))
        # The polygon: the upper edge forward, the lower edge back (origin included).
        upper, lower = band[:4], band[4:][::-1]
        assert [x for x, _ in upper] == [x for x, _ in theo] == [x for x, _ in lower]
        for (_, top), (_, middle), (_, bottom) in zip(upper, theo, lower, strict=True):
            assert middle - top == pytest.approx(bottom - middle, abs=0.02)
    # The threshold band is 3 times as wide as the one-sd band, point by point.
    one_sd = pairs(one(root, "band-one").get("points"))
    three_sd = pairs(one(root, "band-threshold").get("points"))
    for i in range(1, 4):
        narrow = one_sd[-1 - i][1] - one_sd[i][1]
        wide = three_sd[-1 - i][1] - three_sd[i][1]
        assert wide == pytest.approx(3 * narrow, abs=0.05)


def test_the_y_scale_is_the_one_the_tick_labels_say():
    root = win_chart()
    ticks = {t.text: float(t.get("y")) - 4 for t in root.findall(".//*[@class='y-tick']")}
    # Values run from 4.20 - 3 x 43.30 = -125.70 to 150: a quarter of that is $68.93, so a
    # tick every $100.
    assert list(ticks) == ["-$100", "$0", "$100"]
    per_dollar = (ticks["$0"] - ticks["$100"]) / 100
    actual = pairs(one(root, "actual").get("points"))
    # The origin and each point's win sit where the $0 tick and the scale put them.
    expected_wins = [0, 25, -10, 150]
    for (_, y), win in zip(actual, expected_wins, strict=True):
        assert y == pytest.approx(ticks["$0"] - win * per_dollar, abs=0.02)
    # Last point's 3 sd upper edge: 4.20 + 129.90 = 134.10.
    upper = pairs(one(root, "band-threshold").get("points"))[3][1]
    assert upper == pytest.approx(ticks["$0"] - 134.10 * per_dollar, abs=0.02)


def local(day: int, hour: int, minute: int = 0, *, fold: int = 0) -> datetime:
    """A moment in New York, November 2026 (the 24th is a Tuesday)."""
    return datetime(2026, 11, day, hour, minute, tzinfo=NEW_YORK, fold=fold)


def at(*moments: datetime) -> list[Point]:
    """Rounds at these moments, each winning the house $10 against $1 of theory."""
    return [
        Point(m, Decimal(10 * n), Decimal(n), Decimal("5.00")) for n, m in enumerate(moments, 1)
    ]


def texts(root: ET.Element, css: str) -> list[str]:
    return [t.text for t in root.findall(f".//*[@class='{css}']")]


def xs_of(root: ET.Element, css: str) -> list[float]:
    return [float(t.get("x")) for t in root.findall(f".//*[@class='{css}']")]


# The plot runs from x = 84 to x = 720 - 24 = 696: 612 px whatever the hours shown.
LEFT, RIGHT = 84, 696


def test_a_short_day_spans_the_hours_that_saw_play():
    # Rounds at 10:20, 11:40 and 13:05: the axis runs from 10:00 to 14:00, 4 hours, so
    # 153 px an hour (not 25.5 across the whole day).
    root = win_chart(at(local(24, 10, 20), local(24, 11, 40), local(24, 13, 5)))
    xs = [x for x, _ in pairs(one(root, "actual").get("points"))]
    # The origin (0) at 10:00, then 20/60, 100/60 and 185/60 hours in.
    assert xs == [LEFT, LEFT + 51, LEFT + 255, LEFT + 471.75]
    # 240 minutes: half-hour ticks make 8 steps, 76.5 px apart.
    assert texts(root, "x-tick") == [
        "10:00",
        "10:30",
        "11:00",
        "11:30",
        "12:00",
        "12:30",
        "13:00",
        "13:30",
        "14:00",
    ]
    assert xs_of(root, "x-tick") == [LEFT + 76.5 * i for i in range(9)]
    assert texts(root, "x-date") == ["Tue 24 Nov"]
    # Neither bound of the gaming day (05:00 to 05:00) is on the axis: the strip shows it,
    # 25.5 px an hour, the hours drawn shaded from 5 to 9 hours into the day.
    assert root.findall(".//*[@class='day-bound']") == []
    shown = one(root, "shown")
    assert (float(shown.get("x")), float(shown.get("width"))) == (LEFT + 127.5, 102)
    assert float(one(root, "day").get("width")) == 612
    assert texts(root, "day-from") == ["gaming day Tue 24 Nov 05:00"]
    assert texts(root, "day-shown") == ["drawn above: 10:00 to 14:00"]
    assert texts(root, "day-to") == ["to Wed 25 Nov 05:00"]
    assert one(root, "x-label").text == "Time (America/New_York)"
    assert one(root, "y-label").text == "House's cumulative win ($)"
    assert root.find("svg:desc", NS).text.endswith(
        "Drawn from Tue 24 Nov 10:00 to Tue 24 Nov 14:00, the hours that saw play, of the "
        "gaming day from Tue 24 Nov 05:00 to Wed 25 Nov 05:00 (America/New_York)."
    )


def test_one_round_is_drawn_across_its_hour():
    # One round at 10:17: the hour 10:00 to 11:00, 612 px; quarter-hour ticks.
    root = win_chart(at(local(24, 10, 17)))
    xs = [x for x, _ in pairs(one(root, "actual").get("points"))]
    assert xs == [LEFT, LEFT + 173.4]  # 612 x 17 / 60
    assert texts(root, "x-tick") == ["10:00", "10:15", "10:30", "10:45", "11:00"]
    assert xs_of(root, "x-tick") == [LEFT, LEFT + 153, LEFT + 306, LEFT + 459, RIGHT]


def test_play_across_midnight_is_dated_on_both_sides():
    # 22:30 and 23:15 on Tuesday, 01:10 on Wednesday, all the gaming day of Tuesday (it
    # ends at 05:00): 22:00 to 02:00, 4 hours, 153 px an hour.
    root = win_chart(at(local(24, 22, 30), local(24, 23, 15), local(25, 1, 10)))
    xs = [x for x, _ in pairs(one(root, "actual").get("points"))]
    assert xs == [LEFT, LEFT + 76.5, LEFT + 191.25, LEFT + 484.5]
    assert texts(root, "x-tick") == [
        "22:00",
        "22:30",
        "23:00",
        "23:30",
        "00:00",
        "00:30",
        "01:00",
        "01:30",
        "02:00",
    ]
    # The date under the first tick, and under midnight (4 x 76.5 px further on).
    assert texts(root, "x-date") == ["Tue 24 Nov", "Wed 25 Nov"]
    assert xs_of(root, "x-date") == [LEFT, LEFT + 306]
    shown = one(root, "shown")  # 17 to 21 hours into the day, 25.5 px an hour
    assert (float(shown.get("x")), float(shown.get("width"))) == (LEFT + 433.5, 102)


def test_a_full_day_spans_the_gaming_day_with_both_bounds_marked():
    # Play from 05:30 to 04:45 the next morning: the axis is the whole day, 05:00 to 05:00,
    # 25.5 px an hour, a tick every 3 hours (8 steps).
    root = win_chart(at(local(24, 5, 30), local(24, 17), local(25, 4, 45)))
    xs = [x for x, _ in pairs(one(root, "actual").get("points"))]
    # 0.5, 12 and 23.75 hours in (605.625 px, written to 0.01 px).
    assert xs == pytest.approx([LEFT, LEFT + 12.75, LEFT + 306, LEFT + 605.625], abs=0.01)
    assert texts(root, "x-tick") == [
        "05:00",
        "08:00",
        "11:00",
        "14:00",
        "17:00",
        "20:00",
        "23:00",
        "02:00",
        "05:00",
    ]
    assert xs_of(root, "x-tick") == [LEFT + 76.5 * i for i in range(9)]
    assert texts(root, "x-date") == ["Tue 24 Nov", "Wed 25 Nov"]  # under 05:00 and 02:00
    assert xs_of(root, "x-date") == [LEFT, LEFT + 535.5]
    bounds = root.findall(".//*[@class='day-bound']")
    assert [float(line.get("x1")) for line in bounds] == [LEFT, RIGHT]
    assert texts(root, "day-bound-label") == ["gaming day starts", "gaming day ends"]
    shown = one(root, "shown")
    assert (float(shown.get("x")), float(shown.get("width"))) == (LEFT, 612)
    assert texts(root, "day-shown") == ["the whole day drawn above"]
    assert root.find("svg:desc", NS).text.endswith(
        "Drawn across the whole of the gaming day from Tue 24 Nov 05:00 to Wed 25 Nov 05:00 "
        "(America/New_York)."
    )


def test_the_win_chart_is_accessible_escaped_and_deterministic():
    title = 'HR-01 <script>alert("x")</script> & co'
    svg = win_chart_svg(
        POINTS, threshold=Decimal(3), title=title, start=START, end=END, tz=NEW_YORK
    )
    assert "<script>" not in svg
    root = ET.fromstring(svg)
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "hold-title hold-desc"
    assert root.find("svg:title", NS).text == title
    desc = root.find("svg:desc", NS).text
    assert "3 settled rounds" in desc and "actual win $150" in desc
    assert "theoretical win $4.20" in desc
    assert svg == win_chart_svg(
        POINTS, threshold=Decimal(3), title=title, start=START, end=END, tz=NEW_YORK
    )


def test_a_day_without_rounds_is_a_flat_chart_at_zero_across_the_whole_day():
    root = win_chart(points=[])
    assert pairs(one(root, "actual").get("points")) == pairs(one(root, "theoretical").get("points"))
    assert pairs(one(root, "actual").get("points"))[0][0] == LEFT
    assert "0 settled rounds" in root.find("svg:desc", NS).text
    assert texts(root, "x-tick")[0] == texts(root, "x-tick")[-1] == "05:00"
    assert len(root.findall(".//*[@class='day-bound']")) == 2
    assert texts(root, "day-shown") == ["the whole day drawn above"]


DAY_START = local(24, 6)  # the default gaming day: 06:00 to 06:00
DAY_END = local(25, 6)


@pytest.mark.parametrize(
    ("moments", "window"),
    [
        ([], (DAY_START, DAY_END)),
        ([local(24, 10, 17)], (local(24, 10), local(24, 11))),
        # On the hour: the hour before it too, so the line's rise from 0 shows.
        ([local(24, 10)], (local(24, 9), local(24, 11))),
        ([local(24, 10, 20), local(24, 13, 5)], (local(24, 10), local(24, 14))),
        ([local(24, 22, 30), local(25, 1, 10)], (local(24, 22), local(25, 2))),
        # Never outside the day: a round at its first instant, one in its last hour.
        ([DAY_START], (DAY_START, local(24, 7))),
        ([local(24, 6, 3), local(25, 5, 40)], (DAY_START, DAY_END)),
        ([local(25, 5)], (local(25, 4), DAY_END)),
    ],
)
def test_the_window_is_whole_hours_around_the_play_within_the_day(moments, window):
    assert play_window(moments, DAY_START, DAY_END, NEW_YORK) == window


def test_a_gaming_day_off_the_hour_bounds_the_window():
    # CASINO_GAMING_DAY_START 06:30: a round at 06:40 is shown from 06:30, not 06:00.
    start, end = local(24, 6, 30), local(25, 6, 30)
    assert play_window([local(24, 6, 40)], start, end, NEW_YORK) == (start, local(24, 7))
    assert play_window([local(25, 6, 10)], start, end, NEW_YORK) == (local(25, 6), end)


def test_the_hour_repeated_when_clocks_go_back_is_drawn_twice():
    # 1 November 2026, 02:00 EDT becomes 01:00 EST. Rounds at 00:30 EDT and 01:30 EST (the
    # second 01:30): the axis is 00:00 EDT to 02:00 EST, 3 hours, half-hour ticks.
    first, second = local(1, 0, 30), local(1, 1, 30, fold=1)
    window = play_window([first, second], local(1, 6) - timedelta(days=1), local(1, 6), NEW_YORK)
    assert window == (local(1, 0), local(1, 2))
    assert window[1] - window[0] == timedelta(hours=3)  # in UTC, as play_window gives it
    ticks = time_ticks(*window, NEW_YORK)
    assert [f"{t.astimezone(NEW_YORK):%H:%M %Z}" for t in ticks] == [
        "00:00 EDT",
        "00:30 EDT",
        "01:00 EDT",
        "01:30 EDT",
        "01:00 EST",
        "01:30 EST",
        "02:00 EST",
    ]


def test_a_25_hour_gaming_day_is_ticked_by_the_clock():
    # 31 October 06:00 EDT to 1 November 06:00 EST: 25 hours, so 4-hour steps (3 would make
    # 8.33), counted from 06:00 on the clock; 22:00 EDT to 02:00 EST is 5 hours.
    ticks = time_ticks(local(1, 6) - timedelta(days=1), local(1, 6), NEW_YORK)
    assert [f"{t.astimezone(NEW_YORK):%H:%M}" for t in ticks] == [
        "06:00",
        "10:00",
        "14:00",
        "18:00",
        "22:00",
        "02:00",
        "06:00",
    ]
    assert ticks[-2] - ticks[-3] == timedelta(hours=5)


def test_a_chart_whose_end_is_not_after_its_start_is_refused():
    with pytest.raises(ValueError, match="must come after"):
        win_chart_svg([], threshold=Decimal(3), title="x", start=START, end=START, tz=NEW_YORK)


LOADED = Faces(
    "all dice",
    (10, 12, 9, 11, 8, 30),
    Decimal("13.33"),
    Decimal("25.10"),
    5,
    Decimal("0.000134"),
)
DIE_1 = Faces("die 1", (5, 6, 4, 5, 4, 16), Decimal("6.67"), Decimal("12.4"), 5, Decimal("0.0297"))


def histogram(groups=(LOADED, DIE_1), alert=True) -> ET.Element:
    svg = face_histogram_svg(
        list(groups), title="Set HR-D-7 <loaded>", threshold=Decimal("0.001"), alert=alert
    )
    return ET.fromstring(svg)


def test_bars_are_proportional_to_the_counts_from_one_baseline():
    root = histogram()
    panels = root.findall("svg:g[@class='panel']", NS)
    assert [p.get("data-label") for p in panels] == ["all dice", "die 1"]
    for panel, group in zip(panels, (LOADED, DIE_1), strict=True):
        bars = panel.findall("svg:rect[@class='bar']", NS)
        assert [int(b.get("data-count")) for b in bars] == list(group.counts)
        heights = [float(b.get("height")) for b in bars]
        per_throw = heights[5] / group.counts[5]
        for height, count in zip(heights, group.counts, strict=True):
            assert height == pytest.approx(count * per_throw, abs=0.02)
        bottoms = {round(float(b.get("y")) + float(b.get("height")), 2) for b in bars}
        assert len(bottoms) == 1
        # The expected line sits at the expected count on the same scale.
        line = panel.find("svg:line[@class='expected']", NS)
        (baseline,) = bottoms
        assert float(line.get("y1")) == pytest.approx(
            baseline - float(group.expected) * per_throw, abs=0.02
        )
        # Equal widths, left to right by face.
        xs = [float(b.get("x")) for b in bars]
        assert xs == sorted(xs) and len({b.get("width") for b in bars}) == 1


def test_the_caption_says_chi_square_degrees_of_freedom_p_value_and_the_alert():
    root = histogram()
    captions = [t.text for t in root.findall(".//*[@class='caption']")]
    assert captions == [
        "all dice: chi-square 25.10 on 5 degrees of freedom, p-value 0.000134",
        "die 1: chi-square 12.40 on 5 degrees of freedom, p-value 0.0297",
    ]
    verdict = root.find(".//*[@class='verdict alert']")
    assert verdict.text.startswith("ALERT: p-value under 0.001")
    assert root.find("svg:title", NS).text == "Set HR-D-7 <loaded>"
    desc = root.find("svg:desc", NS).text
    assert "6 x 30 against 13.3 expected each" in desc


def test_a_fair_set_says_no_alert_and_keeps_its_bars_blue():
    root = histogram(groups=[DIE_1], alert=False)
    assert root.find(".//*[@class='verdict alert']") is None
    assert one(root, "verdict").text == "no alert (threshold: p-value under 0.001)"
    assert {b.get("fill") for b in root.findall(".//*[@class='bar']")} == {"#0072b2"}


def test_a_histogram_needs_a_group():
    with pytest.raises(ValueError, match="at least one group"):
        face_histogram_svg([], title="x", threshold=Decimal("0.001"), alert=False)


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [
        (0, 30, [0, 10, 20, 30]),
        (-125.7, 150, [-100, 0, 100]),
        (-12, 40, [0, 20, 40]),
        (0, 1, [0, 0.5, 1]),
        (0, 0, [0, 0.5, 1]),
    ],
)
def test_ticks_are_round_numbers(low, high, ticks):
    assert nice_ticks(low, high) == ticks


def test_a_25_hour_gaming_day_is_drawn_25_hours_wide():
    # No play on the day the clocks go back: 612 px for 25 hours, 24.48 px an hour; the
    # ticks 0, 4, 8, 12, 16, 21 (02:00 EST) and 25 hours in.
    svg = win_chart_svg(
        [],
        threshold=Decimal(3),
        title="HR-01",
        start=local(1, 6) - timedelta(days=1),
        end=local(1, 6),
        tz=NEW_YORK,
    )
    root = ET.fromstring(svg)
    hours = [0, 4, 8, 12, 16, 21, 25]
    assert xs_of(root, "x-tick") == pytest.approx([LEFT + 24.48 * h for h in hours], abs=0.01)
    assert texts(root, "x-date") == ["Sat 31 Oct", "Sun 1 Nov"]
