"""Text output: one line per defect or error, then a one-line summary.

One defect on many racks of one type (the same rule, message shape, measured value and
limit) is one line, at its first place, naming how many and which (`[8 racks of type nvl72:
su1-r[1-8]]`); the summary still counts every rack's finding. A defect in a file several designs
read (a rack library three halls include) is one line at the fragment's place naming the designs
(`[in 3 designs: hall-a, hall-b, hall-c]`), counted once in the summary.
With `color` the rule id and severity
are coloured (ANSI), as ruff colours its diagnostics; with `show_source` each line is followed
by its YAML line and a caret under the column. Control characters from the design (a key
holding ESC or a newline) are escaped, so a design cannot write terminal escape sequences or
CI workflow commands into a log.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from dclint.engine.findings import Finding, RunResult, Waiver
from dclint.engine.rollup import Defect, Rollup, defect_counts, defects, measured_limit
from dclint.errors import printable

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import RunAssessment
    from dclint.report.view import View

__all__ = [
    "clean",
    "finding_line",
    "finding_message",
    "render",
    "run_line",
    "summary_line",
    "waiver_line",
    "waiver_terms",
]

_SEVERITY_COLOR = {"error": "31", "warning": "33", "info": "36"}  # red, yellow, cyan
clean = printable  # control characters written as escapes (dclint.errors.printable)


def _paint(text: str, code: str, on: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if on else text


def finding_message(f: Finding, group: Rollup | None = None, defect: Defect | None = None) -> str:
    """A finding's words as every one-line format prints them (text, GitHub, GitLab, SARIF,
    JUnit): the message, what was measured and the limit, what the fix saves, the source of an
    imported element, and, for a roll-up, how many of what (`group`) and the designs that read
    a shared file (`defect`): 'rack su1-r8 ... (measured 130 kW, limit 120 kW) [8 racks of
    type nvl72: su1-r[1-8]]'. Unescaped: each format escapes it its own way."""
    numbers = measured_limit(f)
    if f.impact is not None:
        numbers += f" [{f.impact.text()}]"
    elif f.impact_note:  # a priced rule's finding that costs this run nothing, and why
        numbers += f" [{f.impact_note}]"
    source = f" (source: {f.origin})" if f.origin else ""
    notes = [group.scope() if group is not None else "", defect.across() if defect else ""]
    return f.message + numbers + source + "".join(f" [{n}]" for n in notes if n)


def finding_line(
    f: Finding, color: bool = False, group: Rollup | None = None, defect: Defect | None = None
) -> str:
    """One finding, as `finding_message` words it; `group` and `defect` name the other objects
    and designs with the same defect (a roll-up)."""
    hue = _SEVERITY_COLOR.get(f.severity, "0")
    where = _paint(f"{clean(f.file)}:{f.line}:{f.column}:", "1", color)
    rule = _paint(f.rule, f"1;{hue}", color)
    severity = _paint(f"[{f.severity}]", hue, color)
    return f"{where} {rule} {severity} {clean(finding_message(f, group, defect))}"


def waiver_terms(w: Waiver) -> str:
    """How a finding is waived: 'inline at d.yaml:53, until 2027-06-30: reason'."""
    how = "inline at" if w.kind == "inline" else "baseline"
    parts = [f"{how} {w.where}"]
    if w.by or w.on:
        parts.append("recorded" + (f" by {w.by}" if w.by else "") + (f" on {w.on}" if w.on else ""))
    parts.append(f"until {w.until}" if w.until else "no expiry")
    return ", ".join(parts) + f": {w.reason}"


def waiver_line(w: Waiver) -> str:
    """One waived finding: where, rule, what, and how it is waived."""
    f = w.finding
    return clean(
        f"{f.file}:{f.line}:{f.column}: {f.rule} [waived] {f.message}{measured_limit(f)}"
        f" ({waiver_terms(w)})"
    )


def _source_lines(f: Finding, texts: dict[str, list[str] | None]) -> list[str]:
    """The finding's YAML line with a caret under its column (nothing if unreadable)."""
    if f.file not in texts:
        try:
            with open(f.file, encoding="utf-8") as handle:
                texts[f.file] = handle.read(4_000_000).splitlines()
        except (OSError, UnicodeDecodeError, ValueError):
            texts[f.file] = None
    lines = texts[f.file]
    if lines is None or not 1 <= f.line <= len(lines):
        return []
    number = str(f.line)
    pad = " " * len(number)
    text = clean(lines[f.line - 1].expandtabs(1))
    return [f"{pad} |", f"{number} | {text}", f"{pad} | {' ' * (f.column - 1)}^", ""]


def render(run: RunAssessment, view: View) -> str:
    result = run.result
    color, show = view.color, view.show_source
    texts: dict[str, list[str] | None] = {}
    lines: list[str] = []
    by_design: dict[int, list[Any]] = {}
    for defect in defects(result):
        by_design.setdefault(defect.design, []).append(defect)
    for i, design in enumerate(result.designs):
        for e in design.errors:
            where = _paint(f"{clean(e.file)}:{e.line}:{e.column}:", "1", color)
            lines.append(f"{where} {_paint('error:', '1;31', color)} {clean(e.message)}")
        for defect in by_design.get(i, []):
            group = defect.group
            f = group.first
            lines.append(finding_line(f, color, group, defect))
            if show:
                lines.extend(_source_lines(f, texts))
    if view.show_waivers:
        lines.extend(waiver_line(w) for w in result.waivers)
    findings, errors = result.findings, result.errors
    if view.statistics and findings:
        counts = Counter((f.rule, f.name) for f in findings)
        for (rule, name), n in sorted(counts.items()):
            lines.append(f"{n:5d}  {rule}  {name}")
    fixed = view.baseline_fixed  # baseline entries no longer found: prune them
    lines.extend(f"baseline entry no longer found, prune it: {e.describe()}" for e in fixed)
    if view.quiet and not findings and not errors and not fixed:
        return ""
    if not view.quiet or findings or errors:
        lines.append(run_line(result))
    return "\n".join(lines) + "\n"


def run_line(result: RunResult) -> str:
    """The summary, and how many YAML files a directory search skipped as not designs."""
    line = summary_line(result)
    n = len(result.skipped)
    if n == 0:
        return line
    what = "1 file that is not a design" if n == 1 else f"{n} files that are not designs"
    return f"{line[:-1]}; skipped {what} (--show-files lists {'it' if n == 1 else 'them'})."


def summary_line(result: RunResult) -> str:
    findings, errors = result.findings, result.errors
    n = len(result.designs)
    designs = f"{n} design{'s' if n != 1 else ''}"
    waived = len(result.waivers)
    tail = f"; {waived} finding{'s' if waived != 1 else ''} waived" if waived else ""
    if not findings and not errors:
        return f"All checks passed: {designs}, no findings{tail}."
    by = defect_counts(result)
    parts = [
        f"{by[s]} {s}{'s' if by[s] != 1 else ''}" for s in ("error", "warning", "info") if by[s]
    ]
    if errors:
        parts.append(f"{len(errors)} load error{'s' if len(errors) != 1 else ''}")
    return f"Found {', '.join(parts)} in {designs}{tail}."
