"""The Grok 1 314B MoE runs of DGX Cloud Benchmarking held outside the calibration set
(tests/validation/dgxc-benchmarking-grok1.yaml): predicted, compared, nothing derived from them."""

from __future__ import annotations

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
    Predicted over published - 1 (%): GB200 BF16 on 128, 256 and 512 GPUs +2.9, +3.8, +2.9, FP8
    +15.3, +13.8, +13.2; H100 on 512 BF16 -17.8, FP8 -5.9; mean absolute error 9.45%, 6 of 8
    within 15%. Every run inside the band it carries: the Blackwell band 0.791-1.211 at 128 and
    256 GPUs; at 512 the envelope 0.722-1.986, outside the domain (the MoE calibration runs of
    either generation stop at 256 GPUs). What they show: the FP8 gain over BF16 at one layout is
    predicted 1.55x on GB200 where 1.38-1.42x is published, and 1.36x on H100 where 1.19x is (the
    FP8 misses of issue 51, on MoE runs too); H100 BF16 is under-predicted, its computation alone
    (18.6 s of a 19.4 s step) longer than the published 15.93 s step (the README's MFU 54.2%, the
    model's 44.6%); weak scaling from 128 to 512 GB200 holds a GPU's throughput within 2%
    published (0.0% BF16, +2.0% FP8) and the model's +0.1%."""
    rs = _validation("dgxc-benchmarking-grok1")
    got = {k: round(100 * error(r), 1) for k, r in rs.items()}
    assert got == {
        "gb200-grok1-314b-128-bf16": 2.9,
        "gb200-grok1-314b-128-fp8": 15.3,
        "gb200-grok1-314b-256-bf16": 3.8,
        "gb200-grok1-314b-256-fp8": 13.8,
        "gb200-grok1-314b-512-bf16": 2.9,
        "gb200-grok1-314b-512-fp8": 13.2,
        "h100-grok1-314b-512-bf16": -17.8,
        "h100-grok1-314b-512-fp8": -5.9,
    }
    errors = [abs(error(r)) for r in rs.values()]
    assert round(100 * sum(errors) / len(errors), 2) == 9.45
    assert sum(e <= 0.15 for e in errors) == 6
    beyond = ("512 GPUs: the Blackwell MoE calibration runs span 8 to 256",)
    hopper = ("512 GPUs: the Hopper MoE calibration runs span 16 to 256",)
    bands = {
        k: (round(b.low_factor, 3), round(b.high_factor, 3), b.outside)
        for k, b in ((k, prediction(r).band) for k, r in rs.items())
    }
    assert bands == {
        "gb200-grok1-314b-128-bf16": (0.791, 1.211, ()),
        "gb200-grok1-314b-128-fp8": (0.791, 1.211, ()),
        "gb200-grok1-314b-256-bf16": (0.791, 1.211, ()),
        "gb200-grok1-314b-256-fp8": (0.791, 1.211, ()),
        "gb200-grok1-314b-512-bf16": (0.722, 1.986, beyond),
        "gb200-grok1-314b-512-fp8": (0.722, 1.986, beyond),
        "h100-grok1-314b-512-bf16": (0.722, 1.986, hopper),
        "h100-grok1-314b-512-fp8": (0.722, 1.986, hopper),
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
    assert gains == [(1.383, 1.55), (1.415, 1.551), (1.41, 1.551), (1.186, 1.358)]
    # H100 BF16: the predicted computation alone against the published step (15.933 s)
    h100 = prediction(rs["h100-grok1-314b-512-bf16"])
    assert round(float(h100.breakdown["compute"].m_as("s")), 1) == 18.6
    assert round(float(h100.step_time.m_as("s")), 1) == 19.4
    assert round(float(h100.mfu.m_as("")), 3) == 0.446
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
    predicted H100 steps are 19.381 s (BF16) and 14.268 s (FP8), without it 18.390 s and
    13.202 s. It lengthens the step the model gives, moving BF16 further from the published
    15.933 s; the other settings declared over the preset (fp8_param_gather,
    fused_cross_entropy) move no step."""
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
        for name in ("fp8_param_gather", "fused_cross_entropy"):
            plain = r.wl.model_copy(
                update={"software": r.wl.software.model_copy(update={name: None})}
            )
            assert prediction(r, plain).step_time == prediction(r).step_time, name
    assert steps == [(19.381, 18.39), (14.268, 13.202)]
