"""SARIF output: validates against the 2.1.0 schema and reads back through sarif-tools."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_CANDIDATES = [
    ROOT.parent / "shared" / "reference" / "sarif-schema-2.1.0.json",
    Path("/work/shared/reference/sarif-schema-2.1.0.json"),
]
RACK130 = ROOT / "sample_designs" / "broken-rack-130kw.yaml"


def _schema() -> dict[str, Any]:
    for path in SCHEMA_CANDIDATES:
        if path.is_file():
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data
    pytest.skip("SARIF 2.1.0 schema not found in shared/reference")


def sarif_of(paths: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    main(["check", *paths, "--format", "sarif", "--today", "2026-12-02"])
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_validates_and_reads_back(
    in_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sarif.loader import load_sarif_file

    files = [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("sample_designs/*.yaml"))]
    data = sarif_of([*files, "--select", "PWR001,PWR002,NET001,STO001"], capsys)
    jsonschema.validate(data, _schema())
    path = tmp_path / "out.sarif"
    path.write_text(json.dumps(data), encoding="utf-8")
    records = load_sarif_file(str(path)).get_records()
    got = sorted((r["Code"], r["Location"], r["Line"], r["Severity"]) for r in records)
    assert got == [
        ("NET001", "sample_designs/broken-fabric-2to1.yaml", 84, "error"),
        ("PWR001", "sample_designs/broken-rack-130kw.yaml", 53, "error"),
        ("PWR002", "sample_designs/broken-feed-headroom.yaml", 22, "error"),
        ("STO001", "sample_designs/broken-storage-half.yaml", 104, "error"),
    ]


def test_rules_results_and_locations(in_root: None, capsys: pytest.CaptureFixture[str]) -> None:
    run = sarif_of(["sample_designs/broken-rack-130kw.yaml"], capsys)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    pwr001 = next(r for r in rules if r["id"] == "PWR001")
    assert pwr001["name"] == "rack-power-over-limit"
    assert pwr001["shortDescription"]["text"] == "Rack design IT load above the rack power limit."
    assert pwr001["fullDescription"]["text"].startswith("Flags a rack whose design IT load")
    help_text = pwr001["help"]["text"]  # a short text and a URI, not the whole doc
    assert help_text == (
        "Rack design IT load above the rack power limit. "
        "Why, an example and the fix: `dclint explain PWR001`."
    )
    assert "helpUri" not in pwr001  # issue 54: no published docs URL, never a local file path
    assert pwr001["defaultConfiguration"]["level"] == "error"
    (result,) = run["results"]
    assert rules[result["ruleIndex"]]["id"] == "PWR001"
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {
            "uri": "sample_designs/broken-rack-130kw.yaml",
            "uriBaseId": "%SRCROOT%",
        },
        "region": {"startLine": 53, "startColumn": 14},
    }
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"
    assert result["properties"]["measured"] == "130 kW"
    assert (result["properties"]["measuredValue"], result["properties"]["measuredUnit"]) == (
        130.0,
        "kW",
    )
    assert (result["properties"]["limitValue"], result["properties"]["limitUnit"]) == (120.0, "kW")


def test_fingerprint_ignores_line_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    text = RACK130.read_text(encoding="utf-8")
    Path("d.yaml").write_text(text, encoding="utf-8")
    before = sarif_of(["d.yaml"], capsys)["runs"][0]["results"][0]
    # move the cooling block above the power block: lines change, paths do not
    head, rest = text.split("power:\n", 1)
    power, cooling_on = rest.split("cooling:\n", 1)
    cooling, tail = cooling_on.split("fabrics:\n", 1)
    Path("d.yaml").write_text(
        f"{head}cooling:\n{cooling}power:\n{power}fabrics:\n{tail}", encoding="utf-8"
    )
    after = sarif_of(["d.yaml"], capsys)["runs"][0]["results"][0]
    assert before["locations"] != after["locations"]
    assert before["partialFingerprints"] == after["partialFingerprints"]


def test_load_errors_are_pseudo_rule_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("ünï code.yaml").write_text("name: x\nsite: [\n", encoding="utf-8")
    data = sarif_of(["ünï code.yaml"], capsys)
    jsonschema.validate(data, _schema())
    run = data["runs"][0]
    (result,) = run["results"]
    assert result["ruleId"] == "DCL000"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["name"] == "design-load-error"
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "%C3%BCn%C3%AF%20code.yaml"


def test_file_outside_root_gets_absolute_uri(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    data = sarif_of([os.fspath(RACK130)], capsys)
    location = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": RACK130.as_uri()}  # no ../ climbing


def test_execution_fails_on_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text("name: x\nsite: [\n", encoding="utf-8")
    Path("good.yaml").write_text(RACK130.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["check", "bad.yaml", "--format", "sarif"]) == 2
    (invocation,) = json.loads(capsys.readouterr().out)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert main(["check", "good.yaml", "--format", "sarif"]) == 1  # findings: the run worked
    (invocation,) = json.loads(capsys.readouterr().out)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True


def test_waivers_are_suppressed_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    text = RACK130.read_text(encoding="utf-8").replace(
        "it_load: 130 kW  # expect: PWR001",
        "it_load: 130 kW  # dclint: ignore[PWR001] until=2027-06-30 vendor-built rack, HPE spec",
    )
    Path("d.yaml").write_text(text, encoding="utf-8")
    data = sarif_of(["d.yaml", "--select", "PWR001"], capsys)
    jsonschema.validate(data, _schema())
    (result,) = data["runs"][0]["results"]
    assert result["ruleId"] == "PWR001"
    line = text.splitlines().index(next(x for x in text.splitlines() if "ignore[PWR001]" in x)) + 1
    assert result["suppressions"] == [
        {
            "kind": "inSource",
            "status": "accepted",
            "justification": "vendor-built rack, HPE spec",
            "location": {
                "physicalLocation": {
                    "artifactLocation": {"uri": "d.yaml", "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": line, "startColumn": 1},
                }
            },
        }
    ]
    assert result["properties"]["waiverExpires"] == "2027-06-30"
