"""`check --sweep` and `plan --vary` name their axes alike: the column is the path as the user
wrote it (a path by id stays by id), and a point's error line names each axis with its value,
`PATH=VALUE: error: ...` (plan's named the values alone: `10 kW: error: ...`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint.cli import main

H100 = str(SAMPLES / "h100-40node.yaml")
MISSING = "no item with id 'r01' in racks (ids: h[01-10])"


def test_sweep_and_vary_name_an_axis_alike(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", H100, "--sweep", "racks.r01.it_load=10 kW"]) == 2
    sweep = capsys.readouterr().out.splitlines()
    assert main(["plan", H100, "--vary", "racks.r01.it_load=10 kW", "--jobs", "1"]) == 2
    grid = capsys.readouterr().out.splitlines()
    assert sweep[1].split("  ")[0] == grid[2].split("  ")[0] == "racks.r01.it_load"
    assert sweep[3] == (
        "racks.r01.it_load=10 kW: error: --sweep:1:1: --sweep racks.r01.it_load=10 kW: " + MISSING
    )
    assert grid[5] == (
        "racks.r01.it_load=10 kW: error: --vary:1:1: --vary racks.r01.it_load=10 kW: " + MISSING
    )


def test_a_point_of_two_axes_names_both(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", H100, "--vary", "racks.r01.it_load=10 kW", "--vary", "site.pue=1.2"]
    assert main([*argv, "--jobs", "1", "--format", "markdown"]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("| racks.r01.it\\_load | site.pue | findings |")  # Markdown escapes _
    assert out[6].startswith("racks.r01.it\\_load=10 kW, site.pue=1.2: error: --vary:1:1: ")


def test_a_path_given_twice_is_refused_not_half_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--vary site.pue=1.1,1.5 --vary site.pue=1.2,1.3` printed two site.pue columns, the
    first of which changed nothing (the second set the PUE at every point); two --sweep flags
    printed the last one's table alone."""
    argv = ["plan", H100, "--vary", "site.pue=1.1,1.5", "--vary", "site.pue=1.2,1.3"]
    assert main([*argv, "--jobs", "1"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        "dclint: error: --vary site.pue: a path is one axis; give all its values in one --vary "
        "(PATH=V1,V2,...)\n"
    )
    assert main(["check", H100, "--sweep", "site.pue=1.2", "--sweep", "site.pue=1.3"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        "dclint: error: --sweep site.pue=1.2, --sweep site.pue=1.3: a sweep varies one path; "
        "give its values in one --sweep (--sweep PATH=V1,V2), or every combination of several "
        "with dclint plan --vary\n"
    )


@pytest.mark.parametrize(
    ("command", "flag", "swept", "given"),
    [
        ("check", "--sweep", "site.pue", "site.pue=1.2"),
        ("check", "--sweep", "site.pue", "site={pue: 1.2}"),
        ("plan", "--vary", "site.pue", "site.pue=1.2"),
        ("plan", "--vary", "site", "site.pue=1.2"),
    ],
)
def test_a_set_on_a_swept_path_is_refused_not_overridden(
    capsys: pytest.CaptureFixture[str], command: str, flag: str, swept: str, given: str
) -> None:
    """`check --sweep site.pue=1.1,1.3 --set site.pue=1.2` printed the sweep's two rows and
    exit 0: the swept values, applied last, replaced the --set value at every point."""
    values = "{pue: 1.1},{pue: 1.3}" if swept == "site" else "1.1,1.3"
    argv = [command, H100, flag, f"{swept}={values}", "--set", given]
    assert main([*argv, *(["--jobs", "1"] if command == "plan" else [])]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == (
        f"dclint: error: --set {given} and {flag} {swept}: the swept values would replace the "
        f"--set value at every point; drop the --set, or give its value in {flag}\n"
    )


def test_a_set_beside_a_swept_path_still_applies(capsys: pytest.CaptureFixture[str]) -> None:
    """A --set on another path applies at every point: twice the electricity price adds the
    energy's cost again to each row (118,715 and 120,221 CNY at 0.8 CNY/kWh)."""
    argv = [
        "check",
        H100,
        "--sweep",
        "site.pue=1.1,1.3",
        "--set",
        "site.electricity_price=1.6 CNY/kWh",
    ]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[2:] == [
        "1.1              0       1.751 d   126,998 CNY",
        "1.3              0       1.751 d   130,009 CNY",
    ]


def test_the_grid_says_when_its_days_rest_on_an_mfu_no_run_has_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The best layout at each point predicts 52.76% MFU on H100, above the 49% of any
    calibration run of its class: `dclint plan` says to read it as a ranking, the grid printed
    its 1.49 days as a duration; it now says it under the table (text, Markdown, HTML)."""
    line = (
        "outside what dclint has seen measured: the best layouts of 2 of 2 points predict more "
        "than 49% MFU (up to 52.76%), the best MFU any calibration run of this GPU generation "
        "and class published (megatron-core-0.8-h100: gpt-16b); read their days as a ranking, "
        "not as a duration to expect"
    )
    argv = ["plan", H100, "--vary", "site.pue=1.2,1.4", "--jobs", "1"]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-2] == line
    assert main([*argv, "--format", "markdown"]) == 0
    assert capsys.readouterr().out.splitlines()[-2] == line
    page = tmp_path / "grid.html"
    assert main([*argv, "-o", str(page)]) == 0
    assert f"<p>{line}.</p>" in page.read_text(encoding="utf-8")
    assert main([*argv, "--format", "json"]) == 0
    (first, _) = json.loads(capsys.readouterr().out)["points"]
    assert first["best"]["calibrated_mfu"] == {
        "mfu": pytest.approx(0.49, abs=5e-4),
        "run": "megatron-core-0.8-h100: gpt-16b",
    }
