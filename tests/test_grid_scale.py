"""Facility what-if grids at scale: points that share a layout search search once, points stream
into an SQLite store that a run resumes from, samples and their refinement, the front marked
by the store, and the same grid on Dask and Ray as in process (those two: integration tier)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from dclint.analysis import sampling
from dclint.analysis.grid import facility as grid_plan
from dclint.analysis.grid.facility import GridPoint, Setup, evaluate, pareto, run_grid
from dclint.cli import main
from dclint.errors import ConfigError
from dclint.report import grid as grid_report

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "sample_designs" / "h100-40node.yaml")
# the sample's 13B workload on 64 of its 320 GPUs: what these tests check does not depend on the
# world size, and a search of 64 GPUs costs a third of one of 320
GPUS64 = "workloads[0].gpus=64"
SETUP = Setup(SAMPLE, None, (GPUS64,))
# site.pue and the power price leave the search alone; the micro-batch count it sees does not
PUE = ("site.pue", ["1.2", "1.3", "1.4"])
PRICE = ("site.electricity_price", ["0.6 CNY/kWh", "0.8 CNY/kWh"])
BATCH = ("workloads[0].global_batch", ["480", "960"])


def _strip(points: list[GridPoint]) -> list[GridPoint]:
    from dataclasses import replace

    return [replace(p, pareto=False) for p in points]


def test_points_sharing_a_search_search_once() -> None:
    run = run_grid(SETUP, [PUE, PRICE], jobs=1)
    assert run.total == 6
    assert run.searches == 1  # six points, one layout question
    two = run_grid(SETUP, [BATCH, PUE], jobs=1)
    assert two.searches == 2  # one question per global batch


@pytest.mark.integration  # two searches of their own, besides the grid's (a CPU-second each)
def test_points_sharing_a_search_match_one_by_one() -> None:
    run = run_grid(SETUP, [PUE, PRICE], jobs=1)
    # grouping changes nothing but the work: the grid's first and last points (no value in
    # common), each evaluated alone with a search of its own
    one_by_one = [
        evaluate(SETUP, ["site.pue", "site.electricity_price"], (PUE[1][i], PRICE[1][i]))
        for i in (0, -1)
    ]
    points = _strip(run.points())
    assert [points[0], points[-1]] == one_by_one


@pytest.mark.integration  # a 12-point grid, two searches; test_plan_cli checks the front cheaply
def test_the_store_marks_the_same_front_as_the_pairwise_definition() -> None:
    run = run_grid(SETUP, [PUE, PRICE, BATCH], jobs=1)
    stored = run.points()
    assert [p.pareto for p in stored] == [p.pareto for p in pareto(_strip(stored))]
    assert any(p.pareto for p in stored)


def test_a_run_resumes_from_its_store_without_redoing_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = str(tmp_path / "grid.db")
    first = run_grid(SETUP, [PUE, PRICE], jobs=1, store=store)
    expected = first.points()
    first.store.close()
    with sqlite3.connect(store) as db:  # a run killed after four of six points
        db.execute("delete from points where idx in (2, 5)")
    asked: list[tuple[str, ...]] = []
    real = grid_plan.ask

    def counting(setup: Setup, paths: list[str], values: tuple[str, ...]) -> object:
        asked.append(values)
        return real(setup, paths, values)

    monkeypatch.setattr(grid_plan, "ask", counting)
    again = run_grid(SETUP, [PUE, PRICE], jobs=1, store=store)
    assert asked == [("1.3", "0.6 CNY/kWh"), ("1.4", "0.8 CNY/kWh")]  # only the missing two
    assert again.points() == expected
    again.store.close()
    with pytest.raises(ConfigError, match="made for another grid"):
        run_grid(SETUP, [PUE], jobs=1, store=store)


def test_latin_hypercube_uses_every_value_evenly_and_is_repeatable() -> None:
    shape = [5, 4, 10]
    drawn = sampling.latin_hypercube(shape, 20, seed=3)
    assert drawn == sampling.latin_hypercube(shape, 20, seed=3)
    assert len(drawn) == len(set(drawn)) == 20
    for axis, k in enumerate(shape):
        used = [sampling.position(i, shape)[axis] for i in drawn]
        assert sorted(set(used)) == list(range(k))  # every value of every axis drawn
    assert sampling.latin_hypercube([2, 3], 50) == list(range(6))
    assert sampling.neighbours([sampling.flat((0, 1, 0), shape)], shape) == {
        sampling.flat(p, shape) for p in [(1, 1, 0), (0, 0, 0), (0, 2, 0), (0, 1, 1)]
    }


def test_a_sample_says_what_share_it_evaluated_and_refine_adds_front_neighbours() -> None:
    varies = [PUE, PRICE, BATCH]
    sampled = run_grid(SETUP, varies, jobs=1, sample=3, seed=1)
    assert sampled.store.count() == 3
    assert grid_plan.coverage(3, sampled.total) == ("evaluated 3 of 12 points (25.00%) of the grid")
    refined = run_grid(SETUP, varies, jobs=1, sample=3, seed=1, refine=True)
    front = set(refined.store.front())
    shape = [3, 2, 2]
    assert sampling.neighbours(front, shape) <= refined.store.done()  # the front holds


def test_plan_cli_store_resume_and_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "g.db")
    argv = ["plan", SAMPLE, "--set", GPUS64, "--vary", "site.pue=1.2,1.3", "--jobs", "1"]
    assert main([*argv, "--store", store]) == 0
    first = capsys.readouterr().out
    assert main([*argv, "--resume", store]) == 0
    assert capsys.readouterr().out == first
    assert main([*argv, "--resume", str(tmp_path / "none.db")]) == 2
    assert "no such store" in capsys.readouterr().err
    assert main([*argv, "--sample", "1"]) == 0
    assert "evaluated 1 of 2 points (50.00%) of the grid" in capsys.readouterr().out
    assert main([*argv, "--refine"]) == 2


@pytest.mark.integration
def test_dask_local_cluster_gives_the_in_process_results() -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    varies = [PUE, BATCH]
    here = run_grid(SETUP, varies, jobs=1).points()
    there = run_grid(SETUP, varies, jobs=2, executor="dask").points()
    assert there == here


@pytest.mark.integration
def test_ray_started_locally_gives_the_in_process_results() -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed")
    varies = [PUE, BATCH]
    here = run_grid(SETUP, varies, jobs=1).points()
    there = run_grid(SETUP, varies, jobs=2, executor="ray").points()
    assert there == here


def _children(pid: int) -> set[int]:
    """The pids whose parent is `pid` (read from /proc: Linux)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


@pytest.mark.integration
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_workers_end_when_the_grid_process_is_killed_outright(tmp_path: Path) -> None:
    """SIGKILL runs no handler: the pool's workers must notice their parent is gone themselves
    (before, they blocked on the call-queue pipe each of them holds open, orphaned for good)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pue = ",".join(f"{1.05 + i / 1000:.3f}" for i in range(400))
    argv = [sys.executable, "-c", "import sys; from dclint.cli import run; run()", "plan"]
    argv += [SAMPLE, "--vary", f"site.pue={pue}", "--vary", "workloads[0].global_batch=480,960"]
    argv += ["--jobs", "2", "--store", str(tmp_path / "g.db")]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        workers = _children(proc.pid)
    assert len(workers) == 2, "the grid never started its two workers"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    alive = set(workers)
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = {w for w in alive if Path(f"/proc/{w}").exists() and _state(w) != "Z"}
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert alive == set(), f"workers {sorted(alive)} outlived their killed parent"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


STREAM_POINTS = [
    GridPoint(
        ("1.2", "480"),
        {"PWR002": 3},
        [],
        {"tp": 2, "pp": 1, "vpp": 1, "cp": 1, "ep": 1, "micro_batch": 4},
        12.5,
        1000.0,
        2e6,
        "USD",
        pareto=True,
    ),
    GridPoint(
        ("abc", "<b>"), {}, ["site.pue: not a number"], None, None, None, None, None, "not loaded"
    ),
    GridPoint(("1.3", "960"), {}, [], None, 7.25, None, 3e6, "USD", "no layout fits"),
]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("note", ["", "evaluated 3 of 9 points (33.33%) of the grid"])
@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_streamed_grid_report_is_the_whole_one_byte_for_byte(
    fmt: str, note: str, count: int
) -> None:
    """`plan --vary` prints text, Markdown and JSON as it reads the store (a grid of any size
    in flat memory); what it prints is exactly what the whole-grid renderer gives."""
    setup = Setup("d.yaml", "llm")
    paths = ["site.pue", "workloads[0].global_batch"]
    points = STREAM_POINTS[:count]
    streamed = "".join(grid_report.render_stream(setup, paths, lambda: iter(points), fmt, note))
    assert streamed == grid_report.render(setup, paths, points, fmt, note)


# --- issue 48 item 4: a worker that dies is one error line naming the point; the rest is kept --

_REAL_ASK = grid_plan.ask
_DIE_AT = ("1.3", "0.8 CNY/kWh", "600 kW")  # grid index 6 of 12, the first of its task


def _dying_ask(setup: Setup, paths: list[str], values: tuple[str, ...]) -> object:
    """`ask`, except that the worker given the point _DIE_AT waits until the first batch (4
    points) is in the store, then dies as the OOM killer would end it (no handler runs)."""
    import os
    import time

    if tuple(values) == _DIE_AT and os.getpid() != int(os.environ["DCLINT_TEST_PARENT"]):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            db = sqlite3.connect(os.environ["DCLINT_TEST_STORE"])
            with contextlib.closing(db), contextlib.suppress(sqlite3.Error):
                if db.execute("select count(*) from points").fetchone()[0] >= 4:
                    break
            time.sleep(0.05)
        os._exit(9)
    return _REAL_ASK(setup, paths, values)


def test_a_worker_that_dies_is_one_error_line_and_the_points_done_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from dclint.analysis.grid import runner as grid

    store = tmp_path / "g.db"
    monkeypatch.setattr(grid_plan, "ask", _dying_ask)
    monkeypatch.setattr(grid, "BATCH", 4)  # 12 points: batches of 4, tasks of 2
    monkeypatch.setattr(grid, "CHUNK", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # two worker processes anywhere
    monkeypatch.setenv("DCLINT_TEST_PARENT", str(os.getpid()))
    monkeypatch.setenv("DCLINT_TEST_STORE", str(store))
    argv = ["plan", SAMPLE, "--set", GPUS64, "--vary", "site.pue=1.2,1.3,1.4"]
    argv += ["--vary", "site.electricity_price=0.6 CNY/kWh,0.8 CNY/kWh"]
    argv += ["--vary", "site.utility_capacity=600 kW,700 kW", "--jobs", "2", "--store", str(store)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "dclint: error: a grid worker died (BrokenProcessPool) evaluating grid point "
        "site.pue=1.3, site.electricity_price=0.8 CNY/kWh, site.utility_capacity=600 kW (or "
        "site.pue=1.3, site.electricity_price=0.8 CNY/kWh, site.utility_capacity=700 kW, sent "
        f"with it); the 4 of 12 points done are kept in {store} (--resume {store} goes on)\n"
    )
    with sqlite3.connect(store) as db:
        assert [r[0] for r in db.execute("select idx from points order by idx")] == [0, 1, 2, 3]
    # and the grid goes on from them (in this process), to all 12 points
    monkeypatch.setattr(grid_plan, "ask", _REAL_ASK)
    assert main([*argv[:-4], "--jobs", "1", "--resume", str(store)]) == 0
    capsys.readouterr()
    with sqlite3.connect(store) as db:
        assert db.execute("select count(*) from points").fetchone()[0] == 12


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("dask://x", "'dask://x': expected dask://HOST:PORT, a port of 1-65535"),
        ("dask://h:99999", "'dask://h:99999': expected dask://HOST:PORT, a port of 1-65535"),
        (
            "dask://999999999999999999999:8786",
            "'dask://999999999999999999999:8786': expected dask://HOST:PORT: "
            "'999999999999999999999' is not an IPv4 address",
        ),
        (
            "ray://a b:1",
            "'ray://a b:1': expected ray://HOST:PORT: 'a b' is not a host name or address",
        ),
        ("ray://[zz]:1", "'ray://[zz]:1': expected ray://HOST:PORT: '[zz]' is not an IPv6 address"),
        ("http://h:80", "'http://h:80': expected dask://HOST:PORT or ray://HOST:PORT"),
    ],
)
def test_a_garbage_executor_address_is_one_error_line_before_any_library_sees_it(
    spec: str, error: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # importing either would fail
    monkeypatch.setitem(sys.modules, "ray", None)
    argv = ["plan", SAMPLE, "--vary", "site.pue=1.2,1.3", "--executor", spec]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"dclint: error: --executor {error}\n"


def test_ray_is_started_privately_never_joining_a_recorded_cluster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ray's address None (or "auto") joins the cluster RAY_ADDRESS or /tmp/ray's
    ray_current_cluster records (someone else's, on a shared runner); "local" starts a new one
    (ray.init's documentation). A stand-in for ray records what dclint asks of it."""
    import sys
    import types

    from dclint.analysis.executors import executor_for

    asked: list[dict[str, object]] = []
    fake = types.SimpleNamespace(
        is_initialized=lambda: False,
        init=lambda **kw: asked.append(kw),
        shutdown=lambda: asked.append({"shutdown": True}),
        remote=lambda fn: fn,
    )
    monkeypatch.setitem(sys.modules, "ray", fake)
    with executor_for("ray", 2):
        pass
    assert asked == [
        {"address": "local", "num_cpus": 2, "include_dashboard": False, "log_to_driver": False},
        {"shutdown": True},
    ]
    asked.clear()
    with executor_for("ray://10.0.0.5:10001", 2):  # named on the command line: that one
        pass
    assert asked == [
        {"address": "ray://10.0.0.5:10001", "log_to_driver": False},
        {"shutdown": True},
    ]


@pytest.mark.integration
def test_ray_ignores_the_cluster_ray_address_names(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed")
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # nothing listens: joining it would fail
    varies = [PUE]
    assert (
        run_grid(SETUP, varies, jobs=2, executor="ray").points()
        == run_grid(SETUP, varies, jobs=1).points()
    )
