"""What a ruff user expects of the command line: --exit-zero, colour, --show-source, -V,
explain by name, and help text on every flag."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint import __version__
from dclint.cli import build_parser, main

BROKEN = str(SAMPLES / "broken-rack-130kw.yaml")
ESC = "\x1b["


def test_exit_zero_reports_findings_but_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", BROKEN, "--exit-zero"]) == 0
    assert "PWR001 [error]" in capsys.readouterr().out
    assert main(["check", BROKEN]) == 1


def test_exit_zero_still_exits_2_on_broken_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nracks: [\n", encoding="utf-8")
    assert main(["check", str(bad), "--exit-zero"]) == 2


@pytest.mark.parametrize(
    ("flags", "env", "coloured"),
    [
        (["--color", "always"], {}, True),
        (["--color", "never"], {}, False),
        ([], {}, False),  # auto, and captured output is not a terminal
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # an explicit flag wins
    ],
)
def test_colour(
    flags: list[str],
    env: dict[str, str],
    coloured: bool,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    main(["check", BROKEN, *flags])
    out = capsys.readouterr().out
    assert (ESC in out) is coloured
    if coloured:
        assert f"{ESC}1;31mPWR001{ESC}0m" in out


def test_auto_colour_is_off_with_no_color_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")
    main(["check", BROKEN])
    assert ESC not in capsys.readouterr().out
    monkeypatch.delenv("NO_COLOR")
    main(["check", BROKEN])
    assert ESC in capsys.readouterr().out


def test_show_source_prints_the_line_and_a_caret(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", BROKEN, "--show-source"])
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if "PWR001" in line)
    line, column = (int(x) for x in lines[at].split(":")[1:3])
    source = Path(BROKEN).read_text(encoding="utf-8").splitlines()[line - 1]
    assert lines[at + 2] == f"{line} | {source}"
    caret = lines[at + 3]
    assert caret.index("^") - caret.index("|") - 2 == column - 1
    assert source[column - 1 :].startswith("130 kW")


def test_version_short_and_long(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("-V", "--version"):
        assert main([flag]) == 0
        assert capsys.readouterr().out == f"dclint {__version__}\n"


def test_explain_takes_a_name_or_an_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "rack-power-over-limit"]) == 0
    by_name = capsys.readouterr().out
    assert main(["explain", "pwr001"]) == 0
    assert capsys.readouterr().out == by_name
    assert by_name.startswith("PWR001 rack-power-over-limit")
    assert main(["explain", "no-such-rule"]) == 2


@pytest.mark.parametrize(
    ("table", "error"),
    [
        (
            'PWR002 = { headroom = "80 kg" }',
            ":2:12: option PWR002.headroom: expected power, e.g. '120 kW', got a value in 'kg'",
        ),
        (
            'PWR002 = { headroom = "80 kW", bogus = 1 }',
            ":2:32: rule PWR002 has no option 'bogus' (options: headroom, per_rack)",
        ),
    ],
)
def test_explain_refuses_the_option_values_check_refuses(
    table: str, error: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`explain` printed `headroom = '80 kg'` as the value in effect and exited 0, where
    `check` under the same config exits 2 at the value's line."""
    config = tmp_path / "pyproject.toml"
    config.write_text(f"[tool.dclint]\n{table}\n")
    assert main(["explain", "PWR002", "--config", str(config)]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f"dclint: error: {config}{error}\n"
    assert main(["check", BROKEN, "--config", str(config)]) == 2
    assert capsys.readouterr().err == f"dclint: error: {config}{error}\n"


def test_every_flag_of_every_command_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.help is None and not isinstance(action, argparse._HelpAction):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_a_finding_caused_by_set_is_at_the_design_line_and_names_the_flag(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    design = str(SAMPLES / "gb200-superpod-su.yaml")
    flag = "racks[0].it_load=130 kW"
    main(["check", design, "--select", "PWR001", "--set", flag, "--format", "sarif"])
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]  # one defect
    assert result["properties"]["count"] == 8  # on the eight racks of the group
    assert len(result["relatedLocations"]) == 7  # the seven others, each at its place
    lines = Path(design).read_text(encoding="utf-8").splitlines()
    for r in [result, *result["relatedLocations"]]:
        loc = (r["locations"][0] if "locations" in r else r)["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith("sample_designs/gb200-superpod-su.yaml")
        line = loc["region"]["startLine"]
        assert lines[line - 1].strip() == "- id: su1-r[1-8]"  # the group the flag changed
    assert f"(value set by --set {flag})" in result["message"]["text"]
    assert [r["message"]["text"] for r in result["relatedLocations"]] == [
        f"su1-r{i}" for i in range(2, 9)
    ]
    main(["check", design, "--select", "PWR001", "--set", flag, "--format", "github"])
    out = capsys.readouterr().out
    assert "file=--set" not in out
    assert out.count("::error file=") == 1  # one annotation for the defect on 8 racks
    assert "[8 racks of type nvl72: su1-r[1-8]]" in out
