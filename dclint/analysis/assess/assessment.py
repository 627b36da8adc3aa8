"""Assess once, present many: everything dclint computes about a checked design, in one typed
record a design, read by every presenter (the CLI's report formats, `dclint.run()`, the review
document, an editor server).

`assess(result, engine)` prices each design's findings (`dclint.analysis.impact`) and returns a
`RunAssessment`. Each `Assessment` computes its summary, projections, TCO and diagram data on
first read and keeps them: a text report (findings only) pays for no projection, and a review
that reads a figure twice computes it once. Nothing here prints or formats a report; nothing
raises because a projection, a summary or a diagram failed: the failure is kept as text
(`summary_error`, `Projected.projection_error`, ...) for the presenter to show.

A presenter reads, per design:

- `findings` (priced: `Finding.impact` set where a fix changes the projection), `errors`,
  `design` (None when it did not load), `file`, `name`;
- `summary` (`DesignSummary`: GPUs, IT load, facility power, rack loads, feeds, CDUs, fabric
  tiers, storage), or `summary_error`;
- `projected` (`Projected`: each workload's `Projection`, the workloads not projected and why,
  the cluster `Tco`), and `projection_data` (each projection as data, its step's parts
  labelled);
- `diagrams` (`Diagrams`: the power, cooling and fabric graphs as data, titled);
- `config`, `options` (the typed rule options in effect), `selected(rule_id)`, and
  `flagged` (finding subjects -> the rules that name them).

`Assessment.settle()` computes them all at once: the review's one result
(`dclint.analysis.assess.review.review`) is settled before report/ lays it out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.engine.runner import Engine
from dclint.errors import Problem

if TYPE_CHECKING:
    from dclint.analysis.diagrams import Graph
    from dclint.analysis.summary import DesignSummary
    from dclint.engine.config import Config
    from dclint.engine.rule import Rule, Severity
    from dclint.model.design import Design
    from dclint.projection import Projection, Tco

__all__ = [
    "Assessment",
    "Diagrams",
    "Projected",
    "RunAssessment",
    "assess",
    "assess_design",
    "diagrams",
    "price_design",
    "price_findings",
    "project",
]


def _failure(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class Projected:
    """A design's projection: one `Projection` a workload that could be projected, the
    `unprojected` workloads (id, why not), and the cluster's `tco`. A step that raised leaves
    its failure text (``"ValueError: ..."``) and its part empty."""

    projections: tuple[Projection, ...] = ()
    unprojected: tuple[tuple[str, str], ...] = ()
    tco: Tco | None = None
    projection_error: str = ""
    unprojected_error: str = ""
    tco_error: str = ""

    @property
    def error(self) -> str:
        """The first failure (projection, unprojected, TCO), '' when none."""
        return self.projection_error or self.unprojected_error or self.tco_error

    @property
    def notes(self) -> list[str]:
        """What a review says under the projection: failures, and workloads not projected."""
        out = []
        if self.projection_error:
            out.append(f"projection failed: {self.projection_error}")
        if self.tco_error:
            out.append(f"TCO failed: {self.tco_error}")
        if self.unprojected_error:
            out.append(f"projection failed: {self.unprojected_error}")
        out += [f"workload {w} not projected: {why}" for w, why in self.unprojected]
        return out


def project(design: Design) -> Projected:
    """Every workload's projection and the TCO of `design`; never raises."""
    from dclint.projection import project_workloads, tco, unprojected

    found: dict[str, Any] = {}
    for key, compute in (
        ("projections", lambda: tuple(project_workloads(design))),
        ("unprojected", lambda: tuple(unprojected(design))),
        ("tco", lambda: tco(design)),
    ):
        try:
            found[key] = compute()
        except Exception as exc:  # a report must not fail because a projection did
            found[key.removesuffix("s") + "_error"] = _failure(exc)
    return Projected(**found)


@dataclass(frozen=True)
class Diagrams:
    """The review's diagrams as data: (title, graph) of each that has something to draw, and
    a note for each that failed to build."""

    graphs: tuple[tuple[str, Graph], ...] = ()
    notes: tuple[str, ...] = ()


def diagrams(
    design: Design,
    s: DesignSummary,
    flagged: dict[str, list[str]],
    basis: dict[str, bool] | None = None,
) -> Diagrams:
    """Each diagram of `design` with something to draw; `flagged` marks the elements findings
    name (`Assessment.flagged`); `basis` (diagrams.power_basis of the rules and options in
    effect) sets the load the power diagram draws, the one its rules check."""
    # the diagrams are a review's and the HTML report's: a check does not import them
    from dclint.analysis.diagrams import cooling_graph, fabric_graph, grouped, power_graph

    builders: tuple[tuple[str, Callable[[], Graph | None]], ...] = (
        (
            "Power one-line: load against derated capacity",
            lambda: power_graph(design, s, flagged, basis),
        ),
        (
            "Cooling loops: CDU heat and flow against capacity",
            lambda: cooling_graph(design, s, flagged),
        ),
        ("Fabric tiers: downlink to uplink ratio", lambda: fabric_graph(s, flagged)),
    )
    graphs, notes = [], []
    for title, build in builders:
        try:
            graph = build()
        except Exception as exc:  # a diagram must not take the review down with it
            notes.append(f"{title.split(':')[0]} diagram failed: {_failure(exc)}")
            continue
        if graph is not None and graph.nodes:
            graphs.append((title, grouped(graph)))
    return Diagrams(tuple(graphs), tuple(notes))


@dataclass(eq=False)
class Assessment:
    """Everything dclint computes about one checked design (see the module doc). `result` is
    the engine's record of the design, its findings priced; the rest is computed on first
    read, under the configuration governing the file."""

    result: DesignResult
    engine: Engine = field(repr=False)

    @property
    def file(self) -> str:
        return self.result.file

    @property
    def name(self) -> str:
        """The design's name, or its file when it did not load."""
        return self.result.name or self.result.file

    @property
    def design(self) -> Design | None:
        design: Design | None = self.result.design
        return design

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings

    @property
    def errors(self) -> list[Problem]:
        return self.result.errors

    @cached_property
    def rules(self) -> dict[str, type[Rule]]:
        """The rules that can run on this design: every rule discovered and the site policies
        its own configuration names (another configuration's policies never ran here)."""
        return self.engine.rules_for(self.config)

    @cached_property
    def config(self) -> Config:
        """The configuration governing the file (its directory's, or --config), CLI values in."""
        return self.engine.config_for(self.file)

    @cached_property
    def options(self) -> dict[str, dict[str, Any]]:
        """Every rule's typed options in effect for this design."""
        return self.engine.options(self.config)

    def selected(self, rule_id: str) -> bool:
        """Whether `rule_id` runs on this design under its configuration."""
        from dclint.engine.config import selected

        return selected(rule_id, self.config, self.file)

    def inapplicable(self, rule_id: str) -> str:
        """Why rule `rule_id` cannot apply to the design (`Rule.inapplicable` under the options
        in effect; '' when it can, when the design did not load, or for a rule not known)."""
        cls = self.rules.get(rule_id)
        if cls is None or self.design is None:
            return ""
        return cls.inapplicable(self.design, self.options.get(rule_id))

    @cached_property
    def flagged(self) -> dict[str, list[str]]:
        """Finding subjects -> the rules that judge them, for marking diagram elements: errors
        and warnings. An info finding (a rule a configuration set to `info`, DCL005's spelling
        notes) is a remark, not a verdict: it draws no element as over its limit."""
        out: dict[str, list[str]] = {}
        for f in self.findings:
            if f.severity == "info":
                continue
            if f.subject and f.rule not in out.setdefault(f.subject, []):
                out[f.subject].append(f.rule)
        return out

    @cached_property
    def _summary(self) -> tuple[DesignSummary | None, str]:
        if self.design is None:
            return None, ""
        from dclint.analysis.summary import summarise  # a check prints no summary

        try:
            return summarise(self.design, self.options, self.rules), ""
        except Exception as exc:  # a design the rules could check but the summary cannot
            return None, _failure(exc)

    @property
    def summary(self) -> DesignSummary | None:
        """The figures a reviewer reads first; None when the design did not load or the
        summary failed (`summary_error`)."""
        return self._summary[0]

    @property
    def summary_error(self) -> str:
        return self._summary[1]

    @cached_property
    def projected(self) -> Projected:
        """Projections, workloads not projected, TCO (empty when the design did not load)."""
        return project(self.design) if self.design is not None else Projected()

    @cached_property
    def projection_data(self) -> list[dict[str, Any]]:
        """Each projection as data (`Projection.as_dict`), with its step's parts labelled as
        the review shows them (`step_parts`: (label, seconds) each, [] with no step model)."""
        from dclint.analysis.steps import step_parts

        out = []
        for p in self.projected.projections:
            data = p.as_dict()
            data["step_parts"] = step_parts(data)
            out.append(data)
        return out

    def settle(self) -> Assessment:
        """Every figure computed now (summary, projections and their data, diagrams, options),
        so that a presenter only reads: a review computes in analysis/, then lays out."""
        for name in ("config", "options", "flagged", "_summary", "projection_data", "diagrams"):
            getattr(self, name)
        return self

    @cached_property
    def diagrams(self) -> Diagrams:
        """The power, cooling and fabric diagrams as data (none without a summary)."""
        if self.design is None or self.summary is None:
            return Diagrams()
        from dclint.analysis.diagrams import power_basis

        basis = power_basis(self.rules, self.options)
        return diagrams(self.design, self.summary, self.flagged, basis)


@dataclass(eq=False)
class RunAssessment:
    """A run assessed: the engine's `result` and one `Assessment` a design, in order."""

    result: RunResult
    designs: list[Assessment]
    engine: Engine = field(repr=False)

    @property
    def findings(self) -> list[Finding]:
        """Every design's findings, priced."""
        return self.result.findings

    @property
    def errors(self) -> list[Problem]:
        return self.result.errors

    @property
    def rules(self) -> dict[str, type[Rule]]:
        return self.engine.rules

    @property
    def fail_on(self) -> Severity:
        """The exit threshold: the governing config of the first design (CLI values in)."""
        return self.engine.config_for(self.result.designs[0].file if self.designs else ".").fail_on

    def exit_code(self, fail_on: Severity | None = None) -> int:
        """0 clean, 1 findings at or above `fail_on` (default: `self.fail_on`), 2 load or
        config errors or rule failures."""
        return self.result.exit_code(fail_on or self.fail_on)


def price_findings(result: RunResult, engine: Engine) -> None:
    """Set `impact` on each finding whose fix changes the projection (in place)."""
    for d in result.designs:
        price_design(d, engine)


def price_design(d: DesignResult, engine: Engine) -> None:
    """Set `impact` (or `impact_note`) on each of one design's findings (in place)."""
    from dclint.analysis.impact import price, priced

    if d.design is not None and priced(d.findings, engine.rules):
        options = engine.options(engine.config_for(d.file))
        d.findings = price(d.design, d.findings, options, engine.rules)


def _rack_kinds(d: DesignResult) -> None:
    """Each rack's type (or platform) key on `d`, for the reports' roll-ups (in place)."""
    if d.design is None or d.rack_kinds:
        return
    from dclint.model.resolve import topology_of

    try:
        racks = topology_of(d.design).rack_by_id
    except Exception:  # a design whose topology cannot be resolved: no kinds
        return
    d.rack_kinds = {i: r.type_key or r.platform_key or "-" for i, r in racks.items()}


def assess_design(result: DesignResult, engine: Engine, *, priced: bool = True) -> Assessment:
    """The assessment of one checked design (an editor's unsaved text, a single file):
    findings priced (unless `priced` is False), figures computed on first read."""
    if priced:
        price_design(result, engine)
    _rack_kinds(result)
    return Assessment(result, engine)


def assess(result: RunResult, engine: Engine, *, priced: bool = True) -> RunAssessment:
    """The assessment of a checked run: findings priced (unless `priced` is False), one
    `Assessment` a design whose figures are computed on first read."""
    if priced:
        price_findings(result, engine)
    for d in result.designs:
        _rack_kinds(d)
    return RunAssessment(result, [Assessment(d, engine) for d in result.designs], engine)
