"""What the cost rules share: their family's metadata. Each judges the project's budget (a
run's cost or its end date, from the workload's projection), and what it finds costs days and
money rather than breaking hardware."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class CostRule(Rule):
    """A cost rule: tagged `cost`, covering the review's `project.budget` topic; a finding's
    consequence is `performance`. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("cost",)
    consequence: ClassVar[str] = "performance"
    covers: ClassVar[tuple[str, ...]] = ("project.budget",)
