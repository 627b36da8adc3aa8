"""`exclude` in a config found by search skips the files it matches, as with --config; a file
named on the command line is still checked (as ruff does)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint.cli import main


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "designs" / "archive").mkdir(parents=True)
    shutil.copy(SAMPLES / "broken-rack-130kw.yaml", tmp_path / "designs" / "archive" / "old.yaml")
    shutil.copy(SAMPLES / "gb200-superpod-su.yaml", tmp_path / "designs" / "ok.yaml")
    (tmp_path / ".dclint.yaml").write_text('exclude: ["designs/archive/*"]\n', "utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_discovered_config_excludes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "designs"]) == 0
    assert capsys.readouterr().out == "All checks passed: 1 design, no findings.\n"


def test_globs_are_from_the_config_directory(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "designs")
    assert main(["check", "."]) == 0
    assert capsys.readouterr().out == "All checks passed: 1 design, no findings.\n"


def test_a_named_file_is_checked(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "designs/archive/old.yaml"]) == 1
    assert "PWR001" in capsys.readouterr().out


def test_force_exclude_holds_for_a_named_file(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 54, item 1: --force-exclude (ruff's) applies `exclude` to named files too."""
    assert main(["check", "--force-exclude", "designs/archive/old.yaml", "designs/ok.yaml"]) == 0
    assert capsys.readouterr().out == "All checks passed: 1 design, no findings.\n"
    assert main(["check", "--force-exclude", "designs/archive/old.yaml"]) == 0
    assert capsys.readouterr().out == "All checks passed: 0 designs, no findings.\n"
    assert main(["check", "--no-force-exclude", "designs/archive/old.yaml"]) == 1
