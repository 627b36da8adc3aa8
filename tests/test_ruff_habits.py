"""Issue 30 item 5, the rest of ruff's habits: --isolated, --show-settings, extend-select and
extend-ignore, the GitLab Code Quality format and per-file options. Each failed before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "sample_designs" / "broken-rack-130kw.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the 130 kW design (PWR001 at line 53) and a config; the cwd."""
    shutil.copy(BROKEN, tmp_path / "hall.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _config(repo: Path, text: str) -> Path:
    path = repo / ".dclint.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _found(capsys: pytest.CaptureFixture[str]) -> list[tuple[str, int]]:
    (design,) = json.loads(capsys.readouterr().out)["designs"]
    return [(f["rule"], f["line"]) for f in design["findings"]]


# --- --isolated ---------------------------------------------------------------------------


def test_isolated_reads_no_config(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _config(repo, "ignore: [PWR001]\n")
    assert main(["check", "hall.yaml", "--format", "json"]) == 0
    assert _found(capsys) == []
    assert main(["check", "hall.yaml", "--format", "json", "--isolated"]) == 1
    assert _found(capsys) == [("PWR001", 53)]
    # the command line still selects, as ruff's --isolated keeps its flags
    assert main(["check", "hall.yaml", "--isolated", "--ignore", "PWR001"]) == 0


def test_isolated_with_a_config_file_is_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(repo, "ignore: [PWR001]\n")
    assert main(["check", "hall.yaml", "--isolated", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"dclint: error: --config {config} cannot be used with --isolated (which reads no "
        "config file); drop one of them\n"
    )


def test_explain_isolated_shows_the_defaults(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(repo, "PWR001: {severity: warning}\n")
    assert main(["explain", "PWR001"]) == 0
    assert capsys.readouterr().out.startswith("PWR001 rack-power-over-limit [warning]")
    assert main(["explain", "PWR001", "--isolated"]) == 0
    assert capsys.readouterr().out.startswith("PWR001 rack-power-over-limit [error]")


# --- the GitLab Code Quality format ---------------------------------------------------------

# the fields GitLab's "Code Quality report format" requires of each entry (GitLab's docs)
CODE_QUALITY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "pattern": "^[^/.]"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


def test_gitlab_code_quality_report(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    (repo / "bad.yaml").write_text("name: bad\nracks: [{id: r1, it_load: 120}]\n", "utf-8")
    assert main(["check", "hall.yaml", "bad.yaml", "--format", "gitlab"]) == 2
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, CODE_QUALITY)
    shape = [(e["check_name"], e["severity"], e["location"]["path"]) for e in report]
    assert [(e["location"]["lines"]["begin"]) for e in report] == [53, 2]
    assert shape == [("PWR001", "major", "hall.yaml"), ("DCL000", "blocker", "bad.yaml")]
    assert report[0]["description"] == (
        "PWR001 rack-power-over-limit: rack su1-r8 design IT load 130 kW exceeds the rack "
        "power limit 120 kW (measured 130 kW, limit 120 kW) Fix: "
        + report[0]["description"].split(" Fix: ", 1)[1]
    )
    # stable: the same findings give the same fingerprints, and no two entries share one
    main(["check", "hall.yaml", "bad.yaml", "--format", "gitlab"])
    again = json.loads(capsys.readouterr().out)
    assert [e["fingerprint"] for e in again] == [e["fingerprint"] for e in report]
    assert len({e["fingerprint"] for e in report}) == len(report)
