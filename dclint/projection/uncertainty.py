"""How far a predicted step may be from the measured one: a band per GPU generation and class.

The band is an 80% prediction interval from the calibration residuals (tests/test_calibration.py,
the table in docs/performance-model.md) of the runs of one GPU generation and workload class
(dense or MoE): for every published run, the measured step time over the predicted one (=
predicted throughput over published throughput). It is split-conformal prediction's interval
(Vovk, Gammerman & Shafer 2005, "Algorithmic Learning in a Random World"; Lei, G'Sell, Rinaldo,
Tibshirani & Wasserman 2018, JASA 113, "Distribution-free predictive inference for regression";
Angelopoulos & Bates 2021, arXiv 2107.07511, "A gentle introduction to conformal prediction"),
two-sided with BAND_QUANTILE of the miss on each side: of a class's n ratios sorted, `high_factor`
is the k-th smallest and `low_factor` the k-th largest, k = ceil((n + 1)(1 - BAND_QUANTILE))
(`conformal_rank`). A new run exchangeable with the class's runs then lies above the high factor
with probability at most BAND_QUANTILE, below the low one likewise, inside with probability at
least 1 - 2 BAND_QUANTILE = 80%, whatever the residuals' distribution; the 10% and 90% quantiles
interpolated between order statistics, used before, contain it with probability about
0.8 (n - 1)/(n + 1), under 80% for the few runs of a class (65% at n = 10, 75% at 30). When k
exceeds n the interval is unbounded: a class of fewer than MIN_RUNS runs (9 at 80%) takes the
envelope. Both factors are widened to hold 1 so the point estimate is always inside its band,
and rounded outward to 3 places; MFU moves the other way (MFU / high_factor to MFU /
low_factor).

Runs of one publication share a software release, a machine and an accounting, so they are not
exchangeable with each other: the band is tested leave-one-source-out, bands derived without one
publication's runs holding the runs left out (`tests/test_calibration.py`: 150 of 164, 91.5%;
the Megatron-family runs 79 of 89, 88.8%, the PyTorch-native 71 of 75, 94.7%; on the 157 runs
before GPT-OSS 120B's and Mixtral 8x7B's H100 runs joined, with the interpolated 10-90%
quantiles, 133, 64 and 69), a class the other publications do not cover taking their envelope.

A prediction outside the calibration domain of its class (a framework no calibration run of
the class used, a GPU count outside the class's runs, a generation or class with no run) takes
the envelope of every calibration residual, at least as wide as the class's band, and its
`source` says why; so does PyTorch's context parallel beyond the rings the model holds
(`native_cp_outside`), whose calibration runs are left out of the class's band. The test suite
recomputes the tables from the calibration runs (`derive`, `derive_domains`) and fails when
they no longer match them, so they cannot drift from the model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BANDS",
    "BAND_QUANTILE",
    "CEILINGS",
    "DOMAINS",
    "ENVELOPE",
    "MIN_RUNS",
    "NATIVE_BANDS",
    "NATIVE_DOMAINS",
    "NATIVE_FRAMEWORKS",
    "Band",
    "band",
    "band_for_gpu",
    "ceiling",
    "conformal_rank",
    "derive",
    "derive_ceilings",
    "derive_domains",
    "native",
    "native_cp_outside",
]


@dataclass(frozen=True, slots=True)
class Band:
    """Measured step time over predicted step time, lowest and highest seen in calibration."""

    low_factor: float
    high_factor: float
    source: str
    runs: int = 0  # calibration runs the band rests on (0: borrowed from other classes)
    outside: tuple[str, ...] = ()  # why the prediction is outside the calibration domain

    def scaled(self, value: Any) -> tuple[Any, Any]:
        """(low, high) around a figure proportional to the predicted step (its seconds, a
        run's days or its cost): the one place a band is computed from the factors."""
        return value * self.low_factor, value * self.high_factor

    def step_time(self, seconds: float) -> tuple[float, float]:
        """(low, high) step time in seconds around a predicted `seconds`."""
        return self.scaled(seconds)

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
            "in_domain": not self.outside,
            "outside": list(self.outside),
        }


_SOURCE = "dclint's calibration residuals (docs/performance-model.md)"

# The share of new runs a band may miss on each side: 10% below, 10% above, an 80% band (the
# coverage issue 51 asks for, chosen before its leave-one-source-out coverage was seen).
BAND_QUANTILE = 0.10


def conformal_rank(n: int, q: float = BAND_QUANTILE) -> int:
    """Split-conformal prediction's rank: of n calibration scores, the k-th smallest bounds a
    new exchangeable score from above with probability at least 1 - q, k = ceil((n + 1)(1 - q))
    (Lei et al. 2018, split conformal; Angelopoulos & Bates 2021, section 1). k > n: no finite
    bound."""
    return math.ceil(round((n + 1) * (1 - q), 9))  # round: 1 - q is inexact in binary


# a class with fewer calibration runs has no finite band (conformal_rank exceeds its runs: 9 at
# 10% a side); its predictions take the envelope
MIN_RUNS = next(n for n in range(1, 10_000) if conformal_rank(n) <= n)

# (generation, MoE) -> (low factor, high factor, runs): of measured / predicted step time over
# the calibration runs of that class, the conformal_rank-th largest and smallest (a two-sided
# 1 - 2 x BAND_QUANTILE split-conformal interval), widened to hold 1, rounded outward to 3
# places. Regenerate with `derive` (the calibration test prints the expected table when it
# fails).
BANDS: dict[tuple[str, bool], tuple[float, float, int]] = {
    ("ampere", False): (0.959, 1.046, 10),
    ("blackwell", False): (0.904, 1.597, 21),
    ("blackwell", True): (0.784, 1.041, 30),
    ("hopper", False): (0.722, 1.101, 14),
    ("hopper", True): (0.973, 1.986, 14),
}

# the smallest and largest residual of every calibration run (and 1, rounded outward): the band
# of predictions outside the calibration domain, and of a class under MIN_RUNS
ENVELOPE: tuple[float, float, int] = (0.722, 1.986, 164)

# Frameworks whose runs form a calibration stack of their own: PyTorch-native training (FSDP,
# eager or compiled kernels, torchao Float8), whose residuals differ from Megatron-Core's (the
# model over-predicts them on H100: docs/performance-model.md, PyTorch-native runs). A run of
# such a framework takes NATIVE_BANDS; every other framework BANDS (Megatron-Core's runs).
NATIVE_FRAMEWORKS = frozenset({"torchtitan", "llm-foundry"})


def native(framework: str | None) -> bool:
    """Whether a framework's predictions take the PyTorch-native bands."""
    return framework in NATIVE_FRAMEWORKS


# PyTorch's context parallel (torch.distributed.tensor.experimental, as TorchTitan runs it) is
# inside the calibration domain on rings of at most NATIVE_CP_MAX ranks. Beyond, TorchTitan's
# 8B runs at CP 4 and 8 (one host) take about twice the attention time the model gives each
# further block, a cost no public source explains, while its 405B runs at CP 4 and 8 come out
# within 16% (docs/performance-model.md, PyTorch-native runs): such predictions take the
# envelope, and those runs are left out of NATIVE_BANDS and NATIVE_DOMAINS (not ENVELOPE).
NATIVE_CP_MAX = 2
# No such rule for Megatron-family steps of one micro-batch (MLPerf's 8B runs that set Blackwell
# dense's top): without them the band would hold none of the held-out GB200 runs
# (docs/performance-model.md, Residual bands; test_no_domain_rule_for_steps_of_one_micro_batch).


def native_cp_outside(framework: str | None, cp: int) -> str:
    """Why a run's context parallelism is outside the PyTorch-native calibration domain (""
    inside it): a native framework's ring of more than NATIVE_CP_MAX ranks."""
    if not native(framework) or cp <= NATIVE_CP_MAX:
        return ""
    return (
        f"PyTorch context parallel {cp}: calibrated on rings of up to {NATIVE_CP_MAX} ranks; "
        "beyond, published runs are slower than predicted by a cost the model does not explain"
    )


# (generation, MoE) -> (low factor, high factor, runs) of the PyTorch-native calibration runs
# (tests/calibration/torchtitan-h100.yaml, torchao-float8-h100.yaml, llm-foundry.yaml) inside
# the context-parallel domain above, as BANDS. Regenerate with
# `derive` on those runs (the calibration test prints the table when it fails).
NATIVE_BANDS: dict[tuple[str, bool], tuple[float, float, int]] = {
    ("ampere", False): (0.873, 1.082, 27),
    ("hopper", False): (1.0, 1.124, 44),
}
NATIVE_DOMAINS: dict[tuple[str, bool], tuple[tuple[str, ...], int, int]] = {
    ("ampere", False): (("llm-foundry",), 8, 128),
    ("hopper", False): (("llm-foundry", "torchtitan"), 8, 512),
}

# (generation, MoE) -> (frameworks, fewest GPUs, most GPUs) of the class's calibration runs:
# its domain. Regenerate with `derive_domains`.
DOMAINS: dict[tuple[str, bool], tuple[tuple[str, ...], int, int]] = {
    ("ampere", False): (("megatron-core",), 32, 3072),
    ("blackwell", False): (("megatron-core",), 8, 2496),
    ("blackwell", True): (("megatron-core",), 8, 256),
    ("hopper", False): (("megatron-core",), 8, 6144),
    ("hopper", True): (("megatron-core",), 16, 256),
}


def derive_domains(
    runs: Iterable[tuple[str, bool, str, int]],
) -> dict[tuple[str, bool], tuple[tuple[str, ...], int, int]]:
    """The domain table from (generation, MoE, framework, GPUs) per calibration run."""
    out: dict[tuple[str, bool], tuple[set[str], int, int]] = {}
    for generation, moe, framework, gpus in runs:
        fw, lo, hi = out.get((generation, moe), (set(), gpus, gpus))
        out[(generation, moe)] = (fw | {framework}, min(lo, gpus), max(hi, gpus))
    return {k: (tuple(sorted(v[0])), v[1], v[2]) for k, v in sorted(out.items())}


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
    ("hopper", True): (0.4732, "megatron-core-moe-h100: mixtral-8x7b-64-v0.9"),
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
    residuals: Iterable[tuple[str, bool, float]], q: float = BAND_QUANTILE
) -> dict[tuple[str, bool], tuple[float, float, int]]:
    """The band table from (generation, MoE, predicted / published throughput - 1) per run:
    of each class's n ratios sorted, the conformal_rank(n, q)-th largest and smallest, widened
    to hold 1 and rounded outward; a class whose rank exceeds n has no row."""
    ratios: dict[tuple[str, bool], list[float]] = {}
    for generation, moe, error in residuals:
        ratios.setdefault((generation, moe), []).append(1.0 + error)
    out = {}
    for key, r in sorted(ratios.items()):
        xs, k = sorted(r), conformal_rank(len(r), q)
        if k <= len(xs):
            out[key] = (*_outward(xs[len(xs) - k], xs[k - 1]), len(r))
    return out


def _outward(low: float, high: float) -> tuple[float, float]:
    """(low, high) widened to hold 1 and rounded outward to 3 places: the printed band holds
    every figure the unrounded one does."""
    return math.floor(min(low, 1.0) * 1e3) / 1e3, math.ceil(max(high, 1.0) * 1e3) / 1e3


def envelope(residuals: Iterable[float]) -> tuple[float, float, int]:
    """(smallest, largest, runs) of 1 + each residual, widened to hold 1, rounded outward."""
    r = [1.0 + e for e in residuals]
    return (*_outward(min(r), max(r)), len(r))


def band(
    generation: str,
    moe: bool,
    framework: str | None = None,
    gpus: int | None = None,
    cp: int = 1,
) -> Band:
    """The band of a GPU generation ("ampere", "hopper", "blackwell") and workload class, for
    a run of `framework` on `gpus` GPUs (None: not checked) with context parallelism `cp`:
    the class's calibrated band, or, outside the class's calibration domain, the envelope of
    every calibration run, saying why."""
    kind = "MoE" if moe else "dense"
    pct = f"{1 - 2 * BAND_QUANTILE:.0%}"
    stack = native(framework)
    got = (NATIVE_BANDS if stack else BANDS).get((generation, moe))
    outside: list[str] = []
    domain = (NATIVE_DOMAINS if stack else DOMAINS).get((generation, moe))
    if stack:
        kind = f"PyTorch-native {kind}"
    if domain is None:
        outside.append(f"no {generation} {kind} calibration run")
    else:
        if got is None:
            outside.append(
                f"the {generation} {kind} calibration runs are under the {MIN_RUNS} "
                f"a conformal {pct} band needs"
            )
        frameworks, fewest, most = domain
        if framework is not None and framework not in frameworks:
            outside.append(
                f"framework {framework}: the {generation} {kind} calibration runs are "
                + ", ".join(frameworks)
            )
        if gpus is not None and not fewest <= gpus <= most:
            outside.append(
                f"{gpus:,} GPUs: the {generation} {kind} calibration runs span "
                f"{fewest:,} to {most:,}"
            )
    ring = native_cp_outside(framework, cp)
    if ring:
        outside.append(ring)
    if not outside and got is not None:
        low, high, runs = got
        return Band(
            low,
            high,
            f"an {pct} interval (split-conformal) of measured over predicted step time on "
            f"{runs} {generation} {kind} calibration runs, {_SOURCE}",
            runs,
        )
    low, high, runs = ENVELOPE
    if got is not None:
        low, high = min(low, got[0]), max(high, got[1])
    return Band(
        low,
        high,
        "outside the calibration domain ("
        + "; ".join(outside)
        + f"): the envelope of all {runs} calibration runs, {_SOURCE}",
        0,
        tuple(outside),
    )


def band_for_gpu(
    gpu_key: str,
    moe: bool,
    framework: str | None = None,
    gpus: int | None = None,
    cp: int = 1,
) -> Band:
    """The band of a catalog GPU (its generation as dclint.projection.efficiency maps it)."""
    from dclint.projection.efficiency import GENERATION

    return band(GENERATION.get(gpu_key, gpu_key), moe, framework, gpus, cp)
