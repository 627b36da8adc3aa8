"""Rack types (templates) and racks, written one at a time or as id ranges and counts."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from pydantic import Field

from dclint.model.site import Status
from dclint.model.types import (
    Area,
    Flow,
    Fraction,
    Id,
    Mass,
    PositiveInt,
    Power,
    Ref,
    Strict,
    empty_list,
)

__all__ = ["RackFields", "RackGroup", "RackType"]


class RackFields(Strict):
    """Fields a rack type sets and a rack may override."""

    platform: str | None = Field(None, description="Platform catalog key, e.g. gb200-nvl72")
    nodes: PositiveInt | None = Field(None, description="Nodes per rack for node platforms")
    it_load: Power | None = Field(
        None, description="Design IT load (default: the platform's power x nodes)"
    )
    liquid_fraction: Fraction | None = Field(None, description="Share of heat to liquid")
    liquid_cooling_capacity: Power | None = Field(
        None, description="Liquid heat the rack's manifold/cold plates can remove"
    )
    coolant_flow: Flow | None = Field(None, description="Coolant flow provided to the rack")
    extra_load: Power | None = Field(None, description="IT load besides the platform")
    power_capped: bool | None = Field(
        None,
        description="Power capping holds the rack to its design IT load: panels and the site "
        "count it at its design load, not its catalog peak (max_power)",
    )
    weight: Mass | None = Field(
        None,
        description="Weight of the loaded rack (default: the platform's catalog weight, x nodes "
        "for node platforms)",
    )
    footprint: Area | None = Field(
        None, description="Floor area the rack stands on, width x depth (e.g. 0.72 m^2)"
    )


class RackType(RackFields):
    description: str | None = None


class RackGroup(RackFields):
    """One rack, or many: `id: r[001-128]` or `id: su1-r` with `count: 8`."""

    id: Id
    count: PositiveInt | None = Field(None, le=100000)
    type: Ref | None = Field(None, description="Rack type key")
    feeds: list[Ref] = Field(
        default_factory=empty_list,
        description="Feed ids; `$n` stands for the rack's number within its range",
    )
    status: Status = "active"
    offline_nodes: PositiveInt | None = Field(
        None,
        description="Nodes the source of truth marks offline or failed (in repair, RMA): still "
        "counted in the rack's load, feeds and GPUs, since they come back",
    )
    row: str | None = None
    hall: str | None = Field(None, description="Key of the hall (site.halls) the racks stand in")
