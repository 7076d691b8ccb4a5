"""The SVG charts (issue 23, item 3), read back with xml.etree: the geometry follows the
figures (bars proportional to counts, the bands where the numbers put them), text is
escaped, the output is deterministic and accessible. No database."""

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from casino.charts import face_histogram_svg, nice_ticks, win_chart_svg

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


def test_the_x_scale_is_time_across_the_gaming_day():
    root = win_chart()
    xs = [x for x, _ in pairs(one(root, "actual").get("points"))]
    left, right = 84, 720 - 24  # the plot's edges: 612 px for 24 hours, 25.5 px an hour
    assert xs == [left, left + 25.5, left + 51, left + 153]
    labels = [t.text for t in root.findall(".//*[@class='x-tick']")]
    assert labels[0] == "05:00" and labels[-1] == "05:00"
    assert one(root, "x-label").text == "Time (America/New_York)"
    assert one(root, "y-label").text == "House's cumulative win ($)"
    assert right == 696


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


def test_a_day_without_rounds_is_a_flat_chart_at_zero():
    root = win_chart(points=[])
    assert pairs(one(root, "actual").get("points")) == pairs(one(root, "theoretical").get("points"))
    assert "0 settled rounds" in root.find("svg:desc", NS).text


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
