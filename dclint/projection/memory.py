"""Per-GPU memory of a training layout: model states and activations (Korthikanti et al. 2022).

Conventions:

- Model states (Megatron-LM distributed-optimizer table): bf16 weights 2 B/parameter and
  fp32 main gradients 4 B/parameter, kept on every data-parallel rank; fp32 master weights and
  Adam moments 12 B/parameter, sharded over dp x cp when `distributed_optimizer` is on (ZeRO
  stage 1). `zero_stage` 2 shards the gradients too and 3 (FSDP full shard) the weights as
  well (Rajbhandari et al. 2020); the layer being gathered under stage 3 is not counted.
  FP8 and FP4 training keep bf16 weights as well (Transformer Engine casts per GEMM), so the
  precision does not change these figures.
- Dense parameters are split over tp x pp; expert parameters over ep x tp x pp (expert tensor
  parallelism = tp, the Megatron-Core default), their optimizer over the expert data-parallel
  ranks (dp x cp / ep).
- Activations per transformer layer and micro-batch, in bytes, with s = sequence / cp,
  b = micro-batch, h hidden, a heads, t = tp: s b h (34/t + 5 a s / (h t)) with sequence
  parallelism, s b h (10 + 24/t + 5 a s / (h t)) without; selective recomputation drops the
  5 a s / h term, full recomputation keeps only the layer input, 2 s b h (/t with sequence
  parallelism). Sequence parallelism is on by default when tp > 1, as Megatron-Core training
  recipes run it. Pipeline stage k holds min(pp - k, micro-batches) micro-batches of its
  layers (l/pp, or the declared first and last stage layers), x (1 + (pp-1)/(pp x vpp)) with
  interleaving; the busiest of the first stage and, with uneven stages, a middle one counts.
  Embedding and output-layer activations and MoE routing buffers are not counted; flash
  attention makes `recompute: none` behave like `selective` for the 5 a s / h term.
"""

from __future__ import annotations

from dataclasses import dataclass

from dclint.model.workload import Workload
from dclint.units import Q_, Quantity

__all__ = [
    "GRAD_BYTES",
    "OPTIMIZER_BYTES",
    "WEIGHT_BYTES",
    "MemoryEstimate",
    "expert_parameters",
    "layer_activations",
    "memory_per_gpu",
]

WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 4.0, 12.0


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


def expert_parameters(wl: Workload) -> float:
    """Parameters in expert MLPs (0 for a dense model), from the architecture or from
    total and active parameters: P = dense + E e, A = dense + k e."""
    m = wl.model
    if not m.experts:
        return 0.0
    if m.layers and m.hidden_size and m.ffn_hidden_size:
        per_expert = m.hidden_size * m.ffn_hidden_size * (3 if m.swiglu else 2)
        return float(min(m.layers * m.experts * per_expert, m.parameters))
    k = m.top_k or 2
    if m.active_parameters and m.experts > k:
        return max(0.0, (m.parameters - m.active_parameters) / (m.experts - k) * m.experts)
    return 0.0


def _data_parallel(wl: Workload) -> int:
    p = wl.parallel
    return p.dp or max(1, wl.gpus // (p.tp * p.pp * p.cp))


def _stages(wl: Workload) -> list[tuple[int, float | None]]:
    """(stage index, its layers) of the candidates for the busiest stage."""
    p, layers = wl.parallel, wl.model.layers
    if layers is None:
        return [(0, None)]
    ends = [v for v in (p.first_stage_layers, p.last_stage_layers) if v is not None]
    middle_stages = p.pp - len(ends)
    if not ends or p.pp == 1:
        return [(0, layers / p.pp)]
    middle = (layers - sum(ends)) / middle_stages if middle_stages > 0 else None
    first = float(p.first_stage_layers) if p.first_stage_layers is not None else middle
    out = [(0, first)]
    if middle is not None and p.first_stage_layers is not None and middle_stages > 0:
        out.append((1, middle))
    return out


def layer_activations(
    s: float, b: int, h: int, heads: int, t: int, sp: bool, recompute: str
) -> float:
    """Bytes of one transformer layer's activations for one micro-batch (module doc's terms)."""
    base = 34 / t if sp else 10 + 24 / t
    if recompute == "full":
        return 2 * s * b * h / (t if sp else 1)
    if recompute == "selective":
        return s * b * h * base
    return s * b * h * (base + 5 * heads * s / (h * t))


def _activations(wl: Workload, dp: int, stage: int, layers: float) -> Quantity | None:
    m, p = wl.model, wl.parallel
    if not (m.layers and m.hidden_size):
        return None
    s, h = wl.sequence_length / p.cp, m.hidden_size
    heads = m.attention_heads or max(1, h // 128)
    sp = p.sequence_parallel_on
    per_layer = layer_activations(s, wl.micro_batch, h, heads, p.tp, sp, wl.recompute)
    micro_batches = p.pp
    if wl.global_batch:
        micro_batches = max(1, wl.global_batch // (dp * wl.micro_batch))
    in_flight = max(1, min(p.pp - stage, micro_batches))
    interleave = 1 + (p.pp - 1) / (p.pp * p.vpp) if p.vpp > 1 else 1.0
    return Q_(per_layer * layers * in_flight * interleave, "B").to("GiB")


def memory_per_gpu(wl: Workload) -> MemoryEstimate:
    """Memory of the busiest GPU (first pipeline stage, or a middle one with uneven stages)."""
    estimates = [_estimate(wl, stage, layers) for stage, layers in _stages(wl)]
    return max(estimates, key=lambda e: e.total.m_as("GiB"))


def _estimate(wl: Workload, stage: int, layers: float | None) -> MemoryEstimate:
    p = wl.parallel
    dp = _data_parallel(wl)
    share = layers / wl.model.layers if layers is not None and wl.model.layers else 1 / p.pp
    experts = expert_parameters(wl)
    dense = float(wl.model.parameters) - experts
    dense_local = dense * share / p.tp
    expert_local = experts * share / (p.ep * p.tp)
    dense_dp, expert_dp = dp * p.cp, max(1, dp * p.cp // p.ep)
    sharded = dense_local / dense_dp + expert_local / expert_dp
    params = dense_local + expert_local
    zero = p.sharding
    notes = [f"stage {stage} of pp {p.pp}: {layers:g} layers" if layers and p.pp > 1 else ""]
    weights = WEIGHT_BYTES * (sharded if zero >= 3 else params)
    gradients = GRAD_BYTES * (sharded if zero >= 2 else params)
    optimizer = OPTIMIZER_BYTES * (sharded if zero >= 1 else params)
    if zero:
        what = {1: "optimizer states", 2: "optimizer states and gradients"}.get(zero, "all states")
        notes.append(f"ZeRO stage {zero}: {what} sharded over dp x cp = {dp * p.cp}")
    else:
        notes.append("no data-parallel sharding (distributed optimizer off)")
    activations = _activations(wl, dp, stage, layers) if layers is not None else None
    if activations is None:
        notes.append("activations not estimated: model layers and hidden_size not declared")
    else:
        sp = "on" if p.sequence_parallel_on else "off"
        if p.sequence_parallel is None and p.tp > 1:
            sp += " (default with tp > 1)"
        notes.append(
            f"activations per Korthikanti et al. 2022, recompute {wl.recompute}, "
            f"sequence parallel {sp}"
        )
    return MemoryEstimate(
        Q_(weights, "B").to("GiB"),
        Q_(gradients, "B").to("GiB"),
        Q_(optimizer, "B").to("GiB"),
        activations,
        tuple(n for n in notes if n),
    )
