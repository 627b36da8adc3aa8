"""Where workloads keep their checkpoints and data, and how large a checkpoint is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dclint.units import Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.storage import StorageTier
    from dclint.model.workload import Workload

__all__ = ["checkpoint_size", "checkpoint_tier", "count_text", "data_tiers", "size_unit"]


def checkpoint_tier(design: Design, wl: Workload) -> tuple[int, StorageTier] | None:
    """The tier a workload checkpoints to: `checkpoint.tier`, else the tier marked
    `checkpoints: true`, else the first parallel file system (as the projection does)."""
    tiers = list(enumerate(design.storage.tiers))
    ref = wl.checkpoint.tier if wl.checkpoint is not None else None
    if ref is not None:
        return next(((i, t) for i, t in tiers if t.id == ref), None)
    return next(((i, t) for i, t in tiers if t.checkpoints), None) or next(
        ((i, t) for i, t in tiers if t.kind == "parallel_fs" and t.checkpoints is not False),
        None,
    )


def checkpoint_size(wl: Workload, bytes_per_parameter: Quantity) -> tuple[Quantity, bool] | None:
    """(size of one checkpoint, derived?): declared, else parameters x bytes per parameter."""
    if wl.checkpoint is None:
        return None
    if wl.checkpoint.size is not None:
        return wl.checkpoint.size.to("GB"), False
    return (bytes_per_parameter * float(wl.model.parameters)).to("GB"), True


def data_tiers(design: Design) -> list[tuple[int, StorageTier]]:
    """Shared tiers that hold the training data: those marked `feeds_training`, else every
    parallel file system not marked otherwise (node-local caches hold only a staged copy)."""
    tiers = [(i, t) for i, t in enumerate(design.storage.tiers) if t.kind != "node_local"]
    marked = [(i, t) for i, t in tiers if t.feeds_training]
    return marked or [
        (i, t) for i, t in tiers if t.kind == "parallel_fs" and t.feeds_training is not False
    ]


def size_unit(q: Quantity) -> str:
    """The decimal byte unit that prints a size compactly: GB, TB or PB."""
    gb = abs(q.m_as("GB"))
    return "PB" if gb >= 1e6 else "TB" if gb >= 1e3 else "GB"


def count_text(n: float) -> str:
    """A large count in engineering notation, as designs write it: 70.6e9, 1.7e12."""
    for exp in (12, 9, 6):
        if abs(n) >= 10**exp:
            return f"{n / 10**exp:.4g}e{exp}"
    return f"{n:,.0f}"
