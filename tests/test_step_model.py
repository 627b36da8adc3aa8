"""The step-time model's terms, each against a number worked by hand."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from dclint.projection.collectives import (
    ECMP_COLLISION,
    RING_ALL_REDUCE_PLATEAU,
    Links,
    group_time,
    ring_all_reduce_bytes,
    ring_latency,
    tier_load,
)
from dclint.projection.efficiency import tile_share
from dclint.projection.goodput import FAILURES_PER_GPU_HOUR, goodput, lost_share, optimal_interval_s
from dclint.projection.step.model import Arch, Layout, Machine, Software, bubble_fraction, step
from dclint.units import Q_

GB = 1e9
US = 1e-6
LINKS = Links(domain=8, nvlink=360 * GB, nic=40 * GB, tiers=((256, 2.0),))
H100 = Machine(989e12, 0.8, 0.5, 3.35e12, 0.8, LINKS)
GPT = Arch(48, 8192, 64, 64, 32768, 51200, 2048, dense_params=39.1e9)


def test_bubble_fraction_is_p_minus_one_over_v_m() -> None:
    assert bubble_fraction(8, 1, 64) == pytest.approx(7 / 64)
    assert bubble_fraction(8, 4, 64) == pytest.approx(7 / 256)
    assert bubble_fraction(1, 1, 4) == 0.0


def test_ring_all_reduce_sends_2_n_minus_1_over_n() -> None:
    assert ring_all_reduce_bytes(10 * GB, 8) == pytest.approx(17.5 * GB)
    assert ring_all_reduce_bytes(10 * GB, 2) == pytest.approx(10 * GB)


def test_group_inside_nvlink_domain_runs_at_nvlink() -> None:
    assert group_time(LINKS, 36 * GB, 8, 1) == pytest.approx(0.1)


def test_group_across_domains_is_hierarchical() -> None:
    # 16 ranks, 2 per domain: intra 36 GB / 360 GB/s + 36 GB / (2 x 40 GB/s)
    assert group_time(LINKS, 36 * GB, 16, 4) == pytest.approx(0.1 + 0.45)
    # one rank per domain: all 36 GB through the rank's own NIC
    assert group_time(LINKS, 36 * GB, 16, 8) == pytest.approx(0.9)


def test_a_packed_ring_crosses_the_tier_on_few_hops() -> None:
    """A ring in rank order leaves a 256-GPU switch group once: 64 ranks 8 apart (one a
    domain) span 2 groups, so 2 of their 64 hops cross; every group of the layout runs at
    once, so 2/64 of the NICs' flows meet a 2:1 tier's half-rate uplinks: no slowdown."""
    assert tier_load(LINKS, 64, 8) == pytest.approx(2 / 64 * 2.0)
    assert group_time(LINKS, 40 * GB, 64, 8) == pytest.approx(1.0)
    assert tier_load(LINKS, 32, 8) == 0.0  # 256 GPUs: inside one switch group
    # 4 ranks 256 apart: every hop leaves its group, the flows' load is the tier's 2:1
    assert tier_load(LINKS, 4, 256) == pytest.approx(2.0)
    assert group_time(LINKS, 40 * GB, 4, 256) == pytest.approx(2.0)


def test_a_spread_ring_crosses_on_most_hops_and_ecmp_loses_capacity() -> None:
    """Nodes spread over a 4,096-GPU fabric's 16 switch groups: a ring's neighbour is in
    another group 15 times in 16, so the uplinks carry 15/16 of the flows at 1/2 (2:1) of
    their rate: the ring runs 1.875x slower; ECMP's collisions (Meta, SIGCOMM 2024) x 1.4."""
    spread = replace(LINKS, spread=4096)
    assert tier_load(spread, 64, 8) == pytest.approx(15 / 16 * 2.0)
    assert group_time(spread, 40 * GB, 64, 8) == pytest.approx(1.875)
    ecmp = replace(spread, collision=ECMP_COLLISION)
    assert group_time(ecmp, 40 * GB, 64, 8) == pytest.approx(1.875 * 1.4)
    # at 1:1 adaptive routing keeps up (15/16 < 1); ECMP does not (15/16 x 1.4 = 1.3125)
    flat = replace(spread, tiers=((256, 1.0),))
    assert group_time(flat, 40 * GB, 64, 8) == pytest.approx(1.0)
    assert group_time(replace(flat, collision=1.4), 40 * GB, 64, 8) == pytest.approx(1.3125)
    # a fabric of one switch group: nothing to cross
    assert tier_load(replace(LINKS, spread=256), 64, 8) == 0.0


def test_all_to_all_splits_nvlink_and_fabric_shares() -> None:
    # 16 ranks 1 apart: 8 in the domain (half the bytes at NVLink), half over the fabric
    assert group_time(LINKS, 36 * GB, 16, 1, all_to_all=True) == pytest.approx(0.05 + 0.45)


def test_all_to_all_is_bound_by_the_tiers_bisection() -> None:
    """64 ranks 8 apart over two 256-GPU groups: half of each rank's bytes go to the other
    group; on a 4:1 tier they get a quarter of the NIC rate: 0.5 x 4 = 2x the NIC time."""
    a2a = replace(LINKS, tiers=((256, 4.0),))
    assert tier_load(a2a, 64, 8, all_to_all=True) == pytest.approx(2.0)
    assert group_time(a2a, 64 * GB, 64, 8, all_to_all=True) == pytest.approx(
        64 / 64 / 360 + 2.0 * 64 / 40
    )
    # 2:1: the crossing half is at the NIC's rate, the NIC binds (63/64 of the bytes leave)
    assert group_time(LINKS, 64 * GB, 64, 8, all_to_all=True) == pytest.approx(
        64 / 64 / 360 + 64 / 40
    )
    # ECMP's collisions: 0.5 x 2 x 1.4 = 1.4x
    ecmp = replace(LINKS, collision=ECMP_COLLISION)
    assert group_time(ecmp, 64 * GB, 64, 8, all_to_all=True) == pytest.approx(
        64 / 64 / 360 + 1.4 * 64 / 40
    )


def test_oversubscription_raises_data_parallel_time() -> None:
    lay = Layout(tp=8, pp=1, dp=64, global_batch=512, distributed_optimizer=True)
    sw = Software(overlap_dp=False)
    flat = step(GPT, lay, Machine(989e12, 0.8, 0.5, 3.35e12, 0.8, Links(8, 360 * GB, 40 * GB)), sw)
    packed = step(GPT, lay, H100, sw)
    assert packed.dp == pytest.approx(flat.dp)  # 2 of 64 hops cross the 2:1 tier
    over = step(GPT, lay, replace(H100, links=replace(LINKS, spread=4096)), sw)
    # the latency of the reduce-scatter and the all-gather (NCCL Simple ring, 63 steps across
    # the network) does not depend on the tier's ratio; the bandwidth term x 15/16 x 2
    latency = 2 * (8.4 + 63 * 14.0) * US
    assert over.dp - latency == pytest.approx(1.875 * (flat.dp - latency))
    assert over.compute == flat.compute
    # 39.1e9 / 8 parameters a GPU, 63/64 of fp32 gradients and bf16 parameters at 40 GB/s
    local = 39.1e9 / 8
    assert flat.dp == pytest.approx(63 / 64 * local * (4 + 2) / (40 * GB) + latency)


def test_full_recompute_costs_a_forward_selective_less() -> None:
    lay = Layout(tp=8, pp=1, dp=1, global_batch=8, recompute="full")
    sw = Software(flash_attention=False)
    full = step(GPT, lay, H100, sw)
    selective = step(GPT, Layout(tp=8, dp=1, global_batch=8, recompute="selective"), H100, sw)
    assert full.compute == pytest.approx(selective.compute)
    assert 0 < selective.recompute < full.recompute
    # a full recompute repeats each layer's forward: a third of forward + backward
    n, v, t = 2048, 51200, 8
    # the output layer's three GEMMs and Megatron's fp32 cross-entropy, 52 bytes a logit
    head = 3 * 2 * n * 8192 * v / t / (989e12 * 0.8) + 52 * n * v / t / (3.35e12 * 0.8)
    accumulate = 8 * 39.1e9 / t / (3.35e12 * 0.8)
    layers = full.compute - 8 * (head + accumulate)  # 8 micro-batches
    assert full.recompute == pytest.approx(layers / 3)


def test_model_and_hardware_flops_per_step() -> None:
    lay = Layout(tp=8, dp=1, global_batch=1, recompute="full")
    st = step(GPT, lay, H100, Software(), causal=False)  # Narayanan et al.'s convention
    h, s, layers, v = 8192, 2048, 48, 51200
    narayanan = 72 * s * layers * h * h * (1 + s / (6 * h) + v / (12 * layers * h))
    assert st.model_flops == pytest.approx(narayanan)
    recomputed = 96 * s * layers * h * h * (1 + s / (6 * h) + v / (16 * layers * h))
    assert st.hardware_flops == pytest.approx(recomputed)


def test_pipeline_bubble_in_the_step() -> None:
    lay = Layout(tp=8, pp=4, dp=1, global_batch=32)
    st = step(GPT, lay, H100, Software())
    assert st.pp_bubble == pytest.approx(st.compute * 3 / 32)


def test_young_daly_interval_and_goodput() -> None:
    assert optimal_interval_s(60.0, 30_000.0) == pytest.approx(math.sqrt(3.6e6))
    assert lost_share(60.0, 1800.0, 36_000.0, 600.0) == pytest.approx(60 / 1800 + 1500 / 36_000)
    per_gpu_day = FAILURES_PER_GPU_HOUR * 24
    assert per_gpu_day == pytest.approx(419 / 54 / 16384)
    g = goodput(16384, Q_(60.0, "s"), None)
    mtbf_s = 54 * 86400 / 419
    assert g.mtbf.m_as("s") == pytest.approx(mtbf_s)
    assert g.optimal_interval.m_as("s") == pytest.approx(math.sqrt(2 * 60 * mtbf_s))
    assert g.fraction.m_as("") == pytest.approx(g.optimal_fraction.m_as(""))
    assert 0.8 < g.fraction.m_as("") < 1.0


def test_cost_text_shows_the_predicted_step(capsys: pytest.CaptureFixture[str]) -> None:
    from dclint.cli import main

    assert main(["cost", "sample_designs/h100-40node.yaml"]) == 0
    out = capsys.readouterr().out
    assert "MFU                               45% (declared)" in out
    assert "predicted step                    2.625 s (2.27-3.33 s)" in out
    assert "  data-parallel comm.             151 ms (6%)" in out


def test_json_projection_keys_from_the_step_model() -> None:
    from dclint.loader import load
    from dclint.projection import project_workloads

    (p,) = project_workloads(load("sample_designs/moe-1.7t-nvl72.yaml"))
    d = p.as_dict()
    assert d["mfu"] == pytest.approx(0.30)
    assert d["mfu_source"] == "declared (workload.mfu)"
    assert d["mfu_convention"] == "exact count, causal attention; model FLOPs"
    # vpp 2: 2(v p - 1) fill transfers; causal attention; GB200 at B200's measured matmul rate
    # and 0.47% lost to slow hosts on 8,192 GPUs (straggler_share); the pipeline bubble waits
    # on a micro-batch's exposed expert all-to-alls too; expert tp 4 (the tp: the sample
    # declares none) all-gathers and reduce-scatters the routed tokens exposed (0.2104 before);
    # the MoE layers keep attention's tp collectives only (0.1972 with the dense MLP's two)
    assert d["mfu_predicted"] == pytest.approx(0.1976, rel=1e-3)
    assert d["mfu_gap"] == pytest.approx(0.30 / d["mfu_predicted"] - 1)
    assert (
        "eager dropless experts: the host issues the GEMMs of each local expert (1 a GPU), 74 us "
        "a GEMM (2 forward, 4 backward), dclint's own calibration on Megatron-Bridge's Qwen3 "
        "runs of NeMo 25.11-26.06 (docs/performance-model.md); software.cuda_graphs: "
        "full-iteration removes it"
    ) in p.assumptions
    parts = d["step_breakdown"]
    assert set(parts) == {
        "compute",
        "recompute",
        "tp",
        "pp_bubble",
        "pp_p2p",
        "dp",
        "cp",
        "ep",
        "optimizer",
        "straggler",
    }
    assert sum(parts.values()) == pytest.approx(d["step_time_predicted_s"])
    # the declared MFU decides the step: predicted step x predicted MFU / declared MFU
    assert d["step_time_s"] == pytest.approx(d["step_time_predicted_s"] * d["mfu_predicted"] / 0.30)
    assert d["tokens_per_second"] == pytest.approx(2048 * 8192 / d["step_time_s"])
    # 8192 GPUs at 419 interruptions per 54 days per 16,384 GPUs: MTBF 6.19 h
    assert d["mtbf_hours"] == pytest.approx(54 * 24 * 16384 / 419 / 8192)
    # the band: 8,192 GPUs lie outside the Blackwell MoE calibration runs (8 to 256 GPUs), so
    # the envelope of every calibration run, measured / predicted step time 0.721 to 1.995
    band = d["uncertainty"]
    assert (band["low_factor"], band["high_factor"], band["runs"]) == (0.721, 1.995, 0)
    assert band["step_time_s"] == pytest.approx(
        [d["step_time_predicted_s"] * 0.721, d["step_time_predicted_s"] * 1.995]
    )
    assert band["mfu"] == pytest.approx([d["mfu_predicted"] / 1.995, d["mfu_predicted"] / 0.721])
    assert band["in_domain"] is False
    assert band["outside"] == ["8,192 GPUs: the Blackwell MoE calibration runs span 8 to 256"]
    assert band["source"].startswith("outside the calibration domain (8,192 GPUs: the ")
    # and the assumptions every format prints say so in the same words
    assert f"band of the predicted step: {band['source']}" in d["assumptions"]


def test_tile_share_pads_tiles_and_rounds_waves_up() -> None:
    # 4096 x 2048 output: 32 x 8 tiles of 128 x 256 (or 16 x 16 of 256 x 128) = 256 tiles,
    # 2 waves on 132 SMs: 4096 x 2048 / (2 x 132 x 128 x 256)
    assert tile_share(4096, 2048, 132) == pytest.approx(4096 * 2048 / (2 * 132 * 32768))
    # 512 x 4608 (a 177B QKV shard at tp 8, one 512-token chunk): 72 tiles, one wave, 60 idle SMs
    assert tile_share(512, 4608, 132) == pytest.approx(512 * 4608 / (132 * 32768))
    # 100 rows a group, 4 groups, 256 columns: 4 padded tiles in one wave
    assert tile_share(100, 256, 132, 4) == pytest.approx(4 * 100 * 256 / (132 * 32768))
    assert tile_share(100, 256, 0) == 1.0  # SMs unknown: no quantization


def test_gemms_that_leave_sms_idle_take_longer() -> None:
    lay = Layout(tp=8, dp=1, global_batch=16)
    flat = step(GPT, lay, H100, Software())
    waves = step(GPT, lay, replace(H100, sms=132), Software())
    assert waves.compute > flat.compute
    # 16 sequences as one micro-batch fill the tiles better than 16 micro-batches of one
    big = step(GPT, replace(lay, micro_batch=16), replace(H100, sms=132), Software())
    assert big.compute < waves.compute


def test_overlapped_tensor_parallel_costs_the_sms_it_takes() -> None:
    lay = Layout(tp=8, dp=1, global_batch=4)  # 4 micro-batches, no sequence parallelism
    st = step(GPT, lay, replace(H100, nvlink_sm_share=0.15), Software())
    # 2 all-reduces a pass (4 x 7/8 x n h x 2 B), 3 passes, over NVLink: under the layer's
    # GEMMs (1.56 ms of them), so only 15% of the 0.98 ms is paid, per layer and micro-batch
    one = 12 * 7 / 8 * 2048 * 8192 * 2 / (360 * GB)
    assert one < 3 * 2 * 2048 * 12 * 8192**2 / 8 / (989e12 * 0.8)
    assert st.tp == pytest.approx(4 * 48 * 0.15 * one)
    assert step(GPT, lay, H100, Software()).tp == 0.0


def test_scatter_gather_sends_one_tp_share_across_the_fabric() -> None:
    lay = Layout(tp=8, pp=2, dp=1, global_batch=8)
    x = 2048 * 8192 * 2  # a micro-batch's activation, bf16
    plain = step(GPT, lay, H100, Software())
    assert plain.pp_p2p == pytest.approx(2 * x / (40 * GB))  # warm-up and cool-down transfers
    sg = step(GPT, lay, H100, Software(p2p_scatter_gather=True))
    assert sg.pp_p2p == pytest.approx(2 * (x / 8 / (40 * GB) + x * 7 / 8 / (360 * GB)))


@pytest.mark.parametrize(
    "design", ["h100-40node", "moe-1.7t-nvl72", "broken-fabric-2to1", "gb200-superpod-su"]
)
def test_hfu_is_never_below_mfu(design: str) -> None:
    """HFU counts the MFU's FLOPs plus recomputation, on the same convention."""
    from pathlib import Path

    from dclint.loader import load
    from dclint.projection import project_workloads

    path = Path("sample_designs") / f"{design}.yaml"
    if not path.exists():
        pytest.fail(f"sample design {path} is gone")
    for p in project_workloads(load(str(path))):
        d = p.as_dict()
        assert d["hfu"] is not None and d["hfu"] >= d["mfu"], p.workload


def test_ring_latency_is_nccls_tuning_model() -> None:
    """NCCL's src/graph/tuning.cc, v2.23.4-1 to v2.30.7-1 (Ring: base 6.6 / 14.0 / 8.4 us for
    LL / LL128 / Simple; a step 0.6 / 1.9 / 3.4 us over NVLink, floored at the network overhead
    1 / 1 / 3 us when the ring leaves the node; 2.7 / 4.0 / 14.0 us across the network, NCCL's
    Tree 5.0 / 8.5 / 14.0 at one rank a node)."""
    # 8 ranks in one NVLink domain, reduce-scatter: 7 steps, none between domains
    assert ring_latency(LINKS, 8, 1) == pytest.approx((10.8 * US, 27.3 * US, 32.2 * US))
    # all-reduce: twice the steps
    assert ring_latency(LINKS, 8, 1, ring=2)[2] == pytest.approx((8.4 + 14 * 3.4) * US)
    # 128 data-parallel ranks 8 apart (one a domain): 127 steps, all across the network, at
    # the Tree's network step (ppn 1)
    assert ring_latency(LINKS, 128, 8) == pytest.approx(
        ((6.6 + 127 * 5.0) * US, (14.0 + 127 * 8.5) * US, (8.4 + 127 * 14.0) * US)
    )
    # 16 ranks, 4 a domain (2 apart): 15 steps, 3 between domains; LL's NVLink step floored
    # at the 1 us network overhead, Simple's 3.4 above its 3
    assert ring_latency(LINKS, 16, 2) == pytest.approx(
        ((6.6 + 12 * 1.0 + 3 * 2.7) * US, (14.0 + 12 * 1.9 + 3 * 4.0) * US,
         (8.4 + 12 * 3.4 + 3 * 14.0) * US)
    )  # fmt: skip
    # the same ranks' all-reduce: 30 steps, 6 between domains, Simple's latency x 1.4 across
    # nodes (ncclTopoGetAlgoTime's ring plateau); inside one domain, none
    assert RING_ALL_REDUCE_PLATEAU == 1.4
    assert ring_latency(LINKS, 16, 2, ring=2) == pytest.approx(
        ((6.6 + 24 * 1.0 + 6 * 2.7) * US, (14.0 + 24 * 1.9 + 6 * 4.0) * US,
         (8.4 + 24 * 3.4 + 6 * 14.0) * 1.4 * US)
    )  # fmt: skip
    assert ring_latency(LINKS, 8, 1, ring=2)[2] == pytest.approx((8.4 + 14 * 3.4) * US)


def test_collectives_pay_their_latency_on_the_fastest_protocol() -> None:
    # 36 GB over NVLink: Simple, 0.1 s + 2 x 32.2 us
    assert group_time(LINKS, 36 * GB, 8, 1, calls=2) == pytest.approx(0.1 + 2 * 32.2 * US)
    # 1 MB: LL at half the bandwidth, 2 x 1e6 / 360e9 s + 10.8 us, beats Simple
    assert group_time(LINKS, 1e6, 8, 1, calls=1) == pytest.approx(2e6 / (360 * GB) + 10.8 * US)
    # on Hopper LL's bus bandwidth is capped at 141 GB/s inside the node (llMaxBws)
    hopper = replace(LINKS, ll_max=141 * GB)
    assert group_time(hopper, 1e6, 8, 1, calls=1) == pytest.approx(1e6 / (141 * GB) + 10.8 * US)
    # across more than 2 nodes at 20.4 GB/s: 4 KB by LL, 1 GB by Simple
    assert group_time(hopper, 4e3, 16, 2, calls=1) == pytest.approx(
        4e3 / (20.4 * GB) + (6.6 + 12 * 1.0 + 3 * 2.7) * US
    )
    one_gb = 1e9 / (360 * GB) + 1e9 / (4 * 40 * GB)
    assert group_time(hopper, 1e9, 16, 2, calls=1) == pytest.approx(
        one_gb + (8.4 + 12 * 3.4 + 3 * 14.0) * US
    )
    # no call counted: the bandwidth term alone, as before
    assert group_time(LINKS, 36 * GB, 8, 1) == pytest.approx(0.1)


def test_data_parallel_latency_grows_with_the_ranks() -> None:
    """Same layout, per-GPU batch and model at 1,024 and 16,384 GPUs (weak scaling): the
    reduce-scatter and all-gather over dp ranks 8 apart (one a domain) each pay
    8.4 + (dp - 1) x 14.0 us, so the larger job is slower per GPU."""
    arch = replace(GPT, layers=48)
    lay = Layout(8, 1, dp=128, global_batch=128, sequence_parallel=True)
    small = step(arch, lay, H100, Software(overlap_dp=False))
    big = step(arch, replace(lay, dp=2048, global_batch=2048), H100, Software(overlap_dp=False))
    local = GPT.dense_params / 8
    # packed in rank order, the rings cross the 2:1 tier on 1/32 of their hops: NIC rate
    bandwidth = (2047 / 2048 - 127 / 128) * local * (4.0 + 2.0) / (40 * GB)
    latency = 2 * (2047 - 127) * 14.0 * US
    assert big.dp - small.dp == pytest.approx(bandwidth + latency, rel=1e-9)
    assert big.time > small.time


def test_two_to_one_gradient_sync_by_placement_and_routing() -> None:
    """docs/performance-model.md, claim 2: a 13B model on 512 H100, DP 256 (TP 2) across
    256-GPU switch groups, 2:1 against 1:1: packed +0%, spread over 16 groups +60% (adaptive
    routing) or +74% (ECMP), 1:1 packed against 2:1 spread on ECMP +112%."""
    from dclint.projection.efficiency import efficiency_for
    from dclint.projection.efficiency import machine as gpu_machine

    eff = efficiency_for("h100-sxm", "bf16")
    assert eff is not None
    llama13 = Arch(40, 5120, 40, 40, 13824, 32000, 4096, swiglu=True, dense_params=13e9)
    lay = Layout(2, 1, 1, 256, 1, 1, 1, 1024, True, True, "selective")
    bare = Software(overlap_tp=False, overlap_dp=False, overlap_pp=False)

    def sync(ratio: float, spread: int = 0, collision: float = 1.0) -> float:
        links = Links(8, 450 * GB * 0.8, 50 * GB * 0.8, ((256, ratio),), collision, spread)
        return step(llama13, lay, gpu_machine(989e12, 3.35e12, eff, links), bare).dp

    assert sync(2.0) / sync(1.0) == pytest.approx(1.0)
    assert sync(2.0, 4096) / sync(1.0, 4096) - 1 == pytest.approx(0.600, abs=5e-4)
    ecmp = sync(2.0, 4096, ECMP_COLLISION)
    assert ecmp / sync(1.0, 4096, ECMP_COLLISION) - 1 == pytest.approx(0.742, abs=5e-4)
    assert ecmp / sync(1.0) - 1 == pytest.approx(1.115, abs=5e-4)


def test_stragglers_grow_with_the_gpus_that_synchronise() -> None:
    """MegaScale (NSDI 2024): hosts ~10% slower, removing them from a 12,288-GPU job gave ~0.7%
    MFU; spread at random, a job of N GPUs holds one with probability 1 - exp(-N / 169,325):
    ~0 at benchmark scale, 0.06% at 1,024 GPUs, 0.92% at 16,384, 4.4% at 98,304."""
    from dclint.projection.step.records import STRAGGLER_GPUS, straggler_share

    assert straggler_share(12288) == pytest.approx(0.007)
    assert round(STRAGGLER_GPUS, 2) == 169324.55
    assert straggler_share(32) == pytest.approx(1.89e-5, abs=1e-7)
    assert straggler_share(1024) == pytest.approx(6.029e-4, abs=1e-7)
    assert straggler_share(16384) == pytest.approx(9.2227e-3, abs=1e-7)
    assert straggler_share(98304) == pytest.approx(4.4042e-2, abs=1e-6)
    # the same layout at 1,024 and 16,384 GPUs: each step waits for its slowest host
    lay = Layout(8, 1, dp=128, global_batch=128, sequence_parallel=True)
    small = step(GPT, lay, H100, Software())
    big = step(GPT, replace(lay, dp=2048, global_batch=2048), H100, Software())
    for st, gpus in ((small, 1024), (big, 16384)):
        rest = st.time - st.straggler
        assert st.straggler == pytest.approx(straggler_share(gpus) * rest)
    assert big.straggler / big.time > small.straggler / small.time


def test_the_seed_moe_on_256_dgx_h100_at_ep_64() -> None:
    """The seed's other figure, 5.1 s and 22% communication on 256 DGX H100: 2,048 GPUs hold
    dp x cp = 64, not EP 128; at EP 64 (the rest as the sample, no MFU declared) the model gives
    21.76 s with 24.2% communication, the expert all-to-all 3.75 s, the tensor-parallel term
    1.49 s with expert tp 4's exposed all-gathers and reduce-scatters of the routed tokens and
    attention's collectives alone (an MoE layer's input reaches the router sequence-parallel
    split: 21.61 s, 25.0% and 1.64 s with the dense MLP's two; 20.19 s and 20.1% before the
    expert-tp collectives were charged; 19.80 s and 20.5% at MAMF's GEMM rates,
    before the GEMMs ran at a layer's shapes back to back: efficiency.AT_LAYER)
    (docs/performance-model.md, Three practitioner claims)."""
    from pathlib import Path

    from dclint.loader import load_text
    from dclint.projection import project_workloads

    text = Path("sample_designs/moe-1.7t-nvl72.yaml").read_text(encoding="utf-8")
    workload = text[text.index("workloads:") : text.index("cost:")]
    workload = workload[: workload.index("    checkpoint:")]
    for old, new in (
        ("    mfu: 30%\n", ""),
        ("ep: 128", "ep: 64"),
        ("gpus: 8192", "gpus: 2048"),
        ("    tokens: 10e12\n", "    platform: dgx-h100\n    tokens: 10e12\n"),
    ):
        assert old in workload
        workload = workload.replace(old, new)
    (p,) = project_workloads(load_text("name: seed-h100\n" + workload))
    d = p.as_dict()
    step, b = d["step_time_predicted_s"], d["step_breakdown"]
    comm = sum(b[k] for k in ("tp", "pp_p2p", "dp", "cp", "ep")) / step
    assert (step, comm, b["ep"], b["tp"]) == (
        pytest.approx(21.754, abs=1e-3),
        pytest.approx(0.242, abs=1e-3),
        pytest.approx(3.752, abs=1e-3),
        pytest.approx(1.491, abs=1e-3),
    )


def test_the_seed_moe_names_the_setting_that_explains_the_operators_step() -> None:
    """The 1.7T MoE on NVL72 (operator: 2.3 s a step, 9.4% communication). As written (no
    all-to-all overlap, no folding) the model gives 3.415 s with the expert all-to-all 26% of
    it and expert tp 4's all-gathers and reduce-scatters of the routed tokens exposed in the
    tensor-parallel term (0.175 s of its 0.193 s, attention's collectives the rest: an MoE
    layer has no tp collective of its own), and the assumptions say both and name the
    published settings; with them (Megatron-Core's --overlap-moe-expert-parallel-comm, MoE
    parallel folding at expert tp 1, as Megatron-Bridge's MoE recipes run) 2.521 s (+9.6%)
    with 6.3% communication (3.400 s and 2.523 s before f6d8ad6; 3.422 s and 2.545 s, 6.9%, with the
    dense MLP's two tp collectives a pass in each MoE layer; 3.208 s, 28%, before the expert-tp
    collectives were charged; 2.974 s, 30%,
    and 2.303 s, 7.7%, at MAMF's GEMM rates, before the GEMMs ran at a layer's shapes back to
    back, Blackwell's FP8 rate there 0.846 of MAMF's: efficiency.AT_LAYER; 2.714 s and
    2.213 s before the output layer's GEMMs ran at the BF16 rate in FP8 runs; 2.769 s, 32%, and
    2.269 s, 7.8%, before the pipeline bubble waited on a micro-batch's communication)."""
    from pathlib import Path

    from dclint.loader import load_text
    from dclint.projection import project_workloads

    text = Path("sample_designs/moe-1.7t-nvl72.yaml").read_text(encoding="utf-8")
    plain = text.replace("    mfu: 30%\n", "")
    tuned = text.replace(
        "    mfu: 30%\n",
        "    software: {moe_parallel_folding: true, expert_tp: 1, overlap_ep: true}\n",
    )
    parts = ("tp", "pp_p2p", "dp", "cp", "ep")
    got = []
    for t in (plain, tuned):
        (p,) = project_workloads(load_text(t))
        d = p.as_dict()
        step, b = d["step_time_predicted_s"], d["step_breakdown"]
        got.append((step, b["ep"] / step, sum(b[k] for k in parts) / step, p.assumptions))
    (step, ep, _, notes), (tuned_step, _, comm, tuned_notes) = got
    assert (step, ep) == (pytest.approx(3.415, abs=1e-3), pytest.approx(0.262, abs=1e-3))
    assert (tuned_step, comm) == (pytest.approx(2.521, abs=1e-3), pytest.approx(0.063, abs=1e-3))
    # the bubble's share of the same tp, cp and ep communication, (p - 1) / v x their sum / m
    # (pp 8, vpp 2, m = 2048 / (dp 128 x micro-batch 1) = 16), is in pp_bubble; with it the
    # share a stage waits on communication is 7.5% (the docs, Three practitioner claims)
    (p,) = project_workloads(load_text(tuned))
    b = p.as_dict()["step_breakdown"]
    waited = (8 - 1) / 2 * (b["tp"] + b["cp"] + b["ep"]) / 16
    assert waited == pytest.approx(0.030, abs=1e-3)
    assert comm + waited / tuned_step == pytest.approx(0.075, abs=1e-3)
    said = [n for n in notes if n.startswith("expert all-to-all not overlapped")]
    assert said == [
        "expert all-to-all not overlapped (ep 128 ranks 8 apart span 1,024 GPUs, 9 of them in a "
        "72-GPU NVLink domain: 93% of its bytes cross the scale-out network): Megatron-Core's "
        "--overlap-moe-expert-parallel-comm (software.overlap_ep: true, Megatron-Bridge's "
        "moe_a2a_overlap) runs it under the paired micro-batch's compute, and MoE parallel "
        "folding at expert_tp 1 numbers the ep ranks next to each other"
    ]
    assert not [n for n in tuned_notes if n.startswith("expert all-to-all not overlapped")]
    said = [n for n in notes if n.startswith("expert tp")]
    assert said == [
        "expert tp 4: Megatron-Core's all-to-all dispatcher all-gathers the routed tokens over "
        "the 4 expert-tp ranks after the dispatch and reduce-scatters them before the combine "
        "(their backward: a reduce-scatter and an all-gather), blocking NCCL calls on the "
        "compute stream outside the userbuffers and the all-to-all overlap: charged exposed, "
        "BF16, in the tensor-parallel term"
    ]
    assert not [n for n in tuned_notes if n.startswith("expert tp")]


def test_an_fp4_run_takes_no_fp8_recipes_gemm_rate() -> None:
    """An FP4 run's GEMM rate is NVFP4's, already block-scaled (efficiency.AT_LAYER, the guide's
    NVFP4 layer): its declared fp8_recipe adds its scaling bytes but not MXFP8's or rowwise's
    GEMM rate. mxfp8 divided an FP4 run's GEMMs by MXFP8_GEMM_RATE (0.951) a second time, and
    rowwise by ROWWISE_GEMM_RATE: the same step as the recipe's bytes declared as cast bytes."""
    from dclint.projection.step.records import FP8_RECIPE_BYTES

    lay = Layout(tp=8, pp=1, dp=4, global_batch=64)
    fp4 = replace(H100, fp8_cast_bytes=4.0, fp4=True)
    # against a recipe of the same casts: Transformer Engine's delayed scaling for MXFP8,
    # torchao's tensorwise for rowwise (no MLP second-input cast of Megatron-Core's layer)
    for recipe, same in (("mxfp8", "delayed"), ("rowwise", "tensorwise")):
        declared = step(GPT, lay, fp4, Software(fp8_recipe=recipe))
        extra = FP8_RECIPE_BYTES[recipe] - FP8_RECIPE_BYTES[same]
        as_bytes = replace(fp4, fp8_cast_bytes=4.0 + extra)
        assert declared.time == step(GPT, lay, as_bytes, Software(fp8_recipe=same)).time
        fp8 = step(GPT, lay, replace(fp4, fp4=False), Software(fp8_recipe=recipe))
        assert fp8.time > declared.time  # an FP8 run keeps its recipe's GEMM rate


LLAMA = Arch(32, 4096, 32, 8, 14336, 128256, 4096, swiglu=True, dense_params=8.03e9)


def test_a_per_projection_plan_gathers_each_projections_input() -> None:
    """tp_plan per-projection (KempnerForge's DTensor plan, kempnerforge/distributed/
    tensor_parallel.py at 01b461a): q, k, v, gate and up each all-gather the sequence-sharded
    input, 5 all-gathers and 2 reduce-scatters a forward where Megatron's plan has 2 and 2 (the
    backward: 5 reduce-scatters and 2 all-gathers), each (t-1)/t x n h x 2 B, in every pass
    but a compiled recomputation; the head's logits all-gathered once a micro-batch; the loss
    over the whole vocabulary on each rank."""
    lay = Layout(tp=4, dp=1, micro_batch=1, global_batch=2, sequence_parallel=True)
    lay = replace(lay, recompute="full")
    sw = Software(overlap_tp=False)
    megatron = step(LLAMA, lay, H100, sw)
    per = step(LLAMA, lay, H100, replace(sw, tp_plan="per-projection"))
    n, h, v, t, m = 4096, 4096, 128256, 4, 2
    passes = 4  # forward, recomputed forward, backward (twice a forward's collectives)

    def layer(each: int) -> float:
        size = each * passes * (t - 1) / t * n * h * 2
        return group_time(LINKS, size, t, 1, calls=each * passes)

    logits = group_time(LINKS, (t - 1) / t * n * v * 2, t, 1, calls=1)
    assert megatron.tp == pytest.approx(m * 32 * layer(4))
    assert per.tp == pytest.approx(m * 32 * layer(7) + m * logits)
    # Megatron's fp32 cross-entropy, 52 B a logit, over v rather than v / t
    loss = 52 * n * v * (1 - 1 / t) / (3.35e12 * 0.8)
    assert per.compute - megatron.compute == pytest.approx(m * loss)
    # without sequence parallelism both plans all-reduce the same two outputs a pass
    plain = replace(lay, sequence_parallel=False)
    assert step(LLAMA, plain, H100, replace(sw, tp_plan="per-projection")) == step(
        LLAMA, plain, H100, sw
    )
    # a plain (not gated) MLP gathers once for up, as fc1 does: 6 a pass
    gelu = replace(LLAMA, swiglu=False)
    plain_mlp = step(gelu, lay, H100, replace(sw, tp_plan="per-projection"))
    assert plain_mlp.tp == pytest.approx(m * 32 * layer(6) + m * logits)
    # compiled, the full recomputation re-runs what the backward needs: one all-gather for q,
    # k and v and one for gate and up (AOTAutograd's partition of the CSE'd joint graph), 4
    compiled = replace(sw, tp_plan="per-projection", kernels="compiled")
    size = (7 * 3 + 4) * (t - 1) / t * n * h * 2
    again = group_time(LINKS, size, t, 1, calls=7 * 3 + 4)
    assert step(LLAMA, lay, H100, compiled).tp == pytest.approx(m * 32 * again + m * logits)
    # Megatron's plan compiled is as before: 4 a pass, the recomputation's too
    megatron_compiled = step(LLAMA, lay, H100, replace(sw, kernels="compiled"))
    assert megatron_compiled.tp == pytest.approx(m * 32 * layer(4))
