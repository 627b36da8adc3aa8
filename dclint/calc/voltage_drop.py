"""Voltage drop along feeders, busways and branch circuits: the resistive drop of the load's
current over the conductors' length, as a share of the circuit's voltage, each circuit alone and
summed from the top of the declared supply down to each rack feed."""

from __future__ import annotations

from dataclasses import dataclass

from dclint.calc.power import feed_allocation, panel_allocation
from dclint.model.site import Feed, Panel
from dclint.model.source import Path
from dclint.model.topology import CONDUCTOR_TEMPERATURE, Topology

__all__ = [
    "ALPHA",
    "IEC_SIZES_MM2",
    "RESISTIVITY_20C",
    "VoltageDrop",
    "circuit_drop",
    "resistivity",
    "voltage_drops",
]

# Resistivity at 20 degC in ohm mm^2/m and its temperature coefficient per K (IEC 60287-1-1,
# Table 1: copper 1.7241e-8 ohm m, 3.93e-3/K; aluminium 2.8264e-8 ohm m, 4.03e-3/K)
RESISTIVITY_20C = {"copper": 0.017241, "aluminium": 0.028264}
ALPHA = {"copper": 0.00393, "aluminium": 0.00403}
# Standard conductor cross-sections in mm^2 (IEC 60228), for the size a fix proposes
IEC_SIZES_MM2 = (1.5, 2.5, 4, 6, 10, 16, 25, 35, 50, 70, 95, 120, 150, 185, 240, 300, 400, 500,
                 630, 800, 1000)  # fmt: skip


def resistivity(material: str, celsius: float) -> float:
    """Resistivity in ohm mm^2/m at a conductor temperature: rho20 x (1 + alpha (T - 20))."""
    return RESISTIVITY_20C[material] * (1 + ALPHA[material] * (celsius - 20.0))


@dataclass(frozen=True)
class VoltageDrop:
    """One circuit's drop: the load it carries (kW), its current (A), its voltage (V), the
    conductors' resistance (ohm, one way), the drop in V and as a share of the voltage."""

    element: str
    kind: str  # "feed", or the panel's kind (panel, busway, switchboard, ups)
    path: Path
    load_kw: float
    amps: float
    volts: float
    ohms: float
    drop_v: float
    celsius: float

    @property
    def share(self) -> float:
        return self.drop_v / self.volts if self.volts > 0 else 0.0


def circuit_drop(
    circuit: Feed | Panel, element: str, kind: str, path: Path, volts: float, load_kw: float
) -> VoltageDrop | None:
    """The drop of `load_kw` over a circuit that declares its length and conductor size, or
    None. Three-phase: dV = sqrt(3) x I x R x PF, single-phase: 2 x I x R x PF, with
    I = P / (sqrt(3) V PF) or P / (V PF): the resistive part of the drop (reactance, which adds
    I x X x sin(phi) on large conductors, is not modelled); R at the conductor temperature."""
    if circuit.length is None or circuit.conductor_size is None or volts <= 0:
        return None
    tc = circuit.conductor_temperature
    celsius = CONDUCTOR_TEMPERATURE if tc is None else float(tc.m_as("degC"))
    area = float(circuit.conductor_size.m_as("mm^2")) * circuit.conductors_per_phase
    ohms = resistivity(circuit.conductor_material, celsius) * float(circuit.length.m_as("m")) / area
    pf = circuit.power_factor
    three = circuit.phases == 3
    amps = load_kw * 1000.0 / ((3**0.5 if three else 1.0) * volts * pf)
    drop = (3**0.5 if three else 2.0) * amps * ohms * pf
    return VoltageDrop(element, kind, path, load_kw, amps, volts, ohms, drop, celsius)


def voltage_drops(topo: Topology, peak: bool = True) -> dict[str, VoltageDrop]:
    """Every panel and feed that declares its length and conductor size, with its drop at the
    load it carries with one path lost (as PWR003 and PWR008 load them)."""

    def build() -> dict[str, VoltageDrop]:
        out: dict[str, VoltageDrop] = {}
        for pid, panel in topo.panels.items():
            m = panel.model
            kw = float(panel_allocation(topo, panel, peak=peak).m_as("kW"))
            got = circuit_drop(m, pid, str(m.kind), panel.path, float(m.voltage.m_as("V")), kw)
            if got is not None:
                out[pid] = got
        alloc = feed_allocation(topo, peak)
        for fid, feed in topo.feeds.items():
            kw = float(alloc[fid].m_as("kW"))
            got = circuit_drop(feed.model, fid, "feed", feed.path, feed.volts, kw)
            if got is not None:
                out[fid] = got
        return out

    return topo.derived.once((voltage_drops, peak), build)
