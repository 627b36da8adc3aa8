"""`dclint plan DESIGN --workload W`: the layout search's result as cells, sentences and data
(drawn by dclint.report.plan)."""

from __future__ import annotations

from typing import Any

from dclint.figures import percent
from dclint.projection.search.plan import Plan, loses_on, ordinal, set_line
from dclint.projection.search.records import Candidate
from dclint.units import Q_, Quantity, days_quoted, fmt

__all__ = [
    "as_data",
    "band_sentence",
    "best_ceiling_sentence",
    "best_flags",
    "ceiling_sentence",
    "days_sentence",
    "declared_sentence",
    "table",
    "used_sentence",
]

HEAD = (
    "rank", "tp", "pp", "vpp", "cp", "ep", "dp", "mb", "recompute", "SP", "optimizer",
    "step", "MFU", "memory/GPU", "days", "cost",
)  # fmt: skip


def _row(plan: Plan, rank: int, c: Candidate) -> list[str]:
    cost = plan.cost(c)
    return [
        str(rank), str(c.tp), str(c.pp), str(c.vpp), str(c.cp), str(c.ep), str(c.dp),
        str(c.micro_batch), c.recompute, "on" if c.sequence_parallel else "off", c.sharding,
        fmt(Q_(c.step_time, "s"), "s"), percent(plan.mfu(c)),
        fmt(Q_(c.memory, "B").to("GiB"), "GiB"), days_quoted(plan.days(c), plan.days_band(c)),
        "-" if cost is None else fmt(cost),
    ]  # fmt: skip


def declared_sentence(plan: Plan) -> str:
    """ "your layout (tp 8, ...) is 3,147th of 25,044, 36.6% slower than the best; it loses on
    compute": the plan's and the review's sentence (the count is the search's, which times
    only what can beat the declared layout)."""
    d, valid = plan.declared, plan.result.valid
    where = f"tp {d.tp}, pp {d.pp}, vpp {d.vpp}, cp {d.cp}, ep {d.ep}, dp {d.dp}"
    text = f"your layout ({where}) "
    if plan.declared_reason is not None:
        text += f"is not among the valid ones ({plan.declared_reason}); it would rank "
    else:
        text += "is "
    text += f"{ordinal(plan.declared_rank)} of {plan.result.valid_count:,}"
    what = "dearer" if plan.by == "cost" else "slower"
    if not valid or plan.gap() <= 0:
        return text + ", as fast as the best"
    return f"{text}, {plan.gap():.1%} {what} than the best; it loses on {loses_on(d, valid[0])}"


def ceiling_sentence(plan: Plan, top: int) -> str | None:
    """What `dclint plan` prints above the best MFU the calibration runs of the GPU generation
    and class published, in one sentence: the listed layouts whose predicted MFU is above it,
    and the best layout at the declared MFU (`Plan.used`) where that is (None when neither is).
    The plan said the second in a sentence of its own beside the first."""
    if plan.ceiling is None:
        return None
    best, run = plan.ceiling
    valid = plan.result.valid
    above = [c for c in valid[:top] if plan.above_ceiling(c)]
    parts = []
    if above:
        top_mfu = max(plan.mfu(c) for c in above)
        verb = "predicts" if len(above) == 1 else "predict"
        parts.append(
            f"{len(above)} of the layouts listed {verb} more than {percent(best)} MFU "
            f"(up to {percent(top_mfu)})"
        )
    declared = plan.terms.mfu
    if declared is not None and valid and plan.used_above_ceiling(valid[0]):
        carried = percent(plan.used(valid[0])[1])
        parts.append(
            f"your declared MFU {percent(declared)} carried to the best layout comes to "
            f"{carried}" + ("" if above else f", more than {percent(best)} MFU")
        )
    if not parts:
        return None
    return (
        "outside what dclint has seen measured: " + ", and ".join(parts) + f"; {percent(best)} is "
        f"the best MFU any calibration run of this GPU generation and class published ({run}): "
        f"read {'them' if above else 'it'} as a ranking, not as a throughput to expect"
    )


def best_ceiling_sentence(plan: Plan) -> str | None:
    """The best layout's MFU, as the review quotes it (at the declared MFU where the design
    declares one, `Plan.used`), above the best MFU the calibration runs of its GPU generation
    and class published, in words, for a document that recommends it; None when it is not
    above (or no calibration run covers the class)."""
    valid = plan.result.valid
    if not valid or plan.ceiling is None or not plan.used_above_ceiling(valid[0]):
        return None
    top, run = plan.ceiling
    mfu = plan.used(valid[0])[1]  # as the review's table and `used_sentence` print it
    what, shown = (
        ("predicted MFU", percent(mfu))
        if plan.terms.mfu is None
        else ("MFU at your declared MFU", percent(mfu))
    )
    return (
        f"outside what dclint has seen measured: the best layout's {what}, "
        f"{shown}, is above {percent(top)}, the best MFU any calibration run "
        f"of this GPU generation and class published ({run}); read it as a ranking, not as a "
        "throughput to expect"
    )


def used_sentence(plan: Plan) -> str | None:
    """Where the design declares its MFU, the declared and the best layout at that MFU beside
    the step model's figures, each labelled (`Plan.used`: the review's rows, PAR005's second
    pair); None where the step model's MFU is the run's. Where the best's MFU at the declared
    MFU is above what calibration has measured, `ceiling_sentence` (the plan) and
    `best_ceiling_sentence` (the review) say so, once."""
    valid = plan.result.valid
    if plan.terms.mfu is None or not valid:
        return None
    d, best = plan.declared, valid[0]
    d_step, _, d_days, _ = plan.used(d)
    b_step, b_mfu, b_days, _ = plan.used(best)
    return (
        f"at your declared MFU {percent(plan.terms.mfu)}: your layout "
        f"{fmt(Q_(d_step, 's'), 's')} a step, {fmt(d_days, 'day')}; the best "
        f"{fmt(Q_(b_step, 's'), 's')} a step, MFU {percent(b_mfu)}, {fmt(b_days, 'day')} "
        f"(the step model's: {fmt(Q_(d.step_time, 's'), 's')} and "
        f"{fmt(Q_(best.step_time, 's'), 's')} a step, the best at MFU {percent(plan.mfu(best))}, "
        "as dclint plan lists them)"
    )


def days_sentence(plan: Plan) -> str:
    """How a layout's days are counted, with the declared run's terms as `dclint cost` names
    them: 'days: steps x predicted step, + batch ramp-up (the declared run's 0.7645 d, 0.72%
    of its steps) + evaluations (0.7917 d), x checkpoints and failures (the declared run's
    +1.62%) ...'."""
    terms = plan.terms
    ramp = (
        f"the declared run's {fmt(Q_(terms.rampup, 'day'), 'day')}, "
        f"{terms.ramp_share:.2%} of its steps"
        if terms.ramp_share
        else "none declared"
    )
    evaluation = fmt(Q_(terms.evaluation, "day"), "day") if terms.evaluation else "none declared"
    return (
        f"days: steps x predicted step, + batch ramp-up ({ramp}) + evaluations ({evaluation}), "
        f"x checkpoints and failures (the declared run's +{plan.overhead - 1:.2%}), as "
        "`dclint cost` counts them; cost: GPU-days x that run's cost a GPU-day"
    )


def band_sentence(plan: Plan, top: int) -> str | None:
    """Where the days' bands of the `top` layouts come from, each band once: 'days' band: an 80%
    prediction interval of measured over predicted step time, for a run on a setup other than
    dclint's calibration sources (random effects over 72 runs from 8 published Hopper benchmarks),
    ...', and for a layout outside the calibration domain (its GPU count, PyTorch context parallel
    beyond 2) why it is the envelope, as `dclint cost`'s assumptions say it; None without a band."""
    said: list[str] = []
    for c in plan.result.valid[:top]:
        band = plan.band(c)
        if band is not None and band.source not in said:
            said.append(band.source)
    if not said:
        return None
    return "days' band: " + "; ".join(said)


def best_flags(plan: Plan) -> str | None:
    """The best layout as `dclint plan` flags (`--set workloads...`), None when none is valid."""
    valid = plan.result.valid
    return set_line(plan.workload, valid[0], plan.gpus) if valid else None


def _band_days(band: tuple[Quantity, Quantity] | None) -> list[float] | None:
    """A days' band as JSON: [low, high] in days (as `training_days_band`), or None."""
    return None if band is None else [band[0].m_as("day"), band[1].m_as("day")]


def as_data(plan: Plan, top: int) -> dict[str, Any]:
    def used(c: Candidate) -> dict[str, Any] | None:
        """`c` at the MFU the design declares (`Plan.used`), None where the model's is used."""
        if plan.terms.mfu is None:
            return None
        step, mfu, days, cost = plan.used(c)
        return {
            "step_time_s": step,
            "mfu": mfu,
            "days": days.m_as("day"),
            "cost": None if cost is None else float(cost.magnitude),
            "above_calibrated_mfu": plan.used_above_ceiling(c),
        }

    def layout(c: Candidate) -> dict[str, Any]:
        cost = plan.cost(c)
        return {
            "tp": c.tp, "pp": c.pp, "vpp": c.vpp, "cp": c.cp, "ep": c.ep, "dp": c.dp,
            "gpus": c.world, "micro_batch": c.micro_batch, "recompute": c.recompute,
            "sequence_parallel": c.sequence_parallel, "optimizer": c.optimizer,
            "fsdp": None if c.reshard is None else {
                "reshard_after_forward": c.reshard, "shard_group": c.shard_group,
            },
            "step_time_s": c.step_time, "mfu": plan.mfu(c),
            "memory_per_gpu_gib": Q_(c.memory, "B").m_as("GiB"),
            "days": plan.days(c).m_as("day"),
            "days_band": _band_days(plan.days_band(c)),
            "rampup_days": plan.rampup(c).m_as("day"),
            "cost": None if cost is None else float(cost.magnitude),
            "currency": None if cost is None else f"{cost.units:~}",
            "breakdown_s": c.step.parts(),
            "above_calibrated_mfu": plan.above_ceiling(c),
            "at_declared_mfu": used(c),
        }  # fmt: skip

    valid = plan.result.valid
    return {
        "design": plan.design,
        "workload": plan.workload,
        "candidates": plan.result.candidates,
        "valid": len(valid),
        "layouts": [layout(c) for c in valid[:top]],
        "declared": {
            **layout(plan.declared),
            "rank": plan.declared_rank,
            "gap": plan.gap(),
            "valid": plan.declared_reason is None,
            "reason": plan.declared_reason,
            "loses_on": loses_on(plan.declared, valid[0]) if valid else None,
        },
        "calibrated_mfu": (
            None if plan.ceiling is None else {"mfu": plan.ceiling[0], "run": plan.ceiling[1]}
        ),
        "ceiling_note": ceiling_sentence(plan, top),
        "band_note": band_sentence(plan, top),
        "declared_mfu": plan.terms.mfu,
        "evaluation_days": plan.terms.evaluation,
        "overhead": plan.overhead,
        "rejected": plan.result.rejected,
        "set": set_line(plan.workload, valid[0], plan.gpus) if valid else None,
    }


def table(plan: Plan, top: int) -> tuple[str, list[str], list[list[str]], list[str]]:
    """The search as a titled table for a document: title, head, rows, and the sentences
    under it (where the declared layout ranks, the best as flags, how days are counted)."""
    valid = plan.result.valid
    worlds = sorted({c.world for c in valid}) or [plan.gpus]
    on = " or ".join(f"{w:,}" for w in worlds)
    title = (
        f"Layouts for workload {plan.workload} of {plan.design} on {on} GPUs: "
        f"{plan.result.candidates:,} candidates, {len(valid):,} valid"
    )
    rows = [_row(plan, i + 1, c) for i, c in enumerate(valid[:top])]
    head = list(HEAD)
    if len(worlds) > 1:
        head.insert(1, "GPUs")
        for row, c in zip(rows, valid[:top], strict=True):
            row.insert(1, f"{c.world:,}")
    notes = [declared_sentence(plan) + "."]
    used = used_sentence(plan)
    if used is not None:
        notes.append(used[0].upper() + used[1:] + ".")
    above = ceiling_sentence(plan, top)
    if above is not None:
        notes.append(above[0].upper() + above[1:] + ".")
    notes += [f"Rejected: {r}: {n:,}" for r, n in plan.result.rejected.items()]
    flags = best_flags(plan)
    if flags is not None:
        notes.append("Best layout as flags: " + flags)
    days = days_sentence(plan)
    notes.append(days[0].upper() + days[1:] + ".")
    band = band_sentence(plan, top)
    if band is not None:
        notes.append(band[0].upper() + band[1:] + ".")
    return title, head, rows, notes
