"""`dclint plan` for PyTorch FSDP software (issue 51): the search tries FSDP's
reshard_after_forward and HSDP shard groups instead of Megatron-Core's optimizer-only
sharding, within memory, and picks what is faster and fits."""

from __future__ import annotations

import pytest

from dclint.loader import load_text
from dclint.model.software import Sharding
from dclint.projection.memory import memory_per_gpu
from dclint.projection.search.layouts import fsdp_variants
from dclint.projection.search.plan import Plan, plan_layouts, set_line

TITAN = """
name: titan
racks:
  - {id: 'r[01-02]', platform: dgx-h100, nodes: 1}
fabrics:
  - {id: compute, kind: compute}
workloads:
  - id: w
    model: {parameters: 8.03e9, layers: 32, hidden_size: 4096, attention_heads: 32,
            query_groups: 8, ffn_hidden_size: 14336, vocab_size: 128256, swiglu: true,
            dropout: false}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 16
    gpus: 16
    software: {preset: torchtitan}
    parallel: {tp: 1}
"""


def _plan(reserve: float = 0.1) -> Plan:
    design = load_text(TITAN)
    plan = plan_layouts(design, design.workloads[0], reserve=reserve)
    assert not isinstance(plan, str), plan
    return plan


def test_fsdp_variants_are_reshard_or_not_over_all_ranks_or_whole_nodes() -> None:
    plan = _plan()
    lay = plan.result.valid[0]
    from dclint.projection.step.model import Layout

    got = fsdp_variants(plan.space, Layout(tp=1, dp=16))
    assert got == [(True, 0), (False, 0), (True, 8), (False, 8)]
    assert fsdp_variants(plan.space, Layout(tp=2, dp=64)) == [
        (r, g) for g in (0, 4, 8, 16, 32) for r in (True, False)
    ]
    assert fsdp_variants(plan.space, Layout(tp=8, dp=8))[2:4] == [(True, 2), (False, 2)]
    assert lay.reshard is not None


def test_plan_picks_hsdp_without_resharding_where_it_is_faster_and_fits() -> None:
    plan = _plan()
    best, declared = plan.result.valid[0], plan.declared
    # TorchTitan's default at pp 1: FSDP over all 16 ranks, regathered every micro-batch
    assert (declared.reshard, declared.shard_group) == (True, 0)
    assert (best.tp, best.pp, best.cp, best.micro_batch, best.recompute) == (1, 1, 1, 1, "none")
    assert (best.reshard, best.shard_group, best.sharding) == (False, 8, "hsdp 8, no reshard")
    assert best.step_time < declared.step_time
    # PyTorch FSDP has no optimizer-only sharding: no distributed optimizer, no ZeRO-2
    assert {c.optimizer for c in plan.result.valid} == {"replicated", "zero3"}
    assert plan.result.rejected["ZeRO stage PyTorch FSDP does not run"] > 0
    assert set_line("w", best, 16).endswith(
        "--set 'workloads.w.software.sharding={kind: hsdp, shard_group: 8, "
        "reshard_after_forward: false}'"
    )


def test_the_searched_memory_is_par004s_for_the_same_software() -> None:
    """Each FSDP variant's memory as PAR004 counts the workload run that way: HSDP's states
    over the shard group, the gathered weights whole without resharding."""
    plan = _plan()
    wl = load_text(TITAN).workloads[0]
    seen = set()
    for c in plan.result.valid:
        if c.reshard is None or (c.reshard, c.shard_group) in seen or c.recompute != "none":
            continue
        seen.add((c.reshard, c.shard_group))
        sharding = Sharding(
            kind="hsdp" if c.shard_group else "fsdp",
            shard_group=c.shard_group or None,
            reshard_after_forward=c.reshard,
        )
        trial = wl.model_copy(
            update={
                "software": wl.software.model_copy(update={"sharding": sharding}),
                "parallel": wl.parallel.model_copy(
                    update={"tp": c.tp, "pp": c.pp, "cp": c.cp, "zero_stage": 3}
                ),
                "micro_batch": c.micro_batch,
                "recompute": c.recompute,
            }
        )
        assert c.memory == pytest.approx(memory_per_gpu(trial).total.m_as("B"), rel=1e-12)
    assert seen == {(r, g) for r in (True, False) for g in (0, 2, 4, 8)}  # 2 and 4: tp 8, 4


def test_the_search_keeps_memory_when_the_gathered_weights_do_not_fit() -> None:
    """With a quarter of the 79.6 GiB kept free (59.7 usable), keeping the gathered weights
    (62-70 GiB at micro-batch 1) no longer fits: the best reshards."""
    plan = _plan(reserve=0.25)
    best = plan.result.valid[0]
    assert best.reshard is True
    assert all(c.memory <= plan.space.usable_bytes for c in plan.result.valid)
    assert all(c.reshard is not False or c.memory <= plan.space.usable_bytes
               for c in plan.result.valid)  # fmt: skip
    assert not any(c.reshard is False and (c.tp, c.pp, c.cp, c.micro_batch) == (1, 1, 1, 1)
                   and c.recompute == "none" for c in plan.result.valid)  # fmt: skip
    assert (best.tp, best.pp, best.shard_group, best.sharding) == (1, 1, 8, "hsdp 8")


BEST = (
    "    parallel: {tp: 1, pp: 1, vpp: 1, cp: 1, ep: 1, sequence_parallel: false, "
    "distributed_optimizer: true, zero_stage: 3}\n"
    "    micro_batch: 1\n"
    "    recompute: none\n"
)
HSDP = "{kind: hsdp, shard_group: 8, reshard_after_forward: false}"


@pytest.mark.parametrize(
    ("software", "written"),
    [
        # flow style: the key added inside the braces
        (
            "    software: {preset: torchtitan}\n",
            f"    software: {{preset: torchtitan, sharding: {HSDP}}}\n",
        ),
        # block style: a line below the mapping's last, its comments kept
        (
            "    software:\n      preset: torchtitan  # TorchTitan's defaults\n    # the layout\n",
            "    software:\n      preset: torchtitan  # TorchTitan's defaults\n"
            f"      sharding: {HSDP}\n    # the layout\n",
        ),
        # a declared sharding replaced, the measured MFU of the old layout removed
        (
            "    software:\n      preset: torchtitan\n      sharding:\n        kind: fsdp  # all\n"
            "        reshard_after_forward: true\n    mfu: 0.4\n",
            f"    software:\n      preset: torchtitan\n      sharding: {HSDP}\n",
        ),
    ],
)
def test_plan_apply_writes_the_best_layouts_sharding(
    software: str, written: str, tmp_path, monkeypatch, capsys
) -> None:
    """`plan --apply` writes software.sharding when the best layout changes it (HSDP over
    whole nodes without resharding, 18.2% faster than FSDP's default here), keeping the
    file's comments; applied again, the file stays as it is."""
    from dclint.cli import main

    monkeypatch.chdir(tmp_path)
    head, tail = TITAN.split("    software: {preset: torchtitan}\n    parallel: {tp: 1}\n")
    (tmp_path / "t.yaml").write_text(head + software + "    parallel: {tp: 1}\n" + tail)
    assert main(["plan", "t.yaml", "--apply"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "t.yaml: workload w: layout set to tp 1, pp 1, vpp 1, cp 1, ep 1, micro-batch 1, "
        f"recompute none, software.sharding {HSDP} (the declared one was 18.0% slower a step, "
        "predicted)"
    )
    stale = (
        "t.yaml: workload w: removed the declared mfu: 0.4 (measured on the old layout, it no "
        "longer describes the new one; measure the new layout and declare it again)"
    )
    assert out[1:] == ([stale] if "mfu" in software else [])
    got = (tmp_path / "t.yaml").read_text()
    assert got == head + written + BEST + tail
    wl = load_text(got).workloads[0].software_in_effect
    assert (wl.sharding, wl.shard_group, wl.reshard_after_forward) == ("hsdp", 8, False)
    assert main(["plan", "t.yaml", "--apply"]) == 0
    assert (tmp_path / "t.yaml").read_text() == got
    assert "software.sharding" not in capsys.readouterr().out


def test_plan_offers_composer_sharded_data_parallelism_only() -> None:
    """llm-foundry (Composer) runs FSDP / HSDP without pipeline or context parallelism, and
    its tensor parallelism (the ffn strategy) is not the one the step model times: its search
    keeps tp, pp, vpp and cp at 1 (layout_checks.DATA_PARALLEL_ONLY); TorchTitan's does not."""
    shapes = {}
    for preset in ("llm-foundry", "torchtitan"):
        design = load_text(TITAN.replace("preset: torchtitan", f"preset: {preset}"))
        plan = plan_layouts(design, design.workloads[0], reserve=0.1)
        assert not isinstance(plan, str), plan
        shapes[preset] = {(c.tp, c.pp, c.vpp, c.cp) for c in plan.result.valid}
        assert plan.space.model_parallel is (preset == "torchtitan")
    assert shapes["llm-foundry"] == {(1, 1, 1, 1)}
    assert {(2, 1, 1, 1), (1, 2, 1, 1), (1, 1, 1, 2)} <= shapes["torchtitan"]
