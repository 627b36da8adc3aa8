"""What the cooling rules share: their family's metadata."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class CoolingRule(Rule):
    """A cooling rule: tagged `cooling`, applies to a design with cooling (CDUs or loops). A
    rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("cooling",)
    needs: ClassVar[tuple[str, ...]] = ("cooling",)


class CoolingRedundancyRule(CoolingRule):
    """A cooling rule on what survives a failure (a CDU, pump or air handler lost)."""

    tags: ClassVar[tuple[str, ...]] = ("cooling", "redundancy")
