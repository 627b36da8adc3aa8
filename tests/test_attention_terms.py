"""The step model's attention and optimizer terms of issue 51's sixth round, each held to the
figures it is built from: Hopper's attention kernels at their rate for the run's sequence
length (the FlashAttention-3 paper's Fig. 5 and 6), llm-foundry's padding copies around
flash-attn's varlen kernel (VARLEN_PAD_PASSES), SDPA's cuDNN backend (attention_kernel
cudnn) and AdamW on a bf16 model (ADAM_BF16_BYTES). docs/performance-model.md, *Attention by
sequence length*, *llm-foundry's flash path*, *Held out: KempnerForge on H200*."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from test_calibration import _declared, _run_inputs, _validation, prediction, runs

from dclint.projection.efficiency import (
    _CUDNN_H100_BY_LENGTH,
    _CUDNN_H100_HD64_BY_LENGTH,
    _FA2_H100_BY_LENGTH,
    _FA2_H100_HD64_BY_LENGTH,
    ATTENTION_LENGTHS,
    CUDNN_SDPA_SOURCE,
    FUSED_ATTENTION_SOURCE,
    FUSED_NARROW_SOURCE,
    length_factors,
)
from dclint.projection.memory import (
    BF16_GRAD_BYTES,
    BF16_OPTIMIZER_BYTES,
    memory_per_gpu,
    state_bytes,
)
from dclint.projection.predict import software
from dclint.projection.step.model import _layer_pass, step
from dclint.projection.step.records import (
    ACT,
    ADAM_BF16_BYTES,
    ADAM_BYTES,
    CLIP_BF16_BYTES,
    CLIP_BYTES,
    COMPOSER_ADAM_BF16_BYTES,
    COMPOSER_ADAM_BYTES,
    MEGATRON_CLIP_BYTES,
    VARLEN_PAD_PASSES,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "performance-model.md"


def test_the_rate_at_a_length_is_the_figure_measured_there() -> None:
    """At 2K FlashAttention-2 runs 298, 362 and 291 TFLOPS against 335, 370 and 322 at 16K:
    each pass takes 16K's rate over 2K's longer. Below 512 tokens the 512 figures hold, above
    16K the 16K ones; between two lengths the rate is interpolated in log length (3K: 0.585 of
    the way from 2K to 4K, 298 + 0.585 x 21 = 310.3 TFLOPS causal forward)."""
    assert [round(f, 4) for f in length_factors(_FA2_H100_BY_LENGTH, 2048)] == [
        round(335 / 298, 4),
        round(370 / 362, 4),
        round(322 / 291, 4),
    ]
    assert [round(f, 4) for f in length_factors(_CUDNN_H100_BY_LENGTH, 2048)] == [
        round(539 / 484, 4),
        round(595 / 617, 4),  # cuDNN's unmasked forward peaks at 2K: below 1
        round(516 / 465, 4),
    ]
    assert [round(f, 4) for f in length_factors(_FA2_H100_BY_LENGTH, 300)] == [
        round(335 / 191, 4),
        round(370 / 309, 4),
        round(322 / 214, 4),
    ]
    assert length_factors(_FA2_H100_BY_LENGTH, 32768) == (1.0, 1.0, 1.0)
    assert round(length_factors(_FA2_H100_BY_LENGTH, 3072)[0], 4) == 1.0797  # 335 / 310.28
    assert length_factors((), 2048) == (1.0, 1.0, 1.0)  # no rates by length: the one rate


def test_the_docs_table_is_the_codes() -> None:
    """docs/performance-model.md's table of the rates by length prints the code's figures."""
    text = DOCS.read_text(encoding="utf-8")
    header = "| tokens | " + " | ".join(
        f"{n // 1024}K" if n >= 1024 else str(n) for n in ATTENTION_LENGTHS
    )
    assert header + " |" in text
    for name, rates in (
        ("FlashAttention-2", _FA2_H100_BY_LENGTH),
        ("cuDNN", _CUDNN_H100_BY_LENGTH),
        ("FlashAttention-2, head dim 64", _FA2_H100_HD64_BY_LENGTH),
        ("cuDNN, head dim 64", _CUDNN_H100_HD64_BY_LENGTH),
    ):
        row = re.search(rf"^\| {name} \| (.*) \|$", text, re.M)
        assert row is not None, name
        cells = [c.strip() for c in row.group(1).split("|")]
        assert cells == [
            ", ".join(f"{rates[p][i]:g}" for p in range(3)) for i in range(len(ATTENTION_LENGTHS))
        ]


def test_sdpa_on_cudnn_is_timed_as_transformer_engines_fused_attention() -> None:
    """KempnerForge's runs declare attention_kernel cudnn (torch 2.11 with cuDNN 9.19 puts SDPA's
    cuDNN backend first on sm90): on Hopper the step is the one `flash` gives, with its own
    note; as FlashAttention-2 (sdpa) run 01 takes longer (3.676 s against 3.868 s; 3.663 s and 3.856
    s at fef8168, before gradient clipping)."""
    run = _validation("kempnerforge-h200")["01-7b-1gpu-single"]
    assert run.wl.software_in_effect.attention_kernel == "cudnn"
    cudnn = prediction(run)
    flash = prediction(run, _declared(run, software={"attention_kernel": "flash"}))
    sdpa = prediction(run, _declared(run, software={"attention_kernel": "sdpa"}))
    assert cudnn.step_time == flash.step_time
    assert round(cudnn.step_time.m_as("s"), 3) == 3.676
    assert round(sdpa.step_time.m_as("s"), 3) == 3.868
    notes = [n for n in cudnn.assumptions if n.startswith("core attention in")]
    assert notes == [f"core attention in {CUDNN_SDPA_SOURCE}"]
    assert [n for n in flash.assumptions if n.startswith("core attention in")] == [
        f"core attention in {FUSED_ATTENTION_SOURCE}"
    ]


def test_adamw_on_a_bf16_model_moves_14_bytes_a_parameter() -> None:
    """Under the torchtitan preset a bf16 model's AdamW step moves ADAM_BF16_BYTES a parameter
    and its clipping by norm CLIP_BF16_BYTES, the fp32 optimizer's ADAM_BYTES and CLIP_BYTES
    otherwise: run 01's term 20/42 of what fp32 state costs, and named in the assumptions.
    Megatron-Core keeps fp32 main weights: param_dtype bf16 does not change its optimizer's
    bytes (ADAM_BYTES and its norm's MEGATRON_CLIP_BYTES: it scales only when clipping), nor
    PAR004's state bytes, and both say so in one phrase."""
    assert (ADAM_BF16_BYTES, ADAM_BYTES, CLIP_BF16_BYTES, CLIP_BYTES) == (14.0, 30.0, 6.0, 12.0)
    assert MEGATRON_CLIP_BYTES == 4.0
    run = _validation("kempnerforge-h200")["01-7b-1gpu-single"]
    a, lay, mac, sw = _run_inputs(run)
    assert run.wl.software_in_effect.bf16_state
    assert sw.optimizer_bytes == ADAM_BF16_BYTES + CLIP_BF16_BYTES
    fp32_bytes = ADAM_BYTES + CLIP_BYTES
    bf16, fp32 = step(a, lay, mac, sw), step(a, lay, mac, replace(sw, optimizer_bytes=fp32_bytes))
    assert bf16.optimizer / fp32.optimizer == pytest.approx(20 / 42)
    assert round(bf16.optimizer, 4) == 0.0418
    notes = [n for n in prediction(run).assumptions if n.startswith("optimizer step")]
    assert notes == [
        "optimizer step: 20 B of HBM traffic a parameter (AdamW on a bf16 model (param_dtype "
        "bf16: moments in the parameters' dtype), 14 B, no fp32 master weight; clipping the "
        "gradients by norm, 6 B (the norm reads each bf16 gradient, the scale reads and "
        "writes it))"
    ]
    assert state_bytes(run.wl) == (BF16_GRAD_BYTES, BF16_OPTIMIZER_BYTES) == (2.0, 4.0)
    declared = _declared(run, software={"preset": "megatron-core", "param_dtype": "bf16"})
    fp32_model = _declared(run, software={"preset": "megatron-core", "param_dtype": "fp32"})
    sw_bf16 = declared.software_in_effect
    assert sw_bf16.param_dtype == "bf16"
    assert not sw_bf16.bf16_state
    assert software(sw_bf16).optimizer_bytes == ADAM_BYTES + MEGATRON_CLIP_BYTES == 34.0
    megatron = prediction(run, declared)
    assert [n for n in megatron.assumptions if n.startswith("optimizer step")] == [
        "optimizer step: 34 B of HBM traffic a parameter (a fused Adam on fp32 state, 30 B; "
        "the gradients' norm, 4 B (it reads each fp32 main gradient; Megatron-Core scales them "
        "only when the norm exceeds clip_grad))"
    ]
    phrase = (
        "param_dtype bf16 under megatron-core: Megatron's mixed-precision optimizer keeps fp32 "
        "main weights and Adam moments whatever the model's dtype, counted and timed as fp32 "
        "state"
    )
    assert sw_bf16.fp32_state_note == phrase
    assert phrase in megatron.assumptions
    assert fp32_model.software_in_effect.fp32_state_note == ""
    assert phrase not in prediction(run, fp32_model).assumptions
    # the memory side: PAR004's state bytes for the declared bf16 model are the fp32 ones
    assert state_bytes(declared) == state_bytes(fp32_model) == (4.0, 12.0)
    par004 = memory_per_gpu(declared)
    same = memory_per_gpu(fp32_model)
    assert (par004.gradients, par004.optimizer) == (same.gradients, same.optimizer)
    assert phrase in par004.notes
    assert phrase not in same.notes


def test_a_bf16_model_under_composer_moves_half_its_bytes() -> None:
    """llm-foundry's DecoupledAdamW keeps its moments as torch.zeros_like(p): a bf16 model's
    step and clipping run the same operations on bf16 tensors, 2 B an element for 4
    (COMPOSER_ADAM_BF16_BYTES, 46 of COMPOSER_ADAM_BYTES's 92), and PAR004 counts bf16
    gradients and moments. DeepSpeed's gradient_clipping defaults to 0.0, but its ZeRO
    optimizers take the gradients' norm and unscale them every step all the same: 30 + 12."""
    assert (COMPOSER_ADAM_BYTES, COMPOSER_ADAM_BF16_BYTES) == (92.0, 46.0)
    run = _validation("llm-foundry-h100-large")["mpt-1b-h100-512gpu-2048"]
    assert software(run.wl.software_in_effect).optimizer_bytes == COMPOSER_ADAM_BYTES
    assert state_bytes(run.wl) == (4.0, 12.0)
    bf16 = _declared(run, software={"param_dtype": "bf16"})
    assert bf16.software_in_effect.bf16_state
    assert software(bf16.software_in_effect).optimizer_bytes == COMPOSER_ADAM_BF16_BYTES
    assert state_bytes(bf16) == (2.0, 4.0)
    notes = [n for n in prediction(run, bf16).assumptions if n.startswith("optimizer step")]
    assert notes == [
        "optimizer step as Composer runs it on a bf16 model (param_dtype bf16: moments in the "
        "parameters' dtype): 46 B of HBM traffic a parameter (DecoupledAdamW, one kernel an "
        "operation on bf16 state, after clipping the gradients by norm; "
        "composer/optim/decoupled_weight_decay.py, v0.16) where a fused Adam on fp32 state after "
        "torch's clipping moves 42 B"
    ]
    deepspeed = _declared(run, software={"preset": "accelerate-deepspeed"})
    assert software(deepspeed.software_in_effect).optimizer_bytes == ADAM_BYTES + CLIP_BYTES
    notes = [n for n in prediction(run, deepspeed).assumptions if n.startswith("optimizer step")]
    assert notes == [
        "optimizer step: 42 B of HBM traffic a parameter (a fused Adam on fp32 state, 30 B; the "
        "gradients' norm and the unscaling by DeepSpeed's loss scale, which its ZeRO optimizers "
        "run whatever gradient_clipping says, at least 12 B (the norm reads each gradient, the "
        "scale reads and writes it; the norm's fp64 copies not counted))"
    ]
    # a bf16 model under DeepSpeed keeps fp32 state: counted so, and said so
    declared = _declared(run, software={"preset": "accelerate-deepspeed", "param_dtype": "bf16"})
    sw = declared.software_in_effect
    assert not sw.bf16_state
    assert state_bytes(declared) == (4.0, 12.0)
    assert software(sw).optimizer_bytes == ADAM_BYTES + CLIP_BYTES
    phrase = (
        "param_dtype bf16 under deepspeed: DeepSpeed's bf16 or ZeRO optimizer keeps fp32 main "
        "weights and Adam moments whatever the model's dtype, counted and timed as fp32 state"
    )
    assert sw.fp32_state_note == phrase
    assert phrase in memory_per_gpu(declared).notes


def test_llm_foundrys_flash_path_pays_its_padding_copies() -> None:
    """flash2 under the llm-foundry preset: q, k and v gathered out of their padding and the
    output scattered back, VARLEN_PAD_PASSES HBM passes at the activations' width: forward
    2 x (q + 2 kv) + 3 x q elements a token, backward 2 x q + 3 x (q + 2 kv); MPT's 1B (q = kv
    = 2,048) on 512 H100, 12 sequences of 2,048 a micro-batch."""
    assert VARLEN_PAD_PASSES == ((2.0, 3.0), (2.0, 3.0))
    run = _validation("llm-foundry-h100-large")["mpt-1b-h100-512gpu-2048"]
    a, lay, mac, sw = _run_inputs(run)
    assert sw.varlen_padding
    on, off = (
        _layer_pass(a, lay, mac, sw),
        _layer_pass(a, lay, mac, replace(sw, varlen_padding=False)),
    )
    n, rate = 12 * 2048, mac.hbm * mac.hbm_eff
    qkv, out = n * (a.q + 2 * a.kv) * ACT, n * a.q * ACT
    assert on.fwd - off.fwd == pytest.approx((2 * qkv + 3 * out) / rate)
    assert on.bwd - off.bwd == pytest.approx((2 * out + 3 * qkv) / rate)
    assert lay.recompute == "none"
    assert on.rec == off.rec == 0.0
    # the full recomputation re-runs the forward: the copies once more, as the code does
    full = replace(lay, recompute="full")
    on = _layer_pass(a, full, mac, sw)
    off = _layer_pass(a, full, mac, replace(sw, varlen_padding=False))
    assert on.rec - off.rec == pytest.approx((2 * qkv + 3 * out) / rate)


def test_narrow_heads_take_the_head_dim_64_panels() -> None:
    """A model whose heads are 64 wide takes the head dim 64 panels over head dim 128's 16K
    rate: at 2K cuDNN's causal forward 539 / 334, unmasked 595 / 395, backward 516 / 395.
    GPT-OSS 120B (head dim 64) says so in its assumptions."""
    at_2k = length_factors(_CUDNN_H100_BY_LENGTH, 2048, _CUDNN_H100_HD64_BY_LENGTH)
    assert [round(f, 4) for f in at_2k] == [
        round(539 / 334, 4),
        round(595 / 395, 4),
        round(516 / 395, 4),
    ]
    (oss,) = [r for r in runs() if r.name.endswith("gpt-oss-120b-64-26.02")]
    a, *_ = _run_inputs(oss)
    assert a.q / a.heads == 64
    notes = [n for n in prediction(oss).assumptions if n.startswith("core attention in")]
    assert notes == [f"core attention in {FUSED_ATTENTION_SOURCE}; {FUSED_NARROW_SOURCE}"]
