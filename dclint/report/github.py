"""GitHub Actions output: one workflow command (`::error file=...::message`) per defect (one
defect on many racks of a type is one annotation naming them: see dclint.report.rollup)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dclint.engine.baseline import relative_file
from dclint.errors import printable
from dclint.report.rollup import kinds, measured_limit, roll_up
from dclint.report.text import run_line

if TYPE_CHECKING:
    from dclint.analysis.assess import RunAssessment
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
    for design in result.designs:
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
        for group in roll_up(design.findings, kinds(design)):
            f = group.first  # one annotation a defect: GitHub shows only the first few a step
            message = f.message + (f" [{group.scope()}]" if group.count > 1 else "")
            message += measured_limit(f)
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
