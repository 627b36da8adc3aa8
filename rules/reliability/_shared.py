"""What the reliability rules share: their family's metadata."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class ReliabilityRule(Rule):
    """A reliability rule: a workload's checkpoints against its failures, for a design with a
    workload and storage. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("reliability", "checkpoint")
    covers: ClassVar[tuple[str, ...]] = ("reliability.checkpoint",)
    needs: ClassVar[tuple[str, ...]] = ("workload", "storage")


class StoredCheckpointRule(ReliabilityRule):
    """A reliability rule on where the checkpoint a restart reads is kept: tagged `storage` too."""

    tags: ClassVar[tuple[str, ...]] = ("reliability", "checkpoint", "storage")
