"""Storage read demand of a design's workloads, and the tiers that feed training.

A workload's demand is its declared `data_read_rate`, else the largest of the bases that
apply to it, each kept with the figures it came from so a finding can show them:

- data loading: tokens/s x bytes per token, or samples/s x bytes per sample, tokens/s being
  GPUs x dense peak x MFU / (6 x active parameters);
- image or video data: NVIDIA's SuperPOD guidance, bandwidth to provide (so divided by
  STO001's factor, as the reference level below): GPUs x a per-GPU read rate for 1080p/4K or
  uncompressed data larger than `media_dataset_size`, else the Best level per scalable unit;
- reference architecture: the read bandwidth NVIDIA's SuperPOD reference architecture asks of
  the performance level the design names (`storage.performance_level`) for the workload's
  nodes of `node_gpus` GPUs: its aggregate per scalable unit of `su_nodes` nodes, scaled by
  the nodes, and at least its single-node figure. That guidance is what to provision (the
  reference architecture's own margin), so it enters the demand divided by STO001's factor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dclint.calc.checkpoints import size_unit
from dclint.model.resolve import topology_of
from dclint.model.storage import StorageTier
from dclint.units import Q_, Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.workload import Workload

__all__ = [
    "Basis",
    "WorkloadDemand",
    "read_demand",
    "samples_per_second",
    "training_tiers",
    "workload_demands",
]


@dataclass(frozen=True)
class Basis:
    """One way of deriving a workload's read demand: its name, rate (GB/s) and figures."""

    name: str
    rate: Quantity
    how: str

    def text(self) -> str:
        return f"{self.name} {fmt(_readable(self.rate))} ({self.how})"


@dataclass(frozen=True)
class WorkloadDemand:
    """A workload's read demand: declared, or the largest of its bases."""

    index: int
    workload: str
    rate: Quantity
    bases: tuple[Basis, ...]
    declared: bool

    def text(self) -> str:
        if self.declared:
            return f"{self.workload}: declared data_read_rate {fmt(_readable(self.rate))}"
        if len(self.bases) == 1:
            return f"{self.workload}: {self.bases[0].text()}"
        return f"{self.workload}: the largest of " + ", ".join(b.text() for b in self.bases)


def training_tiers(design: Design) -> list[tuple[int, StorageTier]]:
    """Tiers marked `feeds_training`, else every parallel file system not marked otherwise."""
    tiers = list(enumerate(design.storage.tiers))
    marked = [(i, t) for i, t in tiers if t.feeds_training]
    return marked or [
        (i, t) for i, t in tiers if t.kind == "parallel_fs" and t.feeds_training is not False
    ]


def read_demand(design: Design, options: Mapping[str, Any]) -> Quantity:
    """Total read demand (GB/s) of the workloads that run concurrently."""
    total = Q_(0.0, "GB/s")
    for d in workload_demands(design, options):
        total = total + d.rate
    return total.to("GB/s")


def workload_demands(design: Design, options: Mapping[str, Any]) -> list[WorkloadDemand]:
    """Each concurrent workload's demand under STO001's options (`bytes_per_token`,
    `media_read_per_gpu`, `reference_read_per_node`,
    `node_gpus`); workloads with no basis that applies are left out."""
    out = []
    for index, wl in enumerate(design.workloads):
        if not wl.concurrent:
            continue
        if wl.data_read_rate is not None:
            rate = wl.data_read_rate.to("GB/s")
            out.append(WorkloadDemand(index, wl.id, rate, (), True))
            continue
        bases = _bases(design, wl, options)
        if bases:
            top = max(bases, key=lambda b: b.rate.m_as("GB/s"))
            out.append(WorkloadDemand(index, wl.id, top.rate, tuple(bases), False))
    return out


def _bases(design: Design, wl: Workload, options: Mapping[str, Any]) -> list[Basis]:
    bases: list[Basis] = []
    tokens = _tokens_per_second(design, wl)
    if tokens is not None:
        rate, mfu_text = tokens
        if wl.bytes_per_sample is not None:
            samples = rate / wl.sequence_length
            how = (
                f"{_count(samples)} samples/s of {wl.sequence_length} tokens x "
                f"{fmt(wl.bytes_per_sample)}; {mfu_text}"
            )
            load = (Q_(samples, "1/s") * wl.bytes_per_sample).to("GB/s")
            bases.append(Basis("data loading", load, how))
        else:
            per = wl.bytes_per_token or options["bytes_per_token"]
            how = f"{_count(rate)} tokens/s x {fmt(per)}; {mfu_text}"
            bases.append(Basis("data loading", (Q_(rate, "1/s") * per).to("GB/s"), how))
    if wl.modality != "text":
        bases.append(_media(wl, options))
    level = design.storage.performance_level
    if level is not None:
        bases.append(_reference(wl, level, options))
    return bases


def _media(wl: Workload, options: Mapping[str, Any]) -> Basis:
    """Image or video data: NVIDIA's per-GPU guidance for 1080p/4K or uncompressed data over
    `media_dataset_size`, else its Best level per scalable unit; both bandwidth to provide."""
    name = f"{wl.modality} data"
    floor = options["media_dataset_size"]
    size = wl.dataset_size
    if wl.high_resolution_media and size is not None and size.m_as("TB") > floor.m_as("TB"):
        per_gpu = options["media_read_per_gpu"]
        factor = float(options["factor"])
        guidance = (per_gpu * wl.gpus).to("GB/s")
        how = (
            f"1080p/4K or uncompressed, {fmt(size, size_unit(size))} above "
            f"{fmt(floor, size_unit(floor))}: {wl.gpus:,} GPUs x {fmt(per_gpu)} = "
            f"{fmt(guidance)} to provide, so {factor:g}x {fmt(guidance / factor)}"
        )
        return Basis(name, (guidance / factor).to("GB/s"), how)
    why = (
        "not 1080p/4K or uncompressed"
        if not wl.high_resolution_media
        else "dataset_size not declared"
        if size is None
        else f"dataset {fmt(size, size_unit(size))}, not above {fmt(floor, size_unit(floor))}"
    )
    level = _reference(wl, "best", options)
    return Basis(name, level.rate, f"{why}: reference architecture 'best', {level.how}")


def _reference(wl: Workload, level: str, options: Mapping[str, Any]) -> Basis:
    """The reference architecture's read guidance for the workload's nodes, as a demand."""
    per_node = options["reference_read_per_node"][level].to("GB/s")
    per_su = options["reference_read_per_su"][level].to("GB/s")
    node_gpus, su_nodes = int(options["node_gpus"]), int(options["su_nodes"])
    factor = float(options["factor"])
    nodes = math.ceil(wl.gpus / node_gpus)
    scaled = (per_su * nodes / su_nodes).to("GB/s")
    guidance = max(scaled, per_node, key=lambda q: q.m_as("GB/s"))
    how = (
        f"{nodes:,} nodes of {node_gpus} GPUs: the larger of {fmt(per_su)} per "
        f"{su_nodes}-node SU x {nodes / su_nodes:.4g} SU = {fmt(scaled)} and {fmt(per_node)} "
        f"for one node; {fmt(guidance)} to provide, so {factor:g}x {fmt(guidance / factor)}"
    )
    return Basis(f"reference architecture '{level}'", (guidance / factor).to("GB/s"), how)


def samples_per_second(design: Design, wl: Workload) -> tuple[float, str] | None:
    """(samples a second, the MFU it rests on): training tokens/s at the workload's MFU
    (declared, else the projection's default) over its sequence length; None where the GPU's
    peak is unknown."""
    got = _tokens_per_second(design, wl)
    if got is None:
        return None
    return got[0] / wl.sequence_length, got[1]


def _tokens_per_second(design: Design, wl: Workload) -> tuple[float, str] | None:
    """Training tokens/s at the workload's MFU (declared, else the projection's default)."""
    from dclint.model.defaults import default_mfu

    catalog = topology_of(design).catalog
    platform = catalog.platforms.get(wl.platform or "")
    if platform is None:
        built = [r.platform for r in topology_of(design).racks if r.platform is not None]
        platform = built[0] if built else None
    gpu = catalog.gpus.get(platform.gpu) if platform else None
    peak = gpu.dense_flops.get(wl.precision) if gpu else None
    if platform is None or peak is None:
        return None
    if wl.mfu is not None:
        mfu, source = wl.mfu, "declared"
    else:
        mfu, source = default_mfu(platform.gpu, wl.precision)
        source = f"default, {source}"
    n = wl.model.active_parameters or wl.model.parameters
    rate = (wl.gpus * peak * mfu / Q_(6 * n, "FLOP")).m_as("1/s")
    return float(rate), f"{wl.precision} MFU {mfu.m_as('percent'):g}% {source}"


def _count(n: float) -> str:
    for exp, suffix in ((9, "G"), (6, "M"), (3, "k")):
        if n >= 10**exp:
            return f"{n / 10**exp:.4g}{suffix}"
    return f"{n:.4g}"


def _readable(rate: Quantity) -> Quantity:
    gb = rate.m_as("GB/s")
    return rate.to("TB/s") if gb >= 1000 else rate.to("MB/s") if gb < 1 else rate.to("GB/s")
