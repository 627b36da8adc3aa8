"""Report formatters, one module a format, chosen by name and imported only when used. Each
has `render(run: RunAssessment, view: View) -> str`: it presents what the run's assessment
(`dclint.analysis.assess.assessment`) computed, as the `View` asks, and computes nothing itself."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import RunAssessment
    from dclint.report.view import View

__all__ = ["FORMATS", "formatter"]

# name -> module in this package with `render(run, view) -> str`
FORMATS: dict[str, str] = {
    "text": "text",
    "json": "json_format",
    "sarif": "sarif",
    "junit": "junit",
    "github": "github",
    "gitlab": "gitlab",
    "markdown": "markdown",
    "markdown-summary": "markdown_summary",
    "html": "html",
}


def formatter(name: str) -> Callable[[RunAssessment, View], str]:
    module = importlib.import_module(f"dclint.report.{FORMATS[name]}")
    render: Callable[[RunAssessment, View], str] = module.render
    return render
