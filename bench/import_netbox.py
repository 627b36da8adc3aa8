"""The import's speed target: a 1,000-rack NetBox export from file in under 5 s, in memory
under 10x the export's size.

The export is tests/integration/cluster.py's cluster grown to 1,000 GPU racks (4 DGX H100
each) plus the network rack: 1,001 racks, 2,002 feeds, 5,501 devices, 128,000 cabled
interfaces, 64,000 cables, written as NetBox's REST API lists them. Each run is a fresh
`dclint import netbox --from-file` process; its wall time and peak RSS (getrusage of the
children) are taken, and the median over --repeat runs is printed.

    python bench/import_netbox.py                 # 1,000 racks, 3 runs
    python bench/import_netbox.py --racks 100 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "integration"))
from cluster import cluster, netbox_dump  # noqa: E402

TARGET_S = 5.0
TARGET_MEMORY = 10.0  # peak RSS / export size


def _one(dump: Path, out: Path) -> tuple[float, int, float]:
    """Wall seconds, peak RSS bytes and CPU seconds of one import, in a wrapper process of its
    own (CPU time is the figure to read on a shared, loaded machine)."""
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "t = time.perf_counter() - t\n"
        "assert r.returncode == 0, r.stderr.decode()[-2000:]\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(t, u.ru_maxrss * 1024, u.ru_utime + u.ru_stime)\n"
    )
    argv = [sys.executable, "-m", "dclint", "import", "netbox", "--from-file", str(dump)]
    argv += ["--map", str(ROOT / "tests" / "integration" / "netbox-import.yaml"), "-o", str(out)]
    answer = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    )
    wall, rss, cpu = answer.stdout.split()
    return float(wall), int(rss), float(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racks", type=int, default=1000, help="GPU racks (default 1000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "netbox.json"
        data = netbox_dump(cluster(gpu_racks=args.racks))
        dump.write_text(json.dumps(data), encoding="utf-8")
        counts = {k.split("/")[-1]: len(v) for k, v in data.items()}
        del data
        size = dump.stat().st_size
        runs = [_one(dump, Path(tmp) / "site.yaml") for _ in range(args.repeat)]
        lines = (Path(tmp) / "site.yaml").read_text(encoding="utf-8").count("\n")
    wall = statistics.median(w for w, _, _ in runs)
    rss = statistics.median(r for _, r, _ in runs)
    cpu = statistics.median(c for _, _, c in runs)
    print(f"export: {size / 1e6:.1f} MB, {json.dumps(counts)}")
    print(f"design written: {lines} lines")
    print(
        f"wall: median {wall:.2f} s of {[round(w, 2) for w, _, _ in runs]} (target < {TARGET_S} s)"
    )
    print(f"CPU (user + system): median {cpu:.2f} s")
    print(
        f"peak RSS: median {rss / 1e6:.0f} MB = {rss / size:.1f}x the export "
        f"(target < {TARGET_MEMORY}x)"
    )
    return 0 if wall < TARGET_S and rss / size < TARGET_MEMORY else 1


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
