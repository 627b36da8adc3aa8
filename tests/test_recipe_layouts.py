"""NVIDIA's published recipe layouts pass PAR003 and PAR004 as their recipes state them
(issue 51).

The Megatron-Bridge (NeMo 25.11 to 26.08) and MLPerf Training runs of tests/calibration/ are
written as their recipes set them, under the recipe presets (nemo-25.11), which count the
embedding and the loss as pipeline layers where the model's layers need it and carve the
expert groups under MoE parallel folding (expert tp x ep dividing tp x dp x cp):
Megatron-Bridge's recipes set `account_for_embedding_in_pipeline_split` and
`account_for_loss_in_pipeline_split` for Llama 3.1 405B (126 + 2 = 128 on pp 8 x vpp 8, on
pp 16) and Qwen3 235B (94 + 2 = 96 on pp 8 and pp 4 x vpp 12: "Pipeline split accounting
(required for 235B model)"), not for Llama 3 70B (80 layers on pp 8 x vpp 5), and run Qwen3
235B at expert tp 1.

PAR004 reads what the recipes state of memory: bf16 gradient reduction, FP8 parameters
(fp8_param_gather) and Transformer Engine's fused cross-entropy (the preset), models without
dropout (`model.dropout: false`), Transformer Engine's FP8-saved GEMM inputs (fp8 runs; the
attention output projection's in bf16: Megatron-Core's save_original_input under current
scaling) and GB200 Llama 3 70B's 40 offloaded layers (`software.activation_offload_layers`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, findings_of
from dclint.errors import LoadError
from dclint.loader import load_text

CALIBRATION = ROOT / "tests" / "calibration"
RECIPES = [
    *sorted(CALIBRATION.glob("megatron-bridge-*.yaml")),
    CALIBRATION / "mlperf-training-blackwell.yaml",
]


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_recipe_layouts_pass_par003_and_par004(path: Path) -> None:
    found = findings_of(path)
    assert not {rule for rule, _ in found if rule in ("PAR003", "PAR004")}


def test_the_recipe_layouts_are_66() -> None:
    """PAR004's doc and docs/performance-model.md count them: 66 workloads (61 before GPT-OSS
    120B's five H100 rows joined)."""
    from dclint.loader import load

    assert sum(len(load(str(p)).workloads) for p in RECIPES) == 66


def test_gb200_405b_fits_without_the_projections_fp8_copy() -> None:
    """GB200's 25.11 Llama 3.1 405B row (tp 4, pp 16, vpp 4, no recomputation, no offload:
    Megatron-Bridge's LLAMA31_405B_PRETRAIN_CONFIG_GB200_FP8_CS_V2): stage 1's 154 layers in
    flight at 6.625 s b h / t need 163.2 GiB, 88.2% of the device's 185 GiB, under PAR004's
    10% reserve. With the attention output projection's FP8 copy (delayed scaling keeps it)
    the same layout needs 4.8 GiB more, 168.0 GiB: 90.8%, above the reserve."""
    from dclint.projection.memory import memory_per_gpu

    text = (CALIBRATION / "megatron-bridge-25.11-gb200.yaml").read_text()
    row = "813 a GPU\n    concurrent: false\n    software: {preset: nemo-25.11"
    assert text.count(row) == 1
    for recipe, gib in (("", 163.152), (", fp8_recipe: delayed", 167.964)):
        design = load_text(text.replace(row, row + recipe))
        wl = next(w for w in design.workloads if w.id == "llama31-405b-256")
        assert memory_per_gpu(wl, True).total.m_as("GiB") == pytest.approx(gib, abs=1e-3)


DESIGN = """
name: recipe
workloads:
  - id: w
    platform: dgx-h100
    model: {{parameters: 405e9, layers: {layers}, hidden_size: 16384, attention_heads: 128,
            query_groups: 8, ffn_hidden_size: 53248, vocab_size: 128256, swiglu: true}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 512
    gpus: 512
    software: {{preset: {preset}}}
    parallel: {{tp: 8, pp: 8, vpp: {vpp}, cp: 2{extra}}}
"""


@pytest.mark.parametrize(
    ("layers", "vpp", "preset", "extra", "counted"),
    [
        (126, 8, "nemo-25.11", "", (True, True)),  # 128 slots: the recipe's count
        (126, 8, "nemo-2", "", (True, True)),
        (126, 8, "megatron-core-0.8", "", (False, False)),  # not a recipe preset
        (80, 5, "nemo-25.11", "", (False, False)),  # 80 split already: 70B's recipe
        (126, 8, "nemo-25.11", ", account_for_loss_in_pipeline_split: false", (False, False)),
        (126, 7, "nemo-25.11", "", (False, False)),  # 128 slots do not split over 8 x 7
    ],
)
def test_recipe_presets_count_embedding_and_loss_where_the_layers_need_them(
    layers: int, vpp: int, preset: str, extra: str, counted: tuple[bool, bool]
) -> None:
    text = DESIGN.format(layers=layers, vpp=vpp, preset=preset, extra=extra)
    p = load_text(text).workloads[0].parallel
    got = (p.account_for_embedding_in_pipeline_split, p.account_for_loss_in_pipeline_split)
    assert got == counted


def test_llama31_405b_on_pp8_vpp8_passes_par003_under_the_recipe_preset(
    write: Callable[..., Path],
) -> None:
    ok = write(DESIGN.format(layers=126, vpp=8, preset="nemo-25.11", extra=""))
    assert not [r for r, _ in findings_of(ok) if r == "PAR003"]
    other = write(DESIGN.format(layers=126, vpp=8, preset="megatron-core-0.8", extra=""), "b.yaml")
    assert ("PAR003", 13) in findings_of(other)  # 126 layers over pp 8, at parallel:


FOLDED = """
name: folded
workloads:
  - id: w
    platform: dgx-h100
    model: {{parameters: 235096395776, layers: 94, hidden_size: 4096, attention_heads: 64,
            query_groups: 4, ffn_hidden_size: 1536, vocab_size: 151936, swiglu: true,
            kv_channels: 128, experts: 128, top_k: 8}}
    tokens: 1e12
    sequence_length: 4096
    global_batch: 2048
    gpus: 256
    software: {{preset: {preset}{expert_tp}}}
    parallel: {{tp: 2, pp: 8, vpp: 4, ep: 32}}
"""


@pytest.mark.parametrize(
    ("preset", "expert_tp", "broken"),
    [
        # the recipe (Megatron-Bridge v0.2.0 BASE_QWEN3_235B_A22B_CONFIG: expert tp 1):
        # 1 x 32 expert ranks out of tp 2 x dp 16 = 32
        ("nemo-25.11", ", expert_tp: 1", False),
        # expert tp defaults to tp 2: 2 x 32 = 64 does not divide 32
        ("nemo-25.11", "", True),
        # no folding: ep 32 carved from dp 16
        ("megatron-core-0.8", "", True),
    ],
)
def test_par003_carves_ep_from_tp_dp_cp_under_moe_parallel_folding(
    write: Callable[..., Path], preset: str, expert_tp: str, broken: bool
) -> None:
    path = write(FOLDED.format(preset=preset, expert_tp=expert_tp))
    found = {(rule, line) for rule, line in findings_of(path) if rule == "PAR003"}
    assert found == ({("PAR003", 14)} if broken else set())  # at parallel:


@pytest.mark.parametrize(
    ("dropout", "fp8", "proj_copy", "per_sbh"),
    [
        (True, False, True, (10 + 25.5) / 4),  # Korthikanti's terms, GQA and SwiGLU widths
        (False, False, True, (8 + 25.5) / 4),  # no dropout masks
        # FP8: QKV and MLP inputs 1 B (replicated 10 - 2), the second MLP GEMM's input 1 B
        # (f/h = 3.5 less), the attention output's FP8 copy for its projection (q/h = 1 more)
        (True, True, True, (8 + 23) / 4),
        (False, True, True, (6 + 23) / 4),
        # Megatron-Core's linear_proj saving its original input (save_original_input): no copy
        (False, True, False, (6 + 22) / 4),
        (False, False, False, (8 + 25.5) / 4),  # without FP8 there is no copy to drop
    ],
)
def test_layer_activations_without_dropout_and_with_fp8_saved_inputs(
    dropout: bool, fp8: bool, proj_copy: bool, per_sbh: float
) -> None:
    """Llama 3 70B's layer at tp 4 with sequence parallelism (q = h, k = h / 8, f = 3.5 h)."""
    from dclint.projection.memory import layer_activations

    widths = (8192.0, 1024.0, 28672.0, True)
    got = layer_activations(
        8192, 1, 8192, 64, 4, True, "none", True, widths, dropout, fp8, False, proj_copy
    )
    assert got == 8192 * 8192 * per_sbh


PROJ = """
name: proj
workloads:
  - id: w
    platform: gb200-nvl72
    model: {{parameters: 7.06e10, layers: 80, hidden_size: 8192, attention_heads: 64,
            query_groups: 8, ffn_hidden_size: 28672, vocab_size: 128256, swiglu: true}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 256
    precision: {precision}
    gpus: 64
    software: {{{software}}}
    parallel: {{tp: 4, pp: 4}}
"""


@pytest.mark.parametrize(
    ("precision", "software", "copy"),
    [
        # Megatron-Core (core_v0.14.0 on) sets save_original_input on linear_proj for fp8
        # recipes other than delayed scaling (megatron/core/transformer/attention.py)
        ("fp8", "preset: nemo-25.11", False),  # current scaling
        ("fp8", "preset: nemo-25.11, fp8_recipe: mxfp8", False),
        ("fp8", "preset: nemo-25.11, fp8_recipe: blockwise", False),
        ("fp8", "preset: nemo-25.11, fp8_recipe: delayed", True),
        ("fp8", "preset: megatron-core", True),  # dclint's default recipe: delayed
        ("fp4", "preset: nemo-25.11", True),  # its condition reads config.fp8, not fp4
        ("fp8", "preset: torchtitan", True),  # not Megatron-Core
    ],
)
def test_the_projections_fp8_copy_follows_megatron_cores_condition(
    precision: str, software: str, copy: bool
) -> None:
    from dclint.projection.memory import fp8_proj_copy, memory_per_gpu

    wl = load_text(PROJ.format(precision=precision, software=software)).workloads[0]
    assert fp8_proj_copy(wl) is copy
    note = "the attention output projection's in BF16"
    assert (note in " ".join(memory_per_gpu(wl, True).notes)) is not copy


OFFLOAD = """
name: offload
workloads:
  - id: w
    platform: gb200-nvl72
    model: {{parameters: 7.06e10, layers: 80, hidden_size: 8192, attention_heads: 64,
            query_groups: 8, ffn_hidden_size: 28672, vocab_size: 128256, swiglu: true,
            dropout: false}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 256
    micro_batch: 2
    precision: fp8
    gpus: 64
    software: {{preset: nemo-25.11{offload}}}
    parallel: {{tp: 1, pp: {pp}, zero_stage: 3}}
"""


@pytest.mark.parametrize(
    ("vocab", "logits_bind"),
    [
        # the recipe's: bf16 logits (fused cross-entropy) 3.91 GiB, above a layer's 3.50
        (128256, True),
        (32000, False),  # 0.98 GiB of logits: the reloaded layer binds
    ],
)
def test_offloaded_layers_leave_the_logits_or_one_layer_in_transit(
    vocab: int, logits_bind: bool
) -> None:
    """Transformer Engine's offload window (cpu_offload.py, v2.9): 40 of 80 layers offloaded,
    the forward ends with 40 kept and the logits; the backward reloads the first offloaded
    layer once the logits are freed."""
    from dclint.projection.memory import memory_per_gpu

    text = OFFLOAD.format(offload=", activation_offload_layers: 40", pp=1)
    off = memory_per_gpu(load_text(text.replace("128256", str(vocab))).workloads[0])
    assert off.activations is not None
    # Llama 3 70B's layer, tp 1, FP8-saved inputs, no dropout, current scaling (the attention
    # output projection saves the attention's BF16 output: no FP8 copy): (6 + 22) s b h bytes
    per_layer = 28 * 8192 * 2 * 8192 / 2**30
    logits = 2 * 8192 * 2 * vocab / 2**30  # bf16 only: Transformer Engine's cross-entropy
    assert (logits > per_layer) is logits_bind
    expected = 40 * per_layer + max(logits, per_layer)
    assert off.activations.m_as("GiB") == pytest.approx(expected, rel=1e-12)
    assert "activations of 40 layers offloaded to host memory, one in transit" in " ".join(
        off.notes
    )


@pytest.mark.parametrize(
    ("offload", "pp", "why"),
    [
        (40, 2, "parallel.pp 2: Megatron-Core offloads with pp 1 only"),
        (80, 1, "the model's 80 layers: offload fewer than all of them"),
    ],
)
def test_offloading_is_refused_where_megatron_core_refuses_it(
    offload: int, pp: int, why: str
) -> None:
    text = OFFLOAD.format(offload=f", activation_offload_layers: {offload}", pp=pp)
    with pytest.raises(LoadError, match=f"activation_offload_layers {offload} with {why}"):
        load_text(text)
