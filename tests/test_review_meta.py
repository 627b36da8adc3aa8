"""The review's provenance (date, version, configuration, git commit, command line) and its
sources: public ones only."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint import __version__
from dclint.cli import main

GIT = [
    "git",
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.invalid",
    "-c",
    "commit.gpgsign=false",
]


def _details(out: str) -> dict[str, str]:
    block = out[out.index("<summary>Run details") : out.index("</details>")]
    rows = [line.split(" | ") for line in block.splitlines() if line.startswith("| ")]
    return {r[0][2:]: r[1].rstrip(" |") for r in rows[1:]}


def test_metadata_outside_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = tmp_path / "su.yaml"
    shutil.copy(SAMPLES / "gb200-superpod-su.yaml", design)
    main(["check", str(design), "--format", "markdown", "--today", "2026-01-02"])
    details = _details(capsys.readouterr().out)
    assert details == {
        "Date": "2026-01-02",
        "dclint version": __version__,
        "Command line": f"dclint check {design} --format markdown --today 2026-01-02".replace(
            "_", "\\_"
        ),
        "Configuration": "no config file (dclint defaults)",
        "Options differing from defaults": "none",
    }  # no git row: not a repository, and nothing said about it


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_metadata_in_a_repository_with_a_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "su.yaml"
    shutil.copy(SAMPLES / "gb200-superpod-su.yaml", design)
    config = tmp_path / ".dclint.yaml"
    config.write_text("ignore: [STO004]\nPWR001: {limit: 140 kW}\n", encoding="utf-8")
    subprocess.run([*GIT, "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*GIT, "-C", str(tmp_path), "add", "."], check=True)
    subprocess.run([*GIT, "-C", str(tmp_path), "commit", "-q", "-m", "x"], check=True)
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    main(["check", str(design), "--format", "markdown"])
    details = _details(capsys.readouterr().out)
    assert details["Git commit"] == head[:12]
    assert details["Configuration"] == f"{config}; ignore STO004".replace("_", "\\_")
    assert details["Options differing from defaults"] == "PWR001.limit = 140 kW (default 120 kW)"
    design.write_text(design.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    main(["check", str(design), "--format", "markdown"])
    assert _details(capsys.readouterr().out)["Git commit"] == f"{head[:12]} (file modified since)"
