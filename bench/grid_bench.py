"""Speed and memory of `dclint plan --vary` grids (issue 35), whole commands side by side.

1. A 24-point grid whose layout knob varies fastest (the case that thrashed the old per-worker
   cache) with --jobs 1, 2 and every core: grouping by search key makes more jobs faster,
   never slower.
2. A larger grid streamed into a store: killed part way, resumed with --resume; the resumed
   run evaluates only what the kill left, and ends with the same table as an uninterrupted run.
3. Peak memory (ru_maxrss of the child) of grids of growing size: flat while the grid grows,
   the points streamed to the store rather than held.

    python bench/grid_bench.py                 # about a minute on two idle cores
    python bench/grid_bench.py --points 10000  # the issue's 10,000-point target
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGN = str(ROOT / "sample_designs" / "h100-40node.yaml")
BATCH = "workloads[0].global_batch=480,960,1920"  # changes the layout search
PUE = "site.pue=1.1,1.2,1.3,1.4"
PRICE = "site.electricity_price=0.6 CNY/kWh,0.8 CNY/kWh"


def _dclint(*argv: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from dclint.cli import run; sys.argv[0]='dclint'; run()",
        *argv,
    ]


def timed(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and the child's peak RSS in MiB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(after, before) // 1024


def values(n: int) -> str:
    """`site.pue=...` with n values (1.05, 1.06, ...)."""
    return "site.pue=" + ",".join(f"{1.05 + i / 1000:.3f}" for i in range(n))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=600, help="points of the resume grid")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"1. 24 points ({PUE} x {PRICE} x {BATCH}), the layout knob fastest")
    base = ["plan", DESIGN, "--vary", PUE, "--vary", PRICE, "--vary", BATCH]
    for jobs in sorted({1, 2, cores}):
        seconds, _ = timed(_dclint(*base, "--jobs", str(jobs)))
        print(f"   --jobs {jobs}: {seconds:6.2f} s")

    n = max(3, args.points // 3)
    grid = ["plan", DESIGN, "--vary", values(n), "--vary", "workloads[0].global_batch=480,960,1920"]
    total = n * 3
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "grid.db")
        whole = str(Path(tmp) / "whole.db")
        seconds, _ = timed(_dclint(*grid, "--store", whole))
        print(f"2. {total:,} points uninterrupted: {seconds:6.2f} s")
        proc = subprocess.Popen(_dclint(*grid, "--store", store), stdout=subprocess.DEVNULL)
        time.sleep(seconds / 2)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        import sqlite3

        with sqlite3.connect(store) as db:
            kept = db.execute("select count(*) from points").fetchone()[0]
        seconds2, _ = timed(_dclint(*grid, "--resume", store))
        print(
            f"   killed at half time with {kept:,} points stored; --resume finished the "
            f"other {total - kept:,} in {seconds2:6.2f} s"
        )
        same = subprocess.run(_dclint(*grid, "--resume", store), capture_output=True, text=True)
        ref = subprocess.run(_dclint(*grid, "--resume", whole), capture_output=True, text=True)
        print(f"   resumed table == uninterrupted table: {same.stdout == ref.stdout}")

    print("3. peak memory by grid size (--jobs 1, into a store)")
    for size in (30, 300, 3000 if args.points >= 3000 else 900):
        with tempfile.TemporaryDirectory() as tmp:
            argv = [*_dclint("plan", DESIGN, "--vary", values(size), "--jobs", "1")]
            argv += [
                "--store",
                str(Path(tmp) / "m.db"),
                "--format",
                "json",
                "-o",
                str(Path(tmp) / "o.json"),
            ]
            code = subprocess.run(
                [sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True, check=True
            )
            print(f"   {size:>6,} points: peak RSS {code.stdout.strip()} MiB")
    return 0


MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""

if __name__ == "__main__":
    raise SystemExit(main())
