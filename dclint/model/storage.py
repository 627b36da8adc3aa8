"""Storage tiers: node-local caches, parallel file systems and object stores."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import Annotated, Literal

from pydantic import Field, model_validator

from dclint.model.types import (
    Bandwidth,
    Dim,
    Id,
    Information,
    PositiveInt,
    Power,
    Ref,
    Strict,
    empty_list,
)
from dclint.units import Quantity

# File-system metadata operations a second (a file open is one): '500000 op/s'
OperationRate = Annotated[Quantity, Dim("500000 op/s", "metadata operation rate")]

__all__ = ["StorageSection", "StorageTier"]


class StorageTier(Strict):
    id: Id
    kind: Literal["node_local", "parallel_fs", "object"]
    capacity: Information | None = None
    read_bandwidth: Bandwidth | None = Field(None, description="Aggregate read bandwidth")
    write_bandwidth: Bandwidth | None = Field(None, description="Aggregate write bandwidth")
    per_node_read_bandwidth: Bandwidth | None = None
    per_node_write_bandwidth: Bandwidth | None = None
    nodes: PositiveInt | None = None
    node_power: Power | None = Field(
        None,
        description="Power of one storage node: nodes x node_power joins the racks in the site, "
        "UPS, generator and cooling totals (PWR006, PWR009, PWR012, CLG010; fed_by and "
        "cooled_by say where); unset: not counted",
    )
    fed_by: list[Ref] | None = Field(
        None,
        description="Power elements (panels, UPS systems, transformers) the storage nodes are "
        "fed from, each carrying an equal share; unset: their power rides on the supply of "
        "every rack, pro rata by rack (PWR009, PWR011, dclint failures)",
    )
    cooled_by: Ref | None = Field(
        None,
        description="A CDU id or a hall (site.halls key) that cools the storage nodes; unset: "
        "the racks' halls, pro rata by rack, to air (CLG001, CLG010)",
    )
    nics_per_node: PositiveInt | None = Field(
        None, description="Storage-network NICs per storage node (STO006)"
    )
    nic_speed: Bandwidth | None = Field(
        None, description="Line rate of one storage NIC, e.g. 400 Gb/s (STO006)"
    )
    ports_per_nic: PositiveInt = Field(
        1,
        description="Network ports of one storage NIC, each at nic_speed (a dual-port card: "
        "2), a whole number (no unit) (STO006)",
    )
    pcie_generation: Literal[3, 4, 5, 6] | None = Field(
        None,
        description="PCIe generation of each storage NIC's host slot, 3 to 6: with "
        "pcie_lanes, the host link STO006 bounds the NIC by",
    )
    pcie_lanes: Literal[1, 2, 4, 8, 16] | None = Field(
        None,
        description="PCIe lanes of each storage NIC's host slot, a whole number (no unit): "
        "x16 is 16 (STO006)",
    )
    replication: PositiveInt | None = Field(
        None,
        description="Copies the tier writes of every block (replication factor), a whole "
        "number (no unit): each copy crosses the storage NICs (STO006)",
    )
    erasure_code: str | None = Field(
        None,
        pattern=r"^[1-9][0-9]*\+[0-9]+$",
        description="Erasure code as data + parity strips, e.g. '8+2': a write moves "
        "(data + parity) / data of its bytes over the storage NICs (STO006)",
    )
    feeds_training: bool | None = Field(
        None, description="Training data is read from this tier (default: the parallel FS)"
    )
    checkpoints: bool | None = Field(
        None, description="Checkpoints are written here (default: the parallel FS)"
    )
    capacity_basis: Literal["usable", "raw"] = Field(
        "usable",
        description="What capacity states: usable space (default), or raw media, of which "
        "an erasure_code k+m keeps k/(k+m) and a replication r keeps 1/r (STO005)",
    )
    metadata_rate: OperationRate | None = Field(
        None,
        description="File opens (metadata operations) a second the tier's metadata servers "
        "sustain, e.g. '500000 op/s' (STO008)",
    )

    @model_validator(mode="after")
    def _one_write_scheme(self) -> "StorageTier":
        if self.replication is not None and self.erasure_code is not None:
            raise ValueError("declare replication or erasure_code, not both")
        return self

    @property
    def write_amplification(self) -> float:
        """Bytes a write moves over the storage NICs per byte written: the replication
        factor, or (data + parity) / data of the erasure code; 1 where neither is declared."""
        if self.replication is not None:
            return float(self.replication)
        if self.erasure_code is not None:
            data, parity = (int(x) for x in self.erasure_code.split("+"))
            return (data + parity) / data
        return 1.0

    @property
    def usable_capacity(self) -> Information | None:
        """Capacity data can fill: declared usable, or raw over the protection's overhead
        (k/(k+m) of an erasure code, 1/r of replication)."""
        if self.capacity is None or self.capacity_basis == "usable":
            return self.capacity
        return self.capacity / self.write_amplification

    def protection_text(self) -> str:
        """'8+2 erasure code keeps 80%', 'replication 3 keeps 33.33%', or ''."""
        if self.erasure_code is not None:
            return f"{self.erasure_code} erasure code keeps {100 / self.write_amplification:.4g}%"
        if self.replication is not None:
            return f"replication {self.replication} keeps {100 / self.replication:.4g}%"
        return ""

    def line_rate(self) -> Bandwidth | None:
        """nodes x NICs per node x ports x line rate, where nodes, NICs and speed are declared."""
        if self.nodes is None or self.nics_per_node is None or self.nic_speed is None:
            return None
        return self.nic_speed * (self.nodes * self.nics_per_node * self.ports_per_nic)

    def aggregate(self, direction: Literal["read", "write"]) -> Bandwidth | None:
        """Aggregate bandwidth, declared or per-node x nodes."""
        declared = self.read_bandwidth if direction == "read" else self.write_bandwidth
        if declared is not None:
            return declared
        per_node = (
            self.per_node_read_bandwidth if direction == "read" else self.per_node_write_bandwidth
        )
        if per_node is not None and self.nodes is not None:
            return per_node * self.nodes
        return None


class StorageSection(Strict):
    tiers: list[StorageTier] = Field(default_factory=empty_list)
    performance_level: Literal["good", "better", "best"] | None = Field(
        None,
        description="Storage performance level of the NVIDIA SuperPOD reference architecture "
        "the design targets (STO001 reads its per-node read guidance)",
    )
