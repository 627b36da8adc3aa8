"""Every option of every PWR rule changes a verdict: each case fails if the option is ignored.

Each design is checked twice, with its option set in `.dclint.yaml` and with the defaults;
the findings of the rule must be exactly those listed, and differ between the two runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, TODAY
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run

SEVEN_PLUS_THREE = """
name: seven-active-three-planned
power:
  panels:
    - id: busway-a
      kind: busway
      voltage: 415 V
      current_rating: 2000 A  # line 8
      path: A
  feeds:
    - {id: 'tap-a[1-10]', panel: busway-a, voltage: 415 V, current_rating: 250 A, path: A}
racks:
  - {id: 'a[1-7]', platform: gb200-nvl72, feeds: [tap-a$n]}
  - {id: 'p[8-10]', platform: gb200-nvl72, status: planned, feeds: [tap-a$n]}
"""

TWO_PLANNED = """
name: two-planned
power:
  panels:
    - {id: busway-a, kind: busway, voltage: 415 V, current_rating: 2000 A, path: A}  # line 5
  feeds:
    - {id: 'tap-a[1-8]', panel: busway-a, voltage: 415 V, current_rating: 250 A, path: A}
racks:
  - {id: 'a[1-6]', platform: gb200-nvl72, it_load: 115 kW, feeds: [tap-a$n]}
  - {id: 'a[7-8]', platform: gb200-nvl72, it_load: 115 kW, status: planned, feeds: [tap-a$n]}
"""

NVL72_2N = """
name: nvl72-2n
power:
  feeds:
    - {id: ta1, voltage: 415 V, current_rating: 225 A, path: A}  # line 5
    - {id: tb1, voltage: 415 V, current_rating: 225 A, path: B}  # line 6
racks:
  - {id: r1, platform: gb200-nvl72, feeds: [ta1, tb1]}  # line 8
"""

RACKS = """
name: racks
racks:
  - {id: r1, platform: gb300-nvl72}  # line 4: 135 kW
  - {id: r2, it_load: 110 kW}  # line 5
"""

PHASES = """
name: phases
power:
  panels:
    - {id: pdu-1, voltage: 400 V, current_rating: 100 A}  # line 5
  feeds:
    - {id: f1, panel: pdu-1, phase: L1, phases: 1, voltage: 230 V, current_rating: 32 A}
    - {id: f2, panel: pdu-1, phase: L2, phases: 1, voltage: 230 V, current_rating: 32 A}
    - {id: f3, panel: pdu-1, phase: L3, phases: 1, voltage: 230 V, current_rating: 32 A}
racks:
  - {id: r1, it_load: 5.5 kW, feeds: [f1]}
  - {id: r2, it_load: 5 kW, feeds: [f2]}
  - {id: r3, it_load: 4.5 kW, feeds: [f3]}
"""

H100_PEAK = """
name: h100-peak
site: {utility_capacity: 500 kW, pue: 1.3}  # line 2
power:
  panels:
    - {id: sb-1, kind: switchboard, voltage: 415 V, current_rating: 1600 A, rating: 400 kW}
  feeds:
    - {id: 'h[01-10]', panel: sb-1, voltage: 415 V, current_rating: 100 A}
racks:
  - {id: 'h[01-10]', platform: hgx-h100, nodes: 4, feeds: [h$n]}
"""


def _example(rule: str, name: str = "bad.yaml") -> str:
    return (EXAMPLES / rule / name).read_text(encoding="utf-8")


SINGLE_PHASE = """
name: single-phase
power:
  feeds:
    - {id: s1, phases: 1, voltage: 230 V, current_rating: 100 A}
racks:
  - {id: r1, it_load: 15 kW, feeds: [s1]}  # line 7
"""

# (rule, design, config, findings of the rule with the config, findings with the defaults)
CASES = {
    # 10 x 120 kW = 1,200 kW on 1,092.6 kW: the three planned racks count; per rack, the
    # requirement is 3 x 80 kW (with them left out it would have been 252.6 kW left: a pass)
    "PWR002.per_rack counts planned racks": (
        "PWR002",
        SEVEN_PLUS_THREE,
        "PWR002: {per_rack: true}",
        [8],
        [8],
    ),
    # 8 x 115 = 920 kW on 1,092.6 kW: 172.6 kW left; 80 kW passes, 2 planned x 80 = 160 kW
    # passes too, so per_rack with 90 kW (180 kW) fails
    "PWR002.per_rack": (
        "PWR002",
        TWO_PLANNED,
        "PWR002: {per_rack: true, headroom: 90 kW}",
        [5],
        [],
    ),
    "PWR002.headroom": ("PWR002", TWO_PLANNED, "PWR002: {headroom: 180 kW}", [5], []),
    # the limit is the facility's, for every platform: the GB300 NVL72 (135 kW) fails the
    # 120 kW default, and both racks fail 100 kW
    "PWR001.limit": ("PWR001", RACKS, "PWR001: {limit: 100 kW}", [4, 5], [4]),
    # a configured limit for the GB300 NVL72 (its 142 kW rated maximum) lets r1 pass
    "PWR001.platform_limits": (
        "PWR001",
        RACKS,
        "PWR001: {platform_limits: {gb300-nvl72: 142 kW}}",
        [],
        [4],
    ),
    # 415 V / 225 A = 122.9 kW: the 132 kW max_power overloads it, the 120 kW design does not
    "PWR003.design_load": ("PWR003", NVL72_2N, "PWR003: {design_load: true}", [], [5, 6]),
    "PWR004.design_load": ("PWR004", NVL72_2N, "PWR004: {design_load: true}", [], [8]),
    # ten 4-node HGX H100 racks: 340 kW designed, 408 kW at the 10.2 kW catalog max_power;
    # the 400 kW switchboard (line 6) and the 500 kW utility (340 x 1.3 = 442 kW designed,
    # 408 x 1.3 = 530.4 kW at peak) pass only at the design load
    "PWR008.design_load": ("PWR008", H100_PEAK, "PWR008: {design_load: true}", [], [6]),
    "PWR006.design_load": ("PWR006", H100_PEAK, "PWR006: {design_load: true}", [], [3]),
    # the examples' eight NVL72 racks: 1,056 kW at their 132 kW peak, 960 kW designed, on a
    # UPS of 4 x 250 kW modules left (1,000 kW), a 1,050 kVA transformer (1,111.6 kVA at peak,
    # 1,010.5 designed) and 1,200 kW of firm generation at PUE 1.2 (1,267.2 / 1,152 kW)
    "PWR009.design_load": ("PWR009", _example("pwr009"), "PWR009: {design_load: true}", [], [10]),
    "PWR011.design_load": ("PWR011", _example("pwr011"), "PWR011: {design_load: true}", [], [7]),
    "PWR012.design_load": ("PWR012", _example("pwr012"), "PWR012: {design_load: true}", [], [9]),
    # a 3 min battery passes a 2 min least
    "PWR010.min_runtime": ("PWR010", _example("pwr010"), "PWR010: {min_runtime: 2 min}", [], [8]),
    # line currents 23.9 / 21.7 / 19.6 A at 230 V: 10% out of balance, a pass at the default 10%
    "PWR005.warning": ("PWR005", PHASES, "PWR005: {warning: 5%}", [(5, "warning")], []),
    "PWR005.error": ("PWR005", PHASES, "PWR005: {warning: 5%, error: 8%}", [(5, "error")], []),
    # pdu-1's feeder drops 3.41%, r3's feed 5.75% in all: a 4% limit passes the feeder
    "PWR014.limit": ("PWR014", _example("pwr014"), "PWR014: {limit: 4%}", [16], [13, 16]),
    "PWR014.total_limit": (
        "PWR014",
        _example("pwr014"),
        "PWR014: {total_limit: 6%}",
        [13],
        [13, 16],
    ),
    # 3.21% at the NVL72s' 132 kW peak, 2.92% at their 120 kW design load
    "PWR014.design_load": (
        "PWR014",
        _example("pwr014", "bad-peak.yaml"),
        "PWR014: {design_load: true}",
        [],
        [11],
    ),
    # 8 x 132 kW x 50% = 528 kW step; at the 120 kW design load 480 kW, exactly what 2 x
    # 2,000 kW x 12% accept
    "PWR015.design_load": (
        "PWR015",
        _example("pwr015"),
        "PWR015: {design_load: true}",
        [],
        [12],
    ),
    # without a declared step_load: 35% x 2 x 2,000 kW = 1,400 kW passes; 10% gives 400 kW
    "PWR015.default_step": (
        "PWR015",
        _example("pwr015").replace("      step_load: 12%  # expect: PWR015\n", ""),
        "PWR015: {default_step: 10%}",
        [9],
        [],
    ),
    "PWR007.threshold": (
        "PWR007",
        SINGLE_PHASE,
        "PWR007: {threshold: 14 kW}",
        [(7, "warning")],
        [],
    ),
}


def _lines(tmp_path: Path, rule: str, design: str, config: str | None) -> list[Any]:
    """(line, severity) of the rule's findings; lines alone for rules with one severity."""
    folder = tmp_path / ("set" if config else "default")
    folder.mkdir()
    (folder / "design.yaml").write_text(design, encoding="utf-8")
    if config:
        (folder / ".dclint.yaml").write_text(config + "\n", encoding="utf-8")
    result = run([str(folder / "design.yaml")], Engine(today=TODAY))
    assert not result.errors, [str(e) for e in result.errors]
    found = [f for f in result.findings if f.rule == rule]
    if rule in ("PWR005", "PWR007"):
        return sorted((f.line, f.severity) for f in found)
    return sorted(f.line for f in found)


@pytest.mark.parametrize("case", sorted(CASES))
def test_option_changes_the_verdict(tmp_path: Path, case: str) -> None:
    rule, design, config, with_option, by_default = CASES[case]
    assert _lines(tmp_path, rule, design, config) == with_option
    assert _lines(tmp_path, rule, design, None) == by_default
    if case != "PWR002.per_rack counts planned racks":
        assert with_option != by_default


def test_every_power_option_has_a_case() -> None:
    covered = {case.split(" ")[0] for case in CASES}
    options = {
        f"{rid}.{name}"
        for rid, cls in discover().items()
        if rid.startswith("PWR")
        for name in cls.options
    }
    assert options <= covered, sorted(options - covered)
