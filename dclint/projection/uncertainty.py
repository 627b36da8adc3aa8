"""How far a predicted step may be from the measured one: a band per GPU generation.

The band is an 80% prediction interval for a new publication's run, from the calibration
residuals (tests/test_calibration.py, the table in docs/performance-model.md): for every
published run, the measured step time over the predicted one (= predicted throughput over
published throughput), its logarithm grouped by publication (one design file of
tests/calibration/: one software release, one machine, one accounting).

Runs of one publication share their errors, so they are not exchangeable with each other, nor with a
new publication's runs: a band of run-level quantiles (split-conformal per class, used before) held
89.6% of calibration runs left out one publication at a time but 66% of runs from publications
outside the calibration set (tests/validation/; this band, 96%). The exchangeable unit is the
publication, and there are few (16: 8 Hopper, 7 Blackwell, 2 Ampere, one spanning two), too few for
a distribution-free quantile over publications (a conformal 80% band over publications needs 9 of
them in a class). So the band is the random-effects prediction interval of a
meta-analysis (Higgins, Thompson & Spiegelhalter 2009, J. R. Stat. Soc. A 172, "A re-evaluation
of random-effects meta-analysis", eq. 12), with DerSimonian & Laird's between-publication
variance (1986, Controlled Clinical Trials 7, "Meta-analysis in clinical trials"), on the
publications of one GPU generation:

- each publication i has the mean y_i of its n_i log ratios; s² is the pooled within-
  publication variance of the log ratios (their deviations from their publication's mean,
  over sum(n_i - 1) degrees of freedom), and v_i = s² / n_i;
- τ², the variance between publications, is DerSimonian and Laird's moment estimate
  max(0, (Q - (m - 1)) / (Σw - Σw² / Σw)), w_i = 1 / v_i, Q = Σ w_i (y_i - ȳ_w)²;
- μ, the mean over publications, weights each by 1 / (v_i + τ²), with variance se² = 1 / Σ
  of those weights;
- a new publication's run lies within μ ± t · sqrt(τ² + se² + s²), t the (1 - BAND_QUANTILE)
  quantile of Student's t on m - 2 degrees of freedom. Higgins et al.'s interval is for a new
  publication's true mean; adding s², a run's spread about its publication's mean, is dclint's
  own step, since a prediction is of one run (the two-level model's variance of a new run of a
  new publication). t on m - 2 degrees of freedom is conservative for the s² share, which has
  sum(n_i - 1).

The band is exp of that interval, widened to hold 1 (the point estimate is always inside its
band) and rounded outward to 3 places; MFU moves the other way (MFU / high_factor to MFU /
low_factor). It needs MIN_SOURCES publications (t on m - 2 degrees of freedom); a generation
with fewer takes the interval of every generation's publications pooled (POOLED), saying so.
Dense and MoE, Megatron-family and PyTorch-native runs of a generation share its band: split
further, a class has 1 to 6 publications, 3 of the 7 classes have no interval, and a band per class,
then generation, then all held no more runs (docs/performance-model.md, Residual bands, the methods
compared). So the 80% is over a generation's runs, not each class's: left out one publication at a
time, Hopper's Megatron dense runs inside the domain are held 7 of 14, its PyTorch-native 43 of 44.
A publication is a design file of tests/calibration/ (llm-foundry's A100 and H100 rows are one, in
the pooled band one group).

The band is tested leave-one-publication-out on the calibration set (bands derived without one
publication's runs holding the runs left out: `tests/test_calibration.py`) and scored on
tests/validation/'s runs, from which nothing is derived (they were scored for every method
compared before this one was chosen).

A prediction outside the calibration domain of its class (a framework no calibration run of
its generation and class used, a GPU count outside the class's runs, a generation or class with
no run) takes the envelope of every calibration residual, at least as wide as its generation's
band, and its `source` says why; so does PyTorch's context parallel beyond the rings the model
holds (`native_cp_outside`), whose calibration runs are left out of the bands and domains. The
test suite recomputes the tables from the calibration runs (`derive`, `derive_domains`) and
fails when they no longer match them, so they cannot drift from the model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BANDS",
    "BAND_QUANTILE",
    "CEILINGS",
    "DOMAINS",
    "ENVELOPE",
    "MIN_SOURCES",
    "NATIVE_DOMAINS",
    "NATIVE_FRAMEWORKS",
    "POOLED",
    "Band",
    "Fit",
    "band",
    "band_for_gpu",
    "ceiling",
    "derive",
    "derive_ceilings",
    "derive_domains",
    "fit",
    "interval",
    "native",
    "native_cp_outside",
    "t_quantile",
]


@dataclass(frozen=True, slots=True)
class Band:
    """Measured step time over predicted step time: the low and high factors of a prediction's
    band, where they come from, and, outside the calibration domain, why."""

    low_factor: float
    high_factor: float
    source: str
    runs: int = 0  # calibration runs the band rests on (0: the envelope, outside the domain)
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

# the publications a generation's interval needs: Student's t on m - 2 degrees of freedom
# (Higgins et al. 2009) has none under 3; a generation with fewer takes POOLED
MIN_SOURCES = 3

# generation -> (low factor, high factor, runs, publications): exp of the random-effects
# prediction interval of the log ratios (measured over predicted step time) of the generation's
# calibration runs inside their domain, widened to hold 1, rounded outward to 3 places.
# Regenerate with `derive` (the calibration test prints the expected table when it fails).
BANDS: dict[str, tuple[float, float, int, int]] = {
    "blackwell": (0.792, 1.229, 51, 7),
    "hopper": (0.868, 1.266, 72, 8),
}

# the same interval over every generation's runs: the band of a generation whose runs come from
# fewer than MIN_SOURCES publications
POOLED: tuple[float, float, int, int] = (0.856, 1.201, 160, 16)

# the smallest and largest residual of every calibration run (and 1, rounded outward): the band
# of predictions outside the calibration domain
ENVELOPE: tuple[float, float, int] = (0.721, 1.995, 164)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz;
    Press, Teukolsky, Vetterling & Flannery, Numerical Recipes, 3rd ed., section 6.4)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (
            m * (b - m) * x / ((a - 1.0 + 2 * m) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1.0 + 2 * m)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _beta_regularized(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function (Numerical Recipes 6.4)."""
    if x <= 0.0 or x >= 1.0:
        return max(0.0, min(1.0, x))
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile of probability p (0.5 < p < 1) on df degrees of freedom: the root
    of its distribution function, P(T <= t) = 1 - I_{df / (df + t²)}(df / 2, 1 / 2) / 2, by
    bisection below the Cauchy quantile tan(π (p - 1/2)), which bounds it for every df >= 1."""
    low, high = 0.0, math.tan(math.pi * (p - 0.5))
    for _ in range(200):
        mid = (low + high) / 2
        if 1.0 - _beta_regularized(df / 2, 0.5, df / (df + mid * mid)) / 2 < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


@dataclass(frozen=True, slots=True)
class Fit:
    """The random-effects fit of some publications' log ratios (measured over predicted step
    time): the module's docstring gives the estimator."""

    publications: int
    runs: int
    mu: float  # the publications' mean log ratio, weighted by 1 / (s² / n_i + τ²)
    tau2: float  # τ², the variance between publications (DerSimonian and Laird)
    s2: float  # s², the variance of a run about its publication's mean
    se2: float  # the variance of mu
    t: float  # Student's t quantile, 1 - q, on publications - 2 degrees of freedom

    def interval(self) -> tuple[float, float]:
        """(low, high) of a new publication's run, in log ratio."""
        half = self.t * math.sqrt(self.tau2 + self.se2 + self.s2)
        return self.mu - half, self.mu + half


def fit(publications: Sequence[Sequence[float]], q: float = BAND_QUANTILE) -> Fit | None:
    """The random-effects fit of each publication's log ratios, its interval's t at 1 - q on
    each side (0 < q < 0.5); None under MIN_SOURCES publications."""
    if not 0.0 < q < 0.5:
        raise ValueError(f"a band's miss on each side must be between 0 and 0.5, not {q}")
    m = len(publications)
    if m < MIN_SOURCES:
        return None
    means = [sum(g) / len(g) for g in publications]
    df_within = sum(len(g) - 1 for g in publications)
    s2 = (
        sum((x - y) ** 2 for g, y in zip(publications, means, strict=True) for x in g) / df_within
        if df_within
        else 0.0
    )
    if s2 > 0:
        w = [len(g) / s2 for g in publications]  # 1 / v_i, v_i = s² / n_i
        sw = sum(w)
        fixed = sum(wi * y for wi, y in zip(w, means, strict=True)) / sw
        spread = sum(wi * (y - fixed) ** 2 for wi, y in zip(w, means, strict=True))
        tau2 = max(0.0, (spread - (m - 1)) / (sw - sum(wi * wi for wi in w) / sw))
        ws = [1.0 / (s2 / len(g) + tau2) for g in publications]
        se2 = 1.0 / sum(ws)
    else:
        # no spread within publications measured (each a single run, or its runs alike): the
        # spread is unknown, not zero, so τ² takes all of it, the publications' means' sample
        # variance, weighted alike (the limit of DerSimonian and Laird's as s² goes to 0)
        mean = sum(means) / m
        tau2 = sum((y - mean) ** 2 for y in means) / (m - 1)
        ws = [1.0] * m
        se2 = tau2 / m
    mu = sum(wi * y for wi, y in zip(ws, means, strict=True)) / sum(ws)
    runs = sum(len(g) for g in publications)
    return Fit(m, runs, mu, tau2, s2, se2, t_quantile(1.0 - q, m - 2))


def interval(
    publications: Sequence[Sequence[float]], q: float = BAND_QUANTILE
) -> tuple[float, float] | None:
    """The random-effects prediction interval (low, high) of a new publication's run, in log
    ratio, from each publication's log ratios; None under MIN_SOURCES publications."""
    got = fit(publications, q)
    return None if got is None else got.interval()


# Frameworks whose runs form a calibration stack of their own: PyTorch-native training (FSDP,
# eager or compiled kernels, torchao Float8), whose residuals differ from Megatron-Core's (the
# model over-predicts them on H100: docs/performance-model.md, PyTorch-native runs). A run of
# such a framework is inside the domain NATIVE_DOMAINS gives; every other framework's, DOMAINS
# (Megatron-Core's runs). Both stacks' publications make their generation's band.
NATIVE_FRAMEWORKS = frozenset({"torchtitan", "llm-foundry"})


def native(framework: str | None) -> bool:
    """Whether a framework's predictions take the PyTorch-native domains."""
    return framework in NATIVE_FRAMEWORKS


# PyTorch's context parallel (torch.distributed.tensor.experimental, as TorchTitan runs it) is
# inside the calibration domain on rings of at most NATIVE_CP_MAX ranks. Beyond, TorchTitan's
# 8B runs at CP 4 and 8 (one host) take about twice the attention time the model gives each
# further block, a cost no public source explains, while its 405B runs at CP 4 and 8 come out
# within 16% (docs/performance-model.md, PyTorch-native runs): such predictions take the
# envelope, and those runs are left out of BANDS, POOLED and NATIVE_DOMAINS (not ENVELOPE).
NATIVE_CP_MAX = 2
# No such rule for Megatron-family steps of one micro-batch (MLPerf's 8B runs that set Blackwell
# dense's top): without them the band would hold none of the held-out GB200 runs
# (docs/performance-model.md, Residual bands; test_no_domain_rule_for_steps_of_one_micro_batch).


def native_cp_outside(framework: str | None, cp: int, comm: str = "p2p") -> str:
    """Why a run's context parallelism is outside the calibration domain ("" inside it): any
    context parallelism that all-gathers K and V (`comm`, the software's cp_comm_type: no
    calibration run of any framework does, every one with context parallelism is a ring), or a
    PyTorch-native framework's ring of more than NATIVE_CP_MAX ranks."""
    if cp <= 1:
        return ""
    if comm == "all_gather":
        return (
            f"context parallel {cp} by all-gather of K and V: no calibration run all-gathers "
            "them (the calibration's context parallel runs are rings)"
        )
    if not native(framework) or cp <= NATIVE_CP_MAX:
        return ""
    return (
        f"PyTorch context parallel {cp}: calibrated on rings of up to {NATIVE_CP_MAX} ranks; "
        "beyond, published runs are slower than predicted by a cost the model does not explain"
    )


# (generation, MoE) -> (frameworks, fewest GPUs, most GPUs) of the PyTorch-native calibration
# runs (tests/calibration/torchtitan-h100.yaml, torchao-float8-h100.yaml, llm-foundry.yaml)
# inside the context-parallel domain above: their domain, as DOMAINS. Regenerate with
# `derive_domains` on those runs (the calibration test prints the table when it fails).
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
    residuals: Iterable[tuple[str, str, float]], q: float = BAND_QUANTILE
) -> tuple[dict[str, tuple[float, float, int, int]], tuple[float, float, int, int] | None]:
    """The band table and the pooled band from (generation, publication, predicted /
    published throughput - 1) per calibration run inside its domain: per generation, and over
    all, exp of `fit`'s interval on the log ratios grouped by publication, widened to hold 1 and
    rounded outward, with its runs and publications; a generation (or the pool) under
    MIN_SOURCES publications has no row (None)."""
    per: dict[str, dict[str, list[float]]] = {}
    every: dict[str, list[float]] = {}
    for generation, source, error in residuals:
        x = math.log(1.0 + error)
        per.setdefault(generation, {}).setdefault(source, []).append(x)
        every.setdefault(source, []).append(x)

    def row(groups: dict[str, list[float]]) -> tuple[float, float, int, int] | None:
        got = fit(list(groups.values()), q)
        if got is None:
            return None
        low, high = got.interval()
        return (*_outward(math.exp(low), math.exp(high)), got.runs, got.publications)

    table = {g: r for g, groups in sorted(per.items()) if (r := row(groups)) is not None}
    return table, row(every)


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
    cp_comm: str = "p2p",
) -> Band:
    """The band of a GPU generation ("ampere", "hopper", "blackwell") for a run of a workload class
    (dense or MoE) of `framework` on `gpus` GPUs (None: not checked) with context parallelism `cp`
    (communicated as `cp_comm`, the software's cp_comm_type): inside the class's calibration domain,
    the generation's interval (or, for a generation of under MIN_SOURCES publications, every
    generation's pooled); outside it, the envelope of every calibration run, saying why."""
    kind = "MoE" if moe else "dense"
    pct = f"{1 - 2 * BAND_QUANTILE:.0%}"
    name = generation.capitalize()  # "Hopper"
    stack = native(framework)
    own = BANDS.get(generation)
    got = own or POOLED
    outside: list[str] = []
    domain = (NATIVE_DOMAINS if stack else DOMAINS).get((generation, moe))
    if stack:
        kind = f"PyTorch-native {kind}"
    if domain is None:
        outside.append(f"no {name} {kind} calibration run")
    else:
        frameworks, fewest, most = domain
        if framework is not None and framework not in frameworks:
            outside.append(
                f"framework {framework}: the {name} {kind} calibration runs are "
                + ", ".join(frameworks)
            )
        if gpus is not None and not fewest <= gpus <= most:
            outside.append(
                f"{gpus:,} GPUs: the {name} {kind} calibration runs span {fewest:,} to {most:,}"
            )
    ring = native_cp_outside(framework, cp, cp_comm)
    if ring:
        outside.append(ring)
    if not outside:
        low, high, runs, sources = got
        what = (
            f"{runs} runs from {sources} published {name} benchmarks"
            if own
            else f"{runs} runs from all {sources} published benchmarks: the {name} runs come "
            f"from fewer than the {MIN_SOURCES} a generation's own interval needs"
        )
        return Band(
            low,
            high,
            f"an {pct} prediction interval of measured over predicted step time, for a run on a "
            f"setup other than dclint's calibration sources (random effects over {what}), "
            f"{_SOURCE}",
            runs,
        )
    low, high, runs = ENVELOPE
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
    cp_comm: str = "p2p",
) -> Band:
    """The band of a catalog GPU (its generation as dclint.projection.efficiency maps it)."""
    from dclint.projection.efficiency import GENERATION

    return band(GENERATION.get(gpu_key, gpu_key), moe, framework, gpus, cp, cp_comm)
