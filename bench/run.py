"""dclint's benchmark: cold `dclint check` runs against public floors, and the speed targets.

Every measurement is a fresh process, started from a fresh wrapper process that records its wall
time and its peak RSS (resource.getrusage(RUSAGE_CHILDREN).ru_maxrss: the wrapper has no other
child). A case's figure is the median over `--repeat` runs, taken round-robin across the cases.
Memory beyond the baseline is the peak RSS of a run minus the peak RSS of `dclint check` on the
small sample design (the interpreter plus the libraries dclint imports), so that it counts what
the design itself costs.

    python bench/run.py                              # 1,000, 10,000 and 100,000 GPUs, 5 runs each
    python bench/run.py --sizes 1000 --repeat 1      # smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import generate  # a sibling script, not a package
import policies  # the fifty site policies of the side-by-side policy case

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_designs" / "gb200-superpod-su.yaml"
SCHEMA = ROOT / "schemas" / "design.schema.json"
POLICY_SIZE = 10_000  # the design the site-policy case checks (issue 55: at most 20% more)
PY = sys.executable
# pint without numpy and dask, as dclint's command line imports it (pint imports both where
# they are installed; the test extra installs dask for the grid's cluster tests)
IMPORT_FLOOR = (
    "import sys; sys.modules['numpy'] = None; sys.modules['dask'] = None; "
    "import yaml, pydantic.main, pint"
)
YAML_FLOOR = "import sys, yaml; yaml.load(open(sys.argv[1]), Loader=yaml.CSafeLoader)"
# A stricter floor: on an explicit design, most of the plain C-loader parse is the garbage
# collector walking the growing document (dclint raises its threshold; see README)
YAML_FLOOR_NO_GC = "import gc; gc.disable(); " + YAML_FLOOR
_MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "rss_kb": peak, "rc": rc}))
"""


def run_once(cmd: list[str], cwd: str | None = None) -> dict[str, Any]:
    """Run `cmd` once in a fresh wrapper (in `cwd`): its wall time, peak RSS and exit code."""
    out = subprocess.run([PY, "-c", _MEASURE, *cmd], capture_output=True, text=True, cwd=cwd)
    if out.returncode != 0:
        raise SystemExit(f"wrapper failed for {cmd}: {out.stderr}")
    run: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if sys.platform == "darwin":  # ru_maxrss is in bytes there
        run["rss_kb"] //= 1024
    return run


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median wall time and peak RSS of a case's runs."""
    rss = [r["rss_kb"] for r in runs]
    return {
        "times_s": [round(r["wall"], 4) for r in runs],
        "median_s": round(statistics.median(r["wall"] for r in runs), 4),
        "rss_kb": rss,
        "peak_rss_kb": int(statistics.median(rss)),
        "rc": sorted({r["rc"] for r in runs}),
    }


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(PY).parent)) or shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: pip install {name}")
    return found


def prepare(sizes: list[int], many: int, out: Path) -> dict[str, Any]:
    """Generate the designs and the small-design copies; the schema if it is missing."""
    files: dict[str, Any] = {"sizes": {g: generate.write(g, out) for g in sizes}}
    small = out / "small"
    small.mkdir(parents=True, exist_ok=True)
    files["small"] = small / SAMPLE.name
    text = SAMPLE.read_text(encoding="utf-8")
    files["small"].write_text(text, encoding="utf-8")
    group = out / "many"
    shutil.rmtree(group, ignore_errors=True)
    group.mkdir()
    # an empty config (TOML: reading it needs no YAML parser): dclint's defaults, and the
    # results cache of the cached repeat beside it
    (group / "pyproject.toml").write_text("[tool.dclint]\n", encoding="utf-8")
    files["many"] = []
    for i in range(many):
        path = group / f"su-{i:03d}.yaml"
        path.write_text(text.replace("name: gb200-superpod-su", f"name: su-{i:03d}"), "utf-8")
        files["many"].append(path)
    _commit(group)  # a git repository of them, as a CI job checks one out
    files["policies"] = policies.write(out)

    # the same designs again, for the incremental case: one of them changes before each run
    edit = out / "many-edit"
    shutil.rmtree(edit, ignore_errors=True)
    shutil.copytree(group, edit)
    files["edit"] = edit
    if not SCHEMA.exists():
        SCHEMA.parent.mkdir(exist_ok=True)
        schema = subprocess.run([PY, "-m", "dclint", "schema"], capture_output=True, check=True)
        SCHEMA.write_bytes(schema.stdout)
    return files


def _commit(folder: Path) -> None:
    """`folder` made a git repository with its files committed (a `.git` folder marks it one
    where git is not installed)."""
    git = shutil.which("git")
    if git is None:
        (folder / ".git").mkdir(exist_ok=True)
        return
    who = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "gc.auto=0"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "designs"]):
        subprocess.run([git, *who, *args], cwd=folder, check=True, capture_output=True)


def cases(files: dict[str, Any]) -> list[dict[str, Any]]:
    # the console script, as check-jsonschema's below; cold: the results cache off
    dclint = [_tool("dclint"), "check", "--no-cache"]
    cjs = [_tool("check-jsonschema"), "--schemafile", str(SCHEMA)]
    out: list[dict[str, Any]] = [
        {"name": "python (bare interpreter)", "kind": "interpreter", "cmd": [PY, "-c", "pass"]},
        {
            "name": "python: import yaml, pydantic",
            "kind": "import",
            "cmd": [PY, "-c", "import yaml, pydantic"],
        },
        {  # the floor of any dclint run on this machine: what it imports before reading a file
            "name": "python: import yaml, pydantic, pint",
            "kind": "import",
            "cmd": [PY, "-c", IMPORT_FLOOR],
        },
    ]
    for gpus, paths in files["sizes"].items():
        for form, path in paths.items():
            common = {"size": gpus, "form": form, "file": str(path), "bytes": path.stat().st_size}
            out.append(
                {
                    "name": f"dclint {gpus} {form}",
                    "kind": "dclint",
                    **common,
                    "cmd": [*dclint, str(path)],
                }
            )
            out.append(
                {
                    "name": f"yaml C loader {gpus} {form}",
                    "kind": "yaml",
                    **common,
                    "cmd": [PY, "-c", YAML_FLOOR, str(path)],
                }
            )
            if form == "explicit":
                out.append(
                    {
                        "name": f"yaml C loader, GC off {gpus} {form}",
                        "kind": "yaml-no-gc",
                        **common,
                        "cmd": [PY, "-c", YAML_FLOOR_NO_GC, str(path)],
                    }
                )
    explicit = files["sizes"].get(POLICY_SIZE, {}).get("explicit")
    if explicit is not None:  # the same check with and without fifty site policies
        for label, config in (("no policies", "without"), ("50 policies", "with")):
            cmd = [*dclint, "--config", str(files["policies"][config]), str(explicit)]
            out.append(
                {
                    "name": f"dclint {POLICY_SIZE} explicit, {label}",
                    "kind": f"dclint-{config}-policies",
                    "file": str(explicit),
                    "cmd": cmd,
                }
            )
    small = str(files["small"])
    many = [str(p) for p in files["many"]]
    out += [
        {"name": "dclint small", "kind": "dclint-small", "file": small, "cmd": [*dclint, small]},
        {
            "name": "check-jsonschema small",
            "kind": "cjs-small",
            "file": small,
            "cmd": [*cjs, small],
        },
        {"name": f"dclint {len(many)} small", "kind": "dclint-many", "cmd": [*dclint, *many]},
        {"name": f"check-jsonschema {len(many)} small", "kind": "cjs-many", "cmd": [*cjs, *many]},
        {  # the same designs again, unchanged: from the results cache (filled before round 1)
            "name": f"dclint {len(many)} small, cached",
            "kind": "dclint-cached",
            "cmd": [_tool("dclint"), "check", *many],
        },
        {  # the README's CI line in their repository, unchanged: from the results cache
            "name": f"dclint check . ({len(many)} small), cached",
            "kind": "dclint-cached-dir",
            "cmd": [_tool("dclint"), "check", "."],
            "cwd": str(files["many"][0].parent),
        },
        {  # a copy of them, checked as a folder, one design changed before each run: the
            # others replayed from the cache (issue 54: the CI line after a one-file commit)
            "name": f"dclint {len(many)} small, one changed",
            "kind": "dclint-one-changed",
            "cmd": [_tool("dclint"), "check", str(files["edit"])],
            "touch": str(sorted(files["edit"].glob("*.yaml"))[0]),
        },
    ]
    return out


def touch(path: str) -> None:
    """Change the design at `path` (a comment added or removed at its end): a new text."""
    file = Path(path)
    text = file.read_text(encoding="utf-8")
    mark = "# changed for the benchmark\n"
    file.write_text(text.removesuffix(mark) if text.endswith(mark) else text + mark, "utf-8")


def _find(results: list[dict[str, Any]], kind: str, **match: Any) -> dict[str, Any] | None:
    for r in results:
        if r["kind"] == kind and all(r.get(k) == v for k, v in match.items()):
            return r
    return None


def targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each target as value, limit and PASS/FAIL (SKIP when its sizes were not run)."""
    out = []

    def add(name: str, value: float | None, limit: float, unit: str) -> None:
        status = "SKIP" if value is None else ("PASS" if value <= limit else "FAIL")
        out.append({"name": name, "value": value, "limit": limit, "unit": unit, "status": status})

    def t(kind: str, **match: Any) -> dict[str, Any] | None:
        return _find(results, kind, **match)

    def ratio(a: dict[str, Any] | None, b: dict[str, Any] | None) -> float | None:
        """Median of the ratios of runs taken side by side (the same round), so that the
        machine's drift cancels; the ratio of the medians if the runs do not pair up."""
        if a is None or b is None:
            return None
        if len(a["times_s"]) == len(b["times_s"]):
            pairs = zip(a["times_s"], b["times_s"], strict=True)
            return round(statistics.median(x / y for x, y in pairs), 3)
        return round(a["median_s"] / b["median_s"], 3)

    def wall(case: dict[str, Any] | None) -> float | None:
        return case["median_s"] if case else None

    top = 100_000
    add(
        "explicit 100k: dclint / YAML C loader",
        ratio(t("dclint", size=top, form="explicit"), t("yaml", size=top, form="explicit")),
        3.0,
        "x",
    )
    add(
        "explicit 100k: dclint / C loader with GC off",
        ratio(t("dclint", size=top, form="explicit"), t("yaml-no-gc", size=top, form="explicit")),
        3.0,
        "x",
    )
    add("compact 100k: dclint wall time", wall(t("dclint", size=top, form="compact")), 1.0, "s")
    for form in ("explicit", "compact"):
        add(
            f"{form}: time at 100k / time at 10k",
            ratio(t("dclint", size=top, form=form), t("dclint", size=10_000, form=form)),
            11.0,
            "x",
        )
    add(
        "one small design: dclint / check-jsonschema",
        ratio(t("dclint-small"), t("cjs-small")),
        1.0,
        "x",
    )
    add(
        "200 small designs: dclint / check-jsonschema",
        ratio(t("dclint-many"), t("cjs-many")),
        0.5,
        "x",
    )
    add(
        "200 small designs, cached repeat: dclint / python -c pass",
        ratio(t("dclint-cached"), t("interpreter")),
        3.0,
        "x",
    )
    add(
        "check . of 200 small designs, cached repeat: dclint / python -c pass",
        ratio(t("dclint-cached-dir"), t("interpreter")),
        3.0,
        "x",
    )
    add(
        "200 small designs, one changed: dclint / one small design cold",
        ratio(t("dclint-one-changed"), t("dclint-small")),
        2.0,
        "x",
    )
    add(
        "one small design: dclint / import yaml, pydantic, pint",
        ratio(t("dclint-small"), t("import", cmd=[PY, "-c", IMPORT_FLOOR])),
        1.5,  # issue 54's target (an earlier round's 1.1 was never met either)
        "x",
    )
    add(
        f"explicit {POLICY_SIZE // 1000}k: {policies.COUNT} site policies / none",
        ratio(t("dclint-with-policies"), t("dclint-without-policies")),
        1.2,
        "x",
    )
    big, base = _find(results, "dclint", size=top, form="explicit"), _find(results, "dclint-small")
    mem = None
    if big and base:
        mem = round((big["peak_rss_kb"] - base["peak_rss_kb"]) * 1024 / big["bytes"], 2)
    add("explicit 100k: RSS beyond baseline / file size", mem, 10.0, "x")
    return out


def table(results: list[dict[str, Any]], goals: list[dict[str, Any]]) -> str:
    lines = [f"{'case':<44} {'median':>9} {'peak RSS':>10} {'file':>11}  rc", "-" * 84]
    for r in results:
        size = f"{r['bytes']:,}" if "bytes" in r else ""
        lines.append(
            f"{r['name']:<44} {r['median_s']:>8.3f}s {r['peak_rss_kb'] / 1024:>7.1f} MB"
            f" {size:>11}  {','.join(map(str, r['rc']))}"
        )
    lines += ["", f"{'target':<52} {'value':>9} {'limit':>8}  result", "-" * 80]
    for g in goals:
        value = "-" if g["value"] is None else f"{g['value']:.3f}{g['unit']}"
        lines.append(f"{g['name']:<52} {value:>9} {g['limit']:>7}{g['unit']}  {g['status']}")
    return "\n".join(lines)


_COMPILE = (
    "import compileall, os, dclint, dclint.rules\n"
    "for m in (dclint, dclint.rules):\n"
    "    compileall.compile_dir(os.path.dirname(m.__file__), quiet=1)"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark dclint against public floors.")
    parser.add_argument("--sizes", default="1000,10000,100000", help="GPU counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=5, help="cold runs per case (median)")
    parser.add_argument("--many", type=int, default=200, help="small designs in one call")
    parser.add_argument(
        "--small-repeat",
        type=int,
        default=None,
        help="cold runs of the one-small-design pair (default: 3 x --repeat)",
    )
    parser.add_argument("--out", type=Path, default=generate.OUT)
    args = parser.parse_args(argv)
    os.environ.pop("DCLINT_NO_CACHE", None)  # each case says whether it uses the cache
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.small_repeat is None:
        args.small_repeat = 3 * args.repeat
    files = prepare(sizes, args.many, args.out)
    # Byte-compile dclint as `pip install` does: an editable install, or PYTHONDONTWRITEBYTECODE
    # in the environment, would have every cold run compile all of dclint's sources again.
    subprocess.run([PY, "-c", _COMPILE], check=True)
    subprocess.run(
        [PY, "-m", "dclint", "check", "-q", "--no-cache", str(files["small"])],
        stdout=subprocess.DEVNULL,
    )  # warm-up: fill the page cache
    # Round-robin: run r of every case, then run r + 1 of every case. A machine that speeds up
    # or slows down during the run then moves a case and its baseline alike.
    results = cases(files)
    cached = ("dclint-cached", "dclint-cached-dir", "dclint-one-changed")
    for case in results:  # the cached cases' first run checks and fills the cache
        if case["kind"] in cached:
            subprocess.run(case["cmd"], stdout=subprocess.DEVNULL, check=False, cwd=case.get("cwd"))
    # A run record of a directory's search is made only of directories not modified in the last
    # two seconds (a file added within a coarse timestamp's tick would not show): the first run
    # made the cache folder in it, so the record is made by a second run, after that.
    time.sleep(2.5)
    for case in results:
        if case["kind"] == "dclint-cached-dir":
            subprocess.run(case["cmd"], stdout=subprocess.DEVNULL, check=False, cwd=case["cwd"])
    runs: list[list[dict[str, Any]]] = [[] for _ in results]
    for r in range(args.repeat):
        started = time.perf_counter()
        for case, done in zip(results, runs, strict=True):
            if "touch" in case:
                touch(case["touch"])
            done.append(run_once(case["cmd"], case.get("cwd")))
        print(
            f"  round {r + 1}/{args.repeat}: {time.perf_counter() - started:.1f}s", file=sys.stderr
        )
    # The one-small-design ratio is the tightest target and a run takes half a second: its
    # two cases get more rounds, still side by side.
    pair = [
        i
        for i, c in enumerate(results)
        if c["kind"] in ("dclint-small", "cjs-small") or c["cmd"] == [PY, "-c", IMPORT_FLOOR]
    ]
    for _ in range(max(0, args.small_repeat - args.repeat)):
        for i in pair:
            runs[i].append(run_once(results[i]["cmd"]))
    for case, done in zip(results, runs, strict=True):
        case.update(summarise(done))
    goals = targets(results)
    report = {
        "meta": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "sizes": sizes,
            "repeat": args.repeat,
            "small_repeat": max(args.repeat, args.small_repeat),
            "ratios": "median of the ratios of runs taken side by side",
            "many": args.many,
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "memory": "peak RSS of a run minus that of `dclint check` on the small sample",
        },
        "results": results,
        "targets": goals,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    print(table(results, goals))
    bad = [r["name"] for r in results if r["kind"].startswith("dclint") and 2 in r["rc"]]
    if bad:
        print(f"dclint exited 2 (could not load) on: {', '.join(bad)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
