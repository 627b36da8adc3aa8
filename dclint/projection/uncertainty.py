"""How far a predicted step may be from the measured one: a band per GPU generation and class.

The band is the spread of the calibration residuals (tests/test_calibration.py, the table in
docs/performance-model.md) of the runs of one GPU generation and workload class (dense or MoE):
for every published run, the measured step time over the predicted one (= predicted throughput
over published throughput). `low_factor` and `high_factor` are the smallest and largest of those
ratios, so a step predicted at t seconds measured between t x low_factor and t x high_factor on
every calibration run of the class; MFU moves the other way (MFU / high_factor to
MFU / low_factor).

A class without calibration runs takes the widest band of the calibrated classes and says so in
its `source`. The test suite recomputes every band from the calibration runs (`derive`) and fails
when this table no longer matches them, so the table cannot drift from the model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BANDS",
    "CEILINGS",
    "Band",
    "band",
    "band_for_gpu",
    "ceiling",
    "derive",
    "derive_ceilings",
]


@dataclass(frozen=True, slots=True)
class Band:
    """Measured step time over predicted step time, lowest and highest seen in calibration."""

    low_factor: float
    high_factor: float
    source: str
    runs: int = 0  # calibration runs the band rests on (0: borrowed from other classes)

    def step_time(self, seconds: float) -> tuple[float, float]:
        """(low, high) step time in seconds around a predicted `seconds`."""
        return seconds * self.low_factor, seconds * self.high_factor

    def mfu(self, mfu: float) -> tuple[float, float]:
        """(low, high) MFU (or HFU, or throughput) around a predicted `mfu`: a longer step
        is a lower MFU."""
        return mfu / self.high_factor, mfu / self.low_factor

    def as_dict(self) -> dict[str, Any]:
        return {
            "low_factor": self.low_factor,
            "high_factor": self.high_factor,
            "runs": self.runs,
            "source": self.source,
        }


_SOURCE = "calibration residuals (docs/performance-model.md, tests/test_calibration.py)"

# (generation, MoE) -> (low factor, high factor, runs): measured / predicted step time over the
# calibration runs of that class, rounded to 3 places. Regenerate with `derive` (the calibration
# test prints the expected table when it fails).
BANDS: dict[tuple[str, bool], tuple[float, float, int]] = {
    ("ampere", False): (0.972, 1.047, 10),
    ("blackwell", False): (1.008, 1.883, 21),
    ("blackwell", True): (0.766, 1.371, 30),
    ("hopper", False): (0.731, 1.137, 14),
    ("hopper", True): (0.93, 1.929, 7),
}


# (generation, MoE) -> (published MFU, run): the highest MFU any calibration run of the class
# published, on model FLOPs as that run counts them (its `causal_attention`; Narayanan et al.'s
# HFU x model / hardware FLOPs). What a layout search may recommend above it, dclint has not
# seen measured: `dclint plan` says so. Regenerate with `derive_ceilings` (the calibration test
# prints the table when it fails).
CEILINGS: dict[tuple[str, bool], tuple[float, str]] = {
    ("ampere", False): (0.392, "narayanan-2021-a100: gpt-529.6b"),
    ("blackwell", False): (0.4104, "megatron-bridge-25.11-gb200: llama31-405b-256"),
    ("blackwell", True): (0.363, "megatron-bridge-qwen3-gb300: qwen3-235b-a22b-256-25.11"),
    ("hopper", False): (0.49, "megatron-core-0.8-h100: gpt-16b"),
    ("hopper", True): (0.1281, "megatron-bridge-qwen3-h100: qwen3-235b-a22b-256-26.04.01"),
}


def derive_ceilings(
    published: Iterable[tuple[str, bool, float, str]],
) -> dict[tuple[str, bool], tuple[float, str]]:
    """The ceiling table from (generation, MoE, published MFU, run name) per run."""
    best: dict[tuple[str, bool], tuple[float, str]] = {}
    for generation, moe, mfu, name in published:
        key = (generation, moe)
        if key not in best or mfu > best[key][0]:
            best[key] = (round(mfu, 4), name)
    return dict(sorted(best.items()))


def ceiling(gpu_key: str, moe: bool) -> tuple[float, str] | None:
    """The best published MFU of the calibration runs of a catalog GPU's generation and class,
    and the run (None: no calibration run of that class)."""
    from dclint.projection.efficiency import GENERATION

    return CEILINGS.get((GENERATION.get(gpu_key, gpu_key), moe))


def derive(
    residuals: Iterable[tuple[str, bool, float]],
) -> dict[tuple[str, bool], tuple[float, float, int]]:
    """The band table from (generation, MoE, predicted / published throughput - 1) per run."""
    ratios: dict[tuple[str, bool], list[float]] = {}
    for generation, moe, error in residuals:
        ratios.setdefault((generation, moe), []).append(1.0 + error)
    return {key: (round(min(r), 3), round(max(r), 3), len(r)) for key, r in sorted(ratios.items())}


def band(generation: str, moe: bool) -> Band:
    """The band of a GPU generation ("ampere", "hopper", "blackwell") and workload class."""
    got = BANDS.get((generation, moe))
    kind = "MoE" if moe else "dense"
    if got is not None:
        low, high, runs = got
        return Band(low, high, f"{_SOURCE}: {runs} {generation} {kind} runs", runs)
    low = min(v[0] for v in BANDS.values())
    high = max(v[1] for v in BANDS.values())
    classes = ", ".join(f"{g} {'MoE' if m else 'dense'}" for g, m in BANDS)
    return Band(
        low,
        high,
        f"no {generation} {kind} calibration run: the widest band of the calibrated classes "
        f"({classes}), {_SOURCE}",
        0,
    )


def band_for_gpu(gpu_key: str, moe: bool) -> Band:
    """The band of a catalog GPU (its generation as dclint.projection.efficiency maps it)."""
    from dclint.projection.efficiency import GENERATION

    return band(GENERATION.get(gpu_key, gpu_key), moe)
