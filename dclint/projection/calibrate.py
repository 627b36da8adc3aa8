"""Fit a calibration profile's constants to measured steps, by bounded least squares.

Three constants a GPU (dclint.model.calibration): `compute` scales the model's matmul,
attention and HBM rates, `network` its NVLink and network bandwidths, `overhead` adds seconds
to every step. The fit minimises the sum of squared relative errors (predicted / measured - 1)
with a Levenberg-Marquardt iteration on finite differences, each constant held to its bounds
(dclint.model.calibration.BOUNDS); a constant the runs do not move (no run exposes network
time, say) keeps its starting value and is reported as not determined. No dependency beyond
the standard library: a handful of runs and three constants need no solver package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from dclint.model.calibration import BOUNDS, GpuCalibration
from dclint.projection.step.model import Arch, Layout, Machine, Software, step

__all__ = ["NAMES", "Case", "Fit", "calibrated", "fit", "holdout", "predicted"]

NAMES = ("compute", "network", "overhead")
_START = (1.0, 1.0, 0.0)
_MAX_ITERATIONS = 200


@dataclass(frozen=True, slots=True)
class Case:
    """One measured run: the model's inputs and the measured seconds a step."""

    arch: Arch
    layout: Layout
    machine: Machine
    software: Software
    measured: float
    causal: bool = True


@dataclass(frozen=True)
class Fit:
    constants: tuple[float, float, float]  # compute, network, overhead (s)
    errors: tuple[float, ...]  # predicted / measured - 1 per case, at the constants
    determined: tuple[bool, bool, bool]  # whether the runs move each constant at all
    iterations: int

    @property
    def mean_absolute_error(self) -> float:
        return sum(abs(e) for e in self.errors) / len(self.errors) if self.errors else 0.0


def calibrated(machine: Machine, c: GpuCalibration | tuple[float, float, float]) -> Machine:
    """`machine` with a profile's constants applied: compute rates x compute, link bandwidths
    x network, overhead seconds a step (NCCL's latencies and the SM shares unchanged)."""
    compute, network, overhead = (
        (c.compute, c.network, c.overhead) if isinstance(c, GpuCalibration) else c
    )
    links = replace(
        machine.links, nvlink=machine.links.nvlink * network, nic=machine.links.nic * network
    )
    return replace(
        machine,
        matmul_eff=machine.matmul_eff * compute,
        attention_eff=machine.attention_eff * compute,
        hbm_eff=machine.hbm_eff * compute,
        links=links,
        overhead=machine.overhead + overhead,
    )


def predicted(case: Case, constants: tuple[float, float, float]) -> float:
    """Seconds a step of `case` at `constants`."""
    mac = calibrated(case.machine, constants)
    return step(case.arch, case.layout, mac, case.software, case.causal).time


def _residuals(cases: Sequence[Case], x: tuple[float, float, float]) -> list[float]:
    return [predicted(c, x) / c.measured - 1 for c in cases]


def _clamp(x: Sequence[float]) -> tuple[float, float, float]:
    out = [min(max(v, BOUNDS[n][0]), BOUNDS[n][1]) for n, v in zip(NAMES, x, strict=True)]
    return out[0], out[1], out[2]


def _jacobian(
    cases: Sequence[Case], x: tuple[float, float, float], r: list[float]
) -> list[list[float]]:
    """d residual_i / d x_j by forward differences inside the bounds (overhead exactly)."""
    cols: list[list[float]] = []
    for j, name in enumerate(NAMES):
        if name == "overhead":
            cols.append([1.0 / c.measured for c in cases])
            continue
        h = 1e-6 * max(1.0, abs(x[j]))
        if x[j] + h > BOUNDS[name][1]:
            h = -h
        moved = list(x)
        moved[j] += h
        r2 = _residuals(cases, (moved[0], moved[1], moved[2]))
        cols.append([(b - a) / h for a, b in zip(r, r2, strict=True)])
    return cols


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None if singular."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for k in range(n):
        pivot = max(range(k, n), key=lambda i: abs(m[i][k]))
        if abs(m[pivot][k]) < 1e-300:
            return None
        m[k], m[pivot] = m[pivot], m[k]
        for i in range(k + 1, n):
            f = m[i][k] / m[k][k]
            for j in range(k, n + 1):
                m[i][j] -= f * m[k][j]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))) / m[i][i]
    return x


def _held(j: int, value: float, gradient: float) -> bool:
    """Whether constant `j` sits at a bound that the cost's descent (-gradient) points past."""
    low, high = BOUNDS[NAMES[j]]
    return (value <= low and gradient > 0) or (value >= high and gradient < 0)


def fit(cases: Sequence[Case], start: tuple[float, float, float] = _START) -> Fit:
    """The bounded least-squares constants for `cases` (at least one)."""
    x = _clamp(start)
    r = _residuals(cases, x)
    cost = sum(v * v for v in r)
    lam = 1e-3
    cols = _jacobian(cases, x, r)
    determined = tuple(any(abs(v) > 1e-9 for v in col) for col in cols)
    iterations = 0
    for iterations in range(1, _MAX_ITERATIONS + 1):  # noqa: B007 (reported)
        # a constant held at a bound the descent pushes against stays there: stepping it with
        # the others only to clamp it back makes the step wrong for them (and the fit crawl)
        grad = [sum(a * b for a, b in zip(cols[j], r, strict=True)) for j in range(3)]
        active = [j for j in range(3) if determined[j] and not _held(j, x[j], grad[j])]
        if not active or cost < 1e-30:
            break
        jtj = [[sum(a * b for a, b in zip(cols[i], cols[j], strict=True)) for j in active]
               for i in active]  # fmt: skip
        jtr = [sum(a * b for a, b in zip(cols[i], r, strict=True)) for i in active]
        improved = False
        while lam < 1e12:
            damped = [
                [v + (lam * (jtj[i][i] + 1e-12) if i == j else 0.0) for j, v in enumerate(row)]
                for i, row in enumerate(jtj)
            ]
            delta = _solve(damped, [-v for v in jtr])
            if delta is None:
                lam *= 10
                continue
            trial = list(x)
            for k, j in enumerate(active):
                trial[j] += delta[k]
            xt = _clamp(trial)
            rt = _residuals(cases, xt)
            ct = sum(v * v for v in rt)
            if ct < cost:
                step_size = max(abs(a - b) for a, b in zip(xt, x, strict=True))
                gain = cost - ct
                x, r, cost = xt, rt, ct
                lam = max(lam / 3, 1e-12)
                improved = True
                break
            lam *= 4
        if not improved or gain <= 1e-16 * max(cost, 1e-30) or step_size < 1e-12:
            break
        cols = _jacobian(cases, x, r)
    return Fit(x, tuple(r), (determined[0], determined[1], determined[2]), iterations)


def holdout(cases: Sequence[Case]) -> list[float | None]:
    """Each case's error when predicted by a fit to the others (None with a single case)."""
    if len(cases) < 2:
        return [None] * len(cases)
    out: list[float | None] = []
    for i, case in enumerate(cases):
        rest = [c for k, c in enumerate(cases) if k != i]
        constants = fit(rest).constants
        out.append(predicted(case, constants) / case.measured - 1)
    return out
