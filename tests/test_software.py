"""A workload's `software:`: presets, declared settings over them, and what the model reads."""

from __future__ import annotations

import pytest

from dclint.errors import LoadError
from dclint.loader import load_text
from dclint.model.software import PRESET_SOURCES, PRESETS, Settings
from dclint.projection.memory import memory_per_gpu

DESIGN = """
name: software
racks:
  - {{id: 'r[01-02]', platform: dgx-h100, nodes: 4}}
workloads:
  - id: w
    model: {{parameters: 8e9, layers: 32, hidden_size: 4096, vocab_size: 128256}}
    tokens: 1e12
    gpus: 64
    parallel: {{tp: 8}}
{extra}"""


def _settings(extra: str) -> Settings:
    return load_text(DESIGN.format(extra=extra)).workloads[0].software_in_effect


def test_no_software_is_dclints_default() -> None:
    got = _settings("")
    assert (got.flash_attention, got.overlap_tp, got.overlap_dp, got.grad_reduce_in_fp32) == (
        True,
        True,
        True,
        True,
    )
    assert (got.preset, got.fp8_recipe, got.expert_tp, got.framework) == (
        "",
        "delayed",
        8,
        "megatron-core",
    )


def test_a_preset_gives_its_settings() -> None:
    got = _settings("    software: {preset: megatron-lm-2021}\n")
    assert got == Settings(
        flash_attention=False,
        overlap_tp=False,
        overlap_dp=False,
        overlap_pp=False,
        overlap_cp=False,
        grad_reduce_in_fp32=False,
        p2p_scatter_gather=True,
        expert_tp=8,
        preset="megatron-lm-2021",
    )


def test_declared_settings_override_the_presets() -> None:
    got = _settings("    software: {preset: megatron-lm-2021, overlap_dp: true}\n")
    assert (got.overlap_dp, got.overlap_tp, got.flash_attention) == (True, False, False)


def test_the_deepspeed_preset_names_its_framework_unless_one_is_declared() -> None:
    assert _settings("    software: {preset: deepspeed-zero3}\n").framework == "deepspeed"
    declared = "    framework: megatron-core\n    software: {preset: deepspeed-zero3}\n"
    assert _settings(declared).framework == "megatron-core"


def test_every_preset_has_a_source() -> None:
    assert set(PRESETS) == set(PRESET_SOURCES)
    assert all(PRESETS[k].preset == k for k in PRESETS)


def test_the_preset_gradient_dtype_reaches_par004s_memory() -> None:
    """nemo-25.11 reduces gradients in bf16 (Megatron-Bridge's performance recipes): 2 B a
    parameter instead of 4."""
    plain = load_text(DESIGN.format(extra="")).workloads[0]
    nemo = load_text(DESIGN.format(extra="    software: {preset: nemo-25.11}\n")).workloads[0]
    assert memory_per_gpu(plain).gradients.m_as("B") == pytest.approx(8e9 / 8 * 4, rel=1e-12)
    assert memory_per_gpu(nemo).gradients.m_as("B") == pytest.approx(8e9 / 8 * 2, rel=1e-12)


def _load_error(extra: str, parallel: str = "tp: 8") -> str:
    text = DESIGN.format(extra=extra).replace("parallel: {tp: 8}", f"parallel: {{{parallel}}}")
    with pytest.raises(LoadError) as err:
        load_text(text, "d.yaml")
    return "\n".join(str(p) for p in err.value.problems)


def test_keys_that_moved_into_software_say_where_they_are() -> None:
    got = _load_error("    flash_attention: false\n", "tp: 8, grad_reduce_in_fp32: false")
    assert (
        "d.yaml:11:5: unknown key 'flash_attention' in workloads[0]; it is now the "
        "workload's software.flash_attention"
    ) in got
    assert (
        "d.yaml:10:23: unknown key 'grad_reduce_in_fp32' in workloads[0].parallel; it is now "
        "the workload's software.grad_reduce_in_fp32"
    ) in got


def test_an_expert_tp_of_its_own_needs_moe_parallel_folding() -> None:
    got = _load_error("    software: {preset: megatron-core-0.8, expert_tp: 1}\n")
    assert "software.expert_tp 1 differs from parallel.tp 8" in got
    folded = "    software: {preset: nemo-2, expert_tp: 1}\n"
    assert _settings(folded).expert_tp == 1


def test_an_unknown_preset_is_a_load_error() -> None:
    assert "software.preset" in _load_error("    software: {preset: megatron-9}\n")
