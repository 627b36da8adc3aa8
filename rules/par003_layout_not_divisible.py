"""Parallel layout that does not divide the model, sequence or batch evenly.

## What it does
Checks the divisibility conditions Megatron-Core asserts at start-up, one finding per broken
condition, at the field to change:

- layers divisible by pp, and by pp x vpp when interleaved (vpp > 1)      -> `pp` / `vpp`
- attention heads, and query groups (GQA), divisible by tp              -> `tp`
- sequence length divisible by 2 x cp when cp > 1 (load-balanced CP)    -> `cp`
- global batch divisible by micro batch x dp                            -> `global_batch`
- experts divisible by ep, and ep dividing dp x cp                      -> `ep`

dp is the declared one, else gpus / (tp x pp x cp) when that is whole (PAR001 covers the
rest). Conditions on model fields the workload leaves out are skipped.

## Why it matters
Each of these makes Megatron stop at initialisation, after the allocation has started: pipeline
stages need whole layers, tensor-parallel ranks whole heads and query groups, context
parallelism splits each sequence into 2 x cp chunks for load balance, every data-parallel
rank takes whole micro batches, and expert-parallel groups are carved from the dp x cp ranks
(Megatron-Core parallel-state conventions; DOMAIN.md).

## Example
```yaml
workloads:
  - id: llm
    model: {parameters: 70e9, layers: 80, attention_heads: 64}
    gpus: 48
    parallel: {tp: 8, pp: 3}   # PAR003: 80 layers over 3 stages
```

## Fix
Pick pp, vpp, tp, cp and ep that divide the model's layers, heads, query groups, experts and
sequence length, and a global batch that is a multiple of micro batch x dp.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.model.source import Path
from dclint.model.workload import Workload


class LayoutNotDivisible(Rule):
    id = "PAR003"
    name = "layout-not-divisible"
    severity = "error"
    tags = ("parallel",)
    options = {}

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for i, wl in enumerate(design.workloads):
            for field, value, divisor, text in _conditions(wl):
                if value % divisor == 0:
                    continue
                path: Path = (
                    ("workloads", i, field)
                    if field == "global_batch"
                    else ("workloads", i, "parallel", field)
                )
                yield Violation(
                    path,
                    f"workload {wl.id}: {text} ({value} = {divisor} x {value // divisor} + "
                    f"{value % divisor})",
                    subject=wl.id,
                    measured=float(value),
                    limit=float(divisor),
                    fix="choose parallel sizes that divide the model, sequence and batch",
                )


def _conditions(wl: Workload) -> Iterator[tuple[str, int, int, str]]:
    """(field at fault, value, divisor, what breaks) for each condition that applies."""
    m, p = wl.model, wl.parallel
    if m.layers is not None:
        if m.layers % p.pp:
            yield "pp", m.layers, p.pp, f"{m.layers} layers do not split over pp {p.pp} stages"
        elif p.vpp > 1:
            stages = p.pp * p.vpp
            text = f"{m.layers} layers do not split over pp {p.pp} x vpp {p.vpp} = {stages} chunks"
            yield "vpp", m.layers, stages, text
    if m.attention_heads is not None:
        yield (
            "tp",
            m.attention_heads,
            p.tp,
            (f"{m.attention_heads} attention heads do not split over tp {p.tp}"),
        )
    if m.query_groups is not None:
        yield (
            "tp",
            m.query_groups,
            p.tp,
            f"{m.query_groups} query groups do not split over tp {p.tp}",
        )
    if p.cp > 1:
        yield (
            "cp",
            wl.sequence_length,
            2 * p.cp,
            (
                f"sequence length {wl.sequence_length} tokens does not split into 2 x cp "
                f"{p.cp} = {2 * p.cp} chunks"
            ),
        )
    base = p.tp * p.pp * p.cp
    dp = p.dp if p.dp is not None else (wl.gpus // base if wl.gpus % base == 0 else None)
    if wl.global_batch is not None and dp is not None:
        per_step = wl.micro_batch * dp
        yield (
            "global_batch",
            wl.global_batch,
            per_step,
            (
                f"global batch {wl.global_batch} sequences is not a multiple of micro batch "
                f"{wl.micro_batch} x dp {dp} = {per_step} sequences"
            ),
        )
    if p.ep > 1:
        if m.experts is not None:
            yield "ep", m.experts, p.ep, f"{m.experts} experts do not split over ep {p.ep}"
        if dp is not None:
            yield (
                "ep",
                dp * p.cp,
                p.ep,
                (f"ep {p.ep} does not divide dp {dp} x cp {p.cp} = {dp * p.cp} ranks"),
            )
