"""Published training layouts pass PAR001-PAR004 on the GPUs they trained on.

- Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM", Table 1: GPT models from 1.7B to 1T parameters on A100 80GB (DGX A100),
  sequence 2048, full activation recomputation, no sequence parallelism and no distributed
  optimizer (both came later), micro batch 1.
- Llama 3 paper (Dubey et al. 2024), Table 4 and section 3.3: Llama 3 405B (126 layers,
  hidden 16384, 128 heads, 8 KV heads) on 16,384 H100 with TP 8, PP 16 (one layer fewer on
  the first and last stages), FSDP sharding model, optimizer and gradients; 8,192 tokens at
  CP 1 (DP 128) and 131,072 tokens at CP 16 (DP 8), 16 sequences per DP rank.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import findings_of

PAR = ("PAR001", "PAR002", "PAR003", "PAR004")

NARAYANAN_TABLE_1 = [
    # billions of parameters, heads, hidden, layers, tp, pp, GPUs, global batch
    (1.7, 24, 2304, 24, 1, 1, 32, 512),
    (3.6, 32, 3072, 30, 2, 1, 64, 512),
    (7.5, 32, 4096, 36, 4, 1, 128, 512),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072),
]

A100_RUN = """
name: narayanan-2021
racks:
  - {{id: "r[001-{racks:03d}]", platform: dgx-a100, nodes: 4}}
workloads:
  - id: gpt
    platform: dgx-a100
    model: {{parameters: {p}e9, layers: {layers}, hidden_size: {h}, attention_heads: {a},
            vocab_size: 51200}}
    tokens: 300e9
    sequence_length: 2048
    global_batch: {batch}
    micro_batch: 1
    recompute: full
    gpus: {gpus}
    parallel: {{tp: {tp}, pp: {pp}, sequence_parallel: false, distributed_optimizer: false}}
"""

LLAMA3_405B = """
name: llama3-405b
racks:
  - {{id: "r[0001-0512]", platform: hgx-h100, nodes: 4}}
workloads:
  - id: llama3-405b
    model: {{parameters: 405e9, layers: 126, hidden_size: 16384, ffn_hidden_size: 53248,
            attention_heads: 128, query_groups: 8, vocab_size: 128256, swiglu: true}}
    tokens: 15.6e12
    sequence_length: {seq}
    global_batch: {batch}
    gpus: 16384
    parallel: {{tp: 8, pp: 16, cp: {cp}, first_stage_layers: 7, last_stage_layers: 7,
               zero_stage: 3{extra}}}
"""


def _par(path: Path) -> set[tuple[str, int]]:
    return {f for f in findings_of(path) if f[0] in PAR}


@pytest.mark.parametrize(("p", "a", "h", "layers", "tp", "pp", "gpus", "batch"), NARAYANAN_TABLE_1)
def test_narayanan_2021_table_1_layouts_pass(
    write: Callable[..., Path],
    p: float,
    a: int,
    h: int,
    layers: int,
    tp: int,
    pp: int,
    gpus: int,
    batch: int,
) -> None:
    racks = -(-gpus // 32)
    text = A100_RUN.format(
        racks=racks, p=p, layers=layers, h=h, a=a, batch=batch, gpus=gpus, tp=tp, pp=pp
    )
    assert _par(write(text)) == set()


@pytest.mark.parametrize(("seq", "cp", "batch"), [(8192, 1, 2048), (131072, 16, 128)])
def test_llama3_405b_layouts_pass(
    write: Callable[..., Path], seq: int, cp: int, batch: int
) -> None:
    assert _par(write(LLAMA3_405B.format(seq=seq, cp=cp, batch=batch, extra=""))) == set()


def test_llama3_405b_without_sequence_parallelism_is_flagged(write: Callable[..., Path]) -> None:
    # The control: the same layout with sequence parallelism declared off keeps s b h (10 +
    # 24 / 8) bytes a layer instead of s b h x 34 / 8, and no longer fits an H100.
    text = LLAMA3_405B.format(seq=8192, cp=1, batch=2048, extra=", sequence_parallel: false")
    assert {r for r, _ in _par(write(text))} == {"PAR004"}
