"""The review's figures print at full size (issue 29 item 5): every diagram and chart is drawn
at most 644 units wide with 12-unit text or larger, so at a printed page's text width (about
665 CSS px on A4 and Letter) no text in a figure is under 9 pt; bar charts hold at most
ROWS_MOST rows; identical elements are one box ("22 x busway")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dclint.analysis.diagrams import Graph, Node, grouped
from dclint.cli import main
from dclint.report.svg import ROWS_MOST, Bar, hbars

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(str(p) for p in (ROOT / "sample_designs").glob("*.yaml"))


# moe-1.7t-nvl72's review runs PAR005's layout search (10 CPU-seconds, the rest 3): its figures
# are checked with the integration tier
MOE = [s for s in SAMPLES if Path(s).name == "moe-1.7t-nvl72.yaml"]


@pytest.mark.parametrize(
    ("samples", "least"),
    [
        pytest.param([s for s in SAMPLES if s not in MOE], 40, id="samples"),
        pytest.param(MOE, 8, id="moe", marks=pytest.mark.integration),
    ],
)
def test_every_figure_of_the_samples_review_fits_the_text_width(
    tmp_path: Path, samples: list[str], least: int
) -> None:
    assert samples
    out = tmp_path / "review.html"
    assert main(["review", *samples, "-o", str(out), "--today", "2026-12-02"]) == 0
    html = out.read_text(encoding="utf-8")
    svgs = re.findall(r"<svg [^>]*>", html)
    assert len(svgs) >= least
    widths = [float(re.search(r'viewBox="0 0 ([\d.]+) ', s).group(1)) for s in svgs]  # type: ignore[union-attr]
    assert max(widths) <= 644
    sizes = {float(x) for x in re.findall(r'font-size="([\d.]+)"', html)}
    assert min(sizes) >= 12


def test_identical_siblings_are_one_box() -> None:
    g = Graph("power")
    g.add(Node("utility", "utility", "100 kW / 200 kW", 0, 0.5))
    for i in (1, 2, 3):
        g.add(Node(f"panel:bw-{i:02d}", f"bw-{i:02d} (busway)", "30 kW / 60 kW", 1, 0.5))
        g.link("utility", f"panel:bw-{i:02d}")
    g.add(Node("panel:bw-04", "bw-04 (busway)", "10 kW / 60 kW", 1, 1 / 6))
    g.link("utility", "panel:bw-04")
    for i in (1, 2, 3, 4):
        g.add(Node(f"feeds:bw-{i:02d}", f"2 feeds t{i}-[1-2]", "worst 15 kW", 2, None,
                   members=(f"t{i}-1", f"t{i}-2")))  # fmt: skip
        g.link(f"panel:bw-{i:02d}", f"feeds:bw-{i:02d}")
    out = grouped(g)
    assert [(n.key, n.title, n.detail) for n in out.nodes] == [
        ("utility", "utility", "100 kW / 200 kW"),
        ("panel:bw-01+2", "3 x bw-[01-03] (busway)", "each 30 kW / 60 kW"),
        ("panel:bw-04", "bw-04 (busway)", "10 kW / 60 kW"),
        # the feeds under the three alike busways are alike; bw-04's have another parent
        ("feeds:bw-01+2", "3 x 2 feeds t1-[1-2], t2-[1-2], t3-[1-2]", "each worst 15 kW"),
        ("feeds:bw-04", "2 feeds t4-[1-2]", "worst 15 kW"),
    ]
    assert out.nodes[1].members == ("bw-01", "bw-02", "bw-03")
    assert out.nodes[3].members == ("t1-1", "t1-2", "t2-1", "t2-2", "t3-1", "t3-2")
    assert out.edges == [
        ("utility", "panel:bw-01+2", ""),
        ("utility", "panel:bw-04", ""),
        ("panel:bw-01+2", "feeds:bw-01+2", ""),
        ("panel:bw-04", "feeds:bw-04", ""),
    ]


def test_a_flagged_element_is_never_hidden_in_a_group() -> None:
    g = Graph("power")
    g.add(Node("panel:p1", "p1", "30 kW / 60 kW", 0, 0.5))
    g.add(Node("panel:p2", "p2", "30 kW / 60 kW", 0, 0.5, over=True, rules=("PWR008",)))
    assert [n.key for n in grouped(g).nodes] == ["panel:p1", "panel:p2"]


def test_a_long_bar_chart_is_split_into_page_sized_charts() -> None:
    from dclint.report.charts import _bars

    bars = [Bar(f"r{i}", 10.0 * i, 100.0, False, "") for i in range(ROWS_MOST * 2 + 1)]
    charts = _bars("Load", bars, "%", "c")
    assert [t for t, _ in charts] == ["Load (1 of 3)", "Load (2 of 3)", "Load (3 of 3)"]
    assert [c.count('class="bar') for _, c in charts] == [ROWS_MOST, ROWS_MOST, 1]
    assert 'viewBox="0 0 640 ' in hbars("x", bars[:1], "%", "x")
