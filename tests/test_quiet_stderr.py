"""Issue 30 item 6: a run that succeeds prints nothing on standard error. Standard error is for
errors and warnings; what a command did (the file it wrote, the findings it recorded, what it
fixed) is its report, on standard output. Each case failed before: --set was echoed
(`dclint: --set:1:1 is --set ...`), and init, --write-baseline, --baseline and import said
what they did on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
H100 = str(ROOT / "sample_designs" / "h100-40node.yaml")
SU = str(ROOT / "sample_designs" / "gb200-superpod-su.yaml")
BROKEN = str(ROOT / "sample_designs" / "broken-rack-130kw.yaml")


@pytest.mark.parametrize(
    "argv",
    [
        ["check", H100, "--set", "site.pue=1.2"],
        ["check", H100, "--set", "site.pue=1.2", "--set", "site.name=x", "--format", "json"],
        ["check", H100, "--sweep", "site.pue=1.1,1.2", "--set", "site.electricity_price=1 CNY/kWh"],
        ["cost", H100, "--set", "site.pue=1.2"],
        ["plan", H100, "--set", "site.pue=1.2", "--gpus", "64"],  # a search of 64 GPUs, not 320
        ["capacity", SU, "--add", "gb200-nvl72", "--set", "site.pue=1.2"],
        ["diff", H100, H100, "--set", "site.pue=1.2"],
    ],
)
def test_set_is_not_echoed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    assert capsys.readouterr().err == ""


def test_a_finding_a_flag_caused_names_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", SU, "--set", "rack_types.nvl72.it_load=130 kW", "--select", "PWR001"])
    out, err = capsys.readouterr()
    assert err == ""
    assert "(value set by --set rack_types.nvl72.it_load=130 kW)" in out.splitlines()[0]


def test_an_error_at_a_flag_spells_the_flag_out(capsys: pytest.CaptureFixture[str]) -> None:
    """With no echo to read `--set:1:N` against, the error line says which flag it was."""
    assert main(["check", H100, "--set", "site.name=x", "--set", "site.pue=0.5"]) == 2
    assert capsys.readouterr().out.splitlines()[0] == (
        "--set:1:2: error: site.pue: must be at least 1, got 0.5 (value set by --set site.pue=0.5)"
    )


def test_init_says_what_it_wrote_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d.yaml"
    assert main(["init", "--platform", "gb200-nvl72", "--racks", "2", "-o", str(out)]) == 0
    assert capsys.readouterr() == (f"dclint: wrote {out} (2 racks of gb200-nvl72)\n", "")


def test_baseline_writes_and_stale_entries_are_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("broken.yaml").write_text(Path(BROKEN).read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["check", "broken.yaml", "--write-baseline", "b.json"]) == 0
    assert capsys.readouterr() == ("dclint: recorded 1 finding in b.json\n", "")
    assert main(["check", H100, "--baseline", "b.json"]) == 0  # the entry is not found
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines() == [
        "baseline entry no longer found, prune it: broken.yaml: PWR001 su1-r8",
        "All checks passed: 1 design, no findings.",
    ]


def test_import_says_what_it_wrote_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "racks.csv").write_text("Rack;Load (kW)\nr01;12,5\n", encoding="utf-8")
    (tmp_path / "map.yaml").write_text(
        "sheets:\n  racks:\n    decimal: ','\n    columns: {id: Rack, it_load: Load}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site.yaml"
    argv = ["import", "csv", str(tmp_path / "racks.csv"), "--map", str(tmp_path / "map.yaml")]
    assert main([*argv, "-o", str(out)]) == 0
    assert capsys.readouterr() == (f"dclint import: wrote {out}\n", "")
    assert "it_load: 12.5 kW" in out.read_text(encoding="utf-8")


STALE = """\
name: stale
power:
  feeds:
    - {id: fa, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: fb, voltage: 415 V, current_rating: 250 A, path: B}
# dclint: ignore[PWR003] until=2020-01-01 waived for the pilot
racks:
  - {id: r1, it_load: 100 kW, feeds: [fa, fb]}
"""


def test_fix_with_a_json_report_is_the_report_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("d.yaml").write_text(STALE, encoding="utf-8")
    assert main(["check", "--today", "2026-12-03", "--fix", "d.yaml", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("{")
    assert "dclint: ignore" not in Path("d.yaml").read_text(encoding="utf-8")
