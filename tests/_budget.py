"""The default tier's CPU budget: a run of the whole default tier (`pytest`, every test file,
`-m 'not integration'`, nothing selected or deselected otherwise) that passes fails anyway when
its processes spent more than BUDGET CPU-seconds, and names the ten slowest tests.

CPU seconds, not wall time: wall time on a shared machine says how busy the machine was. The
figure is user + system time of every process the run used: the controller and each xdist
worker (each reports its own through xdist's workeroutput), with the children each waited for
(the subprocesses and process pools tests start). CPU seconds still inflate when other work
shares the cores (hyperthreads, caches, the host the virtual machine shares): on one two-core
virtual machine the same tree measured 96 to 111 on a quiet host and up to 171 on a busy one.

Figures (issue 47's goal: 120; PYTHONDONTWRITEBYTECODE set, as in CI): CI's fresh clones
measured 108.7 to 117.1 (mean load 1.5 to 1.8) before 2026-12-07's cut, and 145 to 153 with the
host busy (load 3.4 to 4.5). The cut (a bisected rank and a cache of the grid's cut answers in
the layout search, the asyncio plug-ins off, seven tests and a sweep's rule examples behind
integration, shared fixtures) measured 126.7 -> 119.3 back to back, the host at load 5.6 to 6.0
(3,145 -> 3,138 tests; the tests themselves 103.5 -> 94.9, per-test CPU summed over both
workers), and 125.5 in a third run at load 4.3: at these loads the host moves the figure as much
as the cut does. Each worker collects the whole tier first: one process collecting it (`pytest
--collect-only -n 0`, CPU time of each step) spent 9.6 CPU-seconds, 6.1 of them in pytest's
assertion rewriting (not cached under PYTHONDONTWRITEBYTECODE): 4.8 for the test modules, 1.2
for Hypothesis's (pytest marks a plug-in's whole distribution). Since 2026-12-07 Hypothesis is
imported unrewritten and xdist's workers rewrite each test module once between them
(tests/conftest.py): the controller and two workers collecting the whole tier (no test
selected) measured 20.1, 21.2, 22.0 -> 13.2, 13.0, 12.3 CPU-seconds (interleaved, load 9 to
10), a worker now about 5; one process 10.5, 12.0, 10.2 -> 9.3, 9.7, 7.9. The whole tier,
back to back: 94.9 (load 5.9), 108.3 before (load 6.2), 84.5 (load 4.9); the controller's
share 3.8 to 4.0, 5.3 before (it imports Hypothesis for its summary). On a fresh checkout (no
.hypothesis/) Hypothesis's scan of the local modules' constants adds 1.0 to 1.5 CPU-seconds
to a process's collection (0.1 with its cache). The first interpreter a test starts costs
about 1.3 CPU-seconds less where the run's bytecode folder links to the installed packages'
bytecode (tests/conftest.py).
The budget is 240: it fails a tier that grows by half on a busy host, not a busy host.
A run whose mean load average exceeds its own workers by more than half the cores is reported,
not judged.
DCLINT_CPU_BUDGET sets another budget (a slower machine's); 0 turns the check off.
"""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

BUDGET = 240.0  # CPU-seconds for the whole default tier (96-171 measured; the goal: 120)
MARKS = "not integration"  # the default tier's -m (pyproject's addopts)
KEY = "dclint_cpu_seconds"


def cpu_seconds() -> float:
    """This process's user + system time, with that of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def partial(config: pytest.Config) -> str | None:
    """Why this run is not the whole default tier, or None when it is."""
    option = config.option
    if (getattr(option, "markexpr", "") or "").strip() != MARKS:
        return f"-m is not '{MARKS}'"
    for name in ("keyword", "deselect", "ignore", "ignore_glob", "lf", "stepwise"):
        if getattr(option, name, None):
            return f"--{name} narrows it"
    if getattr(option, "collectonly", False):
        return "collect only"
    root = config.rootpath
    for arg in config.args:
        if "::" in arg or Path(config.invocation_params.dir, arg).resolve() not in (
            root / "tests",
            root,
        ):
            return f"{arg} selects part of it"
    if config.pluginmanager.hasplugin("_cov"):
        return "coverage inflates it"
    return None


def judge(
    spent: float,
    who: str,
    budget: float,
    load: float,
    cores: int,
    workers: int,
    durations: dict[str, float],
) -> tuple[list[str], bool]:
    """The summary's lines, and whether the run fails: over the budget on a machine its own
    processes had (a mean load average within half the cores of its workers)."""
    head = f"default tier: {spent:.1f} CPU-seconds ({who}), budget {budget:g}"
    head += f"; mean load average {load:.1f} on {cores} cores"
    if spent <= budget:
        return [head], False
    if load > max(workers, 1) + cores / 2:
        note = "over the budget on a shared machine: not judged (CPU seconds inflate under load)"
        return [head, f"{note}; run it again on an idle one"], False
    slowest = sorted(durations.items(), key=lambda kv: -kv[1])[:10]
    lines = [f"{head}: OVER THE BUDGET. The ten slowest tests (wall seconds):"]
    lines += [f"  {seconds:6.2f}  {nodeid}" for nodeid, seconds in slowest]
    lines += [
        "make them cheaper (a smaller design, a module-scoped fixture, main([...]) instead of "
        "a subprocess) or, for a sweep or timing test, mark it integration"
    ]
    return lines, True


class CpuBudget:
    load = staticmethod(os.getloadavg)  # the 1, 5 and 15-minute load averages

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.workers: list[float] = []
        self.durations: dict[str, float] = {}
        self.loads: list[float] = []
        self.sampled = 0.0
        self.verdict: list[str] = []
        self.over = False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.durations[report.nodeid] = self.durations.get(report.nodeid, 0.0) + report.duration
        now = time.monotonic()
        if now - self.sampled > 5:  # the load average moves over a minute: a sample each 5 s
            self.sampled = now
            self.loads.append(self.load()[0])

    @pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown without xdist
    def pytest_testnodedown(self, node: object) -> None:
        output = getattr(node, "workeroutput", None) or {}
        if KEY in output:
            self.workers.append(float(output[KEY]))

    @pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(self.config, "workerinput"):  # an xdist worker: report to the controller
            self.config.workeroutput[KEY] = cpu_seconds()  # type: ignore[attr-defined]
            return
        budget = float(os.environ.get("DCLINT_CPU_BUDGET", BUDGET))
        why = partial(self.config)
        if budget <= 0 or why is not None or exitstatus != pytest.ExitCode.OK:
            return
        if self.workers:  # the controller ran no test; its children are the workers themselves
            own = resource.getrusage(resource.RUSAGE_SELF)
            spent = own.ru_utime + own.ru_stime + sum(self.workers)
            who = f"controller and {len(self.workers)} workers"
        else:
            spent, who = cpu_seconds(), "one process"
        load = sum(self.loads) / len(self.loads) if self.loads else 0.0
        self.verdict, self.over = judge(
            spent, who, budget, load, os.cpu_count() or 1, len(self.workers), self.durations
        )
        if self.over:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.verdict:
            terminalreporter.write_sep("-", "CPU budget", red=self.over, bold=self.over)
            for line in self.verdict:
                terminalreporter.write_line(line)
