"""Every presenter, by what it presents and how: (result type, format) -> the function that
writes that result in that format. Every command finds its presenter here, so a format the
result has no presenter for is one error line, the same for every command.

A result type is its class's dotted name (nothing is imported to look one up); a list of
results is keyed `list[NAME]` by its first item's class; a class that stands in for another
(a run read back from the cache for a run's assessment) names it in `report_as`. A presenter
takes the result, then the command's display options, and returns the text (or its lines)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from dclint.report import FORMATS

__all__ = ["RENDERERS", "formats", "kind_of", "renderer"]

RUN = "dclint.analysis.assess.assessment.RunAssessment"  # `dclint check`: render(run, view)
PLAN = "dclint.projection.search.plan.Plan"  # `dclint plan`: (plan, top)
GRID = "dclint.analysis.grid.facility.GridReport"  # `dclint plan --vary`: (report)
DIFF = "dclint.analysis.diff.Diff"  # `dclint diff`: (diff) and, for html, (diff, names)
SWEEPS = "list[dclint.analysis.sweep.Sweep]"  # `dclint check --sweep`: (sweeps)
COSTS = "dclint.analysis.costs.Costs"  # `dclint cost`: (costs)
CAPACITY = "dclint.analysis.capacity.headroom.Capacity"  # `dclint capacity`: (capacity, lifts)
# `dclint review`: (doc, run) for text formats; (doc, run, path[, paper]) for file formats
REVIEW = "dclint.analysis.assess.review.ReviewDocument"

# (result type, format) -> "module:function", the module under dclint.report
RENDERERS: dict[tuple[str, str], str] = {
    **{(RUN, name): f"{module}:render" for name, module in FORMATS.items()},
    **{(PLAN, f): f"plan:render_{f}" for f in ("text", "json", "markdown", "html")},
    **{(GRID, f): f"grid:write_{f}" for f in ("text", "json", "markdown", "html")},
    **{(DIFF, f): f"diff:render_{f}" for f in ("text", "json", "markdown", "html")},
    **{(SWEEPS, f): f"sweep:render_{f}" for f in ("text", "json")},
    **{(COSTS, f): f"cost:render_{f}" for f in ("text", "json", "markdown", "html")},
    **{(CAPACITY, f): f"capacity:render_{f}" for f in ("text", "json", "markdown", "html")},
    (REVIEW, "markdown"): "document:render_markdown",
    (REVIEW, "html"): "document:render_html",
    (REVIEW, "pdf"): "pdf:write_pdf",
    (REVIEW, "docx"): "office:write_docx",
    (REVIEW, "xlsx"): "office:write_xlsx",
}


def kind_of(result: Any) -> str:
    """The registry's name for the type of `result`."""
    if isinstance(result, list | tuple):
        return f"list[{kind_of(result[0])}]" if result else "list[]"
    cls = type(result)
    named = getattr(cls, "report_as", None)
    return named if isinstance(named, str) else f"{cls.__module__}.{cls.__qualname__}"


def formats(kind: str) -> tuple[str, ...]:
    """The formats a result type is written in, in the registry's order."""
    return tuple(f for k, f in RENDERERS if k == kind)


def renderer(result: Any, fmt: str) -> Callable[..., Any]:
    """The presenter of `result` in format `fmt`. Raises ConfigError for a pair with none."""
    kind = kind_of(result)
    target = RENDERERS.get((kind, fmt))
    if target is None:
        from dclint.errors import ConfigError

        known = formats(kind)
        what = kind.rsplit(".", 1)[-1]
        if not known:
            raise ConfigError(f"no report is written for a {what}")
        raise ConfigError(f"a {what} is not written as {fmt}; it is written as {', '.join(known)}")
    module, name = target.split(":")
    found: Callable[..., Any] = getattr(importlib.import_module(f"dclint.report.{module}"), name)
    return found
