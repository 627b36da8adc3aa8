"""The Grok 1 314B MoE runs of DGX Cloud Benchmarking held outside the calibration set
(tests/validation/dgxc-benchmarking-grok1.yaml): predicted, compared, nothing derived from them."""

from __future__ import annotations

import pytest
from test_calibration import Run, _validation, error, prediction


def _tokens(r: Run) -> float:
    return float(prediction(r).tokens_per_second.m_as("token/s"))


def _published(r: Run) -> float:
    assert r.wl.tokens_per_second is not None
    return float(r.wl.tokens_per_second.m_as("token/s"))


def test_dgxc_grok1_moe_runs_outside_the_calibration() -> None:
    """tests/validation/dgxc-benchmarking-grok1.yaml: NVIDIA/dgxc-benchmarking release 25.05
    (c5c765f), grok1/README.md's "GB200 Performance" and "H100 Performance" (the H100 rows as
    revised in dfc8039): a 314B MoE (64 layers, hidden 6,144, 8 experts of 32,768, top 2) in
    NeMo 25.04.00, BF16 and FP8 (delayed scaling), sequence 8,192, global batch 2 x the GPUs;
    GB200 tp 4, ep 8, expert tp 4, CUDA graphs; H100 tp 4, pp 8, cp 2, vp 8, ep 8, expert tp 1.
    Predicted over published - 1 (%): GB200 BF16 on 128, 256 and 512 GPUs -2.7, -1.8, -2.6, FP8
    +5.2, +3.8, +3.2; H100 on 512 BF16 -16.3, FP8 -4.2; mean absolute error 4.98%, 7 of 8 within
    15% (-2.7, +5.1 and -4.3 the rows that moved at 3b82313, with Megatron's clipping charged its
    scale every step and no ring plateau, the same as now at fef8168; FP8 +6.0, +4.6, +4.0,
    -3.4 and 5.15% before f6d8ad6 re-derived issue 51's
    fourth round's last merges together; -3.5, -2.6, -3.4, +4.7, +3.3, +2.7, -17.8, -5.9 and 5.47%
    before the MoE layers lost the dense MLP's two tp collectives a pass and the head was
    charged Transformer Engine's
    fused cross-entropy, which the preset declares; before the expert-tp all-gathers and
    reduce-scatters of the all-to-all dispatcher were
    charged exposed, `_etp_comm`: GB200 BF16 +2.9, +3.8, +2.9, FP8 +15.3, +13.8, +13.2; 9.45%,
    6 of 8). Every run inside the band it carries: the Blackwell band 0.792-1.229 at 128 and
    256 GPUs; at 512 the envelope 0.721-1.995, outside the domain (the MoE calibration runs of
    either generation stop at 256 GPUs). What they show: the FP8 gain over BF16 at one layout is
    predicted 1.494x to 1.495x on GB200 where 1.38-1.42x is published (1.51x before f6d8ad6, 1.50x
    before the fused cross-entropy, 1.55x before the expert-tp collectives), and 1.357x on H100
    (1.37x before f6d8ad6) where 1.19x is
    (the FP8 misses of issue 51, on MoE runs too); H100 BF16 is under-predicted, its
    computation alone (18.4 s of a 19.0 s step) longer than the published 15.93 s step (the
    README's MFU 54.2%, the model's 45.4%); weak scaling from 128 to 512 GB200 holds a GPU's
    throughput within 2% published (0.0% BF16, +2.0% FP8) and the model's +0.1% and +0.2%."""
    rs = _validation("dgxc-benchmarking-grok1")
    got = {k: round(100 * error(r), 1) for k, r in rs.items()}
    assert got == {
        "gb200-grok1-314b-128-bf16": -2.7,
        "gb200-grok1-314b-128-fp8": 5.2,
        "gb200-grok1-314b-256-bf16": -1.8,
        "gb200-grok1-314b-256-fp8": 3.8,
        "gb200-grok1-314b-512-bf16": -2.6,
        "gb200-grok1-314b-512-fp8": 3.2,
        "h100-grok1-314b-512-bf16": -16.3,
        "h100-grok1-314b-512-fp8": -4.2,
    }
    errors = [abs(error(r)) for r in rs.values()]
    assert round(100 * sum(errors) / len(errors), 2) == 4.98
    assert sum(e <= 0.15 for e in errors) == 7
    beyond = ("512 GPUs: the Blackwell MoE calibration runs span 8 to 256",)
    hopper = ("512 GPUs: the Hopper MoE calibration runs span 16 to 256",)
    bands = {
        k: (round(b.low_factor, 3), round(b.high_factor, 3), b.outside)
        for k, b in ((k, prediction(r).band) for k, r in rs.items())
    }
    assert bands == {
        "gb200-grok1-314b-128-bf16": (0.792, 1.229, ()),
        "gb200-grok1-314b-128-fp8": (0.792, 1.229, ()),
        "gb200-grok1-314b-256-bf16": (0.792, 1.229, ()),
        "gb200-grok1-314b-256-fp8": (0.792, 1.229, ()),
        "gb200-grok1-314b-512-bf16": (0.721, 1.995, beyond),
        "gb200-grok1-314b-512-fp8": (0.721, 1.995, beyond),
        "h100-grok1-314b-512-bf16": (0.721, 1.995, hopper),
        "h100-grok1-314b-512-fp8": (0.721, 1.995, hopper),
    }
    held = [k for k, r in rs.items() if bands[k][0] <= 1 + error(r) <= bands[k][1]]
    assert held == list(rs)
    # the FP8 gain over BF16 at one layout, published and predicted
    gains = [
        (
            round(_published(rs[f"{s}-fp8"]) / _published(rs[f"{s}-bf16"]), 3),
            round(_tokens(rs[f"{s}-fp8"]) / _tokens(rs[f"{s}-bf16"]), 3),
        )
        for s in (
            "gb200-grok1-314b-128",
            "gb200-grok1-314b-256",
            "gb200-grok1-314b-512",
            "h100-grok1-314b-512",
        )
    ]
    assert gains == [(1.383, 1.494), (1.415, 1.495), (1.41, 1.495), (1.186, 1.357)]
    # H100 BF16: the predicted computation alone against the published step (15.933 s)
    h100 = prediction(rs["h100-grok1-314b-512-bf16"])
    assert round(float(h100.breakdown["compute"].m_as("s")), 1) == 18.4
    assert round(float(h100.step_time.m_as("s")), 1) == 19.0
    assert round(float(h100.mfu.m_as("")), 3) == 0.454
    # weak scaling, 128 to 512 GB200: a GPU's throughput, published and predicted (%)
    for precision, published, predicted in (("bf16", 0.0, 0.1), ("fp8", 2.0, 0.1)):
        small, big = (rs[f"gb200-grok1-314b-{n}-{precision}"] for n in (128, 512))
        per = [
            round(100 * (f(big) / big.wl.gpus / (f(small) / small.wl.gpus) - 1), 1)
            for f in (_published, _tokens)
        ]
        assert per == [published, predicted]


def test_dgxc_grok1_h100_expert_tp_is_the_published_folding() -> None:
    """The H100 rows' expert tp 1 (MoE parallel folding, published in the README's layout and
    grok1/launch.sh) is declared over the preset, whose expert tp is the tp (4): with it the
    predicted H100 steps are 19.04 s (BF16) and 14.029 s (FP8), without it 18.991 s and
    14.022 s (19.042 s, 14.03 s, 18.993 s and 14.024 s at 3b82313, with Megatron's clipping
    charged its scale every step and no ring plateau; 19.038 s, 14.027 s, 18.989 s and 14.021 s
    at fef8168, before NCCL 2.23's ring latency and gradient clipping; 19.019 s, 14.008 s,
    18.970 s and 14.001 s before the attention
    kernels ran at their rate for the sequence length; 19.018 s and 14.007 s, 18.969 s and 14.0 s
    before the fused loss's tp all-gather was charged), expert tp 4's all-gathers and
    reduce-scatters of the routed tokens charged exposed
    (19.381 s and 14.268 s, 19.332 s and 14.144 s before the MoE layers lost the dense MLP's two
    tp collectives a pass and the head was charged Transformer Engine's fused cross-entropy;
    18.390 s and 13.202 s before the expert-tp collectives were charged). It lengthens the step
    the model gives, moving BF16 further from the published 15.933 s. Of the other settings
    declared over the preset, fp8_param_gather moves no step; fused_cross_entropy shortens it
    by 0.265 s (the loss at 10 B a logit and one tp all-gather of 12 B a token, not Megatron's
    unfused 52 B a logit: 19.284 s and 14.170 s without it; 0.266 s before the fused loss's
    all-gather was charged)."""
    rs = _validation("dgxc-benchmarking-grok1")
    steps = []
    for precision in ("bf16", "fp8"):
        r = rs[f"h100-grok1-314b-512-{precision}"]
        assert r.wl.software is not None and r.wl.software.expert_tp == 1
        folded = float(prediction(r).step_time.m_as("s"))
        preset = r.wl.model_copy(
            update={"software": r.wl.software.model_copy(update={"expert_tp": None})}
        )
        steps.append((round(folded, 3), round(float(prediction(r, preset).step_time.m_as("s")), 3)))
        moved = []
        for name in ("fp8_param_gather", "fused_cross_entropy"):
            plain = r.wl.model_copy(
                update={"software": r.wl.software.model_copy(update={name: False})}
            )
            moved.append(round(float(prediction(r, plain).step_time.m_as("s")) - folded, 3))
        assert moved == [0.0, 0.265], precision
    assert steps == [(19.04, 18.991), (14.029, 14.022)]


def test_the_expert_tp_collectives_run_exposed_as_the_dispatcher_runs_them() -> None:
    """GB200's expert tp 4 under Megatron-Core's all-to-all dispatcher (MoEAlltoAllTokenDispatcher
    at Megatron-LM 64cb6bd, as NeMo 25.04.00 ran it): the routed tokens all-gathered over the 4
    expert-tp ranks after the all-to-all and reduce-scattered before the combine, a
    reduce-scatter and an all-gather in the backward, in BF16 (the router's dtype, NeMo's
    MixtralConfig sets no moe_router_dtype): per layer and micro-batch 4 collectives of 3 x
    8,192 x 2 / 4 tokens x 6,144 x 2 B over one NVLink domain, blocking on the compute stream,
    exposed: 0.468 s of the 7.531 s BF16 step (7.526 s at fef8168) (8 micro-batches of 64 layers;
    7.588 s with the dense MLP's tp collectives in the MoE layers and the unfused loss, 7.121 s
    before the expert-tp collectives).
    The all-to-all overlap does not hide them (the combined 1F1B runs them in the MLP node, on
    the compute stream); the flex dispatcher has none (it sends each token to every expert-tp
    rank in the dispatch itself)."""
    from dataclasses import replace

    from dclint.projection.collectives import group_time
    from dclint.projection.predict import inputs
    from dclint.projection.step.model import step

    r = _validation("dgxc-benchmarking-grok1")["gb200-grok1-314b-128-bf16"]
    got = inputs(r.design, r.wl, r.hw, [])
    assert not isinstance(got, str)
    a, lay, mac, sw = got
    assert (lay.tp, sw.expert_tp or lay.tp, lay.ep, sw.node_dedup) == (4, 4, 8, False)
    plain = step(a, lay, mac, sw)
    flex = step(a, lay, mac, replace(sw, node_dedup=True))
    gathered = 3 * 8192 * 2 / 4 * 6144 * 2.0
    by_hand = 8 * 64 * group_time(mac.links, 4 * gathered, 4, 1, calls=4)
    assert plain.tp - flex.tp == pytest.approx(by_hand, rel=1e-12)
    assert round(by_hand, 3) == 0.468
    assert round(plain.time, 3) == 7.528
    assert step(a, lay, mac, replace(sw, overlap_ep=True)).tp == plain.tp
    # at expert tp 1 (MoE parallel folding) there is no expert-tp collective
    folded = replace(sw, expert_tp=1, moe_folding=True)
    assert step(a, lay, mac, folded).tp == step(a, lay, mac, replace(folded, node_dedup=True)).tp
