"""PAR002-PAR004 figures with exact numbers: NVLink divisibility, Megatron's uneven pipeline,
device-reported memory, ZeRO stages and sequence parallelism by default."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import EXAMPLES, findings_of
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.loader import load_text
from dclint.projection.memory import memory_per_gpu

RULES = discover()
GIB = 2**30

DESIGN = """
name: layout
racks:
  - {{id: "r[01-16]", platform: {platform}, nodes: {nodes}}}
workloads:
  - id: w
    model: {{parameters: {params}{model}}}
    tokens: 1e12
    sequence_length: {seq}
    gpus: {gpus}
    parallel: {{{parallel}}}
"""


def _violations(rule: str, **fields: object) -> list[Violation]:
    values: dict[str, object] = {
        "platform": "hgx-h100",
        "nodes": 4,
        "params": "1e9",
        "model": "",
        "seq": 4096,
        "gpus": 64,
        "parallel": "tp: 8",
    }
    values.update(fields)
    design = load_text(DESIGN.format(**values))
    return list(RULES[rule]().check(design, Context(default_options()[rule])))


@pytest.mark.parametrize(
    ("tp", "flagged"), [(8, False), (9, False), (12, False), (16, True), (24, False), (32, True)]
)
def test_tp_must_divide_the_nvl72_domain(tp: int, flagged: bool) -> None:
    found = _violations(
        "PAR002", platform="gb200-nvl72", nodes=1, gpus=288, seq=72 * 512, parallel=f"tp: {tp}"
    )
    assert [(v.measured, v.limit) for v in found] == ([(float(tp), 72.0)] if flagged else [])


def test_context_group_inside_nvlink() -> None:
    found = _violations("PAR002", parallel="tp: 4, cp: 4, context_in_nvlink: true")
    assert [(v.path[-1], v.measured, v.limit) for v in found] == [("cp", 16.0, 8.0)]
    assert _violations("PAR002", parallel="tp: 4, cp: 4") == []


def test_uneven_pipeline_is_accepted_when_the_middle_splits() -> None:
    model = ", layers: 126"
    even = _violations("PAR003", model=model, gpus=128, parallel="tp: 8, pp: 16")
    assert [(v.path[-1], v.measured, v.limit) for v in even] == [("pp", 126.0, 16.0)]
    uneven = "tp: 8, pp: 16, first_stage_layers: 7, last_stage_layers: 7"
    assert _violations("PAR003", model=model, gpus=128, parallel=uneven) == []


EMB = "account_for_embedding_in_pipeline_split: true"
LOSS = "account_for_loss_in_pipeline_split: true"


def test_embedding_and_loss_count_in_the_pipeline_split() -> None:
    """NVIDIA's Llama 3.1 405B on 512 H100: 126 layers + embedding + loss = 128 slots over
    pp 8 x vpp 8 = 64 chunks of 2 (Megatron-Core account_for_*_in_pipeline_split)."""
    model = ", layers: 126"
    base = "tp: 8, pp: 8, vpp: 8, cp: 2"
    (v,) = _violations("PAR003", model=model, gpus=512, seq=8192, parallel=base)
    assert (v.path[-1], v.measured, v.limit) == ("pp", 126.0, 8.0)
    both = f"{base}, {EMB}, {LOSS}"
    assert _violations("PAR003", model=model, gpus=512, seq=8192, parallel=both) == []
    (v,) = _violations("PAR003", model=model, gpus=512, seq=8192, parallel=f"{base}, {EMB}")
    assert (v.path[-1], v.measured, v.limit) == ("pp", 127.0, 8.0)
    assert "126 layers + embedding = 127 slots do not split over pp 8 stages" in v.message
    chunks = f"tp: 8, pp: 8, vpp: 3, cp: 2, {EMB}, {LOSS}"  # 16 slots a stage, not 3 chunks
    (v,) = _violations("PAR003", model=model, gpus=512, seq=8192, parallel=chunks)
    assert (v.path[-1], v.measured, v.limit) == ("vpp", 128.0, 24.0)
    assert "126 layers + embedding + loss = 128 slots do not split over pp 8 x vpp 3" in (v.message)


def test_sequence_parallel_default_needs_sequence_divisible_by_tp() -> None:
    (v,) = _violations("PAR003", seq=4100)
    assert (v.path[-1], v.measured, v.limit) == ("tp", 4100.0, 8.0)
    assert "on by default with tp > 1" in v.message
    assert _violations("PAR003", seq=4100, parallel="tp: 8, sequence_parallel: false") == []


def test_par004_budgets_the_device_reported_memory() -> None:
    (v,) = _violations("PAR004", params="82.2e9")
    assert v.limit.m_as("GiB") == pytest.approx(81559 * 0.9 / 1024, rel=1e-12)  # type: ignore[union-attr]
    assert v.measured.m_as("GiB") == pytest.approx(82.2e9 / 8 * 7.5 / GIB, rel=1e-12)  # type: ignore[union-attr]
    assert "79.65 GiB (as the device reports it" in v.message
    assert _violations("PAR004", params="82.0e9") == []


@pytest.mark.parametrize(
    ("parallel", "bytes_per_parameter"),
    [
        ("tp: 8, distributed_optimizer: false", 18.0),
        ("tp: 8", 6 + 12 / 8),
        ("tp: 8, zero_stage: 1", 6 + 12 / 8),
        ("tp: 8, zero_stage: 2", 2 + 16 / 8),
        ("tp: 8, zero_stage: 3", 18 / 8),
    ],
)
def test_zero_stages(parallel: str, bytes_per_parameter: float) -> None:
    wl = load_text(
        DESIGN.format(
            platform="hgx-h100",
            nodes=4,
            params="100e9",
            model="",
            seq=4096,
            gpus=64,
            parallel=parallel,
        )
    ).workloads[0]
    total = memory_per_gpu(wl).total.m_as("B")
    assert total == pytest.approx(100e9 / 8 * bytes_per_parameter, rel=1e-12)


def test_sequence_parallel_on_by_default_in_the_activations() -> None:
    model = ", layers: 40, hidden_size: 5120, attention_heads: 40"
    text = DESIGN.format(
        platform="hgx-h100",
        nodes=4,
        params="13e9",
        model=model,
        seq=8192,
        gpus=64,
        parallel="tp: 8",
    )
    on = memory_per_gpu(load_text(text).workloads[0]).activations
    off = memory_per_gpu(
        load_text(text.replace("tp: 8", "tp: 8, sequence_parallel: false")).workloads[0]
    ).activations
    assert on is not None and off is not None
    assert on.m_as("B") == pytest.approx(8192 * 5120 * 34 / 8 * 40, rel=1e-12)
    assert off.m_as("B") == pytest.approx(8192 * 5120 * (10 + 24 / 8) * 40, rel=1e-12)


def test_reserve_option_changes_the_verdict(write: Callable[..., Path]) -> None:
    text = (EXAMPLES / "par004" / "bad.yaml").read_text(encoding="utf-8")
    assert sum(r == "PAR004" for r, _ in findings_of(write(text))) == 6
    path = write(text)
    (path.parent / ".dclint.yaml").write_text("PAR004:\n  reserve: 9%\n", encoding="utf-8")
    assert sum(r == "PAR004" for r, _ in findings_of(path)) == 5  # just-above now fits


def test_ffn_hidden_size_must_split_over_tp() -> None:
    """Megatron-Core's parallel linear layers divide the FFN width over the tp ranks; an MoE
    model's is each expert's, over the expert tensor-parallel ranks (tp by default)."""
    dense = ", hidden_size: 4096, attention_heads: 32, ffn_hidden_size: 14340"
    (v,) = _violations("PAR003", model=dense)
    assert (v.path[-1], v.measured, v.limit) == ("tp", 14340.0, 8.0)
    assert "FFN hidden size 14340 does not split over tp 8 (14340 = 8 x 1792 + 4)" in v.message
    assert _violations("PAR003", model=dense, parallel="tp: 4") == []
    moe = ", experts: 8, ffn_hidden_size: 1412"
    (v,) = _violations("PAR003", model=moe, parallel="tp: 8, ep: 8")
    assert (v.path[-1], v.measured, v.limit) == ("tp", 1412.0, 8.0)
    assert v.message.startswith("workload w: expert FFN hidden size 1412 does not split")
    assert _violations("PAR003", model=moe, parallel="tp: 4, ep: 8") == []
