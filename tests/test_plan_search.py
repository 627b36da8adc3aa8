"""The layout search (dclint.projection.search.layouts): the grid it enumerates, the reasons it
rejects for, agreement with PAR002-PAR004 on every candidate, determinism,
and the published layouts."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import EXAMPLES, SAMPLES
from dclint.loader.load import load_text
from dclint.model.workload import Parallel, Workload
from dclint.projection.layout_checks import (
    BATCH_MB_DP,
    CHECKS,
    HEADS_TP,
    LAYERS_PP,
    SEQ_CP,
    Check,
)
from dclint.projection.memory import memory_per_gpu
from dclint.projection.search.layouts import search
from dclint.projection.search.plan import Plan, plan_layouts
from dclint.projection.search.records import (
    MICRO_BATCHES,
    OPTIMIZERS,
    REASONS,
    RECOMPUTE,
    metric,
)
from dclint.rules.layout.par003_layout_not_divisible import _broken

INTEGRATION = pytest.mark.integration

DESIGN = """
name: tiny
racks:
  - {{id: r1, platform: hgx-h100, nodes: {nodes}}}
workloads:
  - id: llm
    model: {{parameters: {params}, layers: {layers}, hidden_size: {hidden},
            attention_heads: {heads}, vocab_size: 32000{extra}}}
    tokens: 1e9
    sequence_length: {seq}
    global_batch: {batch}
    gpus: {gpus}
    parallel: {par}
"""


PLAN_DEFAULTS: dict[str, object] = dict(
    nodes=1,
    params=10e6,
    layers=2,
    hidden=256,
    heads=2,
    seq=12,
    batch=4,
    gpus=4,
    extra="",
    par="{tp: 1}",
)


def plan_of(**kw: object) -> Plan:
    values = {**PLAN_DEFAULTS, **kw}
    design = load_text(DESIGN.format(**values))
    found = plan_layouts(design, design.workloads[0])
    assert not isinstance(found, str), found
    return found


def test_hand_checked_grid_counts_and_reasons() -> None:
    # 4 GPUs, 2 layers, 2 heads, sequence 12, global batch 4, 12 = 3 recompute x 4 optimizer
    # settings below each micro-batch and SP choice. tp in {1, 2, 4} (divisors of 4 up to the
    # 8-GPU domain); pp divides 4 / tp up to 2 layers; cp divides 4 / (tp pp) up to 12 / 2.
    #   tp 1: pp 1 x cp {1, 2, 4} + pp 2 x cp {1, 2}: 5 x 4 micro-batches x 12 = 240
    #   tp 2 (SP off/on): pp 1 x cp {1, 2} + pp 2 x cp 1: 3 x 4 x 2 x 12 = 288
    #   tp 4: pp 1 x cp 1: 4 x 2 x 12 = 96, all rejected: 2 heads over tp 4
    # cp 4 (tp 1, pp 1): 12 tokens do not split into 8 chunks: 48 rejected.
    # global batch 4 over micro-batch x dp: dp 4 keeps mb 1 (36 rejected), dp 2 mb 1-2 (24 for
    # tp 1 pp 1 cp 2, 24 for tp 1 pp 2 cp 1, 2 x 24 for tp 2 pp 1 cp 1), dp 1 mb 1-4 (12 for
    # tp 1 pp 2 cp 2, 24 each for tp 2 pp 1 cp 2 and tp 2 pp 2 cp 1): 192. Memory: a 10M model
    # fits everywhere. Valid: 624 - 96 - 48 - 192 = 288.
    plan = plan_of()
    assert plan.result.candidates == 624
    assert plan.result.rejected == {
        "heads or query groups not divisible by tp": 96,
        "sequence not divisible by 2 x cp": 48,
        "global batch not a multiple of micro-batch x dp": 192,
    }
    assert len(plan.result.valid) == 288
    assert len({c.key for c in plan.result.valid}) == 288


def test_ffn_not_divisible_by_tp_is_rejected() -> None:
    # as the hand-checked grid, with 4 heads (tp 4 passes them) and an FFN of 1026 = 4 x 256
    # + 2: tp 4's 96 candidates (pp 1, cp 1, 4 micro-batches, SP off/on, 12) break PAR003's FFN
    # condition instead of the heads'; tp 2 (513 a rank) passes.
    plan = plan_of(heads=4, extra=", ffn_hidden_size: 1026")
    assert plan.result.rejected["FFN hidden size not divisible by tp"] == 96
    assert "heads or query groups not divisible by tp" not in plan.result.rejected
    assert {c.tp for c in plan.result.valid} == {1, 2}


def test_tp_outside_the_domain_and_memory_are_rejected() -> None:
    # 40 GPUs (5 nodes): tp 5 divides the world, not the 8-GPU NVLink domain
    plan = plan_of(nodes=5, gpus=40, heads=10, hidden=640, batch=40)
    assert plan.result.rejected["tp does not divide the NVLink domain"] > 0
    # 60e9 parameters on 4 GPUs: replicated states (18 B a parameter) never fit
    big = plan_of(params=60e9)
    assert all(c.optimizer in ("zero2", "zero3") for c in big.result.valid)
    assert big.result.rejected["does not fit in GPU memory"] > 0


MID = dict(nodes=2, params=13e9, layers=40, hidden=5120, heads=40, seq=4096, batch=32, gpus=16)


def _oracle(plan: Plan, wl: Workload) -> tuple[int, set[tuple[object, ...]]]:
    """Every grid point as the module docstring defines it, judged by PAR002-PAR004's own code."""
    a, domain, n = plan.space.arch, plan.space.machine.links.domain, wl.gpus
    usable = plan.space.usable_bytes / 2**30
    experts = [e for e in range(1, a.experts + 1) if a.experts % e == 0] if a.experts else [1]
    total, valid = 0, set()
    for tp in (d for d in range(1, 9) if n % d == 0):
        for pp in (d for d in range(1, a.layers + 1) if (n // tp) % d == 0):
            for cp in (d for d in range(1, n // (tp * pp) + 1) if (n // (tp * pp)) % d == 0):
                vpps = [1] + [v for v in range(2, a.layers // pp + 1) if (a.layers // pp) % v == 0]
                vpps = vpps if pp > 1 else [1]
                sps = (False, True) if tp > 1 else (False,)
                grid = itertools.product(experts, vpps, MICRO_BATCHES, sps, RECOMPUTE, range(4))
                for ep, vpp, mb, sp, rec, zero in grid:
                    total += 1
                    par = Parallel(
                        tp=tp, pp=pp, cp=cp, ep=ep, vpp=vpp, sequence_parallel=sp, zero_stage=zero
                    )  # type: ignore[call-arg]
                    trial = wl.model_copy(
                        update={"parallel": par, "micro_batch": mb, "recompute": rec}
                    )
                    if domain % tp or list(_broken(trial)):
                        continue
                    if memory_per_gpu(trial).total.m_as("GiB") > usable:
                        continue
                    dp = n // (tp * pp * cp)
                    valid.add((tp, pp, cp, ep, vpp, mb, RECOMPUTE.index(rec), sp, zero, n, dp))
    return total, valid


# an MoE: 8 experts of 2048-wide MLPs (top-2) in each of 8 layers, 4.3e9 parameters
MOE = dict(nodes=1, params=4.3e9, layers=8, hidden=4096, heads=32, seq=2048, batch=64, gpus=8)
MOE_EXTRA = ", ffn_hidden_size: 2048, experts: 8, top_k: 2, swiglu: true"


@pytest.mark.parametrize(("values", "extra"), [(MID, ""), (MOE, MOE_EXTRA)], ids=["dense", "moe"])
def test_every_candidate_agrees_with_the_par_rules(values: dict[str, object], extra: str) -> None:
    plan = plan_of(**values, extra=extra)
    wl = load_text(DESIGN.format(extra=extra, par="{tp: 1}", **values)).workloads[0]
    total, valid = _oracle(plan, wl)
    assert plan.result.candidates == total
    assert {(*c.key, c.dp) for c in plan.result.valid} == valid
    assert plan.result.rejected["does not fit in GPU memory"] > 0
    if extra:
        assert plan.result.rejected["MoE with tp > 1 needs sequence parallelism"] > 0
        assert {c.ep for c in plan.result.valid} == {1, 2, 4, 8}


def test_memory_matches_par004_estimate() -> None:
    plan = plan_of(**MID)
    wl = load_text(DESIGN.format(extra="", par="{tp: 1}", **MID)).workloads[0]
    for c in plan.result.valid[::97]:
        zero = OPTIMIZERS.index(c.optimizer)
        par = Parallel(
            tp=c.tp, pp=c.pp, cp=c.cp, vpp=c.vpp, sequence_parallel=c.sequence_parallel,
            zero_stage=zero,
        )  # type: ignore[call-arg]  # fmt: skip
        trial = wl.model_copy(
            update={"parallel": par, "micro_batch": c.micro_batch, "recompute": c.recompute}
        )
        assert c.memory == pytest.approx(memory_per_gpu(trial).total.m_as("B"), rel=1e-9)


def test_ranking_is_deterministic_and_ordered() -> None:
    first, second = plan_of(**MID), plan_of(**MID)
    assert [c.key for c in first.result.valid] == [c.key for c in second.result.valid]
    times = [c.step_time for c in first.result.valid]
    assert times == sorted(times)
    for a, b in itertools.pairwise(first.result.valid):  # equal times: the stated key order
        if a.step_time == b.step_time:
            assert a.key < b.key


def test_cost_ranking_over_gpu_counts_prefers_fewer_gpu_seconds() -> None:
    plan = plan_of(**MID)
    both = search(replace(plan.space, worlds=(8, 16)), by="cost")
    cost = [c.step_time * c.world for c in both.valid]
    assert cost == sorted(cost)
    assert {c.world for c in both.valid} == {8, 16}
    # the search's ranking is (metric, key), ties in key kept in the order examined
    ranked = sorted(both.valid, key=lambda c: (metric(c.step_time, c.world, "cost"), c.key))
    assert all(x is y for x, y in zip(ranked, both.valid, strict=True))
    assert len(set(cost)) < len(cost)  # with ties, which the search breaks by the key
    # the ranking sorts by the metric, then each tie by the key: in any order examined
    from random import Random

    from dclint.projection.search.layouts import _rank

    for by in ("cost", "time"):
        shuffled = list(both.valid)
        Random(7).shuffle(shuffled)
        _rank(shuffled, by)
        ranked = sorted(both.valid, key=lambda c: (metric(c.step_time, c.world, by), c.key))
        assert all(x is y for x, y in zip(ranked, shuffled, strict=True)), by


def test_declared_rank_is_its_place_in_the_ranking() -> None:
    plan = plan_of(**MID, par="{tp: 8, pp: 2}")
    assert plan.declared_reason is None
    assert plan.declared.key in {c.key for c in plan.result.valid}
    faster = [c for c in plan.result.valid if c.step_time < plan.declared.step_time]
    assert plan.declared_rank == len(faster) + 1  # equal times place it first among them
    assert plan.gap() == pytest.approx(plan.declared.step_time / plan.result.valid[0].step_time - 1)


@pytest.mark.parametrize(
    "design",
    [
        pytest.param(EXAMPLES / "par005" / "bad.yaml", id="par005-bad"),  # 13B on 64 H100: 1.6 s
        # the same equivalence on three samples (two searches each, 3.1 CPU-seconds on the
        # first's 320 GPUs): integration tier
        pytest.param(SAMPLES / "h100-40node.yaml", id="h100-40node.yaml", marks=INTEGRATION),
        pytest.param(
            SAMPLES / "gb200-superpod-su.yaml", id="gb200-superpod-su.yaml", marks=INTEGRATION
        ),
        pytest.param(
            SAMPLES / "broken-fabric-2to1.yaml", id="broken-fabric-2to1.yaml", marks=INTEGRATION
        ),
    ],
)
def test_rank_only_search_gives_the_same_best_and_rank(design: Path) -> None:
    from dclint.loader import load

    d = load(design)
    full = plan_layouts(d, d.workloads[0])
    quick = plan_layouts(d, d.workloads[0], rank_only=True)
    assert not isinstance(full, str) and not isinstance(quick, str)
    assert quick.result.valid[0].step_time == full.result.valid[0].step_time
    assert quick.declared_rank == full.declared_rank
    assert quick.result.valid_count == full.result.valid_count
    assert quick.result.rejected == full.result.rejected
    assert len(quick.result.valid) < len(full.result.valid)


def test_declared_layout_that_does_not_fit_is_placed_by_its_time() -> None:
    plan = plan_of(**MID)  # tp 1: 13e9 parameters' states on each GPU
    assert plan.declared_reason == "does not fit in GPU memory"
    assert plan.declared.key not in {c.key for c in plan.result.valid}
    faster = sum(1 for c in plan.result.valid if c.step_time < plan.declared.step_time)
    assert plan.declared_rank == faster + 1


@pytest.mark.parametrize(
    ("layers", "pp", "ends"),
    [(126, 16, (7, 7)), (126, 8, (15, 15)), (127, 2, (63, 64)), (128, 8, None), (40, 16, None)],
)
def test_uneven_split_is_megatrons_first_and_last_stages(
    layers: int, pp: int, ends: tuple[int, int] | None
) -> None:
    """Middle stages of ceil(layers / pp); the first and last share the rest, each 1 to a
    middle stage's (40 on pp 16: 14 middle stages of 3 leave -2)."""
    from dclint.projection.search.layouts import uneven_split

    assert uneven_split(layers, pp) == ends


@pytest.mark.parametrize(
    ("check", "kw", "field"),
    [
        (HEADS_TP, {"par": "{tp: 4}"}, ("parallel", "tp")),
        # 2 layers + the embedding over pp 2 (no uneven split with the embedding counted)
        (
            LAYERS_PP,
            {"par": "{pp: 2, account_for_embedding_in_pipeline_split: true}"},
            ("parallel", "pp"),
        ),
        (SEQ_CP, {"par": "{cp: 4}"}, ("parallel", "cp")),
        (BATCH_MB_DP, {"batch": 3}, ("global_batch",)),
    ],
)
def test_par003_the_search_and_the_declared_layout_read_one_check(
    check: Check, kw: dict[str, object], field: tuple[str, ...]
) -> None:
    # one broken condition: PAR003 finds it at its field, the declared layout is rejected with
    # the table's reason, and the search counts its rejections under the same reason
    plan = plan_of(**kw)
    design = load_text(DESIGN.format(**{**PLAN_DEFAULTS, **kw}))
    assert [where for where, *_ in _broken(design.workloads[0])] == [field]
    assert plan.declared_reason == check.message
    assert plan.result.rejected[check.message] > 0


def test_the_layout_checks_messages_have_one_home() -> None:
    from conftest import ROOT

    homes = {
        check.message: sorted(
            str(p.relative_to(ROOT))
            for p in [*ROOT.glob("dclint/**/*.py"), *ROOT.glob("rules/**/*.py")]
            if check.message in p.read_text()
        )
        for check in CHECKS
    }
    assert homes == {message: ["dclint/projection/layout_checks.py"] for message in homes}
    assert tuple(c.message for c in CHECKS) == REASONS


def test_the_moe_router_top_k_default_has_one_home() -> None:
    import re

    from conftest import ROOT

    # a model without top_k routes to DEFAULT_TOP_K experts (dclint.model.defaults), nowhere else
    copies = [
        str(p.relative_to(ROOT))
        for p in ROOT.glob("dclint/**/*.py")
        if re.search(r"top_k or (?!DEFAULT_TOP_K)", p.read_text())
    ]
    assert copies == []


def test_the_search_cache_drops_the_oldest_past_its_layouts_or_searches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """plan_layouts' searches are kept by the layouts they hold: a few large searches do not
    keep gigabytes, many small ones do not evict each other four at a time."""
    from types import SimpleNamespace

    import dclint.projection.search.plan as plan

    ran: list[object] = []

    def fake(space: object, by: str = "time", limit: float | None = None) -> object:
        ran.append(space)
        return SimpleNamespace(valid=[None] * int(str(space)))

    monkeypatch.setattr(plan, "search", fake)
    monkeypatch.setattr(plan, "SEARCH_CACHE_LAYOUTS", 10)
    monkeypatch.setattr(plan, "SEARCH_CACHE_SEARCHES", 3)
    cache = plan._SearchCache()

    def kept() -> list[str]:
        return [str(key[0]) for key in cache._kept]  # oldest first

    for size in ("4", "4", "5", "4"):  # the repeat is kept: 9 layouts; "4" used last
        cache(size)  # type: ignore[arg-type]
    assert ran == ["4", "5"] and kept() == ["5", "4"]
    cache("2")  # type: ignore[arg-type]  # 11 layouts: "5", used longest ago, goes
    cache("5")  # type: ignore[arg-type]  # searched again; 11 layouts: "4" goes
    assert ran == ["4", "5", "2", "5"] and kept() == ["2", "5"] and cache._layouts == 7
    cache("0")  # type: ignore[arg-type]
    cache("1")  # type: ignore[arg-type]  # a fourth search: "2" goes
    assert kept() == ["5", "0", "1"] and cache._layouts == 6
    cache("11")  # type: ignore[arg-type]  # the newest is kept, alone, over the bound
    assert kept() == ["11"] and cache._layouts == 11
