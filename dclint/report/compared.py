"""Two designs compared (dclint.analysis.diff.Diff) as table cells and section headings, for
`dclint diff` (dclint.report.diff) and the review document alike."""

from __future__ import annotations

from dclint.analysis.diff import Diff, Value
from dclint.engine.findings import Finding
from dclint.report.values import cost_quoted, days_quoted, left_out, not_meaningful
from dclint.units import Quantity, fmt

__all__ = ["changed_heading", "changed_lines", "heading", "row_cells"]


def _cell(
    v: Value, low_high: tuple[Quantity, Quantity] | None = None, omits: tuple[str, ...] = ()
) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v + left_out(omits)
    if isinstance(v, Quantity):
        if v.check("[time]"):
            return days_quoted(v, low_high)
        return cost_quoted(v, omits) if omits else fmt(v)
    if isinstance(v, float):  # the PUE, as every other report prints it: 1.4, not 1.40
        return f"{v:.4g}"
    if isinstance(v, int):  # a count as its change prints it ('+1,680') and `dclint cost`: 8,192
        return f"{v:,}"
    return str(v)


def _ratio(label: str, v: Value, omits: tuple[str, ...] = ()) -> str:
    return f"{v:.2f}:1" if "down:up" in label and isinstance(v, float) else _cell(v, None, omits)


def _lines(d: Diff) -> list[list[str]]:
    """The totals, then the projections: a design's that cannot run its workload as stated
    'not meaningful until PAR001 layout-world-size-mismatch is fixed', as the review's
    projection table and `dclint cost` say, and no change against it."""
    rows = [
        [
            r.label,
            _ratio(r.label, r.a, r.omits_a) + (f" ({r.note_a})" if r.note_a else ""),
            _ratio(r.label, r.b, r.omits_b) + (f" ({r.note_b})" if r.note_b else ""),
            r.change,
        ]
        for r in d.rows
    ]
    for r in d.projections:
        a = not_meaningful(d.blocked_a) if d.blocked_a else _cell(r.a, r.band_a, r.omits_a)
        b = not_meaningful(d.blocked_b) if d.blocked_b else _cell(r.b, r.band_b, r.omits_b)
        rows.append([r.label, a, b, "" if d.blocked_a or d.blocked_b else r.change])
    return rows


row_cells = _lines  # the compared figures as table cells, for the review document


def heading(side: str, found: list[Finding]) -> str:
    """`Findings only in B (2)` over the findings, `Findings only in A: none` where there are
    none (no count of 0 over an empty section), in text and Markdown alike."""
    return f"Findings only in {side} ({len(found)})" if found else f"Findings only in {side}: none"


def changed_heading(d: Diff) -> str:
    """'Findings in both, changed (1)' over the pairs (a section only where some changed)."""
    return f"Findings in both, changed ({len(d.changed)})"


def changed_lines(d: Diff) -> list[str]:
    """A finding in both designs whose figures differ: 'PWR001 racks[1].it_load (su1-r8):
    measured 130 kW -> 200 kW, limit 120 kW' (the severity too where it changed)."""
    out = []
    for a, b in d.changed:
        parts = []
        for what, x, y in (
            ("measured", a.measured_text, b.measured_text),
            ("limit", a.limit_text, b.limit_text),
            ("severity", a.severity, b.severity),
        ):
            if x == y:
                if what != "severity" and x is not None:
                    parts.append(f"{what} {x}")
            else:
                parts.append(f"{what} {x or '-'} -> {y or '-'}")
        out.append(f"{a.rule} {a.path or '-'} ({a.subject or '-'}): {', '.join(parts)}")
    return out
