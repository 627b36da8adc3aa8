"""Storage read demand of a design's workloads, and the tiers that feed training."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dclint.model.storage import StorageTier
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["read_demand", "training_tiers"]


def training_tiers(design: Design) -> list[tuple[int, StorageTier]]:
    """Tiers marked `feeds_training`, else every parallel file system not marked otherwise."""
    tiers = list(enumerate(design.storage.tiers))
    marked = [(i, t) for i, t in tiers if t.feeds_training]
    return marked or [
        (i, t) for i, t in tiers if t.kind == "parallel_fs" and t.feeds_training is not False
    ]


def read_demand(design: Design, bytes_per_token: Quantity, mfu: Quantity) -> Quantity:
    """Concurrent workloads' declared read rates, or tokens/s (6 N FLOP a token) x bytes/token."""
    total = Q_(0.0, "GB/s")
    catalog = design.topology.catalog
    platforms = [r.platform for r in design.topology.racks if r.platform is not None]
    for wl in design.workloads:
        if not wl.concurrent:
            continue
        if wl.data_read_rate is not None:
            total = total + wl.data_read_rate
            continue
        platform = catalog.platforms.get(wl.platform or "") or (platforms[0] if platforms else None)
        gpu = catalog.gpus.get(platform.gpu) if platform else None
        peak = gpu.dense_flops.get(wl.precision) if gpu else None
        if peak is None:
            continue
        n = wl.model.active_parameters or wl.model.parameters
        tokens_per_s = wl.gpus * peak * (wl.mfu or mfu) / Q_(6 * n, "FLOP")
        total = total + (tokens_per_s * (wl.bytes_per_token or bytes_per_token)).to("GB/s")
    return total.to("GB/s")
