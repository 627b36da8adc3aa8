"""Per-GPU memory of a training layout: model states and activations (Korthikanti et al. 2022).

Conventions:

- Model states (Megatron-LM distributed-optimizer table): bf16 weights 2 B/parameter and
  fp32 main gradients 4 B/parameter, kept on every data-parallel rank; fp32 master weights and
  Adam moments 12 B/parameter, sharded over dp x cp when `distributed_optimizer` is on.
  FP8 and FP4 training keep bf16 weights as well (Transformer Engine casts per GEMM), so the
  precision does not change these figures.
- Dense parameters are split over tp x pp; expert parameters over ep x tp x pp (expert tensor
  parallelism = tp, the Megatron-Core default), their optimizer over the expert data-parallel
  ranks (dp x cp / ep).
- Activations per transformer layer and micro-batch, in bytes, with s = sequence / cp,
  b = micro-batch, h hidden, a heads, t = tp: s b h (34/t + 5 a s / (h t)) with sequence
  parallelism, s b h (10 + 24/t + 5 a s / (h t)) without; selective recomputation drops the
  5 a s / h term, full recomputation keeps only the layer input, 2 s b h (/t with sequence
  parallelism). The first pipeline stage holds min(pp, micro-batches) micro-batches of its
  l/pp layers, x (1 + (pp-1)/(pp x vpp)) with interleaving. Embedding and output-layer
  activations and MoE routing buffers are not counted; flash attention makes `recompute: none`
  behave like `selective` for the 5 a s / h term.
"""

from __future__ import annotations

from dataclasses import dataclass

from dclint.model.workload import Workload
from dclint.units import Q_, Quantity

__all__ = ["MemoryEstimate", "expert_parameters", "memory_per_gpu"]

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


def _activations(wl: Workload, dp: int) -> Quantity | None:
    m, p = wl.model, wl.parallel
    if not (m.layers and m.hidden_size):
        return None
    s, b, h, t = wl.sequence_length / p.cp, wl.micro_batch, m.hidden_size, p.tp
    a = m.attention_heads or max(1, h // 128)
    scores = 5 * a * s / (h * t)
    base = 34 / t if p.sequence_parallel else 10 + 24 / t
    if wl.recompute == "full":
        per_layer = 2 * s * b * h / (t if p.sequence_parallel else 1)
    elif wl.recompute == "selective":
        per_layer = s * b * h * base
    else:
        per_layer = s * b * h * (base + scores)
    micro_batches = p.pp
    if wl.global_batch:
        micro_batches = max(1, wl.global_batch // (dp * wl.micro_batch))
    in_flight = min(p.pp, micro_batches)
    layers_per_stage = m.layers / p.pp
    interleave = 1 + (p.pp - 1) / (p.pp * p.vpp) if p.vpp > 1 else 1.0
    return Q_(per_layer * layers_per_stage * in_flight * interleave, "B").to("GiB")


def memory_per_gpu(wl: Workload) -> MemoryEstimate:
    """Memory of the busiest GPU (first pipeline stage) of the workload's layout."""
    p = wl.parallel
    dp = _data_parallel(wl)
    experts = expert_parameters(wl)
    dense = float(wl.model.parameters) - experts
    dense_local = dense / (p.tp * p.pp)
    expert_local = experts / (p.ep * p.tp * p.pp)
    params = dense_local + expert_local
    notes: list[str] = []
    if p.distributed_optimizer:
        expert_dp = max(1, dp * p.cp // p.ep)
        optimizer = OPTIMIZER_BYTES * (dense_local / (dp * p.cp) + expert_local / expert_dp)
        notes.append(f"distributed optimizer sharded over dp x cp = {dp * p.cp}")
    else:
        optimizer = OPTIMIZER_BYTES * params
    activations = _activations(wl, dp)
    if activations is None:
        notes.append("activations not estimated: model layers and hidden_size not declared")
    else:
        notes.append(
            f"activations per Korthikanti et al. 2022, recompute {wl.recompute}, "
            f"sequence parallel {'on' if p.sequence_parallel else 'off'}"
        )
    return MemoryEstimate(
        Q_(WEIGHT_BYTES * params, "B").to("GiB"),
        Q_(GRAD_BYTES * params, "B").to("GiB"),
        Q_(optimizer, "B").to("GiB"),
        activations,
        tuple(notes),
    )
