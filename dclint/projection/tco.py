"""`tco(design)`: the cluster's total cost of ownership over a period, item by item.

Capital items (hardware, network, storage, power and cooling infrastructure, building) are
counted in full within the period; software is per GPU-year, staff per year, electricity is
the racks' design IT load x average load x PUE x period x price. Items the design does not
declare are listed in `omitted`, never counted as zero silently. Break-even is the time at
which `value_per_gpu_year` x GPUs has paid the capital items and the running costs so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dclint.model.defaults import AVERAGE_LOAD, TCO_PERIOD
from dclint.model.resolve import topology_of
from dclint.projection.money import CurrencyError, convert
from dclint.projection.network_capex import network_capex
from dclint.projection.training import hardware_of
from dclint.projection.workloads import gpu_price
from dclint.units import Q_, Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["CAPITAL", "RUNNING", "Tco", "tco"]

CAPITAL = ("hardware", "network", "storage", "power_cooling_infrastructure", "building")
RUNNING = ("software", "staff", "electricity")


@dataclass(frozen=True)
class Tco:
    """A design's total cost of ownership over a period: each item, the items left out, the
    break-even and the assumptions."""

    design: str
    period: Quantity
    gpus: int
    currency: str
    items: dict[str, Quantity]
    omitted: tuple[str, ...]
    break_even: Quantity | None
    assumptions: tuple[str, ...]
    # the declared items left out of `items` (and listed in `omitted`) for want of an exchange
    # rate, as the assumptions say each: 'electricity omitted: no exchange rate from EUR ...'
    unconverted: tuple[str, ...] = ()

    @property
    def undeclared(self) -> tuple[str, ...]:
        """The omitted items the design does not declare (not those left out for want of an
        exchange rate, which `unconverted` says)."""
        rated = {n.split(" omitted: ", 1)[0] for n in self.unconverted}
        return tuple(k for k in self.omitted if k not in rated)

    @property
    def omissions(self) -> dict[str, list[str]]:
        """The omitted items by why each is left out, as every printer of the TCO says it
        (`dclint cost`, the review): {'not declared': [..., 'staff'], 'no exchange rate from
        EUR to CNY': ['electricity']}; a price that cannot be converted is not one the design
        does not declare."""
        by: dict[str, list[str]] = {}
        if self.undeclared:
            by["not declared"] = list(self.undeclared)
        for note in self.unconverted:
            name, _, why = note.partition(" omitted: ")
            by.setdefault(why.split(": declare ", 1)[0], []).append(name)
        return by

    @property
    def total(self) -> Quantity:
        return sum(self.items.values(), Q_(0.0, self.currency))

    @property
    def per_gpu_year(self) -> Quantity | None:
        if not self.gpus:
            return None
        return (self.total / (self.gpus * self.period.m_as("year"))).to(self.currency)

    def as_dict(self) -> dict[str, Any]:
        per = self.per_gpu_year
        return {
            "design": self.design,
            "period_years": self.period.m_as("year"),
            "gpus": self.gpus,
            "currency": self.currency,
            "total": self.total.m_as(self.currency),
            "per_gpu_year": per.m_as(self.currency) if per is not None else None,
            "items": {k: v.m_as(self.currency) for k, v in self.items.items()},
            "omitted": list(self.omitted),
            "omitted_why": self.omissions,
            "break_even_months": self.break_even.m_as("month") if self.break_even else None,
            "assumptions": list(self.assumptions),
        }


def _declared(
    design: Design, gpus: int, years: float, notes: list[str], unconverted: list[str]
) -> dict[str, Quantity]:
    """The declared items in the site's currency; one that cannot be converted is a note,
    in `notes` and in `unconverted`."""
    cost, site = design.cost, design.site
    try:
        network = cost.network if cost.network is not None else network_capex(design, notes)
    except CurrencyError as exc:  # the fabrics' prices in currencies the site cannot convert
        unconverted.append(f"network omitted: {exc}")
        notes.append(unconverted[-1])
        network = None
    raw: dict[str, Quantity | None] = {
        "network": network,
        "storage": cost.storage,
        "power_cooling_infrastructure": cost.power_cooling_infrastructure,
        "building": cost.building,
        "software": cost.software_per_gpu_year * gpus * years
        if cost.software_per_gpu_year is not None
        else None,
        "staff": cost.staff_per_year * years if cost.staff_per_year is not None else None,
    }
    hw = hardware_of(design, None)
    price, source = gpu_price(design, hw if not isinstance(hw, str) else None)
    raw["hardware"] = price * gpus if price is not None else None
    if price is not None:
        notes.append(f"hardware: {gpus} GPUs at {source}")
    if site.electricity_price is not None:
        load = cost.average_load if cost.average_load is not None else AVERAGE_LOAD
        if cost.average_load is None:
            notes.append(f"average load {load.m_as('percent'):g}% of design IT load (default)")
        energy = topology_of(design).it_load * load * site.pue * Q_(years, "year")
        raw["electricity"] = (energy * site.electricity_price).to_reduced_units()
    out: dict[str, Quantity] = {}
    for name, value in raw.items():
        if value is None:
            continue
        try:
            out[name] = convert(value, site.currency, site.exchange_rates)
        except CurrencyError as exc:
            unconverted.append(f"{name} omitted: {exc}")
            notes.append(unconverted[-1])
    return out


def tco(design: Design) -> Tco:
    """The design's TCO over cost.tco_period (default 3 years)."""
    period = design.cost.tco_period or TCO_PERIOD
    years = period.m_as("year")
    gpus = topology_of(design).gpus
    notes: list[str] = []
    if design.cost.tco_period is None:
        notes.append(f"period {years:g} years (default)")
    notes.append("capital items counted in full within the period")
    unconverted: list[str] = []
    items = _declared(design, gpus, years, notes, unconverted)
    order = [*CAPITAL, *RUNNING]
    items = {k: items[k] for k in order if k in items}
    omitted = tuple(k for k in order if k not in items)
    currency = design.site.currency
    if "network" in items:
        whole = sum(items.values(), Q_(0.0, currency))
        if whole.magnitude > 0:
            share = (items["network"] / whole).m_as("percent")
            notes.append(f"network: {share:.3g}% of the TCO ({fmt(items['network'])})")
    break_even = None
    value = design.cost.value_per_gpu_year
    if value is not None and gpus:
        try:
            per_year = convert(value, currency, design.site.exchange_rates) * gpus
        except CurrencyError as exc:
            notes.append(f"break-even not computed: {exc}")
        else:
            capital = sum((items[k] for k in CAPITAL if k in items), Q_(0.0, currency))
            running = sum((items[k] for k in RUNNING if k in items), Q_(0.0, currency)) / years
            margin = per_year - running
            if margin.magnitude > 0:
                break_even = Q_((capital / margin).m_as("dimensionless"), "year").to("month")
            else:
                notes.append("no break-even: value per year does not cover running costs")
    return Tco(
        design.name,
        period.to("year"),
        gpus,
        currency,
        items,
        omitted,
        break_even,
        tuple(notes),
        tuple(unconverted),
    )
