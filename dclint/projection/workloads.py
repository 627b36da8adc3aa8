"""`project_workloads(design)`: one Projection a workload, with time, energy, cost and memory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dclint.model.defaults import DEPRECIATION
from dclint.model.resolve import topology_of
from dclint.model.workload import Workload
from dclint.projection.flops import FlopsCount
from dclint.projection.memory import MemoryEstimate
from dclint.projection.money import CurrencyError, convert
from dclint.projection.training import Hardware, Timing, attributable_power, hardware_of, timing
from dclint.units import Q_, Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = [
    "Projection",
    "gpu_price",
    "hfu",
    "hfu_predicted",
    "mfu_convention",
    "project_workloads",
    "unprojected",
]


@dataclass(frozen=True)
class Projection:
    """A workload's projected run. Quantities carry units; `as_dict()` gives JSON values."""

    design: str
    workload: str
    index: int  # position in design.workloads, for design paths
    gpu: str
    gpus: int
    precision: str
    timing: Timing
    it_power: Quantity
    facility_power: Quantity
    energy: Quantity
    currency: str
    cost_breakdown: dict[str, Quantity]
    efficiency: Quantity  # peak dense FLOPS per watt of GPU board power
    assumptions: tuple[str, ...]
    # the declared prices left out of cost_breakdown for want of an exchange rate, each as the
    # assumptions say it ('electricity cost omitted: no exchange rate from EUR to CNY: ...'):
    # a table that shows the cost without the assumptions says so beside it
    unconverted: tuple[str, ...] = ()

    @property
    def flops(self) -> FlopsCount:
        return self.timing.flops

    @property
    def memory(self) -> MemoryEstimate:
        return self.timing.memory

    @property
    def training_time(self) -> Quantity:
        return self.timing.wall

    @property
    def training_band(self) -> tuple[Quantity, Quantity] | None:
        """The training days' calibration band, (low, high) in days: the days x the step
        model's calibration factors, where the MFU is the predicted one (None otherwise). The
        one place it is computed: `dclint cost`, `dclint diff`, `check --sweep` and the review
        (JSON `training_days_band`) print it."""
        t = self.timing
        if t.prediction is None or not t.mfu_source.startswith("predicted"):
            return None
        return t.prediction.band.scaled(self.training_time.to("day"))

    @property
    def gpu_hours(self) -> Quantity:
        return (self.training_time * self.gpus).to("hour")

    @property
    def cost_total(self) -> Quantity:
        return sum(self.cost_breakdown.values(), Q_(0.0, self.currency))

    @property
    def cost(self) -> Quantity | None:
        """The run's cost where the design prices any of it, None where it prices nothing (no
        electricity price, GPU price or system price): such a run is not free."""
        return self.cost_total if self.cost_breakdown else None

    @property
    def cost_unpriced(self) -> str | None:
        """Why the run has no cost (JSON `cost_unpriced`, beside a null `cost_total`): the
        assumptions that say which prices are missing; None where the run is priced."""
        if self.cost_breakdown:
            return None
        omitted = [n for n in self.assumptions if " omitted: " in n]
        return "nothing priced: " + ("; ".join(omitted) or "no price declared")

    @property
    def mfu_convention(self) -> str:
        """How the MFU and HFU count FLOPs (JSON `mfu_convention`)."""
        return mfu_convention(self)

    @property
    def hfu(self) -> float | None:
        """The HFU at the MFU used (JSON `hfu`, `dclint cost`'s 'HFU at the MFU')."""
        return hfu(self.timing)

    @property
    def hfu_predicted(self) -> float | None:
        """The HFU of the predicted step (JSON `hfu_predicted`, 'HFU predicted')."""
        return hfu_predicted(self.timing)

    def as_dict(self) -> dict[str, Any]:
        t = self.timing
        return {
            "design": self.design,
            "workload": self.workload,
            "flops": t.flops.model.m_as("FLOP"),
            "hardware_flops": t.flops.hardware.m_as("FLOP"),
            "flops_formula": t.flops.formula,
            "gpu": self.gpu,
            "gpus": self.gpus,
            "precision": self.precision,
            "peak_tflops_per_gpu": t.peak.m_as("TFLOPS"),
            "mfu": t.mfu.m_as("dimensionless"),
            "mfu_source": t.mfu_source,
            "mfu_convention": mfu_convention(self),
            "training_days": self.training_time.m_as("day"),
            "training_days_band": _days(self.training_band),
            "compute_days": t.compute.m_as("day"),
            "communication_days": t.communication.m_as("day"),
            "rampup_days": t.rampup.m_as("day"),
            "evaluation_days": t.evaluation.m_as("day"),
            "checkpoint_days": t.checkpoint.m_as("day"),
            "failure_days": t.failures.m_as("day"),
            "goodput": t.goodput.m_as("dimensionless"),
            **_step_dict(t),
            "gpu_hours": self.gpu_hours.m_as("hour"),
            "it_power_kw": self.it_power.m_as("kW"),
            "facility_power_kw": self.facility_power.m_as("kW"),
            "energy_mwh": self.energy.m_as("MWh"),
            "tflops_per_watt": self.efficiency.m_as("TFLOPS/W"),
            "currency": self.currency,
            "cost_total": None if self.cost is None else self.cost.m_as(self.currency),
            "cost_unpriced": self.cost_unpriced,
            "cost_breakdown": {k: v.m_as(self.currency) for k, v in self.cost_breakdown.items()},
            "memory_per_gpu_gib": {
                **{k: v.m_as("GiB") for k, v in self.memory.breakdown().items()},
                "total": self.memory.total.m_as("GiB"),
            },
            "assumptions": list(self.assumptions),
        }


def mfu_convention(p: Projection) -> str:
    """How the MFU and HFU count FLOPs, e.g. 'exact count, causal attention; model FLOPs'."""
    return f"{p.timing.flops.convention}; {p.timing.mfu_basis} FLOPs"


def _to_hardware(t: Timing, mfu: Quantity) -> float:
    """`mfu` (on the workload's `mfu_basis` FLOPs) as an HFU of the same count: the recomputed
    FLOPs added, so never below the MFU (equal to it on hardware FLOPs)."""
    work = t.flops.hardware if t.mfu_basis == "hardware" else t.flops.model
    return float(mfu.m_as("") * (t.flops.hardware / work).m_as(""))


def hfu(t: Timing) -> float | None:
    """The HFU at the MFU used (JSON `hfu`, `dclint cost`'s 'HFU'); the step model's own where
    the run has no step time; None where the model did not run."""
    pred = t.prediction
    if pred is None:
        return None
    if t.step_time is None:
        return float(pred.hfu.m_as(""))
    return _to_hardware(t, t.mfu)


def hfu_predicted(t: Timing) -> float | None:
    """The HFU of the predicted step, on the count and basis of `mfu_predicted` (JSON
    `hfu_predicted`, `dclint cost`'s 'HFU predicted'); None where the model did not run."""
    if t.mfu_predicted is None:
        return None
    return _to_hardware(t, t.mfu_predicted)


def _days(band: tuple[Quantity, Quantity] | None) -> list[float] | None:
    return None if band is None else [band[0].m_as("day"), band[1].m_as("day")]


def _step_dict(t: Timing) -> dict[str, Any]:
    """The step model's keys of a projection (None where the model could not run)."""
    pred = t.prediction
    step = t.step_time
    rel = t.reliability
    out: dict[str, Any] = {
        "step_time_s": step.m_as("s") if step is not None else None,
        "step_breakdown": (
            {k: v.m_as("s") for k, v in pred.breakdown.items()} if pred is not None else None
        ),
        "step_time_predicted_s": pred.step_time.m_as("s") if pred is not None else None,
        "mfu_predicted": t.mfu_predicted.m_as("") if t.mfu_predicted is not None else None,
        "mfu_gap": None,
        "hfu": hfu(t),
        "hfu_predicted": hfu_predicted(t),
        "tokens_per_second": None,
        "prediction_unavailable": t.prediction_note or None,
        "mtbf_hours": rel.mtbf.m_as("hour") if rel is not None else None,
        "checkpoint_interval_optimal_min": (
            rel.optimal_interval.m_as("minute") if rel is not None and rel.save.magnitude else None
        ),
        "uncertainty": _band_dict(t),
    }
    if step is not None and pred is not None:
        out["tokens_per_second"] = pred.tokens_per_step / step.m_as("s")
    if t.mfu_predicted is not None and not t.mfu_source.startswith("predicted"):
        out["mfu_gap"] = t.mfu.m_as("") / t.mfu_predicted.m_as("") - 1
    return out


def _band_dict(t: Timing) -> dict[str, Any] | None:
    """The predicted step time and MFU as (low, high) from the calibration residuals of the
    GPU generation (dclint.projection.uncertainty; the envelope outside the calibration domain
    of the workload's class), and where they come from."""
    pred = t.prediction
    if pred is None:
        return None
    step = pred.band.step_time(pred.step_time.m_as("s"))
    mfu = pred.band.mfu(t.mfu_predicted.m_as("")) if t.mfu_predicted is not None else None
    return {
        "step_time_s": list(step),
        "mfu": list(mfu) if mfu is not None else None,
        **pred.band.as_dict(),
    }


def gpu_price(design: Design, hw: Hardware | None) -> tuple[Quantity | None, str]:
    """Price of one GPU's share of the hardware: cost.gpu_price, or system_price over the
    system's GPUs (a rack's for rack platforms, a node's for node platforms)."""
    cost = design.cost
    if cost.gpu_price is not None:
        return cost.gpu_price, "cost.gpu_price"
    if cost.system_price is not None and hw is not None and hw.platform is not None:
        return cost.system_price / hw.platform.gpus, f"cost.system_price / {hw.platform.gpus} GPUs"
    return None, ""


def _costs(
    design: Design,
    wl: Workload,
    hw: Hardware,
    wall: Quantity,
    energy: Quantity,
    notes: list[str],
    unconverted: list[str],
) -> dict[str, Quantity]:
    """The run's priced items; a declared price that cannot be converted to the site's
    currency is a note, in `notes` and in `unconverted`."""
    site, currency = design.site, design.site.currency
    out: dict[str, Quantity] = {}
    if site.electricity_price is not None:
        try:
            out["electricity"] = convert(
                (energy * site.electricity_price).to_reduced_units(), currency, site.exchange_rates
            )
        except CurrencyError as exc:
            unconverted.append(f"electricity cost omitted: {exc}")
            notes.append(unconverted[-1])
    else:
        notes.append("electricity cost omitted: site.electricity_price not declared")
    price, source = gpu_price(design, hw)
    life = design.cost.depreciation or DEPRECIATION
    if price is None:
        notes.append("hardware depreciation omitted: cost.gpu_price (or system_price) missing")
    else:
        try:
            per_gpu = convert(price, currency, site.exchange_rates)
        except CurrencyError as exc:
            unconverted.append(f"hardware depreciation omitted: {exc}")
            notes.append(unconverted[-1])
        else:
            share = (wall / life).to("dimensionless")
            out["depreciation"] = (per_gpu * wl.gpus * share).to(currency)
            notes.append(
                f"depreciation: {source}, straight line over {life.m_as('year'):g} years"
                + (" (default)" if design.cost.depreciation is None else "")
            )
    network = _network_share(design, wl, wall, life, notes, unconverted)
    if network is not None:
        out["network"] = network
    return out


def _network_share(
    design: Design,
    wl: Workload,
    wall: Quantity,
    life: Quantity,
    notes: list[str],
    unconverted: list[str],
) -> Quantity | None:
    """The run's share of the network capex (declared `cost.network`, else the fabrics at
    their prices): the workload's GPUs over the cluster's, straight line over the hardware's
    depreciation period, as the GPUs are."""
    from dclint.projection.network_capex import network_capex

    cost, site = design.cost, design.site
    cluster = topology_of(design).gpus
    try:
        capex = cost.network if cost.network is not None else network_capex(design, [])
        if capex is None or cluster <= 0:
            return None
        total = convert(capex, site.currency, site.exchange_rates)
    except CurrencyError as exc:
        unconverted.append(f"network depreciation omitted: {exc}")
        notes.append(unconverted[-1])
        return None
    gpus = min(wl.gpus, cluster)
    share = (wall / life).to("dimensionless") * gpus / cluster
    what = "cost.network" if cost.network is not None else "the fabrics at cost prices"
    notes.append(
        f"network depreciation: {gpus:,} of the cluster's {cluster:,} GPUs' share of "
        f"{fmt(total)} network capex ({what}), straight line over {life.m_as('year'):g} years"
    )
    return (total * share).to(site.currency)


def _project(design: Design, index: int, wl: Workload) -> Projection | str:
    hw = hardware_of(design, wl.platform)
    if isinstance(hw, str):
        return hw
    t = timing(design, wl, hw)
    if isinstance(t, str):
        return t
    notes = list(t.assumptions)
    it_power, basis = attributable_power(design, wl, hw)
    notes.append(f"power: {basis}; PUE {design.site.pue:g}")
    facility = (it_power * design.site.pue).to("kW")
    energy = (facility * t.wall).to("MWh")
    unconverted: list[str] = []
    costs = _costs(design, wl, hw, t.wall, energy, notes, unconverted)
    notes.extend(t.memory.notes)
    efficiency = (t.peak / hw.gpu.tdp).to("TFLOPS/W")
    return Projection(
        design.name,
        wl.id,
        index,
        hw.gpu_key,
        wl.gpus,
        wl.precision,
        t,
        it_power,
        facility,
        energy,
        design.site.currency,
        costs,
        efficiency,
        tuple(notes),
        tuple(unconverted),
    )


def _all(design: Design) -> list[tuple[str, Projection | str]]:
    # Rules, the JSON report and `dclint cost` all ask: compute once per design.
    def build() -> list[tuple[str, Projection | str]]:
        return [(wl.id, _project(design, i, wl)) for i, wl in enumerate(design.workloads)]

    return topology_of(design).derived.once(_all, build)


def project_workloads(design: Design) -> list[Projection]:
    """Projections of every workload that can be projected (see `unprojected` for the rest)."""
    return [p for _, p in _all(design) if isinstance(p, Projection)]


def unprojected(design: Design) -> list[tuple[str, str]]:
    """(workload id, reason) for the workloads `project_workloads` leaves out."""
    return [(wid, p) for wid, p in _all(design) if isinstance(p, str)]
