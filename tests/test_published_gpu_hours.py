"""Runs declared with their published throughput come back at their published GPU-hours.

Each run is declared as its publisher measured it (MFU or achieved FLOPS, on the publisher's FLOP
count) and projected with dclint's failure model (Llama 3's interruption rate, a 10-minute restart
a failure); the test pins the GPU-hours dclint gives and holds them against the published total.

- Llama 3 405B (Meta, *The Llama 3 Herd of Models*, 2024): 16,384 H100, tp 8 / pp 16 / dp 128,
  sequence 8,192, 16M-token batches (Table 4), 15.6T tokens, BF16 MFU 38-43% (Table 4; 38% at
  the 16,384-GPU long-context configuration); 30.84M H100-hours (the Llama 3.1 model card).
- BLOOM 176B (BigScience, `bigscience-workshop/bigscience`, `train/tr11-176B-ml`): 384 A100 80GB,
  tp 4 / pp 12 / dp 8, sequence 2,048, global batch 2,048, micro-batch 2, full recomputation,
  366B tokens; 149-150 TFLOPS a GPU and 105 s an iteration (chronicles, 2022-03-18), counted by
  Megatron-DeepSpeed's formula (96 B s l h^2 (1 + s / 6h + V / 16lh): the full score matrix, with
  recomputation); 1,082,990 A100-hours (the BLOOM paper), from 2022-03-11 to early July.
  As run (BLOOM_RUN), with what its slurm script and chronicles give: the batch-size ramp-up
  `--rampup-batch-size 192 16 9_765_625` (tr11-176B-ml.slurm); an evaluation every 1,000
  iterations, about 12 minutes each (chronicles, 2022-03-18); a checkpoint every 100
  iterations (SAVE_INTERVAL=100 from 2022-03-22, 100 x 105 s = 175 min), 2.3 TB saved in
  40 s (chronicles, 2022-03-18 and 2022-03-21: 57.5 GB/s).
"""

from __future__ import annotations

import pytest

from dclint.loader import load_text
from dclint.projection import project_workloads

LLAMA3 = """
name: llama3-405b
catalog:
  platforms:
    grand-teton: {name: Grand Teton H100, kind: node, gpu: h100-sxm, gpus: 8, nvlink_domain: 8,
                  power: 10.2 kW}
workloads:
  - id: llama3-405b
    platform: grand-teton
    model: {parameters: 405e9, layers: 126, hidden_size: 16384, attention_heads: 128,
            query_groups: 8, ffn_hidden_size: 53248, vocab_size: 128256, swiglu: true}
    tokens: 15.6e12
    sequence_length: 8192
    global_batch: 2048
    gpus: 16384
    mfu: 38%
    parallel: {tp: 8, pp: 16, dp: 128}
"""

BLOOM = """
name: bloom-176b
catalog:
  platforms:
    jz-a100: {name: Jean Zay A100 80GB node, kind: node, gpu: a100-sxm, gpus: 8,
              nvlink_domain: 8, power: 6.5 kW}
workloads:
  - id: bloom-176b
    platform: jz-a100
    model: {parameters: 176.2e9, layers: 70, hidden_size: 14336, attention_heads: 112,
            vocab_size: 250880}
    tokens: 366e9
    sequence_length: 2048
    global_batch: 2048
    micro_batch: 2
    gpus: 384
    recompute: full
    achieved_flops: 150 TFLOPS
    mfu_basis: hardware
    causal_attention: false  # Megatron-DeepSpeed's TFLOPs count the full score matrix
    parallel: {tp: 4, pp: 12, dp: 8, zero_stage: 1}
"""


# the run as its slurm script and chronicles describe it (module docstring)
BLOOM_RUN = (
    BLOOM.replace(
        "workloads:",
        """storage:
  tiers:
    - {id: gpfs, kind: parallel_fs, write_bandwidth: 57.5 GB/s, checkpoints: true}
workloads:""",
    )
    + """    batch_rampup: {start: 192, increment: 16, samples: 9765625}
    evaluation: {interval: 1000, time: 12 min}
    checkpoint: {interval: 175 min, size: 2.3 TB}
"""
)


def _hours(text: str) -> float:
    (proj,) = project_workloads(load_text(text))
    return proj.gpu_hours.m_as("hour")


def test_llama3_405b_gpu_hours_at_its_declared_mfu() -> None:
    hours = _hours(LLAMA3)
    assert hours == pytest.approx(30_670_206, rel=1e-5)
    assert hours / 30.84e6 - 1 == pytest.approx(-0.0055, abs=5e-4)  # within 3%


def test_bloom_step_at_its_published_tflops_is_its_published_iteration() -> None:
    # 150 TFLOPS on Megatron-DeepSpeed's count is the chronicles' 105 s iteration: the declared
    # throughput and the FLOP convention agree with the run's own log.
    (proj,) = project_workloads(load_text(BLOOM))
    step = proj.timing.step_time
    assert step is not None
    assert step.m_as("s") == pytest.approx(105.1, abs=0.05)
    assert proj.training_time.m_as("day") == pytest.approx(106.24, abs=0.01)


def test_bloom_gpu_hours_pinned() -> None:
    # 106.2 days of steps and failures at the Llama 3 rate (0.13 day) against the 117.5 days
    # the run held its 384 GPUs: -9.6%.
    hours = _hours(BLOOM)
    assert hours == pytest.approx(979_103, rel=1e-5)


def test_bloom_as_run_pinned() -> None:
    # 106.11 d of steps at the full batch's rate, + 0.771 d of the ramp's smaller batches (its
    # 12,658 steps timed by the step model at each batch, scaled to the measured 105.1 s) +
    # 95 evaluations of 12 min (0.792 d) + 0.410 d of checkpoint saves (40 s every 175 min) +
    # 1.331 d of failures (half a 175-min interval redone and a 10-min restart each, at the
    # Llama 3 rate): 109.41 d on 384 GPUs, -6.9% of the published A100-hours
    (proj,) = project_workloads(load_text(BLOOM_RUN))
    t = proj.timing
    assert t.compute.m_as("day") == pytest.approx(106.1055, abs=1e-4)
    assert t.rampup.m_as("day") == pytest.approx(0.7704, abs=1e-4)
    assert t.evaluation.m_as("day") == pytest.approx(95 * 12 / 60 / 24, rel=1e-9)
    assert t.checkpoint.m_as("day") == pytest.approx(0.4101, abs=1e-4)
    assert t.failures.m_as("day") == pytest.approx(1.3307, abs=1e-4)
    assert proj.gpu_hours.m_as("hour") == pytest.approx(1_008_308, rel=1e-5)
    assert proj.gpu_hours.m_as("hour") / 1_082_990 - 1 == pytest.approx(-0.0691, abs=5e-4)


@pytest.mark.xfail(
    strict=True,
    reason="BLOOM as run, with its ramp-up, evaluations and checkpoints declared, holds 8.1 of "
    "its 117.5 days no declared input carries: the chronicles' hangs at evaluation (18 + 6 + "
    "11 h), Jean Zay's emergency maintenance (hours, no figure), slow-node days "
    "(docs/performance-model.md, 'Declared runs against published GPU-hours')",
)
def test_bloom_gpu_hours_within_3_percent_of_published() -> None:
    assert _hours(BLOOM_RUN) == pytest.approx(1_082_990, rel=0.03)
