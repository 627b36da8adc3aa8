"""Speed of `dclint plan`'s layout search (issue 20): the full grid, one process, one core.

Targets: a 1,024-GPU H100 cluster and a 70B dense model under 10 s; a 100,000-GPU H100 cluster
(98,304) and a 1T-parameter MoE
under 60 s. Timed with time.perf_counter, best of `--repeat` rounds;
the design is loaded (and its declared run projected) outside the timed part.

    python bench/plan_bench.py
    python bench/plan_bench.py --repeat 1 --only 1024
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dclint.loader.load import load_text  # noqa: E402
from dclint.projection.search.plan import cached_search, plan_layouts  # noqa: E402

DENSE_70B = """\
    model: {parameters: 70.6e9, layers: 80, hidden_size: 8192, attention_heads: 64,
            query_groups: 8, ffn_hidden_size: 28672, vocab_size: 128256, swiglu: true}
    tokens: 15e12
    sequence_length: 8192
    global_batch: 512
    parallel: {tp: 8, pp: 4}
"""
# 80 MoE layers of 64 experts (top-2) with 8192-wide expert MLPs: 1.03e12 expert parameters
MOE_1T = """\
    model: {parameters: 1.07e12, layers: 80, hidden_size: 8192, attention_heads: 64,
            query_groups: 8, ffn_hidden_size: 8192, vocab_size: 128256, swiglu: true,
            experts: 64, top_k: 2}
    tokens: 20e12
    sequence_length: 4096
    global_batch: 12288
    parallel: {tp: 8, pp: 8, ep: 8}
"""
CASES = {  # GPUs: (racks of 4 HGX H100 nodes, workload, target seconds)
    1024: (32, DENSE_70B, 10.0),
    98_304: (3072, MOE_1T, 60.0),  # 12,288 HGX nodes: about 100,000 GPUs, 2^15 x 3
}


def design(gpus: int) -> str:
    racks, workload, _ = CASES[gpus]
    return (
        f"name: plan-bench-{gpus}\n"
        f"racks:\n  - {{id: 'r[0001-{racks:04d}]', platform: hgx-h100, nodes: 4}}\n"
        "fabrics:\n  - id: compute\n    kind: compute\n    rail_optimised: true\n"
        "    tiers:\n      - {name: leaf, switch: qm9700, count: 2, downlinks: 32, uplinks: 32}\n"
        "workloads:\n  - id: llm\n"
        f"    gpus: {gpus}\n" + workload
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", type=int, choices=sorted(CASES), help="one case")
    args = ap.parse_args(argv)
    failed = False
    for gpus in [args.only] if args.only else sorted(CASES):
        d = load_text(design(gpus), f"plan-bench-{gpus}.yaml")
        wl = d.workloads[0]
        best = float("inf")
        plan = None
        for _ in range(args.repeat):
            cached_search.cache_clear()  # time the search, not the per-process cache
            start = time.perf_counter()
            plan = plan_layouts(d, wl)
            best = min(best, time.perf_counter() - start)
        assert plan is not None and not isinstance(plan, str), plan
        target = CASES[gpus][2]
        ok = best < target
        failed |= not ok
        print(
            f"{gpus:>7,} GPUs {wl.model.parameters:.3g} params: {plan.result.candidates:,} "
            f"candidates, {len(plan.result.valid):,} valid, {best:.2f} s "
            f"(target {target:g} s) {'PASS' if ok else 'FAIL'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
