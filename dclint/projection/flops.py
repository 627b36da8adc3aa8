"""Training FLOPs of a workload: 6ND, or the exact dense-transformer count when the model is known.

Conventions (stated here once, repeated in each projection's `formula`):

- Model FLOPs count the matrix multiplications of one forward and one backward pass
  (backward = 2x forward), 2 FLOPs per multiply-add; norms, softmax and other element-wise
  operations are not counted (Narayanan et al. 2021, Megatron-Core
  `num_floating_point_operations`).
- Exact count, per token: 6 x [l x (attention + MLP) + h x V] with
  attention = h(q + 2kv) + 2qs + qh (q = h; kv = q x query_groups / heads: GQA) and
  MLP = h x f x (3 with SwiGLU, else 2) x top_k for MoE layers. Without GQA, SwiGLU or MoE
  and with f = 4h this is Narayanan et al.'s 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) per batch.
- Attention is counted as causal by default (half the s x s score matrix: what flash attention
  computes, skipping the masked blocks; Megatron-Core's count since 2024). Narayanan et al. and
  PaLM count the full matrix: pass `causal=False` (a workload's `causal_attention: false`) for
  that convention. Every projection names the convention it used (`FlopsCount.convention`).
- Hardware FLOPs add recomputation: full recomputation repeats the forward pass (x 4/3,
  Narayanan's 96 B s l h^2 ..., ~8ND); selective recomputation repeats the core attention's
  forward (Korthikanti et al. 2022). With 6ND (no architecture), selective adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from dclint.model.defaults import DEFAULT_TOP_K
from dclint.model.workload import Workload
from dclint.units import Q_, Quantity

__all__ = ["FlopsCount", "per_token", "training_flops"]


@dataclass(frozen=True)
class FlopsCount:
    """Model FLOPs (what MFU is measured against) and hardware FLOPs (with recomputation)."""

    model: Quantity
    hardware: Quantity
    formula: str
    exact: bool
    convention: str = ""  # e.g. "exact count, causal attention"; "6ND (core attention not counted)"


def per_token(
    layers: int,
    hidden: float,
    q: float,
    kv: float,
    ffn: float,
    vocab: float,
    seq: float,
    swiglu: bool,
    routed: float,
    causal: bool,
) -> tuple[float, float]:
    """(model FLOPs per token, core-attention forward FLOPs per token): the one count dclint
    uses (this module's projections and the step model's MFU). `q` is the attention width
    (heads x kv_channels), `kv` the key/value width (query groups x kv_channels), `routed`
    the experts a token visits (top-k; 1 for a dense MLP)."""
    h = hidden
    core = 2 * q * seq * (0.5 if causal else 1.0)  # QK^T and (QK^T)V
    attention = h * (q + 2 * kv) + core + q * h
    mlp = h * ffn * (3 if swiglu else 2) * routed
    model = 6.0 * (layers * (attention + mlp) + h * vocab)
    return model, 2.0 * core * layers  # forward share (1/3) of the 6 x core term


def _per_token_exact(wl: Workload, causal: bool) -> tuple[float, float]:
    """(model FLOPs per token, core-attention forward FLOPs per token) from the architecture."""
    m = wl.model
    assert m.layers is not None and m.hidden_size is not None and m.vocab_size is not None
    h = m.hidden_size
    heads = m.attention_heads or max(1, h // 128)
    groups = m.query_groups or heads
    channels = m.kv_channels or h / heads
    routed = (m.top_k or DEFAULT_TOP_K) if m.experts else 1
    return per_token(
        m.layers,
        h,
        heads * channels,
        groups * channels,
        m.ffn_hidden_size or 4 * h,
        m.vocab_size,
        wl.sequence_length,
        m.swiglu,
        routed,
        causal,
    )


def has_architecture(wl: Workload) -> bool:
    m = wl.model
    return m.layers is not None and m.hidden_size is not None and m.vocab_size is not None


def training_flops(wl: Workload, causal: bool = True, convention: str = "exact") -> FlopsCount:
    """Model and hardware FLOPs of the whole run (all of `wl.tokens`); `convention` "6nd"
    counts 6 x N x D even when the architecture is known (a paper's accounting)."""
    tokens = float(wl.tokens)
    if has_architecture(wl) and convention == "exact":
        per_token, core_forward = _per_token_exact(wl, causal)
        model = per_token * tokens
        parts = [
            "GQA" if wl.model.query_groups else "",
            "SwiGLU" if wl.model.swiglu else "",
            f"MoE top-{wl.model.top_k or DEFAULT_TOP_K}" if wl.model.experts else "",
        ]
        extra = ", ".join(p for p in parts if p)
        formula = (
            f"exact transformer count (Narayanan et al. 2021{', ' + extra if extra else ''};"
            f" {'causal' if causal else 'non-causal'} attention)"
        )
        exact = True
        named = f"exact count, {'causal' if causal else 'non-causal'} attention"
    else:
        n = float(wl.model.active_parameters or wl.model.parameters)
        model = 6.0 * n * tokens
        core_forward = 0.0
        which = "active parameters" if wl.model.active_parameters else "parameters"
        formula = f"6 x N x D (N = {which}, D = tokens)"
        exact = False
        named = "6ND (core attention not counted)"
    if wl.recompute == "full":
        hardware = model * 4.0 / 3.0
        formula += "; full recomputation: hardware FLOPs x 4/3"
    elif (
        wl.recompute == "selective" and exact and wl.software_in_effect.selective_recompute == "op"
    ):
        # TorchTitan's op-level policy: half the layers' forward GEMMs repeated (step.py's _flops)
        head = 6.0 * float(wl.model.hidden_size or 0) * float(wl.model.vocab_size or 0) * tokens
        hardware = model + (model - head - 3.0 * core_forward * tokens) / 6.0
        formula += (
            "; op-level selective recomputation: half the layers' forward GEMMs in hardware FLOPs"
        )
    elif wl.recompute == "selective" and exact:
        hardware = model + core_forward * tokens
        formula += "; selective recomputation of core attention in hardware FLOPs"
    else:
        hardware = model
    return FlopsCount(Q_(model, "FLOP"), Q_(hardware, "FLOP"), formula, exact, named)
