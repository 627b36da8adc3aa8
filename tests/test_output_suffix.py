"""`-o FILE` chooses the format by its suffix for every command, the same way; `--format`
wins; a suffix naming a format the command cannot write is one error line and exit 2, with
nothing written (the issue: `-o x.html` or `-o x.md` on cost, plan, capacity and diff wrote
plain text, 7 of 7 tries)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint.cli import main

H100 = str(SAMPLES / "h100-40node.yaml")
B200 = str(SAMPLES / "b200-1000gpu.yaml")
COMMANDS = {
    "cost": ["cost", H100],
    "capacity": ["capacity", H100, "--add", "dgx-h100"],
    "diff": ["diff", H100, B200],
    "check": ["check", str(SAMPLES / "broken-rack-130kw.yaml"), "--no-cache"],
}


def _opens(text: str, suffix: str) -> bool:
    if suffix == ".html":
        return text.startswith("<!DOCTYPE html>")
    if suffix == ".json":
        return isinstance(json.loads(text), dict)
    assert suffix == ".md"
    return text.startswith("#")


@pytest.mark.parametrize("suffix", [".md", ".html", ".json"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_suffix_chooses_the_format(command: str, suffix: str, tmp_path: Path) -> None:
    out = tmp_path / f"report{suffix}"
    code = main([*COMMANDS[command], "-o", str(out)])
    assert code == (1 if command == "check" else 0)
    assert _opens(out.read_text(), suffix), out.read_text()[:200]


def test_format_wins_over_the_suffix(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["cost", H100, "--format", "text", "-o", str(out)]) == 0
    assert out.read_text().startswith("workload")


def test_a_suffix_the_command_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.sarif"
    assert main(["cost", H100, "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"dclint: error: --output {out}: `dclint cost` does not write sarif; it writes text, "
        "json, markdown or html (name one with --format, or use its suffix)\n"
    )
    assert not out.exists()
    review = tmp_path / "review.json"
    assert main(["review", H100, "-o", str(review)]) == 2
    assert "`dclint review` does not write json; it writes html, pdf, markdown, docx or xlsx" in (
        capsys.readouterr().err
    )
    assert not review.exists()
