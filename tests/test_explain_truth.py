"""An explain text's example says what the rule prints on it: PAR005's `## Example` is a
workload of its bad example, and the figures its comment gives (gap, best layout) are those of
the rule's real finding there, not a number written once by hand."""

from __future__ import annotations

import re

from conftest import EXAMPLES, TODAY, example_config
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run


def test_par005_explain_example_is_its_real_finding() -> None:
    doc = discover()["PAR005"].doc()
    block = doc.split("## Example", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    lines = block.splitlines()
    flagged = next(line for line in lines if "# PAR005: " in line)
    code, comment = flagged.split("  # PAR005: ")
    folder = EXAMPLES / "par005"
    bad = (folder / "bad.yaml").read_text("utf-8")
    # The example's workload is the bad example's, line for line (its mark aside).
    workload = "\n".join([*lines[1:-1], f"{code}  # expect: PAR005"])
    assert workload in bad
    result = run([str(folder / "bad.yaml")], Engine(config=example_config(folder), today=TODAY))
    wid = re.search(r"- id: (\S+)", block)
    assert wid is not None
    finding = next(
        f for f in result.findings if f.rule == "PAR005" and f.subject.endswith(wid.group(1))
    )
    gap = re.search(r"([\d.]+)% slower than the best", finding.message)
    best = re.search(r"best: tp (\d+), pp (\d+),.* micro-batch (\d+),", finding.message)
    assert gap is not None and best is not None
    tp, pp, mb = best.groups()
    assert comment == f"{gap.group(1)}% slower than the best, tp {tp}, pp {pp}, micro-batch {mb}"
    assert comment == "35.5% slower than the best, tp 2, pp 1, micro-batch 4"
