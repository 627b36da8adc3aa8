"""How a report is to be shown: the presenter's small typed context (the CLI's display flags).
What is shown comes from the run's assessment
(`dclint.analysis.assess.assessment.RunAssessment`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dclint.engine.baseline import Entry

__all__ = ["View"]


@dataclass(frozen=True)
class View:
    """Display choices of one report; every field has the library's default.

    `color` and `show_source` (text: ANSI colours, the YAML line under each finding), `quiet`
    (nothing when clean), `statistics` (counts by rule), `show_waivers` (waived
    findings); `argv` and `today` give a review's
    provenance (the command line, default `sys.argv`; the date, default today);
    `baseline_fixed` the baseline entries no longer found.
    """

    color: bool = False
    show_source: bool = False
    quiet: bool = False
    statistics: bool = False
    show_waivers: bool = False
    argv: tuple[str, ...] | None = None
    today: str | None = None
    baseline_fixed: tuple[Entry, ...] = ()
