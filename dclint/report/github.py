"""GitHub Actions output: one workflow command (`::error file=...::message`) per defect (one
defect on many racks of a type is one annotation naming them, and a defect in a file several
designs read is one annotation at its line naming the designs: see dclint.engine.rollup)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dclint.engine.baseline import relative_file
from dclint.engine.rollup import defects
from dclint.errors import printable
from dclint.report.text import finding_message, run_line

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import RunAssessment
    from dclint.report.view import View

__all__ = ["command", "escape_data", "escape_property", "render"]

LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """The message part of a workflow command: %, CR and LF are percent-encoded, and every
    other control character (ESC: terminal escapes in the log) is written as an escape."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(text)


def escape_property(text: str) -> str:
    """A property value: as data, and also ':' and ',' which separate properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: Any) -> str:
    fields = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{level} {fields}::{escape_data(message)}"


def render(run: RunAssessment, view: View) -> str:
    result = run.result
    lines = []
    found: dict[int, list[Any]] = {}
    for x in defects(result):
        found.setdefault(x.design, []).append(x)
    for i, design in enumerate(result.designs):
        for e in design.errors:
            lines.append(
                command(
                    "error",
                    e.message,
                    file=relative_file(e.file),
                    line=e.line,
                    col=e.column,
                    title="dclint: design load error",
                )
            )
        for defect in found.get(i, []):
            group = defect.group
            f = group.first  # one annotation a defect: GitHub shows only the first few a step
            message = finding_message(f, group, defect)  # the text output's words
            if f.fix:
                message += f"\nFix: {f.fix}"
            lines.append(
                command(
                    LEVELS[f.severity],
                    message,
                    file=relative_file(f.file),
                    line=f.line,
                    col=f.column,
                    title=f"{f.rule} {f.name}",
                )
            )
    lines.append(run_line(result))  # a plain log line, not a command
    return "\n".join(lines) + "\n"
