"""Issue 54, item 4: exit codes and hints that do not mislead. `check --diff` exits 2 with the
error line on a design that does not load (as `check` does); `plan --apply` removes the
declared performance inputs the new layout makes stale, and says so. (Unit hints that keep
bytes and a prefix's scale: tests/test_units.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

import dclint
from conftest import ROOT
from dclint.cli import main

BROKEN = "name: bad\nracks:\n  - {id: r1, platform: gb200-nvl72, it_load: 4O kW}\n"


def test_diff_exits_2_with_the_error_line_on_a_design_that_does_not_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text(BROKEN, encoding="utf-8")
    assert main(["check", "--no-cache", "--diff", "bad.yaml"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # no diff: nothing could be fixed
    assert err == (
        "bad.yaml:3:46: error: racks[0].it_load: unknown unit in 'O kW'; expected power, "
        "e.g. '120 kW'\n"
    )
    assert main(["check", "--no-cache", "bad.yaml"]) == 2  # as a plain check


def test_diff_of_a_clean_design_still_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("ok.yaml").write_text(BROKEN.replace("4O kW", "40 kW"), encoding="utf-8")
    assert main(["check", "--no-cache", "--diff", "ok.yaml"]) == 0
    assert capsys.readouterr() == ("", "")


def test_plan_apply_removes_the_declared_mfu_the_new_layout_makes_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """h100-40node declares `mfu: 45%`, measured on tp 8; the best layout is another, so the
    45% would keep deciding the projected days of a layout it was not measured on. (Its
    workload on 64 of its GPUs: a layout search a third the cost of one on 320.)"""
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "sample_designs" / "h100-40node.yaml").read_text(encoding="utf-8")
    assert "    mfu: 45%\n" in text and text.count("    gpus: 320\n") == 1
    text = text.replace("    gpus: 320\n", "    gpus: 64\n")
    Path("h.yaml").write_text(text, encoding="utf-8")
    assert main(["plan", "h.yaml", "--apply"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (
        "h.yaml: workload llm-13b: removed the declared mfu: 45% (measured on the old layout, "
        "it no longer describes the new one; measure the new layout and declare it again)"
    )
    written = Path("h.yaml").read_text(encoding="utf-8")
    assert "mfu:" not in written
    assert dclint.load("h.yaml").workloads[0].mfu is None
    assert len(written.splitlines()) == len(text.splitlines())  # recompute added, mfu removed
    # applied again: the layout is the best already, nothing is removed or said
    assert main(["plan", "h.yaml", "--apply"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        # a storage bandwidth: bytes a second, never 'Gbps' (8x off)
        ("read_bandwidth", "300 GBps", "unknown unit in 'GBps' (did you mean 'GB/s'?)"),
        # a power: 'kWh' is an energy, so no guess rather than a wrong one
        ("it_load", "40 kwh", "unknown unit in 'kwh'"),
        ("it_load", "40 KW", "unknown unit in 'KW' (did you mean 'kW'?)"),
    ],
)
def test_a_unit_hint_has_the_dimension_the_field_wants(field: str, value: str, said: str) -> None:
    from dclint.errors import LoadError
    from dclint.loader.load import load_text

    if field == "it_load":
        text = f"name: x\nracks:\n  - {{id: r1, platform: gb200-nvl72, it_load: {value}}}\n"
        where, kind = "racks[0].it_load", "power, e.g. '120 kW'"
    else:
        text = (
            "name: x\nstorage:\n  tiers:\n    - {id: w, kind: parallel_fs, "
            f"read_bandwidth: {value}, capacity: 1 PB}}\n"
        )
        where, kind = "storage.tiers[0].read_bandwidth", "bandwidth, e.g. '400 Gb/s'"
    with pytest.raises(LoadError) as caught:
        load_text(text, "d.yaml")
    assert caught.value.problems[0].message == f"{where}: {said}; expected {kind}"
