"""Hardware catalog entries: GPUs, platforms (racks and nodes), switches and NICs, with sources."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, PrivateAttr

from dclint.model.types import (
    Area,
    Bandwidth,
    BoardPower,
    Compute,
    Information,
    Mass,
    PositiveInt,
    Power,
    Strict,
    Temperature,
    empty_list,
)

if TYPE_CHECKING:
    from dclint.units import Quantity

__all__ = ["CatalogData", "Gpu", "Nic", "Platform", "Precision", "Protocol", "SwitchModel"]

Precision = Literal["bf16", "fp8", "fp4"]
Protocol = Literal["infiniband", "ethernet"]


class Entry(Strict):
    """Fields common to every catalog entry."""

    name: str = Field(description="Display name, e.g. 'GB200 NVL72'")
    sources: dict[str, str] = Field(
        default_factory=dict, description="Where each figure comes from, by field name"
    )


class Gpu(Entry):
    """A GPU. `hbm` is the datasheet memory (80 GB on an H100); `hbm_device` is what the device
    reports, nvidia-smi's `memory.total` (81,559 MiB = 79.6 GiB on an H100 80GB HBM3), where a
    public figure is known. Memory rules (PAR004) read `hbm_capacity`: the device figure, or the
    datasheet figure where none is known. A design that overrides `hbm` of a built-in GPU should
    set `hbm_device` too (or null it), since the device figure wins."""

    tdp: BoardPower = Field(description="Board power")
    dense_flops: dict[Precision, Compute] = Field(description="Dense peak per precision")
    hbm: Information = Field(description="Datasheet memory (e.g. 80 GB)")
    hbm_device: Information | None = Field(
        None, description="Memory the device reports: nvidia-smi memory.total (e.g. 81559 MiB)"
    )
    hbm_bandwidth: Bandwidth
    nvlink_bandwidth: Bandwidth | None = None
    power_limit: BoardPower | None = Field(
        None,
        description="Board power limit the GPU runs at (nvidia-smi -pl), below the `tdp` its "
        "dense_flops are rated at: the step model scales its tensor-core rate by the cube root "
        "of power_limit / tdp (docs/performance-model.md, GPUs as deployed); default: tdp",
    )
    architecture: Literal["ampere", "hopper", "blackwell"] | None = Field(
        None,
        description="GPU architecture whose step-model constants (measured matmul rate, "
        "attention efficiency, SMs) a catalog entry of a known family takes, e.g. an H100 "
        "variant of another memory or power limit: hopper. Built-in entries know their own",
    )

    @property
    def hbm_capacity(self) -> "Quantity":
        """Memory a rule should budget against: `hbm_device` if known, else `hbm`."""
        return self.hbm_device if self.hbm_device is not None else self.hbm


class Platform(Entry):
    """A rack-scale system (GB200 NVL72) or a server node (HGX H100) placed `nodes` times a rack.

    `power` is the design IT load, `max_power` the most the rack or node can draw (PSU or power
    shelf limit) where a public figure exists. `max_inlet_temperature` is the air inlet limit;
    `liquid_inlet_max` is the highest secondary-loop (technology cooling system) liquid supply
    temperature the platform accepts, set only where a public source gives one."""

    kind: Literal["rack", "node"]
    gpu: str = Field(description="GPU catalog key")
    gpus: PositiveInt = Field(description="GPUs per rack (kind rack) or per node (kind node)")
    nvlink_domain: PositiveInt = Field(description="GPUs in one NVLink domain")
    power: Power = Field(description="Design IT load of the rack or node")
    max_power: Power | None = Field(None, description="Most the rack or node can draw")
    gpu_power_limit: BoardPower | None = Field(
        None,
        description="Board power limit the platform sets on its GPUs (nvidia-smi -pl); "
        "overrides the GPU's own power_limit (default: the GPU's tdp)",
    )
    liquid_cooling_required: bool = False
    liquid_fraction: float = Field(0.0, ge=0, le=1, description="Share of heat to liquid")
    max_inlet_temperature: Temperature | None = Field(
        None, description="Highest air inlet temperature the platform accepts"
    )
    liquid_inlet_max: Temperature | None = Field(
        None,
        description="Highest secondary-loop (TCS) liquid supply temperature the platform accepts",
    )
    compute_nic: str | None = Field(None, description="NIC catalog key of the GPU fabric")
    compute_nics: int = Field(0, ge=0, description="Compute-fabric NICs per rack or node")
    cpus: int = Field(0, ge=0)
    nvl72_class: bool = Field(False, description="Counts as an NVL72-class rack for PWR002")
    weight: Mass | None = Field(
        None, description="Weight of the rack as installed (kind rack) or of one node (kind node)"
    )
    footprint: Area | None = Field(None, description="Floor area of the rack (kind rack)")
    links_per_transceiver: PositiveInt = Field(
        1,
        description="Compute-fabric links one optical module in the platform's cages carries: "
        "2 for twin-port OSFP (DGX H100), 1 for a single-port NIC's own module",
    )


class SwitchModel(Entry):
    ports: PositiveInt = Field(description="Ports at port_speed")
    port_speed: Bandwidth
    split_speeds: list[Bandwidth] = Field(
        default_factory=empty_list, description="Slower speeds a port may be split to (2x200G...)"
    )
    power: Power | None = None
    protocol: Protocol | None = Field(
        None,
        description="Link protocol its ports run (infiniband or ethernet); an InfiniBand and "
        "an Ethernet port do not link at any speed",
    )
    links_per_transceiver: PositiveInt = Field(
        1,
        description="Links one optical module in the switch's cages carries: 2 for twin-port "
        "OSFP (QM9700 NDR: 32 cages, 64 ports)",
    )

    # (port_speed, split_speeds, their values in Gb/s): a fabric asks per link end
    _gbps: tuple[Any, Any, float, tuple[float, ...]] | None = PrivateAttr(default=None)

    @property
    def speeds_gbps(self) -> tuple[float, tuple[float, ...]]:
        """port_speed and split_speeds in Gb/s, converted once per pair of values (checked by
        identity, so a `model_copy(update=...)` converts its own)."""
        private: dict[str, Any] = self.__pydantic_private__  # type: ignore[assignment]
        got = private["_gbps"]
        if got is None or got[0] is not self.port_speed or got[1] is not self.split_speeds:
            splits = tuple(s.m_as("Gb/s") for s in self.split_speeds)
            got = (self.port_speed, self.split_speeds, self.port_speed.m_as("Gb/s"), splits)
            private["_gbps"] = got
        return got[2], got[3]


class Nic(Entry):
    speed: Bandwidth
    ports: PositiveInt = 1
    power: Power | None = None
    protocols: list[Protocol] = Field(
        default_factory=empty_list,
        description="Link protocols the NIC runs (a VPI adapter runs both); empty: unknown",
    )


class CatalogData(Strict):
    """The catalog as written, in the package's data file or a design's `catalog:` section."""

    gpus: dict[str, Gpu] = Field(default_factory=dict)
    platforms: dict[str, Platform] = Field(default_factory=dict)
    switches: dict[str, SwitchModel] = Field(default_factory=dict)
    nics: dict[str, Nic] = Field(default_factory=dict)
