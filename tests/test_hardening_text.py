"""Issue 23, items 14-16: control characters from a design never reach a log raw; quantities
are ASCII; an absolute temperature in K below a plausible range is an error with a hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.cli import main
from dclint.errors import LoadError
from dclint.loader import load_text

FORMATS = ("text", "json", "sarif", "junit", "github", "markdown", "html")
HOSTILE_KEY = '"x\\e]0;pwned\\a\\n::error file=a,line=1::pwned"'
HOSTILE = f'name: "t\\e[2J"\nracks:\n  - id: r01\n    platform: gb200-nvl72\n    {HOSTILE_KEY}: 1\n'


@pytest.mark.parametrize("fmt", FORMATS)
def test_control_characters_in_a_design_are_escaped_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(HOSTILE, encoding="utf-8")
    assert main(["check", "d.yaml", "--format", fmt]) == 2
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err
    lines = (out + err).splitlines()
    # a newline in the key did not start a line of its own (a workflow command in a CI log)
    assert not any(line.startswith("::error file=a") for line in lines)
    if fmt == "text":  # refused where it is written (issue 27: refused at load)
        refused = "is not allowed in a design (a control, bidirectional or invisible character)"
        assert lines[:2] == [
            f"d.yaml:1:7: error: character U+001B {refused}",
            f"d.yaml:5:5: error: character U+001B {refused}",
        ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_design_name_with_control_characters_is_escaped_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    monkeypatch.chdir(tmp_path)
    design = 'name: "t\\e[2J\\a\\n::error::x"\nracks:\n  - id: r01\n    it_load: 130 kW\n'
    Path("d.yaml").write_text(design, encoding="utf-8")
    assert main(["check", "d.yaml", "--select", "PWR001", "--format", fmt]) == 2  # refused
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert not any(line.startswith("::error::x") for line in (out + err).splitlines())
    assert "U+001B" in out


def test_a_hostile_baseline_entry_is_printed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(
        "name: t\nracks:\n  - id: r01\n    platform: gb200-nvl72\n", encoding="utf-8"
    )
    entry = (
        '{"fingerprint": "f", "rule": "PWR001", "file": "d.yaml", "path": "p", '
        '"subject": "\\u001b[2J\\n::error::pwned"}'
    )
    Path("b.json").write_text(f'{{"version": 1, "findings": [{entry}]}}', encoding="utf-8")
    assert main(["check", "d.yaml", "--baseline", "b.json"]) == 0
    out, err = capsys.readouterr()  # the stale entry is listed in the report
    assert "\x1b" not in out + err
    assert "d.yaml: PWR001 \\x1b[2J\\n::error::pwned" in out


def _error(text: str) -> str:
    with pytest.raises(LoadError) as caught:
        load_text(text, "d.yaml")
    return str(caught.value.problems[0])


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("١٢٠ kW", "digit U+0661"),  # Arabic-Indic digits
        ("１２０ kW", "digit U+FF11"),  # full-width digits
        ("120\u00a0kW", "space U+00A0"),  # a no-break space
        ("120 k\u2009W", "space U+2009"),
    ],
)
def test_quantities_are_ascii_with_a_hint(value: str, found: str) -> None:
    design = f"name: t\nracks:\n  - id: r01\n    it_load: '{value}'\n"
    message = _error(design)
    assert message.startswith(f"d.yaml:4:14: racks[0].it_load: '{value}' is not a number")
    assert f"(write ASCII digits and spaces: found the {found})" in message


def _loop(supply: str) -> str:
    return (
        "name: t\nracks:\n  - id: r01\n    platform: gb200-nvl72\ncooling:\n  cdus:\n"
        "    - id: c1\n      capacity: 1000 kW\n      max_flow: 2125 L/min\n"
        "  loops:\n    - id: l1\n      cdu: c1\n"
        f"      racks: [r01]\n      supply_temperature: {supply}\n"
        "      return_temperature: 42 degC\n"
    )


@pytest.mark.parametrize("supply", ["32 K", "0.5 K", "199.9 K"])
def test_an_absolute_temperature_in_k_below_200_k_is_an_error_with_a_hint(supply: str) -> None:
    message = _error(_loop(supply))
    kelvin = float(supply.split()[0])
    assert message == (
        f"d.yaml:14:27: cooling.loops[0].supply_temperature: temperature '{supply}' is "
        f"{kelvin - 273.15:.2f} degC, colder than any data hall (under 200 K, dclint's own "
        "bound); K is for temperature differences: write an absolute temperature in degC, "
        "e.g. '32 degC'"
    )


@pytest.mark.parametrize("supply", ["305.15 K", "200 K", "32 degC", "90 degF"])
def test_plausible_absolute_temperatures_still_load(supply: str) -> None:
    design = load_text(_loop(supply), "d.yaml")
    assert design.cooling.loops[0].supply_temperature is not None
