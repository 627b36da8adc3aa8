"""Report formatters, one module a format, chosen by name and imported only when used."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["FORMATS", "formatter"]

# name -> module in this package with `render(result, settings) -> str`
FORMATS: dict[str, str] = {
    "text": "text",
    "json": "json_format",
    "sarif": "sarif",
    "junit": "junit",
    "github": "github",
    "markdown": "markdown",
    "markdown-summary": "markdown_summary",
    "html": "html",
}


def formatter(name: str) -> Callable[..., str]:
    module = importlib.import_module(f"dclint.report.{FORMATS[name]}")
    render: Callable[..., Any] = module.render
    return render
