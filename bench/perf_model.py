"""Speed of the step-time model: one workload's prediction, and 10,000 layouts in one process.

Targets (issue 19): one prediction under 5 ms; 10,000 layouts under 10 s. Timed with
time.perf_counter over repeated calls (best of `--repeat` rounds).

    python bench/perf_model.py
    python bench/perf_model.py --design sample_designs/moe-1.7t-nvl72.yaml --repeat 3
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dclint.loader.load import load  # noqa: E402
from dclint.projection.predict import inputs, predict  # noqa: E402
from dclint.projection.step.model import Layout, step  # noqa: E402
from dclint.projection.training import hardware_of  # noqa: E402


def layouts(gpus: int, layers: int, heads: int, batch: int, count: int) -> list[Layout]:
    """`count` distinct valid layouts (tp, pp, cp, vpp, micro-batch, recompute, ...)."""
    out: list[Layout] = []
    for tp, pp, cp, vpp, mb, rec, sp, dist in itertools.product(
        (1, 2, 4, 8, 16),
        (1, 2, 4, 8, 16, 32, 64),
        (1, 2, 4),
        (1, 2, 3, 4, 6),
        (1, 2, 4, 8),
        ("none", "selective", "full"),
        (True, False),
        (True, False),
    ):
        dp = gpus // (tp * pp * cp)
        if dp < 1 or layers % (pp * vpp) or heads % tp or batch % (dp * mb):
            continue
        out.append(Layout(tp, pp, cp, dp, 1, vpp, mb, batch, sp and tp > 1, dist, rec))
        if len(out) == count:
            break
    while len(out) < count:  # repeat the valid ones up to the count
        out.extend(out[: count - len(out)])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", default=str(ROOT / "sample_designs" / "h100-40node.yaml"))
    ap.add_argument("--layouts", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    design = load(args.design)
    wl = design.workloads[0]
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str), hw
    got = predict(design, wl, hw)
    assert not isinstance(got, str), got

    one = min(_timed(lambda: predict(design, wl, hw), 200) for _ in range(args.repeat))
    notes: list[str] = []
    made = inputs(design, wl, hw, notes)
    assert not isinstance(made, str), made
    arch, _, machine, sw = made
    batch = wl.global_batch or 1024
    lays = layouts(wl.gpus, arch.layers, arch.heads, batch, args.layouts)
    many = min(_timed(lambda: [step(arch, x, machine, sw) for x in lays], 1) for _ in range(2))
    report = {
        "design": Path(args.design).name,
        "workload": wl.id,
        "one prediction (predict(), from the design) ms": round(one * 1e3, 4),
        "target one prediction ms": 5.0,
        f"{len(lays)} layouts (step()) s": round(many, 4),
        "target 10,000 layouts s": 10.0,
        "distinct layouts": len(set(lays)),
    }
    print(json.dumps(report, indent=2))
    return 0 if one < 0.005 and many < 10.0 * len(lays) / 10_000 else 1


def _timed(fn: Callable[[], object], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


if __name__ == "__main__":
    raise SystemExit(main())
