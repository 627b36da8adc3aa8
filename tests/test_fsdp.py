"""PyTorch FSDP as FSDP and the PyTorch-native software settings (issue 51): the schema of
`software.sharding`, `compile` / `kernels`, op-level selective recomputation, FP8 all-gather,
and what each does to the step model's terms."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dclint.errors import LoadError
from dclint.loader import load_text
from dclint.model.design import Design
from dclint.model.workload import Workload
from dclint.projection.hardware import hardware_of
from dclint.projection.predict import inputs, predict
from dclint.projection.step.model import Arch, Layout, Machine, Software, step
from dclint.projection.uncertainty import BANDS, ENVELOPE

DESIGN = """
name: fsdp
racks:
  - {{id: 'r[01-16]', platform: dgx-h100, nodes: 1}}
fabrics:
  - {{id: compute, kind: compute}}
workloads:
  - id: w
    model: {{parameters: 8.03e9, layers: 32, hidden_size: 4096, attention_heads: 32,
            query_groups: 8, ffn_hidden_size: 14336, vocab_size: 128256, {swiglu}}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: {batch}
    micro_batch: 2
    gpus: {gpus}
    parallel: {parallel}
    software: {software}
"""


def _wl(
    software: str = "{preset: torchtitan}",
    parallel: str = "{}",
    gpus: int = 8,
    batch: int = 16,
    swiglu: str = "swiglu: true",
) -> tuple[Design, Workload]:
    text = DESIGN.format(
        software=software, parallel=parallel, gpus=gpus, batch=batch, swiglu=swiglu
    )
    design = load_text(text)
    return design, design.workloads[0]


def _inputs(
    software: str = "{preset: torchtitan}",
    parallel: str = "{}",
    gpus: int = 8,
    batch: int = 16,
    swiglu: str = "swiglu: true",
) -> tuple[Arch, Layout, Machine, Software]:
    design, wl = _wl(software, parallel, gpus, batch, swiglu)
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    got = inputs(design, wl, hw, [])
    assert not isinstance(got, str), got
    return got


def test_compile_sets_the_kernels_unless_they_are_declared() -> None:
    assert _wl()[1].software_in_effect.kernels == "eager"  # TorchTitan's config default
    got = _wl("{preset: torchtitan, compile: true}")[1].software_in_effect
    assert got.kernels == "compiled"
    got = _wl("{preset: torchtitan, compile: true, kernels: transformer-engine}")[1]
    assert got.software_in_effect.kernels == "transformer-engine"
    assert _wl("{compile: false}")[1].software_in_effect.kernels == "eager"


def test_fsdp_shards_every_state_for_memory_unless_zero_stage_is_declared() -> None:
    assert _wl()[1].parallel.sharding == 3
    assert _wl("{sharding: {kind: hsdp, shard_group: 8}}")[1].parallel.sharding == 3
    assert _wl(parallel="{zero_stage: 1}")[1].parallel.sharding == 1
    assert _wl("{sharding: {kind: zero}}")[1].parallel.sharding == 1


def test_an_unknown_sharding_kind_is_a_load_error() -> None:
    with pytest.raises(LoadError):
        _wl("{sharding: {kind: ddp}}")


def test_fsdp_reshards_after_forward_unless_pipelined() -> None:
    """TorchTitan's default: reshard_after_forward without PP, not with it; declared wins.
    `zero_stage: 3` alone is ZeRO-3 as before (regathered every micro-batch, not torch's)."""
    lay = _inputs()[1]
    assert (lay.fsdp, lay.torch_fsdp, lay.reshard) == (True, True, True)
    lay = _inputs(parallel="{pp: 2}", gpus=16, batch=64)[1]
    assert (lay.fsdp, lay.torch_fsdp, lay.reshard) == (True, True, False)
    lay = _inputs("{preset: torchtitan, sharding: {kind: fsdp, reshard_after_forward: true}}",
                  parallel="{pp: 2}", gpus=16, batch=64)[1]  # fmt: skip
    assert lay.reshard
    lay = _inputs("{preset: megatron-core}", parallel="{zero_stage: 3, pp: 2}", gpus=16, batch=64)[
        1
    ]
    assert (lay.fsdp, lay.torch_fsdp, lay.reshard) == (True, False, True)


def test_gathering_once_a_step_costs_less_than_every_micro_batch() -> None:
    a, lay, mac, sw = _inputs(parallel="{pp: 2}", gpus=16, batch=64)
    once = step(a, lay, mac, sw)
    every = step(a, replace(lay, reshard=True), mac, sw)
    assert once.dp < every.dp
    assert once.compute == every.compute


def test_gradient_sync_follows_the_gathering_unless_declared() -> None:
    """`software.gradient_sync`: unset in every preset (TorchTitan and Composer sync every
    micro-batch; PyTorch's pipeline stages once a step), declared it reaches the step model;
    anything else is a load error."""
    for preset in ("torchtitan", "llm-foundry", "accelerate-deepspeed"):
        assert _wl(f"{{preset: {preset}}}")[1].software_in_effect.gradient_sync == ""
    sw = _inputs("{preset: torchtitan, gradient_sync: last-micro-batch}")[3]
    assert sw.gradient_sync == "last-micro-batch"
    with pytest.raises(LoadError):
        _wl("{preset: torchtitan, gradient_sync: never}")


def _dp(software: str, batch: int, parallel: str = "{}", gpus: int = 128) -> float:
    a, lay, mac, sw = _inputs(software, parallel=parallel, gpus=gpus, batch=batch)
    return step(a, lay, mac, sw).dp


def test_syncing_on_the_last_micro_batch_saves_a_reduce_scatter_a_micro_batch() -> None:
    """Resharding FSDP over 128 GPUs (micro-batch 2, the network legs exposed): with one
    micro-batch a step the two settings are the same step; with m, syncing on the last only
    saves m - 1 times what one micro-batch's reduce-scatter adds to its backward, so the
    saving at 4 micro-batches is 3 times the saving at 2."""
    every, last = "{preset: torchtitan}", "{preset: torchtitan, gradient_sync: last-micro-batch}"
    assert _dp(every, 256) == _dp(last, 256)  # one micro-batch a step
    saved = {m: _dp(every, 256 * m) - _dp(last, 256 * m) for m in (2, 4)}
    assert saved[2] > 0
    assert saved[4] == pytest.approx(3 * saved[2], rel=1e-12)
    declared = "{preset: torchtitan, gradient_sync: every-micro-batch}"
    assert _dp(declared, 1024) == _dp(every, 1024)


def test_under_pipeline_parallelism_the_default_syncs_once_a_step() -> None:
    """Not resharding (pp 2): unset is the last micro-batch's sync; every-micro-batch declared
    reduce-scatters each of the 4 micro-batches, the gathers still once a step."""
    pp = "{pp: 2}"
    once = _dp("{preset: torchtitan}", 64, pp, 16)
    assert once == _dp("{preset: torchtitan, gradient_sync: last-micro-batch}", 64, pp, 16)
    assert _dp("{preset: torchtitan, gradient_sync: every-micro-batch}", 64, pp, 16) > once


def test_without_a_pipeline_not_resharding_syncs_and_gathers_every_micro_batch() -> None:
    """pp 1 with reshard_after_forward false: fully_shard still reshards after each backward
    and syncs after each (its defaults; only PyTorch's pipeline stages turn both off), so unset
    is every-micro-batch and each micro-batch's forward gathers again; only the backward's
    regather is saved against resharding (8 micro-batches a step on 128 GPUs)."""
    keep = "{preset: torchtitan, sharding: {kind: fsdp, reshard_after_forward: false}"
    unset, every = _dp(keep + "}", 2048), _dp(keep + ", gradient_sync: every-micro-batch}", 2048)
    last = _dp(keep + ", gradient_sync: last-micro-batch}", 2048)
    assert unset == every > last
    resharding = _dp("{preset: torchtitan}", 2048)
    assert resharding > unset
    # each micro-batch's forward gathers: not resharding costs more with more micro-batches
    assert _dp(keep + "}", 4096) > unset


def test_a_declared_sync_without_pytorch_fsdp_says_it_is_not_read() -> None:
    """ZeRO-3 alone (Megatron-Core's) keeps its reduce-scatter a micro-batch, and the
    assumptions say the declared gradient_sync was not read."""
    design, wl = _wl(
        "{preset: megatron-core, gradient_sync: last-micro-batch}", "{zero_stage: 3}", 128, 1024
    )
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    got = predict(design, wl, hw)
    assert not isinstance(got, str)
    said = [a for a in got.assumptions if a.startswith("gradient_sync")]
    assert said == [
        "gradient_sync last-micro-batch not read: it is PyTorch FSDP's, and this layout shards "
        "nothing with it (ZeRO-3 without PyTorch FSDP reduces every micro-batch)"
    ]
    design, wl = _wl("{preset: torchtitan, gradient_sync: last-micro-batch}", gpus=128, batch=1024)
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    got = predict(design, wl, hw)
    assert not isinstance(got, str)
    assert not any(a.startswith("gradient_sync") for a in got.assumptions)


def test_zero_3_reduces_every_micro_batch_whatever_gradient_sync_says() -> None:
    """`parallel.zero_stage: 3` without PyTorch FSDP (DeepSpeed's or Megatron-Core's ZeRO-3)
    keeps its per-micro-batch reduce-scatter: DeepSpeed's ZeRO 2 and 3 reduce every backward
    (Accelerate's no_sync leaves them alone); the setting is PyTorch FSDP's."""
    zero3 = "{zero_stage: 3}"
    base = _dp("{preset: megatron-core}", 1024, zero3)
    assert base == _dp("{preset: megatron-core, gradient_sync: last-micro-batch}", 1024, zero3)


def test_fsdp_over_the_network_loses_more_a_gpu_than_over_nvlink() -> None:
    """8 GPUs gather over NVLink, 128 over the network: NCCL's kernels hold their SMs longer
    (FSDP_SM_SHARE on every leg), so throughput a GPU falls."""
    a, lay, mac, sw = _inputs()
    eight = step(a, lay, mac, sw)
    a, lay, mac, sw = _inputs(gpus=128, batch=256)
    many = step(a, lay, mac, sw)
    assert many.time > eight.time
    assert many.compute == eight.compute


def test_hsdp_gathers_inside_its_shard_group_and_all_reduces_across() -> None:
    a, lay, mac, sw = _inputs("{preset: torchtitan, sharding: {kind: hsdp, shard_group: 8}}",
                              gpus=128, batch=256)  # fmt: skip
    assert lay.shard_group == 8
    hsdp = step(a, lay, mac, sw)
    full = step(a, replace(lay, shard_group=0), mac, sw)
    assert hsdp.dp != full.dp


def test_fp8_all_gather_halves_the_gathered_bytes() -> None:
    a, lay, mac, sw = _inputs(gpus=128, batch=256)
    mac8 = replace(mac, fp8_cast_bytes=4.0)
    bf16 = step(a, lay, mac8, sw)
    fp8 = step(a, lay, mac8, replace(sw, fp8_all_gather=True))
    assert fp8.dp < bf16.dp
    # a bf16 run gathers bf16 whatever the setting says
    assert step(a, lay, mac, replace(sw, fp8_all_gather=True)).dp == step(a, lay, mac, sw).dp


def test_eager_kernels_cost_a_llama_layer_bytes_and_a_gpt_layer_none() -> None:
    a, lay, mac, sw = _inputs()
    eager, compiled = step(a, lay, mac, sw), step(a, lay, mac, replace(sw, kernels="compiled"))
    assert eager.compute > compiled.compute
    assert compiled.compute == step(a, lay, mac, replace(sw, kernels="transformer-engine")).compute
    a, lay, mac, sw = _inputs(swiglu="swiglu: false")
    assert (
        step(a, lay, mac, sw).compute == step(a, lay, mac, replace(sw, kernels="compiled")).compute
    )


def test_op_level_selective_recomputation_repeats_half_the_gemms() -> None:
    a, lay, mac, sw = _inputs()
    assert lay.recompute == "selective" and sw.op_recompute
    op = step(a, lay, mac, sw)
    core = step(a, lay, mac, replace(sw, op_recompute=False))
    full = step(a, replace(lay, recompute="full"), mac, sw)
    assert core.recompute == 0.0  # flash attention already recomputes the scores
    assert 0 < op.recompute < full.recompute
    assert op.hardware_flops > op.model_flops


def test_either_stack_on_hopper_takes_its_band_and_blackwell_native_says_why() -> None:
    """A generation's band holds every publication of it, Megatron-family and PyTorch-native
    alike: the same 8B on 8 H100 under TorchTitan and under Megatron-Core takes the one Hopper
    band, inside the domain. On B200 no PyTorch-native calibration run exists, so the
    TorchTitan run is outside the domain, takes the envelope (widened to hold Blackwell's
    band) and says why."""
    bands = []
    for software in ("{preset: torchtitan}", "{preset: megatron-core}"):
        design, wl = _wl(software)
        hw = hardware_of(design, wl.platform)
        assert not isinstance(hw, str)
        got = predict(design, wl, hw)
        assert not isinstance(got, str)
        bands.append(got.band)
    native, megatron = bands
    assert native == megatron
    assert not native.outside
    low, high, runs, sources = BANDS["hopper"]
    assert (native.low_factor, native.high_factor, native.runs) == (low, high, runs)
    assert native.source.startswith(
        "an 80% prediction interval of measured over predicted step time, for a run on a setup "
        f"other than dclint's calibration sources (random effects over {runs} runs from "
        f"{sources} published Hopper benchmarks)"
    )
    text = DESIGN.format(software="{preset: torchtitan}", parallel="{}", gpus=8, batch=16,
                         swiglu="swiglu: true").replace("dgx-h100", "dgx-b200")  # fmt: skip
    design = load_text(text)
    wl = design.workloads[0]
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    got = predict(design, wl, hw)
    assert not isinstance(got, str)
    assert got.band.outside == ("no Blackwell PyTorch-native dense calibration run",)
    assert got.band.runs == 0
    assert (got.band.low_factor, got.band.high_factor) == (
        min(ENVELOPE[0], BANDS["blackwell"][0]),
        max(ENVELOPE[1], BANDS["blackwell"][1]),
    )
    assert got.band.source.startswith(
        "outside the calibration domain (no Blackwell PyTorch-native dense calibration run): "
        f"the envelope of all {ENVELOPE[2]} calibration runs"
    )


@pytest.mark.parametrize(
    "preset", ["torchtitan", "llm-foundry", "accelerate-deepspeed", "megatron-core", "nemo"]
)
def test_every_new_preset_predicts_and_names_itself(preset: str) -> None:
    design, wl = _wl(f"{{preset: {preset}}}", parallel="{zero_stage: 3}", gpus=16, batch=32)
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    got = predict(design, wl, hw)
    assert not isinstance(got, str), got
    assert any(f"preset {preset} (" in note for note in got.assumptions)
    assert got.step_time.m_as("s") > 0


def test_per_projection_under_async_tp_says_it_is_not_modelled() -> None:
    """The step model's async-TP branch budgets Megatron's plan's 4 collectives a pass: a
    per-projection plan declared with async TP says so, where the blocking plan names its 7."""

    def said(software: str) -> list[str]:
        design, wl = _wl(software, "{tp: 4}")
        hw = hardware_of(design, wl.platform)
        assert not isinstance(hw, str)
        got = predict(design, wl, hw)
        assert not isinstance(got, str)
        heads = ("tp_plan per-projection", "tensor parallel per projection")
        return [a[:60] for a in got.assumptions if a.startswith(heads)]

    assert said("{preset: torchtitan, tp_plan: per-projection, overlap_tp: true}") == [
        "tp_plan per-projection under async TP: not modelled (no sour"
    ]
    assert said("{preset: torchtitan, tp_plan: per-projection}") == [
        "tensor parallel per projection (tp_plan per-projection, Kemp"
    ]
