"""The pre-commit hook: fragments (rack-type libraries, site profiles) are not checked as designs
on their own, and a change to one checks the designs that include or extend it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dclint.cli.precommit import affected, main

RACKS = "rack_types:\n  nvl72: {platform: gb200-nvl72, it_load: 120 kW}\n"
HOT = "rack_types:\n  nvl72: {platform: gb200-nvl72, it_load: 130 kW}\n"
SITE = "site: {pue: 1.2}\n"
RACK = "racks:\n  - {id: r1, type: nvl72}\n"


def _tree(root: Path) -> dict[str, Path]:
    files = {
        "libs/racks.yaml": RACKS,
        "libs/all.yaml": "include: [racks.yaml]\n",  # a fragment of fragments
        "profiles/site.yaml": SITE,
        "hall-1.yaml": "name: hall-1\nextends: profiles/site.yaml\ninclude: [libs/racks.yaml]\n"
        + RACK,
        "hall-2.yaml": "name: hall-2\ninclude: [libs/all.yaml]\n" + RACK,
        "base.yaml": "name: base\ninclude: [libs/racks.yaml]\n" + RACK,  # a design, and a base
        "hall-3.yaml": "name: hall-3\nextends: base.yaml\n",
        "notes.yaml": "todo: [cabling]\n",
    }
    out = {}
    for name, text in files.items():
        path = root / "designs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        out[name] = path.resolve()
    return out


@pytest.mark.parametrize(
    ("changed", "checked"),
    [
        (["libs/racks.yaml"], ["base.yaml", "hall-1.yaml", "hall-2.yaml", "hall-3.yaml"]),
        (["libs/all.yaml"], ["hall-2.yaml"]),
        (["profiles/site.yaml"], ["hall-1.yaml"]),
        (["base.yaml"], ["base.yaml", "hall-3.yaml"]),
        (["hall-2.yaml", "notes.yaml"], ["hall-2.yaml"]),  # notes: no name, used by none
    ],
)
def test_fragments_check_the_designs_built_on_them(
    tmp_path: Path, changed: list[str], checked: list[str]
) -> None:
    files = _tree(tmp_path)
    found = affected([files[c] for c in changed], files.values())
    assert found == sorted(files[c] for c in checked)


def test_hook_reports_a_fragments_defect_through_its_designs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _tree(tmp_path)
    files["libs/racks.yaml"].write_text(HOT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # not a git repository: the hook walks the working directory
    assert main(["--select", "PWR001", "designs/libs/racks.yaml"]) == 1
    out = capsys.readouterr().out
    # one line at the fragment's line that set the load, naming the four designs (issue 54)
    (line,) = [line for line in out.splitlines() if "PWR001" in line]
    assert line.startswith(os.path.join("designs", "libs", "racks.yaml") + ":2:43: PWR001")
    assert line.endswith("[in 4 designs: base, hall-1, hall-2, hall-3]")
    files["libs/racks.yaml"].write_text(RACKS, encoding="utf-8")
    assert main(["designs/profiles/site.yaml", "--select", "PWR001"]) == 0  # hall-1 is fine
    assert main(["--select", "PWR001", "designs/notes.yaml"]) == 0  # nothing to check


def _halls(root: Path) -> None:
    """Three halls in designs/ that include one rack library kept outside it (libs/), an
    archived hall the config excludes, and YAML that is no design (a compose file)."""
    texts = {
        "libs/racks.yaml": RACKS,
        ".dclint.yaml": 'exclude: ["designs/archive/*"]\n',
        "docker-compose.yaml": "services:\n  web: {image: nginx}\n",
        ".github/ci.yml": "name: ci\non: [push]\njobs: {}\n",
        "designs/archive/old.yaml": "name: old\nracks:\n"
        "  - {id: r1, platform: gb200-nvl72, it_load: 130 kW}\n",
    }
    for hall in ("hall-a", "hall-b", "hall-c"):
        texts[f"designs/{hall}.yaml"] = f"name: {hall}\ninclude: [../libs/racks.yaml]\n" + RACK
    for name, text in texts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_a_library_outside_designs_fails_the_hook_for_its_halls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54, item 1: the hook is passed every YAML file; a 130 kW edit to a rack library
    outside designs/ checks the three halls that include it and fails."""
    _halls(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["libs/racks.yaml", "docker-compose.yaml"]) == 0  # 120 kW: the halls pass
    assert capsys.readouterr() == ("", "")
    (tmp_path / "libs/racks.yaml").write_text(HOT, encoding="utf-8")
    assert main(["--select", "PWR001", "libs/racks.yaml"]) == 1
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if "PWR001" in line]  # once, where it lives
    assert line.startswith(os.path.join("libs", "racks.yaml") + ":2:43: PWR001 [error]")
    assert line.endswith("[in 3 designs: hall-a, hall-b, hall-c]")
    assert out.splitlines()[-1] == "Found 1 error in 3 designs."


def test_yaml_that_is_neither_design_nor_included_is_skipped_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _halls(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["docker-compose.yaml", ".github/ci.yml"]) == 0
    assert capsys.readouterr() == ("", "")


def test_exclude_holds_for_the_files_the_hook_is_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pre-commit run --all-files` passes the archived design the config excludes: it stays
    excluded (force-exclude), unless the hook's args say --no-force-exclude."""
    _halls(tmp_path)
    monkeypatch.chdir(tmp_path)
    every = ["designs/archive/old.yaml", "designs/hall-a.yaml", "libs/racks.yaml"]
    assert main(every) == 0
    assert capsys.readouterr() == ("", "")
    assert main(["designs/archive/old.yaml"]) == 0  # only excluded files: nothing to check
    assert capsys.readouterr() == ("", "")
    assert main(["--no-force-exclude", "designs/archive/old.yaml"]) == 1
    assert "designs/archive/old.yaml:3:46: PWR001 [error]" in capsys.readouterr().out.replace(
        os.sep, "/"
    )


def test_show_files_lists_every_file_with_its_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54, item 7: --show-files names every includer of a fragment (one kept outside
    the searched folder too) and the files the config excludes."""
    from dclint.cli import main as dclint

    _halls(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert dclint(["check", "designs", "--show-files"]) == 0
    halls = ", ".join(os.path.join("designs", f"hall-{x}.yaml") for x in "abc")
    assert capsys.readouterr().out.splitlines() == [
        os.path.join("designs", "archive", "old.yaml") + ": excluded (the config's exclude)",
        os.path.join("designs", "hall-a.yaml") + ": design",
        os.path.join("designs", "hall-b.yaml") + ": design",
        os.path.join("designs", "hall-c.yaml") + ": design",
        os.path.join("libs", "racks.yaml") + f": fragment of 3 designs: {halls}",
    ]


def test_check_reads_a_design_from_stdin_as_the_named_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54, item 7: `dclint check - --stdin-filename PATH` checks the text on standard
    input as PATH: its includes resolve from PATH's folder and PATH's config applies."""
    import io

    from dclint.cli import main as dclint

    _halls(tmp_path)
    monkeypatch.chdir(tmp_path)
    hot = "name: typed\ninclude: [../libs/racks.yaml]\nracks:\n  - {id: r1, type: nvl72}\n"
    hot += "  - {id: r2, platform: gb200-nvl72, it_load: 130 kW}\n"
    stdin = io.TextIOWrapper(io.BytesIO(hot.encode()))
    monkeypatch.setattr("sys.stdin", stdin)
    assert dclint(["check", "-", "--stdin-filename", "designs/hall-new.yaml"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[0] for line in out[:-1]] == [
        os.path.join("designs", "hall-new.yaml") + ":5:46"
    ]
    assert out[-1] == "Found 1 error in 1 design."
    (tmp_path / ".dclint.yaml").write_text('ignore: ["PWR001"]\n', encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(hot.encode())))
    assert dclint(["check", "-", "--stdin-filename", "designs/hall-new.yaml"]) == 0
    assert capsys.readouterr().out == "All checks passed: 1 design, no findings.\n"
