"""Inputs and result of the step-time model (dclint.projection.step.model): plain slotted records.

Plain floats inside, since a layout search evaluates thousands of layouts; the equations and each
constant's source are in docs/performance-model.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dclint.projection.collectives import Links

__all__ = [
    "ACT",
    "ADAM_BF16_BYTES",
    "ADAM_BYTES",
    "ATTENTION_KERNEL_SLOWDOWN",
    "CLIP_BF16_BYTES",
    "CLIP_BYTES",
    "COMPOSER_ADAM_BF16_BYTES",
    "COMPOSER_ADAM_BYTES",
    "CROSS_ENTROPY_BYTES",
    "EAGER_NORM_BYTES",
    "EAGER_ROTARY_BYTES",
    "EAGER_SWIGLU_BYTES",
    "FP8_RECIPE_BYTES",
    "FSDP_FP8_GATHER_BYTES",
    "FSDP_SM_SHARE",
    "FUSED_CROSS_ENTROPY_BYTES",
    "FUSED_CROSS_ENTROPY_GATHER_BYTES",
    "GEMM_STREAMS",
    "HOST_EXPERT_GEMM_SECONDS",
    "LAUNCH_SECONDS",
    "LAYER_KERNELS",
    "MEGATRON_CLIP_BYTES",
    "MOE_KERNELS",
    "MX_CAST_BYTES",
    "ROWWISE_GEMM_RATE",
    "ROWWISE_INPUT_BYTES",
    "ROWWISE_RESCALE_BYTES",
    "STEP_PARTS",
    "STRAGGLER_GPUS",
    "STRAGGLER_SLOWDOWN",
    "TORCH_CP_MERGE_BYTES",
    "Arch",
    "Layout",
    "Machine",
    "Software",
    "Step",
    "straggler_share",
]

# The step's parts, in the order a breakdown lists them (one table: the step model's keys,
# the review's charts and tables, and the layout search's sentences read it):
# key -> (label on a chart or in a table, phrase in a sentence: "loses most time on <phrase>")
STEP_PARTS: dict[str, tuple[str, str]] = {
    "compute": ("compute", "compute"),
    "recompute": ("recompute", "recomputation"),
    "tp": ("tensor-parallel comm.", "tensor-parallel communication"),
    "pp_bubble": ("pipeline bubble", "the PP bubble"),
    "pp_p2p": ("pipeline sends", "pipeline point-to-point transfers"),
    "dp": ("data-parallel comm.", "data-parallel communication"),
    "cp": ("context-parallel comm.", "context-parallel communication"),
    "ep": ("expert all-to-all", "expert all-to-alls"),
    "optimizer": ("optimizer", "the optimizer step"),
    # slow hosts a synchronous job waits for, growing with its GPUs (`straggler_share`)
    "straggler": ("stragglers", "slow hosts (stragglers)"),
    # only with a calibration profile (`dclint calibrate`): seconds a step the client's runs
    # spend beyond the model's terms (data loading, logging, host synchronisation)
    "overhead": ("calibrated overhead", "the calibrated per-step overhead"),
}

ADAM_BYTES = 30.0  # fp32 master weight, grad, two moments read+written, bf16 copy written
# A model built in bf16 (software.param_dtype bf16, KempnerForge's): PyTorch's fused AdamW on
# bf16 parameters keeps its two moments in the parameters' dtype (torch.optim.AdamW's state,
# torch.zeros_like(p)); the step reads the parameter, its bf16 gradient and both moments and
# writes the parameter and both moments, 2 B each, no master weight and no copy: dclint's count.
# Where the optimizer keeps state in the parameters' dtype only (Settings.bf16_state: the
# torchtitan preset's torch.optim; llm-foundry's below; the frameworks that keep fp32 main
# weights: software.STATE_IN_PARAM_DTYPE's comment)
ADAM_BF16_BYTES = 14.0
# bytes of an fp32 and of a bf16 element of the optimizer's tensors
FP32_ELEMENT, BF16_ELEMENT = 4.0, 2.0
# Gradient clipping by norm, as each stack runs it at its defaults: the norm reads every
# gradient once (CLIP_NORM_ACCESSES) and the scale multiplies every gradient in place, a read
# and a write (CLIP_SCALE_ACCESSES), each access an element of the gradient's dtype.
# torch.nn.utils.clip_grad_norm_ (TorchTitan's training.max_norm 1.0, KempnerForge's
# grad_clip_norm 1.0 at 01b461a, Composer's FSDP): _foreach_norm, then _foreach_mul_ by the
# clamped coefficient, unconditionally ("avoids a `if clip_coef < 1:` conditional"): both.
# Megatron-Core (--clip-grad 1.0, optimizer/clip_grads.py): multi_tensor_l2norm over the fp32
# main grads every step, but the scale (multi_tensor_scale) only when the norm exceeds
# clip_grad (`if clip_coeff < 1.0`, core_r0.8.0 to core_v0.16: the presets' Megatron-Core, and
# Megatron-LM v2.5 of 2021), which a step past the first few seldom does: the norm alone
# (core_v0.17.0's multi_tensor_scale_tensor scales every step: 8 B a parameter more there, not
# charged). DeepSpeed's gradient_clipping defaults to 0.0 (runtime/constants.py), but its
# ZeRO optimizers take the gradients' norm every step whatever it says and unscale_and_clip_grads
# multiplies each fp32 partition by 1 / combined_scale (zero/stage3.py, stage_1_and_2.py); the
# norm goes through an fp64 copy of each 16-bit gradient (g.double().norm(2);
# get_grad_norm_direct) and the gradients are flattened to fp32 partitions first, more than
# the 12 B counted here: a lower bound. dclint's count of the code's operations.
CLIP_NORM_ACCESSES, CLIP_SCALE_ACCESSES = 1.0, 2.0
CLIP_ACCESSES = CLIP_NORM_ACCESSES + CLIP_SCALE_ACCESSES
CLIP_BYTES = CLIP_ACCESSES * FP32_ELEMENT  # fp32 gradients (FSDP's, DeepSpeed's partitions)
CLIP_BF16_BYTES = CLIP_ACCESSES * BF16_ELEMENT  # a bf16 model's bf16 gradients
MEGATRON_CLIP_BYTES = CLIP_NORM_ACCESSES * FP32_ELEMENT  # the norm over fp32 main grads
# Composer's DecoupledAdamW (composer/optim/decoupled_weight_decay.py, v0.16: llm-foundry's
# `decoupled_adamw`), a loop over the parameters, one kernel an operation on fp32 tensors:
# exp_avg.mul_ (8 B) .add_(grad) (12), exp_avg_sq.mul_ (8) .addcmul_(grad, grad) (12), sqrt
# (8), / a scalar (8), .add_(eps) (8), param.addcdiv_ (16): 80 B a parameter at weight decay
# 0 (the mpt-*.yaml's); dclint's count of the code's operations
DECOUPLED_ADAMW_BYTES = 80.0
# and the yamls' gradient_clipping by norm (FSDP's clip_grad_norm_, PyTorch 2.1: CLIP_BYTES)
COMPOSER_ADAM_BYTES = DECOUPLED_ADAMW_BYTES + CLIP_BYTES
# a bf16 model under Composer: DecoupledAdamW keeps its moments as torch.zeros_like(p), so the
# same operations and the clipping run on bf16 tensors, each element 2 B instead of 4
COMPOSER_ADAM_BF16_BYTES = COMPOSER_ADAM_BYTES * BF16_ELEMENT / FP32_ELEMENT
ACT = 2.0  # bytes per activation element (bf16)
# HBM bytes a logit costs in Megatron's vocab-parallel cross-entropy (megatron/core/tensor_parallel/
# cross_entropy.py): forward cast bf16 -> fp32 (6), max (4), subtract (8), exp (8), sum (4),
# divide (8); backward scale by the loss gradient (8) and cast back to bf16 (6)
CROSS_ENTROPY_BYTES = 52.0
# HBM bytes a bf16 logit costs in Transformer Engine's fused cross-entropy (Megatron-Core's
# cross_entropy_fusion_impl "te": parallel_cross_entropy(logits, labels, 0.0, False, tp_group),
# reduce_loss False), transformer_engine/pytorch/triton/cross_entropy.py, v2.2 to v2.9 (70f5366):
# forward, online_softmax_kernel reads the logit for the row's max and sum (2) and
# cross_entropy_kernel reads it again and writes the gradient over it (2 + 2); backward,
# element_mul_kernel scales it in place by the per-token grad_output (2 + 2; skipped only when
# grad_output is the scalar 1.0, which a per-token loss never is). dclint's count of the kernels.
FUSED_CROSS_ENTROPY_BYTES = 10.0
# Bytes a token each tp rank contributes to the one all-gather Transformer Engine's fused
# cross-entropy runs at tp > 1: cross_entropy_forward all-gathers the rank's m_d_X_y (the row's
# max, sum of exponentials and target logit: 3 fp32 a token, torch.zeros(n_rows * 3,
# dtype=torch.float32)) over the tp group with dist.all_gather_into_tensor, a blocking NCCL call
# between online_softmax_kernel and cross_entropy_kernel, forward only (the backward has no
# collective): transformer_engine/pytorch/triton/cross_entropy.py at v2.2, v2.5 and v2.9
FUSED_CROSS_ENTROPY_GATHER_BYTES = 3 * 4.0

# Stragglers. MegaScale (Jiang et al., NSDI 2024, sec. 6.3) found hosts that ran the same forward
# computation about 10% slower than the others, in every job they joined; removing them from its
# 12,288-GPU job raised MFU by about 0.7%. A synchronous step waits for its slowest host, so a
# job holding one such host runs STRAGGLER_SLOWDOWN slower. With slow hosts spread over a fleet
# at random (Poisson), a job of N GPUs holds at least one with probability 1 - exp(-N / G), and
# the 0.7% at 12,288 GPUs gives G: one slow host's worth per 169,000 GPUs. Llama 3 (Meta 2024,
# sec. 3.3.4) reports the same: "even a single straggler can slow down thousands of other GPUs".
STRAGGLER_SLOWDOWN = 0.10
STRAGGLER_GPUS = 12288 / -math.log(1 - 0.007 / STRAGGLER_SLOWDOWN)


def straggler_share(gpus: int) -> float:
    """Expected share of a step a job of `gpus` GPUs loses to slow hosts (MegaScale's)."""
    return STRAGGLER_SLOWDOWN * -math.expm1(-gpus / STRAGGLER_GPUS)


# HBM bytes an element of a GEMM operand costs beyond the cast-transpose (Machine.fp8_cast_bytes)
# per Transformer Engine recipe: current scaling reads the BF16 tensor once more for its amax
# before casting (2 B); blockwise (1 x 128 blocks) writes an fp32 scale every 128 elements and
# MXFP8 an E8M0 byte every 32, for the row-wise and the column-wise copy each; delayed scaling
# takes its scale from the amax history and computes the new amax inside the cast
# torchao's float8 training (pytorch/ao torchao/float8): tensorwise dynamic scaling reads the
# tensor once more for its amax, as current scaling does (2 B); rowwise takes an amax along the
# rows for the operand and along the columns for its transpose (two more reads, 4 B); dclint's
# own count of the bytes, not a measurement
FP8_RECIPE_BYTES = {
    "delayed": 0.0,
    "current": 2.0,
    "blockwise": 2 * 4 / 128,
    "mxfp8": 2 / 32,
    "tensorwise": 2.0,
    "rowwise": 4.0,
}
# Bytes a parameter PyTorch FSDP all-gathers with torchao's FP8 all-gather
# (`software.fp8_all_gather`, TorchTitan's enable_fsdp_float8_all_gather): the weight's shard is
# cast to float8 before the gather and only the float8 data goes over the wire, its scale as
# metadata (pytorch/ao torchao/float8/fsdp_utils.py, WeightWithDynamicFloat8CastTensor.
# fsdp_pre_all_gather, at 890e0ac8 and 0afa4c1: `return (float8_tensor._data,),
# (float8_tensor._scale,)`), 1 B an element of e4m3 against bf16's 2 (ACT)
FSDP_FP8_GATHER_BYTES = 1.0
# torchao's rowwise float8 recipe (pytorch/ao torchao/float8, recipe "rowwise"). Its forward GEMMs
# run PyTorch's CUTLASS row-wise scaled GEMM, which "most shapes" run at "90-100% of tensor-wise
# efficiency" with fast accumulation, "a long tail down to 50%" (pytorch/pytorch#147971, the
# kernel's maintainer, on H100): the range's midpoint, 0.95, of cuBLAS's tensor-wise FP8 rate.
# #147971 compares both kernels with fast accumulation; the model's FP8 rate is measured without
# it (efficiency.py, _MATMUL), so the forward is taken at 0.95 of the slower rate, as the
# tensorwise recipe's forward is taken at that rate itself (fast accumulation not modelled).
# Its backward GEMMs (no fast accumulation: torchao 0.10's gemm_config_grad_input and
# gemm_config_grad_weight, use_fast_accum False, the rate measured) run cuBLAS's tensor-wise
# kernel and apply the row and column scales to the output afterwards ("circumvent the issue
# with the slow CUTLASS kernel by using the cuBLAS kernel + manual scaling", pytorch/ao#1325;
# torchao/float8/float8_ops.py addmm_float8_unwrapped at 890e0ac8): one more pass over
# each output, read and written in BF16 (4 B an element: dclint's count)
ROWWISE_GEMM_RATE = 0.95
ROWWISE_RESCALE_BYTES = 4.0
# torchao's rowwise recipe casts each converted Linear's BF16 input twice, row-wise scaled in the
# forward and column-wise scaled (along the tokens) in the backward for the weight gradient
# (torchao/float8/float8_linear.py matmul_with_hp_or_float8_args at 6243040: input_hp saved,
# hp_tensor_to_float8_dynamic with axiswise_dim -1 forward and dim 1 backward), every Linear
# its own input (TorchTitan's Llama: wq, wk and wv each cast the same x, w1 and w3 each h):
# work that grows with the input (M x K), not the output width N. Its size is what torchao's
# per-shape rowwise table gives (torchao/float8/README.md "Rowwise scaling",
# docs/static/fp8-rowwise-perf.png added in fdddb2cf, 2025-06-06: LayerNorm -> Linear ->
# Sigmoid forward and backward against bfloat16 by forward M, K, N on "NVIDIA H100", PyTorch
# 2.8.0a0+git48807d5): at each of the table's 10 crossings at M 16,384 and 32,768 (K 2,048 to
# 32,768; K 1,024 never breaks even) the layer's element-wise work cancels, and the model's
# own GEMM rates, backward rescaling and output-gradient casts leave 16.0-22.3 B an input
# element unexplained, 19.05 on average, at the H100 torchao's calibration rows declare
# (Grand Teton's 500 W, 2.4 TB/s). Smaller M leave more (M 8,192: 22.1 on average, M 4,096:
# 41.0), fixed per-kernel costs the per-byte term does not model, so they are left out
# (dclint's derivation: tests/test_calibration.py test_rowwise_input_bytes_from_torchao_table).
# Charged half in the forward pass, half in the backward. torchao's own auto filter (
# _auto_filter_for_rowwise, pytorch/ao#2410, from the same table) leaves N <= 2,048 in BF16
ROWWISE_INPUT_BYTES = 19.0
# torchao's MX linear (torchao/prototype/mx_formats/mx_linear.py at d8bb51f63, recipe
# "mxfp8_cublas": MXLinearConfig with gemm_kernel_choice CUBLAS and mxfp8_cast_kernel_choice
# CUDA, block_size 32) casts afresh for each of a Linear's three GEMMs: mx_mm.forward casts the
# input and the weight along their rows (MXTensor.to_mx); mx_mm.backward casts the output
# gradient along its rows and, with the CUDA dim-1 kernel (mxfp8_quantize_cuda, colwise), the
# weight, the output gradient and the saved BF16 input along their columns. Each cast reads the
# BF16 tensor (2 B) and writes its e4m3 elements (1 B) and an E8M0 scale every 32 (1 / 32 B):
# dclint's count of the code's operations, no fusion with a neighbouring kernel assumed
MX_CAST_BYTES = 2 + 1 + 1 / 32
# HBM bytes a token and layer the element-wise work of a Llama-style layer (RMSNorm written in
# PyTorch operations, rotary embedding as a complex multiply, SwiGLU as silu and mul) costs in
# eager PyTorch beyond the fused kernels' count, by element of the tensor it works on; counted
# from TorchTitan's llama3 model.py (Dec 2024), each operation reading its inputs and writing
# its output at its dtype: RMSNorm (h): float cast 2+4, pow 4+4, mean 4, normalise 4+4, cast
# back 4+2, weight 2+2 = 36 against a fused norm's 4 (x 2 norms); rotary (q + kv): float cast
# 2+4, complex multiply 4+4, cast back 4+2 = 20 against 4; SwiGLU (f): silu 2+2, mul 4+2 =
# 10 against 6. A GPT-style layer's LayerNorm and GELU are one kernel each in eager PyTorch
# (nothing beyond the fused count)
# Core attention's kernel, as a slowdown (forward, backward) of the generation's flash-attention
# rate (Machine.attention_eff): "flash" (FlashAttention-2-class or Transformer Engine's fused
# attention: the rate itself) or "triton" (FlashAttention's Triton implementation, flash_attn_
# triton.py, llm-foundry's attn_impl: triton). Dao 2023 (FlashAttention-2, sec. 4.1): "around
# 1.3-1.5x faster than FlashAttention in Triton in the forward pass and around 2x faster in the
# backward pass"; the forward's midpoint, 1.4, taken
# "sdpa": PyTorch SDPA's flash backend, the FlashAttention-2 kernels PyTorch bundles, at the
# generation's rate here and at FlashAttention-2's rate measured per pass where one is published
# (Machine.sdpa: Hopper's, efficiency.py)
# "flash2": the flash-attn package's own FlashAttention-2 kernels (flash_attn_func,
# flash_attn_varlen_func: llm-foundry's attn_impl: flash with flash-attn 2.x), the kernels
# PyTorch SDPA's flash backend bundles: sdpa's rates
# "cudnn": PyTorch SDPA's cuDNN backend (SDPBackend.CUDNN_ATTENTION), which PyTorch puts first
# on sm90 and sm100 once the runtime cuDNN is above 9.15 (check_prefer_cudnn_attention,
# aten/src/ATen/native/transformers/cuda/sdp_utils.cpp, in torch 2.10 and later, as a review
# on huggingface/transformers#48163 reads it): cuDNN's fused attention kernels, the ones
# Transformer Engine's fused attention runs: flash's rates
ATTENTION_KERNEL_SLOWDOWN: dict[str, tuple[float, float]] = {
    "flash": (1.0, 1.0),
    "triton": (1.4, 2.0),
    "sdpa": (1.0, 1.0),
    "flash2": (1.0, 1.0),
    "cudnn": (1.0, 1.0),
}
# PyTorch's context parallel (torch.distributed.tensor.experimental._attention): each ring step
# after the first merges its attention output into the running one and, in the backward, adds
# its gradients into fp32 accumulators. HBM bytes an element of the local attention output
# (n x q / t) a step costs, read from the code and counted as torch.compile fuses them (the
# TorchTitan runs compile the blocks): forward (_SDPAMerger, convert_to_f32) the step's bf16
# output read (2) and the fp32 running output read and written (8) = 10; backward the fp32 dK
# and dV received from the previous rank read (4), the step's bf16 gradients added (2) and the
# sum written into the buffer sent on (4), for K and V (q wide: TorchTitan's repeat_kv), and the
# fp32 dQ accumulated the same way: 3 x 10 = 30. dclint's own count of the code's operations
TORCH_CP_MERGE_BYTES = (10.0, 30.0)
# Compute an NCCL collective of PyTorch FSDP takes from the GEMMs it runs under, on every leg:
# NCCL's kernels hold their SMs for the collective's whole time, waiting on the network too.
# Calculon's NVLink figure (Isaev et al. SC23, system files' processor_usage 0.15), applied to
# FSDP's per-block collectives whatever they cross (Megatron-Core's bucketed gradient
# reduction keeps Calculon's 2% over the network; docs/performance-model.md, FSDP)
FSDP_SM_SHARE = 0.15
# llm-foundry's attn_impl flash with flash-attn 2.x (llmfoundry/models/layers/attention.py,
# flash_attn_fn, at 5e85bd62d; flash_attn/bert_padding.py at v2.4.2) runs the varlen kernel on
# unpadded tokens: q, k and v each gathered out of the (b, s) layout before it
# (index_first_axis: torch.gather, each element read and written) and the output scattered
# back into a zero-filled (b, s) tensor after it (pad_input: the zeros written, the output
# read and written); backward, the output's gradient gathered (read and written) and q's, k's
# and v's gradients each scattered into zeros (written, read, written). HBM passes of an
# element at the activations' width (ACT), dclint's count of the code's operations, no fusion:
# forward (of q, k and v's elements, of the output's), backward (of the output gradient's, of
# q's, k's and v's gradients')
VARLEN_PAD_PASSES = ((2.0, 3.0), (2.0, 3.0))
EAGER_NORM_BYTES = 2 * (36 - 4)  # x h
EAGER_ROTARY_BYTES = 20 - 4  # x (q + kv) / t
EAGER_SWIGLU_BYTES = 10 - 6  # x f / t
# Transformer Engine's grouped GEMM (GroupedLinear, Megatron-Core's TEGroupedMLP) runs one cuBLAS
# GEMM a local expert, round-robin over its compute streams (transformer_engine/common/gemm/
# cublaslt_gemm.cu, nvte_multi_stream_cublas_gemm; num_streams = 4 in transformer_engine/gemm.h):
# at most 4 experts' tiles share the SMs' waves, so small experts pay wave quantization
GEMM_STREAMS = 4
# Host time to launch one kernel from PyTorch eager mode, and kernels of one transformer layer's
# forward (Megatron-Core with Transformer Engine: norm+QKV GEMM, rotary embedding, attention,
# projection GEMM, bias-dropout-add, norm+FC1 GEMM, activation, FC2 GEMM, bias-dropout-add,
# FP8 casts and the tensor-parallel collectives: about 20) and the extra an MoE layer launches
# (router, top-k, token counts, permute, two all-to-alls, grouped GEMMs, unpermute: about 12);
# the backward launches twice as many. dclint's own defaults: PyTorch's per-op dispatch costs
# some microseconds of CPU (the reason CUDA graphs exist, NVIDIA's "Accelerating PyTorch with
# CUDA Graphs", 2021); a layer whose GPU work is shorter than its launches waits on the host
LAUNCH_SECONDS = 8e-6
LAYER_KERNELS, MOE_KERNELS = 20, 12
# host time an eager dropless expert GEMM costs (issued after the token counts reach the CPU;
# Transformer Engine's per-expert allocations, splits and casts): dclint's own calibration,
# the least-squares fit (log errors) over Megatron-Bridge's 28 eager Qwen3 runs of NeMo 25.11
# to 26.06, held out by release in docs/performance-model.md; no public source gives it
HOST_EXPERT_GEMM_SECONDS = 74e-6


@dataclass(frozen=True, slots=True)
class Arch:
    """A decoder-only transformer; `experts` 0 for a dense model (every layer MoE otherwise)."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    seq: int
    swiglu: bool = False
    experts: int = 0
    top_k: int = 1
    dense_params: float = 0.0  # parameters outside expert MLPs
    expert_params: float = 0.0
    kv_channels: int = 0  # width of one head; 0: hidden / heads

    @property
    def q(self) -> float:
        """Attention width: heads x kv_channels (= hidden unless kv_channels says otherwise)."""
        return float(self.heads * self.kv_channels) if self.kv_channels else float(self.hidden)

    @property
    def kv(self) -> float:
        """Key and value width: query groups x kv_channels."""
        return self.q * self.kv_heads / self.heads


@dataclass(frozen=True, slots=True)
class Layout:
    """How a workload is split over its GPUs, as the step model reads it: the parallel sizes
    (tensor, pipeline, context, data, expert, virtual stages), the batch, and what the ranks
    shard and recompute."""

    tp: int = 1
    pp: int = 1
    cp: int = 1
    dp: int = 1
    ep: int = 1
    vpp: int = 1
    micro_batch: int = 1
    global_batch: int = 1
    sequence_parallel: bool = False
    distributed_optimizer: bool = True
    recompute: str = "selective"  # none | selective | full
    fsdp: bool = False  # ZeRO-3 / FSDP: parameters sharded over the data-parallel ranks
    # parameters regathered for every micro-batch's forward and backward and its gradients
    # reduce-scattered (ZeRO-3, FSDP's reshard_after_forward); False: gathered once a step
    # and the gradients reduced once (FSDP2 under pipeline parallelism)
    reshard: bool = True
    shard_group: int = 0  # HSDP: ranks a shard group holds (0: all dp x cp ranks)
    # PyTorch FSDP's per-block collectives (FSDP_SM_SHARE); False: ZeRO-3 as before
    torch_fsdp: bool = False
    stage_layers: float = 0.0  # layers of the busiest stage when stages are uneven; 0: layers/pp
    # (embedding, loss) each counted as one layer in an even pipeline split (Megatron-Core's
    # account_for_*_in_pipeline_split): the step is timed on each stage that can bind (the
    # first, a middle and the last, `model._stages`) and is the slowest one's
    split_slots: tuple[int, int] = (0, 0)
    head: bool = True  # the stage timed holds the output layer and the loss


@dataclass(frozen=True, slots=True)
class Software:
    """What the training software overlaps and fuses (Megatron-Core defaults when on)."""

    flash_attention: bool = True  # scores never reach HBM; causal blocks skipped
    overlap_tp: bool = True  # --tp-comm-overlap
    overlap_dp: bool = True  # --overlap-grad-reduce --overlap-param-gather
    overlap_pp: bool = True  # async p2p
    overlap_cp: bool = True  # ring attention p2p under the attention blocks
    grad_bytes: float = 4.0  # fp32 gradient reduction (Megatron-LM's default with bf16)
    # Megatron-LM (2021) --scatter-gather-tensors-in-pipeline: each tp rank sends 1/t of a
    # stage's activation across the fabric and the next stage all-gathers it over NVLink
    p2p_scatter_gather: bool = False
    # Transformer Engine's FP8 scaling recipe (FP8 runs only): what the casts cost on top of
    # Machine.fp8_cast_bytes (FP8_RECIPE_BYTES)
    fp8_recipe: str = "delayed"
    expert_tp: int = 0  # tensor-parallel size of the expert layers; 0: the layout's tp
    # MoE parallel folding (Liu et al. 2025): expert groups numbered expert_tp innermost, then
    # ep, over tp x cp x dp, so the all-to-all runs over ep x expert_tp consecutive ranks
    moe_folding: bool = False
    # layers captured as CUDA graphs: the host launches a graph, not each kernel
    # (without: LAUNCH_SECONDS x kernels a layer is the least a layer's pass can take)
    cuda_graphs: bool = False
    # Megatron-Core's --overlap-moe-expert-parallel-comm (combined 1F1B): the dispatch and
    # combine all-to-alls of one micro-batch run under the computation of another
    overlap_ep: bool = False
    # the expert layers captured too (Megatron-Bridge's full-iteration CUDA graph): no host
    # time a local expert; without, dropless experts run eager (HOST_EXPERT_GEMM_SECONDS)
    graphed_experts: bool = False
    # the flex dispatcher (DeepEP, HybridEP): a token crosses the network once a node that
    # holds one of its experts and is forwarded over NVLink (module doc of collectives)
    node_dedup: bool = False
    # element-wise kernels: "transformer-engine" (fused), "compiled" (torch.compile, fused),
    # "eager" (PyTorch, one kernel an operation: EAGER_BYTES)
    kernels: str = "transformer-engine"
    fp8_all_gather: bool = False  # FSDP all-gathers FP8 weights (1 B a parameter)
    # selective recomputation repeats every other matmul of a layer and its element-wise
    # operations (TorchTitan's op-level policy), not core attention
    op_recompute: bool = False
    # core attention's kernel (ATTENTION_KERNEL_SLOWDOWN): flash, or FlashAttention in Triton
    attention_kernel: str = "flash"
    # overlap_tp as PyTorch's async tensor parallelism (TorchTitan's enable_async_tensor_
    # parallel): the forward passes' all-gather-matmul and matmul-reduce-scatter decomposed
    # and run on the copy engines; the backward's collectives stay blocking (model._tp_comm)
    async_tp: bool = False
    # context parallelism as PyTorch runs it (model._cp_comm): q wide K and V chunks
    # all-gathered, the fp32 dK and dV passed on each step of the backward
    torch_cp: bool = False
    # Megatron-Core's DDP gradient bucket, parameters (model._dp_comm); 0: its default
    bucket_params: float = 0.0
    # HBM bytes the optimizer step moves a (sharded) parameter, gradient clipping included
    # (predict.optimizer_parts): ADAM_BYTES + MEGATRON_CLIP_BYTES (Megatron-Core's, dclint's
    # default software), ADAM_BYTES + CLIP_BYTES (a fused Adam after torch's clipping),
    # COMPOSER_ADAM_BYTES (Composer's unfused DecoupledAdamW), their bf16 counterparts
    optimizer_bytes: float = ADAM_BYTES + MEGATRON_CLIP_BYTES
    # context parallelism as Transformer Engine's cp_comm_type "all_gather" runs it (model.
    # _cp_comm): the query groups' K and V all-gathered, dK and dV reduce-scattered, exposed
    cp_all_gather: bool = False
    # the loss as Transformer Engine's fused cross-entropy computes it (model._layer_pass's
    # head): FUSED_CROSS_ENTROPY_BYTES a logit, not Megatron's fp32 CROSS_ENTROPY_BYTES
    fused_cross_entropy: bool = False
    # MoE layers as Megatron-Core builds them (MoELayer, core_v0.13.0 / 0.14.0): the layer's
    # input reaches the router and the all-to-all or flex dispatcher sequence-parallel split,
    # so its MLP half has no tp collective (model._tp_comm); only attention's two a pass
    moe_sequence_parallel: bool = True
    # PyTorch FSDP's gradient sync (model._torch_fsdp): "every-micro-batch" (FSDP2 and FSDP1 as
    # they run by default), "last-micro-batch" (set_requires_gradient_sync(False) on the others,
    # no_sync()); "": software.gradient_sync_in_effect's default (the last micro-batch under
    # pipeline parallelism, every micro-batch without it)
    gradient_sync: str = ""
    # every FP8 GEMM's input cast by its own Transformer Engine Linear, the QKV's and the MLP's
    # first GEMM's too (llm-foundry's fc_type te: te.Linear after a separate norm, model.
    # _layer_pass); False: Megatron-Core's, whose norm writes those two inputs in FP8
    fp8_cast_every_input: bool = False
    # fp8_recipe mxfp8 as torchao's MX linear (TorchTitan's mx converter), not Transformer
    # Engine's: each Linear's input, weight and output gradient cast as mx_mm does (model.
    # _layer_pass, MX_CAST_BYTES)
    torchao_mx: bool = False
    # where the tp layers all-gather their sequence-parallel input (model._tp_comm): "megatron"
    # (once for attention's projections, once for the MLP's) or "per-projection" (each
    # column-parallel projection for itself, the output head's logits all-gathered)
    tp_plan: str = "megatron"
    # core attention called through flash-attn's varlen interface with q, k and v gathered out
    # of their padding and the output scattered back (llm-foundry's attn_impl flash with
    # flash-attn 2.x: VARLEN_PAD_PASSES); False: the kernel reads the layer's tensors in place
    varlen_padding: bool = False


@dataclass(frozen=True, slots=True)
class Machine:
    """The GPU and its links as the step model reads them: peak rates at the run's precision,
    the efficiencies it reaches, HBM, NVLink and network bandwidths, and the per-kernel costs
    a calibration profile sets."""

    peak: float  # dense FLOP/s at the precision
    matmul_eff: float
    attention_eff: float  # core attention (flash kernels or batched GEMMs) over the peak
    hbm: float  # B/s
    hbm_eff: float
    links: Links
    sms: int = 0  # SMs GEMM tiles are scheduled on; 0: no tile or wave quantization
    nvlink_sm_share: float = 0.0  # compute lost while an NVLink collective runs underneath
    network_sm_share: float = 0.0  # the same for collectives over the scale-out network
    # core attention's dense peak: BF16 in FP8 runs (Transformer Engine keeps dot-product
    # attention in BF16 by default); 0: `peak`
    attention_peak: float = 0.0
    # HBM bytes an element costs to cast a GEMM operand to FP8 (0 in BF16 runs): Transformer
    # Engine's cast-transpose reads the BF16 tensor (2 B) and writes the FP8 tensor and its FP8
    # transpose (1 B each), for every GEMM input in the forward and output gradient in the backward
    fp8_cast_bytes: float = 0.0
    # of those, the FP8 transpose's write, which Transformer Engine's per-tensor recipes
    # (delayed, current) skip on a GPU whose FP8 GEMMs take any layout (Blackwell:
    # efficiency.FP8_TRANSPOSE_BYTES); 0: every recipe writes it
    fp8_transpose_free: float = 0.0
    # seconds a step beyond the model's terms, from a calibration profile (0: none)
    overhead: float = 0.0
    # PyTorch SDPA's flash backend (attention_kernel "sdpa"), time over attention_eff's for
    # the causal forward, the forward without the mask and the backward: FlashAttention-2's
    # rate measured per pass where published (efficiency.py: Hopper); (1, 1, 1) otherwise
    sdpa: tuple[float, float, float] = (1.0, 1.0, 1.0)
    # Transformer Engine's fused attention (attention_kernel "flash"), the same three factors:
    # cuDNN's kernels where Transformer Engine prefers them and their rate is published per
    # pass (efficiency.py: Hopper); (1, 1, 1) where attention_eff is already that kernel's
    fused_attention: tuple[float, float, float] = (1.0, 1.0, 1.0)
    # the two kernels' rates by sequence length, TFLOPS by pass (causal forward, forward,
    # backward) at efficiency.ATTENTION_LENGTHS, where measured (Hopper); (): the 16K factors
    # above at every length
    sdpa_lengths: tuple[tuple[float, ...], ...] = ()
    fused_lengths: tuple[tuple[float, ...], ...] = ()
    # the same at head dim efficiency.NARROW_HEAD (64), for a model whose heads are that narrow
    sdpa_lengths_narrow: tuple[tuple[float, ...], ...] = ()
    fused_lengths_narrow: tuple[tuple[float, ...], ...] = ()
    # the output layer's GEMMs (logits) at this share of the matmul rate: in FP8 and FP4 runs
    # they stay in BF16 (Megatron-Core's output layer is not a Transformer Engine module;
    # TorchTitan's Float8 configs filter it out), the measured BF16 over the precision's rate
    head_rate: float = 1.0
    # an FP4 run: its GEMM rate is already NVFP4's block-scaled one (efficiency.AT_LAYER), so an
    # FP8 recipe's GEMM rates (MXFP8_GEMM_RATE, ROWWISE_GEMM_RATE) do not apply to it
    fp4: bool = False


@dataclass(frozen=True, slots=True)
class Step:
    """Seconds per step by part; `time` is their sum."""

    compute: float
    recompute: float
    tp: float
    pp_bubble: float
    pp_p2p: float
    dp: float
    cp: float
    ep: float
    optimizer: float
    model_flops: float  # per step, whole job (MFU numerator)
    hardware_flops: float  # per step, whole job, with recomputation
    overhead: float = 0.0  # calibrated seconds a step beyond the terms above (Machine.overhead)
    straggler: float = 0.0  # seconds the slowest host adds (straggler_share of the terms above)

    @property
    def time(self) -> float:
        return (
            self.compute
            + self.recompute
            + self.tp
            + self.pp_bubble
            + self.pp_p2p
            + self.dp
            + self.cp
            + self.ep
            + self.optimizer
            + self.overhead
            + self.straggler
        )

    def parts(self) -> dict[str, float]:
        return {
            "compute": self.compute,
            "recompute": self.recompute,
            "tp": self.tp,
            "pp_bubble": self.pp_bubble,
            "pp_p2p": self.pp_p2p,
            "dp": self.dp,
            "cp": self.cp,
            "ep": self.ep,
            "optimizer": self.optimizer,
            **({"straggler": self.straggler} if self.straggler else {}),
            **({"overhead": self.overhead} if self.overhead else {}),
        }
