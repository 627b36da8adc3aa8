"""Calibration of the step-time model against published runs, with one set of constants.

Every run is a workload of a design file in tests/calibration/, one file a publication and
system, and is predicted the way `dclint cost` predicts it: `predict(design, workload, hardware)`
from the design's GPU, NVLink domain and NICs and the workload's architecture, layout and
`software:`. Each workload names its publication's software preset (megatron-lm-2021,
megatron-core-0.8, nemo-25.11; docs/performance-model.md, Software presets), with the settings
a row's scripts changed declared over it; its published throughput is the workload's declared
measurement (`achieved_flops` on the hardware basis for Narayanan et al.'s HFU, `mfu` for the
Megatron-Core README's, `tokens_per_second` for Megatron-Bridge's). So the path users take is the
one calibrated. The files' comments give each source and the assumptions for figures a
publication leaves out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import pytest

from conftest import ROOT
from dclint.loader import load_text
from dclint.model.design import Design
from dclint.model.software import Sharding
from dclint.model.workload import Workload
from dclint.projection.efficiency import GENERATION
from dclint.projection.hardware import Hardware, hardware_of
from dclint.projection.predict import Prediction, inputs, predict
from dclint.projection.step.model import Arch, Layout, Machine, Software, step

DESIGNS = ROOT / "tests" / "calibration"
# design file -> the preset its publication's software is
PRESET = {
    "narayanan-2021-a100": "megatron-lm-2021",
    "megatron-core-0.8-h100": "megatron-core-0.8",
    "megatron-bridge-25.11-gb200": "nemo-25.11",
    "megatron-bridge-25.11-b200": "nemo-25.11",
    "megatron-bridge-25.11-h100": "nemo-25.11",
    # the Qwen3 runs of later NeMo releases: the 25.11 preset with what each release's recipe
    # changed (CUDA graphs, the all-to-all overlap, MXFP8) declared over it
    "megatron-bridge-qwen3-gb200": "nemo-25.11",
    "megatron-bridge-qwen3-gb300": "nemo-25.11",
    "megatron-bridge-qwen3-b200": "nemo-25.11",
    "megatron-bridge-qwen3-b300": "nemo-25.11",
    "megatron-bridge-qwen3-h100": "nemo-25.11",
    # MLPerf Training v5.0/v5.1 on Blackwell: NeMo with the configs' settings declared
    "mlperf-training-blackwell": "nemo-25.11",
    # PyTorch-native runs: TorchTitan's Llama 3.1 tables (FSDP2, TP, PP, CP; compile, Float8)
    # and llm-foundry's MPT benchmark tables (Composer, PyTorch FSDP), H100 and A100
    "torchtitan-h100": "torchtitan",
    "torchao-float8-h100": "torchtitan",
    "llm-foundry": "llm-foundry",
}
PYTORCH = ("torchtitan-h100", "torchao-float8-h100", "llm-foundry")
NARAYANAN, MCORE = "narayanan-2021-a100", "megatron-core-0.8-h100"
MLPERF = "mlperf-training-blackwell"


@dataclass(frozen=True)
class Run:
    design: Design
    wl: Workload
    hw: Hardware

    @property
    def name(self) -> str:
        return f"{self.design.name}: {self.wl.id}"

    @property
    def moe(self) -> bool:
        return bool(self.wl.model.experts)

    @property
    def native(self) -> bool:
        """A PyTorch-native run (its own bands: uncertainty.NATIVE_BANDS)."""
        from dclint.projection.uncertainty import native

        return native(self.wl.software_in_effect.framework)

    @property
    def generation(self) -> str:
        return GENERATION.get(self.hw.gpu_key, self.hw.family)


@cache
def runs() -> tuple[Run, ...]:
    out = []
    for stem in PRESET:
        path = DESIGNS / f"{stem}.yaml"
        design = load_text(path.read_text(encoding="utf-8"), str(path))
        for wl in design.workloads:
            hw = hardware_of(design, wl.platform)
            assert not isinstance(hw, str), hw
            out.append(Run(design, wl, hw))
    return tuple(out)


def prediction(run: Run, wl: Workload | None = None) -> Prediction:
    wl = wl or run.wl
    got = predict(run.design, wl, run.hw, causal=wl.causal_attention)
    assert not isinstance(got, str), got
    return got


def ratio(run: Run, wl: Workload | None = None) -> float:
    """Predicted over published throughput, on the basis the publication states."""
    wl = wl or run.wl
    got = prediction(run, wl)
    if wl.mfu is not None:
        return float(got.mfu.m_as("") / wl.mfu)
    if wl.achieved_flops is not None:  # HFU: FLOPs counting recomputation, per GPU
        peak = run.hw.gpu.dense_flops[wl.precision]
        return float((got.hfu * peak / wl.achieved_flops).m_as(""))
    assert wl.tokens_per_second is not None, run.name
    return float((got.tokens_per_second / wl.tokens_per_second).m_as(""))


def error(run: Run) -> float:
    """Predicted over published throughput, minus one."""
    return ratio(run) - 1


# Runs the model misses by more than 15%, kept visible: the 32B row and the 4,608-GPU end of the
# strong-scaling curve spend less time in exposed data-parallel communication and the pipeline
# bubble than micro-batch 1 without interleaving (the assumption for rows whose settings are not
# published) gives them. The MoE misses: H100's Qwen3 30B of 25.11 and 26.02 (pp 2, ep 8:
# +93%, +38%; the same model runs 1.7x faster from 26.02.01 with HybridEP over two nodes, which
# the model follows within 6%), the 30B of 25.11 on GB300 and of 26.04.01 on GB200 and B200
# (slower than the host term gives: one constant for every release and CPU), and B300's 235B
# (+37% at micro-batch 1 with the overlap, -20% at micro-batch 2 without); see
# docs/performance-model.md, MoE throughput across NeMo releases.
MISSES = {
    "megatron-core-0.8-h100: gpt-32b",
    "megatron-core-0.8-h100: gpt-177b-strong-4608",
    "megatron-bridge-25.11-h100: qwen3-30b-a3b-16",
    "megatron-bridge-qwen3-gb300: qwen3-30b-a3b-8-25.11",
    "megatron-bridge-qwen3-gb200: qwen3-30b-a3b-8-26.04.01",
    "megatron-bridge-qwen3-b200: qwen3-30b-a3b-8-26.04.01",
    "megatron-bridge-qwen3-b300: qwen3-235b-a22b-256-26.02",
    "megatron-bridge-qwen3-b300: qwen3-235b-a22b-256-26.04.01",
    "megatron-bridge-qwen3-h100: qwen3-30b-a3b-16-26.02",
    # MLPerf's Llama 3.1 8B runs of one micro-batch a step: the model leaves out what such a
    # step spends outside its one forward and backward (docs/performance-model.md, MLPerf)
    "mlperf-training-blackwell: llama31-8b-72-v5.1-tyche",
    "mlperf-training-blackwell: llama31-8b-512-v5.1-tyche",
    "mlperf-training-blackwell: llama31-8b-512-v5.1-theia",
    "mlperf-training-blackwell: llama31-8b-256-v5.1-uf",
}


def _cases() -> list[object]:
    miss = pytest.mark.xfail(strict=True, reason="known miss (docs/performance-model.md)")
    return [
        pytest.param(r, id=r.name, marks=[miss] if r.name in MISSES else [])
        for r in runs()
        if r.design.name not in PYTORCH
    ]


def test_every_calibration_run_names_its_publications_preset() -> None:
    assert len(runs()) == 157
    for run in runs():
        assert run.wl.software.preset == PRESET[run.design.name], run.name


@pytest.mark.parametrize("run", _cases())
def test_each_run_within_15_percent(run: Run) -> None:
    assert abs(error(run)) <= 0.15, f"{run.name}: {error(run):+.1%}"


def test_mean_absolute_error_at_most_8_percent_on_the_megatron_dense_runs() -> None:
    """Narayanan et al.'s, the Megatron-Core README's and Megatron-Bridge's dense runs."""
    errors = [
        abs(error(r))
        for r in runs()
        if not r.moe and r.design.name != MLPERF and r.design.name not in PYTORCH
    ]
    assert len(errors) == 29
    assert sum(errors) / len(errors) <= 0.08


@pytest.mark.xfail(strict=True, reason="11.7% with MLPerf's 8B runs (docs/performance-model.md)")
def test_mean_absolute_error_at_most_8_percent_on_every_dense_run() -> None:
    errors = [abs(error(r)) for r in runs() if not r.moe and r.design.name not in PYTORCH]
    assert len(errors) == 45
    assert sum(errors) / len(errors) <= 0.08


def test_mlperf_llama_405b_runs_to_the_tenth_of_a_percent() -> None:
    """MLPerf's Llama 3.1 405B runs, many micro-batches a step: GB200 from 256 to 2,496 GPUs
    over-predicted by 8.2% to 10.0% (the model loses 4% per GPU over that range, the runs 6%),
    B200 at 256 and 448 GPUs within 2%."""
    got = [
        round(100 * error(r), 1) for r in runs() if r.design.name == MLPERF and "405b" in r.wl.id
    ]
    assert got == [8.2, 9.1, 8.2, 8.3, 9.0, 9.3, 10.0, 0.8, 1.9]


def test_narayanan_set_within_10_percent() -> None:
    for run in (r for r in runs() if r.design.name == NARAYANAN):
        assert abs(error(run)) <= 0.10, run.name


def test_strong_scaling_loses_efficiency() -> None:
    small, large = (
        prediction(r).mfu for r in runs() if r.design.name == MCORE and "strong" in r.wl.id
    )
    assert large < small


def test_fp8_runs_keep_attention_at_the_bf16_peak() -> None:
    """FP8 runs: attention at the BF16 peak and the casts paid; a BF16 machine is slower on the
    GEMMs only."""
    run = next(r for r in runs() if r.wl.precision == "fp8")
    bf16 = run.wl.model_copy(update={"precision": "bf16"})
    fp8_rate = prediction(run).tokens_per_second
    assert fp8_rate < prediction(run, bf16).tokens_per_second * 2


def test_uncertainty_bands_are_the_calibration_residuals() -> None:
    """dclint.projection.uncertainty's table is what the calibration runs give, per generation
    and class; when the model moves, this prints the table to paste."""
    from dclint.projection.uncertainty import (
        BANDS,
        DOMAINS,
        ENVELOPE,
        NATIVE_BANDS,
        NATIVE_DOMAINS,
        derive,
        derive_domains,
    )
    from dclint.projection.uncertainty import envelope as envelope_of

    for stack, bands, domains in ((False, BANDS, DOMAINS), (True, NATIVE_BANDS, NATIVE_DOMAINS)):
        mine = [r for r in runs() if r.native == stack]
        got = derive((r.generation, r.moe, error(r)) for r in mine)
        assert got == bands, f"{'NATIVE_' if stack else ''}BANDS = {got}"
        spans = derive_domains(
            (r.generation, r.moe, r.wl.software_in_effect.framework, r.wl.gpus) for r in mine
        )
        assert spans == domains, f"{'NATIVE_' if stack else ''}DOMAINS = {spans}"
    every = envelope_of(error(r) for r in runs())
    assert every == ENVELOPE, f"ENVELOPE = {every}"


def _held_out(q: float) -> tuple[int, int, dict[str, tuple[int, int]]]:
    """Runs whose published figure lies inside the band derived without their publication
    (leave one source out: one design file of tests/calibration/ at a time), of all runs, and
    per source. A class the other sources do not cover takes their envelope (as a prediction
    outside the calibration domain does)."""
    from dclint.projection.uncertainty import derive, envelope

    inside, total, per = 0, 0, {}
    errors = [(r, error(r)) for r in runs()]  # each run's, predicted once for every source
    sources = sorted({r.design.name for r in runs()})
    for source in sources:
        rest = [(r, e) for r, e in errors if r.design.name != source]
        bands = {
            stack: derive(((r.generation, r.moe, e) for r, e in rest if r.native == stack), q)
            for stack in (False, True)
        }
        wide = envelope(e for _, e in rest)
        held = [(r, e) for r, e in errors if r.design.name == source]
        hits = 0
        for r, e in held:
            low, high, _ = bands[r.native].get((r.generation, r.moe), wide)
            hits += low <= 1 + e <= high
        per[source] = (hits, len(held))
        inside, total = inside + hits, total + len(held)
    return inside, total, per


def test_the_80_percent_band_holds_leave_one_source_out() -> None:
    """The band's quantiles (BAND_QUANTILE: 10-90%, an 80% band) are the narrowest in steps of
    5% whose bands, derived without one publication's runs, contain the published figure of at
    least 80% of the runs left out: 66 of 82 (80.5%); 15-85% covers 64 (78.0%)."""
    from dclint.projection.uncertainty import BAND_QUANTILE

    inside, total, per = _held_out(BAND_QUANTILE)
    assert (inside, total) == (135, 157)
    assert per == {  # the coverage table of docs/performance-model.md
        "llm-foundry": (54, 54),
        "torchao-float8-h100": (3, 3),
        "torchtitan-h100": (12, 18),
        "megatron-bridge-25.11-b200": (3, 3),
        "megatron-bridge-25.11-gb200": (5, 5),
        "megatron-bridge-25.11-h100": (4, 5),
        "megatron-bridge-qwen3-b200": (3, 5),
        "megatron-bridge-qwen3-b300": (3, 5),
        "megatron-bridge-qwen3-gb200": (2, 7),
        "megatron-bridge-qwen3-gb300": (9, 10),
        "megatron-bridge-qwen3-h100": (5, 5),
        "megatron-core-0.8-h100": (10, 11),
        "mlperf-training-blackwell": (12, 16),
        "narayanan-2021-a100": (10, 10),
    }
    assert inside / total >= 0.80
    assert _held_out(BAND_QUANTILE + 0.05)[:2] == (130, 157)
    megatron = sum(h for k, (h, _) in per.items() if k not in PYTORCH)
    native = sum(h for k, (h, _) in per.items() if k in PYTORCH)
    assert (megatron, native) == (66, 69)  # of 82 and 75: each stack at least 80%


def test_every_point_estimate_lies_inside_its_band() -> None:
    """The band holds 1 (measured = predicted): GB200's Llama 3.1 405B of Megatron-Bridge,
    whose MFU of 0.509 lay above its band of 0.270-0.505 (the class's residuals all above 1)."""
    for r in runs():
        got = prediction(r)
        low, high = got.band.mfu(float(got.mfu.m_as("")))
        assert low <= float(got.mfu.m_as("")) <= high, r.name
        slow, shigh = got.band.step_time(got.step_time.m_as("s"))
        assert slow <= got.step_time.m_as("s") <= shigh, r.name


def table() -> list[tuple[str, str, float]]:
    """(run, preset, predicted / published - 1) for docs/performance-model.md."""
    return [(r.name, r.wl.software_in_effect.preset, error(r)) for r in runs()]


def _inputs(suffix: str) -> tuple[Arch, Layout, Machine, Software]:
    run = next(r for r in runs() if r.name.endswith(suffix))
    got = inputs(run.design, run.wl, run.hw, [])
    assert not isinstance(got, str), got
    return got


def test_the_expert_all_to_all_overlap_hides_under_the_paired_micro_batch() -> None:
    """H100's Qwen3 235B (ep 32 at the recipe's expert tp 1: 32 GPUs, 4 nodes): Megatron-Bridge's
    recipe overlaps the all-to-alls (moe_a2a_overlap); exposed they were 15.21 s of a 27.36 s
    step, overlapped what exceeds a layer's forward and backward (5.93 ms, the 4 local experts'
    host time included), the 2% SM share and the unpaired warm-up and cool-down chunks
    ((v - 1) p = 24 of m v = 512) stay: 6.87 s.
    A dense run's step does not depend on the setting."""
    a, lay, mac, sw = _inputs("h100: qwen3-235b-a22b-256")
    assert sw.overlap_ep
    on, off = step(a, lay, mac, sw), step(a, lay, mac, replace(sw, overlap_ep=False))
    assert off.ep == pytest.approx(15.2099, abs=1e-4)
    assert on.ep == pytest.approx(6.8737, abs=1e-4)
    assert on.time == pytest.approx(19.0247, abs=1e-4)
    assert off.time == pytest.approx(27.362, abs=1e-3)
    assert on.compute == off.compute
    a, lay, mac, sw = _inputs("h100: llama3-70b-64")
    assert step(a, lay, mac, sw) == step(a, lay, mac, replace(sw, overlap_ep=True))


def test_small_experts_pay_their_own_wave_quantization(monkeypatch: pytest.MonkeyPatch) -> None:
    """Transformer Engine runs a grouped GEMM as one cuBLAS GEMM an expert over 4 streams: H100's
    Qwen3 30B (16 local experts of 768) computes 7.9536 s a step with its experts graphed (no
    host time), 7.9161 s were all 16 experts' tiles pooled in one wave schedule."""
    import dclint.projection.step.model as step_module

    a, lay, mac, sw = _inputs("h100: qwen3-30b-a3b-16")
    sw = replace(sw, graphed_experts=True)
    assert step(a, lay, mac, sw).compute == pytest.approx(7.9536, abs=1e-4)
    monkeypatch.setattr(step_module, "GEMM_STREAMS", 10**6)
    assert step(a, lay, mac, sw).compute == pytest.approx(7.9161, abs=1e-4)


def test_eager_experts_wait_for_the_host() -> None:
    """Eager dropless experts (no full-iteration graph): a pass takes at least the host time of
    its local experts' GEMMs, 2 x 74 us forward and 4 x 74 us backward an expert, overlapped
    with the GEMMs themselves. H100's Qwen3 30B (16 local experts) has 2.368 ms forward, 4.736 ms
    backward of host work a layer against 0.44 ms and 0.93 ms of expert GEMMs; the step grows
    from 7.9536 s of compute to 12.3609 s. The full-iteration graph removes the term."""
    from dclint.projection.step.model import _layer_pass

    a, lay, mac, sw = _inputs("h100: qwen3-30b-a3b-16")
    eager, graphed = (
        _layer_pass(a, lay, mac, sw),
        _layer_pass(a, lay, mac, replace(sw, graphed_experts=True)),
    )
    assert step(a, lay, mac, sw).compute == pytest.approx(12.3609, abs=1e-4)
    assert eager.fwd - graphed.fwd == pytest.approx(2.368e-3 - 0.4388e-3, abs=1e-7)
    assert eager.bwd - graphed.bwd == pytest.approx(4.736e-3 - 0.9264e-3, abs=1e-7)


def test_the_host_term_recomputed_and_hidden() -> None:
    """Full recomputation issues the eager experts' GEMMs again: H100's Qwen3 30B pays the
    forward's 1.9292 ms of host time a layer twice. One large local expert a GPU (the
    moe-1.7t sample: 128 experts over ep 128) issues its 2 forward GEMMs in 148 us, under
    their own time on the GPU: nothing added."""
    from dclint.loader import load
    from dclint.projection.step.model import _layer_pass

    a, lay, mac, sw = _inputs("h100: qwen3-30b-a3b-16")
    full = replace(lay, recompute="full")
    graphed = replace(sw, graphed_experts=True)
    eager, captured = _layer_pass(a, full, mac, sw), _layer_pass(a, full, mac, graphed)
    assert eager.fwd - captured.fwd == pytest.approx(1.9292e-3, abs=1e-7)
    assert eager.rec - captured.rec == pytest.approx(1.9292e-3, abs=1e-7)
    design = load(ROOT / "sample_designs" / "moe-1.7t-nvl72.yaml")
    hw = hardware_of(design, design.workloads[0].platform)
    assert not isinstance(hw, str)
    got = inputs(design, design.workloads[0], hw, [])
    assert not isinstance(got, str)
    a, lay, mac, sw = got
    assert a.experts // lay.ep == 1
    eager = _layer_pass(a, lay, mac, sw)
    captured = _layer_pass(a, lay, mac, replace(sw, graphed_experts=True))
    assert (eager.fwd, eager.bwd) == (captured.fwd, captured.bwd)


def published_mfu(run: Run) -> float:
    """The run's published MFU on model FLOPs as it counts them: the prediction's MFU over the
    predicted-to-published throughput ratio (the same for MFU, HFU and tokens a second)."""
    return float(prediction(run).mfu.m_as("")) / ratio(run)


def test_mfu_ceilings_are_the_calibration_runs_best() -> None:
    """dclint.projection.uncertainty's CEILINGS: per generation and class, the highest MFU a
    calibration run published; when the runs change, this prints the table to paste."""
    from dclint.projection.uncertainty import CEILINGS, derive_ceilings

    # the Megatron-family runs: PyTorch-native FSDP runs of small models on 8 GPUs (MPT 7B at
    # 61.7% on A100) are not the layouts `plan` ranks (docs/performance-model.md)
    got = derive_ceilings(
        (r.generation, r.moe, published_mfu(r), r.name) for r in runs() if not r.native
    )
    assert got == CEILINGS, f"CEILINGS = {got}"


def _native(stem: str, wid: str) -> Run:
    return next(r for r in runs() if r.design.name == stem and r.wl.id == wid)


def test_pytorch_native_runs_as_measured() -> None:
    """The PyTorch-native set (TorchTitan's and torchao's tables on power-capped H100,
    llm-foundry's MPT tables on H100 and A100): mean absolute error 18.2% over 75 runs, 45
    within 15%; A100's 27 at 8.5%; the H100 runs over-predicted but one (+6% to +72%:
    docs/performance-model.md, PyTorch-native runs)."""
    native = [r for r in runs() if r.design.name in PYTORCH]
    errors = [abs(error(r)) for r in native]
    assert len(errors) == 75
    assert round(100 * sum(errors) / len(errors), 1) == 18.2
    assert sum(e <= 0.15 for e in errors) == 45
    a100 = [abs(error(r)) for r in native if r.generation == "ampere"]
    assert (len(a100), round(100 * sum(a100) / len(a100), 1)) == (27, 8.5)


def test_torchtitan_and_torchao_rows_as_the_docs_tables() -> None:
    """docs/performance-model.md, PyTorch-native runs: each TorchTitan and torchao row's
    predicted over published throughput - 1, in the files' order, on the 500 W H100 (the
    tensor cores at (500 / 700)^(1/3) of Hopper's measured rate)."""
    got = [
        round(100 * error(r), 1)
        for r in runs()
        if r.design.name in ("torchtitan-h100", "torchao-float8-h100")
    ]
    assert got == [
        6.0, 9.5, 8.6, 7.6, 10.4, 8.5,  # 8B FSDP, compile, Float8 on 8 and 128 GPUs
        22.0, 17.3, 59.3, 68.0,  # 8B at 32K to 256K
        -6.7, 12.4,  # 70B, AsyncTP
        28.5, 29.4, 24.7, 49.4, 49.2, 71.8,  # 405B
        13.1, 14.3, 27.0,  # torchao: bf16, tensorwise, rowwise
    ]  # fmt: skip


def test_single_settings_gain_as_the_docs_say() -> None:
    """The model's gain from one setting between two published rows of the same layout
    (docs/performance-model.md): torch.compile on 8B (8 and 128 GPUs; published +15.7%,
    +16.2%), Float8 over compile (+28.0%, +28.6%), AsyncTP on 70B (+5.7%), interleaved 1F1B on
    405B (+28.0%), torchao's tensorwise Float8 and rowwise over bf16 (+25.0%, +10.1%)."""

    def gain(stem: str, base: str, other: str) -> float:
        a, b = _native(stem, base), _native(stem, other)
        return round(
            100
            * float(
                prediction(b).tokens_per_second
                / b.wl.gpus
                / (prediction(a).tokens_per_second / a.wl.gpus)
                - 1
            ),
            1,
        )

    tt, ao = "torchtitan-h100", "torchao-float8-h100"
    got = [
        gain(tt, f"llama31-8b-{n}-fsdp{a}", f"llama31-8b-{n}-fsdp{b}")
        for a, b in (("", "-compile"), ("-compile", "-compile-float8"))
        for n in (8, 128)
    ]
    assert got == [19.5, 19.2, 26.9, 26.4]
    assert gain(tt, "llama31-70b-256-2d", "llama31-70b-256-2d-asynctp") == 27.2
    assert gain(tt, "llama31-405b-512-1f1b", "llama31-405b-512-interleaved") == 28.9
    assert gain(ao, "llama3-8b-bf16", "llama3-8b-tensorwise-fp8-all-gather") == 26.4
    assert gain(ao, "llama3-8b-bf16", "llama3-8b-rowwise") == 23.6


@pytest.mark.xfail(strict=True, reason="18.2% (docs/performance-model.md, PyTorch-native runs)")
def test_mean_absolute_error_at_most_8_percent_on_the_pytorch_native_runs() -> None:
    errors = [abs(error(r)) for r in runs() if r.design.name in PYTORCH]
    assert sum(errors) / len(errors) <= 0.08


def test_fsdp_throughput_a_gpu_falls_from_8_to_128_gpus() -> None:
    """TorchTitan's Llama 3.1 8B, FSDP over 8 and 128 GPUs (Tables 1 and 3): published -2.7%,
    -2.3%, -1.8% (eager, compiled, compiled with Float8); the model's per-block collectives
    cross the network at 128 and hold NCCL's SMs longer (FSDP_SM_SHARE): a fall too."""
    for name in ("fsdp", "fsdp-compile", "fsdp-compile-float8"):
        eight = _native("torchtitan-h100", f"llama31-8b-8-{name}")
        more = _native("torchtitan-h100", f"llama31-8b-128-{name}")
        published = float(more.wl.tokens_per_second / 128 / (eight.wl.tokens_per_second / 8))
        predicted = float(
            prediction(more).tokens_per_second / 128 / (prediction(eight).tokens_per_second / 8)
        )
        assert published < 1 and predicted < 1, name
    got = [
        round(
            100
            * float(
                prediction(_native("torchtitan-h100", f"llama31-8b-128-{n}")).tokens_per_second
                / 16
                / prediction(_native("torchtitan-h100", f"llama31-8b-8-{n}")).tokens_per_second
                - 1
            ),
            1,
        )
        for n in ("fsdp", "fsdp-compile", "fsdp-compile-float8")
    ]
    assert got == [-1.3, -1.5, -1.9]


def test_405b_from_8k_to_32k_is_slower_a_token() -> None:
    """TorchTitan's Llama 3.1 405B on 512 H100 (tp 8, pp 8, FSDP 8, 1F1B, 8 micro-batches
    of 32,768 tokens): 100 tokens/s a GPU at 8,192 (Table 5) and 76 at 32,768 (Table 6),
    -24%. Attention's quadratic cost, FSDP gathering once a step under PP: the model gives
    -26.2% (-25.2% regathering every micro-batch, which costs the 8K run more)."""
    short = _native("torchtitan-h100", "llama31-405b-512-1f1b")
    long = _native("torchtitan-h100", "llama31-405b-512-cp1-32k")
    change = float(prediction(long).tokens_per_second / prediction(short).tokens_per_second)
    assert round(100 * (change - 1), 1) == -26.2
    zero3 = [
        r.wl.model_copy(
            update={
                "software": r.wl.software.model_copy(
                    update={"sharding": Sharding(kind="fsdp", reshard_after_forward=True)}
                )
            }
        )
        for r in (short, long)
    ]
    regather = float(
        prediction(long, zero3[1]).tokens_per_second / prediction(short, zero3[0]).tokens_per_second
    )
    assert round(100 * (regather - 1), 1) == -25.2


def test_hsdp_shards_inside_a_node_and_all_reduces_across() -> None:
    """HSDP with shard groups of 8 (one node) on 128 GPUs: the gathers stay on NVLink and the
    gradients are all-reduced across the 16 groups; its data-parallel time differs from FSDP's
    over all 128."""
    run = _native("torchtitan-h100", "llama31-8b-128-fsdp")
    hsdp = run.wl.model_copy(
        update={
            "software": run.wl.software.model_copy(
                update={"sharding": Sharding(kind="hsdp", shard_group=8)}
            )
        }
    )
    full, grouped = prediction(run), prediction(run, hsdp)
    assert grouped.step.dp != full.step.dp
    assert grouped.step.compute == full.step.compute
