"""Per-GPU memory of a training layout: model states and activations (Korthikanti et al. 2022).

Conventions:

- Model states (Megatron-LM distributed-optimizer table): bf16 weights 2 B/parameter and
  fp32 main gradients 4 B/parameter (2 with `software.grad_reduce_in_fp32: false`, Megatron-Core's
  DDP option that NVIDIA's NeMo and Megatron-Bridge performance recipes set), kept on every
  data-parallel rank; fp32 master weights and
  Adam moments 12 B/parameter, sharded over dp x cp when `distributed_optimizer` is on (ZeRO
  stage 1). `zero_stage` 2 shards the gradients too and 3 (FSDP full shard) the weights as
  well (Rajbhandari et al. 2020); the layer being gathered under stage 3 is not counted.
  FP8 and FP4 training keep bf16 weights as well (Transformer Engine casts per GEMM), so the
  precision does not change these figures, unless the layers' weights are FP8 parameters
  (`software.fp8_param_gather`, Megatron-Core's --fp8-param-gather, a per-tensor recipe):
  Transformer Engine's Float8Tensor, 1 B a weight on Blackwell and 2 B on Hopper, whose FP8
  GEMMs take the TN layout only so the transpose is kept too (transformer_engine/pytorch/
  csrc/quantizer.cpp, v2.9: `with_transpose = columnwise_usage &&
  !nvte_is_non_tn_fp8_gemm_supported()`); the embedding and output layer stay bf16.
  HSDP (`software.sharding` kind hsdp) shards the states over its shard group's ranks only.
  PyTorch FSDP without reshard_after_forward (declared, or FSDP's default under pipeline
  parallelism) keeps each block's gathered bf16 weights from its forward to its backward
  (PyTorch's fully_shard docs: "keeps the unsharded parameters in memory after forward"), and
  under pipeline parallelism to the step's last backward: the weights are counted whole.
  A model built in bf16 before sharding (`software.param_dtype` bf16, KempnerForge's
  build_parallel_model at 01b461a) keeps no fp32 copy where its optimizer keeps state in the
  parameters' dtype (Settings.bf16_state: torch.optim's AdamW under torchtitan, Composer's
  DecoupledAdamW under llm-foundry): bf16 gradients (a gradient takes its parameter's dtype)
  and AdamW's two bf16 moments, 2 + 2 + 4 B a parameter. Megatron-Core's distributed
  optimizer and DeepSpeed's keep fp32 main weights and moments whatever the model's dtype.
- Where the vocabulary and hidden size are known, the parameters hold two vocabulary x hidden
  matrices (the input embedding and an untied output layer, as Llama 3; at most half the dense
  parameters): the first pipeline stage holds the embedding and the last the output layer
  (Megatron-Core keeps a copy on the last stage when they are tied), each split over tp; the
  rest of the dense parameters split evenly over the layers. Expert parameters split over
  ep x expert tp (`software.expert_tp`, default tp as in Megatron-Core) by layer, their
  optimizer over the expert data-parallel ranks (tp x dp x cp / (ep x expert tp)).
- Activations per transformer layer and micro-batch, in bytes, from the layer's shapes with
  Korthikanti et al. 2022's terms (sec. 4.1): s = sequence / cp, b = micro-batch, h hidden,
  q = heads x head width (h for GPT), k = query groups x head width (GQA; h without), f the
  FFN width (4h default), g = 2 for a gated MLP (SwiGLU: two up-projections) else 1,
  a heads, t = tp. Replicated over tp: the two norms' inputs 4sbh, the QKV and first MLP
  GEMMs' inputs 2sbh each, two dropout masks sbh each = 10 s b h; split over tp: Q 2sbq,
  K and V 4sbk, the output projection's input 2sbq, the activation's input 2sbfg, the
  second MLP GEMM's input 2sbf. GPT (q = k = h, f = 4h, g = 1) gives Korthikanti's
  s b h (10 + 24/t); sequence parallelism splits the replicated part too (34/t). The
  5 a s^2 b term (attention scores, softmax and dropout) only where attention is not flash
  attention (`software.flash_attention: false`), since flash attention never stores the scores;
  selective recomputation drops it too, full recomputation keeps only the layer input,
  2 s b h (/t with sequence parallelism). A model trained without dropout (`model.dropout:
  false`: PyTorch's dropout at p 0 returns its input and stores no mask) drops the two masks
  (and the scores' dropout mask, a s^2 b). In FP8 and FP4 runs Transformer Engine saves each
  GEMM's input quantized for the backward, its column-wise copy only, 1 B an element
  (transformer_engine/pytorch/module/linear.py, v2.9, `_Linear.forward`: "Discard row-wise
  data since it is not needed in backward pass", then "Cached input tensor"; LayerNormLinear
  and LayerNormMLP save `ln_out` and the FP8 activation output `act_out` alike): the QKV and
  first MLP GEMMs' inputs sbh each, the second MLP GEMM's sbf; the attention output stays in
  BF16 for the flash backward (2sbq) and its projection keeps an FP8 copy (sbq), but for
  Megatron-Core (from core_v0.14.0, with Transformer Engine 2.6 or later) under a recipe other
  than delayed scaling: it sets `save_original_input` on `linear_proj` ("the output of the
  fused core_attn is saved by itself, and linear_proj also saves the quantized tensor of this
  output ... to avoid the extra memory usage", megatron/core/transformer/attention.py), and
  the projection saves the attention's own BF16 output (`fp8_proj_copy`). torchao's Float8
  training (fp8 runs of its recipes, tensorwise and rowwise: TorchTitan's float8 converter)
  saves the high-precision inputs instead: its autograd function casts to FP8 inside the
  forward and keeps the BF16 input and weight for the backward (pytorch/ao torchao/float8/
  float8_linear.py, `matmul_with_hp_or_float8_args.forward`: `ctx.save_for_backward(input_hp,
  weight_hp_t)`, at 890e0ac8 and 0afa4c1; since 2ec9bc15d, January 2025, before which the
  tensorwise path saved its FP8 casts), so its activations are BF16's (`saves_quantized`);
  so does its MX linear, which TorchTitan runs for `fp8_recipe: mxfp8` (torchao/prototype/
  mx_formats/mx_linear.py, `mx_mm.forward`: `ctx.save_for_backward(input_hp, weight_hp)`, at
  e4e681be6).
  torch.compile's partitioner may choose other tensors to save (pytorch/ao#1850); not modelled.
  Sequence parallelism is on by default when tp > 1,
  as Megatron-Core training recipes run it.
- In flight: stage k of pp holds min(pp - k, micro-batches) micro-batches of its layers;
  with interleaving, 2 (pp - k - 1) + (vpp - 1) pp + 1 chunks of its layers / vpp
  (Megatron-Core's interleaved 1F1B warm-up), at most micro-batches x vpp; where the
  embedding or the loss takes a pipeline slot, the chunk holding it has a layer fewer and
  is counted as the schedule runs it (micro-batches in groups of pp, each group through the
  chunks in turn: `chunk_forwards`).
- TorchTitan's op-level selective recomputation (`software.selective_recompute: op`,
  torchtitan/distributed/activation_checkpoint.py `_apply_op_sac`, v0.2.2) saves the layer's
  input, the attention output and every other matmul's output (wq, wv, w1 and, gated, w2 of
  wq wk wv wo w1 w3 w2; w2's its partial sum, h wide), and with tp and sequence parallelism
  the two reduce-scatters' outputs; the rest is recomputed.
- Activations offloaded to host memory (`software.activation_offload_layers`, Megatron-Core's
  --cpu-offloading-num-layers, pp 1 only) are not counted but for one layer in transit or the
  logits, the larger: Transformer Engine's handler (transformer_engine/pytorch/cpu_offload.py,
  v2.9) frees an offloaded layer only at the commit of a later one (`layer_window_map`), so
  the forward's last layer runs beside the last offloaded one, and the backward reloads that
  one once the loss's backward has freed the logits.
- The last stage holds the logits of its one micro-batch: s b x vocabulary / t in bf16 plus
  the fp32 copy the vocab-parallel cross-entropy keeps (6 B a logit); Transformer Engine's
  fused cross-entropy (`software.fused_cross_entropy`) writes the gradient over the bf16
  logits (transformer_engine/pytorch/triton/cross_entropy.py, v2.9): 2 B a logit.
  llm-foundry's default loss_fn, fused_crossentropy (llmfoundry/models/mpt/modeling_mpt.py,
  v0.3.0), is flash-attn's CrossEntropyLoss: it saves the bf16 logits and, inplace_backward
  False, writes a bf16 gradient beside them (flash-attn v1.0.9 losses/cross_entropy.py): 4 B.
  A loss run a sequence chunk at a time (`software.loss_chunks` n, TorchTitan's
  ChunkedLossWrapper, torchtitan/components/loss.py at bcc09297a) holds one chunk's logits,
  1/n of them, beside the wrapper's bf16 chunks of the hidden states and its fp32 gradient
  accumulator, 6 B an element of s b h; under PyTorch FSDP the wrapper keeps the output
  layer gathered and its gradient unsynced across the chunks: its bf16 weight and its
  gradient in the reduce dtype, 2 + 4 B a parameter of the layer (StateTerms.head_bytes).
- The stages that can bind are each checked: the first (most micro-batches in flight, the
  embedding), the first middle one (with uneven stages) and the last (output layer, logits).
  MoE routing buffers are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from dclint.model.defaults import DEFAULT_TOP_K
from dclint.model.software import (
    TORCHAO_FP8_RECIPES,
    gradient_sync_in_effect,
    vocabulary_shards,
)
from dclint.model.workload import Workload
from dclint.projection.layout_checks import framework_split
from dclint.units import Q_, Quantity

__all__ = [
    "BF16_GRAD_BYTES",
    "BF16_OPTIMIZER_BYTES",
    "CHUNK_BUFFER_BYTES",
    "DEFAULT_TERMS",
    "FP8_SAVED",
    "FP8_WEIGHT_BYTES",
    "FUSED_LOGIT_BYTES",
    "GRAD_BYTES",
    "LOGIT_BYTES",
    "OPTIMIZER_BYTES",
    "PER_TENSOR_FP8",
    "SAVE_ORIGINAL_PROJ",
    "WEIGHT_BYTES",
    "XENTROPY_LOGIT_BYTES",
    "MemoryEstimate",
    "Shape",
    "StageStates",
    "StageTerms",
    "StateTerms",
    "activation_bytes",
    "at_zero",
    "embedding_parameters",
    "expert_parameters",
    "fp8_proj_copy",
    "in_flight",
    "layer_activations",
    "layer_weight_bytes",
    "logit_bytes",
    "loss_bytes",
    "loss_held",
    "loss_token_bytes",
    "memory_per_gpu",
    "model_widths",
    "saves_quantized",
    "split_slots",
    "stage_activations",
    "stage_bytes",
    "stage_layers",
    "stage_states",
    "stage_terms",
    "state_bytes",
    "state_terms",
    "unsynced_grad_bytes",
]

WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 4.0, 12.0
LOGIT_BYTES = 6.0  # bf16 logits and the fp32 copy the loss keeps
FUSED_LOGIT_BYTES = 2.0  # Transformer Engine's cross-entropy: the gradient over the bf16 logits
# llm-foundry's default loss (loss_fn fused_crossentropy: flash-attn's xentropy kernel): the bf16
# logits it keeps and the bf16 gradient its backward writes beside them (inplace_backward False)
XENTROPY_LOGIT_BYTES = 4.0
# TorchTitan's ChunkedLossWrapper beside its chunk's logits: the hidden states' bf16 chunks and
# the fp32 gradient accumulator, bytes an element of sequence x micro-batch x hidden
CHUNK_BUFFER_BYTES = 6.0
# a bf16 model whose optimizer keeps state in its dtype (Settings.bf16_state): bf16 gradients
# and AdamW's two bf16 moments
BF16_GRAD_BYTES, BF16_OPTIMIZER_BYTES = 2.0, 4.0
FP8_WEIGHT_BYTES = 1.0  # an FP8 parameter (fp8_param_gather) on a GPU without the transpose
# FP8 recipes whose parameters Transformer Engine keeps as one per-tensor-scaled FP8 copy
PER_TENSOR_FP8 = ("delayed", "current")
# precisions whose GEMM inputs Transformer Engine saves quantized for the backward (module doc);
# torchao's Float8 recipes save the BF16 inputs (`saves_quantized`)
FP8_SAVED = ("fp8", "fp4")
# Transformer Engine's FP8 recipes under which Megatron-Core's attention output projection
# saves its original BF16 input, not an FP8 copy (`fp8_proj_copy`): all but delayed scaling
SAVE_ORIGINAL_PROJ = ("current", "blockwise", "mxfp8")


@dataclass(frozen=True)
class MemoryEstimate:
    """Per-GPU memory, each part in GiB; `activations` None when the architecture is unknown."""

    weights: Quantity
    gradients: Quantity
    optimizer: Quantity
    activations: Quantity | None
    notes: tuple[str, ...]

    @property
    def total(self) -> Quantity:
        parts = [self.weights, self.gradients, self.optimizer]
        if self.activations is not None:
            parts.append(self.activations)
        return sum(parts[1:], parts[0]).to("GiB")

    def breakdown(self) -> dict[str, Quantity]:
        out = {"weights": self.weights, "gradients": self.gradients, "optimizer": self.optimizer}
        if self.activations is not None:
            out["activations"] = self.activations
        return {k: v.to("GiB") for k, v in out.items()}


@dataclass(frozen=True, slots=True)
class Shape:
    """What the per-stage memory depends on, as plain numbers (the layout search builds one per
    candidate; `memory_per_gpu` one from the workload)."""

    layers: int
    dense: float  # parameters outside expert MLPs
    experts: float  # parameters in expert MLPs
    embedding: float  # parameters of one vocabulary x hidden matrix (0: unknown)
    tp: int
    pp: int
    cp: int
    dp: int
    ep: int
    vpp: int
    micro_batches: int  # a step's micro-batches per data-parallel rank
    per_layer: float | None  # activation bytes of one layer and micro-batch (None: unknown)
    logits: float  # bytes of one micro-batch's logits on the last stage
    grad_bytes: float = 4.0  # bytes of a main gradient (fp32; bf16 2)
    etp: int = 0  # tensor-parallel size of the expert layers (0: tp)
    offload: int = 0  # layers whose activations are offloaded to host memory (pp 1 only)
    layer_weight_bytes: float = WEIGHT_BYTES  # bytes of a layer's weight (FP8 parameters: 1)
    shard_group: int = 0  # HSDP: ranks the states shard over (0: all their data-parallel ranks)
    # PyTorch FSDP without reshard_after_forward: the gathered weights kept for the whole step
    keep_gathered: bool = False
    # (embedding, loss) counted as a pipeline layer (account_for_*_in_pipeline_split), each 0
    # or 1, where no uneven first and last stages are declared: the first stage's first chunk
    # and the last stage's last chunk hold a layer fewer (_in_flight)
    slots: tuple[int, int] = (0, 0)
    # bytes of a parameter's optimizer states (fp32 master and Adam moments 12; bf16 model 4)
    optimizer_bytes: float = OPTIMIZER_BYTES
    # PyTorch FSDP's gradients accumulated unsharded between micro-batches when it syncs on the
    # last only (unsynced_grad_bytes): bytes a parameter, read where a step has several
    # micro-batches; 0: reduce-scattered every micro-batch, the gradients held sharded
    unsynced_grad_bytes: float = 0.0


def expert_parameters(wl: Workload) -> float:
    """Parameters in expert MLPs (0 for a dense model), from the architecture or from
    total and active parameters: P = dense + E e, A = dense + k e."""
    m = wl.model
    if not m.experts:
        return 0.0
    if m.layers and m.hidden_size and m.ffn_hidden_size:
        per_expert = m.hidden_size * m.ffn_hidden_size * (3 if m.swiglu else 2)
        return float(min(m.layers * m.experts * per_expert, m.parameters))
    k = m.top_k or DEFAULT_TOP_K
    if m.active_parameters and m.experts > k:
        return max(0.0, (m.parameters - m.active_parameters) / (m.experts - k) * m.experts)
    return 0.0


def embedding_parameters(vocab: int | None, hidden: int | None, dense: float) -> float:
    """One vocabulary x hidden matrix (the embedding, or the output layer), at most half the
    dense parameters; 0 where the vocabulary or hidden size is unknown."""
    if not vocab or not hidden:
        return 0.0
    return min(float(vocab * hidden), dense / 2)


def stage_layers(
    layers: int,
    pp: int,
    first: int | None = None,
    last: int | None = None,
    embedding_slot: bool = False,
    loss_slot: bool = False,
) -> list[tuple[int, float]]:
    """(stage index, its layers) of the stages that can bind: the first, the first middle
    one when stages are uneven, and the last. Declared first and last stage layers take
    precedence; otherwise the embedding and the loss, where they count as a layer in the split
    (Megatron-Core's account_for_*_in_pipeline_split), take one layer's place on the first and
    the last stage."""
    if pp == 1:
        return [(0, float(layers))]
    ends = [v for v in (first, last) if v is not None]
    if not ends and (embedding_slot or loss_slot):
        per = (layers + embedding_slot + loss_slot) / pp
        inner = [(1, per)] if pp > 2 else []
        return [(0, per - embedding_slot), *inner, (pp - 1, per - loss_slot)]
    others = pp - len(ends)
    middle = (layers - sum(ends)) / others if others > 0 else None
    head = float(first) if first is not None else middle
    tail = float(last) if last is not None else middle
    out = [(0, head if head is not None else 0.0)]
    if ends and middle is not None and pp > 2:
        out.append((1, middle))
    out.append((pp - 1, tail if tail is not None else 0.0))
    return out


def layer_activations(
    s: float,
    b: int,
    h: int,
    heads: int,
    t: int,
    sp: bool,
    recompute: str,
    flash: bool = True,
    widths: tuple[float, float, float, bool] | None = None,
    dropout: bool = True,
    fp8: bool = False,
    op: bool = False,
    proj_copy: bool = True,
) -> float:
    """Bytes of one transformer layer's activations for one micro-batch (module doc's terms);
    `widths` (q, k, f, gated) default to GPT's (h, h, 4h, False); `dropout` False drops the two
    masks, `fp8` saves the four GEMM inputs in FP8, `op` is selective recomputation by
    TorchTitan's op-level policy, `proj_copy` False (with `fp8`) drops the output projection's
    FP8 copy of the attention output (`fp8_proj_copy`; module doc)."""
    if recompute == "full":
        return 2 * s * b * h / (t if sp else 1)
    q, k, f, gated = widths or (h, h, 4 * h, False)
    if recompute == "selective" and op:
        # the layer's input, the attention output and the odd matmuls' outputs: wq, wv, w1
        # and, gated, w2 (of wq wk wv wo w1 w3 w2; its output the partial sum, h wide); with
        # tp and sequence parallelism the two reduce-scatters' outputs too
        scattered = 2 * h / t if t > 1 and sp else 0.0
        down = h if gated else 0.0
        return 2 * s * b * (h / (t if sp else 1) + (2 * q + k + f) / t + down + scattered)
    gemm_in = 1 if fp8 else 2  # bytes an element of a saved GEMM input
    # norms' inputs 4, QKV and first MLP GEMMs' inputs, the dropout masks
    replicated = 4 + 2 * gemm_in + (2 if dropout else 0)
    # Q, K and V, the attention output (flash backward and, in BF16, the projection's input),
    # the projection's FP8 copy, the activation's input, the second MLP GEMM's input
    copy = q if fp8 and proj_copy else 0.0
    split = (2 * q + 4 * k + 2 * q + copy + 2 * f * (2 if gated else 1) + gemm_in * f) / h
    base = (replicated + split) / t if sp else replicated + split / t
    if recompute == "selective" or flash:
        return s * b * h * base
    return s * b * h * (base + (5 if dropout else 4) * heads * s / (h * t))


def _in_flight(stage: int, n: float, sh: Shape) -> float:
    """Layers' worth of one micro-batch's activations stage `stage` of `n` layers holds."""
    return in_flight(stage, n, sh.pp, sh.vpp, sh.micro_batches, sh.slots)


def in_flight(
    stage: int, n: float, pp: int, vpp: int, micro_batches: int, slots: tuple[int, int]
) -> float:
    """`_in_flight` on the Shape's fields it reads (the layout search's floats)."""
    if vpp == 1:
        return n * max(1, min(pp - stage, micro_batches))
    chunks = 2 * (pp - stage - 1) + (vpp - 1) * pp + 1
    chunks = max(1, min(chunks, micro_batches * vpp))
    # the chunk that holds the embedding's slot (the first stage's first) or the loss's (the
    # last stage's last) has a layer fewer than the others, and the warm-up runs the chunks
    # in turn, pp forwards each (module doc)
    short = [
        chunk
        for chunk, on in (
            (0, stage == 0 and slots[0]),
            (vpp - 1, stage == pp - 1 and slots[1]),
        )
        if on and pp > 1
    ]
    if not short:
        return n / vpp * chunks
    per = (n + len(short)) / vpp  # layers a chunk, the slots counted
    m = micro_batches
    return chunks * per - sum(chunk_forwards(c, chunks, pp, vpp, m) for c in short)


def chunk_forwards(chunk: int, forwards: int, pp: int, vpp: int, micro_batches: int) -> int:
    """How many of a stage's first `forwards` chunk-forwards run model chunk `chunk`:
    Megatron-Core's interleaved schedule takes the micro-batches in groups of pp
    (microbatch_group_size_per_vp_stage, default pp; the last group the rest) and runs each
    group through chunk 0 to vpp - 1 in turn (megatron/core/pipeline_parallel/schedules.py,
    get_schedule_table)."""
    out, left = 0, forwards
    for start in range(0, micro_batches, pp):
        if left <= 0:
            break
        size = micro_batches - start if start + pp >= micro_batches else pp
        # the group runs chunk 0's size forwards, then chunk 1's, ...
        out += max(0, min(size, left - chunk * size))
        left -= size * vpp
    return out


def stage_bytes(sh: Shape, stage: int, n: float, zero: int) -> tuple[float, ...]:
    """(weights, gradients, optimizer, activations or -1) in bytes on a GPU of stage `stage`,
    which holds `n` layers."""
    return at_zero(stage_terms(sh, stage, n), zero, sh.keep_gathered)


# stage_terms: (weights, weights sharded, gradients, gradients sharded, optimizer, optimizer
# sharded, activations or -1), each in bytes
StageTerms = tuple[float, float, float, float, float, float, float]
StageStates = tuple[float, float, float, float, float, float]  # StageTerms but activations


def at_zero(terms: StageTerms, zero: int, keep_gathered: bool = False) -> tuple[float, ...]:
    """`stage_bytes` at ZeRO stage `zero` from the stage's `stage_terms`: the optimizer states
    sharded from stage 1, the gradients from 2, the weights at 3 (unless kept gathered)."""
    weights, weights_sharded, grads, grads_sharded, optimizer, optimizer_sharded, acts = terms
    shards = zero >= 3 and not keep_gathered
    return (
        weights_sharded if shards else weights,
        grads_sharded if zero >= 2 else grads,
        optimizer_sharded if zero >= 1 else optimizer,
        acts,
    )


def stage_terms(sh: Shape, stage: int, n: float) -> StageTerms:
    """What `stage_bytes` reads for every ZeRO stage of stage `stage` (holding `n` layers), each
    term replicated and sharded: a layout search weighs the four stages of one layout."""
    return (*stage_states(sh, stage, n), stage_activations(sh, stage, n))


def stage_states(sh: Shape, stage: int, n: float) -> StageStates:
    """`stage_terms`' model states (weights, gradients, optimizer, each replicated and
    sharded): they read neither the micro-batch, vpp nor the activations, so a layout search
    weighs them once for the layouts of one (tp, pp, cp, dp, ep)."""
    share = n / sh.layers
    body = sh.dense - 2 * sh.embedding
    ends = (stage == 0) + (stage == sh.pp - 1)
    layers_local = body * share / sh.tp
    ends_local = sh.embedding * ends / sh.tp
    et = sh.etp or sh.tp
    expert_local = sh.experts * share / (sh.ep * et)
    dense_dp, expert_dp = sh.dp * sh.cp, max(1, sh.tp * sh.dp * sh.cp // (sh.ep * et))
    if sh.shard_group:  # HSDP: sharded inside a group, replicated across the groups
        dense_dp, expert_dp = min(dense_dp, sh.shard_group), min(expert_dp, sh.shard_group)
    dense_local = layers_local + ends_local
    sharded = dense_local / dense_dp + expert_local / expert_dp
    params = dense_local + expert_local
    # the layers' weights at their own bytes (FP8 parameters), the embedding and output in bf16
    weights = sh.layer_weight_bytes * (layers_local + expert_local) + WEIGHT_BYTES * ends_local
    weights_sharded = sh.layer_weight_bytes * (
        layers_local / dense_dp + expert_local / expert_dp
    ) + WEIGHT_BYTES * (ends_local / dense_dp)
    gradients, gradients_sharded = sh.grad_bytes * params, sh.grad_bytes * sharded
    if sh.unsynced_grad_bytes and sh.micro_batches > 1:  # accumulated whole until the last sync
        gradients_sharded = sh.unsynced_grad_bytes * params
    optimizer, optimizer_sharded = sh.optimizer_bytes * params, sh.optimizer_bytes * sharded
    return (weights, weights_sharded, gradients, gradients_sharded, optimizer, optimizer_sharded)


def stage_activations(sh: Shape, stage: int, n: float) -> float:
    """`stage_terms`' activations of stage `stage` (holding `n` layers), -1 where unknown."""
    if sh.per_layer is None:
        return -1.0
    logits = sh.logits if stage == sh.pp - 1 else 0.0
    return activation_bytes(
        sh.per_layer, logits, stage, n, sh.pp, sh.vpp, sh.micro_batches, sh.slots, sh.offload
    )


def activation_bytes(
    per_layer: float,
    logits: float,
    stage: int,
    n: float,
    pp: int,
    vpp: int,
    micro_batches: int,
    slots: tuple[int, int],
    offload: int,
) -> float:
    """`stage_activations` on the Shape's fields it reads (`logits`: 0 but on the last stage)."""
    if offload and pp == 1:
        # the layers kept, and the larger of the logits (at the loss) and one offloaded layer
        # in transit (module doc: Transformer Engine's offload window)
        kept = max(0.0, n - offload)
        return per_layer * kept + max(logits, per_layer)
    return per_layer * in_flight(stage, n, pp, vpp, micro_batches, slots) + logits


def _data_parallel(wl: Workload) -> int:
    p = wl.parallel
    return p.dp or max(1, wl.gpus // (p.tp * p.pp * p.cp))


def model_widths(wl: Workload) -> tuple[float, float, float, bool]:
    """(q, k, f, gated) of the module doc's activation terms, from the declared model."""
    m = wl.model
    h = float(m.hidden_size or 0)
    heads = m.attention_heads or max(1, int(h) // 128)
    width = m.kv_channels or h / heads
    q = heads * width
    k = (m.query_groups or heads) * width
    return q, k, float(m.ffn_hidden_size or 4 * h), m.swiglu


def layer_weight_bytes(wl: Workload, blackwell: bool) -> float:
    """Bytes of a transformer layer's weight: bf16, or with FP8 parameters (fp8_param_gather,
    a per-tensor FP8 recipe) the FP8 copy, its transpose too where the GPU runs FP8 GEMMs in
    the TN layout only (Hopper: module doc)."""
    sw = wl.software_in_effect
    if wl.precision == "fp8" and sw.fp8_param_gather and sw.fp8_recipe in PER_TENSOR_FP8:
        return FP8_WEIGHT_BYTES * (1 if blackwell else 2)
    return WEIGHT_BYTES


def fp8_proj_copy(wl: Workload) -> bool:
    """Whether the attention output projection keeps an FP8 copy of its input for the
    backward (module doc): not where Megatron-Core with Transformer Engine's kernels runs an fp8
    recipe other than delayed scaling (`save_original_input` on `linear_proj`)."""
    sw = wl.software_in_effect
    return not (
        wl.precision == "fp8"
        and sw.framework == "megatron-core"
        and sw.kernels == "transformer-engine"
        and sw.fp8_recipe in SAVE_ORIGINAL_PROJ
    )


def saves_quantized(wl: Workload) -> bool:
    """Whether the GEMMs save their inputs quantized for the backward (module doc): Transformer
    Engine's FP8 and FP4 runs do; torchao's Float8 and MX linears save the BF16 inputs."""
    return wl.precision in FP8_SAVED and not _torchao_linear(wl)


def _torchao_linear(wl: Workload) -> bool:
    """An fp8 run of torchao's linears: its Float8 recipes, or MXFP8 under TorchTitan (torchao's
    MX linear: TorchTitan runs no Transformer Engine)."""
    sw = wl.software_in_effect
    return wl.precision == "fp8" and (
        sw.fp8_recipe in TORCHAO_FP8_RECIPES
        or (sw.fp8_recipe == "mxfp8" and sw.framework == "torchtitan")
    )


def logit_bytes(wl: Workload) -> float:
    """Bytes a logit of the micro-batch keeps for the loss's backward (module doc): a chunk's
    share where the loss runs chunk by chunk (`software.loss_chunks`)."""
    sw = wl.software_in_effect
    if sw.fused_cross_entropy:
        kept = FUSED_LOGIT_BYTES
    elif sw.framework == "llm-foundry":
        kept = XENTROPY_LOGIT_BYTES
    else:
        kept = LOGIT_BYTES
    return kept / sw.loss_chunks


def loss_bytes(wl: Workload) -> float:
    """Bytes the last stage holds for one micro-batch's loss: its logits (`logit_bytes`) and,
    where the loss runs in chunks, the wrapper's buffers (module doc); 0 where the vocabulary
    or hidden size is unknown."""
    m, p = wl.model, wl.parallel
    if not (m.vocab_size and m.hidden_size):
        return 0.0
    tokens = wl.sequence_length / p.cp * wl.micro_batch
    shards = vocabulary_shards(wl.software_in_effect.tp_plan, p.tp, p.sequence_parallel_on)
    return loss_held(logit_bytes(wl), loss_token_bytes(wl), m.vocab_size, shards, tokens)


def loss_token_bytes(wl: Workload) -> float:
    """Bytes a token the chunked loss's wrapper keeps beside its chunk's logits (module doc):
    the hidden states' bf16 chunks and the fp32 gradient accumulator; 0 unchunked."""
    hidden = wl.model.hidden_size or 0
    return CHUNK_BUFFER_BYTES * hidden if wl.software_in_effect.loss_chunks > 1 else 0.0


def loss_held(logit: float, per_token: float, vocab: float, shards: int, tokens: float) -> float:
    """Bytes a micro-batch's loss holds on the last stage: `logit` bytes a logit of the share
    of `vocab` a rank holds (over `shards`: software.vocabulary_shards) and `per_token` more,
    for each of `tokens` (PAR004's estimate and the layout search's, one formula)."""
    return tokens * (logit * vocab / shards + per_token)


@dataclass(frozen=True, slots=True)
class StateTerms:
    """What the memory estimate reads from the workload's software beyond its layout, as plain
    numbers, so that the layout search holds each candidate as PAR004 holds the declared one:
    gradient and optimizer bytes a parameter (`state_bytes`), a logit's bytes and the chunked
    loss's a token (`logit_bytes`, `loss_token_bytes`), and the unsharded gradients PyTorch FSDP
    accumulates where it syncs on the last micro-batch (`unsynced_grad_bytes`, resolved a
    layout by its pipeline: `gradient_sync` as declared, "" unset; 0 bytes: not FSDP)."""

    grad_bytes: float = GRAD_BYTES
    optimizer_bytes: float = OPTIMIZER_BYTES
    logit_bytes: float = LOGIT_BYTES
    loss_token_bytes: float = 0.0
    accumulated_grad_bytes: float = 0.0
    gradient_sync: str = ""
    chunked: bool = False  # software.loss_chunks > 1
    tp_plan: str = "megatron"  # software.tp_plan (vocabulary_shards)

    def head_bytes(
        self, embedding: float, tp: int, ranks: int, keep_gathered: bool, unsynced: bool
    ) -> float:
        """Bytes the chunked loss holds of the output layer on the last stage under PyTorch
        FSDP: ChunkedLossWrapper turns the output layer's resharding and gradient sync off
        across its chunks (torchtitan/components/loss.py: set_reshard_after_forward(False),
        set_reshard_after_backward(False), set_requires_gradient_sync(False) until the last
        chunk), so its gathered bf16 weight (unless already counted whole) and its unsharded
        gradient, accumulated in the reduce dtype (unless `unsynced`: the stage's gradients
        are counted unsharded already), stay through the loss: of `embedding` parameters
        (vocabulary x hidden) over `tp`; 0 without FSDP sharding or chunks."""
        if not self.chunked or not self.accumulated_grad_bytes or ranks == 1:
            return 0.0
        weight = 0.0 if keep_gathered else WEIGHT_BYTES
        gradient = 0.0 if unsynced else self.accumulated_grad_bytes
        return (weight + gradient) * embedding / tp

    def loss_stage_bytes(
        self,
        vocab: float,
        embedding: float,
        tp: int,
        sequence_parallel: bool,
        pp: int,
        ranks: int,
        micro_batches: int,
        tokens: float,
        keep_gathered: bool,
    ) -> float:
        """Bytes the last stage holds for a micro-batch's loss, PAR004's (`shape_of`) and the
        layout search's alike: its logits over the vocabulary shards a rank holds
        (`loss_held`, software.vocabulary_shards) and the chunked loss's output layer
        (`head_bytes`, whose gradient is counted already where the stage's gradients
        accumulate unsharded over several micro-batches)."""
        unsynced = bool(self.unsynced(pp, ranks)) and micro_batches > 1
        shards = vocabulary_shards(self.tp_plan, tp, sequence_parallel)
        held = loss_held(self.logit_bytes, self.loss_token_bytes, vocab, shards, tokens)
        return held + self.head_bytes(embedding, tp, ranks, keep_gathered, unsynced)

    def unsynced(self, pp: int, ranks: int) -> float:
        """`unsynced_grad_bytes` of a layout of `pp` stages and `ranks` data-parallel ranks
        (dp x cp: at 1, nothing is sharded, FSDP or not)."""
        if ranks == 1 or gradient_sync_in_effect(self.gradient_sync, pp) != "last-micro-batch":
            return 0.0
        return self.accumulated_grad_bytes


DEFAULT_TERMS = StateTerms()  # Megatron-Core's fp32 states and unfused loss, synced every step


def state_terms(wl: Workload) -> StateTerms:
    """The workload's `StateTerms`."""
    sw = wl.software_in_effect
    fsdp = sw.sharding in ("fsdp", "hsdp")
    return StateTerms(
        *state_bytes(wl),
        logit_bytes(wl),
        loss_token_bytes(wl),
        sw.grad_bytes if fsdp else 0.0,
        sw.gradient_sync,
        sw.loss_chunks > 1,
        sw.tp_plan,
    )


def state_bytes(wl: Workload) -> tuple[float, float]:
    """Bytes a parameter's gradient and optimizer states keep (module doc): fp32 main gradients
    (bf16 with grad_reduce_in_fp32 false) and fp32 master weights and moments; a bf16 model's
    bf16 gradients and moments where its optimizer keeps them so (Settings.bf16_state)."""
    sw = wl.software_in_effect
    if sw.bf16_state:
        return BF16_GRAD_BYTES, BF16_OPTIMIZER_BYTES
    return sw.grad_bytes, OPTIMIZER_BYTES


def shape_of(wl: Workload, blackwell: bool = False) -> Shape:
    """The workload's `Shape` (module doc's conventions); `blackwell`: the GPU runs FP8 GEMMs
    of any layout (FP8 parameters keep no transpose)."""
    m, p = wl.model, wl.parallel
    sw = wl.software_in_effect
    dp = _data_parallel(wl)
    experts = expert_parameters(wl)
    dense = float(m.parameters) - experts
    micro_batches = p.pp
    if wl.global_batch:
        micro_batches = max(1, wl.global_batch // (dp * wl.micro_batch))
    per_layer, logits = None, 0.0
    s = wl.sequence_length / p.cp
    terms, ranks = state_terms(wl), dp * p.cp
    if m.layers and m.hidden_size:
        heads = m.attention_heads or max(1, m.hidden_size // 128)
        per_layer = layer_activations(
            s, wl.micro_batch, m.hidden_size, heads, p.tp, p.sequence_parallel_on,
            wl.recompute, sw.flash_attention, model_widths(wl),
            m.dropout, saves_quantized(wl), sw.selective_recompute == "op",
            fp8_proj_copy(wl),
        )  # fmt: skip
        if m.vocab_size:
            logits = terms.loss_stage_bytes(
                m.vocab_size, embedding_parameters(m.vocab_size, m.hidden_size, dense), p.tp,
                p.sequence_parallel_on, p.pp, ranks, micro_batches, s * wl.micro_batch,
                keeps_gathered(wl),
            )  # fmt: skip
    return Shape(
        m.layers or p.pp,
        dense,
        experts,
        embedding_parameters(m.vocab_size, m.hidden_size, dense),
        p.tp,
        p.pp,
        p.cp,
        dp,
        p.ep,
        p.vpp,
        micro_batches,
        per_layer,
        logits,
        terms.grad_bytes,
        sw.expert_tp,
        sw.activation_offload_layers,
        layer_weight_bytes(wl, blackwell),
        sw.shard_group if sw.sharding == "hsdp" else 0,
        keeps_gathered(wl),
        split_slots(wl),
        terms.optimizer_bytes,
        terms.unsynced(p.pp, ranks),
    )


def unsynced_grad_bytes(wl: Workload) -> float:
    """Bytes a parameter of the gradients PyTorch FSDP accumulates unsharded between
    micro-batches where it reduce-scatters after the last one only (`software.gradient_sync`
    last-micro-batch, and by default under pipeline parallelism, as the step model times it:
    software.gradient_sync_in_effect): FSDP2 keeps each micro-batch's unsharded gradient, cast
    to the reduce dtype (FSDPParam.to_accumulated_grad_if_needed: fp32 4 B, bf16 2 B); 0 where
    it syncs every micro-batch, or shards nothing."""
    return state_terms(wl).unsynced(wl.parallel.pp, _data_parallel(wl) * wl.parallel.cp)


def split_slots(wl: Workload) -> tuple[int, int]:
    """(embedding, loss) counted as pipeline layers where they decide the split (Megatron-Core's
    account_for_*_in_pipeline_split): as `stage_layers` takes them and the step model times
    its stages, not with declared uneven first and last stages (which Megatron-Core refuses
    beside the flags, and which then decide)."""
    p = wl.parallel
    if p.pp == 1 or _framework_ends(wl) != (None, None):
        return (0, 0)
    return (
        int(p.account_for_embedding_in_pipeline_split),
        int(p.account_for_loss_in_pipeline_split),
    )


def keeps_gathered(wl: Workload) -> bool:
    """PyTorch FSDP keeping the gathered weights from the forward to the backward: its
    reshard_after_forward False, as declared or by default under pipeline parallelism."""
    sw = wl.software_in_effect
    if sw.sharding not in ("fsdp", "hsdp"):
        return False
    reshard = sw.reshard_after_forward
    return not (wl.parallel.pp == 1 if reshard is None else reshard)


def _framework_ends(wl: Workload) -> tuple[int | None, int | None]:
    """The first and last pipeline ranks' layers: declared, or where the framework splits
    layers that do not divide over its stages itself (TorchTitan: layout_checks.
    framework_split; a rank holds virtual stages r, r + pp, ...), that split's; the middle
    ranks take the rest evenly."""
    p, layers = wl.parallel, wl.model.layers
    declared = (p.first_stage_layers, p.last_stage_layers)
    if layers is None or p.pp == 1 or declared != (None, None) or p.split_extra:
        return declared
    stages = p.pp * p.vpp
    split = framework_split(wl.software_in_effect.framework, layers, stages)
    if not split or layers % stages == 0:
        return declared
    return sum(split[0 :: p.pp]), sum(split[p.pp - 1 :: p.pp])


def memory_per_gpu(wl: Workload, blackwell: bool = False) -> MemoryEstimate:
    """Memory of the busiest GPU: the stage (first, first middle, last) that holds the most;
    `blackwell` as `shape_of`'s."""
    p = wl.parallel
    sh = shape_of(wl, blackwell)
    if wl.model.layers is None:
        stages = [(0, sh.layers / p.pp)]
    else:
        first, last = _framework_ends(wl)
        stages = stage_layers(
            wl.model.layers,
            p.pp,
            first,
            last,
            p.account_for_embedding_in_pipeline_split,
            p.account_for_loss_in_pipeline_split,
        )

    def held(stage_and_layers: tuple[int, float]) -> float:
        stage, n = stage_and_layers
        return sum(max(0.0, x) for x in stage_bytes(sh, stage, n, p.sharding))

    stage, n = max(stages, key=held)  # the first of equals: the lower stage
    return _estimate(wl, sh, stage, n)


def _estimate(wl: Workload, sh: Shape, stage: int, n: float) -> MemoryEstimate:
    p = wl.parallel
    zero = p.sharding
    weights, gradients, optimizer, activations = stage_bytes(sh, stage, n, zero)
    notes = []
    if wl.model.layers and p.pp > 1:
        held = [f"{n:g} layers"]
        if stage == 0 and sh.embedding:
            held.append("the embedding")
        if stage == p.pp - 1:
            held.append("the output layer" if sh.embedding else "")
            held.append(f"logits {Q_(sh.logits, 'B').to('GiB'):.3g~P}" if sh.logits else "")
        where = "first" if stage == 0 else "last" if stage == p.pp - 1 else "a middle"
        notes.append(
            f"{where} stage (stage {stage} of pp {p.pp}) binds: " + ", ".join(h for h in held if h)
        )
    elif sh.logits and sh.per_layer is not None:
        notes.append(f"logits {Q_(sh.logits, 'B').to('GiB'):.3g~P}")
    dp = sh.dp
    if zero >= 3 and sh.keep_gathered:
        notes.append(
            "PyTorch FSDP keeps the gathered bf16 weights from the forward to the backward "
            "(reshard_after_forward false): weights counted whole"
        )
    if zero and sh.shard_group and sh.shard_group < dp * p.cp:
        notes.append(
            f"HSDP: all states sharded over shard groups of {sh.shard_group} ranks, replicated "
            f"across the {dp * p.cp // sh.shard_group} groups"
        )
    elif zero:
        what = {1: "optimizer states", 2: "optimizer states and gradients"}.get(zero, "all states")
        notes.append(f"ZeRO stage {zero}: {what} sharded over dp x cp = {dp * p.cp}")
    else:
        notes.append("no data-parallel sharding (distributed optimizer off)")
    sw = wl.software_in_effect
    if sw.bf16_state:
        notes.append(
            "bf16 parameters, gradients and AdamW moments, no fp32 copy (param_dtype bf16)"
        )
    else:
        if sw.fp32_state_note:
            notes.append(sw.fp32_state_note)
        if not sw.grad_reduce_in_fp32:
            notes.append("gradients in bf16 (grad_reduce_in_fp32 false)")
    if sh.offload:
        notes.append(
            f"activations of {sh.offload} layers offloaded to host memory, one in transit "
            "or the logits, the larger (software.activation_offload_layers)"
        )
    if sh.layer_weight_bytes != WEIGHT_BYTES:
        notes.append(
            f"layer weights in FP8, {sh.layer_weight_bytes:g} B a parameter (fp8_param_gather)"
        )
    if sh.unsynced_grad_bytes and sh.micro_batches > 1 and zero >= 2:
        notes.append(
            f"gradients accumulated unsharded between the {sh.micro_batches} micro-batches, "
            f"{sh.unsynced_grad_bytes:g} B a parameter (PyTorch FSDP syncing on the last only)"
        )
    if sw.fused_cross_entropy and sh.logits:
        notes.append("logits kept in bf16 only (Transformer Engine's fused cross-entropy)")
    elif sw.framework == "llm-foundry" and sh.logits:
        notes.append(
            "logits kept in bf16 and their bf16 gradient (llm-foundry's fused_crossentropy: "
            "flash-attn's xentropy)"
        )
    if sw.loss_chunks > 1 and sh.logits:
        head = (  # StateTerms.head_bytes: PyTorch FSDP sharding over more than one rank
            ", the output layer kept gathered with its gradient unsynced across the chunks"
            if sw.sharding in ("fsdp", "hsdp") and dp * p.cp > 1
            else ""
        )
        notes.append(
            f"the loss a sequence chunk at a time: one of {sw.loss_chunks} chunks' logits and "
            f"the hidden states' copies{head} (software.loss_chunks: TorchTitan's "
            "ChunkedLossWrapper)"
        )
    if not wl.model.dropout:
        notes.append("no dropout masks (model.dropout false)")
    if saves_quantized(wl):
        proj = "" if fp8_proj_copy(wl) else "; the attention output projection's in BF16"
        if wl.precision == "fp4":
            notes.append(
                "GEMM inputs saved quantized for the backward, at FP8's 1 B an element "
                f"(Transformer Engine's NVFP4: dclint's own byte{proj})"
            )
        else:
            notes.append(f"GEMM inputs saved in FP8 for the backward (Transformer Engine{proj})")
    elif _torchao_linear(wl):
        what = (
            "MX linear keeps the high-precision input: mx_mm, pytorch/ao e4e681be6"
            if wl.software_in_effect.fp8_recipe == "mxfp8"
            else "Float8Linear keeps the high-precision input: matmul_with_hp_or_float8_args, "
            "pytorch/ao 0afa4c1"
        )
        notes.append(f"GEMM inputs saved in BF16 for the backward (torchao's {what})")
    if activations < 0:
        notes.append("activations not estimated: model layers and hidden_size not declared")
    else:
        sp = "on" if p.sequence_parallel_on else "off"
        if p.sequence_parallel is None and p.tp > 1:
            sp += " (default with tp > 1)"
        flash = ""
        if not wl.software_in_effect.flash_attention:
            flash = ", attention scores stored (no flash attention)"
        rec: str = wl.recompute
        if rec == "selective" and wl.software_in_effect.selective_recompute == "op":
            rec = "selective (op-level: TorchTitan's every other matmul saved)"
        notes.append(
            f"activations per Korthikanti et al. 2022, recompute {rec}, "
            f"sequence parallel {sp}{flash}"
        )
    return MemoryEstimate(
        Q_(weights, "B").to("GiB"),
        Q_(gradients, "B").to("GiB"),
        Q_(optimizer, "B").to("GiB"),
        Q_(activations, "B").to("GiB") if activations >= 0 else None,
        tuple(notes),
    )
