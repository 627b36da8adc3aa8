"""NVIDIA's published recipe layouts pass PAR003 as their recipes state them (issue 51).

The Megatron-Bridge (NeMo 25.11 to 26.08) and MLPerf Training runs of tests/calibration/ are
written as their recipes set them, under the recipe presets (nemo-25.11), which count the
embedding and the loss as pipeline layers where the model's layers need it: Megatron-Bridge's
recipes set `account_for_embedding_in_pipeline_split` and `account_for_loss_in_pipeline_split`
for Llama 3.1 405B (126 + 2 = 128 on pp 8 x vpp 8, on pp 16) and Qwen3 235B (94 + 2 = 96 on
pp 8 and pp 4 x vpp 12: "Pipeline split accounting (required for 235B model)"), not for
Llama 3 70B (80 layers on pp 8 x vpp 5).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, findings_of
from dclint.loader import load_text

CALIBRATION = ROOT / "tests" / "calibration"
RECIPES = [
    *sorted(CALIBRATION.glob("megatron-bridge-*.yaml")),
    CALIBRATION / "mlperf-training-blackwell.yaml",
]

# H100's Qwen3 235B (tp 2, ep 32, dp 16): Megatron-Core's MoE parallel folding carves the
# expert groups from tp x dp x cp / expert tp ranks, and the recipe's expert tp (not written in
# the calibration file) is not known here; PAR003 holds ep to dp x cp. Kept visible.
EP_FOLDING = {
    ("megatron-bridge-25.11-h100.yaml", 83),
    ("megatron-bridge-qwen3-h100.yaml", 95),
}


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_recipe_layouts_pass_par003(path: Path) -> None:
    found = {(path.name, line) for rule, line in findings_of(path) if rule == "PAR003"}
    assert found == {k for k in EP_FOLDING if k[0] == path.name}


DESIGN = """
name: recipe
workloads:
  - id: w
    platform: dgx-h100
    model: {{parameters: 405e9, layers: {layers}, hidden_size: 16384, attention_heads: 128,
            query_groups: 8, ffn_hidden_size: 53248, vocab_size: 128256, swiglu: true}}
    tokens: 1e12
    sequence_length: 8192
    global_batch: 512
    gpus: 512
    software: {{preset: {preset}}}
    parallel: {{tp: 8, pp: 8, vpp: {vpp}, cp: 2{extra}}}
"""


@pytest.mark.parametrize(
    ("layers", "vpp", "preset", "extra", "counted"),
    [
        (126, 8, "nemo-25.11", "", (True, True)),  # 128 slots: the recipe's count
        (126, 8, "nemo-2", "", (True, True)),
        (126, 8, "megatron-core-0.8", "", (False, False)),  # not a recipe preset
        (80, 5, "nemo-25.11", "", (False, False)),  # 80 split already: 70B's recipe
        (126, 8, "nemo-25.11", ", account_for_loss_in_pipeline_split: false", (False, False)),
        (126, 7, "nemo-25.11", "", (False, False)),  # 128 slots do not split over 8 x 7
    ],
)
def test_recipe_presets_count_embedding_and_loss_where_the_layers_need_them(
    layers: int, vpp: int, preset: str, extra: str, counted: tuple[bool, bool]
) -> None:
    text = DESIGN.format(layers=layers, vpp=vpp, preset=preset, extra=extra)
    p = load_text(text).workloads[0].parallel
    got = (p.account_for_embedding_in_pipeline_split, p.account_for_loss_in_pipeline_split)
    assert got == counted


def test_llama31_405b_on_pp8_vpp8_passes_par003_under_the_recipe_preset(
    write: Callable[..., Path],
) -> None:
    ok = write(DESIGN.format(layers=126, vpp=8, preset="nemo-25.11", extra=""))
    assert not [r for r, _ in findings_of(ok) if r == "PAR003"]
    other = write(DESIGN.format(layers=126, vpp=8, preset="megatron-core-0.8", extra=""), "b.yaml")
    assert ("PAR003", 13) in findings_of(other)  # 126 layers over pp 8, at parallel:
