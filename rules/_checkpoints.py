"""What the checkpoint rules of two families share (storage: STO002, STO003, STO005, STO007;
reliability: REL001-REL004): the bytes-per-parameter option that sizes an undeclared
checkpoint, one checkpoint's transfer to or from its tier, how its size was reached, and the
finding of a transfer slower than its target (STO002 writes, STO007 restores)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from dclint.api import (
    CHECKPOINT_BYTES_PER_PARAMETER,
    Design,
    Information,
    Option,
    Quantity,
    StorageTier,
    Violation,
    Workload,
    checkpoint_size,
    count_text,
    run_of,
    save_time,
    size_unit,
)
from dclint.units import fmt

UNDECLARED = "Checkpoint bytes per parameter where checkpoint.size is not declared"


def bytes_per_parameter(text: str = UNDECLARED) -> Option:
    """The `bytes_per_parameter` option: dclint's default size of a checkpoint per parameter."""
    return Option(f"{CHECKPOINT_BYTES_PER_PARAMETER:g} B", Information, text)


# how a finding words each direction: a save writes a checkpoint to its tier, a restore reads
# it back from there
_MOVES = {"write": "writes", "read": "restores"}
_TOWARD = {"write": "to", "read": "from"}


@dataclass(frozen=True)
class Transfer:
    """One checkpoint written to (or read from) a storage tier: its size, whether the size was
    estimated from the parameters, the tier's aggregate bandwidth and the time it takes."""

    index: int  # the tier's index in storage.tiers
    tier: StorageTier
    size: Quantity
    estimated: bool
    bandwidth: Quantity
    seconds: Quantity
    direction: Literal["read", "write"]

    @property
    def field(self) -> str:
        """The tier field that sets the bandwidth: declared aggregate, else per node."""
        names = (f"{self.direction}_bandwidth", f"per_node_{self.direction}_bandwidth")
        return next((n for n in names if getattr(self.tier, n) is not None), "id")

    def too_slow(
        self, wl: Workload, per_parameter: Quantity, target: Quantity, fix: str, cost: str = ""
    ) -> Violation:
        """The finding of this transfer taking longer than `target`, at the tier field that
        sets its bandwidth, with the bandwidth that would meet the target and `cost` (what the
        excess costs the run, '; ...') after it."""
        need = (self.size / target).to("GB/s")
        return Violation(
            ("storage", "tiers", self.index, self.field),
            f"workload {wl.id} {_MOVES[self.direction]} a {fmt(self.size, size_unit(self.size))} "
            f"checkpoint{basis(wl, self.estimated, per_parameter)} {_TOWARD[self.direction]} "
            f"{self.tier.id} at {fmt(self.bandwidth.to('GB/s'))} in {fmt(self.seconds, 's')}, "
            f"above its target ({fmt(need, digits=5)} of {self.direction} "
            f"bandwidth needed){cost}",
            subject=self.tier.id,
            refs=(wl.id,),
            measured=self.seconds,
            limit=target,
            fix=fix,
        )


def transfer(
    wl: Workload,
    per_parameter: Quantity,
    where: tuple[int, StorageTier] | None,
    direction: Literal["read", "write"],
) -> Transfer | None:
    """`wl`'s checkpoint moved to or from the tier `where` (its index and the tier); None when
    the workload has no checkpoint, no tier, or a tier of no bandwidth."""
    size = checkpoint_size(wl, per_parameter)
    if size is None or where is None:
        return None
    index, tier = where
    bandwidth = tier.aggregate(direction)
    if bandwidth is None or bandwidth.magnitude <= 0:
        return None
    seconds = (size[0] / bandwidth).to("s")
    return Transfer(index, tier, size[0], size[1], bandwidth, seconds, direction)


def basis(wl: Workload, estimated: bool, per_parameter: Quantity) -> str:
    """' (175B parameters x 14 B)' where the size was estimated, else ''."""
    return f" ({count_text(wl.model.parameters)} parameters x {fmt(per_parameter)})" * estimated


def run_and_stall(
    design: Design, index: int, wl: Workload, per_parameter: Quantity
) -> tuple[Any, float] | None:
    """The projected run of workload `index` (`run_of`: its steps, failures and money) and the
    seconds one checkpoint save stalls it (0 where no checkpoint tier is known); None where no
    run with steps can be projected."""
    run = run_of(design, index)
    if run is None or run.steps_s <= 0:
        return None
    save = save_time(design, wl, per_parameter)
    return run, save[0].m_as("s") if save is not None else 0.0


def over(seconds: Quantity, target: Quantity) -> bool:
    """Whether a transfer of `seconds` misses `target` (exactly at it passes)."""
    return seconds.m_as("s") > target.m_as("s") * (1 + 1e-9)


__all__ = [
    "UNDECLARED",
    "Transfer",
    "basis",
    "bytes_per_parameter",
    "over",
    "run_and_stall",
    "transfer",
]
