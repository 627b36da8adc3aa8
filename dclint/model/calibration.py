"""A calibration profile: constants fitted to a client's measured steps (`dclint calibrate`).

One entry a catalog GPU: the step model's compute rates (matmul, attention, HBM) and link
bandwidths (NVLink, network) are scaled by `compute` and `network`, and `overhead` seconds are
added to every step. A profile's entry for one GPU never touches another GPU's predictions.
The file is read by dclint.loader.calibration and named by a config's `calibration:` key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["BOUNDS", "Calibration", "GpuCalibration"]

# The fit's bounds, dclint's own: a factor outside them says the model or the runs are wrong
# (a cluster at 3x the model's compute rate, or at a tenth of its links), not that the
# constants need moving that far. overhead in seconds a step.
BOUNDS: dict[str, tuple[float, float]] = {
    "compute": (0.5, 1.5),
    "network": (0.1, 2.0),
    "overhead": (0.0, 60.0),
}


@dataclass(frozen=True, slots=True)
class GpuCalibration:
    """The fitted constants of one GPU, and what they were fitted to."""

    compute: float = 1.0  # x the model's matmul, attention and HBM rates
    network: float = 1.0  # x the model's NVLink and network bandwidths
    overhead: float = 0.0  # seconds added to every step
    runs: int = 0  # measured runs the constants were fitted to
    fit_error: float | None = None  # mean absolute error of the fit on its runs
    holdout_error: float | None = None  # the same, each run predicted by a fit without it
    fitted_from: str = ""  # the files the runs came from


@dataclass(frozen=True)
class Calibration:
    """A profile file: catalog GPU key -> its constants."""

    path: str
    gpus: dict[str, GpuCalibration] = field(default_factory=dict)

    def describe(self, gpu: str) -> str | None:
        """One line for a projection's assumptions, or None when `gpu` has no entry."""
        c = self.gpus.get(gpu)
        if c is None:
            return None
        text = (
            f"calibrated by {self.path} for {gpu}: compute x{c.compute:.4g}, network "
            f"x{c.network:.4g}, overhead {c.overhead * 1e3:.4g} ms a step"
        )
        if c.runs:
            text += f", fitted to {c.runs} measured runs"
        if c.holdout_error is not None:
            text += f" (held-out error {c.holdout_error:.1%})"
        return text
