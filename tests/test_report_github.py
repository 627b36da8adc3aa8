"""GitHub Actions workflow commands: properties and messages escaped as the runner expects."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.analysis.assess.assessment import assess
from dclint.cli import main
from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.engine.runner import Engine
from dclint.errors import Problem
from dclint.report.github import escape_data, escape_property, render
from dclint.report.view import View

ROOT = Path(__file__).resolve().parent.parent


def test_escaping() -> None:
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_finding_and_load_error_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    finding = Finding(
        "dir/a,b:ü.yaml",
        3,
        7,
        "PWR001",
        "rack-power-over-limit",
        "warning",
        "rack r1: 130 kW, 100% over\nlimit",
        "racks[0].it_load",
        "r1",
        "130 kW",
        "120 kW",
        "lower it",
    )
    info = Finding("x.yaml", 1, 1, "DCL001", "unused-suppression", "info", "m", "", "line 1")
    result = RunResult(
        [
            DesignResult("dir/a,b:ü.yaml", "n", [finding]),
            DesignResult("bad.yaml", errors=[Problem("bad.yaml", 2, 5, "bad: 1%")]),
            DesignResult("x.yaml", "x", [info]),
        ]
    )
    assert render(assess(result, Engine()), View()).splitlines() == [
        "::warning file=dir/a%2Cb%3Aü.yaml,line=3,col=7,title=PWR001 rack-power-over-limit::"
        "rack r1: 130 kW, 100%25 over%0Alimit (measured 130 kW, limit 120 kW)%0AFix: lower it",
        "::error file=bad.yaml,line=2,col=5,title=dclint%3A design load error::bad: 1%25",
        "::notice file=x.yaml,line=1,col=1,title=DCL001 unused-suppression::m",
        "Found 1 warning, 1 info, 1 load error in 3 designs.",
    ]


def test_sample_designs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    assert (
        main(
            [
                "check",
                "sample_designs",
                "--format",
                "github",
                "--select",
                "PWR001,PWR002,NET001,STO001",
            ]
        )
        == 1
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == (
        "::error file=sample_designs/broken-rack-130kw.yaml,line=53,col=14,"
        "title=PWR001 rack-power-over-limit::rack su1-r8 design IT load 130 kW exceeds the rack "
        "power limit (measured 130 kW, limit 120 kW)%0AFix: reduce the rack's load or "
        "spread it over more racks; if the hall is built for more, declare its envelope (site, "
        "hall or row `rack_power_limit`)"
    )
    assert len(lines) == 5
