"""`plan_layouts(design, workload)`: the layout search fed from a design, and its figures in units.

Days and cost of a layout scale its step time by what `project_workloads` gives the declared
run: days = steps x step time x (wall time / time in steps), the checkpoint and failure share
being the same whatever the layout; cost = GPU-days x the run's cost per GPU-day (energy and
depreciation, as `dclint cost` prices them).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from dclint.model.defaults import MEMORY_RESERVE
from dclint.projection.layout_checks import (
    BATCH_MB_DP,
    CHECKS,
    DATA_PARALLEL_ONLY,
    EP_DP_CP,
    FFN_TP,
    FSDP_ZERO,
    HEADS_TP,
    INTERLEAVED_MB,
    LAYERS_PP,
    MEMORY,
    MOE_SP,
    PIPELINE_ZERO,
    SEQ_CP,
    SEQ_TP,
    TP_DOMAIN,
    ZERO_PP,
)
from dclint.projection.memory import (
    fp8_proj_copy,
    layer_weight_bytes,
    memory_per_gpu,
    saves_quantized,
    state_terms,
)
from dclint.projection.predict import inputs
from dclint.projection.search.layouts import SearchTooLarge, search, zero3_gather
from dclint.projection.search.records import OPTIMIZERS, Candidate, Search, Space
from dclint.projection.step.model import step
from dclint.projection.step.records import STEP_PARTS
from dclint.projection.training import hardware_of
from dclint.projection.uncertainty import Band, band_for_gpu, ceiling
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.workload import Workload

# One search per distinct question in a process: a check of many copies of one design (or a
# grid point that leaves the workload's inputs alone) searches once. The searches kept are
# bounded by the layouts they hold, not by their number (dclint's own bounds): a valid layout
# holds about 370 bytes (the 1.7T MoE sample's 287,745: 107 MB), so the searches kept beside the
# newest hold some 220 MB at most (SEARCH_CACHE_LAYOUTS); the newest is kept whatever its size
# (up to MAX_EXAMINED layouts, about 1.1 GB), where four searches of that size could keep 4 GB.
SEARCH_CACHE_SEARCHES = 64
SEARCH_CACHE_LAYOUTS = 600_000


class _SearchCache:
    """search(), memoized by its arguments: the least recently used searches are dropped while
    more than SEARCH_CACHE_SEARCHES are kept or they hold more than SEARCH_CACHE_LAYOUTS valid
    layouts (the newest is always kept). A search that raises is not kept. Its bookkeeping
    holds a lock, as lru_cache's does: a grid may run its points on a thread pool (two threads
    asking the same new question may both search it; either answer is the same)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[Space, str, float | None], Search] = OrderedDict()
        self._layouts = 0
        self._lock = threading.Lock()

    def __call__(self, space: Space, by: str = "time", limit: float | None = None) -> Search:
        key = (space, by, limit)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        found = search(space, by, limit)
        with self._lock:
            if key in self._kept:  # another thread searched it meanwhile
                self._kept.move_to_end(key)
                return self._kept[key]
            self._kept[key] = found
            self._layouts += len(found.valid)
            while len(self._kept) > 1 and (
                len(self._kept) > SEARCH_CACHE_SEARCHES or self._layouts > SEARCH_CACHE_LAYOUTS
            ):
                _, dropped = self._kept.popitem(last=False)
                self._layouts -= len(dropped.valid)
        return found

    def cache_clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._layouts = 0


cached_search = _SearchCache()

__all__ = [
    "Plan",
    "Question",
    "SearchRefused",
    "best_ratio",
    "layout_values",
    "loses_on",
    "ordinal",
    "plan_layouts",
    "question",
    "set_line",
    "sharding_change",
    "sharding_value",
]


@dataclass(frozen=True)
class RunTerms:
    """The declared run's terms beside its steps (its projection's, `dclint cost`'s rows), which
    every layout's days carry: the batch ramp-up as a share of the steps' time, the evaluations
    in days (the same count of them on any layout)."""

    ramp_share: float = 0.0  # Timing.rampup / (compute + communication)
    evaluation: float = 0.0  # days (Timing.evaluation)
    rampup: float = 0.0  # days (Timing.rampup): the declared run's own
    step: float | None = None  # seconds: the projection's step at the MFU it uses
    mfu: float | None = None  # the MFU the design declares (None: the step model's is used)


@dataclass(frozen=True)
class Plan:
    design: str
    workload: str
    index: int  # position in design.workloads
    gpus: int
    space: Space
    result: Search
    declared: Candidate  # the declared layout, timed (even when the search rejects it)
    declared_reason: str | None  # why the search would reject it
    declared_rank: int
    steps: float  # optimizer steps of the run
    # wall time / time in steps and evaluations (checkpoint saves and failures), from the
    # declared run's projection
    overhead: float
    cost_per_gpu_day: Quantity | None
    peak: float  # FLOP/s per GPU
    by: str = "time"  # what the ranking and the gap measure: step time, or GPU-seconds a step
    # the best MFU the calibration runs of this GPU generation and class published, and the run
    # (dclint.projection.uncertainty.CEILINGS); None: no calibration run of the class
    ceiling: tuple[float, str] | None = None
    terms: RunTerms = RunTerms()
    # what picks the step model's calibration band, (GPU, MoE, framework, cp_comm_type): a
    # layout's days are predicted, so they carry the band uncertainty.band_for_gpu gives its GPU
    # count and context parallelism, as the projection picks its prediction's; None: no band
    band_of: tuple[str, bool, str | None, str] | None = None

    def band(self, c: Candidate) -> Band | None:
        """`c`'s calibration band (its GPU count and context parallelism decide whether it is
        inside the calibration domain); None without one."""
        return (
            None
            if self.band_of is None
            else band_for_gpu(*self.band_of[:3], c.world, c.cp, self.band_of[3])
        )

    def days_band(self, c: Candidate) -> tuple[Quantity, Quantity] | None:
        """`c`'s days' calibration band, (low, high) in days: its days x the band's factors
        (Band.scaled, as Projection.training_band scales the run's); None without a band."""
        band = self.band(c)
        return None if band is None else band.scaled(self.days(c))

    def above_ceiling(self, c: Candidate) -> bool:
        """Whether `c`'s predicted MFU is above every MFU the calibration runs of its class
        published: a prediction outside what dclint has seen measured."""
        return self.ceiling is not None and self.mfu(c) > self.ceiling[0]

    def used_above_ceiling(self, c: Candidate) -> bool:
        """Whether `c`'s MFU at the MFU the run uses (`used`: the declared MFU carried to `c`)
        is above every MFU the calibration runs of its class published."""
        return self.ceiling is not None and self.used(c)[1] > self.ceiling[0]

    def steps_days(self, c: Candidate) -> float:
        """Days of `c`'s steps at the full batch: steps x predicted step."""
        return self.steps * c.step_time / 86400

    def rampup(self, c: Candidate) -> Quantity:
        """The batch ramp-up's time on `c`: the declared run's ramp-up as a share of its steps
        (`dclint cost`'s 'batch ramp-up'), of `c`'s steps."""
        return Q_(self.steps_days(c) * self.terms.ramp_share, "day")

    def days(self, c: Candidate, scale: float = 1.0) -> Quantity:
        """Steps, the batch ramp-up and the evaluations (their own terms, as `dclint cost`
        gives them), times the declared run's checkpoint and failure overhead; the steps
        `scale` times the model's (`used`)."""
        steps = self.steps_days(c) * scale
        running = steps * (1 + self.terms.ramp_share) + self.terms.evaluation
        return Q_(running * self.overhead, "day")

    @property
    def scale(self) -> float:
        """The projection's step at the MFU it uses over the search's step for the declared
        layout: the declared MFU's measurement over the model (1 where the step model's MFU
        is used, as near as the projection and the search time the same step)."""
        used, model = self.terms.step, self.declared.step_time
        return used / model if used and model > 0 else 1.0

    def used(self, c: Candidate) -> tuple[float, float, Quantity, Quantity | None]:
        """`c`'s step (s), MFU, days and cost at the MFU the run uses: the model's times
        `scale`, the declared layout's being the projection's own. `dclint plan`, PAR005
        and the review quote these beside (or, at the model's MFU, as) the model's."""
        s = self.scale
        return c.step_time * s, self.mfu(c) / s, self.days(c, s), self.cost(c, s)

    def cost(self, c: Candidate, scale: float = 1.0) -> Quantity | None:
        if self.cost_per_gpu_day is None:
            return None
        return self.cost_per_gpu_day * c.world * self.days(c, scale).m_as("day")

    def mfu(self, c: Candidate) -> float:
        return c.step.model_flops / (c.step_time * c.world * self.peak)

    def gap(self) -> float:
        """Declared step time (GPU-seconds with `by` cost) over the best valid layout's, less 1
        (0 with no valid layout)."""
        best = self.result.valid[0] if self.result.valid else self.declared
        mine = self.declared
        if self.by == "cost":
            return mine.step_time * mine.world / (best.step_time * best.world) - 1
        return mine.step_time / best.step_time - 1


def _declared(space: Space, wl: Workload, lay_step: Candidate) -> str | None:
    """Why the search's checks reject the declared layout (None: they pass it)."""
    a, c = space.arch, lay_step
    uneven = wl.parallel.first_stage_layers or wl.parallel.last_stage_layers
    slots = a.layers + wl.parallel.split_extra  # embedding and loss slots, as PAR003 counts
    checks = (
        TP_DOMAIN(space.machine.links.domain, c.tp),
        HEADS_TP(c.tp, a.heads, a.kv_heads),
        FFN_TP(c.tp, a.ffn),
        LAYERS_PP(slots, c.pp, c.vpp, bool(uneven)),
        SEQ_CP(a.seq, c.cp),
        EP_DP_CP(c.ep, c.dp, c.cp),
        BATCH_MB_DP(space.global_batch, c.micro_batch, c.dp),
        INTERLEAVED_MB(space.global_batch, c.micro_batch, c.dp, c.pp, c.vpp),
        MOE_SP(a.experts, c.tp, c.sequence_parallel),
        SEQ_TP(a.seq, c.cp, c.tp, c.sequence_parallel),
        ZERO_PP(c.pp, OPTIMIZERS.index(c.optimizer), space.pipeline_zero),
        FSDP_ZERO(space.fsdp, OPTIMIZERS.index(c.optimizer)),
        MEMORY(c.memory, space.usable_bytes),
    )
    if c.tp * c.pp * c.cp * c.dp != c.world:
        return "tp x pp x cp x dp is not the workload's GPUs"
    return next(
        (check.message for check, broken in zip(CHECKS, checks, strict=True) if broken), None
    )


@dataclass(frozen=True)
class Question:
    """Everything a Plan holds but the search's answer: the search's key (`space`, `by`,
    `limit`) and what turns a layout into days and money for this design. Grids ask many
    Questions and search each distinct key once (`plan_layouts` asks and answers one)."""

    design: str
    workload: str
    index: int
    gpus: int
    space: Space
    declared: Candidate
    declared_reason: str | None
    steps: float
    overhead: float
    cost_per_gpu_day: Quantity | None
    peak: float
    by: str
    limit: float | None
    ceiling: tuple[float, str] | None = None
    terms: RunTerms = RunTerms()
    band_of: tuple[str, bool, str | None, str] | None = None

    @property
    def key(self) -> tuple[Space, str, float | None]:
        """What the search depends on: points with equal keys share one search."""
        return self.space, self.by, self.limit

    def answer(self, result: Search) -> Plan:
        return Plan(
            self.design,
            self.workload,
            self.index,
            self.gpus,
            self.space,
            result,
            self.declared,
            self.declared_reason,
            result.rank(self.declared.step_time, self.gpus, self.by),
            self.steps,
            self.overhead,
            self.cost_per_gpu_day,
            self.peak,
            self.by,
            self.ceiling,
            self.terms,
            self.band_of,
        )


def question(
    design: Design,
    wl: Workload,
    by: str = "time",
    worlds: tuple[int, ...] | None = None,
    reserve: float = MEMORY_RESERVE,
    rank_only: bool = False,
) -> Question | str:
    """The layout search `plan_layouts` would run for `wl`, not yet run, or why it cannot."""
    hw = hardware_of(design, wl.platform)
    if isinstance(hw, str):
        return hw
    notes: list[str] = []
    got = inputs(design, wl, hw, notes)
    if isinstance(got, str):
        return got
    arch, layout, machine, sw = got
    usable = hw.gpu.hbm_capacity.m_as("B") * (1 - reserve)
    space = Space(
        arch,
        machine,
        sw,
        worlds or (wl.gpus,),
        layout.global_batch,
        usable,
        wl.causal_attention,
        wl.parallel.split_extra,
        (
            int(wl.parallel.account_for_embedding_in_pipeline_split),
            int(wl.parallel.account_for_loss_in_pipeline_split),
        ),
        PIPELINE_ZERO[wl.software_in_effect.framework],
        (wl.model.dropout, saves_quantized(wl), fp8_proj_copy(wl)),
        wl.software_in_effect.activation_offload_layers,
        state_terms(wl),
        layer_weight_bytes(wl, hw.blackwell),
        wl.software_in_effect.selective_recompute == "op",
        layout.torch_fsdp,
        wl.software_in_effect.framework not in DATA_PARALLEL_ONLY,
    )
    zero = wl.parallel.sharding
    st = step(arch, replace(layout, distributed_optimizer=zero >= 1), machine, sw, space.causal)
    # PyTorch FSDP's gathers are in the step already (step._torch_fsdp): no search-side term
    regather = zero == 3 and not layout.torch_fsdp
    seconds = st.time + (zero3_gather(arch, layout, machine) if regather else 0.0)
    memory = memory_per_gpu(wl, hw.blackwell).total.m_as("B")
    declared = Candidate(
        layout.tp, layout.pp, layout.vpp, layout.cp, layout.ep, layout.dp, layout.micro_batch,
        layout.recompute, layout.sequence_parallel, OPTIMIZERS[zero], wl.gpus, st, seconds, memory,
        wl.parallel.first_stage_layers or 0, wl.parallel.last_stage_layers or 0,
        layout.reshard if layout.torch_fsdp and zero == 3 else None,
        layout.shard_group if layout.torch_fsdp and zero == 3 else 0,
    )  # fmt: skip
    limit = seconds if rank_only and by == "time" and len(space.worlds) == 1 else None
    overhead, rate, terms = _run_terms(design, wl.id)
    return Question(
        design.name,
        wl.id,
        design.workloads.index(wl),
        wl.gpus,
        space,
        declared,
        _declared(space, wl, declared),
        float(wl.tokens) / (layout.global_batch * arch.seq),
        overhead,
        rate,
        machine.peak,
        by,
        limit,
        ceiling(hw.family, bool(arch.experts)),
        terms,
        (
            hw.family,
            bool(arch.experts),
            wl.software_in_effect.framework,
            wl.software_in_effect.cp_comm_type,
        ),
    )


def plan_layouts(
    design: Design,
    wl: Workload,
    by: str = "time",
    worlds: tuple[int, ...] | None = None,
    reserve: float = MEMORY_RESERVE,
    rank_only: bool = False,
) -> Plan | str:
    """The search for workload `wl` of `design`, or why it cannot run. `rank_only` times only
    what can be faster than the declared layout (the best and the declared rank are exact,
    `result.valid` holds the layouts timed)."""
    asked = question(design, wl, by, worlds, reserve, rank_only)
    if isinstance(asked, str):
        return asked
    try:
        return asked.answer(cached_search(*asked.key))
    except SearchTooLarge as exc:
        return SearchRefused(exc)


class SearchRefused(str):
    """Why `plan_layouts` did not search: past dclint's bound on the layouts a search may
    examine (search.MAX_EXAMINED), as opposed to a workload the search cannot apply to."""


def _run_terms(design: Design, wid: str) -> tuple[float, Quantity | None, RunTerms]:
    """From the declared run's projection: its checkpoint and failure overhead (wall time over
    time in steps and evaluations), its cost a GPU-day, and its ramp-up and evaluations."""
    from dclint.projection import project_workloads

    found = next((p for p in project_workloads(design) if p.workload == wid), None)
    if found is None:
        return 1.0, None, RunTerms()
    t = found.timing
    steps = (t.compute + t.communication).m_as("day")
    running = t.running.m_as("day")
    wall = t.wall.m_as("day")
    overhead = wall / running if running > 0 else 1.0
    rate = found.cost_total / (found.gpus * wall) if found.cost_breakdown and wall > 0 else None
    share = t.rampup.m_as("day") / steps if steps > 0 else 0.0
    used = t.step_time.m_as("s") if t.step_time is not None else None
    declared = None if t.mfu_source.startswith("predicted") else t.mfu.m_as("")
    terms = RunTerms(share, t.evaluation.m_as("day"), t.rampup.m_as("day"), used, declared)
    return overhead, rate, terms


def best_ratio(design: Design, wl: Workload, options: dict[str, Any]) -> float | None:
    """The best valid layout's step over the declared layout's (PAR005's price); `options`
    are PAR005's typed options (its `reserve`)."""
    plan = plan_layouts(design, wl, reserve=options["reserve"].m_as(""), rank_only=True)
    if isinstance(plan, str) or not plan.result.valid or plan.declared.step_time <= 0:
        return None
    return plan.result.valid[0].step_time / plan.declared.step_time


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, ..., 1,473rd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def loses_on(declared: Candidate, best: Candidate) -> str:
    """The part of the step where the declared layout loses most time against the best."""
    mine, theirs = declared.step.parts(), best.step.parts()
    part = max(mine, key=lambda k: (mine[k] - theirs[k], k))
    return STEP_PARTS[part][1]


def layout_values(c: Candidate, gpus: int) -> dict[str, str]:
    """The workload keys (YAML text of their values) that make a workload run layout `c`."""
    zero = OPTIMIZERS.index(c.optimizer)
    uneven = (
        f"first_stage_layers: {c.first_layers}, last_stage_layers: {c.last_layers}, "
        if c.first_layers
        else ""
    )
    values = {
        "parallel": (
            f"{{tp: {c.tp}, pp: {c.pp}, vpp: {c.vpp}, cp: {c.cp}, ep: {c.ep}, {uneven}"
            f"sequence_parallel: {str(c.sequence_parallel).lower()}, "
            f"distributed_optimizer: {str(zero >= 1).lower()}, zero_stage: {zero}}}"
        ),
        "micro_batch": str(c.micro_batch),
        "recompute": c.recompute,
    }
    if c.world != gpus:
        values["gpus"] = str(c.world)
    return values


def sharding_value(c: Candidate) -> str | None:
    """`software.sharding` (flow YAML) that makes a workload run PyTorch FSDP layout `c` (its
    reshard_after_forward and HSDP shard group); None: `c` is no PyTorch FSDP layout."""
    if c.reshard is None:
        return None
    kind = f"hsdp, shard_group: {c.shard_group}" if c.shard_group else "fsdp"
    return f"{{kind: {kind}, reshard_after_forward: {str(c.reshard).lower()}}}"


def sharding_change(wl: Workload, c: Candidate) -> str | None:
    """`software.sharding` to write when workload `wl` moves to layout `c`: None where `c` is
    no PyTorch FSDP layout or the workload's settings already run it (an undeclared
    reshard_after_forward is FSDP's default: on without pipeline parallelism, off with it)."""
    value = sharding_value(c)
    if value is None:
        return None
    sw = wl.software_in_effect
    group = sw.shard_group if sw.sharding == "hsdp" else 0
    reshard = sw.reshard_after_forward
    if reshard is None:
        reshard = c.pp == 1
    same = sw.sharding in ("fsdp", "hsdp") and (group, reshard) == (c.shard_group, c.reshard)
    return None if same else value


def set_line(wl_id: str, c: Candidate, gpus: int) -> str:
    """`--set` flags that make workload `wl_id` run layout `c` (a PyTorch FSDP layout's
    reshard_after_forward and shard group as software.sharding)."""
    values = layout_values(c, gpus)
    flags = [f"--set 'workloads.{wl_id}.parallel={values.pop('parallel')}'"]
    flags.extend(f"--set workloads.{wl_id}.{key}={value}" for key, value in values.items())
    sharding = sharding_value(c)
    if sharding is not None:
        flags.append(f"--set 'workloads.{wl_id}.software.sharding={sharding}'")
    return " ".join(flags)
