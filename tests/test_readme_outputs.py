"""Issue 54, item 6: a README that cannot drift. Every output block in the README that starts
with a `$ dclint ...` line is produced by that command here and compared with what it prints:
exactly, or, for a block the README trims (a `...` line where lines are left out, a line
ending in ` ...` cut short), line by line in order. The sample check printed "Found 4 errors
in 8 designs" in the README after the headroom sample also got PWR008 (5 errors).

After a deliberate change of output, rewrite the blocks from what the commands print:
`python tests/test_readme_outputs.py` (a trimmed block keeps its selection: each shown line is
replaced by the printed line with the same label, the text before its value)."""

from __future__ import annotations

import io
import os
import re
import shlex
import sys
from contextlib import redirect_stdout

import pytest

from conftest import ROOT
from dclint.cli import main

BLOCK = re.compile(r"^```[a-z]*\n(\$ dclint [^\n]*)\n(.*?)^```$", re.M | re.S)
# a block whose command runs processes over a grid (seconds on a loaded runner): integration
SLOW = ("--vary",)


def _blocks() -> list[tuple[str, list[str]]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [(m.group(1)[2:], m.group(2).splitlines()) for m in BLOCK.finditer(text)]


def _params() -> list[object]:
    out: list[object] = []
    for command, shown in _blocks():
        marks = [pytest.mark.integration] if any(s in command for s in SLOW) else []
        out.append(pytest.param(command, shown, id=command[:70], marks=marks))
    return out


def test_the_readme_shows_command_outputs() -> None:
    commands = [c.split()[1] for c, _ in _blocks()]
    assert len(commands) >= 6 and {"check", "cost", "plan"} <= set(commands)


def _matches(shown: list[str], printed: list[str]) -> bool:
    """`printed` as the README shows it: equal, or for a trimmed block each shown line (a
    prefix for one ending in ' ...') in order, `...` lines standing for any run of lines."""
    if not any(s.strip() == "..." or s.endswith(" ...") for s in shown):
        return shown == printed
    at = 0
    for line in shown:
        if line.strip() == "...":
            continue
        prefix = line[:-4] if line.endswith(" ...") else None
        while at < len(printed) and not (
            printed[at] == line or (prefix is not None and printed[at].startswith(prefix))
        ):
            at += 1
        if at == len(printed):
            return False
        at += 1
    return True


@pytest.mark.parametrize(("command", "shown"), _params())
def test_a_readme_output_block_is_what_the_command_prints(
    command: str,
    shown: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    main(shlex.split(command)[1:])
    printed = capsys.readouterr().out.splitlines()
    assert _matches(shown, printed), "\n".join(["the command prints:", *printed])


def _label(line: str) -> str:
    """A line's label: the text before its first run of two spaces ('MFU', '  compute')."""
    return re.split(r"(?<=\S)  +", line, maxsplit=1)[0]


def _rewritten(shown: list[str], printed: list[str]) -> list[str]:
    """A block as the command now prints it, trimmed as the README trims it."""
    if not any(s.strip() == "..." or s.endswith(" ...") for s in shown):
        return printed
    by_label = {_label(p): p for p in reversed(printed)}
    return [
        line if line.strip() == "..." or line.endswith(" ...") else by_label.get(_label(line), line)
        for line in shown
    ]


def regenerate() -> None:
    """Rewrite README.md's output blocks from what their commands print (run from anywhere)."""
    os.chdir(ROOT)
    os.environ.setdefault("DCLINT_NO_CACHE", "1")
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")

    def block(m: re.Match[str]) -> str:
        command, shown = m.group(1), m.group(2).splitlines()
        out = io.StringIO()
        with redirect_stdout(out):
            main(shlex.split(command[2:])[1:])
        lines = _rewritten(shown, out.getvalue().splitlines())
        fence = m.group(0).split("\n", 1)[0]
        return "\n".join([fence, command, *lines, "```"])

    readme.write_text(BLOCK.sub(block, text), encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    regenerate()
