"""HTML output: the design review as one self-contained page that prints to a clean PDF: an
overview of every design, provenance, then per design its summary, diagrams (inline SVG),
findings (one defect on many racks rolled up) and projection; the assumptions once."""

from __future__ import annotations

import re

from dclint.analysis.assess.assessment import RunAssessment
from dclint.engine.rollup import Rollup, impact_note_sentence, impact_sentence, measured_limit
from dclint.escaping import HTML_CSP, html_text
from dclint.report.charts import OVER_HEADER, charts, over_rows
from dclint.report.drawing import svg
from dclint.report.fixes import fix_words, fix_yaml
from dclint.report.markdown import summary_rows
from dclint.report.meta import metadata
from dclint.report.review import (
    OVERVIEW_COLUMNS,
    SEVERITY_ORDER,
    Review,
    merged_assumptions,
    reviews,
)
from dclint.report.text import summary_line
from dclint.report.values import (
    PROJECTION_COLUMNS,
    breakdown,
    projection_rows,
    tco_rows,
    time_terms,
)
from dclint.report.view import View
from dclint.units import Quantity

__all__ = ["CSP", "LONG", "STYLE", "cell", "design_section", "escape", "render", "section"]

CSP = HTML_CSP  # dclint.escaping's: every HTML page dclint writes carries it
STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;color:#1a202c;padding:0 1em;
overflow-wrap:break-word}span.long{overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7fafc;padding:.3em .5em;margin:.3em 0}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #cbd5e0;
padding:.25em .6em;text-align:left;vertical-align:top}th{background:#edf2f7}
.error{color:#c53030}.warning{color:#b7791f}.info{color:#2b6cb0}code{font-size:.9em}
.fails td:nth-child(2),.does-not-load td:nth-child(2){color:#c53030;font-weight:bold}
figure{margin:1em 0;overflow-x:auto}figure svg{max-width:100%;height:auto}
section.design{margin-bottom:3em}span.id{white-space:nowrap}nav ol{columns:2}details{margin:.3em 0}
dl.meta{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em}
dl.meta dd{margin:0}
@page{size:A4;margin:14mm}
@media print{body{margin:0;max-width:none;font-size:10pt}
section.design{break-before:page}figure,tr,li{break-inside:avoid}
h2,h3,h4,p.over-list{break-after:avoid}
details::details-content{content-visibility:visible;display:block}
a{color:inherit;text-decoration:none}}
"""


def escape(text: str) -> str:
    """HTML-escaped, control, bidirectional and invisible characters written as escapes
    (dclint.escaping.html_text)."""
    return html_text(text)


# A token (a run without a blank: a path, an id, a URL) this many characters long or longer is
# written in a table cell as <span class="long">, which may break between any two characters
# (overflow-wrap:anywhere): a table is at least as wide as its cells' longest unbreakable
# tokens, and Chromium prints every page smaller to fit a table wider than the page (a
# 48-character path in the assumptions table did: 21,877 words under 9 pt in the PDF review).
# dclint's own threshold: above the longest token the samples' tables print (34 characters,
# an option name), so their layout is as before; 40 characters of 9 pt text take about 40% of
# an A4 page's text width. Elsewhere (paragraphs, lists) the page's overflow-wrap:break-word
# breaks a token only where it does not fit its line, and the metadata's values (dl.meta, the
# command line's paths) take a grid column that may be narrower than their longest token.
LONG = 40
_LONG = re.compile(rf"(\S{{{LONG},}})")


def cell(text: str) -> str:
    """A table cell's text, escaped, each token of `LONG` or more characters free to break."""
    parts = _LONG.split(text)  # odd places: the long tokens
    return "".join(
        f'<span class="long">{escape(p)}</span>' if i % 2 else escape(p)
        for i, p in enumerate(parts)
    )


def _table(header: list[str] | tuple[str, ...], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _rollup(r: Rollup) -> str:
    f = r.first
    words = fix_words(f)
    fix = f" <em>Fix: {escape(words)}</em>" if words else ""
    change = fix_yaml(f)
    if change:  # the design change the fix writes
        code = "\n".join(escape(line) for line in change.splitlines())
        fix += f'<pre class="change"><code>{code}</code></pre>'
    if f.impact is not None:  # what the finding costs: days and money of the projected run
        fix += f' <strong class="impact">{escape(impact_sentence(f))}.</strong>'
    elif f.impact_note:  # a priced rule's finding that costs the run nothing, and why
        fix += f" {escape(impact_note_sentence(f))}."
    scope = f"<strong>{escape(r.scope())}</strong>, e.g.: " if r.count > 1 else ""
    text = (
        f"<li><code>{escape(r.where)}</code> "
        f'<strong class="{f.severity}">{escape(f.rule)}</strong> {escape(f.name)}: '
        f"{scope}{escape(f.message + measured_limit(f))}"
        + (f" (source: {escape(f.origin)})" if f.origin else "")  # an imported element's
        + f".{fix}"
    )
    if r.count > 1:
        text += (
            f"<details><summary>All {r.count} subjects</summary><ul>"
            + "".join(
                f"<li><code>{escape(f'{x.file}:{x.line}:{x.column}')}</code> {escape(x.subject)}"
                f"{': ' + escape(x.measured_text) if x.measured_text else ''}</li>"
                for x in r.findings
            )
            + "</ul></details>"
        )
    return text + "</li>"


def _cost(review: Review) -> tuple[dict[str, float], str, str]:
    """The TCO's items (the fuller picture), else the first workload's cost breakdown, and
    which they are: the chart's title said 'Cost breakdown' of the TCO's items above the text's
    'Cost breakdown of moe-1.7t' of the run's."""
    sources = [review.tco] if review.tco else []
    for p in [*sources, *review.projections]:
        items = p.get("items") if p is review.tco else p.get("cost_breakdown")
        if isinstance(items, dict) and items:
            currency = str(p.get("currency") or "")
            out = {}
            for k, v in items.items():
                if isinstance(v, Quantity):
                    v = v.m_as(currency) if currency else v.magnitude
                if isinstance(v, (int, float)):
                    out[str(k)] = float(v)
            if p is not review.tco:
                return out, currency, f"Cost breakdown of {p.get('workload', '')}"
            years = p.get("period_years")
            over = f" over {years:g} years" if isinstance(years, (int, float)) else ""
            return out, currency, f"TCO{over} by item"
    return {}, "", ""


def _findings(r: Review) -> list[str]:
    out = [f"<h3>Findings ({len(r.findings)})</h3>"]
    if r.errors:
        out.append(
            f'<h4 class="error">Load errors ({len(r.errors)})</h4><ul>'
            + "".join(
                f"<li><code>{escape(f'{e.file}:{e.line}:{e.column}')}</code> {escape(e.message)}"
                "</li>"
                for e in r.errors
            )
            + "</ul>"
        )
    if not r.findings and not r.errors:
        out.append("<p>No findings.</p>")
    for severity in SEVERITY_ORDER:
        for area, rolled in sorted(r.rolled.get(severity, {}).items()):
            out.append(
                f'<h4 class="{severity}">{severity.capitalize()}s: {escape(area)}</h4>'
                "<ul>" + "".join(_rollup(x) for x in rolled) + "</ul>"
            )
    return out


def _design(r: Review, n: int | str) -> str:
    """One design's section, the `n`th of the page (its anchor `d{n}`, and its figures')."""
    if r.shown is not None and "html" in r.shown.sections:  # as a run printed it
        return f"d{n}".join(r.shown.sections["html"])
    out = [
        f'<section class="design" id="d{n}"><h2>{escape(r.name)}</h2>'
        f"<p>File: <code>{escape(r.file)}</code>. Verdict: <strong>{escape(r.verdict)}</strong>."
        "</p>"
    ]
    out += _findings(r)  # findings first: what a reader acts on
    if r.summary is not None:
        out.append(
            "<h3>Summary</h3>"
            + _table(["Figure", "Value"], [list(x) for x in summary_rows(r.summary)])
        )
    elif r.summary_error:
        out.append(f"<p>Summary not available: {escape(r.summary_error)}</p>")
    if r.graphs or r.summary is not None:
        out.append("<h3>Diagrams and charts</h3>")
    for i, (title, graph) in enumerate(r.graphs):
        out.append(f'<figure class="diagram">{svg(graph, title, f"d{n}-g{i}")}</figure>')
    cost, currency, what = _cost(r)
    for title, chart in charts(r, cost, currency, f"d{n}", what):
        out.append(f'<figure class="chart" aria-label="{escape(title)}">{chart}</figure>')
    over = over_rows(r)
    if over:  # whole lists: a table continues across pages where a figure would clip
        head = "".join(f"<th>{escape(h)}</th>" for h in OVER_HEADER)
        body = "".join(
            f"<tr><td>{cell(a)}</td><td>{cell(b)}</td><td>"
            # an id is never split at its hyphen across lines: a reader (and pdftotext)
            # reads 'A02-b', not 'A02-' and 'b'; but one of `LONG` characters or more may
            # break anywhere (`cell`), or it would widen the table past the page
            + ", ".join(
                f'<span class="id">{escape(i)}</span>' if len(i) < LONG else cell(i)
                for i in ids.split(", ")
            )
            + "</td></tr>"
            for a, b, ids in over
        )
        out.append(
            f'<p class="over-list">Over their limit in the figures above ({len(over)}):</p>'
            f"<table><tr>{head}</tr>{body}</table>"
        )
    if r.projections:
        out.append(
            "<h3>Projected training time and cost</h3>"
            + _table(list(PROJECTION_COLUMNS), projection_rows(r.projections, r.blocked))
        )
        if not r.blocked:  # the terms of a figure that is no figure are none
            out += [f"<p>{escape(time_terms(p))}</p>" for p in r.projections if time_terms(p)]
        out += [
            f"<p>Cost breakdown of {escape(str(p.get('workload', '')))}: {escape(breakdown(p))}</p>"
            for p in r.projections
            if p.get("cost_breakdown")
        ]
    if r.tco:
        out.append("<h4>TCO</h4>" + _table(["Item", "Value"], tco_rows(r.tco)))
    out += [f"<p><em>{escape(note)}</em></p>" for note in r.notes]
    return "".join(out) + "</section>"


def _overview(items: list[Review]) -> str:
    rows = [r.overview() for r in items]
    classes = [r.verdict.replace(" ", "-") for r in items]
    head = "".join(f"<th>{escape(h)}</th>" for h in OVERVIEW_COLUMNS)
    body = "".join(
        f'<tr class="{c}"><td><a href="#d{n}">{cell(row[0])}</a></td>'
        + "".join(f"<td>{cell(x)}</td>" for x in row[1:])
        + "</tr>"
        for n, (row, c) in enumerate(zip(rows, classes, strict=True))
    )
    return f'<table class="overview"><tr>{head}</tr>{body}</table>'


design_section = _design  # one design's body, for the review document
# where a section's own anchor (`d` and its place on the page) goes in a section kept for
# another place (section): a character escape() writes as an escape, so no text holds it
_ANCHOR = "\x00"


def section(r: Review) -> list[str] | None:
    """One design's section, as the parts between its anchors: for the results cache, which
    prints it at the design's place on the page (the anchors joined back: `_design`); None
    should the section hold the marker otherwise (then it is not kept)."""
    text = _design(r, _ANCHOR)
    parts = text.split("d" + _ANCHOR)
    return None if any(_ANCHOR in p for p in parts) else parts


def render(run: RunAssessment, view: View) -> str:
    items = reviews(run)
    title = "dclint design review" + (f": {items[0].name}" if len(items) == 1 else "")
    body = [
        f"<h1>{escape(title)}</h1><p>{escape(summary_line(run.result))}</p>",
        "<h2>Overview</h2>" + _overview(items),
        '<dl class="meta">'
        + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in metadata(items, view))
        + "</dl>",
        "<nav><h2>Contents</h2><ol>"
        + "".join(f'<li><a href="#d{n}">{escape(r.name)}</a></li>' for n, r in enumerate(items))
        + '<li><a href="#assumptions">Assumptions and limits</a></li></ol></nav>',
    ]
    body += [_design(r, n) for n, r in enumerate(items)]
    header, rows = merged_assumptions(items)
    if rows:
        body.append(
            '<section class="design" id="assumptions"><h2>Assumptions and limits</h2>'
            + _table(header, rows)
            + "</section>"
        )
    fixed = view.baseline_fixed
    if fixed:
        body.append(
            f"<h2>Baseline: {len(fixed)} entries no longer occur</h2><ul>"
            + "".join(f"<li>{escape(e.describe())}</li>" for e in fixed)
            + "</ul>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
