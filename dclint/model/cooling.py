"""Cooling: coolant distribution units (CDUs) and the loops that carry their coolant to racks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dclint.model.types import Flow, Id, Power, Ref, Strict, Temperature, TemperatureDelta

__all__ = ["Cdu", "Coolant", "Cooling", "Loop"]

Coolant = Literal["water", "pg25"]


class Cdu(Strict):
    id: Id
    capacity: Power = Field(description="Rated heat capacity at the stated approach")
    max_flow: Flow
    approach: TemperatureDelta | None = Field(
        None, description="Secondary supply minus facility supply at rated load (e.g. 5 K)"
    )
    facility_supply_temperature: Temperature | None = Field(
        None,
        description="Facility (primary) water supply temperature at the CDU; unset: the upper "
        "limit of the site's ASHRAE class",
    )
    redundancy_group: str | None = Field(None, description="CDUs that back each other up (N+1)")


class Loop(Strict):
    id: Id
    cdu: Ref
    coolant: Coolant = "water"
    supply_temperature: Temperature
    return_temperature: Temperature
    racks: list[Ref] = Field(default_factory=list, description="Rack ids or ranges, e.g. r[01-08]")


class Cooling(Strict):
    cdus: list[Cdu] = Field(default_factory=list)
    loops: list[Loop] = Field(default_factory=list)
