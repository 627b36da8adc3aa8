"""Smoke run of bench/run.py at the smallest size: the report's shape, and designs that load."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from dclint.engine.runner import Engine, run
from dclint.model.resolve import topology_of

pytestmark = pytest.mark.integration  # the benchmark's smoke run: cold processes, timed

BENCH = ROOT / "bench" / "run.py"
TARGETS = {
    "explicit 100k: dclint / YAML C loader",
    "explicit 100k: dclint / C loader with GC off",
    "compact 100k: dclint wall time",
    "explicit: time at 100k / time at 10k",
    "compact: time at 100k / time at 10k",
    "one small design: dclint / check-jsonschema",
    "200 small designs: dclint / check-jsonschema",
    "explicit 100k: RSS beyond baseline / file size",
    "200 small designs, cached repeat: dclint / python -c pass",
    "check . of 200 small designs, cached repeat: dclint / python -c pass",
    "200 small designs, one changed: dclint / one small design cold",
    "one small design: dclint / import yaml, pydantic, pint",
    "explicit 10k: 50 site policies / none",  # SKIP here: the policy pair runs at 10,000 GPUs
}


KINDS = ("dclint-small", "cjs-small")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    if not hasattr(pytest.importorskip("yaml"), "CSafeLoader"):
        pytest.skip("the floor needs PyYAML built with libyaml")
    out = tmp_path_factory.mktemp("bench")
    cmd = [sys.executable, str(BENCH), "--sizes", "1000", "--repeat", "1", "--many", "3"]
    cmd += ["--small-repeat", "2"]
    done = subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads((out / "results.json").read_text(encoding="utf-8")), out


def test_results_have_the_expected_keys(report: tuple[dict, Path]) -> None:
    data, _ = report
    assert set(data) == {"meta", "results", "targets"}
    assert data["meta"]["sizes"] == [1000] and data["meta"]["repeat"] == 1
    kinds = {r["kind"] for r in data["results"]}
    assert kinds == {
        "interpreter",
        "import",
        "dclint",
        "yaml",
        "yaml-no-gc",
        "dclint-small",
        "cjs-small",
        "dclint-many",
        "cjs-many",
        "dclint-cached",
        "dclint-cached-dir",
        "dclint-one-changed",
    }
    for r in data["results"]:
        assert {"name", "cmd", "times_s", "median_s", "rss_kb", "peak_rss_kb", "rc"} <= set(r)
        floor = r["name"] == "python: import yaml, pydantic, pint"  # paired with dclint small
        runs = 2 if r["kind"] in ("dclint-small", "cjs-small") or floor else 1
        assert len(r["times_s"]) == runs and r["peak_rss_kb"] > 0
    floors = {r["name"]: r["rc"] for r in data["results"] if r["kind"] == "import"}
    assert floors == {
        "python: import yaml, pydantic": [0],
        "python: import yaml, pydantic, pint": [0],
    }
    no_gc = [(r["form"], r["rc"]) for r in data["results"] if r["kind"] == "yaml-no-gc"]
    assert no_gc == [("explicit", [0])]  # the stricter floor, for explicit designs only
    forms = {(r["size"], r["form"]) for r in data["results"] if r["kind"] == "dclint"}
    assert forms == {(1000, "compact"), (1000, "explicit")}
    assert {t["name"] for t in data["targets"]} == TARGETS
    statuses = {t["name"]: t["status"] for t in data["targets"]}
    assert statuses["compact 100k: dclint wall time"] == "SKIP"  # 100k was not run
    assert statuses["one small design: dclint / check-jsonschema"] in ("PASS", "FAIL")
    # the small ratio is the median of the two side-by-side pairs, not a ratio of medians
    ours, theirs = (next(r for r in data["results"] if r["kind"] == k) for k in KINDS)
    pairs = [a / b for a, b in zip(ours["times_s"], theirs["times_s"], strict=True)]
    value = {t["name"]: t["value"] for t in data["targets"]}
    assert value["one small design: dclint / check-jsonschema"] == round(sum(pairs) / 2, 3)
    cached = next(r for r in data["results"] if r["kind"] == "dclint-cached")
    assert cached["rc"] == [0] and "--no-cache" not in cached["cmd"]
    assert all("--no-cache" in r["cmd"] for r in data["results"] if r["kind"] == "dclint-many")
    assert statuses["200 small designs, cached repeat: dclint / python -c pass"] in ("PASS", "FAIL")
    # `check .` in a git repository of the designs, replayed from the run record of its search
    folder = next(r for r in data["results"] if r["kind"] == "dclint-cached-dir")
    assert folder["rc"] == [0] and folder["cmd"][1:] == ["check", "."]
    _, out = report
    assert (out / "many" / ".git").is_dir()
    assert len(list((out / "many" / ".dclint_cache").glob("run-*.json"))) == 1


def test_generated_designs_load(report: tuple[dict, Path]) -> None:
    _, out = report
    designs = sorted(out.glob("gb200-1000-*.yaml"))
    assert [p.name for p in designs] == ["gb200-1000-compact.yaml", "gb200-1000-explicit.yaml"]
    result = run([str(p) for p in designs], Engine())
    assert not result.errors, [str(e) for e in result.errors]  # exit 2 would be a load error
    assert result.exit_code("error") in (0, 1)
    compact, explicit = (d.design for d in result.designs)
    assert compact is not None and explicit is not None
    assert topology_of(compact).gpus == topology_of(explicit).gpus == 1008
    assert len(compact.racks) == 1 and len(explicit.racks) == 14
    assert len(explicit.fabrics[0].links) == 14 * 18 + 36 * 2 + 36 * 2
