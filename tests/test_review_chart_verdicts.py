"""The review's rack chart takes its verdicts from the findings: a rack is red because a rule
found its load over the limit, never because another finding names it or because the chart
judged the load again with a tolerance of its own."""

from __future__ import annotations

from dataclasses import replace

from conftest import SAMPLES
from dclint.library import run
from dclint.report.charts import _racks
from dclint.report.review import reviews


def _bars() -> dict[str, tuple[bool, str]]:
    (review,) = reviews(run(str(SAMPLES / "broken-rack-130kw.yaml")))
    first = review.findings[0]
    assert (first.rule, first.subject, first.path) == ("PWR001", "su1-r8", "racks[1].it_load")
    # another rule names su1-r1 (at 120 kW, on its limit) for something else than its load
    review.findings.append(replace(first, rule="CLG006", subject="su1-r1", path="racks[0].cooling"))
    return {bar.label: (bar.over, bar.note) for bar in _racks(review)}


def test_a_rack_is_red_when_its_load_finding_says_so() -> None:
    bars = _bars()
    assert bars == {
        "su1-r[1-7] nvl72": (False, "7 racks at 120 kW (limit 120 kW)"),
        "su1-r8 nvl72": (True, "130 kW; over 120 kW: su1-r8"),
    }
