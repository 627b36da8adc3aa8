"""dclint.report.registry: one presenter a (result type, format), every target importable, and
a pair with no presenter is one clear ConfigError."""

from __future__ import annotations

import importlib

import pytest

from dclint.analysis.diff import Diff
from dclint.errors import ConfigError
from dclint.report.registry import RENDERERS, formats, kind_of, renderer


def test_every_registered_presenter_is_a_function_of_report() -> None:
    for (kind, fmt), target in RENDERERS.items():
        module, name = target.split(":")
        assert callable(getattr(importlib.import_module(f"dclint.report.{module}"), name)), (
            kind,
            fmt,
        )


def test_a_diff_is_written_in_its_four_formats_and_no_other() -> None:
    d = Diff("a.yaml", "b.yaml", [], [], [], [])
    assert kind_of(d) == "dclint.analysis.diff.Diff"
    assert formats(kind_of(d)) == ("text", "json", "markdown", "html")
    assert renderer(d, "text")(d) == "A: a.yaml\nB: b.yaml\n\n  A  B  change\n\n" + (
        "Findings only in B: none\nFindings only in A: none\n"
    )
    with pytest.raises(ConfigError) as err:
        renderer(d, "sarif")
    assert (
        str(err.value)
        == "a Diff is not written as sarif; it is written as text, json, markdown, html"
    )


def test_a_result_with_no_presenter_is_one_error() -> None:
    with pytest.raises(ConfigError, match=r"^no report is written for a int$"):
        renderer(3, "text")
    with pytest.raises(ConfigError, match=r"^no report is written for a list\[\]$"):
        renderer([], "text")


def test_a_list_is_keyed_by_its_first_item() -> None:
    from dclint.analysis.sweep import Sweep

    sweeps = [Sweep("d.yaml", "site.pue", [])]
    assert kind_of(sweeps) == "list[dclint.analysis.sweep.Sweep]"
    assert formats(kind_of(sweeps)) == ("text", "json")


def test_every_command_finds_its_presenters_here() -> None:
    """The result types of check, plan, plan --vary, diff, check --sweep, cost, capacity and
    review, with the formats each is written in."""
    from dclint.report import registry as r

    assert {k: formats(k) for k in dict.fromkeys(k for k, _ in RENDERERS)} == {
        r.RUN: (
            "text", "json", "sarif", "junit", "github", "gitlab", "markdown",
            "markdown-summary", "html",
        ),
        r.PLAN: ("text", "json", "markdown", "html"),
        r.GRID: ("text", "json", "markdown", "html"),
        r.DIFF: ("text", "json", "markdown", "html"),
        r.SWEEPS: ("text", "json"),
        r.COSTS: ("text", "json", "markdown", "html"),
        r.CAPACITY: ("text", "json", "markdown", "html"),
        r.REVIEW: ("markdown", "html", "pdf", "docx", "xlsx"),
    }  # fmt: skip
