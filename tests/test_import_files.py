"""`dclint import` reads only the files named and writes only where told: a mapping's `sheet`
cannot lead out of the imported file's folder (by a path or a symbolic link), and no output is
an input or the other output however it is spelled, refused before anything is written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dclint.cli import main

SECRET = "root,hunter2\n"
RACKS = "Rack,Load (kW)\nr01,12\nr02,30\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """site/racks.csv and site/map.yaml, with secret/creds.csv beside the site's folder."""
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "creds.csv").write_text("Rack,Load (kW)\n" + SECRET)
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "racks.csv").write_text(RACKS, encoding="utf-8")
    return folder


def _map(folder: Path, sheet: str) -> Path:
    path = folder / "map.yaml"
    path.write_text(
        f"sheets:\n  racks:\n    sheet: {sheet}\n    columns: {{id: Rack, it_load: Load}}\n",
        encoding="utf-8",
    )
    return path


def test_a_sheet_that_is_a_path_is_refused_unread(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = _map(site, "../secret/creds")
    out = site / "out.yaml"
    code = main(["import", "csv", str(site / "racks.csv"), "--map", str(mapping), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.splitlines() == [
        f"dclint: error: {mapping}:3:12: sheets.racks.sheet: a sheet's name, or a "
        "csv's name (without .csv) beside the file imported; a path (/, \\, :) is refused: a "
        "mapping reads nothing outside that folder"
    ]
    assert "hunter2" not in captured.out + captured.err
    assert not out.exists()


def test_a_sheet_linked_out_of_the_folder_is_refused_unread(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink(site.parent / "secret" / "creds.csv", site / "creds.csv")
    mapping = _map(site, "creds")
    code = main(["import", "csv", str(site / "racks.csv"), "--map", str(mapping)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.splitlines() == [
        f"dclint: error: {site / 'creds.csv'}: outside {site} (a path or a symbolic link): an "
        "import reads only the files in the folder of the file named"
    ]
    assert "hunter2" not in captured.out + captured.err


def test_a_sheet_beside_the_file_is_read(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (site / "other.csv").write_text("x\n", encoding="utf-8")
    mapping = _map(site, "racks")
    code = main(["import", "csv", str(site / "other.csv"), "--map", str(mapping)])
    assert code == 0
    assert "  - id: r01  # racks.csv!A2\n    it_load: 12 kW\n" in capsys.readouterr().out


def test_the_default_mapping_is_never_the_output(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(site)
    mapping = _map(site, "racks").rename(site / "dclint-import.yaml")
    before = mapping.read_bytes()
    code = main(["import", "csv", "racks.csv", "-o", "dclint-import.yaml"])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        "dclint: error: --output dclint-import.yaml is also an input (dclint-import.yaml): "
        "write it elsewhere"
    ]
    assert mapping.read_bytes() == before


@pytest.mark.parametrize("target", ["racks.csv", "map.yaml", "hardlink"])
def test_no_output_overwrites_an_input(
    site: Path, target: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(site)
    _map(site, "racks")
    (site / "other.csv").write_text("x\n", encoding="utf-8")
    if target == "hardlink":
        os.link(site / "map.yaml", site / "hardlink")
    before = {p.name: p.read_bytes() for p in site.iterdir()}
    code = main(["import", "csv", "./other.csv", "--map", "map.yaml", "-o", target])
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"dclint: error: --output {target} is also an input (")
    assert {p.name: p.read_bytes() for p in site.iterdir()} == before


def test_one_file_spelled_two_ways_is_refused_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NETBOX_TOKEN", "t")
    args = ["import", "netbox", "http://127.0.0.1:9/", "-o", "./site.yaml"]
    assert main([*args, "--save-dump", "site.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "dclint: error: --output ./site.yaml and --save-dump site.yaml are one file: give two"
    ]
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "site.yaml").write_text("keep\n", encoding="utf-8")
    os.link(tmp_path / "site.yaml", tmp_path / "dump.json")
    assert main([*args, "--save-dump", "dump.json"]) == 2
    assert "are one file" in capsys.readouterr().err
    assert (tmp_path / "site.yaml").read_text(encoding="utf-8") == "keep\n"
