"""What a design review (markdown, html) shows: an overview of every design, then per design its
summary, diagrams, findings (one defect on many racks rolled up) and projection; the
assumptions once for the whole review. Every figure comes from the run's assessment
(`dclint.analysis.assess.assessment`); a `Review` arranges them for reading."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dclint.analysis.assess.assessment import Assessment, RunAssessment
from dclint.analysis.diagrams import Graph
from dclint.analysis.summary import DesignSummary
from dclint.engine.findings import Finding
from dclint.engine.rollup import Rollup, kinds, roll_up
from dclint.errors import Problem
from dclint.report.assumptions import (
    PROJECTION_OF,
    Assumption,
    assumptions,
    projection_assumptions,
)
from dclint.report.values import days_text, micro_signed, money, not_meaningful, show

__all__ = [
    "OVERVIEW_COLUMNS",
    "SEVERITY_ORDER",
    "Review",
    "Shown",
    "design_review",
    "merged_assumptions",
    "reviews",
]

SEVERITY_ORDER = ("error", "warning", "info")


@dataclass(frozen=True)
class Shown:
    """What a review shows of a design that is read from the design itself, as a run printed
    it: its overview row, assumptions, provenance ((configuration, options differing from the
    defaults), dclint.report.meta) and its section in each format rendered (`sections`: format
    -> its lines, or its parts between the section's anchors: html). A run replayed from the
    results cache (dclint.cli._cache) prints a stored design from these."""

    row: tuple[str, ...]
    assumptions: tuple[Assumption, ...]
    provenance: tuple[str, str]
    sections: dict[str, tuple[str, ...]] = field(default_factory=dict)


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
    assessment: Assessment | None = field(default=None, repr=False)
    shown: Shown | None = field(default=None, repr=False)  # a design read back from the cache

    @property
    def provenance(self) -> tuple[str, str]:
        """(configuration in effect, options differing from the defaults), as the run details
        print them (dclint.report.meta)."""
        if self.shown is not None:
            return self.shown.provenance
        from dclint.report.meta import provenance

        assert self.assessment is not None
        return provenance(self.assessment)

    @property
    def blocked(self) -> str:
        """'not meaningful until NET004 fabric-partitioned is fixed' where an error says the
        design cannot run its workload as stated ('' otherwise): its projection is no figure."""
        if self.assessment is None:
            return ""
        from dclint.engine.coverage import blocking

        f = blocking(self.findings, self.assessment.rules)
        return not_meaningful(f) if f is not None else ""

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
        if self.shown is not None:
            return list(self.shown.row)
        c = self.counts
        s = self.summary
        # no figure where an error says the design cannot run its workload as stated: the
        # design's section says so in place of its projection
        runs = [] if self.blocked else self.projections
        days = [p["training_days"] for p in runs if p.get("training_days")]
        costs: list[Any] = [p["cost_total"] for p in runs if p.get("cost_total")]
        currency = str(next((p.get("currency") for p in self.projections), "") or "")
        total = sum((float(getattr(x, "magnitude", x)) for x in costs), 0.0) if costs else None
        return [
            self.name,
            self.verdict + (f" ({_plural(len(self.errors), 'load error')})" if self.errors else ""),
            str(c["error"]),
            str(c["warning"]),
            str(c["info"]),
            show(s.gpus) if s else "-",  # a count as the summary's GPUs row prints it: 8,208
            show(s.it_load) if s else "-",
            days_text(max(days)) if days else "-",
            # the sum as the projection's cost prints ('168.6 CNY', where this printed '169')
            money(total, currency) if total is not None else "-",
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


def reviews(run: RunAssessment) -> list[Review]:
    """A review a design, those with something to act on first (a clean design never pushes
    another's findings down the document); in the order given within each verdict."""
    items = [_review(a) for a in run.designs]
    return sorted(items, key=lambda r: _VERDICTS.index(r.verdict))


def _review(a: Any) -> Review:
    """The review of an assessment, or of a design read back from the results cache (an
    object with the assessment's result, file, name, errors, findings and design, and what
    the run showed of the design: `shown`)."""
    review = Review(a.file, a.name, list(a.errors), list(a.findings), design=a.design, assessment=a)
    areas: dict[str, dict[str, list[Finding]]] = {}
    for f in a.findings:
        area = f.tags[0] if f.tags else "other"
        areas.setdefault(f.severity, {}).setdefault(area, []).append(f)
    kind = kinds(a.result)
    review.rolled = {
        sev: {area: roll_up(found, kind) for area, found in by_area.items()}
        for sev, by_area in areas.items()
    }
    if a.design is None:
        return review
    stored = getattr(a, "shown", None)
    if isinstance(stored, Shown):
        review.shown, review.assumptions = stored, list(stored.assumptions)
        return review
    review.summary, review.summary_error = a.summary, a.summary_error
    projected = a.projected
    review.projections = a.projection_data
    review.tco = projected.tco.as_dict() if projected.tco is not None else None
    review.notes = [*projected.notes, *a.diagrams.notes]
    review.graphs = list(a.diagrams.graphs)
    review.assumptions = assumptions(a)
    review.assumptions += projection_assumptions(
        [*review.projections, *([review.tco] if review.tco else [])]
    )
    return review


design_review = _review  # one design's review (the results cache keeps what it shows)


def merged_assumptions(
    items: list[Review], projections: bool = True
) -> tuple[list[str], list[list[str]]]:
    """One assumptions table for the whole review: a row per assumption; where the designs
    differ, the value in effect is given per design. `projections`: with the lines of each
    workload's projection (`dclint cost` prints them too)."""
    order: dict[tuple[str, str, str, int], dict[str, str]] = {}
    for r in items:
        # a design's second line under the same item is a line of its own, not the value in
        # effect of another design: each is kept (the TCO's five lines printed as their last)
        seen: Counter[tuple[str, str, str]] = Counter()
        for a in r.assumptions:
            if not projections and a.item.startswith(PROJECTION_OF):
                continue
            key = (a.item, a.default, a.source)
            order.setdefault((*key, seen[key]), {})[r.name] = a.value
            seen[key] += 1
    rows = []
    for (item, default, source, _), values in order.items():
        distinct = set(values.values())
        if len(distinct) == 1 and len(values) == len([r for r in items if r.assumptions]):
            value = distinct.pop()
        else:
            value = "; ".join(f"{name}: {v}" for name, v in values.items())
        # the micro sign in every cell, as the review's step table prints a part (its formats
        # are Markdown, HTML and the documents made from them: none plain text)
        rows.append([micro_signed(c) for c in (item, value, default, source)])
    return ["Assumption", "In effect", "Default", "Source"], rows
