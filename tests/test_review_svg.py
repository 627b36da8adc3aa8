"""The review's drawing helpers: SI-prefixed numbers, round axis ticks, ids written as ranges."""

from __future__ import annotations

import pytest

from dclint.model.ranges import compact
from dclint.report.svg import nice_ticks, si


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1.5e8, "CNY", "150 M CNY"),  # a currency keeps its code apart from the prefix
        (2.659e9, "CNY", "2.66 bn CNY"),  # money in billions as finance writes it, not 'G CNY'
        (1.2e12, "USD", "1.2 tn USD"),
        (125_000.0, "W", "125 kW"),
        (2.5e9, "B/s", "2.5 GB/s"),
        (0.000575, "s", "575 µs"),
        (0.247, "s", "247 ms"),
        (5.28, "s", "5.28 s"),
        (0.0, "W", "0 W"),
        (0.25, "", "0.25"),
        (40.0, "%", "40 %"),
        (float("nan"), "W", "-"),
        # a value that rounds up to the next prefix takes it (was '1e+03 ms', '1e+03 M CNY')
        (0.9996, "s", "1 s"),
        (0.0009997, "s", "1 ms"),
        (999.6e6, "CNY", "1 bn CNY"),
        (999_700.0, "W", "1 MW"),
        (999.6, "W", "1 kW"),
        (2.5e16, "W", "25,000 TW"),  # beyond the largest prefix: grouped, still no exponent
    ],
)
def test_si_prefixes_never_exponents(value: float, unit: str, text: str) -> None:
    assert si(value, unit) == text


def test_nice_ticks() -> None:
    assert nice_ticks(130.0) == [0.0, 50.0, 100.0, 150.0]
    assert nice_ticks(120_000.0) == [0.0, 25_000.0, 50_000.0, 75_000.0, 100_000.0, 125_000.0]
    assert nice_ticks(0.0) == [0.0, 1.0]


def test_compact_ids() -> None:
    assert compact(["tap-a1", "tap-a2", "tap-a3", "tap-a5"]) == "tap-a[1-3,5]"
    assert compact(["r01", "r02", "r62"]) == "r[01-02,62]"
    assert compact([f"x{i}" for i in range(1000)]) == "x[0-999]"
    assert compact(["a", "b", "c", "d", "e", "f"]) == "a, b, c, d and 2 more"


def test_a_chart_title_past_the_chart_is_cut_with_a_mark() -> None:
    """A chart's drawn title takes at most TITLE_MOST (88) characters, the 88th an ellipsis;
    its <title> keeps it whole. Uncut, the SVG clipped it unmarked at the chart's edge (a
    60-character workload id: 'Predicted step of ..., 2.62 s (1.89-2')."""
    from dclint.report.svg import TITLE_MOST, Part, stacked

    assert TITLE_MOST == 88
    title = f"Predicted step of {'w' * 60}, 2.62 s (1.89-2.89 s): where the time goes"
    chart = stacked(title, [Part("compute", 2.0)], "s", "c")
    drawn = title[:87] + "\u2026"
    assert f'<title id="c-t">{title}</title>' in chart
    assert f'font-weight="bold">{drawn}</text>' in chart
    shorter = "x" * 88  # as long as it may be: drawn whole
    assert f'font-weight="bold">{shorter}</text>' in stacked(shorter, [], "s", "d")


def test_a_long_workload_id_is_cut_before_the_step_figure() -> None:
    """The step chart's title cuts a long workload id, not the step's figure at its end: with a
    66-character id the title cut at TITLE_MOST ended '..., 2\u2026' (the review of a design
    whose workload id is that long)."""
    from dclint.report.charts import step_title

    step = "2.62 s (1.89-2.89 s)"
    assert step_title("w" * 19, step) == (
        f"Predicted step of {'w' * 19}, 2.62 s (1.89-2.89 s): where the time goes"
    )
    title = step_title("w" * 66, step)
    assert title == (
        f"Predicted step of {'w' * 26}\u2026, 2.62 s (1.89-2.89 s): where the time goes"
    )
    assert len(title) == 88
