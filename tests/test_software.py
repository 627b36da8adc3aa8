"""A workload's `software:`: presets, declared settings over them, and what the model reads."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dclint.errors import LoadError
from dclint.loader import load_text
from dclint.model.software import PRESET_SOURCES, PRESETS, Settings
from dclint.projection.collectives import Links, group_time, node_share
from dclint.projection.hardware import hardware_of
from dclint.projection.memory import memory_per_gpu
from dclint.projection.predict import inputs
from dclint.projection.search.layouts import memory_bytes
from dclint.projection.step.model import Arch, Layout, Machine, Software, step
from dclint.projection.step.records import (
    ADAM_BYTES,
    FP8_RECIPE_BYTES,
    LAUNCH_SECONDS,
    LAYER_KERNELS,
    MEGATRON_CLIP_BYTES,
)

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
        0,
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
        preset="megatron-lm-2021",
    )


def test_the_pytorch_native_presets_name_their_kernels_and_schedules() -> None:
    """llm-foundry's benchmark script runs FlashAttention in Triton (attn_impl triton),
    TorchTitan PyTorch SDPA's flash backend (sdpa); TorchTitan's pipeline schedules wait on
    each send (overlap_pp false); a declared attention_kernel wins."""
    foundry = _settings("    software: {preset: llm-foundry}\n")
    titan = _settings("    software: {preset: torchtitan}\n")
    assert (foundry.attention_kernel, titan.attention_kernel) == ("triton", "sdpa")
    assert (titan.overlap_pp, titan.overlap_tp, foundry.overlap_pp) == (False, False, False)
    got = _settings("    software: {preset: llm-foundry, attention_kernel: flash}\n")
    assert got.attention_kernel == "flash"


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


def test_cuda_graphs_is_true_false_or_the_full_iteration() -> None:
    full = _settings("    software: {cuda_graphs: full-iteration}\n")
    assert full.cuda_graphs == "full-iteration"
    assert "the whole iteration in one CUDA graph" in full.describe()
    assert _settings("    software: {cuda_graphs: true}\n").cuda_graphs is True
    got = _load_error("    software: {cuda_graphs: full}\n")
    assert got == (
        "d.yaml:11:29: workloads[0].software.cuda_graphs: expected false, true or "
        "'full-iteration', got the string 'full'"
    )
    sw = _step_inputs(DESIGN.format(extra="    software: {cuda_graphs: full-iteration}\n"))[3]
    assert sw.cuda_graphs and sw.graphed_experts


def _step_inputs(text: str) -> tuple[Arch, Layout, Machine, Software]:
    """The step model's inputs for the first workload of a design text, as `cost` builds them."""
    design = load_text(text)
    hw = hardware_of(design, design.workloads[0].platform)
    assert not isinstance(hw, str)
    got = inputs(design, design.workloads[0], hw, [])
    assert not isinstance(got, str)
    return got


# --- what the step model does with each setting -------------------------------------------


def test_the_flex_dispatcher_sends_a_token_once_a_node() -> None:
    """DeepEP and HybridEP cross the network once for each node that holds one of a token's
    experts: of 128 experts on two 8-GPU nodes with 8 routed, a token reaches the other node
    with probability 1 - C(64, 8) / C(128, 8) = 0.99690, and the network carries
    2 x 0.99690 / 8 = 0.24923 of the bytes an all-to-all sends across; on four nodes 0.45363;
    inside one node nothing changes. The remote copies are forwarded over NVLink under the
    network transfer: 1 GB a rank over 16 ranks takes 13.89 ms as an all-to-all (half over
    NVLink at 360 GB/s, half over the network at 40 GB/s), 4.50 ms deduplicated; where
    deduplication saves nothing (top 1 over 24 ranks) the two are equal, never slower."""
    links = Links(domain=8, nvlink=360 * GB, nic=40 * GB)
    assert node_share(links, 16, 1, 128, 8) == pytest.approx(0.249226, abs=1e-6)
    assert node_share(links, 32, 1, 128, 8) == pytest.approx(0.453626, abs=1e-6)
    assert node_share(links, 8, 1, 128, 8) == 1.0
    share = node_share(links, 16, 1, 128, 8)
    assert group_time(links, GB, 16, 1, all_to_all=True) == pytest.approx(13.889e-3, abs=1e-6)
    assert group_time(links, GB, 16, 1, all_to_all=True, dedup=share) == pytest.approx(
        4.5042e-3, abs=1e-7
    )
    top1 = node_share(links, 24, 1, 128, 1)
    assert group_time(links, GB, 24, 1, all_to_all=True, dedup=top1) == pytest.approx(
        group_time(links, GB, 24, 1, all_to_all=True), rel=1e-12
    )
    # Qwen3 30B at ep 16 on two DGX H100 nodes: the expert all-to-all's share of the step
    # falls as the bytes on the network do; the compute does not change
    text = (
        DESIGN.format(extra="    software: {ep_dispatcher: hybridep}\n")
        .replace(
            "parameters: 8e9, layers: 32, hidden_size: 4096, vocab_size: 128256",
            "parameters: 3.05e10, layers: 48, hidden_size: 2048, attention_heads: 32, "
            "query_groups: 4, ffn_hidden_size: 768, vocab_size: 151936, experts: 128, "
            "top_k: 8",
        )
        .replace("gpus: 64", "gpus: 16")
        .replace("parallel: {tp: 8}", "parallel: {tp: 1, ep: 16}")
    )
    a, lay, mac, sw = _step_inputs(text)
    assert sw.node_dedup
    flex, plain = step(a, lay, mac, sw), step(a, lay, mac, replace(sw, node_dedup=False))
    assert flex.compute == plain.compute
    assert flex.ep / plain.ep == pytest.approx(4.5042 / 13.889, abs=1e-4)


GB = 1e9
LINKS = Links(domain=8, nvlink=360 * GB, nic=40 * GB)
# an FP8 Hopper: FP8 peak, attention at the BF16 peak, 4 B a cast element (Transformer Engine)
FP8 = Machine(1979e12, 0.73, 0.35, 3.35e12, 0.8, LINKS, attention_peak=989e12, fp8_cast_bytes=4)
LLAMA = Arch(32, 4096, 32, 8, 14336, 128256, 8192, swiglu=True, dense_params=8.03e9)


def test_current_scaling_reads_each_cast_tensor_once_more_than_delayed() -> None:
    """Current scaling takes the amax of the BF16 tensor before casting it: 2 B an element of
    every cast operand (forward: the attention output and the MLP's second GEMM input, which
    Megatron-Core's TERowParallelLinear casts after its own SwiGLU; backward: each GEMM's
    output gradient)."""
    lay = Layout(tp=1, dp=8, micro_batch=1, global_batch=64)
    delayed = step(LLAMA, lay, FP8, Software(fp8_recipe="delayed"))
    current = step(LLAMA, lay, FP8, Software(fp8_recipe="current"))
    n, q, kv, h, f, mlp_in = 8192, 4096, 1024, 4096, 14336, 2 * 14336
    elements = n * (q + f) + n * ((q + 2 * kv) + h + mlp_in + h)
    m, layers = 8, 32
    extra = FP8_RECIPE_BYTES["current"] * elements / (3.35e12 * 0.8) * layers * m
    assert FP8_RECIPE_BYTES["current"] == 2.0
    assert current.compute - delayed.compute == pytest.approx(extra, rel=1e-9)
    # a BF16 machine casts nothing, whatever the recipe
    bf16 = replace(FP8, fp8_cast_bytes=0.0)
    assert step(LLAMA, lay, bf16, Software(fp8_recipe="current")) == step(
        LLAMA, lay, bf16, Software()
    )


TINY = Arch(4, 256, 4, 4, 1024, 32000, 128, dense_params=3.2e6 + 8.2e6)


def test_without_cuda_graphs_a_small_layer_waits_on_its_kernel_launches() -> None:
    """A layer whose kernels run shorter than the host takes to launch them runs at the
    launch rate: 20 kernels x 8 us forward, twice that backward; CUDA graphs lift the floor.
    A large layer is not launch-bound, and the setting changes nothing."""
    lay = Layout(dp=1, global_batch=1)
    eager = step(TINY, lay, FP8, Software(cuda_graphs=False))
    graphs = step(TINY, lay, FP8, Software(cuda_graphs=True))
    floor = TINY.layers * 3 * LAYER_KERNELS * LAUNCH_SECONDS
    assert (LAYER_KERNELS, LAUNCH_SECONDS) == (20, 8e-6)
    assert graphs.compute < floor < eager.compute
    assert eager.compute - graphs.compute < floor
    big = Layout(dp=8, global_batch=64)
    assert step(LLAMA, big, FP8, Software(cuda_graphs=False)) == step(
        LLAMA, big, FP8, Software(cuda_graphs=True)
    )


QWEN = Arch(
    48, 2048, 32, 4, 768, 151936, 4096, swiglu=True, experts=128, top_k=8,
    dense_params=1.5e9, expert_params=29.0e9, kv_channels=128,
)  # fmt: skip


def test_moe_parallel_folding_keeps_the_all_to_all_inside_the_nvlink_domain() -> None:
    """tp 4, ep 8: unfolded, the ep ranks are dp ranks 4 apart and span 32 GPUs (four NVLink
    domains); folded with expert tp 1 they are 8 consecutive ranks, one domain."""
    lay = Layout(tp=4, dp=8, ep=8, global_batch=64, sequence_parallel=True)
    apart = step(QWEN, lay, FP8, Software())
    folded = step(QWEN, lay, FP8, Software(expert_tp=1, moe_folding=True))
    n, m, layers, passes = 4096, 8, 48, 2
    vol = 2 * passes * n * 8 * 2048 * 2 / 4 * 7 / 8
    assert apart.ep == pytest.approx(m * layers * group_time(LINKS, vol, 8, 4, all_to_all=True))
    assert folded.ep == pytest.approx(m * layers * vol / LINKS.nvlink)
    assert folded.ep < apart.ep / 3


def test_expert_tp_sets_the_expert_weights_a_gpu_holds() -> None:
    """PAR004: expert parameters split over ep x expert tp (expert tp 1: four times those of
    tp 4), their optimizer over tp x dp x cp / (ep x expert tp)."""
    text = (
        DESIGN.format(extra="")
        .replace(
            "model: {parameters: 8e9, layers: 32, hidden_size: 4096, vocab_size: 128256}",
            "model: {parameters: 30.5e9, layers: 48, hidden_size: 2048, vocab_size: 151936, "
            "experts: 128, top_k: 8, ffn_hidden_size: 768, swiglu: true}",
        )
        .replace("parallel: {tp: 8}", "parallel: {tp: 4, ep: 8}")
    )
    wl = load_text(text).workloads[0]
    folded = load_text(
        text + "    software: {moe_parallel_folding: true, expert_tp: 1}\n"
    ).workloads[0]
    experts = 48 * 128 * 2048 * 768 * 3
    dense = 30.5e9 - experts
    assert memory_per_gpu(wl).weights.m_as("B") == pytest.approx(
        2 * (dense / 4 + experts / 32), rel=1e-12
    )
    assert memory_per_gpu(folded).weights.m_as("B") == pytest.approx(
        2 * (dense / 4 + experts / 8), rel=1e-12
    )


def test_the_megatron_lm_2021_preset_runs_unfused_serial_attention_and_communication() -> None:
    """The preset reaches the step: no causal skipping without flash attention (the full score
    matrix, 4 n s h), the tensor-parallel collectives exposed in full, the gradients in 16 bits."""
    design = load_text(DESIGN.format(extra=""))
    old = load_text(DESIGN.format(extra="    software: {preset: megatron-lm-2021}\n"))
    hw = hardware_of(design, design.workloads[0].platform)
    assert not isinstance(hw, str)
    new_in = inputs(design, design.workloads[0], hw, [])
    old_in = inputs(old, old.workloads[0], hw, [])
    assert not isinstance(new_in, str) and not isinstance(old_in, str)
    # Megatron takes the gradients' norm every step (--clip-grad 1.0) and scales them only when
    # clipping, Megatron-LM of 2021 as Megatron-Core to 0.16
    clipped = ADAM_BYTES + MEGATRON_CLIP_BYTES
    assert new_in[3] == Software(fp8_recipe="delayed", optimizer_bytes=clipped)
    assert old_in[3] == Software(
        False,
        False,
        False,
        False,
        False,
        2.0,
        True,
        "delayed",
        0,
        False,
        False,
        optimizer_bytes=clipped,
    )
    a, lay, mac = new_in[:3]
    assert step(a, lay, mac, old_in[3]).tp > step(a, lay, mac, new_in[3]).tp


def test_the_layout_search_holds_expert_weights_over_the_expert_tp() -> None:
    """The search's memory splits expert weights and gradients over ep x expert tp as PAR004
    does; the sharded optimizer states are the same (tp x dp x cp ranks hold them all)."""
    lay = Layout(tp=4, dp=8, ep=8, global_batch=64, sequence_parallel=True)
    tp4 = memory_bytes(QWEN, lay, 1)
    et1 = memory_bytes(QWEN, lay, 1, expert_tp=1)
    assert et1 - tp4 == pytest.approx((2 + 4) * 29.0e9 * (1 / 8 - 1 / 32), rel=1e-9)
