"""Issue 48, item 2 (outputs): no command writes an output over a file it reads, or over its
other output, whatever the spelling (another path, `..`, a hard link, a symlink); one error
line, exit 2, every file as it was and no temporary file left (dclint/cli/_output.py, with
dclint.loader.readfile noting each file read by inode)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint.cli import main

FRAGMENT = "rack_types:\n  x:\n    platform: hgx-h100\n    nodes: 4\n"
INCLUDER = "name: inc\ninclude: parts/r.yaml\nracks:\n  - id: r1\n    type: x\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a found config, a design including a fragment, and an H100 design."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".dclint.yaml").write_text("fail-on: error\n", "utf-8")
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "r.yaml").write_text(FRAGMENT, "utf-8")
    (tmp_path / "inc.yaml").write_text(INCLUDER, "utf-8")
    (tmp_path / "d.yaml").write_text((SAMPLES / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    os.link(tmp_path / "parts" / "r.yaml", tmp_path / "hard.yaml")
    (tmp_path / "soft.yaml").symlink_to(tmp_path / "parts" / "r.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _files(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (  # the config the design's folder finds: refused before any work
            ["check", "-o", ".dclint.yaml", "d.yaml"],
            "--output .dclint.yaml is also an input: write it elsewhere",
        ),
        (  # a fragment the design includes, spelled another way
            ["check", "-o", "parts/../parts/r.yaml", "inc.yaml"],
            "--output parts/../parts/r.yaml is also an input (read as parts/r.yaml): write it "
            "elsewhere",
        ),
        (  # a hard link to it
            ["cost", "-o", "hard.yaml", "inc.yaml"],
            "--output hard.yaml is also an input (read as parts/r.yaml): write it elsewhere",
        ),
        (  # a symlink to it
            ["review", "--format", "markdown", "-o", "soft.yaml", "inc.yaml"],
            "--output soft.yaml is also an input (read as parts/r.yaml): write it elsewhere",
        ),
        (
            ["check", "--write-baseline", "parts/r.yaml", "inc.yaml"],
            "--write-baseline parts/r.yaml is also an input: write it elsewhere",
        ),
        (  # two outputs, one file
            ["check", "-o", "out.txt", "--write-baseline", "./out.txt", "d.yaml"],
            "--write-baseline ./out.txt is also --output: give two files",
        ),
        (
            ["plan", "d.yaml", "--vary", "site.pue=1.2,1.3", "--store", "s.db", "-o", "./s.db"],
            "--store s.db is also --output: give two files",
        ),
        (
            ["calibrate", "d.yaml", "runs.csv", "--profile", "runs.csv"],
            "--profile runs.csv is also an input: write it elsewhere",
        ),
    ],
)
def test_an_output_over_an_input_or_another_output_is_refused(
    argv: list[str], error: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "runs.csv").write_text("step_time\n2.41 s\n", "utf-8")
    before = _files(repo)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"dclint: error: {error}\n")
    assert _files(repo) == before  # nothing written, no temporary file left


def test_the_control_an_output_elsewhere_is_written(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "-o", "out.txt", "inc.yaml"]) == 0
    assert (repo / "out.txt").read_text("utf-8") == "All checks passed: 1 design, no findings.\n"
    assert capsys.readouterr().err == ""
