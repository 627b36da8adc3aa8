"""What the fabric rules share: their family's metadata."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class FabricRule(Rule):
    """A fabric rule: tagged `fabric`, checks the NVIDIA fabric topics, applies to a design with a
    fabric. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("fabric",)
    covers: ClassVar[tuple[str, ...]] = ("nvidia.fabric",)
    needs: ClassVar[tuple[str, ...]] = ("fabric",)


class CablingRule(FabricRule):
    """A fabric rule on the cables and optics: tagged `cabling` too, checks the NVIDIA cabling
    topics."""

    tags: ClassVar[tuple[str, ...]] = ("fabric", "cabling")
    covers: ClassVar[tuple[str, ...]] = ("nvidia.cabling",)
