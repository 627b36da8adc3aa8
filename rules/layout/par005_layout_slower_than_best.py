"""Declared parallel layout much slower than the best valid layout on the same GPUs.

## What it does
Runs the layout search of `dclint plan` for each workload whose architecture is declared
(layers, hidden size, vocabulary): every tp, pp, vpp, cp, ep and dp on the workload's GPUs,
micro-batch 1-8, recomputation none/selective/full, sequence parallelism, and the optimizer
replicated, distributed (ZeRO stage 1) or ZeRO stage 2 or 3, keeping the layouts that pass
PAR002-PAR004's conditions, each timed with dclint's step-time model
(docs/performance-model.md). Flags a declared layout whose predicted step is more than
`max_gap` (default 10%) slower than the best one's; the message gives its rank, the gap, the
part of the step where it loses most time, and the best layout. A declared layout that breaks
PAR001-PAR004 is left to those rules.

The search costs from a tenth of a second (a 13B model on 320 GPUs) to seconds (an MoE on
thousands of GPUs) a workload, so the rule runs only when asked: `dclint check
--layout-search`, or `search` set in a config given with `--config` (`PAR005 = { search =
true }`); `dclint plan` and `dclint review` always run it. A config found by search (not named
on the command line) may not turn it on: a repository's file could otherwise make every check
run for minutes; the rule then says, as an info finding, that the search did not run. So it
does for a workload whose search would examine more than dclint's bound of 3,000,000 layouts
(some 30 s on one core).

## Why it matters
The layout is a lever on training time that costs nothing to pull: Narayanan et al. 2021
(Megatron-LM, section 5) measure large throughput differences between tensor/pipeline splits
and micro-batch sizes of one model on the same GPUs. A layout a tenth slower than the best
wastes a tenth of the cluster for the whole run. The 10% default is dclint's own: about the
step-time model's mean absolute error on its 164 calibration runs (8.6%: the Megatron family's
89 runs 10.1%, the PyTorch-native 75 6.8%; docs/performance-model.md), so a gap above it is
more than the model's typical error on one run, and both steps come from the one model, so
their gap is firmer than either figure (the message quotes the calibration band). A
layout counts as valid only with `reserve` (default 10%, as PAR004's: dclint's own default for
the memory the estimate leaves out, see PAR004) of GPU memory free.

Sources: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC 2021.

## Example
On 64 H100 (rules/layout/examples/par005/bad.yaml, its eight HGX nodes in two racks):
```yaml
workloads:
  - id: tp8-mb1
    model: {parameters: 13e9, layers: 40, hidden_size: 5120, attention_heads: 40,
            ffn_hidden_size: 13824, vocab_size: 32000, swiglu: true}
    tokens: 260e9
    sequence_length: 4096
    global_batch: 512
    gpus: 64
    parallel: {tp: 8, pp: 1}  # PAR005: 35.4% slower than the best, tp 2, pp 1, micro-batch 4
```

## Fix
Run `dclint plan DESIGN --workload ID`: it prints the best layouts and the best one as `--set`
flags to paste (or to copy into the workload's `parallel`, `micro_batch` and `recompute`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    MEMORY_RESERVE,
    Change,
    Context,
    Design,
    Option,
    Remedy,
    Share,
    Violation,
    fmt_factors,
    rule,
)
from dclint.units import Q_, fmt

from ._shared import LayoutRule

if TYPE_CHECKING:
    from dclint.api import Candidate, Finding, Projection


@rule(
    "PAR005",
    "layout-slower-than-best",
    severity="warning",
    tags=("parallel", "performance"),
    consequence="performance",
)
class LayoutSlowerThanBest(LayoutRule):
    shares = {"memory_reserve": "reserve"}
    options = {
        "max_gap": Option("10%", Share, "How much slower than the best layout a layout may be"),
        "reserve": Option(
            f"{MEMORY_RESERVE:.0%}", Share, "GPU memory kept free, as PAR004's reserve"
        ),
        "search": Option(
            False,
            bool,
            "Run the layout search during check (only from --config; or --layout-search)",
            costly=True,
        ),
    }

    @classmethod
    def inapplicable(cls, design: Design, options: dict[str, Any] | None = None) -> str:
        if options is not None and not options.get("search"):
            return (
                "the layout search is off (--layout-search, or PAR005 search = true in a "
                "--config file; dclint review runs it)"
            )
        return super().inapplicable(design, options)

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """The layout search's best layout: its step over the declared layout's scales the run
        of the workload at fault."""
        from dclint.api import best_ratio

        if projection.timing.prediction is None or finding.subject != projection.workload:
            return None
        if finding.severity == "info":  # the search did not run: nothing to price
            return None
        ratio = best_ratio(design, design.workloads[projection.index], options)
        return Remedy(running=ratio) if ratio is not None else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        if not ctx["search"]:
            if "search" in ctx.withheld:
                yield from _withheld(design, ctx.withheld["search"])
            return
        from dclint.api import (
            SearchRefused,
            layout_values,
            loses_on,
            ordinal,
            plan_layouts,
            set_line,
        )

        max_gap = ctx["max_gap"].m_as("")
        reserve = ctx["reserve"].m_as("")
        for i, wl in enumerate(design.workloads):
            plan = plan_layouts(design, wl, reserve=reserve, rank_only=True)
            if isinstance(plan, SearchRefused):
                yield Violation(
                    ("workloads", i, "gpus"),
                    f"workload {wl.id}: layout search not run: {plan}",
                    subject=wl.id,
                    severity="info",
                    fix="PAR001-PAR004 still check the declared layout; `dclint plan DESIGN "
                    f"--workload {wl.id} --gpus N` ranks layouts on a smaller GPU count",
                )
                continue
            if isinstance(plan, str) or not plan.result.valid or plan.declared_reason:
                continue
            gap = plan.gap()
            if gap <= max_gap:
                continue
            d, best = plan.declared, plan.result.valid[0]
            limit = Q_(best.step_time * (1 + max_gap), "s")
            yield Violation(
                ("workloads", i, "parallel"),
                f"workload {wl.id}: layout {_name(d)} ranks {ordinal(plan.declared_rank)} of "
                f"{plan.result.valid_count:,} valid layouts on {wl.gpus:,} GPUs, "
                f"{gap:.1%} slower than the best ({fmt(Q_(d.step_time, 's'), 's')} against "
                f"{fmt(Q_(best.step_time, 's'), 's')} a step, predicted{_band(plan)}"
                f"{_used(plan)}); "
                "it loses most on "
                f"{loses_on(d, best)}; best: {_name(best)}",
                subject=wl.id,
                measured=Q_(d.step_time, "s"),
                limit=limit,
                fix=f"run the best layout ({set_line(wl.id, best, wl.gpus)}); "
                f"`dclint plan DESIGN --workload {wl.id}` lists the others",
                changes=tuple(
                    Change(
                        value,
                        f"workload {wl.id} {key}: {value} (the best layout; the declared one "
                        f"is {gap:.1%} slower a step, predicted)"
                        if key == "parallel"
                        else f"workload {wl.id} {key}: {value}",
                        path=("workloads", i, key),
                    )
                    for key, value in layout_values(best, wl.gpus).items()
                ),
            )


def _used(plan: Any) -> str:
    """'; at your declared MFU 30%: 9.072 s against 6.698 s' where the design declares its MFU
    (the review's figures, `Plan.used`); '' where the step model's MFU is the run's."""
    if plan.terms.mfu is None:
        return ""
    mine, best = plan.used(plan.declared)[0], plan.used(plan.result.valid[0])[0]
    return (
        f"; at your declared MFU {plan.terms.mfu * 100:.4g}%: {fmt(Q_(mine, 's'), 's')} "
        f"against {fmt(Q_(best, 's'), 's')}"
    )


def _withheld(design: Design, where: str) -> Iterator[Violation]:
    """An info finding on each workload the search would have run on (its architecture
    declared): the config found by search that turned it on may not."""
    for i, wl in enumerate(design.workloads):
        m = wl.model
        if m.layers is None or m.hidden_size is None or m.vocab_size is None:
            continue
        yield Violation(
            ("workloads", i),
            f"workload {wl.id}: layout search not run: {where} turns it on (search = true), "
            "but that config was found by search, not named with --config, and may not start "
            "work that can run for minutes",
            subject=wl.id,
            severity="info",
            fix="pass --layout-search to run it, or name the config with --config",
        )


def _name(c: Candidate) -> str:
    return (
        f"tp {c.tp}, pp {c.pp}, vpp {c.vpp}, cp {c.cp}, ep {c.ep}, dp {c.dp}, micro-batch "
        f"{c.micro_batch}, recompute {c.recompute}, sequence parallel "
        f"{'on' if c.sequence_parallel else 'off'}, optimizer {c.optimizer}"
    )


def _band(plan: Any) -> str:
    """'; calibration band <low>-<high>x' (the GPU generation's, uncertainty.BANDS): measured
    over predicted step times, the 80% prediction interval over the publications of this GPU
    generation's calibration runs. Both steps
    come from the one model, so the gap between them is firmer than either figure; the band says how
    far either may be from a measured step. The declared layout's band, as `dclint plan` and `cost`
    give it (its GPU count and context parallelism: PyTorch's beyond 2 ranks takes the envelope)."""
    b = plan.band(plan.declared)
    if b is None:
        return ""
    # short: the review's executive summary quotes the message whole (the runs behind the
    # band are in the workload's `uncertainty` in JSON and its assumptions). The factors as
    # the band table holds them, to 3 places
    band = f"; calibration band {fmt_factors(b.low_factor, b.high_factor)}x"
    if b.outside:  # the envelope of every calibration run, and why
        band += f" (outside the calibration domain: {'; '.join(b.outside)})"
    return band
