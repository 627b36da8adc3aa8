"""The layout search's records: what is searched, one candidate, the result; and the grid's sets."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from dclint.projection.layout_checks import CHECKS
from dclint.projection.memory import DEFAULT_TERMS, WEIGHT_BYTES, StateTerms
from dclint.projection.step.model import Arch, Machine, Software, Step

__all__ = [
    "MICRO_BATCHES",
    "OPTIMIZERS",
    "REASONS",
    "RECOMPUTE",
    "Candidate",
    "Search",
    "Space",
    "metric",
]

MICRO_BATCHES = (1, 2, 4, 8)  # dclint's own range: Megatron recipes run 1 or 2, rarely 8
RECOMPUTE = ("none", "selective", "full")
OPTIMIZERS = ("replicated", "distributed", "zero2", "zero3")  # index = ZeRO stage
# the rejection reasons, in the order the search checks them (dclint.projection.layout_checks)
REASONS = tuple(check.message for check in CHECKS)


@dataclass(frozen=True, slots=True)
class Space:
    """What is searched: the model, the machine, the GPU counts and the memory budget."""

    arch: Arch
    machine: Machine
    software: Software
    worlds: tuple[int, ...]
    global_batch: int
    usable_bytes: float  # GPU memory less the reserve
    causal: bool = False
    # PAR003's pipeline split counts the embedding and the loss as one layer each when the
    # workload's account_for_*_in_pipeline_split flags are set (Megatron-Core): 0, 1 or 2
    split_extra: int = 0
    # which of them: (embedding counted, loss counted), each 0 or 1 (they take a layer's place
    # on the first and the last stage in the memory estimate)
    split_ends: tuple[int, int] = (0, 0)
    # the highest ZeRO stage the workload's framework runs with pp > 1 (DeepSpeed: 1)
    pipeline_zero: int = 3
    # (dropout masks stored, GEMM inputs saved in FP8, the attention output projection's FP8
    # copy kept): dclint.projection.memory's activations (layer_activations, saves_quantized,
    # fp8_proj_copy)
    saved: tuple[bool, bool, bool] = (True, False, True)
    # layers whose activations the software offloads to host memory (with pp 1 only)
    offload: int = 0
    # what the memory estimate reads from the software (dclint.projection.memory.state_terms):
    # gradient, optimizer and logit bytes, the chunked loss's, FSDP's accumulated gradients
    terms: StateTerms = DEFAULT_TERMS
    # bytes of a transformer layer's weight (FP8 parameters: memory.layer_weight_bytes)
    layer_weight_bytes: float = WEIGHT_BYTES
    # selective recomputation by TorchTitan's op-level policy (memory.layer_activations)
    op_recompute: bool = False
    # the workload's software is PyTorch FSDP (software.sharding fsdp or hsdp): its full shard
    # is searched with and without reshard_after_forward and over HSDP shard groups
    fsdp: bool = False
    # the framework runs tensor, pipeline and context parallelism (DATA_PARALLEL_ONLY: not
    # Composer / llm-foundry): False keeps tp, pp, vpp and cp at 1
    model_parallel: bool = True


@dataclass(frozen=True, slots=True)
class Candidate:
    tp: int
    pp: int
    vpp: int
    cp: int
    ep: int
    dp: int
    micro_batch: int
    recompute: str
    sequence_parallel: bool
    optimizer: str
    world: int
    step: Step
    step_time: float  # s, with the ZeRO-3 gathers
    memory: float  # B per GPU
    first_layers: int = 0  # layers of the first and last stages when uneven (0: even split)
    last_layers: int = 0
    # PyTorch FSDP (optimizer zero3 of a workload whose software is FSDP): parameters
    # regathered every micro-batch (True) or once a step (False); None: not PyTorch FSDP
    reshard: bool | None = None
    shard_group: int = 0  # HSDP: data-parallel ranks a shard group holds (0: all of them)

    @property
    def sharding(self) -> str:
        """The optimizer as the table shows it: `zero3` as PyTorch FSDP or HSDP runs it."""
        if self.reshard is None:
            return self.optimizer
        kind = f"hsdp {self.shard_group}" if self.shard_group else "fsdp"
        return kind if self.reshard else f"{kind}, no reshard"

    @property
    def key(self) -> tuple[int, int, int, int, int, int, int, bool, int, int]:
        """Identity and tie-break order (see dclint.projection.search.layouts's docstring)."""
        return (
            self.tp,
            self.pp,
            self.cp,
            self.ep,
            self.vpp,
            self.micro_batch,
            RECOMPUTE.index(self.recompute),
            self.sequence_parallel,
            OPTIMIZERS.index(self.optimizer),
            self.world,
        )


@dataclass(frozen=True)
class Search:
    candidates: int
    valid: list[Candidate]  # best first
    rejected: dict[str, int]  # in REASONS order, reasons that rejected none left out
    untimed: int = 0  # valid, not timed: provably no faster than the search's limit
    ranked_by: str | None = None  # the metric `valid` is sorted by (search's `by`), if sorted

    @property
    def valid_count(self) -> int:
        return len(self.valid) + self.untimed

    def rank(self, step_time: float, world: int, by: str = "time") -> int:
        """1-based place of a layout of that step time: 1 + the valid layouts strictly better."""
        mine = metric(step_time, world, by)
        if by == self.ranked_by:  # the layouts strictly better are the sorted list's head
            return 1 + bisect_left(self.valid, mine, key=lambda c: metric(c.step_time, c.world, by))
        return 1 + sum(1 for c in self.valid if metric(c.step_time, c.world, by) < mine)


def metric(step_time: float, world: int, by: str) -> float:
    return step_time * world if by == "cost" else step_time
