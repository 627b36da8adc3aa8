"""Issue 27, items 4, 5 and 7: nothing loops up to a design value, grids are bounded before
they are built, and long command-line paths cost linear time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _hardening import LIMIT_S, dclint, error_lines
from hypothesis import given
from hypothesis import strategies as st

from dclint.cli import main
from dclint.cli._shared import grid_jobs
from dclint.projection.search.layouts import MAX_EXAMINED, _divisors

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_designs" / "h100-40node.yaml"


def _design(tmp_path: Path, *changes: tuple[str, str]) -> Path:
    text = SAMPLE.read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new)
    out = tmp_path / "d.yaml"
    out.write_text(text, encoding="utf-8")
    return out


@given(st.integers(1, 5000), st.integers(1, 6000))
def test_divisors_are_every_divisor_up_to_the_bound_in_order(n: int, most: int) -> None:
    assert _divisors(n, most) == [d for d in range(1, min(n, most) + 1) if n % d == 0]


class _Counted(int):
    """An int that counts the remainders taken of it: the work `_divisors` does, without a clock."""

    taken = 0

    def __mod__(self, other: int) -> int:  # type: ignore[override]
        _Counted.taken += 1
        return int(self) % other


def test_divisors_of_a_large_number_take_its_square_root() -> None:
    _Counted.taken = 0
    n = _Counted(999_999_937 * 2)
    assert _divisors(n, 10**10) == [1, 2, 999_999_937, 1_999_999_874]
    assert _Counted.taken == 44_721  # floor(sqrt(n)); a loop up to n takes 2e9 steps


WORST = (
    ("layers: 40", "layers: 5040\n      experts: 83160\n      top_k: 2"),
    ("gpus: 320", "gpus: 8648640"),
    ("global_batch: 960", "global_batch: 69189120"),
)
TOO_LARGE = (
    "the layout search would examine 64,826,112 layouts, more than dclint's bound of "
    f"{MAX_EXAMINED:,} (it would run for minutes); search fewer GPU counts, or a model with "
    "fewer layers or experts"
)


def test_a_search_past_its_bound_is_refused_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _design(tmp_path, *WORST)
    assert main(["plan", "d.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"dclint: error: d.yaml: workload llm-13b: {TOO_LARGE}"
    ]


@pytest.mark.parametrize("how", [["--config", "cfg.yaml"], ["--layout-search"]])
def test_a_search_check_refuses_is_an_info_finding_at_the_gpus(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    how: list[str],
) -> None:
    """Issue 27 item 6: a search too large to run is said, not silently skipped."""
    monkeypatch.chdir(tmp_path)
    _design(tmp_path, *WORST)
    (tmp_path / "cfg.yaml").write_text("PAR005:\n  search: true\n", encoding="utf-8")
    code = main(["check", "d.yaml", *how, "--select", "PAR005"])
    assert code == 0  # an info finding
    assert capsys.readouterr().out.splitlines() == [
        f"d.yaml:102:11: PAR005 [info] workload llm-13b: layout search not run: {TOO_LARGE}",
        "Found 1 info in 1 design.",
    ]


@pytest.mark.integration  # wall-clock bound
@pytest.mark.parametrize("command", ["plan", "check"])
def test_a_search_past_its_bound_answers_at_once(tmp_path: Path, command: str) -> None:
    _design(tmp_path, *WORST)
    flags = ["--layout-search"] if command == "check" else []
    proc, seconds = dclint(command, "d.yaml", *flags, cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    assert TOO_LARGE in proc.stdout + proc.stderr
    assert seconds < LIMIT_S  # it ran for minutes


def test_a_billion_layers_is_refused_at_its_line_by_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _design(tmp_path, ("layers: 40", "layers: 1000000000"))
    assert main(["plan", "d.yaml"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "dclint: error: d.yaml:88:15: workloads[0].model.layers: must be at most 10,000, "
        "got 1,000,000,000"
    ]


def _values(n: int) -> str:
    return ",".join(f"{1.1 + i / 10**6:.6f}" for i in range(n))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["plan", "missing.yaml", "--vary", f"site.pue={_values(200)}", "--vary",
             f"site.design_pue={_values(60)}"],
            "--vary: the grid has 12,000 points (200 x 60), more than --max-points 10,000; give "
            "fewer values, or raise --max-points, or evaluate a sample with --sample N",
        ),
        (
            ["plan", "missing.yaml", "--vary", f"site.pue={_values(5)}", "--max-points", "4"],
            "--vary: the grid has 5 points (5), more than --max-points 4; give fewer values, or "
            "raise --max-points, or evaluate a sample with --sample N",
        ),
        (
            ["plan", "missing.yaml",
             *(a for i in range(7) for a in ("--vary", f"site.x{i}={_values(1000)}")),
             "--sample", "3"],
            "--vary: the grid has over 10^18 points (1000 x 1000 x 1000 x 1000 x 1000 x 1000 x "
            "1000), more than dclint's bound for a sampled grid 1,000,000,000,000,000; give "
            "fewer values",
        ),
        (
            ["check", "missing.yaml", "--sweep", f"site.pue={_values(10_001)}"],
            "--sweep: the grid has 10,001 points (10001), more than --max-points 10,000; give "
            "fewer values, or raise --max-points",
        ),
        (
            ["plan", "missing.yaml", "--gpus", ",".join(map(str, range(1, 66)))],
            "--gpus: 65 GPU counts, more than 64 (each is a whole layout search); give fewer",
        ),
        (
            ["plan", "missing.yaml", "--gpus", "320,20000000"],
            "--gpus: 20,000,000 GPUs is more than dclint's bound of 10,000,000 a workload",
        ),
    ],
)  # fmt: skip
def test_grids_are_refused_before_anything_is_built(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2  # the design is not even read: the bound comes first
    assert capsys.readouterr().err.splitlines() == [f"dclint: error: {message}"]


def test_jobs_are_capped_by_the_points_and_the_cpus() -> None:
    cpus = os.cpu_count() or 1
    assert grid_jobs(1000, 3) == min(3, cpus)
    assert grid_jobs(1000, 10**6) == cpus
    assert grid_jobs(2, 0) == 1
    assert grid_jobs(1000, 10**6, "dask") == cpus
    assert grid_jobs(1000, 50, "dask://scheduler:8786") == 50  # a cluster's own CPUs


@pytest.mark.integration  # wall-clock bound
def test_a_search_past_its_bound_is_refused_at_once(tmp_path: Path) -> None:
    _design(tmp_path, *WORST)
    proc, took = dclint("plan", "d.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert took < LIMIT_S  # counting the layouts the search would examine ran for minutes


@pytest.mark.integration  # wall-clock bound
def test_a_grid_of_a_million_points_answers_at_once(tmp_path: Path) -> None:
    _design(tmp_path)
    values = _values(1000)
    proc, took = dclint("plan", "d.yaml", "--vary", f"site.pue={values}", "--vary",
                        f"site.design_pue={values}", cwd=tmp_path)  # fmt: skip
    assert error_lines(proc) == [
        "dclint: error: --vary: the grid has 1,000,000 points (1000 x 1000), more than "
        "--max-points 10,000; give fewer values, or raise --max-points, or evaluate a sample "
        "with --sample N"
    ]
    assert took < LIMIT_S
