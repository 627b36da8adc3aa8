"""Fabrics: compute (GPU back-end), storage and front-end networks, parametric or explicit."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import Annotated, Literal

from pydantic import Field
from pydantic import Strict as StrictMode
from pydantic.dataclasses import dataclass

from dclint.model.types import (
    RECORD,
    Bandwidth,
    Duration,
    Id,
    Length,
    PositiveInt,
    Power,
    Ref,
    Strict,
    empty_list,
)

__all__ = ["Cable", "Cabling", "Endpoint", "Fabric", "FabricKind", "Link", "Switch", "Tier"]

FabricKind = Literal["compute", "storage", "frontend"]
Cable = Literal["dac", "acc", "aoc", "transceiver"]


class Tier(Strict):
    """Switches of one tier, counted: leaf, spine, core. The first tier faces the GPUs' NICs."""

    name: str = Field(max_length=64)
    switch: str = Field(description="Switch catalog key, e.g. qm9700")
    count: PositiveInt
    downlinks: int = Field(ge=0, le=100000, description="Ports facing down, per switch")
    uplinks: int = Field(0, ge=0, le=100000, description="Ports facing up, per switch")
    link_speed: Bandwidth | None = Field(None, description="Default: the switch's port speed")
    cable: Cable | None = Field(
        None,
        description="Cable of this tier's downlinks: dac or acc (copper) to servers, "
        "transceiver or aoc (optical) between tiers; default: the fabric's cabling.optics",
    )
    cable_length: Length | None = Field(
        None,
        description="Longest cable run of this tier's downlinks, from the hall layout or the "
        "cable plan, e.g. '30 m' (NET012 holds it to the medium's reach)",
    )
    optics: Literal["sr", "dr", "fr"] | None = Field(
        None,
        description="Reach class of this tier's transceivers: sr (multimode, 50 m on OM4), dr "
        "(single-mode, 500 m), fr (2 km) (NET012)",
    )


class Endpoint(Strict):
    """Nodes other than the GPU servers on a fabric: each takes leaf downlink ports."""

    name: str = Field(max_length=64, description="e.g. weka, ufm, gateway")
    id: Id | None = Field(
        None,
        description="Explicit form: the nodes' ids, a range such as weka-[01-08] (count ids), "
        "which `links` may name as an end",
    )
    role: Literal["storage", "management", "gateway"]
    count: PositiveInt = Field(description="Nodes")
    ports: PositiveInt = Field(1, le=64, description="Fabric ports per node")
    power: Power | None = Field(
        None,
        description="Power of one node: counted with the racks in the site, UPS, generator and "
        "cooling totals (PWR006, PWR009, PWR012, CLG010; the fabric's fed_by and cooled_by "
        "say where); unset: not counted",
    )


# Records, not Strict models (see dclint.model.types.RECORD): an explicit 100,000-GPU fabric
# holds 45,000 switches and links.
@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Switch:
    """One switch of a fabric declared switch by switch (`switches`, with the `links` between
    them): its id, its catalog model and the tier it sits in."""

    id: Id
    model: Annotated[str, StrictMode()]
    tier: Annotated[str, StrictMode(), Field(max_length=64)]


@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Link:
    """Links between two ends: switch ids, rack ids (the rack's compute NICs), or the ids of
    `endpoints` that declare an `id` (storage, management, gateway nodes)."""

    a: Ref
    b: Ref
    count: PositiveInt = 1
    speed: Bandwidth
    cable: Cable | None = None  # a literal is exact


class Cabling(Strict):
    optics: Cable | None = Field(None, description="Cable of every tier that names none")
    burn_in: Duration | None = Field(None, description="Bit-error-rate burn-in of optical links")
    symbol_error_alert: float | None = Field(
        None, gt=0, le=1, description="Symbol error rate that raises an alert, e.g. 1e-6"
    )


class Fabric(Strict):
    id: Id
    kind: FabricKind
    nic: str | None = Field(None, description="NIC catalog key (default: the platform's)")
    nics_per_gpu: float = Field(1.0, gt=0, le=16)
    nic_speed: Bandwidth | None = None
    rail_optimised: bool = False
    racks: list[Ref] | None = Field(None, description="Racks on this fabric (default: all)")
    tiers: list[Tier] = Field(default_factory=empty_list)
    endpoints: list[Endpoint] = Field(
        default_factory=empty_list,
        description="Storage, management (e.g. a subnet manager) and gateway nodes on the fabric",
    )
    switches: list[Switch] = Field(default_factory=empty_list)
    links: list[Link] = Field(default_factory=empty_list)
    rails: dict[str, list[Ref]] | None = Field(
        None, description="Rail-optimised: rail name -> leaf switch ids it lands on"
    )
    cabling: Cabling | None = None
    placement: Literal["packed", "spread"] | None = Field(
        None,
        description="How jobs' nodes land under the switch groups (the step model's tier "
        "crossing): packed in rank order under as few groups as they need (a topology-aware "
        "scheduler), or spread over all of the fabric's groups. Not stated: the step model "
        "takes packed, and NET001 prices both ends",
    )
    fed_by: list[Ref] | None = Field(
        None,
        description="Power elements (panels, UPS systems, transformers) the fabric's switches "
        "and endpoints are fed from, each carrying an equal share, shared by the live ones when "
        "one is lost; unset: their power rides on the supply of the racks the fabric serves, "
        "pro rata by rack (PWR009, PWR011, dclint failures)",
    )
    cooled_by: Ref | None = Field(
        None,
        description="A CDU id (their heat to its liquid) or a hall (site.halls key: their heat "
        "to its air handlers) that cools the fabric's switches and endpoints; unset: the halls "
        "of the racks the fabric serves, pro rata by rack, to air (CLG001, CLG010)",
    )
    switches_in_rack_load: bool = Field(
        False,
        description="The racks' IT load already counts this fabric's switches (they stand in "
        "the racks and `extra_load` holds them): the site load does not add them again",
    )
    routing: Literal["ecmp", "adaptive"] | None = Field(
        None,
        description="How tiers spread flows over their uplinks: ecmp hashes each flow to one "
        "(collisions cost capacity), adaptive routes around load; default: ecmp on Ethernet "
        "switches, adaptive on InfiniBand",
    )
    subnets: PositiveInt = Field(
        1,
        description="InfiniBand subnets the fabric is split into, joined by InfiniBand routers "
        "(NET011 holds each to the 49,151 unicast LIDs of one subnet), a whole number (no unit)",
    )
