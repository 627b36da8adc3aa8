"""HTML output: the design review as one self-contained page with inline-SVG charts."""

from __future__ import annotations

from html import escape
from typing import Any

from dclint.engine.findings import Finding, RunResult
from dclint.report.charts import charts, require_matplotlib
from dclint.report.markdown import summary_rows
from dclint.report.review import SEVERITY_ORDER, Review, reviews
from dclint.report.text import summary_line
from dclint.report.values import PROJECTION_COLUMNS, breakdown, projection_rows, tco_rows
from dclint.units import Quantity

__all__ = ["render"]

# no script, font or image may come from elsewhere: the page works offline and in mail
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;color:#1a202c}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #cbd5e0;
padding:.25em .6em;text-align:left;vertical-align:top}th{background:#edf2f7}
.error{color:#c53030}.warning{color:#b7791f}.info{color:#2b6cb0}code{font-size:.9em}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}section{margin-bottom:3em}
"""


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _finding(f: Finding) -> str:
    numbers = ""
    if f.measured is not None or f.limit is not None:
        numbers = f" (measured {f.measured or '-'}, limit {f.limit or '-'})"
    fix = f" <em>Fix: {escape(f.fix)}</em>" if f.fix else ""
    return (
        f"<li><code>{escape(f'{f.file}:{f.line}:{f.column}')}</code> "
        f'<strong class="{f.severity}">{escape(f.rule)}</strong> {escape(f.name)}: '
        f"{escape(f.message + numbers)}.{fix}</li>"
    )


def _cost(review: Review) -> tuple[dict[str, float], str]:
    """The TCO's items (the fuller picture), else the first workload's cost breakdown."""
    sources = [review.tco] if review.tco else []
    for p in [*sources, *review.projections]:
        breakdown = p.get("items") if p is review.tco else p.get("cost_breakdown")
        if isinstance(breakdown, dict) and breakdown:
            currency = str(p.get("currency") or "")
            out = {}
            for k, v in breakdown.items():
                if isinstance(v, Quantity):
                    v = v.m_as(currency) if currency else v.magnitude
                if isinstance(v, (int, float)):
                    out[str(k)] = float(v)
            return out, currency
    return {}, ""


def _design(r: Review, n: int) -> str:
    out = [f"<section><h2>{escape(r.name)}</h2><p>File: <code>{escape(r.file)}</code></p>"]
    if r.summary is not None:
        out.append(
            "<h3>Summary</h3>"
            + _table(["Figure", "Value"], [list(x) for x in summary_rows(r.summary)])
        )
    elif r.summary_error:
        out.append(f"<p>Summary not available: {escape(r.summary_error)}</p>")
    out.append(f"<h3>Findings ({len(r.findings)})</h3>")
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
        for area, found in sorted(r.groups.get(severity, {}).items()):
            out.append(
                f'<h4 class="{severity}">{severity.capitalize()}s: {escape(area)}</h4>'
                "<ul>" + "".join(_finding(f) for f in found) + "</ul>"
            )
    cost, currency = _cost(r)
    for title, svg in charts(r.summary, cost, currency, f"d{n}"):
        out.append(f'<figure class="chart"><figcaption>{escape(title)}</figcaption>{svg}</figure>')
    if r.projections:
        out.append(
            "<h3>Projected training time and cost</h3>"
            + _table(list(PROJECTION_COLUMNS), projection_rows(r.projections))
        )
        out += [
            f"<p>Cost breakdown of {escape(str(p.get('workload', '')))}: {escape(breakdown(p))}</p>"
            for p in r.projections
            if p.get("cost_breakdown")
        ]
    if r.tco:
        out.append("<h4>TCO</h4>" + _table(["Item", "Value"], tco_rows(r.tco)))
    out += [f"<p><em>{escape(note)}</em></p>" for note in r.notes]
    if r.assumptions:
        out.append(
            "<h3>Assumptions and limits</h3>"
            + _table(
                ["Assumption", "In effect", "Default", "Source"],
                [[a.item, a.value, a.default, a.source] for a in r.assumptions],
            )
        )
    return "".join(out) + "</section>"


def render(result: RunResult, settings: dict[str, Any]) -> str:
    require_matplotlib()  # fail before any work, with the install hint
    items = reviews(result, settings)
    title = "dclint design review" + (f": {items[0].name}" if len(items) == 1 else "")
    body = [f"<h1>{escape(title)}</h1><p>{escape(summary_line(result))}</p>"]
    body += [_design(r, n) for n, r in enumerate(items)]
    fixed = settings.get("baseline_fixed") or []
    if fixed:
        body.append(
            f"<h2>Baseline: {len(fixed)} entries no longer occur</h2><ul>"
            + "".join(f"<li>{escape(e.describe())}</li>" for e in fixed)
            + "</ul>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )
