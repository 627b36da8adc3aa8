"""TorchTitan's own pipeline split (issue 51): layers that do not divide over its stages are
split by TorchTitan (generate_split_points), so PAR003 passes its 405B pp 8 runs as they ran
and refuses only more stages than layers; Megatron-Core still needs an even split."""

from __future__ import annotations

import pytest

from conftest import ROOT, findings_of
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.loader import load_text
from dclint.projection.layout_checks import framework_split

RULES = discover()
TITAN = ROOT / "tests" / "calibration" / "torchtitan-h100.yaml"

DESIGN = """
name: split
racks:
  - {{id: "r[01-64]", platform: hgx-h100, nodes: 1}}
workloads:
  - id: w
    model: {{parameters: 405e9, layers: {layers}, hidden_size: 16384, attention_heads: 128,
            query_groups: 8, ffn_hidden_size: 53248, vocab_size: 128256}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 512
    gpus: 512
    software: {{preset: {preset}}}
    parallel: {{tp: 8, pp: 8, vpp: {vpp}}}
"""


def _par003(layers: int, vpp: int, preset: str) -> list[Violation]:
    design = load_text(DESIGN.format(layers=layers, vpp=vpp, preset=preset))
    return list(RULES["PAR003"]().check(design, Context(default_options()["PAR003"])))


def test_torchtitans_split_of_llama_405b() -> None:
    """generate_split_points: the first stage n // s layers, the next n % s stages one more,
    the last what remains; more stages than layers refused."""
    assert framework_split("torchtitan", 126, 8) == [15, 16, 16, 16, 16, 16, 16, 15]
    assert framework_split("torchtitan", 126, 16) == [7, *[8] * 14, 7]
    assert framework_split("torchtitan", 11, 3) == [3, 4, 4]
    assert framework_split("torchtitan", 32, 1) == [32]
    assert framework_split("torchtitan", 12, 16) == []
    assert framework_split("megatron-core", 126, 8) is None


@pytest.mark.parametrize("vpp", [1, 2])
def test_par003_passes_torchtitans_uneven_split_and_not_megatrons(vpp: int) -> None:
    assert _par003(126, vpp, "torchtitan") == []
    (v,) = _par003(126, vpp, "megatron-core")
    assert (v.path[-1], v.measured, v.limit) == ("pp", 126.0, 8.0)


def test_par003_refuses_more_torchtitan_stages_than_layers() -> None:
    (v,) = _par003(12, 2, "torchtitan")
    assert (v.path[-1], v.measured, v.limit) == ("pp", 12.0, 16.0)
    assert v.message == (
        "workload w: 12 layers cannot fill pp 8 x vpp 2 = 16 stages (torchtitan needs a layer "
        "a stage)"
    )


def test_torchtitans_405b_calibration_runs_pass_par003() -> None:
    """TorchTitan's 405B rows on pp 8 (Tables 5 and 6: 1F1B, interleaved, CP 1 to 8) ran;
    PAR003 refused all six before (126 layers over 8 stages)."""
    found = findings_of(TITAN)
    assert {line for rule, line in found if rule == "PAR003"} == set()
    text = TITAN.read_text(encoding="utf-8").replace("preset: torchtitan", "preset: megatron-core")
    design = load_text(text)
    got = RULES["PAR003"]().check(design, Context(default_options()["PAR003"]))
    assert sorted(v.subject for v in got) == [
        "llama31-405b-512-1f1b",
        "llama31-405b-512-cp1-32k",
        "llama31-405b-512-cp2-64k",
        "llama31-405b-512-cp4-128k",
        "llama31-405b-512-cp8-256k",
        "llama31-405b-512-interleaved",
    ]


@pytest.mark.parametrize("vpp", [1, 2])
def test_par004_holds_torchtitans_busiest_stage(vpp: int) -> None:
    """PAR004 and the step model take TorchTitan's split: ranks of 15, 16 x 6, 15 layers (the
    interleaved 16 stages 7 / 8 x 14 / 7 two a rank), as if declared so."""
    from dclint.projection.memory import memory_per_gpu, stage_layers
    from dclint.projection.predict import _busiest_stage

    wl = load_text(DESIGN.format(layers=126, vpp=vpp, preset="torchtitan")).workloads[0]
    declared = wl.model_copy(
        update={
            "parallel": wl.parallel.model_copy(
                update={"first_stage_layers": 15, "last_stage_layers": 15}
            )
        }
    )
    assert memory_per_gpu(wl) == memory_per_gpu(declared)
    assert stage_layers(126, 8, 15, 15) == [(0, 15.0), (1, 16.0), (7, 15.0)]
    assert _busiest_stage(wl) == 16.0
    megatron = load_text(DESIGN.format(layers=126, vpp=vpp, preset="megatron-core"))
    assert _busiest_stage(megatron.workloads[0]) == 0.0  # layers / pp (PAR003 refuses it)
