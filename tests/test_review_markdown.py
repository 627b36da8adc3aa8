"""Markdown review as a pull-request comment: size, folding, Mermaid, the summary format."""

from __future__ import annotations

import re

import pytest

from conftest import SAMPLES
from dclint.cli import main
from dclint.report.markdown_summary import MARKER

ALL = sorted(str(p) for p in SAMPLES.glob("*.yaml"))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    main(["check", *args])
    return capsys.readouterr().out


def test_samples_fit_a_pull_request_comment(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, *ALL, "--format", "markdown")
    assert len(out) < 60_000, len(out)  # GitHub refuses comments over 65,536 characters
    headings = re.findall(r"^(#+ .*)$", out, re.M)
    assert headings[:2] == ["# dclint design review", "## Overview"]
    assert headings.count("## Assumptions and limits") == 1
    assert headings[-1] == "## Assumptions and limits"
    # the overview: a row a design, linked to its section
    assert (
        "| [broken-feed-headroom](#broken-feed-headroom) | fails | 2 | 0 | 0 | 576 | 960 kW |"
    ) in out
    assert out.count("](#") == 2 * len(ALL) + 1  # the overview and the contents line
    # details folded: run details, per design summary, diagrams and projection, assumptions
    assert out.count("<details>") == out.count("</details>")
    assert out.count("<details><summary>Summary figures</summary>") == len(ALL)
    assert out.count("<details><summary>Diagrams: power one-line") == len(ALL)
    assert out.count("```mermaid\nflowchart ") >= 2 * len(ALL)
    assert "| Options differing from defaults | none |" in out
    assert re.search(r"\b(?:founding|memo|DOMAIN\.md)\b", out, re.I) is None


def _node(out: str, title: str) -> str:
    match = re.search(rf'^  (n\d+)\["{re.escape(title)}', out, re.M)
    assert match is not None, title
    return match.group(1)


def test_mermaid_marks_the_element_at_fault(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, str(SAMPLES / "broken-feed-headroom.yaml"), "--format", "markdown")
    power = out[out.index("**Power one-line") : out.index("**Cooling loops")]
    # the load PWR008 checks, the racks' peak (8 x 132 kW), not their 960 kW design load
    node = _node(power, "busway-a (busway) - PWR002, PWR008<br/>1056 kW at peak / 983.3 kW derated")
    assert f"  class {node} over\n" in power
    assert _node(
        power, "busway-b (busway)<br/>1056 kW at peak / 1093 kW derated"
    ) not in re.findall(r"class (\S+) over", power)
    out = _run(capsys, str(SAMPLES / "broken-fabric-2to1.yaml"), "--format", "markdown")
    fabric = out[out.index("**Fabric tiers") :]
    title = "leaf#58; 18 switches binding - NET001<br/>230.4 Tb/s down / 115.2 Tb/s up"  # : #58;
    leaf = _node(fabric, title)
    assert f"  class {leaf} over\n" in fabric


def test_step_drawn_when_the_projection_has_one(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, str(SAMPLES / "gb200-superpod-su.yaml"), "--format", "markdown")
    # the parts are the predicted step's, which the caption names with its band (the step the
    # training days use is the declared MFU's, 7.36 s: the caption said 'Training step')
    assert (
        "Predicted step of llama-70b-pretrain, 7.481 s (5.92-9.20 s):\n\n| Part | Time | Share |\n"
    ) in out
    assert re.search(r"^\| compute \| [\d.]+ m?s \| \d+% \|$", out, re.M)


def test_markdown_summary_for_a_comment_bot(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, *ALL, "--format", "markdown-summary")
    lines = out.splitlines()
    assert lines[:2] == [MARKER, "### dclint: Found 5 errors, 1 warning in 8 designs."]
    assert "| broken-rack-130kw | fails | 1 | 0 | 0 | 576 | 970 kW |" in out
    assert "](#" not in out  # the sections it would link to are not in this comment
    findings = [line for line in lines if line.startswith("- ")]
    assert [re.search(r"\*\*(\w+)\*\*", f).group(1) for f in findings] == [  # type: ignore[union-attr]
        "NET001",
        "PWR002",
        "PWR008",
        "PWR001",
        "STO001",
        "REL001",  # moe-1.7t saves every 2 h against a 6.19 h job MTBF
    ]
    assert "<details>" not in out and "mermaid" not in out
    assert len(out) < 4_000


def test_clean_run_summary(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, str(SAMPLES / "gb200-superpod-su.yaml"), "--format", "markdown-summary")
    assert out.splitlines()[1].startswith("### dclint: All checks passed")
    assert [line for line in out.splitlines() if line.startswith("- ")] == []
    row = (
        r"\| gb200-superpod-su \| passes \| 0 \| 0 \| 0 \| 576 \| 960 kW \| 136.6 d "
        r"\| [\d,]+ CNY \|"
    )
    row += "\n$"
    assert re.search(row, out)  # the table ends the comment


def test_summary_days_as_the_cost_prints_them(capsys: pytest.CaptureFixture[str]) -> None:
    # `dclint cost` prints h100-40node's training time as 1.751 d; the comment's table did as
    # 1.8, without its unit
    out = _run(capsys, str(SAMPLES / "h100-40node.yaml"), "--format", "markdown-summary")
    assert "| h100-40node | passes | 0 | 0 | 0 | 320 | 340 kW | 1.751 d | 120,974 CNY |" in out


def test_summary_prints_no_days_a_blocking_error_voids(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # pp 3 does not divide 40 layers (PAR003, the design cannot run as stated): the review
    # prints no projection for it, and neither may the overview
    out = _run(
        capsys,
        str(SAMPLES / "h100-40node.yaml"),
        "--set",
        "workloads.llm-13b.parallel={tp: 8, pp: 4}",
        "--set",
        "workloads.llm-13b.model.layers=42",
        "--format",
        "markdown-summary",
    )
    assert "PAR003" in out
    assert "| h100-40node | fails | 1 | 0 | 0 | 320 | 340 kW | - | - |" in out
