"""The review document (`dclint review`) laid out as blocks, then written as HTML (which prints
to PDF) or Markdown from the same blocks, so every format tells the same story: front matter,
executive summary ranked by consequence, per design its scope, findings, projection, best
layout, headroom and waivers, the comparison with a counter-design, and one appendix of
assumptions and sources."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dclint.analysis.assess.assessment import RunAssessment
from dclint.analysis.assess.review import DesignPart, Ranked, ReviewDocument
from dclint.engine.findings import Finding
from dclint.engine.rollup import measured_limit
from dclint.report.fixes import fix_words, fix_yaml
from dclint.report.review import Review, merged_assumptions, reviews
from dclint.report.text import finding_message, summary_line, waiver_terms
from dclint.report.values import band, days_text, failure_outcomes, mfu_text, time_terms
from dclint.units import Q_, fmt, fmt_factors

__all__ = [
    "FIGURE_BOTTOM",
    "FIGURE_GROUND",
    "FIGURE_TOP",
    "PRINT_CSS",
    "Block",
    "blocks",
    "contents",
    "diff_blocks",
    "print_css_for",
    "render_html",
    "render_markdown",
    "write_html",
    "write_markdown",
]


@dataclass
class Block:
    """One piece of the document: a heading, paragraph, list, table, or a design's body as the
    existing review renders it (`raw`: format -> text)."""

    kind: str  # "h1", "h2", "h3", "p", "ul", "ol", "table", "raw", "page"
    text: str = ""
    items: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    raw: dict[str, str] = field(default_factory=dict)
    anchor: str = ""
    css: str = ""
    code: list[str] = field(default_factory=list)  # "pre": its text; a list: YAML an item
    links: list[str] = field(default_factory=list)  # a list: the anchor each item links to
    pages: list[str] = field(default_factory=list)  # a list: the page each item starts on


def _days(x: float) -> str:
    """The days a finding costs as its own line prints them ('the fix saves 27.76 d'), and
    every table of the review: one figure, one print."""
    return days_text(x)


def _money(f: Finding) -> str:
    if f.impact is None or f.impact.cost is None:
        return "-"
    if f.impact.cost_high is not None:  # a range: the design leaves an assumption open
        return f"{fmt(f.impact.cost)} to {fmt(f.impact.cost_high)}"
    return fmt(f.impact.cost)


def _days_of(f: Finding, days: float) -> str:
    """The days a finding costs, both ends where its price is a range."""
    if f.impact is not None and f.impact.days_high is not None:
        return f"{_days(f.impact.days.m_as('day'))} to {_days(f.impact.days_high.m_as('day'))}"
    return _days(days)


def _price(r: Ranked) -> str:
    f = r.finding
    if f.impact is None:  # a priced rule's finding that costs the run nothing says why (or
        # that it has no price while an error blocks the run: dclint.analysis.impact.unpriced)
        return f" It {f.impact_note}." if f.impact_note else ""
    ends = f" ({f.impact.label} to {f.impact.other})" if f.impact.days_high is not None else ""
    return f" It costs {_days_of(f, r.days)} and {_money(f)} of the projected run{ends}."


def _item(r: Ranked) -> str:
    """One defect as a sentence: its class, what is wrong with its numbers, where (the design
    file's line, and the source an import read it from), and the fix in words."""
    f = r.finding
    objects = f" ({r.count} objects alike)" if r.count > 1 else ""
    where = f"{f.file}:{f.line}" + (f", from {f.origin}" if f.origin else "")
    words = fix_words(f) or f"see the rule's documentation ({f.rule})"
    kind = r.consequence[:1].upper() + r.consequence[1:]
    return (
        f"{kind}: {r.design}: {f.message}{measured_limit(f)}{objects}. At {where} "
        f"({f.rule} {f.name}). Fix: {words}.{_price(r)}"
    )


def _summary(doc: ReviewDocument) -> list[Block]:
    out = [Block("h2", "Executive summary", anchor="summary")]
    out.append(Block("p", summary_line(doc.result)))
    priced = [r for r in doc.ranked if r.finding.impact is not None]
    if not doc.ranked:
        out.append(Block("p", "No findings: every rule that applies passed (see the scope)."))
        return out
    n = len(doc.ranked)
    lead = (
        f"{n} defect{'s' * (n != 1)}, ranked by consequence: loss of load or cooling on a "
        "single failure first, then equipment over its rating, a design that cannot run its "
        "workload as stated, capacity, then performance and money; within a class errors "
        f"first, then by the training days and money each costs. {len(priced)} "
        f"carr{'ies' if len(priced) == 1 else 'y'} a price."
    )
    out.append(Block("p", lead))
    items = [_item(r) for r in doc.top]
    code = [fix_yaml(r.finding) for r in doc.top]
    out.append(Block("ol", items=items, css="top", code=code))
    rows = [
        [
            str(i),
            r.design,
            r.consequence,
            f"{r.finding.rule} {r.finding.name}",
            r.finding.severity,
            str(r.count),
            # the price the finding carries, as its sentence above gives it (on a design an
            # error blocks only that error's own: dclint.analysis.impact.unpriced)
            _days_of(r.finding, r.days) if r.finding.impact is not None else "-",
            _money(r.finding),
        ]
        for i, r in enumerate(doc.ranked, start=1)
    ]
    out.append(
        Block(
            "table",
            header=["#", "Design", "Consequence", "Rule", "Severity", "Objects", "Days", "Money"],
            rows=rows,
        )
    )
    return out


def _scope(part: DesignPart) -> list[Block]:
    rows = [[s.family, s.status, s.detail] for s in part.scope]
    return [
        Block("h3", "Scope: what was checked and what was not"),
        Block("table", header=["Area", "Status", "What and why"], rows=rows),
    ]


def _layout_row(label: str, lay: Any, row: Any) -> list[str]:
    """One layout's figures, each scaled from the workload's projection (`LayoutRow`)."""
    c, cost, days = row.candidate, row.cost, row.days
    text = days_text(days)
    cost_text = "-" if cost is None else fmt(cost)
    if row.days_band is not None:  # predicted figures carry the model's calibration band
        text += f" ({band(*row.days_band)} d)"
    if row.cost_band is not None:
        low, high = row.cost_band
        cost_text += f" ({band(float(low.magnitude), float(high.magnitude))} {cost.units:~})"
    return [
        label,
        f"tp {c.tp}, pp {c.pp}, vpp {c.vpp}, cp {c.cp}, ep {c.ep}, dp {c.dp}, mb {c.micro_batch}",
        c.recompute,
        fmt(Q_(row.step, "s"), "s"),
        mfu_text(row.mfu),
        text,
        cost_text,
    ]


def _layouts(part: DesignPart) -> list[Block]:
    if not part.layouts:
        return []
    out = [Block("h3", "Parallel layout: the best found against the declared one")]
    if part.blocked is not None:
        b = part.blocked
        out.append(
            Block(
                "p",
                f"Not meaningful until {b.rule} {b.name} is fixed ({b.file}:{b.line}): the "
                "design cannot run its workload as stated, so no layout's training time is.",
            )
        )
        return out
    for lay in part.layouts:
        if lay.plan is None:
            out.append(Block("p", f"Workload {lay.workload}: no layout search: {lay.note}."))
            continue
        plan = lay.plan
        out.append(
            Block(
                "p",
                f"Workload {lay.workload}: {plan.result.valid_count:,} valid layouts of "
                f"{plan.result.candidates:,} searched; {lay.sentence}.",
            )
        )
        out.append(
            Block(
                "table",
                header=["Layout", "Parallelism", "Recompute", "Step", "MFU", "Days", "Cost"],
                rows=[
                    _layout_row("declared", lay, lay.declared),
                    _layout_row("best", lay, lay.best),
                ],
            )
        )
        if lay.ceiling:  # as `dclint plan` says it of the layouts it lists
            out.append(Block("p", lay.ceiling[:1].upper() + lay.ceiling[1:] + "."))
        if lay.band is not None:
            out.append(
                Block(
                    "p",
                    "Days and cost are predicted by the step model; the ranges are its "
                    "calibration band, "
                    + fmt_factors(lay.band.low_factor, lay.band.high_factor, " to ")
                    + f" times the predicted step: {lay.band.source}.",
                )
            )
        elif lay.used:
            out.append(
                Block(
                    "p",
                    "The table is at the MFU the design declares (the best layout's figures "
                    "are the declared one's times the step model's ratio of the two layouts, "
                    f"as the findings price the gap): {lay.used}.",
                )
            )
        if lay.adopt:
            out.append(Block("p", "To adopt the best, write into the design:"))
            out.append(Block("pre", code=[_adopt_yaml(lay)]))
    return out


def _adopt_yaml(lay: Any) -> str:
    from types import SimpleNamespace

    return fix_yaml(SimpleNamespace(changes=lay.adopt, subject=lay.workload))


FMEA_ROWS = 10  # dclint's own bound on the appendix's rows: `dclint failures` lists them all


def _fmea(part: DesignPart) -> list[Block]:
    """Single failures, FMEA-style: those that overload a survivor or lose racks first, then the
    nearest to their limit; the worst survivor, its margin, what moves where."""
    if not part.failures:
        return []
    fails = part.failures  # the most severe first, as `dclint failures` lists them
    out = [
        Block("h3", "Single failures (FMEA)"),
        Block(
            "p",
            f"{len(fails)} single failures of the power and cooling plant played, racks at their "
            f"peak: {failure_outcomes(fails)}."
            + (
                f" The {FMEA_ROWS} most severe are listed; `dclint failures` lists all."
                if len(fails) > FMEA_ROWS
                else ""
            ),
        ),
    ]
    rows = []
    for f in fails[:FMEA_ROWS]:
        w = f.worst
        survivor = (
            "-"
            if w is None
            else (f"{w.element} {fmt(Q_(w.load, w.unit))} of {fmt(Q_(w.capacity, w.unit))}")
        )
        margin = "-" if w is None else fmt(Q_(w.margin, w.unit))
        rows.append(
            [
                f.label,
                f.moves,
                survivor,
                margin,
                str(len(f.racks_lost)),
            ]
        )
    out.append(
        Block(
            "table",
            header=["Failure", "What moves where", "Worst survivor", "Margin", "Racks lost"],
            rows=rows,
        )
    )
    return out


def _headroom(part: DesignPart) -> list[Block]:
    h = part.headroom
    if h is None:
        return []
    out = [Block("h3", "Capacity headroom")]
    if h.capacity is None:
        out.append(Block("p", f"Not computed: {h.note}."))
        return out
    c = h.capacity
    r = c.rack
    intro = f"More {r.platform} racks like the design's first ({fmt(r.it_load)}, {r.gpus} GPUs): "
    if h.binding is not None:
        intro += (
            f"{h.binding.racks} more fit; {h.binding.name} ({h.binding.subject}) binds first. "
            f"What lifts it: {h.lift}."
        )
        if h.then is not None and h.then.racks == h.binding.racks:  # a tie: no lift alone adds
            name = h.then.name[:1].upper() + h.then.name[1:]
            intro += (
                f" {name} ({h.then.subject}) binds at {h.then.racks} racks as well, so lifting "
                "either alone adds no rack."
            )
        elif h.then is not None:
            intro += f" Next to bind: {h.then.name} ({h.then.subject}) at {h.then.racks} racks."
    else:
        intro += h.note + "."
    out.append(Block("p", intro))
    rows = [
        [lim.name, lim.subject, "-" if lim.racks is None else str(lim.racks), lim.detail]
        for lim in c.limits
    ]
    out.append(Block("table", header=["Limit", "Where", "More racks", "Arithmetic"], rows=rows))
    return out


def _waivers(part: DesignPart) -> list[Block]:
    if not part.waivers:
        return []
    rows = [
        [
            f"{w.finding.file}:{w.finding.line}",
            w.finding.rule,
            w.finding.message + measured_limit(w.finding),
            waiver_terms(w),
        ]
        for w in part.waivers
    ]
    return [
        Block("h3", f"Waivers ({len(rows)}): findings accepted, not reported"),
        Block("table", header=["Where", "Rule", "Finding", "Waiver"], rows=rows),
    ]


def _diff(doc: ReviewDocument) -> list[Block]:
    if doc.diff is None:
        return []
    return diff_blocks(doc.diff, *doc.diff_names)


def diff_blocks(d: Any, a: str, b: str, level: str = "h2") -> list[Block]:
    """A design against a counter-design: the compared figures, findings gone and new."""
    from dclint.report.compared import changed_heading, changed_lines, heading, row_cells

    out = [
        Block(level, f"Counter-design: {b} against {a}", anchor="diff"),
        Block(
            "p",
            f"What changes from {a} (A) to {b} (B), what it saves, and the findings it "
            f"removes ({len(d.gone)}) and adds ({len(d.new)}).",
        ),
        Block("table", header=["Figure", "A", "B", "Change"], rows=row_cells(d)),
    ]
    # the headings and their order are `dclint diff`'s (text and Markdown): B's first
    for side, found in (("B", d.new), ("A", d.gone)):
        out.append(Block("h3", heading(side, found)))
        if found:
            out.append(
                Block(
                    "ul",
                    # the words `dclint check` and `dclint diff` print: the price and an
                    # imported element's source with the numbers (text.finding_message)
                    items=[f"{f.rule} {f.subject or f.path}: {finding_message(f)}" for f in found],
                )
            )
    if d.changed:  # in both, at other figures: a rack further over its limit in B
        out.append(Block("h3", changed_heading(d)))
        out.append(Block("ul", items=changed_lines(d)))
    return out


def _appendix(items: list[Review]) -> list[Block]:
    header, rows = merged_assumptions(items)
    out = [Block("h2", "Appendix: assumptions and sources", anchor="appendix")]
    if rows:
        out.append(Block("table", header=header, rows=rows))
    else:
        out.append(Block("p", "No assumptions: no design loaded."))
    return out


LEDGER_COUNTS = ("read", "imported", "merged", "skipped", "unplaced")

DISCLAIMER = (
    "This review checks the design as its files declare it, against the rules and limits "
    "listed under Scope and method, each with its source. It does not survey the site, "
    "replace the stamped electrical, mechanical and structural design, or commission "
    "anything; a figure the design does not declare is not checked, and a projection is a "
    "model's estimate with the band its calibration supports."
)


def contents(doc: ReviewDocument) -> list[tuple[str, str]]:
    """(entry, anchor) of each section the contents list, in the document's order; the
    anchor is the id of the section's heading in the HTML (a design's: its section)."""
    out = [("Executive summary", "summary")]
    out += [(f"Design {part.name}", f"d{n}") for n, part in enumerate(doc.designs)]
    if doc.diff is not None:
        out.append(("Counter-design", "diff"))
    out += [
        ("Scope and method", "method"),
        ("Limitations and coverage", "limitations"),
        ("Sign-off", "signoff"),
        ("Appendix: assumptions and sources", "appendix"),
    ]
    if doc.ledgers:
        out.append(("Appendix: import ledger", "ledger"))
    return out


def _contents(doc: ReviewDocument, pages: dict[str, int] | None = None) -> list[Block]:
    """The contents; with `pages` (anchor -> page, from a printed copy: dclint.report.pdf),
    each entry's page number."""
    entries = contents(doc)
    numbers = [str((pages or {}).get(a, "")) for _, a in entries] if pages else []
    return [
        Block("h2", "Contents", anchor="contents"),
        Block(
            "ol",
            items=[e for e, _ in entries],
            links=[a for _, a in entries],
            pages=numbers,
            css="toc",
        ),
    ]


LEDGER_STATES = {"skipped": "skipped", "unplaced": "read and not placed"}


def _ledger_appendix(doc: ReviewDocument) -> list[Block]:
    """Per import behind the designs: what it read, imported, merged and skipped, by kind,
    then every source object it skipped (its reference, kind and why) and every object it
    placed with a note (an offline node counted), from the ledger the import wrote."""
    if not doc.ledgers:
        return []
    out = [
        Block("h2", "Appendix: import ledger", anchor="ledger"),
        Block(
            "p",
            "What each import behind the reviewed designs read from its source and what became "
            "of it: imported as an element, merged into one (a GPU node into its rack's count), "
            "or skipped, and why. Every skipped source object is listed by its reference.",
        ),
    ]
    for led in doc.ledgers:
        total = {k: sum(c[k] for c in led.counts.values()) for k in LEDGER_COUNTS}
        source = f"`{led.command}`" if led.command else "an import (its JSON ledger)"
        out.append(Block("h3", f"Source: {led.command or led.file}"))
        out.append(
            Block(
                "p",
                f"Ledger of {led.file}, written by {source}: read {total['read']:,} objects of "
                f"{len(led.counts)} kinds; imported {total['imported']:,}, merged "
                f"{total['merged']:,}, skipped {total['skipped']:,}"
                + (f", read and not placed {total['unplaced']:,}" if total["unplaced"] else "")
                + ".",
            )
        )
        rows = [
            [
                kind,
                *(f"{c[k]:,}" for k in LEDGER_COUNTS),
                led.reasons.get(kind, "-"),
            ]
            for kind, c in sorted(led.counts.items())
        ]
        header = ["Kind", "Read", "Imported", "Merged", "Skipped", "Not placed", "Why skipped"]
        out.append(Block("table", header=header, rows=rows))
        left = led.listed("skipped", "unplaced")
        out.append(Block("h3", f"Skipped source objects ({len(left):,})"))
        if left:
            out.append(
                Block(
                    "table",
                    header=["Source object", "Kind", "Why"],
                    rows=[[x.origin, x.kind, x.why] for x in left],
                )
            )
        else:
            out.append(Block("p", "None: every object read is in the design."))
        for kind, n in sorted(led.unnamed.items()):
            out.append(
                Block(
                    "p",
                    f"{n:,} more skipped {kind} objects are counted above but not named: the "
                    "fragment's foot names a few hundred a kind. Give `dclint review --ledger "
                    "FILE` the JSON ledger the import wrote (`dclint import ... --ledger FILE`) "
                    "to list every one.",
                )
            )
        noted = led.listed("noted")
        if noted:
            out.append(Block("h3", f"Placed with a note ({len(noted):,})"))
            out.append(
                Block(
                    "table",
                    header=["Source object", "Kind", "What became of it"],
                    rows=[[x.origin, x.kind, x.why] for x in noted],
                )
            )
    return out


def _method(doc: ReviewDocument, run: RunAssessment) -> list[Block]:
    from dclint._version import __version__

    rules = run.rules
    read = [
        f"{a.file} ({a.name})" if a.design is not None else f"{a.file} (did not load)"
        for a in run.designs
    ]
    origins = sorted({f.origin for f in run.findings if f.origin})
    ran = sorted(rules)
    out = [
        Block("h2", "Scope and method", anchor="method"),
        Block("p", "What was read: " + "; ".join(read) + "."),
    ]
    for led in doc.ledgers:
        out.append(
            Block(
                "p",
                f"Imported: {led.file}"
                + (f", written by `{led.command}`" if led.command else "")
                + f"; its ledger (what was read, imported and skipped: {led.left_out:,} objects "
                "left out) is the appendix 'Import ledger'.",
            )
        )
    if origins:
        out.append(Block("p", "Imported elements cite their sources: " + ", ".join(origins)))
    out.append(
        Block(
            "p",
            f"Rules run: {len(ran)} (each design's scope table says which applied and why "
            "others did not), with the options in effect listed in the appendix against their "
            f"defaults and sources. Checked with dclint {__version__} on {doc.front.date}.",
        )
    )
    return out


def _limitations(run: RunAssessment) -> list[Block]:
    from dclint.engine.coverage import coverage

    rows = coverage(run.rules)
    table = [
        [
            r.topic.standard,
            r.topic.clause,
            r.topic.topic,
            r.status,
            ", ".join(f"{i} {n}" for i, n in r.rules) or r.topic.reported or "-",
        ]
        for r in rows
    ]
    missing = [r.topic.topic for r in rows if r.status != "checked"]
    own = sorted(
        f"{rid}.{name}"
        for rid, cls in run.rules.items()
        for name, opt in cls.options.items()
        if "dclint's own" in opt.help
    )
    out = [
        Block("h2", "Limitations and coverage", anchor="limitations"),
        Block("p", DISCLAIMER),
        Block(
            "p",
            "Not checked by this review: " + "; ".join(missing) + "."
            if missing
            else "Every topic of the coverage map below is checked by a rule.",
        ),
    ]
    if own:
        out.append(
            Block(
                "p",
                "Limits that are dclint's own defaults (no published figure; each rule's "
                "documentation says why): " + ", ".join(own) + ".",
            )
        )
    out.append(
        Block("table", header=["Standard", "Clause", "Topic", "Status", "Rules"], rows=table)
    )
    return out


def _signoff(doc: ReviewDocument) -> list[Block]:
    f = doc.front
    blank = "________________"
    rows = [
        ["Prepared by", f.author or blank, blank, f.date],
        ["Reviewed by", f.reviewer or blank, blank, blank],
    ]
    return [
        Block("h2", "Sign-off", anchor="signoff"),
        Block("p", f"Revision {f.revision or '-'} of {f.title}."),
        Block("table", header=["Role", "Name", "Signature", "Date"], rows=rows),
    ]


def body_blocks(r: Review) -> list[Block]:
    """One design's body as blocks (for a format with no HTML or Markdown body of its own: an
    editable Word copy): verdict, findings (one defect on many objects once), the summary
    figures and the projection, in the order the HTML and Markdown bodies show them."""
    from dclint.report.markdown import summary_rows
    from dclint.report.values import PROJECTION_COLUMNS, projection_rows

    out = [
        Block("h2", r.name),
        Block("p", f"File: {r.file}. Verdict: {r.verdict}."),
        Block("h3", f"Findings ({len(r.findings)})"),
    ]
    if r.errors:
        out.append(
            Block("ul", items=[f"{e.file}:{e.line}:{e.column}: {e.message}" for e in r.errors])
        )
    if not r.findings and not r.errors:
        out.append(Block("p", "No findings."))
    for severity in ("error", "warning", "info"):
        for area, groups in sorted(r.rolled.get(severity, {}).items()):
            items, code = [], []
            for g in groups:
                f = g.first
                scope = f"{g.scope()}, e.g.: " if g.count > 1 else ""
                words = fix_words(f)
                items.append(
                    f"{g.where} {f.rule} {f.name} ({severity}, {area}): {scope}{f.message}"
                    f"{measured_limit(f)}." + (f" Fix: {words}." if words else "")
                )
                code.append(fix_yaml(f))
            out.append(Block("ul", items=items, code=code))
    if r.summary is not None:
        rows = [list(row) for row in summary_rows(r.summary)]
        out += [
            Block("h3", "Summary figures"),
            Block("table", header=["Figure", "Value"], rows=rows),
        ]
    if r.projections:
        out.append(Block("h3", "Projected training time and cost"))
        out.append(
            Block(
                "table",
                header=list(PROJECTION_COLUMNS),
                rows=projection_rows(r.projections, r.blocked),
            )
        )
        if not r.blocked:  # the terms the days add up, as the Markdown and HTML give them
            out += [Block("p", time_terms(p)) for p in r.projections if time_terms(p)]
    out += [Block("p", n) for n in r.notes]
    return out


def blocks(
    doc: ReviewDocument,
    run: RunAssessment,
    body: Callable[[Review, int], dict[str, str]] | None = None,
    pages: dict[str, int] | None = None,
) -> list[Block]:
    """The whole document; `body` renders one design's existing review body in each format
    (None: the body as blocks, `body_blocks`)."""
    front = doc.front
    out = [Block("h1", front.title)]
    if front.rows():
        out.append(Block("table", header=["Document", ""], rows=[list(r) for r in front.rows()]))
    out += _contents(doc, pages)
    out += _summary(doc)
    by_file = {r.file: r for r in reviews(run)}
    items = list(by_file.values())
    for n, part in enumerate(doc.designs):
        review = by_file[part.result.file]
        out.append(Block("page"))
        if body is None:
            out += body_blocks(review)
        else:
            out.append(Block("raw", raw=body(review, n)))
        out += _scope(part)
        out += _layouts(part)
        out += _headroom(part)
        out += _fmea(part)
        out += _waivers(part)
    if doc.diff is not None:
        out.append(Block("page"))
        out += _diff(doc)
    out.append(Block("page"))
    out += _method(doc, run)
    out += _limitations(run)
    out += _signoff(doc)
    out.append(Block("page"))
    out += _appendix(items)
    out += _ledger_appendix(doc)
    return out


# ---- HTML ----------------------------------------------------------------------------------

# Paged media for print and PDF: the running header and page numbers in the page's margin
# boxes, body text 10 pt and tables 9 pt (nothing smaller outside a figure), figures within the
# text width and a page on a light ground, and no figure, table row or list item split by a
# page break.
FIGURE_GROUND = "#f4f7fb"  # a figure's ground: the PDF test finds figures on a page by it
# a figure's top and bottom rules: a figure split by a page break shows its top rule on one
# page and its bottom rule on the next (the PDF test reads them back)
FIGURE_TOP, FIGURE_BOTTOM = "#9fb3c8", "#a7bccf"
PRINT_CSS = """
@page{size:%(paper)s;margin:18mm 14mm 18mm 14mm;
@top-center{content:"%(header)s";font:9pt system-ui,sans-serif;color:#4a5568}
@bottom-right{content:"Page " counter(page) " of " counter(pages);font:9pt system-ui,
sans-serif;color:#4a5568}}
body{font-size:10pt;line-height:1.35}
pre{margin:.2em 0;padding:.15em .4em;line-height:1.2}pre code{font-size:9pt}
h1{font-size:20pt;margin:0 0 .4em}h2{font-size:14pt}h3{font-size:11.5pt}h4{font-size:10.5pt}
table{font-size:9pt;width:100%%}td,th{padding:.15em .4em}code{font-size:9pt}
ol.top li{margin:.4em 0;font-size:10.5pt}
ol.toc li a{color:inherit;text-decoration:none}ol.toc .page-no{float:right}
.page{break-before:page}
figure{background:%(ground)s;padding:6px;margin:.6em 0;border-top:4px solid %(top)s;
border-bottom:4px solid %(bottom)s}
table,figure,svg,li,tr,.keep{break-inside:avoid}h1,h2,h3,h4,p.over-list{break-after:avoid}
figure svg{max-width:100%%;height:auto;max-height:205mm;display:block;margin:0 auto}
@media print{body{margin:0;max-width:none;font-size:10pt}section.design{break-before:auto}
details>*{display:block}details summary{display:none}}
"""


def _lines(esc: Callable[[str], str], text: str) -> str:
    """A block of lines (a YAML change) escaped line by line: its newlines stay newlines (the
    escaper writes a control character, a newline too, as a visible escape)."""
    return "\n".join(esc(line) for line in text.splitlines())


def _html_table(esc: Callable[[str], str], b: Block) -> str:
    from dclint.report.html import cell  # a long token in a cell may break (LONG)

    head = ""
    if any(b.header):
        head = "<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in b.header) + "</tr></thead>"
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in b.rows)
    return f"<table>{head}<tbody>{body}</tbody></table>"


def print_css_for(paper: str, header: str) -> str:
    """The paged-media CSS for `paper` (A4, Letter) with `header` (CSS-string safe) atop."""
    return PRINT_CSS % {
        "paper": paper,
        "header": header,
        "ground": FIGURE_GROUND,
        "top": FIGURE_TOP,
        "bottom": FIGURE_BOTTOM,
    }


def write_html(
    parts: list[Block], title: str, header: str = "", paper: str = "A4", print_css: bool = True
) -> str:
    """Blocks as one self-contained HTML page (no script, font or image from elsewhere: the CSP
    allows none), every text escaped; `header` runs atop each printed page."""
    from dclint.report import html as page

    esc = page.escape
    out = []
    opened = False
    for b in parts:
        anchor = f' id="{esc(b.anchor)}"' if b.anchor else ""
        if b.kind in ("h1", "h2", "h3"):
            out.append(f"<{b.kind}{anchor}>{esc(b.text)}</{b.kind}>")
        elif b.kind == "p":
            out.append(f"<p>{esc(b.text)}</p>")
        elif b.kind in ("ul", "ol"):
            css = f' class="{esc(b.css)}"' if b.css else ""
            code = b.code or [""] * len(b.items)
            texts = [esc(i) for i in b.items]
            if b.links:  # the contents: each entry links to its section, its page beside it
                pages = b.pages or [""] * len(b.items)
                texts = [
                    f'<a href="#{esc(a)}">{t}</a><span class="page-no">{esc(n)}</span>'
                    for t, a, n in zip(texts, b.links, pages, strict=True)
                ]
            items = "".join(
                f"<li>{t}" + (f"<pre><code>{_lines(esc, c)}</code></pre>" if c else "") + "</li>"
                for t, c in zip(texts, code, strict=True)
            )
            out.append(f"<{b.kind}{css}>{items}</{b.kind}>")
        elif b.kind == "pre":
            out.append("".join(f"<pre><code>{_lines(esc, c)}</code></pre>" for c in b.code))
        elif b.kind == "table":
            out.append(_html_table(esc, b))
        elif b.kind == "raw":
            out.append(b.raw["html"])
        elif b.kind == "page":  # what follows starts a page: one div a page group
            out.append(("</div>" if opened else "") + '<div class="page">')
            opened = True
    if opened:
        out.append("</div>")
    running = (header or title).replace("\\", "\\\\").replace('"', '\\"')
    css = page.STYLE
    if print_css:
        css += print_css_for(paper, esc(running))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{page.CSP}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{esc(title)}</title><style>{css}</style></head><body>"
        + "\n".join(out)
        + "</body></html>\n"
    )


def render_html(
    doc: ReviewDocument,
    run: RunAssessment,
    paper: str = "A4",
    print_css: bool = True,
    pages: dict[str, int] | None = None,
) -> str:
    """The review as one HTML page; `pages` (anchor -> page of a printed copy) numbers the
    contents."""
    from dclint.report import html as page

    def body(r: Review, n: int) -> dict[str, str]:
        return {"html": page.design_section(r, n)}

    parts = blocks(doc, run, body, pages)
    return write_html(parts, doc.front.title, doc.front.running_header, paper, print_css)


# ---- Markdown ------------------------------------------------------------------------------


def write_markdown(parts: list[Block]) -> str:
    """Blocks as Markdown, every text escaped (dclint.report.markdown.md)."""
    from dclint.report.markdown import md

    out: list[str] = []
    for b in parts:
        if b.kind in ("h1", "h2", "h3"):
            out += ["#" * int(b.kind[1]) + " " + md(b.text), ""]
        elif b.kind == "p":
            out += [md(b.text), ""]
        elif b.kind in ("ul", "ol"):
            marks = [f"{i}." if b.kind == "ol" else "-" for i in range(1, len(b.items) + 1)]
            code = b.code or [""] * len(b.items)
            for m, x, c in zip(marks, b.items, code, strict=True):
                out.append(f"{m} {md(x)}")
                if c:  # the item's design change, as its own indented code block
                    pad = " " * (len(m) + 1)
                    out += ["", f"{pad}```yaml", *(pad + ln for ln in c.splitlines()), f"{pad}```"]
            out.append("")
        elif b.kind == "pre":
            for c in b.code:
                out += ["```yaml", *c.splitlines(), "```", ""]
        elif b.kind == "table":
            header = [md(h) or " " for h in b.header]
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "---|" * len(header))
            out += ["| " + " | ".join(md(c) for c in row) + " |" for row in b.rows]
            out.append("")
        elif b.kind == "raw":
            out += [b.raw["markdown"], ""]
    return "\n".join(out).rstrip("\n") + "\n"


def render_markdown(doc: ReviewDocument, run: RunAssessment) -> str:
    from dclint.report import markdown as mdown

    def body(r: Review, n: int) -> dict[str, str]:
        return {"markdown": "\n".join(mdown.design_section(r))}

    return write_markdown(blocks(doc, run, body))
