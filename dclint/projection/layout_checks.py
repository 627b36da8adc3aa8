"""The start-up checks a parallel layout must pass, in one named table.

Megatron-Core's argument checks and TransformerConfig (Megatron-LM
`megatron/training/arguments.py` validate_args), DeepSpeed's pipeline engine, and dclint's
NVLink-domain and memory checks: each a `Check` with its name, its message (the reason the
layout search counts its rejections under; the rules that state the checks label their own
findings) and its predicate (True: broken).
PAR003 tests a declared workload with these predicates (its findings word each case in full),
the layout search rejects candidates with them, and the declared layout's reason comes from
them: the three read this table. `CHECKS` is in the search's order: a candidate is rejected
for the first check it breaks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, ParamSpec

__all__ = [
    "BATCH_MB_DP",
    "CHECKS",
    "DATA_PARALLEL_ONLY",
    "EP_DP_CP",
    "FFN_TP",
    "FSDP_ZERO",
    "HEADS_TP",
    "INTERLEAVED_MB",
    "LAYERS_PP",
    "MEMORY",
    "MOE_SP",
    "PIPELINE_ZERO",
    "SEQ_CP",
    "SEQ_TP",
    "TP_DOMAIN",
    "ZERO_PP",
    "Check",
    "framework_split",
]

P = ParamSpec("P")

# The highest ZeRO stage each framework runs with pipeline parallelism: DeepSpeed's pipeline
# engine asserts ZeRO-2 and ZeRO-3 "are incompatible with pipeline parallelism"
# (deepspeed/runtime/pipe/engine.py); dclint's Megatron-Core model takes every stage, and
# TorchTitan runs FSDP2 under pipeline parallelism (its 3D and 4D runs; llm-foundry runs no PP)
PIPELINE_ZERO = {"megatron-core": 3, "deepspeed": 1, "torchtitan": 3, "llm-foundry": 3}


def framework_split(framework: str, layers: int, stages: int) -> list[int] | None:
    """The layers of each (virtual) pipeline stage a framework gives a model whose layers do
    not split evenly, or None where the framework needs an even split (Megatron-Core, unless
    uneven first and last stages are declared). TorchTitan splits n layers over s = pp x
    stages-a-rank stages itself, with no split points declared: its `generate_split_points`
    (pytorch/torchtitan `torchtitan/parallelisms/pipelining_utils.py`, the release of its 405B
    benchmarks) gives the first stage base = n // s, the next n % s stages base + 1, the rest
    base, the last what remains, and refuses more stages than layers (an empty list); its
    later `generate_llm_fqn_per_model_part` (`torchtitan/distributed/pipeline_parallel.py`)
    weighs the embedding and the output as a layer each, which gives Llama 3.1 405B's 126
    layers the same 15 / 16 x 6 / 15 on pp 8 and 7 / 8 x 14 / 7 on 16 stages."""
    if framework != "torchtitan":
        return None
    if stages > layers:
        return []
    base, extra = divmod(layers, stages)
    middle = [base + 1] * min(extra, stages - 2) + [base] * max(0, stages - 2 - extra)
    split = [base, *middle] if stages > 1 else []
    return [*split, layers - sum(split)]


# Frameworks that run sharded data parallelism only (the layout search keeps tp, pp, vpp and cp
# at 1 for them): Composer, llm-foundry's trainer, parallelises with parallelism_config's fsdp
# (FSDP / HSDP) and has no pipeline or context parallelism; its tensor parallelism
# (parallelism_config.tp with llm-foundry's one strategy, `ffn`: llmfoundry/tp/
# ffn_tp_strategy.py, the MLP's up and down projections only) is not the Megatron-style tensor
# parallelism of attention and MLP the step model times
DATA_PARALLEL_ONLY = frozenset({"llm-foundry"})


@dataclass(frozen=True)
class Check(Generic[P]):
    """A layout check: its name, the reason a layout it breaks is rejected, and the test."""

    name: str
    message: str  # the search's rejection reason
    broken: Callable[P, bool]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> bool:
        return self.broken(*args, **kwargs)


def _tp_domain(domain: int, tp: int) -> bool:
    return domain % tp != 0


def _heads_tp(tp: int, *counts: int) -> bool:
    """Attention heads and query groups (GQA), each split whole over the tp ranks."""
    return any(n % tp for n in counts)


def _ffn_tp(tp: int, ffn: int) -> bool:
    """Each (expert's) FFN hidden size split over the (expert) tensor-parallel ranks."""
    return ffn % tp != 0


def _layers_pp(slots: int, pp: int, vpp: int = 1, uneven: bool = False) -> bool:
    """Layers (and the embedding and loss slots counted) split evenly over pp stages and
    each stage's over vpp chunks; declared uneven first and last stages are checked apart."""
    return not uneven and (slots % pp != 0 or (slots // pp) % vpp != 0)


def _seq_cp(seq: int, cp: int) -> bool:
    """Context parallelism's 2 x cp load-balanced chunks."""
    return cp > 1 and seq % (2 * cp) != 0


def _ep_dp_cp(ep: int, dp: int, cp: int, tp: int = 1, expert_tp: int = 1) -> bool:
    """Expert-parallel groups carved from the dp x cp ranks; under MoE parallel folding
    (`tp` and `expert_tp` given) from the tp x dp x cp ranks of a stage, expert tp x ep at a
    time (Megatron-Core's expert rank generator: world / pp a multiple of expert tp x ep)."""
    return ep > 1 and (tp * dp * cp) % (expert_tp * ep) != 0


def _batch_mb_dp(global_batch: int, micro_batch: int, dp: int) -> bool:
    return global_batch % (micro_batch * dp) != 0


def _interleaved_mb(global_batch: int, micro_batch: int, dp: int, pp: int, vpp: int) -> bool:
    """The interleaved schedule needs at least pp micro-batches a step (m = global batch /
    (micro-batch x dp)): Megatron-Core's `forward_backward_pipelining_with_interleaving` raises
    unless `microbatch_group_size_per_vp_stage` lies in [pp, m] (and the last group holds 0 or
    at least pp micro-batches: a group of m always does). Its default group, pp, needs m a
    multiple of pp, as Megatron-LM 2021 and Megatron-Core to 0.7 did ("number of microbatches
    is not divisible by pipeline-model-parallel-size when using interleaved schedule"); dclint
    takes the group as set to fit, so only m < pp is refused."""
    if vpp <= 1 or pp <= 1:
        return False
    return global_batch // (micro_batch * dp) < pp


def _moe_sp(experts: int, tp: int, sequence_parallel: bool) -> bool:
    return bool(experts) and tp > 1 and not sequence_parallel


def _seq_tp(seq: int, cp: int, tp: int, sequence_parallel: bool) -> bool:
    """Sequence parallelism scatters each cp rank's tokens over the tp ranks."""
    return sequence_parallel and (seq // cp) % tp != 0


def _zero_pp(pp: int, zero: int, pipeline_zero: int) -> bool:
    """A ZeRO stage above what the framework runs with pipeline parallelism (PIPELINE_ZERO)."""
    return pp > 1 and zero > pipeline_zero


def _fsdp_zero(fsdp: bool, zero: int) -> bool:
    """ZeRO stage 1 or 2 for PyTorch FSDP software: FSDP replicates every state (DDP) or
    shards them all (fully_shard; reshard_after_forward False keeps the gathered weights, its
    SHARD_GRAD_OP), and has no optimizer-only sharding; the search offers its own variants."""
    return fsdp and zero in (1, 2)


def _memory(memory: float, usable: float) -> bool:
    return memory > usable


TP_DOMAIN = Check("tp_domain", "tp does not divide the NVLink domain", _tp_domain)
HEADS_TP = Check("heads_tp", "heads or query groups not divisible by tp", _heads_tp)
FFN_TP = Check("ffn_tp", "FFN hidden size not divisible by tp", _ffn_tp)
LAYERS_PP = Check("layers_pp", "layers not divisible by pp", _layers_pp)
SEQ_CP = Check("seq_cp", "sequence not divisible by 2 x cp", _seq_cp)
EP_DP_CP = Check("ep_dp_cp", "ep does not divide dp x cp", _ep_dp_cp)
BATCH_MB_DP = Check("batch_mb_dp", "global batch not a multiple of micro-batch x dp", _batch_mb_dp)
INTERLEAVED_MB = Check(
    "interleaved_mb",
    "interleaved pipeline needs at least pp micro-batches",
    _interleaved_mb,
)
MOE_SP = Check("moe_sp", "MoE with tp > 1 needs sequence parallelism", _moe_sp)
SEQ_TP = Check("seq_tp", "sequence per cp rank not divisible by tp", _seq_tp)
ZERO_PP = Check("zero_pp", "ZeRO stage the framework does not run with pp > 1", _zero_pp)
FSDP_ZERO = Check("fsdp_zero", "ZeRO stage PyTorch FSDP does not run", _fsdp_zero)
MEMORY = Check("memory", "does not fit in GPU memory", _memory)

CHECKS: tuple[Check, ...] = (  # type: ignore[type-arg]
    TP_DOMAIN,
    HEADS_TP,
    FFN_TP,
    LAYERS_PP,
    SEQ_CP,
    EP_DP_CP,
    BATCH_MB_DP,
    INTERLEAVED_MB,
    MOE_SP,
    SEQ_TP,
    ZERO_PP,
    FSDP_ZERO,
    MEMORY,
)
