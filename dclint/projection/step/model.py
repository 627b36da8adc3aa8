"""The step-time model: one training step of a Megatron-style layout, part by part, in seconds.

Plain floats and slotted records inside (a layout search evaluates thousands of layouts);
`dclint.projection.predict` converts to and from pint quantities at the boundary. The equations
and each constant's source are in docs/performance-model.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dclint.model.software import (
    TORCHAO_FP8_RECIPES,
    gradient_sync_in_effect,
    per_projection,
)
from dclint.projection.collectives import group_time, node_share
from dclint.projection.efficiency import MXFP8_GEMM_RATE, length_factors, tile_share
from dclint.projection.flops import per_token
from dclint.projection.memory import PER_TENSOR_FP8
from dclint.projection.step.records import (
    ACT,
    ADAM_BYTES,
    ATTENTION_KERNEL_SLOWDOWN,
    CROSS_ENTROPY_BYTES,
    EAGER_NORM_BYTES,
    EAGER_ROTARY_BYTES,
    EAGER_SWIGLU_BYTES,
    FP8_RECIPE_BYTES,
    FSDP_FP8_GATHER_BYTES,
    FSDP_SM_SHARE,
    FUSED_CROSS_ENTROPY_BYTES,
    FUSED_CROSS_ENTROPY_GATHER_BYTES,
    GEMM_STREAMS,
    HOST_EXPERT_GEMM_SECONDS,
    LAUNCH_SECONDS,
    LAYER_KERNELS,
    MOE_KERNELS,
    MX_CAST_BYTES,
    ROWWISE_GEMM_RATE,
    ROWWISE_INPUT_BYTES,
    ROWWISE_RESCALE_BYTES,
    TORCH_CP_MERGE_BYTES,
    VARLEN_PAD_PASSES,
    Arch,
    Layout,
    Machine,
    Software,
    Step,
    straggler_share,
)

__all__ = [
    "ACT",
    "ADAM_BYTES",
    "Arch",
    "Layout",
    "Machine",
    "Software",
    "Step",
    "Stepper",
    "bubble_fraction",
    "stage_steps",
    "step",
    "tp_collectives",
]


def bubble_fraction(pp: int, vpp: int, micro_batches: int) -> float:
    """Pipeline bubble over the ideal time: (p - 1) / (v m) (Narayanan et al. 2021, eq. 1-2)."""
    return (pp - 1) / (vpp * micro_batches)


def model_flops_per_token(a: Arch, causal: bool = True) -> float:
    """Model FLOPs per token: dclint.projection.flops.per_token, the one count."""
    return per_token(*_count_args(a), causal)[0]


def _count_args(a: Arch) -> tuple[int, float, float, float, float, float, float, bool, float]:
    routed = a.top_k if a.experts else 1
    return a.layers, a.hidden, a.q, a.kv, a.ffn, a.vocab, a.seq, a.swiglu, routed


def step(a: Arch, lay: Layout, mac: Machine, sw: Software, causal: bool = True) -> Step:
    """Time of one step on the pipeline stage that binds, and the FLOPs it does: the busiest
    (last) stage, or, with the embedding and the loss counted in the split, the slowest of the
    stages that can bind (`_stages`)."""
    stages = _stages(a, lay)
    if len(stages) == 1:
        return _stage_step(a, stages[0], mac, sw, causal)
    return max((_stage_step(a, s, mac, sw, causal) for s in stages), key=_seconds)


def stage_steps(
    a: Arch, lay: Layout, mac: Machine, sw: Software, causal: bool = True
) -> tuple[tuple[str, Layout, Step], ...]:
    """Each stage that can bind (`_stages`), named "first", "middle" or "last", with its
    step; `step` is the slowest of them (the first of equals), to the bit. One stage,
    named "", when the stages are not told apart."""
    named = _named_stages(a, lay)
    return tuple((name, s, _stage_step(a, s, mac, sw, causal)) for name, s in named)


def _seconds(st: Step) -> float:
    return st.time


def _stages(a: Arch, lay: Layout) -> tuple[Layout, ...]:
    """The stages that can bind, each with its own layers and whether it holds the output layer
    and the loss (Layout.head). With the embedding and the loss counted as layers in the even
    split (Layout.split_slots), Megatron-Core gives each of the pp x vpp virtual stages
    (layers + slots) / (pp x vpp) of them, the embedding the first virtual stage's first and the
    loss the last one's last (get_num_layers_to_build and get_transformer_layer_offset,
    megatron/core/transformer/transformer_block.py and transformer_layer.py, core_r0.13.0): a
    pipeline rank holds (layers + slots) / pp, the first one layer fewer and the embedding
    (its lookup not charged), the last one fewer and the output layer and the loss, the
    middle ones layers only. Without them `lay` alone: the busiest stage's layers
    (stage_layers; 0: layers / pp) and the head, as before."""
    return tuple(s for _, s in _named_stages(a, lay))


def _named_stages(a: Arch, lay: Layout) -> tuple[tuple[str, Layout], ...]:
    """`_stages`, each named "first", "middle" or "last" ("" when there is one)."""
    embedding, loss = lay.split_slots
    if lay.pp == 1 or not (embedding or loss) or lay.stage_layers:
        return (("", lay),)
    per = (a.layers + embedding + loss) / lay.pp
    plain = replace(lay, split_slots=(0, 0), head=False)
    out = [("first", replace(plain, stage_layers=per - embedding))]
    if lay.pp > 2:
        out.append(("middle", replace(plain, stage_layers=per)))
    out.append(("last", replace(plain, stage_layers=per - loss, head=True)))
    # a stage of no layers (a split PAR003 rejects) is left out; the model has no such stage
    kept = tuple((n, s) for n, s in out if s.stage_layers > 0)
    return kept or (("", replace(lay, split_slots=(0, 0))),)


def _stage_step(a: Arch, lay: Layout, mac: Machine, sw: Software, causal: bool) -> Step:
    """One stage's step: one function a cost term, each reading the layer pass (`_layer_pass`)
    they share."""
    x = _layer_pass(a, lay, mac, sw)
    return _step(
        lay,
        mac,
        sw,
        x,
        _comm(a, lay, mac, sw, x),
        _flops(a, lay, causal, sw.op_recompute),
        _dp_shared(a, lay, mac, sw),
    )


def _comm(
    a: Arch,
    lay: Layout,
    mac: Machine,
    sw: Software,
    x: _Pass,
    inline: tuple[float, float, float] | None = None,
) -> tuple[float, float, float, float, float]:
    """The tp, pipeline bubble, pipeline sends, cp and ep terms of `lay`. The bubble idles a
    stage for (p - 1) / v micro-batches' time, each micro-batch's time its compute and the
    tp, cp and ep communication it waits on in its passes (`inline`: `_inline`'s, when known)."""
    tp, cp, ep = inline or _inline(a, lay, mac, sw, x)
    return tp, _pp_bubble(lay, x, tp + cp + ep), _pp_sends(a, lay, mac, sw, x), cp, ep


def _inline(
    a: Arch, lay: Layout, mac: Machine, sw: Software, x: _Pass
) -> tuple[float, float, float]:
    """The tp, cp and ep terms: they read the layer pass and the layout's sizes, not vpp
    (but the ep term with overlap_ep)."""
    return (
        _tp_comm(a, lay, mac, sw, x),
        _cp_comm(a, lay, mac, sw, x),
        _ep_comm(a, lay, mac, sw, x),
    )


def _step(
    lay: Layout,
    mac: Machine,
    sw: Software,
    x: _Pass,
    comm: tuple[float, float, float, float, float],
    flops: tuple[float, float],
    shared: _DpShared,
) -> Step:
    """The step of `lay` from its layer pass, its communication terms that the optimizer does
    not change (tp, pipeline bubble and sends, cp, ep), its FLOPs and what its data-parallel
    and optimizer terms read of the layout alone (`_dp_shared`)."""
    compute, recompute = _compute(x)
    tp, bubble, sends, cp, ep = comm
    groups, optimizer, straggler_part = shared
    terms = (
        compute,
        recompute,
        tp,
        bubble,
        sends,
        _dp_comm(lay, mac, sw, x, groups),
        cp,
        ep,
        optimizer,
    )
    # every GPU of the job synchronises each step: it waits for the slowest host
    straggler = straggler_part * sum(terms)
    return Step(*terms, flops[0], flops[1], mac.overhead, straggler)


class Stepper:
    """`step` for the layouts of one (arch, machine, software), as a layout search times them:
    what layouts share is computed once. The layer pass reads neither vpp nor the optimizer,
    and its recomputation term only the recomputation (`_recomputed`); the tp, pipeline, cp and
    ep terms do not read the optimizer; the FLOPs read only the batch and the recomputation.
    Each Step is the one `step` returns for the layout, to the bit (tests/test_plan_search.py)."""

    def __init__(self, a: Arch, mac: Machine, sw: Software, causal: bool = True) -> None:
        self.a, self.mac, self.sw, self.causal = a, mac, sw, causal
        self._passes: dict[tuple[object, ...], _Pass] = {}
        self._comm: dict[tuple[object, ...], tuple[float, float, float, float, float]] = {}
        self._inline: dict[tuple[object, ...], tuple[float, float, float]] = {}
        self._flops: dict[tuple[int, str], tuple[float, float]] = {}
        self._dp: dict[tuple[object, ...], _DpShared] = {}

    def __call__(self, lay: Layout) -> Step:
        stages = _stages(self.a, lay)
        if len(stages) == 1:
            return self._stage(stages[0])
        return max((self._stage(s) for s in stages), key=_seconds)

    def _stage(self, lay: Layout) -> Step:
        a, mac, sw = self.a, self.mac, self.sw
        shape = (
            lay.tp, lay.pp, lay.cp, lay.dp, lay.ep, lay.micro_batch, lay.global_batch,
            lay.sequence_parallel, lay.stage_layers, lay.head,
        )  # fmt: skip
        key = (*shape, lay.recompute)
        x = self._passes.get(key)
        if x is None:
            base = self._passes.get(shape)
            if base is None:
                x = self._passes[shape] = _layer_pass(a, lay, mac, sw)
            else:
                x = _recomputed(base, lay.recompute, sw)
            self._passes[key] = x
        ckey = (*key, lay.vpp)
        comm = self._comm.get(ckey)
        if comm is None:
            ikey = ckey if sw.overlap_ep else key
            inline = self._inline.get(ikey)
            if inline is None:
                inline = self._inline[ikey] = _inline(a, lay, mac, sw, x)
            comm = self._comm[ckey] = _comm(a, lay, mac, sw, x, inline)
        fkey = (lay.global_batch, lay.recompute)
        flops = self._flops.get(fkey)
        if flops is None:
            flops = self._flops[fkey] = _flops(a, lay, self.causal, sw.op_recompute)
        dkey = (
            lay.tp, lay.pp, lay.cp, lay.dp, lay.ep, lay.vpp, lay.distributed_optimizer, lay.fsdp,
            lay.torch_fsdp,
        )  # fmt: skip
        shared = self._dp.get(dkey)
        if shared is None:
            shared = self._dp[dkey] = _dp_shared(a, lay, mac, sw)
        return _step(lay, mac, sw, x, comm, flops, shared)


@dataclass(frozen=True, slots=True)
class _Pass:
    """One layer and one micro-batch on a GPU of the stage timed: what the cost terms share."""

    n: float  # tokens a GPU holds per micro-batch
    m: int  # micro-batches a step
    routed: int  # experts a token goes through (1 without experts)
    per_layer: float  # layers of the stage
    fwd_g: float  # GEMM FLOPs of the forward over their tile shares
    bwd_g: float  # the same, backward
    attn: float  # core attention FLOPs, forward
    attn_rate: float  # FLOP/s of core attention
    attn_fwd: float  # s, core attention forward (the attention kernel's rate)
    attn_bwd: float  # s, core attention backward
    fwd: float  # s, forward
    bwd: float  # s, backward
    rec: float  # s, recomputation
    mb: float  # s, one micro-batch through the stage, no recompute
    # what the recomputation of another policy reads (`_recomputed`)
    gemm_rate: float  # FLOP/s of the GEMMs
    memory: float  # s, element-wise work (and unfused scores), forward
    cast_fwd: float  # s, FP8 casts, forward
    scores_time: float  # s, the unfused attention scores' bytes (0 with flash attention)
    # GEMM FLOPs of the forward's four GEMMs (QKV, attention's wo, the MLP's first and w2)
    # over their tile shares: the matmuls async TP fuses a collective with, each its own
    gemms_fwd_g: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


def _layer_pass(a: Arch, lay: Layout, mac: Machine, sw: Software) -> _Pass:
    t, p, c, d, e = lay.tp, lay.pp, lay.cp, lay.dp, lay.ep
    h, s, f = float(a.hidden), float(a.seq), float(a.ffn)
    q, kv = a.q, a.kv
    routed = a.top_k if a.experts else 1
    n = lay.micro_batch * s / c  # tokens a GPU holds per micro-batch
    m = max(1, lay.global_batch // (d * lay.micro_batch))
    flops_rate = mac.peak * mac.matmul_eff
    bytes_rate = mac.hbm * mac.hbm_eff
    sp = t if lay.sequence_parallel else 1
    # one layer, one micro-batch, forward. Each GEMM (rows, columns of its output, FLOPs) runs
    # at the matmul rate x the share of its tile slots it fills (tile and wave quantization);
    # backward: data gradient (n x inputs) and weight gradient (inputs x outputs) per GEMM
    mlp_in = f * (2 if a.swiglu else 1)
    groups = max(1.0, a.experts / e) if a.experts else 1.0
    # the expert GEMMs split over the expert tp (the layout's tp unless folded): each local
    # expert takes n x top-k x e x et / (experts x t) tokens (n without experts)
    et = _expert_tp(a, lay, sw)
    rows = n * routed / groups * et / t
    fwd_g = bwd_g = 0.0
    exp_fwd_g = exp_bwd_g = 0.0
    gemms_fwd_g: list[float] = []
    # the local experts' GEMMs are one cuBLAS GEMM each, on Transformer Engine's compute
    # streams (GEMM_STREAMS): at most that many share a wave of tiles
    together = min(groups, float(GEMM_STREAMS))
    moe = bool(a.experts)  # the MLP GEMMs are the local experts' (one or more)
    for out, inp, r, grp, expert in (
        ((q + 2 * kv) / t, h, n, 1.0, False),
        (h, q / t, n, 1.0, False),
        (mlp_in / et, h, rows, groups, moe),
        (h, f / et, rows, groups, moe),
    ):
        flops = 2 * r * out * inp * grp
        tog = together if grp > 1 else grp
        f_g = flops / tile_share(r, out, mac.sms, tog)
        b_g = flops / tile_share(r, inp, mac.sms, tog) + flops / tile_share(inp, out, mac.sms, tog)
        fwd_g += f_g
        bwd_g += b_g
        gemms_fwd_g.append(f_g)
        if expert:
            exp_fwd_g += f_g
            exp_bwd_g += b_g
    attn = 4 * n * s * q / t * (0.5 if sw.flash_attention else 1.0)
    scores = 0.0 if sw.flash_attention else 9 * a.heads * s * n / t  # softmax, dropout, mask
    elementwise = n * (20 * h / sp + ACT * f * (3 if a.swiglu else 2) * routed / t)
    if a.experts:
        elementwise += n * 8 * h * routed / t  # permute and unpermute tokens
    # GEMM operands read and results written (not hidden under the math: additive roofline)
    w_mlp = h * f * (3 if a.swiglu else 2) / et * (a.experts / e if a.experts else 1)
    weights = (h * (q + 2 * kv) + q * h) / t + w_mlp
    acts = n * (2 * h + (q + 2 * kv) / t + q / t + f * (3 if a.swiglu else 2) * routed / t)
    elementwise += ACT * (weights + 2 * acts)
    if sw.kernels == "eager" and a.swiglu:
        # a Llama-style layer in eager PyTorch: RMSNorm, rotary embedding and SwiGLU one
        # kernel an operation (EAGER_*_BYTES, counted from TorchTitan's model code)
        elementwise += n * (
            EAGER_NORM_BYTES * h / sp
            + EAGER_ROTARY_BYTES * (q + kv) / t
            + EAGER_SWIGLU_BYTES * f / t
        )
    attn_rate = (mac.attention_peak or mac.peak) * mac.attention_eff
    memory = (elementwise + scores) / bytes_rate
    # FP8: GEMM inputs and output gradients cast with their transposes (none on Blackwell for
    # Transformer Engine's per-tensor recipes: Machine.fp8_transpose_free). Megatron-Core's
    # layer (gpt_layer_specs: Megatron-Core 0.8, TE 1.x; Megatron-Bridge 25.11+ and NeMo
    # 25.04, TE 2.x) builds the QKV and the MLP's first GEMM as TELayerNormColumnParallelLinear,
    # which writes the norm's output in FP8 directly; the attention projection and the MLP's
    # second GEMM are TERowParallelLinear, after core attention and after Megatron-Core's own
    # SwiGLU (bias_swiglu_impl, BF16 out): each casts its input (no file's Megatron-Core builds
    # Transformer Engine's LayerNormMLP, whose activation writes FP8). An MoE layer's
    # TEGroupedMLP, after TENorm, the router and the permutation, casts the routed tokens (the
    # expert-tp group's, all-gathered) into its first GEMM, and the backward casts each routed
    # row's output gradient of its second. llm-foundry's FP8 (fc_type te: every Linear of its
    # attention and FFN a te.Linear, after PyTorch's LayerNorm; llmfoundry/models/layers/fc.py,
    # attention.py, ffn.py at b2a43a147, submit_benchmarks.py setting fc_type te for fp8 on
    # H100) casts the QKV's and the first MLP GEMM's BF16 inputs too
    # (Software.fp8_cast_every_input). torchao's recipes cast as their own terms say (below)
    te_fp8 = mac.fp8_cast_bytes and sw.fp8_recipe not in TORCHAO_FP8_RECIPES and not sw.torchao_mx
    free = mac.fp8_transpose_free if sw.fp8_recipe in PER_TENSOR_FP8 else 0.0
    cast = mac.fp8_cast_bytes - free
    cast += FP8_RECIPE_BYTES[sw.fp8_recipe] if mac.fp8_cast_bytes else 0.0
    expert_in = h * routed * et / t if a.experts else 0.0  # the experts' rows, all-gathered
    fc2_in = f * routed / t if te_fp8 else 0.0
    norm_out = 2 * h / sp if (te_fp8 and sw.fp8_cast_every_input) else 0.0
    cast_fwd = cast * n * (q / t + fc2_in + (expert_in if te_fp8 else 0.0) + norm_out) / bytes_rate
    fc2_grad = expert_in if (a.experts and te_fp8) else h
    cast_bwd = cast * n * ((q + 2 * kv) / t + h + mlp_in * routed / t + fc2_grad) / bytes_rate
    # flash attention's backward recomputes the scores: 2.5x its forward FLOPs (Dao 2023);
    # the kernel's own rate forward and backward (ATTENTION_KERNEL_SLOWDOWN)
    slow_fwd, slow_bwd = (
        ATTENTION_KERNEL_SLOWDOWN[sw.attention_kernel] if sw.flash_attention else (1.0, 1.0)
    )
    # a rank's attention work in k equal shares, one under the causal mask's diagonal: a
    # ring's c steps, the first causal; with K and V all-gathered (dclint's split by work),
    # the two triangles of the rank's two chunks (a 2c-th of the sequence each) of 2c shares
    k = 2 * c if sw.cp_all_gather and c > 1 else c
    head_dim = q / a.heads  # the narrow panels' where narrow (efficiency.narrow)
    if sw.flash_attention and sw.attention_kernel in ("sdpa", "flash2"):
        # FlashAttention-2 (PyTorch SDPA's or the flash-attn package's) at its rate per pass
        # (Machine.sdpa); a cp rank runs one share of its k with the causal mask, k - 1 without
        # at the rank's sequence share (length_factors: the rate by length where measured)
        causal_fwd, full_fwd, sdpa_bwd = mac.sdpa
        lc, lf, lb = length_factors(mac.sdpa_lengths, s / c, mac.sdpa_lengths_narrow, head_dim)
        slow_fwd *= (causal_fwd * lc + (k - 1) * full_fwd * lf) / k
        slow_bwd *= sdpa_bwd * lb
    if sw.flash_attention and sw.attention_kernel in ("flash", "cudnn"):
        # Transformer Engine's fused attention at cuDNN's rate per pass where it runs cuDNN
        # (Machine.fused_attention), the passes of a cp rank as above
        causal_fwd, full_fwd, fused_bwd = mac.fused_attention
        lc, lf, lb = length_factors(mac.fused_lengths, s / c, mac.fused_lengths_narrow, head_dim)
        slow_fwd *= (causal_fwd * lc + (k - 1) * full_fwd * lf) / k
        slow_bwd *= fused_bwd * lb
    attn_fwd = slow_fwd * attn / attn_rate
    attn_bwd = slow_bwd * (2.5 if sw.flash_attention else 2.0) * attn / attn_rate
    fwd_gemm, bwd_gemm = fwd_g / flops_rate, bwd_g / flops_rate
    if mac.fp8_cast_bytes and not mac.fp4 and sw.fp8_recipe == "mxfp8":
        # Transformer Engine's MXFP8 GEMMs at MXFP8_GEMM_RATE of the per-tensor FP8 rate
        fwd_gemm, bwd_gemm = fwd_gemm / MXFP8_GEMM_RATE, bwd_gemm / MXFP8_GEMM_RATE
    if mac.fp8_cast_bytes and not mac.fp4 and sw.fp8_recipe == "rowwise":
        # torchao's rowwise recipe: the forward GEMMs run PyTorch's CUTLASS row-wise scaled
        # GEMM (ROWWISE_GEMM_RATE of cuBLAS's tensor-wise rate); the backward's, without fast
        # accumulation, cuBLAS's tensor-wise GEMM and the scales applied to each output in
        # a separate pass (ROWWISE_RESCALE_BYTES an output element); each Linear casts its
        # own input row-wise forward and column-wise backward (ROWWISE_INPUT_BYTES an input
        # element, half a pass): TorchTitan's wq, wk and wv each x, wo the attention output,
        # w1 (and w3) each x, w2 the activation
        fwd_gemm /= ROWWISE_GEMM_RATE
        grads = n * (h + q / t + h * routed + f / et * routed) + weights
        cast_bwd += ROWWISE_RESCALE_BYTES * grads / bytes_rate
        inputs = n * (3 * h + q / t + ((2 if a.swiglu else 1) * h + f / et) * routed)
        cast_fwd += ROWWISE_INPUT_BYTES / 2 * inputs / bytes_rate
        cast_bwd += ROWWISE_INPUT_BYTES / 2 * inputs / bytes_rate
    if mac.fp8_cast_bytes and not mac.fp4 and sw.torchao_mx:
        # torchao's MX linear (MX_CAST_BYTES a cast): forward, each Linear's input (TorchTitan's
        # wq, wk and wv each x, w1 and w3 each h) and its weight along the rows; backward, the
        # output gradient along rows and columns, the weight and the saved input along columns
        inputs = n * (3 * h + q / t + ((2 if a.swiglu else 1) * h + f / et) * routed)
        outputs = n * ((q + 2 * kv) / t + h + (mlp_in / et + h) * routed)
        cast_fwd = MX_CAST_BYTES * (inputs + weights) / bytes_rate
        cast_bwd = MX_CAST_BYTES * (inputs + weights + 2 * outputs) / bytes_rate
    fwd = fwd_gemm + attn_fwd + memory + cast_fwd
    bwd = bwd_gemm + attn_bwd + 2 * memory + cast_bwd
    if sw.varlen_padding and sw.flash_attention:
        # q, k and v gathered out of their padding and the output scattered back, each pass
        # (VARLEN_PAD_PASSES: llm-foundry's flash_attn_fn around flash_attn_varlen_func)
        qkv, out = n * (q + 2 * kv) / t * ACT, n * q / t * ACT
        (qkv_fwd, out_fwd), (out_bwd, qkv_bwd) = VARLEN_PAD_PASSES
        fwd += (qkv_fwd * qkv + out_fwd * out) / bytes_rate
        bwd += (out_bwd * out + qkv_bwd * qkv) / bytes_rate
    if sw.torch_cp and c > 1:
        # PyTorch's context parallel merges each ring step's output into the running fp32 one
        # and accumulates dQ, dK and dV in fp32 (TORCH_CP_MERGE_BYTES), c - 1 steps a pass
        merged = (c - 1) * n * q / t / bytes_rate
        fwd += TORCH_CP_MERGE_BYTES[0] * merged
        bwd += TORCH_CP_MERGE_BYTES[1] * merged
    if not sw.cuda_graphs:  # the host launches every kernel: a pass takes at least that
        launches = LAUNCH_SECONDS * (LAYER_KERNELS + (MOE_KERNELS if a.experts else 0))
        fwd, bwd = max(fwd, launches), max(bwd, 2 * launches)
    if a.experts and not sw.graphed_experts:
        # eager dropless experts: the host issues each local expert's GEMMs (2 forward, 4
        # backward) after the token counts reach it; the expert GEMMs wait for the host
        local = a.experts / e
        host = HOST_EXPERT_GEMM_SECONDS * local
        fwd += max(0.0, 2 * host - exp_fwd_g / flops_rate)
        bwd += max(0.0, 4 * host - exp_bwd_g / flops_rate)
    scores_time = scores / bytes_rate
    rec = _rec(
        lay.recompute, sw, fwd, fwd_g, flops_rate, memory, cast_fwd, attn, attn_rate, scores_time
    )
    logits = 2 * n * h * a.vocab / t
    vt = a.vocab / t
    loss_bytes = FUSED_CROSS_ENTROPY_BYTES if sw.fused_cross_entropy else CROSS_ENTROPY_BYTES
    # the loss over the vocabulary's share (vocab-parallel cross-entropy, TorchTitan's loss
    # parallel), or over all of it on each rank when the head all-gathers the logits
    # (per-projection's output_layouts Replicate(): _tp_comm)
    shared = 1 if _per_projection(lay, sw) else t
    head = (
        logits / tile_share(n, vt, mac.sms)
        + logits / tile_share(n, h, mac.sms)
        + logits / tile_share(h, vt, mac.sms)
    ) / (flops_rate * mac.head_rate) + loss_bytes * n * a.vocab / shared / bytes_rate
    per_layer = lay.stage_layers or a.layers / p
    # weight gradients accumulate into fp32 main gradients: read + write 4 B a local parameter
    accumulate = 8 * (a.dense_params / t + a.expert_params / (e * et)) / p / bytes_rate
    # one micro-batch through the stage, no recompute; the output layer and the loss on the
    # stage that holds them
    mb = per_layer * (fwd + bwd) + (head if lay.head else 0.0) + accumulate
    return _Pass(
        n,
        m,
        routed,
        per_layer,
        fwd_g,
        bwd_g,
        attn,
        attn_rate,
        attn_fwd,
        attn_bwd,
        fwd,
        bwd,
        rec,
        mb,
        flops_rate,
        memory,
        cast_fwd,
        scores_time,
        (gemms_fwd_g[0], gemms_fwd_g[1], gemms_fwd_g[2], gemms_fwd_g[3]),
    )


def _rec(
    recompute: str,
    sw: Software,
    fwd: float,
    fwd_g: float,
    gemm_rate: float,
    memory: float,
    cast_fwd: float,
    attn: float,
    attn_rate: float,
    scores_time: float,
) -> float:
    """Seconds of one layer's recomputation for one micro-batch under policy `recompute`."""
    if recompute == "full":
        return fwd
    if recompute == "selective" and sw.op_recompute:
        # TorchTitan's op-level policy saves the attention output and every other matmul's:
        # the backward repeats half the layer's GEMMs and its element-wise operations
        return 0.5 * fwd_g / gemm_rate + memory + cast_fwd
    if recompute == "selective" and not sw.flash_attention:
        return attn / attn_rate + scores_time
    return 0.0


def _recomputed(x: _Pass, recompute: str, sw: Software) -> _Pass:
    """Layer pass `x` under recomputation policy `recompute` (only `rec` changes)."""
    rec = _rec(
        recompute, sw, x.fwd, x.fwd_g, x.gemm_rate, x.memory, x.cast_fwd, x.attn, x.attn_rate,
        x.scores_time,
    )  # fmt: skip
    return _Pass(
        x.n, x.m, x.routed, x.per_layer, x.fwd_g, x.bwd_g, x.attn, x.attn_rate, x.attn_fwd,
        x.attn_bwd, x.fwd, x.bwd, rec, x.mb, x.gemm_rate, x.memory, x.cast_fwd, x.scores_time,
        x.gemms_fwd_g,
    )  # fmt: skip


def _compute(x: _Pass) -> tuple[float, float]:
    """Compute and recomputation of the step's micro-batches."""
    mb_rec = x.per_layer * x.rec
    return x.m * x.mb, x.m * mb_rec


def _pp_bubble(lay: Layout, x: _Pass, inline: float) -> float:
    """(p - 1) / v micro-batches' time through the stage: compute, recomputation and the
    `inline` communication of the step's m micro-batches (tp, cp, ep), a micro-batch's share."""
    p, v = lay.pp, lay.vpp
    mb_rec = x.per_layer * x.rec
    return (p - 1) / v * (x.mb + mb_rec + inline / x.m) if p > 1 else 0.0


def _overlapped(mac: Machine, comm: float, under: float, span: int) -> float:
    """Exposed seconds of `comm` run under `under` seconds of compute, plus the compute
    it slows while they run together (the SMs the collective takes)."""
    share = mac.nvlink_sm_share if span <= mac.links.domain else mac.network_sm_share
    return max(0.0, comm - under) + share * min(comm, under)


def _tp_comm(a: Arch, lay: Layout, mac: Machine, sw: Software, x: _Pass) -> float:
    """Tensor parallel: `tp_collectives` of (t-1)/t x n h bytes a pass (4 under Megatron's plan:
    2 AG + 2 RS with sequence parallelism, 2 all-reduces of twice that without), forward,
    backward and recomputation; under the per-projection plan, the head's logits gathered."""
    t, h, n, links = lay.tp, float(a.hidden), x.n, mac.links
    flops_rate = mac.peak * mac.matmul_eff
    tp = _etp_comm(a, lay, mac, sw, x) + _loss_gather(lay, mac, sw, x)
    if t > 1:
        forward = 1 + (1 if lay.recompute == "full" else 0)  # forward and recomputed passes
        passes = forward + 2
        if sw.overlap_tp and sw.async_tp:
            # PyTorch's async TP fuses all-gather -> matmul and matmul -> reduce-scatter in
            # the forward graph only (pytorch/pytorch#149946: no such pattern in the backward,
            # whose reduce-scatters take a sum of matmuls): each forward pass's collectives
            # run on the copy engines (no SMs taken), each under the matmuls it is fused with
            # (micro_pipeline_tp.py: fuse_all_gather_matmul, the gathered input's consumers,
            # QKV's wq, wk, wv and the MLP's w1, w3, into one fused_all_gather_matmul;
            # fuse_matmul_reduce_scatter, its producer, wo or w2); the backward's two passes
            # stay blocking NCCL collectives with their latency
            one = group_time(links, (t - 1) / t * n * h * ACT, t, 1)
            back = group_time(links, 4 * 2 * (t - 1) / t * n * h * ACT, t, 1, calls=4 * 2)
            if mac.fp8_cast_bytes and not mac.fp4 and sw.fp8_recipe == "rowwise":
                # torchao's rowwise recipe under TorchTitan's plain TP (no float8 TP for
                # rowwise: the all-gather moves BF16, torchtitan 820504e parallelize_llama.py)
                # casts after the all-gather, so no scaled matmul takes the gathered tensor
                # as its A and the pass fuses none (micro_pipeline_tp.py fuse_all_gather_
                # matmul; pytorch/pytorch#149990: "the all-gather-matmul patterns were NOT
                # being fused"): the two all-gathers stay blocking NCCL collectives, only the
                # reduce-scatters run, each under the matmul it is fused with (fuse_matmul_
                # reduce_scatter -> fused_scaled_matmul_reduce_scatter: wo's and w2's, at
                # ROWWISE_GEMM_RATE as their forward runs)
                gathers = group_time(links, 2 * (t - 1) / t * n * h * ACT, t, 1, calls=2)
                exposed = gathers + sum(
                    max(0.0, one - g / (flops_rate * ROWWISE_GEMM_RATE))
                    for g in x.gemms_fwd_g[1::2]
                )
                return tp + x.m * x.per_layer * (forward * exposed + back)
            exposed = sum(max(0.0, one - g / flops_rate) for g in x.gemms_fwd_g)
            return tp + x.m * x.per_layer * (forward * exposed + back)
        # an MoE layer under Megatron-Core has attention's two a pass only: MoELayer takes the
        # sequence-parallel split input (it refuses tp without sequence parallelism), the
        # router and the dispatcher run on the rank's own tokens, and the expert tp group's
        # all-gather and reduce-scatter are _etp_comm's (moe_layer.py and token_dispatcher.py,
        # core_v0.13.0; the model holds no shared expert, whose SharedExpertMLP is a dense MLP
        # on the tp group and would bring the other two back)
        each = tp_collectives(a, lay, sw)
        total = each * passes
        if forward > 1 and sw.kernels == "compiled":
            # a compiled full recomputation re-runs what the backward needs of the forward
            # (AOTAutograd's min-cut partition of the CSE'd joint graph): one all-gather for
            # q, k and v and one for gate and up, the repeats the CSE left without users not
            # among them (pytorch/pytorch#146045): Megatron's plan's count for that pass
            total -= each - tp_collectives(a, lay, sw, plan="megatron")
        # NCCL's latency per collective unless Transformer Engine's userbuffers run them
        calls = 0 if sw.overlap_tp else total
        one = group_time(links, total * (t - 1) / t * n * h * ACT, t, 1, calls=calls)
        hidden_under = (x.fwd_g + x.bwd_g) / flops_rate if sw.overlap_tp else 0.0
        tp += x.m * x.per_layer * _overlapped(mac, one, hidden_under, t)
        if lay.head and _per_projection(lay, sw):
            # the output head's ColwiseParallel(output_layouts=Replicate()): each micro-batch's
            # logits all-gathered over the vocabulary in the forward (their gradient is sliced
            # back, Replicate -> Shard(-1), with no collective), blocking
            logits = (t - 1) / t * n * float(a.vocab) * ACT
            tp += x.m * group_time(links, logits, t, 1, calls=1)
    return tp


def _loss_gather(lay: Layout, mac: Machine, sw: Software, x: _Pass) -> float:
    """Transformer Engine's fused cross-entropy at tp > 1, on the stage that holds the loss:
    each micro-batch's forward all-gathers every rank's per-token max, sum and target logit
    over the tp group (FUSED_CROSS_ENTROPY_GATHER_BYTES a token from each rank), one blocking
    NCCL all-gather; exposed."""
    t = lay.tp
    if t <= 1 or not lay.head or not sw.fused_cross_entropy:
        return 0.0
    gathered = (t - 1) * x.n * FUSED_CROSS_ENTROPY_GATHER_BYTES
    return x.m * group_time(mac.links, gathered, t, 1, calls=1)


def _per_projection(lay: Layout, sw: Software, plan: str = "") -> bool:
    """The tp layers gather their input per projection (`Software.tp_plan`, or `plan`):
    software.per_projection, which PAR004's logits read too."""
    return per_projection(plan or sw.tp_plan, lay.tp, lay.sequence_parallel)


def tp_collectives(a: Arch, lay: Layout, sw: Software, plan: str = "") -> int:
    """Tensor-parallel collectives of (t-1)/t x n h bytes a layer's pass (an all-reduce counting
    two). Megatron's plan (`Software.tp_plan` megatron): 4, an all-gather before attention's
    fused QKV and one before the MLP's fc1, a reduce-scatter after each output projection (the
    backward: as many, the other way); 2 (attention's) in an MoE layer under Megatron-Core
    (Software.moe_sequence_parallel). The per-projection plan (kempnerforge/distributed/
    tensor_parallel.py at 01b461a, _build_block_tp_plan) adds 2 + 1 (2 + 0 in a plain MLP): q,
    k and v each all-gather the sequence-sharded input, and the MLP's gate and up, where one
    gather serves each (TorchTitan's PrepareModuleInput on attention and feed_forward,
    parallelize_llama.py at 9dec370, 820504e, e7c0cae); the backward of each Redistribute
    Shard(1) -> Replicate reduce-scatters its Partial gradient. torch.compile does not remove
    them: AOTAutograd's CSE points the users at one all-gather but keeps the others, exempt
    from dead-code elimination while torch._functorch.config.unsafe_allow_optimization_of_
    collectives is False, its default (pytorch/pytorch#146045, open: "they are still
    executed"; KempnerForge does not set it); a compiled full recomputation re-runs only
    what the backward needs of them (`_tp_comm`). `plan`: that plan's count instead of sw's."""
    moe = bool(a.experts) and sw.moe_sequence_parallel  # attention's two only
    each = 2 if moe else 4
    if _per_projection(lay, sw, plan):
        each += 2 + (0 if moe else (1 if a.swiglu else 0))
    return each


def _etp_comm(a: Arch, lay: Layout, mac: Machine, sw: Software, x: _Pass) -> float:
    """Expert tensor parallel under Megatron-Core's all-to-all token dispatcher: after the
    dispatch all-to-all the routed tokens are all-gathered over the expert-tp group, and
    reduce-scattered over it before the combine (MoEAlltoAllTokenDispatcher at 64cb6bd:
    gather_from_sequence_parallel_region / reduce_scatter_to_sequence_parallel_region on
    the expert-tp group; dispatch_postprocess / combine_preprocess from core_v0.13 on),
    their backward a reduce-scatter and an all-gather: blocking NCCL calls on the compute
    stream, outside Transformer Engine's userbuffers and outside the combined 1F1B's
    communication stream (the MLP node runs them): exposed. A rank holds n / t tokens,
    top-k copies of each after the all-to-all, et x that after the gather."""
    et = _expert_tp(a, lay, sw)
    if not a.experts or et <= 1 or sw.node_dedup:
        return 0.0
    forward = 1 + (1 if lay.recompute == "full" else 0)  # forward and recomputed passes
    calls = 2 * (forward + 1)  # an all-gather and a reduce-scatter a pass
    gathered = (et - 1) * x.n * x.routed / lay.tp * float(a.hidden) * ACT
    one = group_time(mac.links, calls * gathered, et, 1, calls=calls)
    return x.m * x.per_layer * one


def _pp_sends(a: Arch, lay: Layout, mac: Machine, sw: Software, pas: _Pass) -> float:
    """Pipeline point-to-point: n h bytes each way per stage boundary and micro-batch."""
    t, p, c, d, v = lay.tp, lay.pp, lay.cp, lay.dp, lay.vpp
    h, n, m, links = float(a.hidden), pas.n, pas.m, mac.links
    sp = t if lay.sequence_parallel else 1
    p2p = 0.0
    if p > 1:
        x = n * h * ACT / sp
        one = group_time(links, x, 2, t * c * d)
        if sw.p2p_scatter_gather and sp == 1 and t > 1:
            one = group_time(links, x / t, 2, t * c * d) + group_time(links, x * (t - 1) / t, t, 1)
        # the first micro-batch crosses every chunk boundary on the critical path: p - 1 of them
        # without interleaving, v p - 1 with v chunks a stage ("the amount of communication
        # also increases by v", Narayanan et al. 2021, sec. 2.2.2)
        p2p = 2 * (v * p - 1) * one + (0.0 if sw.overlap_pp else 2 * v * m * one)
    return p2p


def _cp_comm(a: Arch, lay: Layout, mac: Machine, sw: Software, x: _Pass) -> float:
    """Context parallel: ring exchange of K and V chunks, forward once, backward twice; or
    (cp_all_gather) K and V all-gathered each pass and dK, dV reduce-scattered."""
    t, c, n, links = lay.tp, lay.cp, x.n, mac.links
    cp = 0.0
    if c <= 1:
        return cp
    forward = 1 + (1 if lay.recompute == "full" else 0)  # forward and recomputed passes
    if sw.cp_all_gather:
        # Transformer Engine's AttnFuncWithCPAndKVAllGather (cp_comm_type "all_gather", v1.10
        # on; v1.11's docstring: "Refer section 3.3.2 of The Llama 3 Herd of Models"): the
        # forward all-gathers the rank's K and V, query groups wide (gather_along_first_dim,
        # one NCCL all-gather each), the backward gathers them again and reduce-scatters the
        # whole sequence's dK and dV in their dtype (reduce_scatter_along_first_dim, one
        # each); all exposed ("The all-gather is not async, and cannot be overlapped",
        # DotProductAttention's docstring, v1.11; Llama 3: "exposed" and "negligible")
        chunk = n * 2 * a.kv * ACT / t
        one = group_time(links, (c - 1) * chunk, c, t, calls=2)
        return x.m * x.per_layer * (forward + 2) * one
    if sw.torch_cp:
        # PyTorch's context parallel (torch.distributed.tensor.experimental, as TorchTitan runs
        # it): K and V reach SDPA repeated to the query heads (TorchTitan's repeat_kv), so the
        # ring moves q wide chunks; the default all-gather rotater gathers the other c - 1
        # chunks at once, waited on after the first chunk's attention; the backward gathers
        # them again and passes the fp32 dK and dV accumulators on after every step (c sends,
        # `dkv_rotater.exchange_buffers`): each under the next step's attention, the last
        # waited on after the loop with nothing left to hide it
        chunk = n * 2 * a.q * ACT / t
        gather = group_time(links, (c - 1) * chunk, c, t)
        grads = group_time(links, 2 * chunk, c, t)
        if sw.kernels == "compiled":
            # torch.compile traces the ring into the block's graph (TorchTitan compiles each
            # block, fullgraph): a traced functional collective is waited on where it is issued
            # (_functional_collectives._maybe_wrap_tensor: wait_tensor when tracing), and the
            # Inductor passes that raise collectives and sink waits (reorder_for_compute_comm_
            # overlap: raise_comms, sink_waits) are off by default: every gather and dK, dV
            # send runs exposed
            return x.m * x.per_layer * ((forward + 1) * gather + c * grads)
        one = forward * _overlapped(mac, gather, x.attn_fwd / c, c * t)
        one += _overlapped(mac, gather, x.attn_bwd / c, c * t)
        one += (c - 1) * _overlapped(mac, grads, x.attn_bwd / c, c * t) + grads
        return x.m * x.per_layer * one
    if c > 1:
        chunk = n * 2 * a.kv * ACT / t
        one = group_time(links, 3 * (c - 1) * chunk, c, t)
        hidden_under = x.attn_fwd + x.attn_bwd if sw.overlap_cp else 0.0
        cp = x.m * x.per_layer * _overlapped(mac, one, hidden_under, c * t)
    return cp


def _expert_tp(a: Arch, lay: Layout, sw: Software) -> int:
    """Tensor-parallel size of the expert layers: the software's, else the layout's tp."""
    return (sw.expert_tp or lay.tp) if a.experts else lay.tp


def _ep_comm(a: Arch, lay: Layout, mac: Machine, sw: Software, x: _Pass) -> float:
    """Expert parallel: dispatch and combine all-to-alls, forward and backward (and recompute).
    Without folding the ep ranks are dp ranks, t x c apart; folded (Liu et al. 2025) they are
    numbered next to each other, expert-tp apart, and stay in one NVLink domain sooner."""
    t, c, e, h, n, routed = lay.tp, lay.cp, lay.ep, float(a.hidden), x.n, x.routed
    ep = 0.0
    if a.experts and e > 1:
        passes = 2 + (1 if lay.recompute == "full" else 0)
        vol = 2 * passes * n * routed * h * ACT / t * (e - 1) / e
        stride = _expert_tp(a, lay, sw) if sw.moe_folding else t * c
        share = node_share(mac.links, e, stride, a.experts, routed) if sw.node_dedup else 1.0
        one = group_time(mac.links, vol, e, stride, all_to_all=True, dedup=share)
        if sw.overlap_ep:
            # combined 1F1B (--overlap-moe-expert-parallel-comm): a micro-batch's dispatch and
            # combine run under the forward and backward of the micro-batch paired with it.
            # The last stage's warm-up forwards ((v - 1) p chunks; the first one at least) and
            # as many cool-down backwards have no partner: their all-to-alls stay exposed
            p, v = lay.pp, lay.vpp
            alone = min(1.0, max(1, (v - 1) * p) / (x.m * v))
            under = _overlapped(mac, one, x.fwd + x.bwd, e * stride)
            one = alone * one + (1 - alone) * under
        ep = x.m * x.per_layer * one
    return ep


def _dp_groups(a: Arch, lay: Layout, sw: Software) -> tuple[tuple[float, int], tuple[float, int]]:
    """(parameters a GPU holds, ranks they are reduced over): the dense parameters over dp x cp,
    the experts' over tp x dp x cp / (ep x expert tp) (dp x cp / ep when expert tp = tp)."""
    t, p, c, d, e = lay.tp, lay.pp, lay.cp, lay.dp, lay.ep
    et = _expert_tp(a, lay, sw)
    dense_local = a.dense_params / (t * p)
    expert_local = a.expert_params / (e * et * p)
    return (dense_local, d * c), (expert_local, max(1, t * d * c // (e * et)))


def _optimizer(a: Arch, lay: Layout, mac: Machine, sw: Software) -> float:
    """Adam's update of the parameters a GPU holds (its shard with the distributed optimizer)."""
    bytes_rate = mac.hbm * mac.hbm_eff
    optimizer = 0.0
    for local, ranks in _dp_groups(a, lay, sw):
        if local <= 0:
            continue
        shard = local / ranks if lay.distributed_optimizer else local
        optimizer += sw.optimizer_bytes * shard / bytes_rate
    return optimizer


# a data-parallel group's (ranks, local parameters, gradient and parameter collectives, an FSDP
# gather, the last bucket's gradient and parameter collectives): what `_dp_comm` reads of the
# layout alone; the groups, Adam's term and the straggler share of the layout (`_dp_shared`)
_DpGroup = tuple[int, float, float, float, float, float, float]
_DpShared = tuple[tuple[_DpGroup, ...], float, float]


def _dp_shared(a: Arch, lay: Layout, mac: Machine, sw: Software) -> _DpShared:
    """The data-parallel groups' collectives (`_dp_collectives`), Adam's term and the straggler
    share: they read the layout's sizes and optimizer, not the layer pass."""
    return (
        _dp_collectives(a, lay, mac, sw),
        _optimizer(a, lay, mac, sw),
        straggler_share(lay.tp * lay.pp * lay.cp * lay.dp),
    )


def _dp_collectives(a: Arch, lay: Layout, mac: Machine, sw: Software) -> tuple[_DpGroup, ...]:
    """The collectives of the data-parallel groups that reduce anything: gradients reduced
    over dp x cp (experts' over dp x cp / ep), parameters gathered."""
    t, links = lay.tp, mac.links
    out: list[_DpGroup] = []
    for group, (local, ranks) in enumerate(_dp_groups(a, lay, sw)):
        if local <= 0:
            continue
        if ranks <= 1:
            continue
        if lay.fsdp and lay.torch_fsdp:  # `_torch_fsdp` reads local and ranks only
            out.append((ranks, local, 0.0, 0.0, 0.0, 0.0, 0.0))
            continue
        share = (ranks - 1) / ranks
        # one NCCL collective's latency a phase: Megatron-Core's DDP reduces in buckets of
        # max(4e7, 1e6 x dp) parameters when it overlaps, the buckets before the last under the
        # backward that produces the next one; without overlap it sends one bucket
        calls = 1
        grads = group_time(links, share * local * sw.grad_bytes, ranks, t, calls=calls)
        if lay.distributed_optimizer:
            params = group_time(links, share * local * ACT, ranks, t, calls=calls)
        else:
            grads = group_time(
                links, 2 * share * local * sw.grad_bytes, ranks, t, calls=calls, ring=2
            )
            params = 0.0
        one = g_last = p_last = 0.0
        if lay.fsdp:
            one = group_time(links, share * local * ACT, ranks, t, calls=calls)
        elif sw.overlap_dp:
            # the dense buffer's last bucket (the embedding's, `_last_bucket`) is reduced after
            # the backward and gathered before the first forward: under neither
            last = 0.0
            if group == 0:
                size = sw.bucket_params or max(4e7, 1e6 * ranks)
                last = min(local, _last_bucket(a, lay, size))
            ring = 1 if lay.distributed_optimizer else 2
            g_last = (
                group_time(
                    links, ring * share * last * sw.grad_bytes, ranks, t, calls=calls, ring=ring
                )
                if last
                else 0.0
            )
            if lay.distributed_optimizer:
                p_last = (
                    group_time(links, share * last * ACT, ranks, t, calls=calls) if last else 0.0
                )
        out.append((ranks, local, grads, params, one, g_last, p_last))
    return tuple(out)


def _dp_comm(
    lay: Layout, mac: Machine, sw: Software, x: _Pass, groups: tuple[_DpGroup, ...]
) -> float:
    """Data parallel: the groups' collectives (`_dp_collectives`) under the layer pass `x`."""
    t, m, per_layer, fwd, bwd = lay.tp, x.m, x.per_layer, x.fwd, x.bwd
    dp = 0.0
    for ranks, local, grads, params, one, g_last, p_last in groups:
        if lay.fsdp and lay.torch_fsdp:
            dp += _torch_fsdp(mac, sw, lay, x, local, ranks)
            continue
        if lay.fsdp:
            # ZeRO-3 / FSDP: every micro-batch gathers the parameters for its forward and again
            # for its backward and reduce-scatters its gradients (Rajbhandari et al. 2020: 3x
            # the parameter volume a step), each under the micro-batch's own compute
            if sw.overlap_dp:
                fsdp = _overlapped(mac, one, per_layer * fwd, ranks * t) + _overlapped(
                    mac, one + grads, per_layer * bwd, ranks * t
                )
            else:
                fsdp = 2 * one + grads
            dp += m * fsdp
            continue
        if sw.overlap_dp:  # under the last micro-batch's backward / first one's forward
            grads = g_last + _overlapped(mac, grads - g_last, per_layer * bwd, ranks * t)
            if lay.distributed_optimizer:
                params = p_last + _overlapped(mac, params - p_last, per_layer * fwd, ranks * t)
        dp += grads + params
    return dp


def _last_bucket(a: Arch, lay: Layout, size: float) -> float:
    """Parameters in the last gradient bucket of the dense buffer that holds the embedding (the
    first stage's first model chunk). Megatron-Core's DDP fills its buckets with whole
    parameters in the backward's order, the reverse of their registration (the output layer
    when the stage holds it, then a layer's fc2, fc1, qkv and proj weights from the last layer
    down, then the word embedding), and closes a bucket once it holds `size` parameters or more
    (`_ParamAndGradBuffer`); what is left, the embedding with it, is the last bucket. Norm
    weights are left out; an MoE layer's experts have a buffer of their own."""
    t, h = lay.tp, float(a.hidden)
    mlp = () if a.experts else (h * a.ffn / t, h * a.ffn * (2 if a.swiglu else 1) / t)
    layer = (*mlp, (a.q + 2 * a.kv) * h / t, a.q * h / t)
    output = (a.vocab * h / t,) if lay.pp == 1 and lay.vpp == 1 else ()
    filled = 0.0
    for weight in output + layer * max(1, round(a.layers / (lay.pp * lay.vpp))):
        filled += weight
        if filled >= size:
            filled = 0.0
    return filled + a.vocab * h / t


def _torch_fsdp(
    mac: Machine, sw: Software, lay: Layout, x: _Pass, local: float, ranks: int
) -> float:
    """PyTorch FSDP (FSDP2's fully_shard a block, FSDP1's FULL_SHARD): each block's parameters
    all-gathered before its forward (and again before its backward when resharding after the
    forward), its gradients reduce-scattered after its backward, the next block's gather
    prefetched under the current block's compute. Exposed: what exceeds the pass's compute,
    the first block's gather and the last block's reduce-scatter of each phase, and the SMs
    NCCL's kernels hold while they run (FSDP_SM_SHARE, on every leg, NVLink or network).
    Resharding: 2 gathers every micro-batch; not (FSDP2 under pipeline parallelism:
    TorchTitan's reshard_after_forward False): one gather a step, or one a micro-batch
    without a pipeline (fully_shard reshards after each backward). The gradients are
    reduce-scattered after every micro-batch's backward (gradient sync every micro-batch), or
    after the last one's only (`Software.gradient_sync` last-micro-batch: FSDP2's
    set_requires_gradient_sync(False) on the others, FSDP1's no_sync(); by default under
    pipeline parallelism, as PyTorch's pipeline stages sync on the last backward:
    software.gradient_sync_in_effect). HSDP: sharded over
    shard groups of `shard_group` ranks, the gradient shards all-reduced across the groups
    (skipped with the reduce-scatter when the sync is)."""
    t, links, blocks = lay.tp, mac.links, max(1.0, x.per_layer)
    group = lay.shard_group if 0 < lay.shard_group < ranks else ranks
    share = (group - 1) / group
    weight_bytes = FSDP_FP8_GATHER_BYTES if (sw.fp8_all_gather and mac.fp8_cast_bytes) else ACT
    calls = max(1, round(blocks))  # one collective a block
    gather = group_time(links, share * local * weight_bytes, group, t, calls=calls)
    reduce = group_time(links, share * local * sw.grad_bytes, group, t, calls=calls)
    replicas = ranks // group
    if replicas > 1:  # HSDP: the shard's gradients all-reduced across the shard groups
        shard = local / group * sw.grad_bytes
        reduce += group_time(
            links, 2 * (replicas - 1) / replicas * shard, replicas, t * group, calls=calls, ring=2
        )
    fwd, bwd = x.per_layer * x.fwd, x.per_layer * (x.bwd + x.rec)

    def hidden(comm: float, under: float) -> float:
        if not sw.overlap_dp:
            return comm
        first = comm / blocks  # the first block's gather, the last block's reduction
        return max(0.0, comm - first - under) + first + FSDP_SM_SHARE * min(comm, under)

    every = gradient_sync_in_effect(sw.gradient_sync, lay.pp) == "every-micro-batch"
    regather = gather if lay.reshard else 0.0  # the backward's gather, when resharded
    # the last micro-batch's backward gathers (when resharding) and reduces; the others'
    # gather (when resharding) and reduce when the gradients sync every micro-batch
    others = hidden(regather + (reduce if every else 0.0), bwd)
    # each micro-batch's forward gathers, but where FSDP keeps the weights from the forward
    # to the backward under a pipeline, whose stages do not reshard after the backward
    # either (PipelineStage.backward_maybe_with_nosync: set_reshard_after_backward(False)):
    # once a step. Without a pipeline fully_shard reshards after every backward.
    gathers = x.m if (lay.reshard or lay.pp == 1) else 1
    return gathers * hidden(gather, fwd) + hidden(regather + reduce, bwd) + (x.m - 1) * others


def _flops(a: Arch, lay: Layout, causal: bool, op: bool = False) -> tuple[float, float]:
    """Model FLOPs of a step, and hardware FLOPs (with recomputation), whole job."""
    h, s = float(a.hidden), float(a.seq)
    tokens = lay.global_batch * s
    per, core_forward = per_token(*_count_args(a), causal)
    model = per * tokens
    extra = 0.0
    if lay.recompute == "full":
        extra = (model - 6 * h * a.vocab * tokens) / 3
    elif lay.recompute == "selective" and op:  # half the layers' forward GEMMs
        extra = (model - 6 * h * a.vocab * tokens - 3 * core_forward * tokens) / 6
    elif lay.recompute == "selective":
        extra = core_forward * tokens
    return model, model + extra
