"""What the layout rules share: their family's metadata."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class LayoutRule(Rule):
    """A layout rule: a workload's parallel layout against Megatron-Core's, for a design with a
    workload. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("parallel",)
    covers: ClassVar[tuple[str, ...]] = ("megatron.layout",)
    needs: ClassVar[tuple[str, ...]] = ("workload",)
