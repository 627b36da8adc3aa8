"""PAR004's memory under the software a workload runs (issue 51): FP8 parameters
(fp8_param_gather), Transformer Engine's fused cross-entropy, HSDP's shard groups and
TorchTitan's op-level selective recomputation, each with its exact figure."""

from __future__ import annotations

import pytest

from dclint.loader import load_text
from dclint.model.workload import Workload
from dclint.projection import project_workloads
from dclint.projection.memory import layer_activations, memory_per_gpu, shape_of

GIB = 2**30

LLAMA405 = """
name: mem
racks:
  - {{id: 'r[01-04]', platform: {platform}}}
fabrics:
  - {{id: compute, kind: compute}}
workloads:
  - id: w
    model: {{parameters: 4.058e11, layers: 126, hidden_size: 16384, attention_heads: 128,
            query_groups: 8, ffn_hidden_size: 53248, vocab_size: 128256, swiglu: true,
            dropout: false}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 1536
    precision: {precision}
    gpus: 256
    software: {software}
    parallel: {{tp: 4, pp: 16, vpp: 4}}
"""

# the middle stage binds: 8 of the 128 slots (126 layers, the embedding and the loss), tp 4
LAYER_PARAMS = (4.058e11 - 2 * 128256 * 16384) / 126 * 8 / 4


def _wl(
    platform: str = "gb200-nvl72", precision: str = "fp8", software: str = "{preset: nemo-25.11}"
) -> Workload:
    return load_text(
        LLAMA405.format(platform=platform, precision=precision, software=software)
    ).workloads[0]


@pytest.mark.parametrize(
    ("platform", "precision", "software", "per_weight"),
    [
        # Blackwell runs FP8 GEMMs of any layout: the FP8 copy alone (TE quantizer.cpp)
        ("gb200-nvl72", "fp8", "{preset: nemo-25.11}", 1.0),
        # Hopper's FP8 GEMMs take the TN layout only: the FP8 copy and its transpose
        ("dgx-h100", "fp8", "{preset: nemo-25.11}", 2.0),
        ("gb200-nvl72", "fp8", "{preset: nemo-25.11, fp8_param_gather: false}", 2.0),
        ("gb200-nvl72", "bf16", "{preset: nemo-25.11}", 2.0),  # bf16 runs keep bf16 weights
        ("gb200-nvl72", "fp8", "{preset: nemo-25.11, fp8_recipe: mxfp8}", 2.0),  # not per-tensor
        # NeMo 2.0's performance scripts gather FP8 weights too (bf16_with_fp8_mixed)
        ("gb200-nvl72", "fp8", "{preset: nemo-2}", 1.0),
    ],
)
def test_fp8_parameters_weigh_one_byte_on_blackwell(
    platform: str, precision: str, software: str, per_weight: float
) -> None:
    design = load_text(LLAMA405.format(platform=platform, precision=precision, software=software))
    (p,) = project_workloads(design)
    assert p.memory.weights.m_as("GiB") == pytest.approx(per_weight * LAYER_PARAMS / GIB, rel=1e-12)
    assert ("layer weights in FP8, 1 B a parameter" in " ".join(p.memory.notes)) is (
        per_weight == 1.0
    )


def test_fused_cross_entropy_keeps_the_bf16_logits_only() -> None:
    """The last stage's logits: s x b x V / tp, 2 B with Transformer Engine's cross-entropy
    (the gradient written over them), 6 B without (bf16 and the fp32 copy)."""
    logits = 8192 * 128256 / 4  # elements on a GPU of the last stage
    assert shape_of(_wl()).logits == 2 * logits
    assert shape_of(_wl(software="{preset: nemo-25.11, fused_cross_entropy: false}")).logits == (
        6 * logits
    )
    assert shape_of(_wl(software="{preset: megatron-core}")).logits == 6 * logits
    # NeMo 2.0's performance scripts set cross_entropy_fusion_impl "te" too
    assert shape_of(_wl(software="{preset: nemo-2}")).logits == 2 * logits


LLAMA8 = """
name: titan
racks:
  - {{id: 'r[01-08]', platform: dgx-h100, nodes: 1}}
fabrics:
  - {{id: compute, kind: compute}}
workloads:
  - id: w
    model: {{parameters: 8.03e9, layers: 32, hidden_size: 4096, attention_heads: 32,
            query_groups: 8, ffn_hidden_size: 14336, vocab_size: 128256, swiglu: true,
            dropout: false}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 64
    gpus: 64
    recompute: {recompute}
    software: {software}
    parallel: {parallel}
"""


def _titan(software: str, parallel: str = "{}", recompute: str = "selective") -> Workload:
    text = LLAMA8.format(software=software, parallel=parallel, recompute=recompute)
    return load_text(text).workloads[0]


@pytest.mark.parametrize(
    ("sharding", "over"),
    [
        ("", 64),  # FSDP: every data-parallel rank
        (", sharding: {kind: hsdp, shard_group: 8}", 8),  # one node's ranks, 8 replicas
        (", sharding: {kind: hsdp}", 64),  # no group declared: every rank
        (", sharding: {kind: hsdp, shard_group: 128}", 64),  # a group past the ranks: all
    ],
)
def test_hsdp_shards_the_states_inside_its_shard_group_only(sharding: str, over: int) -> None:
    """bf16 weights 2 B, fp32 gradients 4 B (TorchTitan reduces in fp32), Adam's 12 B, all
    sharded over the shard group and replicated across the groups."""
    got = memory_per_gpu(_titan("{preset: torchtitan" + sharding + "}"))
    states = got.weights + got.gradients + got.optimizer
    assert states.m_as("B") == pytest.approx(18 * 8.03e9 / over, rel=1e-12)
    assert ("HSDP: all states sharded over shard groups of 8 ranks, replicated across the 8 "
            "groups" in " ".join(got.notes)) is (over == 8)  # fmt: skip


S, B, H, Q, K, F = 8192, 1, 4096, 4096, 1024, 14336  # Llama 3 8B's layer


@pytest.mark.parametrize(
    ("t", "sp", "per_token"),
    [
        # the layer's input, wq's, wv's and w1's outputs, the attention output, w2's output
        (1, False, 2 * (H + Q + K + F + Q + H)),
        # tp 2 with sequence parallelism: the input and the two reduce-scatters' outputs split
        # over tp, the column-parallel outputs too; w2's saved output is its full partial sum
        (2, True, 2 * (H / 2 + (2 * Q + K + F) / 2 + H + 2 * H / 2)),
        (2, False, 2 * (H + (2 * Q + K + F) / 2 + H)),
    ],
)
def test_op_level_selective_recomputation_saves_every_other_matmul(
    t: int, sp: bool, per_token: float
) -> None:
    """TorchTitan's op-level policy (torchtitan/distributed/activation_checkpoint.py,
    _apply_op_sac, v0.2.2): the outputs of the save list's ops (mm, the attention kernels,
    reduce_scatter_tensor, max), every second mm recomputed; a Llama layer's mms run wq, wk,
    wv, wo, w1, w3, w2 (torchtitan/models/llama3/model/model.py)."""
    widths = (float(Q), float(K), float(F), True)
    got = layer_activations(S, B, H, 32, t, sp, "selective", True, widths, False, False, True)
    assert got == pytest.approx(S * B * per_token, rel=1e-12)
    # a non-gated MLP's mms run wq wk wv wo w1 w2: w2 (the sixth) recomputed
    plain = layer_activations(S, B, H, 32, 1, False, "selective", True, (H, H, 4.0 * H, False),
                              op=True)  # fmt: skip
    assert plain == pytest.approx(S * B * 2 * (H + 2 * H + H + 4 * H), rel=1e-12)


def test_op_level_recomputation_is_read_from_the_software() -> None:
    """The torchtitan preset's op-level policy under recompute: selective, in PAR004's
    estimate: 32 layers of the policy's saved tensors and the logits (6 B a logit)."""
    got = memory_per_gpu(_titan("{preset: torchtitan}"))
    assert got.activations is not None
    per_layer = S * B * 2 * (H + Q + K + F + Q + H)
    logits = 6 * S * B * 128256
    assert got.activations.m_as("B") == pytest.approx(32 * per_layer + logits, rel=1e-12)
    assert "op-level: TorchTitan's every other matmul saved" in " ".join(got.notes)
    megatron = memory_per_gpu(_titan("{preset: torchtitan, selective_recompute: core-attention}"))
    assert megatron.activations is not None
    assert megatron.activations > got.activations


@pytest.mark.parametrize(
    ("software", "parallel", "whole"),
    [
        ("{preset: torchtitan}", "{}", False),  # pp 1: FSDP reshards after forward
        ("{preset: torchtitan, sharding: {kind: fsdp, reshard_after_forward: false}}", "{}", True),
        ("{preset: torchtitan}", "{pp: 2}", True),  # FSDP's default under pipeline parallelism
        (
            "{preset: torchtitan, sharding: {kind: fsdp, reshard_after_forward: true}}",
            "{pp: 2}",
            False,
        ),
    ],
)
def test_fsdp_without_resharding_keeps_the_gathered_weights(
    software: str, parallel: str, whole: bool
) -> None:
    """reshard_after_forward False keeps each block's gathered bf16 weights from its forward
    to its backward (PyTorch's fully_shard): 2 B a parameter of the stage whole, the
    optimizer states still sharded over the data-parallel ranks; the gradients too at pp 1,
    and under pipeline parallelism (2 micro-batches a step here) accumulated unsharded in
    fp32 until the last micro-batch's sync, as PyTorch's pipeline stages run FSDP (4 B a
    parameter of the stage, whatever the resharding)."""
    wl = _titan(software, parallel)
    got = memory_per_gpu(wl)
    pp = wl.parallel.pp
    dp = 64 // pp
    # the busiest stage: all 8.03e9 at pp 1; at pp 2 the first (half the layers and the
    # embedding, 16 of 32 layers of the dense body)
    emb = 128256 * 4096
    local = 8.03e9 if pp == 1 else (8.03e9 - 2 * emb) / 2 + emb
    assert got.weights.m_as("B") == pytest.approx(2 * local / (1 if whole else dp), rel=1e-12)
    assert got.optimizer.m_as("B") == pytest.approx(12 * local / dp, rel=1e-12)
    assert got.gradients.m_as("B") == pytest.approx(4 * local / (dp if pp == 1 else 1), rel=1e-12)
    assert ("gathered bf16 weights" in " ".join(got.notes)) is whole


LLAMA8_NO_RECOMPUTE = """
name: mem
racks:
  - {{id: 'r01', platform: dgx-h100}}
fabrics:
  - {{id: compute, kind: compute}}
workloads:
  - id: w
    model: {{parameters: 8.03e09, layers: 32, hidden_size: 4096, attention_heads: 32,
            query_groups: 8, ffn_hidden_size: 14336, vocab_size: 128256, swiglu: true,
            dropout: false}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 8
    micro_batch: 1
    precision: {precision}
    recompute: none
    gpus: 8
    software: {software}
"""


@pytest.mark.parametrize(
    ("precision", "software", "per_sbh", "note"),
    [
        # BF16: norms' inputs 4, QKV and first MLP inputs 2 x 2; Q 2q, K and V 4k, the
        # attention output 2q, SwiGLU's two inputs 4f, the second MLP input 2f, over h
        ("bf16", "{preset: torchtitan}", 8 + 26, ""),
        # torchao's Float8Linear saves input_hp: BF16's bytes (pytorch/ao float8_linear.py)
        ("fp8", "{preset: torchtitan}", 8 + 26, "GEMM inputs saved in BF16"),
        ("fp8", "{preset: torchtitan, fp8_recipe: rowwise}", 8 + 26, "GEMM inputs saved in BF16"),
        # TorchTitan's MXFP8 is torchao's MX linear: mx_mm saves input_hp too
        ("fp8", "{preset: torchtitan, fp8_recipe: mxfp8}", 8 + 26, "GEMM inputs saved in BF16"),
        ("bf16", "{preset: torchtitan, fp8_recipe: mxfp8}", 8 + 26, ""),  # no FP8, no note
        # Transformer Engine's MXFP8 under Megatron-Core saves the FP8 copies (current
        # scaling's condition: no projection copy, q/h = 1 less)
        ("fp8", "{preset: megatron-core, fp8_recipe: mxfp8}", 6 + 22.5, "GEMM inputs saved in FP8"),
        # Transformer Engine saves the FP8 copies: QKV and first MLP inputs 1 B (8 - 2), the
        # second MLP input f/h = 3.5 less, the projection's FP8 copy q/h = 1 more (delayed)
        ("fp8", "{preset: megatron-core}", 6 + 23.5, "GEMM inputs saved in FP8"),
        # NVFP4's saved inputs at FP8's byte (dclint's own)
        ("fp4", "{preset: megatron-core}", 6 + 23.5, "GEMM inputs saved quantized"),
    ],
)
def test_torchao_float8_saves_the_bf16_gemm_inputs(
    precision: str, software: str, per_sbh: float, note: str
) -> None:
    """The activations a layer keeps without recomputation: Transformer Engine saves its GEMM
    inputs in FP8, torchao's Float8 training the BF16 ones (matmul_with_hp_or_float8_args,
    ctx.save_for_backward(input_hp, weight_hp_t)), so a torchao Float8 layer keeps BF16's."""
    wl = load_text(LLAMA8_NO_RECOMPUTE.format(precision=precision, software=software)).workloads[0]
    assert shape_of(wl).per_layer == 8192 * 4096 * per_sbh
    notes = " ".join(memory_per_gpu(wl).notes)
    said = [
        saved
        for saved in (
            "GEMM inputs saved in BF16",
            "GEMM inputs saved in FP8",
            "GEMM inputs saved quantized",
        )
        if saved in notes
    ]
    assert said == ([note] if note else []), notes
