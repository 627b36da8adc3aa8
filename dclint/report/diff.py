"""`dclint diff A B` as text, Markdown, JSON or an HTML page: the compared figures of
`dclint.analysis.diff.Diff`, findings that appear or disappear, projections."""

from __future__ import annotations

from typing import Any

from dclint.analysis.diff import Diff, Row, Value
from dclint.engine.findings import Finding
from dclint.escaping import finite_json, printable
from dclint.escaping import markdown_code as code
from dclint.escaping import markdown_text as md
from dclint.report.compared import changed_heading, changed_lines, heading, row_cells
from dclint.report.text import finding_message
from dclint.report.values import not_meaningful
from dclint.units import Quantity

__all__ = ["render_html", "render_json", "render_markdown", "render_text"]


def _finding(f: Finding) -> str:
    return printable(f"{f.rule} {f.path or '-'} ({f.subject or '-'}): {_said(f)}")


def _said(f: Finding) -> str:
    """The message, its measured value and limit, what its fix saves (or why nothing) and an
    imported element's source, as `dclint check` prints them (text.finding_message: the price
    was left out, REL001's '[the fix saves 2.334 d, 6,356,180 CNY]' on moe-1.7t-nvl72)."""
    return finding_message(f)


def render_text(d: Diff) -> str:
    head = ["", "A", "B", "change"]
    body = row_cells(d)
    body = [[printable(c) for c in r] for r in body]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(4)]
    out = [f"A: {printable(d.a)}", f"B: {printable(d.b)}", ""]
    for r in [head, *body]:
        cells = [
            r[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)),
        ]
        out.append("  ".join(cells).rstrip())
    out.append("")
    for side, found, mark in (("B", d.new, "+"), ("A", d.gone, "-")):
        out.append(f"{heading(side, found)}{':' if found else ''}")
        out.extend(f"  {mark} {_finding(f)}" for f in found)
    if d.changed:  # in both, at other figures (no section where none changed)
        out.append(f"{changed_heading(d)}:")
        out.extend(f"  ~ {printable(line)}" for line in changed_lines(d))
    return "\n".join(out) + "\n"


def _md(findings: list[Finding]) -> list[str]:
    return [
        f"- **{md(f.rule)}** {code(f.path or '-')} ({md(f.subject or '-')}): {md(_said(f))}"
        for f in findings
    ]


def render_markdown(d: Diff) -> str:
    out = [
        f"## Design comparison\n\nA: {code(d.a)}, B: {code(d.b)}\n",
        "| | A | B | change |",
        "|---|---:|---:|---:|",
    ]
    out.extend(f"| {' | '.join(md(c) for c in r)} |" for r in row_cells(d))
    for side, found in (("B", d.new), ("A", d.gone)):
        out.append(f"\n### {heading(side, found)}\n" if found else f"\n{heading(side, found)}")
        out.extend(_md(found))
    if d.changed:
        out.append(f"\n### {changed_heading(d)}\n")
        out.extend(f"- {md(line)}" for line in changed_lines(d))
    return "\n".join(out) + "\n"


def _json(v: Value) -> Any:
    if isinstance(v, Quantity):
        if v.check("[time]"):
            v = v.to("day")
        return {"value": round(float(v.magnitude), 6), "unit": f"{v.units:~}".replace(" ", "")}
    return round(v, 6) if isinstance(v, float) else v


def render_json(d: Diff) -> str:
    from dclint._version import __version__

    def rows(items: list[Row]) -> list[dict[str, Any]]:
        return [
            {
                "label": r.label,
                "a": _json(r.a),
                "b": _json(r.b),
                "change": r.change,
                **{
                    f"band_{side}": [_json(low), _json(high)]
                    for side, low_high in (("a", r.band_a), ("b", r.band_b))
                    if low_high is not None
                    for low, high in [low_high]
                },
                **{
                    f"omits_{side}": list(omits)
                    for side, omits in (("a", r.omits_a), ("b", r.omits_b))
                    if omits
                },
                **{
                    f"read_as_{side}": note
                    for side, note in (("a", r.note_a), ("b", r.note_b))
                    if note
                },
            }
            for r in items
        ]

    data = {
        "version": __version__,
        "a": d.a,
        "b": d.b,
        "totals": rows(d.rows),
        "findings_new": [f.as_dict() for f in d.new],
        "findings_gone": [f.as_dict() for f in d.gone],
        "findings_changed": [{"a": a.as_dict(), "b": b.as_dict()} for a, b in d.changed],
        "projections": rows(d.projections),
        # the projections of a design that cannot run its workload as stated are no figure
        **{
            f"not_meaningful_{side}": {  # as `dclint cost --format json` gives it
                "reason": not_meaningful(f),
                "rule": f.rule,
                "file": f.file,
                "line": f.line,
                "column": f.column,
                "message": f.message,
            }
            for side, f in (("a", d.blocked_a), ("b", d.blocked_b))
            if f is not None
        },
    }
    return finite_json(data)


def render_html(d: Diff, names: tuple[str, str]) -> str:
    """The comparison as a page; `names` the two designs as their reports name them."""
    from dclint.report.document import diff_blocks, write_html

    return write_html(diff_blocks(d, *names, level="h1"), f"{names[1]} against {names[0]}")
