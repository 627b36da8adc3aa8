"""PAR002-PAR004 figures with exact numbers: NVLink divisibility, Megatron's uneven pipeline,
device-reported memory, ZeRO stages and sequence parallelism by default."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import EXAMPLES, findings_of
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.loader import load_text
from dclint.projection.memory import memory_per_gpu

RULES = discover()
GIB = 2**30

DESIGN = """
name: layout
racks:
  - {{id: "r[01-16]", platform: {platform}, nodes: {nodes}}}
workloads:
  - id: w
    model: {{parameters: {params}{model}}}
    tokens: 1e12
    sequence_length: {seq}
    gpus: {gpus}
    parallel: {{{parallel}}}
"""


def _violations(rule: str, **fields: object) -> list[Violation]:
    values: dict[str, object] = {
        "platform": "hgx-h100",
        "nodes": 4,
        "params": "1e9",
        "model": "",
        "seq": 4096,
        "gpus": 64,
        "parallel": "tp: 8",
    }
    values.update(fields)
    design = load_text(DESIGN.format(**values))
    return list(RULES[rule]().check(design, Context(default_options()[rule])))


@pytest.mark.parametrize(
    ("tp", "flagged"), [(8, False), (9, False), (12, False), (16, True), (24, False), (32, True)]
)
def test_tp_must_divide_the_nvl72_domain(tp: int, flagged: bool) -> None:
    found = _violations(
        "PAR002", platform="gb200-nvl72", nodes=1, gpus=288, seq=72 * 512, parallel=f"tp: {tp}"
    )
    assert [(v.measured, v.limit) for v in found] == ([(float(tp), 72.0)] if flagged else [])


def test_context_group_inside_nvlink() -> None:
    found = _violations("PAR002", parallel="tp: 4, cp: 4, context_in_nvlink: true")
    assert [(v.path[-1], v.measured, v.limit) for v in found] == [("cp", 16.0, 8.0)]
    assert _violations("PAR002", parallel="tp: 4, cp: 4") == []


def test_uneven_pipeline_is_accepted_when_the_middle_splits() -> None:
    model = ", layers: 126"
    even = _violations("PAR003", model=model, gpus=128, parallel="tp: 8, pp: 16")
    assert [(v.path[-1], v.measured, v.limit) for v in even] == [("pp", 126.0, 16.0)]
    uneven = "tp: 8, pp: 16, first_stage_layers: 7, last_stage_layers: 7"
    assert _violations("PAR003", model=model, gpus=128, parallel=uneven) == []


EMB = "account_for_embedding_in_pipeline_split: true"
LOSS = "account_for_loss_in_pipeline_split: true"


def test_embedding_and_loss_count_in_the_pipeline_split() -> None:
    """NVIDIA's Llama 3.1 405B on 512 H100: 126 layers + embedding + loss = 128 slots over
    pp 8 x vpp 8 = 64 chunks of 2 (Megatron-Core account_for_*_in_pipeline_split)."""
    model = ", layers: 126"
    base = "tp: 8, pp: 8, vpp: 8, cp: 2"
    (v,) = _violations("PAR003", model=model, gpus=512, seq=8192, parallel=base)
    assert (v.path[-1], v.measured, v.limit) == ("pp", 126.0, 8.0)
    both = f"{base}, {EMB}, {LOSS}"
    assert _violations("PAR003", model=model, gpus=512, seq=8192, parallel=both) == []
    (v,) = _violations("PAR003", model=model, gpus=512, seq=8192, parallel=f"{base}, {EMB}")
    assert (v.path[-1], v.measured, v.limit) == ("pp", 127.0, 8.0)
    assert "126 layers + embedding = 127 slots do not split over pp 8 stages" in v.message
    chunks = f"tp: 8, pp: 8, vpp: 3, cp: 2, {EMB}, {LOSS}"  # 16 slots a stage, not 3 chunks
    (v,) = _violations("PAR003", model=model, gpus=512, seq=8192, parallel=chunks)
    assert (v.path[-1], v.measured, v.limit) == ("vpp", 128.0, 24.0)
    assert "126 layers + embedding + loss = 128 slots do not split over pp 8 x vpp 3" in (v.message)


def test_sequence_parallel_default_needs_sequence_divisible_by_tp() -> None:
    (v,) = _violations("PAR003", seq=4100)
    assert (v.path[-1], v.measured, v.limit) == ("tp", 4100.0, 8.0)
    assert "on by default with tp > 1" in v.message
    assert _violations("PAR003", seq=4100, parallel="tp: 8, sequence_parallel: false") == []


def test_par004_budgets_the_device_reported_memory() -> None:
    (v,) = _violations("PAR004", params="82.2e9")
    assert v.limit.m_as("GiB") == pytest.approx(81559 * 0.9 / 1024, rel=1e-12)  # type: ignore[union-attr]
    assert v.measured.m_as("GiB") == pytest.approx(82.2e9 / 8 * 7.5 / GIB, rel=1e-12)  # type: ignore[union-attr]
    assert "79.65 GiB leave usable (as the device reports it" in v.message
    assert _violations("PAR004", params="82.0e9") == []


@pytest.mark.parametrize(
    ("parallel", "bytes_per_parameter"),
    [
        ("tp: 8, distributed_optimizer: false", 18.0),
        ("tp: 8", 6 + 12 / 8),
        ("tp: 8, zero_stage: 1", 6 + 12 / 8),
        ("tp: 8, zero_stage: 2", 2 + 16 / 8),
        ("tp: 8, zero_stage: 3", 18 / 8),
    ],
)
def test_zero_stages(parallel: str, bytes_per_parameter: float) -> None:
    wl = load_text(
        DESIGN.format(
            platform="hgx-h100",
            nodes=4,
            params="100e9",
            model="",
            seq=4096,
            gpus=64,
            parallel=parallel,
        )
    ).workloads[0]
    total = memory_per_gpu(wl).total.m_as("B")
    assert total == pytest.approx(100e9 / 8 * bytes_per_parameter, rel=1e-12)


def test_sequence_parallel_on_by_default_in_the_activations() -> None:
    model = ", layers: 40, hidden_size: 5120, attention_heads: 40"
    text = DESIGN.format(
        platform="hgx-h100",
        nodes=4,
        params="13e9",
        model=model,
        seq=8192,
        gpus=64,
        parallel="tp: 8",
    )
    on = memory_per_gpu(load_text(text).workloads[0]).activations
    off = memory_per_gpu(
        load_text(text.replace("tp: 8", "tp: 8, sequence_parallel: false")).workloads[0]
    ).activations
    assert on is not None and off is not None
    assert on.m_as("B") == pytest.approx(8192 * 5120 * 34 / 8 * 40, rel=1e-12)
    assert off.m_as("B") == pytest.approx(8192 * 5120 * (10 + 24 / 8) * 40, rel=1e-12)


def test_reserve_option_changes_the_verdict(write: Callable[..., Path]) -> None:
    text = (EXAMPLES / "par004" / "bad.yaml").read_text(encoding="utf-8")
    assert sum(r == "PAR004" for r, _ in findings_of(write(text))) == 8
    path = write(text)
    (path.parent / ".dclint.yaml").write_text("PAR004:\n  reserve: 9%\n", encoding="utf-8")
    assert sum(r == "PAR004" for r, _ in findings_of(path)) == 7  # just-above now fits


def test_ffn_hidden_size_must_split_over_tp() -> None:
    """Megatron-Core's parallel linear layers divide the FFN width over the tp ranks; an MoE
    model's is each expert's, over the expert tensor-parallel ranks (tp by default)."""
    dense = ", hidden_size: 4096, attention_heads: 32, ffn_hidden_size: 14340"
    (v,) = _violations("PAR003", model=dense)
    assert (v.path[-1], v.measured, v.limit) == ("tp", 14340.0, 8.0)
    assert "FFN hidden size 14340 does not split over tp 8 (14340 = 8 x 1792 + 4)" in v.message
    assert _violations("PAR003", model=dense, parallel="tp: 4") == []
    moe = ", experts: 8, ffn_hidden_size: 1412"
    (v,) = _violations("PAR003", model=moe, parallel="tp: 8, ep: 8")
    assert (v.path[-1], v.measured, v.limit) == ("tp", 1412.0, 8.0)
    assert v.message.startswith("workload w: expert FFN hidden size 1412 does not split")
    assert _violations("PAR003", model=moe, parallel="tp: 4, ep: 8") == []


EIGHT_B = """
name: eight-b
racks:
  - {{id: "r[1-2]", platform: hgx-h100, nodes: 4}}
workloads:
  - id: w
    model: {{parameters: 8e9, layers: 32, hidden_size: 4096, attention_heads: 32{vocab}}}
    tokens: 1e12
    sequence_length: 8192
    gpus: 64
    parallel: {{tp: 2, pp: 4}}
{extra}
"""


def _par004(vocab: str = "", **extra: object) -> list[Violation]:
    lines = "".join(f"    {k}: {v}\n" for k, v in extra.items())
    design = load_text(EIGHT_B.format(vocab=vocab, extra=lines))
    return list(RULES["PAR004"]().check(design, Context(default_options()["PAR004"])))


def test_par004_holds_the_last_stage_with_its_logits_and_output_layer() -> None:
    """8e9 parameters with two 256000 x 4096 matrices (embedding, output layer): the last of
    pp 4 holds 8 of 32 layers' share of the rest plus the output layer, over tp 2, and the
    logits of one micro-batch of 16 x 8192 tokens: x 256000 / tp 2 x 6 B."""
    vocab = ", vocab_size: 256000"
    (v,) = _par004(vocab, global_batch=512, micro_batch=16, recompute="full")
    embedding = 256000 * 4096
    params = ((8e9 - 2 * embedding) * 8 / 32 + embedding) / 2
    logits = 8192 * 16 * 256000 / 2 * 6
    layers = 8 * 2 * 8192 * 16 * 4096 / 2  # full recomputation: 2 s b h / t a layer, 1 in flight
    states = params * (2 + 4 + 12 / 8)
    assert v.measured.m_as("B") == pytest.approx(states + logits + layers, rel=1e-12)  # type: ignore[union-attr]
    assert logits / GIB == 93.75
    assert "last stage (stage 3 of pp 4) binds: 8 layers, the output layer, logits 93.8 GiB" in (
        v.message
    )
    assert _par004(vocab, global_batch=512, micro_batch=8, recompute="full") == []


def test_par004_counts_attention_scores_only_without_flash_attention() -> None:
    """recompute none: flash attention stores no s x s scores, as selective recomputation;
    unfused attention adds 5 a s / (h t) s b h bytes a layer (Korthikanti et al. 2022)."""
    assert _par004(recompute="none") == []
    (v,) = _par004(recompute="none", software="{flash_attention: false}")
    s, b, h, a, t = 8192, 1, 4096, 32, 2
    per_layer = s * b * h * (34 / t + 5 * a * s / (h * t))
    states = 8e9 / 4 / 2 * (2 + 4 + 12 / 8)
    # no global batch: pp micro-batches, so the first stage holds 4 of its 8 layers' worth each
    assert v.measured.m_as("B") == pytest.approx(states + per_layer * 8 * 4, rel=1e-12)  # type: ignore[union-attr]
    assert "first stage (stage 0 of pp 4) binds: 8 layers;" in v.message
    assert "attention scores stored (no flash attention)" in v.message


def test_embedding_and_loss_slots_take_a_layers_place_in_memory() -> None:
    """NVIDIA's Llama 3.1 405B split: 126 layers + embedding + loss = 128 slots over pp 8,
    so the first and last stages hold 15 layers and the middle ones 16."""
    from dclint.projection.memory import stage_layers

    assert stage_layers(126, 8, None, None, True, True) == [(0, 15.0), (1, 16.0), (7, 15.0)]
    assert stage_layers(126, 16, 7, 7) == [(0, 7.0), (1, 8.0), (15, 7.0)]
    assert stage_layers(128, 8) == [(0, 16.0), (7, 16.0)]
    assert stage_layers(40, 1) == [(0, 40.0)]


def test_activations_follow_the_layer_shapes_gqa_and_swiglu() -> None:
    """Korthikanti's per-layer terms from the shapes: Llama 3.1 405B (h 16384, 128 heads, 8
    query groups, SwiGLU with ffn 53248) holds s b h (10 + 4 + 4/16 + 2 x 3.25 x 3) / t =
    33.75 s b h / t with sequence parallelism (GPT's 34 at q = k = h, f = 4h, no gate), and
    s b h (10 + 23.75 / t) without."""
    model = (
        ", layers: 126, hidden_size: 16384, attention_heads: 128, query_groups: 8,"
        " ffn_hidden_size: 53248, swiglu: true"
    )
    text = DESIGN.format(
        platform="hgx-h100", nodes=4, params="405e9", model=model, seq=8192, gpus=64,
        parallel="tp: 8, pp: 8, vpp: 2, dp: 1",
    )  # fmt: skip
    wl = load_text(text).workloads[0]
    per_layer = 8192 * 16384 * 33.75 / 8
    # stage 0 of pp 8, vpp 2: 2 (8 - 1) + (2 - 1) 8 + 1 = 23 chunks of 126 / 8 / 2 layers in
    # warm-up, at most micro-batches x vpp = 8 x 2 (pp micro-batches without a global batch)
    held = per_layer * 16 * 126 / 16
    act = memory_per_gpu(wl).activations
    assert act is not None and act.m_as("B") == pytest.approx(held, rel=1e-12)
    off = load_text(text.replace("dp: 1", "dp: 1, sequence_parallel: false")).workloads[0]
    act = memory_per_gpu(off).activations
    assert act is not None
    assert act.m_as("B") == pytest.approx(8192 * 16384 * (10 + 23.75 / 8) * 126)


def test_bf16_main_gradients_halve_the_gradient_bytes() -> None:
    """software.grad_reduce_in_fp32: false (Megatron-Core's DDP option) keeps 2 B a parameter of
    gradients instead of 4: 100e9 / 8 x (2 + 2 + 12 / 8) bytes."""
    text = DESIGN.format(
        platform="hgx-h100", nodes=4, params="100e9", model="", seq=4096, gpus=64,
        parallel="tp: 8",
    )  # fmt: skip
    text += "    software: {grad_reduce_in_fp32: false}\n"
    est = memory_per_gpu(load_text(text).workloads[0])
    assert est.gradients.m_as("B") == pytest.approx(100e9 / 8 * 2, rel=1e-12)
    assert est.total.m_as("B") == pytest.approx(100e9 / 8 * 5.5, rel=1e-12)
    assert "gradients in bf16 (grad_reduce_in_fp32 false)" in est.notes
