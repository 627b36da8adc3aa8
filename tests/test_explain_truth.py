"""An explain text's example says what the rule prints on it: PAR005's `## Example` is a
workload of its bad example, and the figures its comment gives (gap, best layout) are those of
the rule's real finding there, not a number written once by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import EXAMPLES, TODAY, example_config
from dclint.cli import main
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
    assert comment == "35.4% slower than the best, tp 2, pp 1, micro-batch 4"


NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in NUMBER.findall(text)}


def _code(text: str) -> str:
    """YAML without its comments: the inputs, not what a comment claims."""
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def test_every_explain_example_quotes_its_rules_real_findings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each rule's `dclint explain` example marks what the rule finds with a comment naming it
    ('# NET001: 2.00:1'); every figure such a comment gives is one the rule prints on its bad
    examples (tests/snapshots/<ID>.txt, which test_rule_snapshots holds to the rule's real
    findings) or an input of the example or of its bad examples. NET001's said 1.91:1 and
    REL001's 'optimum ~25 min' for a run whose finding says 5.922 min: 20 comments of 19
    rules drifted."""
    unmarked, drift = [], []
    for rule_id in sorted(discover()):
        assert main(["explain", rule_id]) == 0
        text = capsys.readouterr().out
        example = text.split("## Example", 1)[1].split("\n## ", 1)[0]
        comments = re.findall(r"#[^\n]*?\b" + rule_id + r"\b[:,]?\s*(.*)", example)
        if not comments:
            unmarked.append(rule_id)
            continue
        printed = (SNAPSHOTS / f"{rule_id}.txt").read_text("utf-8")
        assert f": {rule_id} [" in printed, f"{rule_id} finds nothing on its bad examples"
        folder = EXAMPLES / rule_id.lower()
        bad = "".join(p.read_text("utf-8") for p in sorted(folder.glob("bad*.yaml")))
        known = _numbers(printed) | _numbers(_code(bad)) | _numbers(_code(example))
        for comment in comments:
            missing = sorted(_numbers(comment) - known)
            if missing:
                drift.append(f"{rule_id}: {comment!r} gives {missing}")
    assert drift == []
    # the suppression and load-error rules show a design line, not a finding's figures
    assert unmarked == ["DCL000", "DCL001", "DCL002", "DCL003", "DCL004", "DCL005"]
