"""`dclint calibrate`: measured runs of a design's workload -> fitted constants a GPU.

Each run is the design's workload with the run's values (layout, GPUs, batch) in place of the
declared ones, predicted with the model's own constants (dclint.projection.predict.inputs) and
fitted by dclint.projection.calibrate; runs on different GPUs are fitted apart, so a profile's
entry for one GPU comes only from that GPU's runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dclint.errors import ConfigError
from dclint.model.calibration import Calibration, GpuCalibration
from dclint.projection.calibrate import Case, Fit, fit, holdout, predicted

if TYPE_CHECKING:
    from dclint.loader.runs import Measured
    from dclint.model.design import Design
    from dclint.model.workload import Workload

__all__ = ["GpuFit", "Row", "calibrate", "profile"]

_PARALLEL = ("tp", "pp", "cp", "ep", "vpp", "dp")
_TOP = ("gpus", "micro_batch", "global_batch", "sequence_length", "recompute")


@dataclass(frozen=True)
class Row:
    run: Measured
    workload: str
    model: float  # seconds a step at the model's own constants
    fitted: float  # at the fitted constants
    held_out: float | None  # error when predicted by a fit to the other runs of its GPU

    @property
    def model_error(self) -> float:
        return self.model / self.run.step_time - 1

    @property
    def fitted_error(self) -> float:
        return self.fitted / self.run.step_time - 1


# dclint's own threshold: the error the step model is held to on published runs
# (docs/performance-model.md: each run within 15%)
POOR_FIT = 0.15


@dataclass(frozen=True)
class GpuFit:
    gpu: str
    fit: Fit
    rows: tuple[Row, ...]

    @property
    def model_error(self) -> float:
        return sum(abs(r.model_error) for r in self.rows) / len(self.rows)

    @property
    def holdout_error(self) -> float | None:
        held = [abs(r.held_out) for r in self.rows if r.held_out is not None]
        return sum(held) / len(held) if held else None

    @property
    def warning(self) -> str | None:
        """Why the profile should not be trusted as written, or None: the fitted constants miss
        the runs by more than POOR_FIT on average, or a fit to the other runs misses a run by
        more than that (the model does not describe it)."""
        far = [r for r in self.rows if r.held_out is not None and abs(r.held_out) > POOR_FIT]
        fitted = self.fit.mean_absolute_error
        if fitted > POOR_FIT:
            miss, them = f"the fitted constants miss these runs by {fitted:.1%} on average", "them"
        elif far:
            named = ", ".join(f"{r.run.label} (step time {r.held_out:+.1%})" for r in far[:5])
            more = f" and {len(far) - 5} more runs" if len(far) > 5 else ""
            miss, them = (
                f"a fit to the other runs misses {named}{more}",
                "it" if len(far) == 1 else "them",
            )
        else:
            return None
        return (
            f"{miss}, more than {POOR_FIT:.0%}: the step model does not describe {them} "
            "(software, layout or measurement it does not see); check the runs' settings "
            "before using the profile"
        )


def _workload(design: Design, name: str | None, run: Measured) -> Workload:
    wanted = run.values.get("workload", name)
    if wanted is None:
        if len(design.workloads) != 1:
            ids = ", ".join(w.id for w in design.workloads) or "none"
            raise ConfigError(
                f"{run.where}: which workload? the design has {ids}: give --workload or a "
                "workload column"
            )
        wl = design.workloads[0]
    else:
        found = next((w for w in design.workloads if w.id == wanted), None)
        if found is None:
            raise ConfigError(f"{run.where}: the design has no workload '{wanted}'")
        wl = found
    values = run.values
    par: dict[str, Any] = {k: values[k] for k in _PARALLEL if k in values}
    if "dp" not in values and any(k in values for k in ("gpus", "tp", "pp", "cp")):
        par["dp"] = None  # derived from the run's GPUs
    top: dict[str, Any] = {k: values[k] for k in _TOP if k in values}
    parallel = wl.parallel.model_copy(update=par)
    gpus = int(top.get("gpus", wl.gpus))
    inner = parallel.tp * parallel.pp * parallel.cp
    dp = parallel.dp or gpus // inner
    if gpus % inner or inner * dp != gpus:
        raise ConfigError(
            f"{run.where}: tp {parallel.tp} x pp {parallel.pp} x cp {parallel.cp}"
            f"{f' x dp {parallel.dp}' if parallel.dp else ''} does not make {gpus:,} GPUs"
        )
    if (dp * parallel.cp) % parallel.ep:
        raise ConfigError(
            f"{run.where}: ep {parallel.ep} does not divide dp x cp ({dp * parallel.cp})"
        )
    return wl.model_copy(update={"parallel": parallel, **top})


def _case(design: Design, wl: Workload, run: Measured) -> tuple[str, Case]:
    from dclint.projection.predict import inputs
    from dclint.projection.training import hardware_of

    hw = hardware_of(design, wl.platform)
    if isinstance(hw, str):
        raise ConfigError(f"{run.where}: workload {wl.id}: {hw}")
    got = inputs(design, wl, hw, [])
    if isinstance(got, str):
        raise ConfigError(f"{run.where}: workload {wl.id}: {got}")
    arch, layout, machine, sw = got
    return hw.gpu_key, Case(arch, layout, machine, sw, run.step_time, wl.causal_attention)


def calibrate(design: Design, runs: list[Measured], workload: str | None) -> list[GpuFit]:
    """The fit of each GPU's runs, with every run's model, fitted and held-out errors."""
    if design.calibration is not None:  # fit from the model's own constants, not a profile's
        design.calibrate(None)
    groups: dict[str, list[tuple[Measured, str, Case]]] = {}
    for run in runs:
        wl = _workload(design, workload, run)
        gpu, case = _case(design, wl, run)
        groups.setdefault(gpu, []).append((run, wl.id, case))
    out = []
    for gpu, members in groups.items():
        cases = [c for _, _, c in members]
        result = fit(cases)
        held = holdout(cases)
        rows = tuple(
            Row(run, wid, predicted(case, (1.0, 1.0, 0.0)), predicted(case, result.constants), h)
            for (run, wid, case), h in zip(members, held, strict=True)
        )
        out.append(GpuFit(gpu, result, rows))
    return out


def profile(fits: list[GpuFit], path: str, sources: str) -> Calibration:
    """The profile of `fits`, to be written at `path`."""
    gpus = {}
    for f in fits:
        compute, network, overhead = f.fit.constants
        gpus[f.gpu] = GpuCalibration(
            compute,
            network,
            overhead,
            len(f.rows),
            f.fit.mean_absolute_error,
            f.holdout_error,
            sources,
        )
    return Calibration(path, gpus)
