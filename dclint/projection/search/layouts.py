"""Layout search: every parallel layout of one workload on its GPUs, checked and ranked.

The grid, dimension by dimension (each set is fixed before the checks):

- tp: divisors of the world size up to the NVLink domain; pp: divisors of world / tp up to the
  layers (and the embedding and loss slots the workload counts); a pp that does not divide
  them splits them unevenly as Megatron-Core's --decoder-first/last-pipeline-num-layers do
  (`uneven_split`: Llama 3's 126 layers on pp 16 = 7 + 14 x 8 + 7), where the workload counts
  no embedding or loss slot; cp: divisors of world / (tp pp) up to half the sequence;
  dp = world / (tp pp cp);
- ep: divisors of the experts (1 for a dense model); vpp: 1, and with pp > 1 every divisor of
  layers // pp (of every stage's layers when uneven); micro-batch: MICRO_BATCHES; sequence
  parallelism off, and on with tp > 1;
  recomputation none, selective, full; optimizer replicated, distributed (ZeRO stage 1), ZeRO
  stage 2, ZeRO stage 3 (with pp > 1 only those the workload's framework runs: DeepSpeed's
  pipeline engine refuses ZeRO-2 and ZeRO-3); for PyTorch FSDP software (software.sharding
  fsdp or hsdp) replicated or FSDP's full shard only, the latter with and without
  reshard_after_forward over every data-parallel rank or HSDP shard groups (`fsdp_variants`);
  for a framework that runs sharded data parallelism only (Composer / llm-foundry:
  `layout_checks.DATA_PARALLEL_ONLY`) tp, pp, vpp and cp stay 1.

A candidate is rejected for the first check it breaks, in the order of
`dclint.projection.layout_checks.CHECKS`: Megatron-Core's start-up checks as PAR002 and
PAR003 state them, then PAR004's memory estimate (memory.py's
equations on floats, `memory_bytes`). The rest are timed with `dclint.projection.step.model.step`
(ZeRO stage 2 moves what stage 1 moves; stage 3 gathers the parameters again for the backward,
Rajbhandari et al. 2020, counted unhidden, dclint's own approximation; an uneven pipeline is
timed on its busiest stage's layers). Ranking is by step time (or GPU-seconds a step with
`by="cost"`), ties broken by the smaller tp, pp, cp, ep, vpp, micro-batch, the lighter
recomputation, sequence parallelism off, the lower optimizer stage.
To place one layout (a `limit`), layouts that cannot beat it are counted, not timed:
recomputation only adds work, and sequence parallelism moves the same tensor-parallel bytes
while splitting the element-wise work and the pipeline transfers (Korthikanti et al. 2022).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from operator import attrgetter

from dclint.model.software import vocabulary_shards
from dclint.projection.collectives import group_time
from dclint.projection.layout_checks import (
    BATCH_MB_DP,
    EP_DP_CP,
    FFN_TP,
    FSDP_ZERO,
    HEADS_TP,
    INTERLEAVED_MB,
    LAYERS_PP,
    MEMORY,
    MOE_SP,
    SEQ_CP,
    SEQ_TP,
    TP_DOMAIN,
    ZERO_PP,
    Check,
)
from dclint.projection.memory import (
    DEFAULT_TERMS,
    WEIGHT_BYTES,
    Shape,
    StateTerms,
    activation_bytes,
    at_zero,
    embedding_parameters,
    in_flight,
    layer_activations,
    loss_held,
    stage_bytes,
    stage_layers,
    stage_states,
)
from dclint.projection.search.records import (
    MICRO_BATCHES,
    OPTIMIZERS,
    REASONS,
    RECOMPUTE,
    Candidate,
    Search,
    Space,
)
from dclint.projection.step.model import ACT, Arch, Layout, Machine, Step, Stepper

__all__ = [
    "MAX_EXAMINED",
    "SearchTooLarge",
    "fsdp_variants",
    "memory_bytes",
    "search",
    "uneven_split",
    "zero3_gather",
]


def _divisors(n: int, most: int) -> list[int]:
    """The divisors of `n` up to `most`, ascending, in O(sqrt n) steps: a design's figures
    (layers, experts, GPUs) are never looped up to."""
    low, high = [], []
    d = 1
    while d * d <= n:
        if n % d == 0:
            low.append(d)
            if d * d != n:
                high.append(n // d)
        d += 1
    return [d for d in low + high[::-1] if d <= most]


def uneven_split(layers: int, pp: int) -> tuple[int, int] | None:
    """(first, last) stage layers of Megatron-Core's uneven pipeline for `layers` that pp does
    not divide: middle stages of ceil(layers / pp) layers, the rest shared by the first and
    the last stage, each at least 1 and at most a middle stage's (None: no such split)."""
    if pp < 2 or layers % pp == 0:
        return None
    middle = -(-layers // pp)
    rest = layers - (pp - 2) * middle
    first, last = rest // 2, rest - rest // 2
    if first < 1 or last > middle:
        return None
    return first, last


def memory_bytes(
    a: Arch,
    lay: Layout,
    zero: int,
    flash: bool = True,
    split_ends: tuple[int, int] = (0, 0),
    ends: tuple[int, int] | None = None,
    terms: StateTerms = DEFAULT_TERMS,
    expert_tp: int = 0,
    saved: tuple[bool, bool, bool] = (True, False, True),
    offload: int = 0,
    layer_weight_bytes: float = WEIGHT_BYTES,
    op: bool = False,
    shard_group: int = 0,
    keep_gathered: bool = False,
) -> float:
    """Bytes on a GPU of the stage that binds, layers split evenly: dclint.projection.memory's
    stage model on the search's floats (tests/test_plan_search.py compares the two), with the
    workload's `terms` (memory.state_terms) as PAR004 reads them."""
    shape, stages = _memory_shape(
        a, lay, flash, split_ends, ends, terms, expert_tp, saved, offload,
        layer_weight_bytes, op, shard_group, keep_gathered,
    )  # fmt: skip
    return _binding(shape, stages, zero)


def _binding(shape: Shape, stages: list[tuple[int, float]], zero: int) -> float:
    """Bytes on a GPU of the stage of `stages` that holds the most, at ZeRO stage `zero`."""
    return max(sum(stage_bytes(shape, stage, n, zero)) for stage, n in stages)


def _memory_shape(
    a: Arch,
    lay: Layout,
    flash: bool,
    split_ends: tuple[int, int],
    ends: tuple[int, int] | None,
    terms: StateTerms,
    expert_tp: int,
    saved: tuple[bool, bool, bool],
    offload: int,
    layer_weight_bytes: float,
    op: bool,
    shard_group: int,
    keep_gathered: bool,
) -> tuple[Shape, list[tuple[int, float]]]:
    """`memory_bytes`'s stage model of `lay` and the stages that can bind, whatever the ZeRO
    stage."""
    per_layer = _per_layer(a, lay, flash, saved, op)
    shape = _shape(
        a, lay, per_layer, embedding_parameters(a.vocab, a.hidden, a.dense_params), terms,
        expert_tp, offload, layer_weight_bytes, shard_group, keep_gathered,
        (0, 0) if ends else split_ends,
    )  # fmt: skip
    return shape, stage_layers(a.layers, lay.pp, *(ends or (None, None)), *map(bool, split_ends))


def _per_layer(
    a: Arch, lay: Layout, flash: bool, saved: tuple[bool, bool, bool], op: bool
) -> float:
    """Activation bytes of one layer and micro-batch of `lay` (memory.layer_activations)."""
    t, c, b = lay.tp, lay.cp, lay.micro_batch
    sp = lay.sequence_parallel and t > 1
    widths = (a.q, a.kv, float(a.ffn), a.swiglu)
    dropout, fp8, proj_copy = saved
    return layer_activations(
        a.seq / c, b, a.hidden, a.heads, t, sp, lay.recompute, flash, widths, dropout, fp8, op,
        proj_copy,
    )  # fmt: skip


def _shape(
    a: Arch,
    lay: Layout,
    per_layer: float,
    embedding: float,
    terms: StateTerms,
    expert_tp: int,
    offload: int,
    layer_weight_bytes: float,
    shard_group: int,
    keep_gathered: bool,
    slots: tuple[int, int] = (0, 0),
) -> Shape:
    """`slots`: the embedding and loss counted as pipeline layers (memory.Shape.slots), where
    no uneven first and last stages are taken."""
    t, c, b = lay.tp, lay.cp, lay.micro_batch
    micro_batches = max(1, lay.global_batch // (lay.dp * b))
    return Shape(
        a.layers,
        a.dense_params,
        a.expert_params,
        embedding,
        t,
        lay.pp,
        c,
        lay.dp,
        lay.ep,
        lay.vpp,
        micro_batches,
        per_layer,
        terms.loss_stage_bytes(
            a.vocab,
            embedding,
            t,
            lay.sequence_parallel,
            lay.pp,
            lay.dp * c,
            micro_batches,
            a.seq / c * b,
            keep_gathered,
        ),
        terms.grad_bytes,
        expert_tp,
        offload,
        layer_weight_bytes,
        shard_group,
        keep_gathered,
        slots if lay.pp > 1 else (0, 0),
        terms.optimizer_bytes,
        terms.unsynced(lay.pp, lay.dp * c),
    )


def zero3_gather(a: Arch, lay: Layout, mac: Machine) -> float:
    """Seconds of ZeRO stage 3's second parameter all-gather (for the backward), unhidden."""
    t, p, c, d, e = lay.tp, lay.pp, lay.cp, lay.dp, lay.ep
    out = 0.0
    for local, ranks in (
        (a.dense_params / (t * p), d * c),
        (a.expert_params / (e * t * p), d * c // e),
    ):
        if local > 0 and ranks > 1:
            out += group_time(mac.links, (ranks - 1) / ranks * local * ACT, ranks, t)
    return out


class SearchTooLarge(ValueError):
    """A layout search past MAX_EXAMINED layouts: its message says how many and why."""


def search(space: Space, by: str = "time", limit: float | None = None) -> Search:
    """Every candidate of the grid: the valid ones timed and ranked, the others counted.

    With `limit` (seconds, ranking by time), a valid layout that cannot be faster than it (a
    lighter recomputation, or the same layout with sequence parallelism on, is already at or
    above it) is counted in `untimed` instead of timed: enough to place a layout of that time.
    SearchTooLarge, before any layout is examined, for a search past MAX_EXAMINED.
    """
    rejected = dict.fromkeys(REASONS, 0)
    total, units = _units(space, rejected)
    examined = sum(len(MICRO_BATCHES) * len(u[2]) * len(u[3]) * 12 for u in units)
    if examined > MAX_EXAMINED:
        raise SearchTooLarge(
            f"the layout search would examine {examined:,} layouts, more than dclint's bound "
            f"of {MAX_EXAMINED:,} (it would run for minutes); search fewer GPU counts, or a "
            "model with fewer layers or experts"
        )
    valid: list[Candidate] = []
    untimed = 0
    for world, lay, sps, vpps, ends in units:
        untimed += _inner(space, lay, sps, vpps, world, rejected, valid, limit, ends)
    _rank(valid, by)
    return Search(total, valid, {k: v for k, v in rejected.items() if v}, untimed, by)


def _rank(valid: list[Candidate], by: str) -> None:
    """Sort `valid` in place by _ranking's key, as `valid.sort(key=_ranking(by))` would: by
    the metric alone (a float each, not a tuple), then each run of equal metrics by the whole
    key (a stable sort by the first field, then by all within its ties, is the sort by all).
    Building the whole key for every layout cost 24-32% more (24 searches, sorting only)."""

    def cost(c: Candidate) -> float:  # _ranking's first field, ranking by cost
        return c.step_time * c.world

    metric_of: Callable[[Candidate], float] = cost if by == "cost" else attrgetter("step_time")
    valid.sort(key=metric_of)
    metrics = list(map(metric_of, valid))
    whole, start = _ranking(by), 0
    for at in [i for i in range(1, len(metrics)) if metrics[i] != metrics[i - 1]] + [len(valid)]:
        if at - start > 1:  # a run of equal metrics
            valid[start:at] = sorted(valid[start:at], key=whole)
        start = at


def _ranking(by: str) -> Callable[[Candidate], tuple[object, ...]]:
    """The sort key (metric(c.step_time, c.world, by), *c.key), without a call of either per
    candidate: a search ranks up to MAX_EXAMINED."""
    recompute = {r: i for i, r in enumerate(RECOMPUTE)}
    optimizer = {o: i for i, o in enumerate(OPTIMIZERS)}
    cost = by == "cost"  # as metric weighs it

    def key(c: Candidate) -> tuple[object, ...]:
        return (
            c.step_time * c.world if cost else c.step_time,
            c.tp, c.pp, c.cp, c.ep, c.vpp, c.micro_batch, recompute[c.recompute],
            c.sequence_parallel, optimizer[c.optimizer], c.world,
        )  # fmt: skip

    return key


# Layouts a search may examine (memory-checked, then timed if they fit): some 30 s on one
# core. dclint's own bound, three times the 1.7T MoE sample's 830,000.
MAX_EXAMINED = 3_000_000
_Unit = tuple[int, Layout, tuple[bool, ...], list[int], tuple[int, int] | None]


def _units(space: Space, rejected: dict[str, int]) -> tuple[int, list[_Unit]]:
    """The candidates' count, and each (world, tp, pp, cp, ep) that passes the checks on them
    with what is searched below it; what they reject is counted in `rejected`. The checks
    depend on tp alone (TP_DOMAIN, HEADS_TP, FFN_TP), on pp (LAYERS_PP), on cp (SEQ_CP) or on
    ep (EP_DP_CP): a subtree they reject is counted, not walked (a design's figures can be
    large)."""
    a = space.arch
    total = 0
    units: list[_Unit] = []
    experts = _divisors(a.experts, a.experts) if a.experts else [1]
    slots = a.layers + space.split_extra  # layers + embedding/loss slots (PAR003)
    for world in space.worlds:
        wide = space.model_parallel  # else the framework shards data parallelism only
        for tp in _divisors(world, space.machine.links.domain if wide else 1):
            sps = (False, True) if tp > 1 else (False,)
            tp_reason = _outer_tp(space, tp)
            for pp in _divisors(world // tp, slots if wide else 1):
                ends = None if space.split_extra else uneven_split(a.layers, pp)
                vpps = [1] + (_divisors(_chunkable(slots, pp, ends), slots)[1:] if pp > 1 else [])
                below_ep = len(MICRO_BATCHES) * len(sps) * len(vpps) * 12
                cps = _divisors(world // (tp * pp), max(1, a.seq // 2) if wide else 1)
                reason = tp_reason
                if reason is None and LAYERS_PP.broken(slots, pp, 1, ends is not None):
                    reason = LAYERS_PP
                if reason is not None:
                    total += below_ep * len(cps) * len(experts)
                    rejected[reason.message] += below_ep * len(cps) * len(experts)
                    continue
                for cp in cps:
                    dp = world // (tp * pp * cp)
                    if SEQ_CP.broken(a.seq, cp):
                        total += below_ep * len(experts)
                        rejected[SEQ_CP.message] += below_ep * len(experts)
                        continue
                    for ep in experts:
                        total += below_ep
                        if EP_DP_CP.broken(ep, dp, cp):
                            rejected[EP_DP_CP.message] += below_ep
                            continue
                        lay = Layout(tp, pp, cp, dp, ep, 1, 1, space.global_batch)
                        units.append((world, lay, sps, vpps, ends))
    return total, units


def _outer_tp(space: Space, tp: int) -> Check | None:  # type: ignore[type-arg]
    a = space.arch
    if TP_DOMAIN.broken(space.machine.links.domain, tp):
        return TP_DOMAIN
    if HEADS_TP.broken(tp, a.heads, a.kv_heads):
        return HEADS_TP
    if FFN_TP.broken(tp, a.ffn):  # each expert's FFN in an MoE model: expert tp is tp
        return FFN_TP
    return None


def _chunkable(slots: int, pp: int, ends: tuple[int, int] | None) -> int:
    """What every stage's layers divide: vpp must divide it (the even share, or with uneven
    stages the greatest common divisor of the first, middle and last stages' layers)."""
    if ends is None:
        return slots // pp
    middle = [-(-slots // pp)] if pp > 2 else []
    return math.gcd(*ends, *middle)


def _inner(
    space: Space,
    base: Layout,
    sps: tuple[bool, ...],
    vpps: list[int],
    world: int,
    rejected: dict[str, int],
    valid: list[Candidate],
    limit: float | None,
    ends: tuple[int, int] | None = None,
) -> int:
    """Check and time the layouts below one (tp, pp, cp, ep); the count left untimed."""
    a, mac, sw, batch = space.arch, space.machine, space.software, space.global_batch
    tp, pp, cp, dp, ep = base.tp, base.pp, base.cp, base.dp, base.ep
    timer = Stepper(a, mac, sw, space.causal)  # shares what the layouts below share
    gather: float | None = None  # zero3_gather of (tp, pp, cp, dp, ep)
    # the uneven pipeline's busiest stage (Layout's default: even)
    busiest: float = 0.0 if ends is None else max(*ends, -(-a.layers // pp))
    flash, usable, fsdp = sw.flash_attention, space.usable_bytes, space.fsdp
    # what memory_bytes reads that the layouts below share: the stages that can bind, their
    # model states (which read neither the micro-batch, vpp nor the activations) as each ZeRO
    # stage keeps them, one layer's activations a (micro-batch, sequence parallelism,
    # recomputation), the logits a micro-batch
    stages = stage_layers(a.layers, pp, *(ends or (None, None)), *map(bool, space.split_ends))
    embedding = embedding_parameters(a.vocab, a.hidden, a.dense_params)
    unit = _shape(
        a, base, 0.0, embedding, space.terms, sw.expert_tp, space.offload,
        space.layer_weight_bytes, 0, False,
    )  # fmt: skip
    states = [(*stage_states(unit, stage, n), 0.0) for stage, n in stages]
    kept = [[at_zero(st, zero)[:3] for st in states] for zero in range(len(OPTIMIZERS))]
    uneven = ends or (0, 0)
    slots = ((0, 0) if ends else space.split_ends) if pp > 1 else (0, 0)
    offload, last = space.offload, pp - 1
    activations: dict[tuple[int, bool, str], float] = {}
    # the optimizer stages and why each is rejected (None: it is not): they read pp alone
    optimizers: list[tuple[int, str, str | None]] = []
    for zero, opt in enumerate(OPTIMIZERS):
        reason = None
        if ZERO_PP.broken(pp, zero, space.pipeline_zero):
            reason = ZERO_PP.message
        elif FSDP_ZERO.broken(fsdp, zero):
            reason = FSDP_ZERO.message
        optimizers.append((zero, opt, reason))
    untimed = 0
    for mb in MICRO_BATCHES:
        if BATCH_MB_DP.broken(batch, mb, dp):
            rejected[BATCH_MB_DP.message] += len(sps) * len(vpps) * 12
            continue
        # (vpp, distributed) -> the lightest recomputation (RECOMPUTE index) timed at or above
        # the limit: a layout at that recomputation or a heavier one cannot be faster
        slow: dict[tuple[int, bool], int] = {}
        micro_batches = max(1, batch // (dp * mb))  # _shape's
        flights: dict[int, list[float]] = {}  # each stage's in-flight layers a vpp
        for sp in sorted(sps, reverse=True):  # on first: off is never faster (module doc)
            if MOE_SP.broken(a.experts, tp, sp):
                rejected[MOE_SP.message] += len(vpps) * 12
                continue
            if SEQ_TP.broken(a.seq, cp, tp, sp):
                rejected[SEQ_TP.message] += len(vpps) * 12
                continue
            for vpp in vpps:
                if INTERLEAVED_MB.broken(batch, mb, dp, pp, vpp):
                    rejected[INTERLEAVED_MB.message] += 12
                    continue
                for i, rec in enumerate(RECOMPUTE):
                    lay = Layout(
                        tp, pp, cp, dp, ep, vpp, mb, batch, sp, True, rec, stage_layers=busiest,
                        split_slots=slots,  # each stage that can bind timed (model._stages)
                    )  # fmt: skip
                    timed: dict[bool, tuple[Step, float]] = {}  # the step and its time
                    acts: list[float] | None = None  # each stage's activations
                    for zero, opt, reason in optimizers:
                        if reason is not None:
                            rejected[reason] += 1
                            continue
                        if zero == 3 and fsdp:
                            _torch_fsdp(space, lay, ends, world, rejected, valid, timer)
                            continue
                        if acts is None:
                            per_layer = activations.get((mb, sp, rec))
                            if per_layer is None:
                                per_layer = _per_layer(
                                    a, lay, flash, space.saved, space.op_recompute
                                )
                                activations[mb, sp, rec] = per_layer
                            # memory.stage_activations of _shape(lay)'s
                            # an FSDP workload's layouts are _torch_fsdp's: no head term
                            shards = vocabulary_shards(space.terms.tp_plan, tp, sp)
                            logits = loss_held(
                                space.terms.logit_bytes, space.terms.loss_token_bytes, a.vocab,
                                shards, a.seq / cp * mb,
                            )  # fmt: skip
                            if offload and pp == 1:
                                # pp 1: the one stage is the last
                                args = (pp, vpp, micro_batches, slots, offload)
                                acts = [
                                    activation_bytes(per_layer, logits, stage, n, *args)
                                    for stage, n in stages
                                ]
                            else:  # activation_bytes, its in-flight layers read once a vpp
                                flight = flights.get(vpp)
                                if flight is None:
                                    flight = flights[vpp] = [
                                        in_flight(stage, n, pp, vpp, micro_batches, slots)
                                        for stage, n in stages
                                    ]
                                acts = [
                                    per_layer * f + (logits if stage == last else 0.0)
                                    for (stage, _), f in zip(stages, flight, strict=True)
                                ]
                        # memory_bytes: the binding stage's sum of stage_bytes at this stage
                        # (max's walk: the first, then each that is greater)
                        states_at = kept[zero]
                        w, g, o = states_at[0]
                        memory = sum((w, g, o, acts[0]))
                        for j in range(1, len(acts)):
                            w, g, o = states_at[j]
                            held = sum((w, g, o, acts[j]))
                            if held > memory:
                                memory = held
                        if MEMORY.broken(memory, usable):
                            rejected[MEMORY.message] += 1
                            continue
                        dist = zero >= 1
                        if limit is not None and slow.get((vpp, dist), i + 1) <= i:
                            untimed += 1
                            continue
                        if dist not in timed:
                            if dist:  # lay, the distributed optimizer's
                                step = timer(lay)
                            else:
                                step = timer(
                                    Layout(
                                        tp, pp, cp, dp, ep, vpp, mb, batch, sp, False, rec,
                                        stage_layers=busiest, split_slots=slots,
                                    )
                                )  # fmt: skip
                            timed[dist] = step, step.time
                        st, time = timed[dist]
                        if zero == 3 and gather is None:
                            gather = zero3_gather(a, lay, mac)
                        seconds = time + (gather if zero == 3 and gather is not None else 0.0)
                        valid.append(
                            Candidate(
                                tp, pp, vpp, cp, ep, dp, mb, rec, sp, opt, world, st, seconds,
                                memory, *uneven,
                            )
                        )  # fmt: skip
                    if limit is not None:
                        for d, (_, t) in timed.items():
                            if t >= limit and slow.get((vpp, d), i + 1) > i:
                                slow[vpp, d] = i
    return untimed


def fsdp_variants(space: Space, lay: Layout) -> list[tuple[bool, int]]:
    """(reshard_after_forward, shard group) of PyTorch FSDP the search tries: resharding or
    not, over every data-parallel rank (0) or HSDP shard groups of whole NVLink domains' ranks
    (one domain's, two, four, ...) below them (dclint's own grid: a group inside a node, as
    TorchTitan's HSDP examples shard, and multiples of it)."""
    ranks = lay.dp * lay.cp
    node = max(1, space.machine.links.domain // lay.tp)
    groups = [0]
    g = max(2, node)  # a group of one rank is replication, not sharding
    while g < ranks:
        if ranks % g == 0:
            groups.append(g)
        g *= 2
    return [(reshard, g) for g in groups for reshard in (True, False)]


def _torch_fsdp(
    space: Space,
    lay: Layout,
    ends: tuple[int, int] | None,
    world: int,
    rejected: dict[str, int],
    valid: list[Candidate],
    timer: Stepper | None = None,
) -> None:
    """Check and time PyTorch FSDP's variants of one layout's full shard (`fsdp_variants`):
    memory with the shard group and the gathered weights kept when not resharding, the step
    with FSDP's own collectives (dclint.projection.step.model's _torch_fsdp)."""
    a, mac, sw = space.arch, space.machine, space.software
    timer = timer or Stepper(a, mac, sw, space.causal)
    for reshard, group in fsdp_variants(space, lay):
        memory = memory_bytes(
            a, lay, 3, sw.flash_attention, space.split_ends, ends, space.terms, sw.expert_tp,
            space.saved, space.offload, space.layer_weight_bytes, space.op_recompute, group,
            not reshard,
        )  # fmt: skip
        if MEMORY.broken(memory, space.usable_bytes):
            rejected[MEMORY.message] += 1
            continue
        run = replace(
            lay, distributed_optimizer=True, fsdp=True, torch_fsdp=True, reshard=reshard,
            shard_group=group,
        )  # fmt: skip
        st = timer(run)
        valid.append(
            Candidate(
                lay.tp, lay.pp, lay.vpp, lay.cp, lay.ep, lay.dp, lay.micro_batch, lay.recompute,
                lay.sequence_parallel, OPTIMIZERS[3], world, st, st.time, memory,
                *(ends or (0, 0)), reshard=reshard, shard_group=group,
            )
        )  # fmt: skip
