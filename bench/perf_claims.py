"""What the step-time model says about three practitioner claims (docs/performance-model.md).

Nothing here is fitted to the claims: the machines are datasheet figures, the efficiencies are
dclint.projection.efficiency's, and the workloads are public architectures named below.

    python bench/perf_claims.py
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dclint.projection.collectives import ECMP_COLLISION, Links
from dclint.projection.efficiency import efficiency_for
from dclint.projection.efficiency import machine as gpu_machine
from dclint.projection.step.model import Arch, Layout, Machine, Software, Step, step

COMM = ("tp", "pp_p2p", "dp", "cp", "ep")
# Llama 2 70B (Touvron et al. 2023): 80 layers, h 8192, 64 heads, 8 KV heads, SwiGLU 28672.
LLAMA70 = Arch(80, 8192, 64, 8, 28672, 32000, 4096, swiglu=True, dense_params=69e9)


def machine(
    gpu: str,
    precision: str,
    domain: int,
    nic_gbps: float,
    tiers: tuple[tuple[int, float], ...] = (),
) -> Machine:
    eff = efficiency_for(gpu, precision)
    assert eff is not None
    peak, hbm, nvl = {
        "h100-sxm": ({"bf16": 989e12, "fp8": 1979e12}, 3.35e12, 900e9),
        "gb200": ({"bf16": 2.5e15, "fp8": 5e15}, 8e12, 1.8e12),
    }[gpu]
    links = Links(domain, nvl / 2 * eff.nvlink, nic_gbps / 8 * 1e9 * eff.network, tiers)
    return gpu_machine(peak[precision], hbm, eff, links)


def show(name: str, st: Step, gpus: int, peak: float) -> None:
    comm = sum(getattr(st, k) for k in COMM)
    mfu = st.model_flops / (st.time * gpus * peak)
    parts = ", ".join(f"{k} {v / st.time:.1%}" for k, v in st.parts().items() if v > 0)
    print(f"{name}: step {st.time:.2f} s, MFU {mfu:.1%}, communication {comm / st.time:.1%}")
    print(f"    {parts}")


def main() -> None:
    # 1. 256 H100, TP 8 / PP 4 / DP 8, one 200 Gb/s NIC a GPU, Llama 2 70B, 4M-token batch
    lay = Layout(8, 4, 1, 8, 1, 1, 1, 1024, True, True, "selective")
    h100_200 = machine("h100-sxm", "bf16", 8, 200)
    show("claim 1, Megatron-Core overlap", step(LLAMA70, lay, h100_200, Software()), 256, 989e12)
    bare = Software(overlap_tp=False, overlap_dp=False, overlap_pp=False)
    show("claim 1, nothing overlapped", step(LLAMA70, lay, h100_200, bare), 256, 989e12)

    # 2. a 2:1 tier under the data-parallel groups: 13B-class model, DP-heavy layout on 512 GPUs,
    # 256-GPU switch groups; the job's nodes packed in rank order, or spread over a 4,096-GPU
    # fabric's 16 groups; adaptive routing (InfiniBand) or ECMP hashing (Ethernet)
    llama13 = Arch(40, 5120, 40, 40, 13824, 32000, 4096, swiglu=True, dense_params=13e9)
    lay = Layout(2, 1, 1, 256, 1, 1, 1, 1024, True, True, "selective")

    def fabric(ratio: float, spread: int = 0, collision: float = 1.0) -> Machine:
        m = machine("h100-sxm", "bf16", 8, 400, ((256, ratio),))
        return replace(m, links=replace(m.links, spread=spread, collision=collision))

    cases = {
        "packed": (fabric(1.0), fabric(2.0)),
        "spread, adaptive routing": (fabric(1.0, 4096), fabric(2.0, 4096)),
        "spread, ECMP": (fabric(1.0, 4096, ECMP_COLLISION), fabric(2.0, 4096, ECMP_COLLISION)),
        "1:1 packed vs 2:1 spread ECMP": (fabric(1.0), fabric(2.0, 4096, ECMP_COLLISION)),
    }
    for name, (flat, over) in cases.items():
        raw = step(llama13, lay, over, bare).dp / step(llama13, lay, flat, bare).dp - 1
        for sw, label in ((Software(), "overlapped"), (bare, "not overlapped")):
            a, b = step(llama13, lay, flat, sw), step(llama13, lay, over, sw)
            print(
                f"claim 2 ({name}, {label}): gradient sync {raw:+.0%}, "
                f"throughput {a.time / b.time - 1:+.1%} (step {a.time:.3f} -> {b.time:.3f} s)"
            )

    # 3. 1.7T MoE (the sample design's architecture), TP 4, PP 8, EP 128, VPP 2, CP 2, FP8
    moe = Arch(96, 12288, 96, 8, 32768, 128000, 8192, True, 128, 2, 0.0, 1.7e12)
    lay = Layout(4, 8, 2, 128, 128, 2, 1, 2048, True, True, "selective")
    nvl72 = machine("gb200", "fp8", 72, 400)
    show("claim 3, 8192 of 9216 GB200 (128 NVL72)", step(moe, lay, nvl72, Software()), 8192, 5e15)
    h100 = machine("h100-sxm", "fp8", 8, 400)
    lay_h = replace(lay, dp=32, ep=64)  # 2048 GPUs: dp x cp = 64 cannot hold EP 128
    show("claim 3, 2048 H100 (256 DGX), EP 64", step(moe, lay_h, h100, Software()), 2048, 1979e12)


if __name__ == "__main__":
    main()
