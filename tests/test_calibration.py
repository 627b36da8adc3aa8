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

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

import pytest

from conftest import ROOT
from dclint.loader import load_text
from dclint.model.design import Design
from dclint.model.software import Sharding
from dclint.model.workload import Workload
from dclint.projection.efficiency import GENERATION, SDPA_SOURCE
from dclint.projection.hardware import Hardware, hardware_of
from dclint.projection.predict import Prediction, inputs, predict
from dclint.projection.step.model import (
    Arch,
    Layout,
    Machine,
    Software,
    _last_bucket,
    stage_steps,
    step,
)

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
    # GPT-OSS 120B on H100 across NeMo releases: the 25.11 preset, the recipe's settings
    "megatron-bridge-gpt-oss-h100": "nemo-25.11",
    # the Megatron-Core MoE README's Mixtral 8x7B on H100 (MCore v0.8 and v0.9)
    "megatron-core-moe-h100": "megatron-core-0.8",
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
        """A PyTorch-native run (its own domains: uncertainty.NATIVE_DOMAINS)."""
        from dclint.projection.uncertainty import native

        return native(self.wl.software_in_effect.framework)

    @property
    def in_domain(self) -> bool:
        """Inside its class's calibration domain: not PyTorch's context parallel beyond the
        rings the model holds (uncertainty.native_cp_outside; its band is the envelope)."""
        from dclint.projection.uncertainty import native_cp_outside

        cp = self.wl.parallel.cp or 1
        return not native_cp_outside(self.wl.software_in_effect.framework, cp)

    @property
    def generation(self) -> str:
        return GENERATION.get(self.hw.gpu_key, self.hw.family)

    @property
    def micro_batches(self) -> int:
        """Micro-batches a step per data-parallel rank, as the prediction takes them."""
        _, layout, _, _ = _run_inputs(self)
        return layout.global_batch // (layout.dp * layout.micro_batch)


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


_INPUTS: dict[str, tuple[Arch, Layout, Machine, Software]] = {}


def _run_inputs(run: Run) -> tuple[Arch, Layout, Machine, Software]:
    """The step model's inputs of a calibration run, as `predict` takes them (once a run)."""
    if run.name not in _INPUTS:
        got = inputs(run.design, run.wl, run.hw, [])
        assert not isinstance(got, str), got
        _INPUTS[run.name] = got
    return _INPUTS[run.name]


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
# (+39% at micro-batch 1 with the overlap, -21% at micro-batch 2 without); see
# docs/performance-model.md, MoE throughput across NeMo releases. B200's 235B of 26.02 and
# 26.04.01, out of 15% since the output layer's GEMMs ran at the BF16 rate in FP8 runs
# (-17.6%, -17.0%), are back within since the step is timed on the stage that binds when the
# embedding and the loss count in the pipeline split (-12.8%, -12.1%: the last stage's 11
# layers and the head, not 11.75 and the head; docs/performance-model.md, The binding
# pipeline stage). Within 15% since the GEMMs run at a layer's shapes back to back
# (efficiency.AT_LAYER, Transformer Engine's GEMM profiling guide): Megatron-Core's 177B on 96
# H100 (+15.5% -> +9.7%), the MoE README's Mixtral 8x7B at v0.8 (+18.2% -> +12.7%) and MLPerf's
# Llama 3.1 8B on 256 B200 (+19.5% -> +14.5%). Out of 15% since the head is charged Transformer
# Engine's fused cross-entropy (FUSED_CROSS_ENTROPY_BYTES, 10 B a logit, not the unfused 52,
# where the preset declares it): MLPerf's 8B on 256 B200 (+14.5% -> +16.6%) and H100's Qwen3
# 235B of 25.11 (+11.4% -> +15.3%, then +18.6% once its MoE layers lost the dense MLP's two tp
# collectives a pass, model._tp_comm).
MISSES = {
    "megatron-bridge-25.11-h100: qwen3-235b-a22b-256",
    "mlperf-training-blackwell: llama31-8b-256-v5.1-uf",
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
    "mlperf-training-blackwell: llama31-8b-512-v5.1-tyche",
    "mlperf-training-blackwell: llama31-8b-512-v5.1-theia",
}


def _cases() -> list[object]:
    miss = pytest.mark.xfail(strict=True, reason="known miss (docs/performance-model.md)")
    return [
        pytest.param(r, id=r.name, marks=[miss] if r.name in MISSES else [])
        for r in runs()
        if r.design.name not in PYTORCH
    ]


def test_every_calibration_run_names_its_publications_preset() -> None:
    assert len(runs()) == 164
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


def test_mean_absolute_error_on_every_dense_run() -> None:
    """8.12%, above the 8% the Megatron-family dense runs were held to: 7.99% before the head was
    charged Transformer Engine's fused cross-entropy where the preset declares it (10 B a logit,
    FUSED_CROSS_ENTROPY_BYTES, not Megatron's unfused 52), which moves MLPerf's Llama 3.1 8B runs
    up by about 2 points (the Megatron-family runs above: 6.57% -> 6.47%); 8.96% before the step
    model timed the stage that binds when the embedding and the loss count in the pipeline split
    (MLPerf's and Megatron-Bridge's Llama 3.1 405B runs)."""
    errors = [abs(error(r)) for r in runs() if not r.moe and r.design.name not in PYTORCH]
    assert len(errors) == 45
    assert round(100 * sum(errors) / len(errors), 2) == 8.14


def test_mlperf_llama_405b_runs_to_the_tenth_of_a_percent() -> None:
    """MLPerf's Llama 3.1 405B runs, many micro-batches a step: GB200 from 256 to 2,496 GPUs
    from -0.9% to +1.0% (the model loses 4% per GPU over that range, the runs 6%), B200 at 256
    and 448 GPUs under-predicted by 6.5% and 5.5% (-0.9% to +0.9% on GB200 before the head was
    charged Transformer Engine's fused cross-entropy, FUSED_CROSS_ENTROPY_BYTES). Before the step
    was timed on the stage that
    binds (126 layers + the embedding and the loss over pp 8: 16 layers on the middle stages,
    15 and the head on the last, not 15.75 and the head): -4.9% to -3.1%, -9.6% and -8.6%."""
    got = [
        round(100 * error(r), 1) for r in runs() if r.design.name == MLPERF and "405b" in r.wl.id
    ]
    assert got == [-0.7, 0.2, -0.6, -0.4, 0.2, 0.5, 1.2, -6.5, -5.5]


def test_the_last_gradient_bucket_holds_the_embedding_and_runs_outside_the_passes() -> None:
    """Megatron-Core's DDP fills buckets of whole parameters in the backward's order and closes
    one at bucket_size or more; the last, the embedding's, is reduced after the backward and
    gathered before the next forward. MLPerf's GB200 8B on 512 GPUs (tp 2, the config's 768M
    buckets): the output layer's 263M shard opens the order, each layer adds 109M; the last
    bucket holds layers 0-4, layer 5's fc1, qkv and proj, and the embedding's shard. Its
    collectives put the data-parallel term at 11.57 ms (9.64 ms with Megatron-Core's default
    buckets, max(4e7, 1e6 x 256); 12.46 and 10.53 ms at MAMF's GEMM rates, whose shorter
    backward hid less); one bucket of every parameter exposes it all, as without the
    overlap."""
    a, lay, mac, sw = _inputs("llama31-8b-512-v5.1-tyche")
    assert sw.bucket_params == 768e6 and (lay.tp, lay.dp * lay.cp) == (2, 256)
    layer = 4096 * (14336 + 2 * 14336 + 4096 + 2 * 1024 + 4096) // 2
    embedding = 128256 * 4096 // 2
    assert layer == 109_051_904
    last = 5 * layer + (2 * 14336 + 4096 + 2 * 1024 + 4096) * 4096 // 2 + embedding
    assert _last_bucket(a, lay, sw.bucket_params) == last == 887_619_584
    assert step(a, lay, mac, sw).dp == pytest.approx(11.2617e-3, abs=1e-7)
    assert step(a, lay, mac, replace(sw, bucket_params=0.0)).dp == pytest.approx(
        9.3332e-3, abs=1e-7
    )
    whole = step(a, lay, mac, replace(sw, bucket_params=1e12)).dp
    assert whole == pytest.approx(step(a, lay, mac, replace(sw, overlap_dp=False)).dp, abs=1e-6)
    # a first stage of 16 layers (pp 2, no output layer): 7 layers and the 8th's fc2 close the
    # first bucket (792.7M), the rest of the 8th, 6 layers and the 15th's fc2 and fc1 the
    # second (822.1M); the 15th's qkv and proj, the 16th and the embedding are the last
    qkv, proj = (4096 + 2 * 1024) * 4096 // 2, 4096 * 4096 // 2
    assert _last_bucket(a, replace(lay, pp=2), sw.bucket_params) == (qkv + proj + layer + embedding)


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
    """dclint.projection.uncertainty's tables are what the calibration runs give: the band per
    generation and the pooled one over every publication's runs inside their domain, the
    domains per stack, generation and class; when the model moves, this prints the table to
    paste."""
    from dclint.projection.uncertainty import (
        BANDS,
        DOMAINS,
        ENVELOPE,
        NATIVE_DOMAINS,
        POOLED,
        derive,
        derive_domains,
    )
    from dclint.projection.uncertainty import envelope as envelope_of

    got = derive((r.generation, r.design.name, error(r)) for r in runs() if r.in_domain)
    assert got == (BANDS, POOLED), f"BANDS, POOLED = {got}"
    for stack, domains in ((False, DOMAINS), (True, NATIVE_DOMAINS)):
        mine = [r for r in runs() if r.native == stack and r.in_domain]
        spans = derive_domains(
            (r.generation, r.moe, r.wl.software_in_effect.framework, r.wl.gpus) for r in mine
        )
        assert spans == domains, f"{'NATIVE_' if stack else ''}DOMAINS = {spans}"
    every = envelope_of(error(r) for r in runs())
    assert every == ENVELOPE, f"ENVELOPE = {every}"
    # the envelope, the band outside the domain, is at least as wide as every band
    for low, high, _, _ in (*BANDS.values(), POOLED):
        assert ENVELOPE[0] <= low and high <= ENVELOPE[1]
    # the fits behind them, as docs/performance-model.md's table prints them: exp(μ), τ and s
    # in log ratio, t
    from dclint.projection.uncertainty import fit

    groups: dict[str, dict[str, list[float]]] = {}
    for r in runs():
        if r.in_domain:
            x = math.log(1 + error(r))
            groups.setdefault(r.generation, {}).setdefault(r.design.name, []).append(x)
            groups.setdefault("all", {}).setdefault(r.design.name, []).append(x)
    table = {}
    for g in ("hopper", "blackwell", "all"):
        f = fit(list(groups[g].values()))
        assert f is not None
        table[g] = (
            f.publications,
            f.runs,
            round(math.exp(f.mu), 3),
            round(math.sqrt(f.tau2), 3),
            round(math.sqrt(f.s2), 3),
            round(f.t, 3),
        )
    assert table == {
        "hopper": (8, 72, 1.048, 0.06, 0.113, 1.44),
        "blackwell": (7, 51, 0.986, 0.054, 0.136, 1.476),
        "all": (16, 160, 1.014, 0.051, 0.113, 1.345),
    }
    # docs/performance-model.md's table (Residual bands) prints the bands and these fits
    rows = {row[0].split(",")[0]: row[1:9] for row in _docs_table("| generation | low | high |")}
    for name, g, (low, high, _, _) in (
        ("Hopper", "hopper", BANDS["hopper"]),
        ("Blackwell", "blackwell", BANDS["blackwell"]),
        ("all", "all", POOLED),
    ):
        pubs, n, mu, tau, s, t = table[g]
        cells = [low, high, n, pubs, mu, tau, s, f"{t} ({pubs - 2} df)"]
        assert rows[name] == [str(c) for c in cells], name
    assert rows["outside a class's domain"][:3] == [*map(str, ENVELOPE[:2]), f"all {ENVELOPE[2]}"]
    means = {
        name: round(math.exp(sum(x) / len(x)), 3)
        for g in ("hopper", "blackwell")
        for name, x in groups[g].items()
    }
    assert means["megatron-core-0.8-h100"] == 0.907
    assert min(means[k] for k in PYTORCH) == 1.042 and max(means[k] for k in PYTORCH) == 1.057
    # the publications of each generation: Ampere's two (Narayanan et al.'s and llm-foundry's
    # A100 rows) are under MIN_SOURCES, so Ampere takes POOLED; llm-foundry spans two
    publications: dict[str, set[str]] = {}
    for r in runs():
        publications.setdefault(r.generation, set()).add(r.design.name)
    assert {g: len(p) for g, p in publications.items()} == {
        "ampere": 2,
        "blackwell": 7,
        "hopper": 8,
    }
    assert (BANDS["hopper"][3], BANDS["blackwell"][3], POOLED[3]) == (8, 7, 16)


def _held_out(q: float) -> tuple[int, int, dict[str, tuple[int, int]], tuple[int, int]]:
    """Runs whose published figure lies inside the band derived without their publication
    (leave one source out: one design file of tests/calibration/ at a time), of all runs, per
    source, and of the runs a generation's own band (not the pooled one, not the envelope)
    judged. A generation the other publications cover with under MIN_SOURCES takes their
    pooled band; a run outside its class's domain (PyTorch's context parallel beyond the rings
    the model holds) takes the others' envelope and adds nothing to their bands."""
    from dclint.projection.uncertainty import derive, envelope

    inside, total, per, banded = 0, 0, {}, (0, 0)
    errors = [(r, error(r)) for r in runs()]  # each run's, predicted once for every source
    sources = sorted({r.design.name for r in runs()})
    for source in sources:
        rest = [(r, e) for r, e in errors if r.design.name != source]
        bands, pooled = derive(
            ((r.generation, r.design.name, e) for r, e in rest if r.in_domain), q
        )
        assert pooled is not None
        wide = envelope(e for _, e in rest)
        held = [(r, e) for r, e in errors if r.design.name == source]
        hits = 0
        for r, e in held:
            own = bands.get(r.generation) if r.in_domain else None
            low, high = (own or pooled)[:2] if r.in_domain else wide[:2]
            hits += low <= 1 + e <= high
            if own:
                banded = (banded[0] + (low <= 1 + e <= high), banded[1] + 1)
        per[source] = (hits, len(held))
        inside, total = inside + hits, total + len(held)
    return inside, total, per, banded


def test_the_80_percent_band_holds_leave_one_source_out() -> None:
    """The band (the random-effects prediction interval over publications, 10% a side: an 80% band):
    bands derived without one publication's runs contain the published figure of 147 of 164 runs
    left out (89.6%; the run-level split-conformal bands per generation, stack and class used
    before held 150: test_the_run_level_bands_before_hold_fewer_of_new_publications_runs).
    By stack, the Megatron-family runs 74 of 89 (83.1%), the PyTorch-native runs 73 of 75
    (97.3%): each at least 80%, the coverage issue 51 asks of an 80% band. A generation's own
    band judged 123 runs and held 107 (87.0%); the pooled band the 37 A100 runs (Ampere has 2
    publications, 1 left without the run's own, under MIN_SOURCES) and held 36; the envelope
    TorchTitan's 4 rows at context parallel above 2, all inside. Misses (predicted over
    published - 1): Megatron-Core 0.8's H100 runs 7 of 11 (-10.4% to -27.8%, under the
    0.904-1.253 of the other Hopper publications: their micro-batch and interleaving are
    assumed), MLPerf's 8B on 512 GB200 and GB300 and on 256 B200 (+62.8%, +65.9%, +17.0%),
    above the 0.805-1.16 of the other Blackwell publications, Qwen3 30B on 16 H100 of 25.11
    and 26.02 (+99.4%, +41.2%), the Qwen3 releases on B300 once (the 235B of 26.02, +38.6%),
    GB300 once (the 30B of 25.11, -25.9%) and B200 once (the 30B of 26.04.01, -21.7%),
    llm-foundry's MPT-30B at 8K on A100 and H100 (+31.7%, +33.8%). On runs of publications
    outside the calibration set the run-level bands held 67%, these 95%
    (test_the_band_holds_the_validation_runs)."""
    from dclint.projection.uncertainty import BAND_QUANTILE

    inside, total, per, banded = _held_out(BAND_QUANTILE)
    assert (inside, total) == (147, 164)
    assert banded == (107, 123)
    assert per == {
        "llm-foundry": (52, 54),
        "megatron-bridge-25.11-b200": (3, 3),
        "megatron-bridge-25.11-gb200": (5, 5),
        "megatron-bridge-25.11-h100": (4, 5),
        "megatron-bridge-gpt-oss-h100": (5, 5),
        "megatron-bridge-qwen3-b200": (4, 5),
        "megatron-bridge-qwen3-b300": (4, 5),
        "megatron-bridge-qwen3-gb200": (7, 7),
        "megatron-bridge-qwen3-gb300": (9, 10),
        "megatron-bridge-qwen3-h100": (4, 5),
        "megatron-core-0.8-h100": (4, 11),
        "megatron-core-moe-h100": (2, 2),
        "mlperf-training-blackwell": (13, 16),
        "narayanan-2021-a100": (10, 10),
        "torchao-float8-h100": (3, 3),
        "torchtitan-h100": (18, 18),
    }
    megatron = [per[k] for k in per if k not in PYTORCH]
    native = [per[k] for k in per if k in PYTORCH]
    counts = [(sum(h for h, _ in s), sum(n for _, n in s)) for s in (megatron, native)]
    assert counts == [(74, 89), (73, 75)]
    # docs/performance-model.md's leave-one-out table prints these counts (runs, inside)
    printed = {row[0]: (row[1], row[2].split()[0]) for row in _docs_table("| publication left")}
    stacks = {"Megatron family": counts[0], "PyTorch-native": counts[1], "all": (inside, total)}
    assert printed == {k: (str(n), str(h)) for k, (h, n) in (per | stacks).items()}
    # the bands of the other publications that the misses meet
    from dclint.projection.uncertainty import derive

    for source, generation, band_ in (
        ("megatron-core-0.8-h100", "hopper", (0.904, 1.253)),
        ("mlperf-training-blackwell", "blackwell", (0.805, 1.16)),
    ):
        bands, _ = derive(
            (r.generation, r.design.name, error(r))
            for r in runs()
            if r.in_domain and r.design.name != source
        )
        assert bands[generation][:2] == band_
    # the 80% is over a generation's runs, not each class's: by stack, generation and class
    classes: dict[tuple[bool, str, bool], tuple[int, int]] = {}
    for source in sorted({r.design.name for r in runs()}):
        bands, pooled = derive(
            (r.generation, r.design.name, error(r))
            for r in runs()
            if r.in_domain and r.design.name != source
        )
        for r in runs():
            if r.design.name == source and r.in_domain:
                low, high, _, _ = bands.get(r.generation) or pooled or (0.0, 0.0, 0, 0)
                hits, n = classes.get((r.native, r.generation, r.moe), (0, 0))
                hit = low <= 1 + error(r) <= high
                classes[(r.native, r.generation, r.moe)] = (hits + hit, n + 1)
    assert classes == {
        (True, "hopper", False): (43, 44),
        (True, "ampere", False): (26, 27),
        (False, "blackwell", False): (18, 21),
        (False, "blackwell", True): (27, 30),
        (False, "hopper", False): (7, 14),
        (False, "hopper", True): (12, 14),
        (False, "ampere", False): (10, 10),
    }
    for hits, runs_ in (*counts, (inside, total), banded):  # the 80% the band is for
        assert hits / runs_ >= 1 - 2 * BAND_QUANTILE


def test_the_random_effects_interval_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """Student's t quantiles against the printed tables (0.90: 3.078 on 1 degree of freedom,
    1.886 on 2, 1.476 on 5, 1.372 on 10, 1.310 on 30); the interval of three publications
    worked by hand; under MIN_SOURCES publications no interval, and a generation with a
    domain but under MIN_SOURCES publications takes the pooled band, saying so."""
    import dclint.projection.uncertainty as uncertainty
    from dclint.projection.uncertainty import MIN_SOURCES, POOLED, band, interval, t_quantile

    assert [round(t_quantile(0.9, df), 3) for df in (1, 2, 5, 10, 30)] == [
        3.078, 1.886, 1.476, 1.372, 1.31,
    ]  # fmt: skip
    assert MIN_SOURCES == 3
    # three publications of two runs each, means -0.1, 0 and 0.1, each run 0.05 off its mean:
    # s² = 6 x 0.0025 / 3 = 0.005, v = 0.0025, w = 400 each; Q = 400 x 0.02 = 8, τ² = (8 - 2)
    # / (1200 - 400) = 0.0075; μ = 0, se² = (0.0025 + 0.0075) / 3; t on 1 degree of freedom
    got = interval([[-0.15, -0.05], [-0.05, 0.05], [0.05, 0.15]])
    assert got is not None
    half = t_quantile(0.9, 1) * math.sqrt(0.0075 + 0.01 / 3 + 0.005)
    assert got == pytest.approx((-half, half), abs=1e-12)
    assert interval([[-0.1, 0.1], [0.0, 0.2]]) is None
    # the generation's own band, then, without it, the pooled one, and why
    hopper = band("hopper", True, "megatron-core", 64)
    assert (hopper.outside, hopper.low_factor, hopper.high_factor, hopper.runs) == (
        (),
        0.868,
        1.266,
        72,
    )
    monkeypatch.delitem(uncertainty.BANDS, "hopper")
    under = band("hopper", True, "megatron-core", 64)
    assert (under.outside, under.low_factor, under.high_factor, under.runs) == (
        (),
        *POOLED[:3],
    )
    assert under.source == (
        "an 80% prediction interval of measured over predicted step time, for a run on a setup "
        "other than dclint's calibration sources (random effects over 160 runs from all 16 "
        "published benchmarks: the Hopper runs come from fewer than the 3 a generation's own "
        "interval needs), dclint's calibration residuals (docs/performance-model.md)"
    )
    assert hopper.source == (
        "an 80% prediction interval of measured over predicted step time, for a run on a setup "
        "other than dclint's calibration sources (random effects over 72 runs from 8 published "
        "Hopper benchmarks), dclint's calibration residuals (docs/performance-model.md)"
    )


def test_the_random_effects_fit_by_hand() -> None:
    """Three publications of 2, 2 and 4 runs, worked by hand: A 0.1, 0.3 (mean 0.2), B -0.1,
    0.1 (0), C -0.3, -0.1, -0.3, -0.1 (-0.2). s² = (0.02 + 0.02 + 0.04) / (1 + 1 + 3) = 0.016;
    fixed weights n / s² = 125, 125, 250, their mean -0.05, Q = 125 x 0.0625 + 125 x 0.0025 +
    250 x 0.0225 = 13.75, τ² = (13.75 - 2) / (500 - 93,750 / 500) = 0.0376; random weights
    1 / 0.0456, 1 / 0.0456, 1 / 0.0416, so μ leans to C (not the unweighted 0, not the fixed
    -0.05). Publications whose means agree: τ² clipped at 0 and se² = s² / Σn. Publications of
    one run each (no spread within measured): τ² is the means' sample variance, weighted
    alike. A miss share outside (0, 0.5) is refused."""
    from dclint.projection.uncertainty import fit, t_quantile

    got = fit([[0.1, 0.3], [-0.1, 0.1], [-0.3, -0.1, -0.3, -0.1]])
    assert got is not None
    weights = (1 / 0.0456, 1 / 0.0456, 1 / 0.0416)
    assert (got.publications, got.runs, got.t) == (3, 8, t_quantile(0.9, 1))
    assert (got.s2, got.tau2) == (pytest.approx(0.016), pytest.approx(0.0376))
    assert got.mu == pytest.approx((0.2 * weights[0] - 0.2 * weights[2]) / sum(weights))
    assert got.se2 == pytest.approx(1 / sum(weights))
    assert round(got.mu, 5) == -0.00621
    alike = fit([[0.0, 0.2], [0.2, 0.0], [0.1, 0.1]])
    assert alike is not None
    assert (alike.tau2, alike.mu) == (0.0, pytest.approx(0.1))
    assert (alike.s2, alike.se2) == (pytest.approx(0.04 / 3), pytest.approx(0.04 / 3 / 6))
    single = fit([[0.0], [0.1], [0.2]])
    assert single is not None
    assert (single.s2, single.mu) == (0.0, pytest.approx(0.1))
    assert (single.tau2, single.se2) == (pytest.approx(0.01), pytest.approx(0.01 / 3))
    for q in (0.0, 0.5):
        with pytest.raises(ValueError):
            fit([[0.0], [0.1], [0.2]], q)


def _printed(text: str) -> str:
    """`text` with its line breaks and runs of spaces as single spaces (prose wraps anywhere)."""
    return " ".join(text.split())


def _method_rows() -> list[list[str]]:
    """docs/performance-model.md's table of band methods (Residual bands), one list of cells a
    row (bold removed), in its order: the run-level bands before, then _methods()'s."""
    return _docs_table("| method (a run outside")


def _docs_table(header: str) -> list[list[str]]:
    """The rows of the docs/performance-model.md table whose header line starts `header`, one
    list of cells a row (bold removed)."""
    lines = (ROOT / "docs" / "performance-model.md").read_text().splitlines()
    start = next(i for i, t in enumerate(lines) if t.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip().strip("*") for c in line.split("|")[1:-1]])
    return rows


def _split_conformal(
    ratios: dict[tuple[bool, str, bool], list[float]],
) -> dict[tuple[bool, str, bool], tuple[float, float]]:
    """The bands before (dclint 2026-12-07, b9a6f67): per stack, generation and class, of n
    ratios sorted the k-th from each end, k = ceil((n + 1) x 0.9), widened to hold 1 and
    rounded outward; no band under 9 runs."""
    out = {}
    for key, r in ratios.items():
        xs, k = sorted(r), math.ceil(round(len(r) * 0.9 + 0.9, 9))
        if k <= len(xs):
            low, high = min(xs[len(xs) - k], 1.0), max(xs[k - 1], 1.0)
            out[key] = (math.floor(low * 1e3) / 1e3, math.ceil(high * 1e3) / 1e3)
    return out


def test_the_run_level_bands_before_hold_fewer_of_new_publications_runs() -> None:
    """What the random-effects bands replace, recomputed: the run-level split-conformal bands
    per stack, generation and class hold 149 of the 164 calibration runs left out one
    publication at a time (the random-effects bands 147), but 78 of the 110 runs of
    tests/validation/ (71%; 150 and 79, 72%, at fef8168, before NCCL 2.23's ring latency and
    gradient clipping; 78, 71%, before KempnerForge's cuDNN attention and bf16 AdamW; 74,
    67%, before Hopper's attention rates by sequence length and llm-foundry's padding copies;
    75, 68%, before KempnerForge's TP plan was declared as it ran)
    against their 105 (95%): the runs of one publication share their
    errors, and a new publication's runs are not exchangeable with the calibration runs. Their
    Hopper PyTorch-native band now 0.996-1.114 (1.0-1.121 before this round, a4d3cff). (When
    the random-effects bands were chosen, before issue 51's fourth round: 147 and 147 of 164,
    67 of 108 and 59 of 97 against 98 and 88.)"""
    from dclint.projection.uncertainty import envelope

    def key(r: Run) -> tuple[bool, str, bool]:
        return (r.native, r.generation, r.moe)

    errors = [(r, error(r)) for r in runs()]
    inside = 0
    for source in sorted({r.design.name for r in runs()}):
        rest = [(r, e) for r, e in errors if r.design.name != source]
        ratios: dict[tuple[bool, str, bool], list[float]] = {}
        for r, e in rest:
            if r.in_domain:
                ratios.setdefault(key(r), []).append(1 + e)
        bands, wide = _split_conformal(ratios), envelope(e for _, e in rest)
        for r, e in errors:
            if r.design.name == source:
                low, high = (bands.get(key(r)) if r.in_domain else None) or wide[:2]
                inside += low <= 1 + e <= high
    assert inside == 149
    ratios = {}
    for r, e in errors:
        if r.in_domain:
            ratios.setdefault(key(r), []).append(1 + e)
    bands, wide = _split_conformal(ratios), envelope(e for _, e in errors)
    assert bands[(True, "hopper", False)] == (0.996, 1.114)
    held, now, widths = 0, 0, []
    for stem in _validation_stems():
        for r in _validation(stem).values():
            got, ratio = prediction(r).band, 1 + error(r)
            own = None if got.outside else bands.get(key(r))
            low, high = own or wide[:2]
            held += low <= ratio <= high
            now += got.low_factor <= ratio <= got.high_factor
            widths.append(high / low)
    # and the median width of their bands (docs/performance-model.md's table: x1.12)
    assert (held, now, round(statistics.median(widths), 2)) == (78, 105, 1.12)
    # the table's first row and the held-out paragraph print these figures
    pct = round(100 * held / len(widths))
    row = _method_rows()[0][-4:]  # the last four cells: a method's name may hold an escaped |
    width = f"x{round(statistics.median(widths), 2)}"
    assert (row[0], row[2], row[3]) == (str(inside), f"{held} ({pct}%)", width)
    docs = _printed((ROOT / "docs" / "performance-model.md").read_text())
    assert (
        f"holds {now} ({round(100 * now / len(widths))}%; the run-level bands before held" in docs
    )
    assert f"the run-level bands before held {held}, {pct}%)" in docs


_Band = tuple[float, float] | None


def _methods() -> dict[
    str, tuple[Callable[[list[tuple[str, float]]], tuple[float, float] | None], tuple[str, ...]]
]:
    """The band methods docs/performance-model.md compares (Residual bands): name -> (a band
    from (publication, log ratio) per run of a group, or None; the groupings tried in turn,
    the envelope after the last). A band is rounded outward to 3 places and holds 1."""
    from dclint.projection.uncertainty import _outward, fit

    def symmetric(rs: list[tuple[str, float]]) -> tuple[float, float] | None:
        # the conformal quantile of |ln r| at 80% (Lei et al.'s absolute-residual score)
        xs = sorted(abs(x) for _, x in rs)
        k = math.ceil(round((len(xs) + 1) * 0.8, 9))
        return None if k > len(xs) else _outward(math.exp(-xs[k - 1]), math.exp(xs[k - 1]))

    def by_source(rs: list[tuple[str, float]]) -> list[list[float]]:
        out: dict[str, list[float]] = {}
        for source, x in rs:
            out.setdefault(source, []).append(x)
        return list(out.values())

    def pooled_cdf(rs: list[tuple[str, float]]) -> tuple[float, float] | None:
        # CDF pooling (Dunn, Wasserman & Ramdas 2023): each of m publications mass 1 / (m + 1)
        # spread over its runs, the rest at infinity; the 80% quantile of |ln r|
        groups = by_source(rs)
        m, total = len(groups), 0.0
        for x, w in sorted((abs(x), 1 / ((m + 1) * len(g))) for g in groups for x in g):
            total += w
            if total >= 0.8 - 1e-12:
                return _outward(math.exp(-x), math.exp(x))
        return None

    def random_effects(
        centred: bool,
    ) -> Callable[[list[tuple[str, float]]], tuple[float, float] | None]:
        def band(rs: list[tuple[str, float]]) -> tuple[float, float] | None:
            f = fit(by_source(rs))
            if f is None:
                return None
            low, high = f.interval()
            if centred:  # at 1 (log 0), ignoring the publications' mean offset
                low, high = low - f.mu, high - f.mu
            return _outward(math.exp(low), math.exp(high))

        return band

    return {
        "symmetric per class": (symmetric, ("class",)),
        "symmetric per generation": (symmetric, ("generation",)),
        "CDF pooling per generation, then all": (pooled_cdf, ("generation", "all")),
        "random effects per class, then generation, then all": (
            random_effects(False),
            ("class", "generation", "all"),
        ),
        "random effects centred at 1 per generation, then all": (
            random_effects(True),
            ("generation", "all"),
        ),
        "random effects per generation, then all (adopted)": (
            random_effects(False),
            ("generation", "all"),
        ),
    }


def test_the_band_methods_compared() -> None:
    """docs/performance-model.md's table of band methods (Residual bands): for each, the
    calibration runs held leave one publication out (of 164), the tests/validation/ runs held
    (of 110; the first 97 scored for every method before the choice, Llama 3's 3, Grok 1's 8
    and TorchTitan GB200's 2 after it) and the median width (high over low) of the held-out
    runs' bands, each as docs/performance-model.md's table prints it. A run outside its
    domain, or whose groupings give no band, takes the envelope. The adopted method's
    figures are uncertainty.band's (147, 105). Scored again after issue 51's fourth round
    (three held-out publications' settings declared as their sources ran them; torchao's
    rowwise input casts and async TP's unfused all-gathers; the all-to-all dispatcher's expert-tp
    collectives exposed; the step timed on the binding pipeline stage; Transformer Engine's FP8
    casts as the code runs them; the fused loss and the MoE layers' tp collectives, which moved
    the bands; TorchTitan's 2 GB200 runs added): when the choice was made the rows read 144,
    130, 153, 148, 152, 147 of 164 left out, 72, 83, 90, 95, 94, 98 of 108 and 62, 74, 80, 87,
    84, 88 of 97; the adopted method held the most held-out runs then and holds the most now
    (105 of 110, 92 of 97; the other methods' rows 63, 92, 101, 104, 103 and 50, 79, 88, 91,
    90; before this round, a4d3cff, with KempnerForge's gradient sync and TP plan not yet
    declared as they ran: 106 and 93, the rows 65, 90, 102, 104, 104 and 52, 77, 89, 91, 91)."""
    from dclint.projection.uncertainty import envelope

    def group(r: Run, grouping: str) -> tuple[object, ...]:
        return {
            "class": (r.native, r.generation, r.moe),
            "generation": (r.generation,),
            "all": (),
        }[grouping]

    def band_of(
        method: str, pool: list[tuple[Run, float]], r: Run, memo: dict[tuple[object, ...], _Band]
    ) -> tuple[float, float] | None:
        make, groupings = _methods()[method]
        for grouping in groupings:
            key = (grouping, *group(r, grouping))
            if key not in memo:
                rs = [
                    (p.design.name, math.log(1 + e))
                    for p, e in pool
                    if p.in_domain and group(p, grouping) == group(r, grouping)
                ]
                memo[key] = make(rs) if rs else None
            got = memo[key]
            if got:
                return got
        return None

    errors = [(r, error(r)) for r in runs()]
    # added after the choice
    after = {"llama3-405b-h100", "dgxc-benchmarking-grok1", "torchtitan-gb200"}
    validation = [
        (r, error(r), bool(prediction(r).band.outside), stem not in after)
        for stem in _validation_stems()
        for r in _validation(stem).values()
    ]
    got, before = {}, {}
    for method in _methods():
        loso = 0
        for source in sorted({r.design.name for r in runs()}):
            rest = [(r, e) for r, e in errors if r.design.name != source]
            wide, memo = envelope(e for _, e in rest)[:2], {}
            for r, e in errors:
                if r.design.name == source:
                    low, high = (band_of(method, rest, r, memo) if r.in_domain else None) or wide
                    loso += low <= 1 + e <= high
        wide, held, widths, memo = envelope(e for _, e in errors)[:2], 0, [], {}
        before[method] = 0
        for r, e, outside, chosen_on in validation:
            low, high = (None if outside else band_of(method, errors, r, memo)) or wide
            held += low <= 1 + e <= high
            before[method] += chosen_on and low <= 1 + e <= high
            widths.append(high / low)
        got[method] = (loso, held, round(statistics.median(widths), 2))
    assert got == {
        "symmetric per class": (142, 66, 1.17),
        "symmetric per generation": (130, 96, 1.26),
        "CDF pooling per generation, then all": (151, 104, 1.4),
        "random effects per class, then generation, then all": (147, 104, 1.41),
        "random effects centred at 1 per generation, then all": (151, 105, 1.46),
        "random effects per generation, then all (adopted)": (147, 105, 1.46),
    }
    # the 97 held-out runs scored before the choice
    assert list(before.values()) == [53, 83, 91, 91, 92, 92]
    # docs/performance-model.md's table prints these figures, row for row
    printed = [(row[-4].split()[0], *row[-3:]) for row in _method_rows()[1:]]
    assert printed == [
        (
            str(loso),
            f"{before[m]} ({round(100 * before[m] / 97)}%)",
            f"{held} ({round(100 * held / len(validation))}%)",
            f"x{width}",
        )
        for m, (loso, held, width) in got.items()
    ]
    # the adopted row is uncertainty.band's: the leave-one-out count of _held_out
    from dclint.projection.uncertainty import BAND_QUANTILE

    assert (
        got["random effects per generation, then all (adopted)"][0] == _held_out(BAND_QUANTILE)[0]
    )
    # by class alone, 3 of the 7 classes have no interval; Blackwell dense's is the widest
    make, _ = _methods()["random effects per class, then generation, then all"]
    by_class: dict[tuple[object, ...], list[tuple[str, float]]] = {}
    for r, e in errors:
        if r.in_domain:
            by_class.setdefault(group(r, "class"), []).append((r.design.name, math.log(1 + e)))
    bands = {k: make(v) for k, v in by_class.items()}
    assert sum(b is None for b in bands.values()) == 3
    assert bands[(False, "blackwell", False)] == (0.633, 1.751)


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
    recipe overlaps the all-to-alls (moe_a2a_overlap); exposed they would be 15.53 s of a 25.42 s
    step on the stage that binds then (a middle one: 12 layers; the embedding and the loss
    counted in the split; 14.24 s of 26.00 s on the last stage's 11 layers and the output layer
    before the head was charged Transformer Engine's fused cross-entropy, 15.21 s of 27.58 s on
    11.75 layers and the output layer before the binding stage was timed) (the pipeline bubble
    waits on a micro-batch's share of them too), overlapped what exceeds a layer's forward and
    backward (the 4 local experts' host time included), the 2% SM share and the unpaired
    warm-up and cool-down chunks ((v - 1) p = 24 of m v = 512) stay: 7.02 s on the last stage,
    which binds with the overlap (7.50 s).
    A dense run's step does not depend on the setting."""
    a, lay, mac, sw = _inputs("h100: qwen3-235b-a22b-256")
    assert sw.overlap_ep
    on, off = step(a, lay, mac, sw), step(a, lay, mac, replace(sw, overlap_ep=False))
    assert off.ep == pytest.approx(15.5335, abs=1e-4)
    assert on.ep == pytest.approx(6.5592, abs=1e-4)
    assert on.time == pytest.approx(17.5838, abs=1e-4)
    assert off.time == pytest.approx(25.973, abs=1e-3)
    # each stage's compute is the same either way; the stage that binds is not
    staged = [stage_steps(a, lay, mac, s) for s in (sw, replace(sw, overlap_ep=False))]
    assert [[n for n, _, _ in got] for got in staged] == [["first", "middle", "last"]] * 2
    assert [s.compute for _, _, s in staged[0]] == [s.compute for _, _, s in staged[1]]
    assert (on.compute, off.compute) == (staged[0][2][2].compute, staged[1][1][2].compute)
    a, lay, mac, sw = _inputs("h100: llama3-70b-64")
    assert step(a, lay, mac, sw) == step(a, lay, mac, replace(sw, overlap_ep=True))


def test_small_experts_pay_their_own_wave_quantization(monkeypatch: pytest.MonkeyPatch) -> None:
    """Transformer Engine runs a grouped GEMM as one cuBLAS GEMM an expert over 4 streams: H100's
    Qwen3 30B (16 local experts of 768) computes 7.5635 s a step with its experts graphed (no
    host time), 7.5248 s were all 16 experts' tiles pooled in one wave schedule."""
    import dclint.projection.step.model as step_module

    a, lay, mac, sw = _inputs("h100: qwen3-30b-a3b-16")
    sw = replace(sw, graphed_experts=True)
    assert step(a, lay, mac, sw).compute == pytest.approx(7.5635, abs=1e-4)
    monkeypatch.setattr(step_module, "GEMM_STREAMS", 10**6)
    assert step(a, lay, mac, sw).compute == pytest.approx(7.5248, abs=1e-4)


def test_eager_experts_wait_for_the_host() -> None:
    """Eager dropless experts (no full-iteration graph): a pass takes at least the host time of
    its local experts' GEMMs, 2 x 74 us forward and 4 x 74 us backward an expert, overlapped
    with the GEMMs themselves. H100's Qwen3 30B (16 local experts) has 2.368 ms forward, 4.736 ms
    backward of host work a layer against 0.45 ms and 0.96 ms of expert GEMMs; the step grows
    from 7.5635 s of compute to 11.9351 s. The full-iteration graph removes the term."""
    from dclint.projection.step.model import _layer_pass

    a, lay, mac, sw = _inputs("h100: qwen3-30b-a3b-16")
    eager, graphed = (
        _layer_pass(a, lay, mac, sw),
        _layer_pass(a, lay, mac, replace(sw, graphed_experts=True)),
    )
    assert step(a, lay, mac, sw).compute == pytest.approx(11.9351, abs=1e-4)
    assert eager.fwd - graphed.fwd == pytest.approx(2.368e-3 - 0.4538e-3, abs=1e-7)
    assert eager.bwd - graphed.bwd == pytest.approx(4.736e-3 - 0.9580e-3, abs=1e-7)


def test_the_host_term_recomputed_and_hidden() -> None:
    """Full recomputation issues the eager experts' GEMMs again: H100's Qwen3 30B pays the
    forward's 1.9142 ms of host time a layer twice. One large local expert a GPU (the
    moe-1.7t sample: 128 experts over ep 128) issues its 2 forward GEMMs in 148 us, under
    their own time on the GPU: nothing added."""
    from dclint.loader import load
    from dclint.projection.step.model import _layer_pass

    a, lay, mac, sw = _inputs("h100: qwen3-30b-a3b-16")
    full = replace(lay, recompute="full")
    graphed = replace(sw, graphed_experts=True)
    eager, captured = _layer_pass(a, full, mac, sw), _layer_pass(a, full, mac, graphed)
    assert eager.fwd - captured.fwd == pytest.approx(1.9142e-3, abs=1e-7)
    assert eager.rec - captured.rec == pytest.approx(1.9142e-3, abs=1e-7)
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
    llm-foundry's MPT tables on H100 and A100): mean absolute error 6.8% over 75 runs, 69
    within 15% (7.0% and 69 at 18 B an input element of torchao's rowwise casts, from 6 of the
    per-shape table's 10 crossings at M >= 16,384, not 19 from all 10; 7.1% and 68 before
    torchao's rowwise recipe cast each Linear's input twice,
    ROWWISE_INPUT_BYTES; 9.0% and 67 at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes
    back to back, efficiency.AT_LAYER; 9.2% and 66 before llm-foundry's optimizer step as
    Composer runs it, COMPOSER_ADAM_BYTES; 10.1% and 64 before compiled context parallel
    waited on each collective where it is issued; 18.2% and 45 before the attention kernel,
    async TP, blocking pipeline sends, rowwise GEMM and PyTorch context-parallel terms, 11.9% before
    TorchTitan's pipeline split,
    11.7% and 60 before PyTorch SDPA's per-pass rates and the context-parallel merges, 11.1%
    and 61 before the output layer's GEMMs ran in BF16 in Float8 runs, 10.8% and 62 before the
    pipeline bubble waited on the micro-batches' tp, cp and ep communication and the
    backward's last dK, dV send was exposed); A100's 27 at 5.1%, H100's 48 at 7.7% (7.8% at fef8168,
    before NCCL 2.23's ring latency and gradient clipping; 8.0% before
    async TP's collectives were each budgeted against the matmuls they are fused with; 8.3%, 11.2%,
    11.5%, 13.0%, 14.4%, 15.4%, 14.1%)
    (docs/performance-model.md, PyTorch-native runs)."""
    native = [r for r in runs() if r.design.name in PYTORCH]
    errors = [abs(error(r)) for r in native]
    assert len(errors) == 75
    assert round(100 * sum(errors) / len(errors), 1) == 6.8
    assert sum(e <= 0.15 for e in errors) == 69
    a100 = [abs(error(r)) for r in native if r.generation == "ampere"]
    assert (len(a100), round(100 * sum(a100) / len(a100), 1)) == (27, 5.1)
    h100 = [abs(error(r)) for r in native if r.generation == "hopper"]
    assert (len(h100), round(100 * sum(h100) / len(h100), 1)) == (48, 7.7)


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
        1.2, 3.6, 3.0, 3.0, 4.8, 3.2,  # 8B FSDP, compile, Float8 on 8 and 128 GPUs
        15.9, 8.8, 46.7, 53.9,  # 8B at 32K to 256K
        -8.8, -3.3,  # 70B, AsyncTP
        5.3, 6.7, 5.7, 11.4, 4.6, 15.1,  # 405B, TorchTitan's 15 / 16 x 6 / 15 split
        7.0, 8.4, 1.7,  # torchao: bf16, tensorwise, rowwise
    ]  # fmt: skip


def test_single_settings_gain_as_the_docs_say() -> None:
    """The model's gain from one setting between two published rows of the same layout
    (docs/performance-model.md): torch.compile on 8B (8 and 128 GPUs; published +15.7%,
    +16.2%), Float8 over compile (+28.0%, +28.6%), AsyncTP on 70B (+5.7%), interleaved 1F1B on
    405B (+28.0%), torchao's tensorwise Float8 and rowwise over bf16 (+25.0%, +10.1%): the
    model's +18.5/+18.3, +27.2/+26.8, +12.0, +29.7, +26.6 and +4.6 (+27.3/+26.8, +26.8 and +4.7
    at fef8168, before NCCL 2.23's ring latency and gradient clipping; AsyncTP +18.4 before each
    of its collectives was budgeted against the matmuls it is fused with; rowwise +5.4 at 18 B an
    input element of its casts, +20.1 before each converted Linear's input cast,
    ROWWISE_INPUT_BYTES; +19.3/+19.0,
    +24.2/+23.8, +18.7, +29.6, +23.9 and +17.2 at MAMF's GEMM rates, before the GEMMs ran at a
    layer's shapes back to back: Hopper's FP8 rate 0.967 of MAMF's there, its BF16 rate 0.931,
    efficiency.AT_LAYER; rowwise +23.6 and AsyncTP +27.2 before their terms; Float8
    +26.5/+26.1, tensorwise +26.1 and rowwise +19.1 before
    the output layer's GEMMs ran in BF16: TorchTitan's Float8 configs filter it out;
    interleaving +26.6 before the pipeline bubble waited on the tp collectives)."""

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
    assert got == [18.5, 18.3, 27.2, 26.8]
    assert gain(tt, "llama31-70b-256-2d", "llama31-70b-256-2d-asynctp") == 12.0
    assert gain(tt, "llama31-405b-512-1f1b", "llama31-405b-512-interleaved") == 29.7
    assert gain(ao, "llama3-8b-bf16", "llama3-8b-tensorwise-fp8-all-gather") == 26.6
    assert gain(ao, "llama3-8b-bf16", "llama3-8b-rowwise") == 4.6


def test_mean_absolute_error_at_most_8_percent_on_the_pytorch_native_runs() -> None:
    """Issue 51's 8% on the PyTorch-native runs: 7.1% since the GEMMs run at a layer's shapes
    back to back (efficiency.AT_LAYER; 9.0% at MAMF's rates, an expected failure until then)."""
    errors = [abs(error(r)) for r in runs() if r.design.name in PYTORCH]
    assert sum(errors) / len(errors) <= 0.08


def test_context_parallel_ranks_run_the_balanced_split() -> None:
    """TorchTitan's 8B at CP 2, 4 and 8 (Table 2): PyTorch's context parallel of the tables'
    release balances the causal mask (enable_load_balance, head-tail chunks r and 2c - 1 - r),
    so every rank runs 1/c of a sequence's causal attention, as one causal block of its c and
    c - 1 unmasked half blocks; not the unbalanced ring's slowest rank, 2c / (c + 1) of the
    mean (docs/performance-model.md, PyTorch-native runs: checked and ruled out)."""
    from dclint.projection.step.model import _layer_pass

    for c in (2, 4, 8):
        a, lay, mac, sw = _inputs(f"llama31-8b-8-cp{c}-{32 * c}k")
        assert (lay.cp, lay.tp, lay.micro_batch) == (c, 1, 1) and sw.torch_cp
        x = _layer_pass(a, lay, mac, sw)
        assert x.attn * c == pytest.approx(4 * a.seq * a.seq * a.q / 2, rel=1e-12)
        causal, full, _ = mac.sdpa
        mix = (causal + (c - 1) * full) / c
        assert x.attn_fwd == pytest.approx(mix * x.attn / x.attn_rate, rel=1e-12)


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
    assert got == [-1.0, -1.2, -1.5]


# llm-foundry's MPT-30B at 4,096 tokens on 8 GPUs (README at b2a43a147, the H100 80GB BF16 and
# A100 80GB tables): micro-batch 1, 21 accumulation steps, as the 8K rows; published tokens/s
# and the table's NumParams (learned positions of 4,096). Not calibration rows: the test holds
# them against the 8K rows they share everything but the sequence with.
MPT_30B_4K = {"h100": 14419.0, "a100": 6513.0}
MPT_30B_4K_PARAMETERS = 29989894144


def test_mpt_30b_8k_miss_is_its_micro_batch_not_its_sequence() -> None:
    """The 30B at 8K is over-predicted on both GPUs (+33.8%, +31.7%), the same model at 4K and
    the same micro-batch of 1 is not (+8.0%, -2.5%, as the 2K rows at +8.1% and -4.0%): from
    4K to 8K the table's throughput a GPU falls 23.2% and 29.5%, the model's 4.9% and 4.7%,
    while the 13B from 4K to 32K on the same Triton kernel and head width (128) falls as the
    model gives it (-58.1% and -50.6% published, -55.7% and -52.9% predicted). What the 8K row has
    that no other 30B row on 8 GPUs has: 8,192 tokens a micro-batch (6,144 at 512-2K, 4,096 at
    4K), the most memory of the three in dclint's own estimate (docs/performance-model.md,
    llm-foundry's 30B at 8K: memory, not modelled)."""
    from dclint.projection.memory import memory_per_gpu

    got: dict[str, tuple[float, ...]] = {}
    memory: dict[int, float] = {}
    for gpu, published in MPT_30B_4K.items():
        run = _native("llm-foundry", f"mpt-30b-{gpu}-8gpu-8192")
        two = _native("llm-foundry", f"mpt-30b-{gpu}-8gpu-2048")
        model = run.wl.model.model_copy(update={"parameters": MPT_30B_4K_PARAMETERS})
        four = run.wl.model_copy(update={"sequence_length": 4096, "model": model})
        assert (four.micro_batch, four.global_batch) == (1, 168)
        p4 = float(prediction(run, four).tokens_per_second.m_as("token/s"))
        p8 = float(prediction(run).tokens_per_second.m_as("token/s"))
        pub8 = float(run.wl.tokens_per_second.m_as("token/s"))
        got[gpu] = tuple(
            round(100 * x, 1)
            for x in (p4 / published - 1, error(two), error(run), pub8 / published - 1, p8 / p4 - 1)
        )
        for wl in (two.wl, four, run.wl):
            est = memory_per_gpu(wl)
            held = est.weights + est.gradients + est.optimizer + est.activations
            memory[wl.sequence_length] = round(float(held.m_as("GiB")), 1)
    assert got == {
        "h100": (8.0, 8.1, 33.8, -23.2, -4.9),
        "a100": (-2.5, -4.0, 31.7, -29.5, -4.7),
    }
    assert memory == {2048: 67.9, 4096: 66.2, 8192: 69.7}
    for gpu, published, predicted in (("h100", -58.1, -55.7), ("a100", -50.6, -52.9)):
        short = _native("llm-foundry", f"mpt-13b-{gpu}-8gpu-4096")
        long = _native("llm-foundry", f"mpt-13b-{gpu}-8gpu-32768")
        pub = float(long.wl.tokens_per_second / short.wl.tokens_per_second)
        pred = float(prediction(long).tokens_per_second / prediction(short).tokens_per_second)
        assert (round(100 * (pub - 1), 1), round(100 * (pred - 1), 1)) == (published, predicted)


def test_405b_from_8k_to_32k_is_slower_a_token() -> None:
    """TorchTitan's Llama 3.1 405B on 512 H100 (tp 8, pp 8, FSDP 8, 1F1B, 8 micro-batches
    of 32,768 tokens): 100 tokens/s a GPU at 8,192 (Table 5) and 76 at 32,768 (Table 6),
    -24%. Attention's quadratic cost, FSDP gathering once a step under PP: the model gives
    -23.8% (-23.4% regathering every micro-batch, which costs the 8K run more, its gradients
    synced on the last micro-batch as PyTorch's pipeline stages run FSDP; -23.1% synced every
    micro-batch, before the pipeline decided the default sync; -24.2% and
    -23.4% before async TP's collectives were each budgeted against their own matmuls; -24.5% and
    -23.7% at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back; -25.1% and
    -24.2% before PyTorch SDPA's per-pass rates, -26.1% and -25.1% before the output layer's
    BF16 GEMMs, -25.8% and -24.9% before the pipeline bubble waited on the tp collectives)."""
    short = _native("torchtitan-h100", "llama31-405b-512-1f1b")
    long = _native("torchtitan-h100", "llama31-405b-512-cp1-32k")
    change = float(prediction(long).tokens_per_second / prediction(short).tokens_per_second)
    assert round(100 * (change - 1), 1) == -23.8
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
    assert round(100 * (regather - 1), 1) == -23.4


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


def _tokens(run: Run, wl: Workload | None = None) -> float:
    return float(prediction(run, wl).tokens_per_second.m_as("token/s"))


def _declared(run: Run, **update: object) -> Workload:
    """`run`'s workload with the settings `update` names (software and parallel merged)."""
    software = run.wl.software.model_copy(update=update.pop("software", {}))
    parallel = run.wl.parallel.model_copy(update=update.pop("parallel", {}))
    return run.wl.model_copy(update={**update, "software": software, "parallel": parallel})


def _asynctp_gains() -> list[float]:
    """The model's AsyncTP gain (async over vanilla TP, tokens a second, %) on the five public
    pairs: TorchTitan's Table 4 (70B, Float8 tensorwise, Dec 2024) and pytorch/torchtitan's
    benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md, declared as its commands state them:
    70B in BF16 and Float8 tensorwise (full AC, local batch 16, FSDP 32, TP 8: Table 4's
    layout), 8B in BF16 and Float8 tensorwise (per-op SAC, local batch 12, FSDP 8, TP 8)."""
    base70 = _native("torchtitan-h100", "llama31-70b-256-2d")
    base8 = _native("torchtitan-h100", "llama31-8b-8-fsdp-compile")
    table4 = _native("torchtitan-h100", "llama31-70b-256-2d-asynctp")
    eight = {
        "gpus": 64,
        "global_batch": 96,
        "micro_batch": 12,
        "recompute": "selective",
        "parallel": {"tp": 8},
    }
    pairs: list[tuple[Run, dict[str, object]]] = [
        (base70, {"precision": "bf16"}),
        (base70, {"precision": "fp8"}),
        (base8, {**eight, "precision": "bf16"}),
        (base8, {**eight, "precision": "fp8"}),
    ]
    got = [round(100 * (_tokens(table4) / _tokens(base70) - 1), 1)]
    for run, update in pairs:
        off = _declared(run, software={"overlap_tp": False}, **dict(update))
        on = _declared(run, software={"overlap_tp": True}, **dict(update))
        got.append(round(100 * (_tokens(run, on) / _tokens(run, off) - 1), 1))
    return got


def test_asynctp_gain_against_the_published_pairs() -> None:
    """AsyncTP's gain in the model against the five published pairs (%): TorchTitan's Table 4
    (+5.7) and the June 2025 benchmarks (70B BF16 +9, 70B Float8 +16, 8B BF16 +10, 8B Float8
    +10). The model hides the forward passes' collectives only (pytorch/pytorch#149946), each
    under the matmuls it is fused with (micro_pipeline_tp.py: an all-gather under QKV's or the
    MLP's first GEMMs, a reduce-scatter under wo's or w2's); it gave +18.4, +14.0, +18.4, +10.2,
    +6.3 (mean 4.8 points off) budgeting all four against the whole forward's GEMMs, and +27.2
    on Table 4's pair hiding every pass. Each June 2025 pair within 6 points of the published
    (now 2.8 to 4.3); Table 4's, an older release of the same layout the June benchmark measured
    at +16, 6.3 points above (12.7 before)."""
    got = _asynctp_gains()
    assert got == [12.0, 11.8, 12.0, 7.0, 5.7]
    published = [5.7, 9.0, 16.0, 10.0, 10.0]
    assert all(abs(g - p) <= 6.0 for g, p in zip(got[1:], published[1:], strict=True))
    mean = sum(abs(g - p) for g, p in zip(got, published, strict=True)) / len(got)
    assert round(mean, 1) == 4.1


def test_rowwise_and_tensorwise_gains_against_torchao() -> None:
    """torchao's Llama 3 8B table: tensorwise with FP8 all-gather +25.0% over bf16, rowwise
    +10.1%. The model: +26.6% (within 2 points) and +4.6% (5.5 points below, since each
    converted Linear's input is cast row-wise and column-wise, ROWWISE_INPUT_BYTES, from
    torchao's per-shape rowwise table; +5.4% at 18 B an input element; +20.1% before, 10.0
    points above; +23.9% and +2.0% at MAMF's GEMM rates (+17.2% before the input casts),
    before the GEMMs ran at a layer's shapes back to back, where Hopper's FP8 rate is 0.967 of
    MAMF's and its BF16 0.931: the rowwise GEMM's measured 90-100% and the backward's
    rescaling pass are what is sourced; the FP8 rate is the one without fast accumulation, the
    backward's; the forward's fast-accumulation margin, unpublished, is not modelled and would
    raise both)."""
    ao = "torchao-float8-h100"
    bf16 = _native(ao, "llama3-8b-bf16")
    tensorwise = _native(ao, "llama3-8b-tensorwise-fp8-all-gather")
    rowwise = _native(ao, "llama3-8b-rowwise")
    got = [round(100 * (_tokens(r) / _tokens(bf16) - 1), 1) for r in (tensorwise, rowwise)]
    assert got == [26.6, 4.6]
    assert abs(got[0] - 25.0) <= 2.0
    assert round(got[1] - 10.1, 1) == -5.5


def test_interleaving_gains() -> None:
    """Interleaved 1F1B: TorchTitan's 405B pair (published +28.0%) +29.7% in the model (+29.6% at
    MAMF's GEMM rates; +26.6% before the bubble waited on the micro-batches' tp collectives);
    over the 17 Megatron dense runs that interleave, the published vpp against vpp 1 averages
    +7.8% (+7.7% at MAMF's rates, +7.3% before)
    (docs/performance-model.md, Limits)."""
    tt = "torchtitan-h100"
    one, two = _native(tt, "llama31-405b-512-1f1b"), _native(tt, "llama31-405b-512-interleaved")
    assert round(100 * (_tokens(two) / _tokens(one) - 1), 1) == 29.7
    gains = [
        _tokens(r) / _tokens(r, _declared(r, parallel={"vpp": 1})) - 1
        for r in runs()
        if not r.native and not r.moe and r.wl.parallel.vpp > 1
    ]
    assert (len(gains), round(100 * sum(gains) / len(gains), 1)) == (17, 7.8)


def test_blackwell_fp8_gains_at_a_fixed_layout() -> None:
    """FP8 over BF16 at each Blackwell calibration run's layout: dense 21 runs +44.4% on
    average (+19.1% to +61.3%), MoE 28 runs +8.6% (-0.9% to +25.8%; +18.5% to +61.3% and +11.8%,
    +0.9% to +30.5%, before f6d8ad6 re-derived issue 51's fourth round's last merges together;
    +44.0%, +18.2% to +60.5%
    and +11.4%, +0.8% to +29.5% before the head was charged Transformer Engine's fused
    cross-entropy, whose smaller share of the step leaves more to the GEMMs; +42.3%, +18.2% to
    +54.8%
    and +29.6% before the step was timed on the pipeline stage that binds: the Llama 3.1 405B
    runs' FP8 step binds on the last stage, whose output layer runs at the BF16 rate, their
    BF16 step on a middle one; +40.6% and +10.3% at
    MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back, where
    Blackwell's FP8 rate is 0.846 of MAMF's and its BF16 0.865; +44.0% and +13.5% before
    the output layer's GEMMs ran at the BF16 rate in FP8 runs, +14.7% MoE, +1.5% to +36.1%,
    before MXFP8's GEMMs ran at MXFP8_GEMM_RATE). Held against the
    published same-layout pairs in test_fp8_gains_against_the_published_same_layout_pairs
    (GB200 dense, delayed scaling: +43.9% to +53.4% published) and DeepSeek-V3 on 256 GB300
    (Megatron-Bridge 25.11, an MLA model the step model does not describe): +13.2% (BF16
    3,848, MXFP8 4,357 tokens/s/GPU) (docs, Limits)."""
    out = []
    for moe in (False, True):
        gains = [
            _tokens(r) / _tokens(r, r.wl.model_copy(update={"precision": "bf16"})) - 1
            for r in runs()
            if r.generation == "blackwell" and r.wl.precision == "fp8" and r.moe == moe
        ]
        out.append(
            (
                len(gains),
                round(100 * sum(gains) / len(gains), 1),
                round(100 * min(gains), 1),
                round(100 * max(gains), 1),
            )
        )
    assert out == [(21, 44.4, 19.1, 61.3), (28, 8.6, -0.9, 25.8)]


def _validation_stems() -> list[str]:
    """Every file of tests/validation/, by name."""
    return sorted(p.stem for p in (ROOT / "tests" / "validation").glob("*.yaml"))


@cache
def _validation(stem: str) -> dict[str, Run]:
    """The runs of tests/validation/<stem>.yaml (held to their figures, not calibrated on),
    loaded once a test session (read only: callers copy a workload to vary it)."""
    path = ROOT / "tests" / "validation" / f"{stem}.yaml"
    design = load_text(path.read_text(encoding="utf-8"), str(path))
    out = {}
    for wl in design.workloads:
        hw = hardware_of(design, wl.platform)
        assert not isinstance(hw, str), hw
        out[wl.id] = Run(design, wl, hw)
    return out


def test_the_band_holds_the_validation_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs of tests/validation/ (no band is derived from them; every band method compared
    in docs/performance-model.md was scored on them before the choice, so they no longer test
    it cleanly) inside the band their prediction carries: DGX Cloud Benchmarking's 18 GB200
    runs (+4.9% to +13.9%, the Blackwell band 0.792-1.229) and 2 H100 runs (-0.8%, -4.2%, the
    Hopper band 0.868-1.266) all 20; TorchTitan's 6 A100 runs all 6, outside the domain (no
    TorchTitan run on A100 in the calibration set): the envelope; TorchTitan's 2 H200 runs
    (+5.6%, +7.2%) both; its 12 June 2025 async-TP runs on H100 all 12 (the rowwise rows -11.4%
    to -7.8%; 9 before torchao's rowwise recipe cast each Linear's input, ROWWISE_INPUT_BYTES,
    and its async TP fused only the reduce-scatters: the three rowwise rows at +31% and above
    lay above the band); llm-foundry's 10 FP8 runs on H100 all 10; torchao's 4 B200 runs at
    750 W none, outside the domain (+100.8% to +125.8%, above the envelope's 1.995);
    TorchTitan's 2 GB200 runs of 2026 (-2.0%, +2.8%) both, outside the domain, in the envelope;
    KempnerForge's 14 H200 runs all 14 (the 6 on 1 to 4 GPUs in the envelope) and 10 of its 11
    weak-scaling runs (the 13B on 8 GPUs, -17.0%, under the band, with the TP collectives of
    KempnerForge's plan, tp_plan per-projection; the 70B on 8 GPUs, +22.9% as its log ran it,
    micro-batch 1 without compile, inside; under Megatron's count also 10 of 11, that 70B,
    +34.5%, above the band and the 13B inside; all 11 syncing every micro-batch, the model's
    before gradient_sync last-micro-batch); llm-foundry's 18 large-scale H100 runs all
    18 (the 1B on 512 GPUs, +18.5%, too; its FlashAttention-2 rows at that kernel's rates,
    attention_kernel flash2); Meta's Llama 3 405B on 8,192 and 16,384 H100 all 3, outside the
    domain, in the envelope (-1.7%, -6.5%; the 131K-token row at CP 16 +9.4% with its K and V
    all-gathered as the paper says, -35.1% under PyTorch's ring: test_validation_llama3.py);
    DGX Cloud Benchmarking's Grok 1 314B MoE runs on GB200 and H100 all 8 (the 512-GPU runs in
    the envelope: test_validation_grok1.py). Every file of tests/validation/: 105 of 110 runs,
    95%, at least the 80% the bands are for; their mean absolute error 11.25%, 101 within 15%
    (on the 97 before Llama 3's, Grok 1's and TorchTitan GB200's runs joined: 92, 12.11%, 89).
    Before NCCL 2.23's ring latency and gradient clipping charged with the optimizer step (a
    bf16 model's state read by one test, Settings.bf16_state; Megatron's the norm alone, with
    NCCL's ring plateau): 105, 11.31%, 101 (92, 12.18%, 89 on the 97).
    Before KempnerForge's runs declared cuDNN's attention and their bf16 AdamW (b23d062): 105,
    11.51%, 99 (92, 12.41%, 87 on the 97). Before Hopper's attention kernels ran at their rate
    for the run's sequence length and llm-foundry's flash path paid its padding copies
    (7a808da): 105, 11.92%, 97 (92, 12.87%, 85 on the 97). Before the round before (a4d3cff:
    KempnerForge's 25 runs syncing every micro-batch under
    Megatron's TP plan, before ce15's sourced mends): 106 of 110, 11.71%, 96 within 15% (93,
    12.58%, 84 on the 97). The run-level split-conformal bands per generation, stack and class,
    recomputed (Hopper dense 0.722-1.101, Hopper PyTorch-native 0.996-1.114, Blackwell dense
    0.935-1.63), hold 78 of the 110, 71% (65 of the 97;
    test_the_run_level_bands_before_hold_fewer_of_new_publications_runs): every Hopper
    PyTorch-native calibration run but four is over-predicted, so that band begins at 0.996 and
    misses the runs the model under-predicts (KempnerForge's weak scaling: 5 of 11, its 70B from
    32 GPUs). At MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back: mean
    absolute error 15.35%, 78 within 15% (16.16%, 66 on the 97; 15.43%, 78 before NCCL
    2.23's ring latency and the clipping; 15.54%, 78 at b23d062; 16.0%, 74 at 7a808da).
    Before issue 51's fourth round (its steps: docs/performance-model.md, Residual bands): 98
    of 108 in band, 14.38%, 83 within 15% (MAMF's 19.06%, 59)."""
    got, errors = {}, []
    for stem in (
        "llm-foundry-h100-large",
        "dgxc-benchmarking",
        "torchtitan-a100",
        "torchtitan-h200",
        "torchtitan-asynctp-h100",
        "llm-foundry-h100-fp8",
        "torchao-mx-b200",
        "torchtitan-gb200",
        "kempnerforge-h200",
        "kempnerforge-h200-scaling",
        "llama3-405b-h100",
        "dgxc-benchmarking-grok1",
    ):
        hits, outside = 0, 0
        for run in _validation(stem).values():
            b = prediction(run).band
            errors.append(abs(error(run)))
            hits += b.low_factor <= 1 + error(run) <= b.high_factor
            outside += bool(b.outside)
        got[stem] = (hits, len(_validation(stem)), outside)
    assert got == {
        "llm-foundry-h100-large": (18, 18, 0),
        "dgxc-benchmarking": (20, 20, 0),
        "torchtitan-a100": (6, 6, 6),
        "torchtitan-h200": (2, 2, 0),
        "torchtitan-asynctp-h100": (12, 12, 0),
        "llm-foundry-h100-fp8": (10, 10, 0),
        "torchao-mx-b200": (0, 4, 4),
        "torchtitan-gb200": (2, 2, 2),
        "kempnerforge-h200": (14, 14, 6),
        "kempnerforge-h200-scaling": (10, 11, 0),
        "llama3-405b-h100": (3, 3, 3),
        "dgxc-benchmarking-grok1": (8, 8, 4),
    }
    assert set(_validation_stems()) == set(got)
    hits, total = (sum(v[i] for v in got.values()) for i in (0, 1))
    assert (hits, total, round(100 * hits / total)) == (105, 110, 95)
    # the 110's mean absolute error (%) and runs within 15%, then at MAMF's rates (AT_LAYER emptied)
    assert (round(100 * sum(errors) / total, 2), sum(e <= 0.15 for e in errors)) == (11.25, 101)
    from dclint.projection import efficiency

    monkeypatch.setattr(efficiency, "AT_LAYER", {})
    mamf = [abs(error(r)) for stem in got for r in _validation(stem).values()]
    assert (round(100 * sum(mamf) / total, 2), sum(e <= 0.15 for e in mamf)) == (15.35, 78)
    # docs/performance-model.md's held-out paragraph and this docstring print these figures
    mae, within = round(100 * sum(errors) / total, 2), sum(e <= 0.15 for e in errors)
    at_mamf, mamf_within = round(100 * sum(mamf) / total, 2), sum(e <= 0.15 for e in mamf)
    docs = _printed((ROOT / "docs" / "performance-model.md").read_text())
    assert f"the band each prediction carries holds {hits} ({round(100 * hits / total)}%;" in docs
    assert (
        f"mean absolute error of {mae}%, {within} within 15% ({at_mamf}%, {mamf_within}, at MAMF's"
        in docs
    )
    own = _printed(test_the_band_holds_the_validation_runs.__doc__ or "")
    assert f"{hits} of {total} runs, {round(100 * hits / total)}%" in own
    assert f"mean absolute error {mae}%, {within} within 15%" in own
    assert f"mean absolute error {at_mamf}%, {mamf_within} within 15%" in own


def test_no_domain_rule_for_steps_of_one_micro_batch() -> None:
    """Why Blackwell keeps MLPerf's 8B runs of one micro-batch a step in its band
    (docs/performance-model.md, Residual bands): a domain rule "Megatron-family steps of one
    micro-batch a step per data-parallel rank are outside the calibration domain" would catch
    10 runs, 7 of them within 15% (MLPerf's 8B on 256 B200 +17.0%), and leave Blackwell's band
    0.828-1.135 on 44 runs, which holds 17 of DGX Cloud Benchmarking's 18 held-out GB200 runs
    (8 to 128 micro-batches a step, inside such a rule's domain: +4.9% to +13.9%), where the
    band of all 51 holds all 18. Left out one publication at a time, the rule would hold 149 of
    164 calibration runs (147 without), the ten runs taking the others' envelope. (Before the
    step was timed on the pipeline stage that binds: 0.813-1.082, 7 of the 18, 149 against
    147.) The PyTorch-native runs of one micro-batch a step (35 inside NATIVE_CP_MAX) come out
    from -8.8% to +15.9%: the regime alone is not where the model fails."""
    from dclint.projection.uncertainty import BANDS, derive

    single = {
        r.name: round(100 * error(r), 1) for r in runs() if not r.native and r.micro_batches == 1
    }
    assert single == {
        "narayanan-2021-a100: gpt-1.7b": 4.5,
        "narayanan-2021-a100: gpt-3.6b": 3.9,
        "narayanan-2021-a100: gpt-7.5b": 1.2,
        "mlperf-training-blackwell: llama31-8b-72-v5.1-tyche": 7.5,
        "mlperf-training-blackwell: llama31-8b-512-v5.1-tyche": 62.8,
        "mlperf-training-blackwell: llama31-8b-72-v5.1-theia": -6.9,
        "mlperf-training-blackwell: llama31-8b-512-v5.1-theia": 65.9,
        "mlperf-training-blackwell: llama31-8b-8-v5.1-uf": 1.3,
        "mlperf-training-blackwell: llama31-8b-64-v5.1-uf": 1.4,
        "mlperf-training-blackwell: llama31-8b-256-v5.1-uf": 17.0,
    }
    ruled, _ = derive(
        (r.generation, r.design.name, error(r))
        for r in runs()
        if r.in_domain and (r.native or r.name not in single)
    )
    assert ruled["blackwell"] == (0.828, 1.135, 44, 7)
    held_out = [r for r in _validation("dgxc-benchmarking").values() if r.generation == "blackwell"]
    assert len(held_out) == 18 and all(r.micro_batches >= 8 for r in held_out)
    ratios = sorted(round(1 + error(r), 3) for r in held_out)
    assert (ratios[0], ratios[-1]) == (1.049, 1.139)
    low, high, _, _ = ruled["blackwell"]
    assert sum(low <= x <= high for x in ratios) == 17
    low, high, _, _ = BANDS["blackwell"]
    assert sum(low <= x <= high for x in ratios) == 18
    # leave one publication out with the rule: the ten runs take the others' envelope
    from dclint.projection.uncertainty import envelope

    errors, inside = [(r, error(r)) for r in runs()], 0
    for source in sorted({r.design.name for r in runs()}):
        rest = [(r, e) for r, e in errors if r.design.name != source]
        bands, pooled = derive(
            (r.generation, r.design.name, e)
            for r, e in rest
            if r.in_domain and r.name not in single
        )
        assert pooled is not None
        wide = envelope(e for _, e in rest)
        for r, e in errors:
            if r.design.name == source:
                ruled_in = r.in_domain and r.name not in single
                low, high = (bands.get(r.generation) or pooled)[:2] if ruled_in else wide[:2]
                inside += low <= 1 + e <= high
    assert inside == 149  # 148 without the rule
    native = [error(r) for r in runs() if r.native and r.in_domain and r.micro_batches == 1]
    assert len(native) == 35
    assert (round(100 * min(native), 1), round(100 * max(native), 1)) == (-8.8, 15.9)


def test_fp8_gains_against_the_published_same_layout_pairs() -> None:
    """DGX Cloud Benchmarking's BF16 and FP8 runs of one layout and release (NeMo 25.04.01, delayed
    scaling; tests/validation/dgxc-benchmarking.yaml): FP8 over BF16, published and in the model
    (%). On GB200 Llama 3.1 405B (128 to 512 GPUs) and Nemotron-4 340B (weak and strong scaling) the
    published gains are +43.9 to +53.4, mean +49.0; the model's +47.0 to +57.9, mean +53.1,
    within 5.9 points of each (+46.9 to +57.9, mean +53.0, within 5.8, at 3b82313, with
    Megatron's clipping charged its scale every step; as now at fef8168; +44.8 to +56.7,
    mean +51.8, within 4.6, at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to
    back, where Blackwell's FP8 rate is 0.846 of MAMF's and its BF16 0.865; +46.6 to +57.6, mean
    +52.8, within 5.6, before f6d8ad6 re-derived issue 51's fourth round's last merges together;
    +46.4 to +54.4, mean +51.5, before the step was timed on the pipeline stage that binds: the
    405B's FP8 step binds on the last stage, whose output layer runs at the BF16 rate, its BF16 step
    on a middle one), not the +20-25% of torchao's MXFP8 on B200. On H100 (405B, 512 GPUs) the
    model's +47.1 is 5.1 points below the published +52.2 (5.0 before the attention rates by
    sequence length; 9.7 at MAMF's rates; 4.6 before f6d8ad6, 7.0 before the binding stage). Every
    GB200 run of the set, BF16 and FP8, is over-predicted (+4.9% to +13.9%; +4.9% to +13.6% at
    3b82313, +4.9% to +14.0% at fef8168, before NCCL 2.23's ring latency and gradient clipping;
    +4.9% to +13.8% before f6d8ad6,
    +2.7% before the binding stage; +14.9% to +25.3% at MAMF's rates then)."""
    rs = _validation("dgxc-benchmarking")
    got = []
    for wid, bf16 in rs.items():
        if not wid.endswith("-bf16"):
            continue
        fp8 = rs[wid.removesuffix("-bf16") + "-fp8"]
        assert (fp8.wl.parallel, fp8.wl.global_batch) == (bf16.wl.parallel, bf16.wl.global_batch)
        assert bf16.wl.tokens_per_second is not None and fp8.wl.tokens_per_second is not None
        published = float((fp8.wl.tokens_per_second / bf16.wl.tokens_per_second).m_as("")) - 1
        model = _tokens(fp8) / _tokens(bf16) - 1
        got.append((wid.removesuffix("-bf16"), round(100 * published, 1), round(100 * model, 1)))
    assert got == [
        ("gb200-llama31-405b-128", 52.5, 57.8),
        ("gb200-llama31-405b-256", 53.4, 57.9),
        ("gb200-llama31-405b-512", 52.3, 56.9),
        ("gb200-nemotron4-340b-128", 47.6, 51.7),
        ("gb200-nemotron4-340b-256", 44.4, 50.3),
        ("gb200-nemotron4-340b-512", 43.9, 47.0),
        ("gb200-nemotron4-340b-128-gbs512", 49.6, 52.6),
        ("gb200-nemotron4-340b-256-gbs512", 47.9, 52.4),
        ("gb200-nemotron4-340b-512-gbs512", 49.4, 51.2),
        ("h100-llama31-405b-512", 52.2, 47.1),
    ]
    gb200 = [(p, m) for k, p, m in got if k.startswith("gb200")]
    assert round(max(abs(m - p) for p, m in gb200), 1) == 5.9
    assert (
        round(sum(p for p, _ in gb200) / len(gb200), 1),
        round(sum(m for _, m in gb200) / len(gb200), 1),
    ) == (49.0, 53.1)
    errors = [round(100 * error(r), 1) for r in rs.values()]
    assert errors == [
        4.9, 8.6, 6.5, 9.6, 5.6, 8.8, 10.8, 13.9, 8.9, 13.3,
        10.4, 12.7, 7.7, 9.8, 8.7, 12.0, 10.1, 11.4, -0.8, -4.2,
    ]  # fmt: skip


def test_mxfp8_against_current_scaling_at_the_published_layouts() -> None:
    """Megatron-Bridge 25.11's table gives MXFP8 in parentheses at the FP8-CS rows' layouts:
    Llama 3 8B on GB200 and B200, Llama 3.1 405B on B200, -5.5%, -3.6%, -5.6% (29,789 against
    31,508; 29,521 against 30,624; 624 against 661 tokens/s/GPU). The model gives MXFP8
    -1.5%, -1.5%, -2.4% (-1.2%, -1.2%, -2.2% at MAMF's GEMM rates; -1.0%, -0.9%, -2.2% before
    f6d8ad6 re-derived issue 51's fourth round's last merges together, -0.9%, -0.9%, -2.1%
    before the head was charged Transformer Engine's fused cross-entropy) with its GEMMs at
    MXFP8_GEMM_RATE (Transformer Engine's GEMM profiling guide), +0.9%, +0.9%, +0.4% without:
    the published sign, 2 to 4 points short
    (its recipe bytes make MXFP8's casts the cheaper: no second amax read)."""
    got = []
    for stem, wid in (
        ("megatron-bridge-25.11-gb200", "llama3-8b-8"),
        ("megatron-bridge-25.11-b200", "llama3-8b-8"),
        ("megatron-bridge-25.11-b200", "llama31-405b-128"),
    ):
        run = _native(stem, wid)
        mx = _declared(run, software={"fp8_recipe": "mxfp8"})
        got.append(round(100 * (_tokens(run, mx) / _tokens(run) - 1), 1))
        assert any("MXFP8 GEMMs at 0.951" in n for n in prediction(run, mx).assumptions)
        assert not any("MXFP8 GEMMs" in n for n in prediction(run).assumptions)
    assert got == [-1.5, -1.5, -2.4]
    published = [29789 / 31508 - 1, 29521 / 30624 - 1, 624 / 661 - 1]
    assert [round(100 * p, 1) for p in published] == [-5.5, -3.6, -5.6]


def test_tp_overlap_gain_on_the_megatron_runs() -> None:
    """Transformer Engine's TP overlap (userbuffers, every pass hidden) over exposed TP collectives
    on the 23 Megatron dense runs with tp > 1 that overlap: +18.8% on average (+18.7% before the
    head was charged Transformer Engine's fused cross-entropy, +18.3% before the step was timed on
    the pipeline stage that binds; +19.4% at MAMF's GEMM rates, before the GEMMs
    ran at a layer's shapes back to back; +18.2% before the pipeline bubble waited on the exposed
    collectives)."""
    gains = [
        _tokens(r) / _tokens(r, _declared(r, software={"overlap_tp": False})) - 1
        for r in runs()
        if not r.native
        and not r.moe
        and r.wl.parallel.tp > 1
        and r.wl.software_in_effect.overlap_tp
    ]
    assert (len(gains), round(100 * sum(gains) / len(gains), 1)) == (23, 18.8)


def test_fsdp_sm_share_held_against_the_scaling_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/performance-model.md's FSDP_SM_SHARE table: predicted minus published change of
    throughput a GPU (percentage points) over TorchTitan's 3 pairs (8B at 8 and 128 GPUs) and
    llm-foundry's 10 (every smaller row against the largest of the same model, GPU, sequence
    and micro-batch), for shares the constant could take; the model keeps 0.15."""
    import dclint.projection.step.model as step_module

    def per_gpu(r: Run) -> float:
        return _tokens(r) / r.wl.gpus

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s")) / r.wl.gpus

    pairs = [
        (
            "tt",
            _native("torchtitan-h100", f"llama31-8b-8-{n}"),
            _native("torchtitan-h100", f"llama31-8b-128-{n}"),
        )
        for n in ("fsdp", "fsdp-compile", "fsdp-compile-float8")
    ]
    groups: dict[tuple[object, ...], list[Run]] = {}
    for r in runs():
        if r.design.name == "llm-foundry":
            m = r.wl.model
            key = (r.wl.platform, m.layers, m.hidden_size, r.wl.sequence_length, r.wl.micro_batch)
            groups.setdefault(key, []).append(r)
    for same in groups.values():
        same.sort(key=lambda r: r.wl.gpus)
        pairs += [("lf", r, same[-1]) for r in same[:-1]]
    assert [k for k, _, _ in pairs].count("lf") == 10
    table = []
    for share in (0.02, 0.10, 0.15, 0.20, 0.30):
        monkeypatch.setattr(step_module, "FSDP_SM_SHARE", share)
        off: dict[str, list[float]] = {"tt": [], "lf": []}
        for k, a, b in pairs:
            change = per_gpu(b) / per_gpu(a) - published(b) / published(a)
            off[k].append(100 * change)
        both = off["tt"] + off["lf"]
        table.append(
            (
                share,
                round(sum(off["tt"]) / 3, 1),
                round(sum(off["lf"]) / 10, 1),
                round(sum(abs(x) for x in both) / len(both), 1),
            )
        )
    assert table == [
        (0.02, 2.6, 0.6, 2.1),
        (0.1, 1.6, 0.2, 2.0),
        (0.15, 1.0, 0.0, 2.0),
        (0.2, 0.5, -0.2, 2.1),
        (0.3, -0.6, -0.5, 2.3),
    ]


def test_flash_attention_in_triton_takes_its_published_slowdown() -> None:
    """llm-foundry's attn_impl triton: FlashAttention-2 is 1.3-1.5x faster forward and about 2x
    backward (Dao 2023, sec. 4.1): MPT 7B at 32K on H100 spends 71.2 ms in a layer's attention
    forward instead of FlashAttention-2's 50.8, and its step takes 37.53 s instead of 26.80
    (Transformer Engine's fused attention, cuDNN's on Hopper, 32.6 ms and 21.80 s; 36.88, 26.14
    and 21.14 s at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back;
    36.86, 26.12 and 21.12 s before Composer's optimizer step)."""
    from dclint.projection.step.model import _layer_pass

    a, lay, mac, sw = _inputs("llm-foundry: mpt-7b-h100-8gpu-32768")
    assert sw.attention_kernel == "triton"
    flash = replace(sw, attention_kernel="flash")
    assert round(_layer_pass(a, lay, mac, flash).attn_fwd * 1e3, 1) == 32.6
    assert round(step(a, lay, mac, flash).time, 2) == 21.80
    mac = replace(mac, fused_attention=(1.0, 1.0, 1.0))  # FlashAttention-2's rate
    slow, fast = _layer_pass(a, lay, mac, sw), _layer_pass(a, lay, mac, flash)
    assert slow.attn_fwd / fast.attn_fwd == pytest.approx(1.4)
    assert slow.attn_bwd / fast.attn_bwd == pytest.approx(2.0)
    assert fast.attn_fwd == pytest.approx(50.822e-3, abs=1e-6)
    assert step(a, lay, mac, sw).time == pytest.approx(37.534, abs=1e-3)
    assert step(a, lay, mac, flash).time == pytest.approx(26.800, abs=1e-3)
    run = _native("llm-foundry", "mpt-7b-h100-8gpu-32768")
    assert any("FlashAttention's Triton" in n for n in prediction(run).assumptions)


def test_async_tp_hides_the_forward_passes_collectives_only() -> None:
    """TorchTitan's 70B (tp 8, full AC): the TP collectives take 6.722 s a step blocking; PyTorch's
    async TP runs the forward's and the recomputation's on the copy engines, each collective
    under the matmuls it is fused with: 4.399 s stays, the backward's two passes' 3.361 s and
    1.038 s of the forward passes' collectives that outlast their own matmuls (the
    all-gather before QKV's narrow GEMM, the reduce-scatter after wo's; 3.361 s when all four
    were budgeted against the whole forward's GEMMs); hiding every pass under the GEMMs, as
    Transformer Engine's userbuffers, would leave 2.037 s (2.190 s at MAMF's GEMM rates, before the
    GEMMs ran at a layer's shapes back to back and hid more). A Megatron run's overlap_tp is not
    async TP."""
    a, lay, mac, sw = _inputs("torchtitan-h100: llama31-70b-256-2d-asynctp")
    assert (sw.overlap_tp, sw.async_tp) == (True, True)
    parts = [
        step(a, lay, mac, s).tp
        for s in (sw, replace(sw, async_tp=False), replace(sw, overlap_tp=False))
    ]
    assert [round(p, 3) for p in parts] == [4.399, 2.037, 6.722]
    assert not _inputs("h100: llama3-70b-64")[3].async_tp
    run = _native("torchtitan-h100", "llama31-70b-256-2d-asynctp")
    assert any("pytorch/pytorch#149946" in n for n in prediction(run).assumptions)


# torchao's per-shape rowwise table (torchao/float8/README.md "Rowwise scaling", the image
# docs/static/fp8-rowwise-perf.png added in pytorch/ao fdddb2cf, 2025-06-06, blob ff5b4180;
# "NVIDIA H100", PyTorch 2.8.0a0+git48807d5): LayerNorm -> Linear -> Sigmoid forward and
# backward, speedup over bfloat16 by forward M, K, N. Every cell, as the image prints them:
# M -> K -> (speedup at N 1,024, 2,048, 4,096, 8,192, 16,384, 32,768)
ROWWISE_NS = (1024, 2048, 4096, 8192, 16384, 32768)
ROWWISE_TABLE = {
    1024: {
        1024: (0.42, 0.42, 0.50, 0.51, 0.56, 0.56),
        2048: (0.40, 0.38, 0.42, 0.50, 0.50, 0.56),
        4096: (0.48, 0.43, 0.46, 0.53, 0.57, 0.60),
        8192: (0.45, 0.48, 0.54, 0.62, 0.60, 0.62),
        16384: (0.46, 0.48, 0.54, 0.60, 0.60, 0.61),
        32768: (0.45, 0.50, 0.55, 0.60, 0.62, 0.65),
    },
    2048: {
        1024: (0.43, 0.43, 0.48, 0.55, 0.62, 0.65),
        2048: (0.38, 0.45, 0.58, 0.65, 0.72, 0.75),
        4096: (0.43, 0.50, 0.68, 0.78, 0.81, 0.82),
        8192: (0.46, 0.58, 0.73, 0.82, 0.87, 0.89),
        16384: (0.48, 0.62, 0.75, 0.83, 0.84, 0.85),
        32768: (0.50, 0.64, 0.75, 0.84, 0.83, 0.99),
    },
    4096: {
        1024: (0.45, 0.47, 0.57, 0.66, 0.72, 0.76),
        2048: (0.43, 0.53, 0.70, 0.83, 0.90, 0.91),
        4096: (0.44, 0.64, 0.84, 1.01, 1.01, 1.04),
        8192: (0.53, 0.72, 0.91, 1.01, 1.07, 1.13),
        16384: (0.53, 0.74, 0.92, 1.05, 1.10, 1.18),
        32768: (0.54, 0.75, 0.93, 1.02, 1.17, 1.18),
    },
    8192: {
        1024: (0.48, 0.52, 0.65, 0.77, 0.83, 0.84),
        2048: (0.45, 0.64, 0.82, 1.01, 1.03, 1.06),
        4096: (0.52, 0.76, 1.00, 1.13, 1.17, 1.19),
        8192: (0.59, 0.85, 1.05, 1.20, 1.31, 1.41),
        16384: (0.58, 0.82, 1.03, 1.22, 1.37, 1.40),
        32768: (0.59, 0.82, 1.04, 1.30, 1.36, 1.46),
    },
    16384: {
        1024: (0.48, 0.58, 0.73, 0.86, 0.85, 0.89),
        2048: (0.51, 0.70, 0.90, 1.05, 1.07, 1.15),
        4096: (0.57, 0.79, 1.02, 1.20, 1.26, 1.40),
        8192: (0.61, 0.87, 1.08, 1.33, 1.39, 1.49),
        16384: (0.59, 0.83, 1.07, 1.34, 1.42, 1.55),
        32768: (0.60, 0.85, 1.16, 1.35, 1.48, 1.72),
    },
    32768: {
        1024: (0.51, 0.62, 0.77, 0.87, 0.88, 0.94),
        2048: (0.54, 0.73, 0.91, 1.08, 1.14, 1.27),
        4096: (0.59, 0.81, 1.04, 1.28, 1.35, 1.49),
        8192: (0.63, 0.87, 1.11, 1.41, 1.50, 1.62),
        16384: (0.60, 0.83, 1.16, 1.39, 1.49, 1.73),
        32768: (0.63, 0.93, 1.16, 1.48, 1.70, 1.52),
    },
}


def test_rowwise_input_bytes_from_torchao_table() -> None:
    """ROWWISE_INPUT_BYTES is what torchao's per-shape rowwise table leaves unexplained. At the
    N where a rowwise layer breaks even with bfloat16 (log-linear between the two N the speedup
    first crosses 1 between), the layer's element-wise work cancels, and the bfloat16 GEMMs'
    time (3 x 2MKN at the model's H100 BF16 rate) equals the rowwise layer's: its GEMMs
    (forward at ROWWISE_GEMM_RATE of the FP8 rate), the backward's rescaling pass (grad input
    and weight), the output gradient's casts, and the input's own casts, o bytes an element of
    M x K. Solved for o on each crossing the table has: 19, none at M 1,024 or 2,048. What o
    leaves is a per-byte cost only where the fixed per-kernel costs the formula omits (the
    rowwise layer launches more, smaller kernels) are small against the work: the mean by M
    falls 41.0, 22.1, 19.9, 18.2 B from M 4,096 to 32,768, so o is taken over every crossing at
    the table's two largest M, 10 cells (K 2,048 to 32,768; K 1,024 never crosses): 16.0 to
    22.3 B, 19.05 on average, 19 (M >= 8,192: 20.06; all 19: 24.47). The H100 is the one
    torchao's calibration rows declare (tests/calibration/torchao-float8-h100.yaml: Grand
    Teton's H100 SXM at 500 W, 2.4 TB/s at 0.8; torchao's README says "NVIDIA H100" only); a
    faster HBM would price each byte less and leave more of them. At narrow N the same o gives
    the table's fall (M 32,768, K 8,192: N 1,024 0.63 published, 0.65 here), which torchao's
    auto filter (pytorch/ao#2410: _auto_filter_for_rowwise leaves N <= 2,048 in BF16) reads
    the same way."""
    from dclint.projection.step.records import (
        FP8_RECIPE_BYTES,
        ROWWISE_GEMM_RATE,
        ROWWISE_INPUT_BYTES,
        ROWWISE_RESCALE_BYTES,
    )

    _, _, fp8, _ = _inputs("torchao-float8-h100: llama3-8b-rowwise")
    _, _, bf16, _ = _inputs("torchao-float8-h100: llama3-8b-bf16")
    rf, rb, bw = fp8.peak * fp8.matmul_eff, bf16.peak * bf16.matmul_eff, fp8.hbm * fp8.hbm_eff
    cast = fp8.fp8_cast_bytes + FP8_RECIPE_BYTES["rowwise"]

    def gemms(n: float) -> tuple[float, float]:
        """Seconds an element of M x K: the bfloat16 GEMMs, the rowwise GEMMs and passes."""
        rowwise = n * (2 / ROWWISE_GEMM_RATE + 4) / rf
        return 6 * n / rb, rowwise

    got: dict[tuple[int, int], float] = {}
    for m, row in ROWWISE_TABLE.items():
        for k, speedups in row.items():
            pairs = zip(ROWWISE_NS, speedups, speedups[1:], strict=False)
            cross = next(((n0, lo, hi) for n0, lo, hi in pairs if lo < 1 <= hi), None)
            if cross is None:
                continue
            n0, lo, hi = cross
            n = n0 * 2 ** (math.log(1 / lo) / math.log(hi / lo))
            b, f = gemms(n)
            got[m, k] = bw * (b - f) - ROWWISE_RESCALE_BYTES * (1 + n / m) - cast * n / k

    def mean(cells: list[float]) -> float:
        return round(sum(cells) / len(cells), 2)

    assert len(got) == 19
    assert [
        mean([o for (m, _), o in got.items() if m == mm]) for mm in (4096, 8192, 16384, 32768)
    ] == [40.99, 22.07, 19.87, 18.24]
    used = {mk: o for mk, o in got.items() if mk[0] >= 16384}
    assert {mk: round(o, 1) for mk, o in used.items()} == {
        (16384, 2048): 22.3,
        (16384, 4096): 19.1,
        (16384, 8192): 18.2,
        (16384, 16384): 21.3,
        (16384, 32768): 18.5,
        (32768, 2048): 20.7,
        (32768, 4096): 18.3,
        (32768, 8192): 17.5,
        (32768, 16384): 18.7,
        (32768, 32768): 16.0,
    }
    assert mean(list(used.values())) == 19.05
    assert (mean([o for (m, _), o in got.items() if m >= 8192]), mean(list(got.values()))) == (
        20.06,
        24.47,
    )
    assert round(sum(used.values()) / len(used)) == ROWWISE_INPUT_BYTES
    # at N 1,024 (M 32,768, K 8,192), the layer's element-wise work as the table's own
    # bfloat16 layer has it (LayerNorm forward and backward over M x K, 10 B an element;
    # the sigmoid over M x N, 10 B), the speedup the same o gives
    m, k, n = 32768, 8192, 1024
    b, f = gemms(n)
    work = (10 + 10 * n / k) / bw
    rowwise = f + (ROWWISE_RESCALE_BYTES + cast * n / k + ROWWISE_INPUT_BYTES) / bw
    assert round((b + work) / (rowwise + work), 2) == 0.65


def test_rowwise_wk_wv_as_torchtitan_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytorch/torchtitan#1319 (b0902b29a, "Fixes #1207") re-measured the June 2025 70B (256
    H100, FSDP 32, TP 8, full AC, rowwise, vanilla TP): ~600 tokens/s a GPU with attention.wk
    and attention.wv in rowwise FP8, ~660 without, the two narrow K/V projections (128 outputs
    a rank) 9.1% of the step. In the model their input casts alone are the layer pass with and
    without every Linear's input casts (ROWWISE_INPUT_BYTES at 0), forward, recomputed forward
    and backward, times wk's and wv's share of the cast inputs (2 x 8,192 of the 3 x 8,192 +
    1,024 + 2 x 8,192 + 3,584 elements a token a rank): the same as by hand (2 x 8,192
    elements a token, ROWWISE_INPUT_BYTES a pass at 0.8 x 2.4 TB/s), 2.55 s of the 80 layers'
    step of 29.7 s, 8.6% (2.42 s of 29.3 s, 8.2%, at 18 B an input element): not fitted to
    it (the constant is the per-shape table's), and their GEMMs, 2% of the layer's FLOPs, left
    where they are. (The published 9.1% is 1 - 600 / 660, #1319's figures, not a model's.)"""
    from dclint.projection.step import model
    from dclint.projection.step.model import _layer_pass
    from dclint.projection.step.records import ROWWISE_INPUT_BYTES

    run = _validation("torchtitan-asynctp-h100")["llama31-70b-256-tp8-rowwise-vanilla"]
    a, lay, mac, sw = _run_inputs(run)
    assert (lay.tp, lay.micro_batch, lay.recompute, a.hidden, a.layers) == (8, 16, "full", 8192, 80)
    cast = _layer_pass(a, lay, mac, sw)
    monkeypatch.setattr(model, "ROWWISE_INPUT_BYTES", 0.0)
    bare = _layer_pass(a, lay, mac, sw)
    monkeypatch.undo()
    t, h = lay.tp, a.hidden
    inputs = 3 * h + a.q / t + 2 * h + a.ffn / t
    assert (inputs, cast.m, cast.per_layer) == (8192 * 5 + 1024 + 3584, 1, 80)
    passes = (cast.fwd - bare.fwd) + (cast.rec - bare.rec) + (cast.bwd - bare.bwd)
    term = passes * 2 * h / inputs * cast.m * cast.per_layer
    n = 16 * 8192
    by_hand = 3 * ROWWISE_INPUT_BYTES / 2 * n * 2 * h / (mac.hbm * mac.hbm_eff) * a.layers
    assert term == pytest.approx(by_hand, rel=1e-12)
    step = float(prediction(run).step_time.m_as("s"))
    assert (round(term, 2), round(step, 1), round(100 * term / step, 1)) == (2.55, 29.7, 8.6)


def test_rowwise_async_tp_notes_agree() -> None:
    """The notes of a rowwise run say what the step model does: under TorchTitan's async TP at
    tp > 1 only the reduce-scatters fuse, each with its own matmul, the all-gathers blocking
    (pytorch/pytorch#149990), and the settings line names the reduce-scatters alone; at tp 1
    (torchao's 8B) neither the async-TP note nor the rowwise note's async-TP clause."""
    rowwise = (
        "torchao rowwise GEMMs: forward on PyTorch's CUTLASS row-wise kernel at 0.95 of cuBLAS's "
        "tensor-wise FP8 rate (pytorch/pytorch#147971: most shapes at 90-100%), backward on "
        "cuBLAS with the scales applied in a separate pass, 4 B an output element "
        "(pytorch/ao#1325); each Linear's input cast row-wise forward and column-wise backward, "
        "19 B an input element (dclint's derivation from torchao's per-shape rowwise table, "
        "H100: narrow outputs such as TorchTitan's wk and wv cost more than they gain)"
    )
    run = _validation("torchtitan-asynctp-h100")["llama31-70b-256-tp8-rowwise-async"]
    notes = prediction(run).assumptions
    assert [n for n in notes if "rowwise" in n and "async" in n] == [
        rowwise + "; under async TP only the reduce-scatters fuse, the all-gathers move BF16 "
        "before the cast and stay blocking (pytorch/pytorch#149990); fp8 runs only",
        "async tensor parallelism (PyTorch's micro-pipeline TP) under torchao's rowwise "
        "recipe: the forward and recomputed passes' reduce-scatters run on the copy engines, "
        "each under the matmul it is fused with (wo's, w2's); their all-gathers stay blocking "
        "(pytorch/pytorch#149990), as do the backward's collectives (no matmul-reduce-scatter "
        "pattern in the backward graph, pytorch/pytorch#149946)",
    ]
    step_line = next(n for n in notes if n.startswith("step model:"))
    assert "communication overlapped: TP reduce-scatters, DP, CP;" in step_line
    tp1 = _native("torchao-float8-h100", "llama3-8b-rowwise")
    assert tp1.wl.parallel.tp == 1
    notes = prediction(tp1).assumptions
    assert [n for n in notes if "rowwise GEMMs" in n or "async" in n] == [
        rowwise + "; fp8 runs only"
    ]
    step_line = next(n for n in notes if n.startswith("step model:"))
    assert "communication overlapped: DP, CP;" in step_line


def test_rowwise_gemms_run_below_tensorwise() -> None:
    """torchao rowwise on 8B: the forward GEMMs at 0.95 of the tensor-wise rate and the backward's
    outputs rescaled in a pass of their own, and each of the seven Linears' inputs cast twice
    (ROWWISE_INPUT_BYTES, half a pass): a layer's forward 8.614 ms against tensorwise's 6.849,
    its backward 18.64 against 15.787 (7.026 and 17.002 before the input casts; the amax bytes
    included). The input term by hand: 8,192 tokens x (3 x 4,096 for wq, wk, wv + 4,096 for wo
    + 2 x 4,096 for w1, w3 + 14,336 for w2) elements, 9.5 B each a pass, at 0.8 x 2.4 TB/s."""
    from dclint.projection.step.model import _layer_pass
    from dclint.projection.step.records import ROWWISE_INPUT_BYTES

    a, lay, mac, sw = _inputs("torchao-float8-h100: llama3-8b-rowwise")
    rowwise = _layer_pass(a, lay, mac, sw)
    tensorwise = _layer_pass(a, lay, mac, replace(sw, fp8_recipe="tensorwise"))
    assert (round(rowwise.fwd * 1e3, 3), round(tensorwise.fwd * 1e3, 3)) == (8.614, 6.849)
    assert (round(rowwise.bwd * 1e3, 3), round(tensorwise.bwd * 1e3, 3)) == (18.64, 15.787)
    by_hand = ROWWISE_INPUT_BYTES / 2 * 8192 * (3 * 4096 + 4096 + 2 * 4096 + 14336) / 1.92e12
    assert round(by_hand * 1e3, 3) == 1.577
    assert round((rowwise.fwd - by_hand) * 1e3, 3) == 7.037
    assert round((rowwise.bwd - by_hand) * 1e3, 3) == 17.063


def test_torchtitan_a100_runs_outside_the_calibration() -> None:
    """tests/validation/torchtitan-a100.yaml: TorchTitan's FSDP2 table on 64 A100 (its
    docs/performance.md at commit 0413364), six runs no band, ceiling or constant is derived
    from: predicted over published - 1, in the file's order, each within 6% (mean absolute
    3.5%). Added as calibration runs, their narrow A100 band would have held only 35 of
    llm-foundry's 54 rows leave-one-source-out."""
    path = ROOT / "tests" / "validation" / "torchtitan-a100.yaml"
    design = load_text(path.read_text(encoding="utf-8"), str(path))
    got = []
    for wl in design.workloads:
        hw = hardware_of(design, wl.platform)
        assert not isinstance(hw, str), hw
        got.append(round(100 * error(Run(design, wl, hw)), 1))
    assert got == [-1.6, 3.9, 4.6, 1.6, 5.3, 3.8]
    assert round(sum(abs(g) for g in got) / len(got), 1) == 3.5


def test_torchtitan_h200_runs_outside_the_calibration() -> None:
    """tests/validation/torchtitan-h200.yaml: TorchTitan's community benchmark of Llama 3.1 8B on 4
    and 8 hosts of 8 H200 (benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md; FSDP2, compile,
    Float8 tensorwise with FP8 all-gather, local batch 2, torchtitan e7c0cae), two runs no band,
    ceiling or constant is derived from: predicted over published - 1 (%), 32 and 64 GPUs, +5.6% and
    +7.2% (+7.3% at fef8168, before NCCL 2.23's ring latency and gradient clipping; +7.8%, +9.5% at
    MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back), both inside the band
    they carry (Hopper, 0.868-1.266; the run-level Hopper PyTorch-native band of before, 1.0-1.121,
    held both too). The model's H200 at 700 W runs the same workload 1.32x as fast as the H100 96 GB
    at 500 W of the calibration's TorchTitan rows (1.323x at MAMF's rates), 1.087x from the power
    alone and 1.233x from the HBM bandwidth alone (1.086x, 1.237x) (published, across the two
    studies' stacks and scales: 10,938 on 32 H200 over 8,380 on 128 H100, 1.305x); and published
    throughput a GPU falls 1.7% from 32 to 64 GPUs, the model's 0.1%. PAR004's memory a GPU, 46.95
    and 44.85 GiB, against the published 47.96 and 46.97."""
    rs = _validation("torchtitan-h200")
    got = [round(100 * error(r), 1) for r in rs.values()]
    assert got == [5.6, 7.2]
    assert round(sum(abs(g) for g in got) / len(got), 2) == 6.4
    bands = [prediction(r).band for r in rs.values()]
    assert [(round(b.low_factor, 3), round(b.high_factor, 3), b.outside) for b in bands] == [
        (0.868, 1.266, ()),
        (0.868, 1.266, ()),
    ]
    teton = _native("torchtitan-h100", "llama31-8b-128-fsdp-compile-float8")

    def per_gpu(r: Run) -> float:
        return float(prediction(r).tokens_per_second.m_as("token/s")) / r.wl.gpus

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s")) / r.wl.gpus

    small, big = rs.values()
    assert round(per_gpu(small) / per_gpu(Run(small.design, small.wl, teton.hw)), 3) == 1.319
    # of which the power alone (the H200 limited to the H100's 500 W) and the memory alone
    # (the H200 at the H100's 2.4 TB/s)
    hw = small.hw
    assert hw.platform is not None
    power = replace(
        hw, platform=hw.platform.model_copy(update={"gpu_power_limit": teton.hw.gpu.tdp})
    )
    memory = replace(
        hw, gpu=hw.gpu.model_copy(update={"hbm_bandwidth": teton.hw.gpu.hbm_bandwidth})
    )
    assert [
        round(per_gpu(small) / per_gpu(Run(small.design, small.wl, h)), 3) for h in (power, memory)
    ] == [1.087, 1.233]
    assert round(published(small) / published(teton), 3) == 1.305
    assert round(100 * (published(big) / published(small) - 1), 1) == -1.7
    assert round(100 * (per_gpu(big) / per_gpu(small) - 1), 1) == -0.1
    # PAR004's memory a GPU against the published Memory(GiB) at the 100th step: 47.96, 46.97
    from dclint.projection.memory import memory_per_gpu

    gib = [round(memory_per_gpu(r.wl, r.hw.blackwell).total.m_as("GiB"), 2) for r in (small, big)]
    assert gib == [46.95, 44.85]


def test_torchtitan_asynctp_h100_runs_outside_the_calibration() -> None:
    """tests/validation/torchtitan-asynctp-h100.yaml: TorchTitan's June 2025 async-TP
    benchmarks (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md, torchtitan 820504e) on
    Grand Teton H100 at 500 W, the throughput of each row (the gains of each pair are
    test_asynctp_gain_against_the_published_pairs'): predicted over published - 1 (%), 70B on
    256 GPUs (FSDP 32, TP 8, full AC) then 8B on 64 (FSDP 8, TP 8, per-op SAC), BF16, Float8
    tensorwise and rowwise, vanilla then async TP. With torchao's rowwise recipe casting each
    Linear's input (ROWWISE_INPUT_BYTES) and async TP's collectives each budgeted against the
    matmuls they are fused with (micro_pipeline_tp.py): the BF16 and Float8 tensorwise rows
    -10.1% to +2.6%, each within 10% but the 70B's async tensorwise row (-10.1%; -10.0% before
    the attention kernels ran at their rate for the run's sequence length, 7a808da), mean
    absolute 3.21% (3.25% at fef8168, before NCCL 2.23's ring latency and the gradient clipping,
    3.24% at 7a808da, 3.1% at a4d3cff;
    4.53% at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back); the
    rowwise rows, whose vanilla baseline the benchmark itself calls low (pytorch/torchtitan#1207:
    rowwise under TP slower than BF16 on 8B), -11.4% to -7.9%; all 12 5.11% (5.12% at fef8168, 5.08%
    at 7a808da, 4.99% at a4d3cff), 12 within 15%, all 12 in the Hopper band 0.868-1.266 they carry
    (4 in the run-level Hopper PyTorch-native band of before, 1.0-1.121). The rowwise AsyncTP gains,
    70B and 8B, are the model's 4.0 and 1.5 points against 4.2 and 5.6 published. Before
    torchao's rowwise input
    casts (issue 51's fourth round): the rowwise rows +21% to +36%, all 12 mean absolute 12.06%,
    8 within 15%, 9 of the 12 in the band each then carried (the rowwise rows at +31% and above
    above it). The model's Float8 tensorwise gain over BF16 under TP 8 falls short of the
    published at each pair (70B +26.3, +26.5 against +35.6, +44.5; 8B +13.9, +12.6 against
    +16.0, +15.8; async +31.2 and +9.9 before each collective was budgeted against its own
    matmuls; at MAMF's rates +23.3, +23.4 and +12.0, +10.5)."""
    rs = _validation("torchtitan-asynctp-h100")
    got = {wid: round(100 * error(r), 1) for wid, r in rs.items()}
    assert list(got.values()) == [
        0.2, 2.6, -6.6, -10.1, -8.1, -8.2,  # 70B: bf16, tensorwise, rowwise; vanilla, async
        2.2, -0.4, 0.4, -3.2, -7.9, -11.4,  # 8B
    ]  # fmt: skip
    plain = [abs(e) for w, e in got.items() if "rowwise" not in w]
    assert (
        len(plain) == 8
        and sorted(plain)[-2] <= 10
        and got["llama31-70b-256-tp8-tensorwise-async"] == -10.1
    )
    assert round(sum(plain) / 8, 2) == 3.21
    assert round(sum(abs(e) for e in got.values()) / 12, 2) == 5.11
    assert sum(abs(e) <= 15 for e in got.values()) == 12

    def gain(size: str, tps: Callable[[Run], float]) -> float:
        on, off = (rs[f"llama31-{size}-tp8-rowwise-{k}"] for k in ("async", "vanilla"))
        return round(100 * (tps(on) / tps(off) - 1), 1)

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s"))

    pairs = [(gain(s, _tokens), gain(s, published)) for s in ("70b-256", "8b-64")]
    assert pairs == [(4.0, 4.2), (1.5, 5.6)]
    # Float8 tensorwise over BF16 under TP 8 (vanilla, async): the model's gain short of the
    # published at each pair (its TP all-gathers in BF16; TorchTitan's Float8 TP gathers FP8)
    fp8 = [
        [
            round(
                100
                * (
                    tps(rs[f"llama31-{s}-tp8-tensorwise-{k}"])
                    / tps(rs[f"llama31-{s}-tp8-bf16-{k}"])
                    - 1
                ),
                1,
            )
            for k in ("vanilla", "async")
        ]
        for s in ("70b-256", "8b-64")
        for tps in (_tokens, published)
    ]
    assert fp8 == [[26.3, 26.5], [35.6, 44.5], [13.9, 12.6], [16.0, 15.8]]
    bands = {w: prediction(r).band for w, r in rs.items()}
    assert {
        (round(b.low_factor, 3), round(b.high_factor, 3), b.outside) for b in bands.values()
    } == {(0.868, 1.266, ())}
    outside = [w for w, b in bands.items() if not b.low_factor <= 1 + error(rs[w]) <= b.high_factor]
    assert outside == []
    assert sum(1.0 <= 1 + error(r) <= 1.121 for r in rs.values()) == 4


def test_llm_foundry_h100_fp8_runs_outside_the_calibration() -> None:
    """tests/validation/llm-foundry-h100-fp8.yaml: llm-foundry's "H100 80GB FP8" table (README
    at b2a43a147, the calibration's BF16 H100 table's commit; Transformer Engine v0.10 linear
    layers under Composer's amp_fp8, delayed scaling), 10 runs on 8 GPUs no band, ceiling or
    constant is derived from: predicted over published - 1 (%), in the file's order (3B at
    32K, 8K, 2K, 512; 1B at 32K, 8K, 512; 350M at 32K, 16K, 512). Since each te.Linear casts
    its own input (llm-foundry's fc_type te: the QKV's and the first FFN GEMM's BF16 inputs too,
    no LayerNormLinear) the rows are -3.6% to +14.0%, all within 15%, mean absolute 6.90% (6.89%
    at fef8168, before NCCL 2.23's ring latency and gradient clipping; 7.08% before that round,
    a4d3cff; 7.26% at MAMF's GEMM rates, before the GEMMs ran at a layer's
    shapes back to back); all 10 in the band they carry (Hopper, 0.868-1.266; 7 in the run-level
    Hopper PyTorch-native band of before, 1.0-1.121, whose top the 350M at 32K, +14.0%, lies
    above and whose 1.0 the 1B and 350M at 512, -3.6% and -1.9%, lie under); the 512-token rows
    closest (-3.6% to +1.9%; -2.0% to +3.7% at MAMF's rates). FP8 over BF16 at the 3B's 8K
    layout, which the BF16 table ran identically (micro-batch 3, 6 a step): +15.5% published,
    +16.9% in the model (+17.5% before); the 1B at 8K (micro-batch 2 in FP8, 3 in BF16) +9.8%
    and +11.3% (+11.9% before): the FP8 rate's factor (x0.967) above BF16's (x0.931) raises the
    model's FP8 gains."""
    rs = _validation("llm-foundry-h100-fp8")
    got = [round(100 * error(r), 1) for r in rs.values()]
    assert got == [12.1, 5.0, 3.8, 1.9, 8.4, 7.4, -3.6, 14.0, 10.9, -1.9]
    assert round(sum(abs(g) for g in got) / len(got), 2) == 6.9
    assert sum(abs(error(r)) <= 0.15 for r in rs.values()) == 10
    bands = {w: prediction(r).band for w, r in rs.items()}
    assert {
        (round(b.low_factor, 3), round(b.high_factor, 3), b.outside) for b in bands.values()
    } == {(0.868, 1.266, ())}
    outside = [w for w, b in bands.items() if not b.low_factor <= 1 + error(rs[w]) <= b.high_factor]
    assert outside == []

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s"))

    gains = []
    for size in ("3b", "1b"):
        fp8 = rs[f"mpt-{size}-h100-8gpu-8192-fp8"]
        bf16 = _native("llm-foundry", f"mpt-{size}-h100-8gpu-8192")
        gains.append(tuple(round(100 * (f(fp8) / f(bf16) - 1), 1) for f in (published, _tokens)))
    assert gains == [(15.5, 16.9), (9.8, 11.3)]
    three, bf16 = rs["mpt-3b-h100-8gpu-8192-fp8"], _native("llm-foundry", "mpt-3b-h100-8gpu-8192")
    assert (three.wl.micro_batch, three.wl.global_batch) == (
        bf16.wl.micro_batch,
        bf16.wl.global_batch,
    )


def test_torchao_mx_b200_runs_outside_the_calibration() -> None:
    """tests/validation/torchao-mx-b200.yaml: torchao's training benchmarks on B200 (the
    mx_formats README at d8bb51f63: Llama 3 8B under TorchTitan on 8 B200 "limited to 750W",
    batch 1, sequence 8,192, compile, FSDP2, per-op SAC), four runs no band, ceiling or
    constant is derived from, outside the calibration domain (no Blackwell PyTorch-native
    run): predicted over published - 1 (%), BF16, tensorwise with FP8 all-gather, mxfp8_cublas,
    rowwise: +100.8% to +125.8% (+101.5% to +126.9% before gradient clipping was charged;
    +121.1% to +142.6% at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to
    back; rowwise +155%, +175% before each converted Linear's input
    cast, ROWWISE_INPUT_BYTES), the BF16 row alone inside the envelope the prediction carries
    (0.721-1.995; none inside 0.722-1.986 before the head was charged Transformer Engine's fused
    cross-entropy, which moved the calibration runs' largest residual, nor 0.74-1.997 before). The
    same workload on H100 at 500 W (torchao's H100 table, a calibration
    run) published 6,150 a GPU: the B200 at 750 W ran it 1.351x as fast, the model 2.534x
    (2.669x). Over BF16 the published gains are +25.4% (tensorwise), +20.0% (MXFP8), +4.0%
    (rowwise); the model's +38.1%, +26.4%, +17.0% (+38.3%, +26.5%, +17.1% before gradient
    clipping was charged; MXFP8 +34.1% with Transformer Engine's cast
    terms, before TorchTitan's mxfp8 cast as torchao's MX linear does: each Linear's input,
    weight and output gradient, MX_CAST_BYTES, the row +125.2% -> +112.5%, the four's mean
    absolute 118.97% -> 115.8%; +36.4%, +34.2%, +14.1%; rowwise +17.7%,
    +14.8% at 18 B an input element of its casts, +31.3%, +29.1% before the input casts). Not
    the power limit
    (the model's BF16 at 1000 W: 17,930 a GPU; 19,709); NeMo's Llama 3 8B in FP8 on B200
    (Megatron-Bridge 25.11, a calibration run) published 2.94x this table's Float8 row a GPU."""
    rs = _validation("torchao-mx-b200")
    got = [round(100 * error(r), 1) for r in rs.values()]
    assert got == [100.8, 121.1, 111.5, 125.8]
    assert round(sum(abs(g) for g in got) / len(got), 2) == 114.8
    bands = [prediction(r).band for r in rs.values()]
    assert {(round(b.low_factor, 3), round(b.high_factor, 3), b.outside) for b in bands} == {
        (0.721, 1.995, ("no Blackwell PyTorch-native dense calibration run",))
    }
    assert [
        b.low_factor <= 1 + error(r) <= b.high_factor
        for b, r in zip(bands, rs.values(), strict=True)
    ] == [False, False, False, False]

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s"))

    bf16 = rs["llama3-8b-bf16"]
    h100 = _native("torchao-float8-h100", "llama3-8b-bf16")
    assert (h100.wl.global_batch, h100.wl.sequence_length) == (
        bf16.wl.global_batch,
        bf16.wl.sequence_length,
    )
    assert [round(f(bf16) / f(h100), 3) for f in (published, _tokens)] == [1.351, 2.534]
    gains = [
        (
            round(100 * (published(r) / published(bf16) - 1), 1),
            round(100 * (_tokens(r) / _tokens(bf16) - 1), 1),
        )
        for w, r in rs.items()
        if w != "llama3-8b-bf16"
    ]
    assert gains == [(25.4, 38.1), (20.0, 26.4), (4.0, 17.0)]
    # not the power limit: at B200's 1000 W the model's BF16 figure a GPU
    hw = bf16.hw
    assert hw.platform is not None
    full = replace(hw, platform=hw.platform.model_copy(update={"gpu_power_limit": None}))
    assert round(_tokens(Run(bf16.design, bf16.wl, full)) / bf16.wl.gpus) == 17930
    # NeMo's Llama 3 8B in FP8 on B200 (a calibration run) a GPU over this table's Float8 row
    nemo = _native("megatron-bridge-25.11-b200", "llama3-8b-8")
    tensorwise = rs["llama3-8b-tensorwise-fp8-all-gather"]
    ratio = (published(nemo) / nemo.wl.gpus) / (published(tensorwise) / tensorwise.wl.gpus)
    assert round(ratio, 2) == 2.94


def test_kempnerforge_h200_runs_outside_the_calibration() -> None:
    """tests/validation/kempnerforge-h200.yaml: KempnerForge's MFU benchmark (its
    benchmarks/mfu_scaling report of 2026-04-05, git 01b461a): 14 runs of Llama-3-style 7B, 13B
    and 70B on 1 to 32 H200, 4 a node (FSDP2, TP with sequence parallelism, compile, full
    recomputation, sequence 4,096; gradient_sync last-micro-batch, as KempnerForge's
    maybe_no_sync runs it; tp_plan per-projection: each of q, k, v, gate and up all-gathers its
    own input, the logits all-gathered, as kempnerforge/distributed/tensor_parallel.py builds
    it), on cuDNN's attention (attention_kernel cudnn: torch 2.11 with cuDNN 9.19 puts SDPA's
    cuDNN backend first on sm90) with AdamW on their bf16 model (ADAM_BF16_BYTES), no band,
    ceiling or constant derived from them: predicted over published - 1 (%), in the report's
    order. Mean absolute 7.92%, 13 within 15% (7.91% at fef8168, before NCCL 2.23's ring latency
    and gradient clipping; 7.45% at MAMF's GEMM rates, before the GEMMs ran
    at a layer's shapes back to back); all 14 in the band they carry: the six runs on 1 to 4
    GPUs outside the domain, in the envelope, the other 8 in the Hopper band (0.868-1.266). The
    7B at TP 4 loses throughput a GPU with nodes that the model does not: -12.1%, -3.5%, +1.3%,
    +6.9% on 4, 8, 16 and 32 GPUs; the TP 2 runs on one node +14.1% and +15.5% (-11.9%, -3.4%,
    +1.4%, +7.0%; +14.4%, +15.7% at fef8168). On
    FlashAttention-2's kernels with the fp32 optimizer's bytes (b23d062): 9.13%, 12 within 15%
    (8.96%, 13, at 7a808da, before the attention kernels ran at their rate for the sequence
    length). The rest at b23d062: compiled, the full recomputation re-runs 4 of the 7 a pass,
    what the backward needs (9.13% against 9.75% charging it 7). Under Megatron's plan (tp_plan
    megatron, four TP collectives a layer's pass for seven): mean absolute 11.18%, 9 within
    15%; the TP 2 runs +16.6% and +18.4%, the TP 4 7B -0.1%, +9.4%, +14.8%, +21.1%, the 13B at
    TP 4 +3.3%, +3.3%, +5.7%, the 70B +19.1%.
    Syncing every micro-batch as well (TorchTitan's way, the model's before gradient_sync):
    mean absolute 9.11%, 10 within 15%, the 70B -3.3%."""
    rs = _validation("kempnerforge-h200")
    got = {w: round(100 * error(r), 1) for w, r in rs.items()}
    assert list(got.values()) == [
        -14.9, -5.3, 14.1, -6.9, -12.1, 15.5,  # 1 node: 1, 2, 4 GPUs
        -3.5, 0.7, -6.7, 1.3, -6.6, 6.9, -4.3, 12.1,  # 2 to 8 nodes
    ]  # fmt: skip
    assert round(sum(abs(e) for e in got.values()) / 14, 2) == 7.92
    assert sum(abs(error(r)) <= 0.15 for r in rs.values()) == 13
    bands = {w: prediction(r).band for w, r in rs.items()}
    assert [w for w, b in bands.items() if b.outside] == list(rs)[:6]
    assert {(b.low_factor, b.high_factor) for w, b in bands.items() if not b.outside} == {
        (0.868, 1.266)
    }
    outside = [w for w, b in bands.items() if not b.low_factor <= 1 + error(rs[w]) <= b.high_factor]
    assert outside == []


def test_kempnerforge_rows_run_their_own_tp_plan() -> None:
    """KempnerForge's 25 rows declare the TP plan its code builds (tp_plan per-projection:
    kempnerforge/distributed/tensor_parallel.py at 01b461a, ColwiseParallel(input_layouts=
    Shard(1)) on q, k, v, gate and up), and those with tp > 1 say so in their assumptions with
    the count the step model charges: 7 collectives a layer's pass for Megatron's 4 (a SwiGLU
    MLP). Every preset keeps Megatron's plan (Megatron-Core's fused QKV and fc1; TorchTitan's
    PrepareModuleInput on attention and feed_forward, parallelize_llama.py at 9dec370, 820504e
    and e7c0cae; llm-foundry and DeepSpeed run no TP)."""
    from dclint.model.software import DEFAULTS, PRESETS

    assert {s.tp_plan for s in (DEFAULTS, *PRESETS.values())} == {"megatron"}
    named = {}
    for stem in ("kempnerforge-h200", "kempnerforge-h200-scaling"):
        for w, r in _validation(stem).items():
            assert r.wl.software_in_effect.tp_plan == "per-projection"
            notes = [a for a in prediction(r).assumptions if a.startswith("tensor parallel per")]
            named[w] = (r.wl.parallel.tp, len(notes))
            if notes:
                assert "7 collectives a layer's pass where Megatron's plan has 4" in notes[0]
    assert {v for v in named.values()} == {(1, 0), (2, 1), (4, 1)}
    assert sum(tp > 1 for tp, _ in named.values()) == 21  # 10 of the 14, all 11 weak-scaling


def test_kempnerforge_h200_weak_scaling_outside_the_calibration() -> None:
    """tests/validation/kempnerforge-h200-scaling.yaml: KempnerForge's weak scaling of its 13B
    and 70B from 8 to 160 H200 (benchmarks/weak_scaling_160gpu, 2026-06-30, git 3ad9d9a; TP 4 x
    FSDP, compile, full recomputation, sequence 4,096; gradient_sync last-micro-batch, as
    KempnerForge's maybe_no_sync runs it; tp_plan per-projection, its TP plan): predicted over
    published - 1 (%), 13B then 70B by GPU count, on cuDNN's attention with AdamW on their bf16
    model (kempnerforge-h200.yaml's header). The 13B -9.6% to -6.6% from 32 GPUs on and -14.5%
    on 8 (at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back, -6.4% to
    -3.8%, -11.4%); the 70B +5.9% to +8.4% from 32 GPUs on (+8.2% to +10.6%), and +24.5% on 8
    (+27.3%) as its pre-flight log ran it (at fef8168, before NCCL 2.23's ring latency and
    gradient clipping: the 13B -9.6% to -6.5%, the 70B +6.1% to +9.1% and +24.7%), micro-batch 1
    with 8 a step and no compile (the point the report calls memory-bound, 128.5 of 141 GB, and
    leaves out of its baseline: 70.6 GB of it the unsharded fp32 gradients the last-micro-batch sync
    keeps; not compiled, its recomputation re-runs all 7 collectives a pass). Mean absolute 9.79%,
    10 within 15% (9.95% at fef8168, before NCCL 2.23's ring latency and gradient clipping; 10.38%,
    9, on FlashAttention-2's kernels with the fp32 optimizer's bytes, b23d062; 10.32% at 7a808da).
    At b23d062, under Megatron's plan (tp_plan megatron): the 13B -0.1% to +3.3%
    from 32 GPUs and -5.4% on 8, the 70B +12.5% to +15.4% and +34.5% on 8; 10.61%, 8 within
    15%. Syncing every micro-batch as well (the model's before gradient_sync): the 13B -7.3% to
    -0.7%, the 70B -8.7% to -11.3% from 32 GPUs and +3.4% on 8; 6.31%, 11 within 15%.
    Throughput a GPU from 32 to 160 GPUs: published -3.1% (13B) and -8.4% (70B), the model's
    -1.3% and -6.3% (-0.9% and -5.8% at fef8168; -5.7% at b23d062; there -1.0% and -6.1% under
    Megatron's plan, -1.5% and -9.9% syncing every micro-batch). The band (Hopper, 0.868-1.266)
    holds 10 of the 11, not the 13B on 8 GPUs (10 of 11 under Megatron's plan at b23d062 too, not
    the 70B on 8 GPUs)."""
    rs = _validation("kempnerforge-h200-scaling")
    got = [round(100 * error(r), 1) for r in rs.values()]
    assert got == [-14.5, -9.6, -8.3, -6.6, -7.9, 24.5, 5.9, 6.8, 8.4, 6.8, 8.4]  # fmt: skip
    assert round(sum(abs(g) for g in got) / len(got), 2) == 9.79
    assert sum(abs(error(r)) <= 0.15 for r in rs.values()) == 10
    bands = {w: prediction(r).band for w, r in rs.items()}
    assert {
        (round(b.low_factor, 3), round(b.high_factor, 3), b.outside) for b in bands.values()
    } == {(0.868, 1.266, ())}
    outside = [w for w, b in bands.items() if not b.low_factor <= 1 + error(rs[w]) <= b.high_factor]
    assert outside == ["13b-008gpu-tp4-fsdp2"]

    def per_gpu(r: Run, tps: Callable[[Run], float]) -> float:
        return tps(r) / r.wl.gpus

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s"))

    falls = []
    for m in ("13b", "70b"):
        small, big = rs[f"{m}-032gpu-tp4-fsdp8"], rs[f"{m}-160gpu-tp4-fsdp40"]
        falls.append(
            tuple(
                round(100 * (per_gpu(big, f) / per_gpu(small, f) - 1), 1)
                for f in (published, _tokens)
            )
        )
    assert falls == [(-3.1, -1.3), (-8.4, -6.3)]


def test_llm_foundry_h100_large_scale_runs_outside_the_calibration() -> None:
    """tests/validation/llm-foundry-h100-large.yaml: llm-foundry's "H100 80GB BF16 (Large
    Scale, >= 128 GPUs)" table (README at 5e85bd62d), 18 runs no band, ceiling or constant is
    derived from: predicted over published - 1 (%), in the file's order (70B, 30B, 13B, 7B,
    3B, 1B; 512, 256, 128 GPUs each). The rows that ran FlashAttention-2 (attn_impl flash with
    flash-attn 2.4.2, as the table's sweep.py states: 1B, 3B, 7B, 70B) are declared at its
    measured H100 rates (attention_kernel flash2; as flash, cuDNN's 1.6x faster kernels, they
    come out 3.4 to 9.9 points higher, 17.5% mean absolute error against 10.72%). They are still
    over-predicted more than the Triton rows (13B, 30B), the three without checkpointing most;
    and every model's error grows from 128 to 512 GPUs (published throughput a GPU falls 4.9%
    for the 70B, 9.7% for the 1B; the model's 0.3% and 1.5%), which no public source explains
    (docs/performance-model.md, *Attention by sequence length*). FlashAttention-2 at its rate for
    the runs' 2,048 tokens (298, 362 and 291 TFLOPS, not 16K's 335, 370 and 322) and llm-foundry's
    flash path paying its padding copies (VARLEN_PAD_PASSES): the flash2 rows 10.73% mean absolute
    (14.7% before both, 7a808da), all 18 8.61%, 16 within 15% (11.25%, 13 before; 13.8% and
    12 at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back:
    efficiency.AT_LAYER)."""
    rs = _validation("llm-foundry-h100-large")
    got = {wid: round(100 * error(run), 1) for wid, run in rs.items()}
    assert list(got.values()) == [
        7.8, 5.1, 2.9,  # 70B, FlashAttention-2
        7.9, 6.5, 4.3,  # 30B, triton
        3.4, 2.8, 1.1,  # 13B, triton
        17.9, 13.7, 10.3,  # 7B, FlashAttention-2
        14.5, 10.0, 7.4,  # 3B, FlashAttention-2
        18.5, 12.0, 8.5,  # 1B, FlashAttention-2
    ]  # fmt: skip
    flash2 = [
        abs(e) for w, e in got.items() if rs[w].wl.software_in_effect.attention_kernel == "flash2"
    ]
    triton = [
        abs(e) for w, e in got.items() if rs[w].wl.software_in_effect.attention_kernel == "triton"
    ]
    assert (len(flash2), len(triton)) == (12, 6)
    assert round(sum(flash2) / 12, 2) == 10.72 and round(sum(triton) / 6, 2) == 4.33
    # flash2 names the flash-attn package's own FlashAttention-2 kernels, which PyTorch SDPA's
    # flash backend bundles: sdpa's rates, a different note in the assumptions; under
    # llm-foundry the varlen call's padding copies on top (0.5207 s against 0.5027 s a step)
    one = rs["mpt-1b-h100-512gpu-2048"]
    as_sdpa = prediction(one, _declared(one, software={"attention_kernel": "sdpa"}))
    assert round(as_sdpa.step_time.m_as("s"), 4) == 0.5027
    assert round(prediction(one).step_time.m_as("s"), 4) == 0.5207
    notes = [n for n in prediction(one).assumptions if n.startswith("core attention in")]
    assert notes == [f"core attention in the flash-attn package's FlashAttention-2: {SDPA_SOURCE}"]
    padding = [n for n in prediction(one).assumptions if "VARLEN_PAD_PASSES" in n]
    assert len(padding) == 1 and padding[0].startswith("llm-foundry's attn_impl flash gathers")
    assert not [n for n in as_sdpa.assumptions if "VARLEN_PAD_PASSES" in n]
    assert round(sum(abs(e) for e in got.values()) / 18, 2) == 8.59
    assert sum(abs(e) <= 15 for e in got.values()) == 16
    # the band each prediction carries (Hopper, 0.868-1.266) holds all 18 (the 1B on 512 GPUs,
    # +18.5%, too); the run-level Hopper PyTorch-native band of before (1.0-1.121) holds 14 (10
    # before the attention rates by sequence length and the padding copies, 7a808da)
    bands = {w: prediction(r).band for w, r in rs.items()}
    assert {(round(b.low_factor, 3), round(b.high_factor, 3)) for b in bands.values()} == {
        (0.868, 1.266)
    }
    outside = [w for w, b in bands.items() if not b.low_factor <= 1 + error(rs[w]) <= b.high_factor]
    assert outside == []
    assert sum(1.0 <= 1 + error(r) <= 1.121 for r in rs.values()) == 14

    def fall(m: str, tps: Callable[[Run], float]) -> float:
        # throughput a GPU at 512 GPUs over 128, minus one (%)
        big, small = rs[f"mpt-{m}-h100-512gpu-2048"], rs[f"mpt-{m}-h100-128gpu-2048"]
        return round(100 * (tps(big) / big.wl.gpus / (tps(small) / small.wl.gpus) - 1), 1)

    def published(r: Run) -> float:
        assert r.wl.tokens_per_second is not None
        return float(r.wl.tokens_per_second.m_as("token/s"))

    def model(r: Run) -> float:
        return float(prediction(r).tokens_per_second.m_as("token/s"))

    assert [(fall(m, published), fall(m, model)) for m in ("70b", "1b")] == [
        (-4.9, -0.3),
        (-9.7, -1.5),
    ]


def _totals() -> tuple[
    float, int, float, int, float, tuple[int, int, int], tuple[float, int], tuple[float, int]
]:
    """All 164 runs' mean absolute error (%) and within-15% count, the PyTorch-native 75's, the
    Megatron dense runs' mean absolute error (%), the leave-one-source-out band coverage (all,
    Megatron family, PyTorch-native), and two held-out sets' mean absolute error (%) and
    within-15% count: llm-foundry's *Large Scale* H100 rows and DGX Cloud Benchmarking's 20;
    each rounded as the docs print them."""
    from dclint.projection.uncertainty import BAND_QUANTILE

    errors = [(r, error(r)) for r in runs()]
    every = [abs(e) for _, e in errors]
    native = [abs(e) for r, e in errors if r.design.name in PYTORCH]
    dense = [
        abs(e)
        for r, e in errors
        if not r.moe and r.design.name != MLPERF and r.design.name not in PYTORCH
    ]
    inside, _, per, _ = _held_out(BAND_QUANTILE)
    held = [
        [abs(error(r)) for r in _validation(stem).values()]
        for stem in ("llm-foundry-h100-large", "dgxc-benchmarking")
    ]
    large, dgxc = ((round(100 * sum(v) / len(v), 2), sum(e <= 0.15 for e in v)) for v in held)
    return (
        round(100 * sum(every) / len(every), 2),
        sum(e <= 0.15 for e in every),
        round(100 * sum(native) / len(native), 2),
        sum(e <= 0.15 for e in native),
        round(100 * sum(dense) / len(dense), 2),
        (
            inside,
            sum(h for k, (h, _) in per.items() if k not in PYTORCH),
            sum(h for k, (h, _) in per.items() if k in PYTORCH),
        ),
        large,
        dgxc,
    )


def test_hopper_optimism_follows_the_stack_not_the_generation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Checked and not the cause (docs/performance-model.md, PyTorch-native runs, H100 against
    A100): a Hopper rate below the guide's. With the GEMMs at a layer's shapes back to back
    (efficiency.AT_LAYER) the PyTorch-native H100 BF16 runs are still over-predicted on
    average (32, -1.1% to +33.8%, signed mean +5.18%, +5.24% at fef8168, before NCCL 2.23's ring
    latency and gradient clipping; +2.2% to +39.7%, +9.15% at MAMF's rates), the Megatron-Core
    0.8 H100 BF16 rows under (11, signed -8.60%, -8.58% at fef8168; -4.68%),
    llm-foundry's A100 rows not biased (-0.35%). So each further generation-level form
    measured at MAMF's rates (AT_LAYER emptied), Hopper's BF16 matmul rate x 0.95 or x 0.90,
    or a sustained clock of 0.95 on every Hopper GEMM and attention rate (the power rule's
    reference raised to 700 / 0.95^3 W), lowers the 164 runs' and the native runs' errors and
    raises the Megatron dense runs' (7.56% at MAMF's rates; 7.47% before the head was charged
    Transformer Engine's fused cross-entropy, 6.87% before the step was timed on the pipeline
    stage that binds): none is adopted. And the shortest-K rows are not
    the most over-predicted: llm-foundry's H100 models of hidden under 4,096 (760M, 1B, 3B)
    come out +3.06% on average, the 7B to 70B +5.42% (+3.07% and +5.46% at fef8168; the 30B at 8K, a
    miss of its own, left out)."""
    from dclint.projection import efficiency

    signed: dict[str, list[float]] = {"native": [], "mcore": [], "a100": []}
    for r in runs():
        if r.wl.precision != "bf16" or r.moe:
            continue
        if r.generation == "hopper" and r.design.name in PYTORCH:
            signed["native"].append(error(r))
        elif r.design.name == MCORE:
            signed["mcore"].append(error(r))
        elif r.generation == "ampere" and r.design.name == "llm-foundry":
            signed["a100"].append(error(r))
    assert {k: (len(v), round(100 * sum(v) / len(v), 2)) for k, v in signed.items()} == {
        "native": (32, 5.18),
        "mcore": (11, -8.59),
        "a100": (27, -0.35),
    }
    assert (round(100 * min(signed["native"]), 1), round(100 * max(signed["native"]), 1)) == (
        -1.1,
        33.8,
    )

    short_k, long_k = [], []
    for r in runs():
        # the 30B at 8K, a miss of its own (its micro-batch), left out
        if (
            r.design.name != "llm-foundry"
            or r.generation != "hopper"
            or "30b-h100-8gpu-8" in r.name
        ):
            continue
        (short_k if _inputs(r.name)[0].hidden < 4096 else long_k).append(error(r))
    assert [(len(v), round(100 * sum(v) / len(v), 2)) for v in (short_k, long_k)] == [
        (12, 3.06),
        (14, 5.42),
    ]

    # the probes, each against MAMF's rates (the model before AT_LAYER)
    monkeypatch.setattr(efficiency, "AT_LAYER", {})
    bf16 = efficiency._MATMUL[("hopper", "bf16")]
    got = {}
    for factor in (0.95, 0.90):
        monkeypatch.setitem(efficiency._MATMUL, ("hopper", "bf16"), (bf16[0] * factor, *bf16[1:]))
        got[f"bf16 x{factor:.2f}"] = _totals()
    monkeypatch.setitem(efficiency._MATMUL, ("hopper", "bf16"), bf16)
    monkeypatch.setitem(efficiency._MEASURED_AT_W, "hopper", 700.0 / 0.95**3)
    got["clock x0.95"] = _totals()
    assert got == {
        "bf16 x0.95": (9.9, 143, 7.37, 69, 7.95, (147, 74, 73), (10.05, 14), (19.85, 2)),
        "bf16 x0.90": (9.39, 142, 6.27, 69, 8.37, (147, 73, 74), (6.33, 16), (19.98, 2)),
        "clock x0.95": (9.39, 145, 6.27, 71, 8.03, (149, 76, 73), (9.56, 15), (19.99, 2)),
    }


def test_gemms_at_a_layers_shapes_measured_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """efficiency.AT_LAYER, Transformer Engine's GEMM profiling guide on H200 NVL (its clock
    from its datasheet) and B300, adopted on both generations and every precision the guide
    measured, against MAMF's rates alone, each generation alone, and the H200 NVL read at the
    power rule's clock (docs/performance-model.md, GEMMs at a layer's shapes): 164 runs' MAE
    and within 15%, native, Megatron dense, leave-one-source-out (all, Megatron, native),
    llm-foundry *Large Scale* and DGX Cloud held out (MAE, within 15%). Adopted, every total
    improves and the leave-one-source-out coverage of the bands holds (148 of 164 -> 147; 76
    of 89 and 72 of 75 -> 74 and 73, each over 80%; 148 either way, 74 and 74, before ce15's
    sourced mends; 148 -> 146 before the head was charged
    Transformer Engine's fused cross-entropy and the MoE layers lost the dense MLP's tp
    collectives). When it was adopted, before the step was timed on the
    pipeline stage that binds, the Megatron dense mean rose too (6.87% -> 6.98%, under the 8%
    its test asks; now 7.55% -> 6.47%), the coverage went 148 -> 147 (with the run-level bands
    of before, 150 -> 147), and the power-rule reading took the Megatron dense mean to 8.45%,
    over 8% (now 7.85%)."""
    from dclint.projection import efficiency
    from dclint.projection.efficiency import power_clock

    full = dict(efficiency.AT_LAYER)
    got = {"adopted": _totals()}
    for name, part in (
        ("MAMF", {}),
        ("Hopper alone", {k: v for k, v in full.items() if k[0] == "hopper"}),
        ("Blackwell alone", {k: v for k, v in full.items() if k[0] == "blackwell"}),
    ):
        monkeypatch.setattr(efficiency, "AT_LAYER", part)
        got[name] = _totals()
    clock = power_clock("hopper", 600.0)
    assert clock is not None and round(clock[0], 3) == 0.95
    monkeypatch.setitem(
        efficiency._GUIDE_PARTS,
        "H200 NVL",
        ("hopper", {"bf16": 989.0 * clock[0], "fp8": 1979.0 * clock[0]}),
    )
    rule = efficiency._at_layer()
    assert {k: round(v[0], 3) for k, v in rule.items() if k[0] == "hopper"} == {
        ("hopper", "bf16"): 0.828,
        ("hopper", "fp8"): 0.859,
    }
    monkeypatch.setattr(efficiency, "AT_LAYER", rule)
    got["power rule"] = _totals()
    assert got == {
        "adopted": (8.6, 145, 6.78, 69, 6.47, (147, 74, 73), (8.58, 16), (8.94, 20)),
        "MAMF": (10.47, 140, 8.57, 68, 7.55, (148, 76, 72), (13.78, 12), (20.03, 2)),
        "Hopper alone": (9.63, 143, 6.78, 69, 8.14, (147, 74, 73), (8.58, 16), (19.95, 2)),
        "Blackwell alone": (9.43, 142, 8.57, 68, 5.87, (149, 76, 73), (13.78, 12), (9.02, 20)),
        "power rule": (8.2, 141, 5.74, 71, 7.84, (147, 73, 74), (4.66, 18), (9.65, 20)),
    }
    # docs/performance-model.md's table (Constants) prints each row's leave-one-out now
    names = {
        "MAMF's (before)": "MAMF",
        "the guide's, both generations (adopted)": "adopted",
        "the guide's, Hopper alone": "Hopper alone",
        "the guide's, Blackwell alone": "Blackwell alone",
        "the guide's, the NVL at the power rule's clock": "power rule",
    }
    printed = {names[row[0]]: row[4].split("now ")[1] for row in _docs_table("| GEMM rates |")}
    assert printed == {k: "{} ({}, {})".format(*v[5]) for k, v in got.items()}


def _gemm_guide() -> dict[tuple[str, str], tuple[float, float]]:
    """Transformer Engine's GEMM profiling guide against the model at MAMF's rates: (part,
    precision) -> (the model's time of the layer's 12 GEMMs in ms, the published time over
    it), counted here from the guide's shapes, independently of efficiency.py."""
    from dclint.projection.efficiency import _MATMUL, SMS, tile_share

    tokens, hidden, qkv, ffn = 15872, 4096, 12288, 16384
    shapes = []
    for out, k in ((qkv, hidden), (hidden, hidden), (ffn, hidden), (hidden, ffn)):
        # forward (tokens x out), data gradient (tokens x k), weight gradient (k x out)
        shapes += [(tokens, out, k), (tokens, k, out), (k, out, tokens)]
    flops = sum(2 * m * n * k for m, n, k in shapes)
    assert round(flops / 1e12, 2) == 19.17  # the guide's "~19.17" a layer
    got = {}
    for part, generation, precision, clock, published in (
        ("B300", "blackwell", "bf16", 1.0, 13.102),
        ("B300", "blackwell", "fp8", 1.0, 6.812),
        ("B300", "blackwell", "fp4", 1.0, 3.764),
        # the NVL's clock from its datasheet: 835.5 and 1,670.5 dense TFLOPS against the
        # SXM parts' 989 and 1,979
        ("H200 NVL", "hopper", "bf16", 835.5 / 989.0, 31.968),
        ("H200 NVL", "hopper", "fp8", 1670.5 / 1979.0, 16.785),
    ):
        rate = _MATMUL[(generation, precision)][0] * 1e12 * clock
        sms = SMS[generation]
        model = sum(2 * m * n * k / (rate * tile_share(m, n, sms)) for m, n, k in shapes)
        got[(part, precision)] = (model * 1e3, published / (model * 1e3))
    return got


def test_transformer_engine_gemm_guide_against_the_model_rates() -> None:
    """Transformer Engine's GEMM profiling guide (docs/examples/gemm_profiling/
    gemm_profiling.rst at 8f2e635; benchmarks/gemm/benchmark_gemm.py: 100 back-to-back calls
    timed with CUDA events, inputs pre-quantized) times a layer's 12 GEMMs (hidden 4,096, fused
    QKV 12,288, ffn 16,384, 15,872 tokens): B300 SXM BF16 13.102 ms, FP8 current scaling 6.812
    ms and NVFP4 3.764 ms, H200 NVL (600 W) 31.968 ms and 16.785 ms. MAMF's rates with their
    tile and wave quantization (B300 at B200's rates, as the model runs it; the H200 NVL at
    its datasheet's 835.5 and 1,670.5 dense TFLOPS against the SXM's 989 and 1,979) put those
    GEMMs at 11.329, 5.760, 2.880, 29.759 and 16.232 ms: the published times are 1.156x,
    1.183x, 1.307x, 1.074x and 1.034x, and efficiency.AT_LAYER, the factor the model's GEMM
    rates take at a layer's shapes back to back, is their inverse (and MXFP8_GEMM_RATE the
    guide's 6.812 / 7.161)."""
    from dclint.projection.efficiency import AT_LAYER, MXFP8_GEMM_RATE

    guide = _gemm_guide()
    got = {k: (round(ms, 3), round(r, 3)) for k, (ms, r) in guide.items()}
    assert got == {
        ("B300", "bf16"): (11.329, 1.156),
        ("B300", "fp8"): (5.76, 1.183),
        ("B300", "fp4"): (2.88, 1.307),
        ("H200 NVL", "bf16"): (29.759, 1.074),
        ("H200 NVL", "fp8"): (16.232, 1.034),
    }
    generation = {"B300": "blackwell", "H200 NVL": "hopper"}
    assert {
        (generation[p], f): pytest.approx(1 / r, rel=1e-12) for (p, f), (_, r) in guide.items()
    } == {k: v for k, (v, _) in AT_LAYER.items()}
    assert round(MXFP8_GEMM_RATE, 3) == 0.951


def test_fsdp_scale_loss_against_the_ring_latency_of_its_collectives() -> None:
    """docs/performance-model.md, *FSDP's loss with scale, the candidates*: llm-foundry's
    large-scale H100 rows (tests/validation/, one micro-batch a step) from 128 GPUs to 256 and
    512. Each model's published step grows by at least the growth of the NCCL ring latency of
    its FSDP collectives a step (NCCL's cost model as `group_time` charges it: one collective a
    block, the latency on the fastest protocol; a gather and a reduce-scatter a block, two
    gathers with FULL_SHARD), and the model's own step by less: the model holds that latency
    under the blocks' compute (charging FSDP_SM_SHARE of it), as FSDP's prefetching schedules
    it, and no public source found says it does not. Step growth in ms (published, model,
    latency a step) at 256 and at 512 GPUs; on A100 the published growth is 6 times the
    latency's."""
    from dclint.projection.collectives import group_time
    from dclint.projection.step.model import ACT

    rs = _validation("llm-foundry-h100-large")

    def latency(r: Run) -> float:
        assert r.micro_batches == 1, r.name  # one gather (two) and one reduce-scatter a block
        a, lay, mac, sw = _run_inputs(r)
        assert not a.experts, r.name  # dense: a GPU holds its tp x pp share, sharded over dp x cp
        local, ranks = a.dense_params / (lay.tp * lay.pp), lay.dp * lay.cp
        share, links = (ranks - 1) / ranks, mac.links
        total = 0.0
        for size, times in (
            (share * local * ACT, 2 if lay.reshard else 1),
            (share * local * sw.grad_bytes, 1),
        ):
            calls = group_time(links, size, ranks, lay.tp, calls=a.layers)
            total += times * (calls - group_time(links, size, ranks, lay.tp))
        return total

    def steps(r: Run) -> tuple[float, float, float]:
        assert r.wl.tokens_per_second is not None
        tokens = r.wl.global_batch * r.wl.sequence_length
        published = tokens / float(r.wl.tokens_per_second.m_as("token/s"))
        return published, float(prediction(r).step_time.m_as("s")), latency(r)

    got = {}
    for m in ("70b", "30b", "13b", "7b", "3b", "1b"):
        base = steps(rs[f"mpt-{m}-h100-128gpu-2048"])
        got[m] = tuple(
            tuple(
                round(1e3 * (x - x0))
                for x, x0 in zip(steps(rs[f"mpt-{m}-h100-{g}gpu-2048"]), base, strict=True)
            )
            for g in (256, 512)
        )
    assert got == {
        "70b": ((340, 18, 145), (790, 52, 361)),
        "30b": ((176, 12, 87), (293, 31, 197)),
        "13b": ((118, 8, 48), (166, 20, 115)),
        "7b": ((41, 5, 30), (98, 14, 83)),
        "3b": ((20, 3, 18), (57, 9, 53)),
        "1b": ((21, 2, 13), (60, 8, 40)),
    }
    for at256, at512 in got.values():
        for published, model, lat in (at256, at512):
            assert published >= lat > model
    # on A100 the shape does not hold: MPT 7B on A100 40 GB (calibration), 32 -> 128 GPUs
    small, large = (_native("llm-foundry", f"mpt-7b-a100-40gb-{g}gpu-2048") for g in (32, 128))
    assert round(1e3 * latency(small), 1) == 14.0 and round(1e3 * latency(large), 1) == 57.5
    growth = [round(1e3 * (x - x0)) for x, x0 in zip(steps(large), steps(small), strict=True)]
    assert growth == [279, -1, 44]


def test_pytorch_context_parallel_gathers_q_wide_chunks_under_the_first_one() -> None:
    """TorchTitan's 405B at CP 8 (cp ranks tp 8 apart, on 8 nodes), eager (no torch.compile):
    PyTorch's ring moves K and V repeated to the 128 query heads and all-gathers them under the
    first chunk's attention: its context-parallel time is 11.826 s (the busiest stage's 16
    layers; the backward's c fp32 dK, dV sends each under the next step's attention but the
    last, exposed after the loop: 10.108 s when c - 1 of them hid under the backward's
    attention), where Megatron-Core's ring (kv wide, each step under the whole attention) hides
    all but the SM share: 0.023 s. Compiled, as the table ran it, nothing hides: 31.783 s
    (test_compiled_context_parallel_waits_on_each_collective_where_it_is_issued)."""
    a, lay, mac, sw = _inputs("torchtitan-h100: llama31-405b-512-cp8-256k")
    assert sw.torch_cp and sw.kernels == "compiled"
    assert lay.stage_layers == 16  # TorchTitan's split: 15, 16 x 6, 15
    eager = replace(sw, kernels="eager")
    assert round(step(a, lay, mac, eager).cp, 3) == 11.826
    assert round(step(a, lay, mac, replace(eager, torch_cp=False)).cp, 3) == 0.023


def test_compiled_context_parallel_waits_on_each_collective_where_it_is_issued() -> None:
    """TorchTitan compiles each block (fullgraph) with the ring inside it; a traced functional
    collective is waited on where it is issued and Inductor's overlap passes are off by
    default, so the compiled ring exposes every all-gather (forward, recomputed forward,
    backward) and every one of the backward's c dK, dV sends: on the 405B at CP 8, 31.783 s a
    step against 11.826 s eager, and the CP rows of Table 6 at +11.4%, +4.6% and +15.1% (+12.3%,
    +5.2% and +15.4% before async TP's collectives were each budgeted against their own
    matmuls; they were +26.4%, +26.7% and +39.5% with the eager overlap, +13.4%, +5.8% and +15.8% at
    MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to back); the 8B rows, whose
    ring stays on NVLink, move less (+11.3% -> +9.4%, +51.6% -> +47.2%, +60.1% -> +54.2%; +8.8%,
    +46.7% and +53.9% now)."""
    from dclint.projection.collectives import group_time
    from dclint.projection.step.model import ACT, _layer_pass

    a, lay, mac, sw = _inputs("torchtitan-h100: llama31-405b-512-cp8-256k")
    c, t = lay.cp, lay.tp
    x = _layer_pass(a, lay, mac, sw)
    chunk = x.n * 2 * a.q * ACT / t
    gather = group_time(mac.links, (c - 1) * chunk, c, t)
    grads = group_time(mac.links, 2 * chunk, c, t)
    exposed = x.m * x.per_layer * (3 * gather + c * grads)  # full recompute: 2 forward gathers
    assert step(a, lay, mac, sw).cp == pytest.approx(exposed, rel=1e-12)
    assert round(exposed, 3) == 31.783
    notes = prediction(_native("torchtitan-h100", "llama31-405b-512-cp8-256k")).assumptions
    assert any("waited on where it is issued, exposed (torch.compile" in n for n in notes)
    rows = {
        r.wl.id: round(100 * error(r), 1)
        for r in runs()
        if r.design.name == "torchtitan-h100" and (r.wl.parallel.cp or 1) > 1
    }
    assert rows == {
        "llama31-8b-8-cp2-64k": 8.8,
        "llama31-8b-8-cp4-128k": 46.7,
        "llama31-8b-8-cp8-256k": 53.9,
        "llama31-405b-512-cp2-64k": 11.4,
        "llama31-405b-512-cp4-128k": 4.6,
        "llama31-405b-512-cp8-256k": 15.1,
    }


def test_pytorch_context_parallel_beyond_2_ranks_is_outside_the_domain() -> None:
    """TorchTitan's runs at CP 4 and 8 (8B: +46.7%, +54.0%; 405B: +4.6%, +15.1%) are outside
    the PyTorch-native calibration domain: their prediction takes the envelope and says why,
    and they are left out of the bands (BANDS, POOLED); at CP 2 the Hopper band."""
    from dclint.projection.uncertainty import BANDS, ENVELOPE, NATIVE_CP_MAX

    assert NATIVE_CP_MAX == 2
    outside = {}
    for r in runs():
        if r.design.name != "torchtitan-h100":
            continue
        got = prediction(r).band
        outside[r.wl.id] = bool(got.outside)
        if got.outside:
            assert (got.low_factor, got.high_factor) == ENVELOPE[:2]
            assert got.outside == (
                f"PyTorch context parallel {r.wl.parallel.cp}: calibrated on rings of up to 2 "
                "ranks; beyond, published runs are slower than predicted by a cost the model "
                "does not explain",
            )
        else:
            assert (got.low_factor, got.high_factor) == BANDS["hopper"][:2]
    assert sorted(k for k, v in outside.items() if v) == [
        "llama31-405b-512-cp4-128k",
        "llama31-405b-512-cp8-256k",
        "llama31-8b-8-cp4-128k",
        "llama31-8b-8-cp8-256k",
    ]
    # PAR005 quotes the band `cost` gives the workload: the envelope at CP 8
    from dclint.projection.search.plan import plan_layouts
    from dclint.rules.layout import par005_layout_slower_than_best as par005

    low, high, _, _ = BANDS["hopper"]
    for wid, band in (
        (
            "llama31-8b-8-cp8-256k",
            f"; calibration band {ENVELOPE[0]:.3f}-{ENVELOPE[1]:.3f}x (outside the calibration "
            "domain: PyTorch context parallel 8: calibrated on rings of up to 2 ranks; beyond, "
            "published runs are slower than predicted by a cost the model does not explain)",
        ),
        ("llama31-8b-8-cp2-64k", f"; calibration band {low:.3f}-{high:.3f}x"),
    ):
        r = _native("torchtitan-h100", wid)
        plan = plan_layouts(r.design, r.wl, "time", None, reserve=0.1)
        assert par005._band(plan) == band


def test_pytorch_sdpa_runs_flash_attention_2_at_its_rate_per_pass() -> None:
    """TorchTitan's attention is PyTorch SDPA's flash backend (FlashAttention-2), measured on
    H100 by the FlashAttention-3 paper at 335 TFLOPS forward with the causal mask, 370 without
    and 322 backward, where Transformer Engine's fused attention (cuDNN, the kernel "flash"
    on Hopper) runs at 539, 595 and 516: 8B at 32K (no cp, every block causal) takes 539 / 335
    of the fused kernel's time forward and 516 / 322 backward; at cp 8 one of a rank's 8
    blocks is causal, 7 unmasked. On A100 no per-pass figure: the generation's rate."""
    from dclint.projection.step.model import _layer_pass

    for suffix, causal_share in (("cp1-32k", 1.0), ("cp8-256k", 1 / 8)):
        a, lay, mac, sw = _inputs(f"torchtitan-h100: llama31-8b-8-{suffix}")
        assert sw.attention_kernel == "sdpa"
        sdpa = _layer_pass(a, lay, mac, sw)
        flash = _layer_pass(a, lay, mac, replace(sw, attention_kernel="flash"))
        forward = (causal_share / 335 + (1 - causal_share) / 370) / (
            causal_share / 539 + (1 - causal_share) / 595
        )
        assert sdpa.attn_fwd / flash.attn_fwd == pytest.approx(forward)
        assert sdpa.attn_bwd / flash.attn_bwd == pytest.approx(516 / 322)
    run = _native("torchtitan-h100", "llama31-8b-8-cp1-32k")
    assert any("335 TFLOPS forward" in n for n in prediction(run).assumptions)
    path = ROOT / "tests" / "validation" / "torchtitan-a100.yaml"
    design = load_text(path.read_text(encoding="utf-8"), str(path))
    wl = design.workloads[0]
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str), hw
    got = inputs(design, wl, hw, [])
    assert not isinstance(got, str), got
    assert got[2].sdpa == (1.0, 1.0, 1.0)


def test_pytorch_context_parallel_merges_each_step_in_fp32(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyTorch's ring attention merges each step's output into an fp32 running output (10 B an
    element of the local n x q / t output) and accumulates dQ, dK and dV in fp32 (30 B), c - 1
    steps a pass: on 8B at cp 8 (n = 32,768, q = 4,096, 2.4 TB/s at 80%) 4.89 ms a layer's
    forward and 14.68 ms its backward; the row's step 38.06 s without them (+57.1%), 38.84 s
    with them (+54.0%)."""
    import dclint.projection.step.model as step_module
    from dclint.projection.step.model import _layer_pass

    a, lay, mac, sw = _inputs("torchtitan-h100: llama31-8b-8-cp8-256k")
    merged = _layer_pass(a, lay, mac, sw)
    with_them = step(a, lay, mac, sw).time
    monkeypatch.setattr(step_module, "TORCH_CP_MERGE_BYTES", (0.0, 0.0))
    bare = _layer_pass(a, lay, mac, sw)
    element = 7 * 32768 * 4096 / (2.4e12 * 0.8)
    assert merged.fwd - bare.fwd == pytest.approx(10 * element)
    assert merged.bwd - bare.bwd == pytest.approx(30 * element)
    assert (round((merged.fwd - bare.fwd) * 1e3, 2), round((merged.bwd - bare.bwd) * 1e3, 2)) == (
        4.89,
        14.68,
    )
    assert (round(step(a, lay, mac, sw).time, 2), round(with_them, 2)) == (38.06, 38.84)
