"""Cost inputs: hardware prices, depreciation and the other items of a cluster's TCO."""

from __future__ import annotations

from pydantic import Field

from dclint.model.types import Duration, Fraction, Money, Strict

__all__ = ["CostInputs"]


class CostInputs(Strict):
    gpu_price: Money | None = Field(None, description="Price per GPU, all-in system share")
    system_price: Money | None = Field(None, description="Price per rack or node system")
    depreciation: Duration | None = Field(None, description="Straight-line life (default 3 years)")
    network: Money | None = Field(
        None, description="Network capex in full; else priced from switch_price and link_price"
    )
    switch_price: Money | None = Field(
        None, description="Price per fabric switch (network capex when network is not declared)"
    )
    link_price: Money | None = Field(
        None,
        description="Price per fabric link, its cable and any transceivers (network capex when "
        "network is not declared)",
    )
    storage: Money | None = None
    power_cooling_infrastructure: Money | None = None
    building: Money | None = None
    software_per_gpu_year: Money | None = None
    staff_per_year: Money | None = None
    tco_period: Duration | None = Field(None, description="Default 3 years")
    average_load: Fraction | None = Field(None, description="Average share of IT load drawn")
    value_per_gpu_year: Money | None = Field(None, description="Revenue or value, for break-even")
    budget: Money | None = None
    deadline: Duration | None = None
