"""JSON output: `version`, and `designs`, each with its findings and errors (stable keys), and,
for a design that loaded, its projections and TCO; and `defects`: one entry a defect, a finding
in a file several designs read (a rack library three halls include) once, with the designs it
affects (`designs`) and the [design, finding] indices it stands for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dclint._version import __version__
from dclint.engine.rollup import as_data as rollup_data
from dclint.engine.rollup import defects_data
from dclint.escaping import finite_json

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import Assessment, RunAssessment
    from dclint.report.view import View

__all__ = ["as_data", "render"]


def _projection(a: Assessment) -> dict[str, Any]:
    """The design's projections and TCO; a failure in their stead, never an exception."""
    p = a.projected
    if p.error:
        return {"projections": [], "projection_error": p.error}
    try:
        return {
            "projections": [x.as_dict() for x in p.projections],
            "unprojected": [{"workload": w, "reason": r} for w, r in p.unprojected],
            "tco": p.tco.as_dict() if p.tco is not None else None,
        }
    except Exception as exc:  # a report must not fail because a projection did
        return {"projections": [], "projection_error": f"{type(exc).__name__}: {exc}"}


def as_data(run: RunAssessment) -> dict[str, Any]:
    designs = []
    for a in run.designs:
        d = a.result
        entry: dict[str, Any] = {
            "file": d.file,
            "name": d.name,
            "findings": [f.as_dict() for f in d.findings],
            # one defect on many racks of a type: each keeps its subjects and finding indices
            "rollups": rollup_data(d.findings, d),
            # found and not reported: suppressed inline or accepted by a baseline, with why
            "waivers": [w.as_dict() for w in d.waivers],
            "errors": [
                {"file": e.file, "line": e.line, "column": e.column, "message": e.message}
                for e in d.errors
            ],
        }
        if d.design is not None:
            entry.update(_projection(a))
        designs.append(entry)
    return {"version": __version__, "designs": designs, "defects": defects_data(run.result)}


def render(run: RunAssessment, view: View) -> str:
    return finite_json(as_data(run))
