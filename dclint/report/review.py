"""What a design review (markdown, html) shows: summary, findings, projection, assumptions."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dclint.analysis.summary import DesignSummary, summarise
from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.errors import Problem
from dclint.report.values import share, show

__all__ = ["SEVERITY_ORDER", "Assumption", "Review", "reviews"]

SEVERITY_ORDER = ("error", "warning", "info")


@dataclass(frozen=True)
class Assumption:
    item: str
    value: str
    default: str
    source: str


@dataclass
class Review:
    """Everything one design's review shows; `summary` is None when the design did not load."""

    file: str
    name: str
    errors: list[Problem]
    findings: list[Finding]
    summary: DesignSummary | None = None
    summary_error: str = ""
    groups: dict[str, dict[str, list[Finding]]] = field(default_factory=dict)
    projections: list[dict[str, Any]] = field(default_factory=list)
    tco: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    assumptions: list[Assumption] = field(default_factory=list)


def reviews(result: RunResult, settings: dict[str, Any]) -> list[Review]:
    return [_review(d, settings) for d in result.designs]


def _review(d: DesignResult, settings: dict[str, Any]) -> Review:
    review = Review(d.file, d.name or d.file, list(d.errors), list(d.findings))
    for f in d.findings:
        area = f.tags[0] if f.tags else "other"
        review.groups.setdefault(f.severity, {}).setdefault(area, []).append(f)
    if d.design is None:
        return review
    options = _options(d.file, settings)
    try:
        review.summary = summarise(d.design, options, settings.get("rules", {}))
    except Exception as exc:  # a design the rules could check but the summary cannot
        review.summary_error = f"{type(exc).__name__}: {exc}"
    _project(review, d.design)
    review.assumptions = _assumptions(d, settings, options)
    review.assumptions += _projection_assumptions(
        [*review.projections, *([review.tco] if review.tco else [])]
    )
    return review


def _options(file: str, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    options_for: Callable[[str], dict[str, dict[str, Any]]] | None = settings.get("options_for")
    if options_for is not None:
        return options_for(file)
    from dclint.engine.options import parse_option

    return {
        rid: {name: parse_option(rid, name, o.kind, o.default) for name, o in cls.options.items()}
        for rid, cls in settings.get("rules", {}).items()
    }


def _as_dict(value: Any) -> dict[str, Any]:
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    return dict(value) if isinstance(value, dict) else {"value": value}


def _project(review: Review, design: Any) -> None:
    """Projected training time and cost, when dclint.projection provides them."""
    try:
        from dclint.projection import project_workloads, tco
    except (ImportError, AttributeError):
        review.notes.append("training-time and cost projection not available in this build")
        return
    try:
        review.projections = [_as_dict(p) for p in project_workloads(design)]
    except Exception as exc:  # the projection must not take the review down with it
        review.notes.append(f"projection failed: {type(exc).__name__}: {exc}")
    try:
        review.tco = _as_dict(tco(design))
    except Exception as exc:
        review.notes.append(f"TCO failed: {type(exc).__name__}: {exc}")
    try:
        from dclint.projection import unprojected
    except (ImportError, AttributeError):
        return
    try:
        review.notes += [f"workload {w} not projected: {why}" for w, why in unprojected(design)]
    except Exception as exc:
        review.notes.append(f"projection failed: {type(exc).__name__}: {exc}")


_WHY = re.compile(r"## Why it matters\s*\n(.*?)(?:\n\s*\n|\n##|$)", re.S)


def _source(cls: Any) -> str:
    match = _WHY.search(cls.doc())
    text = " ".join(match.group(1).split()) if match else cls.summary()
    first = re.split(r"(?<=[.)])\s+(?=[A-Z])", text, maxsplit=1)[0]
    return f"{cls.id}: {first}"


def _assumptions(
    d: DesignResult, settings: dict[str, Any], options: dict[str, dict[str, Any]]
) -> list[Assumption]:
    design = d.design
    selected: Callable[[str, str], bool] = settings.get("selected") or (lambda rid, f: True)
    out = []
    pue_given = "pue" in design.site.model_fields_set
    out.append(
        Assumption(
            "facility power = IT load x PUE",
            f"PUE {design.site.pue:g}",
            "PUE 1.3",
            "design file (site.pue)" if pue_given else "dclint default (site.pue not given)",
        )
    )
    out.append(
        Assumption(
            "circuit capacity = sqrt(3) x V x I x PF x max utilisation",
            "per circuit",
            "PF 0.95, max utilisation 80%",
            "NEC 210.20(A) continuous-load limit; NetBox power-feed default",
        )
    )
    out.append(
        Assumption(
            "feed load",
            "a rack's whole load on each power path",
            "2N",
            "with one path lost the other carries the rack (dclint.calc.power)",
        )
    )
    out.append(
        Assumption(
            "cooling capacity",
            "sum of installed CDU capacity",
            "no N+1 deduction",
            "CDU ratings as declared (cooling.cdus[].capacity)",
        )
    )
    for rid, cls in settings.get("rules", {}).items():
        if not cls.options or not selected(rid, d.file):
            continue
        for name, opt in cls.options.items():
            value = options.get(rid, {}).get(name, opt.default)
            shown = share(value) if opt.kind == "share" else show(value)
            out.append(
                Assumption(f"{rid}.{name}: {opt.help}", shown, show(opt.default), _source(cls))
            )
    return out


def _projection_assumptions(projections: list[dict[str, Any]]) -> list[Assumption]:
    """The projection's own assumptions, whatever shape it gives them (mapping or list)."""
    out: dict[str, Assumption] = {}
    for p in projections:
        items = p.get("assumptions") or {}
        pairs = list(items.items()) if isinstance(items, dict) else list(enumerate(items))
        for key, value in pairs:
            if isinstance(value, dict):
                name = str(value.get("name") or value.get("item") or key)
                a = Assumption(
                    f"projection: {name}",
                    show(value.get("value", "")),
                    show(value.get("default", "-")),
                    str(value.get("source", "dclint.projection")),
                )
            elif isinstance(key, int):
                a = Assumption(
                    "training-time and cost projection", str(value), "-", "dclint.projection"
                )
            else:
                a = Assumption(f"projection: {key}", show(value), "-", "dclint.projection")
            out.setdefault(a.item + a.value, a)
    return list(out.values())
