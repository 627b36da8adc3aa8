"""The review document (`dclint review`) laid out as blocks, then written as HTML (which prints
to PDF) or Markdown from the same blocks, so every format tells the same story: front matter,
executive summary ranked by consequence, per design its scope, findings, projection, best
layout, headroom and waivers, the comparison with a counter-design, and one appendix of
assumptions and sources."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dclint.analysis.assess import RunAssessment
from dclint.analysis.review_document import DesignPart, ReviewDocument
from dclint.engine.findings import Finding
from dclint.report.review import Review, merged_assumptions, reviews
from dclint.report.rollup import measured_limit
from dclint.report.text import summary_line, waiver_terms
from dclint.report.values import band
from dclint.units import Q_, fmt

__all__ = [
    "FIGURE_BOTTOM",
    "FIGURE_GROUND",
    "FIGURE_TOP",
    "PRINT_CSS",
    "Block",
    "blocks",
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


def _days(x: float) -> str:
    return f"{x:,.1f} d" if x >= 0.05 else f"{x * 24:,.1f} h"


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


def _fix(f: Finding) -> str:
    return f.fix or f"see `dclint explain {f.rule}`"


def _summary(doc: ReviewDocument) -> list[Block]:
    out = [Block("h2", "Executive summary", anchor="summary")]
    out.append(Block("p", summary_line(doc.result)))
    priced = [r for r in doc.ranked if r.finding.impact is not None]
    if not doc.ranked:
        out.append(Block("p", "No findings: every rule that applies passed (see the scope)."))
        return out
    n = len(doc.ranked)
    lead = (
        f"{n} defect{'s' * (n != 1)}, ranked by what they cost the projected run (training days, "
        f"then money; severity breaks ties). {len(priced)} "
        f"carr{'ies' if len(priced) == 1 else 'y'} a price."
    )
    out.append(Block("p", lead))
    items = []
    for r in doc.top:
        f = r.finding
        where = f" on {r.count} objects" if r.count > 1 else ""
        cost = (
            f"Costs {_days_of(f, r.days)} and {_money(f)} of the projected run"
            + (f" ({f.impact.label} to {f.impact.other})" if f.impact.days_high else "")
            + ". "
            if f.impact is not None
            else f"Not priced ({f.severity}). "
        )
        items.append(
            f"{r.design}: {f.rule} {f.name}{where}: {f.message}{measured_limit(f)}. "
            f"{cost}Fix: {_fix(f)}."
        )
    out.append(Block("ol", items=items, css="top"))
    rows = [
        [
            str(i),
            r.design,
            f"{r.finding.rule} {r.finding.name}",
            r.finding.severity,
            str(r.count),
            _days_of(r.finding, r.days) if r.finding.impact is not None else "-",
            _money(r.finding),
        ]
        for i, r in enumerate(doc.ranked, start=1)
    ]
    out.append(
        Block(
            "table",
            header=["#", "Design", "Rule", "Severity", "Objects", "Days", "Money"],
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


def _layout_row(label: str, lay: Any, c: Any) -> list[str]:
    plan = lay.plan
    cost = plan.cost(c)
    days = plan.days(c).m_as("day")
    days_text = f"{days:,.1f} d"
    cost_text = "-" if cost is None else fmt(cost)
    if lay.band is not None:  # predicted figures carry the model's calibration band
        days_text += f" ({band(days * lay.band.low_factor, days * lay.band.high_factor)} d)"
        if cost is not None:
            m = float(cost.magnitude)
            low, high = m * lay.band.low_factor, m * lay.band.high_factor
            cost_text += f" ({band(low, high)} {cost.units:~})"
    return [
        label,
        f"tp {c.tp}, pp {c.pp}, vpp {c.vpp}, cp {c.cp}, ep {c.ep}, dp {c.dp}, mb {c.micro_batch}",
        c.recompute,
        fmt(Q_(c.step_time, "s"), "s"),
        f"{plan.mfu(c):.1%}",
        days_text,
        cost_text,
    ]


def _layouts(part: DesignPart) -> list[Block]:
    if not part.layouts:
        return []
    out = [Block("h3", "Parallel layout: the best found against the declared one")]
    for lay in part.layouts:
        if lay.plan is None:
            out.append(Block("p", f"Workload {lay.workload}: no layout search: {lay.note}."))
            continue
        plan = lay.plan
        best = plan.result.valid[0]
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
                    _layout_row("declared", lay, plan.declared),
                    _layout_row("best", lay, best),
                ],
            )
        )
        if lay.band is not None:
            out.append(
                Block(
                    "p",
                    "Days and cost are predicted by the step model; the ranges are its "
                    f"calibration band: measured steps ran {lay.band.low_factor:.2f} to "
                    f"{lay.band.high_factor:.2f} times the predicted ones ({lay.band.source}).",
                )
            )
        if lay.adopt:
            out.append(Block("p", "To adopt the best: " + lay.adopt))
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
        if h.then is not None:
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
    from dclint.analysis.diff import heading, row_cells

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
                Block("ul", items=[f"{f.rule} {f.subject or f.path}: {f.message}" for f in found])
            )
    return out


def _appendix(items: list[Review]) -> list[Block]:
    header, rows = merged_assumptions(items)
    out = [Block("h2", "Appendix: assumptions and sources", anchor="appendix")]
    if rows:
        out.append(Block("table", header=header, rows=rows))
    else:
        out.append(Block("p", "No assumptions: no design loaded."))
    return out


def blocks(
    doc: ReviewDocument, run: RunAssessment, body: Callable[[Review, int], dict[str, str]]
) -> list[Block]:
    """The whole document; `body` renders one design's existing review body in each format."""
    front = doc.front
    out = [Block("h1", front.title)]
    if front.rows():
        out.append(Block("table", header=["Document", ""], rows=[list(r) for r in front.rows()]))
    out += _summary(doc)
    by_file = {r.file: r for r in reviews(run)}
    items = list(by_file.values())
    for n, part in enumerate(doc.designs):
        review = by_file[part.result.file]
        out.append(Block("page"))
        out.append(Block("raw", raw=body(review, n)))
        out += _scope(part)
        out += _layouts(part)
        out += _headroom(part)
        out += _waivers(part)
    if doc.diff is not None:
        out.append(Block("page"))
        out += _diff(doc)
    out.append(Block("page"))
    out += _appendix(items)
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
h1{font-size:20pt;margin:0 0 .4em}h2{font-size:14pt}h3{font-size:11.5pt}h4{font-size:10.5pt}
table{font-size:9pt;width:100%%}td,th{padding:.15em .4em}code{font-size:9pt}
ol.top li{margin:.4em 0;font-size:10.5pt}
.page{break-before:page}
figure{background:%(ground)s;padding:6px;margin:.6em 0;border-top:4px solid %(top)s;
border-bottom:4px solid %(bottom)s}
table,figure,svg,li,tr,.keep{break-inside:avoid}h1,h2,h3,h4{break-after:avoid}
figure svg{max-width:100%%;height:auto;max-height:205mm;display:block;margin:0 auto}
@media print{body{margin:0;max-width:none;font-size:10pt}section.design{break-before:auto}
details>*{display:block}details summary{display:none}}
"""


def _html_table(esc: Callable[[str], str], b: Block) -> str:
    head = ""
    if any(b.header):
        head = "<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in b.header) + "</tr></thead>"
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in b.rows)
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
            items = "".join(f"<li>{esc(i)}</li>" for i in b.items)
            out.append(f"<{b.kind}{css}>{items}</{b.kind}>")
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
    doc: ReviewDocument, run: RunAssessment, paper: str = "A4", print_css: bool = True
) -> str:
    from dclint.report import html as page

    def body(r: Review, n: int) -> dict[str, str]:
        return {"html": page.design_section(r, n)}

    parts = blocks(doc, run, body)
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
            out += [f"{m} {md(x)}" for m, x in zip(marks, b.items, strict=True)] + [""]
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
