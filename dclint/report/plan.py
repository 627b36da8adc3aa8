"""`dclint plan DESIGN --workload W`: the layout search's result as text, JSON, Markdown or an
HTML page. The cells, sentences and data come from dclint.analysis.layouts; this draws them."""

from __future__ import annotations

from typing import Any

from dclint.analysis.layouts import (
    as_data,
    band_sentence,
    best_flags,
    ceiling_sentence,
    days_sentence,
    declared_sentence,
    table,
    used_sentence,
)
from dclint.escaping import finite_json, markdown_text, printable

__all__ = ["render_html", "render_json", "render_markdown", "render_text"]


def _table(head: list[str], rows: list[list[str]], markdown: bool) -> list[str]:
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return lines + ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *rows]]


def _drawn(plan: Any, top: int, fmt_name: str) -> str:
    """`plan` (dclint.projection.search.plan.Plan): its `top` layouts as text or Markdown."""
    md = fmt_name == "markdown"
    title, head, rows, _ = table(plan, top)
    out = [f"## {markdown_text(title)}" if md else printable(title), ""]
    out += _table(head, rows, md)
    out += ["", declared_sentence(plan) + "."]
    used = used_sentence(plan)
    if used is not None:
        out += ["", used + "."]
    above = ceiling_sentence(plan, top)
    if above is not None:
        out += ["", above + "."]
    if plan.result.rejected:
        out += ["", "rejected:" if not md else "Rejected:"]
        out += [f"{'-' if md else ' '} {r}: {n:,}" for r, n in plan.result.rejected.items()]
    line = best_flags(plan)
    if line is not None:
        out += ["", "best layout as flags:", f"{'    ' if md else '  '}{line}"]
    out += ["", days_sentence(plan)]
    band = band_sentence(plan, top)
    if band is not None:
        out += [band]
    return "\n".join(out) + "\n"


def render_text(plan: Any, top: int = 10) -> str:
    return _drawn(plan, top, "text")


def render_markdown(plan: Any, top: int = 10) -> str:
    return _drawn(plan, top, "markdown")


def render_json(plan: Any, top: int = 10) -> str:
    return finite_json(as_data(plan, top))


def render_html(plan: Any, top: int = 10) -> str:
    """The layout search as an HTML page: the text's table and sentences."""
    from dclint.report.document import Block, write_html

    title, head, rows, notes = table(plan, top)
    parts = [Block("h1", title), Block("table", header=head, rows=rows)]
    parts += [Block("p", n) for n in notes]
    return write_html(parts, title)
