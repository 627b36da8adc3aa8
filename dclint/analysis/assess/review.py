"""The review document a consultant hands over, as data: front matter, the executive summary
ranked by consequence, and per design its scope, best layout against the declared one,
capacity headroom and waivers; with a counter-design, the diff. Presenters (HTML, Markdown,
PDF) only lay this out, so every format tells the same story.

Nothing here prints or raises for a part that cannot be computed: the part keeps a note saying
why (a design with no workload has no layout search; a design with no racks has no headroom).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from dclint.engine.findings import SEVERITY_RANK, DesignResult, Finding, RunResult, Waiver
from dclint.engine.rule import Change, Rule
from dclint.engine.shared import shared_settings
from dclint.errors import LoadError
from dclint.model.resolve import topology_of

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import RunAssessment
    from dclint.analysis.capacity.headroom import Capacity
    from dclint.analysis.capacity.limits import Limit
    from dclint.analysis.diff import Diff
    from dclint.engine.runner import Engine
    from dclint.projection import Projection
    from dclint.projection.search.plan import Plan
    from dclint.projection.search.records import Candidate
    from dclint.projection.uncertainty import Band

__all__ = [
    "FRONT_FIELDS",
    "DesignPart",
    "FrontMatter",
    "Headroom",
    "Layout",
    "LayoutRow",
    "Ranked",
    "ReviewDocument",
    "ScopeLine",
    "build",
    "front_matter",
    "headroom",
    "layouts",
    "ranked",
    "review",
    "scope",
]

FRONT_FIELDS = ("title", "client", "project", "author", "reviewer", "revision", "date")
TOP = 3  # items of the executive summary on its first page


@dataclass(frozen=True)
class FrontMatter:
    title: str = "Datacenter design review"
    client: str = ""
    project: str = ""
    author: str = ""
    reviewer: str = ""
    revision: str = ""
    date: str = ""

    def rows(self) -> list[tuple[str, str]]:
        """(label, value) of each field given, title excepted."""
        labels = ("Client", "Project", "Prepared by", "Reviewed by", "Revision", "Date")
        values = (
            self.client,
            self.project,
            self.author,
            self.reviewer,
            self.revision,
            self.date,
        )
        return [(k, v) for k, v in zip(labels, values, strict=True) if v]

    @property
    def running_header(self) -> str:
        return self.title + (f", revision {self.revision}" if self.revision else "")


@dataclass(frozen=True)
class Ranked:
    """One defect of the executive summary: its first finding, how many objects share it."""

    design: str
    finding: Finding
    count: int = 1
    rank: int = 0  # the consequence class's rank (dclint.engine.coverage.CONSEQUENCES)
    consequence: str = ""  # its label: 'equipment over its rating', ...
    blocked: Finding | None = None  # a finding that makes the design's projection meaningless

    @property
    def days(self) -> float:
        f = self.finding
        # a range (an assumption the design leaves open) ranks by its larger end
        return f.impact.most_days if f.impact is not None else 0.0

    @property
    def money(self) -> float:
        f = self.finding
        if f.impact is None or f.impact.cost is None:
            return 0.0
        return float(f.impact.cost.m_as(f.impact.currency))


@dataclass(frozen=True)
class ScopeLine:
    """One family of checks on one design: 'checked' (every rule applied), 'partly' or 'not
    checked', with what was not and why."""

    family: str
    status: str
    detail: str


@dataclass(frozen=True)
class LayoutRow:
    """One layout's figures as the review quotes them, each scaled from the workload's one
    projection (`Layout.row`)."""

    candidate: Candidate
    step: float  # seconds a step
    mfu: float
    days: float
    cost: Any  # Quantity in the design's currency, or None
    # the calibration band of the days and of the cost (Band.scaled), where they are predicted
    days_band: tuple[float, float] | None = None
    cost_band: tuple[Any, Any] | None = None


@dataclass(frozen=True)
class Layout:
    """The layout search for one workload: `plan` (None when it could not run, `note` why).

    Every figure a layout row quotes scales from the workload's one `projection`: the declared
    layout's days, MFU and cost are the projection's own, and another layout's are the
    projection's times the step model's ratio of the two layouts (as PAR005 prices the gap).
    Where the projection rests on a declared MFU, the days are the user's measurement, and
    only the ratio comes from the model."""

    workload: str
    plan: Plan | None
    note: str = ""
    sentence: str = ""  # where the declared layout ranks and where it loses
    adopt: tuple[Change, ...] = ()  # the design change to the best layout (none: it is the best)
    band: Band | None = None  # the step model's band, where the projection's days are predicted
    projection: Projection | None = None  # the workload's one projection (None: none made)
    declared: LayoutRow | None = None  # the declared layout's row (None: no search)
    best: LayoutRow | None = None  # the best layout's row
    ceiling: str = ""  # the best above the calibration runs' best MFU, in words ('' if not)
    used: str = ""  # the best at a declared MFU beside the model's, in words ('' if predicted)

    @property
    def declared_mfu(self) -> bool:
        """Whether the projection's MFU is the design's (not the step model's)."""
        p = self.projection
        return p is not None and not p.timing.mfu_source.startswith("predicted")

    def row(self, c: Candidate) -> LayoutRow:
        """`c`'s figures at the MFU the run uses (`Plan.used`: the plan's and PAR005's)."""
        assert self.plan is not None
        step, mfu, days, cost = self.plan.used(c)
        # the layout's own band (its GPU count and context parallelism, as `dclint plan` gives
        # it: the declared layout's is the projection's), where the days are predicted
        band = None if self.band is None else self.plan.band(c)
        return LayoutRow(
            c,
            step,
            mfu,
            days.m_as("day"),
            cost,
            None if band is None else band.scaled(days.m_as("day")),
            None if band is None or cost is None else band.scaled(cost),
        )

    def with_rows(self) -> Layout:
        """This layout with its declared and best rows computed (a search that ran)."""
        if self.plan is None:
            return self
        from dclint.analysis.layouts import used_sentence

        return replace(
            self,
            declared=self.row(self.plan.declared),
            best=self.row(self.best_c),
            used=used_sentence(self.plan) or "",  # best_ceiling_sentence says the ceiling
        )

    @property
    def best_c(self) -> Candidate:
        assert self.plan is not None
        return self.plan.result.valid[0]


@dataclass(frozen=True)
class Headroom:
    """How many more racks of the design's own platform fit, what binds first, what lifts it."""

    capacity: Capacity | None
    binding: Limit | None = None
    lift: str = ""
    then: Limit | None = None  # what binds once the first limit is lifted
    note: str = ""


@dataclass
class DesignPart:
    result: DesignResult
    scope: list[ScopeLine] = field(default_factory=list)
    layouts: list[Layout] = field(default_factory=list)
    headroom: Headroom | None = None
    blocked: Finding | None = None  # an error that makes the projected figures meaningless
    failures: list[Any] | None = None  # dclint.calc.failures.play.Failure: the FMEA appendix

    @property
    def name(self) -> str:
        return self.result.name or self.result.file

    @property
    def waivers(self) -> list[Waiver]:
        return self.result.waivers


@dataclass
class ReviewDocument:
    front: FrontMatter
    result: RunResult
    ranked: list[Ranked]
    designs: list[DesignPart]
    diff: Diff | None = None
    diff_names: tuple[str, str] = ("", "")
    run: RunAssessment | None = field(default=None, repr=False)  # what every part quotes
    ledgers: list[Any] = field(default_factory=list)  # dclint.importer.ledger.ReadLedger

    @property
    def top(self) -> list[Ranked]:
        return self.ranked[:TOP]


def ranked(result: RunResult, rules: dict[str, type[Rule]] | None = None) -> list[Ranked]:
    """Every defect (one defect on many objects is one: its first finding and how many, as
    the reports roll them up), ordered by consequence class first (a single failure's loss of
    load or cooling, equipment over its rating, a design that cannot run as stated, capacity,
    then performance and money: each rule's `consequence`), then errors before warnings and
    infos (an error fails the check: a 2:1 fabric the price of which is not known still
    ranks above a layout a warning prices at days), then by training days lost and money."""
    from dclint.engine.coverage import blocking, consequence_of
    from dclint.engine.rollup import kinds, roll_up

    rules = rules or {}
    out: list[Ranked] = []
    for d in result.designs:
        blocked = blocking(d.findings, rules)
        for group in roll_up(d.findings, kinds(d)):
            first = group.first
            rank, label = consequence_of(rules.get(first.rule))
            out.append(Ranked(d.name or d.file, first, group.count, rank, label, blocked))

    def key(r: Ranked) -> tuple[int, int, float, float, str, int]:
        return (
            r.rank,
            -SEVERITY_RANK[r.finding.severity],
            -r.days,
            -r.money,
            r.design,
            r.finding.line,
        )

    return sorted(out, key=key)


# what dclint does not model, whatever the design declares: said once per design
NOT_MODELLED = (("physical layout", "floor space, weight and cable lengths are not modelled"),)


# declared fields that no calculation reads: each is reported when a design sets it and no rule
# module of the run names it (so the line goes away once a rule reads the field)
UNREAD_FIELDS = (("site.uptime_tier", "site", "uptime_tier"),)


def _unread(design: Any, rules: dict[str, type[Rule]]) -> list[ScopeLine]:
    import inspect

    out = []
    for path, section, name in UNREAD_FIELDS:
        value = getattr(getattr(design, section, None), name, None)
        if value is None:
            continue
        sources = []
        for cls in rules.values():
            module = inspect.getmodule(cls)
            try:
                sources.append(inspect.getsource(module) if module is not None else "")
            except (OSError, TypeError):  # a rule without a source file
                continue
        if any(name in text for text in sources):
            continue
        out.append(
            ScopeLine(
                path,
                "not yet read",
                f"declared ({value}) but no rule or calculation reads it yet: it does not change "
                "any finding or figure of this review",
            )
        )
    return out


def _upstream(design: Any) -> ScopeLine:
    """Power above the panels: what the design declares there, if anything."""
    above = []
    if design is not None:
        for name in type(design.power).model_fields:
            if name not in ("panels", "feeds") and getattr(design.power, name, None):
                above.append(name)
    if above:
        return ScopeLine(
            "upstream power", "as declared", f"declared above the panels: {', '.join(above)}"
        )
    return ScopeLine(
        "upstream power",
        "not modelled",
        "not modelled beyond panels and the site's utility capacity: the design declares "
        "nothing above its panels",
    )


def _not_active(design: Any) -> list[ScopeLine]:
    """Racks the design marks not active (planned; nodes offline, in repair): listed, since
    they count in the loads, feeds and GPUs checked."""
    planned = [g.id for g in design.racks if g.status == "planned"]
    offline = [f"{g.id} ({g.offline_nodes})" for g in design.racks if g.offline_nodes]
    parts = []
    if planned:
        parts.append(f"planned racks: {', '.join(planned)}")
    if offline:
        parts.append(f"racks with nodes offline (in repair): {', '.join(offline)}")
    if not parts:
        return []
    detail = "; ".join(parts) + ": counted in the loads, feeds and GPUs checked"
    return [ScopeLine("elements not active", "counted as load", detail)]


FAMILIES = {
    "PWR": "power",
    "CLG": "cooling",
    "STR": "structure",
    "NET": "fabric",
    "STO": "storage",
    "PAR": "parallel layout",
    "CST": "cost and schedule",
    "REL": "reliability",
}


def scope(
    design: Any,
    rules: dict[str, type[Rule]],
    selected: Any,
    options: dict[str, dict[str, Any]] | None = None,
) -> list[ScopeLine]:
    """Per family of rules: checked, partly, or not checked, and why (the rules' `needs`);
    rules not selected are named as such; then what dclint does not model."""
    out = []
    for prefix, family in FAMILIES.items():
        ids = sorted(r for r in rules if r.startswith(prefix))
        if not ids:
            continue
        off = [r for r in ids if not selected(r)]
        why: dict[str, list[str]] = {}
        for rid in ids:
            if rid in off:
                continue
            reason = (
                rules[rid].inapplicable(design, options.get(rid) if options else None)
                if design is not None
                else "did not load"
            )
            if reason:
                why.setdefault(reason, []).append(rid)
        skipped = {r for rs in why.values() for r in rs}
        ran = [r for r in ids if r not in off and r not in skipped]
        parts = [f"{', '.join(rs)}: {reason}" for reason, rs in why.items()]
        if off:
            parts.append(f"{', '.join(off)}: not selected")
        if not ran:
            status = "not checked"
        elif parts:
            status = "partly checked"
        else:
            status = "checked"
        detail = "; ".join(parts) if parts else f"{len(ran)} rules applied ({', '.join(ran)})"
        if ran and parts:
            detail = f"{len(ran)} of {len(ids)} rules applied; " + detail
        out.append(ScopeLine(family, status, detail))
    out.append(_upstream(design))
    if design is not None:
        out += _unread(design, rules)
        out += _not_active(design)
    out += [ScopeLine(what, "not modelled", why) for what, why in NOT_MODELLED]
    return out


def layouts(
    design: Any,
    reserve: float,
    by: str = "time",
    projections: Sequence[Projection] = (),
) -> list[Layout]:
    """The layout search for every workload with a declared architecture; each row's figures
    scale from the workload's projection in `projections` (the assessment's, computed once)."""
    from dclint.analysis.layouts import best_ceiling_sentence, declared_sentence
    from dclint.projection.search.plan import layout_values, plan_layouts

    projected = {p.workload: p for p in projections}
    out = []
    for index, wl in enumerate(design.workloads):
        try:  # rank_only: the search PAR005 ran in the check, from its cache
            found = plan_layouts(design, wl, by, reserve=reserve, rank_only=True)
        except Exception as exc:  # a review must not fail because a search did
            out.append(Layout(wl.id, None, f"search failed: {type(exc).__name__}: {exc}"))
            continue
        if isinstance(found, str):
            out.append(Layout(wl.id, None, found))
        elif not found.result.valid:
            out.append(Layout(wl.id, None, "no valid layout on its GPUs"))
        else:
            best = found.result.valid[0]
            adopt: tuple[Change, ...] = ()
            if found.gap() > 0:
                adopt = tuple(
                    Change(value, f"workload {wl.id} {key}", path=("workloads", index, key))
                    for key, value in layout_values(best, found.gpus).items()
                )
            p = projected.get(wl.id)
            pred = p.timing.prediction if p is not None else None
            band = None
            if pred is not None and p is not None and p.timing.mfu_source.startswith("predicted"):
                band = pred.band
            ceiling = best_ceiling_sentence(found) or ""
            lay = Layout(wl.id, found, "", declared_sentence(found), adopt, band, p)
            out.append(replace(lay, ceiling=ceiling).with_rows())
    return out


def _lift(design: Any, c: Capacity, binding: Limit) -> str:
    """What lifts the binding limit, in the form '+1 leaf switch: +2 racks'."""
    from dclint.analysis.capacity.headroom import lift

    return lift(design, c, binding)


def headroom(
    design: Any, options: dict[str, dict[str, Any]], rules: dict[str, type[Rule]] | None = None
) -> Headroom:
    """More racks like the design's first: the limits, the binding one and its lift."""
    from dclint.analysis.capacity.headroom import capacity, new_rack

    topo = topology_of(design)
    if not topo.racks:
        return Headroom(None, note="the design declares no racks")
    first = topo.racks[0]
    platform = first.platform_key
    if not platform:
        return Headroom(None, note="its first rack names no catalog platform")
    try:
        c = capacity(design, new_rack(design, platform), options, rules)
    except Exception as exc:  # a review must not fail because the headroom did
        return Headroom(None, note=f"headroom failed: {type(exc).__name__}: {exc}")
    bound = sorted((lim for lim in c.limits if lim.racks is not None), key=lambda x: x.racks or 0)
    if not bound:
        return Headroom(c, note="no limit binds")
    binding = bound[0]
    then = next((lim for lim in bound[1:] if lim.name != binding.name), None)
    return Headroom(c, binding, _lift(design, c, binding), then)


def review(
    result: RunResult,
    engine: Engine,
    given: dict[str, str | None],
    today: date,
    against: bool = False,
    ledgers: Sequence[Any] = (),
) -> ReviewDocument:
    """`dclint review`'s one result: the checked run's findings priced, the run assessed and
    every figure computed (`Assessment.settle`), the front matter (`given`: flags and config;
    the title from the designs' names), and with `against` the first design compared with the
    last. Presenters lay out what it holds and compute nothing."""
    from dclint.analysis.assess.assessment import assess, price_findings

    price_findings(result, engine)
    names = [d.name or d.file for d in result.designs]
    front = front_matter(given, names, today)
    diff, diff_names = _diff(result, engine) if against else (None, ("", ""))
    run = assess(result, engine, priced=False)  # priced above, before the document's ranking
    doc = build(run, front, diff, diff_names, ledgers)
    for a in run.designs:
        a.settle()
    return doc


def _diff(result: RunResult, engine: Engine) -> tuple[Diff, tuple[str, str]]:
    """The first design against the counter-design (the last); LoadError where one of them
    did not load."""
    from dclint.analysis.diff import compare

    a, b = result.designs[0], result.designs[-1]
    for d in (a, b):
        if d.errors:
            raise LoadError(d.errors)
    opts = (engine.options(engine.config_for(a.file)), engine.options(engine.config_for(b.file)))
    return compare(a, b, opts, engine.rules), (a.name or a.file, b.name or b.file)


def build(
    run: RunAssessment,
    front: FrontMatter,
    diff: Diff | None = None,
    diff_names: tuple[str, str] = ("", ""),
    ledgers: Sequence[Any] = (),
) -> ReviewDocument:
    """The document of a checked and priced run, from its assessment alone: each design's
    options, selection and projections are the assessment's (computed once, quoted by every
    part that shows them)."""
    from dclint.engine.coverage import blocking

    parts = []
    for a in run.designs:
        d = a.result
        part = DesignPart(d, blocked=blocking(d.findings, a.rules))
        options = a.options if d.design is not None else None
        part.scope = scope(d.design, a.rules, a.selected, options)
        if d.design is not None and options is not None:
            reserve = shared_settings(options, a.rules).memory_reserve.m_as("")
            part.layouts = layouts(d.design, reserve, projections=a.projected.projections)
            part.headroom = headroom(d.design, options, a.rules)
            part.failures = _failures(d.design)
        parts.append(part)
    return ReviewDocument(
        front,
        run.result,
        ranked(run.result, run.rules),
        parts,
        diff,
        diff_names,
        run,
        list(ledgers),
    )


def _failures(design: Any) -> list[Any]:
    """Every single failure of the design's plant (dclint.calc.failures.play), racks at peak,
    the most severe first (as `dclint failures` lists them)."""
    from dclint.calc.failures.play import failure_table, most_severe_first
    from dclint.model.resolve import topology_of

    return most_severe_first(failure_table(topology_of(design)).failures)


def front_matter(given: dict[str, str | None], names: list[str], today: date) -> FrontMatter:
    """The front matter from flags and config (flags win), the title defaulting to the designs
    reviewed and the date to today."""
    values = {k: (given.get(k) or "") for k in FRONT_FIELDS}
    if not values["title"]:
        values["title"] = _title(values["client"], values["project"], names)
    if not values["date"]:
        values["date"] = today.isoformat()
    return FrontMatter(**values)


def _title(client: str, project: str, names: list[str]) -> str:
    """'Design review: hall-b for ACME (Project Aurora)': the project, else the designs (up to
    three by name), then the client."""
    if project:
        what = project
    elif len(names) == 1:
        what = names[0]
    elif 1 < len(names) <= 3:
        what = ", ".join(names[:-1]) + " and " + names[-1]
    else:
        what = f"{len(names)} designs" if names else ""
    title = "Design review" + (f": {what}" if what else "")
    return title + (f" for {client}" if client else "")
