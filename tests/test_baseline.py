"""Baselines: record findings, report only new ones, name the ones that went away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dclint.cli import main
from dclint.engine import baseline
from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "sample_designs" / "broken-rack-130kw.yaml").read_text(encoding="utf-8")
SELECT = ["--select", "PWR001"]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(TEXT, encoding="utf-8")
    return tmp_path


def check(*args: str) -> int:
    return main(["check", "d.yaml", *SELECT, "--today", "2026-12-02", *args])


def test_write_then_check_is_clean(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check("--write-baseline", "b.json") == 0  # the findings are now accepted
    out = capsys.readouterr()
    assert out.err == ""  # a run that succeeds is quiet on stderr (issue 30 item 6)
    assert out.out == "dclint: recorded 1 finding in b.json\n"  # no "All checks passed"
    data = json.loads(Path("b.json").read_text(encoding="utf-8"))
    assert data["version"] == 1
    (entry,) = data["findings"]
    assert {k: entry[k] for k in ("rule", "file", "path", "subject")} == {
        "rule": "PWR001",
        "file": "d.yaml",
        "path": "racks[1].it_load",
        "subject": "su1-r8",
    }
    assert check("--baseline", "b.json") == 0
    out = capsys.readouterr()
    assert out.out == "All checks passed: 1 design, no findings; 1 finding waived.\n"
    assert out.err == ""
    assert check() == 1  # without the baseline the finding is back


def test_moved_block_keeps_fingerprint(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check("--write-baseline", "b.json")
    head, rest = TEXT.split("racks:\n", 1)
    racks, tail = rest.split("\ncooling:\n", 1)
    moved = f"{head}cooling:\n{tail.rstrip()}\n\nracks:\n{racks}"  # racks block last
    Path("d.yaml").write_text(moved, encoding="utf-8")
    line = moved.splitlines().index("    it_load: 130 kW  # expect: PWR001") + 1
    assert line > 100
    capsys.readouterr()
    assert check() == 1
    assert f"d.yaml:{line}:14: PWR001" in capsys.readouterr().out  # moved from line 53
    assert check("--baseline", "b.json") == 0


def test_only_new_findings_and_fixed_ones(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check("--write-baseline", "b.json")
    new = TEXT.replace("it_load: 130 kW  # expect: PWR001", "it_load: 119 kW", 1)
    new = new.replace(
        "    platform: gb200-nvl72\n    it_load: 120 kW",
        "    platform: gb200-nvl72\n    it_load: 125 kW",
        1,
    )
    Path("d.yaml").write_text(new, encoding="utf-8")
    capsys.readouterr()
    assert check("--baseline", "b.json") == 1
    out = capsys.readouterr()
    assert out.out.splitlines()[0] == (
        "d.yaml:43:14: PWR001 [error] rack su1-r1 design IT load 125 kW exceeds the rack power "
        "limit (measured 125 kW, limit 120 kW) [7 racks of type nvl72: su1-r[1-7]]"
    )  # su1-r1..r7 share the type's load: all new, one line for the one defect
    assert out.out.splitlines()[-2:] == [
        "baseline entry no longer found, prune it: d.yaml: PWR001 su1-r8",
        "Found 7 errors in 1 design.",
    ]
    assert out.err == ""
    assert check("--baseline", "b.json", "--format", "json") == 1  # not in a JSON report
    assert capsys.readouterr().err == (
        "dclint: warning: no longer found, prune from b.json: d.yaml: PWR001 su1-r8\n"
    )
    assert check("--baseline", "b.json", "--format", "markdown") == 1
    assert "## Baseline: 1 entries no longer occur\n\n- d.yaml: PWR001 su1-r8" in (
        capsys.readouterr().out
    )


def test_path_spelling_does_not_matter(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check("--write-baseline", "b.json")
    code = main(["check", str(work / "d.yaml"), *SELECT, "--baseline", "b.json"])
    assert code == 0
    assert main(["check", "./d.yaml", *SELECT, "--baseline", "b.json"]) == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "{",
            "b.json: not a dclint baseline (invalid JSON: Expecting property name enclosed in "
            "double quotes at line 1)",
        ),
        ('{"version": 1}', "b.json: not a dclint baseline (no 'findings' list)"),
        (
            '{"version": 9, "findings": []}',
            "b.json: baseline version 9 is not supported (expected 1)",
        ),
        (
            '{"version": 1, "findings": [{"rule": 1}]}',
            "b.json: findings[0] needs string fields fingerprint, rule, file, path, subject",
        ),
    ],
)
def test_bad_baseline_exits_2(
    work: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    Path("b.json").write_text(content, encoding="utf-8")
    assert check("--baseline", "b.json") == 2
    assert capsys.readouterr().err == f"dclint: error: {message}\n"


def test_missing_baseline_exits_2(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check("--baseline", "nope.json") == 2
    assert capsys.readouterr().err == (
        "dclint: error: --baseline nope.json: No such file or directory\n"
    )


def _finding(subject: str, line: int) -> Finding:
    return Finding(
        "x.yaml",
        line,
        3,
        "PWR001",
        "rack-power-over-limit",
        "error",
        "m",
        "racks[0].it_load",
        subject,
    )


def test_apply_counts_duplicates() -> None:
    old = RunResult([DesignResult("x.yaml", "x", [_finding("r1", 5), _finding("r2", 6)])])
    entries = baseline.entries(old)
    assert baseline.loads(baseline.dumps(entries)) == entries
    new = RunResult(
        [DesignResult("x.yaml", "x", [_finding("r1", 9), _finding("r1", 10)])], rule_failures=1
    )
    kept, fixed = baseline.apply(new, entries)
    assert [(f.subject, f.line) for f in kept.findings] == [("r1", 10)]
    assert [e.subject for e in fixed] == ["r2"]
    assert kept.rule_failures == 1


def test_fingerprint_is_line_free_and_distinct() -> None:
    assert baseline.fingerprint(_finding("r1", 1)) == baseline.fingerprint(_finding("r1", 99))
    assert baseline.fingerprint(_finding("r1", 1)) != baseline.fingerprint(_finding("r2", 1))
    with pytest.raises(ConfigError):
        baseline.loads("[]")


def test_entry_records_value_who_and_when(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("USER", "auditor")
    monkeypatch.setenv("LOGNAME", "auditor")
    check("--write-baseline", "b.json")
    (entry,) = json.loads(Path("b.json").read_text(encoding="utf-8"))["findings"]
    assert (entry["measured"], entry["limit"]) == ("130 kW", "120 kW")
    assert (entry["recorded_by"], entry["recorded_on"]) == ("auditor", "2026-12-02")


def _accept(reason: str = "", until: str = "") -> None:
    data = json.loads(Path("b.json").read_text(encoding="utf-8"))
    for entry in data["findings"]:
        if reason:
            entry["reason"] = reason
        if until:
            entry["until"] = until
    Path("b.json").write_text(json.dumps(data), encoding="utf-8")


def test_show_waivers_lists_reason_who_and_expiry(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("USER", "auditor")
    monkeypatch.setenv("LOGNAME", "auditor")
    check("--write-baseline", "b.json")
    _accept("vendor-built rack, HPE spec", "2027-06-30")
    capsys.readouterr()
    assert check("--baseline", "b.json", "--show-waivers") == 0
    line = TEXT.splitlines().index("    it_load: 130 kW  # expect: PWR001") + 1
    assert capsys.readouterr().out.splitlines() == [
        f"d.yaml:{line}:14: PWR001 [waived] rack su1-r8 design IT load 130 kW exceeds the rack"
        " power limit (measured 130 kW, limit 120 kW) (baseline b.json, recorded"
        " by auditor on 2026-12-02, until 2027-06-30: vendor-built rack, HPE spec)",
        "All checks passed: 1 design, no findings; 1 finding waived.",
    ]
    main(["check", "d.yaml", *SELECT, "--today", "2026-12-02", "--baseline", "b.json",
          "--format", "json"])  # fmt: skip
    (waiver,) = json.loads(capsys.readouterr().out)["designs"][0]["waivers"]
    assert {k: waiver[k] for k in ("kind", "reason", "where", "until", "by", "on")} == {
        "kind": "baseline",
        "reason": "vendor-built rack, HPE spec",
        "where": "b.json",
        "until": "2027-06-30",
        "by": "auditor",
        "on": "2026-12-02",
    }
    assert waiver["finding"]["rule"] == "PWR001"


def test_lapsed_entry_resurfaces(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check("--write-baseline", "b.json")
    _accept(until="2026-12-01")  # the day before --today
    capsys.readouterr()
    assert check("--baseline", "b.json") == 1
    assert "(baseline entry lapsed on 2026-12-01)" in capsys.readouterr().out


# 132 kW: worse, and still within a GB200 NVL72's own 132 kW rating (above it PWR001 adds a
# separate data-error finding on the same line)
@pytest.mark.parametrize(("load", "back"), [("132 kW", True), ("125 kW", False)])
def test_finding_that_got_worse_resurfaces(
    work: Path, capsys: pytest.CaptureFixture[str], load: str, back: bool
) -> None:
    check("--write-baseline", "b.json")  # recorded at 130 kW
    Path("d.yaml").write_text(TEXT.replace("it_load: 130 kW", f"it_load: {load}"), "utf-8")
    capsys.readouterr()
    assert check("--baseline", "b.json") == (1 if back else 0)
    out = capsys.readouterr().out
    assert ("(worse than the baselined 130 kW)" in out) is back


def test_worse_is_away_from_the_limit() -> None:
    assert baseline.worse("140 kW", "130 kW", "120 kW")  # over a maximum, further over
    assert not baseline.worse("125 kW", "130 kW", "120 kW")  # better
    assert baseline.worse("40 GB/s", "50 GB/s", "60 GB/s")  # under a minimum, further under
    assert not baseline.worse("55 GB/s", "50 GB/s", "60 GB/s")
    assert baseline.worse("0.14 MW", "130 kW", "120 kW")  # units converted
    assert not baseline.worse("2:1", "1.5:1", "1:1")  # not quantities: not compared
    assert not baseline.worse("130 kW", None, "120 kW")  # an entry of an older dclint
