"""Issue 52's "done when": the eleven engineering cases of the plant, each built here, its figure
derived by hand in the test from the formula a facility engineer uses (source in the comment),
and the rule's verdict and the figure it prints checked: the figure in the message within 2% of
the hand figure, and the case on the other side of the limit passing. The arithmetic is written
out, not copied from dclint's calculators."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from conftest import EXAMPLES
from dclint.engine.findings import Finding
from dclint.engine.runner import Engine, run

WATER_RHO, WATER_CP = 997.0, 4.18  # kg/m^3, kJ/(kg K) at 25 degC (NIST Chemistry WebBook)


def _check(tmp_path: Path, text: str, rule: str) -> list[Finding]:
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    return [f for f in run([str(path)], Engine()).findings if f.rule == rule]


def _figure(message: str, pattern: str) -> float:
    """The number the regex `pattern`'s first group finds in a message ('1,056' reads 1056)."""
    found = re.search(pattern, message)
    assert found is not None, f"{pattern!r} not in {message!r}"
    return float(found.group(1).replace(",", ""))


def _within_2pct(printed: float, hand: float) -> None:
    assert printed == pytest.approx(hand, rel=0.02), (printed, hand)


NUM = r"(-?[\d,]+(?:\.\d+)?)"


# 1. Distributed-redundant UPS ("4N/3") -------------------------------------------------------

DR = (EXAMPLES / "pwr009" / "good-distributed.yaml").read_text(encoding="utf-8")


def test_distributed_redundant_ups_worst_survivor_is_total_over_n_minus_1(tmp_path: Path) -> None:
    # N = 4 UPS, six 100 kW racks, one on each of the C(4, 2) = 6 pairs, A and B cords sharing:
    # one UPS lost, its racks' halves go to their other UPS, one rack to each of its 3 partners.
    # Worst survivor: total / (N - 1) (Uptime Institute, Tier Standard: Topology, distributed
    # redundancy; each rack shared by its live feeds)
    n, total = 4, 6 * 100.0
    survivor = total / (n - 1)  # 200 kW, not the 300 kW of "every rack at full load on each"
    assert survivor == 200.0
    assert _check(tmp_path, DR, "PWR009") == []  # 200 kW on 250 kW UPS: passes
    found = _check(tmp_path, DR.replace("rating: 250 kW", "rating: 190 kW"), "PWR009")
    assert sorted(f.subject for f in found) == ["ups-1", "ups-2", "ups-3", "ups-4"]
    for f in found:
        _within_2pct(_figure(f.message, rf"carries {NUM} kW"), survivor)
        assert "its worst single failure" in f.message


# 2. Tier III CDU without a spare ----------------------------------------------------------------

CDU_TIER = """\
name: tier-cdu
site: {uptime_tier: III}
racks:
  - {id: 'r[1-8]', platform: gb200-nvl72, it_load: 120 kW}
cooling:
  cdus:
    - {id: cdu-1, capacity: 2000 kW, max_flow: 2125 L/min}
  loops:
    - {id: l1, cdu: cdu-1, supply_temperature: 32 degC, return_temperature: 42 degC,
       racks: ['r[1-8]']}
"""


def test_tier_iii_cdu_carrying_816_kw_with_no_spare(tmp_path: Path) -> None:
    # liquid heat: 8 racks x 120 kW x 85% to liquid (OCP GB200 rack specification) = 816 kW on
    # one CDU no other backs up: Tier III (concurrently maintainable, Uptime Institute) loses
    # the racks' cooling with it out
    heat = 8 * 120.0 * 0.85
    (finding,) = _check(tmp_path, CDU_TIER, "CLG011")
    _within_2pct(_figure(finding.message, rf"carries {NUM} kW of liquid heat"), heat)
    assert "no other CDU backs it up" in finding.message
    # a second CDU in its group that can carry the 816 kW alone: concurrently maintainable
    spared = CDU_TIER.replace(
        "    - {id: cdu-1, capacity: 2000 kW, max_flow: 2125 L/min}\n",
        "    - {id: cdu-1, capacity: 2000 kW, max_flow: 2125 L/min, redundancy_group: g}\n"
        "    - {id: cdu-2, capacity: 2000 kW, max_flow: 2125 L/min, redundancy_group: g}\n",
    )
    assert _check(tmp_path, spared, "CLG011") == []


# 3. The switches' power on the utility ----------------------------------------------------------


def test_twelve_switches_make_450_8_kw_on_a_440_kw_utility(tmp_path: Path) -> None:
    text = (EXAMPLES / "pwr006" / "bad-switches.yaml").read_text(encoding="utf-8")
    # racks: 8 x 4 HGX H100 nodes x 10.2 kW (catalog max_power) = 326.4 kW; switches: 12 QM9700
    # x 1.7 kW (catalog power) = 20.4 kW; facility = IT x PUE (The Green Grid, WP 49)
    racks, switches = 8 * 4 * 10.2, 12 * 1.7
    facility = (racks + switches) * 1.3  # 450.84 kW > 440 kW
    (finding,) = _check(tmp_path, text, "PWR006")
    _within_2pct(_figure(finding.message, rf"= {NUM} kW exceeds"), facility)
    _within_2pct(_figure(finding.message, rf"fabric switches {NUM} kW"), switches)
    # the same racks without the switches (held in the racks' load): 424.3 kW passes
    assert racks * 1.3 < 440
    held = text.replace(
        "    kind: compute\n", "    kind: compute\n    switches_in_rack_load: true\n"
    )
    assert _check(tmp_path, held, "PWR006") == []


# 4. 208 V single-phase from a 208Y/120 V panel -------------------------------------------------

US = """\
name: us
power:
  panels:
    - {id: p208, voltage: 208 V, current_rating: 225 A}
  feeds:
    - {id: ll, panel: p208, phases: 1, voltage: 208 V, current_rating: 30 A}
racks:
  - {id: r1, it_load: LOAD, feeds: [ll]}
"""


def test_a_208_v_single_phase_feed_is_read_line_to_line(tmp_path: Path) -> None:
    # single-phase capacity: V x I x 80% continuous (NEC 210.19(A)(1)) x PF 0.95, at the 208 V
    # written (line-to-line of the 208Y/120 V panel), not 120 V line-to-neutral
    at_208 = 208 * 30 * 0.8 * 0.95 / 1000  # 4.742 kW
    at_120 = 120 * 30 * 0.8 * 0.95 / 1000  # 2.736 kW
    assert _check(tmp_path, US.replace("LOAD", "4 kW"), "PWR003") == []  # 4 kW: 2.736 < 4 < 4.742
    (finding,) = _check(tmp_path, US.replace("LOAD", "5 kW"), "PWR003")
    assert at_120 < 4 < at_208
    _within_2pct(finding.limit.m_as("kW"), at_208)
    _within_2pct(_figure(finding.message, rf"carries {NUM} kW"), 5.0)
    assert "line-to-line of p208's 208 V, as written" in finding.message


# 5. Feeder voltage drop -------------------------------------------------------------------------


def test_a_200_m_feeder_drops_3_4_percent(tmp_path: Path) -> None:
    text = (EXAMPLES / "pwr014" / "bad.yaml").read_text(encoding="utf-8")
    # 336 kW at 415 V, PF 0.95: I = P / (sqrt(3) V PF); R = rho x L / A with copper's rho at
    # 75 degC = 0.017241 x (1 + 0.00393 x 55) ohm mm^2/m (IEC 60287-1-1 Table 1);
    # dV = sqrt(3) x I x R x PF (resistive part); against 3% (NEC 215.2(A) informational note)
    amps = 336e3 / (math.sqrt(3) * 415 * 0.95)
    ohms = 0.017241 * (1 + 0.00393 * (75 - 20)) * 200 / 240
    drop = math.sqrt(3) * amps * ohms * 0.95
    share = 100 * drop / 415  # 3.41%
    found = {f.subject: f for f in _check(tmp_path, text, "PWR014")}
    msg = found["pdu-1"].message
    _within_2pct(_figure(msg, rf"drops {NUM}%"), share)
    _within_2pct(_figure(msg, rf"\({NUM} V of 415 V\)"), drop)
    # the same feeder on 300 mm^2: 3.41 x 240 / 300 = 2.73%, under 3%
    assert share * 240 / 300 < 3
    bigger = text.replace("conductor_size: 240 mm^2", "conductor_size: 300 mm^2")
    assert "pdu-1" not in {f.subject for f in _check(tmp_path, bigger, "PWR014")}


# 6. Generator step load from a training job's power swing --------------------------------------


def test_a_training_swing_steps_the_generators(tmp_path: Path) -> None:
    text = (EXAMPLES / "pwr015" / "bad.yaml").read_text(encoding="utf-8")
    # step = racks' peak x swing: 8 x 132 kW (GB200 NVL72 power shelves) x 50%; accepted at once:
    # working sets x rating x first-step share (ISO 8528-5 load acceptance, the maker's 12%)
    step = 8 * 132.0 * 0.50  # 528 kW
    accepted = 2 * 2000.0 * 0.12  # 480 kW
    (finding,) = _check(tmp_path, text, "PWR015")
    _within_2pct(_figure(finding.message, rf"sees a {NUM} kW load step"), step)
    _within_2pct(finding.limit.m_as("kW"), accepted)  # the limit, which the suffix prints
    # 60% smoothing (platform power smoothing, e.g. GB300's) leaves 211.2 kW: passes
    assert step * 0.4 < accepted
    smoothed = text.replace("  load_swing: 50%\n", "  load_swing: 50%\n  swing_smoothing: 60%\n")
    assert _check(tmp_path, smoothed, "PWR015") == []


# 7. Design-day PUE for capacity -----------------------------------------------------------------


def test_utility_and_generators_are_sized_on_the_design_day_pue(tmp_path: Path) -> None:
    text = (EXAMPLES / "pwr006" / "bad-design-pue.yaml").read_text(encoding="utf-8")
    # facility = IT x PUE; on the design day (ASHRAE 0.4%) PUE 1.35, not the annual 1.15
    # (ISO/IEC 30134-2: PUE is an annual energy ratio)
    (finding,) = _check(tmp_path, text, "PWR006")
    _within_2pct(_figure(finding.message, rf"design-day PUE 1.35 = {NUM} kW"), 800 * 1.35)
    assert 800 * 1.15 <= 1000  # the annual PUE would pass
    gens = """\
name: gens
site: {pue: 1.1, design_pue: 1.3}
power:
  generators:
    - {id: gen, site_rating: 1200 kW, count: 2, redundant: 1}
racks:
  - {id: 'r[1-8]', platform: gb200-nvl72}
"""
    # 8 x 132 kW peak = 1,056 kW x 1.3 = 1,372.8 kW above one set's 1,200 kW (x 1.1 would be
    # 1,161.6 kW and pass)
    (gen,) = _check(tmp_path, gens, "PWR012")
    _within_2pct(_figure(gen.message, rf"design-day PUE 1.3 = {NUM} kW"), 8 * 132 * 1.3)
    assert 8 * 132 * 1.1 <= 1200
    assert _check(tmp_path, gens.replace("design_pue: 1.3", "design_pue: 1.1"), "PWR012") == []


# 8. A CDU's pump curve against the loop's pressure drop ----------------------------------------


def test_the_pumps_and_the_loop_meet_short_of_the_flow(tmp_path: Path) -> None:
    text = (EXAMPLES / "clg014" / "bad.yaml").read_text(encoding="utf-8")
    # need: Q = heat / (rho cp dT) = 800 kW / (997 x 4.18 x 10 K) = 1,151.8 L/min; pump curve a
    # straight line through (100 L/min, 286.7 kPa) and (1,500 L/min, 100 kPa); the loop's drop
    # rises as the square of the flow (affinity laws): 200 kPa x (Q / need)^2. They meet where
    # head(Q) = drop(Q): solved by bisection.
    need = 800.0 / (WATER_RHO * WATER_CP * 10) * 60_000  # L/min

    def head(q: float) -> float:
        return 286.7 + (100.0 - 286.7) * (q - 100) / 1400

    def drop(q: float) -> float:
        return 200.0 * (q / need) ** 2

    lo, hi = 100.0, need
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if head(mid) > drop(mid) else (lo, mid)
    meet = (lo + hi) / 2  # 1,036 L/min
    short = 100 * (1 - meet / need)  # 10.0%
    (finding,) = _check(tmp_path, text, "CLG014")
    _within_2pct(finding.limit.m_as("kPa"), head(need))  # the pumps' head, the limit
    _within_2pct(_figure(finding.message, rf"meet at {NUM} L/min"), meet)
    _within_2pct(_figure(finding.message, rf"{NUM}% short"), short)
    # a loop dropping 140 kPa at the need: under the 146.4 kPa the pumps give there
    assert head(need) > 140
    lighter = text.replace("pressure_drop: 200 kPa", "pressure_drop: 140 kPa")
    assert _check(tmp_path, lighter, "CLG014") == []


# 9. A dry cooler on the design day --------------------------------------------------------------


def test_dry_coolers_at_the_design_day_dry_bulb(tmp_path: Path) -> None:
    text = (EXAMPLES / "clg012" / "bad.yaml").read_text(encoding="utf-8")
    # a dry cooler's capacity scales with its initial temperature difference, entering water
    # minus ambient dry bulb (makers' selection data; ASHRAE Handbook - HVAC Systems and
    # Equipment, dry coolers): 600 kW x (45 - 40) / (45 - 35) = 300 kW a unit, 2 working of 3
    unit = 600.0 * (45 - 40) / (45 - 35)
    firm, heat = 2 * unit, 8 * 120 * 0.85  # 600 kW for 816 kW of liquid heat
    (finding,) = _check(tmp_path, text, "CLG012")
    _within_2pct(_figure(finding.message, rf"must reject {NUM} kW"), heat)
    _within_2pct(finding.limit.m_as("kW"), firm)  # what the 2 of 3 units reject, the limit
    # at a 35 degC design day the rating holds: 2 x 600 = 1,200 kW carries 816 kW
    cooler = text.replace("design_dry_bulb: 40 degC", "design_dry_bulb: 35 degC")
    assert _check(tmp_path, cooler, "CLG012") == []


# 10. Freeze protection of an outdoor loop -------------------------------------------------------


def test_an_outdoor_loop_freezes_above_the_site_minimum(tmp_path: Path) -> None:
    text = (EXAMPLES / "clg013" / "bad.yaml").read_text(encoding="utf-8")
    # 25% propylene glycol by mass freezes at -9.6 degC (ASHRAE Handbook - Fundamentals ch. 31
    # Table 5; Dow DOWFROST guide); the site reaches -18 degC, and the fluid should freeze 3 K
    # below it (-21 degC): 40% by mass (-21.1 degC) would do
    found = {f.subject: f for f in _check(tmp_path, text, "CLG013")}
    _within_2pct(_figure(found["dc"].message, rf"freezes at {NUM} degC"), -9.6)
    assert found["dc"].limit.m_as("degC") == pytest.approx(-18 - 3)
    forty = text.replace("glycol_share: 25%", "glycol_share: 40%")
    assert "dc" not in {f.subject for f in _check(tmp_path, forty, "CLG013")}


# 11. Rear doors on warm water -------------------------------------------------------------------


def test_rear_door_air_off_above_the_inlet_limit(tmp_path: Path) -> None:
    text = (EXAMPLES / "clg009" / "bad-effectiveness.yaml").read_text(encoding="utf-8")
    # coil effectiveness e = (air in - air out) / (air in - water in) (ASHRAE Handbook - HVAC
    # Systems and Equipment, coils); with the racks' rise dT = air in - air out, the air leaving
    # is water + dT x (1 - e) / e = 24 + 15 x 0.3 / 0.7 = 30.43 degC, above the 27 degC ASHRAE
    # recommended inlet (Thermal Guidelines for Data Processing Environments)
    air_off = 24 + 15 * (1 - 0.7) / 0.7
    (finding,) = _check(tmp_path, text, "CLG009")
    _within_2pct(_figure(finding.message, rf"returns air at {NUM} degC"), air_off)
    # 18 degC water: 24.43 degC air, under 27 degC
    assert 18 + 15 * 0.3 / 0.7 < 27
    cold = text.replace("supply_temperature: 24 degC", "supply_temperature: 18 degC")
    assert _check(tmp_path, cold, "CLG009") == []
