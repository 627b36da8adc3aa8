"""A walk of `dclint review` enters analysis/ once (issue 47: 'a walk of cli/review.py:run
enters analysis/ 10 times and climbs back up 13 times'): the command asks analysis/ for the
review's one result, every figure computed, and report/ lays it out without calling back.

The measure, from the calls the command makes in this process (`sys.settrace`: a call event for
each Python frame, a return event for the frames of the entries it counts):

- A function's layer is the folder under dclint/ its code is in (cli, report, analysis, engine,
  projection, calc, model, loader, ...); code outside dclint/ (the standard library, pint,
  pydantic, the methods dataclasses generate) has none and is seen through: the caller of a
  call is the nearest frame on the stack whose code is in dclint/.
- An entry into analysis/ is a call of an analysis/ function whose caller is in cli/ or
  report/. Not entries: a module's body (an import computes nothing), and a read of the typed
  result, that is a method or property of a class of analysis/ during whose call no code of
  projection/, calc/, model/ or loader/ runs (it quotes a figure already computed).
- Entries are counted once a call site (caller function -> called function): a loop over the
  designs or the findings is one entry.
- A climb back up is a call of a cli/ or report/ function whose caller is in analysis/ (a
  callback such as a grouping lambda).

Before the review was built as one result (commit ce23b82), this walk counted 20 entries
(price_findings, assess, front_matter, build and compare from cli/; the roll-ups, from cli/'s
grouping callback and from report/; Assessment.summary and .diagrams computed on first read by
report/review.py; the layout rows' days, MFU, step and cost; step_parts; defect_counts) and one
climb back up (review_document.ranked -> cli/review.py's grouping lambda). Now: one entry, none
back.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import dclint
from conftest import SAMPLES
from dclint.cli import main

PACKAGE = str(Path(dclint.__file__).parent) + os.sep
COMPUTING = ("projection", "calc", "model", "loader")  # layers whose code computes figures
ABOVE = ("cli", "report")


@functools.cache  # by file name: a string keeps its hash, the walk asks at every call
def _file_layer(file: str) -> str | None:
    if not file.startswith(PACKAGE):
        return None
    return file[len(PACKAGE) :].split(os.sep)[0].removesuffix(".py")


def _layer(frame: FrameType) -> str | None:
    return _file_layer(frame.f_code.co_filename)


def _name(frame: FrameType) -> str:
    code = frame.f_code
    return f"{code.co_filename[len(PACKAGE) :]}:{code.co_qualname}"


def _caller(frame: FrameType) -> FrameType | None:
    back = frame.f_back
    while back is not None and _layer(back) is None:
        back = back.f_back
    return back


def walk(run: Callable[[], Any]) -> tuple[list[str], list[str]]:
    """(entries into analysis/, climbs back up) of `run()`, each 'caller -> called'."""
    calls: dict[str, set[str]] = {}  # call site -> the layers run below it
    methods: dict[str, bool] = {}  # call site -> whether the called is a method of a class
    ups: set[str] = set()
    open_sites: list[tuple[FrameType, str]] = []

    def close(frame: FrameType, event: str, arg: Any) -> Any:
        """The local tracer of an entry's frame: its return (or its yield) closes the entry."""
        if event == "return" and open_sites and open_sites[-1][0] is frame:
            open_sites.pop()
        return close

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        """The global tracer: a call event for each Python frame (C calls are not seen, nor the
        lines and returns of a frame it returns no local tracer for)."""
        if event != "call":
            return None
        layer = _layer(frame)
        if layer is None:
            return None
        for _, site in open_sites:
            calls[site].add(layer)
        if layer != "analysis" and layer not in ABOVE:  # neither an entry nor a climb
            return None
        caller = _caller(frame)
        above = _layer(caller) if caller is not None else None
        if caller is None or frame.f_code.co_name == "<module>":
            return None
        if layer == "analysis" and above in ABOVE:
            site = f"{_name(caller)} -> {_name(frame)}"
            calls.setdefault(site, set())
            qualname = frame.f_code.co_qualname.replace("<locals>.", "")
            methods[site] = "." in qualname and "self" in frame.f_code.co_varnames[:1]
            open_sites.append((frame, site))
            return close
        if above == "analysis" and layer in ABOVE:
            ups.add(f"{_name(caller)} -> {_name(frame)}")
        return None

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    entries = [
        site
        for site, below in calls.items()
        if not (methods[site] and not below.intersection(COMPUTING))
    ]
    return sorted(entries), sorted(ups)


def test_the_review_enters_analysis_once_and_never_climbs_back(tmp_path: Path) -> None:
    out = tmp_path / "review.md"
    argv = ["review", str(SAMPLES / "broken-fabric-2to1.yaml")]
    argv += ["--against", str(SAMPLES / "h100-40node.yaml"), "-o", str(out)]
    entries, ups = walk(lambda: main([*argv, "--today", "2026-12-06"]))
    assert entries == ["cli/review.py:run -> analysis/assess/review.py:review"]
    assert ups == []
    text = out.read_text()  # the document is all there: layouts, the diff, the projection
    assert "| declared |" in text and "| best |" in text
    assert "136.6 d" in text


def test_the_measure_sees_a_presenter_that_computes() -> None:
    """The walk is no test that cannot fail: report/ laying out an assessment whose figures
    are still to compute (dclint.run()'s, read lazily) enters analysis/ for each of them."""
    from dclint.library import run
    from dclint.report.review import reviews

    assessed = run([str(SAMPLES / "h100-40node.yaml")])
    entries, ups = walk(lambda: reviews(assessed))
    assert "report/review.py:_review -> analysis/assess/assessment.py:Assessment.summary" in entries
    assert (
        "report/review.py:_review -> analysis/assess/assessment.py:Assessment.diagrams" in entries
    )
    assert (
        "report/review.py:_review -> analysis/assess/assessment.py:Assessment.design" not in entries
    )
    assert ups == []
