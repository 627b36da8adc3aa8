"""What the fabric rules share: their family's metadata, and the walk over the compute
fabrics (NET001, NET005, NET009, NET010)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from dclint.api import Design, Fabric, Rule


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


def compute_fabrics(design: Design) -> Iterator[tuple[int, Fabric]]:
    """The design's compute fabrics (the GPUs' training traffic; not the storage or front-end
    fabrics), each with its index in design.fabrics."""
    for f, fabric in enumerate(design.fabrics):
        if fabric.kind == "compute":
            yield f, fabric
