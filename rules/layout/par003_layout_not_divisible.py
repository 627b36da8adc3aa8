"""Parallel layout that breaks one of Megatron-Core's start-up checks on model, sequence or batch.

## What it does
Checks the conditions Megatron-Core's argument checks and TransformerConfig enforce at
start-up, one finding per broken condition, at the field to change:

- pipeline: layers divisible by pp, and each stage's layers by vpp when interleaved; with
  `account_for_embedding_in_pipeline_split` / `account_for_loss_in_pipeline_split` (Megatron-
  Core's flags of those names) the embedding and the loss count as one layer each, so 126
  layers + embedding + loss = 128 split over pp 8 x vpp 8 (NVIDIA's Llama 3.1 405B recipe);
  with uneven stages (`first_stage_layers`, `last_stage_layers`, Megatron's
  --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers), which take
  precedence over those flags in Megatron-Core's check, the remaining layers split evenly over
  the middle stages, and each stage's layers by vpp  -> `pp`, `vpp`, `first_stage_layers`;
  TorchTitan (`framework: torchtitan`) splits layers that do not divide over its stages
  itself (`generate_split_points`: 126 layers on pp 8 as 15, 16 x 6, 15), so only more
  stages than layers is an error for it (`framework_split`)                    -> `pp`
- interleaving (vpp > 1) needs pp > 1                                          -> `vpp`
- attention heads and query groups (GQA) divisible by tp; hidden size by heads -> `tp`
- `ffn_hidden_size` divisible by tp: the MLP's column- and row-parallel linear layers split
  it over the tp ranks (Megatron-Core `tensor_parallel.layers`, `divide()` asserts it); in an
  MoE model it is each expert's FFN, split over the expert tensor-parallel ranks, which
  dclint takes as tp (Megatron-Core's default `--expert-tensor-parallel-size`) -> `tp`
- sequence length divisible by 2 x cp under context parallelism (load-balanced chunks), and
  the tokens each cp rank holds (sequence / cp) by tp under sequence parallelism (on by
  default with tp > 1)                                                         -> `cp`, `tp`
- global batch divisible by micro batch x dp                                   -> `global_batch`
- interleaving (vpp > 1): at least pp micro-batches a step (global batch / (micro batch x
  dp)): Megatron-Core's interleaved schedule takes `microbatch_group_size_per_vp_stage` in
  [pp, m] (its default, pp, needs m a multiple of pp, as Megatron-LM 2021 did)
                                                                   -> `global_batch`
- experts divisible by ep, ep dividing dp x cp, and sequence parallelism on when an MoE
  model runs with tp > 1                                            -> `ep`, `sequence_parallel`
- with `framework: deepspeed` and pp > 1, `zero_stage` 0 or 1: DeepSpeed's pipeline engine
  asserts that ZeRO-2 and ZeRO-3 "are incompatible with pipeline parallelism"
  (deepspeed/runtime/pipe/engine.py)                                     -> `zero_stage`

dp is the declared one, else gpus / (tp x pp x cp) when that is whole (PAR001 covers the
rest). Conditions on model fields the workload leaves out are skipped.

## Why it matters
Each of these makes Megatron stop at initialisation, after the allocation has started:
pipeline stages need whole layers and whole virtual chunks, tensor-parallel ranks whole heads,
query groups and FFN columns (Megatron-Core's `divide()` in its parallel linear layers),
sequence parallelism scatters each sequence over the tp ranks, context parallelism splits it
into 2 x cp chunks for load balance, every data-parallel rank takes whole micro batches, and
expert-parallel groups are carved from the dp x cp ranks
(Megatron-LM `megatron/training/arguments.py` validate_args and Megatron-Core
TransformerConfig).

Sources: Megatron-LM, megatron/training/arguments.py validate_args; Megatron-Core
TransformerConfig.

## Example
```yaml
workloads:
  - id: llm
    model: {parameters: 70e9, layers: 80, attention_heads: 64}
    gpus: 48
    parallel: {tp: 8, pp: 3}   # PAR003: 80 layers over 3 stages
```

## Fix
Pick pp, vpp, tp, cp and ep that divide the model's layers, heads, query groups, FFN hidden
size, experts and sequence length (or declare uneven first and last stages), and a global
batch that is a multiple of micro batch x dp.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    BATCH_MB_DP,
    EP_DP_CP,
    FFN_TP,
    HEADS_TP,
    INTERLEAVED_MB,
    LAYERS_PP,
    MOE_SP,
    PIPELINE_ZERO,
    SEQ_CP,
    SEQ_TP,
    ZERO_PP,
    Context,
    Design,
    Violation,
    Workload,
    framework_split,
    rule,
)
from dclint.api import DesignPath as Path

from ._shared import LayoutRule

# (path below the workload, measured, limit, what breaks) of one broken condition
Broken = tuple[tuple[str, ...], float, float, str]


@rule("PAR003", "layout-not-divisible", consequence="cannot-run")
class LayoutNotDivisible(LayoutRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for i, wl in enumerate(design.workloads):
            for where, measured, limit, text in _broken(wl):
                path: Path = ("workloads", i, *where)
                yield Violation(
                    path,
                    f"workload {wl.id}: {text}",
                    subject=wl.id,
                    measured=measured,
                    limit=limit,
                    fix="choose parallel sizes that divide the model, sequence and batch",
                )


def _split(value: int, divisor: int) -> str:
    return f"({value} = {divisor} x {value // divisor} + {value % divisor})"


def _broken(wl: Workload) -> Iterator[Broken]:
    yield from _pipeline(wl)
    yield from _tensor_and_sequence(wl)
    yield from _batch_and_experts(wl)
    p = wl.parallel
    if ZERO_PP(p.pp, p.sharding, PIPELINE_ZERO[wl.software_in_effect.framework]):
        text = (
            f"DeepSpeed runs ZeRO stage {p.sharding} only without pipeline parallelism "
            f"(pp {p.pp}): its pipeline engine takes ZeRO stage 0 or 1"
        )
        yield ("parallel", "zero_stage"), float(p.sharding), 1.0, text


def _pipeline(wl: Workload) -> Iterator[Broken]:
    layers, p = wl.model.layers, wl.parallel
    if p.vpp > 1 and p.pp == 1:
        yield ("parallel", "vpp"), float(p.vpp), 1.0, "vpp > 1 (interleaving) needs pp > 1"
    if layers is None:
        return
    ends = [(n, v) for n, v in (("first", p.first_stage_layers), ("last", p.last_stage_layers))]
    declared = [(n, v) for n, v in ends if v is not None]
    framework = wl.software_in_effect.framework
    split = framework_split(framework, layers + p.split_extra, p.pp * p.vpp)
    if not declared and split is not None:
        # TorchTitan splits uneven layers itself; it refuses more stages than layers
        if not split:
            stages = p.pp * p.vpp
            text = (
                f"{layers} layers cannot fill pp {p.pp} x vpp {p.vpp} = {stages} stages "
                f"({framework} needs a layer a stage)"
            )
            yield ("parallel", "pp"), float(layers), float(stages), text
        return
    if not declared:
        # the embedding and the loss count as one layer each when their flags are set
        slots = layers + p.split_extra
        counted = f"{layers} layers" + "".join(
            f" + {name}"
            for name, on in (
                ("embedding", p.account_for_embedding_in_pipeline_split),
                ("loss", p.account_for_loss_in_pipeline_split),
            )
            if on
        )
        if p.split_extra:
            counted += f" = {slots} slots"
        if LAYERS_PP(slots, p.pp):
            text = f"{counted} do not split over pp {p.pp} stages {_split(slots, p.pp)}"
            yield ("parallel", "pp"), float(slots), float(p.pp), text
        elif LAYERS_PP(slots, p.pp, p.vpp):
            stages = p.pp * p.vpp
            text = (
                f"{counted} do not split over pp {p.pp} x vpp {p.vpp} = {stages} chunks "
                f"{_split(slots, stages)}"
            )
            yield ("parallel", "vpp"), float(slots), float(stages), text
        return
    field = ("parallel", f"{declared[0][0]}_stage_layers")
    middle_stages = p.pp - len(declared)
    rest = layers - sum(v for _, v in declared if v is not None)
    named = " and ".join(f"{v} layers on the {n} stage" for n, v in declared)
    if middle_stages < 0 or rest < 0 or (middle_stages == 0 and rest != 0):
        text = (
            f"{named} leave {rest} of {layers} layers for {max(middle_stages, 0)} other "
            f"stages of pp {p.pp}"
        )
        yield field, float(rest), float(max(middle_stages, 0)), text
        return
    if middle_stages and rest % middle_stages:
        text = (
            f"with {named}, the other {rest} layers do not split over the {middle_stages} "
            f"middle stages {_split(rest, middle_stages)}"
        )
        yield ("parallel", "pp"), float(rest), float(middle_stages), text
        return
    if p.vpp > 1:
        counts = [(f"{n} stage", v) for n, v in declared if v is not None]
        if middle_stages:
            counts.append(("middle stages", rest // middle_stages))
        for name, count in counts:
            if count % p.vpp:
                text = f"{count} layers of the {name} do not split into vpp {p.vpp} chunks"
                yield ("parallel", "vpp"), float(count), float(p.vpp), text


def _tensor_and_sequence(wl: Workload) -> Iterator[Broken]:
    m, p = wl.model, wl.parallel
    for name, value in (("attention heads", m.attention_heads), ("query groups", m.query_groups)):
        if value is not None and HEADS_TP(p.tp, value):
            text = f"{value} {name} do not split over tp {p.tp} {_split(value, p.tp)}"
            yield ("parallel", "tp"), float(value), float(p.tp), text
    ffn = m.ffn_hidden_size
    if ffn is not None and FFN_TP(p.tp, ffn):
        what = (
            f"expert FFN hidden size {ffn} does not split over the expert tensor-parallel "
            f"ranks, tp {p.tp} (Megatron-Core's default expert tensor parallelism)"
            if m.experts
            else f"FFN hidden size {ffn} does not split over tp {p.tp}"
        )
        yield ("parallel", "tp"), float(ffn), float(p.tp), f"{what} {_split(ffn, p.tp)}"
    h, a = m.hidden_size, m.attention_heads
    if h is not None and a is not None and h % a:
        text = f"hidden size {h} is not a multiple of {a} attention heads {_split(h, a)}"
        yield ("model", "hidden_size"), float(h), float(a), text
    seq = wl.sequence_length
    if SEQ_CP(seq, p.cp):
        text = (
            f"sequence length {seq} tokens does not split into 2 x cp {p.cp} = {2 * p.cp} "
            f"chunks {_split(seq, 2 * p.cp)}"
        )
        yield ("parallel", "cp"), float(seq), float(2 * p.cp), text
    elif SEQ_TP(seq, p.cp, p.tp, p.sequence_parallel_on):
        per_rank = seq // p.cp
        held = (
            f"the {per_rank} tokens of each cp rank do"
            if p.cp > 1
            else f"sequence length {seq} tokens does"
        )
        default = "" if p.sequence_parallel is not None else " (on by default with tp > 1)"
        text = (
            f"{held} not split over tp {p.tp} under sequence parallelism{default} "
            f"{_split(per_rank, p.tp)}"
        )
        yield ("parallel", "tp"), float(per_rank), float(p.tp), text


def _batch_and_experts(wl: Workload) -> Iterator[Broken]:
    m, p = wl.model, wl.parallel
    base = p.tp * p.pp * p.cp
    dp = p.dp if p.dp is not None else (wl.gpus // base if wl.gpus % base == 0 else None)
    if wl.global_batch is not None and dp is not None:
        per_step = wl.micro_batch * dp
        if BATCH_MB_DP(wl.global_batch, wl.micro_batch, dp):
            text = (
                f"global batch {wl.global_batch} sequences is not a multiple of micro batch "
                f"{wl.micro_batch} x dp {dp} = {per_step} sequences "
                f"{_split(wl.global_batch, per_step)}"
            )
            yield ("global_batch",), float(wl.global_batch), float(per_step), text
        elif INTERLEAVED_MB(wl.global_batch, wl.micro_batch, dp, p.pp, p.vpp):
            micro = wl.global_batch // per_step
            text = (
                f"global batch {wl.global_batch} sequences gives {micro} micro-batches a step "
                f"(micro batch {wl.micro_batch} x dp {dp}), fewer than pp {p.pp}: the "
                f"interleaved schedule (vpp {p.vpp}) runs groups of at least pp micro-batches"
            )
            yield ("global_batch",), float(micro), float(p.pp), text
    if MOE_SP(m.experts or 0, p.tp, p.sequence_parallel_on):
        text = f"an MoE model with tp {p.tp} needs sequence parallelism, declared off"
        yield ("parallel", "sequence_parallel"), 0.0, 1.0, text
    if p.ep == 1:
        return
    if m.experts is not None and m.experts % p.ep:
        text = f"{m.experts} experts do not split over ep {p.ep} {_split(m.experts, p.ep)}"
        yield ("parallel", "ep"), float(m.experts), float(p.ep), text
    sw = wl.software_in_effect
    if dp is not None and sw.moe_parallel_folding:
        et = sw.expert_tp or p.tp
        if EP_DP_CP(p.ep, dp, p.cp, p.tp, et):
            ranks, group = p.tp * dp * p.cp, et * p.ep
            text = (
                f"expert tp {et} x ep {p.ep} = {group} does not divide tp {p.tp} x dp {dp} x "
                f"cp {p.cp} = {ranks} ranks (MoE parallel folding) {_split(ranks, group)}"
            )
            yield ("parallel", "ep"), float(ranks), float(group), text
    elif dp is not None and EP_DP_CP(p.ep, dp, p.cp):
        ranks = dp * p.cp
        text = (
            f"ep {p.ep} does not divide dp {dp} x cp {p.cp} = {ranks} ranks {_split(ranks, p.ep)}"
        )
        yield ("parallel", "ep"), float(ranks), float(p.ep), text
