"""The default tier's CPU budget (tests/_budget.py): a whole run over its budget fails and names
its slowest tests, xdist workers' CPU seconds are counted, a partial run is never judged, nor a
run on a loaded machine. In process on stand-in configs; run for real on a small project of its
own by the integration tier (each pytest process costs a CPU-second to start)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from _budget import KEY, CpuBudget, judge, partial

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _config(*args: str, **options: object) -> SimpleNamespace:
    """A stand-in for pytest's config of `pytest ARGS` run at the repository root."""
    option = SimpleNamespace(markexpr="not integration", keyword="", deselect=None, ignore=None)
    for name, value in options.items():
        setattr(option, name, value)
    return SimpleNamespace(
        option=option,
        args=list(args) or [str(TESTS)],
        rootpath=ROOT,
        invocation_params=SimpleNamespace(dir=ROOT),
        pluginmanager=SimpleNamespace(hasplugin=lambda name: False),
    )


def test_the_whole_default_tier_is_judged() -> None:
    assert partial(_config()) is None  # type: ignore[arg-type]
    assert partial(_config("tests")) is None  # type: ignore[arg-type]
    assert partial(_config(".")) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("config", "why"),
    [
        (_config(keyword="cache"), "--keyword narrows it"),
        (_config(markexpr="integration"), "-m is not 'not integration'"),
        (_config(deselect=["tests/test_x.py::test_y"]), "--deselect narrows it"),
        (_config(lf=True), "--lf narrows it"),
        (_config("tests/test_plan_cli.py"), "tests/test_plan_cli.py selects part of it"),
        (_config("tests::test_x"), "tests::test_x selects part of it"),
        (_config(collectonly=True), "collect only"),
    ],
)
def test_a_partial_run_is_not_judged(config: SimpleNamespace, why: str) -> None:
    assert partial(config) == why  # type: ignore[arg-type]


def test_over_the_budget_fails_and_names_the_ten_slowest_tests() -> None:
    durations = {f"tests/test_x.py::test_{i}": float(i) for i in range(12)}
    lines, over = judge(130.0, "one process", 120, 1.0, 2, 0, durations)
    assert over
    assert lines[0] == (
        "default tier: 130.0 CPU-seconds (one process), budget 120; mean load average 1.0 on 2"
        " cores: OVER THE BUDGET. The ten slowest tests (wall seconds):"
    )
    assert lines[1:3] == [
        "   11.00  tests/test_x.py::test_11",
        "   10.00  tests/test_x.py::test_10",
    ]
    assert len(lines) == 12 and lines[10].endswith("test_2")
    assert judge(119.9, "one process", 120, 1.0, 2, 0, durations) == (
        [
            "default tier: 119.9 CPU-seconds (one process), budget 120; mean load average 1.0 on"
            " 2 cores"
        ],
        False,
    )


def test_over_the_budget_on_a_loaded_machine_is_printed_not_judged() -> None:
    # two workers on two cores: a load average of 3 is their own and one more process's
    assert judge(130.0, "x", 120, 3.0, 2, 2, {})[1]
    lines, over = judge(130.0, "x", 120, 3.1, 2, 2, {})
    assert not over and lines[1].startswith("over the budget on a shared machine: not judged")


def test_a_worker_reports_its_cpu_seconds_and_the_controller_adds_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    worker = SimpleNamespace(workerinput={}, workeroutput={})
    CpuBudget(worker).pytest_sessionfinish(SimpleNamespace(), 0)  # type: ignore[arg-type]
    assert worker.workeroutput[KEY] > 0  # this process's, at least its imports
    monkeypatch.setenv("DCLINT_CPU_BUDGET", "100")
    monkeypatch.setattr(CpuBudget, "load", staticmethod(lambda: (0.0, 0.0, 0.0)))
    controller = CpuBudget(_config())  # type: ignore[arg-type]
    for seconds in (60.0, 45.0):
        controller.pytest_testnodedown(SimpleNamespace(workeroutput={KEY: seconds}))
    session = SimpleNamespace(exitstatus=pytest.ExitCode.OK)
    controller.pytest_sessionfinish(session, pytest.ExitCode.OK)  # type: ignore[arg-type]
    assert session.exitstatus == pytest.ExitCode.TESTS_FAILED
    head = controller.verdict[0]
    assert "CPU-seconds (controller and 2 workers), budget 100;" in head
    assert float(head.split()[2]) > 105  # the workers' and this process's own
    session = SimpleNamespace(exitstatus=pytest.ExitCode.OK)
    partial_run = CpuBudget(_config(keyword="x"))  # type: ignore[arg-type]
    partial_run.pytest_testnodedown(SimpleNamespace(workeroutput={KEY: 500.0}))
    partial_run.pytest_sessionfinish(session, pytest.ExitCode.OK)  # type: ignore[arg-type]
    assert session.exitstatus == pytest.ExitCode.OK and partial_run.verdict == []


BURN = """
import time

import pytest


def _burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_slow():
    _burn(0.3)


def test_quick():
    _burn(0.05)


@pytest.mark.integration
def test_heavy():
    _burn(0.5)
"""


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\ntestpaths = ['tests']\n"
        "addopts = \"-q -p no:cacheprovider -m 'not integration'\"\n"
        "markers = ['integration: the other tier']\n",
        encoding="utf-8",
    )
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(
        "from _budget import CpuBudget\n\n\n"
        "class Budget(CpuBudget):\n"
        "    load = staticmethod(lambda: (0.0, 0.0, 0.0))\n\n\n"
        "def pytest_configure(config):\n"
        "    config.pluginmanager.register(Budget(config), 'budget')\n",
        encoding="utf-8",
    )
    (tests / "test_burn.py").write_text(BURN, encoding="utf-8")
    return tmp_path


def _pytest(root: Path, budget: str, *args: str) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(TESTS), "DCLINT_CPU_BUDGET": budget}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, done.stdout


@pytest.mark.integration  # three pytest processes
def test_a_real_run_over_its_budget_fails_and_its_workers_count(tmp_path: Path) -> None:
    root = _project(tmp_path)
    code, out = _pytest(root, "0.2", "-p", "no:xdist")
    assert code == 1, out
    assert "2 passed, 1 deselected" in out
    assert "CPU-seconds (one process), budget 0.2" in out and "OVER THE BUDGET" in out
    slowest = out[out.index("ten slowest") :].splitlines()[1:3]
    assert slowest[0].endswith("tests/test_burn.py::test_slow"), slowest
    assert slowest[1].endswith("tests/test_burn.py::test_quick"), slowest
    code, out = _pytest(root, "1000", "-n", "2")
    assert code == 0, out
    line = next(x for x in out.splitlines() if x.startswith("default tier: "))
    assert "(controller and 2 workers), budget 1000" in line
    assert float(line.split()[2]) > 0.35 + 3 * 0.1, line  # the tests' and three interpreters'
    code, out = _pytest(root, "0.2", "-p", "no:xdist", "-k", "slow")
    assert code == 0 and "CPU budget" not in out, out


def test_the_budget_judges_the_default_tier_pyproject_names() -> None:
    import shlex
    import tomllib

    from _budget import MARKS

    ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]
    args = shlex.split(ini["ini_options"]["addopts"])
    assert args[args.index("-m") + 1] == MARKS
    assert ini["ini_options"]["testpaths"] == ["tests"]  # what partial() takes as the whole
