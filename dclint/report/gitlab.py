"""GitLab Code Quality output: the JSON array GitLab reads from a job's `codequality` report
artifact and shows in merge requests (GitLab's documentation, "Code Quality", section "Code
Quality report format").

Each entry has `description`, `check_name` (the rule id), `fingerprint`, `severity` and
`location` (`path` from the working directory, `lines.begin`). GitLab has five severities;
dclint's map as ESLint's GitLab formatter maps its own: error -> major, warning -> minor,
info -> info, and a design that does not load (no rule ran on it) -> blocker.

A fingerprint is the baseline's (rule, file, design path, subject: never the line, so a block
moved within the file keeps it) hashed with how many entries before it share it, since GitLab
keeps one issue a fingerprint. One defect on many racks of a type is one entry, and so is a
defect in a file several designs read (its description names them), as in the GitHub and SARIF
output (dclint.engine.rollup).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from dclint.engine.baseline import fingerprint, relative_file
from dclint.engine.rollup import Defect, defects
from dclint.errors import LOAD_ERROR_ID
from dclint.escaping import finite_json
from dclint.report.text import finding_message

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import RunAssessment
    from dclint.report.view import View

__all__ = ["SEVERITIES", "as_data", "render"]

SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}
LOAD_ERROR = (LOAD_ERROR_ID, "blocker")  # the check name and severity of a design that did not load


def _entry(description: str, check: str, key: str, severity: str, file: str, line: int) -> Any:
    return {
        "description": description,
        "check_name": check,
        "fingerprint": key,
        "severity": severity,
        "location": {"path": relative_file(file), "lines": {"begin": max(line, 1)}},
    }


def as_data(run: RunAssessment) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}

    def unique(base: str) -> str:
        n = seen.get(base, 0)
        seen[base] = n + 1
        return hashlib.sha256(f"{base}\x1f{n}".encode()).hexdigest()[:32]

    found: dict[int, list[Defect]] = {}
    for x in defects(run.result):
        found.setdefault(x.design, []).append(x)
    for i, design in enumerate(run.result.designs):
        for e in design.errors:
            base = "\x1f".join((LOAD_ERROR[0], relative_file(e.file), e.message))
            key = unique(hashlib.sha256(base.encode("utf-8", "surrogatepass")).hexdigest())
            message = f"design load error: {e.message}"
            out.append(_entry(message, LOAD_ERROR[0], key, LOAD_ERROR[1], e.file, e.line))
        for defect in found.get(i, []):
            group = defect.group
            f = group.first
            message = f"{f.rule} {f.name}: {finding_message(f, group, defect)}"
            if f.fix:
                message += f" Fix: {f.fix}"
            key = unique(fingerprint(f))
            out.append(_entry(message, f.rule, key, SEVERITIES[f.severity], f.file, f.line))
    return out


def render(run: RunAssessment, view: View) -> str:
    return finite_json(as_data(run))
