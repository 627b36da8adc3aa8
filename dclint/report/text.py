"""Text output: one line per finding or error, then a one-line summary."""

from __future__ import annotations

from collections import Counter
from typing import Any

from dclint.engine.findings import Finding, RunResult

__all__ = ["finding_line", "render", "summary_line"]


def finding_line(f: Finding) -> str:
    numbers = ""
    if f.measured is not None or f.limit is not None:
        numbers = f" (measured {f.measured or '-'}, limit {f.limit or '-'})"
    return f"{f.file}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}{numbers}"


def render(result: RunResult, settings: dict[str, Any]) -> str:
    lines: list[str] = []
    for design in result.designs:
        lines.extend(f"{e.file}:{e.line}:{e.column}: error: {e.message}" for e in design.errors)
        lines.extend(finding_line(f) for f in design.findings)
    findings, errors = result.findings, result.errors
    if settings.get("statistics") and findings:
        counts = Counter((f.rule, f.name) for f in findings)
        for (rule, name), n in sorted(counts.items()):
            lines.append(f"{n:5d}  {rule}  {name}")
    if settings.get("quiet") and not findings and not errors:
        return ""
    if not settings.get("quiet") or findings or errors:
        lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def summary_line(result: RunResult) -> str:
    findings, errors = result.findings, result.errors
    n = len(result.designs)
    designs = f"{n} design{'s' if n != 1 else ''}"
    if not findings and not errors:
        return f"All checks passed: {designs}, no findings."
    by = Counter(f.severity for f in findings)
    parts = [
        f"{by[s]} {s}{'s' if by[s] != 1 else ''}" for s in ("error", "warning", "info") if by[s]
    ]
    if errors:
        parts.append(f"{len(errors)} load error{'s' if len(errors) != 1 else ''}")
    return f"Found {', '.join(parts)} in {designs}."
