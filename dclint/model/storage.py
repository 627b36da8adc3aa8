"""Storage tiers: node-local caches, parallel file systems and object stores."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dclint.model.types import Bandwidth, Id, Information, PositiveInt, Strict

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
    nics_per_node: PositiveInt | None = Field(
        None, description="Storage-network NICs per storage node (STO006)"
    )
    nic_speed: Bandwidth | None = Field(
        None, description="Line rate of one storage NIC, e.g. 400 Gb/s (STO006)"
    )
    feeds_training: bool | None = Field(
        None, description="Training data is read from this tier (default: the parallel FS)"
    )
    checkpoints: bool | None = Field(
        None, description="Checkpoints are written here (default: the parallel FS)"
    )

    def line_rate(self) -> Bandwidth | None:
        """nodes x NICs per node x line rate, where all three are declared."""
        if self.nodes is None or self.nics_per_node is None or self.nic_speed is None:
            return None
        return self.nic_speed * (self.nodes * self.nics_per_node)

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
    tiers: list[StorageTier] = Field(default_factory=list)
    performance_level: Literal["good", "better", "best"] | None = Field(
        None,
        description="Storage performance level of the NVIDIA SuperPOD reference architecture "
        "the design targets (STO001 reads its per-node read guidance)",
    )
