"""`check --sweep` and `plan --vary` name their axes alike: the column is the path as the user
wrote it (a path by id stays by id), and a point's error line names each axis with its value,
`PATH=VALUE: error: ...` (plan's named the values alone: `10 kW: error: ...`)."""

from __future__ import annotations

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
