"""Issue 27 item 11: a number that is not finite (NaN, infinity) or a zero divisor never reaches
a report. A feed derated to nothing (its ambient at or above its conductors' rating) is a finding,
not a division by zero; SVG never gets `inf` or `nan` in an attribute; the JSON writers, the
streamed grid and the grid store never write `NaN` or `Infinity`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dclint.analysis.diagrams import Node
from dclint.analysis.grid.facility import GridPoint, Setup
from dclint.analysis.grid.store import GridStore
from dclint.cli import main
from dclint.errors import LoadError
from dclint.report.drawing import _box
from dclint.report.grid import _json_stream, _svg
from dclint.report.svg import Bar, Part, hbars, si, stacked

ROOT = Path(__file__).resolve().parent.parent
DERATED = ROOT / "tests" / "corpus" / "feed-derated-to-nothing.yaml"
NOT_FINITE_ATTRIBUTE = re.compile(r'="[^"]*\b(?:inf|nan)\b[^"]*"', re.IGNORECASE)


def _point(days: float, cost: float) -> GridPoint:
    return GridPoint(("1.2",), {"error": 0}, [], None, days, cost, None, "USD", pareto=True)


def test_a_feed_derated_to_nothing_is_a_finding_not_a_division_by_zero(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", str(DERATED), "--select", "PWR003,PWR004"]) == 1
    out = capsys.readouterr().out.replace(f"{DERATED}:", "")
    assert "ZeroDivisionError" not in out
    assert out.splitlines() == [
        "6:23: PWR003 [error] feed a carries 30 kW on path A (rack r01 at its design IT load: no "
        "catalog max_power known), above its derated capacity (415 V x 100 A three-phase at "
        "80% x 0 for 75 degC ambient (75 degC conductors, rated at 30 degC; NEC 310.15(B)(1), "
        "IEC 60364-5-52): 0 kVA x PF 0.95) (measured 30 kW, limit 0 kW)",
        "11:23: PWR003 [error] feed b carries 30 kW on path B (rack r01 at its design IT load: no "
        "catalog max_power known), above its derated capacity (415 V x 100 A three-phase at "
        "80% x 0 for 80 degC ambient (75 degC conductors, rated at 30 degC; NEC 310.15(B)(1), "
        "IEC 60364-5-52): 0 kVA x PF 0.95) (measured 30 kW, limit 0 kW)",
        "17:12: PWR004 [error] rack r01 loses its redundancy: with feed a lost, its feed b would "
        "carry 30 kW, above its derated capacity (rack load 30 kW, its design IT load: no "
        "catalog max_power known, on 2 feeds) (measured 30 kW, limit 0 kW)",
        "Found 3 errors in 1 design.",
    ]


def test_the_review_of_a_feed_derated_to_nothing_draws_no_infinite_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "review.html"
    assert main(["review", str(DERATED), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert NOT_FINITE_ATTRIBUTE.findall(page) == []
    # the feeds' bar runs to the axis' end, in red, and its note says why
    bar = re.search(r'<rect class="bar over" data-id="feeds:" [^>]*>', page)
    assert bar is not None
    assert 'width="630.0"' in bar.group()
    assert ">no capacity: worst 30 kW" in page


def test_bars_of_values_that_are_not_finite_keep_every_attribute_finite() -> None:
    bars = [
        Bar("a", float("inf"), 100.0),
        Bar("b", float("nan"), 100.0),
        Bar("c", 50.0, float("inf"), low=float("-inf")),
        Bar("d", 1e308, 1e308),
    ]
    chart = hbars("t", bars, "%", "x")
    assert NOT_FINITE_ATTRIBUTE.findall(chart) == []
    widths = re.findall(
        r'<rect class="bar[^"]*" data-id="(\w)" x="([^"]+)" y="\d+" width="([^"]+)"', chart
    )
    assert widths == [("a", "0.0", "630.0"), ("c", "0.0", "1.0"), ("d", "0.0", "630.0")]
    assert si(float("inf"), "W") == si(float("nan"), "W") == "-"


def test_a_stacked_bar_leaves_out_a_part_that_is_not_finite() -> None:
    chart = stacked("t", [Part("a", 1.0), Part("b", float("inf")), Part("c", 3.0)], "s", "x")
    assert NOT_FINITE_ATTRIBUTE.findall(chart) == []
    parts = re.findall(
        r'<rect class="part" data-id="(\w)" x="([^"]+)" y="26" width="([^"]+)"', chart
    )
    assert parts == [("a", "0.0", "132.5"), ("c", "132.5", "397.5")]


@pytest.mark.parametrize(("share", "width"), [(float("inf"), "293.0"), (float("nan"), None)])
def test_a_diagram_gauge_of_a_share_that_is_not_finite(share: float, width: str | None) -> None:
    box = _box(Node("k", "t", "d", 0, share), 0.0, 0.0)
    assert NOT_FINITE_ATTRIBUTE.findall(box) == []
    found = re.findall(r'width="([^"]+)"\s+height="4" fill="#2b6cb0"', box)
    assert (found[0] if found else None) == width


def test_the_what_if_chart_leaves_out_points_that_are_not_finite() -> None:
    chart = _svg([_point(float("inf"), 5.0), _point(2.0, float("nan"))], ["site.pue"])
    assert chart == "<p>No point has both days and a cost to draw.</p>"
    chart = _svg([_point(1.0, 5.0), _point(2.0, float("inf")), _point(3.0, 7.0)], ["site.pue"])
    assert NOT_FINITE_ATTRIBUTE.findall(chart) == []
    assert chart.count("<circle") == 2


def test_the_streamed_grid_json_writes_null_for_a_number_that_is_not_finite() -> None:
    points = [_point(float("inf"), float("nan"))]
    text = "".join(_json_stream(Setup("d.yaml", None), ["site.pue"], lambda: iter(points), ""))
    assert "Infinity" not in text and "NaN" not in text
    point = json.loads(text)["points"][0]
    assert (point["days"], point["run_cost"]) == (None, None)


def test_the_grid_store_writes_null_for_a_number_that_is_not_finite(tmp_path: Path) -> None:
    store = GridStore(str(tmp_path / "g.db"), {"grid": "t"}, GridPoint)
    store.put([(0, _point(float("inf"), float("nan")))])
    row = store.db.execute("select point, days, cost from points").fetchone()
    assert "Infinity" not in row[0] and "NaN" not in row[0]
    assert (json.loads(row[0])["days"], row[1], row[2]) == (None, None, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (  # 1e-45 W
            "1e-21 yW",
            "power 1e-21 yW is out of range (too small): at least 1e-30 in SI base units"
            " (g, m, s, bit), the prefix applied",
        ),
        (  # 1e45 W
            "1e21 YW",
            "power 1e21 YW is out of range: at most 1e30 in SI base units (g, m, s, bit),"
            " the prefix applied",
        ),
        (
            "1e-22 kW",
            "power 1e-22 kW is out of range (too small): a nonzero magnitude is at least 1e-21"
            " in the unit written",
        ),
        (
            "1e22 kW",
            "power 1e22 kW is out of range: dclint reads magnitudes up to 1e21 in the unit written",
        ),
        ("1e-17 mW", None),  # 1e-20 W: within both bounds
        ("1e15 GW", None),  # 1e24 W
    ],
)
def test_a_prefix_cannot_carry_a_value_past_the_bounds(text: str, message: str | None) -> None:
    from dclint.loader.load import load_text

    design = f"name: t\nracks:\n  - {{id: r01, it_load: {text}}}\n"
    try:
        load_text(design, "d.yaml")
    except LoadError as exc:
        assert [p.message for p in exc.problems] == [f"racks[0].it_load: {message}"]
    else:
        assert message is None
