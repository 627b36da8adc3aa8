"""Where workloads keep their checkpoints and data, and how large a checkpoint is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dclint.units import Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.storage import StorageTier
    from dclint.model.workload import Workload

__all__ = [
    "checkpoint_size",
    "checkpoint_tier",
    "count_text",
    "data_tiers",
    "drain_tier",
    "restore_tier",
    "save_time",
    "size_unit",
]


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


def drain_tier(design: Design, wl: Workload) -> tuple[int, StorageTier] | None:
    """The persistent tier an asynchronous checkpoint is copied to (`checkpoint.drain_tier`),
    None for a synchronous one or an unknown tier."""
    ckpt = wl.checkpoint
    if ckpt is None or ckpt.mode != "async" or ckpt.drain_tier is None:
        return None
    tiers = enumerate(design.storage.tiers)
    return next(((i, t) for i, t in tiers if t.id == ckpt.drain_tier), None)


def restore_tier(design: Design, wl: Workload) -> tuple[int, StorageTier] | None:
    """The tier a restore reads the last complete checkpoint from: an asynchronous
    checkpoint's drain tier (the copy on the fast tier may have gone with a failed node), else
    the tier it is written to."""
    return drain_tier(design, wl) or checkpoint_tier(design, wl)


def save_time(
    design: Design, wl: Workload, bytes_per_parameter: Quantity
) -> tuple[Quantity, StorageTier] | None:
    """(time one save stalls training, the tier written): checkpoint size over the aggregate
    write bandwidth of its tier (for an asynchronous checkpoint, the fast tier it is first
    written to); None without a checkpoint, a tier or a write bandwidth."""
    size = checkpoint_size(wl, bytes_per_parameter)
    where = checkpoint_tier(design, wl)
    if size is None or where is None:
        return None
    bandwidth = where[1].aggregate("write")
    if bandwidth is None or bandwidth.magnitude <= 0:
        return None
    return (size[0] / bandwidth).to("s"), where[1]


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
