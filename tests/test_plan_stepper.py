"""The layout search times its layouts with `Stepper` and weighs their memory on one Shape a
layout (dclint.projection.search.layouts): each candidate's Step and memory are, to the bit,
what `step` and `memory_bytes` give its layout alone."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_plan_fsdp import TITAN
from test_plan_search import MOE, MOE_EXTRA, plan_of

from conftest import EXAMPLES
from dclint.loader.load import load, load_text
from dclint.model.design import Design
from dclint.projection.search.layouts import memory_bytes, search
from dclint.projection.search.plan import plan_layouts
from dclint.projection.search.records import OPTIMIZERS, Candidate, Space
from dclint.projection.step.model import Layout, step


def _layout(space: Space, c: Candidate) -> Layout:
    a = space.arch
    stage = max(c.first_layers, c.last_layers, -(-a.layers // c.pp)) if c.first_layers else 0.0
    zero = OPTIMIZERS.index(c.optimizer)
    return Layout(
        c.tp, c.pp, c.cp, c.dp, c.ep, c.vpp, c.micro_batch, space.global_batch,
        c.sequence_parallel, zero >= 1, c.recompute, fsdp=c.reshard is not None,
        reshard=c.reshard if c.reshard is not None else True, shard_group=c.shard_group,
        torch_fsdp=c.reshard is not None, stage_layers=stage,
    )  # fmt: skip


def _design(which: str) -> Design:
    if which == "dense":
        return load(str(EXAMPLES / "par005" / "bad.yaml"))
    return load_text(TITAN)


@pytest.mark.parametrize("which", ["dense", "uneven", "fsdp", "moe", "offload"])
def test_each_candidate_is_timed_and_weighed_as_its_layout_alone(which: str) -> None:
    if which == "moe":
        plan = plan_of(**MOE, extra=MOE_EXTRA)
    elif which in ("uneven", "offload"):  # 6 layers on pp 4: 1 + 2 + 2 + 1 (Megatron-Core's)
        plan = plan_of(layers=6, batch=16, gpus=8)
    else:
        design = _design(which)
        found = plan_layouts(design, design.workloads[0])
        assert not isinstance(found, str), found
        plan = found
    space, valid = plan.space, plan.result.valid
    if which == "offload":  # 2 of 6 layers' activations offloaded (pp 1 only)
        space = replace(space, offload=2)
        valid = search(space).valid
    sw, a, mac = space.software, space.arch, space.machine
    seen = valid[:: max(1, len(valid) // 150)]
    assert len(seen) >= 10
    for c in seen:
        lay = _layout(space, c)
        assert c.step == step(a, lay, mac, sw, space.causal), c
        ends = (c.first_layers, c.last_layers) if c.first_layers else None
        memory = memory_bytes(
            a, lay, OPTIMIZERS.index(c.optimizer), sw.flash_attention, space.split_ends, ends,
            space.terms, sw.expert_tp, space.saved, space.offload, space.layer_weight_bytes,
            space.op_recompute, c.shard_group, c.reshard is False,
        )  # fmt: skip
        assert c.memory == memory, c
    if which == "uneven":
        assert any(c.first_layers for c in seen)
    if which == "fsdp":
        assert any(c.reshard is not None for c in seen)
    if which == "offload":
        assert any(c.pp == 1 for c in seen)
