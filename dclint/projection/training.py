"""Per-workload projection: training time, GPU-hours, energy, cost and per-GPU memory.

Time = FLOPs / (GPUs x peak dense FLOPS at the workload's precision x MFU); the memo's
estimator then divides by (1 - communication share), and synchronous checkpoint saves
(size / write bandwidth of the checkpoint tier, once per interval) are added. With
`mfu_basis: model` (default) the model FLOPs are used, with `hardware` the FLOPs including
recomputation (see flops.py). Energy = IT power attributable to the workload x wall time x PUE.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dclint.model.catalog import Gpu, Platform
from dclint.model.storage import StorageTier
from dclint.model.workload import Workload
from dclint.projection.defaults import CHECKPOINT_BYTES_PER_PARAMETER, default_mfu
from dclint.projection.flops import FlopsCount, training_flops
from dclint.projection.memory import MemoryEstimate, memory_per_gpu
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["Hardware", "Timing", "attributable_power", "hardware_of", "timing"]


@dataclass(frozen=True)
class Hardware:
    gpu_key: str
    gpu: Gpu
    platform_key: str | None
    platform: Platform | None


@dataclass(frozen=True)
class Timing:
    """Compute, communication and checkpoint time of one run, and what they rest on."""

    flops: FlopsCount
    peak: Quantity
    mfu: Quantity
    mfu_source: str
    compute: Quantity
    communication: Quantity
    checkpoint: Quantity
    memory: MemoryEstimate
    assumptions: list[str] = field(default_factory=list)

    @property
    def wall(self) -> Quantity:
        return (self.compute + self.communication + self.checkpoint).to("day")

    @property
    def goodput(self) -> Quantity:
        return (self.compute / self.wall).to("dimensionless")


def hardware_of(design: Design, key: str | None) -> Hardware | str:
    """The GPU (and platform) of a platform or GPU catalog key, by default the first rack's;
    or the reason it cannot be found."""
    catalog = design.topology.catalog
    if key is not None:
        if key in catalog.platforms:
            platform = catalog.platforms[key]
            gpu = catalog.gpus.get(platform.gpu)
            if gpu is None:
                return f"platform '{key}' names unknown GPU '{platform.gpu}'"
            return Hardware(platform.gpu, gpu, key, platform)
        if key in catalog.gpus:
            return Hardware(key, catalog.gpus[key], None, None)
        return f"unknown platform '{key}'"
    for rack in design.topology.racks:
        if rack.platform is not None and rack.platform.gpu in catalog.gpus:
            p = rack.platform
            return Hardware(p.gpu, catalog.gpus[p.gpu], rack.platform_key, p)
    return "no GPU platform: the design has no racks with a platform and the workload names none"


def _checkpoint_tier(design: Design, wl: Workload) -> StorageTier | None:
    tiers = design.storage.tiers
    if wl.checkpoint is not None and wl.checkpoint.tier is not None:
        return next((t for t in tiers if t.id == wl.checkpoint.tier), None)
    return next((t for t in tiers if t.checkpoints), None) or next(
        (t for t in tiers if t.kind == "parallel_fs" and t.checkpoints is not False), None
    )


def _checkpoint_time(design: Design, wl: Workload, running: Quantity, notes: list[str]) -> Quantity:
    ckpt = wl.checkpoint
    if ckpt is None:
        return Q_(0.0, "day")
    tier = _checkpoint_tier(design, wl)
    bandwidth = tier.aggregate("write") if tier is not None else None
    if bandwidth is None:
        notes.append("checkpoint overhead not estimated: no write bandwidth for its tier")
        return Q_(0.0, "day")
    size = ckpt.size
    if size is None:
        size = Q_(float(wl.model.parameters) * CHECKPOINT_BYTES_PER_PARAMETER, "B")
        notes.append(
            f"checkpoint size {CHECKPOINT_BYTES_PER_PARAMETER:g} B/parameter "
            "(bf16 weights, fp32 master weights, Adam moments)"
        )
    save = (size / bandwidth).to("s")
    saves = float((running / ckpt.interval).to("dimensionless").magnitude)
    notes.append(
        f"synchronous checkpoint saves: {save.m_as('s'):.0f} s each, "
        f"{saves:.0f} saves to {tier.id if tier else '?'}"
    )
    return (save * saves).to("day")


def timing(design: Design, wl: Workload, hw: Hardware) -> Timing | str:
    """The run's timing, or the reason it cannot be projected."""
    peak = hw.gpu.dense_flops.get(wl.precision)
    if peak is None:
        return f"GPU '{hw.gpu_key}' has no dense {wl.precision} FLOPS in the catalog"
    flops = training_flops(wl)
    notes: list[str] = [f"FLOPs: {flops.formula}"]
    if wl.mfu is not None:
        mfu, source = wl.mfu, "declared (workload.mfu)"
    else:
        mfu, source = default_mfu(hw.gpu_key, wl.precision)
        source = f"default for {hw.gpu_key} {wl.precision}: {source}"
    notes.append(f"MFU {mfu.m_as('percent'):.4g}% {source}, on {wl.mfu_basis} FLOPs")
    if mfu.magnitude <= 0:
        return "MFU is 0%"
    work = flops.hardware if wl.mfu_basis == "hardware" else flops.model
    compute = (work / (wl.gpus * peak * mfu)).to("day")
    comm_share = wl.communication_overhead
    communication = Q_(0.0, "day")
    if comm_share is not None:
        if comm_share.magnitude >= 1:
            return "communication_overhead is 100%"
        communication = (compute * comm_share / (1 - comm_share)).to("day")
        notes.append(
            f"communication {comm_share.m_as('percent'):.4g}% of each step "
            "(time / (1 - share), the memo's estimator)"
        )
    else:
        notes.append("no communication overhead declared (workload.communication_overhead)")
    checkpoint = _checkpoint_time(design, wl, compute + communication, notes)
    memory = memory_per_gpu(wl)
    return Timing(
        flops, peak.to("TFLOPS"), mfu, source, compute, communication, checkpoint, memory, notes
    )


def attributable_power(design: Design, wl: Workload, hw: Hardware) -> tuple[Quantity, str]:
    """IT power drawn for the workload (before PUE), and how it was attributed."""
    if wl.power_basis == "gpu_tdp":
        return (hw.gpu.tdp * wl.gpus).to("kW"), f"GPU TDP {hw.gpu.tdp.m_as('W'):g} W per GPU"
    racks = [
        r
        for r in design.topology.racks
        if r.platform is not None and r.platform.gpu == hw.gpu_key and r.gpus
    ]
    if racks:
        kw = sum(r.it_load.m_as("kW") for r in racks)  # floats: a pint addition per rack is slow
        per_gpu = Q_(kw / sum(r.gpus for r in racks), "kW")
        basis = f"rack share: {len(racks)} racks' IT load over their GPUs"
    elif hw.platform is not None:
        per_gpu = hw.platform.power / hw.platform.gpus
        basis = f"rack share: platform {hw.platform_key} power over its GPUs"
    else:
        return (hw.gpu.tdp * wl.gpus).to("kW"), "GPU TDP (no rack to take a share of)"
    per_gpu = per_gpu.to("kW")
    return (per_gpu * wl.gpus).to("kW"), (
        f"{basis}, {per_gpu.m_as('kW'):.4g} kW per GPU incl. CPUs, NICs and in-rack "
        "switches (fabric switches and storage outside the racks not included)"
    )
