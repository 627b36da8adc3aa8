"""Activations in flight under the interleaved schedule when the embedding and the loss take a
pipeline slot (dclint.projection.memory._in_flight, chunk_forwards).

Megatron-Core's interleaved 1F1B runs the micro-batches in groups of pp, each group through
model chunk 0 to vpp - 1 (megatron/core/pipeline_parallel/schedules.py, get_schedule_table),
and a stage holds its warm-up's chunk-forwards plus the steady state's first,
2 (pp - k - 1) + (vpp - 1) pp + 1 (get_pp_rank_microbatches). With
account_for_embedding_in_pipeline_split the first stage's chunk 0 holds the embedding and one
layer fewer, and it is the chunk the warm-up runs most; with the loss counted the last stage's
last chunk holds a layer fewer, and the warm-up runs it least.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import ROOT
from dclint.loader import load_text
from dclint.model.workload import Workload
from dclint.projection.memory import chunk_forwards, memory_per_gpu, shape_of, stage_bytes

CALIBRATION = ROOT / "tests" / "calibration"
GIB = 2**30


def _schedule(pp: int, vpp: int, micro_batches: int) -> list[int]:
    """The chunk of each forward, as get_schedule_table orders them."""
    out: list[int] = []
    for start in range(0, micro_batches, pp):
        last = start + pp >= micro_batches
        size = micro_batches - start if last else pp
        out += [chunk for chunk in range(vpp) for _ in range(size)]
        if last:
            break
    return out


def test_chunk_forwards_is_the_schedule_table() -> None:
    for pp, vpp, m in itertools.product(range(2, 7), range(2, 5), range(2, 26)):
        if m < pp:
            continue
        order = _schedule(pp, vpp, m)
        for n in range(m * vpp + 1):
            for chunk in range(vpp):
                assert chunk_forwards(chunk, n, pp, vpp, m) == order[:n].count(chunk)


def _workload(path: Path, wid: str) -> Workload:
    design = load_text(path.read_text(), str(path))
    return next(w for w in design.workloads if w.id == wid)


def test_gb200_405b_ends_hold_what_the_schedule_keeps() -> None:
    # tp 4, pp 16, vpp 4, 128 slots: two a chunk. Stage 0's 79 chunk-forwards run chunk 0
    # (the embedding and one layer) 16 + 15 times and chunks 1-3 16 times each: 31 + 96 = 127
    # layers' worth (not 7 / 4 x 79 = 138.25); stage 15's 49 run chunks 0-2 16 times each and
    # chunk 3 (one layer and the loss) once: 97 (not 85.75), with the logits
    wl = _workload(CALIBRATION / "megatron-bridge-25.11-gb200.yaml", "llama31-405b-256")
    sh = shape_of(wl, blackwell=True)
    assert sh.slots == (1, 1)
    # 6.625 s b h / t: (6 + 20.5) / 4, FP8 current scaling under Megatron-Core, whose attention
    # output projection saves the attention's BF16 output (save_original_input), no FP8 copy
    assert sh.per_layer == 0.828125 * GIB
    assert stage_bytes(sh, 0, 7.0, 1)[3] == pytest.approx(127 * sh.per_layer, rel=1e-12)
    last = stage_bytes(sh, 15, 7.0, 1)[3]
    assert last == pytest.approx(97 * sh.per_layer + sh.logits, rel=1e-12)
    # stage 1 (8 layers, 77 chunk-forwards: 154) still binds, at the 163.2 GiB PAR004 holds
    # (168.0 with the projection's FP8 copy counted: 154 x s b h / t x 1 B = 4.8 GiB more)
    assert memory_per_gpu(wl, True).total.m_as("GiB") == pytest.approx(163.152, abs=1e-3)


@pytest.mark.parametrize(
    ("path", "wid", "uniform", "after"),
    [
        ("megatron-bridge-qwen3-gb300.yaml", "qwen3-235b-a22b-256-25.11", 88.79, 87.77),
        ("megatron-bridge-25.11-gb200.yaml", "qwen3-235b-a22b-256", 51.43, 51.00),
    ],
)
def test_qwen3_first_stage_no_longer_over_counted(
    path: str, wid: str, uniform: float, after: float
) -> None:
    # 94 + 2 slots on pp 4 x vpp 12 and pp 8 x vpp 3: the first stage's layers spread evenly
    # over its chunks made it bind; counted by the schedule, stage 1 binds, lower
    wl = _workload(CALIBRATION / path, wid)
    got = memory_per_gpu(wl, True)
    assert got.total.m_as("GiB") == pytest.approx(after, abs=0.005)
    assert got.notes[0].startswith("a middle stage (stage 1 of pp")
    sh = shape_of(wl, blackwell=True)
    assert wl.model.layers is not None
    first = (wl.model.layers + 2) / wl.parallel.pp - 1
    even = replace(sh, slots=(0, 0))
    assert sum(stage_bytes(even, 0, first, 1)) / GIB == pytest.approx(uniform, abs=0.005)
