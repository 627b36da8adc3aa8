"""What the power rules share: their family's metadata."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class PowerRule(Rule):
    """A power rule: tagged `power`. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("power",)
