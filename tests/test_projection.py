"""Accuracy of the projections against published runs, the memo and the article."""

from __future__ import annotations

import pytest

from dclint.loader import load_text
from dclint.model.design import Design
from dclint.projection import project_workloads, tco
from dclint.projection.goodput import FAILURES_PER_GPU_HOUR
from dclint.units import Q_

A100_RUN = """
name: narayanan
catalog:
  platforms:
    dgx-a100: {{name: DGX A100, kind: node, gpu: a100-sxm, gpus: 8, nvlink_domain: 8,
               power: 6.5 kW}}
workloads:
  - id: run
    platform: dgx-a100
    model: {{parameters: {p}, layers: {l}, hidden_size: {h}, attention_heads: {a},
             vocab_size: 51200}}
    tokens: {d}
    sequence_length: 2048
    gpus: {n}
    recompute: full
    mfu: {mfu}
    mfu_basis: hardware
    causal_attention: false  # Narayanan et al. count the full score matrix
"""


def _design(text: str) -> Design:
    return load_text(text)


@pytest.mark.parametrize(
    ("p", "layers", "h", "a", "d", "n", "tflops", "paper_days"),
    [
        (175e9, 96, 12288, 96, 300e9, 1024, 140, 34),  # GPT-3 175B
        (1e12, 128, 25600, 160, 450e9, 3072, 163, 84),  # 1T
    ],
)
def test_narayanan_2021_training_times(
    p: float, layers: int, h: int, a: int, d: float, n: int, tflops: float, paper_days: float
) -> None:
    # The paper's 140/163 TFLOPS are achieved hardware FLOPS with full recomputation, so the
    # exact count x 4/3 (96 B s l h^2 (...)) over that throughput reproduces its days.
    text = A100_RUN.format(p=p, l=layers, h=h, a=a, d=d, n=n, mfu=tflops / 312)
    (proj,) = project_workloads(_design(text))
    assert proj.training_time.m_as("day") == pytest.approx(paper_days, rel=0.03)
    # The exact count agrees with 8 N D to within 3% at these sizes.
    assert proj.flops.hardware.m_as("FLOP") == pytest.approx(8 * p * d, rel=0.03)
    assert "x 4/3" in proj.flops.formula


def test_narayanan_formula_is_72_bslh2() -> None:
    text = A100_RUN.format(p=175e9, l=96, h=12288, a=96, d=300e9, n=1024, mfu=0.45)
    (proj,) = project_workloads(_design(text))
    s, n_layers, h, v = 2048, 96, 12288, 51200
    per_token = 72 * n_layers * h**2 * (1 + s / (6 * h) + v / (12 * n_layers * h))
    assert proj.flops.model.m_as("FLOP") == pytest.approx(per_token * 300e9, rel=1e-9)


MEMO = """
name: memo
site: {pue: 1.0, electricity_price: 0.8 CNY/kWh, currency: CNY}
catalog:
  platforms:
    h100-72: {name: H100 x72, kind: rack, gpu: h100-sxm, gpus: 72, nvlink_domain: 8,
              power: 120 kW}
    b200-72: {name: B200 x72, kind: rack, gpu: b200, gpus: 72, nvlink_domain: 72,
              power: 120 kW}
workloads:
  - id: h100
    platform: h100-72
    model: {parameters: 300e9}
    tokens: 3e12
    gpus: 800
    mfu: 65%
    communication_overhead: 42%
  - id: b200
    platform: b200-72
    model: {parameters: 300e9}
    tokens: 3e12
    gpus: 256
    mfu: 70%
    communication_overhead: 15%
"""


def test_memo_example_days_and_daily_electricity() -> None:
    h100, b200 = project_workloads(_design(MEMO))

    # the memo's estimator, plus a 10-minute restart per failure at the Llama 3 rate
    # (no checkpoint declared, so no redone work is counted)
    def restarts(gpus: int) -> float:
        return 1 + 600 * FAILURES_PER_GPU_HOUR * gpus / 3600

    assert h100.training_time.m_as("day") == pytest.approx(209.5 * restarts(800), rel=0.002)
    assert b200.training_time.m_as("day") == pytest.approx(182.4 * restarts(256), rel=0.002)
    assert h100.facility_power.m_as("MW") == pytest.approx(1.333, rel=0.001)
    daily = (h100.facility_power * Q_(1, "day") * Q_(0.8, "CNY/kWh")).to("CNY")
    assert daily.m_as("CNY") == pytest.approx(25_600, rel=1e-6)
    per_day = h100.cost_breakdown["electricity"] / h100.training_time
    assert per_day.m_as("CNY/day") == pytest.approx(25_600, rel=1e-6)
    # goodput counts steps (communication included) against restarts, stalls and lost work
    assert h100.timing.goodput.m_as("dimensionless") == pytest.approx(1 / restarts(800))


def test_article_13b_energy() -> None:
    # 3800 GPU-hours at 0.69 kW, PUE 1: 2622 kWh.
    text = """
name: article
site: {pue: 1.0}
catalog:
  gpus: {h100-690: {name: H100 at 690 W, tdp: 690 W, dense_flops: {bf16: 989 TFLOPS},
                    hbm: 80 GB, hbm_bandwidth: 3.35 TB/s}}
  platforms: {hgx-690: {name: HGX, kind: node, gpu: h100-690, gpus: 8, nvlink_domain: 8,
                        power: 8.5 kW}}
workloads:
  - id: llm-13b
    platform: hgx-690
    model: {parameters: 13e9}
    tokens: 69.38e9
    gpus: 8
    mfu: 0.4
    power_basis: gpu_tdp
"""
    (proj,) = project_workloads(_design(text))
    gpu_hours = proj.gpu_hours.m_as("hour")
    assert proj.energy.m_as("kWh") == pytest.approx(gpu_hours * 0.69, rel=1e-9)
    assert gpu_hours == pytest.approx(3800, rel=0.01)
    assert proj.energy.m_as("kWh") == pytest.approx(2622, rel=0.01)


@pytest.mark.parametrize(
    ("gpu", "precision", "tflops_per_watt"), [("hgx-h100", "fp8", 2.827), ("dgx-b200", "fp4", 9.0)]
)
def test_energy_efficiency(gpu: str, precision: str, tflops_per_watt: float) -> None:
    text = f"""
name: eff
workloads:
  - {{id: w, platform: {gpu}, model: {{parameters: 1e9}}, tokens: 1e9, gpus: 8,
     precision: {precision}}}
"""
    (proj,) = project_workloads(_design(text))
    assert proj.efficiency.m_as("TFLOPS/W") == pytest.approx(tflops_per_watt, rel=1e-3)
    assert "default" in proj.timing.mfu_source


def test_missing_exchange_rate_is_an_assumption_not_one_to_one() -> None:
    text = """
name: fx
site: {currency: CNY, electricity_price: 0.1 USD/kWh}
cost: {gpu_price: 30000 USD}
workloads:
  - {id: w, platform: hgx-h100, model: {parameters: 1e9}, tokens: 1e10, gpus: 8}
"""
    (proj,) = project_workloads(_design(text))
    assert proj.cost_breakdown == {}
    assert any("no exchange rate from USD to CNY" in a for a in proj.assumptions)
    rated = text.replace("currency: CNY,", "currency: CNY, exchange_rates: {USD: 7.2 CNY},")
    (proj,) = project_workloads(_design(rated))
    dep = proj.cost_breakdown["depreciation"].m_as("CNY")
    share = proj.training_time.m_as("year") / 3
    assert dep == pytest.approx(30000 * 7.2 * 8 * share, rel=1e-9)


def test_memory_model_states_follow_megatron_table() -> None:
    text = """
name: mem
workloads:
  - {id: w, platform: hgx-h100, model: {parameters: 64e9}, tokens: 1e9, gpus: 64,
     parallel: {tp: 8, pp: 1}}
"""
    (proj,) = project_workloads(_design(text))
    # 8e9 parameters a GPU x (6 + 12 / dp 8) bytes = 60 GB
    assert proj.memory.total.m_as("GB") == pytest.approx(60.0, rel=1e-9)
    assert proj.memory.activations is None


def test_tco_items_omitted_and_break_even() -> None:
    text = """
name: tco
site: {pue: 1.2, electricity_price: 0.8 CNY/kWh, currency: CNY, exchange_rates: {USD: 7.2 CNY}}
racks:
  - {id: 'r[1-10]', platform: gb200-nvl72}
cost:
  gpu_price: 50000 USD
  software_per_gpu_year: 4500 USD
  average_load: 100%
  value_per_gpu_year: 300000 CNY
"""
    t = tco(_design(text))
    assert t.gpus == 720
    assert t.items["hardware"].m_as("CNY") == pytest.approx(720 * 50000 * 7.2)
    elec = 1200 * 1.2 * 3 * 365.25 * 24 * 0.8
    assert t.items["electricity"].m_as("CNY") == pytest.approx(elec, rel=1e-9)
    assert t.omitted == ("network", "storage", "power_cooling_infrastructure", "building", "staff")
    running = (720 * 4500 * 7.2 * 3 + elec) / 3
    months = 720 * 50000 * 7.2 / (720 * 300000 - running) * 12
    assert t.break_even is not None
    assert t.break_even.m_as("month") == pytest.approx(months, rel=1e-9)
    assert t.per_gpu_year is not None
    assert t.per_gpu_year.m_as("CNY") == pytest.approx(t.total.m_as("CNY") / 2160)
