"""What the storage rules share: their family's metadata."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class StorageRule(Rule):
    """A storage rule: tagged `storage`, checks the NVIDIA storage topics, applies to a design
    with a workload and storage. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("storage",)
    covers: ClassVar[tuple[str, ...]] = ("nvidia.storage",)
    needs: ClassVar[tuple[str, ...]] = ("workload", "storage")


class CheckpointStorageRule(StorageRule):
    """A storage rule on writing checkpoints: tagged `checkpoint` too."""

    tags: ClassVar[tuple[str, ...]] = ("storage", "checkpoint")
