"""What a design review (markdown, html) shows: an overview of every design, then per design its
summary, diagrams, findings (one defect on many racks rolled up) and projection; the
assumptions once for the whole review."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dclint.analysis.summary import DesignSummary, summarise
from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.errors import Problem
from dclint.report.assumptions import Assumption, assumptions, projection_assumptions
from dclint.report.graphs import Graph
from dclint.report.plant import cooling_graph, fabric_graph, power_graph
from dclint.report.rollup import Rollup, kinds, roll_up
from dclint.report.values import money, show

__all__ = ["OVERVIEW_COLUMNS", "SEVERITY_ORDER", "Review", "merged_assumptions", "reviews"]

SEVERITY_ORDER = ("error", "warning", "info")


@dataclass
class Review:
    """Everything one design's review shows; `summary` is None when the design did not load."""

    file: str
    name: str
    errors: list[Problem]
    findings: list[Finding]
    summary: DesignSummary | None = None
    summary_error: str = ""
    projections: list[dict[str, Any]] = field(default_factory=list)
    tco: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    assumptions: list[Assumption] = field(default_factory=list)
    rolled: dict[str, dict[str, list[Rollup]]] = field(default_factory=dict)
    graphs: list[tuple[str, Graph]] = field(default_factory=list)
    design: Any = None

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITY_ORDER}

    @property
    def verdict(self) -> str:
        if self.errors:
            return "does not load"
        counts = self.counts
        return (
            "fails"
            if counts["error"]
            else ("passes with warnings" if counts["warning"] else "passes")
        )

    @property
    def flagged(self) -> dict[str, list[str]]:
        """Finding subjects -> the rules that name them, for marking diagram elements."""
        out: dict[str, list[str]] = {}
        for f in self.findings:
            if f.subject and f.rule not in out.setdefault(f.subject, []):
                out[f.subject].append(f.rule)
        return out

    def overview(self) -> list[str]:
        """Design, verdict, errors, warnings, infos, GPUs, IT load, training days, cost."""
        c = self.counts
        s = self.summary
        days = [p["training_days"] for p in self.projections if p.get("training_days")]
        costs: list[Any] = [p["cost_total"] for p in self.projections if p.get("cost_total")]
        currency = str(next((p.get("currency") for p in self.projections), "") or "")
        total = sum((float(getattr(x, "magnitude", x)) for x in costs), 0.0) if costs else None
        return [
            self.name,
            self.verdict + (f" ({_plural(len(self.errors), 'load error')})" if self.errors else ""),
            str(c["error"]),
            str(c["warning"]),
            str(c["info"]),
            str(s.gpus) if s else "-",
            show(s.it_load) if s else "-",
            f"{max(days):.1f}" if days else "-",
            money(round(total), currency) if total is not None else "-",
        ]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


OVERVIEW_COLUMNS = (
    "Design",
    "Verdict",
    "Errors",
    "Warnings",
    "Infos",
    "GPUs",
    "IT load",
    "Training days (longest workload)",
    "Training cost (all workloads)",
)


_VERDICTS = ("does not load", "fails", "passes with warnings", "passes")


def reviews(result: RunResult, settings: dict[str, Any]) -> list[Review]:
    """A review a design, those with something to act on first (a clean design never pushes
    another's findings down the document); in the order given within each verdict."""
    items = [_review(d, settings) for d in result.designs]
    return sorted(items, key=lambda r: _VERDICTS.index(r.verdict))


def _review(d: DesignResult, settings: dict[str, Any]) -> Review:
    review = Review(d.file, d.name or d.file, list(d.errors), list(d.findings), design=d.design)
    areas: dict[str, dict[str, list[Finding]]] = {}
    for f in d.findings:
        area = f.tags[0] if f.tags else "other"
        areas.setdefault(f.severity, {}).setdefault(area, []).append(f)
    kind = kinds(d.design)
    review.rolled = {
        sev: {area: roll_up(found, kind) for area, found in by_area.items()}
        for sev, by_area in areas.items()
    }
    if d.design is None:
        return review
    options = _options(d.file, settings)
    try:
        review.summary = summarise(d.design, options, settings.get("rules", {}))
    except Exception as exc:  # a design the rules could check but the summary cannot
        review.summary_error = f"{type(exc).__name__}: {exc}"
    _project(review, d.design)
    if review.summary is not None:
        review.graphs = _graphs(d.design, review.summary, review.flagged, review.notes)
    review.assumptions = assumptions(d, settings, options)
    review.assumptions += projection_assumptions(
        [*review.projections, *([review.tco] if review.tco else [])]
    )
    return review


def _graphs(
    design: Any, s: DesignSummary, flagged: dict[str, list[str]], notes: list[str]
) -> list[tuple[str, Graph]]:
    builders: tuple[tuple[str, Callable[[], Graph | None]], ...] = (
        ("Power one-line: load against derated capacity", lambda: power_graph(design, s, flagged)),
        (
            "Cooling loops: CDU heat and flow against capacity",
            lambda: cooling_graph(design, s, flagged),
        ),
        ("Fabric tiers: downlink to uplink ratio", lambda: fabric_graph(s, flagged)),
    )
    out = []
    for title, build in builders:
        try:
            graph = build()
        except Exception as exc:  # a diagram must not take the review down with it
            notes.append(f"{title.split(':')[0]} diagram failed: {type(exc).__name__}: {exc}")
            continue
        if graph is not None and graph.nodes:
            out.append((title, graph))
    return out


def _options(file: str, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    options_for: Callable[[str], dict[str, dict[str, Any]]] | None = settings.get("options_for")
    if options_for is not None:
        return options_for(file)
    from dclint.engine.config import Config, validate_config

    return validate_config(Config(), settings.get("rules", {}))  # every option at its default


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


def merged_assumptions(items: list[Review]) -> tuple[list[str], list[list[str]]]:
    """One assumptions table for the whole review: a row per assumption; where the designs
    differ, the value in effect is given per design."""
    order: dict[tuple[str, str, str], dict[str, str]] = {}
    for r in items:
        for a in r.assumptions:
            order.setdefault((a.item, a.default, a.source), {})[r.name] = a.value
    rows = []
    for (item, default, source), values in order.items():
        distinct = set(values.values())
        if len(distinct) == 1 and len(values) == len([r for r in items if r.assumptions]):
            value = distinct.pop()
        else:
            value = "; ".join(f"{name}: {v}" for name, v in values.items())
        rows.append([item, value, default, source])
    return ["Assumption", "In effect", "Default", "Source"], rows
