"""`--format markdown-summary`: a short pull-request comment for a bot to post and update: the
overview of every design and its findings (rolled up), without diagrams or assumptions."""

from __future__ import annotations

from dclint.analysis.assess.assessment import RunAssessment
from dclint.report.markdown import md, overview, rollup_line
from dclint.report.review import SEVERITY_ORDER, reviews
from dclint.report.text import summary_line
from dclint.report.view import View

__all__ = ["MARKER", "render"]

# a bot finds its earlier comment by this line and edits it instead of posting another
MARKER = "<!-- dclint-review -->"
MOST = 50  # findings listed in all; the full review (--format markdown) has the rest


def render(run: RunAssessment, view: View) -> str:
    items = reviews(run)
    out = [MARKER, f"### dclint: {md(summary_line(run.result))}", ""]
    out += overview(items, links=False)  # the sections are not in this comment
    listed = 0
    left = 0
    for r in items:
        lines = [f"- {md(f'{e.file}:{e.line}:{e.column}')}: {md(e.message)}" for e in r.errors]
        for severity in SEVERITY_ORDER:
            for area in sorted(r.rolled.get(severity, {})):
                lines += [rollup_line(x, full=False) for x in r.rolled[severity][area]]
        if not lines:
            continue
        room = max(MOST - listed, 0)
        if room:
            out += [f"**{md(r.name)}**", "", *lines[:room], ""]
        listed += min(len(lines), room)
        left += max(len(lines) - room, 0)
    if left:
        out += [
            f"_{left} more entries: see the full review (`dclint check --format markdown`)._",
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n"
