"""JSON output: `version`, and `designs`, each with its findings and errors (stable keys)."""

from __future__ import annotations

import json
from typing import Any

from dclint import __version__
from dclint.engine.findings import RunResult
from dclint.report.rollup import as_data as rollup_data

__all__ = ["as_data", "render"]


def as_data(result: RunResult, settings: dict[str, Any]) -> dict[str, Any]:
    designs = []
    for d in result.designs:
        entry: dict[str, Any] = {
            "file": d.file,
            "name": d.name,
            "findings": [f.as_dict() for f in d.findings],
            # one defect on many racks of a type: each keeps its subjects and finding indices
            "rollups": rollup_data(d.findings, d.design),
            # found and not reported: suppressed inline or accepted by a baseline, with why
            "waivers": [w.as_dict() for w in d.waivers],
            "errors": [
                {"file": e.file, "line": e.line, "column": e.column, "message": e.message}
                for e in d.errors
            ],
        }
        extra = settings.get("design_extras")
        if extra is not None and d.design is not None:
            entry.update(extra(d.design))
        designs.append(entry)
    return {"version": __version__, "designs": designs}


def render(result: RunResult, settings: dict[str, Any]) -> str:
    return json.dumps(as_data(result, settings), indent=2, ensure_ascii=False) + "\n"
