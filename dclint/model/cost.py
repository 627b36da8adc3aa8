"""Cost inputs: hardware prices, depreciation and the other items of a cluster's TCO."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from pydantic import Field

from dclint.model.types import Duration, Fraction, Money, Strict

__all__ = ["CostInputs"]


class CostInputs(Strict):
    gpu_price: Money | None = Field(None, description="Price per GPU, all-in system share")
    system_price: Money | None = Field(None, description="Price per rack or node system")
    depreciation: Duration | None = Field(None, description="Straight-line life (default 3 years)")
    network: Money | None = Field(
        None,
        description="Network capex in full; else priced from switch_price, link_price and "
        "transceiver_price",
    )
    switch_price: Money | None = Field(
        None, description="Price per fabric switch (network capex when network is not declared)"
    )
    link_price: Money | None = Field(
        None,
        description="Price per fabric link and its cable, with its transceivers unless "
        "transceiver_price prices them apart (network capex when network is not declared)",
    )
    transceiver_price: Money | None = Field(
        None,
        description="Price per optical transceiver: a link whose cable is `transceiver` takes "
        "two, one at each end, on top of link_price (network capex when network is not "
        "declared)",
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
