"""Issue 54, item 2: a finding in a fragment three halls include is reported once, at the
fragment's line, with the designs it affects, in every CI format; the summary counts defects,
not defect x includer; where the verdict differs by includer the designs where it fails are
named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dclint.cli import main

LIBRARY = "rack_types:\n  nvl72: {platform: gb200-nvl72, it_load: 130 kW}\n"
HALL = "name: {name}\ninclude: [../libs/racks.yaml]\n{site}racks:\n  - {{id: r1, type: nvl72}}\n"


@pytest.fixture
def halls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "libs").mkdir()
    (tmp_path / "designs").mkdir()
    (tmp_path / "libs" / "racks.yaml").write_text(LIBRARY, encoding="utf-8")
    for hall in ("hall-a", "hall-b", "hall-c"):
        text = HALL.format(name=hall, site="")
        (tmp_path / "designs" / f"{hall}.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["check", "--no-cache", "--select", "PWR001", *args]) == 1
    return capsys.readouterr().out


def test_text_prints_one_line_naming_the_designs(
    halls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(["designs"], capsys)
    assert out == (
        "libs/racks.yaml:2:43: PWR001 [error] rack r1 design IT load 130 kW exceeds the rack "
        "power limit (measured 130 kW, limit 120 kW) [in 3 designs: hall-a, hall-b, "
        "hall-c]\nFound 1 error in 3 designs.\n"
    )


def test_where_the_verdict_differs_the_failing_designs_are_named(
    halls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hall = HALL.format(name="hall-d", site="site: {rack_power_limit: 140 kW}\n")
    (halls / "designs" / "hall-d.yaml").write_text(hall, encoding="utf-8")
    out = _run(["designs"], capsys)
    (line, summary) = out.splitlines()
    assert line.endswith("[in 3 of 4 designs that read it: hall-a, hall-b, hall-c]")
    assert summary == "Found 1 error in 4 designs."


def test_json_has_one_defect_with_its_designs(
    halls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(_run(["designs", "--format", "json"], capsys))
    (defect,) = data["defects"]
    assert (defect["rule"], defect["file"], defect["line"], defect["column"]) == (
        "PWR001",
        "libs/racks.yaml",
        2,
        43,
    )
    assert defect["designs"] == ["hall-a", "hall-b", "hall-c"]
    assert defect["count"] == 1
    assert defect["findings"] == [[0, 0], [1, 0], [2, 0]]


def test_sarif_has_one_result_with_a_related_location_a_design(
    halls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = json.loads(_run(["designs", "--format", "sarif"], capsys))["runs"][0]
    (result,) = run["results"]
    where = result["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "libs/racks.yaml"
    assert where["region"] == {"startLine": 2, "startColumn": 43}
    assert result["properties"]["designs"] == ["hall-a", "hall-b", "hall-c"]
    related = [r["physicalLocation"]["artifactLocation"]["uri"] for r in result["relatedLocations"]]
    assert related == ["designs/hall-a.yaml", "designs/hall-b.yaml", "designs/hall-c.yaml"]
    assert [r["id"] for r in result["relatedLocations"]] == [1, 2, 3]


def test_gitlab_and_github_have_one_entry(halls: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (entry,) = json.loads(_run(["designs", "--format", "gitlab"], capsys))
    assert entry["location"] == {"path": "libs/racks.yaml", "lines": {"begin": 2}}
    assert "[in 3 designs: hall-a, hall-b, hall-c]" in entry["description"]
    out = _run(["designs", "--format", "github"], capsys).splitlines()
    (annotation,) = [line for line in out if line.startswith("::error")]
    assert annotation.startswith("::error file=libs/racks.yaml,line=2,col=43,")
    assert "[in 3 designs: hall-a, hall-b, hall-c]" in annotation
    assert out[-1] == "Found 1 error in 3 designs."


def test_a_designs_own_finding_names_no_designs(
    halls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = "name: solo\nracks:\n  - {id: r1, platform: gb200-nvl72, it_load: 130 kW}\n"
    (halls / "solo.yaml").write_text(own, encoding="utf-8")
    out = _run(["solo.yaml"], capsys)
    assert out.splitlines()[0].endswith("(measured 130 kW, limit 120 kW)")
    assert out.splitlines()[1] == "Found 1 error in 1 design."


def test_add_suppressions_says_once_what_it_left_in_included_files(
    halls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 54, item 7: without --fix-includes, the findings in the library three halls
    include are one stderr line (was one a finding a design), and the report follows."""
    code = main(["check", "--no-cache", "--add-suppressions", "accepted at adoption", "designs"])
    out, err = capsys.readouterr()
    assert code == 1
    assert err == (
        "dclint: left 1 place in included files as written (libs/racks.yaml:2: PWR001); "
        "--fix-includes edits them\n"
    )
    assert out.splitlines()[-1] == "Found 1 error in 3 designs."
