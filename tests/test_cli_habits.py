"""Issue 30 item 5, ruff-grade habits: --output-format, FORCE_COLOR, `rules --format json`, and
an unknown flag answered with the subcommand's usage. Each failed before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = str(ROOT / "sample_designs" / "broken-rack-130kw.yaml")


def test_output_format_is_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", BROKEN, "--output-format", "json"]) == 1
    (design,) = json.loads(capsys.readouterr().out)["designs"]
    assert [(f["rule"], f["line"]) for f in design["findings"]] == [("PWR001", 53)]


def test_force_color_colours_a_pipe(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    main(["check", BROKEN])
    assert capsys.readouterr().out.startswith("\x1b[1m")
    monkeypatch.setenv("NO_COLOR", "1")  # NO_COLOR wins, as no-color.org asks
    main(["check", BROKEN])
    assert "\x1b" not in capsys.readouterr().out


def test_rules_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert rules[0].keys() == {
        "id",
        "name",
        "severity",
        "summary",
        "topics",
        "covers",
        "consequence",
        "options",
        "sources",
        "fix",
        "origin",
        "explain",
    }
    (pwr001,) = [r for r in rules if r["id"] == "PWR001"]
    assert pwr001["name"] == "rack-power-over-limit"
    assert pwr001["severity"] == "error"
    # issue 54: options with defaults, topics, cited sources, fix availability
    assert pwr001["topics"] == ["power"]
    assert (pwr001["covers"], pwr001["consequence"]) == (["ocp.rack-power"], "over-rating")
    assert [(o["name"], o["type"], o["default"]) for o in pwr001["options"]] == [
        ("limit", "power", "120 kW"),
        ("platform_limits", "dict:power", {}),
    ]
    assert pwr001["sources"][0] == "NVIDIA GB200 NVL72 documentation"
    assert pwr001["fix"] is False
    fixable = [r["id"] for r in rules if r["fix"]]
    assert fixable == ["CLG002", "NET001", "PAR005", "PWR003", "PWR004"]


@pytest.mark.parametrize(
    "argv",
    [["check"], ["rules"], ["plan", BROKEN], ["init", "--platform", "dgx-h100", "--racks", "1"]],
)
def test_an_unknown_flag_prints_the_subcommands_usage(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    command = argv[0]
    assert main([*argv, "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: dclint {command} ")
    assert f"dclint {command}: error: unrecognized arguments: --no-such-flag" in err


def test_explain_finds_the_config_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".dclint.yaml").write_text(
        "PWR001: {severity: warning, limit: 100 kW}\n", encoding="utf-8"
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["explain", "PWR001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PWR001 rack-power-over-limit [warning]")
    assert "- limit = " in out and "100 kW" in out.split("- limit = ")[1].splitlines()[0]


def test_a_misspelt_config_key_gets_a_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".dclint.yaml"
    config.write_text("fail-onn: warning\n", encoding="utf-8")
    assert main(["check", BROKEN, "--config", str(config)]) == 2
    assert capsys.readouterr().err.startswith(
        f"dclint: error: {config}: fail-onn: unknown config key; did you mean 'fail-on'? (known: "
    )


def test_every_built_in_rule_lists_its_sources(capsys: pytest.CaptureFixture[str]) -> None:
    """28 rules listed no source although their docs cite one (the extractor read only
    citations in parentheses): every rule doc ends its "Why it matters" with one `Sources: A;
    B.` paragraph, read first."""
    assert main(["rules", "--format", "json"]) == 0
    sources = {r["id"]: r["sources"] for r in json.loads(capsys.readouterr().out)}
    assert [rule for rule, cited in sources.items() if not cited] == []
    llama3 = 'Meta, "The Llama 3 Herd of Models", 2024'
    assert sources["REL001"] == [llama3]
    assert sources["STR001"] == [
        "TIA-942, Telecommunications Infrastructure Standard for Data Centers",
        "NVIDIA, GB200 NVL72 at GTC 2024",
    ]
    assert sources["PWR005"] == ["NEMA MG 1"]
    assert sources["CLG008"] == [
        "ASHRAE TC 9.9, Thermal Guidelines for Data Processing Environments"
    ]
    assert sources["PWR002"] == ["NVIDIA GB200 NVL72 documentation", "NEC 210.20(A)"]
    assert sources["PWR008"] == [
        "NEC 210.20(A)",
        "NetBox and Nautobot power feed models",
        llama3,
        "NEC Articles 215 and 220",
        "IEC 60364, maximum demand",
    ]


def test_a_doc_without_a_sources_paragraph_cites_in_parentheses() -> None:
    """A rule from --rules-dir or a policy may not write the paragraph: the works its "Why it
    matters" cites in parentheses are its sources, as before."""
    from dclint.cli.rules import _sources

    doc = (
        "X.\n\n## Why it matters\nRacks draw ~120 kW (NVIDIA GB200 NVL72 documentation), "
        "most (80%) of it.\n\n## Fix\nx\n"
    )
    assert _sources(doc) == ["NVIDIA GB200 NVL72 documentation"]
    assert _sources(doc.replace("\n\n## Fix", "\n\nSources: A; B.\n\n## Fix")) == ["A", "B"]
    # a line may break after the semicolon: still two works
    assert _sources(doc.replace("\n\n## Fix", "\n\nSources: A;\nB.\n\n## Fix")) == ["A", "B"]
