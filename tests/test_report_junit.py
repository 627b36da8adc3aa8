"""JUnit XML output: read back with junitparser, a suite per design and a case per rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_designs"


def junit_of(args: list[str], tmp_path: Path) -> JUnitXml:
    out = tmp_path / "report.xml"
    main(["check", *args, "--format", "junit", "-o", str(out), "--today", "2026-12-02"])
    return JUnitXml.fromfile(str(out))


def test_suite_per_design_case_per_rule(tmp_path: Path) -> None:
    xml = junit_of(
        [
            str(SAMPLES / "broken-rack-130kw.yaml"),
            str(SAMPLES / "gb200-superpod-su.yaml"),
            "--select",
            "PWR001,PWR002,NET001",
        ],
        tmp_path,
    )
    suites = {s.name: s for s in xml}
    assert set(suites) == {"broken-rack-130kw", "gb200-superpod-su"}
    broken = suites["broken-rack-130kw"]
    cases = {c.name: c for c in broken}
    assert set(cases) == {
        "NET001 fabric-oversubscribed",
        "PWR001 rack-power-over-limit",
        "PWR002 power-headroom-too-small",
    }
    (failure,) = cases["PWR001 rack-power-over-limit"].result
    assert isinstance(failure, Failure)
    assert failure.message == (
        "rack su1-r8 design IT load 130 kW exceeds the rack power limit "
        "(measured 130 kW, limit 120 kW)"
    )
    assert "broken-rack-130kw.yaml:53:14: PWR001 [error]" in failure.text
    assert cases["NET001 fabric-oversubscribed"].is_passed
    assert (broken.tests, broken.failures, broken.errors) == (3, 1, 0)
    assert all(c.is_passed for c in suites["gb200-superpod-su"])


def test_load_error_is_an_error_case(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: 'x\n", encoding="utf-8")
    xml = junit_of([str(bad), "--select", "PWR001"], tmp_path)
    (suite,) = list(xml)
    cases = {c.name: c for c in suite}
    assert isinstance(cases["load"].result[0], Error)
    assert isinstance(cases["PWR001 rack-power-over-limit"].result[0], Skipped)
    assert (suite.tests, suite.errors, suite.skipped) == (2, 1, 1)


def test_control_characters_and_markup(tmp_path: Path) -> None:
    design = tmp_path / "d.yaml"
    text = (SAMPLES / "broken-rack-130kw.yaml").read_text(encoding="utf-8")
    design.write_text(
        text.replace("name: broken-rack-130kw", 'name: "a<b> & \\"c\\": ü"', 1),
        encoding="utf-8",
    )
    xml = junit_of([str(design), "--select", "PWR001"], tmp_path)
    (suite,) = list(xml)
    assert suite.name == 'a<b> & "c": ü'
    # a control character (BEL cannot appear in XML 1.0) is refused at load (issue 27)
    design.write_text(text.replace("name: broken-rack-130kw", 'name: "a\\x07"', 1))
    (suite,) = list(junit_of([str(design), "--select", "PWR001"], tmp_path))
    assert isinstance({c.name: c for c in suite}["load"].result[0], Error)


@pytest.mark.parametrize("select", ["PWR001", "STO001"])
def test_many_designs(select: str, tmp_path: Path) -> None:
    xml = junit_of([str(SAMPLES), "--select", select], tmp_path)
    suites = list(xml)
    assert len(suites) == len(list(SAMPLES.glob("*.yaml")))
    failed = sorted(s.name for s in suites if s.failures)
    assert failed == [{"PWR001": "broken-rack-130kw", "STO001": "broken-storage-half"}[select]]


def test_rule_that_cannot_apply_is_skipped(tmp_path: Path) -> None:
    """gb200-superpod-su declares no budget and no deadline: CST001 and CST002 were not
    checked, which is not the same as passed; PWR001 applies and passes."""
    xml = junit_of(
        [str(SAMPLES / "gb200-superpod-su.yaml"), "--select", "CST001,CST002,PWR001"], tmp_path
    )
    (suite,) = list(xml)
    cases = {c.name: c for c in suite}
    (skip,) = cases["CST001 budget-exceeded"].result
    assert isinstance(skip, Skipped)
    assert skip.message == "does not apply: the design declares no budget"
    (skip,) = cases["CST002 deadline-missed"].result
    assert skip.message == "does not apply: the design declares no deadline"
    assert cases["PWR001 rack-power-over-limit"].is_passed
    assert (suite.tests, suite.failures, suite.skipped) == (3, 0, 2)


def test_a_rule_switched_off_by_its_options_is_skipped(tmp_path: Path) -> None:
    """PAR005 runs the layout search only when its `search` option is on: off, the case is
    skipped and says how to turn it on; on, it fails on h100-40node's slow layout."""
    h100 = str(SAMPLES / "h100-40node.yaml")
    (suite,) = list(junit_of([h100, "--select", "PAR005"], tmp_path))
    (case,) = list(suite)
    (skip,) = case.result
    assert isinstance(skip, Skipped)
    assert skip.message == (
        "does not apply: the layout search is off (--layout-search, or PAR005 search = true in a "
        "--config file; dclint review runs it)"
    )
    config = tmp_path / "c.yaml"
    config.write_text("PAR005:\n  search: true\n", encoding="utf-8")
    (suite,) = list(junit_of([h100, "--select", "PAR005", "--config", str(config)], tmp_path))
    (case,) = list(suite)
    assert isinstance(case.result[0], Failure)
