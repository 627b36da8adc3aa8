"""A figure printed the same wherever it appears, with the precision it has: a band's ends keep
the trailing zero that is one of their figures ('1.417 d (1.0-1.7 d)', not '(1-1.7 d)'; a step
of 2.708 s with a band from factor 1.0 reads '(2.70-3.17 s)'), a calibration band's factors
print to the 3 places the band table holds ('0.740-1.155x', not '0.74-1.155x'), `dclint cost`'s
assumptions quote the save, job MTBF and Young/Daly interval as REL001 does (they printed
'16 s', '6.19 h' and '14 min' beside REL001's '15.87 s', '6.186 h' and '14.01 min'), its goodput
as REL001 does ('82.24%', where it printed '82.2%'), and counts of GPUs carry the thousands
separator every other count does ('8,192 x gb200', '8,208 GPUs', where they printed '8192')."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dclint.analysis.summary import summarise
from dclint.cli import main
from dclint.engine.registry import discover
from dclint.loader import load
from dclint.report.markdown import summary_rows
from dclint.report.values import show, tco_rows
from dclint.units import fmt_band, fmt_factors

SAMPLES = Path(__file__).resolve().parent.parent / "sample_designs"
MOE = str(SAMPLES / "moe-1.7t-nvl72.yaml")
H100 = str(SAMPLES / "h100-40node.yaml")


@pytest.mark.parametrize(
    ("low", "high", "digits", "printed"),
    [
        (2.708, 3.165, 3, "2.70-3.17"),  # factor 1.0 at the low end: the point's 2.708 s
        (1.04, 1.7, 2, "1.0-1.7"),
        (1.0, 3.0, 2, "1.0-3.0"),
        (0.97, 3.9, 2, "0.97-3.9"),
        (9.96, 12.0, 2, "9.9-12"),
        (8.1, 9.96, 2, "8.1-10"),  # a carry into the next power of ten keeps 2 figures
        (126.1, 235.0, 2, "120-240"),
        (67_012.0, 268_400.0, 2, "67,000-270,000"),
    ],
)
def test_a_band_prints_every_figure_it_has(
    low: float, high: float, digits: int, printed: str
) -> None:
    assert fmt_band(low, high, digits) == printed


def test_a_calibration_band_prints_its_factors_to_their_3_places() -> None:
    assert fmt_factors(0.74, 1.155) == "0.740-1.155"
    assert fmt_factors(0.74, 1.997, " to ") == "0.740 to 1.997"


def test_cost_quotes_the_reliability_figures_as_rel001_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", MOE]) == 0
    finding = capsys.readouterr().out
    assert main(["cost", MOE]) == 0
    cost = capsys.readouterr().out
    assert "job MTBF 6.186 h on 8,192 GPUs" in finding
    assert "goodput 82.24%, against" in finding
    assert "sqrt(2 x 15.87 s save x MTBF) = 14.01 min" in finding
    assert "  - synchronous checkpoint saves: 15.87 s each, 186 saves to weka\n" in cost
    assert "job MTBF 6.186 h, restart 10 min, Young/Daly interval 14.01 min\n" in cost
    assert "\ngoodput                           82.24%\n" in cost
    assert "\nGPUs                              8,192 x gb200\n" in cost
    assert "over 3 years, 8,208 GPUs\n" in cost
    # the same figures, wherever either prints them
    for pattern in (
        r"job MTBF ([\d.]+ h)",
        r"(?:interval|=) ([\d.]+ min)",
        r"([\d.]+ s) (?:save|each)",
    ):
        assert set(re.findall(pattern, finding)) == set(re.findall(pattern, cost)), pattern


def test_the_review_prints_counts_with_separators() -> None:
    """The review's summary figures (the GPUs row printed '8208' above '19,000 kW')."""
    s = summarise(load(MOE), None, discover(()))
    assert summary_rows(s)[:2] == [("GPUs", "8,208"), ("Racks", "114")]


def test_par005_saves_the_gap_between_the_layout_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """PAR005's price is the declared layout's days and cost less the best's, as the review's
    layout table and `dclint plan` give them (Plan.days: the saves are one an interval of
    running time, so the faster run takes fewer): it held the checkpoint time and printed
    'saves 0.4741 d, 32,760 CNY' beside rows 1.751 d, 120,974 CNY and 1.276 d, 88,173 CNY."""
    from dclint.projection.search.plan import plan_layouts

    assert main(["check", "--layout-search", "--format", "json", H100]) == 0
    (f,) = json.loads(capsys.readouterr().out)["designs"][0]["findings"]
    design = load(H100)
    plan = plan_layouts(design, design.workloads[0], reserve=0.1)
    assert not isinstance(plan, str)
    declared, best = plan.declared, plan.result.valid[0]
    days = plan.days(declared, plan.scale) - plan.days(best, plan.scale)
    cost = plan.cost(declared, plan.scale) - plan.cost(best, plan.scale)  # type: ignore[operator]
    assert f["rule"] == "PAR005"
    assert f["impact"]["days"] == pytest.approx(days.m_as("day"), rel=1e-12)
    assert f["impact"]["cost"] == pytest.approx(cost.m_as("CNY"), rel=1e-12)


def test_the_review_gives_the_tco_the_rows_cost_gives_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The review's TCO table (from the JSON record) is `dclint cost`'s: it printed the record's
    keys, 'period years | 3', 'gpus | 1000', 'break even months | 9.99'."""
    b200 = str(SAMPLES / "b200-1000gpu.yaml")
    assert main(["cost", "--format", "json", b200]) == 0
    (tco,) = json.loads(capsys.readouterr().out)["tco"]
    assert main(["cost", "--format", "markdown", b200]) == 0
    table = capsys.readouterr().out.split("| Item | Value |\n|---|---|\n", 1)[1].split("\n\n")[0]
    cost_rows = [line.strip("|").split(" | ") for line in table.strip().splitlines()]
    rows = tco_rows(tco)
    assert rows[0] == ["total", "615,310,386 CNY over 3 years, 1,000 GPUs"]
    assert rows[-2:] == [["break-even", "10.0 months"], ["omitted (not declared)", "building"]]
    assert [[c.replace("\\_", "_").strip() for c in r] for r in cost_rows] == rows
    assert show(8192) == "8,192"  # a count, as `dclint cost` prints it


def test_the_cost_chart_says_whose_items_it_draws() -> None:
    """The HTML review's cost chart drew the TCO's items under 'Cost breakdown (CNY)', the
    words the text beside it gives the run's own cost ('Cost breakdown of moe-1.7t:
    electricity ..., depreciation ...')."""
    from dclint.report.html import _cost

    class R:
        tco = {"currency": "CNY", "period_years": 3.0, "items": {"hardware": 2.659e9}}
        projections = [{"workload": "w", "currency": "CNY", "cost_breakdown": {"energy": 1e6}}]

    assert _cost(R) == ({"hardware": 2.659e9}, "CNY", "TCO over 3 years by item")  # type: ignore[arg-type]
    R.tco = {}
    assert _cost(R) == ({"energy": 1e6}, "CNY", "Cost breakdown of w")  # type: ignore[arg-type]


def test_cost_names_and_times_the_step_parts_as_the_review_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`dclint cost` printed h100-40node's 'TP comm. 0.176 s (7%)' where the review's step
    table prints 'tensor-parallel comm. | 176 ms | 7%': the same labels (STEP_PARTS) and
    the same time (svg.si; 'us' for the micro prefix in the plain text)."""
    assert main(["cost", H100]) == 0
    lines = capsys.readouterr().out.splitlines()
    i = lines.index("  compute                         2.3 s (88%)")
    assert lines[i : i + 11] == [
        "  compute                         2.3 s (88%)",
        "  recompute                       0 s (0%)",
        "  tensor-parallel comm.           176 ms (7%)",
        "  pipeline bubble                 0 s (0%)",
        "  pipeline sends                  0 s (0%)",
        "  data-parallel comm.             151 ms (6%)",
        "  context-parallel comm.          0 s (0%)",
        "  expert all-to-all               0 s (0%)",
        "  optimizer                       515 us (0%)",
        "  stragglers                      495 us (0%)",
        "compute                           1.736 d",
    ]


def test_cost_prints_a_communication_term_only_where_one_is_declared(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """'communication 0 d' under a predicted step whose parts spend 13% of it communicating
    read as none: the row is the declared communication_overhead's, shown where one is."""
    assert main(["cost", H100]) == 0
    plain = capsys.readouterr().out
    assert "\ncompute                           1.736 d\ncheckpoints  " in plain
    assert "\ncommunication " not in plain
    assert main(["cost", H100, "--set", "workloads.llm-13b.communication_overhead=10%"]) == 0
    declared = capsys.readouterr().out
    assert (
        "\ncompute                           1.736 d\ncommunication                     0.1929 d\n"
        in (declared)
    )
