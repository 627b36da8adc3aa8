"""The step model's terms mended from the code the runs ran (docs/performance-model.md, Sourced
mends, ce15), and the two review notes (L3) that had no test: each term against an independent
count of what the code does, and the setting that turns it off."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_calibration import _declared, _inputs, _native, _validation, prediction

from dclint.projection.collectives import group_time
from dclint.projection.predict import inputs
from dclint.projection.step.model import ACT, _layer_pass, _loss_gather, step
from dclint.projection.step.records import (
    FUSED_CROSS_ENTROPY_GATHER_BYTES,
    MX_CAST_BYTES,
)


def test_the_fused_loss_all_gathers_three_fp32_a_token_over_tp() -> None:
    """Transformer Engine's parallel cross-entropy at tp 2 (MLPerf v5.1's Llama 3.1 8B on 512
    GB200, CE_FUSION_IMPL te): one blocking all-gather a micro-batch of each rank's max, sum
    and target logit, 3 fp32 a token (cross_entropy_forward, v2.2 to v2.9), on the stage with
    the loss: 7.3 us a step here (one micro-batch, latency more than bytes), in the
    tensor-parallel term. Not at tp 1, not on a stage
    without the loss, not with Megatron's own loss (whose all-reduces dclint does not charge)."""
    assert FUSED_CROSS_ENTROPY_GATHER_BYTES == 3 * 4
    a, lay, mac, sw = _inputs("mlperf-training-blackwell: llama31-8b-512-v5.1-tyche")
    assert (lay.tp, lay.head, sw.fused_cross_entropy) == (2, True, True)
    x = _layer_pass(a, lay, mac, sw)
    one = group_time(mac.links, (lay.tp - 1) * x.n * 12, lay.tp, 1, calls=1)
    assert _loss_gather(lay, mac, sw, x) == pytest.approx(x.m * one, rel=1e-15)
    unfused = replace(sw, fused_cross_entropy=False)
    moved = step(a, lay, mac, sw).tp - step(a, lay, mac, unfused).tp
    assert moved == pytest.approx(x.m * one, rel=1e-9)
    assert round(moved * 1e6, 1) == 7.3
    assert _loss_gather(replace(lay, head=False), mac, sw, x) == 0.0
    a1, lay1, mac1, sw1 = _inputs("mlperf-training-blackwell: llama31-8b-72-v5.1-tyche")
    assert lay1.tp == 1
    assert _loss_gather(lay1, mac1, sw1, _layer_pass(a1, lay1, mac1, sw1)) == 0.0


def test_async_tp_budgets_each_collective_against_the_matmuls_it_is_fused_with() -> None:
    """TorchTitan's 70B under async TP (tp 8, full AC): a forward pass's all-gather or
    reduce-scatter, 5.2 ms each, outlasts QKV's GQA GEMM (2.2 ms) and wo's (1.8 ms) and hides
    under the MLP's (12.3 ms, 6.1 ms): 6.5 ms a layer exposed, 1.038 s a step over the two
    forward passes, where the four against the whole forward's 22.4 ms hid everything."""
    a, lay, mac, sw = _inputs("torchtitan-h100: llama31-70b-256-2d-asynctp")
    assert (sw.async_tp, lay.recompute) == (True, "full")
    x = _layer_pass(a, lay, mac, sw)
    rate = mac.peak * mac.matmul_eff
    one = group_time(mac.links, (lay.tp - 1) / lay.tp * x.n * a.hidden * ACT, lay.tp, 1)
    gemms = [g / rate for g in x.gemms_fwd_g]
    assert [round(g * 1e3, 1) for g in (one, *gemms)] == [5.2, 2.2, 1.8, 12.3, 6.1]
    assert 4 * one < sum(gemms)  # the whole forward's GEMMs would hide the four
    exposed = sum(max(0.0, one - g) for g in gemms)
    assert round(exposed * 1e3, 1) == 6.5
    blocking = step(a, lay, mac, replace(sw, overlap_tp=False)).tp
    async_tp = step(a, lay, mac, sw).tp
    backward = async_tp - x.m * x.per_layer * 2 * exposed
    assert (round(async_tp, 3), round(backward, 3), round(blocking, 3)) == (4.399, 3.361, 6.722)
    assert backward == pytest.approx(blocking / 2, rel=1e-9)  # the backward's 2 of 4 passes


def test_rowwise_async_tp_is_skipped_in_an_fp4_run() -> None:
    """The rowwise branch of async TP (all-gathers blocking, TorchTitan's rowwise TP moving
    BF16) is the FP8 recipe's: an FP4 run, whose GEMMs are NVFP4's, takes the plain async-TP
    term whatever fp8_recipe it declares."""
    run = _validation("torchtitan-asynctp-h100")["llama31-70b-256-tp8-rowwise-async"]
    got = inputs(run.design, run.wl, run.hw, [])
    assert not isinstance(got, str)
    a, lay, mac, sw = got
    assert (sw.async_tp, sw.fp8_recipe) == (True, "rowwise")

    def tp(machine: object, recipe: str) -> float:
        return step(a, lay, machine, replace(sw, fp8_recipe=recipe)).tp  # type: ignore[arg-type]

    fp4 = replace(mac, fp4=True)
    assert tp(fp4, "rowwise") == tp(fp4, "tensorwise")
    assert tp(mac, "rowwise") > tp(mac, "tensorwise")  # in FP8 the all-gathers block


def test_flex_dispatcher_expert_tp_is_timed_inside_its_all_to_all() -> None:
    """Qwen3 30B on 16 H100 with DeepEP (NeMo 26.02) declared at expert tp 2: the note says the
    flex dispatcher sends each routed token to its expert's expert-tp ranks in the all-to-all
    and the model times it at one copy; no expert-tp all-gather or reduce-scatter is charged
    (tp 1: no tensor-parallel term at all). Under the all-to-all dispatcher the same layout's
    notes say they run exposed, and they are charged."""
    run = _native("megatron-bridge-qwen3-h100", "qwen3-30b-a3b-16-26.02")
    flex = _declared(run, software={"expert_tp": 2})
    notes = prediction(run, flex).assumptions
    assert [n for n in notes if n.startswith("expert tp")] == [
        "expert tp 2 with the flex dispatcher: the dispatch sends each routed token to the 2 "
        "expert-tp ranks of its expert (Megatron-Core's MoEFlexTokenDispatcher, top-k and "
        "experts x expert tp over the tp x ep group); the step model times the all-to-all at "
        "one copy"
    ]
    got = inputs(run.design, flex, run.hw, [])
    assert not isinstance(got, str)
    a, lay, mac, sw = got
    assert (lay.tp, sw.expert_tp, sw.node_dedup) == (1, 2, True)
    assert step(a, lay, mac, sw).tp == 0.0
    alltoall = _declared(run, software={"expert_tp": 2, "ep_dispatcher": "alltoall"})
    notes = prediction(run, alltoall).assumptions
    assert [n[:60] for n in notes if n.startswith("expert tp")] == [
        "expert tp 2: Megatron-Core's all-to-all dispatcher all-gathe"
    ]
    got = inputs(run.design, alltoall, run.hw, [])
    assert not isinstance(got, str)
    assert step(*got).tp > 0.0


def test_llm_foundry_te_linear_casts_the_qkv_and_first_ffn_inputs() -> None:
    """llm-foundry's FP8 (fc_type te: every Linear a te.Linear after PyTorch's LayerNorm): the
    QKV's and the first FFN GEMM's BF16 inputs are cast with their transpose too, 2 h elements
    a token more than Megatron-Core's layer casts, at Transformer Engine's 4 B (delayed
    scaling, Hopper). The BF16 rows do not move."""
    run = _validation("llm-foundry-h100-fp8")["mpt-3b-h100-8gpu-8192-fp8"]
    got = inputs(run.design, run.wl, run.hw, [])
    assert not isinstance(got, str)
    a, lay, mac, sw = got
    assert (sw.fp8_cast_every_input, sw.fp8_recipe, mac.fp8_cast_bytes) == (True, "delayed", 4.0)
    mine = _layer_pass(a, lay, mac, sw).cast_fwd
    megatron = _layer_pass(a, lay, mac, replace(sw, fp8_cast_every_input=False)).cast_fwd
    n = lay.micro_batch * a.seq
    assert mine - megatron == pytest.approx(4.0 * n * 2 * 2560 / (mac.hbm * mac.hbm_eff))
    notes = prediction(run).assumptions
    assert any(n.startswith("llm-foundry FP8 (fc_type te") for n in notes)
    a, lay, mac, sw = _inputs("llm-foundry: mpt-3b-h100-8gpu-8192")
    assert sw.fp8_cast_every_input and mac.fp8_cast_bytes == 0.0
    assert _layer_pass(a, lay, mac, sw) == _layer_pass(
        a, lay, mac, replace(sw, fp8_cast_every_input=False)
    )


def test_torchtitan_mxfp8_casts_as_torchao_mx_linear() -> None:
    """torchao's `mxfp8_cublas` under TorchTitan (Llama 3 8B, tp 1): mx_mm casts each Linear's
    input and weight forward (wq, wk, wv each x; w1, w3 each h), and backward its output
    gradient along rows and columns and its weight and saved input along columns, 3.03 B an
    element a cast (2 read, 1 written, an E8M0 scale every 32). Counted here from the
    architecture: 8,192 tokens x 38,912 input elements, 218,103,808 weight elements and 8,192
    x 43,008 output elements a layer."""
    assert MX_CAST_BYTES == 3.03125
    run = _validation("torchao-mx-b200")["llama3-8b-mxfp8-cublas"]
    got = inputs(run.design, run.wl, run.hw, [])
    assert not isinstance(got, str)
    a, lay, mac, sw = got
    assert (sw.torchao_mx, lay.tp, a.hidden, a.ffn) == (True, 1, 4096, 14336)
    h, q, kv, f = 4096, 4096, 1024, 14336
    tokens = 8192
    elements = tokens * (3 * h + q + 2 * h + f)
    weights = h * (q + 2 * kv) + q * h + 3 * h * f
    outputs = tokens * ((q + 2 * kv) + h + 2 * f + h)
    assert (elements, weights, outputs) == (8192 * 38912, 218103808, 8192 * 43008)
    x = _layer_pass(a, lay, mac, sw)
    rate = mac.hbm * mac.hbm_eff
    assert x.cast_fwd == pytest.approx(MX_CAST_BYTES * (elements + weights) / rate, rel=1e-12)
    # the backward against Transformer Engine's MXFP8 terms, which cast each output gradient
    # once with its column-wise copy (the cast's 4 B and two E8M0 scales every 32 elements)
    te = _layer_pass(a, lay, mac, replace(sw, torchao_mx=False))
    assert mac.fp8_cast_bytes == 4.0
    mx_bwd = MX_CAST_BYTES * (elements + weights + 2 * outputs)
    te_bwd = (4.0 + 2 / 32) * outputs
    assert x.bwd - te.bwd == pytest.approx((mx_bwd - te_bwd) / rate, rel=1e-9)
    assert te.cast_fwd < x.cast_fwd  # Transformer Engine's terms: two inputs, no weights
    notes = prediction(run).assumptions
    assert any("torchao MX linear (mxfp8_cublas" in n for n in notes)
