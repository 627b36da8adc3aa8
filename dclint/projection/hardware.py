"""The GPU (and platform) a workload runs on, and the IT power attributable to the workload."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dclint.model.catalog import Gpu, Platform
from dclint.model.resolve import topology_of
from dclint.model.workload import Workload
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["Hardware", "attributable_power", "hardware_of"]


@dataclass(frozen=True)
class Hardware:
    """A GPU catalog entry, and the platform it came from (None when named directly)."""

    gpu_key: str
    gpu: Gpu
    platform_key: str | None
    platform: Platform | None

    @property
    def family(self) -> str:
        """The key the step model's constants, bands and ceilings are looked up by: a built-in
        GPU's own key, else the architecture its catalog entry declares (a variant of a known
        family inherits the family's constants), else its key (no constants)."""
        from dclint.projection.efficiency import GENERATION

        if self.gpu_key in GENERATION or self.gpu.architecture is None:
            return self.gpu_key
        return self.gpu.architecture

    @property
    def blackwell(self) -> bool:
        """A Blackwell GPU (FP8 GEMMs of any layout: FP8 parameters keep no transpose)."""
        from dclint.projection.efficiency import BLACKWELL, GENERATION

        return GENERATION.get(self.family, self.family) == BLACKWELL

    @property
    def power_limit(self) -> Quantity | None:
        """The board power limit the GPU runs at: the platform's, else the GPU's own (None:
        its tdp, no limit)."""
        if self.platform is not None and self.platform.gpu_power_limit is not None:
            return self.platform.gpu_power_limit
        return self.gpu.power_limit


def hardware_of(design: Design, key: str | None) -> Hardware | str:
    """The GPU (and platform) of a platform or GPU catalog key, by default the first rack's;
    or the reason it cannot be found."""
    catalog = topology_of(design).catalog
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
    for rack in topology_of(design).racks:
        if rack.platform is not None and rack.platform.gpu in catalog.gpus:
            p = rack.platform
            return Hardware(p.gpu, catalog.gpus[p.gpu], rack.platform_key, p)
    return "no GPU platform: the design has no racks with a platform and the workload names none"


def attributable_power(design: Design, wl: Workload, hw: Hardware) -> tuple[Quantity, str]:
    """IT power drawn for the workload (before PUE), and how it was attributed."""
    if wl.power_basis == "gpu_tdp":
        if hw.power_limit is not None and hw.power_limit < hw.gpu.tdp:
            limit = hw.power_limit
            return (limit * wl.gpus).to("kW"), f"GPU power limit {limit.m_as('W'):g} W per GPU"
        return (hw.gpu.tdp * wl.gpus).to("kW"), f"GPU TDP {hw.gpu.tdp.m_as('W'):g} W per GPU"
    racks = [
        r
        for r in topology_of(design).racks
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
